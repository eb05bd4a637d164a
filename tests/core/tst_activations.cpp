// Bytes autograd keeps for backward, per sample, worked out by hand from what each PyTorch op
// saves (tools/autograd/derivatives.yaml); the LeNet figure is also checked against a torch run in
// the reference suite.
#include "NetworkBuilder.h"
#include "headroom/analysis/Analysis.h"

#include <QTest>

using namespace headroom;
using namespace headroom::test;
using nlohmann::json;

class TestActivations : public QObject
{
    Q_OBJECT
private slots:
    void lenetPerLayer();
    void lenetMixedPrecision();
    void lenetPureHalf();
    void inplaceSharesStorage();
    void dropoutMask_data();
    void dropoutMask();
    void batchNormStatisticsAreFixed();
    void adaptivePoolToOneKeepsNothing();
    void residualBranchCountedOnce();
    void lossesKeepWhatTheySave();
    void transientIsLargestGradientPair();
    void overflowIsAnError();
};

void TestActivations::lenetPerLayer()
{
    // conv1 keeps the network input (counted as input); relu keeps its output 6x28x28 fp32 = 18,816;
    // maxpool keeps relu's output (already kept) + int64 indices 6x14x14 = 9,408; conv2 keeps the pooled
    // 6x14x14 fp32 = 4,704; relu 16x10x10 = 6,400; maxpool indices 16x5x5 = 3,200; flatten is a view;
    // fc1 keeps the pooled 400 floats = 1,600; relu 120 = 480; fc2 keeps relu's output (already kept);
    // relu 84 = 336; fc3 likewise; cross-entropy keeps log_softmax of 10 logits = 40.
    const std::vector<std::uint64_t> expected { 0, 18816, 9408, 4704, 6400, 3200, 0, 1600, 480, 0, 336, 0,
        40 };
    const Analysis a = analyze(lenet5(), Precision::Fp32);
    QVERIFY(a.valid());
    QCOMPARE(a.rows.size(), expected.size());
    std::uint64_t sum = 0;
    for (std::size_t i = 0; i < expected.size(); ++i) {
        QVERIFY2(a.rows[i].activationBytesPerSample == expected[i],
            qPrintable(QStringLiteral("%1: %2 != %3")
                           .arg(QString::fromStdString(a.rows[i].name))
                           .arg(a.rows[i].activationBytesPerSample)
                           .arg(expected[i])));
        sum += expected[i];
    }
    QCOMPARE(a.activationBytesPerSample, std::uint64_t { 44984 });
    QCOMPARE(sum, a.activationBytesPerSample);
    QCOMPARE(a.lossActivationBytesPerSample, std::uint64_t { 40 });
    QCOMPARE(a.inputBytesPerSample, std::uint64_t { 1024 * 4 + 8 }); // image + int64 label
    QCOMPARE(a.rows.back().type, std::string("CrossEntropyLoss"));
}

void TestActivations::lenetMixedPrecision()
{
    // Autocast: conv1 keeps an fp16 copy of the fp32 input (1,024 x 2); activations after it are fp16
    // (halved), indices stay int64, the loss's log_softmax is fp32.
    // 2,048 + 9,408 + 9,408 + 2,352 + 3,200 + 3,200 + 800 + 240 + 168 + 40
    const Analysis a = analyze(lenet5(), Precision::AmpFp16);
    QVERIFY(a.valid());
    QCOMPARE(a.activationBytesPerSample, std::uint64_t { 30864 });
    QCOMPARE(a.rows[0].activationBytesPerSample, std::uint64_t { 2048 });
    QCOMPARE(a.rows[0].output.dtype, DType::Float16);
    QCOMPARE(a.inputBytesPerSample, std::uint64_t { 1024 * 4 + 8 });
}

void TestActivations::lenetPureHalf()
{
    // model.half(): the input itself is half (no cast copy), log_softmax is half too.
    const Analysis a = analyze(lenet5(), Precision::Bf16);
    QCOMPARE(a.activationBytesPerSample, std::uint64_t { 30864 - 2048 - 20 });
    QCOMPARE(a.inputBytesPerSample, std::uint64_t { 1024 * 2 + 8 });
}

void TestActivations::inplaceSharesStorage()
{
    // conv -> BN -> act -> conv on 8x8x8 maps (2,048 bytes each).
    const auto build = [](const std::string& act, bool inplace) {
        return network({ 3, 8, 8 },
            { layer("Conv2d", { { "out_channels", 8 }, { "kernel_size", 3 }, { "padding", 1 } }),
                layer("BatchNorm2d"), layer(act, { { "inplace", inplace } }),
                layer("Conv2d", { { "out_channels", 8 }, { "kernel_size", 3 }, { "padding", 1 } }) },
            Loss::None);
    };
    // BN keeps its input (2,048); ReLU keeps its output, which conv2 keeps too (2,048, once).
    QCOMPARE(analyze(build("ReLU", true), Precision::Fp32).activationBytesPerSample, std::uint64_t { 4096 });
    QCOMPARE(analyze(build("ReLU", false), Precision::Fp32).activationBytesPerSample, std::uint64_t { 4096 });
    // LeakyReLU keeps its input: out of place that is BN's output, and conv2 keeps LeakyReLU's output.
    QCOMPARE(
        analyze(build("LeakyReLU", false), Precision::Fp32).activationBytesPerSample, std::uint64_t { 6144 });
    QCOMPARE(
        analyze(build("LeakyReLU", true), Precision::Fp32).activationBytesPerSample, std::uint64_t { 4096 });
    // In-place SiLU and ReLU6 (hardtanh_) need the original input, which autograd clones (measured
    // with torch: tests/reference, MobileNetV2).
    QCOMPARE(analyze(build("SiLU", true), Precision::Fp32).activationBytesPerSample, std::uint64_t { 6144 });
    QCOMPARE(analyze(build("ReLU6", true), Precision::Fp32).activationBytesPerSample, std::uint64_t { 6144 });
    QCOMPARE(
        analyze(build("ReLU6", false), Precision::Fp32).activationBytesPerSample, std::uint64_t { 6144 });
}

void TestActivations::dropoutMask_data()
{
    QTest::addColumn<double>("p");
    QTest::addColumn<bool>("inplace");
    QTest::addColumn<qint64>("bytes");
    // Linear(100->50) -> Dropout -> Linear(50->10) -> cross-entropy:
    // bool mask 50 + Linear2's saved input 50 x 4 + log_softmax 10 x 4.
    QTest::newRow("p=0.5") << 0.5 << false << qint64 { 50 + 200 + 40 };
    // In place (dropout_, not fused): a float32 noise [50], 200 bytes, instead of the mask.
    QTest::newRow("p=0.5 in place") << 0.5 << true << qint64 { 200 + 200 + 40 };
    QTest::newRow("p=0 returns its input") << 0.0 << false << qint64 { 200 + 40 };
}

void TestActivations::dropoutMask()
{
    QFETCH(double, p);
    QFETCH(bool, inplace);
    QFETCH(qint64, bytes);
    const Network n = network({ 100 },
        { layer("Linear", { { "out_features", 50 } }),
            layer("Dropout", { { "p", p }, { "inplace", inplace } }),
            layer("Linear", { { "out_features", 10 } }) });
    QCOMPARE(analyze(n, Precision::Fp32).activationBytesPerSample, static_cast<std::uint64_t>(bytes));
}

void TestActivations::batchNormStatisticsAreFixed()
{
    // save_mean and save_invstd: 64 channels x float32 x 2, independent of the batch.
    const Analysis a = analyze(
        network({ 64, 4, 4 }, { layer("Identity"), layer("BatchNorm2d") }, Loss::None), Precision::Fp32);
    QCOMPARE(a.activationBytesFixed, std::uint64_t { 512 });
    QCOMPARE(a.activationBytesPerSample, std::uint64_t { 0 }); // its input is the network input
}

void TestActivations::adaptivePoolToOneKeepsNothing()
{
    // adaptive_avg_pool2d to 1x1 runs as mean(-1, -2), whose backward needs only sizes; to 2x2 it keeps its
    // input.
    const auto build = [](int size) {
        return network({ 8, 4, 4 },
            { layer("ReLU"), layer("AdaptiveAvgPool2d", { { "output_size", size } }) }, Loss::None);
    };
    // Without parameters nothing requires grad, so autograd records (and keeps) nothing at all.
    QCOMPARE(analyze(build(1), Precision::Fp32).activationBytesPerSample, std::uint64_t { 0 });
    QCOMPARE(analyze(build(2), Precision::Fp32).activationBytesPerSample, std::uint64_t { 0 });
    const auto afterConv = [](int size) {
        return network({ 8, 4, 4 },
            { layer("Conv2d", { { "out_channels", 8 }, { "kernel_size", 1 } }),
                layer("AdaptiveAvgPool2d", { { "output_size", size } }) },
            Loss::None);
    };
    QCOMPARE(analyze(afterConv(1), Precision::Fp32).activationBytesPerSample, std::uint64_t { 0 });
    QCOMPARE(analyze(afterConv(2), Precision::Fp32).activationBytesPerSample, std::uint64_t { 8 * 16 * 4 });
}

void TestActivations::residualBranchCountedOnce()
{
    // x -> relu (not recorded: its input needs no grad) -> two convs each keeping relu's output
    // (1,024 B, one storage, first kept by conv a) -> add (keeps nothing).
    const Network n = network({ 16, 4, 4 },
        { layer("ReLU", {}, "r"),
            layer("Conv2d", { { "out_channels", 16 }, { "kernel_size", 1 } }, "a", { "r" }),
            layer("Conv2d", { { "out_channels", 16 }, { "kernel_size", 1 } }, "b", { "r" }),
            layer("Add", {}, "sum", { "a", "b" }) },
        Loss::None);
    const Analysis a = analyze(n, Precision::Fp32);
    QCOMPARE(a.activationBytesPerSample, std::uint64_t { 16 * 16 * 4 });
    QCOMPARE(a.rows[1].activationBytesPerSample, std::uint64_t { 1024 });
}

void TestActivations::lossesKeepWhatTheySave()
{
    // MSE keeps the prediction (the Linear's output, 10 floats) and the target (counted as input).
    const Analysis mse = analyze(
        network({ 100 }, { layer("Linear", { { "out_features", 10 } }) }, Loss::Mse), Precision::Fp32);
    QCOMPARE(mse.activationBytesPerSample, std::uint64_t { 40 });
    QCOMPARE(mse.inputBytesPerSample, std::uint64_t { 400 + 40 });
    // Token-level cross-entropy on [T, V] logits keeps log_softmax of T x V and T int64 labels.
    const Analysis lm
        = analyze(network({ 16, 32 }, { layer("Linear", { { "out_features", 1000 } }) }), Precision::AmpBf16);
    QCOMPARE(lm.lossActivationBytesPerSample, std::uint64_t { 16 * 1000 * 4 }); // float32 under autocast
    QCOMPARE(lm.inputBytesPerSample, std::uint64_t { 16 * 32 * 4 + 16 * 8 });
    const Analysis none = analyze(
        network({ 100 }, { layer("Linear", { { "out_features", 10 } }) }, Loss::None), Precision::Fp32);
    QCOMPARE(none.activationBytesPerSample, std::uint64_t { 0 });
}

void TestActivations::transientIsLargestGradientPair()
{
    // LeNet: the first ReLU's output and input gradients, 2 x 6x28x28 x 4 bytes.
    QCOMPARE(analyze(lenet5(), Precision::Fp32).transientBytesPerSample, std::uint64_t { 2 * 18816 });
}

void TestActivations::overflowIsAnError()
{
    const Analysis a = analyze(network({ 1LL << 40, 1LL << 30 }, { layer("ReLU") }), Precision::Fp32);
    QVERIFY(!a.valid());
    QVERIFY2(QString::fromStdString(a.error->message).contains(QStringLiteral("64 bits")),
        a.error->message.c_str());
    const Analysis b
        = analyze(network({ 1LL << 40, 1LL << 20 }, { layer("Linear", { { "out_features", 1LL << 30 } }) }),
            Precision::Fp32);
    QVERIFY(!b.valid());
    QVERIFY2(QString::fromStdString(b.error->message).contains(QStringLiteral("overflow")),
        b.error->message.c_str());
}

QTEST_APPLESS_MAIN(TestActivations)
#include "tst_activations.moc"

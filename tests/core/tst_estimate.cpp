// Memory components, totals and max batch, worked out by hand for LeNet-5 (61,706 parameters,
// 44,984 activation bytes, 4,104 input bytes and 37,632 transient bytes per sample in fp32; see
// tst_activations) and checked against the ZeRO paper's bytes-per-parameter figures.
#include "NetworkBuilder.h"
#include "headroom/Estimate.h"
#include "headroom/Plan.h"

#include <QTest>

using namespace headroom;
using namespace headroom::test;

namespace {
constexpr std::uint64_t P = 61706;

TrainingSetup setup(Optimizer o, std::int64_t batch, std::uint64_t memory = 8 * kGiB, std::uint64_t overhead = 0)
{
    TrainingSetup s;
    s.optimizer = o;
    s.batch = batch;
    s.gpuMemoryBytes = memory;
    s.overheadBytes = overhead;
    return s;
}
} // namespace

class TestEstimate : public QObject {
    Q_OBJECT
private slots:
    void lenetAdamFp32();
    void optimizerState_data();
    void optimizerState();
    void bytesPerParameter_data();
    void bytesPerParameter();
    void maxBatchIsLargestThatFits();
    void maxBatchWhenNothingFits();
    void overheadCounts();
    void invalidNetworkIsRefusedWithTheLayer();
    void badBatch();
    void byteOverflowIsAnError();
    void sweepIsAffine();
    void planJsonHasTheContractFields();
};

void TestEstimate::lenetAdamFp32()
{
    const auto e = estimate(analyze(lenet5(), Precision::Fp32), setup(Optimizer::Adam, 32));
    QVERIFY(e.ok());
    QCOMPARE(e->bytes.weights, 4 * P);
    QCOMPARE(e->bytes.gradients, 4 * P);
    QCOMPARE(e->bytes.optimizerState, 8 * P);
    QCOMPARE(e->bytes.activations, std::uint64_t{32 * 44984});
    QCOMPARE(e->bytes.input, std::uint64_t{32 * 4104});
    QCOMPARE(e->bytes.transient, std::uint64_t{32 * 37632});
    QCOMPARE(e->total(), std::uint64_t{3762336});
    QVERIFY(e->fits);
}

void TestEstimate::optimizerState_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<int>("buffers");
    // torch.optim state per parameter: see docs/memory-model.md
    QTest::newRow("sgd") << "sgd" << 0;
    QTest::newRow("momentum") << "momentum" << 1;
    QTest::newRow("nesterov") << "nesterov" << 1;
    QTest::newRow("adam") << "adam" << 2;
    QTest::newRow("adamw") << "adamw" << 2;
    QTest::newRow("amsgrad") << "adam-amsgrad" << 3;
    QTest::newRow("rmsprop") << "rmsprop" << 1;
    QTest::newRow("rmsprop momentum") << "rmsprop-momentum" << 2;
    QTest::newRow("rmsprop centered") << "rmsprop-centered" << 3;
    QTest::newRow("adagrad") << "adagrad" << 1;
    QTest::newRow("adadelta") << "adadelta" << 2;
    QTest::newRow("adamax") << "adamax" << 2;
}

void TestEstimate::optimizerState()
{
    QFETCH(QString, name);
    QFETCH(int, buffers);
    const auto o = parseOptimizer(name.toStdString());
    QVERIFY(o.has_value());
    QCOMPARE(optimizerName(*o), std::string_view(name.toStdString()));
    const auto e = estimate(analyze(lenet5(), Precision::Fp32), setup(*o, 1));
    QCOMPARE(e->bytes.optimizerState, static_cast<std::uint64_t>(buffers) * 4 * P);
}

void TestEstimate::bytesPerParameter_data()
{
    QTest::addColumn<QString>("precision");
    QTest::addColumn<int>("bytes");
    // Weights + gradients + Adam state per parameter:
    // fp32: 4 + 4 + 8; pure half (ZeRO paper, mixed-precision Adam): 2 + 2 + (4 master + 8) = 16;
    // autocast: fp32 weights, gradients and state (16) + the cached half copy of conv/linear weights (2).
    QTest::newRow("fp32") << "fp32" << 16;
    QTest::newRow("fp16") << "fp16" << 16;
    QTest::newRow("bf16") << "bf16" << 16;
    QTest::newRow("amp-fp16") << "amp-fp16" << 18;
    QTest::newRow("amp-bf16") << "amp-bf16" << 18;
}

void TestEstimate::bytesPerParameter()
{
    QFETCH(QString, precision);
    QFETCH(int, bytes);
    const auto p = parsePrecision(precision.toStdString());
    QVERIFY(p.has_value());
    const auto e = estimate(analyze(lenet5(), *p), setup(Optimizer::Adam, 1));
    QCOMPARE(e->bytes.weights + e->bytes.gradients + e->bytes.optimizerState, static_cast<std::uint64_t>(bytes) * P);
}

void TestEstimate::maxBatchIsLargestThatFits()
{
    // fixed 16 x 61,706 = 987,296; per sample 44,984 + 4,104 + 37,632 = 86,720;
    // (10 MiB - 987,296) / 86,720 = 109.5 -> 109.
    const Analysis a = analyze(lenet5(), Precision::Fp32);
    const auto e = estimate(a, setup(Optimizer::Adam, 200, 10 * kMiB));
    QCOMPARE(e->maxBatch, std::int64_t{109});
    QVERIFY(!e->fits);
    QVERIFY(e->headroomBytes() < 0);
    QVERIFY(estimate(a, setup(Optimizer::Adam, 109, 10 * kMiB))->fits);
    QVERIFY(!estimate(a, setup(Optimizer::Adam, 110, 10 * kMiB))->fits);
}

void TestEstimate::maxBatchWhenNothingFits()
{
    const auto e = estimate(analyze(lenet5(), Precision::Fp32), setup(Optimizer::Adam, 1, 1000000));
    QCOMPARE(e->maxBatch, std::int64_t{0});
    QVERIFY(!e->fits);
}

void TestEstimate::overheadCounts()
{
    const Analysis a = analyze(lenet5(), Precision::Fp32);
    const auto without = estimate(a, setup(Optimizer::Sgd, 8));
    const auto with = estimate(a, setup(Optimizer::Sgd, 8, 8 * kGiB, 512 * kMiB));
    QCOMPARE(with->total() - without->total(), 512 * kMiB);
    QCOMPARE(with->bytes.overhead, 512 * kMiB);
}

void TestEstimate::invalidNetworkIsRefusedWithTheLayer()
{
    const Network n = network({1, 4, 4}, {layer("ReLU"), layer("Conv2d", {{"out_channels", 4}, {"kernel_size", 7}}, "big")});
    const auto e = estimate(analyze(n, Precision::Fp32), setup(Optimizer::Adam, 1));
    QVERIFY(!e.ok());
    const QString message = QString::fromStdString(e.error().message);
    QVERIFY2(message.contains(QStringLiteral("layers[1]")) && message.contains(QStringLiteral("\"big\"")), qPrintable(message));
}

void TestEstimate::badBatch()
{
    const Analysis a = analyze(lenet5(), Precision::Fp32);
    QVERIFY(!estimate(a, setup(Optimizer::Adam, 0)).ok());
    QVERIFY(!estimate(a, setup(Optimizer::Adam, -5)).ok());
    QVERIFY(!estimate(a, setup(Optimizer::Adam, kMaxBatch + 1)).ok());
}

void TestEstimate::byteOverflowIsAnError()
{
    // 2^40 floats per sample: fine per sample, but 2^31 samples need 2^73 bytes.
    const Analysis a = analyze(network({1LL << 40}, {layer("ReLU")}, Loss::None), Precision::Fp32);
    QVERIFY(a.valid());
    const auto e = estimate(a, setup(Optimizer::Adam, kMaxBatch));
    QVERIFY(!e.ok());
    QVERIFY2(QString::fromStdString(e.error().message).contains(QStringLiteral("overflow")), e.error().message.c_str());
    QVERIFY(estimate(a, setup(Optimizer::Adam, 1)).ok());
}

void TestEstimate::sweepIsAffine()
{
    const Analysis a = analyze(lenet5(), Precision::Fp32);
    const auto points = sweep(a, setup(Optimizer::Adam, 1), 1, 4096);
    QVERIFY(points.ok());
    QCOMPARE(points->size(), std::size_t{4096});
    QCOMPARE(points->at(31).total(), std::uint64_t{3762336}); // batch 32, as above
    QCOMPARE(points->at(1).total() - points->at(0).total(), std::uint64_t{86720});
    QVERIFY(!sweep(a, setup(Optimizer::Adam, 1), 5, 4).ok());
}

void TestEstimate::planJsonHasTheContractFields()
{
    Plan plan;
    plan.network = lenet5();
    plan.setup = setup(Optimizer::Adam, 32);
    plan.gpu.name = "GeForce GTX 1080";
    plan.gpu.memoryBytes = 8 * kGiB;
    const auto j = planToJson(plan, evaluate(plan));
    QCOMPARE(j["params"]["total"].get<std::uint64_t>(), P);
    QCOMPARE(j["params"]["trainable"].get<std::uint64_t>(), P);
    QCOMPARE(j["batch"].get<std::int64_t>(), std::int64_t{32});
    QCOMPARE(j["gpu"]["name"].get<std::string>(), std::string("GeForce GTX 1080"));
    QCOMPARE(j["gpu"]["memory_bytes"].get<std::uint64_t>(), 8 * kGiB);
    for (const char* key : {"weights", "gradients", "optimizer_state", "activations", "input", "transient", "overhead", "total"})
        QVERIFY2(j["bytes"].contains(key), key);
    QCOMPARE(j["bytes"]["total"].get<std::uint64_t>(), std::uint64_t{3762336});
    QVERIFY(j["fits"].get<bool>());
    QVERIFY(j.contains("max_batch"));
    std::uint64_t perSample = 0;
    for (const auto& l : j["layers"]) {
        for (const char* key : {"name", "type", "output_shape", "params", "activation_bytes_per_sample"})
            QVERIFY2(l.contains(key), key);
        perSample += l["activation_bytes_per_sample"].get<std::uint64_t>();
    }
    QCOMPARE(j["bytes"]["activations"].get<std::uint64_t>(), 32 * perSample);
}

QTEST_APPLESS_MAIN(TestEstimate)
#include "tst_estimate.moc"

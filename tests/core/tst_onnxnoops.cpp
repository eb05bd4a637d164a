// Operators that keep their input, with what an exporter may write before them (issue 34 item 1): a small
// CNN with nn.AvgPool2d(2), which torch 1.13 writes as a zero Pad and an AveragePool, imported 25 % short of
// what autograd keeps. The cause was not the Pad but a LeakyReLU taken to run in place; a zero Pad written
// by the user (F.pad) is a copy that a following pooling keeps; a Cast to the same type, a Reshape to the
// same shape and a Dropout in eval mode change nothing. Each case is a torch 1.13 export
// (tests/data/onnx/make_noops.py) with what autograd saved (noops/measured.json: saved_tensors_hooks,
// batch 4 less batch 2, halved, parameters and the input excluded); the figures are also worked out by
// hand below, float32 throughout.
#include "headroom/analysis/Analysis.h"
#include "headroom/importers/OnnxImport.h"
#include "headroom/model/Network.h"

#include <QTest>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>

using namespace headroom;

namespace {

std::string dataPath(const std::string& file)
{
    return HEADROOM_TEST_SOURCE_DIR "/tests/data/onnx/noops/" + file;
}

nlohmann::json measured(const std::string& name)
{
    std::ifstream in(dataPath("measured.json"), std::ios::binary);
    const std::string text { std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>() };
    return nlohmann::json::parse(text).at("networks").at(name);
}

} // namespace

class TestOnnxNoops : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void keptAsAutogradKeeps_data();
    void keptAsAutogradKeeps();
    void leakyReluStaysOutOfPlace();
};

void TestOnnxNoops::keptAsAutogradKeeps_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<qint64>("byHand");
    // Conv2d(3, 16) out [16, 32, 32] = 65,536 B, kept by the grouped Conv2d; its output, kept by
    // BatchNorm2d; BatchNorm's output, kept by leaky_relu (out of place); leaky_relu's output, kept by
    // avg_pool2d: 4 x 65,536. The pooled [16, 16, 16] = 16,384, kept by Conv2d(16, 8); its [8, 16, 16] =
    // 8,192 kept by SiLU; SiLU's output 8,192, kept by the Linear (through Flatten's view).
    QTest::newRow("zero Pad + AveragePool after LeakyReLU")
        << "pool_cnn" << qint64 { 4 * 65536 + 16384 + 8192 + 8192 };
    // [8, 14, 14] = 6,272 B three times (Conv2d's output kept by BatchNorm, BatchNorm's by leaky_relu,
    // leaky_relu's by the second Conv2d), and the [8, 12, 12] = 4,608 the Linear keeps.
    QTest::newRow("LeakyReLU before a convolution") << "leaky_conv" << qint64 { 3 * 6272 + 4608 };
    // relu keeps its result [8, 14, 14] (6,272); F.pad by zeros copies it (constant_pad_nd clones), and
    // max pooling keeps the copy (6,272) and int64 indices [8, 7, 7] (3,136); the Linear its [8, 7, 7]
    // output (1,568).
    QTest::newRow("user's zero F.pad before MaxPool2d")
        << "zero_pad_maxpool" << qint64 { 6272 + 6272 + 3136 + 1568 };
    // Multiplying by a constant keeps nothing; the second Linear keeps the product [32] through the
    // Reshape to its own shape: 128 B.
    QTest::newRow("Reshape to the same shape") << "reshape_same" << qint64 { 128 };
    // BatchNorm keeps the Conv2d's [8, 14, 14] output (6,272), tanh its result (6,272), which the
    // Dropout in eval mode passes on (not written) and the second Conv2d keeps; the Linear 4,608.
    QTest::newRow("Dropout in eval mode") << "eval_dropout" << qint64 { 6272 + 6272 + 4608 };
    // tanh keeps its result [32], 128 B; x.to(torch.float32) returns it (no copy), kept by the second
    // Linear as well.
    QTest::newRow("Cast to the same type") << "cast_same" << qint64 { 128 };
}

void TestOnnxNoops::keptAsAutogradKeeps()
{
    QFETCH(QString, name);
    QFETCH(qint64, byHand);
    const std::string file = name.toStdString();
    const auto imported = importOnnxFile(dataPath(file + ".onnx"));
    QVERIFY2(imported.ok(), imported.ok() ? "" : imported.error().message.c_str());
    Network net = imported.value();
    net.loss = parseLoss("none").value(); // as measured
    const Analysis a = analyze(net, Precision::Fp32);
    QVERIFY2(a.valid(), a.error ? a.error->message.c_str() : "");
    QVERIFY2(a.warnings.empty(), a.warnings.empty() ? "" : a.warnings.front().message.c_str());
    QCOMPARE(a.totalParams, measured(file).at("parameters").get<std::uint64_t>());
    QCOMPARE(static_cast<qint64>(a.activationBytesPerSample), byHand);
    QCOMPARE(a.activationBytesPerSample, measured(file).at("saved_bytes_per_sample").get<std::uint64_t>());
}

void TestOnnxNoops::leakyReluStaysOutOfPlace()
{
    // In place, leaky_relu_ keeps its result, the tensor the next layer keeps anyway: one [8, 14, 14]
    // tensor less than nn.LeakyReLU() keeps. ONNX does not say which the model ran, so the import takes
    // the one that cannot fall short, and says how to change it.
    const auto imported = importOnnxFile(dataPath("leaky_conv.onnx"));
    QVERIFY2(imported.ok(), imported.ok() ? "" : imported.error().message.c_str());
    Network net = imported.value();
    net.loss = parseLoss("none").value();
    QVERIFY(imported->description.find("LeakyReLU out of place") != std::string::npos);
    const auto outOfPlace = analyze(net, Precision::Fp32).activationBytesPerSample;
    for (auto& l : net.layers) {
        if (l.type == "LeakyReLU")
            l.attributes["inplace"] = true;
    }
    QCOMPARE(analyze(net, Precision::Fp32).activationBytesPerSample, outOfPlace - 6272);
}

QTEST_GUILESS_MAIN(TestOnnxNoops)
#include "tst_onnxnoops.moc"

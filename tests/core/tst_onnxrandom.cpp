// Random tensors multiplied in and stacked recurrent layers with dropout, as PyTorch 2.x's exporters write
// them (issue 24), in small reproductions (tests/data/onnx/make_random.py): stochastic depth and in-place
// dropout keep only their noise, a GRU / LSTM with dropout between its layers is one cuDNN call whose
// reserve holds the dropout mask as bits. Expected figures are worked out by hand below and checked against
// PyTorch's: torch 1.13's saved_tensors_hooks on the CPU (random/measured.json; no CPU -> CUDA adjustment
// applies to these operators) and, for cuDNN, what PyTorch 2.11 saved on an H100 (random/rnn_cuda_h100.json).
#include "NetworkBuilder.h"
#include "headroom/analysis/Analysis.h"
#include "headroom/importers/OnnxImport.h"
#include "headroom/model/Network.h"

#include <QTest>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>

using namespace headroom;

using headroom::test::typesOf;

namespace {

std::string dataPath(const std::string& file)
{
    return HEADROOM_TEST_SOURCE_DIR "/tests/data/onnx/random/" + file;
}

nlohmann::json readJson(const std::string& file)
{
    std::ifstream in(dataPath(file), std::ios::binary);
    const std::string text { std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>() };
    return nlohmann::json::parse(text);
}

/// random/measured.json's entry for `name` (torch 1.13, CPU).
nlohmann::json measured(const std::string& name)
{
    return readJson("measured.json").at("networks").at(name);
}

/// Bytes cuDNN's reserve (the uint8 tensor _cudnn_rnn saves) took per sample on the H100, batch 4 less
/// batch 2, halved, for cell ("GRU" / "LSTM") with 2 layers, T = 7, hidden 256, dropout 0.1.
std::uint64_t measuredReservePerSample(const std::string& cell, int directions)
{
    std::uint64_t at[5] = {};
    for (const auto& run : readJson("rnn_cuda_h100.json")) {
        if (run.at("cell") != cell || run.at("L") != 2 || run.at("D") != directions || run.at("T") != 7
            || run.at("H") != 256 || run.at("p").get<double>() != 0.1)
            continue;
        for (const auto& s : run.at("saved"))
            if (s.at(2) == "torch.uint8")
                at[run.at("B").get<int>()] = s.at(0).get<std::uint64_t>();
    }
    return (at[4] - at[2]) / 2;
}

/// What every tensor _cudnn_rnn saved took at batch 2 less its per-sample part (batch 4 less batch 2,
/// halved), for the same configurations: the batch-independent bytes.
std::uint64_t measuredFixedSaved(const std::string& cell, int directions)
{
    std::uint64_t at[5] = {};
    for (const auto& run : readJson("rnn_cuda_h100.json")) {
        if (run.at("cell") != cell || run.at("L") != 2 || run.at("D") != directions || run.at("T") != 7
            || run.at("H") != 256 || run.at("p").get<double>() != 0.1)
            continue;
        for (const auto& s : run.at("saved"))
            at[run.at("B").get<int>()] += s.at(0).get<std::uint64_t>();
    }
    return 2 * at[2] - at[4];
}

/// The file imported without a loss (as measured) and analysed in fp32.
Analysis analysed(const std::string& file, Network* out = nullptr)
{
    const auto n = importOnnxFile(dataPath(file));
    if (!n.ok())
        qFatal("%s", n.error().message.c_str());
    Network net = n.value();
    net.loss = parseLoss("none").value();
    if (out != nullptr)
        *out = net;
    return analyze(net, Precision::Fp32);
}

} // namespace

class TestOnnxRandom : public QObject
{
    Q_OBJECT

private slots:
    void stochasticDepthKeepsItsNoise_data();
    void stochasticDepthKeepsItsNoise();
    void inplaceDropoutKeepsItsNoise();
    void stackedRecurrentLayersAreOneCudnnCall_data();
    void stackedRecurrentLayersAreOneCudnnCall();
    void separateRecurrentModulesStayApart();
};

void TestOnnxRandom::stochasticDepthKeepsItsNoise_data()
{
    QTest::addColumn<QString>("mode");
    QTest::addColumn<qint64>("noisePerSample");
    QTest::addColumn<qint64>("noiseFixed");
    // torchvision's StochasticDepth(0.25, mode): noise [B, 1, 1, 1] (row) or [1, 1, 1, 1] (batch), float32.
    QTest::newRow("row") << "row" << qint64 { 4 } << qint64 { 0 };
    QTest::newRow("batch") << "batch" << qint64 { 0 } << qint64 { 4 };
}

void TestOnnxRandom::stochasticDepthKeepsItsNoise()
{
    QFETCH(QString, mode);
    QFETCH(qint64, noisePerSample);
    QFETCH(qint64, noiseFixed);
    // Conv2d(3, 4, 3, padding 1) -> ReLU -> Conv2d(4, 4, 3, padding 1) -> StochasticDepth(0.25) -> + the
    // ReLU's output, input [B, 3, 8, 8]. Exported, bernoulli_ is RandomUniformLike / Less / Cast, then Div
    // and Mul.
    const std::string name = "stochastic_depth_" + mode.toStdString();
    Network net;
    const Analysis a = analysed(name + ".onnx", &net);
    QVERIFY2(a.valid(), a.error ? a.error->message.c_str() : "");
    QVERIFY2(a.warnings.empty(), a.warnings.empty() ? "" : a.warnings.front().message.c_str());
    QCOMPARE(
        typesOf(net), (std::vector<std::string> { "Conv2d", "ReLU", "Conv2d", "StochasticDepth", "Add" }));
    QCOMPARE(net.layers[3].attributes.at("mode").get<std::string>(), mode.toStdString());
    QCOMPARE(net.layers[3].attributes.at("p").get<double>(), 0.25);
    // By hand: 3*4*9 + 4 + 4*4*9 + 4 = 260 parameters, as PyTorch counts.
    QCOMPARE(a.totalParams, std::uint64_t { 260 });
    QCOMPARE(a.totalParams, measured(name).at("parameters").get<std::uint64_t>());
    // Saved: conv1 its input (the network's, not counted); ReLU its output [4, 8, 8] 1,024 bytes, which conv2
    // saves too; mul the noise alone (derivatives.yaml mul: `other` for self's gradient), not its input
    // [4, 8, 8]; the add nothing. As measured.
    QCOMPARE(a.activationBytesPerSample, static_cast<std::uint64_t>(1024 + noisePerSample));
    QCOMPARE(a.activationBytesFixed, static_cast<std::uint64_t>(noiseFixed));
    QCOMPARE(a.activationBytesPerSample, measured(name).at("saved_bytes_per_sample").get<std::uint64_t>());
    QCOMPARE(a.activationBytesFixed, measured(name).at("saved_bytes_fixed").get<std::uint64_t>());
}

void TestOnnxRandom::inplaceDropoutKeepsItsNoise()
{
    // Linear(8, 16) -> x * empty_like(x).bernoulli_(0.75).div_(0.75) -> Linear(16, 3): F.dropout(p = 0.25,
    // inplace=True) as ATen runs it (dropout_ is never the fused native_dropout) and the dynamo exporter
    // writes it; measured with nn.Dropout(0.25, inplace=True) itself.
    Network net;
    const Analysis a = analysed("inplace_dropout_noise.onnx", &net);
    QVERIFY2(a.valid(), a.error ? a.error->message.c_str() : "");
    QVERIFY2(a.warnings.empty(), a.warnings.empty() ? "" : a.warnings.front().message.c_str());
    QCOMPARE(typesOf(net), (std::vector<std::string> { "Linear", "Dropout", "Linear" }));
    QCOMPARE(net.layers[1].attributes.at("inplace").get<bool>(), true);
    QCOMPARE(net.layers[1].attributes.at("p").get<double>(), 0.25);
    QCOMPARE(a.totalParams, std::uint64_t { 8 * 16 + 16 + 16 * 3 + 3 });
    QCOMPARE(a.totalParams, measured("inplace_dropout_noise").at("parameters").get<std::uint64_t>());
    // Saved: the noise [16] float32, 64 bytes (not a 16-byte bool mask), and the second Linear's input, the
    // first one's output multiplied in place, 64 bytes. As measured.
    QCOMPARE(a.activationBytesPerSample, std::uint64_t { 64 + 64 });
    QCOMPARE(a.activationBytesPerSample,
        measured("inplace_dropout_noise").at("saved_bytes_per_sample").get<std::uint64_t>());
}

void TestOnnxRandom::stackedRecurrentLayersAreOneCudnnCall_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("cell");
    QTest::addColumn<int>("directions");
    QTest::newRow("GRU") << "gru_stacked_dynamo.onnx"
                         << "GRU" << 1;
    QTest::newRow("bidirectional LSTM") << "lstm_stacked_dynamo.onnx"
                                        << "LSTM" << 2;
}

void TestOnnxRandom::stackedRecurrentLayersAreOneCudnnCall()
{
    QFETCH(QString, file);
    QFETCH(QString, cell);
    QFETCH(int, directions);
    // Embedding(50, 128) -> GRU(128, 256, 2 layers, batch_first, dropout 0.1) (LSTM: bidirectional) ->
    // out[:, -1] -> Linear(D x 256, 5), tokens [B, 7], as the dynamo exporter writes tests/data/torch2's
    // gru_cls / lstm_cls: a node per layer and a Dropout between.
    Network net;
    const Analysis a = analysed(file.toStdString(), &net);
    QVERIFY2(a.valid(), a.error ? a.error->message.c_str() : "");
    QVERIFY2(a.warnings.empty(), a.warnings.empty() ? "" : a.warnings.front().message.c_str());
    const std::string rnn = cell.toStdString();
    QCOMPARE(typesOf(net),
        (std::vector<std::string> { "Embedding", "Permute", rnn, "Permute", "Select", "Linear" }));
    QCOMPARE(net.layers[2].attributes.at("num_layers").get<int>(), 2);
    QCOMPARE(net.layers[2].attributes.at("dropout").get<double>(), 0.1);
    const std::uint64_t d = static_cast<std::uint64_t>(directions);
    const std::uint64_t gates = rnn == "LSTM" ? 4 : 3;
    // By hand, PyTorch's count: per layer and direction gates*256*(in + 256) + 2*gates*256, in = 128 then
    // D*256.
    const std::uint64_t layer0 = d * (gates * 256 * (128 + 256) + 2 * gates * 256);
    const std::uint64_t layer1 = d * (gates * 256 * (d * 256 + 256) + 2 * gates * 256);
    QCOMPARE(a.totalParams, 50 * 128 + layer0 + layer1 + (d * 256 * 5 + 5));
    // Saved per sample, as _cudnn_rnn saves it (derivatives.yaml): its input (the embedding's output,
    // 7 x 128 x 4 = 3,584 bytes), h_0 (and c_0) [2 D, 256] zeros, its output [7, D x 256] (which the Linear's
    // input, a view of its last step, shares), and cuDNN's reserve: (7 L - 1) GRU / (6 L - 1) LSTM vectors of
    // 256 per step and direction, plus the inter-layer dropout mask, one bit per element of the second
    // layer's input [7, D x 256] for each of its D directions. No separate dropout mask or dropped copy.
    const std::uint64_t vectors = rnn == "LSTM" ? 6 * 2 - 1 : 7 * 2 - 1;
    const std::uint64_t reserve = 7 * d * 256 * vectors * 4 + 7 * d * d * 256 / 8;
    QCOMPARE(reserve, measuredReservePerSample(rnn, directions)); // what cuDNN 9.19 took on the H100
    const std::uint64_t states = (rnn == "LSTM" ? 2 : 1) * 2 * d * 256 * 4;
    QCOMPARE(a.activationBytesPerSample, 3584 + states + 7 * d * 256 * 4 + reserve);
    // Batch-independent: the reserve's 256 bytes and cuDNN's dropout state, which get_dropout_state
    // creates for a training call with dropout and _cudnn_rnn saves (6,488,064 bytes on the H100). The
    // mask bits are a whole number of 32-byte words at batch 2 (7 x 2 x D x 256 / 8 = 448 D bytes), so
    // cuDNN's rounding adds nothing there.
    QCOMPARE(a.activationBytesFixed, std::uint64_t { 256 + 6488064 });
    QCOMPARE(a.activationBytesFixed, measuredFixedSaved(rnn, directions));
}

void TestOnnxRandom::separateRecurrentModulesStayApart()
{
    // nn.GRU(8, 16) -> nn.Dropout(0.1) -> nn.GRU(16, 16), sequence first: a Dropout between two GRU nodes
    // too, but each module makes its own zeros for h_0, so they are two cuDNN calls and a native_dropout.
    Network net;
    const Analysis a = analysed("gru_two_modules.onnx", &net);
    QVERIFY2(a.valid(), a.error ? a.error->message.c_str() : "");
    QCOMPARE(typesOf(net), (std::vector<std::string> { "Permute", "GRU", "Dropout", "GRU", "Permute" }));
    QCOMPARE(net.layers[1].attributes.value("num_layers", 1), 1);
    // The dropout between keeps a bool mask [5, 16] on CUDA: 80 bytes.
    const auto dropout
        = std::find_if(a.rows.begin(), a.rows.end(), [](const auto& r) { return r.type == "Dropout"; });
    QVERIFY(dropout != a.rows.end());
    QCOMPARE(dropout->activationBytesPerSample, std::uint64_t { 5 * 16 });
}

QTEST_APPLESS_MAIN(TestOnnxRandom)
#include "tst_onnxrandom.moc"

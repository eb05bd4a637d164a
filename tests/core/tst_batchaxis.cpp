// The batch axis anywhere (TensorInfo::batchAxis): Transpose and Permute move it, element-wise and
// last-axis layers keep it, sequence-first LSTM / GRU / MultiheadAttention / TransformerEncoderLayer
// read and give [T, B, E], and layers that need it first refuse a moved one by name. Memory does not
// depend on where the batch axis is: expected bytes are worked out by hand in the comments (the
// formulas of core/src/layers/Recurrent.cpp and Linear.cpp), per sample, fp32, loss none.
#include "NetworkBuilder.h"
#include "headroom/analysis/Analysis.h"
#include "headroom/importers/OnnxImport.h"

#include <QTest>

using namespace headroom;
using namespace headroom::test;
using nlohmann::json;

namespace {

Network layersOn(std::vector<std::int64_t> input, const char* layersJson)
{
    std::vector<LayerSpec> layers;
    for (const auto& l : json::parse(layersJson)) {
        json attributes = l;
        attributes.erase("type");
        attributes.erase("name");
        attributes.erase("inputs");
        layers.push_back(layer(l.at("type").get<std::string>(), attributes, l.value("name", std::string()),
            l.value("inputs", std::vector<std::string> {})));
    }
    return network(std::move(input), std::move(layers), Loss::None);
}

} // namespace

class TestBatchAxis : public QObject
{
    Q_OBJECT
private slots:
    void transposeMovesTheBatchAxis();
    void permuteBringsItBack();
    void sequenceFirstLstmKeepsWhatBatchFirstKeeps();
    void lastAxisLayersKeepIt();
    void selectBeforeTheBatchAxis();
    void shownWhereItIs();
    void reshapeAfterTheBatchAxis();
    void headsFoldedIntoTheBatchFromOnnx();
    void errors_data();
    void errors();
};

void TestBatchAxis::transposeMovesTheBatchAxis()
{
    // [B, 16, 8] -> x.transpose(0, 1): [16, B, 8], a view (nothing kept, nothing allocated).
    const Analysis a = analyze(
        layersOn({ 16, 8 }, R"([{"type":"Transpose","dim0":0,"dim1":1,"name":"t"}])"), Precision::Fp32);
    QVERIFY2(a.valid(), a.error ? a.error->message.c_str() : "");
    const auto& out = rowNamed(a, "t").output;
    QCOMPARE(out.shape, (Shape { { 16, 8 } }));
    QCOMPARE(out.batchAxis, std::size_t { 1 });
    QVERIFY(!out.contiguous); // a transposed view of a contiguous tensor
    QCOMPARE(a.activationBytesPerSample, std::uint64_t { 0 });
}

void TestBatchAxis::permuteBringsItBack()
{
    // transpose(0, 1) then permute(1, 0, 2): the original layout again, contiguous.
    const Analysis a = analyze(layersOn({ 16, 8 }, R"([{"type":"Transpose","dim0":0,"dim1":1},
        {"type":"Permute","dims":[1,0,2],"name":"p"}])"),
        Precision::Fp32);
    QVERIFY2(a.valid(), a.error ? a.error->message.c_str() : "");
    const auto& out = rowNamed(a, "p").output;
    QCOMPARE(out.batchAxis, std::size_t { 0 });
    QCOMPARE(out.shape, (Shape { { 16, 8 } }));
    QVERIFY(out.contiguous);
}

void TestBatchAxis::sequenceFirstLstmKeepsWhatBatchFirstKeeps()
{
    // nn.LSTM(8, 32) on T = 16: parameters 4 H (I + H) + 8 H = 128 x 40 + 256 = 5,376 (PyTorch's count).
    // Kept per sample (Recurrent.cpp): output T H = 512 floats = 2,048 bytes, h_0 and c_0 L D H = 32 floats
    // each = 256 bytes, cuDNN's reserve T D H (6 L - 1) = 16 x 32 x 5 = 2,560 floats = 10,240 bytes: 12,544.
    // Its input is a view of the network input (not an activation) either way.
    const Analysis first = analyze(layersOn({ 16, 8 }, R"([{"type":"Transpose","dim0":0,"dim1":1},
        {"type":"LSTM","hidden_size":32,"name":"lstm"}])"),
        Precision::Fp32);
    QVERIFY2(first.valid(), first.error ? first.error->message.c_str() : "");
    const auto& out = rowNamed(first, "lstm").output;
    QCOMPARE(out.shape, (Shape { { 16, 32 } }));
    QCOMPARE(out.batchAxis, std::size_t { 1 }); // [T, B, H]
    QVERIFY(out.contiguous); // cuDNN's own result, not a transposed view
    QCOMPARE(first.totalParams, std::uint64_t { 5376 });
    QCOMPARE(first.activationBytesPerSample, std::uint64_t { 12544 });
    const Analysis batchFirst = analyze(
        layersOn({ 16, 8 }, R"([{"type":"LSTM","hidden_size":32,"batch_first":true,"name":"lstm"}])"),
        Precision::Fp32);
    QVERIFY2(batchFirst.valid(), batchFirst.error ? batchFirst.error->message.c_str() : "");
    QCOMPARE(batchFirst.activationBytesPerSample, std::uint64_t { 12544 });
    QCOMPARE(rowNamed(batchFirst, "lstm").output.batchAxis, std::size_t { 0 });
}

void TestBatchAxis::lastAxisLayersKeepIt()
{
    // [16, B, 8] -> Linear(8, 4) -> ReLU -> LayerNorm(4) -> Dropout: each keeps the batch axis second.
    // The Linear's input is a transposed view, so at::linear's fold into a matrix copies it
    // (matmul's reshape) and mm keeps the copy: 16 x 8 floats = 512 bytes; ReLU keeps its output 256;
    // LayerNorm keeps its input (ReLU's output, counted once), mean and rstd 16 + 16 floats = 128;
    // Dropout a 1-byte mask of 64: 512 + 256 + 128 + 64 = 960.
    const Analysis a = analyze(layersOn({ 16, 8 }, R"([{"type":"Transpose","dim0":0,"dim1":1},
        {"type":"Linear","out_features":4,"name":"fc"}, {"type":"ReLU"}, {"type":"LayerNorm"},
        {"type":"Dropout","p":0.1,"name":"drop"}])"),
        Precision::Fp32);
    QVERIFY2(a.valid(), a.error ? a.error->message.c_str() : "");
    QCOMPARE(rowNamed(a, "fc").output.batchAxis, std::size_t { 1 });
    QCOMPARE(rowNamed(a, "drop").output.batchAxis, std::size_t { 1 });
    QCOMPARE(rowNamed(a, "drop").output.shape, (Shape { { 16, 4 } }));
    QCOMPARE(a.activationBytesPerSample, std::uint64_t { 960 });
}

void TestBatchAxis::selectBeforeTheBatchAxis()
{
    // out[-1] of a sequence-first [16, B, 32]: [B, 32], batch-first again and contiguous (one time step of
    // a [T, B, H] tensor is a contiguous [B, H] block).
    const Analysis a = analyze(layersOn({ 16, 8 }, R"([{"type":"Transpose","dim0":0,"dim1":1},
        {"type":"GRU","hidden_size":32}, {"type":"Select","dim":0,"index":-1,"name":"last"}])"),
        Precision::Fp32);
    QVERIFY2(a.valid(), a.error ? a.error->message.c_str() : "");
    const auto& out = rowNamed(a, "last").output;
    QCOMPARE(out.shape, (Shape { { 32 } }));
    QCOMPARE(out.batchAxis, std::size_t { 0 });
    QVERIFY(out.contiguous);
}

void TestBatchAxis::shownWhereItIs()
{
    QCOMPARE(Shape({ 16, 32 }).toBatchedString(1), std::string("16 x B x 32"));
    QCOMPARE(Shape({ 16, 32 }).toBatchedString(2), std::string("16 x 32 x B"));
    QCOMPARE(Shape({ 16, 32 }).toBatchedString(), std::string("B x 16 x 32"));
}

void TestBatchAxis::reshapeAfterTheBatchAxis()
{
    // [16, B, 32] -> reshape(16, B * 4, 8) as torch's attention splits heads: Headroom's tensor 16 x B x 4 x
    // 8, the batch axis still second; a view of the contiguous Linear output (nothing kept, nothing new).
    // Then [1, 16, B, 4, 8] (an unsqueeze in front): the batch axis moves one on, after 1 x 16 = 16 values.
    const Analysis a = analyze(layersOn({ 16, 8 }, R"([{"type":"Transpose","dim0":0,"dim1":1},
        {"type":"Linear","out_features":32}, {"type":"Reshape","shape":[16,4,8],"name":"heads"},
        {"type":"Reshape","shape":[1,16,4,8],"batch_axis":2,"name":"front"}])"),
        Precision::Fp32);
    QVERIFY2(a.valid(), a.error ? a.error->message.c_str() : "");
    QCOMPARE(rowNamed(a, "heads").output.shape, (Shape { { 16, 4, 8 } }));
    QCOMPARE(rowNamed(a, "heads").output.batchAxis, std::size_t { 1 });
    QCOMPARE(rowNamed(a, "heads").activationBytesPerSample, std::uint64_t { 0 });
    QCOMPARE(rowNamed(a, "front").output.batchAxis, std::size_t { 2 });
    QCOMPARE(rowNamed(a, "front").output.shape, (Shape { { 1, 16, 4, 8 } }));
}

void TestBatchAxis::headsFoldedIntoTheBatchFromOnnx()
{
    // tests/data/onnx/networks/heads_in_batch_attention.onnx (measure_networks.py's HeadsInBatchAttention,
    // torch 1.13's TorchScript exporter): attention with its heads in the batch axis, every reshape target
    // computed from x.shape (Shape -> Gather -> Mul -> Concat). [T, B, 32] -> [T, B*4, 8] is read as
    // T x B x 4 x 8 (the merged axis's inner 4, OnnxGraph::batchMergeOf); its Transpose(1, 0, 2) moves
    // the batch axis with its 4 together: Permute(1, 2, 0, 3) to B x 4 x T x 8; [T, B, 4, 8] -> [T*B, 32]
    // is T x B x 32 (outer 16), and [T*B, 32] -> [T, B, 32] the same tensor. The parameters and bytes are
    // compared with PyTorch's in tst_onnximport (networks.json: 7,077 and 20,500 per sample).
    const auto n
        = importOnnxFile(HEADROOM_TEST_SOURCE_DIR "/tests/data/onnx/networks/heads_in_batch_attention.onnx");
    QVERIFY2(n.ok(), n.ok() ? "" : n.error().message.c_str());
    const auto layerNamed = [&](const std::string& name) -> const LayerSpec& {
        for (const auto& l : n.value().layers) {
            if (l.name == name)
                return l;
        }
        QTest::qFail(("no layer " + name).c_str(), __FILE__, __LINE__);
        return n.value().layers.front();
    };
    QCOMPARE(layerNamed("Reshape").type, std::string("Reshape"));
    QVERIFY(layerNamed("Reshape").attributes.at("shape") == json::parse("[16, 4, 8]"));
    QVERIFY(layerNamed("Transpose_1").attributes.at("dims") == json::parse("[1, 2, 0, 3]"));
    QVERIFY(layerNamed("Reshape_3").attributes.at("shape") == json::parse("[16, 32]"));
    QCOMPARE(layerNamed("Reshape_4").type, std::string("Identity"));
    const Analysis a = analyze(n.value(), Precision::Fp32);
    QVERIFY2(a.valid(), a.error ? a.error->message.c_str() : "");
    QCOMPARE(rowNamed(a, "MatMul").output.shape, (Shape { { 4, 16, 16 } })); // B x 4 x 16 x 16 scores
    QCOMPARE(rowNamed(a, "MatMul").output.batchAxis, std::size_t { 0 });
    QCOMPARE(rowNamed(a, "out").output.batchAxis, std::size_t { 1 }); // the Linear on [T*B, 32]
}

void TestBatchAxis::errors_data()
{
    QTest::addColumn<QString>("layers");
    QTest::addColumn<QString>("fragment");
    const auto row = [](const char* name, const char* layers, const char* fragment) {
        QTest::newRow(name) << QString::fromLatin1(layers) << QString::fromLatin1(fragment);
    };
    // The network input is [B, 16, 8] throughout.
    row("conv after moving the batch", R"([{"type":"Transpose","dim0":0,"dim1":1},
        {"type":"Conv1d","out_channels":4,"kernel_size":3,"name":"conv"}])",
        "(Conv1d \"conv\"): needs the batch axis first, but its input is 16 x B x 8 (the batch axis at "
        "position 1)");
    row("batch_first with a sequence-first input", R"([{"type":"Transpose","dim0":0,"dim1":1},
        {"type":"LSTM","hidden_size":4,"batch_first":true}])",
        "has batch_first true but its input 16 x B x 8 is sequence-first");
    row("linear on the batch axis",
        R"([{"type":"Permute","dims":[1,2,0]}, {"type":"Linear","out_features":4}])",
        "acts on the last axis, which is the batch axis of its input 16 x 8 x B");
    row("softmax over the batch", R"([{"type":"Transpose","dim0":0,"dim1":1}, {"type":"Softmax","dim":1}])",
        "is not a feature axis of 16 x B x 8");
    row("select the batch",
        R"([{"type":"Transpose","dim0":0,"dim1":1}, {"type":"Select","dim":1,"index":0}])",
        "(it is the batch axis)");
    row("transpose out of range", R"([{"type":"Transpose","dim0":0,"dim1":3}])",
        "dim1 3 is not an axis of B x 16 x 8");
    row("add of different layouts", R"([{"type":"Transpose","dim0":0,"dim1":1,"name":"t"},
        {"type":"Add","inputs":["t","input"]}])",
        "its inputs have their batch axes at different places");
    row("reshape across the batch",
        R"([{"type":"Transpose","dim0":0,"dim1":1}, {"type":"Reshape","shape":[8,16]}])",
        "merges the batch axis of 16 x B x 8 with values of each sample");
    row("parameter over the batch",
        R"([{"type":"Transpose","dim0":0,"dim1":1}, {"type":"Mul","parameter":[16,1,8]}])",
        "would broadcast over the batch axis");
}

void TestBatchAxis::errors()
{
    QFETCH(QString, layers);
    QFETCH(QString, fragment);
    const Analysis a = analyze(layersOn({ 16, 8 }, layers.toUtf8().constData()), Precision::Fp32);
    QVERIFY(!a.valid());
    QVERIFY2(a.error->message.find(fragment.toStdString()) != std::string::npos, a.error->message.c_str());
}

QTEST_GUILESS_MAIN(TestBatchAxis)
#include "tst_batchaxis.moc"

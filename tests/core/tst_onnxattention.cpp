// Attention written out by PyTorch 2.x's exporters (PatternWrittenOutAttention.cpp, and the head size of
// PatternMultiheadAttention.cpp). The files are tests/data/onnx/attention/*.onnx, written by
// tests/data/onnx/make_attention.py: two tiny transformers exported by torch 1.13 and their attention core
// rewritten to what PyTorch 2.x's TorchScript exporter (symbolic_opset14.scaled_dot_product_attention:
// q and k^T each multiplied by Sqrt(scale), scoped node names) and dynamo exporter (one stored
// sqrt(scale), the in-projection stored as [E, 3E], flat node names) write for the
// F.scaled_dot_product_attention that nn.MultiheadAttention calls in PyTorch 2.x with need_weights=False.
//
// Expected numbers: make_attention.py's measurement of the same modules (torch 1.13, CPU, fp32,
// tests/reference/measure.py's saved_tensors_hooks method at batches 2 and 4), with measure.py's CUDA
// adjustments: nn.MultiheadAttention's math core (the scaled q, k^T, softmax probabilities, dropout noise,
// dropped probabilities, v: 1.13's eager path) replaced by what PyTorch >= 2.1's memory-efficient kernel
// saves for fp32 on CUDA (q, k, v: 3 T E, output T E, logsumexp heads x ceil(T / 32) 32 float32;
// derivatives.yaml _scaled_dot_product_efficient_attention), and CPU dropout noise by CUDA's bool mask.
#include "headroom/analysis/Analysis.h"
#include "headroom/importers/OnnxImport.h"

#include <QTest>

using namespace headroom;

namespace {

std::string attentionFile(const QString& name)
{
    return std::string(HEADROOM_TEST_SOURCE_DIR "/tests/data/onnx/") + name.toStdString();
}

const LayerSpec* firstOfType(const Network& n, const std::string& type)
{
    for (const auto& l : n.layers) {
        if (l.type == type)
            return &l;
    }
    return nullptr;
}

} // namespace

class TestOnnxAttention : public QObject
{
    Q_OBJECT
private slots:
    void sdpaExportsMatchPyTorch_data();
    void sdpaExportsMatchPyTorch();
    void handWrittenAttentionStaysOperatorByOperator();
    void sdpaWithoutMultiheadAttentionIsNoted();
};

void TestOnnxAttention::sdpaExportsMatchPyTorch_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<qint64>("params");
    QTest::addColumn<qint64>("activations");
    QTest::addColumn<bool>("batchFirst");
    // lm: Embedding(50, 32), TransformerEncoderLayer(32, 4 heads, 64, dropout 0.1, batch_first), Linear(32,
    // 50), T = 16. Parameters (PyTorch's count, by hand the same): 50 x 32 + (3 x 32 x 32 + 96) + (32 x 32 +
    // 32) + (32 x 64 + 64) + (64 x 32 + 32) + 2 x 64 (LayerNorms) + 32 x 50 + 50 = 11,794. Saved per sample:
    // 50,560 measured (the math path), -9,728 for SDPA, -6,144 for the dropout masks: 34,688.
    QTest::newRow("lm, TorchScript exporter")
        << QStringLiteral("attention/lm_ts2.onnx") << qint64 { 11794 } << qint64 { 34688 } << true;
    QTest::newRow("lm, dynamo exporter")
        << QStringLiteral("attention/lm_dynamo.onnx") << qint64 { 11794 } << qint64 { 34688 } << true;
    // vit: torchvision VisionTransformer(image 32, patch 16, 1 layer, 4 heads, hidden 32, MLP 64, 10
    // classes): T = 5 tokens (4 patches and the class token). Parameters 33,738 (PyTorch's count). Saved per
    // sample: 9,520 measured (the math path), +752 for SDPA (its logsumexp is padded to 32 rows, 4 x 32 x 4 =
    // 512 bytes, more than the 5 x 5 probabilities it does not keep): 10,272.
    QTest::newRow("vit, TorchScript exporter")
        << QStringLiteral("attention/vit_ts2.onnx") << qint64 { 33738 } << qint64 { 10272 } << true;
    QTest::newRow("vit, dynamo exporter")
        << QStringLiteral("attention/vit_dynamo.onnx") << qint64 { 33738 } << qint64 { 10272 } << true;
}

void TestOnnxAttention::sdpaExportsMatchPyTorch()
{
    QFETCH(QString, file);
    QFETCH(qint64, params);
    QFETCH(qint64, activations);
    QFETCH(bool, batchFirst);
    const auto n = importOnnxFile(attentionFile(file));
    QVERIFY2(n.ok(), n.ok() ? "" : n.error().message.c_str());
    // The module comes back as one layer: 32 features in 4 heads of 8 (the product's contracted axis), the
    // fused-SDPA semantics (need_weights false); no Softmax or MatMul of its core is left.
    const LayerSpec* mha = firstOfType(n.value(), "MultiheadAttention");
    QVERIFY(mha != nullptr);
    QCOMPARE(mha->attributes.at("num_heads").get<int>(), 4);
    QCOMPARE(mha->attributes.at("need_weights").get<bool>(), false);
    QCOMPARE(mha->attributes.value("batch_first", false), batchFirst);
    QVERIFY(firstOfType(n.value(), "Softmax") == nullptr);
    QVERIFY(firstOfType(n.value(), "MatMul") == nullptr);
    Network net = n.value();
    net.loss = Loss::CrossEntropy;
    const Analysis a = analyze(net, Precision::Fp32);
    QVERIFY2(a.valid(), a.error ? a.error->message.c_str() : "");
    QVERIFY2(a.warnings.empty(), a.warnings.empty() ? "" : a.warnings.front().message.c_str());
    QCOMPARE(static_cast<qint64>(a.totalParams), params);
    QCOMPARE(static_cast<qint64>(a.activationBytesPerSample), activations);
}

void TestOnnxAttention::handWrittenAttentionStaysOperatorByOperator()
{
    // tests/data/onnx/networks/heads_in_batch_attention.onnx (measure_networks.py): attention written out in
    // the module itself (q * d^-0.5 only, bmm, softmax, bmm), which PyTorch 2.x runs as written, so autograd
    // keeps the math path's tensors: the operators map one by one, and the saved bytes are the raw
    // measurement, 20,500 per sample (networks.json; no adjustment applies to it).
    const auto n = importOnnxFile(attentionFile(QStringLiteral("networks/heads_in_batch_attention.onnx")));
    QVERIFY2(n.ok(), n.ok() ? "" : n.error().message.c_str());
    QVERIFY(firstOfType(n.value(), "MultiheadAttention") == nullptr);
    QVERIFY(firstOfType(n.value(), "Softmax") != nullptr);
    Network net = n.value();
    net.loss = Loss::CrossEntropy;
    const Analysis a = analyze(net, Precision::Fp32);
    QVERIFY2(a.valid(), a.error ? a.error->message.c_str() : "");
    QCOMPARE(a.activationBytesPerSample, std::uint64_t { 20500 });
}

void TestOnnxAttention::sdpaWithoutMultiheadAttentionIsNoted()
{
    // attention/sdpa_separate_projections.onnx (make_attention.py, hand-built): the 2.x exporters' form of
    // scaled_dot_product_attention (q and k^T times one stored 8^-1/4) on q, k, v from three separate
    // projections: no packed in-projection, so no nn.MultiheadAttention to map it to. It stays operator
    // by operator (the math path: an upper bound of what the fused kernels keep), and the description says
    // so, naming the node.
    const auto n = importOnnxFile(attentionFile(QStringLiteral("attention/sdpa_separate_projections.onnx")));
    QVERIFY2(n.ok(), n.ok() ? "" : n.error().message.c_str());
    QVERIFY(firstOfType(n.value(), "MultiheadAttention") == nullptr);
    QVERIFY(firstOfType(n.value(), "Softmax") != nullptr);
    const std::string& d = n.value().description;
    QVERIFY2(
        d.find("scaled_dot_product_attention (at node_scaled_dot_product_attention) is mapped operator by "
               "operator")
            != std::string::npos,
        d.c_str());
    QVERIFY2(d.find("upper bound") != std::string::npos, d.c_str());
}

QTEST_APPLESS_MAIN(TestOnnxAttention)
#include "tst_onnxattention.moc"

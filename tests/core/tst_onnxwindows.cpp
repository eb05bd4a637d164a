// Windowed-attention vision transformers (issue 24): Swin's window partition (the batch axis merged with
// the windows and split back), padding computed from the input's size, the cyclic shift and its attention
// mask, the relative-position bias gathered from its table. The files are tests/data/onnx/windows/*.onnx,
// written by tests/data/onnx/make_windows.py: small models built from torchvision's own classes
// (stochastic depth 0, dropout 0), exported by torch 1.13's TorchScript exporter in training mode, opset 17.
//
// Expected numbers: make_windows.py's measurement of the same modules (torch 1.13, CPU, fp32,
// tests/reference/measure.py's saved_tensors_hooks method at batches 2 and 4, each storage once, parameters,
// buffers and the input excluded), with measure.py's CUDA adjustment for mean (PyTorch 2.x's mean keeps
// nothing; torch 1.13 kept its input: -1,152 bytes a sample here), and the MSE loss Headroom is told to use.
#include "headroom/analysis/Analysis.h"
#include "headroom/importers/OnnxImport.h"
#include "headroom/model/Network.h"

#include <QTest>

using namespace headroom;

namespace {

std::string windowsFile(const QString& name)
{
    return std::string(HEADROOM_TEST_SOURCE_DIR "/tests/data/onnx/windows/") + name.toStdString();
}

/// The file imported with the MSE loss; nullopt (with the import's message) when it does not import.
std::optional<Network> importWithMse(const QString& name)
{
    auto n = importOnnxFile(windowsFile(name));
    if (!n.ok()) {
        qWarning("%s", n.error().message.c_str());
        return std::nullopt;
    }
    Network net = std::move(n).value();
    net.loss = Loss::Mse;
    return net;
}

} // namespace

class TestOnnxWindows : public QObject
{
    Q_OBJECT
private slots:
    void swinImportsExactly();
    void swinV2CosineAttention();
    void maxVitEinsumAttention();
    void otherEinsumIsNamed();
};

void TestOnnxWindows::swinImportsExactly()
{
    // swin.onnx: SwinTransformer(patch 4, embed 16, depths [2, 2], heads [2, 4], window 4, 10 classes) on
    // [B, 3, 24, 24]. Parameters, by hand (PyTorch counts 35,942): patch embedding Conv2d(3, 16, 4, 4) 784
    // and LayerNorm(16) 32; each stage-1 block (C 16) LayerNorms 2 x 32, qkv 16 x 48 + 48, proj 16 x 16 +
    // 16, the relative-position table (2 x 4 - 1)^2 x 2 heads = 98, MLP 16 x 64 + 64 + 64 x 16 + 16: 3,378,
    // twice; patch merging LayerNorm(64) 128 and Linear(64, 32, no bias) 2,048; each stage-2 block (C 32, 4
    // heads, table 49 x 4 = 196) 12,900, twice; the final LayerNorm(32) 64 and Linear(32, 10) 330.
    // Saved per sample: 173,304 measured, -1,152 for mean: 172,152 (the loss's 10 floats included).
    const auto net = importWithMse(QStringLiteral("swin.onnx"));
    QVERIFY(net);
    const Analysis a = analyze(*net, Precision::Fp32);
    QVERIFY2(a.valid(), a.error ? a.error->message.c_str() : "");
    QVERIFY2(a.warnings.empty(), a.warnings.empty() ? "" : a.warnings.front().message.c_str());
    QCOMPARE(static_cast<qint64>(a.totalParams), qint64 { 35942 });
    QCOMPARE(static_cast<qint64>(a.activationBytesPerSample), qint64 { 172152 });
    // The bias gathered from the table is the Add's operand, [heads, 16, 16] per window; what trains behind
    // it is the 49-row table. The shifted block's mask (built from the padded size: stage 1's 8 x 8 in 4
    // windows; stage 2's 3 x 3 fits one window, which torchvision does not shift) is a constant operand.
    int biases = 0;
    int masks = 0;
    for (const auto& l : net->layers) {
        if (l.type != "Add" || !l.attributes.contains("parameter_elements"))
            continue;
        const auto elements = l.attributes.at("parameter_elements").get<std::int64_t>();
        if (elements == 0) {
            ++masks;
            QVERIFY2(l.attributes.at("parameter") == nlohmann::json({ 4, 1, 16, 16 }), l.name.c_str());
            continue;
        }
        ++biases;
        const auto heads = l.attributes.at("parameter").at(0).get<std::int64_t>();
        QVERIFY2(l.attributes.at("parameter") == nlohmann::json({ heads, 16, 16 }), l.name.c_str());
        QCOMPARE(elements, 49 * heads);
    }
    QCOMPARE(biases, 4);
    QCOMPARE(masks, 1);
}

void TestOnnxWindows::swinV2CosineAttention()
{
    // swin_v2.onnx: the same with SwinTransformerBlockV2 and PatchMergingV2. Parameters, by hand (PyTorch
    // counts 47,590): patch embedding 816; each stage-1 block LayerNorms 2 x 32, qkv 816, proj 272,
    // logit_scale 2, the continuous position bias MLP Linear(2, 512) 1,536 and Linear(512, 2, no bias)
    // 1,024, MLP 2,128: 5,842, twice; patch merging Linear(64, 32, no bias) 2,048 and LayerNorm(32) 64;
    // each stage-2 block (4 heads) 64 + 3,168 + 1,056 + 4 + 1,536 + 2,048 + 64 + 8,352 = 16,292, twice; the
    // final LayerNorm 64 and the head 330. What trains behind the bias is the MLP (its input, the coordinate
    // table, is a buffer), behind the logit scale's clamp and exp the scale itself.
    const auto net = importWithMse(QStringLiteral("swin_v2.onnx"));
    QVERIFY(net);
    const Analysis a = analyze(*net, Precision::Fp32);
    QVERIFY2(a.valid(), a.error ? a.error->message.c_str() : "");
    QVERIFY2(a.warnings.empty(), a.warnings.empty() ? "" : a.warnings.front().message.c_str());
    QCOMPARE(static_cast<qint64>(a.totalParams), qint64 { 47590 });
    int norms = 0;
    for (const auto& l : net->layers)
        norms += l.type == "Norm" ? 1 : 0;
    QCOMPARE(norms, 8); // F.normalize of q and k in each of the four blocks
    // Saved per sample: 239,736 measured, -1,152 for mean: 238,584, and Headroom keeps 5,376 more, exactly
    // the tensors torchvision's `x[:, :H, :W, :].contiguous()` copies after the window attention, which no
    // exporter writes: post-norm V2 blocks' LayerNorm saves that copy, and Headroom, seeing a Slice (a view),
    // keeps the padded tensor behind it: stage 1 two blocks x (8 x 8 - 6 x 6) x 16 x 4 bytes, stage 2 two
    // blocks x (4 x 4 - 3 x 3) x 32 x 4 (V1's pre-norm blocks add the slice to the residual, which keeps
    // nothing, so swin.onnx is exact).
    QCOMPARE(static_cast<qint64>(a.activationBytesPerSample), qint64 { 238584 + 2 * 1792 + 2 * 896 });
}

void TestOnnxWindows::maxVitEinsumAttention()
{
    // maxvit.onnx: MaxVit(input 32, stem 8, partition 2, blocks [16], layers [1], head_dim 8, 10 classes) on
    // [B, 3, 32, 32]: the stem, one MBConv (BatchNorm, squeeze-excitation), window and grid attention
    // (partitions of 2 x 2 by Reshape and Transpose; torch.einsum for q k^T and for the product with v),
    // the classifier. Parameters: PyTorch's count, 11,000 (make_windows.py). Saved per sample: 447,248
    // measured, -4,096 for mean (the squeeze-excitation's and the classifier's pooling): 443,152.
    const auto net = importWithMse(QStringLiteral("maxvit.onnx"));
    QVERIFY(net);
    const Analysis a = analyze(*net, Precision::Fp32);
    QVERIFY2(a.valid(), a.error ? a.error->message.c_str() : "");
    QVERIFY2(a.warnings.empty(), a.warnings.empty() ? "" : a.warnings.front().message.c_str());
    QCOMPARE(static_cast<qint64>(a.totalParams), qint64 { 11000 });
    QCOMPARE(static_cast<qint64>(a.activationBytesPerSample), qint64 { 443152 });
    // Each attention's two einsums are products: q k^T (k permuted, a view, then MatMul) and probs v.
    int products = 0;
    for (const auto& l : net->layers)
        products += l.type == "MatMul" ? 1 : 0;
    QCOMPARE(products, 4);
}

void TestOnnxWindows::otherEinsumIsNamed()
{
    // einsum_other.onnx (make_windows.py, hand-built): "b i j, b i j -> b i", a row-wise dot product, is
    // no matrix product: a generic operator whose warning names the node and the equation.
    const auto net = importWithMse(QStringLiteral("einsum_other.onnx"));
    QVERIFY(net);
    QCOMPARE(net->layers.size(), std::size_t { 1 });
    QCOMPARE(net->layers.front().type, std::string("GenericOp"));
    const Analysis a = analyze(*net, Precision::Fp32);
    QVERIFY2(a.valid(), a.error ? a.error->message.c_str() : "");
    QCOMPARE(a.warnings.size(), std::size_t { 1 });
    const std::string& w = a.warnings.front().message;
    QVERIFY2(w.find("'Einsum' (equation 'b i j, b i j -> b i': only a batched matrix product")
            != std::string::npos,
        w.c_str());
    QCOMPARE(a.warnings.front().layer, std::string("rowdot"));
}

QTEST_APPLESS_MAIN(TestOnnxWindows)
#include "tst_onnxwindows.moc"

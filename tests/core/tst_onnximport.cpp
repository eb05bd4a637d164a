// ONNX import against real torch.onnx.export files (tests/data/onnx, made by make_onnx.py with
// torch 1.13): PyTorch's parameter counts, the native presets' activation bytes, the graph's
// branches, and a specific error for every kind of bad input, including every truncation of a file.
#include "NetworkBuilder.h"
#include "headroom/analysis/Analysis.h"
#include "headroom/importers/NetworkFile.h"
#include "headroom/importers/OnnxImport.h"
#include "headroom/model/ModelFile.h"

#include <QTest>
#include <algorithm>
#include <cmath>
#include <fstream>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>

using namespace headroom;

using headroom::test::typesOf;

namespace {

std::string dataPath(const std::string& file)
{
    return HEADROOM_TEST_SOURCE_DIR "/tests/data/onnx/" + file;
}
std::string presetPath(const std::string& id)
{
    return HEADROOM_TEST_SOURCE_DIR "/resources/presets/" + id + ".json";
}

std::string readBytes(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    return { std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>() };
}

const char* messageOf(const Result<Network>& r)
{
    return r.ok() ? "" : r.error().message.c_str();
}

const LayerSpec* layerNamed(const Network& n, const std::string& name)
{
    const auto it
        = std::find_if(n.layers.begin(), n.layers.end(), [&](const LayerSpec& l) { return l.name == name; });
    return it == n.layers.end() ? nullptr : &*it;
}

} // namespace

class TestOnnxImport : public QObject
{
    Q_OBJECT
private slots:
    void torchvisionMatchesPyTorchAndPresets_data();
    void torchvisionMatchesPyTorchAndPresets();
    void smallModelsMatchPyTorch_data();
    void smallModelsMatchPyTorch();
    void realNetworksMatchMeasuredPyTorch_data();
    void realNetworksMatchMeasuredPyTorch();
    void reshapeChainsAtOpset13_data();
    void reshapeChainsAtOpset13();
    void patternsComeBackAsOneLayer();
    void newKindsMapFromOperators_data();
    void newKindsMapFromOperators();
    void storedOperandOrderIsKept();
    void newerOpsetsReadAsSeventeen();
    void lenetEqualsNativeLayerByLayer();
    void residualBranchesArePreserved();
    void namesFollowTorchModuleScopes();
    void operatorsMapToLayers();
    void activationsRunInPlaceWherePyTorchAllows();
    void batchAxis();
    void importedNetworkSavesAsModelFile();
    void badInput_data();
    void badInput();
    void unknownOperatorsBecomeGenericOps();
    void settingsWithoutALayerBecomeGenericOps();
    void genericOpInModelFiles_data();
    void genericOpInModelFiles();
    void evalModeExportsAreWarnedAbout_data();
    void evalModeExportsAreWarnedAbout();
    void lossIsTheUsersChoice_data();
    void lossIsTheUsersChoice();
    void everyTruncationIsAnError();
    void loadNetworkFileDispatchesOnExtension();
};

void TestOnnxImport::torchvisionMatchesPyTorchAndPresets_data()
{
    QTest::addColumn<QString>("id");
    QTest::addColumn<qint64>("params"); // sum(p.numel() for p in model.parameters()), torchvision 0.14
    QTest::newRow("alexnet") << "alexnet" << qint64 { 61100840 };
    QTest::newRow("vgg16") << "vgg16" << qint64 { 138357544 };
    QTest::newRow("resnet18") << "resnet18" << qint64 { 11689512 };
    QTest::newRow("mobilenet_v2") << "mobilenet_v2" << qint64 { 3504872 };
}

void TestOnnxImport::torchvisionMatchesPyTorchAndPresets()
{
    QFETCH(QString, id);
    QFETCH(qint64, params);
    const auto imported = importOnnxFile(dataPath(id.toStdString() + ".onnx"));
    QVERIFY2(imported.ok(), messageOf(imported));
    const auto native = loadModelFile(presetPath(id.toStdString()));
    QVERIFY2(native.ok(), messageOf(native));

    const Analysis a = analyze(imported.value(), Precision::Fp32);
    const Analysis b = analyze(native.value(), Precision::Fp32);
    QVERIFY2(a.valid(), a.error ? a.error->message.c_str() : "");
    QVERIFY2(b.valid(), b.error ? b.error->message.c_str() : "");
    QCOMPARE(a.totalParams, static_cast<std::uint64_t>(params));
    QCOMPARE(a.bufferElements, b.bufferElements);
    QCOMPARE(a.output.shape, b.output.shape);
    // The tolerance Headroom promises is 3%; the import is exact, and any drift here is a mapping bug.
    QCOMPARE(a.activationBytesPerSample, b.activationBytesPerSample);
    QCOMPARE(a.activationBytesFixed, b.activationBytesFixed);
    QCOMPARE(a.forwardFlopsPerSample, b.forwardFlopsPerSample);
    for (const auto precision : { Precision::AmpFp16, Precision::Bf16 }) {
        const Analysis ah = analyze(imported.value(), precision);
        const Analysis bh = analyze(native.value(), precision);
        QCOMPARE(ah.activationBytesPerSample, bh.activationBytesPerSample);
    }
}

void TestOnnxImport::smallModelsMatchPyTorch_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<qint64>("params"); // from the PyTorch modules in make_onnx.py
    QTest::newRow("lenet5 (real weights)") << "lenet5.onnx" << qint64 { 61706 };
    QTest::newRow("small_resnet (real weights)") << "small_resnet.onnx" << qint64 { 5266 };
    QTest::newRow("signal1d") << "signal1d.onnx" << qint64 { 1236 };
    QTest::newRow("mixed") << "mixed.onnx" << qint64 { 21294 };
    QTest::newRow("seq_opset17") << "seq_opset17.onnx" << qint64 { 2440 };
    QTest::newRow("opset9 (hand-built)") << "opset9.onnx" << qint64 { 4 * 3 * 9 + 4 + 5 * 256 + 5 };
    QTest::newRow("fixed_batch (hand-built)") << "fixed_batch.onnx" << qint64 { 8 * 3 * 9 };
}

void TestOnnxImport::smallModelsMatchPyTorch()
{
    QFETCH(QString, file);
    QFETCH(qint64, params);
    const auto n = importOnnxFile(dataPath(file.toStdString()));
    QVERIFY2(n.ok(), messageOf(n));
    const Analysis a = analyze(n.value(), Precision::Fp32);
    QVERIFY2(a.valid(), a.error ? a.error->message.c_str() : "");
    QCOMPARE(a.totalParams, static_cast<std::uint64_t>(params));
    QVERIFY(a.activationBytesPerSample > 0);
}

void TestOnnxImport::realNetworksMatchMeasuredPyTorch_data()
{
    // tests/data/onnx/networks.json: measure_networks.py's figures from torch 1.13 (parameters, and the
    // bytes autograd saves per sample with tests/reference/measure.py's method and CUDA adjustments).
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("loss");
    QTest::addColumn<qint64>("params");
    QTest::addColumn<qint64>("activations");
    QTest::addColumn<bool>("recurrent"); // activations: only what is saved outside the LSTM / GRU calls
    const auto doc = nlohmann::json::parse(readBytes(dataPath("networks.json")));
    for (const auto& [name, e] : doc.at("networks").items()) {
        QVERIFY2(!e.contains("error"), (name + ": " + e.value("error", std::string())).c_str());
        const bool recurrent = e.contains("activation_bytes_per_sample_outside_recurrent");
        QTest::newRow(name.c_str()) << QString::fromStdString(e.at("file").get<std::string>())
                                    << QString::fromStdString(e.at("loss").get<std::string>())
                                    << e.at("parameters").get<qint64>()
                                    << e.at(recurrent ? "activation_bytes_per_sample_outside_recurrent"
                                                      : "activation_bytes_per_sample")
                                           .get<qint64>()
                                    << recurrent;
    }
}

namespace {

/// Headroom's side of a recurrent network's comparison (measure_networks.py): torch 1.13's CPU RNNs run
/// unfused, so the measurement counts only the storages saved outside the nn.LSTM / nn.GRU calls. On
/// Headroom's side that is every saved byte except what the LSTM / GRU rows keep themselves (cuDNN's
/// h_0, c_0 and reserve, and the outputs of inner layers, which only the next layer reads), keeping a
/// recurrent output that a non-recurrent layer reads (the head's saved view of it, which the RNN row
/// is the first to keep).
std::uint64_t activationsOutsideRecurrent(const Analysis& a)
{
    const auto isRecurrent = [](const LayerRow& r) { return r.type == "LSTM" || r.type == "GRU"; };
    std::uint64_t bytes = a.activationBytesPerSample;
    for (const auto& row : a.rows) {
        if (!isRecurrent(row))
            continue;
        bytes -= row.activationBytesPerSample;
        const bool readOutside = std::any_of(a.rows.begin(), a.rows.end(), [&](const LayerRow& r) {
            return !isRecurrent(r) && std::find(r.inputs.begin(), r.inputs.end(), row.name) != r.inputs.end();
        });
        if (readOutside)
            bytes += row.output.shape.elements().value() * elementSize(row.output.dtype);
    }
    return bytes;
}

} // namespace

void TestOnnxImport::realNetworksMatchMeasuredPyTorch()
{
    QFETCH(QString, file);
    QFETCH(QString, loss);
    QFETCH(qint64, params);
    QFETCH(qint64, activations);
    QFETCH(bool, recurrent);
    // Networks Headroom cannot import exactly yet (docs/onnx-import.md, "The seventeen networks").
    static const std::map<std::string, const char*> kPending {
        { "style_transfer",
            "imports with every operator mapped and exact parameters, but 41,875,456 activation bytes per "
            "sample against 40,826,880 measured (+2.6 %, exactly 1 MiB): not yet explained" },
    };
    // One verdict, so that a pending network fails exactly once (XFAIL) and passes visibly (XPASS).
    std::string verdict;
    const auto n = importOnnxFile(dataPath(file.toStdString()));
    if (!n.ok()) {
        verdict = n.error().message;
    } else {
        Network net = n.value();
        net.loss = parseLoss(loss.toStdString()).value();
        const Analysis a = analyze(net, Precision::Fp32);
        const std::uint64_t estimated
            = recurrent ? activationsOutsideRecurrent(a) : a.activationBytesPerSample;
        const double error = std::abs(static_cast<double>(estimated) - static_cast<double>(activations))
            / static_cast<double>(activations);
        if (!a.valid())
            verdict = a.error->message;
        else if (!a.warnings.empty()) // every operator must have its own layer
            verdict = std::to_string(a.warnings.size()) + " warnings, the first: " + a.warnings.front().layer
                + ": " + a.warnings.front().message;
        else if (static_cast<qint64>(a.totalParams) != params)
            verdict = std::to_string(a.totalParams) + " parameters, PyTorch counts " + std::to_string(params);
        // Within 1 % of what PyTorch keeps (CPU -> CUDA adjusted as measure.py documents); the recurrent
        // networks' part outside the RNNs exactly.
        else if (error > 0.01 || (recurrent && estimated != static_cast<std::uint64_t>(activations)))
            verdict = std::to_string(estimated) + " activation bytes per sample, measured "
                + std::to_string(activations);
    }
    if (const auto it = kPending.find(QTest::currentDataTag()); it != kPending.end())
        QEXPECT_FAIL("", it->second, Abort);
    QVERIFY2(verdict.empty(), verdict.c_str());
}

void TestOnnxImport::reshapeChainsAtOpset13_data()
{
    // Issue 34 item 2: torch 1.13's opset-13 exports of shufflenet_v2_x1_0 and vit_b_16 did not import (ONNX
    // 1.12's Reshape-13 reads only a stored target, so each computed one waited for a pinning pass, and each
    // block's target is computed from the block before: more than eight passes). The networks of
    // make_sweep.py repeat each block ten times; sweep/measured.json holds what autograd saved
    // (saved_tensors_hooks, batch 4 less batch 2, halved), and the figures are also worked out by hand.
    QTest::addColumn<QString>("name");
    QTest::addColumn<qint64>("params");
    QTest::addColumn<qint64>("byHand");
    // Stem Conv2d(3, 8, 3) 224; per unit Conv2d(4, 4, 1) 16 and BatchNorm2d(4) 8; Linear(512, 10) 5,130. Per
    // unit the 1x1 convolution keeps the storage its chunk views ([8, 8, 8], 2,048 B: the stem's output or
    // the last shuffle's copy), BatchNorm the convolution's [4, 8, 8] (1,024) and ReLU its result (1,024);
    // the Linear the last shuffle's copy (2,048).
    QTest::newRow("ShuffleNetV2 units")
        << "shuffle_chain" << qint64 { 224 + 10 * 24 + 5130 } << qint64 { 10 * (2048 + 1024 + 1024) + 2048 };
    // Patch Conv2d(3, 16, 4, stride 4) 784; 10 x Linear(16, 16) 272; Linear(64, 10) 650. The first
    // projection keeps the copy reshape(T * B, E) makes of the transposed tokens ([4, 16], 256 B); each
    // ReLU keeps its result (256), which the next projection reads as a view; the head keeps the copy
    // flatten makes of the last one, transposed (256).
    QTest::newRow("attention's output projection")
        << "attention_chain" << qint64 { 784 + 10 * 272 + 650 } << qint64 { 256 + 10 * 256 + 256 };
}

void TestOnnxImport::reshapeChainsAtOpset13()
{
    QFETCH(QString, name);
    QFETCH(qint64, params);
    QFETCH(qint64, byHand);
    const std::string file = "sweep/" + name.toStdString();
    const auto n = importOnnxFile(dataPath(file + ".onnx"));
    QVERIFY2(n.ok(), n.ok() ? "" : n.error().message.c_str());
    std::ifstream in(dataPath("sweep/measured.json"), std::ios::binary);
    const auto measured = nlohmann::json::parse(
        std::string { std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>() })
                              .at("networks")
                              .at(name.toStdString());
    Network net = n.value();
    net.loss = parseLoss("none").value(); // as measured
    const Analysis a = analyze(net, Precision::Fp32);
    QVERIFY2(a.valid(), a.error ? a.error->message.c_str() : "");
    QVERIFY2(a.warnings.empty(), a.warnings.empty() ? "" : a.warnings.front().message.c_str());
    QCOMPARE(static_cast<qint64>(a.totalParams), params);
    QCOMPARE(a.totalParams, measured.at("parameters").get<std::uint64_t>());
    QCOMPARE(static_cast<qint64>(a.activationBytesPerSample), byHand);
    QCOMPARE(a.activationBytesPerSample, measured.at("saved_bytes_per_sample").get<std::uint64_t>());
}

void TestOnnxImport::patternsComeBackAsOneLayer()
{
    // patterns_opset15.onnx (make_onnx.py's Patterns): LayerNorm as nine nodes, GELU(approximate="tanh") as
    // nine, Hugging Face's NewGELU as eight, and a LayerNorm over [6, 16] without affine parameters.
    const auto n = importOnnxFile(dataPath("patterns_opset15.onnx"));
    QVERIFY2(n.ok(), messageOf(n));
    QCOMPARE(typesOf(n.value()),
        (std::vector<std::string> {
            "LayerNorm", "Linear", "GELU", "Linear", "NewGELU", "LayerNorm", "Flatten", "Linear" }));
    QCOMPARE(
        layerNamed(n.value(), "act")->attributes.at("approximate").get<std::string>(), std::string("tanh"));
    const auto& norm2 = layerNamed(n.value(), "norm2")->attributes;
    QVERIFY(norm2.at("normalized_shape") == nlohmann::json({ 6, 16 }));
    QCOMPARE(norm2.at("eps").get<double>(), 1e-6);
    QCOMPARE(norm2.at("elementwise_affine").get<bool>(), false);
    QVERIFY(layerNamed(n.value(), "norm")->attributes.empty()); // nn.LayerNorm(16): every default
    const Analysis a = analyze(n.value(), Precision::Fp32);
    QVERIFY2(a.valid(), a.error ? a.error->message.c_str() : "");
    QCOMPARE(a.totalParams, std::uint64_t { 1492 }); // sum(p.numel() for p in Patterns().parameters())
    QVERIFY(a.warnings.empty());
}

void TestOnnxImport::newKindsMapFromOperators_data()
{
    // make_onnx.py's Vocabulary and Tokens (torch 1.13, opset 15) and its hand-built movement graph (opset
    // 13): every operator has the layer kind of issue 13 the PyTorch code used.
    QTest::addColumn<QString>("file");
    QTest::addColumn<QStringList>("types");
    QTest::addColumn<qint64>("params"); // sum(p.numel() for p in model.parameters())
    QTest::newRow("vocabulary")
        << "vocabulary.onnx"
        << QStringList { QStringLiteral("Conv2d"), QStringLiteral("Hardswish"), QStringLiteral("Mean"),
               QStringLiteral("Conv2d"), QStringLiteral("Hardsigmoid"), QStringLiteral("Mul"),
               QStringLiteral("Mul"), QStringLiteral("Pad"), QStringLiteral("InstanceNorm2d"),
               QStringLiteral("ELU"), QStringLiteral("SELU"), QStringLiteral("CELU"),
               QStringLiteral("Softplus"), QStringLiteral("PReLU"), QStringLiteral("Mish"),
               QStringLiteral("Upsample"), QStringLiteral("Conv2d"), QStringLiteral("PixelShuffle"),
               QStringLiteral("Clamp"), QStringLiteral("Div"), QStringLiteral("Sub"), QStringLiteral("Abs"),
               QStringLiteral("Sqrt"), QStringLiteral("Neg"), QStringLiteral("Exp"), QStringLiteral("Add"),
               QStringLiteral("Mean"), QStringLiteral("Linear") }
        // conv 4*8*9+8, gate 8*8+8, gamma 8, norm 8+8, prelu 8, shuffle_in 8*16+16, head 4*5+5
        << qint64 { 296 + 72 + 8 + 16 + 8 + 144 + 25 };
    QTest::newRow("tokens") << "tokens.onnx"
                            << QStringList { QStringLiteral("Flatten"), QStringLiteral("Permute"),
                                   QStringLiteral("Add"), QStringLiteral("Concat"), QStringLiteral("Permute"),
                                   QStringLiteral("MatMul"), QStringLiteral("Div"), QStringLiteral("Softmax"),
                                   QStringLiteral("MatMul"), QStringLiteral("Slice"), QStringLiteral("Slice"),
                                   QStringLiteral("Slice"), QStringLiteral("Slice"),
                                   QStringLiteral("Sigmoid"), QStringLiteral("Mul"), QStringLiteral("Select"),
                                   QStringLiteral("Amax"), QStringLiteral("Add"), QStringLiteral("Linear") }
                            // position 64*16, token 16, head 8*5+5
                            << qint64 { 1024 + 16 + 45 };
    QTest::newRow("movement (opset 13)")
        << "movement_opset13.onnx"
        << QStringList { QStringLiteral("Narrow"), QStringLiteral("Narrow"), QStringLiteral("PixelShuffle"),
               QStringLiteral("Hardswish"), QStringLiteral("PixelShuffle"), QStringLiteral("Concat"),
               QStringLiteral("GenericOp"), QStringLiteral("Sum"), QStringLiteral("Linear") }
        // fc 3 x 2 + 3, and the stored number the GenericOp for c - x reads (its conservative assumption: 1)
        << qint64 { 3 * 2 + 3 + 1 };
}

void TestOnnxImport::newKindsMapFromOperators()
{
    QFETCH(QString, file);
    QFETCH(QStringList, types);
    QFETCH(qint64, params);
    const auto n = importOnnxFile(dataPath(file.toStdString()));
    QVERIFY2(n.ok(), messageOf(n));
    QStringList actual;
    for (const auto& t : typesOf(n.value()))
        actual << QString::fromStdString(t);
    QCOMPARE(actual, types);
    const Analysis a = analyze(n.value(), Precision::Fp32);
    QVERIFY2(a.valid(), a.error ? a.error->message.c_str() : "");
    QCOMPARE(a.totalParams, static_cast<std::uint64_t>(params));
    QCOMPARE(a.warnings.empty(), !types.contains(QStringLiteral("GenericOp")));
}

void TestOnnxImport::storedOperandOrderIsKept()
{
    const auto vocabulary = importOnnxFile(dataPath("vocabulary.onnx"));
    QVERIFY2(vocabulary.ok(), messageOf(vocabulary));
    const auto attributesOf = [&](const Network& n, const std::string& type, int nth = 0) {
        for (const auto& l : n.layers) {
            if (l.type == type && nth-- == 0)
                return l.attributes;
        }
        return nlohmann::json();
    };
    // self.gamma * y: the stored [8, 1, 1] is the Mul's parameter; y / 2.0 and y - 1.0 are scalars.
    QVERIFY(attributesOf(*vocabulary, "Mul", 1).at("parameter") == nlohmann::json({ 8, 1, 1 }));
    QCOMPARE(attributesOf(*vocabulary, "Div").at("scalar").get<double>(), 2.0);
    QCOMPARE(attributesOf(*vocabulary, "Sub").at("scalar").get<double>(), 1.0);
    QVERIFY(attributesOf(*vocabulary, "Pad")
        == nlohmann::json({ { "pad", { 1, 1, 1, 1 } }, { "mode", "reflect" } }));
    QCOMPARE(attributesOf(*vocabulary, "InstanceNorm2d").at("affine").get<bool>(), true);
    QCOMPARE(attributesOf(*vocabulary, "CELU").at("alpha").get<double>(), 0.5);
    QCOMPARE(attributesOf(*vocabulary, "PReLU").at("num_parameters").get<int>(), 8);
    QVERIFY(attributesOf(*vocabulary, "Upsample")
        == nlohmann::json({ { "scale_factor", 2.0 }, { "mode", "bilinear" } }));
    QVERIFY(attributesOf(*vocabulary, "Clamp") == nlohmann::json({ { "min", -1.0 }, { "max", 1.0 } }));
    // The class token before the tokens and the position table after them: Concat's and Add's parameters.
    const auto tokens = importOnnxFile(dataPath("tokens.onnx"));
    QVERIFY2(tokens.ok(), messageOf(tokens));
    QVERIFY(attributesOf(*tokens, "Concat").at("parameter") == nlohmann::json({ 1, 16 }));
    QVERIFY(attributesOf(*tokens, "Add").at("parameter") == nlohmann::json({ 64, 16 }));
    QVERIFY(attributesOf(*tokens, "Permute").at("dims") == nlohmann::json({ 0, 2, 1 }));
    QVERIFY(attributesOf(*tokens, "Select") == nlohmann::json({ { "dim", 1 }, { "index", 0 } }));
    // Split [4, 4] on the channels: two Narrows; c - x (a stored number first) has no layer and says why.
    const auto movement = importOnnxFile(dataPath("movement_opset13.onnx"));
    QVERIFY2(movement.ok(), messageOf(movement));
    QVERIFY(attributesOf(*movement, "Narrow", 1)
        == nlohmann::json({ { "dim", 1 }, { "start", 4 }, { "length", 4 } }));
    QVERIFY(attributesOf(*movement, "Sum") == nlohmann::json({ { "dim", { 2, 3 } } }));
    QVERIFY2(movement->description.find("DepthToSpace in DCR mode") != std::string::npos,
        movement->description.c_str());
    const Analysis a = analyze(*movement, Precision::Fp32);
    QCOMPARE(a.warnings.size(), std::size_t { 1 });
    QCOMPARE(a.warnings.front().layer, std::string("one_minus"));
    QVERIFY2(a.warnings.front().message.find("a stored operand before the computed one (c - x)")
            != std::string::npos,
        a.warnings.front().message.c_str());
}

void TestOnnxImport::newerOpsetsReadAsSeventeen()
{
    // As torch 2's dynamo exporter writes them: opset 20's Gelu and opset 18's ReduceMean with its axes [2,
    // 3] as an input (read as the axes attribute: a Mean over H and W).
    const auto n = importOnnxFile(dataPath("opset20.onnx"));
    QVERIFY2(n.ok(), messageOf(n));
    QCOMPARE(typesOf(n.value()), (std::vector<std::string> { "Conv2d", "GELU", "Mean", "Linear" }));
    QCOMPARE(layerNamed(n.value(), "node_Gelu_1")->attributes.at("approximate").get<std::string>(),
        std::string("tanh"));
    QVERIFY(layerNamed(n.value(), "node_ReduceMean_2")->attributes.at("dim") == nlohmann::json({ 2, 3 }));
    QVERIFY2(n->description.find("opset 20 read as 17") != std::string::npos, n->description.c_str());
    const Analysis a = analyze(n.value(), Precision::Fp32);
    QCOMPARE(a.totalParams, std::uint64_t { 8 * 3 * 3 * 3 + 8 + 10 * 8 + 10 });
}

void TestOnnxImport::lenetEqualsNativeLayerByLayer()
{
    const auto imported = importOnnxFile(dataPath("lenet5.onnx"));
    QVERIFY2(imported.ok(), messageOf(imported));
    const auto native = loadModelFile(presetPath("lenet5"));
    QVERIFY2(native.ok(), messageOf(native));
    QCOMPARE(imported->input, native->input);
    const Analysis a = analyze(imported.value(), Precision::Fp32);
    const Analysis b = analyze(native.value(), Precision::Fp32);
    QCOMPARE(a.rows.size(), b.rows.size());
    for (std::size_t i = 0; i < a.rows.size(); ++i) {
        const std::string where = a.rows[i].name + " vs " + b.rows[i].name;
        QVERIFY2(a.rows[i].type == b.rows[i].type, where.c_str());
        QVERIFY2(a.rows[i].output == b.rows[i].output, where.c_str());
        QVERIFY2(a.rows[i].params == b.rows[i].params, where.c_str());
    }
    QCOMPARE(a.activationBytesPerSample, b.activationBytesPerSample);
}

void TestOnnxImport::residualBranchesArePreserved()
{
    const auto n = importOnnxFile(dataPath("resnet18.onnx"));
    QVERIFY2(n.ok(), messageOf(n));
    const auto types = typesOf(n.value());
    const auto adds = std::count(types.begin(), types.end(), std::string("Add"));
    QCOMPARE(adds, 8);
    // Identity shortcut: the block's input comes from the max pool, two layers back.
    const auto* first = layerNamed(n.value(), "layer1.0.Add");
    QVERIFY(first);
    QCOMPARE(first->inputs, (std::vector<std::string> { "layer1.0.bn2", "maxpool" }));
    // Projection shortcut: conv + bn on the block's input, added to the main branch.
    const auto* down = layerNamed(n.value(), "layer2.0.downsample.0");
    QVERIFY(down);
    QCOMPARE(down->inputs, (std::vector<std::string> { "layer1.1.relu_1" }));
    const auto* projected = layerNamed(n.value(), "layer2.0.Add");
    QVERIFY(projected);
    QCOMPARE(projected->inputs, (std::vector<std::string> { "layer2.0.bn2", "layer2.0.downsample.1" }));

    const auto mobile = importOnnxFile(dataPath("mobilenet_v2.onnx"));
    QVERIFY2(mobile.ok(), messageOf(mobile));
    const auto* inverted = layerNamed(mobile.value(), "features.3.Add");
    QVERIFY(inverted);
    QCOMPARE(inverted->inputs, (std::vector<std::string> { "features.2.conv.3", "features.3.conv.3" }));
}

void TestOnnxImport::namesFollowTorchModuleScopes()
{
    const auto n = importOnnxFile(dataPath("mobilenet_v2.onnx"));
    QVERIFY2(n.ok(), messageOf(n));
    for (const char* name : { "features.0.0", "features.0.1", "features.0.2", "features.1.conv.0.0",
             "features.18.2", "classifier.0", "classifier.1" })
        QVERIFY2(layerNamed(n.value(), name), name);
    // Every name is valid in a model file.
    for (const auto& l : n->layers) {
        QVERIFY2(!l.name.empty()
                && l.name.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                            "0123456789_.-")
                    == std::string::npos,
            l.name.c_str());
    }
}

void TestOnnxImport::operatorsMapToLayers()
{
    const auto mixed = importOnnxFile(dataPath("mixed.onnx"));
    QVERIFY2(mixed.ok(), messageOf(mixed));
    QCOMPARE(typesOf(mixed.value()),
        (std::vector<std::string> { "Conv2d", "ReLU", "ConvTranspose2d", "Concat", "AvgPool2d", "Conv2d",
            "SiLU", "Flatten", "GELU", "Dropout", "Linear" }));
    QCOMPARE(layerNamed(mixed.value(), "Concat")->inputs, (std::vector<std::string> { "up", "input" }));
    QCOMPARE(layerNamed(mixed.value(), "drop")->attributes.at("p").get<double>(), 0.25);
    QCOMPARE(layerNamed(mixed.value(), "pool")->attributes.at("count_include_pad").get<bool>(), false);
    QCOMPARE(layerNamed(mixed.value(), "up")->attributes.at("stride").get<int>(), 2);
    QVERIFY2(mixed->description.find("LogSoftmax") != std::string::npos, mixed->description.c_str());

    const auto seq = importOnnxFile(dataPath("seq_opset17.onnx"));
    QVERIFY2(seq.ok(), messageOf(seq));
    QCOMPARE(seq->input.dtype, DType::Int64);
    QCOMPARE(seq->input.shape.dims, (std::vector<std::int64_t> { 12 }));
    QCOMPARE(typesOf(seq.value()),
        (std::vector<std::string> { "Embedding", "LayerNorm", "Linear", "GELU", "Linear", "Softmax" }));
    QCOMPARE(layerNamed(seq.value(), "emb")->attributes.at("num_embeddings").get<int>(), 100);
    QVERIFY(!layerNamed(seq.value(), "fc1")->attributes.contains("bias")); // MatMul + Add: a Linear with bias

    const auto signal = importOnnxFile(dataPath("signal1d.onnx"));
    QVERIFY2(signal.ok(), messageOf(signal));
    QCOMPARE(typesOf(signal.value()),
        (std::vector<std::string> {
            "Conv1d", "BatchNorm1d", "LeakyReLU", "Conv1d", "Tanh", "Flatten", "Linear", "Sigmoid" }));
    const auto& conv2 = layerNamed(signal.value(), "conv2")->attributes;
    QCOMPARE(conv2.at("groups").get<int>(), 2);
    QCOMPARE(conv2.at("dilation").get<int>(), 2);
    QCOMPARE(layerNamed(signal.value(), "act")->attributes.at("negative_slope").get<double>(), 0.2);

    // Opset 9: Clip(0, 6) from attributes, Dropout's ratio attribute, Softmax on the last axis.
    const auto old = importOnnxFile(dataPath("opset9.onnx"));
    QVERIFY2(old.ok(), messageOf(old));
    QCOMPARE(typesOf(old.value()),
        (std::vector<std::string> { "Conv2d", "ReLU6", "Flatten", "Dropout", "Linear", "Softmax" }));
    QCOMPARE(layerNamed(old.value(), "dropout")->attributes.at("p").get<double>(), 0.3);
}

void TestOnnxImport::activationsRunInPlaceWherePyTorchAllows()
{
    const auto n = importOnnxFile(dataPath("mobilenet_v2.onnx"));
    QVERIFY2(n.ok(), messageOf(n));
    int relu6 = 0;
    for (const auto& l : n->layers) {
        if (l.type == "ReLU6") {
            ++relu6;
            QVERIFY2(l.attributes.value("inplace", false), l.name.c_str());
        }
    }
    QCOMPARE(relu6, 35); // as torchvision's nn.ReLU6(inplace=True)
    // For LeakyReLU it matters: out of place it keeps its input, and what follows keeps its output; in
    // place one tensor (the BatchNorm1d output [8, 32] here, 1,024 bytes per sample, would not stay
    // alive). ONNX cannot tell, so LeakyReLU stays out of place, the safe side (issue 34: signal1d itself
    // was written with nn.LeakyReLU(0.2), make_onnx.py).
    const auto signal = importOnnxFile(dataPath("signal1d.onnx"));
    QVERIFY2(signal.ok(), messageOf(signal));
    QVERIFY(!layerNamed(signal.value(), "act")->attributes.value("inplace", false));
    Network inPlace = signal.value();
    for (auto& l : inPlace.layers) {
        if (l.name == "act")
            l.attributes["inplace"] = true;
    }
    QCOMPARE(analyze(signal.value(), Precision::Fp32).activationBytesPerSample,
        analyze(inPlace, Precision::Fp32).activationBytesPerSample + 8 * 32 * 4);
    // Tanh has no in-place form, and what follows it may not overwrite the output it keeps.
    QVERIFY(!layerNamed(signal.value(), "Tanh")->attributes.contains("inplace"));
    const auto mixed = importOnnxFile(dataPath("mixed.onnx"));
    QVERIFY2(mixed.ok(), messageOf(mixed));
    QVERIFY(layerNamed(mixed.value(), "Relu")->attributes.value("inplace", false)); // after a Conv2d
}

void TestOnnxImport::batchAxis()
{
    const auto symbolic = importOnnxFile(dataPath("resnet18.onnx"));
    QVERIFY2(symbolic.ok(), messageOf(symbolic));
    QCOMPARE(symbolic->input.shape.dims, (std::vector<std::int64_t> { 3, 224, 224 }));
    QVERIFY2(
        symbolic->description.find("'batch', symbolic") != std::string::npos, symbolic->description.c_str());

    const auto fixed = importOnnxFile(dataPath("fixed_batch.onnx"));
    QVERIFY2(fixed.ok(), messageOf(fixed));
    QCOMPARE(fixed->input.shape.dims, (std::vector<std::int64_t> { 3, 16, 16 }));
    QVERIFY2(fixed->description.find("fixed size 4") != std::string::npos, fixed->description.c_str());
}

void TestOnnxImport::importedNetworkSavesAsModelFile()
{
    for (const char* file : { "resnet18.onnx", "mixed.onnx", "seq_opset17.onnx" }) {
        const auto n = importOnnxFile(dataPath(file));
        QVERIFY2(n.ok(), messageOf(n));
        const auto reparsed = parseModel(serializeModel(n.value()));
        QVERIFY2(reparsed.ok(), messageOf(reparsed));
        QVERIFY2(reparsed.value() == n.value(), file);
    }
}

void TestOnnxImport::badInput_data()
{
    QTest::addColumn<QString>("file"); // a file under tests/data/onnx, or a special case below
    QTest::addColumn<QString>("expected"); // a part of the message
    QTest::newRow("no shapes") << "no_shapes.onnx"
                               << "input 'x' has no shape";
    QTest::newRow("opset too old") << "opset5.onnx"
                                   << "uses opset 5, older than Headroom imports (7 to 17)";
    QTest::newRow("opset too new") << "opset99.onnx"
                                   << "uses opset 99, newer than";
    QTest::newRow("absurd dimension") << "huge_dim.onnx"
                                      << "input 'x' axis 1 has size 1125899906842624";
    QTest::newRow("symbolic spatial axis") << "symbolic_spatial.onnx"
                                           << "input 'x' axis 2 is symbolic ('H')";
    QTest::newRow("two inputs") << "two_inputs.onnx"
                                << "the graph has 2 inputs ('a', 'b'); a Headroom network has exactly one";
    QTest::newRow("string input") << "string_input.onnx"
                                  << "input 'x' has element type STRING";
    QTest::newRow("undefined tensor") << "undefined_tensor.onnx"
                                      << "node relu (Relu) reads tensor 'ghost' before any node produces it";
    QTest::newRow("constant output") << "constant_output.onnx"
                                     << "its output 'y' does not depend on its input 'x'";
    QTest::newRow("batch axis merged") << "batch_merge.onnx"
                                       << "merge_batch (Reshape: it merges the batch axis";
    // nn.LSTM whose final cell state c_n feeds the head (make_exporters.py; h_n imports as the output's
    // last step, tst_onnxexporters): the node, why it has no layer, and why no generic operation can stand
    // in (its Y [T, 1, batch, H] is sequence-first).
    QTest::newRow("LSTM final cell state used")
        << "exporters/lstm_final_cell.onnx"
        << "/rnn/LSTM (LSTM: its output '/rnn/LSTM_output_0' [12, 1, batch, 16] has the batch axis at "
           "position 2, "
           "where no generic operation can stand in for it; its final cell state '/rnn/LSTM_output_2' is "
           "used";
    QTest::newRow("shape unknown after inference")
        << "unknown_shape.onnx"
        << "the shape of tensor 'r' (at opaque_reshape, Reshape) is unknown after ONNX shape inference";
    // Found by fuzzing: crashed ONNX 1.12's shape inference before Headroom filled in kernel_shape.
    QTest::newRow("conv weight rank above input rank")
        << "conv_rank_mismatch.onnx"
        << "conv (Conv: its weight [4, 3, 3, 3] does not fit an input of rank 2)";
    QTest::newRow("opset 18 without an opset-17 form")
        << "opset18_antialias.onnx"
        << "uses opset 18, which Headroom reads as opset 17, but 1 operator has no opset-17 form: "
           "node_Resize_0 (Resize: "
           "antialias = 1 has no opset-17 form)";
    QTest::newRow("zero stride")
        << "zero_stride.onnx"
        << "node pool (AveragePool) attribute 'strides' is [0, 2]; sizes must be 1 to 2^20";
    QTest::newRow("JPEG image")
        << ":jpeg"
        << "is not an ONNX model: its protobuf data is invalid or truncated (it looks like a JPEG image)";
    QTest::newRow("JSON model file") << ":json"
                                     << "(it looks like JSON text";
    QTest::newRow("JSON file read from disk") << ":jsonfile"
                                              << "(it looks like JSON text";
    QTest::newRow("empty") << ":empty"
                           << "is empty, not an ONNX model";
    QTest::newRow("truncated") << ":truncated"
                               << "invalid or truncated";
    QTest::newRow("missing file") << "no_such_model.onnx"
                                  << "no such file";
    // Issue #17: a graph with two writers of one tensor lost the first; NaN was printed as "null", an
    // out-of-range axis as the axis plus the rank.
    QTest::newRow("two writers of one tensor") << "duplicate_output.onnx"
                                               << "node second (Sigmoid) writes tensor 'y', which node first "
                                                  "writes too; an ONNX graph defines each tensor once";
    QTest::newRow("dropout ratio NaN") << "dropout_nan.onnx"
                                       << "dropout (Dropout: its ratio NaN is not a probability)";
    QTest::newRow("flatten axis out of range")
        << "flatten_axis.onnx"
        << "flatten (Flatten: its axis -99 is out of range for a rank-4 input (from -4 to 4))";
    QTest::newRow("reshape target below -1")
        << "reshape_negative.onnx"
        << "node reshape (Reshape) has a target shape with a size below -1";
}

void TestOnnxImport::badInput()
{
    QFETCH(QString, file);
    QFETCH(QString, expected);
    const std::string name = file.toStdString();
    Result<Network> r = Error {};
    if (name == ":jpeg")
        r = importOnnx(
            std::string("\xFF\xD8\xFF\xE0\x00\x10JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00\xFF\xDB", 22),
            "photo.onnx");
    else if (name == ":json")
        r = importOnnx(readBytes(presetPath("lenet5")), "photo.onnx");
    else if (name == ":jsonfile")
        r = importOnnxFile(presetPath("lenet5"));
    else if (name == ":empty")
        r = importOnnx({}, "photo.onnx");
    else if (name == ":truncated") {
        const std::string bytes = readBytes(dataPath("resnet18.onnx"));
        r = importOnnx(std::string_view(bytes).substr(0, bytes.size() / 2), "photo.onnx");
    } else
        r = importOnnxFile(dataPath(name));
    QVERIFY(!r.ok());
    const std::string& message = r.error().message;
    QVERIFY2(message.find(expected.toStdString()) != std::string::npos, message.c_str());
    const std::string shownName = name == ":jsonfile" ? presetPath("lenet5")
        : name.front() == ':'                         ? "photo.onnx"
                                                      : dataPath(name);
    QVERIFY2(message.rfind(shownName + ": ", 0) == 0, message.c_str()); // the message starts with the file
    QVERIFY(!r.error().location.empty());
}

void TestOnnxImport::unknownOperatorsBecomeGenericOps()
{
    // A custom-domain operator with a stored [16, 16] weight, Erf, TopK with both outputs used, a Cast:
    // no Headroom layer has them, so each becomes a GenericOp that keeps its inputs, with a warning.
    const auto n = importOnnxFile(dataPath("generic_ops.onnx"));
    QVERIFY2(n.ok(), messageOf(n));
    QCOMPARE(typesOf(n.value()),
        (std::vector<std::string> { "ReLU", "GenericOp", "GenericOp", "GenericOp", "GenericOp", "GenericOp",
            "Concat", "Flatten", "Linear" }));
    QCOMPARE(layerNamed(n.value(), "fancy")->attributes.at("op").get<std::string>(),
        std::string("com.example::Fancy"));
    QCOMPARE(layerNamed(n.value(), "fancy")->attributes.at("parameters").get<int>(), 16 * 16);
    QCOMPARE(layerNamed(n.value(), "topk_2")->attributes.at("output_dtype").get<std::string>(),
        std::string("int64"));
    QCOMPARE(layerNamed(n.value(), "topk_2")->attributes.at("keeps_inputs").get<bool>(), false);
    QCOMPARE(layerNamed(n.value(), "concat")->inputs, (std::vector<std::string> { "topk", "to_float" }));
    QVERIFY2(n->description.find("5 operators Headroom has no exact layer for") != std::string::npos,
        n->description.c_str());

    const Analysis a = analyze(n.value(), Precision::Fp32);
    QVERIFY2(a.valid(), a.error ? a.error->message.c_str() : "");
    QCOMPARE(a.totalParams, std::uint64_t { 16 * 16 + 64 * 10 + 10 });
    // Per sample: Fancy keeps relu's [8, 16] float32 (512 B), Erf keeps Fancy's (512), TopK keeps Erf's
    // (512), Cast keeps the int64 indices [8, 4] (256), the Linear keeps the Concat's [64] (256), the loss
    // its log-softmax [10] (40); TopK's second layer keeps nothing.
    QCOMPARE(a.activationBytesPerSample, std::uint64_t { 512 * 3 + 256 + 256 + 40 });
    QCOMPARE(a.warnings.size(), std::size_t { 5 });
    const std::vector<std::pair<std::string, std::string>> expected {
        { "fancy",
            "operator 'com.example::Fancy' has no Headroom layer; it is modelled as a generic operation that "
            "keeps its 1 input for backward and makes a new float32 [8, 16] tensor, with 256 parameters" },
        { "erf", "operator 'Erf' has no Headroom layer" },
        { "topk", "operator 'TopK' has no Headroom layer" },
        { "topk_2", "keeps nothing for backward and makes a new int64 [8, 4] tensor" },
        { "to_float", "operator 'Cast' has no Headroom layer" }
    };
    for (std::size_t k = 0; k < expected.size(); ++k) {
        QCOMPARE(a.warnings[k].layer, expected[k].first);
        QVERIFY2(a.warnings[k].message.find(expected[k].second) != std::string::npos,
            a.warnings[k].message.c_str());
    }
}

void TestOnnxImport::settingsWithoutALayerBecomeGenericOps()
{
    // A Conv with asymmetric padding (TensorFlow's "SAME" at stride 2) has no PyTorch layer of its own:
    // a GenericOp with the Conv's 8 x 3 x 3 x 3 weight as its parameters, and the reason in its warning.
    const auto n = importOnnxFile(dataPath("asymmetric_pads.onnx"));
    QVERIFY2(n.ok(), messageOf(n));
    QCOMPARE(typesOf(n.value()), (std::vector<std::string> { "GenericOp" }));
    const Analysis a = analyze(n.value(), Precision::Fp32);
    QCOMPARE(a.totalParams, std::uint64_t { 8 * 3 * 3 * 3 });
    QCOMPARE(a.output.shape.dims, (std::vector<std::int64_t> { 8, 8, 8 }));
    QCOMPARE(a.warnings.size(), std::size_t { 1 });
    QCOMPARE(a.warnings.front().layer, std::string("conv_asym"));
    QVERIFY2(
        a.warnings.front().message.rfind("operator 'Conv' (asymmetric padding (begin [0, 0], end [1, 1])", 0)
            == 0,
        a.warnings.front().message.c_str());
}

void TestOnnxImport::genericOpInModelFiles_data()
{
    // A GenericOp written by hand on a [4, 8] input: what it keeps and makes follows its attributes.
    QTest::addColumn<QString>("attributes"); // the GenericOp's JSON attributes
    QTest::addColumn<QString>("error"); // part of the error, or empty
    QTest::addColumn<qint64>("activations"); // activation bytes per sample without the loss
    QTest::addColumn<qint64>("params");
    // Between Linear(8) (8 x 8 + 8 parameters) and Linear(2) (16 x 2 + 2): the GenericOp keeps the first
    // Linear's [4, 8] float32 output (128 B), the second Linear keeps the GenericOp's [4, 16] (256 B).
    QTest::newRow("defaults") << R"("op": "Fancy", "output_shape": [4, 16])"
                              << "" << qint64 { 128 + 256 } << qint64 { 72 + 34 };
    QTest::newRow("keeps nothing, holds parameters")
        << R"("op": "Fancy", "output_shape": [4, 16], "keeps_inputs": false, "parameters": 100)"
        << "" << qint64 { 256 } << qint64 { 72 + 100 + 34 };
    QTest::newRow("bfloat16 output")
        << R"("op": "Fancy", "output_shape": [4, 16], "output_dtype": "bfloat16")"
        << "" << qint64 { 128 + 128 } << qint64 { 72 + 34 };
    QTest::newRow("empty name") << R"("op": "", "output_shape": [4, 16])"
                                << "layers[1].op must be a line of text of 1 to 200 characters"
                                << qint64 { 0 } << qint64 { 0 };
    QTest::newRow("control character")
        << R"("op": "a\u0007b", "output_shape": [4, 16])"
        << "layers[1].op must be a line of text" << qint64 { 0 } << qint64 { 0 };
    QTest::newRow("name too long")
        << QStringLiteral(R"("op": "%1", "output_shape": [4, 16])").arg(QString(201, QLatin1Char('x')))
        << "layers[1].op must be a line of text of 1 to 200 characters" << qint64 { 0 } << qint64 { 0 };
    QTest::newRow("name not text") << R"("op": 3, "output_shape": [4, 16])"
                                   << "layers[1].op must be a line of text" << qint64 { 0 } << qint64 { 0 };
    QTest::newRow("no shape") << R"("op": "Fancy")"
                              << "layers[1].output_shape is required" << qint64 { 0 } << qint64 { 0 };
}

void TestOnnxImport::genericOpInModelFiles()
{
    QFETCH(QString, attributes);
    QFETCH(QString, error);
    QFETCH(qint64, activations);
    QFETCH(qint64, params);
    const std::string text
        = R"({"format": "headroom-model", "version": 1, "input": {"shape": [4, 8]}, "loss": "none",
        "layers": [{"type": "Linear", "out_features": 8}, {"type": "GenericOp", )"
        + attributes.toStdString() + R"(},
                   {"type": "Linear", "out_features": 2}]})";
    const auto n = parseModel(text);
    QVERIFY2(n.ok(), messageOf(n));
    const Analysis a = analyze(n.value(), Precision::Fp32);
    if (!error.isEmpty()) {
        QVERIFY(!a.valid());
        QVERIFY2(a.error->message.find(error.toStdString()) != std::string::npos, a.error->message.c_str());
        return;
    }
    QVERIFY2(a.valid(), a.error ? a.error->message.c_str() : "");
    QCOMPARE(static_cast<qint64>(a.activationBytesPerSample), activations);
    QCOMPARE(static_cast<qint64>(a.totalParams), params);
    QCOMPARE(a.warnings.size(), std::size_t { 1 });
    QCOMPARE(a.warnings.front().layer, std::string("1"));
    QVERIFY2(a.warnings.front().message.rfind("operator 'Fancy' has no Headroom layer", 0) == 0,
        a.warnings.front().message.c_str());
    const auto reparsed = parseModel(serializeModel(n.value()));
    QVERIFY2(reparsed.ok() && reparsed.value() == n.value(), "the GenericOp does not survive saving");
}

void TestOnnxImport::evalModeExportsAreWarnedAbout_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<QStringList>("parts"); // parts of the one warning; empty: no warning
    QTest::newRow("eval mode: BatchNorm folded, BatchNorm1d in inference mode")
        << "eval_mode.onnx"
        << QStringList { QStringLiteral("the ONNX file was exported in inference (eval) mode"),
               QStringLiteral("BatchNorm was folded into 1 convolution (/conv/Conv)"),
               QStringLiteral("1 BatchNormalization node is in inference mode (/bn1/BatchNormalization"),
               QStringLiteral("any Dropout was removed"),
               QStringLiteral("training=torch.onnx.TrainingMode.TRAINING, do_constant_folding=False") };
    for (const char* file :
        { "resnet18.onnx", "small_resnet.onnx", "mixed.onnx", "signal1d.onnx", "opset9.onnx" })
        QTest::newRow(file) << file << QStringList {};
}

void TestOnnxImport::evalModeExportsAreWarnedAbout()
{
    QFETCH(QString, file);
    QFETCH(QStringList, parts);
    const auto n = importOnnxFile(dataPath(file.toStdString()));
    QVERIFY2(n.ok(), messageOf(n));
    QCOMPARE(n->warnings.size(), parts.isEmpty() ? std::size_t { 0 } : std::size_t { 1 });
    if (parts.isEmpty())
        return;
    for (const auto& part : parts)
        QVERIFY2(
            n->warnings.front().find(part.toStdString()) != std::string::npos, n->warnings.front().c_str());
    const Analysis a = analyze(n.value(), Precision::Fp32);
    QVERIFY(!a.warnings.empty());
    QCOMPARE(a.warnings.front().layer, std::string());
    QCOMPARE(a.warnings.front().message, n->warnings.front());
    // Saved as a model file, the network keeps its warning.
    const auto reparsed = parseModel(serializeModel(n.value()));
    QVERIFY2(reparsed.ok(), messageOf(reparsed));
    QCOMPARE(reparsed->warnings, n->warnings);
}

void TestOnnxImport::lossIsTheUsersChoice_data()
{
    // signal1d ends in Sigmoid (output [4], which Sigmoid itself keeps); its input is [2, 64] float32.
    // What each loss adds per sample (PyTorch 2.x, checked with torch 1.13's saved-tensor hooks):
    // cross-entropy its log-softmax (4 x 4 B) and one int64 label; MSE and BCE keep the prediction, which
    // Sigmoid already keeps in fp32 (0 B new) but which autocast casts to a new float32 copy; L1 keeps
    // (input - target), a new tensor; MSE, L1 and BCE read a float32 target of the output's shape.
    QTest::addColumn<QString>("loss");
    QTest::addColumn<int>("precision");
    QTest::addColumn<qint64>("lossBytes");
    QTest::addColumn<qint64>("labelBytes");
    const int fp32 = static_cast<int>(Precision::Fp32);
    const int bf16 = static_cast<int>(Precision::AmpBf16);
    QTest::newRow("cross_entropy") << "cross_entropy" << fp32 << qint64 { 16 } << qint64 { 8 };
    QTest::newRow("mse") << "mse" << fp32 << qint64 { 0 } << qint64 { 16 };
    QTest::newRow("l1") << "l1" << fp32 << qint64 { 16 } << qint64 { 16 };
    QTest::newRow("bce") << "bce" << fp32 << qint64 { 0 } << qint64 { 16 };
    QTest::newRow("none") << "none" << fp32 << qint64 { 0 } << qint64 { 0 };
    QTest::newRow("bce, autocast") << "bce" << bf16 << qint64 { 16 } << qint64 { 16 };
    QTest::newRow("l1, autocast") << "l1" << bf16 << qint64 { 16 } << qint64 { 16 };
}

void TestOnnxImport::lossIsTheUsersChoice()
{
    QFETCH(QString, loss);
    QFETCH(int, precision);
    QFETCH(qint64, lossBytes);
    QFETCH(qint64, labelBytes);
    const auto imported = importOnnxFile(dataPath("signal1d.onnx"));
    QVERIFY2(imported.ok(), messageOf(imported));
    const auto parsed = parseLoss(loss.toStdString());
    QVERIFY(parsed);
    QCOMPARE(lossName(*parsed), std::string_view(loss.toStdString()));
    Network n = imported.value();
    n.loss = Loss::None;
    const Analysis without = analyze(n, static_cast<Precision>(precision));
    n.loss = *parsed;
    const Analysis with = analyze(n, static_cast<Precision>(precision));
    QVERIFY2(with.valid(), with.error ? with.error->message.c_str() : "");
    QCOMPARE(
        static_cast<qint64>(with.activationBytesPerSample - without.activationBytesPerSample), lossBytes);
    QCOMPARE(static_cast<qint64>(with.inputBytesPerSample), qint64 { 2 * 64 * 4 } + labelBytes);
    // The model file keeps the choice.
    const auto reparsed = parseModel(serializeModel(n));
    QVERIFY2(reparsed.ok(), messageOf(reparsed));
    QCOMPARE(reparsed->loss, *parsed);
}

void TestOnnxImport::everyTruncationIsAnError()
{
    // A real export with its weights (26 KB): every prefix must fail cleanly, the whole file import.
    const std::string bytes = readBytes(dataPath("small_resnet.onnx"));
    QVERIFY(bytes.size() > 10000);
    for (std::size_t n = 0; n < bytes.size(); ++n) {
        const auto r = importOnnx(std::string_view(bytes).substr(0, n), "cut.onnx");
        if (r.ok())
            QFAIL(("a prefix of " + std::to_string(n) + " bytes imported").c_str());
        if (r.error().message.rfind("cut.onnx: ", 0) != 0)
            QFAIL(r.error().message.c_str());
    }
    QVERIFY(importOnnx(bytes, "whole.onnx").ok());
}

void TestOnnxImport::loadNetworkFileDispatchesOnExtension()
{
    QVERIFY(isOnnxPath("a/b/model.onnx"));
    QVERIFY(isOnnxPath("MODEL.ONNX"));
    QVERIFY(!isOnnxPath("model.json"));
    QVERIFY(!isOnnxPath("onnx"));
    const auto onnx = loadNetworkFile(dataPath("lenet5.onnx"));
    QVERIFY2(onnx.ok(), messageOf(onnx));
    QCOMPARE(onnx->name, std::string("lenet5"));
    const auto json = loadNetworkFile(presetPath("lenet5"));
    QVERIFY2(json.ok(), messageOf(json));
    QCOMPARE(json->name, std::string("LeNet-5"));
    const auto missing = loadNetworkFile(dataPath("missing.onnx"));
    QVERIFY(!missing.ok());
}

QTEST_APPLESS_MAIN(TestOnnxImport)
#include "tst_onnximport.moc"

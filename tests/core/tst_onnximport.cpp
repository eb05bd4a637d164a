// ONNX import against real torch.onnx.export files (tests/data/onnx, made by make_onnx.py with
// torch 1.13): PyTorch's parameter counts, the native presets' activation bytes, the graph's
// branches, and a specific error for every kind of bad input, including every truncation of a file.
#include "headroom/Analysis.h"
#include "headroom/ModelFile.h"
#include "headroom/NetworkFile.h"
#include "headroom/OnnxImport.h"

#include <QTest>

#include <algorithm>
#include <fstream>
#include <iterator>

using namespace headroom;

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
    return{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
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

std::vector<std::string> typesOf(const Network& n)
{
    std::vector<std::string> types;
    for (const auto& l : n.layers)
        types.push_back(l.type);
    return types;
}

} // namespace

class TestOnnxImport : public QObject {
    Q_OBJECT
private slots:
    void torchvisionMatchesPyTorchAndPresets_data();
    void torchvisionMatchesPyTorchAndPresets();
    void smallModelsMatchPyTorch_data();
    void smallModelsMatchPyTorch();
    void lenetEqualsNativeLayerByLayer();
    void residualBranchesArePreserved();
    void namesFollowTorchModuleScopes();
    void operatorsMapToLayers();
    void activationsRunInPlaceWherePyTorchAllows();
    void batchAxis();
    void importedNetworkSavesAsModelFile();
    void badInput_data();
    void badInput();
    void unsupportedOperatorsAreAllListed();
    void everyTruncationIsAnError();
    void loadNetworkFileDispatchesOnExtension();
};

void TestOnnxImport::torchvisionMatchesPyTorchAndPresets_data()
{
    QTest::addColumn<QString>("id");
    QTest::addColumn<qint64>("params"); // sum(p.numel() for p in model.parameters()), torchvision 0.14
    QTest::newRow("alexnet") << "alexnet" << qint64{61100840};
    QTest::newRow("vgg16") << "vgg16" << qint64{138357544};
    QTest::newRow("resnet18") << "resnet18" << qint64{11689512};
    QTest::newRow("mobilenet_v2") << "mobilenet_v2" << qint64{3504872};
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
    for (const auto precision : {Precision::AmpFp16, Precision::Bf16}) {
        const Analysis ah = analyze(imported.value(), precision);
        const Analysis bh = analyze(native.value(), precision);
        QCOMPARE(ah.activationBytesPerSample, bh.activationBytesPerSample);
    }
}

void TestOnnxImport::smallModelsMatchPyTorch_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<qint64>("params"); // from the PyTorch modules in make_onnx.py
    QTest::newRow("lenet5 (real weights)") << "lenet5.onnx" << qint64{61706};
    QTest::newRow("small_resnet (real weights)") << "small_resnet.onnx" << qint64{5266};
    QTest::newRow("signal1d") << "signal1d.onnx" << qint64{1236};
    QTest::newRow("mixed") << "mixed.onnx" << qint64{21294};
    QTest::newRow("seq_opset17") << "seq_opset17.onnx" << qint64{2440};
    QTest::newRow("opset9 (hand-built)") << "opset9.onnx" << qint64{4 * 3 * 9 + 4 + 5 * 256 + 5};
    QTest::newRow("fixed_batch (hand-built)") << "fixed_batch.onnx" << qint64{8 * 3 * 9};
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
    QCOMPARE(first->inputs, (std::vector<std::string>{"layer1.0.bn2", "maxpool"}));
    // Projection shortcut: conv + bn on the block's input, added to the main branch.
    const auto* down = layerNamed(n.value(), "layer2.0.downsample.0");
    QVERIFY(down);
    QCOMPARE(down->inputs, (std::vector<std::string>{"layer1.1.relu_1"}));
    const auto* projected = layerNamed(n.value(), "layer2.0.Add");
    QVERIFY(projected);
    QCOMPARE(projected->inputs, (std::vector<std::string>{"layer2.0.bn2", "layer2.0.downsample.1"}));

    const auto mobile = importOnnxFile(dataPath("mobilenet_v2.onnx"));
    QVERIFY2(mobile.ok(), messageOf(mobile));
    const auto* inverted = layerNamed(mobile.value(), "features.3.Add");
    QVERIFY(inverted);
    QCOMPARE(inverted->inputs, (std::vector<std::string>{"features.2.conv.3", "features.3.conv.3"}));
}

void TestOnnxImport::namesFollowTorchModuleScopes()
{
    const auto n = importOnnxFile(dataPath("mobilenet_v2.onnx"));
    QVERIFY2(n.ok(), messageOf(n));
    for (const char* name : {"features.0.0", "features.0.1", "features.0.2", "features.1.conv.0.0",
             "features.18.2", "classifier.0", "classifier.1"})
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
        (std::vector<std::string>{"Conv2d", "ReLU", "ConvTranspose2d", "Concat", "AvgPool2d", "Conv2d",
            "SiLU", "Flatten", "GELU", "Dropout", "Linear"}));
    QCOMPARE(layerNamed(mixed.value(), "Concat")->inputs, (std::vector<std::string>{"up", "input"}));
    QCOMPARE(layerNamed(mixed.value(), "drop")->attributes.at("p").get<double>(), 0.25);
    QCOMPARE(layerNamed(mixed.value(), "pool")->attributes.at("count_include_pad").get<bool>(), false);
    QCOMPARE(layerNamed(mixed.value(), "up")->attributes.at("stride").get<int>(), 2);
    QVERIFY2(mixed->description.find("LogSoftmax") != std::string::npos, mixed->description.c_str());

    const auto seq = importOnnxFile(dataPath("seq_opset17.onnx"));
    QVERIFY2(seq.ok(), messageOf(seq));
    QCOMPARE(seq->input.dtype, DType::Int64);
    QCOMPARE(seq->input.shape.dims, (std::vector<std::int64_t>{12}));
    QCOMPARE(typesOf(seq.value()),
        (std::vector<std::string>{"Embedding", "LayerNorm", "Linear", "GELU", "Linear", "Softmax"}));
    QCOMPARE(layerNamed(seq.value(), "emb")->attributes.at("num_embeddings").get<int>(), 100);
    QVERIFY(!layerNamed(seq.value(), "fc1")->attributes.contains("bias")); // MatMul + Add: a Linear with bias

    const auto signal = importOnnxFile(dataPath("signal1d.onnx"));
    QVERIFY2(signal.ok(), messageOf(signal));
    QCOMPARE(typesOf(signal.value()),
        (std::vector<std::string> {
            "Conv1d", "BatchNorm1d", "LeakyReLU", "Conv1d", "Tanh", "Flatten", "Linear", "Sigmoid"}));
    const auto& conv2 = layerNamed(signal.value(), "conv2")->attributes;
    QCOMPARE(conv2.at("groups").get<int>(), 2);
    QCOMPARE(conv2.at("dilation").get<int>(), 2);
    QCOMPARE(layerNamed(signal.value(), "act")->attributes.at("negative_slope").get<double>(), 0.2);

    // Opset 9: Clip(0, 6) from attributes, Dropout's ratio attribute, Softmax on the last axis.
    const auto old = importOnnxFile(dataPath("opset9.onnx"));
    QVERIFY2(old.ok(), messageOf(old));
    QCOMPARE(typesOf(old.value()),
        (std::vector<std::string>{"Conv2d", "ReLU6", "Flatten", "Dropout", "Linear", "Softmax"}));
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
    // For LeakyReLU it matters: in place it keeps one tensor, out of place its input and its output
    // (the BatchNorm1d output [8, 32] here, 1,024 bytes per sample, stays alive as well).
    const auto signal = importOnnxFile(dataPath("signal1d.onnx"));
    QVERIFY2(signal.ok(), messageOf(signal));
    QVERIFY(layerNamed(signal.value(), "act")->attributes.value("inplace", false));
    Network copy = signal.value();
    for (auto& l : copy.layers)
        l.attributes.erase("inplace");
    QCOMPARE(analyze(copy, Precision::Fp32).activationBytesPerSample,
        analyze(signal.value(), Precision::Fp32).activationBytesPerSample + 8 * 32 * 4);
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
    QCOMPARE(symbolic->input.shape.dims, (std::vector<std::int64_t>{3, 224, 224}));
    QVERIFY2(
        symbolic->description.find("'batch', symbolic") != std::string::npos, symbolic->description.c_str());

    const auto fixed = importOnnxFile(dataPath("fixed_batch.onnx"));
    QVERIFY2(fixed.ok(), messageOf(fixed));
    QCOMPARE(fixed->input.shape.dims, (std::vector<std::int64_t>{3, 16, 16}));
    QVERIFY2(fixed->description.find("fixed size 4") != std::string::npos, fixed->description.c_str());
}

void TestOnnxImport::importedNetworkSavesAsModelFile()
{
    for (const char* file : {"resnet18.onnx", "mixed.onnx", "seq_opset17.onnx"}) {
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
    QTest::newRow("asymmetric padding") << "asymmetric_pads.onnx"
                                        << "conv_asym (Conv: asymmetric padding (begin [0, 0], end [1, 1])";
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
    QTest::newRow("shape unknown after inference")
        << "unknown_shape.onnx"
        << "the shape of tensor 'r' (at opaque_reshape, Reshape) is unknown after ONNX shape inference";
    // Found by fuzzing: crashed ONNX 1.12's shape inference before Headroom filled in kernel_shape.
    QTest::newRow("conv weight rank above input rank")
        << "conv_rank_mismatch.onnx"
        << "conv (Conv: its weight [4, 3, 3, 3] does not fit an input of rank 2)";
    QTest::newRow("zero stride") << "zero_stride.onnx" << "node pool (AveragePool) has strides [0, 2]; they must be positive";
    QTest::newRow("JPEG image")
        << ":jpeg"
        << "is not an ONNX model: its protobuf data is invalid or truncated (it looks like a JPEG image)";
    QTest::newRow("JSON model file") << ":json"
                                     << "(it looks like JSON text";
    QTest::newRow("JSON file read from disk") << ":jsonfile" << "(it looks like JSON text";
    QTest::newRow("empty") << ":empty"
                           << "is empty, not an ONNX model";
    QTest::newRow("truncated") << ":truncated"
                               << "invalid or truncated";
    QTest::newRow("missing file") << "no_such_model.onnx"
                                  << "no such file";
    // Issue #17: a graph with two writers of one tensor lost the first; NaN was printed as "null", an
    // out-of-range axis as the axis plus the rank.
    QTest::newRow("two writers of one tensor")
        << "duplicate_output.onnx"
        << "node second (Sigmoid) writes tensor 'y', which node first writes too; an ONNX graph defines each tensor once";
    QTest::newRow("dropout ratio NaN") << "dropout_nan.onnx" << "dropout (Dropout: its ratio NaN is not a probability)";
    QTest::newRow("flatten axis out of range")
        << "flatten_axis.onnx" << "flatten (Flatten: its axis -99 is out of range for a rank-4 input (from -4 to 4))";
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
    const std::string shownName
        = name == ":jsonfile" ? presetPath("lenet5") : name.front() == ':' ? "photo.onnx" : dataPath(name);
    QVERIFY2(message.rfind(shownName + ": ", 0) == 0, message.c_str()); // the message starts with the file
    QVERIFY(!r.error().location.empty());
}

void TestOnnxImport::unsupportedOperatorsAreAllListed()
{
    const auto r = importOnnxFile(dataPath("unsupported_ops.onnx"));
    QVERIFY(!r.ok());
    const std::string& m = r.error().message;
    QVERIFY2(m.find("cannot import 3 operators (HardSwish, Mul, Resize): ") != std::string::npos, m.c_str());
    for (const char* part : {"/act/HardSwish (HardSwish)", "/Resize (Resize)", "/Mul (Mul)"})
        QVERIFY2(m.find(part) != std::string::npos, part);
    QCOMPARE(r.error().location, std::string("/act/HardSwish"));
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

// The model-file format: the issue's example loads, round trips are exact, and bad input gets a
// located, specific error (never a crash or a hang).
#include "NetworkBuilder.h"
#include "headroom/Analysis.h"
#include "headroom/ModelFile.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace headroom;
using namespace headroom::test;

namespace {
const char* kLeNetExample = R"({
  "format": "headroom-model", "version": 1,
  "name": "LeNet-5",
  "input": { "shape": [1, 32, 32], "dtype": "float32" },
  "layers": [
    { "type": "Conv2d", "out_channels": 6, "kernel_size": 5 },
    { "type": "ReLU" },
    { "type": "MaxPool2d", "kernel_size": 2 },
    { "type": "Flatten" },
    { "type": "Linear", "out_features": 10 }
  ]
})";
} // namespace

class TestModelFile : public QObject {
    Q_OBJECT
private slots:
    void issueExampleLoads();
    void roundTrip();
    void badInput_data();
    void badInput();
    void truncatedFilesNeverCrash();
    void deepNestingIsRefused();
    void fileErrorsNameTheFile();
    void saveIsAtomic();
    void hugeRepeatIsRefused();
};

void TestModelFile::issueExampleLoads()
{
    const auto n = parseModel(kLeNetExample);
    QVERIFY2(n.ok(), n.ok() ? "" : n.error().message.c_str());
    QCOMPARE(n->name, std::string("LeNet-5"));
    QVERIFY(n->input.shape == (Shape{{1, 32, 32}}));
    QCOMPARE(n->layers.size(), std::size_t{5});
    QCOMPARE(n->loss, Loss::CrossEntropy);
    const Analysis a = analyze(n.value(), Precision::Fp32);
    QVERIFY(a.valid());
    // conv 6x1x5x5+6 = 156; linear 6x14x14=1176 -> 10: 11,770
    QCOMPARE(a.totalParams, std::uint64_t{156 + 11770});
}

void TestModelFile::roundTrip()
{
    Network n = network({3, 32, 32},
                        {layer("Conv2d", {{"out_channels", 8}, {"kernel_size", 3}, {"padding", "same"}}, "stem"),
                         repeat("blocks", 2, {layer("Conv2d", {{"out_channels", 8}, {"kernel_size", 3}, {"padding", 1}}, "c"),
                                              layer("Add", {}, "add", {"c", "repeat_input"})}),
                         layer("Flatten"), layer("Linear", {{"out_features", 10}, {"bias", false}})});
    n.name = "Round trip ✓";
    n.description = "unicode and \"quotes\"";
    n.loss = Loss::Mse;
    const std::string text = serializeModel(n);
    const auto back = parseModel(text);
    QVERIFY2(back.ok(), back.ok() ? "" : back.error().message.c_str());
    QVERIFY(back.value() == n);
    QCOMPARE(serializeModel(back.value()), text);
}

void TestModelFile::badInput_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("message");
    QTest::newRow("empty") << "" << "line 1, column 1: the file is empty";
    QTest::newRow("syntax") << "{\n  \"format\": \"headroom-model\",\n  \"version\": 1,,\n}" << "line 3, column 16: syntax error while parsing object key - unexpected ','";
    QTest::newRow("number too large") << R"({"format": 1e400})" << "number overflow parsing";
    QTest::newRow("not an object") << "[1, 2]" << "a model file must hold a JSON object, not an array";
    QTest::newRow("wrong format") << R"({"format":"onnx","version":1})" << "format must be \"headroom-model\"";
    QTest::newRow("future version") << R"({"format":"headroom-model","version":2,"input":{"shape":[1]},"layers":[]})"
                                    << "version 2 is not supported; this Headroom reads version 1";
    QTest::newRow("missing input") << R"({"format":"headroom-model","version":1,"layers":[]})" << "input is required";
    QTest::newRow("zero dim") << R"({"format":"headroom-model","version":1,"input":{"shape":[3,0,4]},"layers":[]})"
                              << "input.shape[1] must be a positive integer up to 2^40, not 0";
    QTest::newRow("absurd dim") << R"({"format":"headroom-model","version":1,"input":{"shape":[3,99999999999999999]},"layers":[]})"
                                << "input.shape[1] must be a positive integer up to 2^40";
    QTest::newRow("bad dtype") << R"({"format":"headroom-model","version":1,"input":{"shape":[3],"dtype":"float8"},"layers":[]})"
                               << "input.dtype must be one of";
    QTest::newRow("layers not a list") << R"({"format":"headroom-model","version":1,"input":{"shape":[3]},"layers":{}})"
                                       << "layers must be a list of layers, not an object";
    QTest::newRow("layer without type") << R"({"format":"headroom-model","version":1,"input":{"shape":[3]},"layers":[{"type":"ReLU"},{"out_features":3}]})"
                                        << "layers[1].type must be a layer type name";
    QTest::newRow("bad name") << R"({"format":"headroom-model","version":1,"input":{"shape":[3]},"layers":[{"type":"ReLU","name":"a b"}]})"
                              << "layers[0].name must be a name of letters";
    QTest::newRow("reserved name") << R"({"format":"headroom-model","version":1,"input":{"shape":[3]},"layers":[{"type":"ReLU","name":"input"}]})"
                                   << "layers[0].name \"input\" is reserved";
    QTest::newRow("inputs not strings") << R"({"format":"headroom-model","version":1,"input":{"shape":[3]},"layers":[{"type":"Add","inputs":[1,2]}]})"
                                        << "layers[0].inputs[0] must be a layer name";
    QTest::newRow("repeat without times") << R"({"format":"headroom-model","version":1,"input":{"shape":[3]},"layers":[{"type":"Repeat","layers":[{"type":"ReLU"}]}]})"
                                          << "layers[0].times must be an integer from 1 to 100000";
    QTest::newRow("repeat empty") << R"({"format":"headroom-model","version":1,"input":{"shape":[3]},"layers":[{"type":"Repeat","times":2,"layers":[]}]})"
                                  << "layers[0].layers must hold at least one layer";
    QTest::newRow("nested error path") << R"({"format":"headroom-model","version":1,"input":{"shape":[3]},"layers":[{"type":"Repeat","times":2,"layers":[{"type":"ReLU"},{"name":"x"}]}]})"
                                       << "layers[0].layers[1].type must be";
    QTest::newRow("unknown top-level key") << R"({"format":"headroom-model","version":1,"input":{"shape":[3]},"layer":[]})"
                                           << "layer is not a known top-level key";
    QTest::newRow("bad loss") << R"({"format":"headroom-model","version":1,"input":{"shape":[3]},"loss":"hinge","layers":[]})"
                              << "loss must be \"cross_entropy\", \"mse\", \"l1\", \"bce\" or \"none\"";
    QTest::newRow("warnings not strings") << R"({"format":"headroom-model","version":1,"input":{"shape":[3]},"warnings":[1],"layers":[]})"
                                          << "warnings must be a list of strings";
}

void TestModelFile::badInput()
{
    QFETCH(QString, text);
    QFETCH(QString, message);
    const auto n = parseModel(text.toStdString());
    QVERIFY(!n.ok());
    QVERIFY2(QString::fromStdString(n.error().message).startsWith(message), n.error().message.c_str());
}

void TestModelFile::truncatedFilesNeverCrash()
{
    const std::string full = kLeNetExample;
    for (std::size_t cut = 0; cut < full.size(); ++cut) {
        const auto n = parseModel(std::string_view(full).substr(0, cut));
        QVERIFY2(!n.ok(), std::to_string(cut).c_str());
        QVERIFY(n.error().message.find("line ") != std::string::npos);
    }
}

void TestModelFile::deepNestingIsRefused()
{
    const std::string deep = std::string(100000, '[') + std::string(100000, ']');
    const auto n = parseModel(deep);
    QVERIFY(!n.ok());
    QVERIFY2(n.error().message.find("nesting is deeper than") != std::string::npos, n.error().message.c_str());
}

void TestModelFile::fileErrorsNameTheFile()
{
    QTemporaryDir dir;
    const auto missing = loadModelFile(dir.filePath(QStringLiteral("nope.json")).toStdString());
    QVERIFY(!missing.ok());
    QVERIFY2(missing.error().message.find("nope.json: no such file") != std::string::npos, missing.error().message.c_str());
    const QString broken = dir.filePath(QStringLiteral("broken.json"));
    QFile f(broken);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("{\"format\": \"headroom-model\",\n \"version\": 1,\n \"input\": {\"shape\": [3]},\n \"layers\": [ {\"type\": \"ReLU\" ");
    f.close();
    const auto truncated = loadModelFile(broken.toStdString());
    QVERIFY(!truncated.ok());
    QVERIFY2(truncated.error().message.find("broken.json: line 4") != std::string::npos, truncated.error().message.c_str());
    const auto folder = loadModelFile(dir.path().toStdString());
    QVERIFY(!folder.ok());
    QVERIFY2(folder.error().message.find("is a folder") != std::string::npos, folder.error().message.c_str());
}

void TestModelFile::saveIsAtomic()
{
    QTemporaryDir dir;
    const std::string path = dir.filePath(QStringLiteral("model.json")).toStdString();
    QVERIFY(saveModelFile(lenet5(), path).ok());
    const auto loaded = loadModelFile(path);
    QVERIFY(loaded.ok());
    QVERIFY(loaded.value() == lenet5());
    QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden).size(), 1); // no temporary left behind
    const auto bad = saveModelFile(lenet5(), dir.filePath(QStringLiteral("missing/model.json")).toStdString());
    QVERIFY(!bad.ok());
    QVERIFY2(bad.error().message.find("cannot write") != std::string::npos, bad.error().message.c_str());
}

void TestModelFile::hugeRepeatIsRefused()
{
    // 100,000 x 100,000 layers would never finish: the analysis refuses past a million.
    Network n = network({4}, {repeat("outer", 100000, {repeat("inner", 100000, {layer("ReLU")})})}, Loss::None);
    const Analysis a = analyze(n, Precision::Fp32);
    QVERIFY(!a.valid());
    QVERIFY2(a.error->message.find("more than 1000000 layers") != std::string::npos, a.error->message.c_str());
}

QTEST_APPLESS_MAIN(TestModelFile)
#include "tst_modelfile.moc"

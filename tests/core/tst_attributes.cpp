// Attribute validation: defaults, ranges and messages that name the JSON path.
#include "NetworkBuilder.h"
#include "headroom/analysis/Analysis.h"
#include "headroom/layers/LayerRegistry.h"

#include <QTest>
#include <algorithm>

using namespace headroom;
using namespace headroom::test;
using nlohmann::json;

class TestAttributes : public QObject
{
    Q_OBJECT
private slots:
    void badValues_data();
    void badValues();
    void defaultsAreFilledIn();
    void tupleExpandsInt();
    void unknownTypeListsKnownOnes();
    void everyKindHasValidDefaults();
    void everyOptionalAttributeSaysWhatOmissionMeans();
};

void TestAttributes::badValues_data()
{
    QTest::addColumn<QString>("layerJson");
    QTest::addColumn<QString>("message");
    QTest::newRow("zero kernel")
        << R"({"type":"Conv2d","out_channels":4,"kernel_size":0})"
        << "layers[1].kernel_size must be a positive integer or a list of 2 such integers";
    QTest::newRow("string kernel")
        << R"({"type":"Conv2d","out_channels":4,"kernel_size":"3"})"
        << "layers[1].kernel_size must be a positive integer or a list of 2 such integers";
    QTest::newRow("kernel of 3 dims")
        << R"({"type":"Conv2d","out_channels":4,"kernel_size":[3,3,3]})"
        << "layers[1].kernel_size must be a positive integer or a list of 2 such integers";
    QTest::newRow("missing out_channels") << R"({"type":"Conv2d","kernel_size":3})"
                                          << "layers[1].out_channels is required";
    QTest::newRow("negative padding") << R"({"type":"Conv2d","out_channels":4,"kernel_size":3,"padding":-1})"
                                      << "layers[1].padding must be a non-negative integer or a list of 2 "
                                         "such integers, or \"valid\" or \"same\"";
    QTest::newRow("typo") << R"({"type":"Conv2d","out_channels":4,"kernal_size":3})"
                          << "layers[1].kernal_size is not an attribute of this layer type";
    QTest::newRow("p out of range") << R"({"type":"Dropout","p":1.5})"
                                    << "layers[1].p must be a number >= 0 and <= 1";
    QTest::newRow("bool as int") << R"({"type":"ReLU","inplace":1})"
                                 << "layers[1].inplace must be true or false";
    QTest::newRow("bad choice") << R"({"type":"GELU","approximate":"fast"})"
                                << "layers[1].approximate must be one of \"none\" or \"tanh\"";
    QTest::newRow("huge int") << R"({"type":"Linear","out_features":99999999999999})"
                              << "layers[1].out_features must be at most 2147483647";
}

void TestAttributes::badValues()
{
    QFETCH(QString, layerJson);
    QFETCH(QString, message);
    auto spec = json::parse(layerJson.toStdString());
    const std::string type = spec["type"];
    spec.erase("type");
    const Analysis a = analyze(
        network({ 4, 8, 8 }, { layer("Identity"), layer(type, spec) }, Loss::None), Precision::Fp32);
    QVERIFY(!a.valid());
    QVERIFY2(QString::fromStdString(a.error->message).startsWith(message), a.error->message.c_str());
    QVERIFY(!a.rows[1].valid());
}

void TestAttributes::defaultsAreFilledIn()
{
    const LayerKind* conv = LayerRegistry::builtin().find("Conv2d");
    QVERIFY(conv);
    const auto attrs = Attributes::validate(
        conv->attributes(), json { { "out_channels", 8 }, { "kernel_size", 3 } }, "layers[0]");
    QVERIFY(attrs.ok());
    QCOMPARE(attrs->integers("stride"), (std::vector<std::int64_t> { 1, 1 }));
    QCOMPARE(attrs->integer("groups"), std::int64_t { 1 });
    QVERIFY(attrs->flag("bias"));
    QVERIFY(!attrs->has("in_channels"));
}

void TestAttributes::tupleExpandsInt()
{
    const LayerKind* pool = LayerRegistry::builtin().find("MaxPool2d");
    const auto attrs
        = Attributes::validate(pool->attributes(), json { { "kernel_size", json::array({ 2, 3 }) } }, "x");
    QVERIFY(attrs.ok());
    QCOMPARE(attrs->integers("kernel_size"), (std::vector<std::int64_t> { 2, 3 }));
    QVERIFY(!attrs->has("stride")); // PyTorch: stride defaults to kernel_size
}

void TestAttributes::unknownTypeListsKnownOnes()
{
    const Analysis a = analyze(
        network({ 4 }, { layer("Conv4d", { { "out_channels", 4 } }) }, Loss::None), Precision::Fp32);
    QVERIFY(!a.valid());
    const QString message = QString::fromStdString(a.error->message);
    // Issue 38, item 13: the closest few types by edit distance, not all ~150 in one line.
    QCOMPARE(message,
        QStringLiteral("layers[0].type \"Conv4d\" is not a known layer type; the closest are Conv1d, Conv2d, "
                       "Conv3d (docs/model-format.md lists every type)"));
    QCOMPARE(
        QString::fromStdString(LayerRegistry::builtin().closestTypes("repeat", 1)), QStringLiteral("Repeat"));
    QCOMPARE(
        QString::fromStdString(LayerRegistry::builtin().closestTypes("linaer", 1)), QStringLiteral("Linear"));
    // A huge name costs its first 64 characters, and the message stays one short line.
    const Analysis huge
        = analyze(network({ 4 }, { layer(std::string(100000, 'x'), {}) }, Loss::None), Precision::Fp32);
    QVERIFY(!huge.valid());
    QVERIFY2(huge.error->message.size() < 300, huge.error->message.c_str());
}

void TestAttributes::everyKindHasValidDefaults()
{
    for (const LayerKind* kind : LayerRegistry::builtin().kinds()) {
        for (const auto& spec : kind->attributes()) {
            if (spec.defaultValue.is_null())
                continue;
            const AttributeSpec single[] = { spec };
            const auto checked = Attributes::validate(single, json::object(), "defaults");
            QVERIFY2(checked.ok(), (std::string(kind->type()) + "." + spec.name).c_str());
        }
        QVERIFY2(!kind->summary().empty(), std::string(kind->type()).c_str());
    }
}

// The editor shows these words instead of a number when the attribute is left out.
void TestAttributes::everyOptionalAttributeSaysWhatOmissionMeans()
{
    int optionals = 0;
    for (const LayerKind* kind : LayerRegistry::builtin().kinds()) {
        for (const auto& spec : kind->attributes()) {
            if (!spec.optional)
                continue;
            ++optionals;
            QVERIFY2(!spec.whenOmitted.empty(), (std::string(kind->type()) + "." + spec.name).c_str());
        }
    }
    QVERIFY(optionals >= 10);
    const auto* embedding = LayerRegistry::builtin().find("Embedding");
    const auto padding = std::find_if(embedding->attributes().begin(), embedding->attributes().end(),
        [](const AttributeSpec& s) { return s.name == "padding_idx"; });
    QCOMPARE(padding->whenOmitted, std::string("none"));
}

QTEST_APPLESS_MAIN(TestAttributes)
#include "tst_attributes.moc"

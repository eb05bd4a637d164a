// Every shipped preset loads and analyses; the torchvision models have torchvision's exact
// parameter counts (sum(p.numel() for p in model.parameters()) with torchvision 0.14).
#include "headroom/analysis/Analysis.h"
#include "headroom/model/ModelFile.h"
#include "headroom/support/Resources.h"

#include <QTest>

using namespace headroom;

class TestPresets : public QObject
{
    Q_OBJECT
private slots:
    void parameterCounts_data();
    void parameterCounts();
    void everyPresetIsValidInEveryPrecision();
};

void TestPresets::parameterCounts_data()
{
    QTest::addColumn<QString>("id");
    QTest::addColumn<qint64>("params");
    QTest::newRow("lenet5") << "lenet5" << qint64 { 61706 };
    QTest::newRow("alexnet") << "alexnet" << qint64 { 61100840 };
    QTest::newRow("vgg16") << "vgg16" << qint64 { 138357544 };
    QTest::newRow("resnet18") << "resnet18" << qint64 { 11689512 };
    QTest::newRow("resnet50") << "resnet50" << qint64 { 25557032 };
    QTest::newRow("mobilenet_v2") << "mobilenet_v2" << qint64 { 3504872 };
    QTest::newRow("gpt2_small") << "gpt2_small" << qint64 { 124439808 }; // GPT-2's published size
}

void TestPresets::parameterCounts()
{
    QFETCH(QString, id);
    QFETCH(qint64, params);
    const auto n = loadModelFile(HEADROOM_TEST_SOURCE_DIR "/resources/presets/" + id.toStdString() + ".json");
    QVERIFY2(n.ok(), n.ok() ? "" : n.error().message.c_str());
    const Analysis a = analyze(n.value(), Precision::Fp32);
    QVERIFY2(a.valid(), a.error ? a.error->message.c_str() : "");
    QCOMPARE(a.totalParams, static_cast<std::uint64_t>(params));
}

void TestPresets::everyPresetIsValidInEveryPrecision()
{
    const auto presets = listPresets(HEADROOM_TEST_SOURCE_DIR "/resources");
    QVERIFY(presets.size() >= 9);
    for (const auto& p : presets) {
        const auto n = loadModelFile(p.path);
        QVERIFY2(n.ok(), (p.id + ": " + (n.ok() ? "" : n.error().message)).c_str());
        QVERIFY2(!n->name.empty() && !n->description.empty(), p.id.c_str());
        for (const auto precision :
            { Precision::Fp32, Precision::AmpFp16, Precision::AmpBf16, Precision::Fp16, Precision::Bf16 }) {
            const Analysis a = analyze(n.value(), precision);
            QVERIFY2(a.valid(), (p.id + ": " + (a.error ? a.error->message : "")).c_str());
            QVERIFY2(a.activationBytesPerSample > 0, p.id.c_str());
        }
    }
}

QTEST_APPLESS_MAIN(TestPresets)
#include "tst_presets.moc"

// CoreText lists every English text of the core that the GUI and the report show, so lupdate offers
// each to the translators (tests/ui/tst_translations checks the translations themselves).
#include "CoreText.h"
#include "CoreTexts.h"
#include "headroom/analysis/Analysis.h"
#include "headroom/estimate/Throughput.h"
#include "headroom/model/ModelFile.h"
#include "headroom/setup/GpuCatalog.h"
#include "headroom/support/Resources.h"

#include <QFile>
#include <QString>
#include <QStringList>
#include <QTest>
#include <QXmlStreamReader>
#include <initializer_list>
#include <set>

using namespace headroom;
using headroom::test::coreTexts;

namespace {

/// The sources of a .ts file's CoreText messages that carry a finished translation (no
/// type="unfinished", "vanished" or "obsolete", not empty); an error text if the file cannot be read.
std::set<std::string> translatedCoreTexts(const QString& path, QString& error)
{
    std::set<std::string> found;
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        error = path + QStringLiteral(": ") + file.errorString();
        return found;
    }
    QXmlStreamReader xml(&file);
    QString context;
    QString source;
    while (xml.readNext() != QXmlStreamReader::Invalid && !xml.atEnd()) {
        if (!xml.isStartElement())
            continue;
        if (xml.name() == QLatin1String("name"))
            context = xml.readElementText();
        else if (xml.name() == QLatin1String("source"))
            source = xml.readElementText();
        else if (xml.name() == QLatin1String("translation")) {
            const bool finished = xml.attributes().value(QLatin1String("type")).isEmpty();
            const QString text = xml.readElementText(QXmlStreamReader::IncludeChildElements);
            if (context == QLatin1String("headroom::ui::CoreText") && finished && !text.trimmed().isEmpty())
                found.insert(source.toStdString());
        }
    }
    if (xml.hasError())
        error = QStringLiteral("%1: line %2: %3").arg(path).arg(xml.lineNumber()).arg(xml.errorString());
    return found;
}

} // namespace

class TestCoreText : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void coreTextsAreListed();
    void throughputCaveatsAreListed();
    void presetDescriptionsAreListed();
    void everyListedTextIsInBothCatalogs_data();
    void everyListedTextIsInBothCatalogs();
};

void TestCoreText::coreTextsAreListed()
{
    // A layer kind added to the core brings texts the GUI shows: CoreText.cpp must list them, or
    // lupdate never offers them to the translators.
    std::set<std::string> listed;
    for (const char* text : ui::CoreText::known())
        listed.insert(text);
    QStringList missing;
    for (const auto& text : coreTexts()) {
        if (!listed.contains(text))
            missing << QString::fromStdString(text);
    }
    QVERIFY2(missing.isEmpty(),
        qPrintable(QStringLiteral("add to text/CoreText.cpp:\n  ") + missing.join(QStringLiteral("\n  "))));
}

void TestCoreText::presetDescriptionsAreListed()
{
    // Issue 25 item 11: a report on a preset printed its description in English in a Chinese
    // report. Every preset's description is listed, so it is offered to the translators.
    std::set<std::string> listed;
    for (const char* text : ui::CoreText::known())
        listed.insert(text);
    const auto presets = listPresets(HEADROOM_TEST_SOURCE_DIR "/resources");
    QVERIFY2(presets.size() >= 9, "the presets were not found");
    for (const auto& preset : presets) {
        const auto network = loadModelFile(preset.path);
        QVERIFY2(network.ok(), preset.path.c_str());
        QVERIFY2(listed.contains(network->description), preset.id.c_str());
    }
}

void TestCoreText::everyListedTextIsInBothCatalogs_data()
{
    QTest::addColumn<QString>("language");
    QTest::newRow("Simplified Chinese") << QStringLiteral("zh_CN");
    QTest::newRow("Korean") << QStringLiteral("ko");
}

void TestCoreText::everyListedTextIsInBothCatalogs()
{
    // Issue 33: lupdate once dropped a core text from both catalogs (the experts_implementation help)
    // and nothing noticed until a translator did. Every text CoreText lists stands in the committed
    // catalog, translated, whatever lupdate does to it next.
    QFETCH(QString, language);
    QString error;
    const auto translated = translatedCoreTexts(
        QStringLiteral(HEADROOM_TEST_SOURCE_DIR "/resources/translations/headroom_%1.ts").arg(language),
        error);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    QVERIFY2(translated.size() > 300, qPrintable(QString::number(translated.size())));
    QStringList missing;
    for (const char* text : ui::CoreText::known()) {
        if (!translated.contains(text))
            missing << QString::fromUtf8(text);
    }
    QVERIFY2(missing.isEmpty(),
        qPrintable(QStringLiteral("not translated in headroom_%1.ts (cmake --build <build> --target "
                                  "update_translations, then translate):\n  %2")
                       .arg(language, missing.join(QStringLiteral("\n  ")))));
}

void TestCoreText::throughputCaveatsAreListed()
{
    // Every caveat the throughput estimate can add, in set-ups that bring each one out: its sentence
    // template is listed in CoreText (so it is translated), and the English note is that template
    // filled in.
    Network conv;
    conv.input.shape.dims = { 3, 32, 32 };
    LayerSpec c;
    c.type = "Conv2d";
    c.attributes = { { "out_channels", 8 }, { "kernel_size", 3 } };
    conv.layers = { c };
    Network nothing;
    nothing.input.shape.dims = { 4 };
    LayerSpec identity;
    identity.type = "Identity";
    nothing.layers = { identity };

    Gpu pascal; // fp16 at 1/64 of fp32, like a GeForce 10 card
    pascal.name = "Pascal";
    pascal.vendor = "NVIDIA";
    pascal.memoryBytes = 8ULL << 30;
    pascal.bandwidthGBps = 320;
    pascal.fp32Tflops = 8.9;
    pascal.fp16Tflops = 0.14;
    Gpu ampere = pascal; // TF32 for convolutions
    ampere.name = "Ampere";
    ampere.fp16Tflops = 71;
    ampere.bf16Tflops = 71;
    Gpu slow = ampere; // a memory-bound step
    slow.bandwidthGBps = 0.001;
    Gpu noBandwidth = ampere;
    noBandwidth.bandwidthGBps = 0;

    struct Case
    {
        const Network* network;
        Precision precision;
        const Gpu* gpu;
        std::int64_t gpus;
    };
    std::set<std::string> formats;
    for (const Case& k : std::initializer_list<Case> { { &conv, Precision::AmpFp16, &pascal, 1 },
             { &conv, Precision::Fp32, &ampere, 2 }, { &conv, Precision::Fp32, &slow, 1 },
             { &conv, Precision::Fp32, &noBandwidth, 1 }, { &nothing, Precision::Fp32, &ampere, 1 } }) {
        const Analysis a = analyze(*k.network, k.precision);
        QVERIFY(a.valid());
        TrainingSetup setup;
        setup.batch = 8;
        setup.parallel.gpus = k.gpus;
        const auto t = estimateThroughput(a, setup, *k.gpu);
        QVERIFY2(t, t ? "" : t.error().message.c_str());
        QCOMPARE(t->noteTemplates.size(), t->notes.size());
        for (std::size_t i = 0; i < t->notes.size(); ++i) {
            QCOMPARE(t->noteTemplates[i].text(), t->notes[i]);
            formats.insert(t->noteTemplates[i].format);
        }
    }
    QVERIFY2(formats.size() >= 6, qPrintable(QString::number(formats.size())));
    std::set<std::string> listed;
    for (const char* text : ui::CoreText::known())
        listed.insert(text);
    for (const auto& f : formats)
        QVERIFY2(listed.contains(f), f.c_str());
}

QTEST_GUILESS_MAIN(TestCoreText)
#include "tst_coretext.moc"

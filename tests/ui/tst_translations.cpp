// Every message of the GUI and the PDF report has a finished Simplified Chinese and Korean
// translation. lupdate reads the sources (ui/, the report and the core's texts in CoreText.cpp) into
// copies of the committed .ts files, so a tr() string added anywhere without a translation fails
// here; `cmake --build <build> --target update_translations` brings the .ts files up to date.
#include "CoreText.h"

#include "headroom/Estimate.h"
#include "headroom/LayerRegistry.h"
#include "headroom/Optimizer.h"
#include "headroom/Precision.h"
#include "headroom/Throughput.h"
#include "headroom/Training.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>
#include <QTranslator>
#include <QXmlStreamReader>

#include <set>

using namespace headroom;

class TestTranslations : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void everyMessageIsTranslated_data();
    void everyMessageIsTranslated();
    void coreTextsAreListed();
    void coreTextsTranslateAtRunTime_data();
    void coreTextsTranslateAtRunTime();
    void throughputCaveatsAreListed();
};

namespace {

struct Message {
    QString context;
    QString source;
    QStringList translations; ///< one, or one per plural form
    QString type;             ///< "", "unfinished", "vanished", "obsolete"
    bool numerus = false;
};

QList<Message> readTs(const QString& path, QString* error)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        *error = file.errorString();
        return {};
    }
    QList<Message> messages;
    QXmlStreamReader xml(&file);
    QString context;
    Message current;
    while (!xml.atEnd()) {
        xml.readNext();
        if (!xml.isStartElement())
            continue;
        const auto name = xml.name();
        if (name == QLatin1String("name")) {
            context = xml.readElementText();
        } else if (name == QLatin1String("message")) {
            current = Message{};
            current.context = context;
            current.numerus = xml.attributes().value(QLatin1String("numerus")) == QLatin1String("yes");
        } else if (name == QLatin1String("source")) {
            current.source = xml.readElementText();
        } else if (name == QLatin1String("translation")) {
            current.type = xml.attributes().value(QLatin1String("type")).toString();
            if (current.numerus) {
                while (xml.readNextStartElement()) {
                    if (xml.name() == QLatin1String("numerusform"))
                        current.translations << xml.readElementText();
                    else
                        xml.skipCurrentElement();
                }
            } else {
                current.translations << xml.readElementText();
            }
            messages << current;
        }
    }
    if (xml.hasError())
        *error = xml.errorString();
    return messages;
}

/// The %1, %2, %n placeholders of a text, as a sorted set.
QStringList placeholders(const QString& text)
{
    static const QRegularExpression re{QStringLiteral(R"(%(\d+|n))")};
    QSet<QString> found;
    for (auto it = re.globalMatch(text); it.hasNext();)
        found.insert(it.next().captured());
    QStringList list = found.values();
    list.sort();
    return list;
}

/// The core's English texts the GUI and the report show (what CoreText must list).
std::set<std::string> coreTexts()
{
    std::set<std::string> texts;
    for (const LayerKind* kind : LayerRegistry::builtin().kinds()) {
        texts.insert(std::string(kind->summary()));
        for (const auto& a : kind->attributes()) {
            if (!a.help.empty())
                texts.insert(a.help);
            if (!a.whenOmitted.empty())
                texts.insert(a.whenOmitted);
        }
    }
    for (const auto c : kAllComponents)
        texts.insert(std::string(componentLabel(c)));
    for (const auto o : allOptimizers())
        texts.insert(std::string(optimizerLabel(o)));
    for (const auto p : {Precision::Fp32, Precision::AmpFp16, Precision::AmpBf16, Precision::Fp16, Precision::Bf16})
        texts.insert(std::string(precisionLabel(p)));
    for (const auto c : allCheckpointings())
        texts.insert(std::string(checkpointingLabel(c)));
    for (const auto a : {AttentionImplementation::Sdpa, AttentionImplementation::Eager})
        texts.insert(std::string(attentionLabel(a)));
    for (const auto s : allShardings())
        texts.insert(std::string(shardingLabel(s)));
    for (const auto i : allOptimizerImplementations())
        texts.insert(std::string(optimizerImplementationLabel(i)));
    for (const auto p : {StepPhase::Forward, StepPhase::Backward, StepPhase::OptimizerStep})
        texts.insert(std::string(stepPhaseLabel(p)));
    return texts;
}

} // namespace

void TestTranslations::everyMessageIsTranslated_data()
{
    QTest::addColumn<QString>("language");
    QTest::newRow("Simplified Chinese") << QStringLiteral("zh_CN");
    QTest::newRow("Korean") << QStringLiteral("ko");
}

void TestTranslations::everyMessageIsTranslated()
{
    QFETCH(QString, language);
    const QString committed = QStringLiteral(HEADROOM_TEST_SOURCE_DIR "/resources/translations/headroom_%1.ts").arg(language);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString ts = dir.filePath(QFileInfo(committed).fileName());
    QVERIFY(QFile::copy(committed, ts));
    QFile::setPermissions(ts, QFile::ReadOwner | QFile::WriteOwner);
    // As the update_translations target reads them: every source of the GUI and the report.
    QProcess lupdate;
    lupdate.start(QStringLiteral(HEADROOM_LUPDATE),
                  {QStringLiteral("-no-obsolete"), QStringLiteral("-locations"), QStringLiteral("none"),
                   QStringLiteral("-silent"), QStringLiteral(HEADROOM_TEST_SOURCE_DIR "/ui"), QStringLiteral("-ts"), ts});
    QVERIFY2(lupdate.waitForFinished(120000), "lupdate did not finish");
    QVERIFY2(lupdate.exitCode() == 0, lupdate.readAllStandardError().constData());

    QString error;
    const QList<Message> messages = readTs(ts, &error);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    QVERIFY2(messages.size() > 500, qPrintable(QString::number(messages.size())));
    QStringList problems;
    for (const Message& m : messages) {
        const QString where = QStringLiteral("%1: \"%2\"").arg(m.context, m.source.left(70));
        if (!m.type.isEmpty()) {
            problems << QStringLiteral("%1 is %2").arg(where, m.type);
            continue;
        }
        for (const QString& t : m.translations) {
            if (t.trimmed().isEmpty())
                problems << QStringLiteral("%1 has an empty translation").arg(where);
            else if (placeholders(t) != placeholders(m.source) && !(m.numerus && !t.contains(QLatin1String("%n"))))
                problems << QStringLiteral("%1: the translation's placeholders %2 differ from %3")
                                .arg(where, placeholders(t).join(u','), placeholders(m.source).join(u','));
        }
    }
    QVERIFY2(problems.isEmpty(),
             qPrintable(QStringLiteral("%1 of %2 messages in %3 need work (cmake --build <build> --target "
                                       "update_translations, then translate them):\n  %4")
                            .arg(problems.size())
                            .arg(messages.size())
                            .arg(language, problems.mid(0, 40).join(QStringLiteral("\n  ")))));
}

void TestTranslations::coreTextsAreListed()
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
    QVERIFY2(missing.isEmpty(), qPrintable(QStringLiteral("add to ui/CoreText.cpp:\n  ") + missing.join(QStringLiteral("\n  "))));
}

void TestTranslations::coreTextsTranslateAtRunTime_data() { everyMessageIsTranslated_data(); }

void TestTranslations::coreTextsTranslateAtRunTime()
{
    // The compiled translation finds a core text by its English: a layer's summary in Korean.
    QFETCH(QString, language);
    QTranslator translator;
    QVERIFY(translator.load(QStringLiteral("headroom_%1").arg(language), QStringLiteral(":/i18n")));
    QCoreApplication::installTranslator(&translator);
    QStringList untranslated;
    for (const auto& text : coreTexts()) {
        // In the compiled file (a name such as "Adam" may read the same in every language).
        if (translator.translate("headroom::ui::CoreText", text.c_str()).isEmpty())
            untranslated << QString::fromStdString(text);
    }
    QCoreApplication::removeTranslator(&translator);
    QVERIFY2(untranslated.isEmpty(), qPrintable(untranslated.join(QStringLiteral("\n"))));
}

void TestTranslations::throughputCaveatsAreListed()
{
    // Every caveat the throughput estimate can add, in set-ups that bring each one out: its sentence
    // template is listed in CoreText (so it is translated), and the English note is that template
    // filled in.
    Network conv;
    conv.input.shape.dims = {3, 32, 32};
    LayerSpec c;
    c.type = "Conv2d";
    c.attributes = {{"out_channels", 8}, {"kernel_size", 3}};
    conv.layers = {c};
    Network nothing;
    nothing.input.shape.dims = {4};
    LayerSpec identity;
    identity.type = "Identity";
    nothing.layers = {identity};

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

    struct Case {
        const Network* network;
        Precision precision;
        const Gpu* gpu;
        std::int64_t gpus;
    };
    std::set<std::string> formats;
    for (const Case& k : std::initializer_list<Case>{{&conv, Precision::AmpFp16, &pascal, 1},
                                                     {&conv, Precision::Fp32, &ampere, 2},
                                                     {&conv, Precision::Fp32, &slow, 1},
                                                     {&conv, Precision::Fp32, &noBandwidth, 1},
                                                     {&nothing, Precision::Fp32, &ampere, 1}}) {
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

QTEST_GUILESS_MAIN(TestTranslations)
#include "tst_translations.moc"

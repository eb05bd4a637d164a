// Every message of the GUI and the PDF report has a finished Simplified Chinese and Korean
// translation. lupdate reads the sources (ui/, report/ and the core's texts in text/CoreText.cpp) into
// copies of the committed .ts files, so a tr() string added anywhere without a translation fails
// here; `cmake --build <build> --target update_translations` brings the .ts files up to date.
#include "CoreTexts.h" // tests/text

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
using headroom::test::coreTexts;

class TestTranslations : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void everyMessageIsTranslated_data();
    void everyMessageIsTranslated();
    void coreTextsTranslateAtRunTime_data();
    void coreTextsTranslateAtRunTime();
};

namespace {

struct Message
{
    QString context;
    QString source;
    QStringList translations; ///< one, or one per plural form
    QString type; ///< "", "unfinished", "vanished", "obsolete"
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
            current = Message {};
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
    static const QRegularExpression re { QStringLiteral(R"(%(\d+|n))") };
    QSet<QString> found;
    for (auto it = re.globalMatch(text); it.hasNext();)
        found.insert(it.next().captured());
    QStringList list = found.values();
    list.sort();
    return list;
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
    const QString committed
        = QStringLiteral(HEADROOM_TEST_SOURCE_DIR "/resources/translations/headroom_%1.ts").arg(language);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString ts = dir.filePath(QFileInfo(committed).fileName());
    QVERIFY(QFile::copy(committed, ts));
    QFile::setPermissions(ts, QFile::ReadOwner | QFile::WriteOwner);
    // As the update_translations target reads them: every source of the GUI and the report.
    QProcess lupdate;
    lupdate.start(QStringLiteral(HEADROOM_LUPDATE),
        { QStringLiteral("-no-obsolete"), QStringLiteral("-locations"), QStringLiteral("none"),
            QStringLiteral("-silent"), QStringLiteral(HEADROOM_TEST_SOURCE_DIR "/ui"),
            QStringLiteral(HEADROOM_TEST_SOURCE_DIR "/report"),
            QStringLiteral(HEADROOM_TEST_SOURCE_DIR "/text"), QStringLiteral("-ts"), ts });
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
            else if (placeholders(t) != placeholders(m.source)
                && !(m.numerus && !t.contains(QLatin1String("%n"))))
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

void TestTranslations::coreTextsTranslateAtRunTime_data()
{
    everyMessageIsTranslated_data();
}

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

QTEST_GUILESS_MAIN(TestTranslations)
#include "tst_translations.moc"

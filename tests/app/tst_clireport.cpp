// The command line as scripts use it, the real `headroom` binary run as a process (CliTestSupport.h):
// `report`: the PDF it writes, with strategies and a plan, and the files it must not overwrite.
#include "CliTestSupport.h"
#include "headroom/support/Format.h"

#include <QFile>
#include <QProcess>
#include <QTest>
#include <nlohmann/json.hpp>
#include <sys/stat.h>

class TestCliReport : public QObject, private CliFixture
{
    Q_OBJECT
private slots:
    void initTestCase() { writeInputFiles(); }
    void reportWritesPdf();

    void reportWithStrategies();

    void reportKeepsSpecialFiles_data();
    void reportKeepsSpecialFiles();
    void unestimableReportSaysWhy();

    void reportIncludesPlan();
    void reportIncludesClusterLayouts();
};

void TestCliReport::reportWritesPdf()
{
    const QString pdf = m_dir.filePath(QStringLiteral("plan.pdf"));
    const Run r = runHeadroom({ QStringLiteral("report"), m_lenet, QStringLiteral("-o"), pdf,
        QStringLiteral("--batch"), QStringLiteral("16") });
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QFile f(pdf);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QVERIFY(f.read(5) == "%PDF-");
}

void TestCliReport::reportWithStrategies()
{
    const QString pdf = m_dir.filePath(QStringLiteral("strategies.pdf"));
    const Run r = runHeadroom({ QStringLiteral("report"), m_gpt2, QStringLiteral("-o"), pdf,
        QStringLiteral("--sequence-length"), QStringLiteral("256"), QStringLiteral("--gpus"),
        QStringLiteral("4"), QStringLiteral("--sharding"), QStringLiteral("zero2"),
        QStringLiteral("--accumulation-steps"), QStringLiteral("8"), QStringLiteral("--checkpointing"),
        QStringLiteral("per-block"), QStringLiteral("--gpu"), QStringLiteral("RTX 4090"),
        QStringLiteral("--precision"), QStringLiteral("amp-bf16") });
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QProcess text;
    text.start(QStringLiteral("pdftotext"), { pdf, QStringLiteral("-") });
    if (!text.waitForStarted() || !text.waitForFinished(60000))
        QSKIP("pdftotext (poppler-utils) is not installed");
    const QString t = QString::fromUtf8(text.readAllStandardOutput()).simplified();
    for (const char* fragment : { "ZeRO stage 2", "8 micro-batches per optimizer step", "Per block",
             "256 tokens", "Throughput (estimated)", "Communication buffers" })
        QVERIFY2(t.contains(QLatin1String(fragment)), fragment);
}

void TestCliReport::reportKeepsSpecialFiles_data()
{
    QTest::addColumn<QString>("kind");
    QTest::addColumn<QString>("message");
    QTest::newRow("FIFO") << QStringLiteral("fifo")
                          << QStringLiteral(": is a FIFO (named pipe), not a regular file");
    QTest::newRow("character device")
        << QStringLiteral("device") << QStringLiteral("/dev/null: is a character device, not a regular file");
    QTest::newRow("read-only file") << QStringLiteral("readonly")
                                    << QStringLiteral(": the file is read-only");
}

void TestCliReport::reportKeepsSpecialFiles()
{
    QFETCH(QString, kind);
    QFETCH(QString, message);
    QString target = m_dir.filePath(kind + QStringLiteral(".pdf"));
    struct stat before
    {
    };
    if (kind == QLatin1String("fifo")) {
        QVERIFY(::mkfifo(QFile::encodeName(target).constData(), 0644) == 0);
    } else if (kind == QLatin1String("device")) {
        target = QStringLiteral("/dev/null");
    } else {
        QFile f(target);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("an older report");
        f.close();
        QVERIFY(f.setPermissions(QFileDevice::ReadOwner | QFileDevice::ReadGroup | QFileDevice::ReadOther));
    }
    QVERIFY(::stat(QFile::encodeName(target).constData(), &before) == 0);
    const Run r = runHeadroom({ QStringLiteral("report"), m_lenet, QStringLiteral("-o"), target });
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(
        r.err.startsWith(QStringLiteral("headroom: error: cannot write the report to ")), qPrintable(r.err));
    QVERIFY2(r.err.contains(message), qPrintable(r.err));
    struct stat after
    {
    };
    QVERIFY(::stat(QFile::encodeName(target).constData(), &after) == 0);
    QCOMPARE(after.st_ino, before.st_ino); // the very same file, not a replacement
    QCOMPARE(after.st_mode, before.st_mode);
    QCOMPARE(after.st_size, before.st_size);
}

void TestCliReport::unestimableReportSaysWhy()
{
    // Issue 35: `report` on a network that loads but cannot be estimated writes the PDF as the GUI's
    // Export does, with the reason on its first page, and exits 1 (a result without figures, not an
    // error); `estimate` refuses the same network with exit 2 and the same reason.
    const QString pdf = m_dir.filePath(QStringLiteral("unestimable.pdf"));
    const QString model = m_dir.filePath(QStringLiteral("unestimable.json"));
    const Run estimate = runHeadroom({ QStringLiteral("estimate"), model });
    const Run report = runHeadroom({ QStringLiteral("report"), model, QStringLiteral("-o"), pdf });
    QCOMPARE(estimate.exitCode, 2);
    QCOMPARE(report.exitCode, 1);
    QVERIFY(report.out.contains(QStringLiteral("Wrote ")));
    // "headroom: error: <reason>" there, "headroom: warning: the report has no estimate: <reason> ..." here.
    const QString reason = estimate.err.trimmed().section(QStringLiteral("headroom: error: "), 1);
    QVERIFY2(reason.contains(QStringLiteral("dim")), qPrintable(estimate.err));
    QVERIFY2(report.err.contains(QStringLiteral("headroom: warning: the report has no estimate: ") + reason),
        qPrintable(report.err));
    QVERIFY(QFile::exists(pdf));
    QProcess text;
    text.start(QStringLiteral("pdftotext"),
        { QStringLiteral("-f"), QStringLiteral("1"), QStringLiteral("-l"), QStringLiteral("1"), pdf,
            QStringLiteral("-") });
    if (!text.waitForStarted() || !text.waitForFinished(60000))
        QSKIP("pdftotext is not available");
    const QString firstPage = QString::fromUtf8(text.readAllStandardOutput()).simplified();
    QVERIFY2(firstPage.contains(QStringLiteral("No estimate")), qPrintable(firstPage));
    QVERIFY2(firstPage.contains(QStringLiteral("Softmax")), qPrintable(firstPage));
}

void TestCliReport::reportIncludesPlan()
{
    // The report's planner table says what `headroom plan` says: the same set-up first.
    const QString vgg = QStringLiteral(HEADROOM_TEST_SOURCE_DIR "/resources/presets/vgg16.json");
    const QString pdf = m_dir.filePath(QStringLiteral("plan-table.pdf"));
    const Run r = runHeadroom({ QStringLiteral("report"), vgg, QStringLiteral("--gpu"),
        QStringLiteral("GTX 1080"), QStringLiteral("-o"), pdf, QStringLiteral("--include-plan"),
        QStringLiteral("--target-batch"), QStringLiteral("256") });
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QProcess text;
    text.start(QStringLiteral("pdftotext"), { QStringLiteral("-layout"), pdf, QStringLiteral("-") });
    if (!text.waitForStarted() || !text.waitForFinished(60000))
        QSKIP("pdftotext is not available");
    const QString content = QString::fromUtf8(text.readAllStandardOutput());
    for (const char* fragment :
        { "Set-ups that fit", "Goal: an effective batch of 256", "4 accumulation steps", "64 × 4" })
        QVERIFY2(content.contains(QString::fromUtf8(fragment)), fragment);
    // Without --include-plan there is no such table.
    const QString plain = m_dir.filePath(QStringLiteral("no-plan-table.pdf"));
    QCOMPARE(runHeadroom({ QStringLiteral("report"), vgg, QStringLiteral("-o"), plain }).exitCode, 0);
    text.start(QStringLiteral("pdftotext"), { plain, QStringLiteral("-") });
    QVERIFY(text.waitForFinished(60000));
    QVERIFY(!QString::fromUtf8(text.readAllStandardOutput()).contains(QStringLiteral("Set-ups that fit")));
}

void TestCliReport::reportIncludesClusterLayouts()
{
    // Issue 37: `report --include-plan --global-batch` lists the layouts `plan --global-batch` lists, with
    // the same figures and the same lines on what the search left out (GPT-2 small on 8 A100s, global
    // batch 64 at 1,024 tokens, as tst_cliplan's planClusterReEstimates).
    const QString gpt2 = QStringLiteral(HEADROOM_TEST_SOURCE_DIR "/resources/presets/gpt2_small.json");
    const QStringList setup { gpt2, QStringLiteral("--gpu"), QStringLiteral("A100 80GB"),
        QStringLiteral("--sequence-length"), QStringLiteral("1024"), QStringLiteral("--precision"),
        QStringLiteral("amp-bf16"), QStringLiteral("--gpus"), QStringLiteral("8"),
        QStringLiteral("--global-batch"), QStringLiteral("64") };
    const Run plan = runHeadroom(
        QStringList { QStringLiteral("plan") } + setup + QStringList { QStringLiteral("--json") });
    QVERIFY2(plan.exitCode == 0, qPrintable(plan.err));
    const auto planned = nlohmann::json::parse(plan.out.toStdString());
    QVERIFY(!planned["layouts"].empty());
    const QString pdf = m_dir.filePath(QStringLiteral("cluster.pdf"));
    const Run r = runHeadroom(QStringList { QStringLiteral("report") } + setup
        + QStringList { QStringLiteral("-o"), pdf, QStringLiteral("--include-plan") });
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QProcess text;
    text.start(QStringLiteral("pdftotext"), { QStringLiteral("-layout"), pdf, QStringLiteral("-") });
    if (!text.waitForStarted() || !text.waitForFinished(60000))
        QSKIP("pdftotext is not available");
    const QString content = QString::fromUtf8(text.readAllStandardOutput());
    const QString flat = content.simplified();
    for (const char* fragment : { "Cluster layouts", "8 × A100 SXM4 80GB", "8 per node", "global batch 64",
             "Tokens/s/GPU", "Reserved", "Bubble" })
        QVERIFY2(flat.contains(QString::fromUtf8(fragment)), fragment);
    // The set-ups table of one GPU is not there: the cluster's layouts take its place, as in plan.
    QVERIFY(!flat.contains(QStringLiteral("Set-ups that fit")));
    // Every layout's row: its rank, degrees and micro-batch x accumulation, then what its heaviest GPU
    // holds (pdftotext may drop the narrow spaces of "1 × 8": compared without spaces).
    const auto bare = [](QString text) { return text.remove(QLatin1Char(' ')); };
    int row = 0;
    for (const auto& l : planned["layouts"]) {
        ++row;
        const auto& s = l["settings"];
        const QString batch = QStringLiteral("%1×%2")
                                  .arg(l["micro_batch"].get<std::int64_t>())
                                  .arg(l["accumulation_steps"].get<std::int64_t>());
        const QString degrees = QStringLiteral("%1 %2 %3 ")
                                    .arg(row)
                                    .arg(s["tensor_parallel"].get<std::int64_t>())
                                    .arg(s["pipeline_parallel"].get<std::int64_t>());
        const QString held
            = QString::fromStdString(headroom::formatBytes(l["held_at_peak_bytes"].get<std::uint64_t>()));
        bool found = false;
        for (const QString& line : content.split(QLatin1Char('\n'))) {
            const QString cells = line.simplified();
            if (cells.startsWith(degrees) && bare(cells).contains(batch) && bare(cells).contains(bare(held)))
                found = true;
        }
        QVERIFY2(found, qPrintable(degrees + QStringLiteral("… ") + batch + QStringLiteral(" … ") + held));
    }
    for (const auto& what : planned["left_out"]) {
        // The sentence may wrap: compare without line breaks.
        const QString sentence = QString::fromStdString(what.get<std::string>()).simplified();
        QVERIFY2(flat.contains(QStringLiteral("Left out: ") + sentence.left(40)), qPrintable(sentence));
    }
    // --global-batch asks for the table: without --include-plan it is refused, naming both.
    const Run refused = runHeadroom(
        QStringList { QStringLiteral("report") } + setup + QStringList { QStringLiteral("-o"), pdf });
    QCOMPARE(refused.exitCode, 2);
    QVERIFY2(
        refused.err.contains(QStringLiteral("--global-batch on report asks for the cluster layouts' table: "
                                            "it needs --include-plan")),
        qPrintable(refused.err));
}

QTEST_GUILESS_MAIN(TestCliReport)
#include "tst_clireport.moc"

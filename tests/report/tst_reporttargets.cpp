// The PDF report's file (ReportTestSupport.h): a write that fails leaves nothing behind and keeps the file it
// would have replaced; a successful one replaces it, keeping its link and mode; special files are refused.
#include "ReportTestSupport.h"
#include "headroom/estimate/Plan.h"
#include "headroom/estimate/Throughput.h"
#include "headroom/model/ModelFile.h"
#include "headroom/setup/Optimizer.h"
#include "headroom/setup/Precision.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>
#include <sys/stat.h>

using namespace headroom;
using namespace headroom::test;

class TestReportTargets : public QObject, private ReportFixture
{
    Q_OBJECT
private slots:
    void initTestCase() { checkTools(); }

    void missingFolderFails();
    void parentIsAFileFails();
    void targetIsAFolderFails();
    void emptyPathFails();
    void readOnlyFolderFails();
    void existingFileSurvivesFailedWrite();
    void existingFileIsReplacedOnSuccess();
    // Issue #17: a save keeps what it replaces and refuses what it must not replace.
    void replacedFileKeepsItsLinkAndMode_data();
    void replacedFileKeepsItsLinkAndMode();
    void specialTargetsAreRefused_data();
    void specialTargetsAreRefused();
};

void TestReportTargets::missingFolderFails()
{
    const Plan plan = makePlan(smallCnn());
    const QString folder = m_dir.filePath(QStringLiteral("missing-folder"));
    const QString path = folder + QStringLiteral("/report.pdf");
    const auto written = report::writePdfReport(plan, evaluate(plan), path);
    QVERIFY(!written.ok());
    QVERIFY2(qs(written.error().message).contains(QStringLiteral("does not exist")),
        written.error().message.c_str());
    QVERIFY2(qs(written.error().message).contains(QDir::toNativeSeparators(path)),
        written.error().message.c_str());
    QVERIFY(!QFileInfo::exists(folder));
}

void TestReportTargets::parentIsAFileFails()
{
    QTemporaryDir dir;
    const QString parent = dir.filePath(QStringLiteral("plain-file"));
    QFile f { parent };
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("not a folder");
    f.close();
    const Plan plan = makePlan(smallCnn());
    const auto written = report::writePdfReport(plan, evaluate(plan), parent + QStringLiteral("/report.pdf"));
    QVERIFY(!written.ok());
    QCOMPARE(QDir { dir.path() }.entryList(QDir::NoDotAndDotDot | QDir::AllEntries),
        QStringList { QStringLiteral("plain-file") });
}

void TestReportTargets::targetIsAFolderFails()
{
    QTemporaryDir dir;
    QVERIFY(QDir { dir.path() }.mkdir(QStringLiteral("report.pdf")));
    const Plan plan = makePlan(smallCnn());
    const auto written
        = report::writePdfReport(plan, evaluate(plan), dir.filePath(QStringLiteral("report.pdf")));
    QVERIFY(!written.ok());
    QVERIFY2(qs(written.error().message).contains(QStringLiteral("folder")), written.error().message.c_str());
    QVERIFY(QFileInfo { dir.filePath(QStringLiteral("report.pdf")) }.isDir());
    QCOMPARE(QDir { dir.path() }.entryList(QDir::NoDotAndDotDot | QDir::AllEntries),
        QStringList { QStringLiteral("report.pdf") });
}

void TestReportTargets::emptyPathFails()
{
    const Plan plan = makePlan(smallCnn());
    const auto written = report::writePdfReport(plan, evaluate(plan), QString());
    QVERIFY(!written.ok());
    QVERIFY(!written.error().message.empty());
}

void TestReportTargets::readOnlyFolderFails()
{
    QTemporaryDir dir;
    const QString folder = dir.filePath(QStringLiteral("read-only"));
    QVERIFY(QDir { dir.path() }.mkdir(QStringLiteral("read-only")));
    const QString existing = folder + QStringLiteral("/report.pdf");
    {
        QFile old { existing };
        QVERIFY(old.open(QIODevice::WriteOnly));
        old.write("the previous report");
    }
    QVERIFY(QFile::setPermissions(
        folder, QFile::ReadOwner | QFile::ExeOwner | QFile::ReadGroup | QFile::ExeGroup));
    const auto restore = qScopeGuard(
        [&] { QFile::setPermissions(folder, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner); });
    {
        // Root (or CAP_DAC_OVERRIDE) writes into read-only folders anyway; existingFileSurvivesFailedWrite()
        // covers a failed write without relying on permissions.
        QFile probe { folder + QStringLiteral("/probe") };
        if (probe.open(QIODevice::WriteOnly)) {
            probe.close();
            probe.remove();
            QSKIP("this process may write into read-only folders (running as root?): permissions cannot make "
                  "the write fail");
        }
    }
    const Plan plan = makePlan(smallCnn());
    for (const QString& name : { QStringLiteral("new.pdf"), QStringLiteral("report.pdf") }) {
        const auto written = report::writePdfReport(plan, evaluate(plan), folder + QLatin1Char('/') + name);
        QVERIFY(!written.ok());
        QVERIFY2(qs(written.error().message).contains(QStringLiteral("cannot write the report")),
            written.error().message.c_str());
    }
    QCOMPARE(QDir { folder }.entryList(QDir::NoDotAndDotDot | QDir::AllEntries),
        QStringList { QStringLiteral("report.pdf") });
    QFile old { existing };
    QVERIFY(old.open(QIODevice::ReadOnly));
    QCOMPARE(old.readAll(), QByteArray("the previous report"));
}

void TestReportTargets::existingFileSurvivesFailedWrite()
{
    // A file name of NAME_MAX (255) bytes is valid, but to replace an existing file QSaveFile first
    // names its temporary file after the target plus a random suffix, which is too long: the write
    // fails at the very end, after the whole PDF was written, whoever runs the test.
    QTemporaryDir dir;
    const QString name = QString(251, QLatin1Char('r')) + QStringLiteral(".pdf");
    const QString path = dir.filePath(name);
    {
        QFile old { path };
        if (!old.open(QIODevice::WriteOnly))
            QSKIP("this file system does not take 255-byte file names");
        old.write("the previous report");
    }
    const Plan plan = makePlan(smallCnn());
    const auto written = report::writePdfReport(plan, evaluate(plan), path);
    QVERIFY2(!written.ok(), "the write was expected to fail");
    QVERIFY2(qs(written.error().message).startsWith(QStringLiteral("cannot write the report to ")),
        written.error().message.c_str());
    QCOMPARE(QDir { dir.path() }.entryList(QDir::NoDotAndDotDot | QDir::AllEntries), QStringList { name });
    QFile old { path };
    QVERIFY(old.open(QIODevice::ReadOnly));
    QCOMPARE(old.readAll(), QByteArray("the previous report"));
}

void TestReportTargets::existingFileIsReplacedOnSuccess()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("report.pdf"));
    {
        QFile old { path };
        QVERIFY(old.open(QIODevice::WriteOnly));
        old.write("the previous report");
    }
    const Plan plan = makePlan(smallCnn());
    const auto written = report::writePdfReport(plan, evaluate(plan), path);
    QVERIFY2(written.ok(), written.ok() ? "" : written.error().message.c_str());
    QFile pdf { path };
    QVERIFY(pdf.open(QIODevice::ReadOnly));
    QVERIFY(pdf.read(5) == "%PDF-");
    QCOMPARE(QDir { dir.path() }.entryList(QDir::NoDotAndDotDot | QDir::AllEntries),
        QStringList { QStringLiteral("report.pdf") });
}

void TestReportTargets::replacedFileKeepsItsLinkAndMode_data()
{
    QTest::addColumn<QString>("kind");
    QTest::newRow("mode 600") << QStringLiteral("mode600");
    QTest::newRow("symbolic link to a 600 file") << QStringLiteral("symlink");
    QTest::newRow("dangling link") << QStringLiteral("dangling");
}

void TestReportTargets::replacedFileKeepsItsLinkAndMode()
{
    QFETCH(QString, kind);
    QTemporaryDir dir;
    const QString target = dir.filePath(QStringLiteral("report.pdf"));
    QString given = dir.filePath(QStringLiteral("latest.pdf"));
    if (kind != QLatin1String("dangling")) {
        QFile old { target };
        QVERIFY(old.open(QIODevice::WriteOnly));
        old.write("the previous report");
        old.close();
        QVERIFY(old.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner));
    }
    if (kind == QLatin1String("mode600"))
        given = target;
    else
        QVERIFY(QFile::link(QStringLiteral("report.pdf"), given));
    const Plan plan = makePlan(smallCnn());
    const auto written = report::writePdfReport(plan, evaluate(plan), given);
    QVERIFY2(written.ok(), written.ok() ? "" : written.error().message.c_str());
    QFile pdf { target };
    QVERIFY(pdf.open(QIODevice::ReadOnly));
    QVERIFY(pdf.read(5) == "%PDF-");
    if (kind != QLatin1String("mode600"))
        QVERIFY2(QFileInfo { given }.isSymLink(), "the link became a regular file");
    if (kind != QLatin1String("dangling"))
        QCOMPARE(QFile::permissions(target) & ~(QFileDevice::ReadUser | QFileDevice::WriteUser),
            QFileDevice::ReadOwner | QFileDevice::WriteOwner); // still 600, not 644
}

void TestReportTargets::specialTargetsAreRefused_data()
{
    QTest::addColumn<QString>("kind");
    QTest::addColumn<QString>("message");
    QTest::newRow("FIFO") << QStringLiteral("fifo")
                          << QStringLiteral(": is a FIFO (named pipe), not a regular file");
    QTest::newRow("character device") << QStringLiteral(
        "/dev/null") << QStringLiteral("cannot write the report to /dev/null: is a character device");
    QTest::newRow("read-only file") << QStringLiteral(
        "readonly") << QStringLiteral(": the file is read-only; make it writable or choose another name");
    QTest::newRow("link to a read-only file")
        << QStringLiteral("readonly-link") << QStringLiteral("(a link to ");
}

void TestReportTargets::specialTargetsAreRefused()
{
    QFETCH(QString, kind);
    QFETCH(QString, message);
    QTemporaryDir dir;
    QString path = dir.filePath(QStringLiteral("report.pdf"));
    if (kind == QLatin1String("fifo")) {
        QVERIFY(::mkfifo(QFile::encodeName(path).constData(), 0644) == 0);
    } else if (kind.startsWith(QLatin1String("readonly"))) {
        const QString file = dir.filePath(QStringLiteral("kept.pdf"));
        QFile old { file };
        QVERIFY(old.open(QIODevice::WriteOnly));
        old.write("the previous report");
        old.close();
        QVERIFY(old.setPermissions(QFileDevice::ReadOwner | QFileDevice::ReadGroup | QFileDevice::ReadOther));
        if (kind == QLatin1String("readonly"))
            path = file;
        else
            QVERIFY(QFile::link(file, path));
    } else {
        path = kind;
    }
    struct stat before
    {
    };
    QVERIFY(::stat(QFile::encodeName(path).constData(), &before) == 0);
    const Plan plan = makePlan(smallCnn());
    const auto written = report::writePdfReport(plan, evaluate(plan), path);
    QVERIFY(!written.ok());
    QVERIFY2(qs(written.error().message).startsWith(QStringLiteral("cannot write the report to ") + path),
        written.error().message.c_str());
    QVERIFY2(qs(written.error().message).contains(message), written.error().message.c_str());
    struct stat after
    {
    };
    QVERIFY(::stat(QFile::encodeName(path).constData(), &after) == 0);
    QCOMPARE(after.st_ino, before.st_ino); // the same file, untouched
    QCOMPARE(after.st_mode, before.st_mode);
    QCOMPARE(after.st_size, before.st_size);
    if (kind != QLatin1String("/dev/null"))
        QCOMPARE(QDir { dir.path() }
                     .entryList(QDir::Hidden | QDir::System | QDir::Files)
                     .filter(QStringLiteral(".pdf.")),
            QStringList {}); // no temporary file left behind
}

QTEST_MAIN(TestReportTargets)
#include "tst_reporttargets.moc"

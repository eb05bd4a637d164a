// `headroom measured` (issue 36), the real binary run as a process (CliTestSupport.h): what a recorded run
// measured, the plan beside it, the calibration, and hostile files. The expected figures are those worked
// out by hand from the test data's own texts (tests/data/measured/*.json, the comments of
// tests/core/tst_measuredrun.cpp), never the reader's output.
#include "CliTestSupport.h"

#include <QFile>
#include <QProcess>
#include <QTest>
#include <nlohmann/json.hpp>

namespace {

constexpr std::uint64_t M = 1024ULL * 1024ULL;

QString dataFile(const char* name)
{
    return QStringLiteral(HEADROOM_TEST_SOURCE_DIR "/tests/data/measured/") + QLatin1String(name);
}

} // namespace

class TestCliMeasured : public QObject, private CliFixture
{
    Q_OBJECT
private slots:
    void initTestCase() { writeInputFiles(); }
    void snapshotPeaksStepsAndPhases_data();
    void snapshotPeaksStepsAndPhases();
    void timelineHasNoReserved();
    void textNamesPeaksAndPhases();
    void comparisonWithModel();
    void calibrateLowersTheMaxBatch();
    void setupOptionsNeedModel();
    void reportHasTheMeasuredPage();
    void hostileFilesAreOneLineErrors_data();
    void hostileFilesAreOneLineErrors();

private:
    nlohmann::json measuredJson(const QStringList& args);
};

nlohmann::json TestCliMeasured::measuredJson(const QStringList& args)
{
    const Run r = runHeadroom(
        QStringList { QStringLiteral("measured") } + args + QStringList { QStringLiteral("--json") });
    if (r.exitCode != 0) {
        qWarning("headroom measured %s: exit %d: %s", qPrintable(args.join(QLatin1Char(' '))), r.exitCode,
            qPrintable(r.err));
        return {};
    }
    return nlohmann::json::parse(r.out.toStdString());
}

// snapshot_steps.json (tests/core/tst_measuredrun.cpp works it out event by event): allocated after each
// event 5,7,9,10,14,12,10,9,13,17,18,17,18,17,19,21,17,21,19,17,18,17 M; reserved 40 M throughout (one
// 40 M segment); two steps: the first [1,12) with forward peak 9, backward 14, optimizer 18 (its optimizer
// step makes the state), the second [12,22) with 21, 21, 18. The pickle and the memory_viz page hold the
// same dictionary (make_measured_runs.py).
void TestCliMeasured::snapshotPeaksStepsAndPhases_data()
{
    QTest::addColumn<QString>("file");
    QTest::newRow("json") << dataFile("snapshot_steps.json");
    QTest::newRow("pickle") << dataFile("snapshot_steps.pickle");
    QTest::newRow("html") << dataFile("snapshot_steps.html");
}

void TestCliMeasured::snapshotPeaksStepsAndPhases()
{
    QFETCH(QString, file);
    const auto j = measuredJson({ file });
    QVERIFY(!j.is_null());
    QCOMPARE(j.at("peak_allocated_bytes").get<std::uint64_t>(), 21 * M);
    QCOMPARE(j.at("peak_reserved_bytes").get<std::uint64_t>(), 40 * M);
    QCOMPARE(j.at("absolute").get<bool>(), true);
    // (40 - 21) / 40 of reserved is not allocated at the allocated peak.
    QCOMPARE(j.at("fragmentation_at_peak").get<double>(), 0.475);
    const auto& steps = j.at("steps");
    QCOMPARE(steps.size(), std::size_t { 2 });
    QCOMPARE(steps[0].at("first").get<bool>(), true);
    QCOMPARE(steps[1].at("first").get<bool>(), false);
    QCOMPARE(steps[0].at("peak_allocated_bytes").get<std::uint64_t>(), 18 * M);
    QCOMPARE(steps[1].at("peak_allocated_bytes").get<std::uint64_t>(), 21 * M);
    const std::uint64_t phasePeaks[2][3] = { { 9, 14, 18 }, { 21, 21, 18 } };
    const char* names[] = { "forward", "backward", "optimizer_step" };
    for (std::size_t s = 0; s < 2; ++s) {
        QCOMPARE(steps[s].at("peak_reserved_bytes").get<std::uint64_t>(), 40 * M);
        const auto& phases = steps[s].at("phases");
        QCOMPARE(phases.size(), std::size_t { 3 });
        for (std::size_t p = 0; p < 3; ++p) {
            QCOMPARE(phases[p].at("phase").get<std::string>(), std::string(names[p]));
            QCOMPARE(phases[p].at("peak_allocated_bytes").get<std::uint64_t>(), phasePeaks[s][p] * M);
            QCOMPARE(phases[p].at("peak_reserved_bytes").get<std::uint64_t>(), 40 * M);
            QCOMPARE(phases[p].at("source").get<std::string>(), std::string("frames"));
        }
    }
    // Alive at the peak: W, gw, s1, s2 (4 M each), two 2 M activations and x2 (1 M): 7 blocks, 21 M.
    QCOMPARE(j.at("blocks_alive_at_peak").get<std::size_t>(), std::size_t { 7 });
    std::uint64_t listed = 0;
    for (const auto& b : j.at("blocks_at_peak"))
        listed += b.at("bytes").get<std::uint64_t>();
    QCOMPARE(listed, 21 * M);
    QCOMPARE(j.at("blocks_at_peak")[0].at("bytes").get<std::uint64_t>(), 4 * M);
    QVERIFY(j.at("allocator_check").contains("matching_segment_events"));
    QVERIFY(j.at("notes").is_array());
}

// timeline.json (tst_measuredrun.cpp): totals per row peak at 19 M; three steps; no reserved bytes.
void TestCliMeasured::timelineHasNoReserved()
{
    for (const char* file : { "timeline.json", "timeline.json.gz" }) {
        const auto j = measuredJson({ dataFile(file) });
        QVERIFY2(!j.is_null(), file);
        QCOMPARE(j.at("peak_allocated_bytes").get<std::uint64_t>(), 19 * M);
        QVERIFY(j.at("peak_reserved_bytes").is_null());
        QCOMPARE(j.at("steps").size(), std::size_t { 3 });
        QCOMPARE(j.at("steps")[0].at("phases")[2].at("peak_allocated_bytes").get<std::uint64_t>(), 19 * M);
        QCOMPARE(j.at("allocator_check").at("checked").get<bool>(), false);
    }
    // chrome_trace.json: allocated peaks at 12 M, reserved at 40 M, two steps from the annotations.
    const auto trace = measuredJson({ dataFile("chrome_trace.json") });
    QCOMPARE(trace.at("peak_allocated_bytes").get<std::uint64_t>(), 12 * M);
    QCOMPARE(trace.at("peak_reserved_bytes").get<std::uint64_t>(), 40 * M);
    QCOMPARE(trace.at("steps").size(), std::size_t { 2 });
    QCOMPARE(
        trace.at("steps")[1].at("phases")[1].at("source").get<std::string>(), std::string("annotations"));
}

void TestCliMeasured::textNamesPeaksAndPhases()
{
    const Run r = runHeadroom({ QStringLiteral("measured"), dataFile("snapshot_steps.json") });
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QVERIFY2(r.out.contains(QLatin1String("21.00 MiB")), qPrintable(r.out));
    QVERIFY2(r.out.contains(QLatin1String("40.00 MiB")), qPrintable(r.out));
    QVERIFY2(r.out.contains(QLatin1String("47.5 %")), qPrintable(r.out));
    QVERIFY2(r.out.contains(QLatin1String("optimizer step")), qPrintable(r.out));
    QVERIFY2(r.out.contains(QLatin1String("Allocator check")), qPrintable(r.out));
    QVERIFY(r.err.isEmpty());
}

// The plan for the MLP at the plan's batch beside the snapshot: every field there, every difference
// measured - predicted in bytes, sign and percent.
void TestCliMeasured::comparisonWithModel()
{
    const auto j = measuredJson(
        { dataFile("snapshot_steps.json"), QStringLiteral("--model"), m_mlp, QStringLiteral("--batch"),
            QStringLiteral("4"), QStringLiteral("--gpu"), QStringLiteral("RTX 4090") });
    QVERIFY(!j.is_null());
    QCOMPARE(j.at("peak_allocated_bytes").get<std::uint64_t>(), 21 * M);
    const auto& c = j.at("comparison");
    QCOMPARE(c.at("batch").get<std::int64_t>(), std::int64_t { 4 });
    QCOMPARE(c.at("batch_assumed").get<bool>(), true);
    QCOMPARE(c.at("peak_allocated").at("measured_bytes").get<std::uint64_t>(), 21 * M);
    const auto consistent
        = [](const nlohmann::json& predicted, const nlohmann::json& measured, const nlohmann::json& d) {
              const auto p = predicted.get<std::uint64_t>();
              const auto m = measured.get<std::uint64_t>();
              const auto bytes = d.at("bytes").get<std::uint64_t>();
              const bool above = d.at("measured_above").get<bool>();
              const double percent = d.at("percent").get<double>();
              const std::uint64_t expected = m > p ? m - p : p - m;
              const double expectedPercent = p == 0
                  ? 0.0
                  : 100.0 * (static_cast<double>(m) - static_cast<double>(p)) / static_cast<double>(p);
              return bytes == expected && above == (m > p) && std::abs(percent - expectedPercent) < 1e-6;
          };
    for (const char* peak : { "peak_allocated", "peak_reserved" }) {
        const auto& d = c.at(peak);
        QVERIFY2(consistent(d.at("predicted_bytes"), d.at("measured_bytes"), d.at("difference")), peak);
    }
    QCOMPARE(c.at("phases").size(), std::size_t { 3 });
    for (const auto& p : c.at("phases")) {
        QVERIFY(p.at("measured_found").get<bool>());
        QVERIFY(consistent(p.at("predicted_allocated_bytes"), p.at("measured_allocated_bytes"),
            p.at("allocated_difference")));
        QVERIFY(consistent(
            p.at("predicted_reserved_bytes"), p.at("measured_reserved_bytes"), p.at("reserved_difference")));
    }
    // The steady step's phases measured: 21, 21, 18 M (the second step's).
    QCOMPARE(c.at("phases")[0].at("measured_allocated_bytes").get<std::uint64_t>(), 21 * M);
    QCOMPARE(c.at("phases")[2].at("measured_allocated_bytes").get<std::uint64_t>(), 18 * M);
    for (const auto& comp : c.at("components"))
        if (!comp.at("measured_bytes").is_null())
            QVERIFY(consistent(comp.at("predicted_bytes"), comp.at("measured_bytes"), comp.at("difference")));
    for (const char* key : { "unattributed", "setup_differences", "calibration", "notes", "steady_step" })
        QVERIFY2(c.contains(key), key);
    // The text says the batch was assumed and lists the phases.
    const Run text = runHeadroom({ QStringLiteral("measured"), dataFile("snapshot_steps.json"),
        QStringLiteral("--model"), m_mlp, QStringLiteral("--batch"), QStringLiteral("4") });
    QVERIFY2(text.exitCode == 0, qPrintable(text.err));
    QVERIFY2(text.out.contains(QLatin1String("the run's was not given")), qPrintable(text.out));
    QVERIFY2(text.out.contains(QLatin1String("Per phase")), qPrintable(text.out));
    QVERIFY2(text.out.contains(QLatin1String("Calibration proposal")), qPrintable(text.out));
    // Stated, the run's batch is compared and nothing is assumed.
    const auto stated = measuredJson({ dataFile("snapshot_steps.json"), QStringLiteral("--model"), m_mlp,
        QStringLiteral("--run-batch"), QStringLiteral("2") });
    QCOMPARE(stated.at("comparison").at("batch").get<std::int64_t>(), std::int64_t { 2 });
    QCOMPARE(stated.at("comparison").at("batch_assumed").get<bool>(), false);
}

// The MLP's plan (18,720 bytes of weights, two cuBLAS workspaces) peaks well below the run's 21 M: the
// run shows excess, so the calibrated plan's max batch is no larger than the plan's.
void TestCliMeasured::calibrateLowersTheMaxBatch()
{
    const auto j = measuredJson({ dataFile("snapshot_steps.json"), QStringLiteral("--model"), m_mlp,
        QStringLiteral("--batch"), QStringLiteral("4"), QStringLiteral("--calibrate") });
    QVERIFY(!j.is_null());
    const auto& c = j.at("comparison");
    QVERIFY(c.at("peak_allocated").at("difference").at("measured_above").get<bool>());
    QVERIFY(c.at("calibration").at("available").get<bool>());
    const auto& cal = j.at("calibrated");
    QVERIFY2(!cal.is_null(), j.dump().c_str());
    QVERIFY(cal.at("max_batch_after").get<std::int64_t>() <= cal.at("max_batch_before").get<std::int64_t>());
    QVERIFY(cal.at("fixed_bytes").get<std::uint64_t>() + cal.at("per_sample_bytes").get<std::uint64_t>() > 0);
    const Run text = runHeadroom(
        { QStringLiteral("measured"), dataFile("snapshot_steps.json"), QStringLiteral("--model"), m_mlp,
            QStringLiteral("--batch"), QStringLiteral("4"), QStringLiteral("--calibrate") });
    QVERIFY2(text.exitCode == 0, qPrintable(text.err));
    QVERIFY2(text.out.contains(QStringLiteral("Calibrated max batch: %1 (the plan's: %2)")
                                   .arg(cal.at("max_batch_after").get<qint64>())
                                   .arg(cal.at("max_batch_before").get<qint64>())),
        qPrintable(text.out));
}

void TestCliMeasured::setupOptionsNeedModel()
{
    for (const char* option : { "--calibrate", "--run-batch", "--gpu" }) {
        QStringList args { QStringLiteral("measured"), dataFile("snapshot_steps.json"),
            QLatin1String(option) };
        if (QLatin1String(option) == QLatin1String("--run-batch"))
            args << QStringLiteral("2");
        else if (QLatin1String(option) == QLatin1String("--gpu"))
            args << QStringLiteral("RTX 4090");
        const Run r = runHeadroom(args);
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(QLatin1String("--model")), qPrintable(r.err));
        QCOMPARE(r.err.count(QLatin1Char('\n')), 1);
    }
}

// report --measured: the page, at the run's batch; --run-batch alone is refused.
void TestCliMeasured::reportHasTheMeasuredPage()
{
    const QString pdf = m_dir.filePath(QStringLiteral("measured.pdf"));
    const Run r = runHeadroom({ QStringLiteral("report"), m_mlp, QStringLiteral("-o"), pdf,
        QStringLiteral("--batch"), QStringLiteral("4"), QStringLiteral("--measured"),
        dataFile("chrome_trace.json"), QStringLiteral("--run-batch"), QStringLiteral("2") });
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QProcess text;
    text.start(QStringLiteral("pdftotext"), { pdf, QStringLiteral("-") });
    if (!text.waitForStarted() || !text.waitForFinished(60000))
        QSKIP("pdftotext (poppler-utils) is not installed");
    const QString t = QString::fromUtf8(text.readAllStandardOutput()).simplified();
    // chrome_trace.json: allocated peaks at 12 M, reserved at 40 M (tst_measuredrun.cpp).
    for (const char* fragment : { "Plan and measured run", "chrome_trace.json", "compared at batch 2",
             "measured 12.00 MiB", "measured 40.00 MiB", "Per phase", "Calibration proposal" })
        QVERIFY2(t.contains(QLatin1String(fragment)), fragment);
    const Run alone = runHeadroom({ QStringLiteral("report"), m_mlp, QStringLiteral("-o"), pdf,
        QStringLiteral("--run-batch"), QStringLiteral("2") });
    QCOMPARE(alone.exitCode, 2);
    QVERIFY2(alone.err.contains(QLatin1String("needs --measured")), qPrintable(alone.err));
}

void TestCliMeasured::hostileFilesAreOneLineErrors_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("expected"); ///< in the message besides the file's name
    // The snapshot's pickle cut in half.
    QFile whole(dataFile("snapshot_steps.pickle"));
    if (!whole.open(QIODevice::ReadOnly))
        qFatal("cannot read snapshot_steps.pickle");
    const QString truncated = m_dir.filePath(QStringLiteral("truncated.pickle"));
    QFile cut(truncated);
    if (!cut.open(QIODevice::WriteOnly))
        qFatal("cannot write %s", qPrintable(truncated));
    cut.write(whole.read(whole.size() / 2));
    cut.close();
    const QString text = m_dir.filePath(QStringLiteral("notes.txt"));
    QFile notes(text);
    if (!notes.open(QIODevice::WriteOnly))
        qFatal("cannot write %s", qPrintable(text));
    notes.write("These are my notes, not a memory snapshot.\n");
    notes.close();
    QTest::newRow("truncated pickle") << truncated << QStringLiteral("byte ");
    // Protocol 0 starting with GLOBAL is not recognised as a pickle at all; in protocol 2 the opcode is
    // met and refused; STACK_GLOBAL (protocol 4) after plain data.
    QTest::newRow("GLOBAL first") << dataFile("hostile/global_os_system_p0.pickle") << QString();
    QTest::newRow("GLOBAL opcode") << dataFile("hostile/class_instance_p2.pickle")
                                   << QStringLiteral("opcode GLOBAL");
    QTest::newRow("STACK_GLOBAL") << dataFile("hostile/stack_global_late.pickle")
                                  << QStringLiteral("would import");
    QTest::newRow("text file") << text << QString();
    QTest::newRow("missing") << m_dir.filePath(QStringLiteral("gone.pickle"))
                             << QStringLiteral("no such file");
}

void TestCliMeasured::hostileFilesAreOneLineErrors()
{
    QFETCH(QString, file);
    QFETCH(QString, expected);
    for (const bool json : { false, true }) {
        QStringList args { QStringLiteral("measured"), file };
        if (json)
            args << QStringLiteral("--json");
        const Run r = runHeadroom(args);
        QCOMPARE(r.exitCode, 2);
        QVERIFY(r.out.isEmpty());
        QVERIFY2(r.err.startsWith(QLatin1String("headroom: error: ")), qPrintable(r.err));
        QCOMPARE(r.err.count(QLatin1Char('\n')), 1);
        QVERIFY2(r.err.contains(QFileInfo(file).fileName()), qPrintable(r.err));
        QVERIFY2(r.err.contains(expected), qPrintable(r.err));
    }
    // The report names it too, after --measured.
    const Run report = runHeadroom({ QStringLiteral("report"), m_mlp, QStringLiteral("-o"),
        m_dir.filePath(QStringLiteral("never.pdf")), QStringLiteral("--measured"), file });
    QCOMPARE(report.exitCode, 2);
    QVERIFY2(
        report.err.contains(QLatin1String("--measured")) && report.err.contains(QFileInfo(file).fileName()),
        qPrintable(report.err));
    QVERIFY(!QFile::exists(m_dir.filePath(QStringLiteral("never.pdf"))));
}

QTEST_GUILESS_MAIN(TestCliMeasured)
#include "tst_climeasured.moc"

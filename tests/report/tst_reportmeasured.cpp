// The report's "Plan and measured run" page (ReportOptions::measured, issue 36): a plan beside the recorded
// run of tests/data/measured/snapshot_steps.json, read back with poppler's pdftotext (ReportTestSupport.h).
// The run's figures are those tests/core/tst_measuredrun.cpp works out by hand from the JSON text: peak
// allocated 21 M, reserved 40 M, the steady step's phases 21, 21 and 18 M.
#include "ReportTestSupport.h"
#include "headroom/estimate/RunComparison.h"
#include "headroom/measured/MeasuredRun.h"

using namespace headroom;
using namespace headroom::test;

class TestReportMeasured : public QObject, private ReportFixture
{
    Q_OBJECT
private slots:
    void initTestCase() { checkTools(); }
    void pageHasChartTablesAndCalibration();
    void noPageWithoutARun();
};

namespace {

Network mlp()
{
    Network n;
    n.name = "Measured MLP";
    n.input.shape = Shape { { 64 } };
    n.layers = { layer("Linear", { { "out_features", 64 } }, "fc1"), layer("ReLU", {}, "relu"),
        layer("Linear", { { "out_features", 8 } }, "fc2") };
    return n;
}

} // namespace

void TestReportMeasured::pageHasChartTablesAndCalibration()
{
    const Plan plan = makePlan(mlp(), 4);
    const PlanResult result = evaluate(plan);
    QVERIFY(result.estimate);
    auto read = readMeasuredRun(
        std::filesystem::path(HEADROOM_TEST_SOURCE_DIR "/tests/data/measured/snapshot_steps.json"));
    QVERIFY2(read.ok(), read.ok() ? "" : read.error().message.c_str());
    report::ReportOptions options;
    report::MeasuredRunReport m;
    m.run = std::make_shared<const MeasuredRun>(std::move(read).value());
    m.source = "snapshot_steps.json";
    m.comparison = compareRun(*m.run, plan, result, RunContext {});
    const RunComparison c = m.comparison;
    options.measured = std::move(m);
    const QString pdf = m_dir.filePath(QStringLiteral("measured.pdf"));
    const auto written = report::writePdfReport(plan, result, pdf, options);
    QVERIFY2(written.ok(), written.ok() ? "" : written.error().message.c_str());
    keep(pdf, QStringLiteral("measured"));
    REQUIRE_POPPLER();
    const QString text = pdfText(pdf);
    const QString flat = simplified(text);
    QVERIFY2(flat.contains(QLatin1String("Plan and measured run")), qPrintable(text.right(3000)));
    QVERIFY(flat.contains(QLatin1String("snapshot_steps.json")));
    // The measured peaks (21 M allocated, 40 M reserved) and the predicted ones, as the page states them.
    QVERIFY2(squeezed(text).contains(squeezed(QStringLiteral("measured 21.00 MiB"))),
        qPrintable(flat.right(3000)));
    QVERIFY(squeezed(text).contains(squeezed(QStringLiteral("measured 40.00 MiB"))));
    QVERIFY(squeezed(text).contains(
        squeezed(QStringLiteral("predicted ") + qs(formatBytes(c.predictedPeakAllocated)))));
    // The chart's peak labels and the per-phase table's forward row: measured 21 M.
    QVERIFY(squeezed(text).contains(squeezed(QStringLiteral("Measured peak 21.00 MiB"))));
    QVERIFY2(hasLineWith(text, QStringLiteral("Forward"), QStringLiteral("21.00 MiB")),
        qPrintable(text.right(3000)));
    QVERIFY(hasLineWith(text, QStringLiteral("Optimizer step"), QStringLiteral("18.00 MiB")));
    QVERIFY(flat.contains(QLatin1String("Calibration proposal")));
    QVERIFY(flat.contains(QLatin1String("Per component")));
}

void TestReportMeasured::noPageWithoutARun()
{
    const Plan plan = makePlan(mlp(), 4);
    const PlanResult result = evaluate(plan);
    QString pdf;
    write(plan, result, QStringLiteral("plain"), pdf);
    REQUIRE_POPPLER();
    QVERIFY(!pdfText(pdf).contains(QLatin1String("Plan and measured run")));
}

QTEST_MAIN(TestReportMeasured)
#include "tst_reportmeasured.moc"

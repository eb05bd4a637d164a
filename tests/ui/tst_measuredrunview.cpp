// A measured run beside the plan in the main window (issue 36): File > Open Measured Run and drag and drop,
// the run's curves on the "During one step" chart, the "Measured run" tab's table, calibrating from the
// run and undoing it, and files that are not runs.
//
// The run is tests/data/measured/snapshot_steps.pickle (snapshot_steps.json pickled by
// make_measured_runs.py): two Adam steps recorded with Python frames. Its figures, worked out by hand in
// tests/core/tst_measuredrun.cpp from the JSON text (not from the reader): allocated after each of its 22
// events, in MiB,
//   5, 7, 9, 10, 14, 12, 10, 9, 13, 17, 18, 17 | 18, 17, 19, 21, 17, 21, 19, 17, 18, 17
// reserved 40 MiB throughout. Step 0 (the first: its optimizer step makes the Adam state) spans events
// [1, 12): forward [1, 3), backward [3, 8), optimizer step [8, 12), peaks 9, 14 and 18 MiB. Step 1 (steady)
// spans [12, 22): forward [12, 17), backward [17, 20), optimizer step [20, 22), peaks 21, 21 and 18 MiB.
// Alive at the run's peak (event 15): W, gw, s1, s2 (4 MiB each), two activations (2 MiB each) and the
// batch x2 (1 MiB) = 21 MiB.
#include "Document.h"
#include "MainWindow.h"
#include "MainWindowFixture.h"
#include "MeasuredRunPanel.h"
#include "MemoryChartView.h"
#include "RunController.h"
#include "StepChartView.h"
#include "TestSupport.h"
#include "headroom/model/ModelFile.h"

#include <QAction>
#include <QComboBox>
#include <QDropEvent>
#include <QFile>
#include <QMimeData>
#include <QProcess>
#include <QPushButton>
#include <QSettings>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeWidget>
#include <QUndoStack>
#include <QUrl>
#include <algorithm>

using namespace headroom;
using namespace headroom::ui;
using namespace headroom::test;

namespace {

constexpr std::uint64_t MiB = 1024ULL * 1024ULL;

QString measuredFile(const char* name)
{
    return QStringLiteral(HEADROOM_TEST_SOURCE_DIR "/tests/data/measured/") + QString::fromLatin1(name);
}

/// The highest y of a curve, back in bytes.
double highest(const QList<QPointF>& points, double bytesPerUnit)
{
    double y = 0;
    for (const QPointF& p : points)
        y = std::max(y, p.y());
    return y * bytesPerUnit;
}

/// The rows of the table's group `title`, by their first column.
QTreeWidgetItem* group(QTreeWidget* table, const QString& title)
{
    for (int i = 0; i < table->topLevelItemCount(); ++i) {
        if (table->topLevelItem(i)->text(0) == title)
            return table->topLevelItem(i);
    }
    return nullptr;
}

quint64 measuredOf(QTreeWidgetItem* row)
{
    return row->data(2, Qt::UserRole).value<quint64>();
}

void drop(MainWindow& window, const QString& path)
{
    QMimeData data;
    data.setUrls({ QUrl::fromLocalFile(path) });
    const QPoint at(window.width() / 2, window.height() / 2);
    QDragEnterEvent enter(at, Qt::CopyAction, &data, Qt::LeftButton, Qt::NoModifier);
    QCoreApplication::sendEvent(&window, &enter);
    QVERIFY(enter.isAccepted());
    QDropEvent dropped(QPointF(at), Qt::CopyAction, &data, Qt::LeftButton, Qt::NoModifier);
    QCoreApplication::sendEvent(&window, &dropped);
    QVERIFY(dropped.isAccepted());
}

} // namespace

class TestMeasuredRunView : public QObject, private MainWindowFixture
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { test::isolateSettings(); }
    void init() { QSettings().clear(); }
    void opensThroughTheFileMenu();
    void chartDrawsTheRunOverThePlan();
    void tableRows();
    void assumedSetupIsSaid();
    void calibrateThenUndo();
    void hostileFileGoesToTheErrorDialog();
    void cancelledQuestionOpensNothing();
    void dropOpensRunsAndModels();
    void reportHasTheRunsPage();
};

void TestMeasuredRunView::opensThroughTheFileMenu()
{
    auto w = makeWindow();
    MainWindow& win = w->window;
    auto* open = child<QAction>(win, "openMeasuredRunAction");
    auto* close = child<QAction>(win, "closeMeasuredRunAction");
    QVERIFY(!close->isEnabled());
    QTabWidget* tabs = win.chartView()->tabs();
    QCOMPARE(tabs->indexOf(win.measuredRunPanel()), -1); // no tab without a run

    w->dialogs->openNames.push_back(measuredFile("snapshot_steps.pickle"));
    w->dialogs->runSetups.push_back({ 8, Precision::Fp32 });
    open->trigger();
    QCOMPARE(w->dialogs->runSetupQuestions, 1);
    QVERIFY2(w->dialogs->errors.isEmpty(), qPrintable(w->dialogs->errors.join(QLatin1Char('\n'))));
    QVERIFY(win.runController()->isOpen());
    QCOMPARE(win.runController()->fileName(), QStringLiteral("snapshot_steps.pickle"));
    QCOMPARE(win.runController()->context().batch, std::optional<std::int64_t> { 8 });
    QVERIFY(close->isEnabled());
    const int tab = tabs->indexOf(win.measuredRunPanel());
    QVERIFY(tab >= 0);
    QVERIFY(tabs->tabText(tab).contains(QStringLiteral("snapshot_steps.pickle")));
    // The step chart is brought forward, drawing the run.
    QCOMPARE(tabs->currentWidget(), static_cast<QWidget*>(win.chartView()->stepView()));
    QVERIFY(win.chartView()->stepView()->showsRun());

    close->trigger();
    QVERIFY(!win.runController()->isOpen());
    QCOMPARE(tabs->indexOf(win.measuredRunPanel()), -1);
    QVERIFY(!close->isEnabled());
    QVERIFY(!win.chartView()->stepView()->showsRun());
    QVERIFY(!win.chartView()->stepView()->totalPoints().isEmpty()); // the components' stack again
}

void TestMeasuredRunView::chartDrawsTheRunOverThePlan()
{
    auto w = makeWindow();
    MainWindow& win = w->window;
    QVERIFY(
        win.openMeasuredRun(measuredFile("snapshot_steps.pickle"), RunContext { 8, Precision::Fp32, {} }));
    StepChartView* step = win.chartView()->stepView();
    QVERIFY(step->showsRun());
    // The steady step: events 12..21, two points each (a flat piece per event).
    const QList<QPointF> measured = step->measuredAllocatedPoints();
    QCOMPARE(measured.size(), 20);
    // Forward's 5 events at 0, 0.2, ... 0.8; backward's 3 at 1, 1 1/3, 1 2/3; the optimizer's 2 at 2, 2.5.
    QCOMPARE(measured.front().x(), 0.0);
    QCOMPARE(measured[2].x(), 0.2);
    QCOMPARE(measured[10].x(), 1.0);
    QCOMPARE(measured[16].x(), 2.0);
    QCOMPARE(measured[18].x(), 2.5);
    QCOMPARE(measured.back().x(), 3.0);
    QCOMPARE(highest(measured, step->bytesPerUnit()), static_cast<double>(21 * MiB));
    // The first level is event 12's 18 MiB, the last event 21's 17 MiB.
    QCOMPARE(measured.front().y() * step->bytesPerUnit(), static_cast<double>(18 * MiB));
    QCOMPARE(measured.back().y() * step->bytesPerUnit(), static_cast<double>(17 * MiB));
    QCOMPARE(highest(step->measuredReservedPoints(), step->bytesPerUnit()), static_cast<double>(40 * MiB));
    QVERIFY(!step->predictedAllocatedPoints().isEmpty());
    QVERIFY(!step->predictedReservedPoints().isEmpty());
    // Both allocated peaks marked: the measured one first reached at event 15, forward's 4th of 5 (x 0.6).
    const QList<QPointF> peaks = step->runPeakPoints();
    QCOMPARE(peaks.size(), 2);
    QCOMPARE(peaks[1].x(), 0.6);
    QCOMPARE(peaks[1].y() * step->bytesPerUnit(), static_cast<double>(21 * MiB));
    const QStringList labels = step->runPeakLabels();
    QCOMPARE(labels.size(), 2);
    QVERIFY2(labels[1].contains(bytes(21 * MiB)), qPrintable(labels[1]));
    const QStringList legend = step->runLegend();
    QCOMPARE(legend.size(), 4);
    QVERIFY2(
        legend[2].startsWith(QStringLiteral("Measured allocated")) && legend[2].contains(bytes(21 * MiB)),
        qPrintable(legend[2]));
    QVERIFY2(legend[3].contains(bytes(40 * MiB)), qPrintable(legend[3]));
    QVERIFY(legend[0].startsWith(QStringLiteral("Predicted allocated")));

    // Hovering the curves: the phase under the pointer and each curve's level there (the steady step's
    // events as above: x 0.6 is event 15, 21 MiB; x 1 1/3 event 18, 19 MiB; x 2.5 event 21, 17 MiB;
    // reserved 40 MiB throughout).
    const QStringList forward = step->runMomentText(0.65).split(QLatin1Char('\n'));
    QCOMPARE(forward.value(0), QStringLiteral("Forward"));
    QCOMPARE(forward.value(1), QStringLiteral("Measured allocated: ") + bytes(21 * MiB));
    QCOMPARE(forward.value(2), QStringLiteral("Measured reserved: ") + bytes(40 * MiB));
    QVERIFY2(
        forward.value(3).startsWith(QStringLiteral("Predicted allocated: ")), qPrintable(forward.value(3)));
    QVERIFY2(
        forward.value(4).startsWith(QStringLiteral("Predicted reserved: ")), qPrintable(forward.value(4)));
    const QStringList backward = step->runMomentText(1.5).split(QLatin1Char('\n'));
    QCOMPARE(backward.value(0), QStringLiteral("Backward"));
    QCOMPARE(backward.value(1), QStringLiteral("Measured allocated: ") + bytes(19 * MiB));
    const QStringList optimizer = step->runMomentText(2.99).split(QLatin1Char('\n'));
    QCOMPARE(optimizer.value(0), QStringLiteral("Optimizer step"));
    QCOMPARE(optimizer.value(1), QStringLiteral("Measured allocated: ") + bytes(17 * MiB));
    QVERIFY(step->runMomentText(3.5).isEmpty());
    QVERIFY(step->runMomentText(-0.1).isEmpty());

    // The first step: events 1..11 (forward 2, backward 5, optimizer 4), its peak 18 MiB at event 10, the
    // optimizer step's 3rd of 4 (x 2.5).
    step->setStepKind(report::StepKind::First);
    QCOMPARE(step->measuredAllocatedPoints().size(), 22);
    QCOMPARE(highest(step->measuredAllocatedPoints(), step->bytesPerUnit()), static_cast<double>(18 * MiB));
    QCOMPARE(step->runPeakPoints()[1].x(), 2.5);
}

void TestMeasuredRunView::tableRows()
{
    auto w = makeWindow();
    MainWindow& win = w->window;
    QVERIFY(
        win.openMeasuredRun(measuredFile("snapshot_steps.pickle"), RunContext { 8, Precision::Fp32, {} }));
    MeasuredRunPanel* panel = win.measuredRunPanel();
    QVERIFY2(panel->headerText().contains(QStringLiteral("snapshot_steps.pickle")),
        qPrintable(panel->headerText()));
    QVERIFY2(panel->headerText().contains(QStringLiteral("memory snapshot (pickle)")),
        qPrintable(panel->headerText()));
    QVERIFY2(
        panel->headerText().contains(QStringLiteral("batch 8 (given)")), qPrintable(panel->headerText()));
    QVERIFY2(panel->headerText().contains(QStringLiteral("training steps found: 2")),
        qPrintable(panel->headerText()));

    QTreeWidget* table = panel->table();
    QTreeWidgetItem* peaks = group(table, QStringLiteral("The step's peaks"));
    QVERIFY(peaks != nullptr);
    QCOMPARE(peaks->childCount(), 2);
    QCOMPARE(measuredOf(peaks->child(0)), quint64 { 21 * MiB });
    QCOMPARE(peaks->child(0)->text(2), bytes(21 * MiB));
    QCOMPARE(measuredOf(peaks->child(1)), quint64 { 40 * MiB });

    QTreeWidgetItem* phases = group(table, QStringLiteral("By phase"));
    QVERIFY(phases != nullptr);
    QCOMPARE(phases->childCount(), 6);
    QCOMPARE(phases->child(0)->text(0), QStringLiteral("Forward, allocated"));
    QCOMPARE(measuredOf(phases->child(0)), quint64 { 21 * MiB });
    QCOMPARE(measuredOf(phases->child(1)), quint64 { 40 * MiB });
    QCOMPARE(phases->child(2)->text(0), QStringLiteral("Backward, allocated"));
    QCOMPARE(measuredOf(phases->child(2)), quint64 { 21 * MiB });
    QCOMPARE(phases->child(4)->text(0), QStringLiteral("Optimizer step, allocated"));
    QCOMPARE(measuredOf(phases->child(4)), quint64 { 18 * MiB });
    // The difference column: measured - predicted, with its sign.
    const quint64 predicted = phases->child(4)->data(1, Qt::UserRole).value<quint64>();
    const QString expected = predicted == 18 * MiB ? QStringLiteral("0")
        : predicted < 18 * MiB                     ? QStringLiteral("+") + bytes(18 * MiB - predicted)
                                                   : QString(QChar(0x2212)) + bytes(predicted - 18 * MiB);
    QVERIFY2(phases->child(4)->text(3).startsWith(expected), qPrintable(phases->child(4)->text(3)));

    QTreeWidgetItem* components = group(table, QStringLiteral("By component at the allocated peak"));
    QVERIFY(components != nullptr);
    QCOMPARE(components->childCount(), 7);
    QStringList names;
    quint64 alive = 0;
    for (int i = 0; i < components->childCount(); ++i) {
        names << components->child(i)->text(0);
        alive += measuredOf(components->child(i));
    }
    QCOMPARE(names,
        QStringList({ QStringLiteral("Weights"), QStringLiteral("Gradients"),
            QStringLiteral("Optimizer state"), QStringLiteral("Activations"), QStringLiteral("Workspaces"),
            QStringLiteral("Temporaries"), QStringLiteral("Unattributed") }));
    QCOMPARE(alive, quint64 { 21 * MiB }); // every block alive at the peak counted once

    // The blocks no tensor of the plan accounts for: largest first, each with its sentence.
    QTreeWidget* list = panel->unattributedList();
    QVERIFY(list->topLevelItemCount() > 0);
    quint64 previous = ~quint64 { 0 };
    for (int i = 0; i < list->topLevelItemCount(); ++i) {
        const quint64 size = list->topLevelItem(i)->data(0, Qt::UserRole).value<quint64>();
        QVERIFY(size <= previous);
        previous = size;
        QVERIFY2(list->topLevelItem(i)->text(0).endsWith(QStringLiteral("no matching tensor in the plan")),
            qPrintable(list->topLevelItem(i)->text(0)));
    }
}

void TestMeasuredRunView::assumedSetupIsSaid()
{
    auto w = makeWindow();
    MainWindow& win = w->window;
    w->dialogs->runSetups.push_back({}); // not known
    QVERIFY(win.openMeasuredRun(measuredFile("snapshot_steps.html")));
    const QString header = win.measuredRunPanel()->headerText();
    QVERIFY2(
        header.contains(QStringLiteral("batch 32 (the plan's, assumed: not given)")), qPrintable(header));
    QVERIFY2(header.contains(QStringLiteral("memory_viz")), qPrintable(header));
    const QString differences = win.measuredRunPanel()->differencesText();
    QVERIFY2(differences.contains(QStringLiteral("differs from the run's")), qPrintable(differences));
    QVERIFY2(differences.contains(QStringLiteral("not given")), qPrintable(differences));
}

void TestMeasuredRunView::calibrateThenUndo()
{
    auto w = makeWindow();
    MainWindow& win = w->window;
    QVERIFY(
        win.openMeasuredRun(measuredFile("snapshot_steps.pickle"), RunContext { 8, Precision::Fp32, {} }));
    const Plan before = win.document()->plan();
    QVERIFY(!before.setup.calibration.active());
    MeasuredRunPanel* panel = win.measuredRunPanel();
    QVERIFY2(panel->calibrationStateText().contains(QStringLiteral("not calibrated")),
        qPrintable(panel->calibrationStateText()));
    // The tiny plan has no 4 MiB tensor: the weights W, alive from before the trace through every step, are
    // outside it and proposed as the fixed term.
    const auto comparison = win.runController()->comparison();
    QVERIFY(comparison->calibration.available);
    QVERIFY(comparison->calibration.fixedBytes >= 4 * MiB);
    QVERIFY2(panel->proposalText().contains(bytes(comparison->calibration.fixedBytes)),
        qPrintable(panel->proposalText()));
    QPushButton* calibrate = panel->calibrateButton();
    QVERIFY(calibrate->isEnabled());
    const int comparisons = win.runController()->comparisons();
    QTest::mouseClick(calibrate, Qt::LeftButton);

    const RunCalibration& cal = win.document()->plan().setup.calibration;
    QVERIFY(cal.active());
    QCOMPARE(cal.fixedBytes, comparison->calibration.fixedBytes);
    QCOMPARE(cal.perSampleBytes, comparison->calibration.perSampleBytes);
    QCOMPARE(cal.measuredBatch, std::int64_t { 8 });
    QCOMPARE(cal.source, std::string("snapshot_steps.pickle"));
    QCOMPARE(win.document()->undoStack()->undoText(), QStringLiteral("Calibrate from snapshot_steps.pickle"));
    QVERIFY2(
        panel->calibrationStateText().startsWith(QStringLiteral("Calibrated from snapshot_steps.pickle: +")
            + bytes(cal.fixedBytes) + QStringLiteral(" fixed, +")),
        qPrintable(panel->calibrationStateText()));
    // The calibration is a component of the charts; applied once, the button has nothing more to apply.
    QTRY_VERIFY(win.chartView()->showsComponent(Component::Calibration));
    QVERIFY(!calibrate->isEnabled());
    // The comparison follows the plan (once, after the change settles).
    QTRY_VERIFY(win.runController()->comparisons() > comparisons);

    // One undo step takes it back exactly.
    win.document()->undoStack()->undo();
    QVERIFY(win.document()->plan() == before);
    QVERIFY(panel->calibrationStateText().contains(QStringLiteral("not calibrated")));
    QTRY_VERIFY(!win.chartView()->showsComponent(Component::Calibration));
    QTRY_VERIFY(calibrate->isEnabled());
}

void TestMeasuredRunView::hostileFileGoesToTheErrorDialog()
{
    auto w = makeWindow();
    MainWindow& win = w->window;
    // A protocol-2 pickle (0x80 0x02) whose next opcode, 'c' (GLOBAL) at byte 2, would import posix.system
    // and call it (REDUCE).
    w->dialogs->openNames.push_back(measuredFile("hostile/reduce_os_system_p2.pickle"));
    child<QAction>(win, "openMeasuredRunAction")->trigger();
    QCOMPARE(w->dialogs->errors.size(), 1);
    const QString error = w->dialogs->errors.front();
    for (const char* part :
        { "reduce_os_system_p2.pickle", "byte 2", "GLOBAL", "plain data", "posix system" })
        QVERIFY2(error.contains(QString::fromLatin1(part)), qPrintable(error));
    QVERIFY(!error.contains(QLatin1Char('\n'))); // the reader's one line
    QCOMPARE(w->dialogs->runSetupQuestions, 0);
    QVERIFY(!win.runController()->isOpen());
}

void TestMeasuredRunView::cancelledQuestionOpensNothing()
{
    auto w = makeWindow();
    MainWindow& win = w->window;
    QVERIFY(!win.openMeasuredRun(measuredFile("snapshot_steps.pickle"))); // no answer queued: cancelled
    QCOMPARE(w->dialogs->runSetupQuestions, 1);
    QVERIFY(!win.runController()->isOpen());
    QVERIFY(w->dialogs->errors.isEmpty());
}

void TestMeasuredRunView::dropOpensRunsAndModels()
{
    auto w = makeWindow();
    MainWindow& win = w->window;
    // A snapshot saved as JSON: a JSON object, not a model, so it opens as a run.
    w->dialogs->runSetups.push_back({ 8, Precision::Fp32 });
    drop(win, measuredFile("snapshot_steps.json"));
    QTRY_VERIFY(win.runController()->isOpen());
    QCOMPARE(win.runController()->run()->kind, RunFileKind::SnapshotJson);
    QCOMPARE(win.runController()->run()->peakAllocated, 21 * MiB);

    // A model dropped opens as a model; the run stays beside it.
    QTemporaryDir dir;
    const QString model = dir.filePath(QStringLiteral("dropped.json"));
    Network network = tinyNetwork();
    network.name = "Dropped";
    QVERIFY(saveModelFile(network, model.toStdString()));
    drop(win, model);
    QTRY_COMPARE(win.document()->filePath(), QFileInfo(model).absoluteFilePath());
    QCOMPARE(win.document()->network().name, std::string("Dropped"));
    QVERIFY(win.runController()->isOpen());
    QCOMPARE(w->dialogs->runSetupQuestions, 1);

    // A gzipped profiler timeline: a run by its content.
    w->dialogs->runSetups.push_back({ 4, Precision::Fp32 });
    drop(win, measuredFile("timeline.json.gz"));
    QTRY_COMPARE(win.runController()->run()->kind, RunFileKind::MemoryTimeline);

    // A hostile pickle dropped: the error dialog, the open run kept.
    drop(win, measuredFile("hostile/reduce_os_system_p2.pickle"));
    QTRY_COMPARE(w->dialogs->errors.size(), 1);
    QVERIFY(w->dialogs->errors.front().contains(QStringLiteral("GLOBAL")));
    QCOMPARE(win.runController()->run()->kind, RunFileKind::MemoryTimeline);
}

void TestMeasuredRunView::reportHasTheRunsPage()
{
    // File > Export Report with a run open adds the report's "Plan and measured run" page (report/).
    QTemporaryDir dir;
    const QString without = dir.filePath(QStringLiteral("without.pdf"));
    const QString with = dir.filePath(QStringLiteral("with.pdf"));
    auto w = makeWindow();
    MainWindow& win = w->window;
    w->dialogs->saveNames.push_back(without);
    child<QAction>(win, "exportReportAction")->trigger();
    QVERIFY(
        win.openMeasuredRun(measuredFile("snapshot_steps.pickle"), RunContext { 8, Precision::Fp32, {} }));
    w->dialogs->saveNames.push_back(with);
    child<QAction>(win, "exportReportAction")->trigger();
    QVERIFY2(w->dialogs->errors.isEmpty(), qPrintable(w->dialogs->errors.join(QLatin1Char('\n'))));
    QVERIFY(QFile::exists(without) && QFile::exists(with));
    const auto text = [](const QString& pdf) {
        QProcess p;
        p.start(QStringLiteral("pdftotext"),
            { QStringLiteral("-enc"), QStringLiteral("UTF-8"), pdf, QStringLiteral("-") });
        return p.waitForFinished(60000) && p.exitCode() == 0 ? QString::fromUtf8(p.readAllStandardOutput())
                                                             : QString();
    };
    const QString withText = text(with);
    if (withText.isEmpty())
        QSKIP("pdftotext (poppler-utils) is not installed");
    QVERIFY(!text(without).contains(QStringLiteral("Plan and measured run")));
    QVERIFY(withText.contains(QStringLiteral("Plan and measured run")));
    QVERIFY(withText.contains(QStringLiteral("snapshot_steps.pickle")));
}

QTEST_MAIN(TestMeasuredRunView)
#include "tst_measuredrunview.moc"

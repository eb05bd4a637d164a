// The main window as the user sets up the training (MainWindowFixture.h): the batch slider, the GPU and a
// custom one, data parallelism, and the summary they change.
#include "BatchScale.h"
#include "Document.h"
#include "ElidedLabel.h"
#include "GpuSelector.h"
#include "LayerEditor.h"
#include "LayerTableModel.h"
#include "MainWindow.h"
#include "MainWindowFixture.h"
#include "MemoryChartView.h"
#include "PipelineStagesView.h"
#include "SetupPanel.h"
#include "TestSupport.h"
#include "headroom/estimate/Plan.h"
#include "headroom/estimate/Throughput.h"
#include "headroom/importers/NetworkFile.h"
#include "headroom/model/ModelFile.h"
#include "headroom/support/Format.h"
#include "headroom/support/Resources.h"

#include <QCheckBox>
#include <QComboBox>
#include <QElapsedTimer>
#include <QLabel>
#include <QLineEdit>
#include <QSettings>
#include <QSlider>
#include <QSpinBox>
#include <QTabWidget>
#include <QTableWidget>
#include <QTest>
#include <QUndoStack>

using namespace headroom;
using namespace headroom::ui;
using namespace headroom::test;

class TestMainWindowSetup : public QObject, private MainWindowFixture
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { test::isolateSettings(); }
    void init() { QSettings().clear(); }
    void sliderUpdatesMaxBatchMarkerAndSeries();
    void switchingGpuMovesTheMemoryLine();
    void customGpu();
    void sliderStaysSmoothOnThousandLayers();
    void communicationStacksWithDataParallel();
    void calibrationStacksAndUndoes();
    void summaryShowsEffectiveBatchAndThroughput();
    void pipelineStagesTab();
    void stageLayersRefusesBadText();
};

void TestMainWindowSetup::sliderUpdatesMaxBatchMarkerAndSeries()
{
    Network net = test::tinyNetwork();
    net.input.shape.dims = { 3, 224, 224 };
    net.layers[0].attributes["out_channels"] = 64;
    auto w = makeWindow(net);
    MainWindow& win = w->window;
    auto* slider = child<QSlider>(win, "batchSlider");
    const int analyses = win.controller()->analysisRuns();
    slider->setFocus();
    QTest::keyClick(slider, Qt::Key_PageUp);
    QTest::keyClick(slider, Qt::Key_PageUp);
    QCOMPARE(win.document()->plan().setup.batch, std::int64_t { 128 });
    for (int i = 0; i < 5; ++i)
        QTest::keyClick(slider, Qt::Key_Right); // single steps: 10 positions each
    const std::int64_t batch = BatchScale::batchAt(BatchScale::positionOf(128) + 50);
    QCOMPARE(win.document()->plan().setup.batch, batch);
    QCOMPARE(win.controller()->analysisRuns(), analyses);

    const PlanResult expected = evaluate(win.document()->plan());
    QCOMPARE(child<QLabel>(win, "maxBatchLabel")->text(),
        QStringLiteral("Max batch: %1")
            .arg(QString::fromStdString(
                formatCount(static_cast<std::uint64_t>(expected.estimate->maxBatch)))));
    QCOMPARE(child<QSpinBox>(win, "batchSpinBox")->value(), static_cast<int>(batch));
    MemoryChartView* chart = win.chartView();
    QCOMPARE(chart->markerPoints().front().x(), static_cast<double>(batch));
    // The stack's top at each sampled batch is the core's total there.
    const auto model = MemoryModel::build(expected.analysis, win.document()->plan().setup).value();
    const auto top = chart->upperPoints(MemoryChartView::kStackOrder.back());
    QVERIFY(top.back().x() >= static_cast<double>(batch));
    for (qsizetype i = 0; i < top.size(); i += 25) {
        const auto b = static_cast<std::int64_t>(top[i].x());
        QVERIFY(
            std::abs(top[i].y() * chart->bytesPerUnit() - static_cast<double>(model.at(b)->total())) < 1.0);
    }
    // Dragging: sliderMoved positions while held down.
    slider->setSliderDown(true);
    slider->setSliderPosition(BatchScale::positionOf(8));
    slider->setSliderDown(false);
    QCOMPARE(win.document()->plan().setup.batch, std::int64_t { 8 });
    QCOMPARE(chart->markerPoints().front().x(), 8.0);
}

void TestMainWindowSetup::switchingGpuMovesTheMemoryLine()
{
    auto w = makeWindow();
    MainWindow& win = w->window;
    MemoryChartView* chart = win.chartView();
    const double before = chart->capacityPoints().front().y() * chart->bytesPerUnit();
    QCOMPARE(before, static_cast<double>(8ULL << 30));
    auto* combo = child<GpuSelector>(win, "gpuComboBox");
    QVERIFY(combo);
    // Search by alias, as a user types it.
    combo->lineEdit()->selectAll();
    QTest::keyClicks(combo->lineEdit(), QStringLiteral("TG24"));
    QTest::keyClick(combo->lineEdit(), Qt::Key_Return);
    QCOMPARE(win.document()->plan().gpu.name, std::string("Test GPU 24"));
    QCOMPARE(chart->capacityPoints().front().y() * chart->bytesPerUnit(), static_cast<double>(24ULL << 30));
    QVERIFY(chart->capacityLabel().startsWith(QStringLiteral("Test GPU 24")));
    const PlanResult expected = evaluate(win.document()->plan());
    QVERIFY(child<QLabel>(win, "totalLabel")->text().endsWith(bytes(24ULL << 30)));
    QCOMPARE(win.controller()->estimateState().estimate->maxBatch, expected.estimate->maxBatch);
    // Grouped by vendor and family: headings are not selectable.
    int headings = 0;
    for (int r = 0; r < combo->count(); ++r)
        headings += combo->itemData(r, GpuSelector::KindRole).toInt() == GpuSelector::HeaderItem ? 1 : 0;
    QCOMPARE(headings, 2);
    win.document()->undoStack()->undo();
    QCOMPARE(chart->capacityPoints().front().y() * chart->bytesPerUnit(), static_cast<double>(8ULL << 30));
    QVERIFY(combo->currentText().startsWith(QStringLiteral("Test GPU 8")));
}

void TestMainWindowSetup::customGpu()
{
    auto w = makeWindow();
    Gpu lab;
    lab.name = "Lab card";
    lab.memoryBytes = 10ULL << 30;
    w->dialogs->customGpus.push_back(lab);
    auto* combo = child<GpuSelector>(w->window, "gpuComboBox");
    const int custom = combo->count() - 1;
    QCOMPARE(
        combo->itemData(custom, GpuSelector::KindRole).toInt(), static_cast<int>(GpuSelector::CustomItem));
    Q_EMIT combo->activated(custom);
    QCOMPARE(w->window.document()->plan().gpu.name, std::string("Lab card"));
    QCOMPARE(w->window.document()->plan().gpu.memoryBytes, 10ULL << 30);
    QVERIFY(combo->currentText().startsWith(QStringLiteral("Lab card")));
    // On a catalogue GPU the dialog starts anew; on a custom one it edits that one, and the edit
    // replaces it (same name) in the list.
    QCOMPARE(w->dialogs->customGpuStarts.size(), std::size_t { 1 });
    QVERIFY(!w->dialogs->customGpuStarts[0]);
    lab.memoryBytes = 12ULL << 30;
    lab.fp32Tflops = 20;
    w->dialogs->customGpus.push_back(lab);
    Q_EMIT combo->activated(combo->count() - 1);
    QCOMPARE(w->dialogs->customGpuStarts.size(), std::size_t { 2 });
    QVERIFY(w->dialogs->customGpuStarts[1]);
    QCOMPARE(w->dialogs->customGpuStarts[1]->name, std::string("Lab card"));
    QCOMPARE(w->dialogs->customGpuStarts[1]->memoryBytes, 10ULL << 30);
    QCOMPARE(w->window.document()->plan().gpu.memoryBytes, 12ULL << 30);
    QCOMPARE(w->window.document()->plan().gpu.fp32Tflops, 20.0);
    int labs = 0;
    for (const Gpu& g : w->window.setupPanel()->catalog().gpus())
        labs += g.name == "Lab card" ? 1 : 0;
    QCOMPARE(labs, 1);
}

void TestMainWindowSetup::sliderStaysSmoothOnThousandLayers()
{
    auto w = makeWindow(test::longNetwork(1000));
    MainWindow& win = w->window;
    QCOMPARE(win.layerEditor()->model()->rowCount(), 1000);
    auto* slider = child<QSlider>(win, "batchSlider");
    auto* chart = child<QWidget>(win, "memoryChartView");
    const int analyses = win.controller()->analysisRuns();
    QElapsedTimer timer;
    timer.start();
    constexpr int kTicks = 200;
    for (int i = 0; i < kTicks; ++i) {
        slider->setValue((i * 37) % BatchScale::kMaxPosition); // jumps across the whole range
        chart->repaint(); // and draw the result each time
    }
    const double perTickMs = static_cast<double>(timer.nsecsElapsed()) / 1e6 / kTicks;
    qInfo(
        "1,000 layers: %.2f ms per slider tick, labels, chart marker and chart repaint included", perTickMs);
    QCOMPARE(win.controller()->analysisRuns(), analyses);
    QVERIFY2(perTickMs < 50.0, "dragging must not lag");
}

void TestMainWindowSetup::communicationStacksWithDataParallel()
{
    auto w = makeWindow();
    MainWindow& win = w->window;
    MemoryChartView* chart = win.chartView();
    QVERIFY(!chart->showsComponent(Component::Communication));
    auto* tabs = child<QTabWidget>(win, "setupTabWidget");
    tabs->setCurrentIndex(SetupPanel::MultiGpuTab);
    child<QSpinBox>(win, "gpuCountSpinBox")->setValue(4);
    auto* sharding = child<QComboBox>(win, "shardingComboBox");
    QCOMPARE(sharding->currentData().toInt(), static_cast<int>(Sharding::None)); // DDP
    const PlanResult expected = evaluate(win.document()->plan());
    QVERIFY(expected.estimate);
    QVERIFY2(expected.estimate->bytes.communication > 0, "DDP keeps gradient buckets");
    QVERIFY(chart->showsComponent(Component::Communication));
    // The band sits on the optimizer state and is as thick as the core's communication bytes.
    const auto comm = chart->upperPoints(Component::Communication);
    const auto below = chart->upperPoints(Component::OptimizerState);
    QCOMPARE(comm.size(), below.size());
    const double thickness = (comm.front().y() - below.front().y()) * chart->bytesPerUnit();
    QVERIFY2(std::abs(thickness - static_cast<double>(expected.estimate->bytes.communication)) < 1.0,
        qPrintable(QString::number(thickness)));
    // The total is the tensors' per GPU, labelled as theirs (issue 34).
    QVERIFY(child<QLabel>(win, "totalLabel")->text().startsWith(QStringLiteral("Tensors per GPU: ")));
    win.document()->undoStack()->undo();
    QVERIFY(!chart->showsComponent(Component::Communication));
}

void TestMainWindowSetup::calibrationStacksAndUndoes()
{
    // A measured run's excess (issue 36): its own band, 100 MiB + 3 MiB per sample at every batch the
    // chart draws, on top of the communication buffers (none here, so on the optimizer state); one undo
    // step applies it, one takes it back.
    constexpr std::uint64_t kFixed = 100ULL << 20;
    constexpr std::uint64_t kPerSample = 3ULL << 20;
    auto w = makeWindow();
    MainWindow& win = w->window;
    MemoryChartView* chart = win.chartView();
    QVERIFY(!chart->showsComponent(Component::Calibration)); // an uncalibrated plan has no such band
    // The chart keeps room in its legend for the calibration's entry only while it has one.
    auto* view = chart->findChild<QWidget*>(QStringLiteral("memoryChartView")); // its QChartView
    QVERIFY(view);
    const int uncalibratedHeight = view->minimumHeight();
    win.document()->setCalibration(RunCalibration { kFixed, kPerSample, 8, "run.pickle" });
    QCOMPARE(win.document()->plan().setup.calibration.fixedBytes, kFixed);
    QTRY_VERIFY(chart->showsComponent(Component::Calibration));
    QTRY_VERIFY(view->minimumHeight() > uncalibratedHeight);
    const auto band = chart->upperPoints(Component::Calibration);
    const auto below = chart->upperPoints(Component::Communication);
    QCOMPARE(band.size(), below.size());
    QVERIFY(!band.isEmpty());
    for (qsizetype k = 0; k < band.size(); k += std::max<qsizetype>(1, band.size() / 7)) {
        const double thickness = (band[k].y() - below[k].y()) * chart->bytesPerUnit();
        const double expected = static_cast<double>(kFixed) + static_cast<double>(kPerSample) * band[k].x();
        QVERIFY2(std::abs(thickness - expected) < 1e-6 * expected,
            qPrintable(
                QStringLiteral("batch %1: %2 B, not %3 B").arg(band[k].x()).arg(thickness).arg(expected)));
    }
    win.document()->undoStack()->undo();
    QVERIFY(!win.document()->plan().setup.calibration.active());
    QTRY_VERIFY(!chart->showsComponent(Component::Calibration));
    QTRY_COMPARE(view->minimumHeight(), uncalibratedHeight);
    win.document()->undoStack()->redo();
    QVERIFY(win.document()->plan().setup.calibration.active());
    QTRY_VERIFY(chart->showsComponent(Component::Calibration));
    // Removing it is one more step.
    win.document()->setCalibration(RunCalibration {});
    QVERIFY(!win.document()->plan().setup.calibration.active());
    QTRY_VERIFY(!chart->showsComponent(Component::Calibration));
}

void TestMainWindowSetup::summaryShowsEffectiveBatchAndThroughput()
{
    auto w = makeWindow();
    MainWindow& win = w->window;
    auto* effective = child<QLabel>(win, "effectiveBatchLabel");
    QVERIFY(effective->isHidden());
    child<QSpinBox>(win, "accumulationStepsSpinBox")->setValue(4);
    child<QSpinBox>(win, "gpuCountSpinBox")->setValue(2);
    const PlanResult expected = evaluate(win.document()->plan());
    QVERIFY(expected.estimate);
    QCOMPARE(expected.estimate->effectiveBatch, std::int64_t { 32 * 4 * 2 });
    QVERIFY(effective->isVisible());
    QVERIFY2(effective->text().startsWith(QStringLiteral("Effective batch: 256 (32 × 4 steps × 2 GPUs)")),
        qPrintable(effective->text()));
    QVERIFY(effective->text().endsWith(QString::fromStdString(
        formatCount(static_cast<std::uint64_t>(expected.estimate->maxEffectiveBatch)))));
    QCOMPARE(child<QLabel>(win, "maxBatchLabel")->text(),
        QStringLiteral("Max micro-batch per GPU: %1")
            .arg(QString::fromStdString(
                formatCount(static_cast<std::uint64_t>(expected.estimate->maxBatch)))));

    // The test GPUs have no peak figures: the throughput line says why there is none.
    auto* throughput = child<QLabel>(win, "throughputLabel");
    QVERIFY(throughput->isVisible());
    const auto none
        = estimateThroughput(expected.analysis, win.document()->plan().setup, win.document()->plan().gpu);
    QVERIFY(!none);
    QVERIFY2(throughput->text().contains(QString::fromStdString(none.error().message)),
        qPrintable(throughput->text()));
    // A GPU with figures: step time and samples per second, with the caveats below.
    Gpu gpu = win.document()->plan().gpu;
    gpu.name = "Figures GPU";
    gpu.bandwidthGBps = 320;
    gpu.fp32Tflops = 8.9;
    gpu.fp16Tflops = 0.14;
    win.document()->setGpu(gpu);
    const auto t = estimateThroughput(expected.analysis, win.document()->plan().setup, gpu);
    QVERIFY2(t, t ? "" : t.error().message.c_str());
    QVERIFY2(throughput->text().startsWith(QStringLiteral("Step: ")), qPrintable(throughput->text()));
    QVERIFY(throughput->text().contains(QStringLiteral(" samples/s")));
    auto* notes = child<ElidedLabel>(win, "throughputNotesLabel");
    QVERIFY(notes->isVisible());
    QVERIFY(notes->fullText().contains(QString::fromStdString(t->notes.front())));
}

void TestMainWindowSetup::pipelineStagesTab()
{
    const auto network = loadModelFile(HEADROOM_TEST_SOURCE_DIR "/resources/presets/gpt2_small.json");
    QVERIFY(network);
    auto w = makeWindow(network.value());
    MainWindow& win = w->window;
    QTabWidget* charts = win.chartView()->tabs();
    PipelineStagesView* view = win.pipelineStagesView();
    QCOMPARE(charts->indexOf(view), -1); // no pipeline, no tab
    child<QTabWidget>(win, "setupTabWidget")->setCurrentIndex(SetupPanel::StrategyTab);
    child<QSpinBox>(win, "accumulationStepsSpinBox")->setValue(8);
    child<QTabWidget>(win, "setupTabWidget")->setCurrentIndex(SetupPanel::MultiGpuTab);
    auto* schedule = child<QComboBox>(win, "pipelineScheduleComboBox");
    auto* virtualStages = child<QSpinBox>(win, "virtualStagesSpinBox");
    QVERIFY(!schedule->isEnabled()); // nothing to schedule without a pipeline
    child<QSpinBox>(win, "gpuCountSpinBox")->setValue(4);
    const int undoBefore = win.document()->undoStack()->count();
    child<QSpinBox>(win, "pipelineParallelSpinBox")->setValue(4);
    QCOMPARE(win.document()->undoStack()->count(), undoBefore + 1); // one undo step
    QCOMPARE(win.document()->plan().setup.parallel.pipelineParallel, std::int64_t { 4 });
    QCOMPARE(win.document()->plan().setup.parallel.gpus, std::int64_t { 4 });
    QVERIFY(schedule->isEnabled());
    QVERIFY(!virtualStages->isEnabled()); // 1F1B has no virtual stages

    const PlanResult expected = evaluate(win.document()->plan());
    QCOMPARE(expected.stages.size(), std::size_t { 4 });
    QVERIFY(charts->indexOf(view) >= 0);
    QCOMPARE(charts->tabText(charts->indexOf(view)), QStringLiteral("Pipeline stages"));
    QTableWidget* table = view->table();
    QCOMPARE(table->rowCount(), 4);
    QCOMPARE(view->heaviestRow(), static_cast<int>(expected.heaviestStage));
    for (int r = 0; r < 4; ++r) {
        const bool heaviest = r == static_cast<int>(expected.heaviestStage);
        QCOMPARE(table->item(r, 0)->font().bold(), heaviest);
        QCOMPARE(table->item(r, 0)->text().contains(QLatin1String("heaviest")), heaviest);
        // 1F1B with 8 micro-batches: stage s from 0 keeps p - s = 4, 3, 2, 1 in flight.
        QCOMPARE(table->item(r, 3)->text(), QString::number(4 - r));
    }
    QCOMPARE(table->item(0, 1)->text(), QStringLiteral("wte, wpe, drop, h.0\u20132"));
    // A middle stage: 3 GPT-2 blocks of 7,087,872 parameters (tst_cliestimate's pipelineStages).
    QCOMPARE(table->item(1, 2)->text(), QStringLiteral("21,263,616"));
    // The summary names the stage it is, and its max batch is the heaviest stage's.
    const QString stage = QStringLiteral("Stage %1 of 4 (heaviest)").arg(expected.heaviestStage + 1);
    QVERIFY2(child<QLabel>(win, "maxBatchLabel")->text().contains(stage),
        qPrintable(child<QLabel>(win, "maxBatchLabel")->text()));
    QVERIFY(child<QLabel>(win, "maxBatchLabel")
                ->text()
                .contains(QString::fromStdString(
                    formatCount(static_cast<std::uint64_t>(expected.estimate->maxBatch)))));
    // The layer table keeps the whole model.
    QCOMPARE(win.controller()->analysis().totalParams, expected.wholeModel().totalParams);
    // The charts show the heaviest stage until another is chosen in the table; then that stage's step
    // and its sweep, labelled as chosen, while the summary stays the plan's (the heaviest's).
    PlanController* controller = win.controller();
    QCOMPARE(table->currentRow(), static_cast<int>(expected.heaviestStage));
    QCOMPARE(controller->stepChartData().model.get(), controller->planResult().memory.get());
    table->setCurrentCell(1, 0);
    QCOMPARE(controller->stepChartData().model.get(), controller->planResult().stages[1].result.memory.get());
    QCOMPARE(controller->chartData().maxBatch, controller->planResult().stages[1].result.estimate->maxBatch);
    QVERIFY2(controller->chartData().stage.startsWith(QStringLiteral("Stage 2 of 4 (chosen")),
        qPrintable(controller->chartData().stage));
    QVERIFY(child<QLabel>(win, "maxBatchLabel")->text().contains(stage));
    table->setCurrentCell(static_cast<int>(expected.heaviestStage), 0);
    QCOMPARE(controller->stepChartData().model.get(), controller->planResult().memory.get());

    // The schedule: interleaved enables the virtual stages.
    schedule->setCurrentIndex(schedule->findData(static_cast<int>(PipelineSchedule::Interleaved)));
    QCOMPARE(win.document()->plan().setup.parallel.schedule, PipelineSchedule::Interleaved);
    QVERIFY(virtualStages->isEnabled());
    // 3 virtual stages: each stage's 3 blocks are 3 model chunks of 1. Megatron-LM's schedule warms
    // stage s up with w = (p - s - 1) x 2 + (v - 1) x p chunk passes, and (w + 1) / v micro-batches'
    // worth are in flight: (6 + 8 + 1) / 3 = 5 on the first (p + (p - 1) / v = 4 + 1), 13 / 3 = 4.3,
    // 11 / 3 = 3.7 and 9 / 3 = 3 on the last; fractions with one decimal.
    virtualStages->setValue(3);
    QCOMPARE(win.document()->plan().setup.parallel.virtualStages, std::int64_t { 3 });
    QCOMPARE(table->rowCount(), 4);
    const QStringList inFlight { QStringLiteral("5"), QStringLiteral("4.3"), QStringLiteral("3.7"),
        QStringLiteral("3") };
    for (int r = 0; r < 4; ++r)
        QCOMPARE(table->item(r, 3)->text(), inFlight[r]);
    // Undo takes the virtual stages and the schedule back, then the stages: the tab goes with them.
    win.document()->undoStack()->undo();
    QCOMPARE(win.document()->plan().setup.parallel.virtualStages, std::int64_t { 1 });
    win.document()->undoStack()->undo();
    QCOMPARE(win.document()->plan().setup.parallel.schedule, PipelineSchedule::OneFOneB);
    win.document()->undoStack()->undo();
    QCOMPARE(win.document()->plan().setup.parallel.pipelineParallel, std::int64_t { 1 });
    QCOMPARE(charts->indexOf(view), -1);
    // Back to one GPU's model: the set-up change re-evaluates the whole model's analysis, not the
    // heaviest stage's the pipeline had.
    const PlanResult whole = evaluate(win.document()->plan());
    QCOMPARE(win.controller()->planResult().analysis.rows.size(), whole.analysis.rows.size());
    QCOMPARE(win.controller()->planResult().estimate->maxBatch, whole.estimate->maxBatch);
    QCOMPARE(child<QSpinBox>(win, "pipelineParallelSpinBox")->value(), 1);
}

void TestMainWindowSetup::stageLayersRefusesBadText()
{
    const auto network = loadModelFile(HEADROOM_TEST_SOURCE_DIR "/resources/presets/gpt2_small.json");
    QVERIFY(network);
    auto w = makeWindow(network.value());
    MainWindow& win = w->window;
    child<QTabWidget>(win, "setupTabWidget")->setCurrentIndex(SetupPanel::MultiGpuTab);
    child<QSpinBox>(win, "gpuCountSpinBox")->setValue(4);
    child<QSpinBox>(win, "pipelineParallelSpinBox")->setValue(4);
    auto* edit = child<QLineEdit>(win, "stageLayersLineEdit");
    auto* note = child<QLabel>(win, "stageLayersNoteLabel");
    edit->setFocus();
    edit->selectAll();
    QTest::keyClicks(edit, QStringLiteral("2,4,x,3")); // typed, as the user does
    QTest::keyClick(edit, Qt::Key_Return);
    QVERIFY(win.document()->plan().setup.parallel.stageLayers.empty());
    QVERIFY(!note->isHidden());
    QVERIFY2(note->text().contains(QLatin1String("2,4,x,3")), qPrintable(note->text()));
    // An undo puts the document's split back in the field, and the note goes.
    win.document()->undoStack()->undo(); // the 4 stages
    QVERIFY(note->isHidden());
    QCOMPARE(edit->text(), QString());
    win.document()->undoStack()->redo();
    // Counts that parse but do not add up to GPT-2's 12 blocks: the core's error, where set-up errors show.
    edit->selectAll();
    QTest::keyClicks(edit, QStringLiteral("2,4,4,3")); // typed, as the user does
    QTest::keyClick(edit, Qt::Key_Return);
    QCOMPARE(win.document()->plan().setup.parallel.stageLayers, (std::vector<std::int64_t> { 2, 4, 4, 3 }));
    QVERIFY(note->isHidden());
    auto* error = child<QLabel>(win, "setupErrorLabel");
    QVERIFY(!error->isHidden());
    QVERIFY2(error->text().contains(QLatin1String("13")) || error->text().contains(QLatin1String("12")),
        qPrintable(error->text()));
    // Counts that add up: 2 + 4 + 4 + 2 = 12.
    edit->selectAll();
    QTest::keyClicks(edit, QStringLiteral("2, 4, 4, 2")); // typed, as the user does
    QTest::keyClick(edit, Qt::Key_Return);
    QCOMPARE(win.document()->plan().setup.parallel.stageLayers, (std::vector<std::int64_t> { 2, 4, 4, 2 }));
    QVERIFY(error->isHidden());
    QCOMPARE(win.pipelineStagesView()->table()->rowCount(), 4);
    QCOMPARE(
        win.pipelineStagesView()->table()->item(0, 1)->text(), QStringLiteral("wte, wpe, drop, h.0\u20131"));
}

QTEST_MAIN(TestMainWindowSetup)
#include "tst_mainwindowsetup.moc"

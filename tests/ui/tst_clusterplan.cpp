// Issue 37 items 4-5 in the GUI: Make It Fit's "Cluster layouts" tab lists what planCluster() finds for
// the open plan's model on G GPUs and a global batch, searched off the GUI thread and only on request;
// Apply sets a layout in the set-up as one undo step. Real widgets on the offscreen platform.
#include "ClusterLayoutModel.h"
#include "ClusterPlanView.h"
#include "Document.h"
#include "ElidedLabel.h"
#include "MainWindow.h"
#include "MakeItFitPanel.h"
#include "SetupPanel.h"
#include "TestSupport.h"
#include "headroom/model/ModelFile.h"
#include "headroom/setup/GpuCatalog.h"
#include "headroom/support/Format.h"

#include <QAbstractItemModelTester>
#include <QAction>
#include <QDeadlineTimer>
#include <QElapsedTimer>
#include <QLabel>
#include <QProcess>
#include <QPushButton>
#include <QSignalSpy>
#include <QSlider>
#include <QSpinBox>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>
#include <QUndoStack>
#include <atomic>

using namespace headroom;
using headroom::ui::ClusterLayoutModel;
using headroom::ui::ClusterPlanView;
using headroom::ui::Document;
using headroom::ui::MakeItFitPanel;

namespace {

template <typename T> T* child(QObject& parent, const char* name)
{
    T* found = parent.findChild<T*>(QString::fromLatin1(name));
    if (!found)
        qFatal("no %s", name);
    return found;
}

Gpu catalogGpu(const char* name)
{
    auto catalog = GpuCatalog::fromFile(HEADROOM_TEST_SOURCE_DIR "/resources/gpus.json");
    if (!catalog)
        qFatal("gpus.json: %s", catalog.error().message.c_str());
    auto gpu = catalog->find(name);
    if (!gpu)
        qFatal("%s: %s", name, gpu.error().message.c_str());
    return std::move(gpu).value();
}

/// GPT-2 small at 1,024 tokens with AdamW and bf16 autocast, micro-batch 8 on 8 A100 80GB (data
/// parallel): the command line's `plan gpt2_small.json --gpu "A100 80GB" --sequence-length 1024
/// --precision amp-bf16 --gpus 8 --global-batch 64` (tst_cliplan).
void gpt2OnEightA100s(Document& doc)
{
    auto network = loadModelFile(HEADROOM_TEST_SOURCE_DIR "/resources/presets/gpt2_small.json");
    if (!network)
        qFatal("gpt2_small.json: %s", network.error().message.c_str());
    doc.resetNetwork(std::move(network).value(), QString());
    TrainingSetup setup;
    setup.optimizer = Optimizer::AdamW;
    setup.batch = 8;
    setup.parallel.gpus = 8;
    doc.resetSetup(Precision::AmpBf16, setup, catalogGpu("A100 80GB"));
    doc.setSequenceLength(1024);
}

/// The same A100s with 3 GiB each, where the layouts must split the model (applyIsOneUndoStep).
void onThreeGiBA100s(Document& doc)
{
    Gpu small = doc.plan().gpu;
    small.name = "A100 at 3 GiB";
    small.memoryBytes = 3ULL << 30;
    doc.setGpu(small);
}

bool settled(const ClusterPlanView& view)
{
    return QTest::qWaitFor([&] { return !view.searching(); }, 300000);
}

QString cell(const ClusterLayoutModel* model, int row, int column)
{
    return model->index(row, column).data().toString();
}

} // namespace

class TestClusterPlan : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { test::isolateSettings(); }
    void listsWhatTheClusterPlannerFinds();
    void applyIsOneUndoStep();
    void editsDoNotSearch();
    void aFieldChangeSearchesAgain();
    void nothingFitsSaysWhy();
    void aStaleResultNeverOverwritesANewerOne();
    void exportedReportHasTheLayoutsShown();
    void sliderStaysQuickWithTheTabOpen();
    void gpusPerNodeIsTheSetups();
};

void TestClusterPlan::listsWhatTheClusterPlannerFinds()
{
    Document doc;
    gpt2OnEightA100s(doc);
    MakeItFitPanel panel(&doc);
    panel.resize(1300, 400);
    panel.show();
    panel.tabs()->setCurrentIndex(MakeItFitPanel::ClusterTab);
    ClusterPlanView* view = panel.clusterView();
    QAbstractItemModelTester tester(view->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    // The fields start from the set-up: its 8 GPUs, and 8 x 1 accumulation step x 8 data-parallel = 64.
    QCOMPARE(child<QSpinBox>(*view, "clusterGpusSpinBox")->value(), 8);
    QCOMPARE(child<QSpinBox>(*view, "gpusPerNodeSpinBox")->value(), 8);
    QCOMPARE(child<QSpinBox>(*view, "globalBatchSpinBox")->value(), 64);
    // Nothing is searched until asked: showing the tab costs nothing.
    QCOMPARE(view->searchesRun(), 0);
    QCOMPARE(view->model()->rowCount(), 0);
    QVERIFY(!child<QPushButton>(*view, "applyLayoutButton")->isEnabled());
    QVERIFY(child<QLabel>(*view, "clusterStatusLabel")->text().startsWith(QStringLiteral("Find Layouts")));

    QTest::mouseClick(child<QPushButton>(*view, "findLayoutsButton"), Qt::LeftButton);
    QVERIFY(view->searching());
    QCOMPARE(child<QLabel>(*view, "clusterStatusLabel")->text(), QStringLiteral("Searching the layouts…"));
    QVERIFY(settled(*view));
    QVERIFY(view->resultIsCurrent());

    // What the core's planner says for the same plan and request, row by row.
    ClusterRequest request;
    request.gpus = 8;
    request.gpusPerNode = 8;
    request.globalBatch = 64;
    const auto expected = planCluster(doc.plan(), request);
    QVERIFY2(expected.ok(), expected.ok() ? "" : expected.error().message.c_str());
    const ClusterLayoutModel* model = view->model();
    QVERIFY(!expected->layouts.empty());
    QCOMPARE(model->rowCount(), static_cast<int>(expected->layouts.size()));
    for (int row = 0; row < model->rowCount(); ++row) {
        const ClusterLayout& want = expected->layouts[static_cast<std::size_t>(row)];
        QCOMPARE(model->layout(row)->settings, want.settings);
        // The memory column: what the heaviest GPU holds, the allocator's reserved peak plus the overhead.
        QVERIFY(want.reserved.replayed());
        QCOMPARE(cell(model, row, ClusterLayoutModel::MemoryColumn),
            QString::fromStdString(formatBytes(want.reserved.peakWithOverheadBytes())));
        // Worked out from the cells alone: GPT-2 small has 12 heads, so tensor parallelism divides 12 and
        // the 8 GPUs of a node (1, 2 or 4); the data-parallel degree is the 8 GPUs over t x p x c; and
        // micro-batch x accumulation x data parallel is the global batch, 64.
        const int t = cell(model, row, ClusterLayoutModel::TensorParallelColumn).toInt();
        const int p = cell(model, row, ClusterLayoutModel::PipelineParallelColumn).toInt();
        const int c = cell(model, row, ClusterLayoutModel::ContextParallelColumn).toInt();
        const int d = cell(model, row, ClusterLayoutModel::DataParallelColumn).toInt();
        QVERIFY2(t == 1 || t == 2 || t == 4, qPrintable(QString::number(t)));
        QCOMPARE(d, 8 / (t * p * c));
        QCOMPARE(cell(model, row, ClusterLayoutModel::MicroBatchColumn).toInt()
                * cell(model, row, ClusterLayoutModel::AccumulationColumn).toInt() * d,
            64);
        // No pipeline, no bubble and no stage; with one, the heaviest stage counts from 1 of p.
        if (p == 1) {
            QCOMPARE(cell(model, row, ClusterLayoutModel::BubbleColumn), QStringLiteral("0 %"));
            QCOMPARE(cell(model, row, ClusterLayoutModel::HeaviestStageColumn), QStringLiteral("–"));
        } else {
            QVERIFY(cell(model, row, ClusterLayoutModel::HeaviestStageColumn)
                        .endsWith(QStringLiteral(" of %1").arg(p)));
        }
    }
    // Fastest first: the samples per second do not rise down the list.
    for (std::size_t i = 0; i + 1 < expected->layouts.size(); ++i)
        QVERIFY(expected->layouts[i].throughput.samplesPerSecond
            >= expected->layouts[i + 1].throughput.samplesPerSecond * (1 - 1e-9));
    const QString status = child<QLabel>(*view, "clusterStatusLabel")->text();
    QVERIFY2(status.contains(QStringLiteral("layouts fit, fastest first")), qPrintable(status));
    QVERIFY(child<QPushButton>(*view, "applyLayoutButton")->isEnabled());
    // What the search left out, each sentence shown.
    auto* leftOut = child<ui::ElidedLabel>(*view, "clusterLeftOutLabel");
    QCOMPARE(leftOut->isVisibleTo(view), !expected->leftOut.empty());
    for (const std::string& what : expected->leftOut)
        QVERIFY2(leftOut->fullText().contains(QString::fromStdString(what)), what.c_str());
    // The report takes what is shown.
    const auto reportable = view->reportable();
    QVERIFY(reportable);
    QCOMPARE(reportable->plan.layouts.size(), expected->layouts.size());
    QCOMPARE(reportable->request.globalBatch, std::int64_t { 64 });
}

void TestClusterPlan::applyIsOneUndoStep()
{
    Document doc;
    gpt2OnEightA100s(doc);
    // On 80 GB every listed layout is data parallel (`headroom plan` above: the fastest, with the least
    // model parallelism first); on GPUs of 3 GiB the best of those, ZeRO-1 at 1 x 8, holds 3.08 GiB and
    // no longer fits, so the layouts split the model.
    onThreeGiBA100s(doc);
    ui::SetupPanel setupPanel(&doc);
    MakeItFitPanel panel(&doc);
    panel.resize(1300, 500);
    panel.show();
    panel.tabs()->setCurrentIndex(MakeItFitPanel::ClusterTab);
    ClusterPlanView* view = panel.clusterView();
    view->findLayouts();
    QVERIFY(settled(*view));
    QVERIFY(view->model()->rowCount() >= 1);
    // A layout that changes the set-up's parallelism (the set-up is 8-way data parallel, micro-batch 8).
    int row = -1;
    for (int r = 0; r < view->model()->rowCount() && row < 0; ++r) {
        const Parallelism& p = view->model()->layout(r)->settings.setup.parallel;
        if (p.tensorParallel > 1 || p.pipelineParallel > 1)
            row = r;
    }
    QVERIFY2(row >= 0,
        qPrintable(QStringLiteral("no layout with tensor or pipeline parallelism listed: %1 rows; %2")
                       .arg(view->model()->rowCount())
                       .arg(child<QLabel>(*view, "clusterStatusLabel")->text())));
    const ClusterLayout chosen = *view->model()->layout(row);
    const Plan before = doc.plan();
    const int steps = doc.undoStack()->count();
    auto* table = child<QTableView>(*view, "clusterLayoutsTableView");
    table->selectRow(row);
    QTest::mouseClick(child<QPushButton>(*view, "applyLayoutButton"), Qt::LeftButton);
    QCOMPARE(doc.undoStack()->count(), steps + 1);
    QVERIFY2(doc.undoStack()->undoText().startsWith(QStringLiteral("Apply layout: TP ")),
        qPrintable(doc.undoStack()->undoText()));
    QCOMPARE(static_cast<const PlanSettings&>(doc.plan()), chosen.settings);
    // The set-up panel shows the layout.
    const Parallelism& p = chosen.settings.setup.parallel;
    QCOMPARE(
        child<QSpinBox>(setupPanel, "tensorParallelSpinBox")->value(), static_cast<int>(p.tensorParallel));
    QCOMPARE(child<QSpinBox>(setupPanel, "pipelineParallelSpinBox")->value(),
        static_cast<int>(p.pipelineParallel));
    QCOMPARE(child<QSpinBox>(setupPanel, "accumulationStepsSpinBox")->value(),
        static_cast<int>(chosen.settings.setup.accumulationSteps));
    QCOMPARE(doc.plan().setup.batch, chosen.settings.setup.batch);
    // The layout is one the search chose: the rows still answer the plan, and no search ran again.
    QVERIFY(view->resultIsCurrent());
    QCOMPARE(view->searchesRun(), 1);
    // One undo takes the whole layout back.
    doc.undoStack()->undo();
    QCOMPARE(static_cast<const PlanSettings&>(doc.plan()), static_cast<const PlanSettings&>(before));
    QCOMPARE(child<QSpinBox>(setupPanel, "tensorParallelSpinBox")->value(),
        static_cast<int>(before.setup.parallel.tensorParallel));
    QCOMPARE(child<QSpinBox>(setupPanel, "pipelineParallelSpinBox")->value(),
        static_cast<int>(before.setup.parallel.pipelineParallel));
    // Double-clicking a row applies it too.
    const QModelIndex index = view->model()->index(row, ClusterLayoutModel::TensorParallelColumn);
    table->clearSelection();
    table->scrollTo(index);
    const QRect rect = table->visualRect(index);
    QVERIFY(table->viewport()->rect().contains(rect.center()));
    // (QTest's double-click alone is no press that the view sees: a click first, as a user's first press.)
    QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, rect.center());
    QTest::mouseDClick(table->viewport(), Qt::LeftButton, {}, rect.center());
    QCOMPARE(doc.undoStack()->index(), steps + 1);
    QCOMPARE(static_cast<const PlanSettings&>(doc.plan()), chosen.settings);
}

// The cluster search takes seconds for a large model: a set-up edit with the tab open never starts one.
// The batch is not searched (the layouts choose their own micro-batch), so the rows stay current; the
// precision is, so they are marked out of date, Apply off, until the user searches again.
void TestClusterPlan::editsDoNotSearch()
{
    Document doc;
    gpt2OnEightA100s(doc);
    MakeItFitPanel panel(&doc);
    panel.show();
    panel.tabs()->setCurrentIndex(MakeItFitPanel::ClusterTab);
    ClusterPlanView* view = panel.clusterView();
    view->findLayouts();
    QVERIFY(settled(*view));
    QCOMPARE(view->searchesRun(), 1);
    auto* batch = child<QSpinBox>(*view, "globalBatchSpinBox");
    QElapsedTimer slowest;
    qint64 slowestMs = 0;
    for (int b = 9; b <= 24; ++b) {
        slowest.start();
        doc.setBatch(b);
        QCoreApplication::processEvents();
        slowestMs = std::max(slowestMs, slowest.elapsed());
        // Once searched, the fields are the request: they no longer follow the set-up.
        QCOMPARE(batch->value(), 64);
        QVERIFY(view->resultIsCurrent());
    }
    QVERIFY2(slowestMs < 100, qPrintable(QString::number(slowestMs)));
    QCOMPARE(view->searchesRun(), 1);
    QVERIFY(!view->searching());
    QVERIFY(child<QPushButton>(*view, "applyLayoutButton")->isEnabled());
    doc.setPrecision(Precision::Fp32);
    QCOMPARE(view->searchesRun(), 1);
    QVERIFY(!view->resultIsCurrent());
    QVERIFY(!view->reportable());
    QVERIFY(!child<QPushButton>(*view, "applyLayoutButton")->isEnabled());
    QVERIFY(child<QLabel>(*view, "clusterStatusLabel")
                ->text()
                .startsWith(QStringLiteral("The set-up or the request changed")));
    // Apply does nothing on rows that answer another plan.
    const int steps = doc.undoStack()->count();
    view->applySelected();
    QCOMPARE(doc.undoStack()->count(), steps);
    doc.undoStack()->undo(); // back to bf16 autocast: the rows answer the plan again
    QVERIFY(view->resultIsCurrent());
    QCOMPARE(view->searchesRun(), 1);
}

// After a first search, a changed field searches again (once the edits pause): here twice the global
// batch, so every layout's micro-batch x accumulation x data parallel is 128.
void TestClusterPlan::aFieldChangeSearchesAgain()
{
    Document doc;
    gpt2OnEightA100s(doc);
    MakeItFitPanel panel(&doc);
    panel.show();
    panel.tabs()->setCurrentIndex(MakeItFitPanel::ClusterTab);
    ClusterPlanView* view = panel.clusterView();
    auto* batch = child<QSpinBox>(*view, "globalBatchSpinBox");
    batch->setValue(32); // before any search: nothing runs, and the field no longer follows the set-up
    QVERIFY(!view->searchScheduled());
    QVERIFY(!view->searching());
    QCOMPARE(view->searchesRun(), 0);
    doc.setBatch(16);
    QCOMPARE(batch->value(), 32);
    view->findLayouts();
    QVERIFY(settled(*view));
    QCOMPARE(view->request().globalBatch, std::int64_t { 32 });
    QSignalSpy finished(view, &ClusterPlanView::searchFinished);
    batch->setValue(128);
    QVERIFY(view->searchScheduled()); // a few arrow clicks in a row make one search
    QVERIFY(finished.wait(300000));
    QCOMPARE(view->searchesRun(), 2);
    QVERIFY(view->resultIsCurrent());
    QVERIFY(view->model()->rowCount() > 0);
    for (const ClusterLayout& l : view->model()->layouts())
        QCOMPARE(l.settings.setup.batch * l.settings.setup.accumulationSteps
                * l.settings.setup.parallel.dataParallel(),
            std::int64_t { 128 });
}

// GPUs of 1 GiB: not even GPT-2 small's smallest layout fits (its CUDA context alone is over half of
// it); the planner's own sentence says how close it came. A global batch no layout splits is an error.
void TestClusterPlan::nothingFitsSaysWhy()
{
    Document doc;
    gpt2OnEightA100s(doc);
    Gpu small = doc.plan().gpu;
    small.name = "Small GPU";
    small.memoryBytes = 1ULL << 30;
    doc.setGpu(small);
    MakeItFitPanel panel(&doc);
    panel.show();
    panel.tabs()->setCurrentIndex(MakeItFitPanel::ClusterTab);
    ClusterPlanView* view = panel.clusterView();
    view->findLayouts();
    QVERIFY(settled(*view));
    const auto expected = planCluster(doc.plan(), view->request());
    QVERIFY(expected.ok());
    QVERIFY(expected->layouts.empty());
    QVERIFY(!expected->nothingFits.empty());
    QCOMPARE(view->model()->rowCount(), 0);
    QCOMPARE(child<QLabel>(*view, "clusterStatusLabel")->text(),
        QStringLiteral("Nothing fits: %1.").arg(QString::fromStdString(expected->nothingFits)));
    QVERIFY(!child<QPushButton>(*view, "applyLayoutButton")->isEnabled());

    // One sample over 8 GPUs of one per node at 1,000 tokens (2c divides no power of two c: no context
    // parallelism): data parallel above 1 cannot split one sample, and 8 pipeline stages would need 8
    // micro-batches.
    doc.setSequenceLength(1000);
    child<QSpinBox>(*view, "gpusPerNodeSpinBox")->setValue(1);
    child<QSpinBox>(*view, "globalBatchSpinBox")->setValue(1);
    QVERIFY(QTest::qWaitFor([&] { return view->searchesRun() == 2 && !view->searching(); }, 300000));
    const QString status = child<QLabel>(*view, "clusterStatusLabel")->text();
    QVERIFY2(status.startsWith(QStringLiteral("Cannot plan the cluster: the global batch 1 splits into whole "
                                              "micro-batches of no layout")),
        qPrintable(status));
    QVERIFY(!view->reportable());
    // An empty network: nothing to split.
    doc.resetNetwork(Network {}, QString());
    view->findLayouts();
    QVERIFY(settled(*view));
    QCOMPARE(child<QLabel>(*view, "clusterStatusLabel")->text(),
        QStringLiteral(
            "Cannot plan the cluster: the network is empty: add layers to find the layouts that fit"));
    QCOMPARE(view->model()->rowCount(), 0);
}

// A search overtaken by a newer one and finishing after it is dropped: the rows are the newer one's.
void TestClusterPlan::aStaleResultNeverOverwritesANewerOne()
{
    Document doc;
    gpt2OnEightA100s(doc);
    MakeItFitPanel panel(&doc);
    ClusterPlanView* view = panel.clusterView();
    std::atomic<bool> release { false };
    view->setPlanner([&](const Plan& plan, const ClusterRequest& request) {
        if (request.globalBatch == 64) { // the first search: held until the second's result is shown
            QDeadlineTimer deadline(120000);
            while (!release && !deadline.hasExpired())
                QThread::msleep(1);
        }
        return planCluster(plan, request);
    });
    panel.show();
    panel.tabs()->setCurrentIndex(MakeItFitPanel::ClusterTab);
    view->findLayouts();
    QVERIFY(QTest::qWaitFor([&] { return view->searchesRun() == 1; }, 120000));
    child<QSpinBox>(*view, "globalBatchSpinBox")->setValue(128);
    view->findLayouts(); // overtakes the held one
    QVERIFY(settled(*view));
    QVERIFY(view->resultIsCurrent());
    const std::vector<ClusterLayout> shown = view->model()->layouts();
    QVERIFY(!shown.empty());
    QCOMPARE(shown.front().settings.setup.batch * shown.front().settings.setup.accumulationSteps
            * shown.front().settings.setup.parallel.dataParallel(),
        std::int64_t { 128 });
    release = true;
    QVERIFY(QTest::qWaitFor([&] { return view->staleResultsDropped() == 1; }, 300000));
    QVERIFY(!view->searching());
    QCOMPARE(view->model()->layouts().size(), shown.size());
    QCOMPARE(view->model()->layout(0)->settings, shown.front().settings);
}

// File > Export Report adds the "Cluster layouts" section while the tab shows layouts that answer the
// plan, with the same rows; out of date (the precision changed), they are left out.
void TestClusterPlan::exportedReportHasTheLayoutsShown()
{
    ui::MainWindow window;
    auto dialogs = std::make_unique<test::ScriptedDialogs>();
    test::ScriptedDialogs* answers = dialogs.get();
    window.setDialogProvider(std::move(dialogs));
    gpt2OnEightA100s(*window.document());
    window.show();
    QTemporaryDir dir;
    const QString before = dir.filePath(QStringLiteral("before.pdf"));
    const QString with = dir.filePath(QStringLiteral("with.pdf"));
    const QString stale = dir.filePath(QStringLiteral("stale.pdf"));
    answers->saveNames.push_back(before);
    child<QAction>(window, "exportReportAction")->trigger();
    ClusterPlanView* view = window.makeItFitPanel()->clusterView();
    view->findLayouts();
    QVERIFY(settled(*view));
    QVERIFY(view->model()->rowCount() > 0);
    answers->saveNames.push_back(with);
    child<QAction>(window, "exportReportAction")->trigger();
    window.document()->setPrecision(Precision::Fp32);
    answers->saveNames.push_back(stale);
    child<QAction>(window, "exportReportAction")->trigger();
    QVERIFY2(answers->errors.isEmpty(), qPrintable(answers->errors.join(QLatin1Char('\n'))));
    const auto text = [](const QString& pdf) {
        QProcess p;
        p.start(QStringLiteral("pdftotext"),
            { QStringLiteral("-layout"), QStringLiteral("-enc"), QStringLiteral("UTF-8"), pdf,
                QStringLiteral("-") });
        return p.waitForFinished(60000) && p.exitCode() == 0 ? QString::fromUtf8(p.readAllStandardOutput())
                                                             : QString();
    };
    const QString withText = text(with);
    if (withText.isEmpty())
        QSKIP("pdftotext (poppler-utils) is not installed");
    QVERIFY(!text(before).contains(QStringLiteral("Cluster layouts")));
    QVERIFY(!text(stale).contains(QStringLiteral("Cluster layouts")));
    QVERIFY(withText.contains(QStringLiteral("Cluster layouts")));
    QVERIFY(withText.contains(QStringLiteral("8 per node, global batch 64")));
    // Row 1 of the table as the tab shows it: its rank and degrees first, its memory figure on the line.
    const ClusterLayoutModel* model = view->model();
    const QString first = QStringLiteral("1 %1 %2 ")
                              .arg(cell(model, 0, ClusterLayoutModel::TensorParallelColumn),
                                  cell(model, 0, ClusterLayoutModel::PipelineParallelColumn));
    const QString memory = cell(model, 0, ClusterLayoutModel::MemoryColumn).remove(QLatin1Char(' '));
    bool found = false;
    for (const QString& line : withText.split(QLatin1Char('\n')))
        found = found
            || (line.simplified().startsWith(first)
                && QString(line).remove(QLatin1Char(' ')).contains(memory));
    QVERIFY2(found, qPrintable(first + memory));
}

// The whole window with Make It Fit's cluster tab open and its layouts shown: each batch slider tick,
// the chart redrawn, stays under 100 ms, and none starts a cluster search.
void TestClusterPlan::sliderStaysQuickWithTheTabOpen()
{
    ui::MainWindow window;
    window.setDialogProvider(std::make_unique<test::ScriptedDialogs>());
    gpt2OnEightA100s(*window.document());
    window.resize(1366, 768);
    window.show();
    child<QAction>(window, "makeItFitAction")->trigger();
    window.makeItFitPanel()->tabs()->setCurrentIndex(MakeItFitPanel::ClusterTab);
    ClusterPlanView* view = window.makeItFitPanel()->clusterView();
    view->findLayouts();
    QVERIFY(settled(*view));
    QVERIFY(QTest::qWaitFor([&] { return !window.makeItFitPanel()->searching(); }, 300000));
    auto* slider = child<QSlider>(window, "batchSlider");
    auto* chart = child<QWidget>(window, "memoryChartView");
    qint64 slowestNs = 0;
    for (int i = 0; i < 40; ++i) {
        QElapsedTimer tick;
        tick.start();
        slider->setValue((i * 37) % slider->maximum());
        chart->repaint();
        slowestNs = std::max(slowestNs, tick.nsecsElapsed());
    }
    qInfo(
        "slowest slider tick with the cluster layouts shown: %.1f ms", static_cast<double>(slowestNs) / 1e6);
    QVERIFY2(slowestNs < 100'000'000, qPrintable(QString::number(static_cast<double>(slowestNs) / 1e6)));
    QCOMPARE(view->searchesRun(), 1);
    QVERIFY(view->resultIsCurrent()); // the layouts choose their own micro-batch: still the answer
}

// GPUs per node is the set-up's own (TrainingSetup::gpusPerNode, on the set-up panel's Multi-GPU tab): the
// cluster tab shows what the set-up says, and an edit on the tab is a set-up edit, one undo step that the
// set-up panel shows. The layouts found keep tensor parallelism within a node: its degree divides the
// GPUs per node (ClusterPlanner.cpp, as Megatron-LM places it). On GPUs of 3 GiB the layouts split the
// model (applyIsOneUndoStep), so the node size limits what is listed.
void TestClusterPlan::gpusPerNodeIsTheSetups()
{
    Document doc;
    gpt2OnEightA100s(doc);
    onThreeGiBA100s(doc);
    ui::SetupPanel setupPanel(&doc);
    MakeItFitPanel panel(&doc);
    panel.show();
    panel.tabs()->setCurrentIndex(MakeItFitPanel::ClusterTab);
    ClusterPlanView* view = panel.clusterView();
    auto* onTab = child<QSpinBox>(*view, "gpusPerNodeSpinBox");
    auto* inSetup = child<QSpinBox>(setupPanel, "gpusPerNodeSpinBox");
    auto* globalBatch = child<QSpinBox>(*view, "globalBatchSpinBox");
    QCOMPARE(onTab->value(), 8);
    QCOMPARE(inSetup->value(), 8);

    // Set in the set-up panel: the tab follows, and its request with it; and back on undo.
    const int steps = doc.undoStack()->index();
    inSetup->setValue(4);
    QCOMPARE(doc.plan().setup.gpusPerNode, std::int64_t { 4 });
    QCOMPARE(onTab->value(), 4);
    QCOMPARE(view->request().gpusPerNode, std::int64_t { 4 });
    doc.undoStack()->undo();
    QCOMPARE(onTab->value(), 8);
    QCOMPARE(view->request().gpusPerNode, std::int64_t { 8 });

    // Typed on the tab: the set-up's once the typing ends (Enter), as one undo step.
    onTab->selectAll();
    QTest::keyClicks(onTab, QStringLiteral("2"));
    QCOMPARE(doc.plan().setup.gpusPerNode, std::int64_t { 8 }); // typing waits for its pause
    QTest::keyClick(onTab, Qt::Key_Return);
    QCOMPARE(doc.plan().setup.gpusPerNode, std::int64_t { 2 });
    QCOMPARE(inSetup->value(), 2);
    QCOMPARE(doc.undoStack()->index(), steps + 1);
    QCOMPARE(doc.undoStack()->undoText(), QStringLiteral("Change GPUs per node"));
    // The node size is no request of the tab's own: the other fields still follow the set-up
    // (micro-batch 16 x 1 accumulation step x 8 data-parallel GPUs = 128).
    doc.setBatch(16);
    QCOMPARE(globalBatch->value(), 128);

    // The layouts found keep tensor parallelism within 2 GPUs, and set 2 per node.
    view->findLayouts();
    QVERIFY(settled(*view));
    QVERIFY(view->resultIsCurrent());
    QVERIFY(view->model()->rowCount() > 0);
    for (const ClusterLayout& l : view->model()->layouts()) {
        const std::int64_t tp = l.settings.setup.parallel.tensorParallel;
        QVERIFY2(tp == 1 || tp == 2, qPrintable(QString::number(tp)));
        QCOMPARE(l.settings.setup.gpusPerNode, std::int64_t { 2 });
    }
    // After a search, an edit on the tab searches again (once the edits pause) with one GPU per node:
    // no tensor parallelism at all.
    QSignalSpy finished(view, &ClusterPlanView::searchFinished);
    onTab->setValue(1); // an arrow click: at once
    QCOMPARE(doc.plan().setup.gpusPerNode, std::int64_t { 1 });
    QCOMPARE(inSetup->value(), 1);
    QVERIFY(view->searchScheduled());
    QVERIFY(finished.wait(300000));
    QCOMPARE(view->searchesRun(), 2);
    QVERIFY(view->resultIsCurrent());
    QVERIFY(view->model()->rowCount() > 0);
    for (const ClusterLayout& l : view->model()->layouts()) {
        QCOMPARE(l.settings.setup.parallel.tensorParallel, std::int64_t { 1 });
        QCOMPARE(l.settings.setup.gpusPerNode, std::int64_t { 1 });
    }
    // Row by row what the core's planner lists for the request: 8 GPUs, 1 per node, 128 samples a step.
    QCOMPARE(view->request().gpus, std::int64_t { 8 });
    QCOMPARE(view->request().gpusPerNode, std::int64_t { 1 });
    QCOMPARE(view->request().globalBatch, std::int64_t { 128 });
    const auto expected = planCluster(doc.plan(), view->request());
    QVERIFY2(expected.ok(), expected.ok() ? "" : expected.error().message.c_str());
    QCOMPARE(view->model()->layouts().size(), expected->layouts.size());
    for (std::size_t i = 0; i < expected->layouts.size(); ++i)
        QCOMPARE(view->model()->layouts()[i].settings, expected->layouts[i].settings);
    // Changed in the set-up panel after a search: the rows are out of date, and nothing searches (a
    // set-up edit never waits for a search) until asked.
    inSetup->setValue(8);
    QCOMPARE(onTab->value(), 8);
    QVERIFY(!view->resultIsCurrent());
    QVERIFY(!view->searchScheduled());
    QCOMPARE(view->searchesRun(), 2);
}

QTEST_MAIN(TestClusterPlan)
#include "tst_clusterplan.moc"

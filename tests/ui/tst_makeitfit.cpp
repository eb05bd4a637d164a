// Issue 18 in the GUI: the "Make it fit" panel lists what planSetups() finds for the open plan, Apply
// sets the chosen set-up as one undo step; the GPU comparison agrees with compareGpus() and marks
// the smallest GPU that reaches the target. Real widgets on the offscreen platform.
#include "../core/NestedRepeatFile.h"
#include "Document.h"
#include "GpuCompareView.h"
#include "GpuComparisonModel.h"
#include "MainWindow.h"
#include "MakeItFitPanel.h"
#include "PlanCandidateModel.h"
#include "PlanController.h"
#include "TestSupport.h"
#include "headroom/model/ModelFile.h"

#include <QAbstractItemModelTester>
#include <QAction>
#include <QCheckBox>
#include <QDeadlineTimer>
#include <QDockWidget>
#include <QLabel>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTableView>
#include <QTest>
#include <QThread>
#include <QUndoStack>
#include <atomic>

using namespace headroom;
using headroom::ui::Document;
using headroom::ui::GpuCompareView;
using headroom::ui::GpuComparisonModel;
using headroom::ui::MakeItFitPanel;
using headroom::ui::PlanCandidateModel;

namespace {

Gpu gtx1080()
{
    Gpu g;
    g.name = "GeForce GTX 1080";
    g.vendor = "NVIDIA";
    g.family = "GeForce 10 (Pascal)"; // as resources/gpus.json: its CUDA context and cuBLAS workspace
    g.memoryBytes = 8ULL << 30;
    g.bandwidthGBps = 320;
    g.fp32Tflops = 8.873;
    g.fp16Tflops = 0.1386; // as resources/gpus.json
    return g;
}

Network vgg16()
{
    auto n = loadModelFile(HEADROOM_TEST_SOURCE_DIR "/resources/presets/vgg16.json");
    if (!n)
        qFatal("vgg16.json: %s", n.error().message.c_str());
    return std::move(n).value();
}

template <typename T> T* child(QWidget& parent, const char* name)
{
    T* found = parent.findChild<T*>(QString::fromLatin1(name));
    if (!found)
        qFatal("no %s", name);
    return found;
}

/// Waits until the panel shows its latest search's result (the search runs off the GUI thread).
bool settled(const MakeItFitPanel& panel)
{
    return QTest::qWaitFor([&] { return !panel.searching(); }, 120000);
}

} // namespace

class TestMakeItFit : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { test::isolateSettings(); }
    void listsWhatThePlannerFinds();
    void applyIsOneUndoStep();
    void allowancesWidenTheSearch();
    void nothingFitsSaysWhatIsMissing();
    void anUnestimableNetworkSaysWhyOnce();
    void saysWhatTheSearchLeftOut();
    void compareMarksTheSmallestGpu();
    void planMenuShowsTheDocks();
    void columnsSayWhatTheyAnswer();
    void compareColumnsNameTheBatch();
    void applyingRowOneKeepsTheAlternatives();
    void searchesOffTheGuiThread();
    void aStaleResultNeverOverwritesANewerOne();
};

void TestMakeItFit::listsWhatThePlannerFinds()
{
    Document doc;
    doc.resetNetwork(vgg16(), QString());
    doc.resetSetup(Precision::Fp32, TrainingSetup {}, gtx1080());
    MakeItFitPanel panel(&doc);
    QAbstractItemModelTester tester(panel.model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    panel.show();
    QVERIFY(settled(panel));
    child<QSpinBox>(panel, "targetBatchSpinBox")->setValue(256);
    QVERIFY(settled(panel));
    // What the core's planner says for the same plan and goal, row by row.
    const auto expected = planSetups(doc.plan(), PlanGoal { 256, {} }, PlanAllowances {});
    QVERIFY(expected.ok());
    QCOMPARE(panel.model()->rowCount(), static_cast<int>(expected->candidates.size()));
    QVERIFY(panel.model()->rowCount() >= 1);
    const PlanCandidate* first = panel.model()->candidate(0);
    QCOMPARE(first->settings, expected->candidates.front().settings);
    // VGG-16 reaches 256 on a GTX 1080 as 4 x 64 without changing training (docs/user-guide.md).
    QCOMPARE(first->settings.setup.accumulationSteps, std::int64_t { 4 });
    QCOMPARE(first->settings.setup.batch, std::int64_t { 64 });
    QCOMPARE(
        panel.model()->index(0, PlanCandidateModel::BatchColumn).data().toString(), QStringLiteral("64 × 4"));
    QCOMPARE(panel.model()->index(0, PlanCandidateModel::TrainingColumn).data().toString(),
        QStringLiteral("same"));
    QVERIFY(panel.model()
                ->index(0, PlanCandidateModel::ChangesColumn)
                .data()
                .toString()
                .contains(QStringLiteral("4 accumulation steps")));
    QVERIFY(child<QPushButton>(panel, "applySetupButton")->isEnabled());
}

void TestMakeItFit::applyIsOneUndoStep()
{
    Document doc;
    doc.resetNetwork(vgg16(), QString());
    doc.resetSetup(Precision::Fp32, TrainingSetup {}, gtx1080());
    ui::PlanController controller(&doc);
    MakeItFitPanel panel(&doc);
    panel.show();
    QVERIFY(settled(panel));
    child<QSpinBox>(panel, "targetBatchSpinBox")->setValue(256);
    QVERIFY(settled(panel));
    const Plan before = doc.plan();
    const int steps = doc.undoStack()->count();
    QTest::mouseClick(child<QPushButton>(panel, "applySetupButton"), Qt::LeftButton);
    QVERIFY(settled(panel));
    QCOMPARE(doc.undoStack()->count(), steps + 1);
    QCOMPARE(doc.plan().setup.accumulationSteps, std::int64_t { 4 });
    QCOMPARE(doc.plan().setup.batch, std::int64_t { 64 });
    // The estimate the chart shows follows at once: 4 x 64 fits.
    QVERIFY(controller.estimateState().estimate);
    QVERIFY(controller.estimateState().estimate->fits);
    QCOMPARE(controller.estimateState().estimate->effectiveBatch, std::int64_t { 256 });
    QVERIFY2(doc.undoStack()->undoText().contains(QStringLiteral("4 accumulation steps")),
        qPrintable(doc.undoStack()->undoText()));
    // After applying, the panel plans from the new set-up: the same one, now as set up.
    QCOMPARE(panel.model()->index(0, PlanCandidateModel::ChangesColumn).data().toString(),
        QStringLiteral("As set up"));
    doc.undoStack()->undo();
    QCOMPARE(doc.plan().setup.accumulationSteps, before.setup.accumulationSteps);
    QCOMPARE(doc.plan().setup.batch, before.setup.batch);
    QCOMPARE(doc.undoStack()->count(), steps + 1);
}

void TestMakeItFit::allowancesWidenTheSearch()
{
    Document doc;
    doc.resetNetwork(vgg16(), QString());
    doc.resetSetup(Precision::Fp32, TrainingSetup {}, gtx1080());
    MakeItFitPanel panel(&doc);
    panel.show();
    QVERIFY(settled(panel));
    // The ranking judges memory as the fit does (docs/planner.md, issue 34): by what the GPU holds at the
    // peak, the reserved peak plus the overhead. At an effective batch of 256 the plain search lists one
    // set-up, 64 x 4 (max micro-batch 67). 8-bit state with the same 64 x 4 runs as fast and its tensors
    // are 0.77 GiB smaller, but the GPU holds no less: 8,399,093,760 B against 8,396,996,608 B (the
    // caching allocator keeps what the state frees cached, near the 7.5 GiB capacity either way). What it
    // does buy is room: its largest micro-batch with accumulation is 77, not 67 (docs/user-guide.md).
    // Ranked by the rule (issue 35): equal speed, so the set-up that keeps training first; the 8-bit one
    // second, listed because no other matches its max batch (before issue 35 the held bytes alone judged
    // it redundant and hid it).
    child<QSpinBox>(panel, "targetBatchSpinBox")->setValue(256);
    QVERIFY(settled(panel));
    QCOMPARE(panel.model()->rowCount(), 1);
    const std::size_t examined = panel.result().setupsExamined;
    child<QCheckBox>(panel, "allowEightBitCheckBox")->setChecked(true);
    QVERIFY(settled(panel));
    QVERIFY(panel.allowances().eightBitOptimizer);
    QVERIFY(panel.result().setupsExamined > examined);
    QCOMPARE(panel.model()->rowCount(), 2);
    QCOMPARE(panel.model()->index(0, PlanCandidateModel::TrainingColumn).data().toString(),
        QStringLiteral("same"));
    QCOMPARE(panel.model()->index(1, PlanCandidateModel::TrainingColumn).data().toString(),
        QStringLiteral("changed"));
    QVERIFY(panel.model()->candidate(1)->settings.setup.eightBitOptimizer);
    QCOMPARE(
        panel.model()->index(0, PlanCandidateModel::MaxBatchColumn).data().toString(), QStringLiteral("67"));
    QCOMPARE(
        panel.model()->index(1, PlanCandidateModel::MaxBatchColumn).data().toString(), QStringLiteral("77"));
    // At 72 the allowance adds a set-up nothing else gives: the plain search needs 2 x 36 (72 is above the
    // max batch, 67), 8-bit state fits 72 in one micro-batch (its max batch is 82). It changes training and
    // does not include the accumulation, so it is listed (off the Pareto front: as fast, it holds more).
    child<QCheckBox>(panel, "allowEightBitCheckBox")->setChecked(false);
    QVERIFY(settled(panel));
    child<QSpinBox>(panel, "targetBatchSpinBox")->setValue(72);
    QVERIFY(settled(panel));
    const int plain = panel.model()->rowCount();
    for (int row = 0; row < plain; ++row)
        QCOMPARE(panel.model()->index(row, PlanCandidateModel::TrainingColumn).data().toString(),
            QStringLiteral("same"));
    child<QCheckBox>(panel, "allowEightBitCheckBox")->setChecked(true);
    QVERIFY(settled(panel));
    QVERIFY(panel.model()->rowCount() > plain);
    bool changed = false;
    for (int row = 0; row < panel.model()->rowCount(); ++row)
        changed
            = changed || panel.model()->index(row, 0).data(PlanCandidateModel::ChangesTrainingRole).toBool();
    QVERIFY(changed);
}

void TestMakeItFit::nothingFitsSaysWhatIsMissing()
{
    Document doc;
    doc.resetNetwork(vgg16(), QString());
    Gpu tiny = gtx1080();
    tiny.name = "Tiny GPU";
    tiny.memoryBytes = 256ULL << 20; // less than the 512 MiB of overhead alone
    doc.resetSetup(Precision::Fp32, TrainingSetup {}, tiny);
    MakeItFitPanel panel(&doc);
    panel.show();
    QVERIFY(settled(panel));
    QCOMPARE(panel.model()->rowCount(), 0);
    QVERIFY(!child<QPushButton>(panel, "applySetupButton")->isEnabled());
    const QString status = child<QLabel>(panel, "planStatusLabel")->text();
    QVERIFY2(status.startsWith(QStringLiteral("Nothing fits. Closest:")), qPrintable(status));
    QVERIFY2(status.contains(QStringLiteral("more than the GPU holds")), qPrintable(status));
}

// The analysis's own reason, after one "Cannot plan:" (the core's message used to carry a second).
void TestMakeItFit::anUnestimableNetworkSaysWhyOnce()
{
    // Softmax over axis 5 of a [B, 3] output: loads, but cannot be estimated.
    auto network = headroom::parseModel(R"({"format": "headroom-model", "version": 1, "input": {"shape": [4]},
        "layers": [{"type": "Linear", "out_features": 3}, {"type": "Softmax", "dim": 5}]})");
    QVERIFY2(network, network ? "" : network.error().message.c_str());
    Document doc;
    doc.resetNetwork(std::move(network).value(), QString());
    MakeItFitPanel panel(&doc);
    panel.show();
    QVERIFY(settled(panel));
    panel.findSetups();
    QVERIFY(settled(panel));
    const QString status = child<QLabel>(panel, "planStatusLabel")->text();
    QVERIFY2(
        status.startsWith(QStringLiteral("Cannot plan: layers[1] (Softmax): dim 5 is not a feature axis")),
        qPrintable(status));
    QCOMPARE(status.count(QStringLiteral("plan:"), Qt::CaseInsensitive), 1);
}

// Three GPUs of 4, 8 and 24 GiB: VGG-16 at batch 32 needs more than 4 GiB (the tensors alone 4.73 GiB;
// an 8 GiB card holds 6.00 GiB at the peak, `headroom estimate`), so the 8 GiB card is the smallest that
// fits; with a target of 256 in micro-batches of 32 (8 steps) too.
void TestMakeItFit::saysWhatTheSearchLeftOut()
{
    // VGG-16 on a GTX 1080, nothing allowed: 3 checkpointing choices x 2 set-ups of about 40 layers, far
    // inside the planner's budgets (docs/planner.md): nothing left out, no note; nor with everything
    // allowed (27 choices x 4 set-ups x about 40 layers: under 5,000 of the 100,000).
    Document doc;
    doc.resetNetwork(vgg16(), QString());
    doc.resetSetup(Precision::Fp32, TrainingSetup {}, gtx1080());
    MakeItFitPanel panel(&doc);
    panel.show();
    QVERIFY(settled(panel));
    panel.findSetups();
    QVERIFY(settled(panel));
    auto* note = child<QLabel>(panel, "leftOutLabel");
    QVERIFY(panel.result().leftOut.empty());
    QVERIFY(!note->isVisibleTo(&panel));
    for (const char* box : { "allowPrecisionCheckBox", "allowLoraCheckBox", "allowEightBitCheckBox" })
        child<QCheckBox>(panel, box)->setChecked(true);
    QVERIFY(settled(panel));
    QVERIFY(panel.result().leftOut.empty());
    QVERIFY(!note->isVisibleTo(&panel));

    // 12 nested Repeat blocks of 2 (8,192 layers, 12,287 rows an analysis) with precision, LoRA and
    // 8-bit state allowed: the analyses stop at 65,536 / 12,287 = 5 of the 27 choices, and 5 x 2 x 2
    // set-ups of 8,192 written-out layers pass the 100,000 the allocator is replayed for (as in
    // tst_planner's nestedRepeatsBoundTheSearch): two things left out, both in the note's tooltip.
    auto nested = parseModel(test::nestedRepeatFile(12, 2));
    QVERIFY(nested);
    doc.resetNetwork(std::move(nested).value(), QString()); // the panel searches again: it is shown
    QVERIFY(settled(panel));
    QCOMPARE(panel.result().leftOut.size(), std::size_t { 2 });
    QVERIFY(note->isVisibleTo(&panel));
    QVERIFY2(note->text().startsWith(QStringLiteral("To stay quick, the search left part of its work out")),
        qPrintable(note->text()));
    const QString tip = note->toolTip();
    QVERIFY(tip.startsWith(QStringLiteral("Left out:")));
    QVERIFY2(tip.contains(QStringLiteral("only 5 of 27 precision, LoRA and checkpointing choices searched")),
        qPrintable(tip));
    QVERIFY2(tip.contains(QStringLiteral("the caching allocator simulated for ")), qPrintable(tip));
    for (const std::string& what : panel.result().leftOut)
        QVERIFY(tip.contains(QString::fromStdString(what)));

    // Back to a network the search covers in full even with everything allowed: the note goes.
    doc.resetNetwork(vgg16(), QString());
    QVERIFY(settled(panel));
    QVERIFY(panel.result().leftOut.empty());
    QVERIFY(!note->isVisibleTo(&panel));
}

void TestMakeItFit::compareMarksTheSmallestGpu()
{
    Document doc;
    doc.resetNetwork(vgg16(), QString());
    doc.resetSetup(Precision::Fp32, TrainingSetup {}, gtx1080());
    std::vector<Gpu> gpus;
    for (const std::uint64_t gib : { 24ULL, 4ULL, 8ULL }) {
        Gpu g = gtx1080();
        g.name = std::to_string(gib) + " GiB card";
        g.memoryBytes = gib << 30;
        gpus.push_back(g);
    }
    GpuCompareView view(&doc, gpus);
    QAbstractItemModelTester tester(view.model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    view.show();
    GpuComparisonModel* model = view.model();
    QCOMPARE(model->rowCount(), 3);
    QCOMPARE(model->index(0, GpuComparisonModel::GpuColumn).data().toString(), QStringLiteral("4 GiB card"));
    QCOMPARE(model->index(1, GpuComparisonModel::GpuColumn).data().toString(), QStringLiteral("8 GiB card"));
    QVERIFY(model->index(1, 0).data(GpuComparisonModel::SmallestReachingTargetRole).toBool());
    QVERIFY(!model->index(0, 0).data(GpuComparisonModel::ReachesTargetRole).toBool());
    QVERIFY(!model->index(2, 0).data(GpuComparisonModel::SmallestReachingTargetRole).toBool());
    // Every row's max batch is the estimate's on that GPU.
    const auto expected = compareGpus(doc.plan(), gpus, std::nullopt);
    QVERIFY(expected.ok());
    for (int row = 0; row < 3; ++row)
        QCOMPARE(model->rows()[static_cast<std::size_t>(row)].estimate.maxBatch,
            (*expected)[static_cast<std::size_t>(row)].estimate.maxBatch);
    // A set-up change re-compares: batch 64 needs more, so the 8 GiB card still fits (max batch 71 by the
    // reserved memory: `headroom max-batch resources/presets/vgg16.json --gpu "GTX 1080"`).
    doc.setBatch(64);
    QVERIFY(model->index(1, 0).data(GpuComparisonModel::SmallestReachingTargetRole).toBool());
    child<QSpinBox>(view, "compareTargetSpinBox")->setValue(100000);
    for (int row = 0; row < 3; ++row)
        QVERIFY(!model->index(row, 0).data(GpuComparisonModel::SmallestReachingTargetRole).toBool());
    QVERIFY(child<QLabel>(view, "compareStatusLabel")
                ->text()
                .contains(QStringLiteral("No GPU listed reaches the target")));
}

void TestMakeItFit::planMenuShowsTheDocks()
{
    ui::MainWindow window;
    window.show();
    window.loadDefault(); // VGG-16 on a GTX 1080
    auto* fitDock = window.findChild<QDockWidget*>(QStringLiteral("makeItFitDock"));
    auto* compareDock = window.findChild<QDockWidget*>(QStringLiteral("compareGpusDock"));
    QVERIFY(fitDock && compareDock);
    QVERIFY(!fitDock->isVisible());
    window.findChild<QAction*>(QStringLiteral("makeItFitAction"))->trigger();
    QTRY_VERIFY(fitDock->isVisible());
    QVERIFY(window.makeItFitPanel()->isVisible());
    window.findChild<QAction*>(QStringLiteral("compareGpusAction"))->trigger();
    QTRY_VERIFY(window.gpuCompareView()->isVisible());
    // The comparison covers the whole catalogue the window loaded.
    QTRY_VERIFY(window.gpuCompareView()->model()->rowCount() > 0);
    QVERIFY(window.findChild<QAction*>(QStringLiteral("includePlanInReportAction"))->isCheckable());
}

// Issue 25 items 12-13: VGG-16 on a GTX 1080 at batch 32 with no target: the one set-up is the plan
// itself at its max batch, 71 from the caching allocator's reserved peak (79 by the tensors alone, as
// the issue saw it; docs/user-guide.md).
// The batch column says it is the planned batch, not the set-up's.
void TestMakeItFit::columnsSayWhatTheyAnswer()
{
    Document doc;
    doc.resetNetwork(vgg16(), QString());
    doc.resetSetup(Precision::Fp32, TrainingSetup {}, gtx1080());
    QCOMPARE(doc.plan().setup.batch, std::int64_t { 32 });
    MakeItFitPanel panel(&doc);
    panel.show();
    QVERIFY(settled(panel));
    PlanCandidateModel* model = panel.model();
    QCOMPARE(model->rowCount(), 1);
    QCOMPARE(model->headerData(PlanCandidateModel::BatchColumn, Qt::Horizontal).toString(),
        QStringLiteral("Planned batch"));
    QVERIFY(model->headerData(PlanCandidateModel::BatchColumn, Qt::Horizontal, Qt::ToolTipRole)
                .toString()
                .contains(QStringLiteral("Not your set-up's batch")));
    QCOMPARE(
        model->index(0, PlanCandidateModel::ChangesColumn).data().toString(), QStringLiteral("As set up"));
    QCOMPARE(model->index(0, PlanCandidateModel::BatchColumn).data().toString(), QStringLiteral("71"));
    const QString status = child<QLabel>(panel, "planStatusLabel")->text();
    QVERIFY2(status.contains(QStringLiteral("each at the largest batch that fits")), qPrintable(status));

    // The command line's and the report's rounding: mixed precision on a GTX 1080 (fp16 at 1/64 of
    // its fp32 rate) reaches 0.598 samples/s per GPU at a target of 256 (docs/user-guide.md's
    // `headroom plan ... --allow precision,8bit-optimizer`); the panel said "0.60".
    child<QCheckBox>(panel, "allowPrecisionCheckBox")->setChecked(true);
    QVERIFY(settled(panel));
    child<QSpinBox>(panel, "targetBatchSpinBox")->setValue(256);
    QVERIFY(settled(panel));
    QVERIFY(child<QLabel>(panel, "planStatusLabel")
                ->text()
                .contains(QStringLiteral("an effective batch of 256")));
    int mixed = -1;
    for (int row = 0; row < model->rowCount(); ++row) {
        if (model->index(row, PlanCandidateModel::ChangesColumn)
                .data()
                .toString()
                .startsWith(QStringLiteral("Mixed precision (FP16")))
            mixed = row;
    }
    QVERIFY(mixed >= 0);
    QCOMPARE(model->index(mixed, PlanCandidateModel::SpeedColumn).data().toString(), QStringLiteral("0.598"));
}

// The issue's comparison at a target of 512: a GTX 1070 (8 GiB) fits the set-up's batch 32 but its max
// batch, 71 (reserved peak; 79 by the tensors), does not reach 512. The peak column is what the GPU holds
// at batch 32 (issue 34), as `headroom estimate` judges the fit: the caching allocator's reserved peak,
// 5,903,482,880 B (2,815 x 2 MiB), plus Pascal's 512 MiB context = 6,440,353,792 B = 5.998 GiB, "6.00 GiB"
// (the tensors' peak, 4.73 GiB, is no longer this column's figure).
// "Fits: yes" read as an answer about the target; the columns now say which question each answers.
void TestMakeItFit::compareColumnsNameTheBatch()
{
    Document doc;
    doc.resetNetwork(vgg16(), QString());
    doc.resetSetup(Precision::Fp32, TrainingSetup {}, gtx1080());
    Gpu gtx1070 = gtx1080();
    gtx1070.name = "GeForce GTX 1070";
    GpuCompareView view(&doc, { gtx1070 });
    view.show();
    child<QSpinBox>(view, "compareTargetSpinBox")->setValue(512);
    GpuComparisonModel* model = view.model();
    const auto header = [&](int column) { return model->headerData(column, Qt::Horizontal).toString(); };
    QCOMPARE(header(GpuComparisonModel::PeakColumn), QStringLiteral("Peak (batch 32)"));
    QCOMPARE(header(GpuComparisonModel::FitsColumn), QStringLiteral("Fits batch 32"));
    QCOMPARE(header(GpuComparisonModel::ReachesColumn), QStringLiteral("Reaches target"));
    QCOMPARE(model->index(0, GpuComparisonModel::PeakColumn).data().toString(), QStringLiteral("6.00 GiB"));
    QCOMPARE(model->index(0, GpuComparisonModel::FitsColumn).data().toString(), QStringLiteral("yes"));
    QCOMPARE(model->index(0, GpuComparisonModel::MaxBatchColumn).data().toString(), QStringLiteral("71"));
    QCOMPARE(model->index(0, GpuComparisonModel::ReachesColumn).data().toString(), QStringLiteral("no"));
    // The headers follow the batch.
    doc.setBatch(64);
    QCOMPARE(header(GpuComparisonModel::FitsColumn), QStringLiteral("Fits batch 64"));
}

QTEST_MAIN(TestMakeItFit)
// Issue 35 item 10: VGG-16 on 4 GTX 1080s with ZeRO-2, an effective batch of 256. Every set-up runs at
// the same estimated speed (the estimate leaves communication out: docs/throughput.md), so the rule's
// later criteria order them; applying row 1 used to leave "As set up" alone, because the search dropped
// every set-up whose changes (against the new plan) included the plan's own empty set of changes and
// held more. Set-ups are now compared with each other: the same ones are listed after applying any
// row that keeps training as it is, and no listed row is matched or beaten on every criterion by another.
void TestMakeItFit::applyingRowOneKeepsTheAlternatives()
{
    Document doc;
    doc.resetNetwork(vgg16(), QString());
    doc.resetSetup(Precision::Fp32, TrainingSetup {}, gtx1080());
    Parallelism zero2;
    zero2.gpus = 4;
    zero2.sharding = Sharding::Zero2;
    doc.setParallelism(zero2);
    MakeItFitPanel panel(&doc);
    panel.show();
    child<QSpinBox>(panel, "targetBatchSpinBox")->setValue(256);
    QVERIFY(settled(panel));
    const std::vector<PlanCandidate> before = panel.model()->candidates();
    QVERIFY2(before.size() >= 3, qPrintable(QString::number(before.size())));
    // The rule, stated under the list.
    QVERIFY(
        child<QLabel>(panel, "rankingRuleLabel")->text().startsWith(QStringLiteral("Order: fastest first")));
    // Row by row: equal speed here, so the memory orders rows that change training alike and move as
    // much data between GPUs (ZeRO-1 and ZeRO-2 move DDP's; ZeRO-3 1.5 times; Rajbhandari et al. 2020, §7).
    const auto traffic = [](const PlanCandidate& c) {
        const Parallelism& p = c.settings.setup.parallel;
        return std::tuple { p.offloadOptimizer, p.tensorParallel, shardingStage(p.sharding) >= 3 };
    };
    for (std::size_t i = 0; i + 1 < before.size(); ++i) {
        const PlanCandidate& a = before[i];
        const PlanCandidate& b = before[i + 1];
        // Speeds as the table shows them (3 significant figures): "38.3" for every row here.
        const auto shown = [&](std::size_t row) {
            return panel.model()
                ->index(static_cast<int>(row), PlanCandidateModel::SpeedColumn)
                .data()
                .toString()
                .toDouble();
        };
        QVERIFY(shown(i) >= shown(i + 1));
        if (shown(i) == shown(i + 1) && traffic(a) == traffic(b))
            QVERIFY2(a.estimate.heldBytes <= b.estimate.heldBytes, qPrintable(QString::number(i)));
    }
    // Apply row 1, then row 2: the same set-ups each time, one of them now "As set up".
    for (const int row : { 0, 1 }) {
        const PlanSettings applied = before[static_cast<std::size_t>(row)].settings;
        QVERIFY(!before[static_cast<std::size_t>(row)].changesTraining());
        panel.findChild<QTableView*>(QStringLiteral("setupsTableView"))->selectRow(row);
        QTest::mouseClick(child<QPushButton>(panel, "applySetupButton"), Qt::LeftButton);
        QVERIFY(settled(panel));
        const std::vector<PlanCandidate>& after = panel.model()->candidates();
        QCOMPARE(after.size(), before.size());
        // Row by row the same figures (where two set-ups have the very same ones, the one that changes
        // less of the plan stands for both: ZeRO-1 or ZeRO-2 at 64 x 4).
        for (std::size_t i = 0; i < before.size(); ++i) {
            QCOMPARE(after[i].samplesPerSecondPerGpu(), before[i].samplesPerSecondPerGpu());
            QCOMPARE(after[i].estimate.heldBytes, before[i].estimate.heldBytes);
            QCOMPARE(after[i].estimate.maxBatch, before[i].estimate.maxBatch);
            QVERIFY(traffic(after[i]) == traffic(before[i]));
        }
        const auto asSetUp = std::find_if(
            after.begin(), after.end(), [](const PlanCandidate& c) { return c.changes.empty(); });
        QVERIFY(asSetUp != after.end());
        QCOMPARE(asSetUp->settings.setup, applied.setup);
        doc.undoStack()->undo();
        QVERIFY(settled(panel));
    }
}

// Issue 35 item 11: the search runs off the GUI thread. A change returns at once with "Searching…" and
// Apply disabled; the result arrives (the same as planSetups() on the plan) and replaces it.
void TestMakeItFit::searchesOffTheGuiThread()
{
    Document doc;
    doc.resetNetwork(vgg16(), QString());
    doc.resetSetup(Precision::Fp32, TrainingSetup {}, gtx1080());
    MakeItFitPanel panel(&doc);
    panel.show();
    QVERIFY(settled(panel));
    QSignalSpy finished(&panel, &MakeItFitPanel::searchFinished);
    child<QSpinBox>(panel, "targetBatchSpinBox")->setValue(256);
    QVERIFY(panel.searching());
    QCOMPARE(child<QLabel>(panel, "planStatusLabel")->text(), QStringLiteral("Searching…"));
    QVERIFY(!child<QPushButton>(panel, "applySetupButton")->isEnabled());
    QVERIFY(finished.wait(120000));
    QVERIFY(!panel.searching());
    QVERIFY(child<QPushButton>(panel, "applySetupButton")->isEnabled());
    const auto expected = planSetups(doc.plan(), PlanGoal { 256, {} }, PlanAllowances {});
    QVERIFY(expected.ok());
    QCOMPARE(panel.model()->rowCount(), static_cast<int>(expected->candidates.size()));
    for (std::size_t i = 0; i < expected->candidates.size(); ++i)
        QCOMPARE(panel.model()->candidates()[i].settings, expected->candidates[i].settings);
    QVERIFY(child<QLabel>(panel, "planStatusLabel")->text().startsWith(QStringLiteral("Set-ups that fit: ")));
}

// A search overtaken by a newer one, and finishing after it: VGG-16's search at a target of 256, held
// (on its thread) until the newer one's result is shown, and, while it is held, a network of one Linear
// layer. The newer search's result is shown; the older one's, arriving later, is dropped, and the list
// stays the small network's.
void TestMakeItFit::aStaleResultNeverOverwritesANewerOne()
{
    Document doc;
    doc.resetNetwork(vgg16(), QString());
    doc.resetSetup(Precision::Fp32, TrainingSetup {}, gtx1080());
    MakeItFitPanel panel(&doc);
    std::atomic<bool> hold { false };
    std::atomic<bool> release { false };
    panel.setPlanner([&](const Plan& plan, const PlanGoal& goal, const PlanAllowances& allow) {
        if (hold && plan.network.layers.size() > 1) {
            QDeadlineTimer deadline(60000);
            while (!release && !deadline.hasExpired())
                QThread::msleep(1);
        }
        return planSetups(plan, goal, allow);
    });
    panel.show();
    QVERIFY(settled(panel));
    const int dropped = panel.staleResultsDropped();
    const int run = panel.searchesRun();
    hold = true;
    child<QSpinBox>(panel, "targetBatchSpinBox")->setValue(256); // VGG-16's search starts, held
    QVERIFY(QTest::qWaitFor([&] { return panel.searchesRun() > run; }, 120000));
    auto small = parseModel(R"({"format": "headroom-model", "version": 1, "input": {"shape": [4]},
        "layers": [{"type": "Linear", "out_features": 3}]})");
    QVERIFY2(small, small ? "" : small.error().message.c_str());
    doc.resetNetwork(std::move(small).value(), QString()); // overtaken
    QVERIFY(settled(panel));
    const auto expected = planSetups(doc.plan(), panel.goal(), panel.allowances());
    QVERIFY(expected.ok() && !expected->candidates.empty());
    QCOMPARE(panel.model()->rowCount(), static_cast<int>(expected->candidates.size()));
    QCOMPARE(panel.model()->candidate(0)->settings, expected->candidates.front().settings);
    // The overtaken search ends, later, and changes nothing.
    release = true;
    QVERIFY(QTest::qWaitFor([&] { return panel.searchesUnfinished() == 0; }, 120000));
    QVERIFY(panel.staleResultsDropped() > dropped);
    QVERIFY(!panel.searching());
    QCOMPARE(panel.model()->rowCount(), static_cast<int>(expected->candidates.size()));
    QCOMPARE(panel.model()->candidate(0)->settings, expected->candidates.front().settings);
}

#include "tst_makeitfit.moc"

// Issue 35 item 11: with the Make It Fit panel open, an edit took seconds (Redo of "Apply set-up" 5.3 s,
// Undo 1.5-2 s against 0.25 s without the panel): the panel searched on the GUI thread. It now starts
// the search on another thread and returns. This times what the GUI thread does for an undo/redo round
// of "Apply set-up" (the document, the plan controller's re-evaluation, the panel starting its search),
// with and without the panel, on the issue's plan: VGG-16 on 4 GTX 1080s with ZeRO-2, an effective
// batch of 256. Run: build/tests/benchmarks/bench_makeitfit (add -iterations N for stable figures);
// docs/performance.md keeps the numbers.
#include "Document.h"
#include "MakeItFitPanel.h"
#include "PlanCandidateModel.h"
#include "PlanController.h"
#include "TestSupport.h"
#include "headroom/model/ModelFile.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QSpinBox>
#include <QTest>
#include <QUndoStack>
#include <memory>

using namespace headroom;
using headroom::ui::Document;
using headroom::ui::MakeItFitPanel;

namespace {

Gpu gtx1080()
{
    Gpu g;
    g.name = "GeForce GTX 1080";
    g.vendor = "NVIDIA";
    g.family = "GeForce 10 (Pascal)";
    g.memoryBytes = 8ULL << 30;
    g.bandwidthGBps = 320;
    g.fp32Tflops = 8.873;
    g.fp16Tflops = 0.1386;
    return g;
}

/// The issue's plan, with the panel's row 1 applied (one undo step).
void issuePlan(Document& doc)
{
    auto n = loadModelFile(HEADROOM_TEST_SOURCE_DIR "/resources/presets/vgg16.json");
    if (!n)
        qFatal("vgg16.json: %s", n.error().message.c_str());
    doc.resetNetwork(std::move(n).value(), QString());
    doc.resetSetup(Precision::Fp32, TrainingSetup {}, gtx1080());
    Parallelism p;
    p.gpus = 4;
    p.sharding = Sharding::Zero2;
    doc.setParallelism(p);
}

bool settled(const MakeItFitPanel& panel)
{
    return QTest::qWaitFor([&] { return !panel.searching(); }, 120000);
}

} // namespace

class BenchMakeItFit : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { test::isolateSettings(); }
    void undoRedoWithoutPanel();
    void undoRedoWithPanel();
};

void BenchMakeItFit::undoRedoWithoutPanel()
{
    Document doc;
    issuePlan(doc);
    ui::PlanController controller(&doc);
    // The same edit as with the panel: row 1 of what the planner lists.
    const auto planned = planSetups(doc.plan(), PlanGoal { 256, {} }, PlanAllowances {});
    QVERIFY(planned && !planned->candidates.empty());
    doc.applyPlanSettings(planned->candidates.front().settings, QStringLiteral("Apply set-up"));
    QBENCHMARK
    {
        doc.undoStack()->undo();
        doc.undoStack()->redo();
    }
}

void BenchMakeItFit::undoRedoWithPanel()
{
    Document doc;
    issuePlan(doc);
    ui::PlanController controller(&doc);
    MakeItFitPanel panel(&doc);
    panel.show();
    panel.findChild<QSpinBox*>(QStringLiteral("targetBatchSpinBox"))->setValue(256);
    QVERIFY(settled(panel));
    QVERIFY(panel.model()->rowCount() > 0);
    panel.applySelected();
    QVERIFY(settled(panel));
    // The panel's own share of an edit: starting a search (a copy of the plan), not the search.
    QElapsedTimer start;
    start.start();
    panel.findSetups();
    const qint64 startNs = start.nsecsElapsed();
    const qint64 startMs = startNs / 1000000;
    qInfo("starting a search on the GUI thread: %.3f ms", static_cast<double>(startNs) / 1e6);
    QVERIFY(panel.searching());
    QVERIFY2(startMs < 50, qPrintable(QStringLiteral("starting a search took %1 ms").arg(startMs)));
    QBENCHMARK
    {
        doc.undoStack()->undo();
        doc.undoStack()->redo();
    }
    // The last search's result arrives, and is the plan's.
    QVERIFY(settled(panel));
    QVERIFY(panel.model()->rowCount() > 0);
}

QTEST_MAIN(BenchMakeItFit)
#include "bench_makeitfit.moc"

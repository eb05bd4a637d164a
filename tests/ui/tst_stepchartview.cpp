// The "During one step" chart (issue 15): the live memory of one training step at the chosen batch,
// with the peak marked. The numbers are tinyMlp()'s (tests/core/tst_steptimeline.cpp works every moment
// out by hand), so the chart is checked against arithmetic, not against the code that draws it.
#include "Document.h"
#include "MainWindow.h"
#include "MemoryChartView.h"
#include "PlanController.h"
#include "SetupPanel.h"
#include "StepChartView.h"
#include "TestSupport.h"
#include "headroom/model/ModelFile.h"
#include "headroom/support/Format.h"

#include <QAbstractScrollArea>
#include <QComboBox>
#include <QElapsedTimer>
#include <QSlider>
#include <QTabWidget>
#include <QTest>
#include <QToolTip>
#include <algorithm>

using namespace headroom;
using headroom::ui::Document;
using headroom::ui::MainWindow;
using headroom::ui::PlanController;
using headroom::ui::StepChartView;

class TestStepChartView : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void peakIsTheStepsPeak_data();
    void peakIsTheStepsPeak();
    void phasesInOrder();
    void firstStepHasNoStateBeforeItsStep();
    void hoverNamesTheMoment();
    void followsTheBatchSlider();
    void presetsPeakAtTheEstimate_data();
    void presetsPeakAtTheEstimate();
    void longNetworkIsThinnedAndStaysQuick();
    void noEstimateSaysWhy();
    void reservedOverTheStep();
    void allocatedLineCountsTheWorkspaces();
    void peakLabelLeavesTheReservedLineInSight();
};

namespace {

/// tinyMlp() of tests/core/NetworkBuilder.h: [4] -> fc1 Linear(8) -> relu -> fc2 Linear(2), cross
/// entropy. 58 parameters: weights 232 B, Adam's state 464 B; the batch is 16 B of input and 8 B of
/// labels per sample. The chart names a layer by number and name: fc1 is layer 1, relu layer 2.
Network tinyMlp()
{
    Network n;
    n.name = "tiny MLP";
    n.input.shape.dims = { 4 };
    const auto layer
        = [](const char* type, const char* name, nlohmann::json attributes = nlohmann::json::object()) {
              LayerSpec l;
              l.type = type;
              l.name = name;
              l.attributes = std::move(attributes);
              return l;
          };
    n.layers = { layer("Linear", "fc1", { { "out_features", 8 } }), layer("ReLU", "relu"),
        layer("Linear", "fc2", { { "out_features", 2 } }) };
    return n;
}

/// The top of the chart's stack at its highest, in bytes.
double highestTotal(const StepChartView& view)
{
    double highest = 0;
    for (const QPointF& p : view.totalPoints())
        highest = std::max(highest, p.y());
    return highest * view.bytesPerUnit();
}

struct Fixture
{
    Document doc;
    PlanController controller { &doc };
    StepChartView view;
    explicit Fixture(const Network& network = tinyMlp())
    {
        QObject::connect(&controller, &PlanController::stepChartChanged, &view, &StepChartView::setData);
        doc.resetNetwork(network, QString());
        Gpu gpu;
        gpu.name = "Small";
        gpu.memoryBytes = 1ULL << 30;
        TrainingSetup setup;
        setup.overheadBytes = 0; // tinyMlp's bytes alone, as tst_steptimeline counts them
        doc.resetSetup(Precision::Fp32, setup, gpu);
        view.resize(900, 420);
        view.show();
    }
    [[nodiscard]] double highestTotal() const { return ::highestTotal(view); }
};

bool near(double a, double b)
{
    return std::abs(a - b) <= 1e-9 * std::max(1.0, std::abs(b));
}

QString bytes(std::uint64_t n)
{
    return QString::fromStdString(formatBytes(n));
}

} // namespace

void TestStepChartView::initTestCase()
{
    test::isolateSettings();
}

void TestStepChartView::peakIsTheStepsPeak_data()
{
    QTest::addColumn<qint64>("batch");
    QTest::addColumn<qint64>("peakBytes");
    QTest::addColumn<QString>("where");
    // tst_steptimeline's tinyMlpPeakMovesWithTheBatch: 696 B of weights and Adam's state, 24 B per
    // sample of batch, and the larger of the optimizer step (gradients 232 + foreach's list 232) and
    // relu's backward (96 B per sample + 72 B of gradients + the 4-byte loss the training loop holds).
    QTest::newRow("batch 1: the optimizer step")
        << qint64 { 1 } << qint64 { 696 + 24 + 464 } << QStringLiteral("Optimizer step");
    QTest::newRow("batch 4: still the step")
        << qint64 { 4 } << qint64 { 696 + 96 + 464 } << QStringLiteral("Optimizer step");
    QTest::newRow("batch 5: relu's backward")
        << qint64 { 5 } << qint64 { 696 + 120 + 552 + 4 } << QStringLiteral("Backward pass, layer 2 (relu)");
    QTest::newRow("batch 32: relu's backward")
        << qint64 { 32 } << qint64 { 4612 } << QStringLiteral("Backward pass, layer 2 (relu)");
}

void TestStepChartView::peakIsTheStepsPeak()
{
    QFETCH(qint64, batch);
    QFETCH(qint64, peakBytes);
    QFETCH(QString, where);
    Fixture f;
    f.doc.setBatch(batch);
    const auto& estimate = f.controller.estimateState().estimate;
    QVERIFY(estimate);
    QCOMPARE(estimate->total(), static_cast<std::uint64_t>(peakBytes));
    // The highest point of the stacked series is the estimate's peak, and the marker sits on it.
    QVERIFY2(near(f.highestTotal(), static_cast<double>(peakBytes)),
        qPrintable(QStringLiteral("%1 drawn, %2 expected").arg(f.highestTotal()).arg(peakBytes)));
    QCOMPARE(f.view.peakPoints().size(), 1);
    QVERIFY(near(f.view.peakPoints().front().y() * f.view.bytesPerUnit(), static_cast<double>(peakBytes)));
    QCOMPARE(f.view.peakLabel(),
        QStringLiteral("Peak %1 · %2").arg(bytes(static_cast<std::uint64_t>(peakBytes)), where));
}

void TestStepChartView::phasesInOrder()
{
    // Five forward moments, the end of the forward pass, five backward moments and the step
    // (tst_steptimeline's tinyMlpMomentByMoment), each band labelled once.
    Fixture f;
    QCOMPARE(f.view.phaseLabels(),
        (QStringList {
            QStringLiteral("Forward"), QStringLiteral("Backward"), QStringLiteral("Optimizer step") }));
    // Two points per moment, 12 moments.
    QCOMPARE(f.view.totalPoints().size(), 24);
    // The GPU's 1 GiB is far above the step: no capacity line flattening the chart. The axis reaches
    // the reserved line (tens of MiB: the cuBLAS workspaces and whole segments), far above the 4.5 KiB
    // of tensors.
    QVERIFY(f.view.capacityPoints().isEmpty());
    QCOMPARE(f.view.unitName(), QStringLiteral("MiB"));
}

void TestStepChartView::firstStepHasNoStateBeforeItsStep()
{
    // The first step at batch 32: relu's backward holds 4,612 - 464 = 4,148 B (Adam's state is created
    // by the optimizer step, which holds 232 + 232 + 464 + 232 + 768 = 1,928 B).
    Fixture f;
    f.doc.setBatch(32);
    QCOMPARE(f.controller.estimateState().estimate->firstStepPeakBytes, std::uint64_t { 4148 });
    f.view.stepKindBox()->setCurrentIndex(
        f.view.stepKindBox()->findData(static_cast<int>(report::StepKind::First)));
    QCOMPARE(f.view.stepKind(), report::StepKind::First);
    QVERIFY(near(f.highestTotal(), 4148.0));
    QCOMPARE(f.view.peakLabel(), QStringLiteral("Peak %1 · Backward pass, layer 2 (relu)").arg(bytes(4148)));
    // The optimizer state's band is empty until the step, then 464 B high.
    const auto gradients = f.view.upperPoints(Component::Gradients);
    const auto state = f.view.upperPoints(Component::OptimizerState);
    QCOMPARE(state.size(), gradients.size());
    for (qsizetype i = 0; i + 2 < state.size(); ++i)
        QCOMPARE(state[i].y(), gradients[i].y());
    QVERIFY(near((state.back().y() - gradients.back().y()) * f.view.bytesPerUnit(), 464.0));
    // Back to the steady step: the state throughout.
    f.view.setStepKind(report::StepKind::Steady);
    QCOMPARE(f.view.stepKindBox()->currentIndex(),
        f.view.stepKindBox()->findData(static_cast<int>(report::StepKind::Steady)));
    QVERIFY(near(f.highestTotal(), 4612.0));
}

void TestStepChartView::hoverNamesTheMoment()
{
    // Batch 32, relu's backward (tst_steptimeline): weights 232 B, gradients 72 B, Adam's state 464 B,
    // activations 32 x 32 = 1 KiB, transient 64 x 32 = 2 KiB, the batch 768 B: 4.50 KiB live.
    Fixture f;
    f.doc.setBatch(32);
    const QString text = f.view.momentText(f.view.xOfMoment(f.view.peakMoment()));
    const QStringList lines = text.split(QLatin1Char('\n'));
    QCOMPARE(lines.front(), QStringLiteral("Backward pass, layer 2 (relu)"));
    QVERIFY2(lines.contains(QStringLiteral("Activations: %1").arg(bytes(1024))), qPrintable(text));
    QVERIFY2(lines.contains(QStringLiteral("Transient: %1").arg(bytes(2048))), qPrintable(text));
    QVERIFY2(lines.contains(QStringLiteral("Gradients: %1").arg(bytes(72))), qPrintable(text));
    QVERIFY2(lines.contains(QStringLiteral("Live: %1 of %2").arg(bytes(4612), bytes(1ULL << 30))),
        qPrintable(text));
    // The first moment: fc1's forward, its 32 B per sample output alive (1 KiB) besides the batch.
    const QString first = f.view.momentText(f.view.xOfMoment(0));
    QVERIFY2(first.startsWith(QStringLiteral("Forward pass, layer 1 (fc1)\n")), qPrintable(first));
    QVERIFY2(first.contains(QStringLiteral("Activations: %1").arg(bytes(1024))), qPrintable(first));
    // The end of the forward pass (moment 5), and the optimizer step (the last).
    QVERIFY(f.view.momentText(f.view.xOfMoment(5))
                .startsWith(QStringLiteral("End of the forward pass, after layer")));
    QVERIFY(f.view.momentText(f.view.xOfMoment(11)).startsWith(QStringLiteral("Optimizer step\n")));
    QVERIFY(f.view.momentText(-5).isEmpty());

    // A real hover over the peak's band shows the same text. At batch 65,536 the stack is tall enough
    // to hover (at batch 32 its 4.5 KiB are a sliver under the reserved line's 66 MiB).
    f.doc.setBatch(65536);
    const QString tall = f.view.momentText(f.view.xOfMoment(f.view.peakMoment()));
    const QPoint peak = f.view.peakPosition();
    QVERIFY(!peak.isNull());
    QWidget* viewport = f.view.findChild<QWidget*>(QStringLiteral("stepChartView"));
    QVERIFY(viewport);
    QWidget* target = static_cast<QAbstractScrollArea*>(viewport)->viewport();
    QTest::mouseMove(target, target->mapFrom(&f.view, peak + QPoint(0, 6)));
    QTRY_VERIFY(QToolTip::isVisible());
    QCOMPARE(QToolTip::text(), tall);
    // Issue 35: along the same band the tooltip follows the pointer (it kept the first moment's text).
    const QPoint earlier = peak + QPoint(-60, 6);
    const QString there = f.view.momentText(f.view.xAt(earlier));
    QVERIFY2(!there.isEmpty() && there != tall, qPrintable(there));
    QTest::mouseMove(target, target->mapFrom(&f.view, earlier));
    QTRY_COMPARE(QToolTip::text(), there);
    QToolTip::hideText();
}

void TestStepChartView::followsTheBatchSlider()
{
    // In the main window: the tab beside the memory chart; each slider step redraws it from the
    // cached model (no new analysis).
    MainWindow window;
    window.setupPanel()->setCatalog(test::testCatalog());
    TrainingSetup setup;
    setup.overheadBytes = 0;
    setup.batch = 16;
    window.document()->resetSetup(Precision::Fp32, setup, test::testCatalog().gpus()[0]);
    window.document()->resetNetwork(tinyMlp(), QString());
    window.resize(1400, 900);
    window.show();
    QTabWidget* tabs = window.chartView()->tabs();
    StepChartView* step = window.chartView()->stepView();
    QCOMPARE(tabs->tabText(tabs->indexOf(step)), QStringLiteral("During one step"));
    tabs->setCurrentWidget(step);
    // Batch 16: relu's backward, 696 + 24 x 16 + 96 x 16 + 72 + the loss 4 = 2,692 B.
    QVERIFY(near(highestTotal(*step), 2692.0));
    auto* slider = window.findChild<QSlider*>(QStringLiteral("batchSlider"));
    QVERIFY(slider);
    const int runs = window.findChild<PlanController*>()->analysisRuns();
    slider->setFocus();
    QTest::keyClick(slider, Qt::Key_PageUp); // one page is a doubling: batch 32
    QCOMPARE(window.document()->plan().setup.batch, std::int64_t { 32 });
    QCOMPARE(step->peakLabel(), QStringLiteral("Peak %1 · Backward pass, layer 2 (relu)").arg(bytes(4612)));
    QTest::keyClick(slider, Qt::Key_PageDown);
    QTest::keyClick(slider, Qt::Key_PageDown);
    QTest::keyClick(slider, Qt::Key_PageDown);
    QTest::keyClick(slider, Qt::Key_PageDown); // batch 2: the optimizer step, 696 + 48 + 464
    QCOMPARE(window.document()->plan().setup.batch, std::int64_t { 2 });
    QCOMPARE(step->peakLabel(), QStringLiteral("Peak %1 · Optimizer step").arg(bytes(1208)));
    QCOMPARE(window.findChild<PlanController*>()->analysisRuns(), runs);
    // Hidden behind the memory chart it skips the ticks, and catches up when shown: batch 32 again.
    tabs->setCurrentIndex(0);
    QVERIFY(!step->isVisible());
    window.document()->setBatch(32);
    tabs->setCurrentWidget(step);
    QCOMPARE(step->peakLabel(), QStringLiteral("Peak %1 · Backward pass, layer 2 (relu)").arg(bytes(4612)));
    window.document()->resetNetwork(window.document()->network(), QString()); // no save prompt
}

void TestStepChartView::presetsPeakAtTheEstimate_data()
{
    QTest::addColumn<QString>("preset");
    QTest::addColumn<qint64>("batch");
    QTest::addColumn<int>("accumulation");
    QTest::addColumn<int>("checkpointing");
    QTest::newRow("VGG-16, batch 32")
        << QStringLiteral("vgg16") << qint64 { 32 } << 1 << int(Checkpointing::None);
    QTest::newRow("ResNet-50, 4 micro-batches")
        << QStringLiteral("resnet50") << qint64 { 16 } << 4 << int(Checkpointing::None);
    QTest::newRow("GPT-2, per-block checkpointing")
        << QStringLiteral("gpt2_small") << qint64 { 4 } << 1 << int(Checkpointing::PerBlock);
}

void TestStepChartView::presetsPeakAtTheEstimate()
{
    // Whatever the network, the chart's highest point is the estimate (the core's peak), and the
    // marker names the layer the estimate names.
    QFETCH(QString, preset);
    QFETCH(qint64, batch);
    QFETCH(int, accumulation);
    QFETCH(int, checkpointing);
    const auto network = loadModelFile(
        QStringLiteral(HEADROOM_TEST_SOURCE_DIR "/resources/presets/%1.json").arg(preset).toStdString());
    QVERIFY(network);
    Fixture f(network.value());
    f.doc.setCheckpointing(static_cast<Checkpointing>(checkpointing));
    f.doc.setAccumulationSteps(accumulation);
    f.doc.setBatch(batch);
    const auto& e = f.controller.estimateState().estimate;
    QVERIFY(e);
    QVERIFY2(near(f.highestTotal(), static_cast<double>(e->total())),
        qPrintable(QStringLiteral("%1 drawn, %2 estimated").arg(f.highestTotal()).arg(e->total())));
    // ... by its number and name, as the estimate's sentence does ("layer 5 (MaxPool2d)").
    if (e->peak.phase != StepPhase::OptimizerStep)
        QVERIFY2(f.view.peakLabel().endsWith(QString::fromStdString(e->peakReference)),
            qPrintable(f.view.peakLabel()));
}

void TestStepChartView::longNetworkIsThinnedAndStaysQuick()
{
    // 10,000 layers: about 20,000 moments, drawn as at most kMaxDrawnMoments bands with the peak kept.
    Fixture f(test::longNetwork(10'000));
    const auto& e = f.controller.estimateState().estimate;
    QVERIFY(e);
    QVERIFY(f.view.totalPoints().size() <= 2 * static_cast<qsizetype>(StepChartView::kMaxDrawnMoments) + 8);
    QVERIFY(near(f.highestTotal(), static_cast<double>(e->total())));
    // A slider tick rebuilds nothing but the chart's points: well under a frame budget of a few ticks.
    QElapsedTimer timer;
    timer.start();
    for (std::int64_t b = 2; b <= 64; b *= 2)
        f.doc.setBatch(b);
    qInfo("10,000 layers, the chart shown: %.1f ms a slider tick", static_cast<double>(timer.elapsed()) / 6);
    QVERIFY2(timer.elapsed() < 3000, qPrintable(QStringLiteral("6 ticks took %1 ms").arg(timer.elapsed())));
    QVERIFY(near(f.highestTotal(), static_cast<double>(f.controller.estimateState().estimate->total())));
}

void TestStepChartView::noEstimateSaysWhy()
{
    Fixture f;
    f.doc.removeLayers({}, 0, static_cast<int>(f.doc.network().layers.size()));
    QVERIFY2(f.view.message().contains(QStringLiteral("empty")), qPrintable(f.view.message()));
    QVERIFY(f.view.peakLabel().isEmpty());
}

void TestStepChartView::reservedOverTheStep()
{
    // tinyMlp() at batch 65,536 (tst_reservedmodel's reservedDuringTheStepByHand works the pools out):
    // the tensors take one small segment for the weights and the batch (2 MiB), a 20 MiB large segment
    // from fc1's 2 MiB output on, a second small segment from fc2's 512 KiB logits on: 24 MiB. This GPU
    // (no catalogue family) counts as Hopper: each of the two cuBLAS handles (the main thread's at fc1's
    // forward, autograd's at fc2's backward) keeps a 32 MiB workspace, a segment of its own (32 MiB is a
    // multiple of 2 MiB). A steady step: 24 + 2 x 32 = 88 MiB at every moment; the first step: 54 MiB
    // (2 + 20 + 32) while fc1 and relu run forward.
    Fixture f;
    f.doc.setBatch(65536);
    QTRY_VERIFY(!f.view.reservedPoints().isEmpty());
    const QList<QPointF> steady = f.view.reservedPoints();
    QCOMPARE(steady.size(), static_cast<qsizetype>(2 * f.view.chart().moments.size()));
    for (const QPointF& p : steady)
        QCOMPARE(qRound64(p.y() * f.view.bytesPerUnit()), qint64 { 88 } << 20);
    // Every moment's reserved bytes are at least its live bytes, and the hover says them.
    const QList<QPointF> totals = f.view.totalPoints();
    for (qsizetype i = 0; i < totals.size() && i < steady.size(); ++i)
        QVERIFY(steady[i].y() >= totals[i].y());
    QVERIFY2(f.view.momentText(f.view.xOfMoment(0)).contains(QStringLiteral("Reserved by PyTorch")),
        qPrintable(f.view.momentText(f.view.xOfMoment(0))));
    f.view.setStepKind(report::StepKind::First);
    const QList<QPointF> first = f.view.reservedPoints();
    QCOMPARE(qRound64(first.front().y() * f.view.bytesPerUnit()), qint64 { 54 } << 20);
    QCOMPARE(qRound64(first.back().y() * f.view.bytesPerUnit()), qint64 { 88 } << 20);
}

void TestStepChartView::allocatedLineCountsTheWorkspaces()
{
    // Issue 34, item 5: torch.cuda.max_memory_allocated() counts the cuBLAS workspaces, which PyTorch
    // allocates through its caching allocator (getCUDABlasLtWorkspace / getCurrentCUDABlasHandle), so the
    // chart draws them on top of the tensors. tinyMlp() on this GPU (Hopper: 32 MiB a handle,
    // CUBLAS_WORKSPACE _CONFIG's default :4096:8 = 8 x 4,096 KiB): the main thread's handle from fc1's
    // forward, autograd's from fc2's backward. A steady step: both at every moment, 64 MiB above the stack;
    // the first step's first moment (fc1 running forward): the main thread's 32 MiB only. No convolution: no
    // cuDNN workspace.
    Fixture f;
    f.doc.setBatch(65536);
    QTRY_VERIFY(!f.view.allocatedPoints().isEmpty());
    const QList<QPointF> steady = f.view.allocatedPoints();
    const QList<QPointF> totals = f.view.totalPoints();
    QCOMPARE(steady.size(), totals.size());
    const double unit = f.view.bytesPerUnit();
    for (qsizetype i = 0; i < steady.size(); ++i)
        QCOMPARE(qRound64((steady[i].y() - totals[i].y()) * unit), qint64 { 64 } << 20);
    const QString hover = f.view.momentText(f.view.xOfMoment(0));
    QVERIFY2(hover.contains(QStringLiteral("workspaces (allocated): 64.00 MiB")), qPrintable(hover));
    f.view.setStepKind(report::StepKind::First);
    const QList<QPointF> first = f.view.allocatedPoints();
    const QList<QPointF> firstTotals = f.view.totalPoints();
    QCOMPARE(qRound64((first.front().y() - firstTotals.front().y()) * unit), qint64 { 32 } << 20);
    QCOMPARE(qRound64((first.back().y() - firstTotals.back().y()) * unit), qint64 { 64 } << 20);
}

void TestStepChartView::peakLabelLeavesTheReservedLineInSight()
{
    // VGG-16 at batch 32 (the user guide's picture): the reserved line runs a few pixels above the
    // stack's peak, where the peak's label would go: the line must not run through the label's box.
    // On the picture's GPU (a GTX 1080, Pascal: 8 GiB) with the default framework overhead, the line
    // also climbs to the optimizer step's level inside the label's width.
    const auto network = loadModelFile(HEADROOM_TEST_SOURCE_DIR "/resources/presets/vgg16.json");
    QVERIFY(network);
    Fixture f(network.value());
    Gpu gtx1080;
    gtx1080.name = "GeForce GTX 1080";
    gtx1080.family = "GeForce 10 (Pascal)";
    gtx1080.memoryBytes = 8ULL << 30;
    f.doc.resetSetup(Precision::Fp32, TrainingSetup {}, gtx1080);
    f.doc.setBatch(32);
    QTRY_VERIFY(!f.view.reservedPoints().isEmpty());
    const QRectF box = f.view.peakLabelBox();
    QVERIFY(!box.isEmpty());
    // The line is steps: flat along each moment's band, upright between bands.
    const QList<QPointF> line = f.view.reservedPoints();
    for (qsizetype i = 0; i + 1 < line.size(); ++i) {
        const QRectF segment = QRectF(line[i], line[i + 1]).normalized();
        const bool crosses = segment.right() >= box.left() && segment.left() <= box.right()
            && segment.bottom() >= box.top() && segment.top() <= box.bottom();
        QVERIFY2(!crosses,
            qPrintable(QStringLiteral("the reserved line (%1, %2)-(%3, %4) runs under the peak's label")
                           .arg(line[i].x())
                           .arg(line[i].y())
                           .arg(line[i + 1].x())
                           .arg(line[i + 1].y())));
    }
}

QTEST_MAIN(TestStepChartView)
#include "tst_stepchartview.moc"

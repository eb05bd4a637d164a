// Issue 35 items 14 and 16, each driven through the real widgets: a refusal next to a number field goes
// once the field holds a new value; the throughput caveats read in full; the charts' memory ticks are
// round (1, 2, 2.5 or 5 x 10^k); the GPU's label on the memory chart is not crossed by the batch lines;
// numbers are grouped and shares written as everywhere else; each value typed in the batch box is one
// undo step; after Delete and Undo the property panel names the highlighted layer.
#include "BatchPanel.h"
#include "Document.h"
#include "ElidedLabel.h"
#include "EntryNote.h"
#include "GpuCompareView.h"
#include "GpuComparisonModel.h"
#include "LayerEditor.h"
#include "LayerTableModel.h"
#include "MainWindow.h"
#include "MainWindowFixture.h"
#include "MemoryChartView.h"
#include "PlanController.h"
#include "PropertyPanel.h"
#include "StepChartView.h"
#include "TestSupport.h"
#include "headroom/support/Format.h"

#include <QAction>
#include <QApplication>
#include <QGraphicsTextItem>
#include <QGraphicsView>
#include <QGroupBox>
#include <QHelpEvent>
#include <QLabel>
#include <QLineEdit>
#include <QRegularExpression>
#include <QSettings>
#include <QSlider>
#include <QSpinBox>
#include <QTabWidget>
#include <QTest>
#include <QToolTip>
#include <QTreeView>
#include <QUndoStack>
#include <QVBoxLayout>
#include <algorithm>
#include <array>
#include <cmath>

using namespace headroom;
using namespace headroom::ui;
using namespace headroom::test;

class TestPolish : public QObject, private MainWindowFixture
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { test::isolateSettings(); }
    void init() { QSettings().clear(); }
    void refusalGoesWithANewValue();
    void putBackNoteGoesWithANewValue();
    void throughputNotesReadInFull();
    void memoryTicksAreRound();
    void stepTicksAreRound();
    void gpuLabelClearOfTheBatchLines();
    void numbersAsEverywhereElse();
    void typedBatchesUndoOneByOne();
    void undoneDeleteNamesTheHighlightedLayer();
    void optimizerStepLabelShown();
};

namespace {

/// Whether `labels` are 0, s, 2s, ... for a step s of 1, 2, 2.5 or 5 x 10^k, each written exactly
/// (a tick at 1.25 written "1.3" is not); `why` says what is wrong.
bool roundTicks(const QStringList& labels, QString* why)
{
    *why = labels.join(QStringLiteral(" / "));
    if (labels.size() < 3)
        return false;
    std::vector<double> values;
    for (const QString& l : labels) {
        bool ok = false;
        values.push_back(l.toDouble(&ok));
        if (!ok)
            return false;
    }
    const double step = values[1] - values[0];
    if (values[0] != 0 || !(step > 0))
        return false;
    const double mantissa = step / std::pow(10.0, std::floor(std::log10(step) + 1e-12));
    constexpr std::array<double, 4> kRound { 1.0, 2.0, 2.5, 5.0 };
    if (std::none_of(kRound.begin(), kRound.end(), [&](double m) { return std::abs(mantissa - m) < 1e-9; }))
        return false;
    for (std::size_t i = 0; i < values.size(); ++i) {
        if (std::abs(values[i] - static_cast<double>(i) * step) > 1e-9 * std::max(1.0, values[i]))
            return false;
    }
    return true;
}

bool isRed(const QLabel* label)
{
    return label->styleSheet().contains(QStringLiteral("#c01010"));
}

} // namespace

// A bare spin box (1..100, at 10) with its note: "0" typed is refused in red; the Up arrow then gives
// the field a new value (11) and the refusal is gone at once, before any edit reaches a document.
void TestPolish::refusalGoesWithANewValue()
{
    QWidget window;
    auto* spin = new QSpinBox(&window);
    spin->setRange(1, 100);
    spin->setValue(10);
    auto* label = new QLabel(&window);
    auto* layout = new QVBoxLayout(&window);
    layout->addWidget(spin);
    layout->addWidget(label);
    auto* note
        = new EntryNote(spin, QStringLiteral("the size"), QStringLiteral("whole numbers from 1 to 100"));
    connect(
        note, &EntryNote::changed, label, [&] { EntryNote::show(label, note->text(), note->isProblem()); });
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    spin->setFocus();
    spin->selectAll();
    QTest::keyClicks(spin, QStringLiteral("0"));
    QCOMPARE(
        label->text(), QStringLiteral("“0” is not allowed: the size takes whole numbers from 1 to 100."));
    QVERIFY(label->isVisible() && isRed(label));
    // The Up arrow on a number the field cannot take puts the old value back (QAbstractSpinBox::stepBy
    // steps only from an acceptable text): the red refusal becomes the muted note that says so.
    QTest::keyClick(spin, Qt::Key_Up);
    QCOMPARE(spin->text(), QStringLiteral("10"));
    QCOMPARE(label->text(), QStringLiteral("“0” is not allowed, so the size stays 10."));
    QVERIFY(!isRed(label));
    // The next Up steps to 11: a new value, and the note is gone.
    QTest::keyClick(spin, Qt::Key_Up);
    QCOMPARE(spin->value(), 11);
    QVERIFY2(label->isHidden(), qPrintable(label->text()));
    // Keys a number cannot hold, then the arrows' new value: gone too.
    QTest::keyClicks(spin, QStringLiteral("x"));
    QVERIFY(label->isVisible() && label->text().startsWith(QStringLiteral("“x” cannot be typed here")));
    QVERIFY(isRed(label));
    QTest::keyClick(spin, Qt::Key_Up);
    QCOMPARE(spin->value(), 12);
    QVERIFY2(label->isHidden(), qPrintable(label->text()));
}

// The muted note about a value put back stays while the field keeps that value, and goes with the next.
void TestPolish::putBackNoteGoesWithANewValue()
{
    QWidget window;
    auto* spin = new QSpinBox(&window);
    spin->setRange(1, 100);
    spin->setValue(10);
    auto* other = new QLineEdit(&window);
    auto* label = new QLabel(&window);
    auto* layout = new QVBoxLayout(&window);
    layout->addWidget(spin);
    layout->addWidget(other);
    layout->addWidget(label);
    auto* note
        = new EntryNote(spin, QStringLiteral("the size"), QStringLiteral("whole numbers from 1 to 100"));
    connect(
        note, &EntryNote::changed, label, [&] { EntryNote::show(label, note->text(), note->isProblem()); });
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    spin->setFocus();
    spin->selectAll();
    QTest::keyClicks(spin, QStringLiteral("0"));
    QTest::keyClick(spin, Qt::Key_Return);
    QCOMPARE(spin->value(), 10);
    QCOMPARE(label->text(), QStringLiteral("“0” is not allowed, so the size stays 10."));
    QVERIFY(label->isVisible() && !isRed(label));
    other->setFocus();
    QVERIFY(label->isVisible()); // still 10: still true
    spin->setValue(20); // from outside (undo, another control)
    QVERIFY(label->isHidden());
}

// The caveats under the throughput (the utilisation assumed, the communication compute does not hide with
// several GPUs) stay one line each in a narrow window; each is readable whole, on hover, however narrow.
void TestPolish::throughputNotesReadInFull()
{
    auto w = makeWindow();
    MainWindow& win = w->window;
    Gpu gpu = win.document()->plan().gpu;
    gpu.name = "Figures GPU";
    gpu.bandwidthGBps = 320;
    gpu.fp32Tflops = 8.9;
    win.document()->setGpu(gpu);
    Parallelism parallel;
    parallel.gpus = 2;
    win.document()->setParallelism(parallel);
    auto* notes = child<ElidedLabel>(win, "throughputNotesLabel");
    QVERIFY(notes != nullptr && notes->isVisible());
    const QStringList lines = notes->fullText().split(QLatin1Char('\n'));
    const auto communication = std::find_if(lines.begin(), lines.end(),
        [](const QString& l) { return l.startsWith(QStringLiteral("Communication between GPUs: ")); });
    QVERIFY2(communication != lines.end(), qPrintable(notes->fullText()));
    // Narrow: cut with an ellipsis.
    win.resize(win.minimumSize());
    QTRY_VERIFY(notes->isElided());
    QVERIFY(notes->text().contains(QChar(0x2026)));
    // Hovering shows every caveat whole.
    const QPoint at = notes->rect().center();
    QHelpEvent help(QEvent::ToolTip, at, notes->mapToGlobal(at));
    QApplication::sendEvent(notes, &help);
    QTRY_VERIFY(QToolTip::isVisible());
    QString shown = QToolTip::text();
    shown.remove(QRegularExpression(QStringLiteral("<[^>]*>")))
        .replace(QStringLiteral("&nbsp;"), QStringLiteral(" "));
    shown = shown.simplified();
    for (const QString& line : lines)
        QVERIFY2(shown.contains(line.simplified()), qPrintable(line + QStringLiteral(" // ") + shown));
    QVERIFY(shown.contains(QStringLiteral("Click to show in full")));
    QToolTip::hideText();
    // A click unfolds them: every caveat whole, wrapped, with no ellipsis; the label grows to show them.
    const int folded = notes->height();
    QTest::mouseClick(notes, Qt::LeftButton, {}, notes->rect().center());
    QVERIFY(notes->isExpanded());
    QVERIFY(notes->wordWrap());
    QCOMPARE(notes->text(), notes->fullText());
    QVERIFY(!notes->text().contains(QChar(0x2026)));
    QTRY_VERIFY2(
        notes->height() > folded, qPrintable(QStringLiteral("%1 <= %2").arg(notes->height()).arg(folded)));
    QVERIFY(notes->height() >= notes->heightForWidth(notes->width()) - 1);
    // Another click folds them again.
    QTest::mouseClick(notes, Qt::LeftButton, {}, notes->rect().center());
    QVERIFY(!notes->isExpanded());
    QTRY_VERIFY(notes->isElided());
}

// The memory chart's axis for GPUs of several sizes: every set of ticks round.
void TestPolish::memoryTicksAreRound()
{
    Document doc;
    PlanController controller { &doc };
    MemoryChartView view;
    QObject::connect(&controller, &PlanController::chartDataChanged, &view, &MemoryChartView::setData);
    QObject::connect(&controller, &PlanController::estimateChanged, &view, &MemoryChartView::setEstimate);
    doc.resetNetwork(test::tinyNetwork(), QString());
    view.resize(800, 500);
    view.show();
    for (const std::uint64_t mib : { 300, 600, 1000, 1024, 2500, 3000, 6000, 11264, 24576, 40960, 81920 }) {
        Gpu gpu;
        gpu.name = "Card";
        gpu.memoryBytes = mib << 20;
        doc.resetSetup(Precision::Fp32, TrainingSetup {}, gpu);
        QString why;
        QVERIFY2(roundTicks(view.memoryAxisLabels(), &why),
            qPrintable(QStringLiteral("%1 MiB: %2").arg(mib).arg(why)));
    }
}

// The step chart at batches from 1 to 4,096 and on GPUs near its peak (the capacity drawn): round ticks.
// (The "3/5/8/13" was a 12.5 top cut in four; "1.3/2.5/3.8", a 5 top cut in four.)
void TestPolish::stepTicksAreRound()
{
    Document doc;
    PlanController controller { &doc };
    StepChartView view;
    QObject::connect(&controller, &PlanController::stepChartChanged, &view, &StepChartView::setData);
    doc.resetNetwork(test::tinyNetwork(), QString());
    view.resize(900, 420);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    // The overhead is part of the reserved line, the chart's highest: it moves the axis's top through
    // MiB and GiB, and the GPU's memory near it is drawn (and reached) too.
    int charts = 0;
    for (const std::uint64_t overheadMiB : { 0, 1, 2, 3, 5, 7, 9, 11, 14, 19, 27, 40, 90, 300, 2500, 9000 }) {
        for (const std::uint64_t gpuMiB : { 81920, 50 }) {
            Gpu gpu;
            gpu.name = "Card";
            gpu.memoryBytes = gpuMiB << 20;
            TrainingSetup setup;
            setup.overheadBytes = overheadMiB << 20;
            doc.resetSetup(Precision::Fp32, setup, gpu);
            for (const std::int64_t batch : { 1, 4096 }) {
                doc.setBatch(batch);
                if (!view.message().isEmpty())
                    continue; // no estimate: no chart
                ++charts;
                QString why;
                QVERIFY2(roundTicks(view.memoryAxisLabels(), &why),
                    qPrintable(QStringLiteral("overhead %1 MiB, GPU %2 MiB, batch %3: %4")
                                   .arg(overheadMiB)
                                   .arg(gpuMiB)
                                   .arg(batch)
                                   .arg(why)));
            }
        }
    }
    QVERIFY(charts >= 32);
}

// At batch 1 the batch line is at the left edge of the log axis, where the GPU's label goes: the label
// moves clear of it (and of the max batch's line).
void TestPolish::gpuLabelClearOfTheBatchLines()
{
    Document doc;
    PlanController controller { &doc };
    MemoryChartView view;
    QObject::connect(&controller, &PlanController::chartDataChanged, &view, &MemoryChartView::setData);
    QObject::connect(&controller, &PlanController::estimateChanged, &view, &MemoryChartView::setEstimate);
    doc.resetNetwork(test::tinyNetwork(), QString());
    Gpu gpu;
    gpu.name = "Small";
    gpu.memoryBytes = 1ULL << 30;
    doc.resetSetup(Precision::Fp32, TrainingSetup {}, gpu);
    view.resize(800, 500);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    for (const std::int64_t batch : { 1, 2, 3, 32 }) {
        doc.setBatch(batch);
        const QRectF box = view.capacityLabelBox();
        QVERIFY(!box.isEmpty());
        const double maxBatch = view.maxBatchPoints().isEmpty() ? -1 : view.maxBatchPoints().front().x();
        for (const double line : { static_cast<double>(batch), maxBatch }) {
            if (line > 0)
                QVERIFY2(line < box.left() || line > box.right(),
                    qPrintable(QStringLiteral("batch %1: a line at %2 crosses the label from %3 to %4")
                                   .arg(batch)
                                   .arg(line)
                                   .arg(box.left())
                                   .arg(box.right())));
        }
    }
}

// Counts grouped as the CLI and the report group them (formatCount), shares as they write them ("95.8 %"):
// Tiny with its conv frozen trains 2,570 of 2,682 parameters, 100 x 2570 / 2682 = 95.82 %.
void TestPolish::numbersAsEverywhereElse()
{
    auto w = makeWindow();
    MainWindow& win = w->window;
    win.document()->setLayerFrozen({ 0 }, true);
    QCOMPARE(child<QLabel>(win, "trainableLabel")->text(),
        QStringLiteral("Trainable: 2,570 of 2,682 parameters (95.8 %)"));
    // Compare GPUs: Tiny's max batch on 8 GiB is in the hundreds of thousands, grouped.
    GpuCompareView* compare = win.gpuCompareView();
    compare->setGpus(test::testCatalog().gpus());
    compare->refresh();
    QVERIFY(compare->model()->rowCount() > 0);
    const std::int64_t max = compare->model()->rows()[0].estimate.maxBatch;
    QVERIFY(max >= 1000);
    QCOMPARE(compare->model()->index(0, GpuComparisonModel::MaxBatchColumn).data().toString(),
        QString::fromStdString(formatCount(static_cast<std::uint64_t>(max))));
    QVERIFY(compare->model()
                ->index(0, GpuComparisonModel::MaxBatchColumn)
                .data()
                .toString()
                .contains(QLatin1Char(',')));
}

// 32 -> 48 -> 40 typed in the batch box: Undo goes to 48, then 32. A slider drag stays one step.
void TestPolish::typedBatchesUndoOneByOne()
{
    auto w = makeWindow();
    MainWindow& win = w->window;
    auto* spin = child<QSpinBox>(win, "batchSpinBox");
    QCOMPARE(spin->value(), 32);
    for (const char* typed : { "48", "40" }) {
        spin->setFocus();
        spin->selectAll();
        QTest::keyClicks(spin, QString::fromLatin1(typed));
        QTest::keyClick(spin, Qt::Key_Return);
    }
    QCOMPARE(win.document()->plan().setup.batch, std::int64_t { 40 });
    QAction* undo = child<QAction>(win, "undoAction");
    undo->trigger();
    QCOMPARE(win.document()->plan().setup.batch, std::int64_t { 48 });
    QCOMPARE(spin->value(), 48);
    undo->trigger();
    QCOMPARE(win.document()->plan().setup.batch, std::int64_t { 32 });
    QVERIFY(!undo->isEnabled());

    // Typed and left to rest (the pause commits it), then typed again: two steps as well.
    spin->setFocus();
    spin->selectAll();
    QTest::keyClicks(spin, QStringLiteral("64"));
    QTRY_COMPARE(win.document()->plan().setup.batch, std::int64_t { 64 });
    spin->selectAll();
    QTest::keyClicks(spin, QStringLiteral("16"));
    QTRY_COMPARE(win.document()->plan().setup.batch, std::int64_t { 16 });
    QCOMPARE(win.document()->undoStack()->count(), 2);

    // A drag: many values, one step, which does not swallow the typed 16 before it.
    auto* slider = child<QSlider>(win, "batchSlider");
    slider->setSliderDown(true);
    for (int p = slider->value() + 10; p <= slider->value() + 200; p += 10)
        slider->setValue(p);
    slider->setSliderDown(false);
    QVERIFY(win.document()->plan().setup.batch > 16);
    QCOMPARE(win.document()->undoStack()->count(), 3);
    undo->trigger();
    QCOMPARE(win.document()->plan().setup.batch, std::int64_t { 16 });
    // A second drag is a step of its own too.
    slider->setSliderDown(true);
    slider->setValue(slider->value() + 50);
    slider->setValue(slider->value() + 50);
    slider->setSliderDown(false);
    const std::int64_t dragged = win.document()->plan().setup.batch;
    slider->setSliderDown(true);
    slider->setValue(slider->value() + 50);
    slider->setSliderDown(false);
    undo->trigger();
    QCOMPARE(win.document()->plan().setup.batch, dragged);
}

// Tiny: conv, ReLU, Flatten, fc. Delete the ReLU (row 2): the Flatten is highlighted and named. Undo
// brings the ReLU back before it: the Flatten is still highlighted, now row 3, and the panel says so.
void TestPolish::undoneDeleteNamesTheHighlightedLayer()
{
    auto w = makeWindow();
    MainWindow& win = w->window;
    LayerEditor* editor = win.layerEditor();
    editor->selectPath({ 1 });
    editor->view()->setFocus();
    QTRY_VERIFY(editor->view()->hasFocus());
    QTest::keyClick(editor->view(), Qt::Key_Delete);
    QCOMPARE(editor->model()->rowCount(), 3);
    auto* group = win.propertyPanel()->findChild<QGroupBox*>(QStringLiteral("layerGroupBox"));
    QVERIFY(group != nullptr);
    QCOMPARE(editor->currentPath(), LayerPath { 1 });
    QCOMPARE(group->title(), QStringLiteral("Layer 2: Flatten"));
    QTest::keyClick(editor->view(), Qt::Key_Z, Qt::ControlModifier);
    QCOMPARE(editor->model()->rowCount(), 4);
    const LayerPath highlighted = editor->currentPath();
    const QModelIndexList selected = editor->view()->selectionModel()->selectedRows();
    QCOMPARE(selected.size(), 1);
    QCOMPARE(editor->model()->pathOf(selected.front()), highlighted);
    const std::string type = win.document()->spec(highlighted)->type;
    QCOMPARE(group->title(),
        QStringLiteral("Layer %1: %2").arg(highlighted.front() + 1).arg(QString::fromStdString(type)));
}

// VGG-16 in the window the first start opens on a 1600 x 1000 screen (1480 x 920): "During one step"
// labels its three phases under the plot, the optimizer step's too (its band is a fifth of the axis,
// narrower than "Optimizer step" on one line, and Qt Charts hid the label).
void TestPolish::optimizerStepLabelShown()
{
    const auto preset = QStringLiteral(HEADROOM_TEST_SOURCE_DIR "/resources/presets/vgg16.json");
    auto w = makeWindow();
    MainWindow& win = w->window;
    QVERIFY(win.openFile(preset));
    win.resize(1480, 920);
    win.chartView()->tabs()->setCurrentWidget(win.chartView()->stepView());
    auto* chart = qobject_cast<QGraphicsView*>(win.chartView()->stepView()->chartWidget());
    QVERIFY(chart != nullptr);
    QTRY_VERIFY(chart->isVisible());
    QTest::qWait(50);
    QStringList shown;
    for (const QGraphicsItem* item : chart->scene()->items()) {
        const auto* text = qgraphicsitem_cast<const QGraphicsTextItem*>(item);
        if (text != nullptr && text->isVisible())
            shown << text->toPlainText().simplified();
    }
    for (const QString& phase : win.chartView()->stepView()->phaseLabels())
        QVERIFY2(shown.contains(phase),
            qPrintable(phase + QStringLiteral(" not in ") + shown.join(QStringLiteral(" | "))));
}

QTEST_MAIN(TestPolish)
#include "tst_polish.moc"

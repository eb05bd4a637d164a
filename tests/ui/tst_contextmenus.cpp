// Right-clicks and double-clicks (issue 35 item 13), driven as the user does them on the real main window
// (MainWindowFixture.h): the layer table's menu inserts, removes, duplicates, checkpoints and freezes through
// the Layer menu's actions, each one undo step; the charts' menu copies the chart, writes it as a PNG and
// exports the report; Compare GPUs' menu, and a double-click on a row, set the plan's GPU.
#include "Document.h"
#include "GpuCompareView.h"
#include "GpuComparisonModel.h"
#include "LayerEditor.h"
#include "LayerTableModel.h"
#include "MainWindow.h"
#include "MainWindowFixture.h"
#include "MemoryChartView.h"
#include "StepChartView.h"
#include "TestSupport.h"

#include <QAbstractScrollArea>
#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QContextMenuEvent>
#include <QDockWidget>
#include <QImage>
#include <QMenu>
#include <QSettings>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeView>
#include <QUndoStack>

using namespace headroom;
using namespace headroom::ui;
using namespace headroom::test;

class TestContextMenus : public QObject, private MainWindowFixture
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { test::isolateSettings(); }
    void init() { QSettings().clear(); }
    void cleanup();
    void layerTableMenuEditsTheRowClicked();
    void layerTableMenuFreezesAndCheckpoints();
    void layerTableMenuBelowTheRowsAppends();
    void chartMenuCopiesAndExports();
    void stepChartHasTheSameMenu();
    void compareMenuAndDoubleClickUseTheGpu();
};

namespace {

/// A right-click at `position` of `area`'s viewport, as the window system delivers it (a mouse
/// context-menu event), and the popup it opened.
QMenu* rightClick(QAbstractScrollArea* area, const QPoint& position)
{
    QWidget* viewport = area->viewport();
    QContextMenuEvent event(QContextMenuEvent::Mouse, position, viewport->mapToGlobal(position));
    QApplication::sendEvent(viewport, &event);
    QMenu* menu = nullptr;
    (void)QTest::qWaitFor([&] {
        menu = qobject_cast<QMenu*>(QApplication::activePopupWidget());
        return menu != nullptr && menu->isVisible();
    });
    return menu;
}

/// The visible action of `menu` named `name` (its object name), or null.
QAction* item(const QMenu* menu, const char* name)
{
    for (QAction* a : menu->actions()) {
        if (a->objectName() == QLatin1String(name) && a->isVisible())
            return a;
    }
    return nullptr;
}

/// Triggers `action` of an open `menu` as a click on it does: the menu closes, then the action runs.
void choose(QMenu* menu, QAction* action)
{
    menu->close();
    action->trigger();
}

QPoint rowCentre(const QTreeView* view, const QModelIndex& index)
{
    return view->visualRect(index).center();
}

} // namespace

void TestContextMenus::cleanup()
{
    if (QWidget* popup = QApplication::activePopupWidget())
        popup->close();
}

// Tiny: conv, ReLU, Flatten, fc. A right-click on the ReLU (row 2) selects it and offers the Layer
// menu's actions; Remove takes it away in one undo step, Duplicate copies it after itself.
void TestContextMenus::layerTableMenuEditsTheRowClicked()
{
    auto w = makeWindow();
    MainWindow& win = w->window;
    LayerEditor* editor = win.layerEditor();
    QTreeView* view = editor->view();
    LayerTableModel* model = editor->model();
    editor->selectPath({ 3 }); // the fc is selected; the right-click is on the ReLU
    QMenu* menu = rightClick(view, rowCentre(view, model->index(1, LayerTableModel::TypeColumn)));
    QVERIFY(menu != nullptr);
    QCOMPARE(menu, editor->contextMenu());
    QCOMPARE(editor->currentPath(), LayerPath { 1 });
    QCOMPARE(view->selectionModel()->selectedRows().size(), 1);
    for (const char* name :
        { "removeLayerAction", "duplicateLayerAction", "checkpointSelectionAction", "freezeLayerAction" })
        QVERIFY2(item(menu, name) != nullptr && item(menu, name)->isEnabled(), name);
    // Insert: the Add Layer menu, which inserts after the row clicked.
    const QList<QAction*> actions = menu->actions();
    QVERIFY(std::any_of(
        actions.begin(), actions.end(), [&](QAction* a) { return a->menu() == editor->addLayerMenu(); }));

    choose(menu, item(menu, "removeLayerAction"));
    QCOMPARE(model->rowCount(), 3);
    QCOMPARE(win.document()->network().layers[1].type, std::string("Flatten"));
    win.document()->undoStack()->undo();
    QCOMPARE(model->rowCount(), 4);
    QCOMPARE(win.document()->network().layers[1].type, std::string("ReLU"));

    menu = rightClick(view, rowCentre(view, model->index(1, LayerTableModel::TypeColumn)));
    QVERIFY(menu != nullptr);
    choose(menu, item(menu, "duplicateLayerAction"));
    QCOMPARE(model->rowCount(), 5);
    QCOMPARE(win.document()->network().layers[2].type, std::string("ReLU"));
    QCOMPARE(win.document()->undoStack()->count(), 1); // the undone Remove made way for it

    // Insert a Linear after the conv (row 1) from the menu's Add Layer submenu.
    menu = rightClick(view, rowCentre(view, model->index(0, LayerTableModel::NameColumn)));
    QVERIFY(menu != nullptr);
    QCOMPARE(editor->currentPath(), LayerPath { 0 });
    QAction* linear = win.findChild<QAction*>(QStringLiteral("addLinearAction"));
    QVERIFY(linear != nullptr);
    choose(menu, linear);
    QCOMPARE(model->rowCount(), 6);
    QCOMPARE(win.document()->network().layers[1].type, std::string("Linear"));
    QCOMPARE(editor->currentPath(), LayerPath { 1 });
}

// Two layers selected, the right-click on one of them: the selection stays, Freeze freezes both in one
// undo step (the conv's 112 and the fc's 2,570 parameters stop training: 0 of 2,682 train), and the menu
// then shows Freeze ticked; Checkpoint Selection wraps the selected top-level run in one block.
void TestContextMenus::layerTableMenuFreezesAndCheckpoints()
{
    auto w = makeWindow();
    MainWindow& win = w->window;
    LayerEditor* editor = win.layerEditor();
    QTreeView* view = editor->view();
    LayerTableModel* model = editor->model();
    editor->selectPath({ 0 });
    view->selectionModel()->select(
        model->index(3, 0), QItemSelectionModel::Select | QItemSelectionModel::Rows);
    QMenu* menu = rightClick(view, rowCentre(view, model->index(3, LayerTableModel::TypeColumn)));
    QVERIFY(menu != nullptr);
    QCOMPARE(view->selectionModel()->selectedRows().size(), 2);
    QAction* freeze = item(menu, "freezeLayerAction");
    QVERIFY(freeze != nullptr && freeze->isCheckable() && !freeze->isChecked());
    const int steps = win.document()->undoStack()->count();
    menu->close();
    freeze->trigger(); // checks it, as a click does
    QVERIFY(win.document()->network().layers[0].frozen);
    QVERIFY(win.document()->network().layers[3].frozen);
    QVERIFY(!win.document()->network().layers[1].frozen);
    QCOMPARE(win.document()->undoStack()->count(), steps + 1);
    QCOMPARE(win.controller()->analysis().trainableParams, std::uint64_t { 0 });
    menu = rightClick(view, rowCentre(view, model->index(0, LayerTableModel::TypeColumn)));
    QVERIFY(menu != nullptr);
    QVERIFY(item(menu, "freezeLayerAction")->isChecked());
    menu->close();
    // One Undo unfreezes both.
    win.document()->undoStack()->undo();
    QVERIFY(!win.document()->network().layers[0].frozen);
    QVERIFY(!win.document()->network().layers[3].frozen);
    QCOMPARE(win.controller()->analysis().trainableParams, test::kTinyParams);

    // Checkpoint the ReLU and the Flatten (rows 2-3) from the menu: one checkpointed block.
    editor->selectPath({ 1 });
    view->selectionModel()->select(
        model->index(2, 0), QItemSelectionModel::Select | QItemSelectionModel::Rows);
    menu = rightClick(view, rowCentre(view, model->index(2, LayerTableModel::TypeColumn)));
    QVERIFY(menu != nullptr);
    choose(menu, item(menu, "checkpointSelectionAction"));
    QCOMPARE(model->rowCount(), 3);
    const LayerSpec& block = win.document()->network().layers[1];
    QVERIFY(block.isRepeat() && block.checkpoint);
    QCOMPARE(block.children.size(), std::size_t { 2 });
    win.document()->undoStack()->undo();
    QCOMPARE(model->rowCount(), 4);
}

// Below the last row nothing is selected: Remove is off and Add Layer appends at the end.
void TestContextMenus::layerTableMenuBelowTheRowsAppends()
{
    auto w = makeWindow();
    MainWindow& win = w->window;
    LayerEditor* editor = win.layerEditor();
    QTreeView* view = editor->view();
    editor->selectPath({ 1 });
    const QRect last = view->visualRect(editor->model()->index(3, 0));
    const QPoint below(last.center().x(), last.bottom() + 2 * last.height());
    QVERIFY(below.y() < view->viewport()->height());
    QMenu* menu = rightClick(view, below);
    QVERIFY(menu != nullptr);
    QVERIFY(!item(menu, "removeLayerAction")->isEnabled());
    QVERIFY(!item(menu, "freezeLayerAction")->isEnabled());
    choose(menu, win.findChild<QAction*>(QStringLiteral("addReLUAction")));
    QCOMPARE(editor->model()->rowCount(), 5);
    QCOMPARE(win.document()->network().layers[4].type, std::string("ReLU"));
}

// The memory chart's menu: Copy Image puts the chart on the clipboard, the size of the chart on screen;
// Export Image writes it as a PNG where the user chose; Export Report writes the PDF.
void TestContextMenus::chartMenuCopiesAndExports()
{
    auto w = makeWindow();
    MainWindow& win = w->window;
    auto* chart = win.findChild<QAbstractScrollArea*>(QStringLiteral("memoryChartView"));
    QVERIFY(chart != nullptr && chart->isVisible());
    QGuiApplication::clipboard()->clear();
    QMenu* menu = rightClick(chart, chart->viewport()->rect().center());
    QVERIFY(menu != nullptr);
    QCOMPARE(menu, win.chartView()->contextMenu());
    choose(menu, item(menu, "copyChartImageAction"));
    const QImage copied = QGuiApplication::clipboard()->image();
    QVERIFY(!copied.isNull());
    QCOMPARE(copied.size() / copied.devicePixelRatio(), chart->size());

    QTemporaryDir dir;
    const QString png = dir.filePath(QStringLiteral("chart.png"));
    w->dialogs->saveNames.push_back(png);
    menu = rightClick(chart, chart->viewport()->rect().center());
    QVERIFY(menu != nullptr);
    choose(menu, item(menu, "exportChartImageAction"));
    // The file name offered names the model, the GPU and the chart.
    QVERIFY2(w->dialogs->suggestedSaveNames.last().endsWith(
                 QStringLiteral("Tiny - Test GPU 8 - memory vs batch size.png")),
        qPrintable(w->dialogs->suggestedSaveNames.last()));
    QImage written;
    QVERIFY(written.load(png, "PNG"));
    QCOMPARE(written.size(), copied.size());
    QVERIFY(w->dialogs->errors.isEmpty());

    // A folder that does not exist: said so, nothing written.
    w->dialogs->saveNames.push_back(dir.filePath(QStringLiteral("missing/chart.png")));
    menu = rightClick(chart, chart->viewport()->rect().center());
    choose(menu, item(menu, "exportChartImageAction"));
    QCOMPARE(w->dialogs->errors.size(), 1);
    QVERIFY(w->dialogs->errors.front().contains(QStringLiteral("chart.png")));

    const QString pdf = dir.filePath(QStringLiteral("report.pdf"));
    w->dialogs->saveNames.push_back(pdf);
    menu = rightClick(chart, chart->viewport()->rect().center());
    choose(menu, item(menu, "exportReportFromChartAction"));
    QFile file(pdf);
    QVERIFY(file.open(QIODevice::ReadOnly));
    QVERIFY(file.read(5) == "%PDF-");
}

// "During one step" has the same menu; its image is that chart's.
void TestContextMenus::stepChartHasTheSameMenu()
{
    auto w = makeWindow();
    MainWindow& win = w->window;
    win.chartView()->tabs()->setCurrentWidget(win.chartView()->stepView());
    auto* chart = qobject_cast<QAbstractScrollArea*>(win.chartView()->stepView()->chartWidget());
    QVERIFY(chart != nullptr);
    QTRY_VERIFY(chart->isVisible());
    QMenu* menu = rightClick(chart, chart->viewport()->rect().center());
    QVERIFY(menu != nullptr);
    QCOMPARE(menu, win.chartView()->contextMenu());
    QCOMPARE(win.chartView()->chartName(), QStringLiteral("during one step"));
    choose(menu, item(menu, "copyChartImageAction"));
    const QImage copied = QGuiApplication::clipboard()->image();
    QCOMPARE(copied.size() / copied.devicePixelRatio(), chart->size());
}

// Compare GPUs: the test catalogue's three GPUs. A right-click on "Test GPU 24" offers to use it; the
// plan's own GPU is offered disabled. A double-click on a row uses that GPU. Each is one undo step.
void TestContextMenus::compareMenuAndDoubleClickUseTheGpu()
{
    auto w = makeWindow();
    MainWindow& win = w->window;
    GpuCompareView* compare = win.gpuCompareView();
    compare->setGpus(test::testCatalog().gpus());
    win.findChild<QAction*>(QStringLiteral("compareGpusAction"))->trigger();
    QTRY_VERIFY(compare->isVisible());
    QTRY_COMPARE(compare->model()->rowCount(), 3);
    QTableView* table = compare->table();
    const auto rowOf = [&](const char* name) {
        for (int r = 0; r < compare->model()->rowCount(); ++r) {
            if (compare->model()->index(r, GpuComparisonModel::GpuColumn).data().toString()
                == QLatin1String(name))
                return r;
        }
        return -1;
    };
    const int big = rowOf("Test GPU 24");
    const int own = rowOf("Test GPU 8");
    QVERIFY(big >= 0 && own >= 0);
    const auto centre = [&](int row) {
        return table->visualRect(compare->model()->index(row, GpuComparisonModel::GpuColumn)).center();
    };
    // The GPU's name says how (on hover).
    QVERIFY(compare->model()
                ->index(big, GpuComparisonModel::GpuColumn)
                .data(Qt::ToolTipRole)
                .toString()
                .contains(QStringLiteral("Double-click")));
    QMenu* menu = rightClick(table, centre(own));
    QVERIFY(menu != nullptr);
    QCOMPARE(menu, compare->contextMenu());
    QVERIFY(!item(menu, "useGpuAction")->isEnabled()); // already the plan's
    menu->close();

    const int steps = win.document()->undoStack()->count();
    menu = rightClick(table, centre(big));
    QVERIFY(menu != nullptr);
    QAction* use = item(menu, "useGpuAction");
    QVERIFY(use->isEnabled());
    QCOMPARE(use->text(), QStringLiteral("&Use Test GPU 24"));
    choose(menu, use);
    QCOMPARE(win.document()->plan().gpu.name, std::string("Test GPU 24"));
    QCOMPARE(win.document()->plan().gpu.memoryBytes, std::uint64_t { 24 } << 30);
    QCOMPARE(win.document()->undoStack()->count(), steps + 1);
    win.document()->undoStack()->undo();
    QCOMPARE(win.document()->plan().gpu.name, std::string("Test GPU 8"));

    // A double-click on the "Other GPU 16" row (rows may have been re-laid out: found again).
    const int other = rowOf("Other GPU 16");
    QVERIFY(other >= 0);
    QTest::qWait(50); // the comparison redone after the Undo scrolls to the smallest GPU (queued)
    QSignalSpy doubleClicked(table, &QAbstractItemView::doubleClicked);
    // What the window system delivers: a press and a release, then the double-click and its release.
    QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, centre(other));
    QTest::mouseDClick(table->viewport(), Qt::LeftButton, {}, centre(other));
    QCOMPARE(doubleClicked.count(), 1);
    QCOMPARE(win.document()->plan().gpu.name, std::string("Other GPU 16"));
    QCOMPARE(win.document()->plan().gpu.memoryBytes, std::uint64_t { 16 } << 30);
}

QTEST_MAIN(TestContextMenus)
#include "tst_contextmenus.moc"

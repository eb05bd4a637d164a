// The main window as the user first sees it and looks for help (MainWindowFixture.h): the default preset, the
// window at 1280x800, the table's columns, an empty network, the shortcuts, the user guide and About.
#include "Document.h"
#include "LayerEditor.h"
#include "LayerTableModel.h"
#include "MainWindow.h"
#include "MainWindowFixture.h"
#include "MemoryChartView.h"
#include "PropertyPanel.h"
#include "SetupPanel.h"
#include "TestSupport.h"
#include "headroom/estimate/Plan.h"
#include "headroom/estimate/Throughput.h"
#include "headroom/importers/NetworkFile.h"
#include "headroom/model/ModelFile.h"
#include "headroom/support/Format.h"
#include "headroom/support/Resources.h"

#include <QAction>
#include <QCheckBox>
#include <QFile>
#include <QLabel>
#include <QMenu>
#include <QPushButton>
#include <QSettings>
#include <QSpinBox>
#include <QTabWidget>
#include <QTest>
#include <QTreeView>

using namespace headroom;
using namespace headroom::ui;
using namespace headroom::test;

class TestMainWindowViews : public QObject, private MainWindowFixture
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { test::isolateSettings(); }
    void init() { QSettings().clear(); }
    void aboutShowsVersion();
    void startsOnDefaultPreset();
    void shortcutsAndUserGuide();
    void emptyNetworkSaysSo();
    void tableColumnsShowTheirContent();
    void fitsAt1280x800();
};

void TestMainWindowViews::aboutShowsVersion()
{
    auto w = makeWindow();
    child<QAction>(w->window, "aboutAction")->trigger();
    QCOMPARE(w->dialogs->abouts, 1);
    QVERIFY(w->dialogs->aboutText.contains(QStringLiteral(HEADROOM_VERSION)));
}

void TestMainWindowViews::startsOnDefaultPreset()
{
    MainWindow win;
    const auto presets = listPresets(win.resourceDir().toStdString());
    const auto vgg
        = std::find_if(presets.begin(), presets.end(), [](const auto& p) { return p.id == "vgg16"; });
    if (vgg == presets.end())
        QSKIP("no vgg16 preset in the resources yet");
    win.loadDefault();
    const auto expected = loadModelFile(vgg->path);
    QVERIFY(expected);
    QVERIFY(win.document()->network() == expected.value());
    QVERIFY(!win.isWindowModified());
    QCOMPARE(win.document()->plan().setup.batch, std::int64_t { 32 });
    QCOMPARE(win.document()->plan().setup.optimizer, Optimizer::Adam);
    const PlanResult result = evaluate(win.document()->plan());
    QVERIFY(result.estimate);
    QCOMPARE(win.findChild<QLabel*>(QStringLiteral("maxBatchLabel"))->text(),
        QStringLiteral("Max batch: %1")
            .arg(QString::fromStdString(formatCount(static_cast<std::uint64_t>(result.estimate->maxBatch)))));
}

void TestMainWindowViews::shortcutsAndUserGuide()
{
    auto w = makeWindow();
    MainWindow& win = w->window;
    QAction* saveAs = child<QAction>(win, "saveAsAction");
    QVERIFY(saveAs->shortcuts().contains(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_S)));
    QTest::keyClick(&win, Qt::Key_S, Qt::ControlModifier | Qt::ShiftModifier);
    QCOMPARE(w->dialogs->suggestedSaveNames.size(), 1);

    // Help > User Guide opens the guide shipped with Headroom (in a build: the source tree's docs/).
    QAction* guide = child<QAction>(win, "userGuideAction");
    QVERIFY(guide);
    QVERIFY(child<QMenu>(win, "helpMenu")->actions().contains(guide));
    guide->trigger();
    QCOMPARE(w->dialogs->openedUrls.size(), 1);
    const QString opened = w->dialogs->openedUrls.front().toLocalFile();
    QVERIFY2(opened.endsWith(QStringLiteral("/user-guide.md")) && QFile::exists(opened), qPrintable(opened));
}

void TestMainWindowViews::emptyNetworkSaysSo()
{
    auto w = makeWindow();
    MainWindow& win = w->window;
    w->dialogs->saveChoices.push_back(DialogProvider::SaveChoice::Discard);
    child<QAction>(win, "newAction")->trigger();
    QVERIFY(win.document()->network().layers.empty());
    QCOMPARE(child<QLabel>(win, "maxBatchLabel")->text(), QStringLiteral("The network is empty"));
    QVERIFY(!child<QPushButton>(win, "setMaxBatchButton")->isEnabled());
    QVERIFY(child<QLabel>(win, "chartMessageLabel")->isVisible());
}

void TestMainWindowViews::tableColumnsShowTheirContent()
{
    // ResNet-18 imported from ONNX: long names and large counts. At the default size every header
    // reads in full, no number is cut, and the full values are in the tooltips.
    auto w = makeWindow();
    MainWindow& win = w->window;
    QVERIFY(win.openFile(onnxFile("resnet18.onnx")));
    QTreeView* view = win.layerEditor()->view();
    const QFontMetrics fm = view->fontMetrics();
    auto* model = win.layerEditor()->model();
    for (int c = LayerTableModel::NameColumn; c < LayerTableModel::InputsColumn; ++c) {
        if (view->isColumnHidden(c))
            continue;
        for (const QString& line : model->headerData(c, Qt::Horizontal).toString().split(QLatin1Char('\n')))
            QVERIFY2(view->header()->sectionSize(c) >= fm.horizontalAdvance(line), qPrintable(line));
    }
    for (int r = 0; r < model->rowCount(); ++r) {
        for (const int c :
            { LayerTableModel::TypeColumn, LayerTableModel::OutputColumn, LayerTableModel::ParametersColumn,
                LayerTableModel::ActivationColumn, LayerTableModel::FlopsColumn }) {
            const QString text = model->index(r, c).data().toString();
            QVERIFY2(view->header()->sectionSize(c) > fm.horizontalAdvance(text), qPrintable(text));
        }
        const QModelIndex name = model->index(r, LayerTableModel::NameColumn);
        QCOMPARE(name.data(Qt::ToolTipRole).toString(), name.data().toString());
    }
    QCOMPARE(view->textElideMode(), Qt::ElideMiddle);
    // Every column but the last is in view at the default size: no scrolling to find FLOPs or Training.
    int right = 0;
    for (int c = 0; c < LayerTableModel::InputsColumn; ++c) {
        if (!view->isColumnHidden(c))
            right = std::max(
                right, view->header()->sectionViewportPosition(c) + view->header()->sectionSize(c));
    }
    // Nothing is frozen: the Training column waits until something is.
    QVERIFY(view->isColumnHidden(LayerTableModel::TrainingColumn));
    QVERIFY2(right <= view->viewport()->width(),
        qPrintable(QStringLiteral("%1 > %2").arg(right).arg(view->viewport()->width())));
}

void TestMainWindowViews::fitsAt1280x800()
{
    // The strategy controls live in tabs: at 1280x800 the chart keeps a usable height.
    auto w = makeWindow();
    MainWindow& win = w->window;
    QVERIFY2(
        win.minimumSizeHint().width() <= 1280, qPrintable(QString::number(win.minimumSizeHint().width())));
    win.resize(1280, 800);
    QTRY_COMPARE(win.size(), QSize(1280, 800));
    for (const int tab : { SetupPanel::GpuTab, SetupPanel::StrategyTab, SetupPanel::MultiGpuTab }) {
        child<QTabWidget>(win, "setupTabWidget")->setCurrentIndex(tab);
        QTRY_VERIFY2(
            win.chartView()->height() >= 300, qPrintable(QString::number(win.chartView()->height())));
    }
    child<QSpinBox>(win, "accumulationStepsSpinBox")->setValue(2);
    win.layerEditor()->selectPath({ 0 });
    QTest::mouseClick(child<QCheckBox>(*win.propertyPanel(), "frozenCheckBox"), Qt::LeftButton);
    QTRY_VERIFY2(win.chartView()->height() >= 260, qPrintable(QString::number(win.chartView()->height())));
}

QTEST_MAIN(TestMainWindowViews)
#include "tst_mainwindowviews.moc"

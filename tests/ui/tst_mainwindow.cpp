#include "BatchScale.h"
#include "Document.h"
#include "GpuSelector.h"
#include "LayerEditor.h"
#include "LayerTableModel.h"
#include "MainWindow.h"
#include "MemoryChartView.h"
#include "PlanController.h"
#include "PropertyPanel.h"
#include "SetupPanel.h"
#include "TestSupport.h"

#include "headroom/Format.h"
#include "headroom/ModelFile.h"
#include "headroom/Plan.h"
#include "headroom/Resources.h"

#include <QAction>
#include <QElapsedTimer>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QSettings>
#include <QSlider>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeView>
#include <QUndoStack>

using namespace headroom;
using namespace headroom::ui;

class TestMainWindow : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void addAndEditLayerUpdatesTableAndTotals();
    void sliderUpdatesMaxBatchMarkerAndSeries();
    void switchingGpuMovesTheMemoryLine();
    void customGpu();
    void undoRedoThroughTheEditMenu();
    void residualBlockFromSelection();
    void invalidLayerShowsItsError();
    void openSaveRoundTrip();
    void unsavedChangesAskFirst();
    void exportReportThroughTheDialog();
    void aboutShowsVersion();
    void remembersSetupAndRecentFiles();
    void startsOnDefaultPreset();
    void sliderStaysSmoothOnThousandLayers();

private:
    struct Window {
        MainWindow window;
        test::ScriptedDialogs* dialogs = nullptr;
    };
    std::unique_ptr<Window> makeWindow(const Network& network = test::tinyNetwork());
};

namespace {

template <typename T>
T* child(const QObject& parent, const char* name)
{
    T* found = parent.findChild<T*>(QString::fromLatin1(name));
    if (found == nullptr)
        qWarning("missing child %s", name);
    return found;
}

QString bytes(std::uint64_t n) { return QString::fromStdString(formatBytes(n)); }

} // namespace

void TestMainWindow::initTestCase() { test::isolateSettings(); }

void TestMainWindow::init() { QSettings().clear(); }

std::unique_ptr<TestMainWindow::Window> TestMainWindow::makeWindow(const Network& network)
{
    auto w = std::make_unique<Window>();
    auto dialogs = std::make_unique<test::ScriptedDialogs>();
    w->dialogs = dialogs.get();
    w->window.setDialogProvider(std::move(dialogs));
    const GpuCatalog catalog = test::testCatalog();
    w->window.setupPanel()->setCatalog(catalog);
    w->window.document()->resetSetup(Precision::Fp32, TrainingSetup{}, catalog.gpus()[0]);
    w->window.document()->resetNetwork(network, QString());
    w->window.resize(1400, 900);
    w->window.show();
    return w;
}

void TestMainWindow::addAndEditLayerUpdatesTableAndTotals()
{
    auto w = makeWindow();
    MainWindow& win = w->window;
    auto* model = win.layerEditor()->model();
    win.layerEditor()->selectPath({2}); // Flatten: the new layer goes after it
    QAction* addLinear = child<QAction>(win, "addLinearAction");
    QVERIFY(addLinear);
    addLinear->trigger();
    QCOMPARE(model->rowCount(), 5);
    QCOMPARE(model->index(3, LayerTableModel::TypeColumn).data().toString(), QStringLiteral("Linear"));
    QCOMPARE(win.layerEditor()->currentPath(), LayerPath{3});
    // The default keeps the features: Linear(256 -> 256), 256*256 + 256 parameters.
    QCOMPARE(model->index(3, 0).data(LayerTableModel::ParametersRole).toULongLong(), 256ULL * 256 + 256);

    // Edit it in the property panel.
    auto* editor = child<QWidget>(*win.propertyPanel(), "out_featuresAttributeEditor");
    QVERIFY(editor);
    auto* spin = editor->findChild<QSpinBox*>(QStringLiteral("valueSpinBox"));
    spin->setValue(32);
    QCOMPARE(win.document()->network().layers[3].attributes["out_features"].get<int>(), 32);
    QCOMPARE(model->index(3, LayerTableModel::ParametersColumn).data().toString(), QStringLiteral("8,224")); // 256*32+32
    QCOMPARE(model->index(4, LayerTableModel::ParametersColumn).data().toString(), QStringLiteral("330"));   // 32*10+10

    const PlanResult expected = evaluate(win.document()->plan());
    QCOMPARE(expected.analysis.totalParams, 112ULL + 8224 + 330);
    QVERIFY(expected.estimate);
    QCOMPARE(child<QLabel>(win, "totalLabel")->text(),
             QStringLiteral("Total: %1 of %2").arg(bytes(expected.estimate->total()), bytes(8ULL << 30)));
    QVERIFY(child<QLabel>(win, "layerStatusLabel")->text().contains(QStringLiteral("8,666")));
    QVERIFY(win.isWindowModified());
}

void TestMainWindow::sliderUpdatesMaxBatchMarkerAndSeries()
{
    Network net = test::tinyNetwork();
    net.input.shape.dims = {3, 224, 224};
    net.layers[0].attributes["out_channels"] = 64;
    auto w = makeWindow(net);
    MainWindow& win = w->window;
    auto* slider = child<QSlider>(win, "batchSlider");
    const int analyses = win.controller()->analysisRuns();
    slider->setFocus();
    QTest::keyClick(slider, Qt::Key_PageUp);
    QTest::keyClick(slider, Qt::Key_PageUp);
    QCOMPARE(win.document()->plan().setup.batch, std::int64_t{128});
    for (int i = 0; i < 5; ++i)
        QTest::keyClick(slider, Qt::Key_Right); // single steps: 10 positions each
    const std::int64_t batch = BatchScale::batchAt(BatchScale::positionOf(128) + 50);
    QCOMPARE(win.document()->plan().setup.batch, batch);
    QCOMPARE(win.controller()->analysisRuns(), analyses);

    const PlanResult expected = evaluate(win.document()->plan());
    QCOMPARE(child<QLabel>(win, "maxBatchLabel")->text(),
             QStringLiteral("Max batch: %1").arg(QString::fromStdString(formatCount(static_cast<std::uint64_t>(expected.estimate->maxBatch)))));
    QCOMPARE(child<QSpinBox>(win, "batchSpinBox")->value(), static_cast<int>(batch));
    MemoryChartView* chart = win.chartView();
    QCOMPARE(chart->markerPoints().front().x(), static_cast<double>(batch));
    // The stack's top at each sampled batch is the core's total there.
    const auto model = MemoryModel::build(expected.analysis, win.document()->plan().setup).value();
    const auto top = chart->upperPoints(MemoryChartView::kStackOrder.back());
    QVERIFY(top.back().x() >= static_cast<double>(batch));
    for (qsizetype i = 0; i < top.size(); i += 25) {
        const auto b = static_cast<std::int64_t>(top[i].x());
        QVERIFY(std::abs(top[i].y() * chart->bytesPerUnit() - static_cast<double>(model.at(b)->total())) < 1.0);
    }
    // Dragging: sliderMoved positions while held down.
    slider->setSliderDown(true);
    slider->setSliderPosition(BatchScale::positionOf(8));
    slider->setSliderDown(false);
    QCOMPARE(win.document()->plan().setup.batch, std::int64_t{8});
    QCOMPARE(chart->markerPoints().front().x(), 8.0);
}

void TestMainWindow::switchingGpuMovesTheMemoryLine()
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

void TestMainWindow::customGpu()
{
    auto w = makeWindow();
    w->dialogs->customGpus.push_back({QStringLiteral("Lab card"), 10ULL << 30});
    auto* combo = child<GpuSelector>(w->window, "gpuComboBox");
    const int custom = combo->count() - 1;
    QCOMPARE(combo->itemData(custom, GpuSelector::KindRole).toInt(), static_cast<int>(GpuSelector::CustomItem));
    Q_EMIT combo->activated(custom);
    QCOMPARE(w->window.document()->plan().gpu.name, std::string("Lab card"));
    QCOMPARE(w->window.document()->plan().setup.gpuMemoryBytes, 10ULL << 30);
    QVERIFY(combo->currentText().startsWith(QStringLiteral("Lab card")));
}

void TestMainWindow::undoRedoThroughTheEditMenu()
{
    auto w = makeWindow();
    MainWindow& win = w->window;
    QAction* undo = child<QAction>(win, "undoAction");
    QAction* redo = child<QAction>(win, "redoAction");
    QVERIFY(undo && redo);
    QVERIFY(!undo->isEnabled());
    win.layerEditor()->selectPath({1});
    child<QAction>(win, "removeLayerAction")->trigger();
    QCOMPARE(win.layerEditor()->model()->rowCount(), 3);
    child<QSpinBox>(win, "batchSpinBox")->setValue(64);
    undo->trigger();
    QCOMPARE(win.document()->plan().setup.batch, std::int64_t{32});
    QCOMPARE(child<QSpinBox>(win, "batchSpinBox")->value(), 32);
    undo->trigger();
    QCOMPARE(win.layerEditor()->model()->rowCount(), 4);
    QVERIFY(!win.isWindowModified());
    redo->trigger();
    QCOMPARE(win.layerEditor()->model()->rowCount(), 3);
    QVERIFY(win.isWindowModified());
}

void TestMainWindow::residualBlockFromSelection()
{
    auto w = makeWindow();
    MainWindow& win = w->window;
    win.layerEditor()->selectPath({1}); // the ReLU keeps its input's shape
    child<QAction>(win, "wrapResidualAction")->trigger();
    auto* model = win.layerEditor()->model();
    const QModelIndex block = model->index(1, 0);
    QVERIFY(block.data(LayerTableModel::IsRepeatRole).toBool());
    QCOMPARE(model->rowCount(block), 2);
    QCOMPARE(model->index(1, LayerTableModel::TypeColumn, block).data().toString(), QStringLiteral("Add"));
    QVERIFY(!model->hasError());
    QVERIFY(win.controller()->estimateState().estimate.has_value());
    QVERIFY(win.layerEditor()->view()->isExpanded(block));
}

void TestMainWindow::invalidLayerShowsItsError()
{
    auto w = makeWindow();
    MainWindow& win = w->window;
    win.layerEditor()->selectPath({0});
    auto* kernel = child<QWidget>(*win.propertyPanel(), "kernel_sizeAttributeEditor");
    QVERIFY(kernel);
    kernel->findChild<QSpinBox*>(QStringLiteral("valueSpinBox"))->setValue(11);
    const Analysis expected = analyze(win.document()->network(), Precision::Fp32);
    QVERIFY(expected.error);
    const QString message = QString::fromStdString(expected.rows[0].error->message);
    auto* model = win.layerEditor()->model();
    QCOMPARE(model->index(0, LayerTableModel::NameColumn).data(Qt::ToolTipRole).toString(), message);
    QVERIFY(child<QLabel>(win, "layerStatusLabel")->text().contains(message));
    QCOMPARE(child<QLabel>(*win.propertyPanel(), "layerErrorLabel")->text(), message);
    auto* blocked = child<QLabel>(win, "blockedLabel");
    QVERIFY(blocked->isVisible());
    QVERIFY2(blocked->text().contains(message), qPrintable(blocked->text()));
    QCOMPARE(child<QLabel>(win, "maxBatchLabel")->text(), QStringLiteral("Max batch: —"));
    QVERIFY(child<QLabel>(win, "chartMessageLabel")->isVisible());
}

void TestMainWindow::openSaveRoundTrip()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("tiny.json"));
    auto w = makeWindow();
    MainWindow& win = w->window;
    win.document()->setLayerAttribute({3}, "out_features", 7);
    QVERIFY(win.isWindowModified());
    w->dialogs->saveNames.push_back(path);
    child<QAction>(win, "saveAction")->trigger(); // untitled: Save asks where
    QVERIFY(QFile::exists(path));
    QVERIFY(!win.isWindowModified());
    QVERIFY2(win.windowTitle().startsWith(QStringLiteral("tiny.json")), qPrintable(win.windowTitle()));
    const auto saved = loadModelFile(path.toStdString());
    QVERIFY(saved);
    QVERIFY(saved.value() == win.document()->network());

    // Change, then open the saved file again (discarding the change).
    win.document()->removeLayers({}, 0, 1);
    QVERIFY(win.isWindowModified());
    QVERIFY(win.windowTitle().contains(QStringLiteral("[*]")));
    w->dialogs->saveChoices.push_back(DialogProvider::SaveChoice::Discard);
    w->dialogs->openNames.push_back(path);
    child<QAction>(win, "openAction")->trigger();
    QCOMPARE(w->dialogs->saveQuestions, 1);
    QVERIFY(win.document()->network() == saved.value());
    QCOMPARE(win.layerEditor()->model()->rowCount(), 4);
    QCOMPARE(win.document()->filePath(), QFileInfo(path).absoluteFilePath());
    QVERIFY(!win.isWindowModified());

    // A file with a located error is reported, and the document stays.
    const QString broken = dir.filePath(QStringLiteral("broken.json"));
    QFile f(broken);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("{\"format\": \"headroom-model\", \"version\": 1,\n \"input\": {\"shape\": [3]}, \"layers\": [}");
    f.close();
    QVERIFY(!win.openFile(broken));
    QCOMPARE(w->dialogs->errors.size(), 1);
    QVERIFY2(w->dialogs->errors.front().contains(QStringLiteral("line 2")), qPrintable(w->dialogs->errors.front()));
    QVERIFY(win.document()->network() == saved.value());
}

void TestMainWindow::unsavedChangesAskFirst()
{
    auto w = makeWindow();
    MainWindow& win = w->window;
    win.document()->removeLayers({}, 0, 1);
    w->dialogs->saveChoices.push_back(DialogProvider::SaveChoice::Cancel);
    child<QAction>(win, "newAction")->trigger();
    QCOMPARE(w->dialogs->saveQuestions, 1);
    QCOMPARE(win.document()->network().layers.size(), std::size_t{3}); // cancelled: kept
    w->dialogs->saveChoices.push_back(DialogProvider::SaveChoice::Cancel);
    QVERIFY(!win.close());
    QVERIFY(win.isVisible());
    w->dialogs->saveChoices.push_back(DialogProvider::SaveChoice::Discard);
    child<QAction>(win, "newAction")->trigger();
    QVERIFY(win.document()->network().layers.empty());
    QVERIFY(!win.isWindowModified());
    QVERIFY(win.close());
}

void TestMainWindow::exportReportThroughTheDialog()
{
    QTemporaryDir dir;
    auto w = makeWindow();
    const QString path = dir.filePath(QStringLiteral("report.pdf"));
    w->dialogs->saveNames.push_back(path);
    child<QAction>(w->window, "exportReportAction")->trigger();
    QCOMPARE(w->dialogs->suggestedSaveNames.size(), 1);
    QVERIFY2(w->dialogs->suggestedSaveNames.front().endsWith(QStringLiteral("Tiny - Test GPU 8 - batch 32.pdf")),
             qPrintable(w->dialogs->suggestedSaveNames.front()));
    QVERIFY2(w->dialogs->errors.isEmpty(), qPrintable(w->dialogs->errors.join(QLatin1Char('\n'))));
    QFile pdf(path);
    QVERIFY(pdf.open(QIODevice::ReadOnly));
    QVERIFY(pdf.read(5).startsWith("%PDF"));
    // A failure is shown, not swallowed.
    w->dialogs->saveNames.push_back(dir.filePath(QStringLiteral("no/such/folder/report.pdf")));
    child<QAction>(w->window, "exportReportAction")->trigger();
    QCOMPARE(w->dialogs->errors.size(), 1);
}

void TestMainWindow::aboutShowsVersion()
{
    auto w = makeWindow();
    child<QAction>(w->window, "aboutAction")->trigger();
    QCOMPARE(w->dialogs->abouts, 1);
    QVERIFY(w->dialogs->aboutText.contains(QStringLiteral(HEADROOM_VERSION)));
}

void TestMainWindow::remembersSetupAndRecentFiles()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("remember.json"));
    QVERIFY(saveModelFile(test::tinyNetwork(), path.toStdString()));
    {
        auto w = makeWindow();
        QVERIFY(w->window.openFile(path));
        w->window.document()->setBatch(96);
        w->window.document()->setOptimizer(Optimizer::Sgd);
        QVERIFY(w->window.close());
    }
    MainWindow again;
    // The remembered GPU is looked up in the installed catalogue, which tests do not control; the
    // rest comes back as it was.
    QCOMPARE(again.document()->plan().setup.batch, std::int64_t{96});
    QCOMPARE(again.document()->plan().setup.optimizer, Optimizer::Sgd);
    QCOMPARE(QSettings().value(QStringLiteral("setup/gpu")).toString(), QStringLiteral("Test GPU 8"));
    auto* recent = again.findChild<QMenu*>(QStringLiteral("recentFilesMenu"));
    QVERIFY(recent && recent->isEnabled());
    QVERIFY(recent->actions().front()->text().contains(QStringLiteral("remember.json")));
}

void TestMainWindow::startsOnDefaultPreset()
{
    MainWindow win;
    const auto presets = listPresets(win.resourceDir().toStdString());
    const auto vgg = std::find_if(presets.begin(), presets.end(), [](const auto& p) { return p.id == "vgg16"; });
    if (vgg == presets.end())
        QSKIP("no vgg16 preset in the resources yet");
    win.loadDefault();
    const auto expected = loadModelFile(vgg->path);
    QVERIFY(expected);
    QVERIFY(win.document()->network() == expected.value());
    QVERIFY(!win.isWindowModified());
    QCOMPARE(win.document()->plan().setup.batch, std::int64_t{32});
    QCOMPARE(win.document()->plan().setup.optimizer, Optimizer::Adam);
    const PlanResult result = evaluate(win.document()->plan());
    QVERIFY(result.estimate);
    QCOMPARE(win.findChild<QLabel*>(QStringLiteral("maxBatchLabel"))->text(),
             QStringLiteral("Max batch: %1").arg(QString::fromStdString(formatCount(static_cast<std::uint64_t>(result.estimate->maxBatch)))));
}

void TestMainWindow::sliderStaysSmoothOnThousandLayers()
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
        chart->repaint();                                      // and draw the result each time
    }
    const double perTickMs = static_cast<double>(timer.nsecsElapsed()) / 1e6 / kTicks;
    qInfo("1,000 layers: %.2f ms per slider tick, labels, chart marker and chart repaint included", perTickMs);
    QCOMPARE(win.controller()->analysisRuns(), analyses);
    QVERIFY2(perTickMs < 50.0, "dragging must not lag");
}

QTEST_MAIN(TestMainWindow)
#include "tst_mainwindow.moc"

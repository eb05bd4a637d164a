#include "AttributeEditor.h"
#include "BatchScale.h"
#include "Document.h"
#include "ElidedLabel.h"
#include "GpuSelector.h"
#include "LayerEditor.h"
#include "LayerTableModel.h"
#include "MainWindow.h"
#include "MemoryChartView.h"
#include "PlanController.h"
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
#include <QComboBox>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QPushButton>
#include <QSettings>
#include <QSlider>
#include <QSpinBox>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeView>
#include <QUndoStack>
#include <bit>

using namespace headroom;
using namespace headroom::ui;

class TestMainWindow : public QObject
{
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
    void nestedErrorsUseTheTableNumbering();
    void openSaveRoundTrip();
    void unsavedChangesAskFirst();
    void exportReportThroughTheDialog();
    void aboutShowsVersion();
    void remembersSetupAndRecentFiles();
    void startsOnDefaultPreset();
    void sliderStaysSmoothOnThousandLayers();
    void importOnnxKeepsItsParameterCount();
    void importErrorsUseTheErrorDialog();
    void savingAnImportNeverOverwritesIt();
    void renamedHfConfigIsNeverTheSaveTarget();
    void undoFromAPropertyField();
    void numbersFollowTyping();
    void shortcutsAndUserGuide();
    void errorMessagesAreForUsers();
    void residualAroundAShapeChangeIsRefused();
    void newLayersGetSensibleDefaults();
    void newModelGetsABatchThatFits();
    void emptyNetworkSaysSo();
    void attributeFieldsFollowTheSelection();
    void tableColumnsShowTheirContent();
    void communicationStacksWithDataParallel();
    void checkpointSelectionFromTheEditor();
    void frozenCheckBoxMarksTheLayer();
    void checkpointCheckBoxOnABlockSavesMemory();
    void summaryShowsEffectiveBatchAndThroughput();
    void fitsAt1280x800();

private:
    struct Window
    {
        MainWindow window;
        test::ScriptedDialogs* dialogs = nullptr;
    };
    std::unique_ptr<Window> makeWindow(const Network& network = test::tinyNetwork());
};

namespace {

template <typename T> T* child(const QObject& parent, const char* name)
{
    T* found = parent.findChild<T*>(QString::fromLatin1(name));
    if (found == nullptr)
        qWarning("missing child %s", name);
    return found;
}

QString bytes(std::uint64_t n)
{
    return QString::fromStdString(formatBytes(n));
}

} // namespace

void TestMainWindow::initTestCase()
{
    test::isolateSettings();
}

void TestMainWindow::init()
{
    QSettings().clear();
}

std::unique_ptr<TestMainWindow::Window> TestMainWindow::makeWindow(const Network& network)
{
    auto w = std::make_unique<Window>();
    auto dialogs = std::make_unique<test::ScriptedDialogs>();
    w->dialogs = dialogs.get();
    w->window.setDialogProvider(std::move(dialogs));
    const GpuCatalog catalog = test::testCatalog();
    w->window.setupPanel()->setCatalog(catalog);
    w->window.document()->resetSetup(Precision::Fp32, TrainingSetup {}, catalog.gpus()[0]);
    w->window.document()->resetNetwork(network, QString());
    w->window.resize(1400, 900);
    w->window.show();
    w->window.activateWindow();
    if (!QTest::qWaitForWindowActive(&w->window))
        qWarning("the window did not become active: its shortcuts will not fire");
    return w;
}

void TestMainWindow::addAndEditLayerUpdatesTableAndTotals()
{
    auto w = makeWindow();
    MainWindow& win = w->window;
    auto* model = win.layerEditor()->model();
    win.layerEditor()->selectPath({ 2 }); // Flatten: the new layer goes after it
    QAction* addLinear = child<QAction>(win, "addLinearAction");
    QVERIFY(addLinear);
    addLinear->trigger();
    QCOMPARE(model->rowCount(), 5);
    QCOMPARE(model->index(3, LayerTableModel::TypeColumn).data().toString(), QStringLiteral("Linear"));
    QCOMPARE(win.layerEditor()->currentPath(), LayerPath { 3 });
    // The default keeps the features: Linear(256 -> 256), 256*256 + 256 parameters.
    QCOMPARE(model->index(3, 0).data(LayerTableModel::ParametersRole).toULongLong(), 256ULL * 256 + 256);

    // Edit it in the property panel.
    auto* editor = child<QWidget>(*win.propertyPanel(), "out_featuresAttributeEditor");
    QVERIFY(editor);
    auto* spin = editor->findChild<QSpinBox*>(QStringLiteral("valueSpinBox"));
    spin->setValue(32);
    QCOMPARE(win.document()->network().layers[3].attributes["out_features"].get<int>(), 32);
    QCOMPARE(model->index(3, LayerTableModel::ParametersColumn).data().toString(),
        QStringLiteral("8,224")); // 256*32+32
    QCOMPARE(model->index(4, LayerTableModel::ParametersColumn).data().toString(),
        QStringLiteral("330")); // 32*10+10

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
    w->dialogs->customGpus.push_back({ QStringLiteral("Lab card"), 10ULL << 30 });
    auto* combo = child<GpuSelector>(w->window, "gpuComboBox");
    const int custom = combo->count() - 1;
    QCOMPARE(
        combo->itemData(custom, GpuSelector::KindRole).toInt(), static_cast<int>(GpuSelector::CustomItem));
    Q_EMIT combo->activated(custom);
    QCOMPARE(w->window.document()->plan().gpu.name, std::string("Lab card"));
    QCOMPARE(w->window.document()->plan().gpu.memoryBytes, 10ULL << 30);
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
    win.layerEditor()->selectPath({ 1 });
    child<QAction>(win, "removeLayerAction")->trigger();
    QCOMPARE(win.layerEditor()->model()->rowCount(), 3);
    child<QSpinBox>(win, "batchSpinBox")->setValue(64);
    undo->trigger();
    QCOMPARE(win.document()->plan().setup.batch, std::int64_t { 32 });
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
    win.layerEditor()->selectPath({ 1 }); // the ReLU keeps its input's shape
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
    win.layerEditor()->selectPath({ 3 }); // the Linear: the conv's error is not the selected layer's
    win.document()->setLayerAttribute({ 0 }, "kernel_size", 11);
    const Analysis expected = analyze(win.document()->network(), Precision::Fp32);
    QVERIFY(expected.error);
    // The core: "layers[0] (Conv2d \"conv\"): kernel 11x11 ...". The user reads the table's
    // numbering, and the message once.
    const std::string core = expected.rows[0].error->message;
    QVERIFY(core.rfind("layers[0] (Conv2d \"conv\"): ", 0) == 0);
    const QString reason = QString::fromStdString(core.substr(core.find("): ") + 3));
    auto* model = win.layerEditor()->model();
    QCOMPARE(model->index(0, LayerTableModel::NameColumn).data(Qt::ToolTipRole).toString(), reason);
    auto* status = child<QLabel>(win, "layerStatusLabel");
    QCOMPARE(status->text(), QStringLiteral("Layer 1 (conv): %1").arg(reason));
    const auto shows = [&](const QString& text) {
        QStringList where;
        for (const QLabel* label : win.findChildren<QLabel*>()) {
            if (label->isVisible() && label->text().contains(text))
                where << label->objectName();
        }
        return where;
    };
    QCOMPARE(shows(reason), QStringList { QStringLiteral("layerStatusLabel") });
    QCOMPARE(child<QLabel>(win, "maxBatchLabel")->text(), QStringLiteral("Max batch: —"));
    auto* chartMessage = child<QLabel>(win, "chartMessageLabel");
    QVERIFY(chartMessage->isVisible());
    QCOMPARE(chartMessage->text(), QStringLiteral("No estimate until layer 1 (conv) is fixed."));

    // Selecting the layer moves the message to its properties; the status line says where it went.
    win.layerEditor()->selectPath({ 0 });
    QCOMPARE(child<QLabel>(*win.propertyPanel(), "layerErrorLabel")->text(), reason);
    QCOMPARE(status->text(), QStringLiteral("Layer 1 (conv) is invalid: see its properties below."));
    QCOMPARE(shows(reason), QStringList { QStringLiteral("layerErrorLabel") });
}

void TestMainWindow::nestedErrorsUseTheTableNumbering()
{
    // A file error inside a block: the core says "layers[1].layers[0].out_features"; the user reads
    // "Layer 2.1" as the table numbers it, at the field, and the spin box shows the file's 0.
    Network net;
    net.name = "Nested";
    net.input.shape.dims = { 16 };
    LayerSpec fc;
    fc.type = "Linear";
    fc.attributes = { { "out_features", 16 } };
    LayerSpec bad = fc;
    bad.attributes = { { "out_features", 0 } };
    LayerSpec block;
    block.type = "Repeat";
    block.name = "block";
    block.times = 2;
    block.children = { bad };
    net.layers = { fc, block };
    auto w = makeWindow(net);
    MainWindow& win = w->window;
    const Analysis a = analyze(net, Precision::Fp32);
    QVERIFY(a.error);
    QCOMPARE(a.error->location, std::string("layers[1].layers[0].out_features"));
    auto* status = child<QLabel>(win, "layerStatusLabel");
    QVERIFY2(status->text().startsWith(QStringLiteral("Layer 2.1 (block.0.0): out_features ")),
        qPrintable(status->text()));
    QVERIFY2(!status->text().contains(QStringLiteral("layers[")), qPrintable(status->text()));
    win.layerEditor()->selectPath({ 1, 0 });
    auto* editor = win.propertyPanel()->attributeEditor(QStringLiteral("out_features"));
    QVERIFY(editor);
    QVERIFY2(editor->note().startsWith(QStringLiteral("out_features ")), qPrintable(editor->note()));
    QVERIFY(child<QLabel>(*win.propertyPanel(), "layerErrorLabel")->isHidden());
    auto* spin = editor->findChild<QSpinBox*>(QStringLiteral("valueSpinBox"));
    QCOMPARE(spin->text(), QStringLiteral("0"));
    // Typing the fix is accepted, though the box's minimum is that same 1.
    spin->setFocus();
    spin->selectAll();
    QTest::keyClicks(spin, QStringLiteral("1"));
    QTest::keyClick(spin, Qt::Key_Return);
    QCOMPARE(win.document()->network().layers[1].children[0].attributes["out_features"].get<int>(), 1);
    QVERIFY(!win.layerEditor()->model()->hasError());
    QVERIFY(editor->note().isEmpty());
}

void TestMainWindow::openSaveRoundTrip()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("tiny.json"));
    auto w = makeWindow();
    MainWindow& win = w->window;
    win.document()->setLayerAttribute({ 3 }, "out_features", 7);
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
    QVERIFY2(w->dialogs->errors.front().contains(QStringLiteral("line 2")),
        qPrintable(w->dialogs->errors.front()));
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
    QCOMPARE(win.document()->network().layers.size(), std::size_t { 3 }); // cancelled: kept
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
    QVERIFY2(
        w->dialogs->suggestedSaveNames.front().endsWith(QStringLiteral("Tiny - Test GPU 8 - batch 32.pdf")),
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
        w->window.document()->setOptimizerImplementation(OptimizerImplementation::ForLoop);
        QVERIFY(w->window.close());
    }
    MainWindow again;
    // The remembered GPU is looked up in the installed catalogue, which tests do not control; the
    // rest comes back as it was.
    QCOMPARE(again.document()->plan().setup.batch, std::int64_t { 96 });
    QCOMPARE(again.document()->plan().setup.optimizer, Optimizer::Sgd);
    QCOMPARE(again.document()->plan().setup.optimizerImplementation, OptimizerImplementation::ForLoop);
    QCOMPARE(QSettings().value(QStringLiteral("setup/gpu")).toString(), QStringLiteral("Test GPU 8"));
    auto* recent = again.findChild<QMenu*>(QStringLiteral("recentFilesMenu"));
    QVERIFY(recent && recent->isEnabled());
    QVERIFY(recent->actions().front()->text().contains(QStringLiteral("remember.json")));
}

void TestMainWindow::startsOnDefaultPreset()
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
        chart->repaint(); // and draw the result each time
    }
    const double perTickMs = static_cast<double>(timer.nsecsElapsed()) / 1e6 / kTicks;
    qInfo(
        "1,000 layers: %.2f ms per slider tick, labels, chart marker and chart repaint included", perTickMs);
    QCOMPARE(win.controller()->analysisRuns(), analyses);
    QVERIFY2(perTickMs < 50.0, "dragging must not lag");
}

namespace {
QString onnxFile(const char* name)
{
    return QStringLiteral(HEADROOM_TEST_SOURCE_DIR "/tests/data/onnx/") + QString::fromLatin1(name);
}
} // namespace

void TestMainWindow::importOnnxKeepsItsParameterCount()
{
    auto w = makeWindow();
    MainWindow& win = w->window;
    w->dialogs->openNames.push_back(onnxFile("resnet18.onnx"));
    child<QAction>(win, "importAction")->trigger();
    QVERIFY2(w->dialogs->errors.isEmpty(), qPrintable(w->dialogs->errors.join(QLatin1Char('\n'))));
    // docs/onnx-import.md and tests/data/onnx/README.md: torchvision's ResNet-18 has 11,689,512.
    QCOMPARE(win.controller()->analysis().totalParams, std::uint64_t { 11'689'512 });
    QVERIFY(child<QLabel>(win, "layerStatusLabel")->text().contains(QStringLiteral("11,689,512")));
    QVERIFY2(win.windowTitle().contains(QStringLiteral("resnet18"))
            && win.windowTitle().contains(QStringLiteral("imported")),
        qPrintable(win.windowTitle()));
    QCOMPARE(win.document()->filePath(), QString());
    QCOMPARE(win.document()->importedFrom(), QFileInfo(onnxFile("resnet18.onnx")).absoluteFilePath());
    QVERIFY(win.controller()->estimateState().estimate);

    // File > Open takes ONNX models too, through the same loader.
    w->dialogs->openNames.push_back(onnxFile("lenet5.onnx"));
    child<QAction>(win, "openAction")->trigger();
    QCOMPARE(win.controller()->analysis().totalParams, std::uint64_t { 61'706 });
    QVERIFY(win.windowTitle().contains(QStringLiteral("lenet5.onnx")));
}

void TestMainWindow::importErrorsUseTheErrorDialog()
{
    auto w = makeWindow();
    MainWindow& win = w->window;
    const Network before = win.document()->network();
    w->dialogs->openNames.push_back(onnxFile("batch_merge.onnx"));
    child<QAction>(win, "importAction")->trigger();
    QCOMPARE(w->dialogs->errors.size(), 1);
    const auto expected = loadNetworkFile(onnxFile("batch_merge.onnx").toStdString());
    QVERIFY(!expected);
    // The core's message, with its documentation page pointing at the copy shipped with Headroom.
    QString message = QString::fromStdString(expected.error().message);
    message.replace(QStringLiteral("docs/onnx-import.md"),
        QDir::toNativeSeparators(QDir(win.docDir()).filePath(QStringLiteral("onnx-import.md"))));
    QCOMPARE(w->dialogs->errors.front(), message);
    QVERIFY(win.document()->network() == before);
}

void TestMainWindow::savingAnImportNeverOverwritesIt()
{
    QTemporaryDir dir;
    const QString source = dir.filePath(QStringLiteral("small.onnx"));
    QVERIFY(QFile::copy(onnxFile("small_resnet.onnx"), source));
    QFile original(source);
    QVERIFY(original.open(QIODevice::ReadOnly));
    const QByteArray bytes = original.readAll();
    original.close();

    auto w = makeWindow();
    MainWindow& win = w->window;
    QVERIFY(win.openFile(source));
    QVERIFY(!win.isWindowModified());
    // Save asks for a new .json next to the import; choosing the .onnx itself is refused.
    w->dialogs->saveNames.push_back(source);
    child<QAction>(win, "saveAction")->trigger();
    QCOMPARE(w->dialogs->suggestedSaveNames.size(), 1);
    QVERIFY2(w->dialogs->suggestedSaveNames.front().endsWith(QStringLiteral(".json")),
        qPrintable(w->dialogs->suggestedSaveNames.front()));
    QCOMPARE(
        QFileInfo(w->dialogs->suggestedSaveNames.front()).absolutePath(), QFileInfo(source).absolutePath());
    QCOMPARE(w->dialogs->errors.size(), 1);
    QVERIFY(original.open(QIODevice::ReadOnly));
    QCOMPARE(original.readAll(), bytes);
    original.close();

    const QString json = dir.filePath(QStringLiteral("small.json"));
    w->dialogs->saveNames.push_back(json);
    child<QAction>(win, "saveAction")->trigger();
    QVERIFY(QFile::exists(json));
    const auto saved = loadModelFile(json.toStdString());
    QVERIFY2(saved, saved ? "" : saved.error().message.c_str());
    QVERIFY(saved.value() == win.document()->network());
    QCOMPARE(win.document()->filePath(), QFileInfo(json).absoluteFilePath());
    QCOMPARE(win.document()->importedFrom(), QString());
    QVERIFY2(!win.windowTitle().contains(QStringLiteral("imported")), qPrintable(win.windowTitle()));
}

void TestMainWindow::renamedHfConfigIsNeverTheSaveTarget()
{
    // gpt2.json is a Hugging Face config under another name than config.json: it is imported, the
    // title says so, and Ctrl+S asks for a new file instead of writing a Headroom model over it.
    QTemporaryDir dir;
    const QString source = dir.filePath(QStringLiteral("gpt2.json"));
    QVERIFY(QFile::copy(QStringLiteral(HEADROOM_TEST_SOURCE_DIR "/tests/data/hf/gpt2.json"), source));
    QFile original(source);
    QVERIFY(original.open(QIODevice::ReadOnly));
    const QByteArray bytes = original.readAll();
    original.close();

    auto w = makeWindow();
    MainWindow& win = w->window;
    w->dialogs->openNames.push_back(source);
    child<QAction>(win, "importAction")->trigger();
    QVERIFY2(w->dialogs->errors.isEmpty(), qPrintable(w->dialogs->errors.join(QLatin1Char('\n'))));
    QCOMPARE(win.document()->importedFrom(), QFileInfo(source).absoluteFilePath());
    QCOMPARE(win.document()->filePath(), QString());
    QVERIFY2(win.windowTitle().contains(QStringLiteral("(imported from gpt2.json)")),
        qPrintable(win.windowTitle()));

    // File > Open takes the same way.
    w->dialogs->openNames.push_back(source);
    child<QAction>(win, "openAction")->trigger();
    QCOMPARE(win.document()->filePath(), QString());

    // Ctrl+S: asks, cancelled: the config is untouched.
    win.layerEditor()->view()->setFocus();
    QTest::keyClick(&win, Qt::Key_S, Qt::ControlModifier);
    QCOMPARE(w->dialogs->suggestedSaveNames.size(), 1);
    const QString suggested = w->dialogs->suggestedSaveNames.front();
    QVERIFY2(suggested.endsWith(QStringLiteral(".json")) && QFileInfo(suggested) != QFileInfo(source),
        qPrintable(suggested));
    QVERIFY(original.open(QIODevice::ReadOnly));
    QCOMPARE(original.readAll(), bytes);
    original.close();
    // Choosing the config itself is refused too.
    w->dialogs->saveNames.push_back(source);
    QTest::keyClick(&win, Qt::Key_S, Qt::ControlModifier);
    QCOMPARE(w->dialogs->errors.size(), 1);
    QVERIFY(original.open(QIODevice::ReadOnly));
    QCOMPARE(original.readAll(), bytes);
}

void TestMainWindow::undoFromAPropertyField()
{
    // Type 5 into kernel_size, Enter, Ctrl+Z with the cursor still in the field: the change is undone.
    auto w = makeWindow();
    MainWindow& win = w->window;
    win.layerEditor()->selectPath({ 0 });
    auto* editor = win.propertyPanel()->attributeEditor(QStringLiteral("kernel_size"));
    QVERIFY(editor);
    auto* spin = editor->findChild<QSpinBox*>(QStringLiteral("valueSpinBox"));
    win.activateWindow();
    spin->setFocus();
    QTRY_VERIFY(spin->hasFocus());
    spin->selectAll();
    QTest::keyClicks(spin, QStringLiteral("5"));
    QTest::keyClick(spin, Qt::Key_Return);
    QCOMPARE(win.document()->network().layers[0].attributes["kernel_size"].get<int>(), 5);
    QVERIFY(spin->hasFocus());
    QTest::keyClick(spin, Qt::Key_Z, Qt::ControlModifier);
    QCOMPARE(win.document()->network().layers[0].attributes["kernel_size"].get<int>(), 3);
    QCOMPARE(spin->value(), 3);
    QTest::keyClick(spin, Qt::Key_Z, Qt::ControlModifier | Qt::ShiftModifier);
    QCOMPARE(win.document()->network().layers[0].attributes["kernel_size"].get<int>(), 5);

    // The same from a text field (the network's name), and with the edit not yet committed: the
    // typed name is committed, then undone.
    auto* name = child<QLineEdit>(*win.propertyPanel(), "networkNameLineEdit");
    name->setFocus();
    QTRY_VERIFY(name->hasFocus());
    name->selectAll();
    QTest::keyClicks(name, QStringLiteral("Renamed"));
    QTest::keyClick(name, Qt::Key_Z, Qt::ControlModifier);
    QCOMPARE(win.document()->network().name, std::string("Tiny"));
    QCOMPARE(name->text(), QStringLiteral("Tiny"));
    QTest::keyClick(name, Qt::Key_Z, Qt::ControlModifier | Qt::ShiftModifier);
    QCOMPARE(win.document()->network().name, std::string("Renamed"));
}

void TestMainWindow::numbersFollowTyping()
{
    // No Enter, no focus change: the totals follow what is typed after a short pause, as one edit.
    auto w = makeWindow();
    MainWindow& win = w->window;
    win.layerEditor()->selectPath({ 3 });
    auto* spin = win.propertyPanel()
                     ->attributeEditor(QStringLiteral("out_features"))
                     ->findChild<QSpinBox*>(QStringLiteral("valueSpinBox"));
    win.activateWindow();
    spin->setFocus();
    QTRY_VERIFY(spin->hasFocus());
    spin->selectAll();
    const int before = win.document()->undoStack()->count();
    QTest::keyClicks(spin, QStringLiteral("128"));
    QCOMPARE(win.document()->network().layers[3].attributes["out_features"].get<int>(), 10); // still typing
    QTRY_COMPARE(win.document()->network().layers[3].attributes["out_features"].get<int>(), 128);
    QCOMPARE(win.document()->undoStack()->count(), before + 1);
    // Linear(256 -> 128): 256*128 + 128 = 32,896 parameters, shown without pressing anything.
    QVERIFY2(
        child<QLabel>(win, "layerStatusLabel")->text().contains(QStringLiteral("33,008")), // 112 + 32,896
        qPrintable(child<QLabel>(win, "layerStatusLabel")->text()));
}

void TestMainWindow::shortcutsAndUserGuide()
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

void TestMainWindow::errorMessagesAreForUsers()
{
    QTemporaryDir dir;
    auto w = makeWindow();
    MainWindow& win = w->window;
    // Random bytes named .json: one readable message, no raw bytes, no prefix repeated.
    const QString garbage = dir.filePath(QStringLiteral("garbage.json"));
    QFile f(garbage);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(QByteArray::fromHex("fffe00d8ad13c1e20a7f01"));
    f.close();
    QVERIFY(!win.openFile(garbage));
    QCOMPARE(w->dialogs->errors.size(), 1);
    const QString message = w->dialogs->errors.front();
    for (const QChar c : message)
        QVERIFY2(c.isPrint() || c == QLatin1Char('\n'), qPrintable(message));
    QVERIFY2(!message.contains(QChar::ReplacementCharacter), qPrintable(message));
    QVERIFY2(message.contains(QStringLiteral("garbage.json")), qPrintable(message));

    // Saving into a folder that does not exist says so.
    w->dialogs->saveNames.push_back(dir.filePath(QStringLiteral("missing/model.json")));
    child<QAction>(win, "saveAsAction")->trigger();
    QCOMPARE(w->dialogs->errors.size(), 2);
    QVERIFY2(w->dialogs->errors.back().contains(QStringLiteral("does not exist")),
        qPrintable(w->dialogs->errors.back()));
    QVERIFY2(
        w->dialogs->errors.back().contains(QDir::toNativeSeparators(dir.filePath(QStringLiteral("missing")))),
        qPrintable(w->dialogs->errors.back()));

    // An ONNX error that points into the documentation points at a copy the user has.
    QVERIFY(!win.openFile(onnxFile("batch_merge.onnx")));
    const QString onnx = w->dialogs->errors.back();
    const auto core = loadNetworkFile(onnxFile("batch_merge.onnx").toStdString());
    QVERIFY(!core);
    if (core.error().message.find("docs/onnx-import.md") != std::string::npos) {
        const QString installed = QDir(win.docDir()).filePath(QStringLiteral("onnx-import.md"));
        QVERIFY2(onnx.contains(QDir::toNativeSeparators(installed)), qPrintable(onnx));
        QVERIFY(QFile::exists(installed));
    }
}

void TestMainWindow::residualAroundAShapeChangeIsRefused()
{
    // The conv maps [3, 8, 8] to [4, 8, 8]: its input cannot be added to its output.
    auto w = makeWindow();
    MainWindow& win = w->window;
    win.layerEditor()->selectPath({ 0 });
    const Network before = win.document()->network();
    child<QAction>(win, "wrapResidualAction")->trigger();
    QVERIFY(win.document()->network() == before);
    QCOMPARE(win.document()->undoStack()->count(), 0);
    const QString status = child<QLabel>(win, "layerStatusLabel")->text();
    QVERIFY2(
        status.contains(QStringLiteral("B x 3 x 8 x 8")) && status.contains(QStringLiteral("B x 4 x 8 x 8")),
        qPrintable(status));
}

void TestMainWindow::newLayersGetSensibleDefaults()
{
    Network net = test::tinyNetwork();
    net.input.shape.dims = { 3, 32, 32 };
    net.layers.resize(3); // conv(4) -> relu -> flatten: 4 x 32 x 32 = 4,096 features
    auto w = makeWindow(net);
    MainWindow& win = w->window;
    win.layerEditor()->selectPath({ 2 });
    child<QAction>(win, "addLinearAction")->trigger();
    const auto& fc = win.document()->network().layers[3];
    QCOMPARE(fc.type, std::string("Linear"));
    QCOMPARE(fc.attributes["out_features"].get<int>(), 512); // a hidden layer, not 4,096 wide
    // A Conv2d after the first: 64 channels (more than the conv's 4), a 3x3 kernel padded to keep
    // the 32x32 size.
    win.layerEditor()->selectPath({ 1 });
    child<QAction>(win, "addConv2dAction")->trigger();
    const auto& conv = win.document()->network().layers[2];
    QCOMPARE(conv.attributes["out_channels"].get<int>(), 64);
    QCOMPARE(conv.attributes["kernel_size"].get<int>(), 3);
    QCOMPARE(conv.attributes["padding"].get<int>(), 1);
    const Analysis a = analyze(win.document()->network(), Precision::Fp32);
    QCOMPARE(a.rows[2].output.shape.dims, (std::vector<std::int64_t> { 64, 32, 32 }));
}

void TestMainWindow::newModelGetsABatchThatFits()
{
    // A batch set to the max of a tiny network does not carry over to VGG-16 on 8 GiB.
    auto w = makeWindow();
    MainWindow& win = w->window;
    child<QPushButton>(win, "setMaxBatchButton")->click();
    const std::int64_t tinyMax = win.document()->plan().setup.batch;
    QVERIFY(tinyMax > 1000);
    QVERIFY(win.openPreset(QStringLiteral("vgg16")));
    const auto& state = win.controller()->estimateState();
    QVERIFY(state.estimate);
    QVERIFY(state.estimate->fits);
    QCOMPARE(win.document()->plan().setup.batch,
        std::min<std::int64_t>(32, std::bit_floor(static_cast<std::uint64_t>(state.estimate->maxBatch))));
    QVERIFY(win.chartView()->axisMaxBatch() < 4 * static_cast<double>(state.estimate->maxBatch));
    // A batch that fits stays.
    win.document()->setBatch(8);
    QVERIFY(win.openPreset(QStringLiteral("lenet5")));
    QCOMPARE(win.document()->plan().setup.batch, std::int64_t { 8 });
}

void TestMainWindow::attributeFieldsFollowTheSelection()
{
    // Selecting a layer of another type shows that type's fields, with room in the panel.
    auto w = makeWindow();
    MainWindow& win = w->window;
    win.layerEditor()->selectPath({ 0 }); // Conv2d
    win.layerEditor()->selectPath({ 3 }); // Linear
    AttributeEditor* editor = win.propertyPanel()->attributeEditor(QStringLiteral("out_features"));
    QVERIFY(editor);
    QTRY_VERIFY(editor->isVisible());
    QTRY_VERIFY2(editor->height() > 10, qPrintable(QString::number(editor->height())));
    auto* spin = editor->findChild<QSpinBox*>(QStringLiteral("valueSpinBox"));
    QTRY_VERIFY(spin->isVisible() && spin->height() > 10);
    // A layer added from the menu: its fields too.
    win.layerEditor()->selectPath({ 1 });
    child<QAction>(win, "addBatchNorm2dAction")->trigger();
    AttributeEditor* eps = win.propertyPanel()->attributeEditor(QStringLiteral("eps"));
    QVERIFY(eps);
    QTRY_VERIFY2(eps->isVisible() && eps->height() > 10, qPrintable(QString::number(eps->height())));
}

void TestMainWindow::emptyNetworkSaysSo()
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

void TestMainWindow::tableColumnsShowTheirContent()
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

void TestMainWindow::communicationStacksWithDataParallel()
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
    QVERIFY(child<QLabel>(win, "totalLabel")->text().startsWith(QStringLiteral("Per GPU: ")));
    win.document()->undoStack()->undo();
    QVERIFY(!chart->showsComponent(Component::Communication));
}

void TestMainWindow::checkpointSelectionFromTheEditor()
{
    // conv -> relu -> conv2 -> relu2 -> flatten -> fc: checkpointing the first four keeps only the
    // block's input and output; the first ReLU's output is recomputed.
    Network net = test::tinyNetwork();
    LayerSpec conv2 = net.layers[0];
    conv2.name = "conv2";
    net.layers.insert(net.layers.begin() + 2, { conv2, net.layers[1] });
    auto w = makeWindow(net);
    MainWindow& win = w->window;
    auto* model = win.layerEditor()->model();
    const std::uint64_t full = win.controller()->analysis().activationBytesPerSample;
    const std::uint64_t params = win.controller()->analysis().totalParams;
    win.layerEditor()->selectPath({ 0 });
    for (int r = 1; r < 4; ++r)
        win.layerEditor()->view()->selectionModel()->select(
            model->indexOf({ r }), QItemSelectionModel::Select | QItemSelectionModel::Rows);
    QAction* action = child<QAction>(win, "checkpointSelectionAction");
    QVERIFY(action->isEnabled());
    action->trigger();
    const QModelIndex block = model->index(0, 0);
    QVERIFY(block.data(LayerTableModel::IsRepeatRole).toBool());
    QCOMPARE(model->rowCount(block), 4);
    QVERIFY(win.layerEditor()->view()->isExpanded(block));
    QCOMPARE(win.document()->plan().checkpointing, Checkpointing::PerBlock);
    QCOMPARE(child<QComboBox>(win, "checkpointingComboBox")->currentData().toInt(),
        static_cast<int>(Checkpointing::PerBlock));
    auto* checkpoint = child<QCheckBox>(*win.propertyPanel(), "checkpointCheckBox");
    QVERIFY(checkpoint->isVisible() && checkpoint->isChecked());
    QCOMPARE(win.controller()->analysis().totalParams, params);
    // The block's layers are recomputed: the table and the summary say so (the analysis engine's part).
    const Analysis& a = win.controller()->analysis();
    QVERIFY2(model->index(0, 0, block).data(LayerTableModel::CheckpointedRole).toBool(),
        "the conv is checkpointed");
    QVERIFY(model->index(0, LayerTableModel::TrainingColumn)
                .data()
                .toString()
                .contains(QStringLiteral("checkpointed")));
    // One iteration: its recomputed activations are alive during its backward, so the peak stays.
    QCOMPARE(a.uncheckpointedActivationBytesPerSample, full);
    QVERIFY(a.recomputeFlopsPerSample > 0);
    auto* saving = child<QLabel>(win, "checkpointingLabel");
    QVERIFY(saving->isVisible());
    QVERIFY2(
        saving->text().contains(bytes(a.activationBytesPerSample)) && saving->text().contains(bytes(full)),
        qPrintable(saving->text()));
    win.document()->undoStack()->undo();
    QCOMPARE(model->rowCount(), 6);
    QCOMPARE(win.document()->plan().checkpointing, Checkpointing::None);
    QVERIFY(saving->isHidden());
}

void TestMainWindow::checkpointCheckBoxOnABlockSavesMemory()
{
    // input [64] -> 4 x (Linear(256) -> ReLU -> Linear(64)) -> Linear(10): checkpointing each
    // iteration keeps the iterations' inputs and one iteration's inner ReLU output instead of four.
    Network net;
    net.name = "Blocks";
    net.input.shape.dims = { 64 };
    LayerSpec up;
    up.type = "Linear";
    up.attributes = { { "out_features", 256 } };
    LayerSpec relu;
    relu.type = "ReLU";
    LayerSpec fc;
    fc.type = "Linear";
    fc.attributes = { { "out_features", 64 } };
    LayerSpec block;
    block.type = "Repeat";
    block.name = "blocks";
    block.times = 4;
    block.children = { up, relu, fc };
    LayerSpec head = fc;
    head.attributes = { { "out_features", 10 } };
    net.layers = { block, head };
    auto w = makeWindow(net);
    MainWindow& win = w->window;
    const std::uint64_t full = win.controller()->analysis().activationBytesPerSample;
    win.layerEditor()->selectPath({ 0 });
    auto* checkpoint = child<QCheckBox>(*win.propertyPanel(), "checkpointCheckBox");
    QVERIFY(checkpoint->isVisible());
    QTest::mouseClick(checkpoint, Qt::LeftButton);
    QVERIFY(win.document()->network().layers[0].checkpoint);
    QCOMPARE(win.document()->plan().checkpointing, Checkpointing::PerBlock);
    const PlanResult expected = evaluate(win.document()->plan());
    QCOMPARE(
        win.controller()->analysis().activationBytesPerSample, expected.analysis.activationBytesPerSample);
    QVERIFY2(expected.analysis.activationBytesPerSample < full, "per-block checkpointing keeps less");
    QVERIFY(win.controller()->estimateState().estimate->maxBatch >= evaluate([&] {
        Plan p = win.document()->plan();
        p.checkpointing = Checkpointing::None;
        return p;
    }())
                                                                        .estimate->maxBatch);
    auto* saving = child<QLabel>(win, "checkpointingLabel");
    QVERIFY(saving->isVisible());
    QVERIFY2(saving->text().contains(bytes(expected.analysis.activationBytesPerSample)),
        qPrintable(saving->text()));
    // The checkpointing mode and the mark are separate settings: switching to selective shows a hint.
    child<QComboBox>(win, "checkpointingComboBox")->setCurrentIndex(2);
    QVERIFY(child<QLabel>(*win.propertyPanel(), "checkpointHintLabel")->isVisible());
    win.document()->undoStack()->undo();
    win.document()->undoStack()->undo();
    QVERIFY(!checkpoint->isChecked());
    QCOMPARE(win.controller()->analysis().activationBytesPerSample, full);
}

void TestMainWindow::frozenCheckBoxMarksTheLayer()
{
    auto w = makeWindow();
    MainWindow& win = w->window;
    auto* model = win.layerEditor()->model();
    win.layerEditor()->selectPath({ 0 });
    auto* frozen = child<QCheckBox>(*win.propertyPanel(), "frozenCheckBox");
    QVERIFY(frozen->isVisible());
    QVERIFY(!child<QCheckBox>(*win.propertyPanel(), "checkpointCheckBox")->isVisible()); // not a block
    QTest::mouseClick(frozen, Qt::LeftButton);
    QVERIFY(win.document()->network().layers[0].frozen);
    QVERIFY(win.isWindowModified());
    QVERIFY(model->index(0, 0).data(LayerTableModel::FrozenRole).toBool());
    QVERIFY(model->index(0, LayerTableModel::NameColumn).data(Qt::FontRole).value<QFont>().italic());
    QVERIFY(model->index(0, LayerTableModel::TrainingColumn)
                .data()
                .toString()
                .contains(QStringLiteral("frozen")));
    // The conv's 112 parameters no longer train (the analysis engine's part).
    QCOMPARE(win.controller()->analysis().trainableParams, test::kTinyParams - 112);
    auto* trainable = child<QLabel>(win, "trainableLabel");
    QVERIFY(trainable->isVisible());
    QVERIFY2(trainable->text().contains(QStringLiteral("2,570")), qPrintable(trainable->text()));
    win.document()->undoStack()->undo();
    QVERIFY(!frozen->isChecked());
    QVERIFY(!model->index(0, 0).data(LayerTableModel::FrozenRole).toBool());
    QVERIFY(trainable->isHidden());
}

void TestMainWindow::summaryShowsEffectiveBatchAndThroughput()
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

void TestMainWindow::fitsAt1280x800()
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

QTEST_MAIN(TestMainWindow)
#include "tst_mainwindow.moc"

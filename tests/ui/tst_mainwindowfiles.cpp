// The main window as the user opens, imports, saves and exports (MainWindowFixture.h): model files, ONNX and
// config.json imports that are never overwritten, unsaved changes, the report, recent files and presets.
#include "Document.h"
#include "LayerEditor.h"
#include "LayerTableModel.h"
#include "MainWindow.h"
#include "MainWindowFixture.h"
#include "MemoryChartView.h"
#include "TestSupport.h"
#include "headroom/estimate/Plan.h"
#include "headroom/estimate/Throughput.h"
#include "headroom/importers/NetworkFile.h"
#include "headroom/model/ModelFile.h"
#include "headroom/support/Resources.h"

#include <QAction>
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QPushButton>
#include <QSettings>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>

using namespace headroom;
using namespace headroom::ui;
using namespace headroom::test;

class TestMainWindowFiles : public QObject, private MainWindowFixture
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { test::isolateSettings(); }
    void init() { QSettings().clear(); }
    void openSaveRoundTrip();
    void unsavedChangesAskFirst();
    void exportReportThroughTheDialog();
    void remembersSetupAndRecentFiles();
    void importOnnxKeepsItsParameterCount();
    void importErrorsUseTheErrorDialog();
    void savingAnImportNeverOverwritesIt();
    void renamedHfConfigIsNeverTheSaveTarget();
    void newModelGetsABatchThatFits();
    void importAsksTheTrainingLength();
};

void TestMainWindowFiles::openSaveRoundTrip()
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

void TestMainWindowFiles::unsavedChangesAskFirst()
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

void TestMainWindowFiles::exportReportThroughTheDialog()
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

void TestMainWindowFiles::remembersSetupAndRecentFiles()
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
        w->window.document()->setGpusPerNode(4);
        w->window.document()->setInterNodeGBps(12.5);
        QVERIFY(w->window.close());
    }
    MainWindow again;
    // The remembered GPU is looked up in the installed catalogue, which tests do not control; the
    // rest comes back as it was.
    QCOMPARE(again.document()->plan().setup.batch, std::int64_t { 96 });
    QCOMPARE(again.document()->plan().setup.optimizer, Optimizer::Sgd);
    QCOMPARE(again.document()->plan().setup.optimizerImplementation, OptimizerImplementation::ForLoop);
    QCOMPARE(again.document()->plan().setup.gpusPerNode, std::int64_t { 4 });
    QCOMPARE(again.document()->plan().setup.interNodeGBps, 12.5);
    QCOMPARE(QSettings().value(QStringLiteral("setup/gpu")).toString(), QStringLiteral("Test GPU 8"));
    auto* recent = again.findChild<QMenu*>(QStringLiteral("recentFilesMenu"));
    QVERIFY(recent && recent->isEnabled());
    QVERIFY(recent->actions().front()->text().contains(QStringLiteral("remember.json")));
    // Links an edited settings file gives out of range are the defaults (8 GPUs per node, 50 GB/s).
    QSettings().setValue(QStringLiteral("setup/gpusPerNode"), 0);
    QSettings().setValue(QStringLiteral("setup/interNodeGBps"), QStringLiteral("fast"));
    MainWindow edited;
    QCOMPARE(edited.document()->plan().setup.gpusPerNode, std::int64_t { 8 });
    QCOMPARE(edited.document()->plan().setup.interNodeGBps, 50.0);
}

void TestMainWindowFiles::importOnnxKeepsItsParameterCount()
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

void TestMainWindowFiles::importErrorsUseTheErrorDialog()
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

void TestMainWindowFiles::savingAnImportNeverOverwritesIt()
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

void TestMainWindowFiles::renamedHfConfigIsNeverTheSaveTarget()
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

void TestMainWindowFiles::newModelGetsABatchThatFits()
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

// A config whose context is longer than one trains at (Llama-2-7B: 4,096 positions) starts at 1,024 tokens
// and the import asks which length: the answer is the model's input, the config's context its longest.
// GPT-2 (1,024 positions) is not asked. Strategy's sequence length shows beside the input shape.
void TestMainWindowFiles::importAsksTheTrainingLength()
{
    auto w = makeWindow();
    MainWindow& win = w->window;
    w->dialogs->openNames.push_back(
        QStringLiteral(HEADROOM_TEST_SOURCE_DIR "/tests/data/hf/Llama-2-7b-hf.json"));
    w->dialogs->sequenceLengths.push_back(2048);
    child<QAction>(win, "importAction")->trigger();
    QVERIFY2(w->dialogs->errors.isEmpty(), qPrintable(w->dialogs->errors.join(QLatin1Char('\n'))));
    QCOMPARE(w->dialogs->sequenceQuestions, 1);
    const Network& n = win.document()->network();
    QCOMPARE(n.input.shape.dims, std::vector<std::int64_t> { 2048 });
    QCOMPARE(n.input.maxSequenceLength, std::optional<std::int64_t> { 4096 });
    QVERIFY(n.warnings.empty()); // the answer replaces the default and its warning
    QCOMPARE(child<QLineEdit>(win, "inputShapeLineEdit")->text(), QStringLiteral("2048"));

    // Cancelled: the import keeps 1,024 tokens, and its warning says why.
    w->dialogs->openNames.push_back(
        QStringLiteral(HEADROOM_TEST_SOURCE_DIR "/tests/data/hf/Llama-2-7b-hf.json"));
    child<QAction>(win, "importAction")->trigger();
    QCOMPARE(w->dialogs->sequenceQuestions, 2);
    QCOMPARE(win.document()->network().input.shape.dims, std::vector<std::int64_t> { 1024 });
    QCOMPARE(win.document()->network().warnings.size(), std::size_t { 1 });

    // Strategy's length is noted beside the model's own, and goes when it is undone.
    auto* note = child<QLabel>(win, "trainedLengthNoteLabel");
    QVERIFY(note->isHidden());
    win.document()->setSequenceLength(512);
    QVERIFY(!note->isHidden());
    QVERIFY2(note->text().contains(QStringLiteral("512")) && note->text().contains(QStringLiteral("1,024")),
        qPrintable(note->text()));
    win.document()->undoStack()->undo();
    QVERIFY(note->isHidden());

    // GPT-2's context is the default length: nothing to ask.
    w->dialogs->openNames.push_back(QStringLiteral(HEADROOM_TEST_SOURCE_DIR "/tests/data/hf/gpt2.json"));
    child<QAction>(win, "importAction")->trigger();
    QCOMPARE(w->dialogs->sequenceQuestions, 2);
    QCOMPARE(win.document()->network().input.shape.dims, std::vector<std::int64_t> { 1024 });
}

QTEST_MAIN(TestMainWindowFiles)
#include "tst_mainwindowfiles.moc"

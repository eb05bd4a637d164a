// Issue 25: a newcomer's walk through the main window. What a file that is no model says (item 8),
// the file dialogs' starting folder and the user guide's error (item 9), and window shortcuts that
// work from every field without editing it (item 2).
#include "BatchScale.h"
#include "DialogProvider.h"
#include "Document.h"
#include "LayerEditor.h"
#include "LayerTableModel.h"
#include "MainWindow.h"
#include "MemoryChartView.h"
#include "SetupPanel.h"
#include "TestSupport.h"

#include <QAction>
#include <QApplication>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QItemSelectionModel>
#include <QLineEdit>
#include <QSettings>
#include <QSlider>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QTreeView>
#include <QUndoStack>

using namespace headroom;
using namespace headroom::ui;

class TestFirstUse : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void aTextFileSaysWhatItWasTakenFor();
    void aMissingFileOpensTheDefaultAndSaysSo();
    void fileDialogsStartInAFolderThatExists();
    void userGuideErrorNamesItsPathOnce();
    void shortcutsWorkFromEveryField();
    void chartRangeFollowsTheBatch();

private:
    struct Window
    {
        MainWindow window;
        test::ScriptedDialogs* dialogs = nullptr;
    };
    std::unique_ptr<Window> makeWindow(bool scripted = true);
    QTemporaryDir m_home;
};

void TestFirstUse::initTestCase()
{
    // A home without a Documents folder, as on a fresh server account (or a desktop in another
    // language, where it has another name).
    QVERIFY(m_home.isValid());
    qputenv("HOME", m_home.path().toLocal8Bit());
    qunsetenv("XDG_DOCUMENTS_DIR");
    test::isolateSettings();
}

void TestFirstUse::init()
{
    QSettings().clear();
}

std::unique_ptr<TestFirstUse::Window> TestFirstUse::makeWindow(bool scripted)
{
    auto w = std::make_unique<Window>();
    if (scripted) {
        auto dialogs = std::make_unique<test::ScriptedDialogs>();
        w->dialogs = dialogs.get();
        w->window.setDialogProvider(std::move(dialogs));
    }
    const GpuCatalog catalog = test::testCatalog();
    w->window.setupPanel()->setCatalog(catalog);
    w->window.document()->resetSetup(Precision::Fp32, TrainingSetup {}, catalog.gpus()[0]);
    w->window.document()->resetNetwork(test::tinyNetwork(), QString());
    w->window.resize(1400, 900);
    w->window.show();
    w->window.activateWindow();
    if (!QTest::qWaitForWindowActive(&w->window))
        qWarning("the window did not become active: its shortcuts will not fire");
    return w;
}

void TestFirstUse::aTextFileSaysWhatItWasTakenFor()
{
    QTemporaryDir dir;
    const QString notes = dir.filePath(QStringLiteral("notes.txt"));
    QFile f(notes);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("hello, these are my notes\n");
    f.close();
    auto w = makeWindow();
    const Network before = w->window.document()->network();
    w->dialogs->openNames.push_back(notes);
    w->window.findChild<QAction*>(QStringLiteral("importAction"))->trigger();
    QCOMPARE(w->dialogs->errors.size(), 1);
    // Before: "line 1, column 1: syntax error while parsing value - invalid literal; last read: 'h'".
    QCOMPARE(w->dialogs->errors.front(),
        notes
            + QStringLiteral(
                ": read as a Headroom model file (its name does not end in .onnx or config.json), but "
                "it is not JSON text (a model file starts with \"{\"). Headroom opens Headroom model "
                "files (.json), ONNX models (.onnx) and Hugging Face configs (config.json)"));
    QVERIFY(w->window.document()->network() == before);
}

void TestFirstUse::aMissingFileOpensTheDefaultAndSaysSo()
{
    // Issue 35: `headroom missing.json` on a screen starts the GUI (runGuiApp), which tries the file,
    // says why it cannot, and shows the default model instead of nothing.
    const QString missing = m_home.filePath(QStringLiteral("gone/model.json"));
    auto w = makeWindow();
    QVERIFY(!w->window.openFile(missing));
    QCOMPARE(w->dialogs->errors.size(), 1);
    QVERIFY2(w->dialogs->errors.front().contains(missing), qPrintable(w->dialogs->errors.front()));
    QVERIFY2(w->dialogs->errors.front().contains(QStringLiteral("no such file")),
        qPrintable(w->dialogs->errors.front()));
    w->window.loadDefault();
    QVERIFY(!w->window.document()->network().layers.empty());
}

void TestFirstUse::fileDialogsStartInAFolderThatExists()
{
    QVERIFY(!QDir(m_home.filePath(QStringLiteral("Documents"))).exists());
    QCOMPARE(
        DialogProvider::existingFolder(m_home.filePath(QStringLiteral("Documents/Headroom"))), m_home.path());
    auto w = makeWindow(false); // Qt's own file dialog
    QString fileName = QStringLiteral("(no dialog)");
    QString folder;
    QTimer poll;
    poll.setInterval(20);
    connect(&poll, &QTimer::timeout, this, [&] {
        auto* dialog = qobject_cast<QFileDialog*>(QApplication::activeModalWidget());
        if (dialog == nullptr)
            return;
        poll.stop();
        fileName = dialog->findChild<QLineEdit*>(QStringLiteral("fileNameEdit"))->text();
        folder = dialog->directory().absolutePath();
        dialog->reject();
    });
    for (const char* action : { "openAction", "importAction" }) {
        fileName = QStringLiteral("(no dialog)");
        poll.start();
        w->window.findChild<QAction*>(QString::fromLatin1(action))->trigger();
        // Before: the name field read "Documents", a folder that does not exist.
        QVERIFY2(fileName.isEmpty(),
            qPrintable(QStringLiteral("%1: %2").arg(QString::fromLatin1(action), fileName)));
        QVERIFY2(QDir(folder).exists(), qPrintable(folder));
    }
}

void TestFirstUse::userGuideErrorNamesItsPathOnce()
{
    auto w = makeWindow();
    w->dialogs->canOpenUrls = false;
    w->window.findChild<QAction*>(QStringLiteral("userGuideAction"))->trigger();
    QCOMPARE(w->dialogs->errors.size(), 1);
    const QString guide
        = QDir::toNativeSeparators(QDir(w->window.docDir()).filePath(QStringLiteral("user-guide.md")));
    // Before: "No application could open /tmp/x//tmp/x/docs/user-guide.md".
    QCOMPARE(w->dialogs->errors.front(),
        QStringLiteral("No application could open %1. Open it with a text editor or a "
                       "Markdown viewer.")
            .arg(guide));
}

void TestFirstUse::shortcutsWorkFromEveryField()
{
    auto w = makeWindow();
    MainWindow& win = w->window;
    auto* name = win.findChild<QLineEdit*>(QStringLiteral("networkNameLineEdit"));
    auto* shape = win.findChild<QLineEdit*>(QStringLiteral("inputShapeLineEdit"));
    auto* batch = win.findChild<QSpinBox*>(QStringLiteral("batchSpinBox"));
    QVERIFY(name != nullptr && shape != nullptr && batch != nullptr);
    QCOMPARE(name->text(), QStringLiteral("Tiny"));

    // Ctrl+E exports from the batch box and the input shape (it moved their cursor to the end).
    for (QWidget* field : std::initializer_list<QWidget*> { batch, shape, name }) {
        const qsizetype asked = w->dialogs->suggestedSaveNames.size();
        field->setFocus();
        QTRY_VERIFY(field->hasFocus());
        QTest::keyClick(field, Qt::Key_E, Qt::ControlModifier);
        QVERIFY2(w->dialogs->suggestedSaveNames.size() == asked + 1, qPrintable(field->objectName()));
    }

    // Ctrl+K from the Name field: nothing selected, Checkpoint Selection is disabled, and the key
    // does nothing at all (it erased the name, an edit that made the title "Untitled*").
    win.layerEditor()->view()->selectionModel()->clearSelection();
    auto* checkpoint = win.findChild<QAction*>(QStringLiteral("checkpointSelectionAction"));
    QVERIFY(!checkpoint->isEnabled());
    name->setFocus();
    name->setCursorPosition(0);
    QTest::keyClick(name, Qt::Key_K, Qt::ControlModifier);
    QCOMPARE(name->text(), QStringLiteral("Tiny"));
    QVERIFY(!win.document()->undoStack()->canUndo());
    // With the first layer selected it checkpoints it, as the Layer menu says, and the name stays.
    win.layerEditor()->selectPath({ 0 });
    QVERIFY(checkpoint->isEnabled());
    name->setFocus();
    name->setCursorPosition(0);
    QTest::keyClick(name, Qt::Key_K, Qt::ControlModifier);
    QCOMPARE(name->text(), QStringLiteral("Tiny"));
    QCOMPARE(win.document()->network().name, std::string("Tiny"));
    QVERIFY(win.layerEditor()->model()->index(0, 0).data(LayerTableModel::IsRepeatRole).toBool());
    // Ctrl+Z from the field takes the window's last change back (not the field's text history).
    name->setFocus();
    QTest::keyClick(name, Qt::Key_Z, Qt::ControlModifier);
    QVERIFY(!win.layerEditor()->model()->index(0, 0).data(LayerTableModel::IsRepeatRole).toBool());
    QCOMPARE(name->text(), QStringLiteral("Tiny"));
}

void TestFirstUse::chartRangeFollowsTheBatch()
{
    // VGG-16 on an 8 GiB GPU (the GTX 1080), batch 32: its max batch is 79. The batch axis
    // reaches the power of two above 79 + 79/4 = 98, 128; the memory axis 1.2 x 8 GiB = 9.6 GiB,
    // rounded to 10 GiB (the stack at batch 32, 4.73 GiB, is below it).
    auto w = makeWindow();
    MainWindow& win = w->window;
    QVERIFY(win.openPreset(QStringLiteral("vgg16")));
    win.document()->setBatch(32);
    MemoryChartView* chart = win.chartView();
    QCOMPARE(chart->axisMaxBatch(), 128.0);
    QCOMPARE(chart->unitName(), QStringLiteral("GiB"));
    QCOMPARE(chart->axisMaxMemory(), 10.0);

    // The newcomer's drag to about 218 and back: the axes went to 1-256 x 0-20 GiB and stayed.
    auto* slider = win.findChild<QSlider*>(QStringLiteral("batchSlider"));
    slider->setValue(ui::BatchScale::positionOf(218));
    QCOMPARE(win.document()->plan().setup.batch, std::int64_t { 218 });
    QCOMPARE(chart->axisMaxBatch(), 512.0); // 218 + 54 = 272 -> 512
    QVERIFY2(chart->axisMaxMemory() > 10.0, qPrintable(QString::number(chart->axisMaxMemory())));
    slider->setValue(ui::BatchScale::positionOf(32));
    QCOMPARE(win.document()->plan().setup.batch, std::int64_t { 32 });
    QCOMPARE(chart->axisMaxBatch(), 128.0);
    QCOMPARE(chart->axisMaxMemory(), 10.0);

    // Typed sizes too: 1000, then 32 again.
    auto* spin = win.findChild<QSpinBox*>(QStringLiteral("batchSpinBox"));
    for (const auto& [typed, range] :
        { std::pair { QStringLiteral("1000"), 2048.0 }, std::pair { QStringLiteral("32"), 128.0 } }) {
        spin->setFocus();
        spin->selectAll();
        QTest::keyClicks(spin, typed);
        QTest::keyClick(spin, Qt::Key_Return);
        QCOMPARE(chart->axisMaxBatch(), range); // 1000 + 250 = 1250 -> 2048
    }
    QCOMPARE(chart->axisMaxMemory(), 10.0);
}

QTEST_MAIN(TestFirstUse)
#include "tst_firstuse.moc"

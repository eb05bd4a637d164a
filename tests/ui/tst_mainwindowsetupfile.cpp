// The set-up saved with the model (docs/model-format.md "The saved set-up"), through the real window: Save
// writes the set-up on screen into the file, opening the file brings it back into the set-up panel, a
// file without one keeps the set-up on screen, and a mistake in it is shown with its JSON path.
#include "Document.h"
#include "MainWindow.h"
#include "MainWindowFixture.h"
#include "TestSupport.h"
#include "headroom/estimate/Plan.h"
#include "headroom/estimate/SetupFile.h"
#include "headroom/model/ModelFile.h"

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QFile>
#include <QSettings>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>

using namespace headroom;
using namespace headroom::ui;
using namespace headroom::test;

class TestMainWindowSetupFile : public QObject, private MainWindowFixture
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { test::isolateSettings(); }
    void init() { QSettings().clear(); }
    void saveAndReopenBringsTheSetupBack();
    void fileWithoutSetupKeepsTheSetupOnScreen();
    void badSetupIsShownWithItsPath();
    void customGpuComesBackWithTheFile();
};

void TestMainWindowSetupFile::saveAndReopenBringsTheSetupBack()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("planned.json"));
    auto w = makeWindow();
    MainWindow& win = w->window;
    // The set-up, chosen in the set-up panel's own widgets.
    auto* precision = child<QComboBox>(win, "precisionComboBox");
    auto* gpus = child<QSpinBox>(win, "gpuCountSpinBox");
    auto* sharding = child<QComboBox>(win, "shardingComboBox");
    auto* accumulation = child<QSpinBox>(win, "accumulationStepsSpinBox");
    auto* optimizer = child<QComboBox>(win, "optimizerComboBox");
    auto* batch = child<QSpinBox>(win, "batchSpinBox");
    QVERIFY(precision && gpus && sharding && accumulation && optimizer && batch);
    precision->setCurrentIndex(precision->findData(static_cast<int>(Precision::AmpBf16)));
    optimizer->setCurrentIndex(optimizer->findData(static_cast<int>(Optimizer::AdamW)));
    gpus->setValue(4);
    QTRY_COMPARE(win.document()->plan().setup.parallel.gpus, std::int64_t { 4 });
    sharding->setCurrentIndex(sharding->findData(static_cast<int>(Sharding::Zero2)));
    accumulation->setValue(3);
    win.document()->setBatch(12);
    win.document()->setGpu(test::testCatalog().find("Test GPU 24").value());
    QTRY_COMPARE(win.document()->plan().setup.accumulationSteps, std::int64_t { 3 });
    const Plan before = win.document()->plan();
    QCOMPARE(before.precision, Precision::AmpBf16);
    QCOMPARE(before.setup.optimizer, Optimizer::AdamW);
    QCOMPARE(before.setup.parallel.sharding, Sharding::Zero2);
    QCOMPARE(before.setup.batch, std::int64_t { 12 });

    w->dialogs->saveNames.push_back(path);
    child<QAction>(win, "saveAction")->trigger();
    QVERIFY(QFile::exists(path));
    QVERIFY(!win.isWindowModified());
    // The file holds the set-up, and reads back as the plan's settings.
    auto document = loadModelDocument(path.toStdString());
    QVERIFY(document.ok());
    QCOMPARE(document->training["batch"].get<int>(), 12);
    QCOMPARE(document->training["gpu"].get<std::string>(), "Test GPU 24");
    auto read = parseTrainingSetup(document->training, test::testCatalog());
    QVERIFY2(read.ok(), read.ok() ? "" : read.error().message.c_str());
    QVERIFY(read.value() == static_cast<const PlanSettings&>(before));
    // What the command line plans from the file is what the window shows.
    Plan fromFile;
    static_cast<PlanSettings&>(fromFile) = read.value();
    fromFile.network = document->network;
    const PlanResult again = evaluate(fromFile);
    const PlanResult shown = evaluate(before);
    QVERIFY(again.estimate && shown.estimate);
    QCOMPARE(again.estimate->peakBytes(), shown.estimate->peakBytes());
    QCOMPARE(again.estimate->maxBatch, shown.estimate->maxBatch);

    // The file holds a set-up now: changing it is an unsaved change.
    win.document()->setBatch(40);
    win.document()->setPrecision(Precision::Fp32);
    gpus->setValue(1);
    QTRY_VERIFY(win.isWindowModified());
    // Opened again (the change discarded), the set-up panel shows the saved set-up, as part of the open.
    w->dialogs->saveChoices.push_back(DialogProvider::SaveChoice::Discard);
    w->dialogs->openNames.push_back(path);
    child<QAction>(win, "openAction")->trigger();
    QCOMPARE(w->dialogs->saveQuestions, 1);
    QVERIFY(
        static_cast<const PlanSettings&>(win.document()->plan()) == static_cast<const PlanSettings&>(before));
    QCOMPARE(precision->currentData().toInt(), static_cast<int>(Precision::AmpBf16));
    QCOMPARE(optimizer->currentData().toInt(), static_cast<int>(Optimizer::AdamW));
    QCOMPARE(gpus->value(), 4);
    QCOMPARE(sharding->currentData().toInt(), static_cast<int>(Sharding::Zero2));
    QCOMPARE(accumulation->value(), 3);
    QCOMPARE(batch->value(), 12);
    QVERIFY2(child<QComboBox>(win, "gpuComboBox")->currentText().contains(QStringLiteral("Test GPU 24")),
        qPrintable(child<QComboBox>(win, "gpuComboBox")->currentText()));
    QCOMPARE(win.document()->undoStack()->count(), 0);
    QVERIFY(!win.isWindowModified());
}

void TestMainWindowSetupFile::fileWithoutSetupKeepsTheSetupOnScreen()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("plain.json"));
    QVERIFY(saveModelFile(test::tinyNetwork(), path.toStdString()).ok());
    auto w = makeWindow();
    MainWindow& win = w->window;
    win.document()->setBatch(7);
    win.document()->setPrecision(Precision::AmpFp16);
    const PlanSettings before = win.document()->plan();
    QVERIFY(win.openFile(path));
    QVERIFY(static_cast<const PlanSettings&>(win.document()->plan()) == before);
    // ... and, the file holding no set-up, changing it is no unsaved change.
    win.document()->setBatch(9);
    QVERIFY(!win.isWindowModified());
}

void TestMainWindowSetupFile::badSetupIsShownWithItsPath()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("bad.json"));
    nlohmann::ordered_json training;
    training["batch"] = 8;
    training["parallel"] = { { "pipeline_parallel", 0 } };
    QVERIFY(saveModelFile(test::tinyNetwork(), path.toStdString(), training).ok());
    auto w = makeWindow();
    MainWindow& win = w->window;
    const Network before = win.document()->network();
    QVERIFY(!win.openFile(path));
    QCOMPARE(w->dialogs->errors.size(), 1);
    QVERIFY2(w->dialogs->errors.front().contains(QStringLiteral("training.parallel.pipeline_parallel")),
        qPrintable(w->dialogs->errors.front()));
    QVERIFY(win.document()->network() == before);
}

void TestMainWindowSetupFile::customGpuComesBackWithTheFile()
{
    // A custom GPU the catalogue does not have: the file holds its figures, and opening it lists it with
    // the user's own GPUs.
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("custom.json"));
    PlanSettings settings;
    settings.gpu = Gpu { "Lab card 40", "Custom", "Custom", {}, 40ULL << 30, 1500, 50, 200, 200, 0, 0, true };
    settings.setup.batch = 5;
    settings.setup.overheadBytes = 600ULL << 20;
    QVERIFY(saveModelFile(test::tinyNetwork(), path.toStdString(), trainingSetupToJson(settings)).ok());
    auto w = makeWindow();
    MainWindow& win = w->window;
    QVERIFY(win.openFile(path));
    QVERIFY(win.document()->plan().gpu == settings.gpu);
    QCOMPARE(win.document()->plan().setup.overheadBytes, 600ULL << 20);
    QVERIFY(win.setupPanel()->catalog().find("Lab card 40").ok());
    QVERIFY2(child<QComboBox>(win, "gpuComboBox")->currentText().contains(QStringLiteral("Lab card 40")),
        qPrintable(child<QComboBox>(win, "gpuComboBox")->currentText()));
    QCOMPARE(child<QSpinBox>(win, "overheadSpinBox")->value(), 600);
}

QTEST_MAIN(TestMainWindowSetupFile)
#include "tst_mainwindowsetupfile.moc"

// The main window as the user edits the network (MainWindowFixture.h): adding, changing and removing layers,
// residual blocks, undo, the property fields, errors shown where they are, checkpointing and freezing.
#include "AttributeEditor.h"
#include "Document.h"
#include "LayerEditor.h"
#include "LayerTableModel.h"
#include "MainWindow.h"
#include "MainWindowFixture.h"
#include "PropertyPanel.h"
#include "TestSupport.h"
#include "headroom/estimate/Plan.h"
#include "headroom/estimate/Throughput.h"
#include "headroom/importers/NetworkFile.h"
#include "headroom/model/ModelFile.h"
#include "headroom/support/Resources.h"

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QSettings>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTest>

using namespace headroom;
using namespace headroom::ui;
using namespace headroom::test;

class TestMainWindowEditing : public QObject, private MainWindowFixture
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { test::isolateSettings(); }
    void init() { QSettings().clear(); }
    void addAndEditLayerUpdatesTableAndTotals();
    void undoRedoThroughTheEditMenu();
    void residualBlockFromSelection();
    void invalidLayerShowsItsError();
    void nestedErrorsUseTheTableNumbering();
    void undoFromAPropertyField();
    void numbersFollowTyping();
    void errorMessagesAreForUsers();
    void residualAroundAShapeChangeIsRefused();
    void newLayersGetSensibleDefaults();
    void attributeFieldsFollowTheSelection();
    void checkpointSelectionFromTheEditor();
    void frozenCheckBoxMarksTheLayer();
    void checkpointCheckBoxOnABlockSavesMemory();
};

void TestMainWindowEditing::addAndEditLayerUpdatesTableAndTotals()
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
        QStringLiteral("Tensors: %1 of %2").arg(bytes(expected.estimate->total()), bytes(8ULL << 30)));
    QVERIFY(child<QLabel>(win, "layerStatusLabel")->text().contains(QStringLiteral("8,666")));
    QVERIFY(win.isWindowModified());
}

void TestMainWindowEditing::undoRedoThroughTheEditMenu()
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

void TestMainWindowEditing::residualBlockFromSelection()
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

void TestMainWindowEditing::invalidLayerShowsItsError()
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

void TestMainWindowEditing::nestedErrorsUseTheTableNumbering()
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
    // The layer has no name: its automatic one, "block.0.0" (indices counted from 0), would read as
    // other numbers than 2.1, so it goes by its type, as every view names an unnamed layer.
    QVERIFY2(status->text().startsWith(QStringLiteral("Layer 2.1 (Linear): out_features ")),
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

void TestMainWindowEditing::undoFromAPropertyField()
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

void TestMainWindowEditing::numbersFollowTyping()
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

void TestMainWindowEditing::errorMessagesAreForUsers()
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

void TestMainWindowEditing::residualAroundAShapeChangeIsRefused()
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

void TestMainWindowEditing::newLayersGetSensibleDefaults()
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

void TestMainWindowEditing::attributeFieldsFollowTheSelection()
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

void TestMainWindowEditing::checkpointSelectionFromTheEditor()
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

void TestMainWindowEditing::checkpointCheckBoxOnABlockSavesMemory()
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

void TestMainWindowEditing::frozenCheckBoxMarksTheLayer()
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

QTEST_MAIN(TestMainWindowEditing)
#include "tst_mainwindowediting.moc"

// The operator vocabulary of issue 13 in the layer editor: every new kind gets defaults that make a
// valid layer after a suitable one, and a few are added, edited, saved and reopened through the real
// main window.
#include "Document.h"
#include "LayerDefaults.h"
#include "LayerEditor.h"
#include "LayerTableModel.h"
#include "MainWindow.h"
#include "PropertyPanel.h"
#include "SetupPanel.h"
#include "TestSupport.h"
#include "headroom/analysis/Analysis.h"
#include "headroom/estimate/Plan.h"
#include "headroom/layers/LayerRegistry.h"
#include "headroom/model/ModelFile.h"

#include <QAction>
#include <QDoubleSpinBox>
#include <QSettings>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>

using namespace headroom;
using namespace headroom::ui;

namespace {

/// The kinds issue 13 added, with an input on which the editor's default makes a valid layer.
struct NewKind
{
    const char* type;
    std::vector<std::int64_t> input;
};

const std::vector<NewKind>& newKinds()
{
    static const std::vector<NewKind> kinds { { "Conv3d", { 3, 4, 8, 8 } }, { "ConvTranspose1d", { 8, 16 } },
        { "ConvTranspose3d", { 3, 4, 8, 8 } }, { "MaxPool1d", { 8, 16 } }, { "MaxPool3d", { 3, 4, 8, 8 } },
        { "AvgPool1d", { 8, 16 } }, { "AvgPool3d", { 3, 4, 8, 8 } }, { "AdaptiveAvgPool1d", { 8, 16 } },
        { "AdaptiveAvgPool3d", { 3, 4, 8, 8 } }, { "AdaptiveMaxPool1d", { 8, 16 } },
        { "AdaptiveMaxPool2d", { 3, 8, 8 } }, { "AdaptiveMaxPool3d", { 3, 4, 8, 8 } },
        { "BatchNorm3d", { 3, 4, 8, 8 } }, { "InstanceNorm1d", { 8, 16 } }, { "InstanceNorm2d", { 3, 8, 8 } },
        { "InstanceNorm3d", { 3, 4, 8, 8 } }, { "Hardswish", { 16 } }, { "Hardsigmoid", { 16 } },
        { "Hardtanh", { 16 } }, { "Mish", { 16 } }, { "Softplus", { 16 } }, { "ELU", { 16 } },
        { "SELU", { 16 } }, { "CELU", { 16 } }, { "PReLU", { 3, 8, 8 } }, { "LogSigmoid", { 16 } },
        { "Sub", { 8, 16 } }, { "Mul", { 8, 16 } }, { "Div", { 8, 16 } }, { "Pow", { 16 } },
        { "Sqrt", { 16 } }, { "Exp", { 16 } }, { "Neg", { 16 } }, { "Abs", { 16 } }, { "Clamp", { 16 } },
        { "Mean", { 8, 16 } }, { "Sum", { 8, 16 } }, { "Amax", { 8, 16 } }, { "MatMul", { 8, 8 } },
        { "Permute", { 3, 8, 8 } }, { "Transpose", { 8, 16 } }, { "Reshape", { 3, 8, 8 } },
        { "View", { 3, 8, 8 } }, { "Unflatten", { 8, 16 } }, { "Squeeze", { 1, 16 } },
        { "Unsqueeze", { 16 } }, { "Contiguous", { 8, 16 } }, { "Expand", { 1, 16 } },
        { "Narrow", { 8, 16 } }, { "Slice", { 8, 16 } }, { "Select", { 8, 16 } }, { "Pad", { 3, 8, 8 } },
        { "ConstantPad1d", { 8, 16 } }, { "ConstantPad2d", { 3, 8, 8 } }, { "ConstantPad3d", { 3, 4, 8, 8 } },
        { "ZeroPad1d", { 8, 16 } }, { "ZeroPad2d", { 3, 8, 8 } }, { "ZeroPad3d", { 3, 4, 8, 8 } },
        { "ReflectionPad1d", { 8, 16 } }, { "ReflectionPad2d", { 3, 8, 8 } },
        { "ReflectionPad3d", { 3, 4, 8, 8 } }, { "ReplicationPad1d", { 8, 16 } },
        { "ReplicationPad2d", { 3, 8, 8 } }, { "ReplicationPad3d", { 3, 4, 8, 8 } },
        { "CircularPad1d", { 8, 16 } }, { "CircularPad2d", { 3, 8, 8 } }, { "CircularPad3d", { 3, 4, 8, 8 } },
        { "Upsample", { 3, 8, 8 } }, { "UpsamplingNearest2d", { 3, 8, 8 } },
        { "UpsamplingBilinear2d", { 3, 8, 8 } }, { "PixelShuffle", { 16, 4, 4 } },
        { "PixelUnshuffle", { 3, 8, 8 } }, { "Concat", { 8, 16 } }, { "Add", { 8, 16 } } };
    return kinds;
}

template <typename T> T* child(const QObject& parent, const QString& name)
{
    T* found = parent.findChild<T*>(name);
    if (found == nullptr)
        qWarning("missing child %s", qPrintable(name));
    return found;
}

} // namespace

class TestOperatorEditor : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { test::isolateSettings(); }
    void init() { QSettings().clear(); }
    void defaultsMakeValidLayers_data();
    void defaultsMakeValidLayers();
    void defaultsAsTheFirstLayer();
    void addEditSaveReopen();
};

void TestOperatorEditor::defaultsMakeValidLayers_data()
{
    QTest::addColumn<QString>("type");
    QTest::addColumn<QList<qint64>>("input");
    for (const auto& k : newKinds())
        QTest::newRow(k.type) << QString::fromLatin1(k.type) << QList<qint64>(k.input.begin(), k.input.end());
}

void TestOperatorEditor::defaultsMakeValidLayers()
{
    QFETCH(QString, type);
    QFETCH(QList<qint64>, input);
    const LayerKind* kind = LayerRegistry::builtin().find(type.toStdString());
    QVERIFY2(kind, qPrintable(type));
    // Added after two layers "a" and "b", as the editor adds after a selected layer.
    Network n;
    n.input.shape.dims.assign(input.begin(), input.end());
    LayerSpec a;
    a.type = "Identity";
    a.name = "a";
    LayerSpec b = a;
    b.name = "b";
    const TensorInfo previous { n.input.shape, DType::Float32 };
    n.layers = { a, b, newLayerSpec(*kind, &previous, { "a", "b" }) };
    n.loss = Loss::None;
    const Analysis analysis = analyze(n, Precision::Fp32);
    QVERIFY2(analysis.valid(), analysis.error->message.c_str());
}

void TestOperatorEditor::defaultsAsTheFirstLayer()
{
    // With no layer before them, Mul and Add take a learned operand of the last axis and Concat a learned
    // slice along its axis (a class token): valid on their own.
    for (const char* type : { "Mul", "Add", "Sub", "Div", "Concat" }) {
        const LayerKind* kind = LayerRegistry::builtin().find(type);
        Network n;
        n.input.shape.dims = { 8, 16 };
        const TensorInfo input { n.input.shape, DType::Float32 };
        n.layers = { newLayerSpec(*kind, &input, {}) };
        n.loss = Loss::None;
        const Analysis analysis = analyze(n, Precision::Fp32);
        QVERIFY2(analysis.valid(),
            qPrintable(QString::fromLatin1(type) + QStringLiteral(": ")
                + QString::fromStdString(analysis.error ? analysis.error->message : "")));
    }
}

void TestOperatorEditor::addEditSaveReopen()
{
    MainWindow win;
    auto dialogs = std::make_unique<test::ScriptedDialogs>();
    test::ScriptedDialogs* scripted = dialogs.get();
    win.setDialogProvider(std::move(dialogs));
    const GpuCatalog catalog = test::testCatalog();
    win.setupPanel()->setCatalog(catalog);
    win.document()->resetSetup(Precision::Fp32, TrainingSetup {}, catalog.gpus()[0]);
    win.document()->resetNetwork(test::tinyNetwork(), QString()); // [3, 8, 8] conv(4) relu flatten fc(10)
    win.resize(1400, 900);
    win.show();
    auto* model = win.layerEditor()->model();

    // After the conv ([4, 8, 8]): Hardswish, Upsample (x2), InstanceNorm2d, Permute (channels last),
    // Reshape (flat), each added after the one before.
    win.layerEditor()->selectPath({ 0 });
    const QStringList added { QStringLiteral("Hardswish"), QStringLiteral("Upsample"),
        QStringLiteral("InstanceNorm2d"), QStringLiteral("Permute"), QStringLiteral("Reshape") };
    for (const QString& type : added) {
        auto* action = child<QAction>(win, QStringLiteral("add%1Action").arg(type));
        QVERIFY(action);
        action->trigger();
    }
    for (int row = 1; row <= 5; ++row) {
        QCOMPARE(model->index(row, LayerTableModel::TypeColumn).data().toString(), added[row - 1]);
        QVERIFY2(model->index(row, 0).data(LayerTableModel::ErrorRole).toString().isEmpty(),
            qPrintable(model->index(row, 0).data(LayerTableModel::ErrorRole).toString()));
    }
    // The head now sees 4 x 16 x 16 features: 1,024 x 10 + 10.
    QCOMPARE(model->index(8, 0).data(LayerTableModel::ParametersRole).toULongLong(), 1024ULL * 10 + 10);

    // Edit Upsample's scale_factor in the property panel: back to 8 x 8, the head follows.
    win.layerEditor()->selectPath({ 2 });
    auto* editor = child<QWidget>(*win.propertyPanel(), QStringLiteral("scale_factorAttributeEditor"));
    QVERIFY(editor);
    auto* spin = editor->findChild<QDoubleSpinBox*>(QStringLiteral("valueDoubleSpinBox"));
    QVERIFY(spin);
    spin->setValue(1.0);
    QCOMPARE(win.document()->network().layers[2].attributes["scale_factor"].get<double>(), 1.0);
    QCOMPARE(model->index(8, 0).data(LayerTableModel::ParametersRole).toULongLong(), 256ULL * 10 + 10);

    // A gate written by hand after the Hardswish: Mul of the conv and the Hardswish (x * hardswish(x)).
    win.layerEditor()->selectPath({ 1 });
    child<QAction>(win, QStringLiteral("addMulAction"))->trigger();
    QCOMPARE(model->index(2, LayerTableModel::TypeColumn).data().toString(), QStringLiteral("Mul"));
    QCOMPARE(win.document()->network().layers[2].inputs, (std::vector<std::string> { "conv", "1" }));

    // A bad edit shows its error on the row; undo restores it.
    win.document()->setLayerAttribute({ 5 }, "dims", nlohmann::json::array({ 0, 1, 1, 3 }));
    QVERIFY(model->index(5, 0)
                .data(LayerTableModel::ErrorRole)
                .toString()
                .contains(QStringLiteral("not a permutation")));
    win.document()->undoStack()->undo();
    QVERIFY(model->index(5, 0).data(LayerTableModel::ErrorRole).toString().isEmpty());
    QVERIFY(evaluate(win.document()->plan()).analysis.valid());

    // Save and reopen: the same network, still valid.
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("operators.json"));
    scripted->saveNames.push_back(path);
    child<QAction>(win, QStringLiteral("saveAction"))->trigger();
    const auto saved = loadModelFile(path.toStdString());
    QVERIFY(saved);
    QVERIFY(saved.value() == win.document()->network());
    win.document()->removeLayers({}, 0, 1);
    scripted->saveChoices.push_back(DialogProvider::SaveChoice::Discard);
    scripted->openNames.push_back(path);
    child<QAction>(win, QStringLiteral("openAction"))->trigger();
    QVERIFY(win.document()->network() == saved.value());
    QCOMPARE(model->index(2, LayerTableModel::TypeColumn).data().toString(), QStringLiteral("Mul"));
    QVERIFY(evaluate(win.document()->plan()).analysis.valid());
}

QTEST_MAIN(TestOperatorEditor)
#include "tst_operatoreditor.moc"

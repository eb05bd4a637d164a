#include "../core/NumberedLayersFile.h"
#include "Document.h"
#include "LayerTableModel.h"
#include "PlanController.h"
#include "TestSupport.h"
#include "headroom/model/ModelFile.h"
#include "headroom/support/Format.h"

#include <QAbstractItemModelTester>
#include <QFont>
#include <QMimeData>
#include <QSignalSpy>
#include <QTest>
#include <QUndoStack>

using namespace headroom;
using headroom::ui::Document;
using headroom::ui::LayerPath;
using headroom::ui::LayerTableModel;
using headroom::ui::PlanController;

class TestLayerTableModel : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void columnsShowTheCoreAnalysis();
    void repeatBlockIsAParent();
    void invalidLayerIsMarked();
    void layersAreNumberedAsEveryViewNumbersThem();
    void followsEditsUndoAndReset();
    void dragAndDropMovesRows();
    void renameThroughSetData();
    void trainingColumnShowsFrozenCheckpointedAndLora();
};

namespace {

struct Fixture
{
    Document doc;
    LayerTableModel model { &doc };
    PlanController controller { &doc };
    QAbstractItemModelTester tester { &model, QAbstractItemModelTester::FailureReportingMode::QtTest };

    explicit Fixture(const Network& net)
    {
        QObject::connect(
            &controller, &PlanController::analysisChanged, &model, &LayerTableModel::setAnalysis);
        doc.resetNetwork(net, QString());
    }
    QString text(int row, int column, const QModelIndex& parent = {}) const
    {
        return model.index(row, column, parent).data().toString();
    }
};

Network withResidualBlock()
{
    Network net = test::tinyNetwork();
    LayerSpec block;
    block.type = "Repeat";
    block.name = "blocks";
    block.times = 3;
    LayerSpec conv;
    conv.type = "Conv2d";
    conv.name = "c";
    conv.attributes = { { "out_channels", 4 }, { "kernel_size", 3 }, { "padding", 1 } };
    LayerSpec add;
    add.type = "Add";
    add.inputs = { "repeat_input", "c" };
    block.children = { conv, add };
    net.layers.insert(net.layers.begin() + 2, block);
    return net;
}

} // namespace

void TestLayerTableModel::columnsShowTheCoreAnalysis()
{
    Fixture f(test::tinyNetwork());
    const Analysis expected = analyze(test::tinyNetwork(), Precision::Fp32);
    QCOMPARE(f.model.rowCount(), 4);
    QCOMPARE(f.model.columnCount(), static_cast<int>(LayerTableModel::ColumnCount));
    for (int r = 0; r < 4; ++r) {
        const LayerRow& row = expected.rows[static_cast<std::size_t>(r)];
        QCOMPARE(f.text(r, LayerTableModel::TypeColumn), QString::fromStdString(row.type));
        QCOMPARE(f.text(r, LayerTableModel::OutputColumn),
            QString::fromStdString(row.output.shape.toBatchedString()));
        QCOMPARE(
            f.text(r, LayerTableModel::ParametersColumn), QString::fromStdString(formatCount(row.params)));
        QCOMPARE(f.text(r, LayerTableModel::ActivationColumn),
            QString::fromStdString(formatBytes(row.activationBytesPerSample)));
    }
    // Worked out by hand: conv 4*3*3*3 + 4 = 112, Linear 256*10 + 10 = 2570.
    QCOMPARE(f.model.index(0, 0).data(LayerTableModel::ParametersRole).toULongLong(), 112ULL);
    QCOMPARE(f.model.index(3, 0).data(LayerTableModel::ParametersRole).toULongLong(), 2570ULL);
    QCOMPARE(f.text(0, LayerTableModel::OutputColumn), QStringLiteral("B x 4 x 8 x 8"));
    QCOMPARE(f.text(0, LayerTableModel::NameColumn), QStringLiteral("conv"));
    QVERIFY2(f.model.statusText().contains(QStringLiteral("2,682")), qPrintable(f.model.statusText()));
    // The Linear 256 -> 10: forward 2 x 256 x 10 = 5,120 FLOPs; backward the input gradient (its input
    // needs one: the conv below trains) and the weight gradient, 5,120 each: 15,360 in all.
    QCOMPARE(f.text(3, LayerTableModel::FlopsColumn), QStringLiteral("15.4 kFLOP"));
    QCOMPARE(f.model.index(3, LayerTableModel::FlopsColumn).data(Qt::ToolTipRole).toString(),
        QStringLiteral("Forward 5.12 kFLOP + backward 10.2 kFLOP per sample"));
}

void TestLayerTableModel::repeatBlockIsAParent()
{
    const Network net = withResidualBlock();
    Fixture f(net);
    const Analysis expected = analyze(net, Precision::Fp32);
    QVERIFY2(expected.valid(), expected.error ? expected.error->message.c_str() : "");
    const QModelIndex block = f.model.index(2, 0);
    QVERIFY(block.data(LayerTableModel::IsRepeatRole).toBool());
    QCOMPARE(f.model.rowCount(block), 2);
    QCOMPARE(f.text(2, LayerTableModel::TypeColumn), QStringLiteral("Repeat × 3"));
    QVERIFY(f.text(1, LayerTableModel::InputsColumn, block).contains(QStringLiteral("blocks.0.c")));
    // The block sums its three repetitions; each child shows one.
    std::uint64_t params = 0;
    std::uint64_t activations = 0;
    std::uint64_t convParams = 0;
    for (const auto& row : expected.rows) {
        if (row.specPath.rfind("layers[2].", 0) == 0) {
            params += row.params;
            activations += row.activationBytesPerSample;
            if (row.type == "Conv2d" && convParams == 0)
                convParams = row.params;
        }
    }
    QCOMPARE(convParams, 4ULL * 4 * 9 + 4);
    QCOMPARE(block.data(LayerTableModel::ParametersRole).toULongLong(), params);
    QCOMPARE(block.data(LayerTableModel::ActivationBytesRole).toULongLong(), activations);
    QCOMPARE(params, 3 * convParams);
    QCOMPARE(f.model.index(0, 0, block).data(LayerTableModel::ParametersRole).toULongLong(), convParams);
    QCOMPARE(f.model.pathOf(f.model.index(1, 0, block)), (LayerPath { 2, 1 }));
    QCOMPARE(f.model.indexOf({ 2, 1 }), f.model.index(1, 0, block));
}

void TestLayerTableModel::invalidLayerIsMarked()
{
    Network net = test::tinyNetwork();
    net.layers[0].attributes["kernel_size"] = 11; // larger than the padded 8x8 input
    Fixture f(net);
    const Analysis expected = analyze(net, Precision::Fp32);
    QVERIFY(!expected.valid());
    const QModelIndex bad = f.model.index(0, LayerTableModel::NameColumn);
    // The core prefixes the layer ("layers[0] (Conv2d \"conv\"): "); next to the row, only the reason.
    const std::string core = expected.rows[0].error->message;
    const std::string prefix = "layers[0] (Conv2d \"conv\"): ";
    QVERIFY2(core.rfind(prefix, 0) == 0, core.c_str());
    const QString reason = QString::fromStdString(core.substr(prefix.size()));
    QCOMPARE(bad.data(LayerTableModel::ErrorRole).toString(), reason);
    QCOMPARE(bad.data(Qt::ToolTipRole).toString(), reason);
    QVERIFY2(!bad.data(Qt::DecorationRole).isNull(), "an invalid layer has a warning icon");
    QCOMPARE(bad.data(Qt::ForegroundRole).value<QBrush>().color(), QColor(0xc0, 0x10, 0x10));
    QVERIFY(f.model.hasError());
    // The status line names it as the table numbers it.
    QCOMPARE(f.model.statusText(), QStringLiteral("Layer 1 (conv): %1").arg(reason));
    QCOMPARE(f.model.errorPath(), LayerPath { 0 });
    // Later layers depend on it: marked, without numbers.
    QVERIFY(!f.model.index(3, 0).data(LayerTableModel::ErrorRole).toString().isEmpty());
    QCOMPARE(f.text(3, LayerTableModel::ParametersColumn), QString());
    // Fixing it clears the marks.
    f.doc.setLayerAttribute({ 0 }, "kernel_size", 3);
    QCOMPARE(f.model.index(0, 0).data(LayerTableModel::ErrorRole).toString(), QString());
    QVERIFY(!f.model.hasError());
}

void TestLayerTableModel::layersAreNumberedAsEveryViewNumbersThem()
{
    // Issue 35, item 4: the number the index column paints (NumberRole) and the messages give a layer
    // are those of `headroom estimate` and the PDF (tests/core/NumberedLayersFile.h works each out).
    auto net = parseModel(test::numberedLayersFile(true));
    QVERIFY(net);
    Fixture f(net.value());
    const auto number = [&](int row, const QModelIndex& parent = {}) {
        return f.model.index(row, LayerTableModel::IndexColumn, parent)
            .data(LayerTableModel::NumberRole)
            .toString();
    };
    QCOMPARE(number(0), QStringLiteral("1"));
    QCOMPARE(number(1), QStringLiteral("2"));
    QCOMPARE(number(2), QStringLiteral("3"));
    const QModelIndex block = f.model.index(2, 0);
    QCOMPARE(number(0, block), QStringLiteral("3.1"));
    QCOMPARE(
        f.text(0, LayerTableModel::NameColumn, block), QStringLiteral("inner")); // the tree: its own name
    QCOMPARE(number(1, block), QStringLiteral("3.2"));
    QCOMPARE(number(3), QStringLiteral("4"));
    QCOMPARE(number(4), QStringLiteral("5"));
    // The unnamed ReLU in row 2 shows its automatic name "1" (greyed); its tooltip says where that
    // comes from and how messages call it.
    QCOMPARE(f.text(1, LayerTableModel::NameColumn), QStringLiteral("1"));
    const QString tip = f.model.index(1, LayerTableModel::NameColumn).data(Qt::ToolTipRole).toString();
    QVERIFY2(tip.contains(QStringLiteral("layer 2 (ReLU)")), qPrintable(tip));

    // The invalid "fc" is layer 4 in its row, the status line and the chart's message alike.
    const QString reason = QLatin1String(test::kInvalidFcReason);
    QCOMPARE(f.model.index(3, 0).data(LayerTableModel::ErrorRole).toString(), reason);
    QCOMPARE(f.model.statusText(), QStringLiteral("Layer 4 (fc): %1").arg(reason));
    QCOMPARE(f.controller.chartData().message, QStringLiteral("No estimate until layer 4 (fc) is fixed."));
    QCOMPARE(f.model.nameAt("layers[1]"), QStringLiteral("ReLU")); // messages: its type, not "1"

    // Numbers follow the rows: with "stem" removed, fc is layer 3.
    f.doc.removeLayers({}, 0, 1);
    QCOMPARE(number(2), QStringLiteral("3"));
    QCOMPARE(f.text(2, LayerTableModel::NameColumn), QStringLiteral("fc"));
    QCOMPARE(f.model.statusText(), QStringLiteral("Layer 3 (fc): %1").arg(reason));
}

void TestLayerTableModel::followsEditsUndoAndReset()
{
    Fixture f(test::tinyNetwork());
    QSignalSpy inserted(&f.model, &QAbstractItemModel::rowsInserted);
    QSignalSpy removed(&f.model, &QAbstractItemModel::rowsRemoved);
    LayerSpec relu;
    relu.type = "ReLU";
    f.doc.insertLayers({}, 4, { relu }, QStringLiteral("Add"));
    QCOMPARE(inserted.count(), 1);
    QCOMPARE(f.model.rowCount(), 5);
    QCOMPARE(f.text(4, LayerTableModel::OutputColumn), QStringLiteral("B x 10"));
    f.doc.setLayerAttribute({ 3 }, "out_features", 20);
    QCOMPARE(
        f.text(3, LayerTableModel::ParametersColumn), QString::fromStdString(formatCount(256 * 20 + 20)));
    QCOMPARE(f.text(4, LayerTableModel::OutputColumn), QStringLiteral("B x 20"));
    f.doc.undoStack()->undo();
    f.doc.undoStack()->undo();
    QCOMPARE(removed.count(), 1);
    QCOMPARE(f.model.rowCount(), 4);
    QCOMPARE(f.text(3, LayerTableModel::ParametersColumn), QStringLiteral("2,570"));
    QSignalSpy reset(&f.model, &QAbstractItemModel::modelReset);
    f.doc.resetNetwork(withResidualBlock(), QString());
    QCOMPARE(reset.count(), 1);
    QCOMPARE(f.model.rowCount(), 5);
}

void TestLayerTableModel::dragAndDropMovesRows()
{
    Fixture f(withResidualBlock());
    // Drag ReLU (row 1) onto the block: it moves to the block's end.
    QMimeData* data = f.model.mimeData({ f.model.index(1, 0), f.model.index(1, 3) });
    QVERIFY(data != nullptr);
    QVERIFY(f.model.canDropMimeData(data, Qt::MoveAction, -1, -1, f.model.index(2, 0)));
    QVERIFY(f.model.dropMimeData(data, Qt::MoveAction, -1, 0, f.model.index(2, 0)));
    delete data;
    QCOMPARE(f.model.rowCount(), 4);
    const QModelIndex block = f.model.index(1, 0);
    QCOMPARE(f.model.rowCount(block), 3);
    QCOMPARE(f.text(2, LayerTableModel::TypeColumn, block), QStringLiteral("ReLU"));
    // Drag Linear (last) between the first two rows.
    data = f.model.mimeData({ f.model.index(3, 0) });
    QVERIFY(f.model.dropMimeData(data, Qt::MoveAction, 1, 0, {}));
    delete data;
    QCOMPARE(f.text(1, LayerTableModel::TypeColumn), QStringLiteral("Linear"));
    // Non-adjacent rows do not make a drag.
    QCOMPARE(f.model.mimeData({ f.model.index(0, 0), f.model.index(3, 0) }), nullptr);
    f.doc.undoStack()->undo();
    f.doc.undoStack()->undo();
    QVERIFY(f.doc.network() == withResidualBlock());
}

void TestLayerTableModel::renameThroughSetData()
{
    Fixture f(test::tinyNetwork());
    const QModelIndex name = f.model.index(1, LayerTableModel::NameColumn);
    QVERIFY(name.flags() & Qt::ItemIsEditable);
    QVERIFY(!(f.model.index(1, LayerTableModel::TypeColumn).flags() & Qt::ItemIsEditable));
    QVERIFY(f.model.setData(name, QStringLiteral("act")));
    QCOMPARE(f.doc.network().layers[1].name, std::string("act"));
    QCOMPARE(name.data().toString(), QStringLiteral("act"));
    QCOMPARE(f.doc.undoStack()->count(), 1);
}

void TestLayerTableModel::trainingColumnShowsFrozenCheckpointedAndLora()
{
    Network net = withResidualBlock();
    net.layers[0].frozen = true; // the first conv
    Fixture f(net);
    QCOMPARE(f.model.headerData(LayerTableModel::TrainingColumn, Qt::Horizontal).toString(),
        QStringLiteral("Training"));
    QVERIFY(f.model.index(0, 0).data(LayerTableModel::FrozenRole).toBool());
    QCOMPARE(f.text(0, LayerTableModel::TrainingColumn), QStringLiteral("frozen"));
    QVERIFY(f.model.index(0, LayerTableModel::TypeColumn).data(Qt::FontRole).value<QFont>().italic());
    QVERIFY(!f.model.index(3, 0).data(LayerTableModel::FrozenRole).toBool());
    QCOMPARE(f.text(3, LayerTableModel::TrainingColumn), QString());
    QVERIFY(!f.model.index(2, 0).data(LayerTableModel::CheckpointedRole).toBool());

    // Per-block checkpointing with no block marked: every top-level Repeat block (the engine's rule).
    f.doc.setCheckpointing(Checkpointing::PerBlock);
    const QModelIndex block = f.model.index(2, 0);
    QVERIFY(block.data(LayerTableModel::CheckpointedRole).toBool());
    QVERIFY(f.model.index(0, 0, block).data(LayerTableModel::CheckpointedRole).toBool());
    QCOMPARE(f.text(0, LayerTableModel::TrainingColumn, block), QStringLiteral("checkpointed"));
    QVERIFY(!f.model.index(4, 0).data(LayerTableModel::CheckpointedRole).toBool());

    // LoRA on the classifier: its adapters are counted on its row, and the rest is frozen.
    LoraOptions lora;
    lora.rank = 2;
    lora.targets = { "fc" };
    f.doc.setLora(lora);
    const Analysis& a = f.controller.analysis();
    QVERIFY2(a.loraParams > 0, "the analysis adds adapters to fc");
    const QModelIndex fc = f.model.index(4, 0);
    QCOMPARE(fc.data(LayerTableModel::LoraParamsRole).toULongLong(), a.loraParams);
    QVERIFY2(f.text(4, LayerTableModel::TrainingColumn).contains(QStringLiteral("LoRA +")),
        qPrintable(f.text(4, LayerTableModel::TrainingColumn)));
    QVERIFY(f.model.index(2, 0, {})
                .data(LayerTableModel::FrozenRole)
                .toBool()); // the block's convs: not targeted
    f.doc.undoStack()->undo();
    QCOMPARE(fc.data(LayerTableModel::LoraParamsRole).toULongLong(), 0ULL);
}

QTEST_MAIN(TestLayerTableModel)
#include "tst_layertablemodel.moc"

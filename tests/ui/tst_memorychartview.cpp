#include "ComponentColors.h"
#include "Document.h"
#include "LayerActivationsView.h"
#include "MemoryChartView.h"
#include "PlanController.h"
#include "QtText.h"
#include "TestSupport.h"
#include "headroom/model/ModelFile.h"
#include "headroom/support/Format.h"

#include <QHeaderView>
#include <QLabel>
#include <QRegularExpression>
#include <QSet>
#include <QStackedWidget>
#include <QTabWidget>
#include <QTest>
#include <QTreeWidget>
#include <QUndoStack>

using namespace headroom;
using headroom::ui::Document;
using headroom::ui::LayerActivationsView;
using headroom::ui::MemoryChartView;
using headroom::ui::PlanController;
using headroom::ui::qs;

class TestMemoryChartView : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void stackedSeriesAreTheCoreBreakdown();
    void capacityLineAndMarker();
    void tooltipGivesBreakdown();
    void heaviestLayersAsBars();
    void layerListReadsOnVgg16();
    void batchAxisReadsInPowersOfTwo_data();
    void batchAxisReadsInPowersOfTwo();
    void rangeFollowsMaxBatchAndVram();
    void emptyNetworkSaysSo();
    void errorInsteadOfStaleChart();
    void communicationHasItsOwnBand();
    void reservedLineNextToAllocated();
    void unsimulatedReservedSaysWhy();
};

namespace {
struct Fixture
{
    Document doc;
    PlanController controller { &doc };
    MemoryChartView view;
    Fixture()
    {
        QObject::connect(&controller, &PlanController::chartDataChanged, &view, &MemoryChartView::setData);
        QObject::connect(&controller, &PlanController::estimateChanged, &view, &MemoryChartView::setEstimate);
        doc.resetNetwork(test::tinyNetwork(), QString());
        Gpu gpu;
        gpu.name = "Small";
        gpu.memoryBytes = 1ULL << 30;
        doc.resetSetup(Precision::Fp32, TrainingSetup {}, gpu);
        view.resize(800, 500);
        view.show();
    }
    MemoryModel model() const
    {
        return MemoryModel::build(analyze(doc.network(), doc.plan().precision), doc.plan().setup).value();
    }
};
} // namespace

void TestMemoryChartView::stackedSeriesAreTheCoreBreakdown()
{
    Fixture f;
    const MemoryModel model = f.model();
    const double unit = f.view.bytesPerUnit();
    QCOMPARE(f.view.unitName(), QStringLiteral("MiB")); // a 1 GiB card: the axis reads in MiB
    const auto top = f.view.upperPoints(MemoryChartView::kStackOrder.back());
    QVERIFY(top.size() > 10);
    for (qsizetype i = 0; i < top.size(); i += 17) {
        const auto batch = static_cast<std::int64_t>(top[i].x());
        const MemoryBreakdown b = model.at(batch).value();
        QVERIFY2(std::abs(top[i].y() * unit - static_cast<double>(b.total())) < 1.0,
            qPrintable(QString::number(batch)));
        // Each band's top is the stack up to it.
        double stacked = 0;
        for (const Component c : MemoryChartView::kStackOrder) {
            stacked += static_cast<double>(componentBytes(b, c));
            QVERIFY(std::abs(f.view.upperPoints(c)[i].y() * unit - stacked) < 1.0);
        }
    }
    QVERIFY(f.view.axisMaxMemory() * unit >= static_cast<double>(1ULL << 30));
}

void TestMemoryChartView::capacityLineAndMarker()
{
    Fixture f;
    const auto capacity = f.view.capacityPoints();
    QCOMPARE(capacity.size(), 2);
    QCOMPARE(capacity[0].y() * f.view.bytesPerUnit(), static_cast<double>(1ULL << 30));
    QCOMPARE(f.view.capacityLabel(),
        QStringLiteral("Small: %1").arg(QString::fromStdString(formatBytes(1ULL << 30))));
    QCOMPARE(f.view.markerPoints().front().x(), 32.0);
    f.doc.setBatch(48);
    QCOMPARE(f.view.markerPoints().front().x(), 48.0);
    QCOMPARE(f.view.markerPoints().back().x(), 48.0);
    Gpu big;
    big.name = "Big";
    big.memoryBytes = 24ULL << 30;
    f.doc.setGpu(big);
    QCOMPARE(f.view.capacityPoints()[0].y() * f.view.bytesPerUnit(), static_cast<double>(24ULL << 30));
    QCOMPARE(f.view.unitName(), QStringLiteral("GiB"));
}

void TestMemoryChartView::tooltipGivesBreakdown()
{
    Fixture f;
    // The tooltip snaps to the nearest sampled batch.
    const double sampled = f.view.upperPoints(Component::Weights)[7].x();
    const auto batch = static_cast<std::int64_t>(sampled);
    const MemoryBreakdown b = f.model().at(batch).value();
    const QString text = f.view.breakdownText(sampled + 0.3);
    QVERIFY2(text.startsWith(QStringLiteral("Batch %1\n").arg(batch)), qPrintable(text));
    QVERIFY(text.contains(QStringLiteral("Weights: %1").arg(QString::fromStdString(formatBytes(b.weights)))));
    QVERIFY(text.contains(
        QStringLiteral("Activations: %1").arg(QString::fromStdString(formatBytes(b.activations)))));
    QVERIFY(text.contains(QStringLiteral("Total: %1").arg(QString::fromStdString(formatBytes(b.total())))));
}

void TestMemoryChartView::heaviestLayersAsBars()
{
    Fixture f;
    const Analysis a = analyze(f.doc.network(), Precision::Fp32);
    QStringList names;
    QList<qreal> bytes;
    for (const auto& row : a.rows) {
        if (row.activationBytesPerSample > 0) {
            names.append(QString::fromStdString(row.name)); // in network order
            bytes.append(static_cast<qreal>(row.activationBytesPerSample));
        }
    }
    LayerActivationsView* list = f.view.layerView();
    QCOMPARE(list->names(), names);
    const auto values = list->bytes();
    QCOMPARE(values.size(), bytes.size());
    for (qsizetype i = 0; i < values.size(); ++i)
        QCOMPARE(static_cast<qreal>(values[i]), bytes[i]);
}

void TestMemoryChartView::layerListReadsOnVgg16()
{
    // VGG-16: every layer keeping activations is listed (a scrolling list, not 24 squeezed bars),
    // names are elided in the middle, each row has a tooltip, and the legend explains the colours.
    Document doc;
    PlanController controller { &doc };
    MemoryChartView view;
    QObject::connect(&controller, &PlanController::chartDataChanged, &view, &MemoryChartView::setData);
    const auto vgg = loadModelFile(HEADROOM_TEST_SOURCE_DIR "/resources/presets/vgg16.json");
    QVERIFY(vgg);
    doc.resetNetwork(vgg.value(), QString());
    view.resize(700, 450);
    view.show();
    view.tabs()->setCurrentWidget(view.layerView());
    LayerActivationsView* list = view.layerView();
    const Analysis a = analyze(vgg.value(), Precision::Fp32);
    qsizetype keeping = 0;
    std::vector<std::uint64_t> sizes;
    for (const auto& row : a.rows) {
        if (row.type != "Repeat" && row.activationBytesPerSample > 0) {
            ++keeping;
            sizes.push_back(row.activationBytesPerSample);
        }
    }
    QCOMPARE(list->names().size(), keeping);
    QVERIFY(keeping > 24);
    QCOMPARE(list->list()->textElideMode(), Qt::ElideMiddle);
    QTreeWidgetItem* first = list->list()->topLevelItem(0);
    QVERIFY2(first->toolTip(0).contains(first->text(0)), qPrintable(first->toolTip(0)));
    // The names column is wide enough for VGG's names: none is elided at this size.
    const int nameWidth = list->list()->header()->sectionSize(0);
    for (int i = 0; i < list->list()->topLevelItemCount(); ++i)
        QVERIFY2(
            list->list()->fontMetrics().horizontalAdvance(list->list()->topLevelItem(i)->text(0)) < nameWidth,
            qPrintable(list->list()->topLevelItem(i)->text(0)));
    // The three heaviest (each of VGG's first two ReLU outputs is 64 x 224 x 224 x 4 B = 12.25 MiB)
    // are highlighted, and the legend says what the colours mean.
    std::sort(sizes.rbegin(), sizes.rend());
    QCOMPARE(sizes.front(), std::uint64_t { 64 } * 224 * 224 * 4);
    QCOMPARE(list->highlighted().size(), LayerActivationsView::kHighlighted);
    QVERIFY2(list->legendText().contains(QStringLiteral("heaviest")), qPrintable(list->legendText()));
    // Sorting by size puts the heaviest first.
    list->list()->sortByColumn(2, Qt::DescendingOrder);
    QCOMPARE(list->list()->topLevelItem(0)->data(0, Qt::UserRole).toULongLong(), sizes.front());
}

void TestMemoryChartView::batchAxisReadsInPowersOfTwo_data()
{
    QTest::addColumn<qlonglong>("batch");
    QTest::addColumn<QString>("text");
    QTest::newRow("small") << 512LL << QStringLiteral("512");
    QTest::newRow("1k") << 1024LL << QStringLiteral("1k");
    QTest::newRow("1.5k") << 1536LL << QStringLiteral("1.5k");
    QTest::newRow("128k") << 131072LL << QStringLiteral("128k");
    QTest::newRow("1M") << 1048576LL << QStringLiteral("1M");
}

void TestMemoryChartView::batchAxisReadsInPowersOfTwo()
{
    QFETCH(qlonglong, batch);
    QFETCH(QString, text);
    QCOMPARE(MemoryChartView::compactBatch(batch), text);
}

void TestMemoryChartView::rangeFollowsMaxBatchAndVram()
{
    // The tiny network on a 1 GiB card: the max batch is far above batch 32. The axis reaches
    // past it in powers of two with short labels, the max batch is marked, and the memory axis
    // ends a little above the card's memory (its line is not flat on the axis).
    Fixture f;
    const auto model = f.model();
    // The max batch is the reserved model's (issue 23): at most the tensors' alone.
    const PlanResult result = evaluate(f.doc.plan());
    QVERIFY(result.reservedFigures);
    const std::int64_t max = result.estimate->maxBatch;
    QCOMPARE(max, result.reservedFigures->maxBatch.batch);
    QVERIFY(max <= model.maxBatch(1ULL << 30));
    QVERIFY2(max > 1000, qPrintable(QString::number(max)));
    QVERIFY(f.view.axisMaxBatch() >= static_cast<double>(max));
    QVERIFY(f.view.axisMaxBatch() <= 2.5 * static_cast<double>(max));
    const QStringList labels = f.view.batchAxisLabels();
    QVERIFY2(labels.contains(QStringLiteral("1"))
            && labels.filter(QRegularExpression(QStringLiteral("^\\d+k$"))).size() >= 2,
        qPrintable(labels.join(u' ')));
    for (const auto& label : labels)
        QVERIFY2(label.size() <= 4, qPrintable(label));
    const auto maxLine = f.view.maxBatchPoints();
    QCOMPARE(maxLine.size(), 2);
    QCOMPARE(maxLine.front().x(), static_cast<double>(max));
    QCOMPARE(f.view.maxBatchLabel(),
        QStringLiteral("max %1").arg(QString::fromStdString(formatCount(static_cast<std::uint64_t>(max)))));
    const double vram = static_cast<double>(1ULL << 30) / f.view.bytesPerUnit();
    QVERIFY(f.view.axisMaxMemory() > vram);
    QVERIFY2(f.view.axisMaxMemory() < 2 * vram, qPrintable(QString::number(f.view.axisMaxMemory())));
    // The batch marker is where the batch is, not squeezed onto the axis: on the log scale 32 of
    // about 2^12 sits well inside the plot.
    QCOMPARE(f.view.markerPoints().front().x(), 32.0);
}

void TestMemoryChartView::emptyNetworkSaysSo()
{
    Fixture f;
    f.doc.removeLayers({}, 0, 4);
    auto* message = f.view.findChild<QLabel*>(QStringLiteral("chartMessageLabel"));
    QVERIFY(message->isVisible());
    QVERIFY2(message->text().contains(QStringLiteral("empty")), qPrintable(message->text()));
    f.doc.undoStack()->undo();
    QVERIFY(!message->isVisible());
}

void TestMemoryChartView::errorInsteadOfStaleChart()
{
    Fixture f;
    f.doc.setLayerAttribute({ 0 }, "kernel_size", 11);
    auto* message = f.view.findChild<QLabel*>(QStringLiteral("chartMessageLabel"));
    QVERIFY(message->isVisible());
    // Which layer, in the table's numbering; the error itself is shown at the layer.
    QVERIFY2(message->text().contains(QStringLiteral("layer 1 (conv)")), qPrintable(message->text()));
    QVERIFY2(!message->text().contains(QStringLiteral("layers[")), qPrintable(message->text()));
    f.doc.setLayerAttribute({ 0 }, "kernel_size", 3);
    QVERIFY(!message->isVisible());
}

void TestMemoryChartView::communicationHasItsOwnBand()
{
    // Drawn from the data alone: a hand-made breakdown with communication buffers.
    MemoryChartView view;
    view.resize(800, 500);
    view.show();
    ui::ChartData data;
    data.capacityBytes = 8ULL << 30;
    data.gpuName = QStringLiteral("Card");
    data.gpus = 4;
    for (std::int64_t b = 1; b <= 16; ++b) {
        MemoryBreakdown m;
        m.weights = 1ULL << 30;
        m.gradients = 1ULL << 30;
        m.optimizerState = 2ULL << 30;
        m.communication = 512ULL << 20;
        m.activations = static_cast<std::uint64_t>(b) << 26;
        data.batches.push_back(b);
        data.breakdowns.push_back(m);
    }
    data.valid = true;
    view.setData(data);
    QVERIFY(view.showsComponent(Component::Communication));
    QVERIFY(!view.showsComponent(Component::Transient));
    const auto comm = view.upperPoints(Component::Communication);
    const auto below = view.upperPoints(Component::OptimizerState);
    QCOMPARE((comm.front().y() - below.front().y()) * view.bytesPerUnit(), static_cast<double>(512ULL << 20));
    QVERIFY2(view.breakdownText(1).contains(QStringLiteral("Communication buffers")),
        qPrintable(view.breakdownText(1)));
    // Every component has its own colour, from the one table the report shares.
    QSet<QRgb> colours;
    for (const Component c : ui::ComponentColors::kStackOrder)
        colours.insert(ui::ComponentColors::color(c).rgb());
    QCOMPARE(colours.size(), static_cast<qsizetype>(ui::ComponentColors::kStackOrder.size()));
    QCOMPARE(ui::ComponentColors::kStackOrder.size(), kAllComponents.size());
}

void TestMemoryChartView::reservedLineNextToAllocated()
{
    // The reserved line (the caching allocator's segments plus the overhead) runs beside the stack of
    // tensors: never below it (rounding and cached blocks only add), below the GPU's memory up to the
    // max batch, and it reads what the reserved model replays.
    Fixture f;
    const PlanResult result = evaluate(f.doc.plan());
    QVERIFY(result.reserved && result.reservedFigures);
    const QList<QPointF> reserved = f.view.reservedPoints();
    QVERIFY2(reserved.size() >= 10, qPrintable(QString::number(reserved.size())));
    const MemoryModel model = f.model();
    const std::uint64_t overhead = f.doc.plan().setup.overheadBytes;
    for (const QPointF& p : reserved) {
        const auto batch = static_cast<std::int64_t>(p.x());
        const auto bytes = static_cast<std::uint64_t>(p.y());
        QVERIFY2(bytes >= model.at(batch)->total(), qPrintable(QString::number(batch)));
        if (batch <= result.estimate->maxBatch) {
            QVERIFY2(bytes <= 1ULL << 30, qPrintable(QString::number(batch)));
            QCOMPARE(bytes,
                result.reserved->run(batch, result.reservedFigures->capacityBytes).peakReserved + overhead);
        }
    }
    QCOMPARE(static_cast<std::int64_t>(reserved.front().x()), std::int64_t { 1 });
    // The tooltip gives it too.
    QVERIFY2(f.view.breakdownText(1).contains(QStringLiteral("Reserved by PyTorch at batch 1")),
        qPrintable(f.view.breakdownText(1)));
}

void TestMemoryChartView::unsimulatedReservedSaysWhy()
{
    // 30,000 iterations of a Linear layer: past the 25,000 written-out layers the allocator is replayed
    // for (core/src/step/StepTrace.h). No reserved line, and under the charts the reason the CLI prints.
    Fixture f;
    QVERIFY(!f.view.reservedNote()->isVisible());
    auto parsed = parseModel(R"({
        "format": "headroom-model", "version": 1, "name": "Too large to replay",
        "input": {"shape": [16]},
        "layers": [{"type": "Repeat", "name": "blocks", "times": 30000, "layers": [
            {"type": "Linear", "name": "fc", "out_features": 16}]}]})");
    QVERIFY2(parsed.ok(), parsed.ok() ? "" : parsed.error().message.c_str());
    f.doc.resetNetwork(parsed.value(), QString());
    const PlanResult result = evaluate(f.doc.plan());
    QVERIFY(result.estimate && result.reservedError && !result.reservedFigures);
    QVERIFY(f.view.reservedPoints().isEmpty());
    QVERIFY(f.view.reservedNote()->isVisible());
    const QString note = f.view.reservedNote()->text();
    QVERIFY2(note.contains(QStringLiteral("not simulated (%1)").arg(qs(result.reservedError->message))),
        qPrintable(note));
    QVERIFY2(note.contains(
                 QRegularExpression(QStringLiteral("\\d+ layers once its repeated blocks are written out"))),
        qPrintable(note));
    // The max batch's tooltip says it too (the max batch is the tensors' alone).
    QCOMPARE(f.controller.estimateState().reservedNote, note);
    // A network that replays: the note goes.
    f.doc.resetNetwork(test::tinyNetwork(), QString());
    QVERIFY(!f.view.reservedNote()->isVisible());
    QVERIFY(!f.view.reservedPoints().isEmpty());
}

QTEST_MAIN(TestMemoryChartView)
#include "tst_memorychartview.moc"

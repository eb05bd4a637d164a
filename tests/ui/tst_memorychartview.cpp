#include "ComponentColors.h"
#include "Document.h"
#include "MemoryChartView.h"
#include "PlanController.h"
#include "TestSupport.h"

#include "headroom/Format.h"

#include <QLabel>
#include <QSet>
#include <QStackedWidget>
#include <QTabWidget>
#include <QTest>

using namespace headroom;
using headroom::ui::Document;
using headroom::ui::MemoryChartView;
using headroom::ui::PlanController;

class TestMemoryChartView : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void stackedSeriesAreTheCoreBreakdown();
    void capacityLineAndMarker();
    void tooltipGivesBreakdown();
    void heaviestLayersAsBars();
    void errorInsteadOfStaleChart();
    void communicationHasItsOwnBand();
};

namespace {
struct Fixture {
    Document doc;
    PlanController controller{&doc};
    MemoryChartView view;
    Fixture()
    {
        QObject::connect(&controller, &PlanController::chartDataChanged, &view, &MemoryChartView::setData);
        QObject::connect(&controller, &PlanController::estimateChanged, &view, &MemoryChartView::setEstimate);
        doc.resetNetwork(test::tinyNetwork(), QString());
        Gpu gpu;
        gpu.name = "Small";
        gpu.memoryBytes = 1ULL << 30;
        doc.resetSetup(Precision::Fp32, TrainingSetup{}, gpu);
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
        QVERIFY2(std::abs(top[i].y() * unit - static_cast<double>(b.total())) < 1.0, qPrintable(QString::number(batch)));
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
    QCOMPARE(f.view.capacityLabel(), QStringLiteral("Small: %1").arg(QString::fromStdString(formatBytes(1ULL << 30))));
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
    QVERIFY(text.contains(QStringLiteral("Activations: %1").arg(QString::fromStdString(formatBytes(b.activations)))));
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
            names.prepend(QString::fromStdString(row.name)); // bottom-up on the axis
            bytes.prepend(static_cast<qreal>(row.activationBytesPerSample));
        }
    }
    QCOMPARE(f.view.barNames(), names);
    const auto values = f.view.barValues();
    QCOMPARE(values.size(), bytes.size());
    const double unit = bytes.front() / values.front();
    for (qsizetype i = 0; i < values.size(); ++i)
        QVERIFY(std::abs(values[i] * unit - bytes[i]) < 1.0);
}

void TestMemoryChartView::errorInsteadOfStaleChart()
{
    Fixture f;
    f.doc.setLayerAttribute({0}, "kernel_size", 11);
    auto* message = f.view.findChild<QLabel*>(QStringLiteral("chartMessageLabel"));
    QVERIFY(message->isVisible());
    QVERIFY2(message->text().contains(QStringLiteral("layers[0]")), qPrintable(message->text()));
    f.doc.setLayerAttribute({0}, "kernel_size", 3);
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
    QVERIFY2(view.breakdownText(1).contains(QStringLiteral("Communication buffers")), qPrintable(view.breakdownText(1)));
    // Every component has its own colour, from the one table the report shares.
    QSet<QRgb> colours;
    for (const Component c : ui::ComponentColors::kStackOrder)
        colours.insert(ui::ComponentColors::color(c).rgb());
    QCOMPARE(colours.size(), static_cast<qsizetype>(ui::ComponentColors::kStackOrder.size()));
    QCOMPARE(ui::ComponentColors::kStackOrder.size(), kAllComponents.size());
}

QTEST_MAIN(TestMemoryChartView)
#include "tst_memorychartview.moc"

#include "Document.h"
#include "MemorySweep.h" // report/
#include "PlanController.h"
#include "TestSupport.h"
#include "headroom/estimate/Plan.h"

#include <QElapsedTimer>
#include <QSignalSpy>
#include <QTest>
#include <algorithm>
#include <cmath>

using namespace headroom;
using headroom::ui::ChartData;
using headroom::ui::Document;
using headroom::ui::PlanController;

class TestPlanController : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void estimateMatchesEvaluate_data();
    void estimateMatchesEvaluate();
    void sliderPathDoesNotReanalyse();
    void chartSweepIsTheMemoryModel();
    void chartRangeGrowsWithBatch();
    void invalidNetworkBlocksEstimate();
    void longNetworkSliderTiming();
};

namespace {
Gpu gpu(std::uint64_t gib)
{
    Gpu g;
    g.name = "GPU " + std::to_string(gib);
    g.memoryBytes = gib << 30;
    return g;
}
} // namespace

void TestPlanController::estimateMatchesEvaluate_data()
{
    QTest::addColumn<int>("precision");
    QTest::addColumn<int>("optimizer");
    QTest::addColumn<qlonglong>("batch");
    QTest::newRow("fp32 adam 32") << int(Precision::Fp32) << int(Optimizer::Adam) << 32LL;
    QTest::newRow("amp sgd 1") << int(Precision::AmpFp16) << int(Optimizer::Sgd) << 1LL;
    QTest::newRow("bf16 adamw 4096") << int(Precision::Bf16) << int(Optimizer::AdamW) << 4096LL;
}

void TestPlanController::estimateMatchesEvaluate()
{
    QFETCH(int, precision);
    QFETCH(int, optimizer);
    QFETCH(qlonglong, batch);
    Document doc;
    PlanController controller(&doc);
    doc.resetNetwork(test::tinyNetwork(), QString());
    doc.resetSetup(Precision::Fp32, TrainingSetup {}, gpu(8));
    doc.setPrecision(static_cast<Precision>(precision));
    doc.setOptimizer(static_cast<Optimizer>(optimizer));
    doc.setBatch(batch);

    const PlanResult expected = evaluate(doc.plan());
    QVERIFY(expected.estimate);
    const auto& state = controller.estimateState();
    QVERIFY(state.estimate);
    QCOMPARE(state.estimate->bytes, expected.estimate->bytes);
    QCOMPARE(state.estimate->maxBatch, expected.estimate->maxBatch);
    QCOMPARE(state.estimate->fits, expected.estimate->fits);
    QCOMPARE(controller.analysis().totalParams, test::kTinyParams);
}

void TestPlanController::sliderPathDoesNotReanalyse()
{
    Document doc;
    PlanController controller(&doc);
    doc.resetNetwork(test::tinyNetwork(), QString());
    Gpu withFigures = gpu(8);
    withFigures.fp32Tflops = 10;
    withFigures.bandwidthGBps = 500;
    doc.resetSetup(Precision::Fp32, TrainingSetup {}, withFigures);
    const int analyses = controller.analysisRuns();
    QSignalSpy estimates(&controller, &PlanController::estimateChanged);
    QSignalSpy analysed(&controller, &PlanController::analysisChanged);
    // The step model of one evaluation serves every tick: the same object, never rebuilt.
    const MemoryModel* model = controller.planResult().memory.get();
    QVERIFY(model != nullptr);
    for (int b = 1; b <= 64; ++b)
        doc.setBatch(b);
    QCOMPARE(controller.analysisRuns(), analyses);
    QCOMPARE(analysed.count(), 0);
    QCOMPARE(estimates.count(), 64);
    QCOMPARE(controller.planResult().memory.get(), model);
    // ... and reads what a full evaluation of the plan gives at the new batch.
    const PlanResult expected = evaluate(doc.plan());
    QCOMPARE(controller.planResult().estimate->bytes, expected.estimate->bytes);
    QCOMPARE(controller.planResult().estimate->batch, std::int64_t { 64 });
    QCOMPARE(controller.planResult().throughput->stepSeconds, expected.throughput->stepSeconds);
    doc.setGpu(gpu(24));
    QCOMPARE(controller.analysisRuns(), analyses);
    doc.setLayerAttribute({ 0 }, "out_channels", 8);
    QCOMPARE(controller.analysisRuns(), analyses + 1);
    doc.setPrecision(Precision::AmpBf16);
    QCOMPARE(controller.analysisRuns(), analyses + 2);
}

void TestPlanController::chartSweepIsTheMemoryModel()
{
    Document doc;
    PlanController controller(&doc);
    doc.resetNetwork(test::tinyNetwork(), QString());
    doc.resetSetup(Precision::Fp32, TrainingSetup {}, gpu(1));
    const ChartData& chart = controller.chartData();
    QVERIFY(chart.valid);
    QCOMPARE(chart.capacityBytes, 1ULL << 30);
    auto model = MemoryModel::build(analyze(doc.network(), Precision::Fp32), doc.plan().setup);
    QVERIFY(model);
    // Its max batch is the reserved model's, as every view's (issue 23), at most the tensors' alone.
    const PlanResult evaluated = evaluate(doc.plan());
    QCOMPARE(chart.maxBatch, evaluated.estimate->maxBatch);
    QVERIFY(chart.maxBatch <= model->maxBatch(1ULL << 30));
    // The reserved line: a replay each time the log axis has moved on by 8 of its 384 samples' worth
    // (log2(range) x 8 / 384), and at the last: evenly spread on the chart, never a straight segment
    // across a long stretch of it.
    QCOMPARE(chart.reservedBatches.size(), chart.reservedBytes.size());
    QCOMPARE(chart.reservedBatches.front(), std::int64_t { 1 });
    QCOMPARE(chart.reservedBatches.back(), chart.batches.back());
    const double step = std::log2(static_cast<double>(chart.batches.back())) * 8 / 384;
    double widestSampleGap = 0;
    for (std::size_t i = 1; i < chart.batches.size(); ++i)
        widestSampleGap = std::max(widestSampleGap,
            std::log2(static_cast<double>(chart.batches[i]) / static_cast<double>(chart.batches[i - 1])));
    for (std::size_t i = 1; i < chart.reservedBatches.size(); ++i) {
        const double gap = std::log2(static_cast<double>(chart.reservedBatches[i])
            / static_cast<double>(chart.reservedBatches[i - 1]));
        QVERIFY2(gap <= step + widestSampleGap + 1e-9, qPrintable(QString::number(gap)));
    }
    QVERIFY(chart.reservedBatches.size() <= 384 / 8 + 2);
    // A short axis (1 to 16: every integer a sample) is replayed at every batch, since log2(16 / 15) =
    // 0.093 is above the step log2(16) x 8 / 384 = 0.083: the line at batch 2 is the replay at batch 2,
    // not a straight segment from batch 1 to 9.
    QVERIFY(evaluated.reserved && evaluated.reservedFigures);
    auto shortAxis = report::MemorySweep::sample(*evaluated.memory, 16);
    shortAxis.sampleReserved(*evaluated.reserved, *evaluated.reservedFigures);
    QCOMPARE(shortAxis.reservedBatches,
        (std::vector<std::int64_t> { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 }));
    QCOMPARE(chart.batches.front(), std::int64_t { 1 });
    QCOMPARE(chart.batches.size(), chart.breakdowns.size());
    for (std::size_t i = 0; i < chart.batches.size(); i += 37)
        QCOMPARE(chart.breakdowns[i], model->at(chart.batches[i]).value());
    QVERIFY(std::is_sorted(chart.batches.begin(), chart.batches.end()));
    // Per-layer bars: the layers that keep activations, with the core's bytes.
    const Analysis a = analyze(doc.network(), Precision::Fp32);
    std::size_t keeping = 0;
    for (const auto& row : a.rows)
        keeping += row.activationBytesPerSample > 0 ? 1 : 0;
    QCOMPARE(chart.layers.size(), keeping);
}

void TestPlanController::chartRangeGrowsWithBatch()
{
    QCOMPARE(PlanController::chartRange(1, 0), std::int64_t { 16 });
    QCOMPARE(PlanController::chartRange(32, 58), std::int64_t { 128 });
    QCOMPARE(PlanController::chartRange(4096, 10), std::int64_t { 8192 });
    Document doc;
    PlanController controller(&doc);
    doc.resetNetwork(test::tinyNetwork(), QString());
    doc.resetSetup(Precision::Fp32, TrainingSetup {}, gpu(1));
    const std::int64_t range = controller.chartData().batches.back();
    const int builds = controller.chartBuilds();
    doc.setBatch(range + 1);
    QCOMPARE(controller.chartBuilds(), builds + 1);
    QVERIFY(controller.chartData().batches.back() > range);
}

void TestPlanController::invalidNetworkBlocksEstimate()
{
    Document doc;
    PlanController controller(&doc);
    Network net = test::tinyNetwork();
    net.layers[3].type = "NoSuchLayer";
    doc.resetNetwork(net, QString());
    const auto& state = controller.estimateState();
    QVERIFY(!state.estimate);
    QVERIFY(state.error);
    QVERIFY2(state.error->message.find("layers[3]") != std::string::npos, state.error->message.c_str());
    QVERIFY(!controller.chartData().valid);
    // The chart names the layer in the table's numbering; the reason is shown at the layer.
    QCOMPARE(controller.chartData().message, QStringLiteral("No estimate until layer 4 (fc) is fixed."));
}

void TestPlanController::longNetworkSliderTiming()
{
    Document doc;
    PlanController controller(&doc);
    QElapsedTimer timer;
    timer.start();
    doc.resetNetwork(test::longNetwork(1000), QString());
    const qint64 analyseMs = timer.elapsed();
    QCOMPARE(controller.analysis().rows.size(), std::size_t { 1001 }); // + the loss
    const int analyses = controller.analysisRuns();
    timer.restart();
    constexpr int kTicks = 2000;
    for (int i = 0; i < kTicks; ++i)
        doc.setBatch(1 + (i % 1000));
    const double perTickUs = static_cast<double>(timer.nsecsElapsed()) / 1000.0 / kTicks;
    QCOMPARE(controller.analysisRuns(), analyses);
    qInfo("1,000 layers: analysis %lld ms; slider tick (document + estimate) %.1f us", analyseMs, perTickUs);
    QVERIFY2(perTickUs < 2000.0, "a slider tick must stay far below a frame");
}

QTEST_MAIN(TestPlanController)
#include "tst_plancontroller.moc"

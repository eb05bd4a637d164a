// Speed of the paths: analysis on an edit, the step timeline (MemoryModel::build) on a set-up change, the
// estimate on a slider tick (the timeline's upper envelope at one batch), max batch, and a chart sweep.
// Run: build/tests/benchmarks/bench_estimate (add -iterations N or -callgrind for stable figures).
#include "BenchNetworks.h"
#include "headroom/analysis/Analysis.h"
#include "headroom/estimate/Estimate.h"
#include "headroom/estimate/Pipeline.h"
#include "headroom/estimate/Plan.h"
#include "headroom/importers/HfConfig.h"
#include "headroom/setup/GpuCatalog.h"

#include <QTest>
#include <utility>

using namespace headroom;

using bench::tenThousandLayers;

class BenchEstimate : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void analyzeTenThousandLayers();
    void fullEstimateTenThousandLayers();
    void buildTimelineTenThousandLayers();
    void sliderTick();
    void maxBatch();
    void sweep1To4096();
    void pipelineSliderTick();

private:
    Network m_network;
    Analysis m_analysis;
    TrainingSetup m_setup;
};

void BenchEstimate::initTestCase()
{
    m_network = tenThousandLayers();
    m_analysis = analyze(m_network, Precision::Fp32);
    QVERIFY2(m_analysis.valid(), m_analysis.error ? m_analysis.error->message.c_str() : "");
    QCOMPARE(m_analysis.rows.size(), std::size_t { 10001 }); // + the loss
}

void BenchEstimate::analyzeTenThousandLayers()
{
    QBENCHMARK
    {
        const Analysis a = analyze(m_network, Precision::Fp32);
        QVERIFY(a.valid());
    }
}

void BenchEstimate::fullEstimateTenThousandLayers()
{
    QBENCHMARK
    {
        const auto e = estimate(analyze(m_network, Precision::AmpBf16), m_setup, 8ULL << 30);
        QVERIFY(e.ok());
    }
}

void BenchEstimate::buildTimelineTenThousandLayers()
{
    const auto model = MemoryModel::build(m_analysis, m_setup);
    QVERIFY(model.ok());
    static bool said = false; // QBENCHMARK runs this function once per iteration count
    if (!std::exchange(said, true))
        qInfo("%zu moments, %zu lines on the steady step's upper envelope",
            model->timeline().moments().size(), model->timeline().steady().lines().size());
    QBENCHMARK
    {
        const auto m = MemoryModel::build(m_analysis, m_setup);
        QVERIFY(m.ok());
    }
}

void BenchEstimate::sliderTick()
{
    const auto model = MemoryModel::build(m_analysis, m_setup).value();
    std::int64_t batch = 1;
    std::uint64_t sink = 0;
    QBENCHMARK
    {
        batch = batch % 4096 + 1;
        sink += model.at(batch)->total();
    }
    QVERIFY(sink > 0);
}

void BenchEstimate::maxBatch()
{
    const auto model = MemoryModel::build(m_analysis, m_setup).value();
    std::uint64_t capacity = 1ULL << 40; // 1 TiB: tens of samples of this network
    std::int64_t sink = 0;
    QBENCHMARK
    {
        capacity += 4096; // a different capacity each time, as when the GPU or the overhead changes
        sink += model.maxBatch(capacity);
    }
    QVERIFY(sink > 0);
}

void BenchEstimate::sweep1To4096()
{
    QBENCHMARK
    {
        const auto points = sweep(m_analysis, m_setup, 1, 4096);
        QCOMPARE(points->size(), std::size_t { 4096 });
    }
}

void BenchEstimate::pipelineSliderTick()
{
    // A slider tick with a pipeline (issue 37): every stage is read again at the batch and the heaviest
    // chosen again (reestimatePipeline; the GUI's PlanController::reestimateTick). A Llama-3-70B-shaped
    // model on 64 H100s: tensor parallel 8 with sequence parallelism, 8 stages of 10 layers, 1F1B over
    // 16 micro-batches, 4,096 tokens, AMP bf16, AdamW.
    auto network = importHfConfigFile(HEADROOM_TEST_SOURCE_DIR "/tests/data/hf/Llama-3-70B-like.json");
    QVERIFY2(network, network ? "" : network.error().message.c_str());
    auto catalog = GpuCatalog::fromFile(HEADROOM_TEST_SOURCE_DIR "/resources/gpus.json");
    QVERIFY(catalog);
    Plan plan;
    plan.network = std::move(network).value();
    plan.sequenceLength = 4096;
    plan.precision = Precision::AmpBf16;
    plan.gpu = catalog->find("H100 SXM").value();
    plan.setup.optimizer = Optimizer::AdamW;
    plan.setup.batch = 1;
    plan.setup.accumulationSteps = 16;
    plan.setup.parallel.gpus = 64;
    plan.setup.parallel.tensorParallel = 8;
    plan.setup.parallel.sequenceParallel = true;
    plan.setup.parallel.pipelineParallel = 8;
    PlanResult result = evaluate(plan);
    QVERIFY2(result.estimate, result.error ? result.error->message.c_str() : "no estimate");
    QCOMPARE(result.stages.size(), std::size_t { 8 });
    PlanSettings settings = plan;
    std::int64_t batch = 0;
    QBENCHMARK
    {
        batch = batch % 8 + 1;
        settings.setup.batch = batch;
        reestimatePipeline(result, settings);
    }
    QVERIFY(result.estimate);
}

QTEST_APPLESS_MAIN(BenchEstimate)
#include "bench_estimate.moc"

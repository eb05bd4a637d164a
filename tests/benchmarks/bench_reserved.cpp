// Speed of the reserved-memory model (issue 23): building the allocation trace of a 10,000-layer step,
// replaying it through the caching allocator once (a chart point, reservedAt), and the max batch search.
// Run: build/tests/benchmarks/bench_reserved (add -iterations N for stable figures). docs/performance.md.
// Each benchmark also logs the processor time per call (the project's machine is shared: wall clock under
// load is several times the processor time).
#include "BenchNetworks.h"
#include "BenchTiming.h"
#include "headroom/allocator/ReservedModel.h"
#include "headroom/analysis/Analysis.h"
#include "headroom/estimate/Plan.h"
#include "headroom/model/ModelFile.h"
#include "headroom/planner/Planner.h"
#include "headroom/setup/GpuCatalog.h"

#include <QTest>
#include <ctime>

using namespace headroom;

namespace {

using bench::cpuMs;

/// Logs the processor time per call of a benchmark body that ran `calls` times since `start`.
void logCpu(const char* what, double start, int calls)
{
    qInfo("%s: %.1f ms processor time per call (%d calls)", what, (cpuMs() - start) / calls, calls);
}

using bench::tenThousandLayers;

/// The same 10,000 layers as one Repeat of 2,000 blocks: the trace writes the hidden ones out.
Network tenThousandLayersRepeated()
{
    Network n;
    n.name = "bench";
    n.input = InputSpec { Shape { { 64, 32, 32 } }, DType::Float32, std::nullopt };
    const nlohmann::json conv
        = { { "out_channels", 64 }, { "kernel_size", 3 }, { "padding", 1 }, { "bias", false } };
    n.layers.push_back(test::repeat("b", 2000,
        { test::layer("Conv2d", conv, "conv1"), test::layer("BatchNorm2d", {}, "bn"),
            test::layer("ReLU", { { "inplace", true } }, "relu"), test::layer("Conv2d", conv, "conv2"),
            test::layer("Add", {}, "add", { "conv2", "repeat_input" }) }));
    return n;
}

} // namespace

class BenchReserved : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void buildTraceTenThousandLayers();
    void buildTraceRepeated();
    void replayTenThousandLayers();
    void maxBatchTenThousandLayers();
    void maxBatchLeNetEveryCapacity_data();
    void maxBatchLeNetEveryCapacity();
    void compareLeNetEveryGpu();
    void replayExpandableTenThousandLayers();
    void maxBatchExpandableTenThousandLayers();
    void reservedDuringStepTenThousandLayers();
    void evaluateTenThousandLayers();
    void sliderTickTenThousandLayers();

private:
    Analysis m_analysis;
    Analysis m_repeated;
    TrainingSetup m_setup;
};

void BenchReserved::initTestCase()
{
    m_analysis = analyze(tenThousandLayers(), Precision::Fp32);
    m_repeated = analyze(tenThousandLayersRepeated(), Precision::Fp32);
    QVERIFY(m_analysis.valid() && m_repeated.valid());
    m_setup.overheadBytes = 0;
    const auto m = ReservedModel::build(m_analysis, m_setup);
    QVERIFY(m.ok());
    qInfo("trace: %zu events, %u tensors", m.value().trace().events().size(), m.value().trace().blocks());
}

void BenchReserved::buildTraceTenThousandLayers()
{
    int calls = 0;
    const double start = cpuMs();
    QBENCHMARK
    {
        const auto m = ReservedModel::build(m_analysis, m_setup);
        QVERIFY(m.ok());
        ++calls;
    }
    logCpu("build", start, calls);
}

void BenchReserved::buildTraceRepeated()
{
    int calls = 0;
    const double start = cpuMs();
    QBENCHMARK
    {
        const auto m = ReservedModel::build(m_repeated, m_setup);
        QVERIFY(m.ok());
        ++calls;
    }
    logCpu("build (Repeat written out)", start, calls);
}

namespace {
/// `n` models of the same trace: a model keeps the runs and searches it answered (ReservedModel::run,
/// maxBatch), so each timed call gets one that never answered the question.
std::vector<ReservedModel> freshModels(
    int n, const Analysis& a, const TrainingSetup& s, ReservedOptions o = {})
{
    std::vector<ReservedModel> out;
    for (int i = 0; i < n; ++i) {
        auto m = ReservedModel::build(a, s, o);
        if (!m)
            qFatal("%s", m.error().message.c_str());
        out.push_back(std::move(m).value());
    }
    return out;
}
constexpr int kFresh = 5;
} // namespace

void BenchReserved::replayTenThousandLayers()
{
    const auto models = freshModels(kFresh, m_analysis, m_setup);
    const double start = cpuMs();
    for (const ReservedModel& m : models)
        QVERIFY(m.run(4).fits);
    logCpu("one replay", start, kFresh);
}

void BenchReserved::maxBatchTenThousandLayers()
{
    const auto models = freshModels(kFresh, m_analysis, m_setup);
    std::int64_t batch = 0;
    const double start = cpuMs();
    for (const ReservedModel& m : models)
        batch = m.maxBatch(80ULL << 30).batch;
    logCpu("maxBatch", start, kFresh);
    qInfo("max batch in 80 GiB: %lld", static_cast<long long>(batch));
    QVERIFY(batch > 0);
}

void BenchReserved::maxBatchLeNetEveryCapacity_data()
{
    QTest::addColumn<double>("gib");
    for (const double gib : { 0.25, 8.0, 24.0, 80.0, 1024.0, 4096.0 })
        QTest::newRow(QByteArray::number(gib).constData()) << gib;
}

void BenchReserved::maxBatchLeNetEveryCapacity()
{
    // Issue 38, item 4: LeNet-5's max batch search grew with the batch it found (82 s on 4 TiB); the goal
    // is under 100 ms at any capacity from 0.25 GiB to 4 TiB.
    QFETCH(double, gib);
    const auto net = loadModelFile(HEADROOM_TEST_SOURCE_DIR "/resources/presets/lenet5.json");
    QVERIFY(net.ok());
    const Analysis a = analyze(net.value(), Precision::Fp32);
    const auto models = freshModels(kFresh, a, m_setup);
    ReservedMaxBatch answer;
    const double start = cpuMs();
    for (const ReservedModel& m : models)
        answer = m.maxBatch(static_cast<std::uint64_t>(gib * 1073741824.0));
    logCpu("maxBatch (LeNet-5)", start, kFresh);
    qInfo("max batch %lld after %zu replays", static_cast<long long>(answer.batch), answer.replays);
}

void BenchReserved::compareLeNetEveryGpu()
{
    // `headroom compare` on LeNet-5: every GPU of the catalogue, each with its max batch search (15-22 s
    // before issue 38; goal under 1 s).
    const auto net = loadModelFile(HEADROOM_TEST_SOURCE_DIR "/resources/presets/lenet5.json");
    const auto catalog = GpuCatalog::fromFile(HEADROOM_TEST_SOURCE_DIR "/resources/gpus.json");
    QVERIFY(net.ok() && catalog.ok());
    Plan plan;
    plan.network = net.value();
    int calls = 0;
    const double start = cpuMs();
    QBENCHMARK
    {
        const auto rows = compareGpus(plan, catalog.value().gpus(), std::nullopt);
        QVERIFY(rows.ok());
        ++calls;
    }
    logCpu("compare (LeNet-5, every GPU)", start, calls);
}

void BenchReserved::replayExpandableTenThousandLayers()
{
    ReservedOptions o;
    o.allocator.expandableSegments = true;
    const auto models = freshModels(kFresh, m_analysis, m_setup, o);
    const double start = cpuMs();
    for (const ReservedModel& m : models)
        QVERIFY(m.run(4).fits);
    logCpu("one replay (expandable segments)", start, kFresh);
}

void BenchReserved::maxBatchExpandableTenThousandLayers()
{
    ReservedOptions o;
    o.allocator.expandableSegments = true;
    const auto models = freshModels(kFresh, m_analysis, m_setup, o);
    std::int64_t batch = 0;
    const double start = cpuMs();
    for (const ReservedModel& m : models)
        batch = m.maxBatch(80ULL << 30).batch;
    logCpu("maxBatch (expandable segments)", start, kFresh);
    qInfo("max batch in 80 GiB, expandable segments: %lld", static_cast<long long>(batch));
    QVERIFY(batch > 0);
}

void BenchReserved::reservedDuringStepTenThousandLayers()
{
    // The "During one step" chart's reserved line: one replay read at every moment of the steady step.
    const auto m = ReservedModel::build(m_analysis, m_setup);
    QVERIFY(m.ok());
    const auto memory = MemoryModel::build(m_analysis, m_setup);
    QVERIFY(memory.ok());
    const std::vector<std::size_t> step = memory.value().timeline().oneStep();
    int calls = 0;
    const double start = cpuMs();
    QBENCHMARK
    {
        const auto r = m.value().reservedAtMoments(memory.value().timeline(), step, 4, false);
        QCOMPARE(r.size(), step.size());
        ++calls;
    }
    logCpu("reserved at every moment of one step", start, calls);
}

namespace {
/// The plan on an 80 GiB GPU with no overhead, as evaluate() takes it.
PlanSettings eightyGiB(std::int64_t batch)
{
    PlanSettings s;
    s.setup.overheadBytes = 0;
    s.setup.batch = batch;
    s.gpu.name = "80 GiB";
    s.gpu.memoryBytes = 80ULL << 30;
    return s;
}
} // namespace

void BenchReserved::evaluateTenThousandLayers()
{
    // A set-up change in the GUI, `headroom estimate` after the analysis: the step model, the trace,
    // the max batch search and one replay at the batch.
    int calls = 0;
    const double start = cpuMs();
    QBENCHMARK
    {
        const PlanResult r = evaluate(eightyGiB(4), m_analysis);
        QVERIFY(r.reservedFigures.has_value());
        ++calls;
    }
    logCpu("evaluate (set-up change)", start, calls);
}

void BenchReserved::sliderTickTenThousandLayers()
{
    // A slider tick: reestimate() at a new batch, the max batch kept (same capacity): one replay.
    PlanResult r = evaluate(eightyGiB(4), m_analysis);
    QVERIFY(r.reservedFigures.has_value());
    std::int64_t batch = 4;
    int calls = 0;
    const double start = cpuMs();
    QBENCHMARK
    {
        batch = batch == 4 ? 8 : 4;
        reestimate(r, eightyGiB(batch));
        ++calls;
    }
    logCpu("slider tick (reestimate)", start, calls);
    QVERIFY(r.estimate && r.estimate->fits);
}

QTEST_APPLESS_MAIN(BenchReserved)
#include "bench_reserved.moc"

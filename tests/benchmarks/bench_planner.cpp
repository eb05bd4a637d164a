// Speed of the planner's whole search (issue 18): a 1,000-layer network, as the `plan` command and the
// "Make it fit" panel run it. Run: build/tests/benchmarks/bench_planner (add -iterations N for stable
// figures); docs/performance.md keeps the numbers.
#include "../core/NetworkBuilder.h"
#include "headroom/planner/Planner.h"
#include "headroom/setup/GpuCatalog.h"

#include <QTest>
#include <ctime>

using namespace headroom;

namespace {

/// 1,000 layers: 200 pre-norm blocks of LayerNorm, 4-head self-attention, Linear 256 -> 1,024, GELU,
/// Linear 1,024 -> 256 on a [128, 256] sequence, in one Repeat (so per-block checkpointing, selective
/// checkpointing and LoRA all apply), then a 10-way head.
Network thousandLayers()
{
    Network n;
    n.name = "bench";
    n.input = InputSpec { Shape { { 128, 256 } }, DType::Float32, std::nullopt };
    n.layers.push_back(test::repeat("blocks", 200,
        { test::layer("LayerNorm", {}, "ln"),
            test::layer("MultiheadAttention", { { "num_heads", 4 } }, "attn"),
            test::layer("Linear", { { "out_features", 1024 } }, "fc1"), test::layer("GELU", {}, "act"),
            test::layer("Linear", { { "out_features", 256 } }, "fc2") }));
    n.layers.push_back(test::layer("Linear", { { "out_features", 10 } }, "head"));
    return n;
}

/// Processor time of every thread of this process so far, in seconds.
double processorSeconds()
{
    timespec t {};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

Gpu rtx4090()
{
    Gpu g;
    g.name = "GeForce RTX 4090";
    g.memoryBytes = 24ULL << 30;
    g.bandwidthGBps = 1008;
    g.fp32Tflops = 82.6;
    g.fp16Tflops = 165.2;
    g.bf16Tflops = 165.2;
    return g;
}

} // namespace

class BenchPlanner : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void planOneGpu();
    void planOneGpuEverythingAllowed();
    void planEightGpus();
    void compareSixtyGpus();

private:
    void run(const PlanAllowances& allow, std::int64_t gpus);
    Plan m_plan;
};

void BenchPlanner::initTestCase()
{
    m_plan.network = thousandLayers();
    m_plan.gpu = rtx4090();
    const PlanResult r = evaluate(m_plan);
    QVERIFY2(r.estimate, r.error ? r.error->message.c_str() : "");
    // 200 x 5 layers and the head; identical iterations of the Repeat block are analysed once (issue 17).
    QCOMPARE(r.analysis.expandedLayers, std::uint64_t { 200 * 5 + 1 });
}

void BenchPlanner::run(const PlanAllowances& allow, std::int64_t gpus)
{
    Plan plan = m_plan;
    plan.setup.parallel.gpus = gpus;
    std::size_t examined = 0;
    std::size_t analyses = 0;
    // Wall clock (QBENCHMARK) depends on the cores free; the processor time all threads spent is what
    // the search costs on a machine to itself.
    int runs = 0;
    const double cpuBefore = processorSeconds();
    QBENCHMARK
    {
        const auto r = planSetups(plan, PlanGoal { 512, {} }, allow);
        QVERIFY(r.ok() && !r->candidates.empty());
        examined = r->setupsExamined;
        analyses = r->analyses;
        ++runs;
    }
    qInfo("%zu set-ups examined over %zu analyses; %.1f ms of processor time per search", examined, analyses,
        1e3 * (processorSeconds() - cpuBefore) / runs);
}

void BenchPlanner::planOneGpu()
{
    run(PlanAllowances {}, 1);
}

void BenchPlanner::planOneGpuEverythingAllowed()
{
    run(PlanAllowances { true, true, true }, 1);
}

void BenchPlanner::planEightGpus()
{
    run(PlanAllowances {}, 8);
}

void BenchPlanner::compareSixtyGpus()
{
    std::vector<Gpu> gpus;
    for (int i = 0; i < 60; ++i) {
        Gpu g = rtx4090();
        g.name += " #" + std::to_string(i);
        g.memoryBytes = (4ULL + static_cast<std::uint64_t>(i)) << 30;
        gpus.push_back(g);
    }
    QBENCHMARK
    {
        const auto rows = compareGpus(m_plan, gpus, 512);
        QVERIFY(rows.ok());
    }
}

QTEST_APPLESS_MAIN(BenchPlanner)
#include "bench_planner.moc"

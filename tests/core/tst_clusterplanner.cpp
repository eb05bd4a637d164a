// The cluster planner (docs/planner.md, "Planning a cluster"): which layouts of G GPUs it lists, worked
// out by hand on a model whose weights and gradients need two GPUs, every listed layout checked through
// evaluate(), the layout arithmetic, the order, and the errors.
#include "headroom/estimate/Pipeline.h"
#include "headroom/estimate/Plan.h"
#include "headroom/importers/HfConfig.h"
#include "headroom/model/ModelFile.h"
#include "headroom/planner/ClusterPlanner.h"

#include <QTest>
#include <cmath>

using namespace headroom;

namespace {

/// 8 Linear 1,024 -> 1,024 layers with bias in one Repeat block on a [1,024] float32 input, MSE loss.
/// Each layer: 1,024 x 1,024 + 1,024 = 1,049,600 parameters, 4,198,400 bytes in float32; all eight
/// 33,587,200 bytes of weights, as many of gradients (SGD keeps no state): 67,174,400 bytes on one GPU.
/// Cut in two pipeline stages of 4 layers: 16,793,600 + 16,793,600 = 33,587,200 bytes, and a micro-batch's
/// activations are a few 4,096-byte rows per sample.
Network eightLinears()
{
    auto n = parseModel(R"({"format": "headroom-model", "version": 1, "name": "eight",
        "input": {"shape": [1024], "dtype": "float32"}, "loss": "mse",
        "layers": [{"type": "Repeat", "name": "blocks", "times": 8, "layers": [
            {"type": "Linear", "name": "fc", "out_features": 1024}]}]})");
    if (!n)
        qFatal("%s", n.error().message.c_str());
    return n.value();
}

Gpu testGpu(std::uint64_t memory)
{
    Gpu g;
    g.name = "Test GPU";
    g.custom = true;
    g.memoryBytes = memory;
    g.bandwidthGBps = 1000;
    g.fp32Tflops = 50;
    g.fp16Tflops = 500;
    g.bf16Tflops = 500;
    return g;
}

/// 48 MiB = 50,331,648 bytes: above one pipeline stage's 33.6 MB, below the whole model's 67.2 MB.
Plan eightPlan(std::uint64_t memory = 48ULL << 20)
{
    Plan plan;
    plan.network = eightLinears();
    plan.reservedModel = false; // the tensors alone: no allocator segment rounding on a hand-worked budget
    plan.gpu = testGpu(memory);
    plan.setup.overheadBytes = 0;
    plan.setup.optimizer = Optimizer::Sgd;
    return plan;
}

ClusterRequest twoGpus(std::int64_t globalBatch)
{
    ClusterRequest r;
    r.gpus = 2;
    r.gpusPerNode = 1; // no tensor parallelism: the pipeline is the only way to split the weights
    r.globalBatch = globalBatch;
    r.recomputation = { Checkpointing::None };
    r.shardings = { Sharding::None };
    r.microBatches = { 1, 2, 4 };
    return r;
}

Network hfNetwork(const char* file)
{
    auto n = importHfConfigFile(std::string(HEADROOM_TEST_SOURCE_DIR "/tests/data/hf/") + file);
    if (!n)
        qFatal("%s", n.error().message.c_str());
    return n.value();
}

} // namespace

class TestClusterPlanner : public QObject
{
    Q_OBJECT

private slots:
    void weightsNeedingTwoGpusGetAPipeline()
    {
        // 2 GPUs, global batch 4. Without tensor parallelism (one GPU per node) the layouts are
        //   PP 1, DP 2: micro-batch 1 x 2 steps or 2 x 1 (4 = mb x m x 2): 67.2 MB of weights and gradients,
        //     over the 50.3 MB GPU: neither fits;
        //   PP 2, DP 1: m = 4 / mb at least p = 2: mb 1 (m 4) and mb 2 (m 2), each under 1F1B and
        //     interleaved 1F1B with 2 and 4 chunks (4 layers a stage, 1 or 2 a chunk): 6 layouts, each
        //     33.6 MB + activations of a few KB: all fit.
        const Plan plan = eightPlan();
        const auto planned = planCluster(plan, twoGpus(4));
        QVERIFY2(planned, planned ? "" : planned.error().message.c_str());
        const ClusterPlan& r = planned.value();
        QVERIFY(r.nothingFits.empty());
        QCOMPARE(r.layoutsEnumerated, std::size_t { 8 });
        QCOMPARE(r.layoutsNotFitting, std::size_t { 2 });
        QCOMPARE(r.layouts.size(), std::size_t { 6 });
        for (const ClusterLayout& l : r.layouts) {
            const Parallelism& par = l.settings.setup.parallel;
            QCOMPARE(par.pipelineParallel, std::int64_t { 2 });
            QCOMPARE(par.tensorParallel, std::int64_t { 1 });
        }
        // 1F1B at micro-batch 1 x 4 steps is listed with a bubble of (p - 1) / (v m) = 1/4.
        const auto plain = std::find_if(r.layouts.begin(), r.layouts.end(), [](const ClusterLayout& l) {
            return l.settings.setup.parallel.schedule == PipelineSchedule::OneFOneB
                && l.settings.setup.batch == 1;
        });
        QVERIFY(plain != r.layouts.end());
        QCOMPARE(plain->settings.setup.accumulationSteps, std::int64_t { 4 });
        QCOMPARE(plain->bubbleFraction, 0.25);
    }

    void everyLayoutAddsUpAndFitsWhenEvaluated()
    {
        const Plan plan = eightPlan();
        const ClusterRequest request = twoGpus(4);
        const auto planned = planCluster(plan, request);
        QVERIFY(planned);
        for (const ClusterLayout& l : planned->layouts) {
            const TrainingSetup& s = l.settings.setup;
            const Parallelism& par = s.parallel;
            QCOMPARE(par.dataParallel() * par.tensorParallel * par.pipelineParallel * par.contextParallel,
                request.gpus);
            QCOMPARE(s.batch * s.accumulationSteps * par.dataParallel(), request.globalBatch);
            // evaluate() of the layout as a plan: it fits, and its heaviest stage and step time are the
            // planner's.
            const PlanResult e = evaluate(l.settings.appliedTo(plan));
            QVERIFY2(!e.error, e.error ? e.error->message.c_str() : "");
            QVERIFY(e.estimate && e.estimate->fits);
            QCOMPARE(e.estimate->heldBytes, l.estimate.heldBytes);
            QVERIFY(e.throughput);
            QVERIFY(std::abs(e.throughput->stepSeconds - l.throughput.stepSeconds)
                <= 1e-9 * e.throughput->stepSeconds);
        }
    }

    void pipelinesWithTheAllocatorAgreeWithEvaluate()
    {
        // Llama-2-7B at 2,048 tokens with AdamW under bf16 autocast on 8 GPUs of 24 GiB: 6.7 billion
        // parameters x (2 + 4 + 4 x 3) bytes (weights, gradients, fp32 master + Adam state) is far over one
        // GPU, so every listed layout splits the model. Each, evaluated as `estimate` does it (every stage,
        // the allocator replayed), fits, with the planner's heaviest stage and step time.
        Plan plan;
        plan.network = hfNetwork("Llama-2-7b-hf.json");
        plan.sequenceLength = 2048;
        plan.precision = Precision::AmpBf16;
        plan.setup.optimizer = Optimizer::AdamW;
        plan.gpu = testGpu(24ULL << 30);
        plan.setup.overheadBytes = defaultOverheadBytes(plan.gpu);
        ClusterRequest r;
        r.gpus = 8;
        r.globalBatch = 32;
        r.listed = 10; // the first ones are tensor parallel, then pipelines of 2 and 4 stages
        const auto planned = planCluster(plan, r);
        QVERIFY2(planned, planned ? "" : planned.error().message.c_str());
        QVERIFY2(!planned->layouts.empty(), planned->nothingFits.c_str());
        const bool pipelined = std::any_of(planned->layouts.begin(), planned->layouts.end(),
            [](const ClusterLayout& l) { return l.settings.setup.parallel.pipelineParallel > 1; });
        QVERIFY(pipelined);
        for (const ClusterLayout& l : planned->layouts) {
            const Parallelism& par = l.settings.setup.parallel;
            QVERIFY(par.tensorParallel * par.pipelineParallel > 1 || shardingStage(par.sharding) >= 1);
            const PlanResult e = evaluate(l.settings.appliedTo(plan));
            QVERIFY2(!e.error, e.error ? e.error->message.c_str() : "");
            QVERIFY(e.estimate && e.estimate->fits);
            QCOMPARE(e.estimate->heldBytes, l.estimate.heldBytes);
            QCOMPARE(e.estimate->maxBatch, l.estimate.maxBatch);
            QVERIFY(e.throughput);
            QVERIFY(std::abs(e.throughput->stepSeconds - l.throughput.stepSeconds)
                <= 1e-9 * e.throughput->stepSeconds);
        }
    }

    void askedForFewerItListsTheFastestOfAll()
    {
        // The search works layouts out in order of a lower bound on their step time, checks a layout's
        // stages heaviest first and stops at the first that does not fit, and replays the allocator only
        // for layouts no layout still unexamined can beat. None of that may change the answer: asked for
        // the 3 fastest, it lists the 3 first of what it lists when asked for every layout that fits
        // (which examines and replays them all). TinyLlama-1.1B with AdamW under bf16 autocast:
        // 1.1 billion parameters x 16 bytes is over 16 GiB, over one 8 GiB GPU.
        Plan plan;
        plan.network = hfNetwork("TinyLlama-1.1B-Chat-v1.0.json");
        plan.sequenceLength = 1024;
        plan.precision = Precision::AmpBf16;
        plan.setup.optimizer = Optimizer::AdamW;
        plan.gpu = testGpu(8ULL << 30);
        plan.setup.overheadBytes = defaultOverheadBytes(plan.gpu);
        ClusterRequest r;
        r.gpus = 4;
        r.globalBatch = 16;
        r.listed = 3;
        const auto few = planCluster(plan, r);
        QVERIFY2(few, few ? "" : few.error().message.c_str());
        r.listed = 1'000'000;
        const auto all = planCluster(plan, r);
        QVERIFY2(all, all ? "" : all.error().message.c_str());
        QCOMPARE(few->layouts.size(), std::size_t { 3 });
        QVERIFY(all->layouts.size() > 3);
        QCOMPARE(all->layoutsSlower, std::size_t { 0 });
        QVERIFY(few->layoutsExamined < all->layoutsExamined);
        QVERIFY(few->replays < all->replays);
        QVERIFY(few->memoryModels < all->memoryModels);
        const auto same = [](const ClusterLayout& a, const ClusterLayout& b) {
            const TrainingSetup& x = a.settings.setup;
            const TrainingSetup& y = b.settings.setup;
            return x.parallel == y.parallel && x.batch == y.batch
                && x.accumulationSteps == y.accumulationSteps
                && a.settings.checkpointing == b.settings.checkpointing;
        };
        for (std::size_t i = 0; i < few->layouts.size(); ++i) {
            const ClusterLayout& l = few->layouts[i];
            // Layouts of equal step times may come in another order; the times may not.
            QCOMPARE(l.throughput.stepSeconds, all->layouts[i].throughput.stepSeconds);
            const auto match = std::find_if(
                all->layouts.begin(), all->layouts.end(), [&](const ClusterLayout& a) { return same(a, l); });
            QVERIFY(match != all->layouts.end());
            QCOMPARE(match->estimate.heldBytes, l.estimate.heldBytes);
            QCOMPARE(match->estimate.maxBatch, l.estimate.maxBatch);
            QCOMPARE(match->heaviestStage, l.heaviestStage);
        }
    }

    void layoutsComeFastestFirst()
    {
        const auto planned = planCluster(eightPlan(), twoGpus(8));
        QVERIFY(planned);
        const auto& layouts = planned->layouts;
        QVERIFY(layouts.size() >= 2);
        for (std::size_t i = 1; i < layouts.size(); ++i)
            QVERIFY(layouts[i - 1].throughput.stepSeconds <= layouts[i].throughput.stepSeconds);
        // Asked for fewer, it lists the fastest of them.
        ClusterRequest two = twoGpus(8);
        two.listed = 2;
        const auto fewer = planCluster(eightPlan(), two);
        QVERIFY(fewer);
        QCOMPARE(fewer->layouts.size(), std::size_t { 2 });
        QCOMPARE(fewer->layouts[0].throughput.stepSeconds, layouts[0].throughput.stepSeconds);
        QCOMPARE(fewer->layouts[1].throughput.stepSeconds, layouts[1].throughput.stepSeconds);
    }

    void aGlobalBatchNoLayoutSplitsIsAnError()
    {
        // Global batch 1 on 2 GPUs: DP 2 needs an even batch; PP 2 (DP 1) needs m >= 2 micro-batches.
        const auto planned = planCluster(eightPlan(), twoGpus(1));
        QVERIFY(!planned);
        QCOMPARE(planned.error().location, std::string { "global_batch" });
        QVERIFY(planned.error().message.find("the global batch 1") != std::string::npos);
        QVERIFY(planned.error().message.find("pipeline parallel 1, 2") != std::string::npos);
        ClusterRequest zero = twoGpus(0);
        QVERIFY(!planCluster(eightPlan(), zero));
        ClusterRequest noGpus = twoGpus(4);
        noGpus.gpus = 0;
        QCOMPARE(planCluster(eightPlan(), noGpus).error().location, std::string { "gpus" });
    }

    void nothingFittingSaysWhatWasTried()
    {
        // 8 MiB: even one stage's 33.6 MB of weights and gradients does not fit.
        const auto planned = planCluster(eightPlan(8ULL << 20), twoGpus(4));
        QVERIFY(planned);
        QVERIFY(planned->layouts.empty());
        const std::string& text = planned->nothingFits;
        QVERIFY2(
            text.find("no layout of 2 Test GPU fits the global batch 4") != std::string::npos, text.c_str());
        QVERIFY(text.find("pipeline parallel 1, 2") != std::string::npos);
        QVERIFY(text.find("tensor parallel 1;") != std::string::npos);
        // The closest: a stage of two holds half the weights and gradients, 33,587,200 bytes (32.03 MiB),
        // over 24 MiB more than the GPU; of the pipelines, 1F1B at micro-batch 1 holds the fewest
        // activations (stage 0 keeps one micro-batch in flight besides the running one; interleaving keeps
        // more, a micro-batch of 2 twice as much). The search checks a layout's stages only up to the first
        // that does not fit, and works the closest out in full at the end: the answer is the same.
        const std::string closest = "the closest, TP 1, PP 2, DP 1, DDP (no sharding), recomputation none, "
                                    "micro-batch 1 x 4, needs ";
        const auto at = text.find(closest);
        QVERIFY2(at != std::string::npos, text.c_str());
        const double mib = std::stod(text.substr(at + closest.size()));
        QVERIFY2(mib > 24.03 && mib < 32.03, text.c_str());
        QVERIFY(text.substr(at + closest.size()).find(" MiB more on its heaviest GPU") != std::string::npos);
        QCOMPARE(planned->layoutsNotFitting, planned->layoutsEnumerated);
    }

    void theModelDecidesTensorContextAndExpertDegrees()
    {
        // Qwen3-30B-A3B: 32 query heads and 4 key/value heads (TP divides both: 1, 2, 4 of a node's 8),
        // 128 experts (EP: the divisors of 128 within a node: 1, 2, 4, 8), a sequence model at 4,096
        // tokens (CP: powers of two with 2 CP dividing 4,096, up to 16). On 1 GiB GPUs nothing fits, so
        // the answer lists what was tried.
        Plan plan;
        plan.network = hfNetwork("Qwen3-30B-A3B.json");
        plan.sequenceLength = 4096;
        plan.precision = Precision::AmpBf16;
        plan.gpu = testGpu(1ULL << 30);
        plan.reservedModel = false;
        ClusterRequest r;
        r.gpus = 8;
        r.globalBatch = 64;
        r.recomputation = { Checkpointing::None };
        r.shardings = { Sharding::None };
        r.microBatches = { 1 };
        const auto planned = planCluster(plan, r);
        QVERIFY2(planned, planned ? "" : planned.error().message.c_str());
        const std::string& text = planned->nothingFits;
        QVERIFY2(text.find("tensor parallel 1, 2, 4;") != std::string::npos, text.c_str());
        QVERIFY(text.find("expert parallel 1, 2, 4, 8;") != std::string::npos);
        QVERIFY(text.find("context parallel 1, 2, 4, 8, 16;") != std::string::npos);
        // The dense 8-layer model above has neither heads, experts nor a sequence.
        const auto dense = planCluster(eightPlan(8ULL << 20), twoGpus(4));
        QVERIFY(dense->nothingFits.find("context parallel 1; expert parallel 1;") != std::string::npos);
    }
};

QTEST_GUILESS_MAIN(TestClusterPlanner)
#include "tst_clusterplanner.moc"

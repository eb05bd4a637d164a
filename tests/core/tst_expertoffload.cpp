// Expert parallelism and activation offloading (issue 37; docs/multi-gpu.md, "Expert parallelism" and
// "Activation offloading"): parameters, optimizer state and gradients of a small mixture of experts per
// rank, their sharding over the expert data-parallel ranks, the all-to-all dispatch buffers, the errors
// naming both settings, and what stays on the GPU when checkpoints or all saved activations go to the CPU.
// Every expected figure is worked out by hand in the comments.
#include "NetworkBuilder.h"
#include "headroom/allocator/ReservedModel.h"
#include "headroom/estimate/Estimate.h"

#include <QTest>

using namespace headroom;
using namespace headroom::test;

namespace {

TrainingSetup setup(std::int64_t gpus, std::int64_t expertParallel, std::int64_t expertTensorParallel = 1,
    Sharding sharding = Sharding::None)
{
    TrainingSetup s;
    s.optimizer = Optimizer::Adam;
    s.optimizerImplementation = OptimizerImplementation::Fused; // no step temporaries
    s.batch = 1;
    s.overheadBytes = 0;
    s.parallel.gpus = gpus;
    s.parallel.sharding = sharding;
    s.parallel.expertParallel = expertParallel;
    s.parallel.expertTensorParallel = expertTensorParallel;
    return s;
}

/// One mixture-of-experts layer on [4, 8] float32 (T = 4 tokens, H = 8): E = 4 experts of width F = 16,
/// top-2, softmax router. Parameters: the router's gate E x H = 32; each expert gate_proj, up_proj and
/// down_proj F x H = 128 each, 384 per expert, 1,536 for the four; 1,568 in all.
Network moeLayer()
{
    return network({ 4, 8 },
        { layer("MixtureOfExperts",
            { { "num_experts", 4 }, { "num_experts_per_tok", 2 }, { "intermediate_size", 16 } }, "moe") },
        Loss::None);
}

MemoryModel built(const Analysis& a, const TrainingSetup& s)
{
    auto model = MemoryModel::build(a, s);
    if (!model.ok())
        qFatal("%s", model.error().message.c_str());
    return std::move(*model);
}

/// The optimizer step at batch 1: weights, gradients and optimizer state as the step holds them.
MemoryBreakdown atStep(const MemoryModel& m)
{
    return m.momentAt(m.optimizerStepMoment(), 1);
}

/// The most of one component per sample / fixed any moment holds.
std::uint64_t mostPerSample(const MemoryModel& m, Component c)
{
    std::uint64_t best = 0;
    for (const auto& moment : m.timeline().moments())
        best = std::max(best, componentBytes(moment.perSample, c));
    return best;
}
std::uint64_t mostFixed(const MemoryModel& m, Component c)
{
    std::uint64_t best = 0;
    for (const auto& moment : m.timeline().moments())
        best = std::max(best, componentBytes(moment.fixed, c));
    return best;
}

/// The transformer-like block of tst_parallelism on [4, 8] float32: ln LayerNorm, up Linear(8 -> 32),
/// act GELU, down Linear(32 -> 8), res Add(down, block input). Its input is 4 x 8 x 4 = 128 B per sample.
std::vector<LayerSpec> transformerBlock()
{
    return { layer("LayerNorm", {}, "ln"), layer("Linear", { { "out_features", 32 } }, "up"),
        layer("GELU", {}, "act"), layer("Linear", { { "out_features", 8 } }, "down"),
        layer("Add", {}, "res", { "down", "repeat_input" }) };
}

Analysis analyzed(const Network& n, Checkpointing c)
{
    AnalysisOptions o;
    o.checkpointing = c;
    Analysis a = analyze(n, o);
    if (!a.valid())
        qFatal("%s", a.error->message.c_str());
    return a;
}

/// The peak of the allocation trace's live requested bytes in the steady step (no allocator), leaving out
/// the workspaces the moments do not hold (tst_allocationtrace's livePeaksAreTheMoments).
std::uint64_t steadyLivePeak(const AllocationTrace& t, std::int64_t batch)
{
    std::vector<std::uint64_t> size(t.blocks(), 0);
    std::uint64_t live = 0;
    std::uint64_t peak = 0;
    for (const TraceEvent& e : t.events()) {
        if (e.kind == TraceKind::CublasWorkspace || e.kind == TraceKind::CudnnWorkspace)
            continue;
        if (e.allocate) {
            size[e.block] = AllocationTrace::bytesAt(e, batch);
            live += size[e.block];
        } else {
            live -= size[e.block];
            size[e.block] = 0;
        }
        if (e.step >= 2)
            peak = std::max(peak, live);
    }
    return peak;
}

} // namespace

class TestExpertOffload : public QObject
{
    Q_OBJECT

private slots:
    void theAnalysisNamesTheExperts();
    void expertsSplitOverTheExpertParallelRanks();
    void expertTensorParallelSplitsEachExpert();
    void tensorParallelSplitsTheRouterOnly();
    void autocastCopiesOfTheExpertsAreSplit();
    void expertStatesShardOverTheExpertDataParallelRanks();
    void dispatchBuffersWhileTheLayerRuns();
    void expertParallelMustDivideTheExperts();
    void expertParallelNeedsAMixtureOfExperts();
    void offloadedCheckpointsLeaveTwoBlockInputs();
    void offloadingCheckpointsNeedsPerBlockCheckpointing();
    void offloadingEverySavedTensor();
    void theAllocationTracePeaksWithTheMoments();
};

void TestExpertOffload::theAnalysisNamesTheExperts()
{
    const Analysis a = analyze(moeLayer(), Precision::Fp32);
    QVERIFY(a.valid());
    const LayerRow& row = rowNamed(a, "moe");
    QCOMPARE(row.params, std::uint64_t { 1568 });
    QCOMPARE(row.experts, std::int64_t { 4 });
    QCOMPARE(row.expertsPerToken, std::int64_t { 2 });
    QCOMPARE(row.expertParams, std::uint64_t { 1536 });
    QCOMPARE(row.expertTrainableParams, std::uint64_t { 1536 });
    QCOMPARE(row.expertCastParams, std::uint64_t { 1536 }); // the eager loop's expert Linears are autocast's
}

void TestExpertOffload::expertsSplitOverTheExpertParallelRanks()
{
    // e = 2 on 2 GPUs (DDP): each rank holds 2 of the 4 experts, 768 elements, and the whole router, 32:
    // 800 elements. Float32 Adam: weights 3,200 B, gradients 3,200 B, state 2 x 4 x 800 = 6,400 B.
    const Analysis a = analyze(moeLayer(), Precision::Fp32);
    const MemoryBreakdown step = atStep(built(a, setup(2, 2)));
    QCOMPARE(step.weights, std::uint64_t { 3200 });
    QCOMPARE(step.gradients, std::uint64_t { 3200 });
    QCOMPARE(step.optimizerState, std::uint64_t { 6400 });
    // Without expert parallelism: 1,568 x 4 = 6,272 B of weights.
    QCOMPARE(atStep(built(a, setup(2, 1))).weights, std::uint64_t { 6272 });
}

void TestExpertOffload::expertTensorParallelSplitsEachExpert()
{
    // e = 2, expert tensor parallel 2 on 4 GPUs: 1,536 / 4 = 384 expert elements + the router's 32 = 416:
    // 1,664 B of float32 weights.
    const Analysis a = analyze(moeLayer(), Precision::Fp32);
    QCOMPARE(atStep(built(a, setup(4, 2, 2))).weights, std::uint64_t { 1664 });
    // Expert tensor parallel 2 alone (e = 1) on 2 GPUs: 768 + 32 = 800 elements, 3,200 B.
    QCOMPARE(atStep(built(a, setup(2, 1, 2))).weights, std::uint64_t { 3200 });
}

void TestExpertOffload::tensorParallelSplitsTheRouterOnly()
{
    // t = 2 and e = 2 on 2 GPUs: the router split by t, 32 / 2 = 16, the experts by e, 1,536 / 2 = 768:
    // 784 elements, 3,136 B. t = 2 alone splits the whole layer as before: ceil(1,568 / 2) = 784 too, so
    // take t = 2, e = 2, expert tensor parallel 1 on 2 GPUs against t = 2 with e x etp = 4 on 4 GPUs:
    // 16 + 1,536 / 4 = 400 elements, 1,600 B.
    const Analysis a = analyze(moeLayer(), Precision::Fp32);
    auto s = setup(2, 2);
    s.parallel.tensorParallel = 2;
    QCOMPARE(atStep(built(a, s)).weights, std::uint64_t { 3136 });
    auto wide = setup(4, 2, 2);
    wide.parallel.tensorParallel = 2;
    QCOMPARE(atStep(built(a, wide)).weights, std::uint64_t { 1600 });
}

void TestExpertOffload::autocastCopiesOfTheExpertsAreSplit()
{
    // amp-bf16: float32 weights and, while the layer's weights are cast, a bfloat16 copy of the router
    // (32 x 2 = 64 B) and of the experts (1,536 x 2 = 3,072 B). With e = 2: 800 x 4 = 3,200 B of weights,
    // copies 64 + 3,072 / 2 = 1,600: 4,800 B at most. Without: 6,272 + 3,136 = 9,408 B.
    const Analysis a = analyze(moeLayer(), Precision::AmpBf16);
    QCOMPARE(mostFixed(built(a, setup(2, 2)), Component::Weights), std::uint64_t { 4800 });
    QCOMPARE(mostFixed(built(a, setup(2, 1)), Component::Weights), std::uint64_t { 9408 });
}

void TestExpertOffload::expertStatesShardOverTheExpertDataParallelRanks()
{
    // 4 GPUs, e = 2: data parallel N = 4, expert data parallel N_e = 4 / 2 = 2. Per rank before sharding:
    // router 32 elements (128 B float32, Adam state 256 B), experts 768 elements (3,072 B, state 6,144 B).
    // ZeRO-1: state 256 / 4 + 6,144 / 2 = 64 + 3,072 = 3,136 B.
    // ZeRO-2: gradients as well: 128 / 4 + 3,072 / 2 = 32 + 1,536 = 1,568 B.
    // ZeRO-3: weights as well: 1,568 B.
    const Analysis a = analyze(moeLayer(), Precision::Fp32);
    QCOMPARE(atStep(built(a, setup(4, 2, 1, Sharding::Zero1))).optimizerState, std::uint64_t { 3136 });
    const MemoryBreakdown zero2 = atStep(built(a, setup(4, 2, 1, Sharding::Zero2)));
    QCOMPARE(zero2.optimizerState, std::uint64_t { 3136 });
    QCOMPARE(zero2.gradients, std::uint64_t { 1568 });
    const MemoryBreakdown zero3 = atStep(built(a, setup(4, 2, 1, Sharding::Zero3)));
    QCOMPARE(zero3.weights, std::uint64_t { 1568 });
    QCOMPARE(zero3.gradients, std::uint64_t { 1568 });
    QCOMPARE(zero3.optimizerState, std::uint64_t { 3136 });
}

void TestExpertOffload::dispatchBuffersWhileTheLayerRuns()
{
    // Megatron-Core's all-to-all dispatcher: the permuted tokens sent and the tokens received, each
    // T x k x H elements: 4 x 2 x 8 = 64 float32 = 256 B, 512 B per sample for both, while the layer's
    // forward and its backward run; none at the optimizer step, and none without expert parallelism.
    // (ZeRO-1 on 2 GPUs: no DDP buckets in the communication component.)
    const Analysis a = analyze(moeLayer(), Precision::Fp32);
    const MemoryModel m = built(a, setup(2, 2, 1, Sharding::Zero1));
    QCOMPARE(mostPerSample(m, Component::Communication), std::uint64_t { 512 });
    QCOMPARE(mostFixed(m, Component::Communication), std::uint64_t { 0 });
    int forward = 0, backward = 0;
    for (const auto& moment : m.timeline().moments()) {
        if (moment.perSample.communication == 0)
            continue;
        QCOMPARE(a.rows[moment.row].name, std::string { "moe" });
        (moment.phase == StepPhase::Forward ? forward : backward) += 1;
        QVERIFY(moment.phase != StepPhase::OptimizerStep);
    }
    QCOMPARE(forward, 1);
    QCOMPARE(backward, 1);
    QCOMPARE(m.momentAt(m.optimizerStepMoment(), 3).communication, std::uint64_t { 0 });
    QCOMPARE(mostPerSample(built(a, setup(2, 1, 1, Sharding::Zero1)), Component::Communication),
        std::uint64_t { 0 });
}

void TestExpertOffload::expertParallelMustDivideTheExperts()
{
    // Two iterations of the layer in a Repeat block: layer 1.1; the first iteration's row is the first
    // to fail (a row standing for several iterations is named by their range, "layers.1–9.mlp").
    const Network n = network({ 4, 8 },
        { repeat("layers", 2,
            { layer("MixtureOfExperts",
                { { "num_experts", 4 }, { "num_experts_per_tok", 2 }, { "intermediate_size", 16 } },
                "mlp") }) },
        Loss::None);
    const Analysis a = analyze(n, Precision::Fp32);
    QVERIFY(a.valid());
    const auto model = MemoryModel::build(a, setup(3, 3));
    QVERIFY(!model.ok());
    QCOMPARE(QString::fromStdString(model.error().message),
        QStringLiteral("expert parallel 3 must divide the 4 experts of layer 1.1 (layers.0.mlp)"));
    QCOMPARE(model.error().location, std::string { "parallel.expert_parallel" });
    QVERIFY(MemoryModel::build(a, setup(4, 4)).ok());
}

void TestExpertOffload::expertParallelNeedsAMixtureOfExperts()
{
    const Analysis a = analyze(tinyMlp(), Precision::Fp32);
    const auto model = MemoryModel::build(a, setup(2, 2));
    QVERIFY(!model.ok());
    QCOMPARE(model.error().message,
        std::string { "expert parallel 2 splits the experts of mixture-of-experts layers, but the model has "
                      "none" });
    QCOMPARE(model.error().location, std::string { "parallel.expert_parallel" });
    const auto etp = MemoryModel::build(a, setup(2, 1, 2));
    QVERIFY(!etp.ok());
    QVERIFY(etp.error().message.starts_with("expert tensor parallel 2 splits"));
    QCOMPARE(etp.error().location, std::string { "parallel.expert_tensor_parallel" });
}

void TestExpertOffload::offloadedCheckpointsLeaveTwoBlockInputs()
{
    // [4, 8] -> embed Linear(8 -> 8) -> n x transformerBlock(), per-block checkpointing. tst_parallelism
    // works out the peak: backward recomputes the last iteration (ln's statistics 32 + its output 128 +
    // up's 512 + act's 512 + down's 128 + res's recomputed output 128 = 1,440 B) while every iteration's
    // input (128 B each) and the network output (128) are alive: 128 n + 128 + 1,440.
    // Offloaded checkpoints: the block inputs are in CPU memory except the one of the iteration being
    // recomputed and the next one backward needs, prefetched: 2 x 128 + 128 + 1,440 = 1,824 for n >= 2.
    // In forward an iteration's input and its output (the next one's input) are both on the GPU, and
    // each input leaves after the iteration's last use of it.
    for (const std::int64_t blocks : { 2, 4, 24 }) {
        const Network n = network({ 4, 8 },
            { layer("Linear", { { "out_features", 8 } }, "embed"),
                repeat("blocks", blocks, transformerBlock()) },
            Loss::None);
        const Analysis a = analyzed(n, Checkpointing::PerBlock);
        auto s = setup(1, 1);
        const std::uint64_t kept = 128 * static_cast<std::uint64_t>(blocks) + 128 + 1440;
        QCOMPARE(mostPerSample(built(a, s), Component::Activations), kept);
        s.parallel.activationOffload = ActivationOffload::Checkpoints;
        const MemoryModel offloaded = built(a, s);
        QCOMPARE(mostPerSample(offloaded, Component::Activations), std::uint64_t { 2 * 128 + 128 + 1440 });
        // The end of the forward pass: the network output alone (the caller's), every input offloaded.
        QCOMPARE(offloaded.momentAt(offloaded.endOfForwardMoment(), 1).activations, std::uint64_t { 128 });
    }
}

void TestExpertOffload::offloadingCheckpointsNeedsPerBlockCheckpointing()
{
    auto s = setup(1, 1);
    s.parallel.activationOffload = ActivationOffload::Checkpoints;
    for (const auto c : { Checkpointing::None, Checkpointing::Selective }) {
        const Analysis a = analyzed(tinyMlp(), c);
        const auto model = MemoryModel::build(a, s);
        QVERIFY(!model.ok());
        QCOMPARE(model.error().message,
            "activation offload \"checkpoints\" moves the block inputs that per-block checkpointing keeps to "
            "the CPU: it needs checkpointing \"per-block\", not \""
                + std::string(checkpointingName(c)) + "\"");
        QCOMPARE(model.error().location, std::string { "parallel.activation_offload" });
    }
}

void TestExpertOffload::offloadingEverySavedTensor()
{
    // tinyMlp() (tst_steptimeline works its step out): fc1's output h 32 B, relu's output r 32 B (kept by
    // relu and fc2), the logits 8 B, log_softmax's output l 8 B (kept), the 4-byte scalar loss (fixed).
    // save_on_cpu: a saved tensor is copied to CPU memory when saved, so the GPU frees it after its last
    // use in forward, and gets it back when backward reaches the last op that used it in forward:
    //   forward  fc1 32 | relu 64 (h freed after) | fc2 40 (r's last use: offloaded after) |
    //            log_softmax 16 (logits freed after) | nll_loss 8 + 4 (l offloaded after) | end 0 + 4
    //   backward nll_loss: l back, 8 | log_softmax 8 (l released after) | fc2: r back, 32 | relu 32
    //            (r released after) | fc1 0 | optimizer step 0.
    // Without offload the end of forward holds r and l: 40 (tst_steptimeline).
    const Analysis a = analyze(tinyMlp(), Precision::Fp32);
    auto s = setup(1, 1);
    s.parallel.activationOffload = ActivationOffload::All;
    const MemoryModel m = built(a, s);
    const std::vector<std::uint64_t> expected { 32, 64, 40, 16, 8, 0, 8, 8, 32, 32, 0, 0 };
    const auto& moments = m.timeline().moments();
    QCOMPARE(moments.size(), expected.size());
    for (std::size_t i = 0; i < moments.size(); ++i)
        QVERIFY2(moments[i].perSample.activations == expected[i],
            qPrintable(QStringLiteral("moment %1: %2, expected %3")
                           .arg(i)
                           .arg(moments[i].perSample.activations)
                           .arg(expected[i])));
    QCOMPARE(m.momentAt(m.endOfForwardMoment(), 1).activations, std::uint64_t { 4 });
    QCOMPARE(built(a, setup(1, 1)).momentAt(m.endOfForwardMoment(), 1).activations, std::uint64_t { 44 });
}

void TestExpertOffload::theAllocationTracePeaksWithTheMoments()
{
    // One simulation: the trace the allocator replays (every Repeat iteration written out) has its live
    // bytes peak where the moments do, with dispatch buffers and with offloaded activations.
    const Network blocks = network({ 4, 8 },
        { layer("Linear", { { "out_features", 8 } }, "embed"), repeat("blocks", 12, transformerBlock()) },
        Loss::None);
    const Network experts = network({ 4, 8 },
        { repeat("layers", 6,
            { layer("LayerNorm", {}, "norm"),
                layer("MixtureOfExperts",
                    { { "num_experts", 4 }, { "num_experts_per_tok", 2 }, { "intermediate_size", 16 } },
                    "mlp"),
                layer("Add", {}, "res", { "mlp", "repeat_input" }) }) },
        Loss::None);
    struct Case
    {
        const Network* net;
        Checkpointing checkpointing;
        ActivationOffload offload;
        std::int64_t expertParallel;
    };
    for (const Case& c : { Case { &blocks, Checkpointing::PerBlock, ActivationOffload::Checkpoints, 1 },
             Case { &blocks, Checkpointing::None, ActivationOffload::All, 1 },
             Case { &blocks, Checkpointing::PerBlock, ActivationOffload::All, 1 },
             Case { &experts, Checkpointing::None, ActivationOffload::None, 2 },
             Case { &experts, Checkpointing::PerBlock, ActivationOffload::Checkpoints, 2 } }) {
        const Analysis a = analyzed(*c.net, c.checkpointing);
        TrainingSetup s = setup(2, c.expertParallel, 1, Sharding::Zero1);
        s.parallel.activationOffload = c.offload;
        const MemoryModel m = built(a, s);
        const auto reserved = ReservedModel::build(a, s, {});
        QVERIFY2(reserved.ok(), reserved.ok() ? "" : reserved.error().message.c_str());
        for (const std::int64_t batch : { 1, 3, 64 })
            QCOMPARE(steadyLivePeak(reserved.value().trace(), batch), m.at(batch).value().total());
    }
}

QTEST_APPLESS_MAIN(TestExpertOffload)
#include "tst_expertoffload.moc"

// Sequence parallelism (Megatron-LM: every activation divided by the tensor-parallel degree) and context
// parallelism (ring attention and all-to-all / Ulysses: the sequence split over c ranks), per GPU
// (docs/multi-gpu.md). Every expected figure is worked out by hand in the comments.
#include "CatalogueGpus.h"
#include "NetworkBuilder.h"
#include "headroom/estimate/ContextParallel.h"
#include "headroom/estimate/Plan.h"
#include "headroom/step/AllocationTrace.h"

#include <QTest>

using namespace headroom;
using namespace headroom::test;

namespace {

/// The transformer-like block of tst_parallelism on [4, 8] float32 (4 positions, width 8):
///   ln    LayerNorm        keeps its input x (128 B) + mean and rstd per position (4 x 2 x 4 = 32 B)
///   up    Linear(8 -> 32)  keeps its input, ln's output (128 B)
///   act   GELU             keeps its input, up's output (4 x 32 x 4 = 512 B)
///   down  Linear(32 -> 8)  keeps its input, act's output (512 B)
///   res   Add(down, x)     keeps nothing
/// Charged per iteration: ln 160 + up 128 + act 512 + down 512 = 1,312 B per sample.
std::vector<LayerSpec> transformerBlock()
{
    return { layer("LayerNorm", {}, "ln"), layer("Linear", { { "out_features", 32 } }, "up"),
        layer("GELU", {}, "act"), layer("Linear", { { "out_features", 8 } }, "down"),
        layer("Add", {}, "res", { "down", "repeat_input" }) };
}

/// [4, 8] -> embed Linear(8 -> 8) -> `blocks` x transformerBlock().
Network transformerStack(std::int64_t blocks)
{
    return network({ 4, 8 },
        { layer("Linear", { { "out_features", 8 } }, "embed"), repeat("blocks", blocks, transformerBlock()) },
        Loss::None);
}

TrainingSetup tensorParallel(std::int64_t t, bool sequenceParallel)
{
    TrainingSetup s;
    s.optimizer = Optimizer::Adam;
    s.optimizerImplementation = OptimizerImplementation::Fused;
    s.batch = 1;
    s.overheadBytes = 0;
    s.parallel.gpus = t;
    s.parallel.tensorParallel = t;
    s.parallel.sequenceParallel = sequenceParallel;
    return s;
}

Analysis analyzed(const Network& n, Checkpointing c)
{
    AnalysisOptions o;
    o.checkpointing = c;
    return analyze(n, o);
}

std::uint64_t peakActivationsPerSample(const MemoryModel& m)
{
    std::uint64_t best = 0;
    for (const auto& moment : m.timeline().moments())
        best = std::max(best, moment.perSample.activations);
    return best;
}

/// A self-attention model on features [8, 8] float32 (T = 8 positions, width 8): attn
/// MultiheadAttention(8, 2 heads, fused SDPA path), then head Linear(8 -> 8).
Network attentionModel(std::int64_t heads = 2, std::int64_t length = 8)
{
    return network({ length, 8 },
        { layer("MultiheadAttention", { { "num_heads", heads }, { "need_weights", false } }, "attn"),
            layer("Linear", { { "out_features", 8 } }, "head") },
        Loss::None);
}

Plan planOf(Network n, std::int64_t contextParallel, ContextParallelism kind = ContextParallelism::Ring)
{
    Plan p;
    p.network = std::move(n);
    p.reservedModel = false;
    p.gpu = catalogueGpu("GTX 1080"); // any GPU with an fp32 figure: for the throughput
    p.setup.batch = 1;
    p.setup.overheadBytes = 0;
    p.setup.optimizerImplementation = OptimizerImplementation::Fused;
    p.setup.parallel.gpus = contextParallel;
    p.setup.parallel.contextParallel = contextParallel;
    p.setup.parallel.contextKind = kind;
    return p;
}

std::string errorOf(const PlanResult& r)
{
    return r.error ? r.error->message : std::string {};
}

} // namespace

class TestSequenceContext : public QObject
{
    Q_OBJECT
private slots:
    void sequenceParallelActivations_data();
    void sequenceParallelActivations();
    void sequenceParallelBuffers();
    void sequenceParallelMatchesTheGlooReference();
    void contextParallelIsTheAnalysisAtAShareOfTheSequence_data();
    void contextParallelIsTheAnalysisAtAShareOfTheSequence();
    void contextParallelErrors();
    void allocationTraceHoldsTheBuffers();
};

void TestSequenceContext::sequenceParallelActivations_data()
{
    QTest::addColumn<qint64>("blocks");
    QTest::addColumn<int>("checkpointing");
    QTest::addColumn<bool>("sequenceParallel");
    QTest::addColumn<qulonglong>("expected");
    // The most activation bytes per sample alive at any moment (tst_parallelism works out the first
    // two rows): without checkpointing 1,312 n + 256 on one GPU (the last res, with down's output and
    // res's output alive, 128 B each). t = 2 without SP divides the Linears' bytes only: up 64, down
    // 256, down's output 64, so 992 n + 64 + 128. With SP every row is split (LayerNorm, GELU and Add
    // too; embed is a Linear), and every figure above is even, so each halves: ln 80 + up 64 + act 256
    // + down 256 = 656 per iteration, 656 n + 64 + 64 (Korthikanti et al.'s sbh(34/t + ...): all / t).
    // Per block: each iteration keeps only its input (128 B) and backward recomputes the last one
    // (1,440 B) with the network output (128) alive: 128 n + 128 + 1,440 on one GPU; t = 2 without SP
    // 128 n + 128 + 1,056 (tst_parallelism); with SP the kept inputs are sequence-sharded too (Megatron
    // checkpoints the sharded block input): 64 n + 64 + 720.
    const auto none = static_cast<int>(Checkpointing::None);
    const auto perBlock = static_cast<int>(Checkpointing::PerBlock);
    QTest::newRow("1 block, t = 2") << qint64 { 1 } << none << false << qulonglong { 992 + 192 };
    QTest::newRow("1 block, t = 2, SP") << qint64 { 1 } << none << true << qulonglong { 656 + 128 };
    QTest::newRow("4 blocks, t = 2, SP") << qint64 { 4 } << none << true << qulonglong { 2624 + 128 };
    QTest::newRow("per block, 4 blocks, t = 2")
        << qint64 { 4 } << perBlock << false << qulonglong { 512 + 128 + 1056 };
    QTest::newRow("per block, 4 blocks, t = 2, SP")
        << qint64 { 4 } << perBlock << true << qulonglong { 256 + 64 + 720 };
}

void TestSequenceContext::sequenceParallelActivations()
{
    QFETCH(qint64, blocks);
    QFETCH(int, checkpointing);
    QFETCH(bool, sequenceParallel);
    QFETCH(qulonglong, expected);
    const Analysis a = analyzed(transformerStack(blocks), static_cast<Checkpointing>(checkpointing));
    QVERIFY2(a.valid(), a.error ? a.error->message.c_str() : "");
    const auto model = MemoryModel::build(a, tensorParallel(2, sequenceParallel));
    QVERIFY2(model.ok(), model.ok() ? "" : model.error().message.c_str());
    QCOMPARE(peakActivationsPerSample(*model), std::uint64_t { expected });
    if (!sequenceParallel)
        return;
    // Moment by moment, sequence parallelism halves what one GPU keeps of every activation (all even).
    const auto one = MemoryModel::build(a, tensorParallel(1, false));
    QVERIFY(one.ok());
    QCOMPARE(model->timeline().moments().size(), one->timeline().moments().size());
    for (std::size_t i = 0; i < one->timeline().moments().size(); ++i) {
        QCOMPARE(model->timeline().moments()[i].perSample.activations,
            one->timeline().moments()[i].perSample.activations / 2);
        QCOMPARE(model->timeline().moments()[i].perSample.input, std::uint64_t { 128 }); // whole
    }
}

void TestSequenceContext::sequenceParallelBuffers()
{
    // transformerStack(2) at t = 2 with SP, batch 1 (all per sample; [4, 8] float32 = 128 B):
    // - the gather buffer: the column-parallel linears are embed (input: the network input, 128 B) and
    //   up (ln's output, 128 B); down takes act's output, split by features (row-parallel). The largest,
    //   128 B, is Megatron's global buffer, alive at every moment (the optimizer step's too);
    // - down (row-parallel) holds its whole output before the reduce-scatter, 128 B, in forward, and its
    //   output gradient gathered again, 128 B, in backward;
    // - up (column-parallel) holds its whole input gradient before the reduce-scatter in backward, 128 B;
    //   embed's input, the network input, gets no gradient.
    // Without SP: nothing.
    const Analysis a = analyzed(transformerStack(2), Checkpointing::None);
    QVERIFY(a.valid());
    const auto sp = MemoryModel::build(a, tensorParallel(2, true));
    const auto tp = MemoryModel::build(a, tensorParallel(2, false));
    QVERIFY(sp.ok() && tp.ok());
    int downMoments = 0;
    for (const auto& m : sp->timeline().moments()) {
        std::uint64_t expected = 128;
        const bool opMoment = m.phase != StepPhase::OptimizerStep && !m.afterOp && m.repeat == kNoStepOp;
        const std::string& row = a.rows[m.row].name;
        if (opMoment && row.ends_with(".down")) {
            expected += 128;
            ++downMoments;
        }
        if (opMoment && m.phase == StepPhase::Backward && row.ends_with(".up"))
            expected += 128;
        QCOMPARE(m.perSample.communication, expected);
        QCOMPARE(m.fixed.communication, std::uint64_t { 0 });
    }
    QCOMPARE(downMoments, 4); // two iterations' forward and backward
    for (const auto& m : tp->timeline().moments())
        QCOMPARE(m.perSample.communication + m.fixed.communication, std::uint64_t { 0 });
    // attentionModel() at t = 2: attn's QKV projection gathers attn's input [8, 8] float32 = 256 B per
    // sample; head's input is attn's output, whole again after the row-parallel output projection: also
    // 256. While attn runs forward, its whole output before the reduce-scatter: 256 more.
    Plan p = planOf(attentionModel(), 1);
    p.setup.parallel.gpus = 2;
    p.setup.parallel.tensorParallel = 2;
    p.setup.parallel.sequenceParallel = true;
    const PlanResult r = evaluate(p);
    QVERIFY2(r.memory, errorOf(r).c_str());
    QCOMPARE(r.analysis.rows[r.memory->timeline().moments()[0].row].name, std::string("attn"));
    QCOMPARE(r.memory->momentAt(0, 1).communication, std::uint64_t { 512 });
    QCOMPARE(r.memory->momentAt(0, 3).communication, std::uint64_t { 1536 });
}

void TestSequenceContext::sequenceParallelMatchesTheGlooReference()
{
    // tests/reference/parallel-references.md (issue 37's gloo measurements, torch 1.13): `sp_mlp_block`,
    // x + dropout(MLP(LN(x))) with s = 16, h = 32, f = 128, b = 2, float32, keeps 21,120 B per rank at
    // t = 2 and 10,560 at t = 4 (native dropout's bool mask, as on CUDA). Per sample one GPU keeps
    // 4 s h (LN's input) + 8 s (mean, rstd) + 4 s h (LN's output, the first Linear's input) + 8 s f
    // (GELU's input and output) + s h (the mask) = 2,048 + 128 + 2,048 + 16,384 + 512 = 21,120, so
    // b = 2 at t = 2 is 2 x 21,120 / 2: the measurement. At the end of the forward pass the block's
    // output (2,048, the network output here) is alive too: 23,168 / t per sample with SP.
    // Buffers per sample: the gathered input 4 s h = 2,048 (embed's and up's) and the reduce-scatter
    // input 4 s h = 2,048 (down's whole output), as measured.
    const Network n = network({ 16, 32 },
        { layer("Linear", { { "out_features", 32 } }, "embed"), layer("LayerNorm", {}, "ln"),
            layer("Linear", { { "out_features", 128 } }, "up"), layer("GELU", {}, "act"),
            layer("Linear", { { "out_features", 32 } }, "down"), layer("Dropout", { { "p", 0.1 } }, "drop"),
            layer("Add", {}, "res", { "drop", "embed" }) },
        Loss::None);
    const Analysis a = analyzed(n, Checkpointing::None);
    QVERIFY2(a.valid(), a.error ? a.error->message.c_str() : "");
    QCOMPARE(a.activationBytesPerSample, std::uint64_t { 21120 });
    for (const std::int64_t t : { 2, 4 }) {
        const auto model = MemoryModel::build(a, tensorParallel(t, true));
        QVERIFY(model.ok());
        const StepMoment& end = model->timeline().moments()[model->endOfForwardMoment()];
        QCOMPARE(end.perSample.activations, std::uint64_t { 23168 } / static_cast<std::uint64_t>(t));
        QCOMPARE(end.perSample.communication, std::uint64_t { 2048 });
        std::uint64_t most = 0;
        for (const auto& m : model->timeline().moments())
            most = std::max(most, m.perSample.communication);
        QCOMPARE(most, std::uint64_t { 4096 });
    }
}

void TestSequenceContext::contextParallelIsTheAnalysisAtAShareOfTheSequence_data()
{
    QTest::addColumn<int>("kind");
    QTest::addColumn<qulonglong>("forward");
    QTest::addColumn<qulonglong>("backward");
    // One rank runs T / c = 4 of the 8 positions. attn's local K and V are [4, 8] float32 (2 heads of
    // 4) = 128 B each per sample, Q and the attention output too.
    // Ring: forward 2 x (K + V) = 512 (the next block received while the current one is used);
    // backward 2 x (K + V) + 2 x (dK + dV) = 1,024.
    // All-to-all: Q + K + V + output = 512, forward and backward (dO, dQ, dK, dV).
    QTest::newRow("ring") << static_cast<int>(ContextParallelism::Ring) << qulonglong { 512 }
                          << qulonglong { 1024 };
    QTest::newRow("all-to-all") << static_cast<int>(ContextParallelism::AllToAll) << qulonglong { 512 }
                                << qulonglong { 512 };
}

void TestSequenceContext::contextParallelIsTheAnalysisAtAShareOfTheSequence()
{
    QFETCH(int, kind);
    QFETCH(qulonglong, forward);
    QFETCH(qulonglong, backward);
    const PlanResult cp = evaluate(planOf(attentionModel(), 2, static_cast<ContextParallelism>(kind)));
    Plan half = planOf(attentionModel(), 1);
    half.sequenceLength = 4;
    const PlanResult local = evaluate(half);
    QVERIFY2(cp.memory, errorOf(cp).c_str());
    QVERIFY2(local.memory, errorOf(local).c_str());
    QCOMPARE(cp.analysis.activationBytesPerSample, local.analysis.activationBytesPerSample);
    const auto& moments = cp.memory->timeline().moments();
    QCOMPARE(moments.size(), local.memory->timeline().moments().size());
    int attentionMoments = 0;
    for (std::size_t i = 0; i < moments.size(); ++i) {
        const StepMoment& m = moments[i];
        const StepMoment& l = local.memory->timeline().moments()[i];
        QCOMPARE(m.perSample.activations, l.perSample.activations);
        QCOMPARE(m.perSample.transient, l.perSample.transient);
        QCOMPARE(m.perSample.input, l.perSample.input);
        QCOMPARE(m.fixed.weights, l.fixed.weights);
        std::uint64_t expected = 0;
        if (m.phase != StepPhase::OptimizerStep && !m.afterOp && m.repeat == kNoStepOp
            && cp.analysis.rows[m.row].name == "attn") {
            expected = m.phase == StepPhase::Forward ? forward : backward;
            ++attentionMoments;
        }
        QCOMPARE(m.perSample.communication, l.perSample.communication + expected);
    }
    QCOMPARE(attentionMoments, 2); // attn's forward and its backward
    // Throughput: a rank's step is the analysis at 4 positions; the samples are split over the
    // data-parallel ranks only (2 GPUs / c = 2: one), and each sample is the whole 8 positions. Its
    // compute and memory traffic are the local analysis's; on top comes the communication this tiny
    // step cannot hide (docs/throughput.md, "Communication"): the context-parallel exchange, and the
    // gradients' all-reduce over the 2 context-parallel ranks, which hold the same weights.
    QVERIFY2(
        cp.throughput && local.throughput, cp.throughputError ? cp.throughputError->message.c_str() : "");
    QCOMPARE(cp.throughput->computeSeconds, local.throughput->computeSeconds);
    QCOMPARE(cp.throughput->memorySeconds, local.throughput->memorySeconds);
    QVERIFY(local.throughput->communication.empty());
    QCOMPARE(cp.throughput->communication.size(), std::size_t { 2 });
    QCOMPARE(cp.throughput->communication[0].kind, CommunicationKind::DataParallel);
    QCOMPARE(cp.throughput->communication[0].ranks, std::int64_t { 2 });
    QCOMPARE(cp.throughput->communication[1].kind, CommunicationKind::ContextParallel);
    QVERIFY(cp.throughput->communicationSeconds > 0);
    QCOMPARE(cp.throughput->stepSeconds, local.throughput->stepSeconds + cp.throughput->communicationSeconds);
    QCOMPARE(cp.throughput->samplesPerSecond * cp.throughput->stepSeconds,
        local.throughput->samplesPerSecond * local.throughput->stepSeconds);
    QCOMPARE(cp.throughput->sequenceLength, std::int64_t { 8 });
    QCOMPARE(local.throughput->sequenceLength, std::int64_t { 4 });
}

void TestSequenceContext::contextParallelErrors()
{
    // Each error names both settings: the context-parallel degree and the other one.
    Network image
        = network({ 3, 8, 8 }, { layer("Conv2d", { { "out_channels", 4 }, { "kernel_size", 3 } }) });
    image.name = "convnet";
    PlanResult r = evaluate(planOf(image, 2));
    QCOMPARE(errorOf(r),
        std::string("context parallel 2 splits the sequence; \"convnet\" has no sequence axis (its input is "
                    "not token ids [T] or features [T, E])"));
    QCOMPARE(r.error->location, std::string("parallel.context_parallel"));

    Network tokens = network({ 4096 },
        { layer("Embedding", { { "num_embeddings", 16 }, { "embedding_dim", 8 } }),
            layer("MultiheadAttention", { { "num_heads", 2 }, { "need_weights", false } }) },
        Loss::None, DType::Int64);
    r = evaluate(planOf(tokens, 3));
    QCOMPARE(errorOf(r), std::string("context parallel 3 must divide the sequence length 4,096"));
    Plan set = planOf(tokens, 3);
    set.sequenceLength = 301; // the plan's length, not the model's
    QCOMPARE(errorOf(evaluate(set)), std::string("context parallel 3 must divide the sequence length 301"));

    // Each rank looks up its own positions of all T: a position table must still hold T rows.
    Network gpt = network({ 8 },
        { layer("Embedding", { { "num_embeddings", 16 }, { "embedding_dim", 8 } }, "wte"),
            layer("PositionalEmbedding", { { "num_embeddings", 6 } }, "wpe"),
            layer("MultiheadAttention", { { "num_heads", 2 }, { "need_weights", false } }) },
        Loss::None, DType::Int64);
    QCOMPARE(errorOf(evaluate(planOf(gpt, 2))),
        std::string("context parallel 2 splits a sequence of 8 positions, more than layers[1] "
                    "(PositionalEmbedding \"wpe\") holds (num_embeddings 6)"));
    gpt.layers[1].attributes["num_embeddings"] = 8;
    QVERIFY2(evaluate(planOf(gpt, 2)).memory, errorOf(evaluate(planOf(gpt, 2))).c_str());

    Plan eager = planOf(attentionModel(), 2);
    eager.attention = AttentionImplementation::Eager;
    QCOMPARE(errorOf(evaluate(eager)),
        std::string(
            "context parallel 2 needs flash / SDPA attention (ring attention and Ulysses are built on "
            "its kernels), not attention \"eager\""));

    // All-to-all splits the heads: 4 ranks, 2 heads. Ring attention does not mind (8 / 4 positions).
    r = evaluate(planOf(attentionModel(2), 4, ContextParallelism::AllToAll));
    QCOMPARE(errorOf(r),
        std::string(
            "all-to-all context parallel 4 splits the attention heads: it must divide every attention "
            "layer's heads, and layers[0] (MultiheadAttention \"attn\") has num_heads 2"));
    QVERIFY2(evaluate(planOf(attentionModel(2), 4, ContextParallelism::Ring)).memory,
        errorOf(evaluate(planOf(attentionModel(2), 4, ContextParallelism::Ring))).c_str());
    QVERIFY(evaluate(planOf(attentionModel(4), 4, ContextParallelism::AllToAll)).memory);
    // Inside a Repeat block the layer's path says where.
    const Network blocks = network({ 8, 8 },
        { repeat("blocks", 2,
            { layer("MultiheadAttention", { { "num_heads", 2 }, { "need_weights", false } }, "attn") }) },
        Loss::None);
    QVERIFY(errorOf(evaluate(planOf(blocks, 4, ContextParallelism::AllToAll)))
                .ends_with("layers[0].layers[0] (MultiheadAttention \"attn\") has num_heads 2"));

    // MemoryModel::build refuses eager attention too (an analysis made without analyzePlan).
    AnalysisOptions o;
    o.attention = AttentionImplementation::Eager;
    TrainingSetup s = planOf(attentionModel(), 2).setup;
    const auto built = MemoryModel::build(analyze(attentionModel(2, 4), o), s);
    QVERIFY(!built.ok());
    QVERIFY(built.error().message.ends_with("not attention \"eager\""));
}

void TestSequenceContext::allocationTraceHoldsTheBuffers()
{
    // The caching allocator replays the same step: attentionModel() with c = 2 (ring), t = 2 and SP runs
    // 4 positions per rank, [4, 8] float32 = 128 B per sample for attn's input, Q, K, V and output.
    // - the gather buffer (before the first step, kept): the largest column-parallel input, attn's and
    //   head's, 128;
    // - attn forward: the larger of SP's whole output before the reduce-scatter (128) and ring's
    //   2 x (K + V) = 512 split with the heads over t = 2 (256): 256;
    // - attn backward: the larger of SP's gathered output gradient (128; its input, the network input,
    //   gets no gradient) and ring's 4 x (K + V) / t = 512: 512;
    // - head backward (column-parallel): its whole input gradient before the reduce-scatter, 128.
    Plan ring = planOf(attentionModel(), 2);
    ring.reservedModel = true;
    ring.setup.parallel.gpus = 4;
    ring.setup.parallel.tensorParallel = 2;
    ring.setup.parallel.sequenceParallel = true;
    const PlanResult r = evaluate(ring);
    QVERIFY2(r.reserved && r.reservedFigures, r.reservedError ? r.reservedError->message.c_str() : "");
    QVERIFY(r.reservedFigures->fits);
    std::vector<std::string> seen;
    for (const TraceEvent& e : r.reserved->trace().events()) {
        if (!e.allocate || e.kind != TraceKind::Communication || e.step > 1)
            continue;
        const std::string row = e.row == kNoTraceRow ? "-" : r.analysis.rows[e.row].name;
        seen.push_back(std::string(traceStageName(e.stage)) + " " + row + " "
            + std::to_string(e.bytes.perSample) + "+" + std::to_string(e.bytes.fixed));
    }
    const std::vector<std::string> expected { "setup - 128+0", "forward attn 256+0", "backward head 128+0",
        "backward attn 512+0" };
    QCOMPARE(seen, expected);
}

QTEST_APPLESS_MAIN(TestSequenceContext)
#include "tst_sequencecontext.moc"

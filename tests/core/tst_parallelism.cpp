// Set-up-level strategies: gradient accumulation, data parallelism (DDP buckets, ZeRO 1/2/3, FSDP),
// optimizer offload, tensor parallelism and 8-bit optimizer state. Every expected figure is worked out
// by hand in the comments or taken from the ZeRO paper / DeepSpeed's estimators (docs/multi-gpu.md).
#include "NetworkBuilder.h"
#include "headroom/estimate/Estimate.h"
#include "headroom/estimate/Plan.h"
#include "headroom/importers/HfConfig.h"

#include <QTest>

using namespace headroom;
using namespace headroom::test;

Q_DECLARE_METATYPE(headroom::Sharding)
Q_DECLARE_METATYPE(headroom::Optimizer)

namespace {

TrainingSetup setup(Optimizer o = Optimizer::Adam, std::int64_t gpus = 1, Sharding sharding = Sharding::None)
{
    TrainingSetup s;
    s.optimizer = o;
    // Fused kernels keep no parameter-sized temporaries, so a step holds exactly the model states (and
    // DeepSpeed's float32 gradient partition), as the papers and DeepSpeed's estimators count them.
    s.optimizerImplementation = OptimizerImplementation::Fused;
    s.batch = 1;
    s.overheadBytes = 0;
    s.parallel.gpus = gpus;
    s.parallel.sharding = sharding;
    return s;
}

/// The GPU memory the estimates below are on unless they name another.
constexpr std::uint64_t kGpuBytes = 80 * kGiB;

/// A model reduced to what the memory model reads: `params` trainable parameters in pure float16
/// (2 bytes each), no activations; optionally one layer of `largestLayer` parameters.
Analysis modelStates(std::uint64_t params, std::uint64_t largestLayer = 0)
{
    Analysis a;
    a.precision = Precision::Fp16;
    a.options.precision = Precision::Fp16;
    a.totalParams = params;
    a.trainableParams = params;
    a.parameterBytes = 2 * params;
    a.trainableParameterBytes = 2 * params;
    if (largestLayer > 0) {
        LayerRow row;
        row.name = "largest";
        row.type = "Linear";
        row.params = largestLayer;
        row.trainableParams = largestLayer;
        a.rows.push_back(row);
    }
    return a;
}

std::uint64_t modelStateBytes(const MemoryBreakdown& m)
{
    return m.weights + m.gradients + m.optimizerState;
}

/// The optimizer step at batch 1: weights, every gradient and the optimizer state as the step holds
/// them, and its own temporaries (transient).
MemoryBreakdown atStep(const MemoryModel& m)
{
    return m.momentAt(m.optimizerStepMoment(), 1);
}
/// The end of the forward pass at `batch`: what backward starts from, the gathered layers included.
MemoryBreakdown afterForward(const MemoryModel& m, std::int64_t batch = 1)
{
    return m.momentAt(m.endOfForwardMoment(), batch);
}
/// The most of one component that any moment of the step holds at batch 1.
std::uint64_t most(const MemoryModel& m, Component c)
{
    std::uint64_t best = 0;
    for (std::size_t i = 0; i < m.timeline().moments().size(); ++i)
        best = std::max(best, componentBytes(m.momentAt(i, 1), c));
    return best;
}
/// The most activation bytes per sample any moment of the step holds.
std::uint64_t peakActivationsPerSample(const MemoryModel& m)
{
    std::uint64_t best = 0;
    for (const auto& moment : m.timeline().moments())
        best = std::max(best, moment.perSample.activations);
    return best;
}

/// A transformer-like block on [4, 8] float32 (4 positions, width 8):
///   ln    LayerNorm        keeps its input x (128 B) + mean and rstd per position (4 x 2 x 4 = 32 B)
///   up    Linear(8 -> 32)  keeps its input, ln's output (128 B)
///   act   GELU             keeps its input, up's output (4 x 32 x 4 = 512 B)
///   down  Linear(32 -> 8)  keeps its input, act's output (512 B)
///   res   Add(down, x)     keeps nothing
/// Charged per iteration: ln 160 + up 128 + act 512 + down 512 = 1,312 B. Tensor parallel t = 2 (the
/// documented per-layer model: Linear layers split, LayerNorm, GELU and Add replicated) divides up's
/// and down's: 64 + 256 stay, 320 go, 992 per iteration on one GPU.
std::vector<LayerSpec> transformerBlock()
{
    return { layer("LayerNorm", {}, "ln"), layer("Linear", { { "out_features", 32 } }, "up"),
        layer("GELU", {}, "act"), layer("Linear", { { "out_features", 8 } }, "down"),
        layer("Add", {}, "res", { "down", "repeat_input" }) };
}

/// [4, 8] -> embed Linear(8 -> 8) (keeps the network input: nothing) -> `blocks` x transformerBlock().
Network transformerStack(std::int64_t blocks)
{
    const LayerSpec embed = layer("Linear", { { "out_features", 8 } }, "embed");
    return network({ 4, 8 }, { embed, repeat("blocks", blocks, transformerBlock()) }, Loss::None);
}

Analysis analyzed(const Network& n, Checkpointing c, Precision p = Precision::Fp32)
{
    AnalysisOptions o;
    o.precision = p;
    o.checkpointing = c;
    return analyze(n, o);
}

TrainingSetup tensorParallelSetup(std::int64_t t)
{
    auto s = setup(Optimizer::Adam, t);
    s.parallel.tensorParallel = t;
    return s;
}

/// Input [64] -> Linear(32) -> Linear(10): 64 x 32 + 32 = 2,080 and 32 x 10 + 10 = 330 parameters,
/// 2,410 in all; float32 Adam: weights 9,640, gradients 9,640, state 19,280 bytes.
Network twoLinears()
{
    return network(
        { 64 }, { layer("Linear", { { "out_features", 32 } }), layer("Linear", { { "out_features", 10 } }) });
}

} // namespace

class TestParallelism : public QObject
{
    Q_OBJECT
private slots:
    void zeroPaperFigure_data();
    void zeroPaperFigure();
    void sixteenBytesPerParameterOnOneGpu_data();
    void sixteenBytesPerParameterOnOneGpu();
    void deepSpeedOffloadEstimators();
    void stagesOnFourGpus_data();
    void stagesOnFourGpus();
    void shardsRoundUp();
    void ddpBucketsDoubleTheGradients();
    void offload_data();
    void offload();
    void tensorParallel();
    void tensorParallelWithDataParallel();
    void tensorParallelActivations_data();
    void tensorParallelActivations();
    void tensorParallelKeepsTheLargestBlockAfterTheSplit();
    void tensorParallelNestedCheckpointedBlocks();
    void tensorParallelCheckpointedLlama();
    void autocastCopiesOfGatheredLayers_data();
    void autocastCopiesOfGatheredLayers();
    void deepSpeedEstimatorsWithoutOffload();
    void deepSpeedSubGroupBoundsTheStage3Step();
    void optimizerStepPeakDecidesFit();
    void offloadNeedsZeroOrFsdp_data();
    void offloadNeedsZeroOrFsdp();
    void gradientsCostTrainableParameterBytes();
    void eightBitLargeLinear_data();
    void eightBitLargeLinear();
    void eightBitSmallTensorsStay32Bit();
    void eightBitWithZero();
    void accumulationKeepsGradientsBetweenMicroBatches();
    void fusedNeedsAFusedKernel_data();
    void fusedNeedsAFusedKernel();
    void validation_data();
    void validation();
    void planJsonHasTheSetup();
};

void TestParallelism::zeroPaperFigure_data()
{
    QTest::addColumn<Sharding>("sharding");
    QTest::addColumn<qulonglong>("atRest");
    QTest::addColumn<qulonglong>("duringStep");
    // Rajbhandari et al. 2020, Figure 1: Psi = 7.5B, N = 64, K = 12 (mixed-precision Adam), the model
    // state at rest (weights + gradients + optimizer state):
    // baseline (2 + 2 + K) Psi = 16 x 7.5e9 = 120 GB
    // P_os:   2 Psi + 2 Psi + K Psi / N = 30e9 + 90e9 / 64 = 30e9 + 1.40625e9 = 31.40625 GB (paper: 31.4)
    // P_os+g: 2 Psi + (2 + K) Psi / N = 15e9 + 105e9 / 64 = 15e9 + 1.640625e9 = 16.640625 GB (paper: 16.6)
    // P_os+g+p: (2 + 2 + K) Psi / N = 120e9 / 64 = 1.875 GB (paper: 1.88)
    // At the optimizer step DeepSpeed's ZeRO optimizers also convert each rank's fp16 gradient
    // partition to float32 (stage_1_and_2.py step(): single_grad_partition =
    // flatten(averaged_gradients).to(float32); stage3.py _prepare_fp32_grad_for_sub_group):
    // 4 Psi / N = 4 x 7.5e9 / 64 = 468,750,000 more (Psi / N = 117,187,500, below stage 3's 1e9
    // sub-group). FSDP and DDP step on what they hold.
    const qulonglong copy = 468'750'000;
    const qulonglong baseline = 120'000'000'000;
    const qulonglong os = 31'406'250'000;
    const qulonglong osG = 16'640'625'000;
    const qulonglong osGP = 1'875'000'000;
    // DDP's gradient buckets hold a second copy of every gradient for the whole run: 2 Psi more.
    QTest::newRow("baseline (DDP)") << Sharding::None << baseline << baseline + 15'000'000'000ULL;
    QTest::newRow("ZeRO-1 (P_os)") << Sharding::Zero1 << os << os + copy;
    QTest::newRow("ZeRO-2 (P_os+g)") << Sharding::Zero2 << osG << osG + copy;
    QTest::newRow("ZeRO-3 (P_os+g+p)") << Sharding::Zero3 << osGP << osGP + copy;
    QTest::newRow("FSDP shard-grad-op") << Sharding::FsdpShardGradOp << osG << osG;
    QTest::newRow("FSDP full-shard") << Sharding::FsdpFullShard << osGP << osGP;
}

void TestParallelism::zeroPaperFigure()
{
    QFETCH(Sharding, sharding);
    QFETCH(qulonglong, atRest);
    QFETCH(qulonglong, duringStep);
    const auto model = MemoryModel::build(modelStates(7'500'000'000), setup(Optimizer::Adam, 64, sharding));
    QVERIFY2(model.ok(), model.ok() ? "" : model.error().message.c_str());
    QCOMPARE(modelStateBytes(atStep(*model)), std::uint64_t { atRest });
    QCOMPARE(atStep(*model).total(), std::uint64_t { duringStep }); // overhead 0
    // What the step adds: DeepSpeed's float32 gradient partition (transient), or DDP's buckets.
    QCOMPARE(atStep(*model).transient + atStep(*model).communication, std::uint64_t { duringStep - atRest });
}

void TestParallelism::sixteenBytesPerParameterOnOneGpu_data()
{
    QTest::addColumn<Sharding>("sharding");
    // DeepSpeed / ZeRO paper: mixed-precision Adam costs 2 + 2 + 12 = 16 bytes per parameter; on one
    // GPU no stage has anything to shard with, and nothing is gathered or bucketed.
    for (const auto s : allShardings())
        QTest::newRow(std::string(shardingName(s)).c_str()) << s;
}

void TestParallelism::sixteenBytesPerParameterOnOneGpu()
{
    QFETCH(Sharding, sharding);
    const auto model
        = MemoryModel::build(modelStates(1'000'000'000, 50'000'000), setup(Optimizer::Adam, 1, sharding));
    QVERIFY(model.ok());
    QCOMPARE(modelStateBytes(atStep(*model)), std::uint64_t { 16'000'000'000 });
    QCOMPARE(most(*model, Component::Communication), std::uint64_t { 0 });
}

void TestParallelism::deepSpeedOffloadEstimators()
{
    // DeepSpeed's docs example: 13e9 parameters, largest layer 325e6, 8 GPUs.
    // estimate_zero2_model_states_mem_needs(cpu_offload=True): gpu_mem = 2 x total = 26e9.
    auto s = setup(Optimizer::Adam, 8, Sharding::Zero2);
    s.parallel.offloadOptimizer = true;
    const auto zero2 = MemoryModel::build(modelStates(13'000'000'000, 325'000'000), s);
    QVERIFY(zero2.ok());
    QCOMPARE(zero2->at(1)->total(), std::uint64_t { 26'000'000'000 });
    // estimate_zero3_model_states_mem_needs(cpu_offload=True, cpu_offload_params=False):
    // gpu_mem = 4 x largest + 2 x total / GPUs = 1.3e9 + 3.25e9 = 4.55e9.
    s.parallel.sharding = Sharding::Zero3;
    const auto zero3 = MemoryModel::build(modelStates(13'000'000'000, 325'000'000), s);
    QVERIFY(zero3.ok());
    // During forward and backward: the weight shards and the two gathered layers (the peak).
    QCOMPARE(afterForward(*zero3).weights, std::uint64_t { 3'250'000'000 });
    QCOMPARE(afterForward(*zero3).communication, std::uint64_t { 1'300'000'000 });
    QCOMPARE(zero3->at(1)->total(), std::uint64_t { 4'550'000'000 });
}

void TestParallelism::stagesOnFourGpus_data()
{
    QTest::addColumn<Sharding>("sharding");
    QTest::addColumn<qulonglong>("weights");
    QTest::addColumn<qulonglong>("gradients");
    QTest::addColumn<qulonglong>("state");
    QTest::addColumn<qulonglong>("communication");
    // twoLinears() in float32 with Adam on 4 GPUs: weights 9,640, gradients 9,640, state 19,280.
    // DDP buckets: another 9,640. Each stage divides one more of them by 4: 2,410 / 2,410 / 4,820.
    // ZeRO-3 gathers the largest layer (Linear(32): 2,080 float32 parameters = 8,320 bytes) twice
    // (the one in use and the prefetched next): 16,640.
    QTest::newRow("ddp") << Sharding::None << qulonglong { 9640 } << qulonglong { 9640 }
                         << qulonglong { 19280 } << qulonglong { 9640 };
    QTest::newRow("zero1") << Sharding::Zero1 << qulonglong { 9640 } << qulonglong { 9640 }
                           << qulonglong { 4820 } << qulonglong { 0 };
    QTest::newRow("zero2") << Sharding::Zero2 << qulonglong { 9640 } << qulonglong { 2410 }
                           << qulonglong { 4820 } << qulonglong { 0 };
    QTest::newRow("zero3") << Sharding::Zero3 << qulonglong { 2410 } << qulonglong { 2410 }
                           << qulonglong { 4820 } << qulonglong { 16640 };
    QTest::newRow("fsdp-shard-grad-op") << Sharding::FsdpShardGradOp << qulonglong { 9640 }
                                        << qulonglong { 2410 } << qulonglong { 4820 } << qulonglong { 0 };
    QTest::newRow("fsdp-full-shard") << Sharding::FsdpFullShard << qulonglong { 2410 } << qulonglong { 2410 }
                                     << qulonglong { 4820 } << qulonglong { 16640 };
}

void TestParallelism::stagesOnFourGpus()
{
    QFETCH(Sharding, sharding);
    QFETCH(qulonglong, weights);
    QFETCH(qulonglong, gradients);
    QFETCH(qulonglong, state);
    QFETCH(qulonglong, communication);
    const Analysis a = analyze(twoLinears(), Precision::Fp32);
    QCOMPARE(a.totalParams, std::uint64_t { 2410 });
    const auto one = MemoryModel::build(a, setup(Optimizer::Adam, 1));
    const auto m = MemoryModel::build(a, setup(Optimizer::Adam, 4, sharding));
    QVERIFY2(m.ok(), m.ok() ? "" : m.error().message.c_str());
    QCOMPARE(atStep(*m).weights, std::uint64_t { weights });
    QCOMPARE(atStep(*m).gradients, std::uint64_t { gradients });
    QCOMPARE(atStep(*m).optimizerState, std::uint64_t { state });
    QCOMPARE(afterForward(*m).communication, std::uint64_t { communication });
    // Data parallelism splits the batch across GPUs, not the sample: activations are as on one GPU.
    QCOMPARE(afterForward(*m, 8).activations, afterForward(*one, 8).activations);
    QCOMPARE(afterForward(*m, 8).input, afterForward(*one, 8).input);
}

void TestParallelism::shardsRoundUp()
{
    // 3 GPUs, ZeRO-3: each rank holds ceil(bytes / 3): weights and gradients ceil(9,640 / 3) = 3,214,
    // Adam state ceil(19,280 / 3) = 6,427.
    const auto m = MemoryModel::build(
        analyze(twoLinears(), Precision::Fp32), setup(Optimizer::Adam, 3, Sharding::Zero3));
    QVERIFY(m.ok());
    QCOMPARE(atStep(*m).weights, std::uint64_t { 3214 });
    QCOMPARE(atStep(*m).gradients, std::uint64_t { 3214 });
    QCOMPARE(atStep(*m).optimizerState, std::uint64_t { 6427 });
}

void TestParallelism::ddpBucketsDoubleTheGradients()
{
    const Analysis a = analyze(twoLinears(), Precision::Fp32);
    const auto single = estimate(a, setup(Optimizer::Sgd, 1), kGpuBytes);
    const auto ddp = estimate(a, setup(Optimizer::Sgd, 2), kGpuBytes);
    QVERIFY(single.ok() && ddp.ok());
    QCOMPARE(single->bytes.communication, std::uint64_t { 0 }); // one GPU: no Reducer
    QCOMPARE(ddp->bytes.communication, std::uint64_t { 9640 }); // 2,410 float32 gradients again
    QCOMPARE(ddp->total() - single->total(), std::uint64_t { 9640 });
}

void TestParallelism::offload_data()
{
    QTest::addColumn<Sharding>("sharding");
    QTest::addColumn<qulonglong>("weights");
    QTest::addColumn<qulonglong>("gradients");
    QTest::addColumn<qulonglong>("communication");
    // Psi = 1e6 pure float16 parameters on 4 GPUs with the optimizer (12 Psi) in CPU memory.
    // ZeRO-1 keeps 2 Psi weights and 2 Psi gradients; ZeRO-2 (ZeRO-Offload) also moves the gradient
    // partitions to the CPU; ZeRO-3 keeps Psi / 4 x 2 bytes of weights; FSDP keeps its sharded
    // gradients. (DDP has no optimizer offload: offloadNeedsZeroOrFsdp.)
    QTest::newRow("zero1") << Sharding::Zero1 << qulonglong { 2'000'000 } << qulonglong { 2'000'000 }
                           << qulonglong { 0 };
    QTest::newRow("zero2") << Sharding::Zero2 << qulonglong { 2'000'000 } << qulonglong { 0 }
                           << qulonglong { 0 };
    QTest::newRow("zero3") << Sharding::Zero3 << qulonglong { 500'000 } << qulonglong { 0 }
                           << qulonglong { 0 };
    QTest::newRow("fsdp-full-shard") << Sharding::FsdpFullShard << qulonglong { 500'000 }
                                     << qulonglong { 500'000 } << qulonglong { 0 };
}

void TestParallelism::offload()
{
    QFETCH(Sharding, sharding);
    QFETCH(qulonglong, weights);
    QFETCH(qulonglong, gradients);
    QFETCH(qulonglong, communication);
    auto s = setup(Optimizer::Adam, 4, sharding);
    s.parallel.offloadOptimizer = true;
    const auto model = MemoryModel::build(modelStates(1'000'000), s);
    QVERIFY(model.ok());
    QCOMPARE(atStep(*model).optimizerState, std::uint64_t { 0 });
    QCOMPARE(atStep(*model).weights, std::uint64_t { weights });
    QCOMPARE(atStep(*model).gradients, std::uint64_t { gradients });
    QCOMPARE(most(*model, Component::Communication), std::uint64_t { communication });
    // The optimizer steps in CPU memory: no float32 gradient partition or temporaries on the GPU.
    QCOMPARE(atStep(*model).transient, std::uint64_t { 0 });
}

void TestParallelism::tensorParallel()
{
    // Input [64] -> Linear(64) -> LayerNorm -> Linear(10), float32, cross-entropy.
    // Parameters: Linear 64 x 64 + 64 = 4,160; LayerNorm 2 x 64 = 128; Linear 64 x 10 + 10 = 650.
    // Kept per sample: LayerNorm its input (64 floats = 256 B) + mean and rstd (8 B) = 264; the second
    // Linear its input (the LayerNorm output, 256 B); the loss its log-softmax (10 floats = 40 B);
    // the first Linear keeps the network input (not an activation): 560 B in all.
    // Tensor parallel t = 2 on 2 GPUs: the Linears are split, the LayerNorm is replicated:
    // 2,080 + 128 + 325 = 2,533 parameters per GPU = 10,132 bytes; gradients the same; Adam 20,264;
    // activations 264 + 256 / 2 + 40 = 432 B per sample.
    const Network n = network({ 64 },
        { layer("Linear", { { "out_features", 64 } }), layer("LayerNorm"),
            layer("Linear", { { "out_features", 10 } }) });
    const Analysis a = analyze(n, Precision::Fp32);
    QVERIFY2(a.valid(), a.valid() ? "" : a.error->message.c_str());
    QCOMPARE(a.totalParams, std::uint64_t { 4938 });
    // (At the end of the forward pass exactly these are alive per sample: the logits were freed.)
    const auto one = MemoryModel::build(a, setup(Optimizer::Adam, 1));
    QVERIFY(one.ok());
    const auto perSample = [](const MemoryModel& m) {
        return afterForward(m, 2).activations - afterForward(m, 1).activations;
    };
    QCOMPARE(perSample(*one), std::uint64_t { 560 });

    auto s = setup(Optimizer::Adam, 2);
    s.parallel.tensorParallel = 2;
    const auto tp = MemoryModel::build(a, s);
    QVERIFY(tp.ok());
    QCOMPARE(atStep(*tp).weights, std::uint64_t { 10132 });
    QCOMPARE(atStep(*tp).gradients, std::uint64_t { 10132 });
    QCOMPARE(atStep(*tp).optimizerState, std::uint64_t { 20264 });
    QCOMPARE(
        most(*tp, Component::Communication), std::uint64_t { 0 }); // data-parallel degree 1: no DDP buckets
    QCOMPARE(perSample(*tp), std::uint64_t { 432 });
    QCOMPARE(afterForward(*tp).input, afterForward(*one).input); // every tensor-parallel rank sees the batch
}

void TestParallelism::tensorParallelWithDataParallel()
{
    // twoLinears() on 8 GPUs, t = 4: data-parallel degree 2. Per GPU: 2,080 / 4 + 330 / 4 rounded up
    // = 520 + 83 = 603 parameters = 2,412 bytes; ZeRO-2 on the 2 data-parallel ranks halves the
    // gradients (1,206) and the Adam state (4,824 / 2 = 2,412); the effective batch is batch x 2.
    auto s = setup(Optimizer::Adam, 8, Sharding::Zero2);
    s.parallel.tensorParallel = 4;
    s.batch = 16;
    const auto e = estimate(analyze(twoLinears(), Precision::Fp32), s, kGpuBytes);
    QVERIFY2(e.ok(), e.ok() ? "" : e.error().message.c_str());
    const auto m = MemoryModel::build(analyze(twoLinears(), Precision::Fp32), s);
    QCOMPARE(atStep(*m).weights, std::uint64_t { 2412 });
    QCOMPARE(atStep(*m).gradients, std::uint64_t { 1206 });
    QCOMPARE(atStep(*m).optimizerState, std::uint64_t { 2412 });
    QCOMPARE(e->effectiveBatch, std::int64_t { 32 });
}

void TestParallelism::tensorParallelActivations_data()
{
    QTest::addColumn<qint64>("blocks");
    QTest::addColumn<int>("checkpointing");
    QTest::addColumn<int>("t");
    QTest::addColumn<qulonglong>("expected");
    // The most activation bytes per sample alive at any moment of transformerStack(n)'s step.
    // Without checkpointing every iteration keeps 1,312 B (see transformerBlock()); the most is at the
    // last block's res, when down's output (128 B, kept by nobody, freed after res) and res's output
    // (128 B, the network output backward starts from) are alive too: 1,312 n + 256. With t = 2 an
    // iteration keeps 992 B and down's output is split (64): 992 n + 64 + 128.
    // Per block: each iteration keeps only its input (128 B, replicated); backward recomputes the last
    // iteration first, while every iteration's input and the network output (128) are alive: ln's
    // statistics 32 + its output 128 + up's 512 + act's 512 + down's 128 + res's recomputed output 128 =
    // 1,440 B: 128 n + 128 + 1,440. With t = 2 (ln's output charged to up and act's and down's outputs
    // to down, split): 32 + 64 + 512 + 256 + 64 + 128 = 1,056: 128 n + 128 + 1,056.
    const auto none = static_cast<int>(Checkpointing::None);
    const auto perBlock = static_cast<int>(Checkpointing::PerBlock);
    QTest::newRow("1 block, t = 1") << qint64 { 1 } << none << 1 << qulonglong { 1312 + 256 };
    QTest::newRow("1 block, t = 2") << qint64 { 1 } << none << 2 << qulonglong { 992 + 192 };
    QTest::newRow("4 blocks, t = 1") << qint64 { 4 } << none << 1 << qulonglong { 5248 + 256 };
    QTest::newRow("4 blocks, t = 2") << qint64 { 4 } << none << 2 << qulonglong { 3968 + 192 };
    QTest::newRow("per block, 1 block, t = 1")
        << qint64 { 1 } << perBlock << 1 << qulonglong { 128 + 128 + 1440 };
    QTest::newRow("per block, 1 block, t = 2")
        << qint64 { 1 } << perBlock << 2 << qulonglong { 128 + 128 + 1056 };
    QTest::newRow("per block, 4 blocks, t = 1")
        << qint64 { 4 } << perBlock << 1 << qulonglong { 512 + 128 + 1440 };
    QTest::newRow("per block, 4 blocks, t = 2")
        << qint64 { 4 } << perBlock << 2 << qulonglong { 512 + 128 + 1056 };
    QTest::newRow("per block, 24 blocks, t = 2")
        << qint64 { 24 } << perBlock << 2 << qulonglong { 3072 + 128 + 1056 };
}

void TestParallelism::tensorParallelActivations()
{
    QFETCH(qint64, blocks);
    QFETCH(int, checkpointing);
    QFETCH(int, t);
    QFETCH(qulonglong, expected);
    const Analysis a = analyzed(transformerStack(blocks), static_cast<Checkpointing>(checkpointing));
    QVERIFY2(a.valid(), a.error ? a.error->message.c_str() : "");
    const auto model = MemoryModel::build(a, tensorParallelSetup(t));
    QVERIFY2(model.ok(), model.ok() ? "" : model.error().message.c_str());
    QCOMPARE(peakActivationsPerSample(*model), std::uint64_t { expected });
    QCOMPARE(afterForward(*model).activations, afterForward(*model, 2).activations / 2); // nothing fixed
}

void TestParallelism::tensorParallelKeepsTheLargestBlockAfterTheSplit()
{
    // Two checkpointed blocks of different make-up on [4, 8] float32 after embed Linear(8 -> 8):
    //   a: 9 x GELU (replicated), each keeping its input: recomputed, all nine outputs are alive at g9
    //      (g9's is the iteration's output, held until the iteration's backward ends): 9 x 128 = 1,152.
    //   b: transformerBlock(): recomputed 1,440 B on one GPU, 1,056 B per GPU with t = 2.
    // Backward recomputes b first, while a's input (embed's output), b's input (g9's output) and the
    // network output are alive (3 x 128); then a, with only its input left (128).
    // One GPU: max(384 + 1,440, 128 + 1,152) = 1,824. t = 2: max(384 + 1,056, 1,280) = 1,440.
    // (The analysis's per-sample figure, kept + the largest recomputed iteration's saved bytes, is
    // 256 + 1,184 = 1,440.)
    std::vector<LayerSpec> gelus;
    for (int i = 1; i <= 9; ++i)
        gelus.push_back(layer("GELU", {}, "g" + std::to_string(i)));
    const Network n = network({ 4, 8 },
        { layer("Linear", { { "out_features", 8 } }, "embed"), repeat("a", 1, gelus),
            repeat("b", 1, transformerBlock()) },
        Loss::None);
    const Analysis a = analyzed(n, Checkpointing::PerBlock);
    QVERIFY2(a.valid(), a.error ? a.error->message.c_str() : "");
    QCOMPARE(a.activationBytesPerSample, std::uint64_t { 1440 });
    QCOMPARE(
        peakActivationsPerSample(*MemoryModel::build(a, tensorParallelSetup(1))), std::uint64_t { 1824 });
    const auto tp = MemoryModel::build(a, tensorParallelSetup(2));
    QVERIFY(tp.ok());
    QCOMPARE(peakActivationsPerSample(*tp), std::uint64_t { 1440 });
}

void TestParallelism::tensorParallelNestedCheckpointedBlocks()
{
    // Only a marked Repeat inside an unmarked one is checkpointed: embed -> outer x 2 [blocks x 2
    // (checkpoint) [transformerBlock()]]: four iterations, as transformerStack(4) per block:
    // 4 x 128 + 128 + 1,440 = 2,080 B on one GPU, 4 x 128 + 128 + 1,056 = 1,696 B per GPU with t = 2.
    LayerSpec marked = repeat("blocks", 2, transformerBlock());
    marked.checkpoint = true;
    const Network inner = network({ 4, 8 },
        { layer("Linear", { { "out_features", 8 } }, "embed"), repeat("outer", 2, { marked }) }, Loss::None);
    const Analysis a = analyzed(inner, Checkpointing::PerBlock);
    QVERIFY2(a.valid(), a.error ? a.error->message.c_str() : "");
    QCOMPARE(a.activationBytesPerSample, std::uint64_t { 1696 });
    QCOMPARE(
        peakActivationsPerSample(*MemoryModel::build(a, tensorParallelSetup(1))), std::uint64_t { 2080 });
    QCOMPARE(
        peakActivationsPerSample(*MemoryModel::build(a, tensorParallelSetup(2))), std::uint64_t { 1696 });

    // A Repeat inside a checkpointed iteration belongs to it: blocks x 3 [ln, mlp x 2 [up, act, down]].
    // Per iteration: ln keeps the iteration's input (kept, 128) and its statistics (32); each mlp
    // iteration's up keeps 128 (ln's or the previous down's output), act 512, down 512. The analysis:
    // recomputed 32 + 2 x 1,152 = 2,336, kept 3 inputs x 128 = 384: 2,720 B.
    // The step: backward recomputes the last iteration while the three inputs and the network output
    // (128) are alive: ln 128 + 32, then up 512, act 512, down 128 twice, every one kept or held:
    // 512 + 160 + 2 x 1,152 = 2,976 B. With t = 2: up's inputs (ln's output, the first down's) and
    // the act outputs that down keeps are charged to split layers, and so is the last down's output
    // (the network output: nobody keeps it): 384 + 64 + [64 + 32 + 2 x (512 + 256) + 64 + 64] = 2,208.
    const Network nested = network({ 4, 8 },
        { layer("Linear", { { "out_features", 8 } }, "embed"),
            repeat("blocks", 3,
                { layer("LayerNorm", {}, "ln"),
                    repeat("mlp", 2,
                        { layer("Linear", { { "out_features", 32 } }, "up"), layer("GELU", {}, "act"),
                            layer("Linear", { { "out_features", 8 } }, "down") }) }) },
        Loss::None);
    const Analysis b = analyzed(nested, Checkpointing::PerBlock);
    QVERIFY2(b.valid(), b.error ? b.error->message.c_str() : "");
    QCOMPARE(b.activationBytesPerSample, std::uint64_t { 2720 });
    QCOMPARE(
        peakActivationsPerSample(*MemoryModel::build(b, tensorParallelSetup(1))), std::uint64_t { 2976 });
    QCOMPARE(
        peakActivationsPerSample(*MemoryModel::build(b, tensorParallelSetup(2))), std::uint64_t { 2208 });
}

void TestParallelism::tensorParallelCheckpointedLlama()
{
    // Llama-2-7B, amp-bf16, 2,048 tokens, per-block checkpointing. Each of the 32 decoder layers keeps
    // its input, the float32 residual stream [2048, 4096] = 32 MiB, replicated on every
    // tensor-parallel rank: at least 32 x 32 MiB = 1 GiB per sample on every GPU, whatever t.
    auto imported = importHfConfigFile(HEADROOM_TEST_SOURCE_DIR "/tests/data/hf/Llama-2-7b-hf.json");
    QVERIFY2(imported.ok(), imported.ok() ? "" : imported.error().message.c_str());
    auto n = withSequenceLength(imported.value(), 2048);
    QVERIFY(n.ok());
    const Analysis a = analyzed(n.value(), Checkpointing::PerBlock, Precision::AmpBf16);
    QVERIFY2(a.valid(), a.error ? a.error->message.c_str() : "");
    const auto one = MemoryModel::build(a, tensorParallelSetup(1));
    QVERIFY(one.ok());
    std::uint64_t previous = peakActivationsPerSample(*one);
    for (const std::int64_t t : { 2, 8 }) {
        const auto tp = MemoryModel::build(a, tensorParallelSetup(t));
        QVERIFY(tp.ok());
        const std::uint64_t bytes = peakActivationsPerSample(*tp);
        QVERIFY2(bytes >= 32 * 32 * kMiB, std::to_string(bytes).c_str());
        QVERIFY2(bytes < previous, std::to_string(bytes).c_str()); // the split layers' share does shrink
        previous = bytes;
    }
}

void TestParallelism::autocastCopiesOfGatheredLayers_data()
{
    QTest::addColumn<Sharding>("sharding");
    QTest::addColumn<qlonglong>("gpus");
    QTest::addColumn<qlonglong>("tensorParallel");
    QTest::addColumn<qulonglong>("weights");
    QTest::addColumn<qulonglong>("communication");
    // Input [64] -> 3 x Linear(64) -> Linear(10), amp-bf16: float32 parameters 3 x 4,160 + 650 = 13,130
    // (52,520 bytes); autocast caches a bf16 copy of all of them, 26,260 bytes.
    // DDP / ZeRO-2 on 4 GPUs: weights unsharded 52,520 + every copy 26,260 = 78,780.
    // ZeRO-3 / FSDP full shard on 4 GPUs: 52,520 / 4 = 13,130 of float32 shard; a layer's full weights
    // (and so its half copy) exist only while it is gathered: the largest, 4,160, twice (in use +
    // prefetched) in bf16 = 16,640; weights 29,770. The gathered float32 layers: 2 x 4,160 x 4 = 33,280.
    // One GPU: nothing is gathered, every copy stays: 13,130 x 4 + 26,260 = 78,780.
    // ZeRO-3 with t = 2 on 8 GPUs (N = 4): each rank holds half of every Linear: 2,080 x 3 + 325 = 6,565
    // parameters, 26,260 bytes, sharded 4 ways: 6,565; its copies 13,130 bytes, of which the gathered
    // largest (2,080) twice in bf16: 8,320. Weights 14,885; gathered 2 x 2,080 x 4 = 16,640.
    QTest::newRow("ddp") << Sharding::None << 4LL << 1LL << qulonglong { 78780 } << qulonglong { 52520 };
    QTest::newRow("zero2") << Sharding::Zero2 << 4LL << 1LL << qulonglong { 78780 } << qulonglong { 0 };
    QTest::newRow("zero3") << Sharding::Zero3 << 4LL << 1LL << qulonglong { 29770 } << qulonglong { 33280 };
    QTest::newRow("fsdp-full-shard") << Sharding::FsdpFullShard << 4LL << 1LL << qulonglong { 29770 }
                                     << qulonglong { 33280 };
    QTest::newRow("zero3, one GPU") << Sharding::Zero3 << 1LL << 1LL << qulonglong { 78780 }
                                    << qulonglong { 0 };
    QTest::newRow("zero3, t = 2") << Sharding::Zero3 << 8LL << 2LL << qulonglong { 14885 }
                                  << qulonglong { 16640 };
}

void TestParallelism::autocastCopiesOfGatheredLayers()
{
    QFETCH(Sharding, sharding);
    QFETCH(qlonglong, gpus);
    QFETCH(qlonglong, tensorParallel);
    QFETCH(qulonglong, weights);
    QFETCH(qulonglong, communication);
    const LayerSpec wide = layer("Linear", { { "out_features", 64 } });
    const Network n = network({ 64 }, { wide, wide, wide, layer("Linear", { { "out_features", 10 } }) });
    const Analysis a = analyze(n, Precision::AmpBf16);
    QVERIFY2(a.valid(), a.error ? a.error->message.c_str() : "");
    QCOMPARE(a.totalParams, std::uint64_t { 13130 });
    QCOMPARE(a.autocastWeightCopyBytes, std::uint64_t { 26260 });
    auto s = setup(Optimizer::Adam, gpus, sharding);
    s.parallel.tensorParallel = tensorParallel;
    const auto model = MemoryModel::build(a, s);
    QVERIFY2(model.ok(), model.ok() ? "" : model.error().message.c_str());
    // The most any moment holds: every copy is alive at the end of the forward pass's last layer.
    QCOMPARE(most(*model, Component::Weights), std::uint64_t { weights });
    QCOMPARE(most(*model, Component::Communication), std::uint64_t { communication });
}

void TestParallelism::deepSpeedEstimatorsWithoutOffload()
{
    // Psi = 13e9, largest layer L = 325e6 (DeepSpeed's docs example), pure fp16 + Adam, 8 GPUs.
    const std::uint64_t psi = 13'000'000'000;
    const std::uint64_t largest = 325'000'000;
    const auto estimateOn = [&](Sharding s, std::int64_t gpus) {
        return MemoryModel::build(modelStates(psi, largest), setup(Optimizer::Adam, gpus, s));
    };

    // estimate_zero2_model_states_mem_needs(cpu_offload=False): 4 Psi + int(16 Psi / N)
    // = 52e9 + 26e9 = 78e9: the fp16 weights, the fp16 gradients counted whole, and per rank the
    // float32 master weights, Adam's two states and the float32 gradient partition (4 + 8 + 4).
    const std::uint64_t deepSpeedZero2 = 4 * psi + 16 * psi / 8;
    QCOMPARE(deepSpeedZero2, std::uint64_t { 78'000'000'000 });
    const auto zero2 = estimateOn(Sharding::Zero2, 8);
    QVERIFY(zero2.ok());
    // Headroom at the optimizer step: 2 Psi + 2 Psi / N + 12 Psi / N = 26e9 + 3.25e9 + 19.5e9 = 48.75e9,
    // + the float32 gradient partition 4 Psi / N = 6.5e9: 55.25e9 = 2 Psi + 18 Psi / N.
    QCOMPARE(modelStateBytes(atStep(*zero2)), std::uint64_t { 48'750'000'000 });
    QCOMPARE(atStep(*zero2).transient, std::uint64_t { 6'500'000'000 });
    QCOMPARE(atStep(*zero2).total(), std::uint64_t { 55'250'000'000 });
    // Deliberate difference: stage 2 reduce-scatters the fp16 gradients in buckets during backward and
    // keeps only its own partition (grads_in_partition, 2 Psi / N), where the estimator counts all of
    // them (2 Psi): DeepSpeed - Headroom = 2 Psi - 2 Psi / N = 26e9 - 3.25e9 = 22.75e9.
    QCOMPARE(deepSpeedZero2 - atStep(*zero2).total(), 2 * psi - 2 * psi / 8);
    QCOMPARE(deepSpeedZero2 - atStep(*zero2).total(), std::uint64_t { 22'750'000'000 });
    // Stage 1 does hold every fp16 gradient: its step is exactly the stage-2 estimator's figure,
    // 2 Psi + 2 Psi + (12 + 4) Psi / N = 78e9.
    const auto zero1 = estimateOn(Sharding::Zero1, 8);
    QVERIFY(zero1.ok());
    QCOMPARE(atStep(*zero1).total(), deepSpeedZero2);

    // estimate_zero3_model_states_mem_needs(cpu_offload=False): 4 L + int(18 Psi / N). On 16 GPUs
    // (Psi / N = 812.5e6, one sub-group): 1.3e9 + 14.625e9 = 15.925e9.
    const std::uint64_t deepSpeedZero3 = 4 * largest + 18 * psi / 16;
    QCOMPARE(deepSpeedZero3, std::uint64_t { 15'925'000'000 });
    const auto zero3 = estimateOn(Sharding::Zero3, 16);
    QVERIFY(zero3.ok());
    // Headroom while forward runs: (2 + 12) Psi / N + two gathered fp16 layers 4 L = 11.375e9 + 1.3e9
    // = 12.675e9 (no gradients yet). The estimator's 18 = 2 (fp16 weights) + 16 (master, Adam, float32
    // gradients) has no room for the fp16 gradient partition DeepSpeed keeps (grad_partitions_flat_buffer,
    // 2 Psi / N) and counts the float32 gradient (4 Psi / N), which exists only during the step.
    QCOMPARE(afterForward(*zero3).total(), std::uint64_t { 12'675'000'000 });
    // At the step the gathered layers are released and the fp16 gradient partition and its float32
    // copy exist: 20 Psi / N = 16.25e9, which is DeepSpeed's figure + 2 Psi / N - 4 L
    // = 15.925e9 + 0.325e9. It is the peak.
    QCOMPARE(atStep(*zero3).total(), std::uint64_t { 16'250'000'000 });
    QCOMPARE(atStep(*zero3).total() - deepSpeedZero3, 2 * psi / 16 - 4 * largest);
    QCOMPARE(zero3->at(1)->total(), std::uint64_t { 16'250'000'000 });
}

void TestParallelism::deepSpeedSubGroupBoundsTheStage3Step()
{
    // ZeRO-3 converts one sub-group (sub_group_size, 1e9 elements by default) at a time. Psi = 13e9 on
    // 8 GPUs: a 1.625e9-element partition, so the float32 copy is 4 x 1e9 = 4e9, not 6.5e9. The step:
    // 16 Psi / N + 4e9 = 26e9 + 4e9 = 30e9.
    const Analysis states = modelStates(13'000'000'000, 325'000'000);
    const auto zero3 = MemoryModel::build(states, setup(Optimizer::Adam, 8, Sharding::Zero3));
    QVERIFY(zero3.ok());
    QCOMPARE(atStep(*zero3).transient, std::uint64_t { 4'000'000'000 });
    QCOMPARE(atStep(*zero3).total(), std::uint64_t { 30'000'000'000 });
    // Stage 2 converts its whole partition: 4 x 1.625e9 = 6.5e9 (deepSpeedEstimatorsWithoutOffload).
    // Autocast (float32 parameters) has no fp16 gradient to convert: no step copy.
    Analysis a = states;
    a.precision = Precision::AmpFp16;
    a.options.precision = Precision::AmpFp16;
    a.parameterBytes = a.trainableParameterBytes = 4 * a.totalParams;
    const auto amp = MemoryModel::build(a, setup(Optimizer::Adam, 8, Sharding::Zero3));
    QVERIFY(amp.ok());
    QCOMPARE(atStep(*amp).transient, std::uint64_t { 0 });
}

void TestParallelism::optimizerStepPeakDecidesFit()
{
    // ZeRO-2 on 8 GPUs, Psi = 13e9 pure fp16, no activations: the optimizer step holds 55.25e9
    // (deepSpeedEstimatorsWithoutOffload); forward and backward hold less. A 50e9-byte GPU cannot hold
    // the step: the plan does not fit, no batch fits, and the shortfall is 5.25e9.
    constexpr std::uint64_t kSmallGpu = 50'000'000'000;
    auto s = setup(Optimizer::Adam, 8, Sharding::Zero2);
    const auto e = estimate(modelStates(13'000'000'000), s, kSmallGpu);
    QVERIFY2(e.ok(), e.ok() ? "" : e.error().message.c_str());
    QCOMPARE(e->total(), std::uint64_t { 55'250'000'000 });
    QCOMPARE(e->peak.phase, StepPhase::OptimizerStep);
    QCOMPARE(e->optimizerStepBytes, std::uint64_t { 55'250'000'000 });
    QVERIFY(!e->fits);
    QCOMPARE(e->maxBatch, std::int64_t { 0 });
    QCOMPARE(e->headroomBytes(), -5'250'000'000.0);
    // With 56e9 bytes it fits; FSDP's SHARD_GRAD_OP makes no float32 copy: its step holds 48.75e9.
    QVERIFY(estimate(modelStates(13'000'000'000), s, 56'000'000'000)->fits);
    s.parallel.sharding = Sharding::FsdpShardGradOp;
    const auto fsdp = estimate(modelStates(13'000'000'000), s, kSmallGpu);
    QVERIFY(fsdp.ok() && fsdp->fits);
    QCOMPARE(fsdp->total(), std::uint64_t { 48'750'000'000 });
}

void TestParallelism::offloadNeedsZeroOrFsdp_data()
{
    QTest::addColumn<Sharding>("sharding");
    QTest::addColumn<qlonglong>("gpus");
    QTest::addColumn<bool>("accepted");
    // DeepSpeed offers offload_optimizer with ZeRO stages 1-3 (ZeRO-Offload also on one GPU); FSDP has
    // CPUOffload. Plain PyTorch, alone or under DDP, has no optimizer offload.
    QTest::newRow("ddp, 4 GPUs") << Sharding::None << 4LL << false;
    QTest::newRow("one GPU, no sharding") << Sharding::None << 1LL << false;
    QTest::newRow("zero1, 4 GPUs") << Sharding::Zero1 << 4LL << true;
    QTest::newRow("zero2, one GPU") << Sharding::Zero2 << 1LL << true;
    QTest::newRow("fsdp-shard-grad-op") << Sharding::FsdpShardGradOp << 4LL << true;
}

void TestParallelism::offloadNeedsZeroOrFsdp()
{
    QFETCH(Sharding, sharding);
    QFETCH(qlonglong, gpus);
    QFETCH(bool, accepted);
    auto s = setup(Optimizer::Adam, gpus, sharding);
    s.parallel.offloadOptimizer = true;
    const auto problem = validateSetup(s);
    QCOMPARE(!problem.has_value(), accepted);
    const auto e = estimate(analyze(twoLinears(), Precision::Fp32), s, kGpuBytes);
    QCOMPARE(e.ok(), accepted);
    if (!accepted) {
        QCOMPARE(e.error().location, std::string("parallel.offload_optimizer"));
        const std::string& message = e.error().message;
        QVERIFY2(message.find("needs DeepSpeed ZeRO") != std::string::npos, message.c_str());
    }
}

void TestParallelism::gradientsCostTrainableParameterBytes()
{
    // 1,000 trainable float32-counted parameters whose tensors are bf16 (2,000 bytes, as QLoRA's
    // adapters): gradients have their parameters' dtype, 2,000 bytes; the Adam state stays
    // 2 x 4 bytes per element = 8,000.
    Analysis a;
    a.totalParams = 1000;
    a.trainableParams = 1000;
    a.parameterBytes = 2000;
    a.trainableParameterBytes = 2000;
    const auto model = MemoryModel::build(a, setup(Optimizer::Adam));
    QVERIFY(model.ok());
    QCOMPARE(atStep(*model).gradients, std::uint64_t { 2000 });
    QCOMPARE(atStep(*model).optimizerState, std::uint64_t { 8000 });
    // Without trainableParameterBytes, the precision's parameter type: 4 x 1,000.
    a.trainableParameterBytes = 0;
    QCOMPARE(atStep(*MemoryModel::build(a, setup(Optimizer::Adam))).gradients, std::uint64_t { 4000 });
}

void TestParallelism::eightBitLargeLinear_data()
{
    QTest::addColumn<Optimizer>("optimizer");
    QTest::addColumn<qulonglong>("state");
    // Linear(4096 -> 4096, no bias): one 16,777,216-element weight, 8,192 blocks of 2,048.
    // Each 8-bit state: 16,777,216 uint8 + 8,192 float32 absmax = 16,777,216 + 32,768 = 16,809,984.
    QTest::newRow("adam: 2 states") << Optimizer::Adam << qulonglong { 2 * 16'809'984ULL };
    QTest::newRow("adamw: 2 states") << Optimizer::AdamW << qulonglong { 2 * 16'809'984ULL };
    QTest::newRow("momentum: 1 state") << Optimizer::Momentum << qulonglong { 16'809'984 };
    QTest::newRow("rmsprop: 1 state") << Optimizer::RMSprop << qulonglong { 16'809'984 };
    QTest::newRow("adagrad: 1 state") << Optimizer::Adagrad << qulonglong { 16'809'984 };
}

void TestParallelism::eightBitLargeLinear()
{
    QFETCH(Optimizer, optimizer);
    QFETCH(qulonglong, state);
    const Network n
        = network({ 4096 }, { layer("Linear", { { "out_features", 4096 }, { "bias", false } }) }, Loss::None);
    const Analysis a = analyze(n, Precision::Fp32);
    QCOMPARE(a.trainableParams, std::uint64_t { 16'777'216 });
    auto s = setup(optimizer);
    s.eightBitOptimizer = true;
    const auto model = MemoryModel::build(a, s);
    QVERIFY2(model.ok(), model.ok() ? "" : model.error().message.c_str());
    QCOMPARE(atStep(*model).optimizerState, std::uint64_t { state });
    // 8-bit state touches neither the weights nor the gradients (4 x 16,777,216 each).
    QCOMPARE(atStep(*model).weights, std::uint64_t { 67'108'864 });
    QCOMPARE(atStep(*model).gradients, std::uint64_t { 67'108'864 });
}

void TestParallelism::eightBitSmallTensorsStay32Bit()
{
    // Tensors of 4,095 and 4,096 elements with Adam: below min_8bit_size (4,096) the state stays
    // float32: 2 x 4 x 4,095 = 32,760; at 4,096 it is 8-bit: 2 x (4,096 + 2 blocks x 4) = 8,208.
    Analysis a;
    a.totalParams = 8191;
    a.trainableParams = 8191;
    a.parameterBytes = 4 * 8191;
    a.trainableParameterBytes = 4 * 8191;
    a.trainableTensorElements = { 4095, 4096 };
    auto s = setup(Optimizer::Adam);
    s.eightBitOptimizer = true;
    const auto model = MemoryModel::build(a, s);
    QVERIFY(model.ok());
    QCOMPARE(atStep(*model).optimizerState, std::uint64_t { 32760 + 8208 });
    // Pure half keeps its float32 master weights (4 x 8,191 = 32,764) next to the 8-bit state.
    a.precision = Precision::Bf16;
    a.options.precision = Precision::Bf16;
    QCOMPARE(atStep(*MemoryModel::build(a, s)).optimizerState, std::uint64_t { 32760 + 8208 + 32764 });
}

void TestParallelism::eightBitWithZero()
{
    // The 4096 x 4096 Linear with 8-bit Adam under ZeRO-1 on 4 GPUs: 33,619,968 / 4 = 8,404,992.
    const Network n
        = network({ 4096 }, { layer("Linear", { { "out_features", 4096 }, { "bias", false } }) }, Loss::None);
    auto s = setup(Optimizer::Adam, 4, Sharding::Zero1);
    s.eightBitOptimizer = true;
    const auto model = MemoryModel::build(analyze(n, Precision::Fp32), s);
    QVERIFY(model.ok());
    QCOMPARE(atStep(*model).optimizerState, std::uint64_t { 8'404'992 });
}

void TestParallelism::accumulationKeepsGradientsBetweenMicroBatches()
{
    // twoLinears() with fused Adam under ZeRO-2 on 4 GPUs, batch 8 (per sample: the input 256 B + an
    // 8-byte label; fc1's output 128 B, kept by fc2; the logits 40 B; log_softmax's output 40 B, kept).
    // Constant: weights 9,640, Adam 19,280 / 4 = 4,820: 14,460 + 264 B. One micro-batch: the peak is
    // fc1's backward, when every gradient has been made (9,640 / 4 = 2,410 kept per rank) and fc1's
    // output gradient (128 B) and fc2's saved input (128 B) and the 4-byte loss the training loop holds
    // are alive: 16,874 + 392 B = 20,010 at B = 8.
    // (fc2's backward holds 14,790 + 560 B: 19,270.)
    // With 16 micro-batches, later ones run with the gradients (2,410) allocated, and each backward
    // computes its parameters' full gradients into a temporary before they are reduced into them:
    // fc1's 8,320 B: 25,194 + 392 B = 28,330 at B = 8.
    const Analysis a = analyze(twoLinears(), Precision::Fp32);
    auto s = setup(Optimizer::Adam, 4, Sharding::Zero2);
    s.batch = 8;
    const auto once = estimate(a, s, 64 * kMiB);
    s.accumulationSteps = 16;
    const auto accumulated = estimate(a, s, 64 * kMiB);
    QVERIFY(once.ok() && accumulated.ok());
    QCOMPARE(once->total(), std::uint64_t { 20'010 });
    QCOMPARE(accumulated->total(), std::uint64_t { 28'330 });
    QVERIFY(accumulated->peak.laterMicroBatch);
    // For large batches fc2's backward binds (560 B per sample): (64 MiB - 14,790) / 560 = 119,810.8
    // for one micro-batch, (64 MiB - 14,790 - 2,410 - 1,320 of fc2's gradient temporary) / 560
    // = 119,804.8 with accumulation.
    QCOMPARE(once->maxBatch, std::int64_t { 119'810 });
    QCOMPARE(accumulated->maxBatch, std::int64_t { 119'804 });
    // Samples per optimizer step: micro-batch 8 x 16 steps x 4 data-parallel GPUs = 512.
    QCOMPARE(once->effectiveBatch, std::int64_t { 32 });
    QCOMPARE(accumulated->effectiveBatch, std::int64_t { 512 });
    QCOMPARE(accumulated->maxEffectiveBatch, accumulated->maxBatch * 64);
}

void TestParallelism::validation_data()
{
    QTest::addColumn<qlonglong>("steps");
    QTest::addColumn<qlonglong>("gpus");
    QTest::addColumn<qlonglong>("tensorParallel");
    QTest::addColumn<Optimizer>("optimizer");
    QTest::addColumn<bool>("eightBit");
    QTest::addColumn<QString>("location");
    QTest::addColumn<QString>("message");
    QTest::newRow("no steps") << 0LL << 1LL << 1LL << Optimizer::Adam << false << "accumulation_steps"
                              << "accumulation steps must be from 1";
    QTest::newRow("negative steps") << -3LL << 1LL << 1LL << Optimizer::Adam << false << "accumulation_steps"
                                    << "not -3";
    QTest::newRow("no GPUs") << 1LL << 0LL << 1LL << Optimizer::Adam << false << "parallel.gpus"
                             << "GPU count must be from 1";
    QTest::newRow("too many GPUs") << 1LL << qlonglong { kMaxGpus + 1 } << 1LL << Optimizer::Adam << false
                                   << "parallel.gpus"
                                   << "GPU count must be from 1";
    QTest::newRow("tp 0") << 1LL << 8LL << 0LL << Optimizer::Adam << false << "parallel.tensor_parallel"
                          << "tensor-parallel degree must be from 1";
    QTest::newRow("tp > gpus") << 1LL << 2LL << 4LL << Optimizer::Adam << false << "parallel.tensor_parallel"
                               << "tensor-parallel degree must be from 1 to the GPU count (2)";
    QTest::newRow("tp not dividing") << 1LL << 8LL << 3LL << Optimizer::Adam << false
                                     << "parallel.tensor_parallel"
                                     << "tensor-parallel degree 3 must divide the GPU count 8";
    QTest::newRow("8-bit sgd") << 1LL << 1LL << 1LL << Optimizer::Sgd << true << "eight_bit_optimizer"
                               << "SGD keeps none";
    QTest::newRow("8-bit adamax") << 1LL << 1LL << 1LL << Optimizer::Adamax << true << "eight_bit_optimizer"
                                  << "not available for Adamax";
    QTest::newRow("8-bit nesterov") << 1LL << 1LL << 1LL << Optimizer::Nesterov << true
                                    << "eight_bit_optimizer"
                                    << "not available for SGD with Nesterov momentum";
}

void TestParallelism::validation()
{
    QFETCH(qlonglong, steps);
    QFETCH(qlonglong, gpus);
    QFETCH(qlonglong, tensorParallel);
    QFETCH(Optimizer, optimizer);
    QFETCH(bool, eightBit);
    QFETCH(QString, location);
    QFETCH(QString, message);
    auto s = setup(optimizer, gpus);
    s.accumulationSteps = steps;
    s.parallel.tensorParallel = tensorParallel;
    s.eightBitOptimizer = eightBit;
    const auto e = estimate(analyze(twoLinears(), Precision::Fp32), s, kGpuBytes);
    QVERIFY(!e.ok());
    QCOMPARE(QString::fromStdString(e.error().location), location);
    QVERIFY2(QString::fromStdString(e.error().message).contains(message), e.error().message.c_str());
    QVERIFY(validateSetup(s).has_value());
    QVERIFY(!sweep(analyze(twoLinears(), Precision::Fp32), s, 1, 4).ok());
}

void TestParallelism::fusedNeedsAFusedKernel_data()
{
    // torch.optim 2.x: fused=True exists for SGD (with or without momentum), Adam, AdamW (and AMSGrad);
    // RMSprop, Adadelta and Adamax have none, and Adagrad's is CPU-only: constructing them with
    // fused=True on CUDA raises. bitsandbytes' 8-bit kernels and DeepSpeed's optimizers are not torch.optim.
    QTest::addColumn<Optimizer>("optimizer");
    QTest::addColumn<bool>("eightBit");
    QTest::addColumn<Sharding>("sharding");
    QTest::addColumn<bool>("accepted");
    QTest::newRow("adam") << Optimizer::Adam << false << Sharding::None << true;
    QTest::newRow("amsgrad") << Optimizer::AdamAmsgrad << false << Sharding::None << true;
    QTest::newRow("nesterov") << Optimizer::Nesterov << false << Sharding::None << true;
    QTest::newRow("rmsprop") << Optimizer::RMSprop << false << Sharding::None << false;
    QTest::newRow("adagrad") << Optimizer::Adagrad << false << Sharding::None << false;
    QTest::newRow("adadelta under fsdp") << Optimizer::Adadelta << false << Sharding::FsdpFullShard << false;
    QTest::newRow("adamax") << Optimizer::Adamax << false << Sharding::None << false;
    QTest::newRow("8-bit rmsprop") << Optimizer::RMSprop << true << Sharding::None << true;
    QTest::newRow("rmsprop under zero-2") << Optimizer::RMSprop << false << Sharding::Zero2 << true;
}

void TestParallelism::fusedNeedsAFusedKernel()
{
    QFETCH(Optimizer, optimizer);
    QFETCH(bool, eightBit);
    QFETCH(Sharding, sharding);
    QFETCH(bool, accepted);
    auto s = setup(optimizer, 4, sharding);
    s.eightBitOptimizer = eightBit;
    s.optimizerImplementation = OptimizerImplementation::Fused;
    const auto problem = validateSetup(s);
    QCOMPARE(!problem.has_value(), accepted);
    if (problem) {
        QCOMPARE(problem->location, std::string("optimizer_implementation"));
        QVERIFY2(
            problem->message.find("no fused " + std::string(optimizerLabel(optimizer))) != std::string::npos,
            problem->message.c_str());
        s.optimizerImplementation = OptimizerImplementation::Foreach;
        QVERIFY(!validateSetup(s).has_value());
    }
}

void TestParallelism::planJsonHasTheSetup()
{
    Plan plan;
    plan.network = twoLinears();
    plan.setup = setup(Optimizer::Adam, 8, Sharding::Zero3);
    plan.setup.batch = 4;
    plan.setup.accumulationSteps = 3;
    plan.setup.parallel.tensorParallel = 2;
    plan.setup.parallel.offloadOptimizer = true;
    plan.gpu.name = "test";
    plan.gpu.memoryBytes = 80 * kGiB;
    const auto j = planToJson(plan, evaluate(plan));
    QVERIFY2(!j.contains("error"), j.dump().c_str());
    QCOMPARE(j["accumulation_steps"].get<std::int64_t>(), std::int64_t { 3 });
    QCOMPARE(j["effective_batch"].get<std::int64_t>(), std::int64_t { 4 * 3 * 4 }); // 4 data-parallel ranks
    QCOMPARE(j["max_effective_batch"].get<std::int64_t>(), j["max_batch"].get<std::int64_t>() * 12);
    QCOMPARE(j["parallel"]["gpus"].get<std::int64_t>(), std::int64_t { 8 });
    QCOMPARE(j["parallel"]["sharding"].get<std::string>(), std::string("zero3"));
    QCOMPARE(j["parallel"]["tensor_parallel"].get<std::int64_t>(), std::int64_t { 2 });
    QCOMPARE(j["parallel"]["data_parallel"].get<std::int64_t>(), std::int64_t { 4 });
    QVERIFY(j["parallel"]["offload_optimizer"].get<bool>());
    QVERIFY(!j["eight_bit_optimizer"].get<bool>());
    QCOMPARE(j["checkpointing"].get<std::string>(), std::string("none"));
    QCOMPARE(j["attention"].get<std::string>(), std::string("sdpa"));
    QCOMPARE(j["lora"]["rank"].get<std::int64_t>(), std::int64_t { 0 });
    QVERIFY(j["sequence_length"].is_null());
    QVERIFY(j["bytes"].contains("communication"));
    QCOMPARE(j["bytes"]["optimizer_state"].get<std::uint64_t>(), std::uint64_t { 0 });
}

QTEST_APPLESS_MAIN(TestParallelism)
#include "tst_parallelism.moc"

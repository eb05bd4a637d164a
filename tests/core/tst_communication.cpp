// Communication in the throughput model (docs/throughput.md, "Communication"): each parallelism's bytes
// and seconds per optimizer step worked out by hand from NCCL's bus-bandwidth conventions (nccl-tests,
// PERFORMANCE.md: all-reduce 2(n-1)/n of the buffer, all-gather, reduce-scatter and all-to-all (n-1)/n),
// the link a group spans, what compute hides, and the GPU catalogue's link figures.
#include "CatalogueGpus.h"
#include "NetworkBuilder.h"
#include "headroom/estimate/Throughput.h"
#include "headroom/importers/HfConfig.h"
#include "headroom/model/ModelFile.h"
#include "headroom/planner/ClusterPlanner.h"

#include <QTest>
#include <cmath>

using namespace headroom;
using namespace headroom::test;

namespace {

/// H100 SXM5: NVLink 4, 900 GB/s both ways per GPU = 450 each way; fp32 67 TFLOPS, 3,350 GB/s.
Gpu h100()
{
    return catalogueGpu("H100 SXM5 80GB");
}

/// A hand-made analysis: `params` fp32 parameters, all trainable, `forward` and `backward` FLOPs per
/// sample, no step graph (so no tensor-parallel, context or expert exchanges).
Analysis handAnalysis(std::uint64_t params, std::uint64_t forward, std::uint64_t backward)
{
    Analysis a;
    a.precision = Precision::Fp32;
    a.options.precision = Precision::Fp32;
    a.totalParams = params;
    a.trainableParams = params;
    a.parameterBytes = params * 4;
    a.trainableParameterBytes = a.parameterBytes;
    a.forwardFlopsPerSample = forward;
    a.backwardFlopsPerSample = backward;
    return a;
}

TrainingSetup setupOn(std::int64_t gpus, std::int64_t micro = 1, std::int64_t steps = 1)
{
    TrainingSetup s;
    s.optimizer = Optimizer::Adam;
    s.batch = micro;
    s.accumulationSteps = steps;
    s.parallel.gpus = gpus;
    return s;
}

bool near(double actual, double expected, double tolerance = 1e-6)
{
    return std::abs(actual - expected) <= tolerance * std::abs(expected);
}

QString describe(double actual, double expected)
{
    return QStringLiteral("got %1, expected %2").arg(actual, 0, 'g', 12).arg(expected, 0, 'g', 12);
}

#define VERIFY_NEAR(actual, expected)                                                                        \
    QVERIFY2(near((actual), (expected)), qPrintable(describe((actual), (expected))))

const CommunicationTerm* find(const ThroughputEstimate& t, CommunicationKind kind)
{
    for (const CommunicationTerm& c : t.communication)
        if (c.kind == kind)
            return &c;
    return nullptr;
}

Network loaded(Result<Network> n)
{
    if (!n)
        qFatal("cannot load a test network: %s", n.error().message.c_str());
    return n.value();
}

Analysis analyzed(const Network& n, Precision p)
{
    AnalysisOptions o;
    o.precision = p;
    Analysis a = analyze(n, o);
    if (!a.valid())
        qFatal("analysis failed: %s", a.error->message.c_str());
    return a;
}

// The model of most cases: 100,000,000 fp32 parameters (400,000,000 B of gradients), 1e10 forward and 2e10
// backward FLOPs per sample. On an H100 SXM at 40 % of 67 TFLOPS (2.68e13 FLOP/s) one sample computes in
// 3e10 / 2.68e13 = 1.119403e-3 s (backward 2e10 / 2.68e13 = 7.462687e-4 s); its memory traffic, at most
// 2 x 4e8 + 4e8 + 2 x 8e8 (Adam) = 2.8e9 B / 3.35e12 B/s = 8.36e-4 s, is less: compute-bound.
constexpr std::uint64_t kParams = 100'000'000;
constexpr double kCompute = 3e10 / 2.68e13;
constexpr double kBackward = 2e10 / 2.68e13;

} // namespace

class TestCommunication : public QObject
{
    Q_OBJECT
private slots:
    void catalogueLinks();
    void pcieRates();
    void catalogueRejectsBadLinks();
    void singleGpuHasNone();
    void ddpWithinNode();
    void ddpAcrossNodes();
    void dataParallelBehindTensorParallelAcrossNodes();
    void zero3MovesHalfAsMuchAgain();
    void zero2ReducesEveryMicroBatch();
    void pipelineSendsBoundaries();
    void pipelineBubbleLeavesDataParallelAlone();
    void tensorParallelGpt2();
    void contextParallelRingAndUlysses();
    void expertParallelAllToAll();
    void unknownLinkAssumesPcie();
    void setupRejectsBadInterconnect();
    void plannerPaysForTensorParallelAcrossNodes();
};

void TestCommunication::catalogueLinks()
{
    // NVIDIA datasheets: NVLink per GPU, both directions: P100 SXM2 160, V100 SXM2 300, A100 SXM4 600,
    // H100/H200 SXM 900 GB/s; each way half. PCIe cards: their generation's x16 rate.
    QCOMPARE(catalogueGpu("H100 SXM5 80GB").linkGBps, 450.0);
    QCOMPARE(catalogueGpu("H200 SXM 141GB").linkGBps, 450.0);
    QCOMPARE(catalogueGpu("A100 SXM4 80GB").linkGBps, 300.0);
    QCOMPARE(catalogueGpu("V100 SXM2 32GB").linkGBps, 150.0);
    QCOMPARE(catalogueGpu("P100 SXM2 16GB").linkGBps, 80.0);
    QCOMPARE(catalogueGpu("H100 PCIe 80GB").linkGBps, 63.0); // PCIe 5.0 x16
    QCOMPARE(catalogueGpu("A100 PCIe 80GB").linkGBps, 31.5); // PCIe 4.0 x16
    QCOMPARE(catalogueGpu("GTX 1080").linkGBps, 15.75); // PCIe 3.0 x16
    QCOMPARE(catalogueGpu("RTX 4060 Ti 16GB").linkGBps, 15.75); // PCIe 4.0 x8
    QCOMPARE(catalogueGpu("H100 SXM5 80GB").pcieGeneration, 5);
    QCOMPARE(catalogueGpu("T4").pcieGeneration, 3);
    QCOMPARE(catalogueGpu("MI250X").linkGBps, 0.0); // unknown: the model assumes PCIe
    QCOMPARE(catalogueGpu("MI250X").pcieGeneration, 4);
    // Every GPU of the catalogue states its host link.
    for (const Gpu& g : catalogue().gpus())
        QVERIFY2(g.pcieGeneration >= 3, g.name.c_str());
}

void TestCommunication::pcieRates()
{
    // 8 GT/s x 16 lanes x 128/130 / 8 bits = 15.75 GB/s; each generation since doubles it.
    QCOMPARE(pcieX16GBps(3), 15.75);
    QCOMPARE(pcieX16GBps(4), 31.5);
    QCOMPARE(pcieX16GBps(5), 63.0);
    QCOMPARE(pcieX16GBps(0), 0.0);
    QCOMPARE(pcieX16GBps(9), 0.0);
}

void TestCommunication::catalogueRejectsBadLinks()
{
    const auto withEntry = [](const std::string& extra) {
        return GpuCatalog::fromJson(R"({"format": "headroom-gpus", "gpus": [{"name": "X", "vendor": "V",
            "family": "F", "memory_bytes": 1024, "bandwidth_gbps": 1, "fp32_tflops": 1)"
            + extra + "}]}");
    };
    QVERIFY(withEntry(""));
    QCOMPARE(withEntry("")->gpus()[0].linkGBps, 0.0);
    QCOMPARE(withEntry(R"(, "link_gbps": 12.5, "pcie_gen": 4)")->gpus()[0].linkGBps, 12.5);
    const auto negative = withEntry(R"(, "link_gbps": -1)");
    QVERIFY(!negative);
    QCOMPARE(negative.error().location, std::string("gpus[0].link_gbps"));
    const auto generation = withEntry(R"(, "pcie_gen": 7)");
    QVERIFY(!generation);
    QCOMPARE(generation.error().location, std::string("gpus[0].pcie_gen"));
    QVERIFY(!withEntry(R"(, "pcie_gen": "4")"));
}

void TestCommunication::singleGpuHasNone()
{
    const auto t
        = estimateThroughput(handAnalysis(kParams, 10'000'000'000, 20'000'000'000), setupOn(1), h100());
    QVERIFY(t);
    QVERIFY(t->communication.empty());
    QCOMPARE(t->communicationSeconds, 0.0);
    VERIFY_NEAR(t->stepSeconds, kCompute);
}

void TestCommunication::ddpWithinNode()
{
    // The brief's example first: 1,000,000 fp32 parameters on 8 GPUs of a node at 450 GB/s:
    // 2 x 7/8 x 4e6 B = 7e6 B in 7e6 / 450e9 = 1.5556e-5 s.
    {
        const auto t = estimateThroughput(handAnalysis(1'000'000, 1, 2), setupOn(8), h100());
        QVERIFY(t);
        const CommunicationTerm* dp = find(*t, CommunicationKind::DataParallel);
        QVERIFY(dp);
        QCOMPARE(dp->collective, std::string("all-reduce"));
        QCOMPARE(dp->ranks, std::int64_t { 8 });
        QVERIFY(!dp->crossesNodes);
        VERIFY_NEAR(dp->bytes, 4e6);
        VERIFY_NEAR(dp->busBytes, 7e6);
        VERIFY_NEAR(dp->seconds, 7e6 / 450e9);
    }
    // The 100M model: 2 x 7/8 x 4e8 = 7e8 B in 7e8 / 4.5e11 = 1.555556e-3 s, overlapped with the backward
    // pass (7.462687e-4 s): 8.092869e-4 s exposed, added to the compute time.
    const auto t
        = estimateThroughput(handAnalysis(kParams, 10'000'000'000, 20'000'000'000), setupOn(8), h100());
    QVERIFY(t);
    QCOMPARE(t->communication.size(), std::size_t { 1 });
    const CommunicationTerm& dp = t->communication[0];
    VERIFY_NEAR(dp.busBytes, 7e8);
    VERIFY_NEAR(dp.seconds, 7e8 / 4.5e11);
    VERIFY_NEAR(dp.overlapSeconds, kBackward);
    VERIFY_NEAR(dp.exposedSeconds, 7e8 / 4.5e11 - kBackward);
    VERIFY_NEAR(t->communicationSeconds, 8.092869e-4);
    VERIFY_NEAR(t->stepSeconds, kCompute + 8.092869e-4);
    // 8 GPUs x 1 sample per step.
    VERIFY_NEAR(t->samplesPerSecond, 8.0 / (kCompute + 8.092869e-4));
    QVERIFY(!dp.perMicroBatch);
}

void TestCommunication::ddpAcrossNodes()
{
    // 16 GPUs, 8 per node: the data-parallel ring spans 2 nodes with 8 of its GPUs on each, which drive 8
    // GPUs' share of the network, 8 x 50 = 400 GB/s, below NVLink's 450: 2 x 15/16 x 4e8 = 7.5e8 B in
    // 7.5e8 / 4e11 = 1.875e-3 s, 1.875e-3 - 7.462687e-4 = 1.128731e-3 s exposed.
    const auto t
        = estimateThroughput(handAnalysis(kParams, 10'000'000'000, 20'000'000'000), setupOn(16), h100());
    QVERIFY(t);
    const CommunicationTerm* dp = find(*t, CommunicationKind::DataParallel);
    QVERIFY(dp);
    QVERIFY(dp->crossesNodes);
    VERIFY_NEAR(dp->busBytes, 7.5e8);
    VERIFY_NEAR(dp->seconds, 1.875e-3);
    VERIFY_NEAR(dp->exposedSeconds, 1.128731e-3);
    QVERIFY(std::any_of(t->notes.begin(), t->notes.end(),
        [](const std::string& n) { return n.find("50 GB/s per GPU between nodes") != std::string::npos; }));
    // A slower network: --inter-node-gbps 12.5 (one 100 Gb/s adapter per GPU): 8 x 12.5 = 100 GB/s,
    // 7.5e8 / 1e11 = 7.5e-3 s.
    TrainingSetup slow = setupOn(16);
    slow.interNodeGBps = 12.5;
    const auto s = estimateThroughput(handAnalysis(kParams, 10'000'000'000, 20'000'000'000), slow, h100());
    QVERIFY(s);
    VERIFY_NEAR(find(*s, CommunicationKind::DataParallel)->seconds, 7.5e-3);
    // The same 16 GPUs all in one node (gpusPerNode 16): NVLink, 7.5e8 / 4.5e11.
    TrainingSetup big = setupOn(16);
    big.gpusPerNode = 16;
    const auto b = estimateThroughput(handAnalysis(kParams, 10'000'000'000, 20'000'000'000), big, h100());
    QVERIFY(b);
    QVERIFY(!find(*b, CommunicationKind::DataParallel)->crossesNodes);
    VERIFY_NEAR(find(*b, CommunicationKind::DataParallel)->seconds, 7.5e8 / 4.5e11);
}

void TestCommunication::dataParallelBehindTensorParallelAcrossNodes()
{
    // 16 GPUs, TP 8 within each node: each data-parallel pair (ranks r and r + 8) has one GPU per node,
    // so its ring runs over that GPU's own 50 GB/s. Each GPU holds 4e8 / 8 = 5e7 B of gradients:
    // 2 x 1/2 x 5e7 = 5e7 B in 5e7 / 5e10 = 1e-3 s; backward per GPU 2e10 / 8 / 2.68e13 = 9.328358e-5 s,
    // so 9.067164e-4 s exposed. (The hand analysis has no step graph: no tensor-parallel exchanges, and
    // no split of its optimizer state: plain SGD, without state, keeps the step compute-bound.)
    TrainingSetup s = setupOn(16);
    s.optimizer = Optimizer::Sgd;
    s.parallel.tensorParallel = 8;
    const auto t = estimateThroughput(handAnalysis(kParams, 10'000'000'000, 20'000'000'000), s, h100());
    QVERIFY2(t, t ? "" : t.error().message.c_str());
    const CommunicationTerm* dp = find(*t, CommunicationKind::DataParallel);
    QVERIFY(dp);
    QCOMPARE(dp->ranks, std::int64_t { 2 });
    QVERIFY(dp->crossesNodes);
    VERIFY_NEAR(dp->busBytes, 5e7);
    VERIFY_NEAR(dp->seconds, 1e-3);
    VERIFY_NEAR(dp->exposedSeconds, 9.067164e-4);
}

void TestCommunication::zero3MovesHalfAsMuchAgain()
{
    // ZeRO-3 (Rajbhandari et al. 2020, section 7): all-gather the weights in forward and again in
    // backward, reduce-scatter the gradients: 3 x 4e8 x 7/8 = 1.05e9 B, 1.5 x DDP's 7e8, in
    // 1.05e9 / 4.5e11 = 2.333333e-3 s, overlapped with forward and backward (1.119403e-3 s):
    // 1.213930e-3 s exposed.
    TrainingSetup s = setupOn(8);
    s.parallel.sharding = Sharding::Zero3;
    const auto t = estimateThroughput(handAnalysis(kParams, 10'000'000'000, 20'000'000'000), s, h100());
    QVERIFY(t);
    const CommunicationTerm* dp = find(*t, CommunicationKind::DataParallel);
    QVERIFY(dp);
    VERIFY_NEAR(dp->busBytes, 1.05e9);
    VERIFY_NEAR(dp->busBytes / 7e8, 1.5);
    VERIFY_NEAR(dp->seconds, 2.333333e-3);
    VERIFY_NEAR(dp->exposedSeconds, 1.213930e-3);
    // FSDP FULL_SHARD the same.
    s.parallel.sharding = Sharding::FsdpFullShard;
    const auto f = estimateThroughput(handAnalysis(kParams, 10'000'000'000, 20'000'000'000), s, h100());
    QVERIFY(f);
    VERIFY_NEAR(find(*f, CommunicationKind::DataParallel)->busBytes, 1.05e9);
    // ZeRO-1 moves DDP's volume: reduce-scatter + all-gather, 7/8 x (4e8 + 4e8) = 7e8 B.
    s.parallel.sharding = Sharding::Zero1;
    const auto z1 = estimateThroughput(handAnalysis(kParams, 10'000'000'000, 20'000'000'000), s, h100());
    QVERIFY(z1);
    VERIFY_NEAR(find(*z1, CommunicationKind::DataParallel)->busBytes, 7e8);
}

void TestCommunication::zero2ReducesEveryMicroBatch()
{
    // ZeRO-2 keeps only its shard of the gradients, so with 4 micro-batches it reduce-scatters four
    // times and gathers the weights once: 7/8 x (4 x 4e8 + 4e8) = 1.75e9 B, behind 4 backward passes
    // (2.985075e-3 s): 1.75e9 / 4.5e11 = 3.888889e-3 s, 9.038142e-4 s exposed. DDP with the same 4
    // micro-batches reduces once, during the last backward: 7e8 B, 8.092869e-4 s exposed as before.
    TrainingSetup s = setupOn(8, 1, 4);
    s.parallel.sharding = Sharding::Zero2;
    const auto t = estimateThroughput(handAnalysis(kParams, 10'000'000'000, 20'000'000'000), s, h100());
    QVERIFY(t);
    const CommunicationTerm* dp = find(*t, CommunicationKind::DataParallel);
    VERIFY_NEAR(dp->busBytes, 1.75e9);
    VERIFY_NEAR(dp->overlapSeconds, 4 * kBackward);
    VERIFY_NEAR(dp->exposedSeconds, 3.888889e-3 - 2.985075e-3);
    s.parallel.sharding = Sharding::None;
    const auto d = estimateThroughput(handAnalysis(kParams, 10'000'000'000, 20'000'000'000), s, h100());
    QVERIFY(d);
    VERIFY_NEAR(find(*d, CommunicationKind::DataParallel)->busBytes, 7e8);
    VERIFY_NEAR(find(*d, CommunicationKind::DataParallel)->exposedSeconds, 8.092869e-4);
}

void TestCommunication::pipelineSendsBoundaries()
{
    // A middle stage of 2 receiving and sending 1,000 B per sample, micro-batch 2, 4 micro-batches: per
    // micro-batch (1,000 + 1,000) x 2 = 4,000 B (each send paired with the opposite receive on a
    // full-duplex link), 16,000 B per step, at 450 GB/s 3.555556e-8 s, none of it hidden.
    const Analysis a = handAnalysis(1000, 1000, 2000);
    TrainingSetup s = setupOn(2, 2, 4);
    s.parallel.pipelineParallel = 2;
    s.pipelineStage = PipelineStageRole { 0, 1000, 1000 };
    const auto terms = communicationTerms(a, s, interconnectOf(h100(), s), ComputeWindows {});
    const auto pipe = std::find_if(terms.begin(), terms.end(),
        [](const CommunicationTerm& c) { return c.kind == CommunicationKind::Pipeline; });
    QVERIFY(pipe != terms.end());
    VERIFY_NEAR(pipe->bytes, 16000);
    VERIFY_NEAR(pipe->seconds, 16000 / 450e9);
    QCOMPARE(pipe->exposedSeconds, pipe->seconds);
    QVERIFY(pipe->perMicroBatch);
    // One GPU per node: the boundary crosses the network, 16,000 / 50e9 = 3.2e-7 s.
    s.gpusPerNode = 1;
    const auto far = communicationTerms(a, s, interconnectOf(h100(), s), ComputeWindows {});
    const auto farPipe = std::find_if(far.begin(), far.end(),
        [](const CommunicationTerm& c) { return c.kind == CommunicationKind::Pipeline; });
    QVERIFY(farPipe->crossesNodes);
    VERIFY_NEAR(farPipe->seconds, 3.2e-7);
    // Tensor parallelism 2 (Megatron's scatter/gather: each rank sends half), interleaved with v = 2
    // (the stages are crossed twice as often): 16,000 x 2 / 2 = 16,000 B again.
    s.gpusPerNode = 8;
    s.parallel.gpus = 4;
    s.parallel.tensorParallel = 2;
    s.parallel.schedule = PipelineSchedule::Interleaved;
    s.parallel.virtualStages = 2;
    const auto both = communicationTerms(a, s, interconnectOf(h100(), s), ComputeWindows {});
    const auto bothPipe = std::find_if(both.begin(), both.end(),
        [](const CommunicationTerm& c) { return c.kind == CommunicationKind::Pipeline; });
    VERIFY_NEAR(bothPipe->bytes, 16000);
}

void TestCommunication::pipelineBubbleLeavesDataParallelAlone()
{
    // A step of 1 s compute, 0.2 s exposed per-micro-batch communication and 0.3 s exposed data-parallel
    // communication, with a bubble of 0.5: (1 + 0.2) x 1.5 + 0.3 = 2.1 s; the rates fall by 1.5 / 2.1.
    ThroughputEstimate t;
    t.computeSeconds = 1.0;
    CommunicationTerm tp;
    tp.exposedSeconds = 0.2;
    tp.perMicroBatch = true;
    CommunicationTerm dp;
    dp.exposedSeconds = 0.3;
    dp.perMicroBatch = false;
    t.communication = { tp, dp };
    t.communicationSeconds = 0.5;
    t.stepSeconds = 1.5;
    t.samplesPerSecond = 10.0;
    applyPipelineBubble(t, 0.5);
    VERIFY_NEAR(t.stepSeconds, 2.1);
    VERIFY_NEAR(t.computeSeconds, 1.5);
    VERIFY_NEAR(t.samplesPerSecond, 10.0 * 1.5 / 2.1);
}

void TestCommunication::tensorParallelGpt2()
{
    // GPT-2 small (h = 768, 12 layers) at 1,024 tokens in amp-bf16, TP 2, one micro-batch of 1. Megatron's
    // exchanges (Narayanan et al. 2021, section 3.2), as the analysis's layers give them:
    // - forward, the g all-reduces of the row-parallel outputs: attn.c_proj and mlp.c_proj per layer,
    //   bf16 [1024, 768]: 2 x 1,572,864 B x 12 = 37,748,736 B; and the vocabulary-parallel token
    //   embedding's fp32 output, 3,145,728 B (the position embedding is not split);
    // - backward, the f all-reduces of the column-parallel inputs' gradients: ln_1's and ln_2's outputs
    //   (fp32 under autocast: LayerNorm runs in fp32) per layer, 2 x 3,145,728 B x 12 = 75,497,472 B, and
    //   ln_f's before the (column-parallel) lm_head, 3,145,728 B.
    // Total 119,537,664 B; all-reduce over 2 GPUs moves 2 x 1/2 of it, at 450 GB/s 2.656393e-4 s, none
    // hidden.
    const Network gpt2 = loaded(withSequenceLength(
        loaded(importHfConfigFile(HEADROOM_TEST_SOURCE_DIR "/tests/data/hf/gpt2.json")), 1024));
    const Analysis a = analyzed(gpt2, Precision::AmpBf16);
    TrainingSetup s = setupOn(2);
    s.parallel.tensorParallel = 2;
    const auto t = estimateThroughput(a, s, h100());
    QVERIFY2(t, t ? "" : t.error().message.c_str());
    const CommunicationTerm* tp = find(*t, CommunicationKind::TensorParallel);
    QVERIFY(tp);
    QCOMPARE(tp->collective, std::string("all-reduce"));
    VERIFY_NEAR(tp->bytes, 119'537'664.0);
    VERIFY_NEAR(tp->busBytes, 119'537'664.0);
    VERIFY_NEAR(tp->seconds, 119'537'664.0 / 450e9);
    QCOMPARE(tp->exposedSeconds, tp->seconds);
    // Sequence parallelism: a reduce-scatter and an all-gather in place of each all-reduce, same bytes.
    s.parallel.sequenceParallel = true;
    const auto sp = estimateThroughput(a, s, h100());
    QVERIFY(sp);
    QCOMPARE(
        find(*sp, CommunicationKind::TensorParallel)->collective, std::string("all-gather + reduce-scatter"));
    VERIFY_NEAR(find(*sp, CommunicationKind::TensorParallel)->busBytes, 119'537'664.0);
    // TP 4: 2 x 3/4 of the buffers.
    s.parallel.gpus = 4;
    s.parallel.tensorParallel = 4;
    const auto four = estimateThroughput(a, s, h100());
    QVERIFY(four);
    VERIFY_NEAR(find(*four, CommunicationKind::TensorParallel)->busBytes, 1.5 * 119'537'664.0);
    // The GPT-2 small preset writes each block as one TransformerEncoderLayer, whose output leaves its
    // residual add in fp32: an attention and an MLP block, so f and g twice, all of [1024, 768] fp32
    // (3,145,728 B): 12 x 4 x 3,145,728 + the embedding's 3,145,728 + the head input's 3,145,728 =
    // 157,286,400 B.
    const Network preset
        = loaded(loadModelFile(HEADROOM_TEST_SOURCE_DIR "/resources/presets/gpt2_small.json"));
    TrainingSetup p = setupOn(2);
    p.parallel.tensorParallel = 2;
    const auto composite = estimateThroughput(analyzed(preset, Precision::AmpBf16), p, h100());
    QVERIFY2(composite, composite ? "" : composite.error().message.c_str());
    VERIFY_NEAR(find(*composite, CommunicationKind::TensorParallel)->bytes, 157'286'400.0);
}

void TestCommunication::contextParallelRingAndUlysses()
{
    // One rank's shard of a sequence split c = 2 ways: [512, 64] fp32 features through a
    // MultiheadAttention of 4 heads. Its output is 512 x 64 x 4 = 131,072 B; K and V as large each.
    // Ring: 3 (c - 1) K/V blocks (forward, then with their gradients in backward) = 3 x 262,144 =
    // 786,432 B, sent to the next rank at 450 GB/s: 1.747627e-6 s, hidden behind the attention's
    // arithmetic. Across nodes (1 GPU per node) at 50 GB/s: 1.572864e-5 s, longer than it.
    const Network n
        = network({ 512, 64 }, { layer("MultiheadAttention", { { "num_heads", 4 } }, "attn") }, Loss::None);
    const Analysis a = analyzed(n, Precision::Fp32);
    TrainingSetup s = setupOn(2);
    s.parallel.contextParallel = 2;
    const auto t = estimateThroughput(a, s, h100());
    QVERIFY2(t, t ? "" : t.error().message.c_str());
    const CommunicationTerm* ring = find(*t, CommunicationKind::ContextParallel);
    QVERIFY(ring);
    VERIFY_NEAR(ring->bytes, 786'432.0);
    VERIFY_NEAR(ring->seconds, 1.747627e-6);
    const LayerRow& attn = a.rows[0];
    QCOMPARE(attn.type, std::string("MultiheadAttention"));
    const double attention
        = static_cast<double>(attn.forwardFlopsPerSample + attn.backwardFlopsPerSample) / 2.68e13;
    VERIFY_NEAR(ring->overlapSeconds, attention);
    QVERIFY(attention > ring->seconds);
    QCOMPARE(ring->exposedSeconds, 0.0);
    s.gpusPerNode = 1;
    const auto far = estimateThroughput(a, s, h100());
    QVERIFY(far);
    const CommunicationTerm* farRing = find(*far, CommunicationKind::ContextParallel);
    VERIFY_NEAR(farRing->seconds, 1.572864e-5);
    VERIFY_NEAR(farRing->exposedSeconds, 1.572864e-5 - attention);
    // Ulysses: all-to-all of Q, K, V and the output in forward and again in backward:
    // 2 x (131,072 + 262,144 + 131,072) = 1,048,576 B, of which each rank sends 1/2 to the other:
    // 524,288 B at 450 GB/s = 1.165084e-6 s, not hidden.
    s.gpusPerNode = 8;
    s.parallel.contextKind = ContextParallelism::AllToAll;
    const auto u = estimateThroughput(a, s, h100());
    QVERIFY(u);
    const CommunicationTerm* a2a = find(*u, CommunicationKind::ContextParallel);
    QCOMPARE(a2a->collective, std::string("all-to-all"));
    VERIFY_NEAR(a2a->bytes, 1'048'576.0);
    VERIFY_NEAR(a2a->busBytes, 524'288.0);
    VERIFY_NEAR(a2a->seconds, 1.165084e-6);
    QCOMPARE(a2a->exposedSeconds, a2a->seconds);
}

void TestCommunication::expertParallelAllToAll()
{
    // Mixtral's block (measure_moe.py): 16 tokens of 64 fp32 features, 4 experts, 2 per token. Dispatch
    // and combine in forward and in backward: 4 x 16 x 64 x 2 x 4 B = 32,768 B per micro-batch over EP 4
    // in a node: each GPU sends 3/4, 24,576 B, at 450 GB/s: 5.461333e-8 s. With 2 GPUs per node the
    // group spans 2 nodes, 2 GPUs on each: half of each buffer goes over the network at 50 GB/s,
    // 32,768 x 2/4 / 50e9 = 3.2768e-7 s (the quarter to the node's other GPU, over NVLink, is quicker).
    const Network n = network({ 16, 64 },
        { layer("MixtureOfExperts",
            { { "num_experts", 4 }, { "num_experts_per_tok", 2 }, { "intermediate_size", 96 },
                { "expert_names", "w1/w3/w2" } },
            "block_sparse_moe") },
        Loss::None);
    const Analysis a = analyzed(n, Precision::Fp32);
    TrainingSetup s = setupOn(4);
    s.parallel.expertParallel = 4;
    const auto t = estimateThroughput(a, s, h100());
    QVERIFY2(t, t ? "" : t.error().message.c_str());
    const CommunicationTerm* ep = find(*t, CommunicationKind::ExpertParallel);
    QVERIFY(ep);
    VERIFY_NEAR(ep->bytes, 32'768.0);
    VERIFY_NEAR(ep->busBytes, 24'576.0);
    VERIFY_NEAR(ep->seconds, 5.461333e-8);
    s.gpusPerNode = 2;
    const auto far = estimateThroughput(a, s, h100());
    QVERIFY(far);
    const CommunicationTerm* farEp = find(*far, CommunicationKind::ExpertParallel);
    QVERIFY(farEp->crossesNodes);
    VERIFY_NEAR(farEp->seconds, 3.2768e-7);
    // Tensor parallel 2 instead: the block is an MLP block (column-parallel in, row-parallel out), so its
    // whole [16, 64] fp32 output is all-reduced in forward, 4,096 B; its input is the network's, which
    // needs no gradient, so nothing in backward.
    TrainingSetup t2 = setupOn(2);
    t2.parallel.tensorParallel = 2;
    const auto tp = estimateThroughput(a, t2, h100());
    QVERIFY2(tp, tp ? "" : tp.error().message.c_str());
    QVERIFY(find(*tp, CommunicationKind::TensorParallel));
    VERIFY_NEAR(find(*tp, CommunicationKind::TensorParallel)->bytes, 4096.0);
}

void TestCommunication::unknownLinkAssumesPcie()
{
    // MI250X has no link figure: PCIe 4.0 x16's 31.5 GB/s, said in a note. 1,000,000 fp32 parameters on
    // 8: 7e6 / 31.5e9 = 2.222222e-4 s.
    const auto t = estimateThroughput(handAnalysis(1'000'000, 1, 2), setupOn(8), catalogueGpu("MI250X"));
    QVERIFY(t);
    VERIFY_NEAR(find(*t, CommunicationKind::DataParallel)->seconds, 2.222222e-4);
    QCOMPARE(t->intraNodeGBps, 31.5);
    QVERIFY(std::any_of(t->notes.begin(), t->notes.end(), [](const std::string& n) {
        return n.find("no GPU-to-GPU bandwidth figure: assumes PCIe 4.0 x16, 31.5 GB/s") != std::string::npos;
    }));
}

void TestCommunication::setupRejectsBadInterconnect()
{
    TrainingSetup s = setupOn(8);
    s.interNodeGBps = 0;
    auto problem = validateSetup(s);
    QVERIFY(problem);
    QCOMPARE(problem->location, std::string("inter_node_gbps"));
    s.interNodeGBps = std::nan("");
    QVERIFY(validateSetup(s));
    s.interNodeGBps = 50;
    s.gpusPerNode = 0;
    problem = validateSetup(s);
    QVERIFY(problem);
    QCOMPARE(problem->location, std::string("gpus_per_node"));
}

void TestCommunication::plannerPaysForTensorParallelAcrossNodes()
{
    // GPT-2 small on 16 H100s, 8 per node, global batch 64 at 1,024 tokens: it fits one GPU, so every
    // layout fits. Counted by compute and memory traffic alone, TP spreads the same FLOPs over the same
    // GPUs as DP: no layout is faster by them. With communication, TP's all-reduces (not hidden) cost every
    // layer, while data parallelism's all-reduce of GPT-2's 124M parameters hides largely behind
    // backward: the fastest layout is pure data parallelism (TP 1), and every listed layout's step
    // includes its exposed communication.
    const Network gpt2 = loaded(withSequenceLength(
        loaded(importHfConfigFile(HEADROOM_TEST_SOURCE_DIR "/tests/data/hf/gpt2.json")), 1024));
    Plan base;
    base.network = gpt2;
    base.precision = Precision::AmpBf16;
    base.gpu = h100();
    base.reservedModel = false;
    ClusterRequest r;
    r.gpus = 16;
    r.gpusPerNode = 8;
    r.globalBatch = 64;
    r.recomputation = { Checkpointing::None };
    r.shardings = { Sharding::None };
    r.microBatches = { 1, 2, 4 };
    r.listed = 20;
    const auto plan = planCluster(base, r);
    QVERIFY2(plan, plan ? "" : plan.error().message.c_str());
    QVERIFY(!plan->layouts.empty());
    const ClusterLayout& best = plan->layouts.front();
    QCOMPARE(best.settings.setup.parallel.tensorParallel, std::int64_t { 1 });
    QCOMPARE(best.settings.setup.parallel.pipelineParallel, std::int64_t { 1 });
    QCOMPARE(best.settings.setup.gpusPerNode, std::int64_t { 8 });
    for (const ClusterLayout& l : plan->layouts) {
        const ThroughputEstimate& t = l.throughput;
        QVERIFY(!t.communication.empty());
        QVERIFY(
            t.stepSeconds >= std::max(t.computeSeconds, t.memorySeconds) + 0.999 * t.communicationSeconds);
        if (l.settings.setup.parallel.tensorParallel > 1)
            QVERIFY(t.stepSeconds > best.throughput.stepSeconds);
    }
    const bool saysWhatIsLeft = std::any_of(plan->leftOut.begin(), plan->leftOut.end(),
        [](const std::string& s) { return s.find("NCCL's peak bus bandwidth") != std::string::npos; });
    QVERIFY(saysWhatIsLeft);
}

QTEST_GUILESS_MAIN(TestCommunication)
#include "tst_communication.moc"

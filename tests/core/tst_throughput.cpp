// The throughput estimate (docs/throughput.md): step times worked out by hand from analyses built
// with known FLOP and byte counts, the catalogue's peak figures checked against the vendors'
// published specifications, and the analysis's forward / backward / recompute FLOPs checked against
// hand counts and Narayanan et al.'s transformer formula.
#include "CatalogueGpus.h"
#include "NetworkBuilder.h"
#include "headroom/estimate/Throughput.h"
#include "headroom/importers/HfConfig.h"
#include "headroom/model/ModelFile.h"

#include <QTest>
#include <cmath>
#include <limits>

using namespace headroom;
using namespace headroom::test;

namespace {

Gpu gpu(const char* name)
{
    return catalogueGpu(name);
}

/// A hand-made analysis: `params` float32 (or half, in pure half training) parameters, all trainable,
/// with the given FLOPs and saved-activation bytes per sample.
Analysis handAnalysis(Precision p, std::uint64_t params, std::uint64_t forward, std::uint64_t backward,
    std::uint64_t activationBytesPerSample = 0)
{
    Analysis a;
    a.precision = p;
    a.options.precision = p;
    a.totalParams = params;
    a.trainableParams = params;
    a.parameterBytes = params * elementSize(parameterType(p));
    a.trainableParameterBytes = a.parameterBytes;
    a.forwardFlopsPerSample = forward;
    a.backwardFlopsPerSample = backward;
    a.activationBytesPerSample = activationBytesPerSample;
    a.uncheckpointedActivationBytesPerSample = activationBytesPerSample;
    return a;
}

TrainingSetup setup(Optimizer o, std::int64_t micro, std::int64_t steps = 1)
{
    TrainingSetup s;
    s.optimizer = o;
    s.batch = micro;
    s.accumulationSteps = steps;
    return s;
}

/// Relative comparison for figures that go through floating-point division.
bool near(double actual, double expected, double tolerance = 1e-9)
{
    return std::abs(actual - expected) <= tolerance * std::abs(expected);
}

QString describe(double actual, double expected)
{
    return QStringLiteral("got %1, expected %2").arg(actual, 0, 'g', 12).arg(expected, 0, 'g', 12);
}

#define VERIFY_NEAR(actual, expected)                                                                        \
    QVERIFY2(near((actual), (expected)), qPrintable(describe((actual), (expected))))

Network loaded(Result<Network> n)
{
    if (!n)
        qFatal("cannot load a test network: %s", n.error().message.c_str());
    return n.value();
}

Network hfModel(const char* file, std::int64_t sequence)
{
    const Network n
        = loaded(importHfConfigFile(HEADROOM_TEST_SOURCE_DIR "/tests/data/hf/" + std::string(file)));
    return loaded(withSequenceLength(n, sequence));
}

LayerSpec frozenIf(LayerSpec spec, bool frozen)
{
    spec.frozen = frozen;
    return spec;
}

Analysis analyzed(const Network& n, AttentionImplementation attention = AttentionImplementation::Sdpa,
    Checkpointing checkpointing = Checkpointing::None)
{
    AnalysisOptions o;
    o.precision = Precision::AmpBf16;
    o.attention = attention;
    o.checkpointing = checkpointing;
    Analysis a = analyze(n, o);
    if (!a.valid())
        qFatal("analysis failed: %s", a.error->message.c_str());
    return a;
}

std::uint64_t rowBackwardSum(const Analysis& a)
{
    std::uint64_t sum = 0;
    for (const auto& row : a.rows) // a row stands for row.count identical layers
        sum += row.backwardFlopsPerSample * row.count;
    return sum;
}

bool hasNoteContaining(const ThroughputEstimate& t, const std::string& text)
{
    for (const auto& n : t.notes)
        if (n.find(text) != std::string::npos)
            return true;
    return false;
}

} // namespace

class TestThroughput : public QObject
{
    Q_OBJECT
private slots:
    void catalogueMatchesVendorPeaks_data();
    void catalogueMatchesVendorPeaks();
    void pascalGeForceRunsFp16AtOneSixtyFourth();
    void a100Bf16StepByHand();
    void gtx1080MixedFp16IsSlowerThanFp32();
    void memoryBoundWhenWeightsDominate();
    void bf16OnGtx1080IsAnError_data();
    void bf16OnGtx1080IsAnError();
    void utilizationIsValidated_data();
    void utilizationIsValidated();
    void utilizationNoteIsAlwaysThere();
    void backwardDefaultsToTwiceForward();
    void recomputeCounts();
    void accumulationAndParallelism();
    void badSetupsAreRefused();
    void invalidAnalysisIsRefused();
    void tokensPerSecondForTokenInput();
    void tokensPerSecondForFeatureSequence();
    void noTokensForImages();
    void tf32NoteForConvolutionsOnAmpere();
    void attentionBackwardPerOperand_data();
    void attentionBackwardPerOperand();
    void frozenAttentionCountsOnlyInputGradients();
    void gpt2PresetAndImportAgree();
    void gpt2MatchesNarayanan();
    void llamaAndMistralMatchNarayanan_data();
    void llamaAndMistralMatchNarayanan();
    void selectiveRecomputesTheAttentionCore();
    void rowBackwardSumsToTotal_data();
    void rowBackwardSumsToTotal();
};

void TestThroughput::catalogueMatchesVendorPeaks_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<double>("fp32");
    QTest::addColumn<double>("fp16");
    QTest::addColumn<double>("bf16");
    QTest::addColumn<double>("bandwidth");
    // Dense peaks, TFLOPS; half figures are tensor-core / matrix-core rates with fp32 accumulation
    // (what PyTorch's GEMMs use). Sources per row; docs/throughput.md lists them.
    // NVIDIA Tesla P100 datasheet: 10.6 fp32, 21.2 fp16 (2x), 732 GB/s.
    QTest::newRow("P100 SXM2") << "P100 SXM2" << 10.6 << 21.2 << 0.0 << 732.0;
    // Tesla V100 datasheet: 15.7 fp32, 125 tensor, 900 GB/s; Volta has no bf16.
    QTest::newRow("V100 SXM2") << "V100 SXM2 32GB" << 15.7 << 125.0 << 0.0 << 900.0;
    // A100 datasheet: 19.5 fp32, 312 fp16/bf16 tensor (624 is with sparsity), 2,039 GB/s for 80GB SXM.
    QTest::newRow("A100 SXM 80GB") << "A100 SXM4 80GB" << 19.5 << 312.0 << 312.0 << 2039.0;
    // H100 datasheet, SXM5: 67 fp32, 1,979 fp16/bf16 with sparsity -> 989.5 dense, 3.35 TB/s.
    QTest::newRow("H100 SXM") << "H100 SXM5 80GB" << 67.0 << 989.5 << 989.5 << 3350.0;
    // Ada whitepaper, RTX 4090: 82.58 fp32; fp16 tensor with fp32 accumulate 165.2 (330.3 with fp16
    // accumulate, which PyTorch does not use).
    QTest::newRow("RTX 4090") << "RTX 4090" << 82.58 << 165.2 << 165.2 << 1008.0;
    // Turing whitepaper, RTX 2080 Ti: 13.45 fp32; fp16 tensor with fp32 accumulate 53.8 (107.6 fp16 acc.).
    QTest::newRow("RTX 2080 Ti") << "RTX 2080 Ti" << 13.45 << 53.8 << 0.0 << 616.0;
    // AMD MI250X: 95.7 fp32 matrix and 383 fp16/bf16 matrix per module of two GCDs, 3.2768 TB/s.
    QTest::newRow("MI250X GCD") << "MI250X" << 47.85 << 191.5 << 191.5 << 1638.4;
    // AMD MI300X: 163.4 fp32 matrix, 1,307.4 fp16/bf16 matrix dense, 5.3 TB/s.
    QTest::newRow("MI300X") << "MI300X" << 163.4 << 1307.4 << 1307.4 << 5300.0;
}

void TestThroughput::catalogueMatchesVendorPeaks()
{
    QFETCH(QString, name);
    QFETCH(double, fp32);
    QFETCH(double, fp16);
    QFETCH(double, bf16);
    QFETCH(double, bandwidth);
    const Gpu g = gpu(qPrintable(name));
    QCOMPARE(g.fp32Tflops, fp32);
    QCOMPARE(g.fp16Tflops, fp16);
    QCOMPARE(g.bf16Tflops, bf16);
    QCOMPARE(g.bandwidthGBps, bandwidth);
}

void TestThroughput::pascalGeForceRunsFp16AtOneSixtyFourth()
{
    // GP102/GP104/GP106/GP107 have one fp16x2 unit per 128 fp32 cores: fp16 at 1/64 of fp32
    // (NVIDIA Pascal tuning guide). GTX 1080: 2,560 cores x 1,733 MHz x 2 = 8.873 TFLOPS, fp16 0.1386.
    int pascal = 0;
    for (const auto& g : catalogue().gpus()) {
        if (g.family != "GeForce 10 (Pascal)")
            continue;
        ++pascal;
        QVERIFY2(std::abs(g.fp32Tflops / g.fp16Tflops - 64.0) < 0.5, g.name.c_str());
        QCOMPARE(g.bf16Tflops, 0.0);
    }
    QVERIFY(pascal >= 5);
    QCOMPARE(gpu("GTX 1080").fp32Tflops, 8.873);
}

void TestThroughput::a100Bf16StepByHand()
{
    // 1,000,000 parameters, 1 GFLOP forward and 2 GFLOPs backward per sample, 1 MB saved per sample;
    // Adam under autocast bf16 on an A100 SXM4 80GB (312 TFLOPS bf16, 2,039 GB/s), micro-batch 8,
    // 4 accumulation steps, 40% utilisation.
    const auto a = handAnalysis(Precision::AmpBf16, 1'000'000, 1'000'000'000, 2'000'000'000, 1'000'000);
    const auto t = estimateThroughput(a, setup(Optimizer::Adam, 8, 4), gpu("A100 SXM4 80GB"));
    QVERIFY2(t.ok(), t.ok() ? "" : t.error().message.c_str());
    // FLOPs per step: (1e9 + 2e9) x 8 x 4 = 96e9
    VERIFY_NEAR(t->flopsPerStep, 96e9);
    QCOMPARE(t->peakTflops, 312.0);
    QCOMPARE(t->utilization, 0.4);
    // compute: 96e9 / (312e12 x 0.4 = 124.8e12) = 7.6923e-4 s
    VERIFY_NEAR(t->computeSeconds, 96e9 / 124.8e12);
    // bytes: per micro-batch weights 2 x 4 MB (fp32 under autocast) + gradients 4 MB + activations
    // 2 x 8 x 1 MB = 28 MB, x 4 = 112 MB; Adam state 8 MB read and written = 16 MB; 128 MB in all.
    VERIFY_NEAR(t->bytesPerStep, 128e6);
    VERIFY_NEAR(t->memorySeconds, 128e6 / 2039e9); // 6.28e-5 s: compute-bound
    QVERIFY(!t->memoryBound);
    VERIFY_NEAR(t->stepSeconds, 96e9 / 124.8e12);
    // 32 samples per step: 32 x 124.8e12 / 96e9 = 41,600 samples/s
    VERIFY_NEAR(t->samplesPerSecond, 41600.0);
    QCOMPARE(t->tokensPerSecond, 0.0);
    QVERIFY(!hasNoteContaining(*t, "1/64"));
    QVERIFY(hasNoteContaining(*t, "Assumes 40% of the bf16 peak"));
}

void TestThroughput::gtx1080MixedFp16IsSlowerThanFp32()
{
    // 3 GFLOPs per sample, micro-batch 32: 96e9 FLOPs per step.
    const Gpu g = gpu("GTX 1080");
    const auto single = handAnalysis(Precision::Fp32, 1'000'000, 1'000'000'000, 2'000'000'000, 1'000'000);
    const auto mixed = handAnalysis(Precision::AmpFp16, 1'000'000, 1'000'000'000, 2'000'000'000, 1'000'000);
    const auto fp32 = estimateThroughput(single, setup(Optimizer::Adam, 32), g);
    const auto amp = estimateThroughput(mixed, setup(Optimizer::Adam, 32), g);
    QVERIFY(fp32.ok() && amp.ok());
    // fp32: 96e9 / (8.873e12 x 0.4) = 27.05 ms; amp-fp16: 96e9 / (0.1386e12 x 0.4) = 1.732 s
    VERIFY_NEAR(fp32->stepSeconds, 96e9 / (8.873e12 * 0.4));
    VERIFY_NEAR(amp->stepSeconds, 96e9 / (0.1386e12 * 0.4));
    QVERIFY(!fp32->memoryBound && !amp->memoryBound);
    QVERIFY(amp->stepSeconds > 60 * fp32->stepSeconds);
    const std::string warning = "GeForce GTX 1080 runs fp16 at 1/64 of its fp32 rate; mixed precision will "
                                "be slower than fp32 on this card";
    QCOMPARE(amp->notes.front(), warning);
    QVERIFY(!hasNoteContaining(*fp32, "1/64"));
    // Pure fp16 warns too.
    const auto pure
        = estimateThroughput(handAnalysis(Precision::Fp16, 1'000'000, 1'000'000'000, 2'000'000'000),
            setup(Optimizer::Adam, 32), g);
    QVERIFY(pure.ok());
    QCOMPARE(pure->notes.front(), warning);
}

void TestThroughput::memoryBoundWhenWeightsDominate()
{
    // 100M fp32 parameters but only 3 MFLOPs per sample (a huge lookup table), SGD, batch 1, on an
    // RTX 4090 (82.58 TFLOPS fp32, 1,008 GB/s).
    const auto t = estimateThroughput(handAnalysis(Precision::Fp32, 100'000'000, 1'000'000, 2'000'000),
        setup(Optimizer::Sgd, 1), gpu("RTX 4090"));
    QVERIFY(t.ok());
    // compute: 3e6 / (82.58e12 x 0.4) = 91 ns
    VERIFY_NEAR(t->computeSeconds, 3e6 / (82.58e12 * 0.4));
    // bytes: weights read twice 2 x 400 MB + gradients written 400 MB = 1.2 GB (SGD keeps no state)
    VERIFY_NEAR(t->bytesPerStep, 1.2e9);
    // 1.2e9 / 1008e9 = 1.19 ms
    VERIFY_NEAR(t->memorySeconds, 1.2e9 / 1008e9);
    QVERIFY(t->memoryBound);
    VERIFY_NEAR(t->stepSeconds, t->memorySeconds);
    VERIFY_NEAR(t->samplesPerSecond, 840.0); // 1008e9 / 1.2e9
    QVERIFY(hasNoteContaining(*t, "Memory-bound"));
}

void TestThroughput::bf16OnGtx1080IsAnError_data()
{
    QTest::addColumn<int>("precision");
    QTest::newRow("amp-bf16") << static_cast<int>(Precision::AmpBf16);
    QTest::newRow("bf16") << static_cast<int>(Precision::Bf16);
}

void TestThroughput::bf16OnGtx1080IsAnError()
{
    QFETCH(int, precision);
    const auto t = estimateThroughput(handAnalysis(static_cast<Precision>(precision), 1000, 1000, 2000),
        setup(Optimizer::Adam, 1), gpu("GTX 1080"));
    QVERIFY(!t.ok());
    QVERIFY2(
        t.error().message.starts_with("GeForce GTX 1080 has no bfloat16 support"), t.error().message.c_str());
    QCOMPARE(t.error().location, std::string { "precision" });
}

void TestThroughput::utilizationIsValidated_data()
{
    QTest::addColumn<double>("utilization");
    QTest::addColumn<bool>("ok");
    QTest::newRow("zero") << 0.0 << false;
    QTest::newRow("negative") << -0.4 << false;
    QTest::newRow("above one") << 1.01 << false;
    QTest::newRow("percent by mistake") << 40.0 << false;
    QTest::newRow("nan") << std::numeric_limits<double>::quiet_NaN() << false;
    QTest::newRow("infinity") << std::numeric_limits<double>::infinity() << false;
    QTest::newRow("one") << 1.0 << true;
    QTest::newRow("tiny") << 0.01 << true;
}

void TestThroughput::utilizationIsValidated()
{
    QFETCH(double, utilization);
    QFETCH(bool, ok);
    auto s = setup(Optimizer::Adam, 1);
    s.assumedUtilization = utilization;
    const auto t
        = estimateThroughput(handAnalysis(Precision::Fp32, 1000, 1000, 2000), s, gpu("A100 SXM4 80GB"));
    QCOMPARE(t.ok(), ok);
    if (!ok)
        QCOMPARE(t.error().location, std::string { "assumed_utilization" });
    else
        QCOMPARE(t->utilization, utilization);
}

void TestThroughput::utilizationNoteIsAlwaysThere()
{
    auto s = setup(Optimizer::Adam, 1);
    s.assumedUtilization = 0.375;
    const auto t = estimateThroughput(handAnalysis(Precision::Fp32, 1000, 1000, 2000), s, gpu("GTX 1080"));
    QVERIFY(t.ok());
    QVERIFY(hasNoteContaining(*t,
        "Assumes 37.5% of the fp32 peak (model FLOPs utilisation); large transformer "
        "training typically reaches 30-50%, small CNNs less"));
}

void TestThroughput::backwardDefaultsToTwiceForward()
{
    // An analysis without backward FLOPs: 2 x forward (Kaplan et al. 2020: 6N per token in all).
    auto t = estimateThroughput(
        handAnalysis(Precision::Fp32, 1000, 5'000'000, 0), setup(Optimizer::Adam, 1), gpu("A100 SXM4 80GB"));
    QVERIFY(t.ok());
    QCOMPARE(t->backwardFlopsPerSample, 10e6);
    VERIFY_NEAR(t->flopsPerStep, 15e6);
    // The analysis's own figure wins when it has one (frozen layers: 1 x forward).
    t = estimateThroughput(handAnalysis(Precision::Fp32, 1000, 5'000'000, 5'000'000),
        setup(Optimizer::Adam, 1), gpu("A100 SXM4 80GB"));
    QVERIFY(t.ok());
    QCOMPARE(t->backwardFlopsPerSample, 5e6);
    // Nothing trains: no backward at all.
    auto frozen = handAnalysis(Precision::Fp32, 1000, 5'000'000, 0);
    frozen.trainableParams = 0;
    frozen.trainableParameterBytes = 0;
    t = estimateThroughput(frozen, setup(Optimizer::Adam, 1), gpu("A100 SXM4 80GB"));
    QVERIFY(t.ok());
    QCOMPARE(t->backwardFlopsPerSample, 0.0);
}

void TestThroughput::recomputeCounts()
{
    // Per-block checkpointing recomputes the forward once more in backward: 1 + 2 + 1 = 4 GFLOPs.
    auto a = handAnalysis(Precision::AmpBf16, 1000, 1'000'000'000, 2'000'000'000);
    a.recomputeFlopsPerSample = 1'000'000'000;
    const auto t = estimateThroughput(a, setup(Optimizer::Adam, 2), gpu("H100 SXM"));
    QVERIFY(t.ok());
    QCOMPARE(t->recomputeFlopsPerSample, 1e9);
    VERIFY_NEAR(t->flopsPerStep, 8e9);
    VERIFY_NEAR(t->computeSeconds, 8e9 / (989.5e12 * 0.4));
}

void TestThroughput::accumulationAndParallelism()
{
    // 8 GPUs as 4 data-parallel x 2 tensor-parallel, micro-batch 4, 2 accumulation steps, bf16 on
    // H100 SXM. Per GPU: 3e9 x 4 x 2 / 2 = 12e9 FLOPs -> 12e9 / (989.5e12 x 0.4) s per step; the step
    // sees 4 x 2 x 4 = 32 samples.
    auto s = setup(Optimizer::Sgd, 4, 2);
    s.parallel.gpus = 8;
    s.parallel.tensorParallel = 2;
    const auto t = estimateThroughput(
        handAnalysis(Precision::AmpBf16, 1000, 1'000'000'000, 2'000'000'000), s, gpu("H100 SXM"));
    QVERIFY(t.ok());
    VERIFY_NEAR(t->flopsPerStep, 12e9);
    const double step = 12e9 / (989.5e12 * 0.4);
    VERIFY_NEAR(t->stepSeconds, step);
    VERIFY_NEAR(t->samplesPerSecond, 32 / step);
    // The data-parallel all-reduce of 1,000 fp32 gradients (2,000 B per GPU after TP 2: 2 x 3/4 x 2,000 B
    // at 450 GB/s, 6.7 ns) hides behind backward; the hand analysis has no layers to exchange
    // tensor-parallel activations for: the step is the compute alone, and says what it included.
    QCOMPARE(t->communicationSeconds, 0.0);
    QCOMPARE(t->communication.size(), std::size_t { 1 });
    QCOMPARE(t->communication[0].kind, CommunicationKind::DataParallel);
    QVERIFY(hasNoteContaining(*t, "not hidden by compute"));
}

void TestThroughput::badSetupsAreRefused()
{
    const auto a = handAnalysis(Precision::Fp32, 1000, 1000, 2000);
    const Gpu g = gpu("GTX 1080");
    auto s = setup(Optimizer::Adam, 0);
    QCOMPARE(estimateThroughput(a, s, g).error().location, std::string { "batch" });
    s = setup(Optimizer::Adam, 1, 0);
    QCOMPARE(estimateThroughput(a, s, g).error().location, std::string { "accumulation_steps" });
    s = setup(Optimizer::Adam, 1);
    s.parallel.gpus = 6;
    s.parallel.tensorParallel = 4;
    QCOMPARE(estimateThroughput(a, s, g).error().location, std::string { "parallel" });
    s.parallel.gpus = 0;
    s.parallel.tensorParallel = 1;
    QCOMPARE(estimateThroughput(a, s, g).error().location, std::string { "parallel" });
    // A user-defined GPU without a figure for the precision.
    Gpu custom = g;
    custom.name = "My card";
    custom.fp32Tflops = 0;
    const auto t = estimateThroughput(a, setup(Optimizer::Adam, 1), custom);
    QVERIFY(!t.ok());
    QVERIFY2(t.error().message.starts_with("My card has no fp32"), t.error().message.c_str());
    // ... or without a bandwidth: the memory check is skipped and says so.
    custom = g;
    custom.bandwidthGBps = 0;
    const auto noBandwidth = estimateThroughput(a, setup(Optimizer::Adam, 1), custom);
    QVERIFY(noBandwidth.ok());
    QCOMPARE(noBandwidth->memorySeconds, 0.0);
    QVERIFY(hasNoteContaining(*noBandwidth, "no memory bandwidth figure"));
}

void TestThroughput::invalidAnalysisIsRefused()
{
    const auto a = analyze(
        network({ 3, 8, 8 }, { layer("Conv2d", { { "out_channels", 4 }, { "kernel_size", 9 } }, "conv") }),
        Precision::Fp32);
    QVERIFY(!a.valid());
    const auto t = estimateThroughput(a, setup(Optimizer::Adam, 1), gpu("GTX 1080"));
    QVERIFY(!t.ok());
    QVERIFY2(t.error().message.starts_with("cannot estimate throughput: "), t.error().message.c_str());
}

void TestThroughput::tokensPerSecondForTokenInput()
{
    // A hand-made analysis whose first layer is an embedding of 1,024 token ids: [1024] -> [1024, 768].
    auto a = handAnalysis(Precision::AmpBf16, 1000, 1'000'000'000, 2'000'000'000);
    LayerRow row;
    row.name = "wte";
    row.type = "Embedding";
    row.inputs = { "input" };
    row.output = TensorInfo { Shape { { 1024, 768 } }, DType::Float32 };
    a.rows.push_back(row);
    const auto t = estimateThroughput(a, setup(Optimizer::Adam, 8), gpu("A100 SXM4 80GB"));
    QVERIFY(t.ok());
    QCOMPARE(t->sequenceLength, std::int64_t { 1024 });
    // 8 samples per 24e9 / 124.8e12 s = 41,600 samples/s; x 1,024 tokens
    VERIFY_NEAR(t->samplesPerSecond, 41600.0);
    VERIFY_NEAR(t->tokensPerSecond, 41600.0 * 1024);

    // The same rule on a real analysis: token ids [16] into an Embedding and a Linear head.
    const auto real = analyze(network({ 16 },
                                  { layer("Embedding", { { "num_embeddings", 100 }, { "embedding_dim", 8 } }),
                                      layer("Linear", { { "out_features", 100 } }) },
                                  Loss::CrossEntropy, DType::Int64),
        Precision::Fp32);
    QVERIFY2(real.valid(), real.error ? real.error->message.c_str() : "");
    const auto r = estimateThroughput(real, setup(Optimizer::Adam, 4), gpu("GTX 1080"));
    QVERIFY(r.ok());
    QCOMPARE(r->sequenceLength, std::int64_t { 16 });
    VERIFY_NEAR(r->tokensPerSecond, 16 * r->samplesPerSecond);
}

void TestThroughput::tokensPerSecondForFeatureSequence()
{
    // Features [T = 50, E = 32] into an LSTM: 50 tokens (time steps) per sample.
    const auto a = analyze(network({ 50, 32 },
                               { layer("LSTM", { { "hidden_size", 64 } }), layer("Flatten"),
                                   layer("Linear", { { "out_features", 10 } }) }),
        Precision::Fp32);
    QVERIFY2(a.valid(), a.error ? a.error->message.c_str() : "");
    const auto t = estimateThroughput(a, setup(Optimizer::Adam, 4), gpu("GTX 1080"));
    QVERIFY(t.ok());
    QCOMPARE(t->sequenceLength, std::int64_t { 50 });
    VERIFY_NEAR(t->tokensPerSecond, 50 * t->samplesPerSecond);
}

void TestThroughput::noTokensForImages()
{
    const auto t
        = estimateThroughput(analyze(lenet5(), Precision::Fp32), setup(Optimizer::Adam, 32), gpu("GTX 1080"));
    QVERIFY(t.ok());
    QVERIFY(t->samplesPerSecond > 0);
    QCOMPARE(t->sequenceLength, std::int64_t { 0 });
    QCOMPARE(t->tokensPerSecond, 0.0);
}

void TestThroughput::tf32NoteForConvolutionsOnAmpere()
{
    // cuDNN may use TF32 for fp32 convolutions on Ampere and newer (torch.backends.cudnn.allow_tf32
    // defaults to True); Pascal has no TF32, and a network without convolutions is unaffected.
    const auto lenet = analyze(lenet5(), Precision::Fp32);
    const auto a100 = estimateThroughput(lenet, setup(Optimizer::Adam, 32), gpu("A100 SXM4 80GB"));
    const auto gtx = estimateThroughput(lenet, setup(Optimizer::Adam, 32), gpu("GTX 1080"));
    const auto mlp = estimateThroughput(
        handAnalysis(Precision::Fp32, 1000, 1000, 2000), setup(Optimizer::Adam, 32), gpu("A100 SXM4 80GB"));
    QVERIFY(a100.ok() && gtx.ok() && mlp.ok());
    QVERIFY(hasNoteContaining(*a100, "TF32"));
    QVERIFY(!hasNoteContaining(*gtx, "TF32"));
    QVERIFY(!hasNoteContaining(*mlp, "TF32"));
}

void TestThroughput::attentionBackwardPerOperand_data()
{
    // [T = 8, E = 16] float features (no gradient) -> q, k, v = three Linear(16, 16) on the input ->
    // ScaledDotProductAttention(2 heads, q, k, v). A frozen projection on the input is not recorded,
    // so its output needs no gradient: freezing picks which of Q, K, V require grad.
    // Forward core: Q K^T 2 T T E = 2 x 8 x 8 x 16 = 2,048; P V 2,048; softmax 5 x 2 x 8 x 8 = 640.
    // Backward: Q K^T gives dQ = dS K (Q requires grad) and dK = dS^T Q (K does), 2,048 each; P V gives
    // dP = dO V^T (P requires grad: Q or K does) and dV = P^T dO (V does), 2,048 each; the softmax
    // backward 640 when P requires grad.
    QTest::addColumn<bool>("q");
    QTest::addColumn<bool>("k");
    QTest::addColumn<bool>("v");
    QTest::addColumn<quint64>("backward");
    QTest::newRow("all") << true << true << true << quint64 { 4 * 2048 + 640 };
    QTest::newRow("q only (LoRA on q_proj)") << true << false << false << quint64 { 2048 + 2048 + 640 };
    QTest::newRow("k only") << false << true << false << quint64 { 2048 + 2048 + 640 };
    QTest::newRow("v only") << false << false << true << quint64 { 2048 };
    QTest::newRow("q and v (PEFT's default targets)") << true << false << true << quint64 { 3 * 2048 + 640 };
    QTest::newRow("none: not recorded") << false << false << false << quint64 { 0 };
}

void TestThroughput::attentionBackwardPerOperand()
{
    QFETCH(bool, q);
    QFETCH(bool, k);
    QFETCH(bool, v);
    QFETCH(quint64, backward);
    const auto projection = [](const char* name, bool trains) {
        return frozenIf(layer("Linear", { { "out_features", 16 } }, name, { "input" }), !trains);
    };
    const Network n = network({ 8, 16 },
        { projection("q", q), projection("k", k), projection("v", v),
            layer("ScaledDotProductAttention", { { "num_heads", 2 } }, "attn", { "q", "k", "v" }) },
        Loss::None);
    const Analysis a = analyzed(n);
    QCOMPARE(a.rows[3].name, std::string("attn"));
    QCOMPARE(a.rows[3].forwardFlopsPerSample, std::uint64_t { 2048 + 2048 + 640 });
    QCOMPARE(a.rows[3].backwardFlopsPerSample, std::uint64_t { backward });
    // Each trained projection: its weight gradient only (the input needs none), 2 x 8 x 16 x 16 = 4,096.
    const std::uint64_t projections = 4096 * ((q ? 1 : 0) + (k ? 1 : 0) + (v ? 1 : 0));
    QCOMPARE(a.backwardFlopsPerSample, projections + backward);
    // Flash attention (the default SDPA) rebuilds S and P in backward: Q K^T 2,048 + softmax 640 whenever
    // a gradient flows through it; the eager path keeps P and recomputes nothing.
    QCOMPARE(a.attentionRecomputeFlopsPerSample, std::uint64_t { q || k || v ? 2048U + 640U : 0U });
    QCOMPARE(
        analyzed(n, AttentionImplementation::Eager).attentionRecomputeFlopsPerSample, std::uint64_t { 0 });
    QCOMPARE(a.recomputeFlopsPerSample, std::uint64_t { 0 });
}

void TestThroughput::frozenAttentionCountsOnlyInputGradients()
{
    // [T = 16, E = 32] -> proj Linear(32, 32) -> MultiheadAttention(32, 4 heads). Forward of the attention
    // layer: projections 8 T E^2 = 8 x 16 x 1,024 = 131,072; Q K^T 2 T T E = 16,384; P V 16,384; softmax
    // 5 x 4 x 16 x 16 = 5,120: 168,960.
    const auto build = [](bool frozenAttention, bool frozenProj) {
        return network({ 16, 32 },
            { frozenIf(layer("Linear", { { "out_features", 32 } }, "proj"), frozenProj),
                frozenIf(layer("MultiheadAttention", { { "num_heads", 4 } }, "attn"), frozenAttention) },
            Loss::None);
    };
    // Trained behind a trained layer: projections 2 x 131,072 (input and weight gradients); Q, K, V are
    // made inside from trained projections, so all require grad: 2 x 16,384 + 2 x 16,384; softmax 5,120.
    const Analysis trained = analyzed(build(false, false));
    QCOMPARE(trained.rows[1].forwardFlopsPerSample, std::uint64_t { 168960 });
    QCOMPARE(trained.rows[1].backwardFlopsPerSample, std::uint64_t { 262144 + 65536 + 5120 });
    // Frozen behind a trained layer: no weight gradients, 131,072 for the input gradient; the core
    // still needs every operand's gradient to reach the input: 65,536 + 5,120.
    const Analysis frozen = analyzed(build(true, false));
    QCOMPARE(frozen.rows[1].backwardFlopsPerSample, std::uint64_t { 131072 + 65536 + 5120 });
    // Frozen behind frozen layers on the data: not recorded, no backward at all.
    const Analysis idle = analyzed(build(true, true));
    QCOMPARE(idle.backwardFlopsPerSample, std::uint64_t { 0 });
    QCOMPARE(idle.attentionRecomputeFlopsPerSample, std::uint64_t { 0 });
    // The fused kernels (need_weights=false) recompute Q K^T and the softmax: 16,384 + 5,120.
    auto fused = build(true, false);
    fused.layers[1].attributes["need_weights"] = false;
    QCOMPARE(analyzed(fused).attentionRecomputeFlopsPerSample, std::uint64_t { 21504 });
}

void TestThroughput::gpt2PresetAndImportAgree()
{
    // The GPT-2 small preset (12 TransformerEncoderLayers) and the imported GPT-2 config (separate
    // LayerNorm, Linear, ScaledDotProductAttention, NewGELU, Dropout and Add layers) at T = 1,024, d = 768,
    // 12 heads, ff 3,072, V = 50,257. Per block, forward:
    //   LayerNorms 2 x 5 T d = 7,864,320          c_attn 6 T d^2 = 3,623,878,656    c_proj 2 T d^2 =
    //   1,207,959,552 c_fc, mlp.c_proj 2 x 2 T d ff = 9,663,676,416 attention core Q K^T + P V 4 T^2 d =
    //   3,221,225,472, softmax 5 x 12 x T^2 = 62,914,560 import: NewGELU 9 T ff = 28,311,552; 2 dropouts + 2
    //   adds 4 T d = 3,145,728 preset: exact GELU 8 T ff = 25,165,824 plus a dropout after it T ff =
    //   3,145,728 (PyTorch's
    //           feed-forward has one, GPT-2's MLP has not); 2 dropouts + 2 adds 4 T d = 3,145,728
    // so the two differ in the GELU flavour and that dropout, and count the same: 17,818,976,256 per
    // block. Outside the blocks: wpe's add T d = 786,432, drop T d = 786,432, ln_f 5 T d = 3,932,160,
    // lm_head 2 T d V = 79,047,426,048. Forward: 12 x 17,818,976,256 + 79,052,931,072 = 292,880,646,144.
    // Backward, per block: the weighted part (LayerNorms and matmuls, 14,503,378,944) twice,
    // 29,006,757,888; the core's four products of two activations 2 x 3,221,225,472 = 6,442,450,944; the
    // softmax, GELU, dropouts and adds once, 62,914,560 + 28,311,552 + 3,145,728 = 94,371,840;
    // 35,543,580,672. Outside: wpe 2 x 786,432 (its weight trains, its input needs a gradient), drop 786,432,
    // ln_f 2 x 3,932,160, lm_head (tied to wte, which trains) 2 x 79,047,426,048 = 158,094,852,096. Backward:
    // 12 x 35,543,580,672 + 158,105,075,712 = 584,628,043,776. (Before attention counted per operand: 585.1
    // GFLOP for the preset, whose layers counted the core twice, and 546.0 for the import, whose
    // parameter-free attention layer counted it once.)
    const Network preset
        = loaded(loadModelFile(HEADROOM_TEST_SOURCE_DIR "/resources/presets/gpt2_small.json"));
    const Analysis p = analyzed(preset);
    const Analysis i = analyzed(hfModel("gpt2.json", 1024));
    QCOMPARE(p.totalParams, i.totalParams);
    QCOMPARE(i.forwardFlopsPerSample, std::uint64_t { 292880646144 });
    QCOMPARE(i.backwardFlopsPerSample, std::uint64_t { 584628043776 });
    QCOMPARE(p.forwardFlopsPerSample, i.forwardFlopsPerSample);
    QCOMPARE(p.backwardFlopsPerSample, i.backwardFlopsPerSample);
    // SDPA's flash kernels recompute Q K^T and the softmax: 12 x (1,610,612,736 + 62,914,560).
    QCOMPARE(i.attentionRecomputeFlopsPerSample, std::uint64_t { 20082327552 });
    QCOMPARE(p.attentionRecomputeFlopsPerSample, i.attentionRecomputeFlopsPerSample);
}

void TestThroughput::gpt2MatchesNarayanan()
{
    // Narayanan et al. 2021 (Megatron-LM), §5.1: a GPT of l layers, hidden h, sequence s, vocabulary V
    // costs F = 72 B s l h^2 (1 + s / 6h + V / 12 h l) FLOPs per iteration of batch B. It counts matmuls
    // only, with backward = 2 x forward for every one of them, the attention's Q K^T and P V included:
    // per layer 24 s h^2 (q, k, v, out projections 8, MLP 16) + 4 s^2 h (the core) forward, times 3;
    // the logits 2 s h V, times 3. GPT-2 small, B = 1, s = 1,024, l = 12, h = 768, V = 50,257:
    //   72 s l h^2 = 521,838,526,464;  x s / 6h = 115,964,116,992;  x V / 12 h l = 237,142,278,144
    //   F = 874,944,921,600.
    // Headroom also counts what is not a matmul (forward + backward; weighted layers backward twice):
    //   per block: LayerNorms 3 x 7,864,320 = 23,592,960; softmax 2 x 62,914,560 = 125,829,120;
    //              dropouts and adds 2 x 3,145,728 = 6,291,456; NewGELU 2 x 28,311,552 = 56,623,104:
    //              212,336,640, x 12 = 2,548,039,680
    //   outside: wpe 3 x 786,432 = 2,359,296; drop 2 x 786,432 = 1,572,864; ln_f 3 x 3,932,160 =
    //            11,796,480: 15,728,640
    //   2,563,768,320 in all (0.3% of F).
    const Analysis a = analyzed(hfModel("gpt2.json", 1024));
    const std::uint64_t narayanan = 874944921600;
    QCOMPARE(a.forwardFlopsPerSample + a.backwardFlopsPerSample, narayanan + std::uint64_t { 2563768320 });
}

void TestThroughput::llamaAndMistralMatchNarayanan_data()
{
    // Narayanan's formula adapted to Llama-style blocks (per layer, forward matmuls, B = 1):
    //   q and o projections 2 x 2 s h^2; k and v 2 x 2 s h (g / n) h with g key/value heads of n
    //   (grouped-query attention; g = n gives the formula's 8 s h^2 for all four); SwiGLU's three
    //   matrices gate, up, down 3 x 2 s h ff in place of the MLP's 2 x 2 s h 4h; the core 4 s^2 h (k and v
    //   are repeated to every query head, so the products keep their size). Times 3 (backward = 2 x
    //   forward), plus the untied logits 3 x 2 s h V.
    // Plus what is not a matmul, per layer (forward + backward): RMSNorms 2 x 5 s h x 3; softmax 5 n s^2
    // x 2; rotary 3 (s h + s h g / n) x 2; SiLU 5 s ff, the gate product s ff, 2 adds 2 s h, each x 2;
    // and the final RMSNorm 5 s h x 3.
    QTest::addColumn<QString>("config");
    QTest::addColumn<quint64>("narayanan");
    QTest::addColumn<quint64>("elementwise");
    QTest::addColumn<quint64>("backward");
    // Llama-2-7B at s = 4,096: h = 4,096, n = g = 32 (no grouped-query attention), ff = 11,008, V = 32,000,
    // l = 32. Per layer, forward matmuls: 8 s h^2 = 549,755,813,888; 6 s h ff = 1,108,101,562,368; core
    // 4 s^2 h = 274,877,906,944: 1,932,735,283,200, x 3 x 32 = 185,542,587,187,200; logits 6 s h V =
    // 3,221,225,472,000. F = 188,763,812,659,200.
    // Not matmuls, per layer: RMSNorms 3 x 167,772,160 = 503,316,480; softmax 2 x 2,684,354,560 =
    // 5,368,709,120; rotary 2 x 3 x 2 s h = 201,326,592; SiLU 225,443,840 + product 45,088,768 + adds
    // 33,554,432 = 304,087,040, x 2 = 608,174,080: 6,681,526,272, x 32 = 213,808,840,704; final norm
    // 3 x 83,886,080 = 251,658,240. 214,060,498,944 in all.
    // Backward alone: the matmuls 2 x (32 x 1,932,735,283,200 + 1,073,741,824,000) = 125,842,541,772,800
    // plus RMSNorms 2 x 167,772,160, softmax 2,684,354,560, rotary 100,663,296, SiLU / product / adds
    // 304,087,040 = 3,424,649,216 per layer, x 32 = 109,588,774,912, final norm 167,772,160:
    // 125,952,298,319,872 (about 126 TFLOP; 117.2 when the core's backward counted once).
    QTest::newRow("Llama-2-7B") << "Llama-2-7b-hf.json" << quint64 { 188763812659200 }
                                << quint64 { 214060498944 } << quint64 { 125952298319872 };
    // Mistral-7B at s = 4,096: h = 4,096, n = 32, g = 8 (k and v 1,024 wide), ff = 14,336, V = 32,000.
    // Per layer, forward matmuls: q and o 4 s h^2 = 274,877,906,944; k and v 4 s h 1,024 =
    // 68,719,476,736; 6 s h ff = 1,443,109,011,456; core 274,877,906,944: 2,061,584,302,080, x 3 x 32 =
    // 197,912,092,999,680; logits 3,221,225,472,000. F = 201,133,318,471,680.
    // Not matmuls, per layer: RMSNorms 503,316,480; softmax 5,368,709,120; rotary 2 x 3 x (s h + s 1,024)
    // = 125,829,120; SiLU 293,601,280 + product 58,720,256 + adds 33,554,432 = 385,875,968, x 2 =
    // 771,751,936: 6,769,606,656, x 32 = 216,627,412,992; final norm 251,658,240: 216,879,071,232.
    // Backward: matmuls 2 x (32 x 2,061,584,302,080 + 1,073,741,824,000) = 134,088,878,981,120; the
    // rest (335,544,320 + 2,684,354,560 + 62,914,560 + 385,875,968) x 32 + 167,772,160 = 111,165,833,216:
    // 134,200,044,814,336.
    QTest::newRow("Mistral-7B (grouped-query)") << "Mistral-7B-v0.1.json" << quint64 { 201133318471680 }
                                                << quint64 { 216879071232 } << quint64 { 134200044814336 };
}

void TestThroughput::llamaAndMistralMatchNarayanan()
{
    QFETCH(QString, config);
    QFETCH(quint64, narayanan);
    QFETCH(quint64, elementwise);
    QFETCH(quint64, backward);
    const Analysis a = analyzed(hfModel(qPrintable(config), 4096));
    QCOMPARE(a.backwardFlopsPerSample, std::uint64_t { backward });
    QCOMPARE(a.forwardFlopsPerSample + a.backwardFlopsPerSample, std::uint64_t { narayanan + elementwise });
    QCOMPARE(rowBackwardSum(a), a.backwardFlopsPerSample);
}

void TestThroughput::selectiveRecomputesTheAttentionCore()
{
    // GPT-2 (imported) with eager attention keeps the probabilities; selective checkpointing drops them
    // and backward runs each block's core again: Q K^T 1,610,612,736 + P V 1,610,612,736 + softmax
    // 62,914,560 = 3,284,140,032, x 12 = 39,409,680,384, +13.5% on the forward 292,880,646,144
    // (Q K^T and the softmax alone, 20,082,327,552, would be +6.9%).
    const Network n = hfModel("gpt2.json", 1024);
    const Analysis a = analyzed(n, AttentionImplementation::Eager, Checkpointing::Selective);
    QCOMPARE(a.recomputeFlopsPerSample, std::uint64_t { 39409680384 });
    QCOMPARE(a.forwardFlopsPerSample, std::uint64_t { 292880646144 });
    const Analysis none = analyzed(n, AttentionImplementation::Eager);
    QCOMPARE(none.recomputeFlopsPerSample, std::uint64_t { 0 });
    QCOMPARE(a.backwardFlopsPerSample, none.backwardFlopsPerSample);
    // The eager path recomputes nothing inside its backward.
    QCOMPARE(a.attentionRecomputeFlopsPerSample, std::uint64_t { 0 });
    // Flash attention keeps no probabilities, so selective checkpointing has nothing to drop; its kernel
    // recomputes Q K^T and the softmax anyway: 12 x (1,610,612,736 + 62,914,560).
    const Analysis flash = analyzed(n, AttentionImplementation::Sdpa, Checkpointing::Selective);
    QCOMPARE(flash.recomputeFlopsPerSample, std::uint64_t { 0 });
    QCOMPARE(flash.attentionRecomputeFlopsPerSample, std::uint64_t { 20082327552 });
    // The preset's TransformerEncoderLayers drop and recompute the same.
    const Network preset
        = loaded(loadModelFile(HEADROOM_TEST_SOURCE_DIR "/resources/presets/gpt2_small.json"));
    QCOMPARE(
        analyzed(preset, AttentionImplementation::Eager, Checkpointing::Selective).recomputeFlopsPerSample,
        std::uint64_t { 39409680384 });
}

void TestThroughput::rowBackwardSumsToTotal_data()
{
    QTest::addColumn<int>("which");
    QTest::newRow("GPT-2 import") << 0;
    QTest::newRow("GPT-2 preset, per-block checkpointing") << 1;
    QTest::newRow("TinyLlama with LoRA on q_proj and v_proj") << 2;
    QTest::newRow("LeNet-5 with a frozen first convolution") << 3;
}

void TestThroughput::rowBackwardSumsToTotal()
{
    QFETCH(int, which);
    Analysis a;
    if (which == 0) {
        a = analyzed(hfModel("gpt2.json", 256));
    } else if (which == 1) {
        a = analyzed(loaded(loadModelFile(HEADROOM_TEST_SOURCE_DIR "/resources/presets/gpt2_small.json")),
            AttentionImplementation::Sdpa, Checkpointing::PerBlock);
    } else if (which == 2) {
        AnalysisOptions o;
        o.precision = Precision::AmpBf16;
        o.lora.rank = 8;
        o.lora.targets = { "q_proj", "v_proj" };
        a = analyze(hfModel("TinyLlama-1.1B-Chat-v1.0.json", 256), o);
    } else {
        Network n = lenet5();
        n.layers[0].frozen = true;
        a = analyze(n, Precision::Fp32);
    }
    QVERIFY2(a.valid(), a.error ? a.error->message.c_str() : "");
    QVERIFY(a.backwardFlopsPerSample > 0);
    QCOMPARE(rowBackwardSum(a), a.backwardFlopsPerSample);
    for (const auto& row : a.rows) {
        if (row.type == "Repeat" || row.name == "loss")
            QCOMPARE(row.backwardFlopsPerSample, std::uint64_t { 0 });
    }
}
QTEST_APPLESS_MAIN(TestThroughput)
#include "tst_throughput.moc"

// The throughput estimate (docs/throughput.md): step times worked out by hand from analyses built
// with known FLOP and byte counts, and the catalogue's peak figures checked against the vendors'
// published specifications.
#include "NetworkBuilder.h"
#include "headroom/Throughput.h"

#include <QTest>

#include <cmath>
#include <limits>

using namespace headroom;
using namespace headroom::test;

namespace {

const GpuCatalog& catalogue()
{
    static const GpuCatalog c = [] {
        auto loaded = GpuCatalog::fromFile(HEADROOM_TEST_SOURCE_DIR "/resources/gpus.json");
        return loaded ? loaded.value() : GpuCatalog{};
    }();
    return c;
}

Gpu gpu(const char* name)
{
    auto found = catalogue().find(name);
    if (!found)
        qFatal("GPU %s missing from resources/gpus.json: %s", name, found.error().message.c_str());
    return found.value();
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

#define VERIFY_NEAR(actual, expected) QVERIFY2(near((actual), (expected)), qPrintable(describe((actual), (expected))))

bool hasNoteContaining(const ThroughputEstimate& t, const std::string& text)
{
    for (const auto& n : t.notes)
        if (n.find(text) != std::string::npos)
            return true;
    return false;
}

} // namespace

class TestThroughput : public QObject {
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
    const std::string warning
        = "GeForce GTX 1080 runs fp16 at 1/64 of its fp32 rate; mixed precision will be slower than fp32 on this card";
    QCOMPARE(amp->notes.front(), warning);
    QVERIFY(!hasNoteContaining(*fp32, "1/64"));
    // Pure fp16 warns too.
    const auto pure = estimateThroughput(handAnalysis(Precision::Fp16, 1'000'000, 1'000'000'000, 2'000'000'000),
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
    QVERIFY2(t.error().message.starts_with("GeForce GTX 1080 has no bfloat16 support"), t.error().message.c_str());
    QCOMPARE(t.error().location, std::string{"precision"});
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
    const auto t = estimateThroughput(handAnalysis(Precision::Fp32, 1000, 1000, 2000), s, gpu("A100 SXM4 80GB"));
    QCOMPARE(t.ok(), ok);
    if (!ok)
        QCOMPARE(t.error().location, std::string{"assumed_utilization"});
    else
        QCOMPARE(t->utilization, utilization);
}

void TestThroughput::utilizationNoteIsAlwaysThere()
{
    auto s = setup(Optimizer::Adam, 1);
    s.assumedUtilization = 0.375;
    const auto t = estimateThroughput(handAnalysis(Precision::Fp32, 1000, 1000, 2000), s, gpu("GTX 1080"));
    QVERIFY(t.ok());
    QVERIFY(hasNoteContaining(*t, "Assumes 37.5% of the fp32 peak (model FLOPs utilisation); large transformer "
                                  "training typically reaches 30-50%, small CNNs less"));
}

void TestThroughput::backwardDefaultsToTwiceForward()
{
    // An analysis without backward FLOPs: 2 x forward (Kaplan et al. 2020: 6N per token in all).
    auto t = estimateThroughput(handAnalysis(Precision::Fp32, 1000, 5'000'000, 0), setup(Optimizer::Adam, 1),
                                gpu("A100 SXM4 80GB"));
    QVERIFY(t.ok());
    QCOMPARE(t->backwardFlopsPerSample, 10e6);
    VERIFY_NEAR(t->flopsPerStep, 15e6);
    // The analysis's own figure wins when it has one (frozen layers: 1 x forward).
    t = estimateThroughput(handAnalysis(Precision::Fp32, 1000, 5'000'000, 5'000'000), setup(Optimizer::Adam, 1),
                           gpu("A100 SXM4 80GB"));
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
    const auto t = estimateThroughput(handAnalysis(Precision::AmpBf16, 1000, 1'000'000'000, 2'000'000'000), s,
                                      gpu("H100 SXM"));
    QVERIFY(t.ok());
    VERIFY_NEAR(t->flopsPerStep, 12e9);
    const double step = 12e9 / (989.5e12 * 0.4);
    VERIFY_NEAR(t->stepSeconds, step);
    VERIFY_NEAR(t->samplesPerSecond, 32 / step);
    QVERIFY(hasNoteContaining(*t, "not modelled"));
}

void TestThroughput::badSetupsAreRefused()
{
    const auto a = handAnalysis(Precision::Fp32, 1000, 1000, 2000);
    const Gpu g = gpu("GTX 1080");
    auto s = setup(Optimizer::Adam, 0);
    QCOMPARE(estimateThroughput(a, s, g).error().location, std::string{"batch"});
    s = setup(Optimizer::Adam, 1, 0);
    QCOMPARE(estimateThroughput(a, s, g).error().location, std::string{"accumulation_steps"});
    s = setup(Optimizer::Adam, 1);
    s.parallel.gpus = 6;
    s.parallel.tensorParallel = 4;
    QCOMPARE(estimateThroughput(a, s, g).error().location, std::string{"parallel"});
    s.parallel.gpus = 0;
    s.parallel.tensorParallel = 1;
    QCOMPARE(estimateThroughput(a, s, g).error().location, std::string{"parallel"});
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
    const auto a = analyze(network({3, 8, 8}, {layer("Conv2d", {{"out_channels", 4}, {"kernel_size", 9}}, "conv")}),
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
    row.inputs = {"input"};
    row.output = TensorInfo{Shape{{1024, 768}}, DType::Float32};
    a.rows.push_back(row);
    const auto t = estimateThroughput(a, setup(Optimizer::Adam, 8), gpu("A100 SXM4 80GB"));
    QVERIFY(t.ok());
    QCOMPARE(t->sequenceLength, std::int64_t{1024});
    // 8 samples per 24e9 / 124.8e12 s = 41,600 samples/s; x 1,024 tokens
    VERIFY_NEAR(t->samplesPerSecond, 41600.0);
    VERIFY_NEAR(t->tokensPerSecond, 41600.0 * 1024);

    // The same rule on a real analysis: token ids [16] into an Embedding and a Linear head.
    const auto real = analyze(network({16},
                                      {layer("Embedding", {{"num_embeddings", 100}, {"embedding_dim", 8}}),
                                       layer("Linear", {{"out_features", 100}})},
                                      Loss::CrossEntropy, DType::Int64),
                              Precision::Fp32);
    QVERIFY2(real.valid(), real.error ? real.error->message.c_str() : "");
    const auto r = estimateThroughput(real, setup(Optimizer::Adam, 4), gpu("GTX 1080"));
    QVERIFY(r.ok());
    QCOMPARE(r->sequenceLength, std::int64_t{16});
    VERIFY_NEAR(r->tokensPerSecond, 16 * r->samplesPerSecond);
}

void TestThroughput::tokensPerSecondForFeatureSequence()
{
    // Features [T = 50, E = 32] into an LSTM: 50 tokens (time steps) per sample.
    const auto a = analyze(network({50, 32}, {layer("LSTM", {{"hidden_size", 64}}), layer("Flatten"),
                                              layer("Linear", {{"out_features", 10}})}),
                           Precision::Fp32);
    QVERIFY2(a.valid(), a.error ? a.error->message.c_str() : "");
    const auto t = estimateThroughput(a, setup(Optimizer::Adam, 4), gpu("GTX 1080"));
    QVERIFY(t.ok());
    QCOMPARE(t->sequenceLength, std::int64_t{50});
    VERIFY_NEAR(t->tokensPerSecond, 50 * t->samplesPerSecond);
}

void TestThroughput::noTokensForImages()
{
    const auto t = estimateThroughput(analyze(lenet5(), Precision::Fp32), setup(Optimizer::Adam, 32), gpu("GTX 1080"));
    QVERIFY(t.ok());
    QVERIFY(t->samplesPerSecond > 0);
    QCOMPARE(t->sequenceLength, std::int64_t{0});
    QCOMPARE(t->tokensPerSecond, 0.0);
}

void TestThroughput::tf32NoteForConvolutionsOnAmpere()
{
    // cuDNN may use TF32 for fp32 convolutions on Ampere and newer (torch.backends.cudnn.allow_tf32
    // defaults to True); Pascal has no TF32, and a network without convolutions is unaffected.
    const auto lenet = analyze(lenet5(), Precision::Fp32);
    const auto a100 = estimateThroughput(lenet, setup(Optimizer::Adam, 32), gpu("A100 SXM4 80GB"));
    const auto gtx = estimateThroughput(lenet, setup(Optimizer::Adam, 32), gpu("GTX 1080"));
    const auto mlp = estimateThroughput(handAnalysis(Precision::Fp32, 1000, 1000, 2000), setup(Optimizer::Adam, 32),
                                        gpu("A100 SXM4 80GB"));
    QVERIFY(a100.ok() && gtx.ok() && mlp.ok());
    QVERIFY(hasNoteContaining(*a100, "TF32"));
    QVERIFY(!hasNoteContaining(*gtx, "TF32"));
    QVERIFY(!hasNoteContaining(*mlp, "TF32"));
}

QTEST_APPLESS_MAIN(TestThroughput)
#include "tst_throughput.moc"

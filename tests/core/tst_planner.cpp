// The planner (issue 18): the set-ups that fit and reach a goal, ranked by throughput, worked out by
// hand on tinyMlp(); every set-up it lists re-estimated on real networks; an impossible goal; and every
// GPU side by side against max batch.
#include "CatalogueGpus.h"
#include "NestedRepeatFile.h"
#include "NetworkBuilder.h"
#include "headroom/importers/HfConfig.h"
#include "headroom/model/ModelFile.h"
#include "headroom/planner/Planner.h"
#include "headroom/setup/GpuCatalog.h"
#include "headroom/support/Format.h"

#include <QTest>
#include <algorithm>
#include <cmath>

using namespace headroom;
using namespace headroom::test;

namespace {

/// A GPU of `bytes` with figures for the throughput estimate (1 TFLOP/s fp32, 100 GB/s).
Gpu testGpu(std::uint64_t bytes, std::string name = "Test GPU")
{
    Gpu g;
    g.name = std::move(name);
    g.vendor = "Test";
    g.memoryBytes = bytes;
    g.bandwidthGBps = 100;
    g.fp32Tflops = 1;
    g.fp16Tflops = 2;
    return g;
}

/// tinyMlp(), Adam, fp32, no overhead, on `gpu`; the max batch from the tensors alone: these tests
/// work the search out by hand on budgets of a few hundred bytes, far below the allocator's smallest
/// segment (2 MiB), where the reserved model rightly fits nothing (everySetupReEstimates and
/// compareAgreesWithMaxBatch check the search with it).
Plan tinyPlan(const Gpu& gpu)
{
    Plan p;
    p.network = tinyMlp();
    p.setup.overheadBytes = 0;
    p.reservedModel = false;
    p.gpu = gpu;
    return p;
}

Plan presetPlan(const std::string& file, const std::string& gpu)
{
    Plan p;
    const std::string path = HEADROOM_TEST_SOURCE_DIR + file;
    auto network = file.ends_with("config.json") || file.find("/hf/") != std::string::npos
        ? importHfConfigFile(path)
        : loadModelFile(path);
    if (!network)
        qFatal("%s: %s", path.c_str(), network.error().message.c_str());
    p.network = std::move(network).value();
    p.gpu = catalogueGpu(gpu);
    return p;
}

PlannerResult planned(const Plan& plan, const PlanGoal& goal, const PlanAllowances& allow = {})
{
    auto r = planSetups(plan, goal, allow);
    if (!r)
        qFatal("planSetups: %s", r.error().message.c_str());
    return std::move(r).value();
}

} // namespace

Q_DECLARE_METATYPE(headroom::PlanAllowances)

class TestPlanner : public QObject
{
    Q_OBJECT
private slots:
    void tinyMlpFitsAsGiven();
    void tinyMlpAccumulates();
    void tinyMlpOffloadsWhenNothingElseFits();
    void tinyMlpNothingFits();
    void targetOutOfReach();
    void stepTimeLimit();
    void everySetupReEstimates_data();
    void everySetupReEstimates();
    void precisionRankedByTheCard();
    void batchNormMakesAccumulationChangeTraining();
    void invalidPlanIsAnError();
    void compareTinyMlpByHand();
    void compareAgreesWithMaxBatch();
    void nestedRepeatsBoundTheSearch();
    void rankingRuleByHand();
    void applyingAListedSetupListsTheSameOnes();
};

// tinyMlp()'s steady step at micro-batch B with Adam in fp32 (tst_steptimeline works out every moment):
// weights 232 + state 464 + the batch 24 B, plus the largest of relu's backward 96 B + 72, fc1's
// backward 32 B + 232 (both with the 4-byte loss the training loop holds through backward), and the
// optimizer step's gradients 232 + temporaries (foreach 232, fused 0, for-loop 256). From B = 5 relu's
// backward is the peak in every implementation: 772 + 120 B. A GPU of 1,972 bytes holds B = 10
// exactly (772 + 1,200).
void TestPlanner::tinyMlpFitsAsGiven()
{
    const auto r = planned(tinyPlan(testGpu(1972)), PlanGoal { 10, {} });
    // Fused and for-loop change nothing at B = 10 (same peak, same speed): only the plan as given.
    QCOMPARE(r.candidates.size(), std::size_t { 1 });
    const PlanCandidate& c = r.candidates.front();
    QVERIFY(c.changes.empty());
    QCOMPARE(c.settings.setup.batch, std::int64_t { 10 });
    QCOMPARE(c.settings.setup.accumulationSteps, std::int64_t { 1 });
    QCOMPARE(c.estimate.peakBytes(), std::uint64_t { 1972 });
    QCOMPARE(c.estimate.maxBatch, std::int64_t { 10 });
    QVERIFY(c.estimate.fits);
    QVERIFY(c.paretoOptimal);
    QVERIFY(!c.changesTraining());
    QVERIFY(!r.closest);
}

// An effective batch of 20 on the same 1,972 bytes: B = 20 alone needs 772 + 2,400. With accumulation
// a later micro-batch runs with every gradient (232) alive: relu's backward is 932 + 120 B, which
// holds B = 8 (1,892; B = 9 is 2,012). 20 samples in micro-batches of at most 8 take 3 steps, but 3 does
// not divide 20: 4 steps of 5 is exact. At B = 5 the peak is 932 + 600 = 1,532.
void TestPlanner::tinyMlpAccumulates()
{
    const auto r = planned(tinyPlan(testGpu(1972)), PlanGoal { 20, {} });
    QCOMPARE(r.candidates.size(), std::size_t { 1 });
    const PlanCandidate& c = r.candidates.front();
    QCOMPARE(c.changes.size(), std::size_t { 1 });
    QCOMPARE(c.changes.front().setting, SetupSetting::Accumulation);
    QCOMPARE(c.changes.front().value, std::string("4"));
    QVERIFY(!c.changes.front().changesTraining); // no batch norm
    QCOMPARE(c.settings.setup.batch, std::int64_t { 5 });
    QCOMPARE(c.settings.setup.accumulationSteps, std::int64_t { 4 });
    QCOMPARE(c.estimate.effectiveBatch, std::int64_t { 20 });
    QCOMPARE(c.estimate.peakBytes(), std::uint64_t { 1532 });
    QCOMPARE(c.estimate.maxBatch, std::int64_t { 8 });
}

// 900 bytes: at B = 1 foreach needs 720 + 464 = 1,184, for-loop 720 + 488 = 1,208, fused 720 +
// max(172, 268, 232) = 988: nothing fits on the GPU alone, so the planner offloads (ZeRO-Offload on one
// GPU). ZeRO-2 and ZeRO-3 offload the state and the gradients: weights 232 + the batch 24 B + relu's
// backward 96 B + the loss 4 = 236 + 120 B, which holds B = 5 (836). ZeRO-1 (and FSDP, whose gradients
// stay) offloads the state only: 232 + 24 B + relu's backward 96 B + 72 + 4, B = 4 (788; B = 5 is 908). Every
// optimizer implementation steps on the CPU there, so it changes nothing.
void TestPlanner::tinyMlpOffloadsWhenNothingElseFits()
{
    const auto r = planned(tinyPlan(testGpu(900)), PlanGoal {});
    QCOMPARE(r.candidates.size(), std::size_t { 2 });
    const PlanCandidate& zero2 = r.candidates[0];
    QCOMPARE(zero2.settings.setup.parallel.sharding, Sharding::Zero2);
    QVERIFY(zero2.settings.setup.parallel.offloadOptimizer);
    QCOMPARE(zero2.settings.setup.batch, std::int64_t { 5 });
    QCOMPARE(zero2.estimate.peakBytes(), std::uint64_t { 836 });
    QCOMPARE(zero2.changes.size(), std::size_t { 2 });
    QCOMPARE(zero2.changes[0].setting, SetupSetting::Sharding);
    QCOMPARE(zero2.changes[1].setting, SetupSetting::Offload);
    const PlanCandidate& zero1 = r.candidates[1];
    QCOMPARE(zero1.settings.setup.parallel.sharding, Sharding::Zero1);
    QCOMPARE(zero1.settings.setup.batch, std::int64_t { 4 });
    QCOMPARE(zero1.estimate.peakBytes(), std::uint64_t { 788 });
    // Faster (a larger batch) against smaller: both on the front.
    QVERIFY(zero2.samplesPerSecondPerGpu() > zero1.samplesPerSecondPerGpu());
    QVERIFY(zero2.paretoOptimal && zero1.paretoOptimal);
}

// 300 bytes: the least any set-up needs at B = 1 is ZeRO-2 with offload, 236 + 120 = 356: 56 over.
void TestPlanner::tinyMlpNothingFits()
{
    const auto r = planned(tinyPlan(testGpu(300)), PlanGoal {});
    QVERIFY(r.candidates.empty());
    QVERIFY(r.closest && r.shortfall);
    QCOMPARE(r.shortfall->kind, PlanShortfall::Kind::Memory);
    QCOMPARE(r.shortfall->bytesOver, std::uint64_t { 56 });
    QCOMPARE(r.closest->estimate.peakBytes(), std::uint64_t { 356 });
    QCOMPARE(r.closest->settings.setup.parallel.sharding, Sharding::Zero2);
    QVERIFY(r.closest->settings.setup.parallel.offloadOptimizer);
    QVERIFY2(r.shortfall->text().find(formatBytes(56)) != std::string::npos, r.shortfall->text().c_str());
}

// With accumulation and ZeRO-2 offload (its gradients leave the GPU), a later micro-batch holds
// weights 232 + the batch 24 B + at most relu's backward 96 B + the loss 4 (fc2's backward: 308 + 96 B
// with its 72-byte gradient temporary; fc1's: 396 + 56 B): 236 + 120 B fits 1,972 bytes up to B = 14
// (1,916).
// Steps go to 2^20: 14,680,064 samples, so a target of 2^31 is 2,132,803,584 short.
void TestPlanner::targetOutOfReach()
{
    const auto r = planned(tinyPlan(testGpu(1972)), PlanGoal { kMaxBatch, {} });
    QVERIFY(r.candidates.empty());
    QVERIFY(r.shortfall);
    QCOMPARE(r.shortfall->kind, PlanShortfall::Kind::Batch);
    QCOMPARE(r.shortfall->batchShort, std::int64_t { 2132803584 });
    QCOMPARE(r.closest->settings.setup.batch, std::int64_t { 14 });
    QCOMPARE(r.closest->settings.setup.accumulationSteps, kMaxAccumulationSteps);
    QCOMPARE(r.closest->settings.setup.parallel.sharding, Sharding::Zero2);
}

void TestPlanner::stepTimeLimit()
{
    const Plan plan = presetPlan("/resources/presets/vgg16.json", "GTX 1080");
    const auto free = planned(plan, PlanGoal { 64, {} });
    QVERIFY(!free.candidates.empty());
    const double fastest = free.candidates.front().throughput->stepSeconds;
    // A limit between the fastest and the slowest keeps exactly the set-ups within it.
    const double slowest = free.candidates.back().throughput->stepSeconds;
    const double limit = (fastest + slowest) / 2;
    const auto limited = planned(plan, PlanGoal { 64, limit });
    const auto within = std::count_if(free.candidates.begin(), free.candidates.end(),
        [&](const PlanCandidate& c) { return c.throughput->stepSeconds <= limit; });
    QVERIFY(within > 0);
    QCOMPARE(static_cast<std::ptrdiff_t>(limited.candidates.size()), within);
    // Below the fastest: nothing fits, and the closest is the fastest, over by the difference.
    const auto impossible = planned(plan, PlanGoal { 64, fastest / 2 });
    QVERIFY(impossible.candidates.empty());
    QCOMPARE(impossible.shortfall->kind, PlanShortfall::Kind::StepTime);
    QCOMPARE(impossible.closest->throughput->stepSeconds, fastest);
    QCOMPARE(impossible.shortfall->secondsOver, fastest - fastest / 2);
}

void TestPlanner::everySetupReEstimates_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("gpu");
    QTest::addColumn<int>("gpus");
    QTest::addColumn<qlonglong>("target"); // 0: as large as possible
    QTest::addColumn<int>("sequenceLength"); // 0: as in the model
    QTest::addColumn<PlanAllowances>("allow");
    const PlanAllowances none;
    const PlanAllowances all { true, true, true };
    QTest::newRow("vgg16 gtx1080 256") << "/resources/presets/vgg16.json"
                                       << "GTX 1080" << 1 << 256LL << 0 << none;
    QTest::newRow("vgg16 gtx1080 256 all") << "/resources/presets/vgg16.json"
                                           << "GTX 1080" << 1 << 256LL << 0 << all;
    QTest::newRow("vgg16 largest") << "/resources/presets/vgg16.json"
                                   << "RTX 3090" << 1 << 0LL << 0 << all;
    QTest::newRow("resnet50 4 gpus") << "/resources/presets/resnet50.json"
                                     << "RTX 4090" << 4 << 1024LL << 0
                                     << PlanAllowances { true, false, false };
    QTest::newRow("gpt2 8 gpus") << "/resources/presets/gpt2_small.json"
                                 << "A100 SXM4 40GB" << 8 << 512LL << 0 << all;
    QTest::newRow("llama-2-7b 4090 lora")
        << "/tests/data/hf/Llama-2-7b-hf.json"
        << "RTX 4090" << 1 << 16LL << 512 << PlanAllowances { true, true, false };
    QTest::newRow("odd target on 3 gpus") << "/resources/presets/resnet18.json"
                                          << "RTX 3060" << 3 << 100LL << 0 << none;
}

void TestPlanner::everySetupReEstimates()
{
    QFETCH(QString, file);
    QFETCH(QString, gpu);
    QFETCH(int, gpus);
    QFETCH(qlonglong, target);
    QFETCH(int, sequenceLength);
    QFETCH(PlanAllowances, allow);
    Plan base = presetPlan(file.toStdString(), gpu.toStdString());
    base.setup.parallel.gpus = gpus;
    if (sequenceLength > 0)
        base.sequenceLength = sequenceLength;
    PlanGoal goal;
    if (target > 0)
        goal.targetBatch = target;
    const auto r = planned(base, goal, allow);
    QVERIFY2(
        !r.candidates.empty(), r.shortfall ? r.shortfall->text().c_str() : "no candidates and no shortfall");
    double previous = INFINITY;
    for (std::size_t i = 0; i < r.candidates.size(); ++i) {
        const PlanCandidate& c = r.candidates[i];
        const QByteArray where = QByteArray("set-up ") + QByteArray::number(static_cast<qulonglong>(i + 1));
        // What `headroom estimate` computes for this set-up is what the planner listed.
        const Plan plan = c.settings.appliedTo(base);
        const PlanResult result = evaluate(plan);
        QVERIFY2(result.estimate, where.constData());
        QVERIFY2(result.estimate->fits, where.constData());
        QCOMPARE(result.estimate->peakBytes(), c.estimate.peakBytes());
        // What the GPU holds at the peak (issue 34): the reserved peak of the replay at the set-up's
        // batch plus the overhead, as `estimate` judges the fit and the headroom; the tensors' peak
        // only where the allocator cannot be replayed.
        if (result.reservedFigures) {
            QCOMPARE(c.estimate.fitBasis, FitBasis::Reserved);
            QCOMPARE(c.estimate.heldBytes,
                result.reservedFigures->peakReservedBytes + result.reservedFigures->overheadBytes);
        } else {
            QCOMPARE(c.estimate.fitBasis, FitBasis::Tensors);
            QCOMPARE(c.estimate.heldBytes, c.estimate.peakBytes());
        }
        QCOMPARE(result.estimate->heldBytes, c.estimate.heldBytes);
        QCOMPARE(result.estimate->maxBatch, c.estimate.maxBatch);
        QCOMPARE(result.estimate->effectiveBatch, c.estimate.effectiveBatch);
        if (target > 0) {
            QVERIFY2(c.estimate.effectiveBatch >= target, where.constData());
            // Exact whenever the GPUs divide the target.
            if (target % (c.settings.setup.parallel.dataParallel()) == 0)
                QCOMPARE(c.estimate.effectiveBatch, static_cast<std::int64_t>(target));
        } else {
            QCOMPARE(c.settings.setup.batch, c.estimate.maxBatch);
        }
        const auto t = estimateThroughput(result.analysis, plan.setup, plan.gpu);
        QCOMPARE(t.ok(), c.throughput.has_value());
        if (t)
            QCOMPARE(t->samplesPerSecond, c.throughput->samplesPerSecond);
        // Ranked by samples per second per GPU.
        QVERIFY2(c.samplesPerSecondPerGpu() <= previous, where.constData());
        previous = c.samplesPerSecondPerGpu();
        // Only what is allowed changes training, and every such change says so.
        for (const SetupChange& change : c.changes) {
            if (change.setting == SetupSetting::Precision || change.setting == SetupSetting::Lora
                || change.setting == SetupSetting::EightBitOptimizer)
                QVERIFY2(change.changesTraining, change.text.c_str());
            if (change.setting == SetupSetting::Checkpointing || change.setting == SetupSetting::Sharding
                || change.setting == SetupSetting::OptimizerImplementation
                || change.setting == SetupSetting::TensorParallel || change.setting == SetupSetting::Offload)
                QVERIFY2(!change.changesTraining, change.text.c_str());
        }
        if (!allow.precision)
            QCOMPARE(c.settings.precision, base.precision);
        if (!allow.lora)
            QCOMPARE(c.settings.lora, base.lora);
        if (!allow.eightBitOptimizer)
            QCOMPARE(c.settings.setup.eightBitOptimizer, base.setup.eightBitOptimizer);
        QCOMPARE(c.settings.setup.parallel.gpus, std::int64_t { gpus });
        // The Pareto front, by its definition (docs/planner.md), on the memory the table lists: what the
        // GPU holds at the peak (heldBytes, the reserved peak plus the overhead), not the tensors' peak
        // (issue 34: one notion of memory for the fit, the headroom and the ranking). A set-up is
        // dominated when another is at least as fast and holds no more, and is faster or holds less.
        const bool dominated
            = std::any_of(r.candidates.begin(), r.candidates.end(), [&](const PlanCandidate& o) {
                  return o.samplesPerSecondPerGpu() >= c.samplesPerSecondPerGpu()
                      && o.estimate.heldBytes <= c.estimate.heldBytes
                      && (o.samplesPerSecondPerGpu() > c.samplesPerSecondPerGpu()
                          || o.estimate.heldBytes < c.estimate.heldBytes);
              });
        QCOMPARE(c.paretoOptimal, !dominated);
    }
    // The fastest speed is on the front (among set-ups as fast, the one with the least memory).
    QVERIFY(std::any_of(r.candidates.begin(), r.candidates.end(), [&](const PlanCandidate& c) {
        return c.paretoOptimal && c.samplesPerSecondPerGpu() == r.candidates.front().samplesPerSecondPerGpu();
    }));
}

// A GTX 1080 runs fp16 at 1/64 of its fp32 rate and has no bf16: fp32 must come first. An A100 runs
// bf16 and fp16 at 312 TFLOP/s against 19.5 in fp32: a half precision must come first.
void TestPlanner::precisionRankedByTheCard()
{
    Plan pascal = presetPlan("/resources/presets/vgg16.json", "GTX 1080");
    const auto onPascal = planned(pascal, PlanGoal { 64, {} }, PlanAllowances { true, false, false });
    QCOMPARE(onPascal.candidates.front().settings.precision, Precision::Fp32);
    for (const auto& c : onPascal.candidates)
        QVERIFY(halfType(c.settings.precision) != DType::BFloat16);
    Plan ampere = presetPlan("/resources/presets/vgg16.json", "A100 SXM4 40GB");
    const auto onAmpere = planned(ampere, PlanGoal { 64, {} }, PlanAllowances { true, false, false });
    QVERIFY(onAmpere.candidates.front().settings.precision != Precision::Fp32);
    QVERIFY(onAmpere.candidates.front().changesTraining());
}

// ResNet-18 has batch norm: micro-batches of 32 in place of one batch of 256 normalise over 32 samples.
void TestPlanner::batchNormMakesAccumulationChangeTraining()
{
    const Plan plan = presetPlan("/resources/presets/resnet18.json", "GTX 1050");
    const auto r = planned(plan, PlanGoal { 4096, {} });
    QVERIFY(!r.candidates.empty());
    const auto& c = r.candidates.front();
    const auto accumulation = std::find_if(c.changes.begin(), c.changes.end(),
        [](const SetupChange& x) { return x.setting == SetupSetting::Accumulation; });
    QVERIFY(accumulation != c.changes.end());
    QVERIFY(accumulation->changesTraining);
    QVERIFY2(accumulation->text.find("batch-norm") != std::string::npos, accumulation->text.c_str());
}

void TestPlanner::invalidPlanIsAnError()
{
    Plan p = tinyPlan(testGpu(1 << 20));
    p.network.layers.push_back(layer("Softmax", { { "dim", 5 } }, "bad"));
    const auto r = planSetups(p, PlanGoal {}, PlanAllowances {});
    QVERIFY(!r.ok());
    QVERIFY2(r.error().message.find("bad") != std::string::npos, r.error().message.c_str());
    const auto zero = planSetups(tinyPlan(testGpu(1 << 20)), PlanGoal { 0, {} }, PlanAllowances {});
    QVERIFY(!zero.ok());
    QCOMPARE(zero.error().location, std::string("target_batch"));
}

// tinyMlp at its default batch 32 on three GPUs: 900 bytes holds nothing, 1,972 holds B = 10 (above),
// 4,612 holds B = 32 exactly (tst_steptimeline: 696 + 768 + 3,148). Sorted by memory; with a target of
// 10 the 1,972-byte GPU is the smallest that reaches it; with the set-up's own 32, the 4,612-byte one.
void TestPlanner::compareTinyMlpByHand()
{
    const std::vector<Gpu> gpus { testGpu(4612, "C"), testGpu(900, "A"), testGpu(1972, "B") };
    Plan plan = tinyPlan(gpus.front());
    const auto rows = compareGpus(plan, gpus, 10);
    QVERIFY(rows.ok());
    QCOMPARE(rows->size(), std::size_t { 3 });
    QCOMPARE((*rows)[0].gpu.name, std::string("A"));
    QCOMPARE((*rows)[0].estimate.maxBatch, std::int64_t { 0 });
    QVERIFY(!(*rows)[0].reachesTarget);
    QCOMPARE((*rows)[1].estimate.maxBatch, std::int64_t { 10 });
    QVERIFY((*rows)[1].smallestReachingTarget);
    QCOMPARE((*rows)[2].estimate.maxBatch, std::int64_t { 32 });
    QVERIFY((*rows)[2].estimate.fits);
    QVERIFY(!(*rows)[2].smallestReachingTarget);
    const auto own = compareGpus(plan, gpus, std::nullopt);
    QVERIFY(own.ok());
    QVERIFY(!(*own)[1].reachesTarget);
    QVERIFY((*own)[2].smallestReachingTarget);
}

void TestPlanner::compareAgreesWithMaxBatch()
{
    Plan plan = presetPlan("/resources/presets/resnet50.json", "GTX 1080");
    plan.precision = Precision::AmpFp16;
    plan.setup.accumulationSteps = 4;
    const auto rows = compareGpus(plan, catalogue().gpus(), 256);
    QVERIFY(rows.ok());
    QCOMPARE(rows->size(), catalogue().gpus().size());
    bool flagged = false;
    for (std::size_t i = 0; i < rows->size(); ++i) {
        const GpuComparison& row = (*rows)[i];
        Plan onIt = plan;
        moveToGpu(onIt, row.gpu); // the overhead, at the GTX 1080's CUDA context, follows each GPU's
        const PlanResult r = evaluate(onIt);
        QVERIFY(r.estimate);
        QCOMPARE(row.estimate.maxBatch, r.estimate->maxBatch);
        QCOMPARE(row.estimate.fits, r.estimate->fits);
        QCOMPARE(row.reachesTarget, r.estimate->maxEffectiveBatch >= 256);
        if (i > 0)
            QVERIFY((*rows)[i - 1].gpu.memoryBytes <= row.gpu.memoryBytes);
        if (row.smallestReachingTarget) {
            QVERIFY(!flagged);
            flagged = true;
            QVERIFY(row.reachesTarget);
        } else if (!flagged) {
            QVERIFY(!row.reachesTarget);
        }
    }
    QVERIFY(flagged);
}

void TestPlanner::nestedRepeatsBoundTheSearch()
{
    // Issue 26: 15 nested Repeat blocks of 2 (1 KB) took 46 s to plan, each precision, LoRA and
    // checkpointing choice analysing 65,536 layers. 12 levels is the most the analysis accepts from a
    // file of 2 layers (tst_repeat): 8,192 layers and 4,095 block headers, 12,287 rows an analysis.
    // The search analyses at most 65,536 rows in all: 65,536 / 12,287 = 5 of the 27 choices a GTX 1080
    // allows (fp32, AMP fp16, fp16; no LoRA, LoRA, QLoRA; no, per-block, selective checkpointing).
    auto network = parseModel(nestedRepeatFile(12, 2));
    QVERIFY(network);
    Plan plan;
    plan.network = std::move(network).value();
    plan.gpu = catalogueGpu("GTX 1080");
    const PlannerResult r = planned(plan, PlanGoal {}, PlanAllowances { true, true, true });
    QVERIFY(!r.candidates.empty());
    QCOMPARE(r.leftOut.size(), std::size_t { 2 });
    QVERIFY2(r.leftOut[0].starts_with("only 5 of 27 precision, LoRA and checkpointing choices searched"),
        r.leftOut[0].c_str());
    QVERIFY(r.analyses <= 5);
    // LoRA adds at most an adapter row to each of the 4,096 Linear rows.
    QVERIFY2(r.analysedRows <= 65'536 + 5 * 4'096, std::to_string(r.analysedRows).c_str());
    // 5 choices x 2 (8-bit state or not) x 2 (without and with accumulation) set-ups of 8,192
    // written-out layers pass the 100,000 the caching allocator is replayed for: the search ranks them
    // by the tensors alone, then replays the allocator for the 20,000 / 8,192 = 2, at least 3, it ranks
    // first and lists only those (the rule: a listed max batch is never above what trains).
    QVERIFY2(r.leftOut[1].starts_with("the caching allocator simulated for "), r.leftOut[1].c_str());
    QVERIFY(!r.candidates.empty() && r.candidates.size() <= 3);
    bool tensorsAbove = false;
    for (std::size_t i = 0; i < r.candidates.size(); ++i) {
        const PlanCandidate& c = r.candidates[i];
        QVERIFY(c.settings.reservedModel);
        // The max batch `headroom max-batch` gives for this set-up, which always replays the allocator.
        const PlanResult replayed = evaluate(c.settings.appliedTo(plan));
        QVERIFY(replayed.estimate && replayed.reservedFigures);
        QCOMPARE(c.estimate.maxBatch, replayed.estimate->maxBatch);
        QCOMPARE(c.estimate.peakBytes(), replayed.estimate->peakBytes());
        // What the old search listed past the budget: the tensors' max batch, from the same set-up
        // without the reserved model.
        Plan tensorsOnly = c.settings.appliedTo(plan);
        tensorsOnly.reservedModel = false;
        const PlanResult tensors = evaluate(tensorsOnly);
        QVERIFY(tensors.estimate);
        QVERIFY(c.estimate.maxBatch <= tensors.estimate->maxBatch);
        tensorsAbove = tensorsAbove || tensors.estimate->maxBatch > c.estimate.maxBatch;
    }
    // On this network the tensors' count lets at least one listed set-up take a larger batch than the
    // allocator does: listing it would have been above reality.
    QVERIFY(tensorsAbove);
    // A network that does not multiply its rows is searched in full, as before.
    const PlannerResult gpt2 = planned(presetPlan("/resources/presets/gpt2_small.json", "GTX 1080"),
        PlanGoal {}, PlanAllowances { true, true, true });
    QVERIFY(gpt2.leftOut.empty());
}

namespace {

/// A constructed set-up for the ranking alone: `speed` samples/s on one GPU, `held` bytes at the peak.
PlanCandidate ranked(std::string name, double speed, std::uint64_t held, std::int64_t maxBatch,
    Sharding sharding = Sharding::None, std::int64_t tensorParallel = 1, bool changesTraining = false)
{
    PlanCandidate c;
    c.settings.setup.parallel.gpus = 1;
    c.settings.setup.parallel.sharding = sharding;
    c.settings.setup.parallel.tensorParallel = tensorParallel;
    c.estimate.heldBytes = held;
    c.estimate.maxBatch = maxBatch;
    c.throughput = ThroughputEstimate {};
    c.throughput->samplesPerSecond = speed;
    c.changes.push_back({ SetupSetting::Checkpointing, name, name, false });
    if (changesTraining)
        c.changes.push_back({ SetupSetting::Precision, "amp-bf16", "Mixed precision", true });
    return c;
}

std::vector<std::string> names(const std::vector<PlanCandidate>& list)
{
    std::vector<std::string> out;
    for (const PlanCandidate& c : list)
        out.push_back(c.changes.front().value);
    return out;
}

/// What a listed set-up is judged by: its speed, memory, max batch and communication.
auto figures(const PlanCandidate& c)
{
    const Parallelism& p = c.settings.setup.parallel;
    return std::tuple { c.samplesPerSecondPerGpu(), c.estimate.heldBytes, c.estimate.maxBatch,
        p.offloadOptimizer, p.tensorParallel, shardingStage(p.sharding) >= 3 };
}

} // namespace

// Issue 35 item 10: the rule (docs/planner.md, "Ranking"), worked out by hand on constructed set-ups.
void TestPlanner::rankingRuleByHand()
{
    const std::uint64_t gib = 1ULL << 30;
    std::vector<PlanCandidate> in;
    in.push_back(ranked("zero1", 10, 7 * gib, 80, Sharding::Zero1)); // as fast as zero2, holds more
    in.push_back(ranked("zero2", 10, 6 * gib, 80, Sharding::Zero2));
    in.push_back(ranked("zero3", 10, 5 * gib, 70, Sharding::Zero3)); // less memory, gathers weights
    in.push_back(ranked("slow", 8, 4 * gib, 90)); // slower: after every faster one
    in.push_back(ranked("tp2", 10, 3 * gib, 95, Sharding::None, 2)); // least memory, tensor parallel
    in.push_back(ranked("amp", 10, 2 * gib, 99, Sharding::None, 1, true)); // changes training
    in.push_back(ranked("roomy", 10, 6 * gib, 85, Sharding::Zero1)); // zero2's memory, larger max batch
    in.push_back(ranked("fast", 12, 7500 * (gib / 1000), 60)); // fastest, holds most
    in.push_back(ranked("same", 10, 6 * gib, 80, Sharding::Zero1)); // zero2's figures: matched
    // 10.004/s shows as "10.0", as fast as 10/s: as roomy's memory decides, and roomy beats it everywhere.
    in.push_back(ranked("hair", 10.004, 6 * gib + (gib / 2), 80, Sharding::Zero2));
    // By hand: "fast" (12/s) first, "slow" (8/s) last. At 10/s: training unchanged first ("amp" after
    // every other 10/s one despite holding the least); then no tensor parallelism and no gathering
    // (zero1, zero2, roomy, same) before zero3 (gathers) before tp2 (tensor parallel x 2, which counts
    // before gathering). Among zero1, zero2, roomy, same: less memory first (6 GiB before zero1's 7),
    // then the larger max batch (roomy's 85 before 80). roomy then matches or beats zero2, same and zero1
    // on every criterion: they are not listed; so is "hair" (10.004/s is 10.0 to the 3 significant figures
    // the tables show, and it holds more with a smaller max batch). "slow" holds less than every set-up that
    // keeps training without tensor parallelism or gathering: listed.
    const std::vector<std::string> expected { "fast", "roomy", "zero3", "tp2", "amp", "slow" };
    QCOMPARE(names(rankSetups(in)), expected);
    const std::vector<PlanCandidate> out = rankSetups(in);
    // The pair: ZeRO-1 as fast as ZeRO-2 with more memory ranks below it, and is listed only if
    // it has room for a larger batch.
    QCOMPARE(names(rankSetups({ in[0], in[1] })), (std::vector<std::string> { "zero2" }));
    PlanCandidate roomier = in[0];
    roomier.estimate.maxBatch = 90;
    QCOMPARE(names(rankSetups({ roomier, in[1] })), (std::vector<std::string> { "zero2", "zero1" }));
    // No listed set-up is matched or beaten on every criterion by another one.
    for (const PlanCandidate& a : out) {
        for (const PlanCandidate& b : out) {
            if (&a == &b)
                continue;
            const bool noWorse = b.samplesPerSecondPerGpu() >= a.samplesPerSecondPerGpu()
                && b.changesTraining() <= a.changesTraining()
                && b.settings.setup.parallel.tensorParallel <= a.settings.setup.parallel.tensorParallel
                && (shardingStage(b.settings.setup.parallel.sharding) >= 3)
                    <= (shardingStage(a.settings.setup.parallel.sharding) >= 3)
                && b.estimate.heldBytes <= a.estimate.heldBytes && b.estimate.maxBatch >= a.estimate.maxBatch;
            QVERIFY2(!noWorse, (b.changes.front().value + " over " + a.changes.front().value).c_str());
        }
    }
    // The order given does not matter (but for set-ups nothing tells apart): reversed, the same.
    std::reverse(in.begin(), in.end());
    QCOMPARE(names(rankSetups(in)), expected);
}

// The case: VGG-16 on 4 GTX 1080s with ZeRO-2, an effective batch of 256 (`headroom plan
// resources/presets/vgg16.json --gpu "GTX 1080" --gpus 4 --sharding zero2 --target-batch 256`). Every
// set-up is estimated equally fast (communication is not in the estimate). Applying any listed set-up
// (all keep training as it is) and planning again lists the same set-ups; before, applying row 1 (2 x 32
// on DDP, the least memory) left "As set up" alone.
void TestPlanner::applyingAListedSetupListsTheSameOnes()
{
    Plan plan = presetPlan("/resources/presets/vgg16.json", "GeForce GTX 1080");
    plan.setup.parallel.gpus = 4;
    plan.setup.parallel.sharding = Sharding::Zero2;
    const PlanGoal goal { 256, {} };
    const auto first = planSetups(plan, goal, {});
    QVERIFY(first.ok());
    QVERIFY2(first->candidates.size() >= 3, std::to_string(first->candidates.size()).c_str());
    // ZeRO-1 moves what ZeRO-2 moves (Rajbhandari et al. 2020, §7): never listed above a ZeRO-2 set-up
    // of the same speed that holds less.
    for (std::size_t i = 0; i < first->candidates.size(); ++i) {
        for (std::size_t j = i + 1; j < first->candidates.size(); ++j) {
            const PlanCandidate& a = first->candidates[i];
            const PlanCandidate& b = first->candidates[j];
            if (a.settings.setup.parallel.sharding == Sharding::Zero1
                && b.settings.setup.parallel.sharding == Sharding::Zero2
                && a.settings.setup.parallel.tensorParallel == b.settings.setup.parallel.tensorParallel
                && a.samplesPerSecondPerGpu() == b.samplesPerSecondPerGpu())
                QVERIFY(a.estimate.heldBytes <= b.estimate.heldBytes);
        }
    }
    for (const PlanCandidate& chosen : first->candidates) {
        QVERIFY(!chosen.changesTraining());
        const auto again = planSetups(chosen.settings.appliedTo(plan), goal, {});
        QVERIFY(again.ok());
        QCOMPARE(again->candidates.size(), first->candidates.size());
        // The same set-ups in the same order; where two have the very same figures (ZeRO-1 and ZeRO-2 at
        // 64 x 4 here) the one that changes less of the plan stands for both, so rows compare by figures.
        for (std::size_t i = 0; i < first->candidates.size(); ++i)
            QCOMPARE(figures(again->candidates[i]), figures(first->candidates[i]));
    }
}

QTEST_APPLESS_MAIN(TestPlanner)
#include "tst_planner.moc"

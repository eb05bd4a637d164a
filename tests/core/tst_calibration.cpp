// A calibration from a measured run (TrainingSetup::calibration, issue 36): its own component at every
// moment of the step, one block of the allocation trace made before the weights, fewer samples in the
// max batch, its JSON and its errors. The figures are tinyMlp()'s, whose every moment tst_steptimeline
// works out by hand (tst_estimate: from batch 5 the peak is relu's backward, 772 + 120 B bytes).
#include "NetworkBuilder.h"
#include "headroom/allocator/ReservedModel.h"
#include "headroom/estimate/Estimate.h"
#include "headroom/estimate/Plan.h"

#include <QTest>
#include <algorithm>

using namespace headroom;
using namespace headroom::test;

namespace {

constexpr std::uint64_t kFixed = 100 * kMiB;
constexpr std::uint64_t kPerSample = 3 * kMiB;

TrainingSetup adam(std::int64_t batch, bool calibrated)
{
    TrainingSetup s;
    s.optimizer = Optimizer::Adam;
    s.batch = batch;
    s.overheadBytes = 0;
    if (calibrated)
        s.calibration = RunCalibration { kFixed, kPerSample, 8, "run.pickle" };
    return s;
}

Plan tinyPlan(std::int64_t batch, bool calibrated, std::uint64_t gpuBytes)
{
    Plan plan;
    plan.network = tinyMlp();
    plan.setup = adam(batch, calibrated);
    plan.gpu.name = "Custom GPU";
    plan.gpu.memoryBytes = gpuBytes;
    plan.gpu.custom = true;
    return plan;
}

} // namespace

class TestCalibration : public QObject
{
    Q_OBJECT
private slots:
    void inactiveByDefault();
    void peakIsThePlansPlusTheExcess();
    void everyMomentHoldsIt();
    void tensorsMaxBatchDrops();
    void traceAllocatesItBeforeTheWeights();
    void reservedCountsIt();
    void jsonCarriesIt();
    void invalidCalibrationIsNamed_data();
    void invalidCalibrationIsNamed();
    void settingsCompareIt();
};

void TestCalibration::inactiveByDefault()
{
    const RunCalibration none;
    QVERIFY(!none.active());
    QVERIFY(!TrainingSetup {}.calibration.active());
    QVERIFY((RunCalibration { 0, 1, 0, {} }.active()));
    QVERIFY((RunCalibration { 1, 0, 0, {} }.active()));
    // A measured batch or a file name alone changes no figure.
    QVERIFY((!RunCalibration { 0, 0, 8, "run.pickle" }.active()));
    const auto e = estimate(analyze(tinyMlp(), Precision::Fp32), adam(8, false), 8 * kGiB);
    QVERIFY(e.ok());
    QCOMPARE(e->bytes.calibration, std::uint64_t { 0 });
    QCOMPARE(componentName(Component::Calibration), std::string_view("calibration"));
    QVERIFY(std::find(kAllComponents.begin(), kAllComponents.end(), Component::Calibration)
        != kAllComponents.end());
}

void TestCalibration::peakIsThePlansPlusTheExcess()
{
    // tinyMlp, Adam fp32, batch 8: relu's backward peaks at 772 + 120 x 8 = 1,732 bytes. The calibration
    // adds 100 MiB + 3 MiB x 8 = 104,857,600 + 25,165,824 = 130,023,424 bytes (124 MiB) to every moment,
    // so the peak stays there and is 1,732 + 130,023,424 = 130,025,156 bytes.
    const Analysis a = analyze(tinyMlp(), Precision::Fp32);
    const auto plain = estimate(a, adam(8, false), 8 * kGiB);
    const auto calibrated = estimate(a, adam(8, true), 8 * kGiB);
    QVERIFY(plain.ok() && calibrated.ok());
    QCOMPARE(plain->total(), std::uint64_t { 1732 });
    QCOMPARE(calibrated->bytes.calibration, std::uint64_t { 130'023'424 });
    QCOMPARE(calibrated->bytes.calibration, 124 * kMiB);
    QCOMPARE(componentBytes(calibrated->bytes, Component::Calibration), 124 * kMiB);
    QCOMPARE(calibrated->total(), std::uint64_t { 130'025'156 });
    QCOMPARE(calibrated->peakLayer, std::string("relu"));
    QCOMPARE(calibrated->peak.phase, StepPhase::Backward);
    // Every other component is the plan's: the excess is never hidden in another one.
    MemoryBreakdown rest = calibrated->bytes;
    rest.calibration = 0;
    QCOMPARE(rest, plain->bytes);
    // The first step (no optimizer state before its step) holds it too. Its highest moment is its
    // optimizer step, 1,160 + 24 x 8 = 1,352 bytes (tst_estimate's line up to batch 4), above relu's
    // backward without Adam's 464 bytes of state (1,732 - 464 = 1,268); plus 130,023,424.
    QCOMPARE(plain->firstStepPeakBytes, std::uint64_t { 1352 });
    QCOMPARE(calibrated->firstStepPeakBytes, std::uint64_t { 1352 + 130'023'424 });
}

void TestCalibration::everyMomentHoldsIt()
{
    const auto model = MemoryModel::build(analyze(tinyMlp(), Precision::Fp32), adam(8, true));
    QVERIFY(model.ok());
    for (const StepMoment& m : model->timeline().moments()) {
        QCOMPARE(m.fixed.calibration, kFixed);
        QCOMPARE(m.perSample.calibration, kPerSample);
    }
    // The optimizer step's moment at batch 2: 100 MiB + 2 x 3 MiB = 106 MiB.
    QCOMPARE(model->momentAt(model->optimizerStepMoment(), 2).calibration, 106 * kMiB);
    QCOMPARE(model->firstStepMomentAt(0, 1).calibration, 103 * kMiB);
}

void TestCalibration::tensorsMaxBatchDrops()
{
    // On 1 GiB = 1,073,741,824 bytes, the tensors alone: 772 + 120 B <= 1,073,741,824 gives
    // B <= 8,947,842.1, so 8,947,842. Calibrated: 772 + 104,857,600 + (120 + 3,145,728) B <= 1,073,741,824
    // gives B <= 968,883,452 / 3,145,848 = 307.99, so 307 (batch 308 needs 1,073,779,556 bytes).
    const Analysis a = analyze(tinyMlp(), Precision::Fp32);
    const auto plain = MemoryModel::build(a, adam(1, false));
    const auto calibrated = MemoryModel::build(a, adam(1, true));
    QVERIFY(plain.ok() && calibrated.ok());
    QCOMPARE(plain->maxBatch(kGiB), std::int64_t { 8'947'842 });
    QCOMPARE(calibrated->maxBatch(kGiB), std::int64_t { 307 });
    // The same through a plan whose max batch is the tensors' (no allocator).
    Plan plan = tinyPlan(307, true, kGiB);
    plan.reservedModel = false;
    PlanResult r = evaluate(plan);
    QVERIFY(r.estimate);
    QCOMPARE(r.estimate->maxBatch, std::int64_t { 307 });
    QCOMPARE(r.estimate->total(), std::uint64_t { 1'070'633'708 }); // 772 + 104,857,600 + 3,145,848 x 307
    QVERIFY(r.estimate->fits);
    plan.setup.batch = 308;
    reestimate(r, plan);
    QVERIFY(!r.estimate->fits);
    QCOMPARE(r.estimate->total(), std::uint64_t { 1'073'779'556 });
    // Nothing fits when the fixed part alone is more than the GPU: 100 MiB + 3 MiB > 100 MiB.
    QCOMPARE(calibrated->maxBatch(kFixed), std::int64_t { 0 });
}

void TestCalibration::traceAllocatesItBeforeTheWeights()
{
    const Analysis a = analyze(tinyMlp(), Precision::Fp32);
    const auto plain = ReservedModel::build(a, adam(8, false), {});
    const auto calibrated = ReservedModel::build(a, adam(8, true), {});
    QVERIFY(plain.ok() && calibrated.ok());
    const auto& before = plain->trace().events();
    const auto& after = calibrated->trace().events();
    QVERIFY(std::none_of(
        before.begin(), before.end(), [](const TraceEvent& e) { return e.kind == TraceKind::Calibration; }));
    // One more event and one more block: the calibration, first, at set-up, never freed.
    QCOMPARE(after.size(), before.size() + 1);
    QCOMPARE(calibrated->trace().blocks(), plain->trace().blocks() + 1);
    const TraceEvent& first = after.front();
    QVERIFY(first.allocate);
    QVERIFY(!first.optional);
    QCOMPARE(first.kind, TraceKind::Calibration);
    QCOMPARE(first.stage, TraceStage::Setup);
    QCOMPARE(first.step, std::uint8_t { 0 });
    QCOMPARE(first.bytes, (AffineBytes { kPerSample, kFixed }));
    QCOMPARE(AllocationTrace::bytesAt(first, 8), 124 * kMiB);
    QCOMPARE(after[1].kind, TraceKind::Weights);
    QVERIFY(std::none_of(after.begin(), after.end(),
        [&](const TraceEvent& e) { return !e.allocate && e.block == first.block; }));
    QCOMPARE(traceKindName(TraceKind::Calibration), std::string_view("calibration"));
}

void TestCalibration::reservedCountsIt()
{
    // tinyMlp at batch 8 on an 8 GiB GPU with no overhead. The calibration's block is 130,023,424 bytes:
    // a multiple of 512 (no rounding) and of 2 MiB, above 10 MiB, so the caching allocator gives it a
    // large-pool segment of exactly its size (get_allocation_size: rounded up to 2 MiB). It fills that
    // segment and is never freed, so no other block can share or split it: the replay's reserved peak
    // grows by exactly 124 MiB, and so does its allocated peak (the same bytes added to every moment).
    const PlanResult plain = evaluate(tinyPlan(8, false, 8 * kGiB));
    const PlanResult calibrated = evaluate(tinyPlan(8, true, 8 * kGiB));
    QVERIFY(plain.reservedFigures && calibrated.reservedFigures);
    const ReservedFigures& p = *plain.reservedFigures;
    const ReservedFigures& c = *calibrated.reservedFigures;
    QVERIFY(c.peakReservedBytes >= p.peakReservedBytes + 124 * kMiB);
    QCOMPARE(c.peakReservedBytes, p.peakReservedBytes + 124 * kMiB);
    QCOMPARE(c.peakAllocatedBytes, p.peakAllocatedBytes + 124 * kMiB);
    QCOMPARE(calibrated.estimate->heldBytes, plain.estimate->heldBytes + 124 * kMiB);
    // The reserved max batch: never above the uncalibrated one, nor above the tensors' calibrated answer,
    // which by hand on 8 GiB is (8,589,934,592 - 104,857,600 - 772) / 3,145,848 = 2,697.2 -> 2,697.
    QCOMPARE(calibrated.memory->maxBatch(8 * kGiB), std::int64_t { 2697 });
    QVERIFY(c.maxBatch.batch >= 1);
    QVERIFY(c.maxBatch.batch <= p.maxBatch.batch);
    QVERIFY2(c.maxBatch.batch <= 2697, qPrintable(QString::number(c.maxBatch.batch)));
    QCOMPARE(calibrated.estimate->maxBatch, c.maxBatch.batch);
}

void TestCalibration::jsonCarriesIt()
{
    const Plan plan = tinyPlan(8, true, 8 * kGiB);
    const auto j = planToJson(plan, evaluate(plan));
    QCOMPARE(j["calibration"]["fixed_bytes"].get<std::uint64_t>(), kFixed);
    QCOMPARE(j["calibration"]["per_sample_bytes"].get<std::uint64_t>(), kPerSample);
    QCOMPARE(j["calibration"]["measured_batch"].get<std::int64_t>(), std::int64_t { 8 });
    QCOMPARE(j["calibration"]["source"].get<std::string>(), std::string("run.pickle"));
    QCOMPARE(j["bytes"]["calibration"].get<std::uint64_t>(), 124 * kMiB);
    QCOMPARE(j["bytes"]["total"].get<std::uint64_t>(), std::uint64_t { 130'025'156 });
    QCOMPARE(j["at_optimizer_step"]["calibration"].get<std::uint64_t>(), 124 * kMiB);
    for (const auto& point : j["timeline"])
        QCOMPARE(point["bytes"]["calibration"].get<std::uint64_t>(), 124 * kMiB);
    // Without a calibration: null, and no key in the breakdowns (they keep the keys they always had).
    const Plan bare = tinyPlan(8, false, 8 * kGiB);
    const auto k = planToJson(bare, evaluate(bare));
    QVERIFY(k.contains("calibration") && k["calibration"].is_null());
    QVERIFY(!k["bytes"].contains("calibration"));
    QVERIFY(!k["timeline"][0]["bytes"].contains("calibration"));
    // Unknown batch and file: null.
    Plan unknown = plan;
    unknown.setup.calibration.measuredBatch = 0;
    unknown.setup.calibration.source.clear();
    const auto u = planToJson(unknown, evaluate(unknown));
    QVERIFY(u["calibration"]["measured_batch"].is_null());
    QVERIFY(u["calibration"]["source"].is_null());
}

void TestCalibration::invalidCalibrationIsNamed_data()
{
    QTest::addColumn<quint64>("fixed");
    QTest::addColumn<quint64>("perSample");
    QTest::addColumn<qint64>("measuredBatch");
    QTest::addColumn<QString>("location"); // empty: valid
    const quint64 pib = 1ULL << 50;
    // kMaxBatch = 2^31: per sample x 2^31 fits 64 bits up to (2^64 - 1) / 2^31 = 2^33 - 1 bytes.
    const quint64 perSampleLimit = (1ULL << 33) - 1;
    QTest::newRow("1 PiB fixed") << pib << quint64 { 0 } << qint64 { 0 } << QString();
    QTest::newRow("fixed over 1 PiB")
        << pib + 1 << quint64 { 0 } << qint64 { 0 } << QStringLiteral("calibration.fixed_bytes");
    QTest::newRow("huge fixed") << ~quint64 { 0 } << quint64 { 0 } << qint64 { 0 }
                                << QStringLiteral("calibration.fixed_bytes");
    QTest::newRow("per sample at the limit") << quint64 { 0 } << perSampleLimit << qint64 { 0 } << QString();
    QTest::newRow("per sample x max batch overflows") << quint64 { 0 } << perSampleLimit + 1 << qint64 { 0 }
                                                      << QStringLiteral("calibration.per_sample_bytes");
    QTest::newRow("per sample over 1 PiB")
        << quint64 { 0 } << pib + 1 << qint64 { 0 } << QStringLiteral("calibration.per_sample_bytes");
    QTest::newRow("negative batch") << quint64 { 1 } << quint64 { 0 } << qint64 { -1 }
                                    << QStringLiteral("calibration.measured_batch");
    QTest::newRow("batch over the maximum") << quint64 { 1 } << quint64 { 0 } << qint64 { (1LL << 31) + 1 }
                                            << QStringLiteral("calibration.measured_batch");
}

void TestCalibration::invalidCalibrationIsNamed()
{
    QFETCH(quint64, fixed);
    QFETCH(quint64, perSample);
    QFETCH(qint64, measuredBatch);
    QFETCH(QString, location);
    TrainingSetup s = adam(8, false);
    s.calibration = RunCalibration { fixed, perSample, measuredBatch, "run.pickle" };
    const auto problem = validateSetup(s);
    if (location.isEmpty()) {
        QVERIFY2(!problem, problem ? problem->message.c_str() : "");
        return;
    }
    QVERIFY(problem.has_value());
    QCOMPARE(QString::fromStdString(problem->location), location);
    QVERIFY2(problem->message.find("calibration") != std::string::npos, problem->message.c_str());
    // The step model and the plan refuse it with the same words.
    const auto model = MemoryModel::build(analyze(tinyMlp(), Precision::Fp32), s);
    QVERIFY(!model.ok());
    QCOMPARE(model.error(), *problem);
    Plan plan = tinyPlan(8, false, 8 * kGiB);
    plan.setup = s;
    const PlanResult r = evaluate(plan);
    QVERIFY(!r.estimate && r.error);
    QCOMPARE(QString::fromStdString(r.error->location), location);
}

void TestCalibration::settingsCompareIt()
{
    // The GUI's undo applies and takes back PlanSettings by value: a calibration is part of them.
    PlanSettings a;
    PlanSettings b = a;
    QVERIFY(a == b);
    b.setup.calibration.fixedBytes = 1;
    QVERIFY(!(a == b));
    b = a;
    b.setup.calibration.source = "other.pickle";
    QVERIFY(!(a == b));
    b.setup.calibration = a.setup.calibration;
    QVERIFY(a == b);
}

QTEST_APPLESS_MAIN(TestCalibration)
#include "tst_calibration.moc"

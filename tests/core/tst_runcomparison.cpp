// compareRun (issue 36): a plan beside a measured run. The plan is a two-layer MLP in fp32 with foreach
// Adam at batch 4 whose allocation trace is worked out by hand below; the runs are built by hand as
// PyTorch's memory snapshot would record that training loop (every block, its size as the caching
// allocator rounds it, when it was made and freed), plus what the plan cannot know: a 64 MiB buffer kept
// for the whole run and a per-step tensor the user's code keeps.
#include "NetworkBuilder.h"
#include "headroom/estimate/RunComparison.h"
#include "headroom/support/Format.h"

#include <QTest>
#include <array>
#include <limits>
#include <map>

using namespace headroom;
using namespace headroom::test;

namespace {

constexpr std::uint64_t MiB = 1024ULL * 1024ULL;

// The plan: [256] float32 -> fc1 Linear(256 -> 512) -> relu ReLU -> fc2 Linear(512 -> 16) -> cross-entropy,
// Adam (foreach), batch 4, on an Ampere GPU (compute capability 8.0).
//
// Parameters (float32, rounded up to 512 bytes by round_size):
//   fc1.weight 512 x 256 x 4 = 524,288   fc1.bias 512 x 4 = 2,048
//   fc2.weight 16 x 512 x 4  = 32,768    fc2.bias 16 x 4  = 64 -> 512
//   W (all four, rounded) = 524,288 + 2,048 + 32,768 + 512 = 559,616
// The batch: x 4 x 256 x 4 = 4,096; labels int64 4 x 8 = 32 -> 512; together 4,608.
// Activations at batch 4: fc1's and relu's outputs 4 x 512 x 4 = 8,192 each; fc2's output and its
// log-softmax 4 x 16 x 4 = 256 -> 512 each; the loss (a scalar) 4 -> 512.
// cuBLAS: one workspace per handle, two handles (forward, autograd's thread), ":4096:2:16:8" before Hopper
//   = 2 x 4 MiB + 8 x 16 KiB = 8,519,680 each, kept for the process (CublasHandlePool.cpp); with
//   PyTorch 2.11 cuBLASLt shares it.
// The steady step's allocated peak is in the optimizer step, when foreach Adam's one list of temporaries
// (one tensor per parameter, W in all) is alive with the weights, the gradients (W), the state (2 W), the
// batch and the workspaces:
//   5 x 559,616 + 4,608 + 2 x 8,519,680 = 2,798,080 + 4,608 + 17,039,360 = 19,842,048.
// Its forward peak: weights, state, batch, workspaces (18,722,816) + fc1's and relu's outputs (2 x 8,192)
//   = 18,739,200.
// Its backward peak, after fc1's bias gradient: 18,722,816 + every gradient (559,616) + relu's input
//   gradient (8,192) + the loss (512) = 19,291,136.
// Reserved: the small pool holds at most 2,802,688 bytes (under 1 MiB each): two 2 MiB segments; both
//   workspaces (under 10 MiB) share one 20 MiB large segment: 24 MiB = 25,165,824.
constexpr std::uint64_t kWeights = 559'616;
constexpr std::uint64_t kInput = 4'608;
constexpr std::uint64_t kWorkspace = 8'519'680;
constexpr std::uint64_t kPlanPeak = 19'842'048;

Plan mlpPlan()
{
    Plan plan;
    plan.network = network({ 256 },
        { layer("Linear", { { "out_features", 512 } }, "fc1"), layer("ReLU", {}, "relu"),
            layer("Linear", { { "out_features", 16 } }, "fc2") });
    plan.setup.batch = 4;
    plan.setup.optimizer = Optimizer::Adam;
    plan.setup.overheadBytes = 0;
    plan.gpu = Gpu { .name = "Test GPU",
        .vendor = "NVIDIA",
        .family = "GeForce 30 (Ampere)",
        .aliases = {},
        .memoryBytes = 24ULL << 30,
        .bandwidthGBps = 900,
        .fp32Tflops = 35,
        .fp16Tflops = 70,
        .bf16Tflops = 70 };
    return plan;
}

/// Builds a MeasuredRun as PyTorch's snapshot would show it: one sample after each alloc or free
/// (allocated as memory_allocated() reads it; reserved by a simple hand rule: the allocated bytes rounded
/// up to 2 MiB, never shrinking), every block with its lifetime, steps and phases with their peaks.
class RunBuilder final
{
public:
    RunBuilder()
    {
        m_run.kind = RunFileKind::SnapshotPickle;
        m_run.snapshot.emplace();
    }
    StackId stack(std::vector<RunFrame> frames)
    {
        m_run.snapshot->stacks.push_back(std::move(frames));
        return static_cast<StackId>(m_run.snapshot->stacks.size() - 1);
    }
    void alloc(
        const std::string& name, std::uint64_t size, std::uint64_t requested = 0, StackId at = kNoStack)
    {
        m_allocated += size;
        sample();
        MeasuredBlock b;
        b.address = 0x7f0000000000ULL + m_run.blocks.size() * 0x100000ULL;
        b.size = size;
        b.requestedSize = requested == 0 ? size : requested;
        b.allocSample = m_run.samples.size() - 1;
        b.allocatedUs = static_cast<std::int64_t>(b.allocSample);
        b.stack = at;
        m_live[name] = m_run.blocks.size();
        m_run.blocks.push_back(b);
    }
    /// A block alive before the trace's first entry (a ring buffer that starts mid-run).
    void before(const std::string& name, std::uint64_t size, std::uint64_t requested = 0)
    {
        m_allocated += size;
        MeasuredBlock b;
        b.size = size;
        b.requestedSize = requested == 0 ? size : requested;
        b.allocatedUs = MeasuredBlock::kUnknownTime;
        m_live[name] = m_run.blocks.size();
        m_run.blocks.push_back(b);
    }
    void free(const std::string& name)
    {
        const auto it = m_live.find(name);
        if (it == m_live.end())
            qFatal("RunBuilder: no live block %s", name.c_str());
        MeasuredBlock& b = m_run.blocks[it->second];
        m_allocated -= b.size;
        sample();
        b.freeSample = m_run.samples.size() - 1;
        b.freedUs = static_cast<std::int64_t>(b.freeSample);
        m_live.erase(it);
    }
    void step(bool first)
    {
        closeStep();
        MeasuredStep s;
        s.index = m_run.steps.size();
        s.first = first;
        s.firstSample = m_run.samples.size();
        m_run.steps.push_back(s);
    }
    void phase(RunPhase p)
    {
        closePhase();
        MeasuredPhase ph;
        ph.phase = p;
        ph.firstSample = m_run.samples.size();
        m_run.steps.back().phases.push_back(ph);
    }
    MeasuredRun finish()
    {
        closeStep();
        for (std::size_t i = 0; i < m_run.samples.size(); ++i) {
            if (m_run.samples[i].allocated > m_run.peakAllocated) {
                m_run.peakAllocated = m_run.samples[i].allocated;
                m_run.peakAllocatedSample = i;
            }
            if (m_run.samples[i].reserved > m_run.peakReserved) {
                m_run.peakReserved = m_run.samples[i].reserved;
                m_run.peakReservedSample = i;
            }
        }
        return m_run;
    }

private:
    void sample()
    {
        m_reserved = std::max(m_reserved, (m_allocated + 2 * MiB - 1) / (2 * MiB) * (2 * MiB));
        const auto n = static_cast<std::uint32_t>(m_run.samples.size());
        m_run.samples.push_back(RunSample { n, m_allocated, m_reserved, n });
    }
    void closePhase()
    {
        if (m_run.steps.empty() || m_run.steps.back().phases.empty())
            return;
        MeasuredPhase& ph = m_run.steps.back().phases.back();
        if (ph.endSample != 0)
            return;
        ph.endSample = m_run.samples.size();
        for (std::size_t i = ph.firstSample; i < ph.endSample; ++i) {
            ph.peakAllocated = std::max(ph.peakAllocated, m_run.samples[i].allocated);
            ph.peakReserved = std::max(ph.peakReserved, m_run.samples[i].reserved);
        }
    }
    void closeStep()
    {
        closePhase();
        if (m_run.steps.empty() || m_run.steps.back().endSample != 0)
            return;
        MeasuredStep& s = m_run.steps.back();
        s.endSample = m_run.samples.size();
        for (const MeasuredPhase& ph : s.phases) {
            s.peakAllocated = std::max(s.peakAllocated, ph.peakAllocated);
            s.peakReserved = std::max(s.peakReserved, ph.peakReserved);
        }
    }

    MeasuredRun m_run;
    std::uint64_t m_allocated = 0;
    std::uint64_t m_reserved = 0;
    std::map<std::string, std::size_t> m_live;
};

/// What the run adds beyond the plan.
struct Extras
{
    bool persistentBuffer = false; ///< 64 MiB made before the first step and kept (train.py:14)
    bool keptLogits = false; ///< 1,200,000 bytes per step, kept until the next step's forward (train.py:31)
    bool forwardTensor = false; ///< 400,000 bytes in the steady forward, freed in its backward (model.py:123)
};

/// The training loop of the plan as PyTorch runs it: model.cuda(), the batch, then steps. Returns the run.
MeasuredRun mlpRun(const Extras& extras, int steps = 2, std::uint64_t workspace = kWorkspace)
{
    RunBuilder r;
    const StackId bufferAt = r.stack({ { "/usr/lib/python3/dist-packages/torch/cuda/memory.py", 50, "empty" },
        { "/home/u/train.py", 14, "<module>" } });
    const StackId logitsAt
        = r.stack({ { "/home/u/venv/lib/python3.11/site-packages/torch/_tensor.py", 70, "clone" },
            { "/home/u/train.py", 31, "train_step" }, { "/home/u/train.py", 40, "<module>" } });
    const StackId forwardAt = r.stack({ { "aten/src/ATen/native/TensorFactories.cpp", 12, "at::empty" },
        { "/home/u/model.py", 123, "forward" }, { "/home/u/train.py", 28, "train_step" } });
    // model.cuda(): the parameters in registration order.
    r.alloc("fc1.weight", 524'288);
    r.alloc("fc1.bias", 2'048);
    r.alloc("fc2.weight", 32'768);
    r.alloc("fc2.bias", 512, 64);
    if (extras.persistentBuffer)
        r.alloc("buffer", 64 * MiB, 64 * MiB, bufferAt);
    r.alloc("x", 4'096);
    r.alloc("y", 512, 32);
    const char* grads[] = { "fc1.weight.grad", "fc1.bias.grad", "fc2.weight.grad", "fc2.bias.grad" };
    for (int s = 0; s < steps; ++s) {
        const bool first = s == 0;
        r.step(first);
        r.phase(RunPhase::Forward);
        r.alloc("a1", 8'192); // fc1's output
        if (first)
            r.alloc("cublas.forward", workspace); // the first matmul makes the forward handle's workspace
        r.alloc("a2", 8'192); // relu's output, kept for backward (and fc2's input)
        r.free("a1");
        r.alloc("a3", 512, 256); // fc2's output
        r.alloc("a4", 512, 256); // log_softmax, kept
        r.free("a3");
        r.alloc("a5", 512, 4); // the loss
        if (extras.keptLogits) {
            if (!first)
                r.free("logits");
            r.alloc("logits", 1'200'128, 1'200'000, logitsAt);
        }
        if (extras.forwardTensor && !first)
            r.alloc("extra", 400'384, 400'000, forwardAt);
        r.phase(RunPhase::Backward);
        r.alloc("g1", 512, 256);
        r.alloc("g2", 512, 256);
        r.free("g1");
        r.free("a4");
        r.alloc("g3", 8'192); // the gradient of relu's output
        r.alloc("fc2.weight.grad", 32'768);
        r.alloc("fc2.bias.grad", 512, 64);
        if (first)
            r.alloc("cublas.backward", workspace); // autograd's thread has its own handle
        r.free("g2");
        r.alloc("g4", 8'192); // the gradient of fc1's output
        r.free("g3");
        r.free("a2");
        r.alloc("fc1.weight.grad", 524'288);
        r.alloc("fc1.bias.grad", 2'048);
        r.free("g4");
        r.free("a5");
        if (extras.forwardTensor && !first)
            r.free("extra");
        r.phase(RunPhase::OptimizerStep);
        if (first) { // _init_group: exp_avg, exp_avg_sq per parameter
            for (const auto& [name, size, requested] :
                { std::tuple { "fc1.weight", 524'288ULL, 524'288ULL }, { "fc1.bias", 2'048ULL, 2'048ULL },
                    { "fc2.weight", 32'768ULL, 32'768ULL }, { "fc2.bias", 512ULL, 64ULL } }) {
                r.alloc(std::string(name) + ".exp_avg", size, requested);
                r.alloc(std::string(name) + ".exp_avg_sq", size, requested);
            }
        }
        r.alloc("t1", 524'288); // _foreach_sqrt: one list of temporaries
        r.alloc("t2", 2'048);
        r.alloc("t3", 32'768);
        r.alloc("t4", 512, 64);
        r.free("t4");
        r.free("t3");
        r.free("t2");
        r.free("t1");
        for (const char* g : grads) // zero_grad(set_to_none=True)
            r.free(g);
    }
    // The next step's forward, where the snapshot was taken: the kept logits are replaced.
    r.step(false);
    r.phase(RunPhase::Forward);
    r.alloc("a1", 8'192);
    if (extras.keptLogits)
        r.free("logits");
    return r.finish();
}

std::uint64_t component(const ComponentBytes& c, RunComponent k)
{
    return c[static_cast<std::size_t>(k)];
}

} // namespace

class TestRunComparison : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void runMatchingThePlanIsAttributedWhole();
    void phasesLineUpOnTheAxis();
    void extrasAreUnattributedAndCalibrate();
    void setupDifferencesAreSaid();
    void runWithoutStepsSaysWhatItCouldNot();
    void eventMemoryFollowsTheReplay();
    void traceStartingMidRun();
    void runWithoutReservedBytes();
    void workspacesOfAnotherGpu();
    void indicesOutOfRangeAreSurvived();
    void hugeFiguresDoNotWrap();
    void communicationBuffersByWhenTheyAreMade();

private:
    Plan m_plan;
    PlanResult m_result;
};

void TestRunComparison::initTestCase()
{
    m_plan = mlpPlan();
    m_result = evaluate(m_plan);
    QVERIFY(m_result.reserved);
    QVERIFY(m_result.estimate.has_value());
}

void TestRunComparison::runMatchingThePlanIsAttributedWhole()
{
    const MeasuredRun run = mlpRun({});
    RunContext context;
    context.batch = 4;
    context.precision = Precision::Fp32;
    const RunComparison c = compareRun(run, m_plan, m_result, context);
    QVERIFY(c.setupDifferences.empty());
    QVERIFY(c.steady.has_value());
    QVERIFY(!c.steady->firstStep);
    QCOMPARE(c.steady->measuredStep, std::size_t { 1 });
    QVERIFY(c.first.has_value());
    QCOMPARE(c.first->measuredStep, std::size_t { 0 });

    // Both peaks are 19,842,048 (the header's sum): the run is the plan, block for block.
    QCOMPARE(c.predictedPeakAllocated, kPlanPeak);
    QCOMPARE(c.measuredPeakAllocated, kPlanPeak);
    QCOMPARE(c.peakAllocatedDifference.bytes, std::uint64_t { 0 });
    QCOMPARE(c.predictedPeakReserved, std::uint64_t { 24 * MiB });

    // At both peaks: weights W, gradients W, state 2 W, the batch, the workspaces, the temporaries W.
    for (const ComponentBytes* side : { &c.measuredComponents, &c.predictedComponents }) {
        QCOMPARE(component(*side, RunComponent::Weights), kWeights);
        QCOMPARE(component(*side, RunComponent::Gradients), kWeights);
        QCOMPARE(component(*side, RunComponent::OptimizerState), 2 * kWeights);
        QCOMPARE(component(*side, RunComponent::Activations), kInput);
        QCOMPARE(component(*side, RunComponent::Workspaces), 2 * kWorkspace);
        QCOMPARE(component(*side, RunComponent::Temporaries), kWeights);
        QCOMPARE(component(*side, RunComponent::Unattributed), std::uint64_t { 0 });
    }
    QVERIFY(c.measuredComponentsFound);
    QVERIFY(c.unattributed.empty());

    // Layers: the weights in registration order, the state of fc1.weight, a gradient of fc2.
    QCOMPARE(c.attribution[0].layer, std::string("fc1"));
    QCOMPARE(c.attribution[0].lifetime, BlockLifetime::Persistent);
    QCOMPARE(c.attribution[3].layer, std::string("fc2")); // fc2.bias, 64 bytes asked, 512 held
    QCOMPARE(c.attribution[3].component, RunComponent::Weights);
    bool sawState = false;
    bool sawGradient = false;
    for (const AttributedBlock& a : c.attribution) {
        if (a.component == RunComponent::OptimizerState && a.bytes == 524'288) {
            QCOMPARE(a.layer, std::string("fc1"));
            QCOMPARE(a.lifetime, BlockLifetime::OptimizerStateLike);
            sawState = true;
        }
        if (a.component == RunComponent::Gradients && a.bytes == 32'768) {
            QCOMPARE(a.layer, std::string("fc2"));
            QCOMPARE(a.lifetime, BlockLifetime::GradientLike);
            sawGradient = true;
        }
        if (a.bytes == kWorkspace)
            QCOMPARE(a.component, RunComponent::Workspaces);
    }
    QVERIFY(sawState);
    QVERIFY(sawGradient);

    // Not above the plan: no per-sample term, and the reasoning says so.
    QVERIFY(c.calibration.available);
    QCOMPARE(c.calibration.fixedBytes, std::uint64_t { 0 });
    QCOMPARE(c.calibration.perSampleBytes, std::uint64_t { 0 });
    QVERIFY2(c.calibration.reasoning.find("no per-sample term is proposed") != std::string::npos,
        c.calibration.reasoning.c_str());
}

void TestRunComparison::phasesLineUpOnTheAxis()
{
    const MeasuredRun run = mlpRun({});
    const RunComparison c = compareRun(run, m_plan, m_result, RunContext { 4, Precision::Fp32, {} });
    QVERIFY(c.steady.has_value());
    for (const AlignedCurve* curve : { &c.steady->predicted, &c.steady->measured }) {
        // Forward from 0, backward from exactly 1, the optimizer step from exactly 2; x never goes back.
        QVERIFY(!curve->points.empty());
        QCOMPARE(curve->points.front().x, 0.0);
        bool at1 = false;
        bool at2 = false;
        for (std::size_t i = 0; i < curve->points.size(); ++i) {
            at1 = at1 || curve->points[i].x == 1.0;
            at2 = at2 || curve->points[i].x == 2.0;
            QVERIFY(curve->points[i].x < 3.0);
            if (i > 0)
                QVERIFY(curve->points[i].x >= curve->points[i - 1].x);
        }
        QVERIFY(at1);
        QVERIFY(at2);
        // The steady optimizer step has 12 events (4 temporaries made, 4 freed, 4 gradients freed): the peak
        // is after the 4th, at x = 2 + 3/12.
        QCOMPARE(curve->peakAllocated.bytes, kPlanPeak);
        QCOMPARE(curve->peakAllocated.x, 2.25);
        QCOMPARE(curve->peakAllocated.phase, RunPhase::OptimizerStep);
    }
    // The measured step's samples: 7 in forward, 15 in backward, 12 in the optimizer step.
    QCOMPARE(c.steady->measured.points.size(), std::size_t { 34 });
    QCOMPARE(c.steady->measured.points[7].x, 1.0);
    QCOMPARE(c.steady->measured.points[8].x, 1.0 + 1.0 / 15.0);
    QCOMPARE(c.steady->measured.points[22].x, 2.0);
    QCOMPARE(c.steady->measured.points[1].x, 1.0 / 7.0);

    // Per phase (the header's sums): forward 18,739,200, backward 19,291,136, optimizer 19,842,048, all
    // reserved 24 MiB in the plan; the run's reserved is its allocated rounded up to 2 MiB: 20 MiB.
    QCOMPARE(c.phases.size(), std::size_t { 3 });
    QCOMPARE(c.phases[0].phase, RunPhase::Forward);
    QCOMPARE(c.phases[0].predictedAllocated, std::uint64_t { 18'739'200 });
    QCOMPARE(c.phases[0].measuredAllocated, std::uint64_t { 18'739'200 });
    QCOMPARE(c.phases[1].predictedAllocated, std::uint64_t { 19'291'136 });
    QCOMPARE(c.phases[1].measuredAllocated, std::uint64_t { 19'291'136 });
    QCOMPARE(c.phases[2].predictedAllocated, kPlanPeak);
    QCOMPARE(c.phases[2].predictedReserved, std::uint64_t { 24 * MiB });
    // 19,842,048 / 2 MiB = 9.46: 10 x 2 MiB = 20,971,520 reserved in the run.
    QCOMPARE(c.phases[2].measuredReserved, std::uint64_t { 20 * MiB });
    QVERIFY(!c.phases[2].reservedDifference.measuredAbove);
    QCOMPARE(c.phases[2].reservedDifference.bytes, std::uint64_t { 4 * MiB });
    QCOMPARE(c.phases[2].reservedDifference.percent, -4.0 / 24.0 * 100.0);

    // The first step: the state is made in its optimizer step, so it peaks there as the steady one does.
    QVERIFY(c.first.has_value());
    QCOMPARE(c.first->predicted.peakAllocated.bytes, kPlanPeak);
    QCOMPARE(c.first->measured.peakAllocated.bytes, kPlanPeak);
}

void TestRunComparison::extrasAreUnattributedAndCalibrate()
{
    const MeasuredRun run = mlpRun({ true, true, true });
    RunContext context { 4, Precision::Fp32, "run.pickle" };
    const RunComparison c = compareRun(run, m_plan, m_result, context);

    // The steady peak stays in the optimizer step: the plan's 19,842,048 plus the 64 MiB buffer
    // (67,108,864) plus the logits kept from this step's forward (1,200,000 asked, 1,200,128 held):
    // 88,151,040. (The steady forward peaks at 87,441,408 and backward at 88,000,512: see the phases.)
    QCOMPARE(c.measuredPeakAllocated, std::uint64_t { 88'151'040 });
    QCOMPARE(c.predictedPeakAllocated, kPlanPeak);
    QVERIFY(c.peakAllocatedDifference.measuredAbove);
    QCOMPARE(c.peakAllocatedDifference.bytes, std::uint64_t { 68'308'992 });
    // Forward: the level it starts from (the plan's 18,722,816 + the buffer + the last step's logits =
    // 87,031,808), + a1, a2, - a1, + a3, + a4, - a3, + a5 = 87,041,024, the old logits freed (85,840,896),
    // the new ones (87,041,024), the 400,384-byte tensor of model.py: 87,441,408.
    QCOMPARE(c.phases[0].measuredAllocated, std::uint64_t { 87'441'408 });
    // Backward: its peak after fc1's bias gradient, 19,291,136 + 67,108,864 + 1,200,128 + 400,384.
    QCOMPARE(c.phases[1].measuredAllocated, std::uint64_t { 88'000'512 });

    // At the measured peak: the plan's components as before, and 68,308,992 unattributed.
    QCOMPARE(component(c.measuredComponents, RunComponent::Weights), kWeights);
    QCOMPARE(component(c.measuredComponents, RunComponent::Gradients), kWeights);
    QCOMPARE(component(c.measuredComponents, RunComponent::OptimizerState), 2 * kWeights);
    QCOMPARE(component(c.measuredComponents, RunComponent::Activations), kInput);
    QCOMPARE(component(c.measuredComponents, RunComponent::Workspaces), 2 * kWorkspace);
    QCOMPARE(component(c.measuredComponents, RunComponent::Temporaries), kWeights);
    QCOMPARE(component(c.measuredComponents, RunComponent::Unattributed), std::uint64_t { 68'308'992 });

    // Unattributed, largest first: the buffer, the logits of each of the two steps, the forward tensor. Sizes
    // as formatBytes writes them: two decimals below 100 of a unit, none from 100 (400,384 B = 391 KiB).
    QCOMPARE(c.unattributed.size(), std::size_t { 4 });
    QCOMPARE(c.unattributed[0].bytes, 64 * MiB);
    QCOMPARE(c.unattributed[0].lifetime, BlockLifetime::Persistent);
    QCOMPARE(c.unattributed[0].frame.line, std::int64_t { 14 }); // not torch/cuda/memory.py
    QCOMPARE(c.unattributed[0].sentence,
        std::string(
            "64.00 MiB allocated at train.py:14 before the first step, never freed: no matching tensor "
            "in the plan"));
    QCOMPARE(c.unattributed[1].bytes, std::uint64_t { 1'200'128 });
    QCOMPARE(c.unattributed[1].sentence,
        std::string("1.14 MiB allocated at train.py:31 in forward, kept until forward of the next step: no "
                    "matching tensor in the plan"));
    QCOMPARE(c.unattributed[3].bytes, std::uint64_t { 400'384 });
    QCOMPARE(c.unattributed[3].lifetime, BlockLifetime::ActivationLike);
    QVERIFY(!c.unattributed[3].aliveAtPeak);
    QCOMPARE(c.unattributed[3].sentence,
        std::string(
            "391 KiB allocated at model.py:123 in forward, kept until backward: no matching tensor in the "
            "plan"));

    // Calibration: fixed = the buffer alive through the step, 67,108,864; the rest of the excess,
    // 68,308,992 - 67,108,864 = 1,200,128, over the batch of 4: 300,032 per sample.
    QVERIFY(c.calibration.available);
    QCOMPARE(c.calibration.fixedBytes, std::uint64_t { 67'108'864 });
    QCOMPARE(c.calibration.perSampleBytes, std::uint64_t { 300'032 });
    QCOMPARE(c.calibration.measuredBatch, std::int64_t { 4 });
    QCOMPARE(c.calibration.source, std::string("run.pickle"));
    const std::string& why = c.calibration.reasoning;
    QVERIFY2(why.find("88,151,040") != std::string::npos, why.c_str());
    QVERIFY2(why.find("19,842,048") != std::string::npos, why.c_str());
    QVERIFY2(why.find("300,032 bytes per sample") != std::string::npos, why.c_str());
    QVERIFY2(why.find("train.py:14") != std::string::npos, why.c_str());

    // Applied: the plan holds the run's excess as its calibration, and the largest batch drops.
    const Plan calibrated = calibratedPlan(m_plan, c.calibration);
    QCOMPARE(calibrated.setup.calibration.fixedBytes, std::uint64_t { 67'108'864 });
    QCOMPARE(calibrated.setup.calibration.perSampleBytes, std::uint64_t { 300'032 });
    QCOMPARE(calibrated.setup.calibration.measuredBatch, std::int64_t { 4 });
    QCOMPARE(calibrated.setup.calibration.source, std::string("run.pickle"));
    const CalibratedMaxBatch applied = calibratedMaxBatch(m_plan, m_result, c.calibration);
    QCOMPARE(applied.before, m_result.estimate->maxBatch);
    QVERIFY(applied.after > 0);
    QVERIFY(applied.after < applied.before);
    QVERIFY2(
        applied.reasoning.find("300,032 bytes per sample") != std::string::npos, applied.reasoning.c_str());
    const std::string said = "the largest batch on Test GPU is "
        + formatCount(static_cast<std::uint64_t>(applied.after)) + ", was "
        + formatCount(static_cast<std::uint64_t>(applied.before));
    QVERIFY2(applied.reasoning.find(said) != std::string::npos, applied.reasoning.c_str());

    // The calibrated plan beside the same run. Its trace holds one more block from the start: 67,108,864 +
    // 4 x 300,032 = 68,308,992 bytes, a large-pool request that gets a segment rounded up to 2 MiB
    // (33 x 2 MiB = 69,206,016) and keeps the 897,024-byte rest unsplit (a large block splits only for a rest
    // above 1 MiB): 69,206,016 allocated. Its peak is 19,842,048 + 69,206,016 = 89,048,064, and the proposal,
    // read against the plan without its calibration, is the same.
    const PlanResult calibratedResult = evaluate(calibrated);
    const RunComparison again = compareRun(run, calibrated, calibratedResult, context);
    QCOMPARE(again.predictedPeakAllocated, std::uint64_t { 89'048'064 });
    QCOMPARE(component(again.predictedComponents, RunComponent::Unattributed), std::uint64_t { 69'206'016 });
    QCOMPARE(again.calibration.fixedBytes, std::uint64_t { 67'108'864 });
    QCOMPARE(again.calibration.perSampleBytes, std::uint64_t { 300'032 });

    // The same in the JSON the command line prints.
    const auto j = runComparisonToJson(c);
    QCOMPARE(j["batch"].get<std::int64_t>(), std::int64_t { 4 });
    QCOMPARE(j["peak_allocated"]["measured_bytes"].get<std::uint64_t>(), std::uint64_t { 88'151'040 });
    QCOMPARE(j["peak_allocated"]["difference"]["bytes"].get<std::uint64_t>(), std::uint64_t { 68'308'992 });
    QCOMPARE(j["phases"][2]["phase"].get<std::string>(), std::string("optimizer_step"));
    QCOMPARE(j["components"][6]["component"].get<std::string>(), std::string("unattributed"));
    QCOMPARE(j["components"][6]["measured_bytes"].get<std::uint64_t>(), std::uint64_t { 68'308'992 });
    QCOMPARE(j["unattributed"][0]["file"].get<std::string>(), std::string("/home/u/train.py"));
    QCOMPARE(j["unattributed"][0]["line"].get<std::int64_t>(), std::int64_t { 14 });
    QCOMPARE(j["calibration"]["fixed_bytes"].get<std::uint64_t>(), std::uint64_t { 67'108'864 });
    QCOMPARE(j["calibration"]["per_sample_bytes"].get<std::uint64_t>(), std::uint64_t { 300'032 });
    QCOMPARE(j["steady_step"]["measured_peak_allocated"]["x"].get<double>(), 2.25);
    QVERIFY(!j["steady_step"].contains("measured_points"));
    // 34 samples as in phasesLineUpOnTheAxis, plus the logits freed and made and the tensor of model.py made
    // in forward and freed in backward: 38.
    QCOMPARE(runComparisonToJson(c, true)["steady_step"]["measured_points"].size(), std::size_t { 38 });
}

void TestRunComparison::setupDifferencesAreSaid()
{
    MeasuredRun run = mlpRun({});
    run.snapshot->allocatorSettings.present = true;
    run.snapshot->allocatorSettings.settings.expandableSegments = true;

    // Nothing said about the run: the plan's batch and precision are assumed, and the notes say so.
    const RunComparison assumed = compareRun(run, m_plan, m_result, RunContext {});
    QVERIFY(assumed.batchAssumed);
    QVERIFY(assumed.precisionAssumed);
    QCOMPARE(assumed.batch, std::int64_t { 4 });
    QVERIFY(std::find(assumed.notes.begin(), assumed.notes.end(),
                "The run's batch is not known: the plan's (4) is assumed.")
        != assumed.notes.end());
    QVERIFY(std::find(assumed.notes.begin(), assumed.notes.end(),
                "The run's precision is not known: the plan's (fp32) is assumed.")
        != assumed.notes.end());
    QCOMPARE(assumed.setupDifferences.size(), std::size_t { 1 });
    QCOMPARE(assumed.setupDifferences[0],
        std::string(
            "The run's allocator had expandable_segments:True and the plan's set-up does not: the plan is "
            "replayed as the run was."));

    // A run at batch 8 in amp-bf16: compared there, and said.
    const RunComparison other = compareRun(run, m_plan, m_result, RunContext { 8, Precision::AmpBf16, {} });
    QCOMPARE(other.batch, std::int64_t { 8 });
    QCOMPARE(other.precision, Precision::AmpBf16);
    QCOMPARE(other.setupDifferences.size(), std::size_t { 3 });
    QCOMPARE(other.setupDifferences[0],
        std::string("The run's micro-batch is 8 and the plan's 4: the plan is compared at 8."));
    QCOMPARE(other.setupDifferences[1],
        std::string("The run trained in amp-bf16 and the plan in fp32: the plan is compared in amp-bf16."));
    // At batch 8 the plan's batch is 8 x 256 x 4 = 8,192 bytes and 64 -> 512 of labels: its optimizer step
    // holds the same parameters, gradients, state and temporaries (5 W), and the workspaces; the batch
    // doubles. Under autocast fc1 and fc2 also keep half copies of their weights until autocast exits
    // (after forward): none at the optimizer step. 5 x 559,616 + 8,192 + 512 + 17,039,360 = 19,846,144.
    QCOMPARE(other.predictedPeakAllocated, std::uint64_t { 19'846'144 });
}

void TestRunComparison::runWithoutStepsSaysWhatItCouldNot()
{
    MeasuredRun run = mlpRun({ true, false, false });
    run.steps.clear();
    run.absolute = false;
    run.whyNotAbsolute = "the trace starts mid-run and no segment anchors it";
    const RunComparison c = compareRun(run, m_plan, m_result, RunContext { 4, Precision::Fp32, {} });
    QVERIFY(!c.steady.has_value());
    QVERIFY(!c.first.has_value());
    QVERIFY(c.phases.empty());
    QCOMPARE(c.measuredPeakAllocated, run.peakAllocated);
    QVERIFY(!c.calibration.available);
    QCOMPARE(c.calibration.reasoning,
        std::string("No calibration is proposed: the run's bytes are not absolute."));
    bool saidSteps = false;
    bool saidAbsolute = false;
    for (const std::string& n : c.notes) {
        saidSteps = saidSteps || n.starts_with("No training step was found in the run");
        saidAbsolute
            = saidAbsolute || n.starts_with("The run's bytes are not absolute (the trace starts mid-run");
    }
    QVERIFY(saidSteps);
    QVERIFY(saidAbsolute);
    // Blocks are still attributed by size where they can be: the 64 MiB buffer is not.
    QCOMPARE(c.unattributed.front().bytes, 64 * MiB);
    QCOMPARE(c.attribution[0].component, RunComponent::Weights);
}

void TestRunComparison::eventMemoryFollowsTheReplay()
{
    const ReservedModel& model = *m_result.reserved;
    const auto all = model.eventMemory(4, 0);
    QCOMPARE(all.size(), model.trace().events().size());
    const auto steady = model.eventMemory(4, 2);
    // The steady step: 7 forward, 17 backward, 12 optimizer events (the loss's empty gradient included).
    QCOMPARE(steady.size(), std::size_t { 36 });
    std::uint64_t peak = 0;
    for (const EventMemory& e : steady) {
        QCOMPARE(model.trace().events()[e.event].step, std::uint8_t { 2 });
        peak = std::max(peak, e.allocated);
    }
    QCOMPARE(peak, kPlanPeak);
    // The replay's own peaks agree.
    QCOMPARE(model.run(4).peakAllocated, kPlanPeak);
    // The first event: fc1.weight, 524,288 bytes, in a new 2 MiB small segment.
    QCOMPARE(all.front().allocated, std::uint64_t { 524'288 });
    QCOMPARE(all.front().blockBytes, std::uint64_t { 524'288 });
    QCOMPARE(all.front().reserved, 2 * MiB);
}

void TestRunComparison::traceStartingMidRun()
{
    // The ring buffer kept only the last step: weights, the batch, Adam's state and both workspaces were
    // made before its first entry. The state is then alive across steps like the weights, and is still
    // told apart by size order (the weights come first in the run's blocks, as model.cuda() made them).
    RunBuilder r;
    r.before("fc1.weight", 524'288);
    r.before("fc1.bias", 2'048);
    r.before("fc2.weight", 32'768);
    r.before("fc2.bias", 512, 64);
    r.before("x", 4'096);
    r.before("y", 512, 32);
    for (const auto& [name, size, requested] :
        { std::tuple { "fc1.weight", 524'288ULL, 524'288ULL }, { "fc1.bias", 2'048ULL, 2'048ULL },
            { "fc2.weight", 32'768ULL, 32'768ULL }, { "fc2.bias", 512ULL, 64ULL } }) {
        r.before(std::string(name) + ".exp_avg", size, requested);
        r.before(std::string(name) + ".exp_avg_sq", size, requested);
    }
    r.before("cublas.forward", kWorkspace);
    r.before("cublas.backward", kWorkspace);
    r.step(false);
    r.phase(RunPhase::Forward);
    r.alloc("a1", 8'192);
    r.alloc("a2", 8'192);
    r.free("a1");
    r.alloc("a3", 512, 256);
    r.alloc("a4", 512, 256);
    r.free("a3");
    r.alloc("a5", 512, 4);
    r.phase(RunPhase::Backward);
    r.alloc("fc2.weight.grad", 32'768);
    r.alloc("fc2.bias.grad", 512, 64);
    r.free("a4");
    r.free("a2");
    r.alloc("fc1.weight.grad", 524'288);
    r.alloc("fc1.bias.grad", 2'048);
    r.free("a5");
    r.phase(RunPhase::OptimizerStep);
    r.alloc("t1", 524'288);
    r.alloc("t2", 2'048);
    r.alloc("t3", 32'768);
    r.alloc("t4", 512, 64);
    for (const char* t : { "t4", "t3", "t2", "t1" })
        r.free(t);
    for (const char* g : { "fc1.weight.grad", "fc1.bias.grad", "fc2.weight.grad", "fc2.bias.grad" })
        r.free(g);
    const MeasuredRun run = r.finish();
    const RunComparison c = compareRun(run, m_plan, m_result, RunContext { 4, Precision::Fp32, {} });
    QVERIFY(c.steady.has_value());
    QVERIFY(!c.first.has_value());
    // The peak: the plan's 19,842,048, block for block.
    QCOMPARE(c.measuredPeakAllocated, kPlanPeak);
    QCOMPARE(component(c.measuredComponents, RunComponent::Weights), kWeights);
    QCOMPARE(component(c.measuredComponents, RunComponent::OptimizerState), 2 * kWeights);
    QCOMPARE(component(c.measuredComponents, RunComponent::Workspaces), 2 * kWorkspace);
    QCOMPARE(component(c.measuredComponents, RunComponent::Activations), kInput);
    QCOMPARE(component(c.measuredComponents, RunComponent::Gradients), kWeights);
    QCOMPARE(component(c.measuredComponents, RunComponent::Temporaries), kWeights);
    QVERIFY(c.unattributed.empty());
    // The labels (32 bytes asked, 512 held) are the batch's, not fc2.bias's state of the same 512 bytes: the
    // plan's tensors alive across steps are used up one block each, in the order the run made them.
    QCOMPARE(c.attribution[5].planKind, TraceKind::Input);
    QCOMPARE(c.attribution[13].planKind, TraceKind::OptimizerState); // fc2.bias's exp_avg_sq
    QCOMPARE(c.attribution[6].lifetime, BlockLifetime::Persistent); // fc1.weight's exp_avg
    QCOMPARE(c.attribution[6].component, RunComponent::OptimizerState);
    QCOMPARE(c.attribution[6].layer, std::string("fc1"));
    QVERIFY(c.calibration.available);
    QCOMPARE(c.calibration.perSampleBytes, std::uint64_t { 0 });
}

void TestRunComparison::runWithoutReservedBytes()
{
    // A memory timeline tells allocated bytes only: reserved is neither drawn nor differenced.
    MeasuredRun run = mlpRun({});
    run.hasReserved = false;
    for (RunSample& s : run.samples)
        s.reserved = 0;
    const RunComparison c = compareRun(run, m_plan, m_result, RunContext { 4, Precision::Fp32, {} });
    QVERIFY(c.steady.has_value());
    QVERIFY(!c.steady->measured.peakReserved.found);
    QVERIFY(c.steady->predicted.peakReserved.found);
    QCOMPARE(c.phases[2].measuredReserved, std::uint64_t { 0 });
    QCOMPARE(c.phases[2].reservedDifference.bytes, std::uint64_t { 0 });
    QCOMPARE(c.peakReservedDifference.bytes, std::uint64_t { 0 });
    QCOMPARE(c.phases[2].measuredAllocated, kPlanPeak);
    QVERIFY(std::find(c.notes.begin(), c.notes.end(),
                "The run's file does not tell reserved bytes: only allocated bytes are compared.")
        != c.notes.end());
}

void TestRunComparison::workspacesOfAnotherGpu()
{
    // The run was on an H100: each cuBLAS workspace is ":4096:8" = 8 x 4 MiB = 32 MiB, not the plan's
    // 8,519,680. No tensor of the plan has that size, but it is a cuBLAS figure: workspaces, 64 MiB.
    const MeasuredRun run = mlpRun({}, 2, 32 * MiB);
    const RunComparison c = compareRun(run, m_plan, m_result, RunContext { 4, Precision::Fp32, {} });
    QCOMPARE(component(c.measuredComponents, RunComponent::Workspaces), 64 * MiB);
    QVERIFY(c.unattributed.empty());
    // The excess, 2 x (33,554,432 - 8,519,680) = 50,069,504, is the workspaces' alone: fixed, nothing per
    // sample.
    QCOMPARE(c.measuredPeakAllocated, kPlanPeak + 50'069'504);
    QCOMPARE(c.calibration.fixedBytes, std::uint64_t { 50'069'504 });
    QCOMPARE(c.calibration.perSampleBytes, std::uint64_t { 0 });
    QVERIFY2(c.calibration.reasoning.find("50,069,504 bytes larger than the plan's") != std::string::npos,
        c.calibration.reasoning.c_str());

    // A block made and freed inside backward whose stack names cuDNN is a workspace whatever its size.
    RunBuilder r;
    const StackId cudnn = r.stack({ { "aten/src/ATen/native/cudnn/Conv_v8.cpp", 700, "run_conv_plan" },
        { "/home/u/model.py", 50, "forward" } });
    r.alloc("w", 524'288);
    r.step(false);
    r.phase(RunPhase::Forward);
    r.alloc("a", 8'192);
    r.phase(RunPhase::Backward);
    r.alloc("ws", 3'000'064, 3'000'000, cudnn);
    r.free("ws");
    r.free("a");
    r.phase(RunPhase::OptimizerStep);
    r.alloc("t", 512);
    r.free("t");
    const MeasuredRun small = r.finish();
    const RunComparison d = compareRun(small, m_plan, m_result, RunContext { 4, Precision::Fp32, {} });
    QCOMPARE(d.attribution[2].lifetime, BlockLifetime::WithinPhase);
    QCOMPARE(d.attribution[2].component, RunComponent::Workspaces);
    QCOMPARE(d.attribution[2].planKind, TraceKind::CudnnWorkspace);
}

void TestRunComparison::indicesOutOfRangeAreSurvived()
{
    // A run whose indices point nowhere (a reader's bug or a hand-made file): compared without reading
    // outside its vectors (the ASan build checks it), with the peak it claims.
    MeasuredRun run = mlpRun({ true, true, true });
    const std::size_t n = run.samples.size();
    run.blocks[0].allocSample = n + 5;
    run.blocks[1].freeSample = n + 7;
    run.blocks[2].stack = 999;
    run.steps[1].phases[1].firstSample = n + 10; // a phase past the end
    run.steps[1].phases[1].endSample = n + 20;
    run.steps[1].phases[2].firstSample = 40; // a reversed one
    run.steps[1].phases[2].endSample = 10;
    run.steps[2].firstSample = n + 1;
    run.steps[2].endSample = n + 9;
    run.peakAllocatedSample = n + 100;
    run.snapshot->stacks.resize(1);
    const RunComparison c = compareRun(run, m_plan, m_result, RunContext { 4, Precision::Fp32, {} });
    QVERIFY(c.steady.has_value());
    QCOMPARE(c.steady->measured.points.size(), std::size_t { 10 }); // the forward's 10 samples alone
    QCOMPARE(c.attribution.size(), run.blocks.size());
    QVERIFY(!c.unattributed.empty());
    QVERIFY(c.unattributed.front().frame.filename.empty()); // its stack is gone
    QVERIFY(!runComparisonToJson(c, true).dump().empty());
}

void TestRunComparison::hugeFiguresDoNotWrap()
{
    // A file may claim anything: two blocks of 2^63 bytes alive at once, memory_allocated() at 2^64 - 1.
    constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();
    MeasuredRun run;
    run.samples = { RunSample { 0, 1ULL << 63, 1ULL << 63, 0 }, RunSample { 1, kMax, kMax, 1 },
        RunSample { 2, kMax, kMax, 2 }, RunSample { 3, kMax, kMax, 3 } };
    MeasuredBlock a;
    a.size = 1ULL << 63;
    a.allocSample = 0;
    MeasuredBlock b = a;
    b.allocSample = 1;
    run.blocks = { a, b };
    MeasuredStep st;
    st.index = 0;
    st.firstSample = 0;
    st.endSample = 4;
    st.peakAllocated = kMax;
    st.peakReserved = kMax;
    for (std::size_t p = 0; p < 3; ++p) {
        MeasuredPhase ph;
        ph.phase = std::array { RunPhase::Forward, RunPhase::Backward, RunPhase::OptimizerStep }[p];
        ph.firstSample = p == 0 ? 0 : p + 1;
        ph.endSample = p + 2;
        ph.peakAllocated = kMax;
        ph.peakReserved = kMax;
        st.phases.push_back(ph);
    }
    run.steps = { st };
    run.peakAllocated = kMax;
    run.peakReserved = kMax;
    const RunComparison c = compareRun(run, m_plan, m_result, RunContext { 4, Precision::Fp32, {} });
    // The blocks sum to 2^64, one more than the largest count: the sum saturates rather than wrapping to 0.
    QCOMPARE(component(c.measuredComponents, RunComponent::Unattributed), kMax);
    QCOMPARE(c.peakAllocatedDifference.bytes, kMax - kPlanPeak);
    QVERIFY(c.peakAllocatedDifference.measuredAbove);
    // Both blocks were made inside the step: no fixed term; the excess 2^64 - 1 - 19,842,048 over 4, rounded
    // up: (18,446,744,073,689,709,567 + 3) / 4 = 4,611,686,018,422,427,392.
    QCOMPARE(c.calibration.fixedBytes, std::uint64_t { 0 });
    QCOMPARE(c.calibration.perSampleBytes, std::uint64_t { 4'611'686'018'422'427'392ULL });
}

void TestRunComparison::communicationBuffersByWhenTheyAreMade()
{
    // DDP's buckets are made with the model and kept: weights. A buffer an operation makes inside a step
    // (ZeRO-3's gathered layers here; the context-parallel ring and the expert dispatch alike) is freed
    // within it: a temporary, not a second copy of the weights.
    QCOMPARE(runComponentOf(TraceKind::Communication), RunComponent::Weights);
    QCOMPARE(runComponentOf(TraceKind::Communication, true), RunComponent::Temporaries);
    QCOMPARE(runComponentOf(TraceKind::Weights, true), RunComponent::Weights);

    // The MLP under ZeRO-3 on 2 GPUs: through forward and backward the gathered layer and the prefetched
    // one, 2 x the largest layer's parameters (fc1: 256 x 512 + 512 = 131,584 float32) = 1,052,672 bytes,
    // alive at the plan's allocated peak (backward). They count as temporaries; the weights component
    // holds the rank's shards only (559,616 bytes in all, each rank half of them): below one gathered pair.
    Plan plan = mlpPlan();
    plan.setup.parallel.gpus = 2;
    plan.setup.parallel.sharding = Sharding::Zero3;
    const PlanResult result = evaluate(plan);
    QVERIFY2(result.reserved, result.error ? result.error->message.c_str() : "no reserved model");
    RunContext context;
    context.batch = 4;
    context.precision = Precision::Fp32;
    const RunComparison c = compareRun(mlpRun({}), plan, result, context);
    constexpr std::uint64_t kGathered = 2 * 131'584 * 4;
    QVERIFY2(component(c.predictedComponents, RunComponent::Temporaries) >= kGathered,
        qPrintable(QString::number(component(c.predictedComponents, RunComponent::Temporaries))));
    QVERIFY2(component(c.predictedComponents, RunComponent::Weights) <= kWeights,
        qPrintable(QString::number(component(c.predictedComponents, RunComponent::Weights))));
}

QTEST_APPLESS_MAIN(TestRunComparison)
#include "tst_runcomparison.moc"

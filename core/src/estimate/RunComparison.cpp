#include "headroom/estimate/RunComparison.h"

#include "headroom/allocator/CachingAllocator.h"
#include "headroom/allocator/CudaRuntime.h"
#include "headroom/support/Format.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <limits>
#include <map>
#include <set>
#include <tuple>
#include <utility>

namespace headroom {

std::string_view runComponentName(RunComponent c) noexcept
{
    switch (c) {
    case RunComponent::Weights:
        return "weights";
    case RunComponent::Gradients:
        return "gradients";
    case RunComponent::OptimizerState:
        return "optimizer_state";
    case RunComponent::Activations:
        return "activations";
    case RunComponent::Workspaces:
        return "workspaces";
    case RunComponent::Temporaries:
        return "temporaries";
    case RunComponent::Unattributed:
        return "unattributed";
    }
    return "unattributed";
}

std::string_view runComponentLabel(RunComponent c) noexcept
{
    switch (c) {
    case RunComponent::Weights:
        return "Weights";
    case RunComponent::Gradients:
        return "Gradients";
    case RunComponent::OptimizerState:
        return "Optimizer state";
    case RunComponent::Activations:
        return "Activations (+input)";
    case RunComponent::Workspaces:
        return "Workspaces";
    case RunComponent::Temporaries:
        return "Temporaries";
    case RunComponent::Unattributed:
        return "Unattributed";
    }
    return "Unattributed";
}

RunComponent runComponentOf(TraceKind kind, bool madeInStep) noexcept
{
    switch (kind) {
    case TraceKind::Communication: // DDP's buckets are made with the model and kept; per-op buffers are not
        return madeInStep ? RunComponent::Temporaries : RunComponent::Weights;
    case TraceKind::Weights:
    case TraceKind::AutocastCopy: // counted under weights (docs/memory-model.md, Components)
        return RunComponent::Weights;
    case TraceKind::Input:
    case TraceKind::Activation:
        return RunComponent::Activations;
    case TraceKind::ParameterGradient:
        return RunComponent::Gradients;
    case TraceKind::OptimizerState:
        return RunComponent::OptimizerState;
    case TraceKind::CublasWorkspace:
    case TraceKind::CudnnWorkspace:
        return RunComponent::Workspaces;
    case TraceKind::ActivationGradient:
    case TraceKind::Scratch:
    case TraceKind::OptimizerTemporary:
        return RunComponent::Temporaries;
    case TraceKind::Calibration: // a calibrated plan's stand-in for what the run held beyond it
        return RunComponent::Unattributed;
    }
    return RunComponent::Temporaries;
}

std::string_view blockLifetimeName(BlockLifetime l) noexcept
{
    switch (l) {
    case BlockLifetime::Persistent:
        return "persistent";
    case BlockLifetime::OptimizerStateLike:
        return "optimizer_state_like";
    case BlockLifetime::GradientLike:
        return "gradient_like";
    case BlockLifetime::ActivationLike:
        return "activation_like";
    case BlockLifetime::WithinPhase:
        return "within_phase";
    case BlockLifetime::BetweenSteps:
        return "between_steps";
    case BlockLifetime::Other:
        return "other";
    }
    return "other";
}

ByteDifference byteDifference(std::uint64_t predicted, std::uint64_t measured) noexcept
{
    ByteDifference d;
    d.measuredAbove = measured > predicted;
    d.bytes = d.measuredAbove ? measured - predicted : predicted - measured;
    if (predicted > 0)
        d.percent = d.signedBytes() / static_cast<double>(predicted) * 100.0;
    return d;
}

namespace run_comparison {

/// The phases of the common x axis, in order.
constexpr std::array<RunPhase, 3> kStepPhases { RunPhase::Forward, RunPhase::Backward,
    RunPhase::OptimizerStep };

std::size_t axisIndex(RunPhase p)
{
    switch (p) {
    case RunPhase::Forward:
        return 0;
    case RunPhase::Backward:
        return 1;
    case RunPhase::OptimizerStep:
        return 2;
    case RunPhase::BeforeSteps:
        break;
    }
    return 3;
}

std::optional<RunPhase> phaseOf(TraceStage s)
{
    switch (s) {
    case TraceStage::Forward:
        return RunPhase::Forward;
    case TraceStage::Backward:
        return RunPhase::Backward;
    case TraceStage::Optimizer:
        return RunPhase::OptimizerStep;
    case TraceStage::Setup:
        break;
    }
    return std::nullopt;
}

/// How a sentence names a phase.
std::string_view phaseWords(RunPhase p)
{
    switch (p) {
    case RunPhase::BeforeSteps:
        return "before the first step";
    case RunPhase::Forward:
        return "forward";
    case RunPhase::Backward:
        return "backward";
    case RunPhase::OptimizerStep:
        return "the optimizer step";
    }
    return "forward";
}

std::string percentText(double percent)
{
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%+.1f %%", percent);
    return buffer;
}

/// Saturating sums: byte figures from a file may be anything.
std::uint64_t addBytes(std::uint64_t a, std::uint64_t b)
{
    return a > std::numeric_limits<std::uint64_t>::max() - b ? std::numeric_limits<std::uint64_t>::max()
                                                             : a + b;
}

/// Peaks of a curve's points (allocated; reserved where `reserved`), with the phase each lies in.
void markPeaks(AlignedCurve& curve, bool reserved)
{
    for (const CurvePoint& p : curve.points) {
        const auto phase
            = kStepPhases[std::min<std::size_t>(2, static_cast<std::size_t>(std::max(0.0, p.x)))];
        if (!curve.peakAllocated.found || p.allocated > curve.peakAllocated.bytes)
            curve.peakAllocated = CurvePeak { true, p.allocated, p.x, phase };
        if (reserved && (!curve.peakReserved.found || p.reserved > curve.peakReserved.bytes))
            curve.peakReserved = CurvePeak { true, p.reserved, p.x, phase };
    }
}

/// A found phase of a measured step: [first, end) in the run's samples.
struct PhaseSpan
{
    std::size_t first = 0;
    std::size_t end = 0;
    std::size_t step = 0; ///< index in MeasuredRun::steps
    RunPhase phase = RunPhase::Forward;
};

/// Where samples lie among the run's steps and phases.
class RunLayout final
{
public:
    explicit RunLayout(const MeasuredRun& run)
    {
        for (std::size_t s = 0; s < run.steps.size(); ++s) {
            for (const MeasuredPhase& p : run.steps[s].phases) {
                if (p.endSample > p.firstSample && p.phase != RunPhase::BeforeSteps)
                    m_spans.push_back(PhaseSpan { p.firstSample, p.endSample, s, p.phase });
            }
        }
        std::sort(
            m_spans.begin(), m_spans.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
        if (!run.steps.empty()) {
            m_firstStepStart = run.steps.front().firstSample;
            m_lastStepEnd = run.steps.back().endSample;
            for (const MeasuredStep& s : run.steps) {
                m_firstStepStart = std::min(m_firstStepStart, s.firstSample);
                m_lastStepEnd = std::max(m_lastStepEnd, s.endSample);
            }
        }
    }

    /// The phase a sample lies in, if any.
    [[nodiscard]] const PhaseSpan* locate(std::size_t sample) const
    {
        if (sample == MeasuredBlock::kNoSample)
            return nullptr;
        auto it = std::upper_bound(m_spans.begin(), m_spans.end(), sample,
            [](std::size_t s, const PhaseSpan& span) { return s < span.first; });
        if (it == m_spans.begin())
            return nullptr;
        --it;
        return sample < it->end ? &*it : nullptr;
    }
    [[nodiscard]] bool hasSteps() const { return !m_spans.empty(); }
    /// Before every step (or before the trace).
    [[nodiscard]] bool beforeSteps(std::size_t sample) const
    {
        return sample == MeasuredBlock::kNoSample || (hasSteps() && sample < m_firstStepStart);
    }
    /// Never freed, or freed after every step.
    [[nodiscard]] bool afterSteps(std::size_t sample) const
    {
        return sample == MeasuredBlock::kNoSample || (hasSteps() && sample >= m_lastStepEnd);
    }

private:
    std::vector<PhaseSpan> m_spans;
    std::size_t m_firstStepStart = 0;
    std::size_t m_lastStepEnd = 0;
};

bool alive(const MeasuredBlock& b, std::size_t sample)
{
    const bool made = b.allocSample == MeasuredBlock::kNoSample || b.allocSample <= sample;
    const bool freed = b.freeSample != MeasuredBlock::kNoSample && b.freeSample <= sample;
    return made && !freed;
}

std::string lower(std::string_view s)
{
    std::string out(s);
    for (char& c : out)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

/// A frame of PyTorch itself, the interpreter or C++ (not the user's code).
bool internalFrame(const RunFrame& f)
{
    const std::string file = lower(f.filename);
    if (file.empty() || file.front() == '<' || file == "??")
        return true;
    for (const std::string_view ext : { ".cpp", ".cc", ".cu", ".h", ".hpp", ".c", ".so" }) {
        if (file.size() >= ext.size() && file.compare(file.size() - ext.size(), ext.size(), ext) == 0)
            return true;
    }
    for (const std::string_view dir : { "/torch/", "\\torch\\", "/site-packages/torch", "/lib/python3" }) {
        if (file.find(dir) != std::string::npos)
            return true;
    }
    return file.starts_with("torch/");
}

const std::vector<RunFrame>* stackOf(const MeasuredRun& run, StackId id)
{
    if (!run.snapshot || id == kNoStack || id >= run.snapshot->stacks.size())
        return nullptr;
    return &run.snapshot->stacks[id];
}

/// The innermost frame of the user's code (PyTorch's frames list the innermost first).
RunFrame userFrame(const MeasuredRun& run, StackId id)
{
    const auto* frames = stackOf(run, id);
    if (frames == nullptr)
        return {};
    for (const RunFrame& f : *frames) {
        if (!internalFrame(f))
            return f;
    }
    return {};
}

bool namesWorkspace(const MeasuredRun& run, StackId id)
{
    const auto* frames = stackOf(run, id);
    if (frames == nullptr)
        return false;
    for (const RunFrame& f : *frames) {
        const std::string text = lower(f.filename) + " " + lower(f.name);
        if (text.find("cublas") != std::string::npos || text.find("cudnn") != std::string::npos)
            return true;
    }
    return false;
}

/// A never-freed block of one of CudaRuntime's cuBLAS workspace figures (any generation, PyTorch 2.0 to
/// 2.11, and cuBLASLt's own before 2.11): a handle's workspace, whichever GPU the run had.
bool cublasWorkspaceSize(std::uint64_t size)
{
    for (const ComputeCapability cc :
        { ComputeCapability { 8, 0 }, ComputeCapability { 9, 0 }, ComputeCapability { 10, 0 } }) {
        for (const TorchVersion torch : { TorchVersion { 2, 0 }, TorchVersion { 2, 11 } }) {
            if (size == cublasWorkspaceBytes(cc, torch) || size == cublasLtWorkspaceBytes(torch))
                return true;
        }
    }
    return false;
}

std::string baseName(std::string_view path)
{
    const auto slash = path.find_last_of("/\\");
    return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

/// A kind of the plan's tensors a measured block is matched against. Communication buffers are told apart
/// by when they are made: at set-up (DDP's buckets, a pipeline stage's send/receive buffers: kept like the
/// weights) or by an operation inside a step (sequence-parallel all-gather, context-parallel ring, expert
/// dispatch, ZeRO-3's gathered parameters: freed within the phase).
struct PlanKind final
{
    constexpr PlanKind(TraceKind k, bool madeInStep = false) // NOLINT: a TraceKind is a PlanKind
        : kind { k }
        , inStep { madeInStep && k == TraceKind::Communication }
    {
    }
    TraceKind kind;
    bool inStep;
    friend auto operator<=>(const PlanKind&, const PlanKind&) = default;
};
constexpr PlanKind kStepCommunication { TraceKind::Communication, true };

/// The plan's tensors by kind and size as the run's allocator rounds them, for naming measured blocks.
class PlanTensors final
{
public:
    PlanTensors(const Analysis& analysis, const AllocationTrace& trace, std::int64_t batch,
        const AllocatorSettings& rounding)
        : m_analysis { analysis }
        , m_rounding { rounding }
    {
        std::set<std::tuple<PlanKind, std::uint64_t, std::uint32_t>> seen;
        for (const TraceEvent& e : trace.events()) {
            if (!e.allocate)
                continue;
            const std::uint64_t bytes = AllocationTrace::bytesAt(e, batch);
            if (bytes == 0)
                continue;
            const std::uint64_t size = CachingAllocator::roundSize(bytes, rounding);
            const PlanKind kind { e.kind, e.stage != TraceStage::Setup };
            auto& rows = m_bySize[{ kind, size }];
            // Tensors made once keep one entry each (named in order); per-step ones their distinct rows.
            if (madeOnce(kind) ? e.step <= firstStepOf(kind.kind) : seen.insert({ kind, size, e.row }).second)
                rows.push_back(e.row);
        }
    }

    struct Match
    {
        PlanKind kind { TraceKind::Activation };
        std::uint32_t row = kNoTraceRow;
    };

    /// The first of `kinds` with a tensor of this block's size; made-once tensors are used up in order (with
    /// `useUp` every kind is: blocks alive across steps stand for one tensor of the plan each).
    std::optional<Match> match(
        const MeasuredBlock& b, std::initializer_list<PlanKind> kinds, bool useUp = false)
    {
        const std::uint64_t requested = b.requestedSize > 0 ? b.requestedSize : b.size;
        const std::uint64_t rounded = CachingAllocator::roundSize(requested, m_rounding);
        for (const PlanKind kind : kinds) {
            for (const std::uint64_t size : { rounded, b.size }) {
                const auto it = m_bySize.find({ kind, size });
                if (it == m_bySize.end() || it->second.empty())
                    continue;
                std::size_t& used = m_used[{ kind, size }];
                if ((useUp || madeOnce(kind)) && used >= it->second.size())
                    continue; // every such tensor of the plan is accounted for
                // Per-step tensors of one size repeat in the same order every step: cycle through their
                // layers.
                const std::uint32_t row = it->second[used % it->second.size()];
                ++used;
                return Match { kind, kind.kind == TraceKind::OptimizerState ? stateRow(size) : row };
            }
        }
        return std::nullopt;
    }

    [[nodiscard]] std::string layerName(std::uint32_t row) const
    {
        return row < m_analysis.rows.size() ? m_analysis.rows[row].name : std::string {};
    }

private:
    static bool madeOnce(PlanKind k)
    {
        const TraceKind t = k.kind;
        return t == TraceKind::Weights || t == TraceKind::OptimizerState || t == TraceKind::CublasWorkspace
            || (t == TraceKind::Communication && !k.inStep);
    }
    static std::uint8_t firstStepOf(TraceKind k)
    {
        return k == TraceKind::Weights || k == TraceKind::Communication ? 0 : 1;
    }
    /// Optimizer state has no layer in the trace: a state tensor is its parameter's size, so it takes the
    /// layer of the weights of that size, in order.
    std::uint32_t stateRow(std::uint64_t size)
    {
        const auto it = m_bySize.find({ TraceKind::Weights, size });
        if (it == m_bySize.end() || it->second.empty())
            return kNoTraceRow;
        std::size_t& n = m_stateNamed[size];
        return it->second[n++ % it->second.size()];
    }

    const Analysis& m_analysis;
    AllocatorSettings m_rounding;
    std::map<std::pair<PlanKind, std::uint64_t>, std::vector<std::uint32_t>> m_bySize;
    std::map<std::pair<PlanKind, std::uint64_t>, std::size_t> m_used;
    std::map<std::uint64_t, std::size_t> m_stateNamed;
};

/// A block's lifetime from where its allocation and free lie among the run's phases.
BlockLifetime lifetimeOf(const MeasuredBlock& b, const RunLayout& layout, const MeasuredRun& run)
{
    const PhaseSpan* made = layout.locate(b.allocSample);
    const PhaseSpan* freed = layout.locate(b.freeSample);
    if (layout.beforeSteps(b.allocSample))
        return layout.afterSteps(b.freeSample) ? BlockLifetime::Persistent : BlockLifetime::Other;
    if (made == nullptr)
        return BlockLifetime::BetweenSteps;
    const bool keptPastPhase = freed == nullptr || freed != made;
    if (!keptPastPhase)
        return BlockLifetime::WithinPhase;
    const bool firstStep = made->step < run.steps.size() && run.steps[made->step].first;
    const bool sameStepLater = freed != nullptr && freed->step == made->step;
    switch (made->phase) {
    case RunPhase::OptimizerStep:
        return firstStep && (freed == nullptr || !sameStepLater) ? BlockLifetime::OptimizerStateLike
                                                                 : BlockLifetime::Other;
    case RunPhase::Backward:
        // .grad: kept into the optimizer step, freed by zero_grad (before the next forward, or in it)
        return (freed == nullptr || !sameStepLater || freed->phase == RunPhase::OptimizerStep)
            ? BlockLifetime::GradientLike
            : BlockLifetime::Other;
    case RunPhase::Forward:
        return sameStepLater && freed->phase == RunPhase::Backward ? BlockLifetime::ActivationLike
                                                                   : BlockLifetime::Other;
    case RunPhase::BeforeSteps:
        break;
    }
    return BlockLifetime::Other;
}

/// What a sentence says about where a block was made and how long it lived.
std::string lifeWords(const MeasuredBlock& b, const RunLayout& layout)
{
    const PhaseSpan* made = layout.locate(b.allocSample);
    const PhaseSpan* freed = layout.locate(b.freeSample);
    std::string words;
    if (made != nullptr)
        words = " in " + std::string(phaseWords(made->phase));
    else if (b.allocSample == MeasuredBlock::kNoSample)
        words = " before the trace";
    else
        words = layout.beforeSteps(b.allocSample) ? " before the first step" : " between steps";
    if (b.freeSample == MeasuredBlock::kNoSample)
        return words + ", never freed";
    if (freed == nullptr)
        return words
            + (layout.afterSteps(b.freeSample) ? ", kept past the last step" : ", kept until between steps");
    if (made != nullptr && freed == made)
        return words + ", freed in the same phase";
    words += ", kept until " + std::string(phaseWords(freed->phase));
    if (made != nullptr && freed->step == made->step + 1)
        words += " of the next step";
    else if (made != nullptr && freed->step > made->step + 1)
        words += " of a later step";
    return words;
}

} // namespace run_comparison

RunComparison compareRun(
    const MeasuredRun& run, const Plan& plan, const PlanResult& result, const RunContext& context)
{
    using namespace run_comparison;
    RunComparison out;
    out.batch = context.batch.value_or(plan.setup.batch);
    out.batchAssumed = !context.batch.has_value();
    out.precision = context.precision.value_or(plan.precision);
    out.precisionAssumed = !context.precision.has_value();
    if (out.batch < 1 || out.batch > kMaxBatch) {
        out.notes.push_back("The run's batch " + std::to_string(out.batch) + " is outside 1 to "
            + std::to_string(kMaxBatch) + ": the plan's (" + std::to_string(plan.setup.batch) + ") is used.");
        out.batch = std::clamp<std::int64_t>(plan.setup.batch, 1, kMaxBatch);
    }
    if (plan.setup.accumulationSteps > 1)
        out.notes.push_back(
            "With gradient accumulation the plan's micro-batches share the forward and backward "
            "intervals of the chart.");

    // The set-up compared.
    if (out.batchAssumed)
        out.notes.push_back(
            "The run's batch is not known: the plan's (" + std::to_string(out.batch) + ") is assumed.");
    else if (out.batch != plan.setup.batch)
        out.setupDifferences.push_back("The run's micro-batch is " + std::to_string(out.batch)
            + " and the plan's " + std::to_string(plan.setup.batch) + ": the plan is compared at "
            + std::to_string(out.batch) + ".");
    if (out.precisionAssumed)
        out.notes.push_back("The run's precision is not known: the plan's ("
            + std::string(precisionName(out.precision)) + ") is assumed.");
    else if (out.precision != plan.precision)
        out.setupDifferences.push_back("The run trained in " + std::string(precisionName(out.precision))
            + " and the plan in " + std::string(precisionName(plan.precision)) + ": the plan is compared in "
            + std::string(precisionName(out.precision)) + ".");

    if (plan.setup.calibration.active())
        out.notes.push_back("The plan carries a calibration"
            + (plan.setup.calibration.source.empty() ? std::string {}
                                                     : " from " + plan.setup.calibration.source)
            + ": its figures include it, and the proposal below is read against the plan without it.");
    const PlanResult* r = &result;
    PlanResult again;
    if (out.precision != plan.precision) {
        Plan p = plan;
        p.precision = out.precision;
        p.setup.batch = out.batch;
        again = evaluate(p);
        r = &again;
    }
    std::shared_ptr<const ReservedModel> model = r->reserved;

    // The run's allocator settings, where the file records them.
    if (run.snapshot && run.snapshot->allocatorSettings.present && model) {
        AllocatorSettings recorded = run.snapshot->allocatorSettings.settings;
        recorded.capacity = kNoLimit;
        recorded.physicalCapacity = kNoLimit;
        AllocatorSettings planned = model->options().allocator;
        planned.capacity = kNoLimit;
        planned.physicalCapacity = kNoLimit;
        if (recorded != planned) {
            if (recorded.expandableSegments != planned.expandableSegments)
                out.setupDifferences.push_back(std::string("The run's allocator ")
                    + (recorded.expandableSegments
                            ? "had expandable_segments:True and the plan's set-up does not"
                            : "did not have expandable_segments:True and the plan's set-up does")
                    + ": the plan is replayed as the run was.");
            if (recorded.maxSplitSize != planned.maxSplitSize)
                out.setupDifferences.push_back("The run's allocator sets max_split_size_mb"
                    + (recorded.maxSplitSize == kNoLimit ? std::string(" to no limit")
                                                         : " to " + formatBytes(recorded.maxSplitSize))
                    + ": the plan is replayed with it.");
            if (recorded.roundupPower2Divisions != planned.roundupPower2Divisions)
                out.setupDifferences.push_back(
                    "The run's allocator sets roundup_power2_divisions: the plan is replayed with it.");
            if (recorded.garbageCollectionThreshold != planned.garbageCollectionThreshold
                || recorded.maxNonSplitRoundingSize != planned.maxNonSplitRoundingSize)
                out.setupDifferences.push_back("The run's allocator sets garbage_collection_threshold or "
                                               "max_non_split_rounding_mb: the plan is replayed with them.");
            ReservedOptions options = model->options();
            options.allocator = recorded;
            TrainingSetup setup = plan.setup;
            setup.expandableSegments = recorded.expandableSegments;
            auto rebuilt = ReservedModel::build(r->analysis, setup, options);
            if (rebuilt)
                model = std::make_shared<const ReservedModel>(std::move(rebuilt).value());
            else
                out.notes.push_back("The plan could not be replayed with the run's allocator settings: "
                    + rebuilt.error().message);
        }
        for (const std::string& u : run.snapshot->allocatorSettings.unmodelled)
            out.notes.push_back("The run's allocator setting " + u + " is not modelled.");
    }
    if (!run.absolute)
        out.notes.push_back("The run's bytes are not absolute (" + run.whyNotAbsolute
            + "): they count from its first event, so its peaks read low and no calibration is proposed.");

    // The plan's step, replayed at the batch.
    std::vector<EventMemory> events;
    const AllocatorSettings rounding = model
        ? model->options().allocator
        : (run.snapshot && run.snapshot->allocatorSettings.present ? run.snapshot->allocatorSettings.settings
                                                                   : AllocatorSettings {});
    if (model) {
        const std::uint64_t capacity = r->reservedFigures ? r->reservedFigures->capacityBytes : kNoLimit;
        events = model->eventMemory(out.batch, 0, capacity == 0 ? kNoLimit : capacity);
    } else {
        out.notes.push_back("The plan has no allocator replay"
            + (r->reservedError ? ": " + r->reservedError->message : std::string {})
            + "; its step is not drawn and its peaks are the tensors'.");
    }
    const int planSteps = model ? std::max(1, model->options().steps) : 0;
    const auto predictedCurve = [&](std::uint8_t step) {
        AlignedCurve c;
        std::array<std::size_t, 3> count {};
        for (const EventMemory& e : events) {
            const auto phase = phaseOf(e.stage);
            if (phase && model->trace().events()[e.event].step == step)
                ++count[axisIndex(*phase)];
        }
        std::array<std::size_t, 3> seen {};
        for (const EventMemory& e : events) {
            const auto phase = phaseOf(e.stage);
            if (!phase || model->trace().events()[e.event].step != step)
                continue;
            const std::size_t k = axisIndex(*phase);
            const double x
                = static_cast<double>(k) + static_cast<double>(seen[k]++) / static_cast<double>(count[k]);
            c.points.push_back(CurvePoint { x, e.allocated, e.reserved });
        }
        std::stable_sort(
            c.points.begin(), c.points.end(), [](const auto& a, const auto& b) { return a.x < b.x; });
        markPeaks(c, true);
        return c;
    };
    const auto measuredCurve = [&](const MeasuredStep& st) {
        AlignedCurve c;
        for (const MeasuredPhase& ph : st.phases) {
            const std::size_t k = axisIndex(ph.phase);
            const std::size_t end = std::min(ph.endSample, run.samples.size());
            if (k > 2 || end <= ph.firstSample)
                continue;
            const double n = static_cast<double>(end - ph.firstSample);
            for (std::size_t s = ph.firstSample; s < end; ++s)
                c.points.push_back(
                    CurvePoint { static_cast<double>(k) + static_cast<double>(s - ph.firstSample) / n,
                        run.samples[s].allocated, run.samples[s].reserved });
        }
        std::stable_sort(
            c.points.begin(), c.points.end(), [](const auto& a, const auto& b) { return a.x < b.x; });
        markPeaks(c, run.hasReserved);
        return c;
    };

    // The measured steps matched: a steady one with every phase (else the one with most), and the first.
    std::optional<std::size_t> steadyStep;
    std::optional<std::size_t> firstStep;
    for (std::size_t s = 0; s < run.steps.size(); ++s) {
        if (run.steps[s].first) {
            if (!firstStep)
                firstStep = s;
            continue;
        }
        if (!steadyStep || run.steps[s].phases.size() > run.steps[*steadyStep].phases.size())
            steadyStep = s;
    }
    if (run.steps.empty())
        out.notes.push_back("No training step was found in the run: only its whole peak is compared, and its "
                            "blocks are not attributed by lifetime.");
    else if (!steadyStep)
        out.notes.push_back("The run shows only its first step: the steady step is compared with it.");
    if (steadyStep && run.steps[*steadyStep].phases.size() < 3)
        out.notes.push_back("The run's steady step lacks a phase: the phases found are compared.");
    const std::optional<std::size_t> comparedStep = steadyStep ? steadyStep : firstStep;

    const std::uint8_t steadyTraceStep = static_cast<std::uint8_t>(std::max(1, planSteps));
    if (comparedStep) {
        AlignedStep a;
        a.firstStep = !steadyStep;
        a.measuredStep = *comparedStep;
        a.measured = measuredCurve(run.steps[*comparedStep]);
        a.measuredReserved = run.hasReserved;
        if (model)
            a.predicted = predictedCurve(a.firstStep ? 1 : steadyTraceStep);
        out.steady = std::move(a);
    }
    if (firstStep && steadyStep) {
        AlignedStep a;
        a.firstStep = true;
        a.measuredStep = *firstStep;
        a.measured = measuredCurve(run.steps[*firstStep]);
        a.measuredReserved = run.hasReserved;
        if (model)
            a.predicted = predictedCurve(1);
        out.first = std::move(a);
    }

    // Peaks, per phase and overall.
    if (out.steady && model) {
        out.predictedPeakAllocated = out.steady->predicted.peakAllocated.bytes;
        out.predictedPeakReserved = out.steady->predicted.peakReserved.bytes;
    } else if (r->estimate) {
        out.predictedPeakAllocated
            = r->estimate->total() - std::min(r->estimate->total(), r->estimate->bytes.overhead);
        out.predictedPeakReserved = r->reservedFigures ? r->reservedFigures->peakReservedBytes : 0;
    }
    if (comparedStep) {
        const MeasuredStep& st = run.steps[*comparedStep];
        out.measuredPeakAllocated = st.peakAllocated;
        out.measuredPeakReserved = run.hasReserved ? st.peakReserved : 0;
        for (const RunPhase phase : kStepPhases) {
            PhaseComparison pc;
            pc.phase = phase;
            for (const MeasuredPhase& ph : st.phases) {
                if (ph.phase == phase) {
                    pc.measuredFound = true;
                    pc.measuredAllocated = std::max(pc.measuredAllocated, ph.peakAllocated);
                    pc.measuredReserved
                        = run.hasReserved ? std::max(pc.measuredReserved, ph.peakReserved) : 0;
                }
            }
            if (out.steady) {
                for (const CurvePoint& p : out.steady->predicted.points) {
                    if (static_cast<std::size_t>(p.x) == axisIndex(phase)) {
                        pc.predictedAllocated = std::max(pc.predictedAllocated, p.allocated);
                        pc.predictedReserved = std::max(pc.predictedReserved, p.reserved);
                    }
                }
            }
            pc.allocatedDifference = byteDifference(pc.predictedAllocated, pc.measuredAllocated);
            if (run.hasReserved) // else no measured figure to differ from
                pc.reservedDifference = byteDifference(pc.predictedReserved, pc.measuredReserved);
            out.phases.push_back(pc);
        }
    } else {
        out.measuredPeakAllocated = run.peakAllocated;
        out.measuredPeakReserved = run.hasReserved ? run.peakReserved : 0;
    }
    out.peakAllocatedDifference = byteDifference(out.predictedPeakAllocated, out.measuredPeakAllocated);
    if (run.hasReserved)
        out.peakReservedDifference = byteDifference(out.predictedPeakReserved, out.measuredPeakReserved);
    if (!run.hasReserved)
        out.notes.push_back(
            "The run's file does not tell reserved bytes: only allocated bytes are compared.");

    // The plan's components at its allocated peak (of the compared step), from the replay's blocks.
    if (out.steady && model && !events.empty()) {
        const std::uint8_t step = out.steady->firstStep ? 1 : steadyTraceStep;
        std::size_t peakAt = events.size();
        std::uint64_t peak = 0;
        for (std::size_t i = 0; i < events.size(); ++i) {
            if (model->trace().events()[events[i].event].step == step
                && (peakAt == events.size() || events[i].allocated > peak)) {
                peak = events[i].allocated;
                peakAt = i;
            }
        }
        std::vector<std::pair<std::uint64_t, RunComponent>> live(
            model->trace().blocks(), { 0, RunComponent::Activations });
        ComponentBytes sums {};
        for (std::size_t i = 0; i < events.size() && i <= peakAt; ++i) {
            const TraceEvent& e = model->trace().events()[events[i].event];
            if (e.block >= live.size())
                continue;
            auto& [bytes, component] = live[e.block];
            if (e.allocate) {
                bytes = events[i].blockBytes;
                component = runComponentOf(e.kind, e.stage != TraceStage::Setup);
                const auto c = static_cast<std::size_t>(component);
                sums[c] = addBytes(sums[c], bytes);
            } else {
                const auto k = static_cast<std::size_t>(component);
                sums[k] -= std::min(sums[k], bytes);
                bytes = 0;
            }
        }
        out.predictedComponents = sums;
    } else if (r->estimate) {
        const MemoryBreakdown& m = r->estimate->bytes;
        out.predictedComponents[static_cast<std::size_t>(RunComponent::Weights)]
            = addBytes(m.weights, m.communication);
        out.predictedComponents[static_cast<std::size_t>(RunComponent::Gradients)] = m.gradients;
        out.predictedComponents[static_cast<std::size_t>(RunComponent::OptimizerState)] = m.optimizerState;
        out.predictedComponents[static_cast<std::size_t>(RunComponent::Activations)]
            = addBytes(m.activations, m.input);
        out.predictedComponents[static_cast<std::size_t>(RunComponent::Temporaries)] = m.transient;
        out.predictedComponents[static_cast<std::size_t>(RunComponent::Unattributed)] = m.calibration;
    }

    // Attribution of the run's blocks by lifetime and size.
    const RunLayout layout { run };
    std::optional<PlanTensors> tensors;
    if (model)
        tensors.emplace(r->analysis, model->trace(), out.batch, rounding);
    const bool stateBeforeTrace = !firstStep; // a trace that starts mid-run: the state is older than it
    for (std::size_t i = 0; i < run.blocks.size(); ++i) {
        const MeasuredBlock& b = run.blocks[i];
        AttributedBlock a;
        a.block = i;
        a.bytes = b.size;
        a.lifetime = layout.hasSteps() ? lifetimeOf(b, layout, run) : BlockLifetime::Other;
        std::optional<PlanTensors::Match> m;
        if (tensors && b.freeSample == MeasuredBlock::kNoSample) // cuBLAS keeps a handle's workspace
            m = tensors->match(b, { TraceKind::CublasWorkspace });
        if (tensors && !m && !layout.hasSteps()) { // by size alone, in the order a run makes its tensors
            using K = TraceKind;
            m = tensors->match(b,
                { K::Weights, K::Communication, K::OptimizerState, K::Input, K::ParameterGradient,
                    K::Activation, K::ActivationGradient, K::Scratch, kStepCommunication,
                    K::OptimizerTemporary, K::AutocastCopy, K::CudnnWorkspace });
        } else if (tensors && !m) {
            using K = TraceKind;
            switch (a.lifetime) {
            case BlockLifetime::Persistent:
                m = stateBeforeTrace
                    ? tensors->match(b,
                        { K::Weights, K::Communication, K::Input, K::OptimizerState, K::CublasWorkspace },
                        true)
                    : tensors->match(b, { K::Weights, K::Communication, K::Input, K::CublasWorkspace }, true);
                break;
            case BlockLifetime::OptimizerStateLike:
                m = tensors->match(b, { K::OptimizerState });
                break;
            case BlockLifetime::GradientLike:
                m = tensors->match(b, { K::ParameterGradient });
                break;
            case BlockLifetime::ActivationLike: // ZeRO-3's gathered layers live from forward to backward too
                m = tensors->match(b, { K::Activation, K::AutocastCopy, K::Input, kStepCommunication });
                break;
            case BlockLifetime::WithinPhase: {
                const auto* span = layout.locate(b.allocSample);
                const RunPhase phase = span != nullptr ? span->phase : RunPhase::Forward;
                if (phase == RunPhase::Forward)
                    m = tensors->match(b,
                        { K::Activation, K::Scratch, kStepCommunication, K::AutocastCopy,
                            K::CudnnWorkspace });
                else if (phase == RunPhase::Backward)
                    m = tensors->match(b,
                        { K::ActivationGradient, K::Scratch, kStepCommunication, K::CudnnWorkspace,
                            K::ParameterGradient, K::Activation, K::AutocastCopy });
                else
                    m = tensors->match(b, { K::OptimizerTemporary, K::Scratch });
                break;
            }
            case BlockLifetime::BetweenSteps:
                m = tensors->match(b, { K::Input, K::Activation });
                break;
            case BlockLifetime::Other:
                m = tensors->match(b,
                    { K::CublasWorkspace, K::Activation, K::ParameterGradient, K::Input, K::OptimizerState });
                break;
            }
        }
        if (m) {
            a.planKind = m->kind.kind;
            a.row = m->row;
            a.layer = tensors->layerName(m->row);
            a.component = runComponentOf(m->kind.kind, m->kind.inStep);
        } else if (b.freeSample == MeasuredBlock::kNoSample && cublasWorkspaceSize(b.size)
            && (a.lifetime != BlockLifetime::Persistent || stateBeforeTrace)) { // made at the first matmul
            a.planKind = TraceKind::CublasWorkspace;
            a.component = RunComponent::Workspaces;
        } else if (namesWorkspace(run, b.stack)) {
            a.planKind = a.lifetime == BlockLifetime::WithinPhase ? TraceKind::CudnnWorkspace
                                                                  : TraceKind::CublasWorkspace;
            a.component = RunComponent::Workspaces;
        }
        out.attribution.push_back(std::move(a));
    }
    if (!run.blocks.empty() && !tensors)
        out.notes.push_back("The plan has no allocation trace: the run's blocks are not attributed.");

    // The measured components at the measured peak.
    std::size_t peakSample = run.peakAllocatedSample;
    if (comparedStep) {
        const MeasuredStep& st = run.steps[*comparedStep];
        const std::size_t end = std::min(st.endSample, run.samples.size());
        for (std::size_t s = st.firstSample; s < end; ++s) {
            if (s == st.firstSample || run.samples[s].allocated > run.samples[peakSample].allocated)
                peakSample = s;
        }
    }
    out.measuredPeakSample = peakSample;
    if (peakSample < run.samples.size() && !run.blocks.empty()) {
        out.measuredComponentsFound = true;
        std::uint64_t sum = 0;
        for (const AttributedBlock& a : out.attribution) {
            if (alive(run.blocks[a.block], peakSample)) {
                auto& c = out.measuredComponents[static_cast<std::size_t>(a.component)];
                c = addBytes(c, a.bytes);
                sum = addBytes(sum, a.bytes);
            }
        }
        const std::uint64_t measured = run.samples[peakSample].allocated;
        if (run.absolute && measured > sum) {
            auto& u = out.measuredComponents[static_cast<std::size_t>(RunComponent::Unattributed)];
            u = addBytes(u, measured - sum);
            out.notes.push_back(formatBytes(measured - sum)
                + " allocated at the run's peak are in no block the file shows: counted as unattributed.");
        } else if (run.absolute && sum > measured) {
            out.notes.push_back("The blocks alive at the run's peak add up to " + formatBytes(sum - measured)
                + " more than its allocated bytes there.");
        }
    } else if (peakSample < run.categories.size()) {
        out.measuredComponentsFound = true;
        const auto& cats = run.categories[peakSample];
        const auto at = [&](ProfilerCategory c) { return cats[static_cast<std::size_t>(c)]; };
        auto& mc = out.measuredComponents;
        mc[static_cast<std::size_t>(RunComponent::Weights)] = at(ProfilerCategory::Parameter);
        mc[static_cast<std::size_t>(RunComponent::OptimizerState)] = at(ProfilerCategory::OptimizerState);
        mc[static_cast<std::size_t>(RunComponent::Activations)]
            = addBytes(at(ProfilerCategory::Activation), at(ProfilerCategory::Input));
        mc[static_cast<std::size_t>(RunComponent::Gradients)] = at(ProfilerCategory::Gradient);
        mc[static_cast<std::size_t>(RunComponent::Temporaries)]
            = addBytes(at(ProfilerCategory::Temporary), at(ProfilerCategory::AutogradDetail));
        mc[static_cast<std::size_t>(RunComponent::Unattributed)] = at(ProfilerCategory::Unknown);
        out.notes.push_back("The run's components are the profiler's categories at its peak.");
    } else {
        out.notes.push_back("The run's file shows no blocks: its memory is not split by component.");
    }

    // The unattributed blocks, largest first; the largest described.
    for (const AttributedBlock& a : out.attribution) {
        if (a.component != RunComponent::Unattributed)
            continue;
        UnattributedBlock u;
        u.block = a.block;
        u.bytes = a.bytes;
        u.lifetime = a.lifetime;
        u.aliveAtPeak = peakSample < run.samples.size() && alive(run.blocks[a.block], peakSample);
        out.unattributed.push_back(std::move(u));
    }
    std::stable_sort(out.unattributed.begin(), out.unattributed.end(),
        [](const auto& x, const auto& y) { return x.bytes > y.bytes; });
    const auto describe = [&](UnattributedBlock& u) {
        if (!u.sentence.empty())
            return;
        const MeasuredBlock& b = run.blocks[u.block];
        u.frame = userFrame(run, b.stack);
        u.sentence = formatBytes(u.bytes) + " allocated";
        if (!u.frame.filename.empty())
            u.sentence
                += " at " + shortForMessage(baseName(u.frame.filename)) + ":" + std::to_string(u.frame.line);
        u.sentence += layout.hasSteps() ? lifeWords(b, layout) : std::string {};
        u.sentence += ": no matching tensor in the plan";
    };
    for (std::size_t i = 0; i < out.unattributed.size() && i < kUnattributedDescribed; ++i)
        describe(out.unattributed[i]);

    // The calibration proposal.
    CalibrationProposal& cal = out.calibration;
    cal.measuredBatch = out.batch;
    cal.source = context.source.empty() ? std::string("the measured run") : context.source;
    if (!steadyStep || !run.absolute) {
        cal.reasoning = !run.absolute
            ? "No calibration is proposed: the run's bytes are not absolute."
            : "No calibration is proposed: the run shows no steady training step to read it from.";
    } else {
        cal.available = true;
        const MeasuredStep& st = run.steps[*steadyStep];
        std::uint64_t fixed = 0;
        std::size_t fixedBlocks = 0;
        const UnattributedBlock* largest = nullptr;
        for (UnattributedBlock& u : out.unattributed) {
            const MeasuredBlock& b = run.blocks[u.block];
            const bool before = b.allocSample == MeasuredBlock::kNoSample || b.allocSample < st.firstSample;
            const bool through = b.freeSample == MeasuredBlock::kNoSample || b.freeSample >= st.endSample;
            if (u.aliveAtPeak && before && through) {
                fixed = addBytes(fixed, u.bytes);
                ++fixedBlocks;
                if (largest == nullptr) {
                    describe(u);
                    largest = &u;
                }
            }
        }
        const std::uint64_t measured = out.measuredPeakAllocated;
        // A plan calibrated already holds its calibration at the peak: the proposal is measured against the
        // plan without it, and replaces it.
        const std::uint64_t calibrated
            = out.predictedComponents[static_cast<std::size_t>(RunComponent::Unattributed)];
        const std::uint64_t predicted
            = out.predictedPeakAllocated - std::min(out.predictedPeakAllocated, calibrated);
        // Workspaces larger than the plan's (the run's GPU or PyTorch sizes cuBLAS's differently) are fixed
        // too.
        const std::size_t ws = static_cast<std::size_t>(RunComponent::Workspaces);
        const std::uint64_t moreWorkspace
            = out.measuredComponentsFound && out.measuredComponents[ws] > out.predictedComponents[ws]
            ? out.measuredComponents[ws] - out.predictedComponents[ws]
            : 0;
        fixed = addBytes(fixed, moreWorkspace);
        const std::uint64_t excess = measured > predicted ? measured - predicted : 0;
        const std::uint64_t rest = excess > fixed ? excess - fixed : 0;
        const auto batch = static_cast<std::uint64_t>(out.batch);
        cal.fixedBytes = fixed;
        cal.perSampleBytes = rest / batch + (rest % batch != 0 ? 1 : 0);
        std::string& why = cal.reasoning;
        if (calibrated > 0)
            why = "The plan's calibration (" + formatBytes(calibrated)
                + " at the peak) is left out of its figures here: the proposal replaces it. ";
        why += "At batch " + std::to_string(out.batch) + " the run's steady step peaked at "
            + formatBytes(measured) + " allocated (" + formatCount(measured) + " bytes) and the plan's at "
            + formatBytes(predicted) + " (" + formatCount(predicted) + " bytes): ";
        why += measured > predicted ? formatBytes(excess) + " (" + formatCount(excess) + " bytes) above it"
            : measured < predicted  ? formatBytes(predicted - measured) + " below it"
                                    : "the same";
        why += ". ";
        if (fixedBlocks > 0) {
            why += "Alive at the run's peak, from before the step and through it, "
                + std::to_string(fixedBlocks) + (fixedBlocks == 1 ? " block" : " blocks") + " of "
                + formatBytes(fixed - moreWorkspace) + " (" + formatCount(fixed - moreWorkspace) + " bytes) "
                + (fixedBlocks == 1 ? "matches" : "match") + " no tensor of the plan (the largest: "
                + largest->sentence + "): what the run keeps outside the model, proposed as the fixed term. ";
        } else if (moreWorkspace == 0) {
            why += "No block alive through the step is outside the plan: no fixed term. ";
        }
        if (moreWorkspace > 0)
            why += "The run's cuBLAS and cuDNN workspaces at its peak are " + formatCount(moreWorkspace)
                + " bytes larger than the plan's (another GPU or PyTorch sizes them so): "
                + (fixedBlocks > 0 ? "added to the fixed term" : "the fixed term") + ", " + formatCount(fixed)
                + " bytes in all. ";
        if (measured <= predicted)
            why += "The run is not above the plan, so no per-sample term is proposed (a run below the plan "
                   "does "
                   "not lower it).";
        else if (rest == 0)
            why += "The fixed term accounts for the whole excess: no per-sample term is proposed.";
        else
            why += "The rest of the excess, " + formatCount(rest) + " bytes, divided by the batch of "
                + std::to_string(out.batch) + " gives " + formatCount(cal.perSampleBytes)
                + " bytes per sample (rounded up).";
    }
    return out;
}

namespace run_comparison {

nlohmann::ordered_json differenceJson(const ByteDifference& d)
{
    return { { "bytes", d.bytes }, { "measured_above", d.measuredAbove }, { "percent", d.percent } };
}

nlohmann::ordered_json peakJson(const CurvePeak& p)
{
    if (!p.found)
        return nullptr;
    return { { "bytes", p.bytes }, { "x", p.x }, { "phase", runPhaseName(p.phase) } };
}

nlohmann::ordered_json stepJson(const AlignedStep& s, bool withCurves)
{
    nlohmann::ordered_json j;
    j["measured_step"] = s.measuredStep;
    j["first_step"] = s.firstStep;
    j["predicted_peak_allocated"] = peakJson(s.predicted.peakAllocated);
    j["predicted_peak_reserved"] = peakJson(s.predicted.peakReserved);
    j["measured_peak_allocated"] = peakJson(s.measured.peakAllocated);
    j["measured_peak_reserved"] = peakJson(s.measured.peakReserved);
    if (withCurves) {
        for (const auto& [key, curve] : { std::pair { "predicted_points", &s.predicted },
                 std::pair { "measured_points", &s.measured } }) {
            nlohmann::ordered_json points = nlohmann::ordered_json::array();
            for (const CurvePoint& p : curve->points)
                points.push_back({ p.x, p.allocated, p.reserved });
            j[key] = std::move(points);
        }
    }
    return j;
}

} // namespace run_comparison

RunFrame innermostUserFrame(const MeasuredRun& run, StackId stack)
{
    return run_comparison::userFrame(run, stack);
}

nlohmann::ordered_json runComparisonToJson(const RunComparison& c, bool withCurves)
{
    using namespace run_comparison;
    using nlohmann::ordered_json;
    ordered_json j;
    j["batch"] = c.batch;
    j["batch_assumed"] = c.batchAssumed;
    j["precision"] = precisionName(c.precision);
    j["precision_assumed"] = c.precisionAssumed;
    j["peak_allocated"]
        = { { "predicted_bytes", c.predictedPeakAllocated }, { "measured_bytes", c.measuredPeakAllocated },
              { "difference", differenceJson(c.peakAllocatedDifference) } };
    j["peak_reserved"]
        = { { "predicted_bytes", c.predictedPeakReserved }, { "measured_bytes", c.measuredPeakReserved },
              { "difference", differenceJson(c.peakReservedDifference) } };
    ordered_json phases = ordered_json::array();
    for (const PhaseComparison& p : c.phases) {
        phases.push_back({ { "phase", runPhaseName(p.phase) }, { "measured_found", p.measuredFound },
            { "predicted_allocated_bytes", p.predictedAllocated },
            { "measured_allocated_bytes", p.measuredAllocated },
            { "allocated_difference", differenceJson(p.allocatedDifference) },
            { "predicted_reserved_bytes", p.predictedReserved },
            { "measured_reserved_bytes", p.measuredReserved },
            { "reserved_difference", differenceJson(p.reservedDifference) } });
    }
    j["phases"] = std::move(phases);
    ordered_json components = ordered_json::array();
    for (std::size_t i = 0; i < kRunComponents; ++i) {
        components.push_back({ { "component", runComponentName(static_cast<RunComponent>(i)) },
            { "predicted_bytes", c.predictedComponents[i] },
            { "measured_bytes",
                c.measuredComponentsFound ? ordered_json(c.measuredComponents[i]) : ordered_json(nullptr) },
            { "difference",
                c.measuredComponentsFound
                    ? differenceJson(byteDifference(c.predictedComponents[i], c.measuredComponents[i]))
                    : ordered_json(nullptr) } });
    }
    j["components"] = std::move(components);
    j["steady_step"] = c.steady ? stepJson(*c.steady, withCurves) : ordered_json(nullptr);
    j["first_step"] = c.first ? stepJson(*c.first, withCurves) : ordered_json(nullptr);
    ordered_json unattributed = ordered_json::array();
    for (const UnattributedBlock& u : c.unattributed) {
        unattributed.push_back({ { "bytes", u.bytes }, { "lifetime", blockLifetimeName(u.lifetime) },
            { "file",
                u.frame.filename.empty() ? ordered_json(nullptr)
                                         : ordered_json(escapeInvalidUtf8(u.frame.filename)) },
            { "line", u.frame.filename.empty() ? ordered_json(nullptr) : ordered_json(u.frame.line) },
            { "function",
                u.frame.filename.empty() ? ordered_json(nullptr)
                                         : ordered_json(escapeInvalidUtf8(u.frame.name)) },
            { "alive_at_peak", u.aliveAtPeak },
            { "sentence",
                u.sentence.empty() ? ordered_json(nullptr) : ordered_json(escapeInvalidUtf8(u.sentence)) } });
    }
    j["unattributed"] = std::move(unattributed);
    j["setup_differences"] = c.setupDifferences;
    const CalibrationProposal& cal = c.calibration;
    j["calibration"] = { { "available", cal.available }, { "fixed_bytes", cal.fixedBytes },
        { "per_sample_bytes", cal.perSampleBytes }, { "measured_batch", cal.measuredBatch },
        { "source", escapeInvalidUtf8(cal.source) }, { "reasoning", escapeInvalidUtf8(cal.reasoning) } };
    ordered_json notes = ordered_json::array();
    for (const std::string& n : c.notes)
        notes.push_back(escapeInvalidUtf8(n));
    j["notes"] = std::move(notes);
    return j;
}

Plan calibratedPlan(const Plan& plan, const CalibrationProposal& proposal)
{
    Plan out = plan;
    out.setup.calibration = RunCalibration { std::min(proposal.fixedBytes, kMaxCalibrationBytes),
        std::min(proposal.perSampleBytes, std::min(kMaxCalibrationBytes, kMaxCalibrationPerSampleBytes)),
        proposal.measuredBatch, proposal.source };
    return out;
}

namespace run_comparison {
std::string batchText(std::int64_t batch)
{
    return formatCount(static_cast<std::uint64_t>(std::max<std::int64_t>(0, batch)));
}
} // namespace run_comparison

CalibratedMaxBatch calibratedMaxBatch(
    const Plan& plan, const PlanResult& result, const CalibrationProposal& proposal)
{
    using run_comparison::batchText;
    CalibratedMaxBatch out;
    out.plan = calibratedPlan(plan, proposal);
    out.before = result.estimate ? result.estimate->maxBatch : 0;
    out.result = result.analysis.error
        ? evaluate(out.plan)
        : evaluate(static_cast<const PlanSettings&>(out.plan), result.analysis);
    if (!out.result.estimate) {
        out.reasoning = "The calibrated plan has no estimate"
            + (out.result.error ? ": " + out.result.error->message : std::string {}) + ".";
        return out;
    }
    out.after = out.result.estimate->maxBatch;
    const RunCalibration& c = out.plan.setup.calibration;
    std::string& why = out.reasoning;
    why = "With what " + (c.source.empty() ? std::string("the run") : c.source) + " held beyond the plan";
    if (c.measuredBatch > 0)
        why += " at batch " + std::to_string(c.measuredBatch);
    why += " (" + formatBytes(c.fixedBytes) + " fixed, " + formatCount(c.perSampleBytes)
        + " bytes per sample), the largest batch on " + plan.gpu.name + " is " + batchText(out.after)
        + ", was " + batchText(out.before)
        + ": every batch holds the fixed part once and the per-sample part per sample";
    if (c.measuredBatch > 0 && out.after > 4 * c.measuredBatch)
        why += "; the per-sample part was read at batch " + std::to_string(c.measuredBatch) + ", "
            + formatCount(static_cast<std::uint64_t>(out.after / c.measuredBatch))
            + " times smaller than this one, so it is extrapolated";
    why += ".";
    return out;
}

} // namespace headroom

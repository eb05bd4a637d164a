#include "headroom/step/StepTimeline.h"

#include "step/StepSimulation.h"
#include "support/Wide.h"

#include <algorithm>
#include <limits>
#include <utility>

namespace headroom {

namespace {

using step::Affine;
using step::BlockRole;
using step::ceilDiv;

constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();

/// What is alive at one moment, before a set-up's constants turn it into a StepMoment.
struct RawMoment
{
    StepPhase phase = StepPhase::Forward;
    std::size_t op = kNoStepOp;
    bool recomputing = false;
    bool later = false;
    bool afterOp = false;
    Affine activations;
    Affine transient; ///< activation gradients, with the op's scratch
    Affine communication; ///< sequence, context and expert parallelism's buffers while the op runs
    Count copies; ///< autocast's weight copies
    Count parameters; ///< parameter gradients allocated so far
    std::uint64_t fixedTransient = 0; ///< parameter gradients accumulated in place, or the step's buffers
    std::vector<std::int64_t> shift;
    std::size_t repeat = kNoStepOp;
    std::size_t ordinal = 0;
    std::size_t ordinals = 1;
};

/// The running state a hidden iteration changes, as signed differences between two points in time.
struct StateDelta
{
    SignedWide activationsPerSample = 0;
    SignedWide activationsFixed = 0;
    SignedWide transientPerSample = 0;
    SignedWide transientFixed = 0;
    SignedWide copies = 0;
    SignedWide cachedCopies = 0;
    SignedWide parameters = 0;
};

SignedWide wide(Count c)
{
    return static_cast<SignedWide>(c.value());
}

/// `c` plus `times` x `delta`; false when it leaves 0..2^64-1.
bool advance(Count& c, SignedWide delta, std::uint64_t times)
{
    if (c.isOverflow())
        return false;
    const SignedWide v = wide(c) + delta * static_cast<SignedWide>(times);
    if (v < 0 || v > static_cast<SignedWide>(kMax))
        return false;
    c = Count { static_cast<std::uint64_t>(v) };
    return true;
}

Count minus(Count a, std::uint64_t b)
{
    return a.isOverflow() ? a : Count { a.value() - std::min(a.value(), b) };
}

/// Turns the step simulation's events into moments: running sums per component, and at the hidden
/// iterations of a Repeat block a jump by the change one iteration makes (docs/memory-model.md,
/// "Repeated iterations").
class MomentBuilder final : public step::StepSink
{
public:
    MomentBuilder(const Analysis& analysis, const StepConditions& c, const step::StepSimulation& simulation)
        : m_graph { analysis.step }
        , m_c { c }
        , m_simulation { simulation }
    {
        m_forwardSnapshots.resize(m_graph.repeats.size());
        m_backwardSnapshots.resize(m_graph.repeats.size());
    }

    std::vector<StepMoment> take() { return std::move(m_moments); }
    [[nodiscard]] bool overflowed() const { return m_overflow; }

    void microBatch(bool later) override
    {
        m_later = later;
        m_ordinal = 0;
        m_activations = {};
        m_transient = {};
        m_copies = {};
        m_cachedCopies = {};
        m_parameters = {};
        m_communication = {};
    }

    void allocate(BlockRole role, std::size_t, const Affine& bytes, bool cachedCopy, std::size_t) override
    {
        switch (role) {
        case BlockRole::Storage:
        case BlockRole::RecomputedStorage:
            m_activations += bytes;
            break;
        case BlockRole::ActivationGradient:
        case BlockRole::ForwardScratch:
        case BlockRole::BackwardScratch:
            m_transient += bytes;
            break;
        case BlockRole::AutocastCopy:
            m_copies += bytes.fixed;
            if (cachedCopy)
                m_cachedCopies += bytes.fixed;
            break;
        case BlockRole::ParameterGradient:
            m_parameters += bytes.fixed;
            break;
        case BlockRole::GradientAccumulation:
            m_fixedTransient += bytes.fixed.value();
            break;
        case BlockRole::Communication:
            m_communication += bytes;
            break;
        }
    }

    void release(BlockRole role, std::size_t, const Affine& bytes) override
    {
        switch (role) {
        case BlockRole::Storage:
        case BlockRole::RecomputedStorage:
            m_activations -= bytes;
            break;
        case BlockRole::ActivationGradient:
        case BlockRole::ForwardScratch:
        case BlockRole::BackwardScratch:
            m_transient -= bytes;
            break;
        case BlockRole::AutocastCopy:
            m_copies = minus(m_copies, bytes.fixed.value());
            break;
        case BlockRole::ParameterGradient:
            m_parameters = minus(m_parameters, bytes.fixed.value());
            break;
        case BlockRole::GradientAccumulation:
            m_fixedTransient -= std::min(m_fixedTransient, bytes.fixed.value());
            break;
        case BlockRole::Communication:
            m_communication -= bytes;
            break;
        }
    }

    void moment(const step::MomentEvent& e) override
    {
        RawMoment raw = current(e.phase, e.op, e.recomputing);
        raw.afterOp = e.afterOp;
        raw.fixedTransient = m_fixedTransient;
        raw.ordinal = m_ordinal++;
        push(std::move(raw));
    }

    void autocastExit() override { m_copies = minus(m_copies, m_cachedCopies.value()); }
    void backwardDone() override { }

    void optimizerStep() override
    {
        m_activations = {};
        m_transient = {};
        m_copies = {};
        m_parameters = m_simulation.allParameterBytes();
        RawMoment raw;
        raw.phase = StepPhase::OptimizerStep;
        raw.later = m_c.accumulationSteps > 1;
        raw.parameters = m_parameters;
        raw.fixedTransient = m_c.stepTemporaries;
        raw.ordinals = 0;
        push(std::move(raw));
    }

    void repeatBegin(std::size_t repeat, bool forward) override
    {
        if (m_openSnapshots++ == 0) {
            m_raw.clear();
            m_rawBase = m_moments.size();
        }
        (forward ? m_forwardSnapshots : m_backwardSnapshots)[repeat] = Snapshot { m_activations, m_transient,
            m_copies, m_cachedCopies, m_parameters, m_moments.size(), m_ordinal };
    }

    void repeatEnd(std::size_t repeat, bool forward, bool recomputing) override;

private:
    std::uint64_t gradientsHeld(Count bytes) const
    {
        if (m_c.gradientsOffloaded || bytes.isOverflow())
            return 0;
        return ceilDiv(bytes.value(), m_c.gradientShards);
    }

    void push(RawMoment raw);
    void addPipelineHeld(StepMoment& m);

    /// What is alive now, as a moment of `op`.
    [[nodiscard]] RawMoment current(StepPhase phase, std::size_t op, bool recomputing) const
    {
        RawMoment raw;
        raw.phase = phase;
        raw.op = op;
        raw.recomputing = recomputing;
        raw.later = m_later;
        raw.activations = m_activations;
        raw.transient = m_transient;
        raw.communication = m_communication;
        raw.copies = m_copies;
        raw.parameters = m_parameters;
        return raw;
    }

    /// Where the running state stands, for measuring what one iteration changes.
    struct Snapshot
    {
        Affine activations;
        Affine transient;
        Count copies;
        Count cachedCopies;
        Count parameters;
        std::size_t firstMoment = 0;
        std::size_t ordinal = 0; ///< m_ordinal then
    };

    /// What the stand-in iteration changed since its snapshot `was`.
    [[nodiscard]] StateDelta changeSince(const Snapshot& was) const;
    /// The stand-in's moments from `was` on at the hidden iterations where autocast's copy cap is
    /// crossed: (u, the stand-in's moment).
    [[nodiscard]] std::vector<std::pair<std::uint64_t, std::size_t>> capCrossings(
        const Snapshot& was, const StateDelta& d, std::uint64_t hidden) const;
    /// The stand-in's moment `i` in hidden iteration u: its state plus u times the change.
    void pushHidden(std::size_t i, std::uint64_t u, const StateDelta& d, const StepRepeat& rep, bool forward,
        std::size_t perIteration);
    /// The running state after `n` hidden iterations.
    void skipHidden(const StateDelta& d, std::uint64_t n);

    const StepGraph& m_graph;
    const StepConditions& m_c;
    const step::StepSimulation& m_simulation;
    std::vector<Snapshot> m_forwardSnapshots, m_backwardSnapshots;
    std::vector<RawMoment> m_raw; ///< what the moments from m_rawBase on were made from
    std::size_t m_rawBase = 0;
    int m_openSnapshots = 0;

    Affine m_activations;
    Affine m_transient;
    Affine m_communication; ///< allocated and freed around one op's moment: no iteration changes it
    Count m_copies;
    Count m_cachedCopies; ///< autocast's cast cache, cleared when the forward pass ends
    Count m_parameters;
    std::uint64_t m_fixedTransient = 0;
    bool m_later = false;
    std::size_t m_ordinal = 0; ///< the micro-batch's moments so far, repeated blocks written out
    std::vector<StepMoment> m_moments;
    bool m_overflow = false;
};

void MomentBuilder::push(RawMoment raw)
{
    StepMoment m;
    m.phase = raw.phase;
    m.op = raw.op;
    m.row = raw.op == kNoStepOp || m_graph.ops.empty() ? 0 : m_graph.ops[raw.op].row;
    m.recomputing = raw.recomputing;
    m.laterMicroBatch = raw.later;
    m.afterOp = raw.afterOp;
    m.shift = raw.shift;
    m.repeat = raw.repeat;
    m.ordinal = raw.ordinal;
    m.ordinals = raw.ordinals;
    const Count copies { std::min(raw.copies.value(), m_c.autocastCopyCap) };
    const Count weights = Count { m_c.weights } + copies;
    const Count gradientTransient = Count { raw.fixedTransient } + raw.transient.fixed;
    m_overflow = m_overflow || weights.isOverflow() || raw.copies.isOverflow() || raw.activations.overflowed()
        || raw.transient.overflowed() || gradientTransient.isOverflow() || raw.parameters.isOverflow()
        || raw.communication.overflowed();
    m.fixed.weights = weights.value();
    m.fixed.gradients = gradientsHeld(raw.later ? m_simulation.allParameterBytes() : raw.parameters);
    m.fixed.optimizerState = m_c.optimizerState;
    m.fixed.activations = raw.activations.fixed.value();
    m.perSample.activations = raw.activations.perSample.value();
    m.fixed.input = m_simulation.input().fixed.value();
    m.perSample.input = m_simulation.input().perSample.value();
    m.fixed.transient = gradientTransient.value();
    m.perSample.transient = raw.transient.perSample.value();
    // Sequence parallelism's gather buffer is kept once allocated (Megatron's global memory buffer).
    const Count communication = Count { m_c.bucketBytes }
        + Count { raw.phase == StepPhase::OptimizerStep ? 0 : m_c.gatheredBytes }
        + Count { m_c.sequenceGather.fixed } + raw.communication.fixed;
    const Count communicationPerSample = Count { m_c.sequenceGather.perSample } + raw.communication.perSample;
    m_overflow = m_overflow || communication.isOverflow() || communicationPerSample.isOverflow();
    m.fixed.communication = communication.value();
    m.perSample.communication = communicationPerSample.value();
    if (raw.phase != StepPhase::OptimizerStep)
        addPipelineHeld(m);
    m.fixed.calibration = m_c.calibrationFixed;
    m.perSample.calibration = m_c.calibrationPerSample;
    m.fixed.overhead = m_c.overhead;
    m_moments.push_back(std::move(m));
    // What a moment was made from is kept only while a jump may copy it (inside a stand-in).
    if (m_openSnapshots > 0)
        m_raw.push_back(std::move(raw));
}

/// What a pipeline stage's other micro-batches in flight hold, and its send and receive buffers
/// (StepConditions::heldPasses): alive at every moment of forward and backward.
void MomentBuilder::addPipelineHeld(StepMoment& m)
{
    const Count passes { static_cast<std::uint64_t>(std::max<std::int64_t>(0, m_c.heldPasses)) };
    const auto add = [&](std::uint64_t& into, std::uint64_t perPass) {
        const Count sum = Count { into } + Count { perPass } * passes;
        m_overflow = m_overflow || sum.isOverflow();
        into = sum.value();
    };
    add(m.fixed.activations, m_c.heldActivationsPerPass.fixed);
    add(m.perSample.activations, m_c.heldActivationsPerPass.perSample);
    add(m.fixed.input, m_c.heldInputPerPass.fixed);
    add(m.perSample.input, m_c.heldInputPerPass.perSample);
    const Count buffers = Count { m.perSample.communication } + Count { m_c.pipelineBuffers.perSample };
    const Count fixedBuffers = Count { m.fixed.communication } + Count { m_c.pipelineBuffers.fixed };
    m_overflow = m_overflow || buffers.isOverflow() || fixedBuffers.isOverflow();
    m.perSample.communication = buffers.value();
    m.fixed.communication = fixedBuffers.value();
}

/// The hidden iterations of `repeat`, after the iteration that stands for them ran since its snapshot
/// (forward: the one before them; backward: the one after them, whose backward runs first). Each hidden
/// iteration changes the state as that one did, so a moment's memory in hidden iteration u (1 = nearest
/// the stand-in) is the stand-in's moment plus u times the change: affine in u, apart from autocast's copy
/// cap (a minimum) and the sharded gradients (a ceiling). Affine with an integer slope plus
/// ceil(a + u g / N) is monotone in u at every batch size, so the largest value of each piece between the
/// cap's breakpoints is at its ends: the stand-ins on either side, or the iterations around a breakpoint,
/// which are simulated here. Then the state jumps past them all.
void MomentBuilder::repeatEnd(std::size_t repeat, bool forward, bool recomputing)
{
    const StepRepeat& rep = m_graph.repeats[repeat];
    const Snapshot& was = (forward ? m_forwardSnapshots : m_backwardSnapshots)[repeat];
    --m_openSnapshots;
    const StateDelta d = changeSince(was);
    // A hidden iteration has as many moments as the stand-in once its own blocks are written out.
    const std::size_t perIteration = m_ordinal - was.ordinal;
    for (const auto& [u, i] : capCrossings(was, d, rep.hidden))
        pushHidden(i, u, d, rep, forward, perIteration);
    skipHidden(d, rep.hidden);
    // A marker of what is alive once they have run (not a moment of the step: see StepMoment::repeat).
    RawMoment marker = current(
        forward ? StepPhase::Forward : StepPhase::Backward, forward ? rep.last : rep.nextFirst, recomputing);
    marker.repeat = repeat;
    marker.ordinal = m_ordinal;
    marker.ordinals = static_cast<std::size_t>(rep.hidden) * perIteration;
    m_ordinal += marker.ordinals;
    push(std::move(marker));
}

StateDelta MomentBuilder::changeSince(const Snapshot& was) const
{
    StateDelta d;
    d.activationsPerSample = wide(m_activations.perSample) - wide(was.activations.perSample);
    d.activationsFixed = wide(m_activations.fixed) - wide(was.activations.fixed);
    d.transientPerSample = wide(m_transient.perSample) - wide(was.transient.perSample);
    d.transientFixed = wide(m_transient.fixed) - wide(was.transient.fixed);
    d.copies = wide(m_copies) - wide(was.copies);
    d.cachedCopies = wide(m_cachedCopies) - wide(was.cachedCopies);
    d.parameters = wide(m_parameters) - wide(was.parameters);
    return d;
}

std::vector<std::pair<std::uint64_t, std::size_t>> MomentBuilder::capCrossings(
    const Snapshot& was, const StateDelta& d, std::uint64_t hidden) const
{
    std::vector<std::pair<std::uint64_t, std::size_t>> simulated;
    if (m_c.autocastCopyCap == kMax || d.copies == 0)
        return simulated;
    const auto cap = static_cast<SignedWide>(m_c.autocastCopyCap);
    for (std::size_t i = was.firstMoment; i < m_moments.size(); ++i) {
        const RawMoment& stood = m_raw[i - m_rawBase];
        if (stood.repeat != kNoStepOp)
            continue;
        // The last u on the first side of the cap, and the first on the other.
        const SignedWide c = wide(stood.copies);
        SignedWide u = -1;
        if (d.copies > 0 && c <= cap)
            u = (cap - c) / d.copies;
        else if (d.copies < 0 && c >= cap)
            u = (c - cap) / -d.copies;
        for (const SignedWide v : { u, u + 1 }) {
            if (v >= 1 && v <= static_cast<SignedWide>(hidden))
                simulated.emplace_back(static_cast<std::uint64_t>(v), i);
        }
    }
    std::sort(simulated.begin(), simulated.end());
    simulated.erase(std::unique(simulated.begin(), simulated.end()), simulated.end());
    return simulated;
}

void MomentBuilder::pushHidden(std::size_t i, std::uint64_t u, const StateDelta& d, const StepRepeat& rep,
    bool forward, std::size_t perIteration)
{
    RawMoment raw = m_raw[i - m_rawBase];
    const bool ok = advance(raw.activations.perSample, d.activationsPerSample, u)
        && advance(raw.activations.fixed, d.activationsFixed, u)
        && advance(raw.transient.perSample, d.transientPerSample, u)
        && advance(raw.transient.fixed, d.transientFixed, u) && advance(raw.copies, d.copies, u)
        && advance(raw.parameters, d.parameters, u);
    m_overflow = m_overflow || !ok;
    raw.shift.resize(std::max(raw.shift.size(), rep.level + 1), 0);
    raw.shift[rep.level] += forward ? static_cast<std::int64_t>(u) : -static_cast<std::int64_t>(u);
    raw.afterOp = false;
    // Hidden iteration u runs u iterations after the stand-in, in forward and in backward alike.
    raw.ordinal += static_cast<std::size_t>(u) * perIteration;
    push(std::move(raw));
}

void MomentBuilder::skipHidden(const StateDelta& d, std::uint64_t n)
{
    const bool ok = advance(m_activations.perSample, d.activationsPerSample, n)
        && advance(m_activations.fixed, d.activationsFixed, n)
        && advance(m_transient.perSample, d.transientPerSample, n)
        && advance(m_transient.fixed, d.transientFixed, n) && advance(m_copies, d.copies, n)
        && advance(m_cachedCopies, d.cachedCopies, n) && advance(m_parameters, d.parameters, n);
    m_overflow = m_overflow || !ok;
}

/// The sum of the components, saturated: an overflowed moment is above any memory.
std::uint64_t total(const MemoryBreakdown& m)
{
    const Count sum = m.checkedTotal();
    return sum.isOverflow() ? kMax : sum.value();
}

} // namespace

std::string_view stepPhaseName(StepPhase p) noexcept
{
    switch (p) {
    case StepPhase::Forward:
        return "forward";
    case StepPhase::Backward:
        return "backward";
    case StepPhase::OptimizerStep:
        return "optimizer_step";
    }
    return "";
}

std::string_view stepPhaseLabel(StepPhase p) noexcept
{
    switch (p) {
    case StepPhase::Forward:
        return "Forward";
    case StepPhase::Backward:
        return "Backward";
    case StepPhase::OptimizerStep:
        return "Optimizer step";
    }
    return "";
}

StepTimeline StepTimeline::simulate(const Analysis& analysis, const StepConditions& conditions)
{
    step::StepSimulation simulation { analysis, conditions };
    MomentBuilder builder { analysis, conditions, simulation };
    simulation.run(builder);
    StepTimeline t;
    t.m_moments = builder.take();
    t.m_optimizerState = conditions.optimizerState;
    t.m_conditions = conditions;
    std::vector<UpperEnvelope::Line> steady, first;
    steady.reserve(t.m_moments.size());
    first.reserve(t.m_moments.size());
    for (std::size_t i = 0; i < t.m_moments.size(); ++i) {
        const StepMoment& m = t.m_moments[i];
        if (m.repeat != kNoStepOp)
            continue; // what is alive after hidden iterations: never above the moments around it
        const std::uint64_t fixed = total(m.fixed);
        const std::uint64_t perSample = total(m.perSample);
        steady.push_back(UpperEnvelope::Line { fixed, perSample, i });
        const bool beforeTheStep = m.phase != StepPhase::OptimizerStep;
        first.push_back(
            UpperEnvelope::Line { beforeTheStep ? fixed - m.fixed.optimizerState : fixed, perSample, i });
    }
    t.m_steady = UpperEnvelope { std::move(steady) };
    t.m_first = UpperEnvelope { std::move(first) };
    t.m_overflow = simulation.overflowed() || builder.overflowed();
    return t;
}

std::string momentLayerName(const Analysis& analysis, const StepMoment& moment)
{
    if (moment.phase == StepPhase::OptimizerStep)
        return {};
    if (moment.repeat != kNoStepOp && moment.repeat < analysis.step.repeats.size()) {
        const StepRepeat& r = analysis.step.repeats[moment.repeat];
        if (r.headerRow >= analysis.rows.size())
            return {};
        const std::string first = std::to_string(r.firstHidden);
        const std::int64_t last = r.firstHidden + static_cast<std::int64_t>(r.hidden) - 1;
        return analysis.rows[r.headerRow].name + "." + first
            + (r.hidden > 1 ? "\u2013" + std::to_string(last) : "");
    }
    if (moment.row >= analysis.rows.size())
        return {};
    return instanceName(analysis.rows[moment.row], moment.shift);
}

std::string momentLayerReference(const Analysis& analysis, const StepMoment& moment)
{
    const std::string name = momentLayerName(analysis, moment);
    if (name.empty())
        return name;
    if (moment.repeat != kNoStepOp) {
        // momentLayerName found the block's header row: its number, and the iterations by name.
        const std::string number
            = layerNumber(analysis.rows[analysis.step.repeats[moment.repeat].headerRow].specPath);
        return number.empty() ? name : number + " (" + name + ")";
    }
    return layerReference(analysis.rows[moment.row], name);
}

std::vector<std::size_t> StepTimeline::oneStep() const
{
    const bool accumulation = std::any_of(
        m_moments.begin(), m_moments.end(), [](const StepMoment& m) { return m.laterMicroBatch; });
    std::vector<std::size_t> out;
    for (std::size_t i = 0; i < m_moments.size(); ++i) {
        const StepMoment& m = m_moments[i];
        if (m.phase == StepPhase::OptimizerStep || m.laterMicroBatch == accumulation)
            out.push_back(i);
    }
    return out;
}

} // namespace headroom

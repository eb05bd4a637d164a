#include "headroom/StepTimeline.h"

#include "TensorParallel.h"

#include <algorithm>
#include <limits>
#include <map>
#include <utility>

namespace headroom {

namespace {

constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();
__extension__ typedef unsigned __int128 Wide;
__extension__ typedef __int128 SignedWide;

/// Running affine byte counts. Sums only ever hold bytes that were added, so they never go below zero.
struct Affine {
    Count perSample;
    Count fixed;

    Affine& operator+=(const Affine& o)
    {
        perSample += o.perSample;
        fixed += o.fixed;
        return *this;
    }
    Affine& operator-=(const Affine& o)
    {
        perSample = minus(perSample, o.perSample);
        fixed = minus(fixed, o.fixed);
        return *this;
    }
    [[nodiscard]] bool overflowed() const { return perSample.isOverflow() || fixed.isOverflow(); }

private:
    static Count minus(Count a, Count b)
    {
        if (a.isOverflow() || b.isOverflow())
            return Count::overflowed();
        return Count{a.value() - std::min(a.value(), b.value())};
    }
};

Affine affine(const AffineBytes& b) { return Affine{Count{b.perSample}, Count{b.fixed}}; }

std::uint64_t ceilDiv(std::uint64_t x, std::uint64_t n) { return n <= 1 ? x : x / n + (x % n != 0 ? 1 : 0); }

/// What is alive at one moment, before a set-up's constants turn it into a StepMoment.
struct RawMoment {
    StepPhase phase = StepPhase::Forward;
    std::size_t op = kNoStepOp;
    bool recomputing = false;
    bool later = false;
    bool afterOp = false;
    Affine activations;
    Affine transient; ///< activation gradients, with the op's scratch
    Count copies;     ///< autocast's weight copies
    Count parameters; ///< parameter gradients allocated so far
    std::uint64_t fixedTransient = 0; ///< a parameter gradient accumulated in place, or the step's buffers
    std::vector<std::int64_t> shift;
    std::size_t repeat = kNoStepOp;
};

/// The running state a hidden iteration changes, as signed differences between two points in time.
struct StateDelta {
    SignedWide activationsPerSample = 0;
    SignedWide activationsFixed = 0;
    SignedWide transientPerSample = 0;
    SignedWide transientFixed = 0;
    SignedWide copies = 0;
    SignedWide cachedCopies = 0;
    SignedWide parameters = 0;
};

SignedWide wide(Count c) { return static_cast<SignedWide>(c.value()); }

/// `c` plus `times` x `delta`; false when it leaves 0..2^64-1.
bool advance(Count& c, SignedWide delta, std::uint64_t times)
{
    if (c.isOverflow())
        return false;
    const SignedWide v = wide(c) + delta * static_cast<SignedWide>(times);
    if (v < 0 || v > static_cast<SignedWide>(kMax))
        return false;
    c = Count{static_cast<std::uint64_t>(v)};
    return true;
}

/// Ops first..last.
struct OpRange {
    std::size_t first = 0;
    std::size_t last = kNoStepOp;
    [[nodiscard]] bool holds(const StepRepeat& r) const { return r.first >= first && r.nextLast <= last; }
};

/// A gradient buffer of an activation: one storage, referenced by one or more tensors' gradient slots
/// (the engine's input buffers) and by the op that passes it on.
struct GradientBuffer {
    Affine bytes;
    int references = 0;
};

class Simulator {
public:
    Simulator(const Analysis& analysis, const StepConditions& c)
        : m_analysis{analysis}, m_graph{analysis.step}, m_c{c}
    {
        prepare();
    }

    std::vector<StepMoment> run()
    {
        runMicroBatch(false);
        if (m_c.accumulationSteps > 1)
            runMicroBatch(true);
        optimizerStep();
        return std::move(m_moments);
    }

    [[nodiscard]] bool overflowed() const { return m_overflow; }

private:
    /// Bytes one GPU holds of something charged to `row` (tensor parallelism splits some layers).
    Affine onGpu(const AffineBytes& b, std::size_t row) const
    {
        if (m_c.tensorParallel <= 1 || row >= m_analysis.rows.size() || !m_split[row])
            return affine(b);
        return Affine{Count{ceilDiv(b.perSample, m_c.tensorParallel)}, Count{ceilDiv(b.fixed, m_c.tensorParallel)}};
    }

    void prepare()
    {
        const auto& ops = m_graph.ops;
        const std::size_t n = ops.size();
        m_split.resize(m_analysis.rows.size());
        for (std::size_t r = 0; r < m_analysis.rows.size(); ++r)
            m_split[r] = m_c.tensorParallel > 1 && splitByTensorParallel(m_analysis.rows[r]);
        m_storageBytes.reserve(m_graph.storages.size());
        for (const auto& s : m_graph.storages)
            m_storageBytes.push_back(onGpu(s.bytes, s.chargedRow));
        m_freeAfterForward.resize(n);
        m_freeAfterBackward.resize(n);
        m_freeAfterRecompute.resize(n);
        m_releaseRecomputedAfterBackward.resize(n);
        m_segmentFirst.assign(m_graph.segments, kNoStepOp);
        m_segmentLast.assign(m_graph.segments, kNoStepOp);
        for (std::size_t j = 0; j < n; ++j) {
            if (ops[j].segment < 0)
                continue;
            const auto g = static_cast<std::size_t>(ops[j].segment);
            m_segmentFirst[g] = std::min(m_segmentFirst[g], j);
            m_segmentLast[g] = m_segmentLast[g] == kNoStepOp ? j : std::max(m_segmentLast[g], j);
        }
        // The last use of each storage inside its own checkpointed iteration (for the recomputation).
        std::vector<std::size_t> lastUseInSegment(m_graph.storages.size(), kNoStepOp);
        for (std::size_t j = 0; j < n; ++j) {
            for (const auto& in : ops[j].inputs) {
                const std::size_t s = m_graph.tensors[in.tensor].storage;
                if (m_graph.storages[s].segment >= 0 && m_graph.storages[s].segment == ops[j].segment)
                    lastUseInSegment[s] = lastUseInSegment[s] == kNoStepOp ? j : std::max(lastUseInSegment[s], j);
            }
        }
        const std::size_t rootStorage = n > 0 ? m_graph.tensors[ops[n - 1].output].storage : kNoStepOp;
        for (std::size_t s = 0; s < m_graph.storages.size(); ++s) {
            const StepStorage& st = m_graph.storages[s];
            if (st.isInputBatch || st.producer == kNoStepOp)
                continue;
            if (st.keptAcrossSegments)
                m_freeAfterBackward[st.releasedAfterBackwardOf].push_back(s);
            else if (s == rootStorage) // what backward starts from: the caller holds it (`loss`) until
                m_rootStorage = s;     // backward returns
            else
                m_freeAfterForward[std::max(st.lastForwardUse, st.producer)].push_back(s);
            if (st.segment < 0)
                continue;
            const auto g = static_cast<std::size_t>(st.segment);
            const bool segmentOutput = m_graph.tensors[ops[m_segmentLast[g]].output].storage == s;
            if (segmentOutput) // reentrant checkpoint holds the recomputed outputs to the iteration's end
                m_releaseRecomputedAfterBackward[m_segmentFirst[g]].push_back(s);
            else if (st.keptInSegment)
                m_releaseRecomputedAfterBackward[st.releasedInSegmentAfterBackwardOf].push_back(s);
            else
                m_freeAfterRecompute[lastUseInSegment[s] == kNoStepOp ? st.producer : lastUseInSegment[s]].push_back(s);
        }
        // Tensor parallelism: the set-up's total (split per layer like the weights) shared out in
        // proportion, so one GPU's gradients always add up to its trainable weights.
        Count unsplit;
        for (const auto& p : m_graph.parameters)
            unsplit += Count{p.gradientBytes} * Count{p.copies};
        const bool rescale = m_c.tensorParallel > 1 && !unsplit.isOverflow() && unsplit.value() > 0;
        Count given;
        for (std::size_t i = 0; i < m_graph.parameters.size(); ++i) {
            const StepParameter& p = m_graph.parameters[i];
            std::uint64_t bytes = p.gradientBytes;
            if (rescale) {
                bytes = static_cast<std::uint64_t>(static_cast<Wide>(bytes) * m_c.gradients / unsplit.value());
                if (i + 1 == m_graph.parameters.size() && p.copies == 1) // the rounding's remainder
                    bytes = m_c.gradients - std::min(m_c.gradients, given.value());
            }
            given += Count{bytes} * Count{p.copies};
            m_parameterBytes.push_back(bytes);
        }
        // Hidden iterations: where their stand-ins start and end, going forward and backward. At one op,
        // an enclosing block's stand-in starts before and ends after an inner one's.
        for (std::size_t r = 0; r < m_graph.repeats.size(); ++r) {
            const StepRepeat& rep = m_graph.repeats[r];
            if (rep.hidden == 0 || rep.first > rep.last || rep.last >= rep.nextFirst || rep.nextFirst > rep.nextLast
                || rep.nextLast >= n)
                continue;
            m_forwardFrom[rep.first].push_back(r);
            m_forwardTo[rep.last].push_back(r);
            m_backwardFrom[rep.nextLast].push_back(r);
            m_backwardTo[rep.nextFirst].push_back(r);
        }
        const auto span = [&](std::size_t r) { return m_graph.repeats[r].nextLast - m_graph.repeats[r].first; };
        for (auto* lists : {&m_forwardFrom, &m_backwardFrom})
            for (auto& [op, rs] : *lists)
                std::sort(rs.begin(), rs.end(), [&](auto a, auto b) { return span(a) > span(b); });
        for (auto* lists : {&m_forwardTo, &m_backwardTo})
            for (auto& [op, rs] : *lists)
                std::sort(rs.begin(), rs.end(), [&](auto a, auto b) { return span(a) < span(b); });
        m_forwardSnapshots.resize(m_graph.repeats.size());
        m_backwardSnapshots.resize(m_graph.repeats.size());
        m_allParameterBytes = m_graph.parameters.empty() ? Count{m_c.gradients} : given;
        m_overflow = m_overflow || m_allParameterBytes.isOverflow();
        for (const auto& s : m_graph.storages) {
            if (s.isInputBatch)
                m_input += affine(s.bytes);
        }
    }

    std::uint64_t gradientsHeld(Count bytes) const
    {
        if (m_c.gradientsOffloaded || bytes.isOverflow())
            return 0;
        return ceilDiv(bytes.value(), m_c.gradientShards);
    }

    void emit(StepPhase phase, std::size_t op, bool recomputing, bool later, const Affine& extraTransient,
              std::uint64_t extraFixedTransient, bool afterOp = false)
    {
        RawMoment raw;
        raw.afterOp = afterOp;
        raw.phase = phase;
        raw.op = op;
        raw.recomputing = recomputing;
        raw.later = later;
        raw.activations = m_activations;
        raw.transient = Affine{m_transient} += extraTransient;
        raw.copies = m_copies;
        raw.parameters = m_parameters;
        raw.fixedTransient = extraFixedTransient;
        push(std::move(raw));
    }

    void push(RawMoment raw)
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
        const Count copies{std::min(raw.copies.value(), m_c.autocastCopyCap)};
        const Count weights = Count{m_c.weights} + copies;
        const Count gradientTransient = Count{raw.fixedTransient} + raw.transient.fixed;
        m_overflow = m_overflow || weights.isOverflow() || raw.copies.isOverflow() || raw.activations.overflowed()
            || raw.transient.overflowed() || gradientTransient.isOverflow() || raw.parameters.isOverflow();
        m.fixed.weights = weights.value();
        m.fixed.gradients = gradientsHeld(raw.later ? m_allParameterBytes : raw.parameters);
        m.fixed.optimizerState = m_c.optimizerState;
        m.fixed.activations = raw.activations.fixed.value();
        m.perSample.activations = raw.activations.perSample.value();
        m.fixed.input = m_input.fixed.value();
        m.perSample.input = m_input.perSample.value();
        m.fixed.transient = gradientTransient.value();
        m.perSample.transient = raw.transient.perSample.value();
        m.fixed.communication = m_c.bucketBytes + (raw.phase == StepPhase::OptimizerStep ? 0 : m_c.gatheredBytes);
        m.fixed.overhead = m_c.overhead;
        m_moments.push_back(std::move(m));
        // What a moment was made from is kept only while a jump may copy it (inside a stand-in).
        if (m_openSnapshots > 0)
            m_raw.push_back(std::move(raw));
    }

    /// Where the running state stands, for measuring what one iteration changes.
    struct Snapshot {
        Affine activations;
        Affine transient;
        Count copies;
        Count cachedCopies;
        Count parameters;
        std::size_t firstMoment = 0;
    };

    void snapshot(std::size_t repeat, bool forward)
    {
        if (m_openSnapshots++ == 0) {
            m_raw.clear();
            m_rawBase = m_moments.size();
        }
        (forward ? m_forwardSnapshots : m_backwardSnapshots)[repeat] = Snapshot{m_activations, m_transient, m_copies, m_cachedCopies, m_parameters,
                                       m_moments.size()};
    }

    /// The hidden iterations of `repeat`, after the iteration that stands for them ran since its
    /// snapshot (forward: the one before them; backward: the one after them, whose backward runs first).
    /// Each hidden iteration changes the state as that one did, so a moment's memory in hidden iteration
    /// u (1 = nearest the stand-in) is the stand-in's moment plus u times the change: affine in u, apart
    /// from autocast's copy cap (a minimum) and the sharded gradients (a ceiling). Affine with an integer
    /// slope plus ceil(a + u g / N) is monotone in u at every batch size, so the largest value of each
    /// piece between the cap's breakpoints is at its ends: the stand-ins on either side, or the
    /// iterations around a breakpoint, which are simulated here. Then the state jumps past them all.
    void jump(std::size_t repeat, bool forward)
    {
        const StepRepeat& rep = m_graph.repeats[repeat];
        const Snapshot& was = (forward ? m_forwardSnapshots : m_backwardSnapshots)[repeat];
        --m_openSnapshots;
        StateDelta d;
        d.activationsPerSample = wide(m_activations.perSample) - wide(was.activations.perSample);
        d.activationsFixed = wide(m_activations.fixed) - wide(was.activations.fixed);
        d.transientPerSample = wide(m_transient.perSample) - wide(was.transient.perSample);
        d.transientFixed = wide(m_transient.fixed) - wide(was.transient.fixed);
        d.copies = wide(m_copies) - wide(was.copies);
        d.cachedCopies = wide(m_cachedCopies) - wide(was.cachedCopies);
        d.parameters = wide(m_parameters) - wide(was.parameters);

        std::vector<std::pair<std::uint64_t, std::size_t>> simulated; // (u, the stand-in's moment)
        const std::size_t end = m_moments.size();
        if (m_c.autocastCopyCap != kMax && d.copies != 0) {
            const auto cap = static_cast<SignedWide>(m_c.autocastCopyCap);
            for (std::size_t i = was.firstMoment; i < end; ++i) {
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
                for (const SignedWide v : {u, u + 1}) {
                    if (v >= 1 && v <= static_cast<SignedWide>(rep.hidden))
                        simulated.emplace_back(static_cast<std::uint64_t>(v), i);
                }
            }
        }
        std::sort(simulated.begin(), simulated.end());
        simulated.erase(std::unique(simulated.begin(), simulated.end()), simulated.end());
        for (const auto& [u, i] : simulated) {
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
            push(std::move(raw));
        }
        const std::uint64_t n = rep.hidden;
        const bool ok = advance(m_activations.perSample, d.activationsPerSample, n)
            && advance(m_activations.fixed, d.activationsFixed, n) && advance(m_transient.perSample, d.transientPerSample, n)
            && advance(m_transient.fixed, d.transientFixed, n) && advance(m_copies, d.copies, n)
            && advance(m_cachedCopies, d.cachedCopies, n) && advance(m_parameters, d.parameters, n);
        m_overflow = m_overflow || !ok;
        // A marker of what is alive once they have run (not a moment of the step: see StepMoment::repeat).
        RawMoment marker;
        marker.phase = forward ? StepPhase::Forward : StepPhase::Backward;
        marker.op = forward ? rep.last : rep.nextFirst;
        marker.recomputing = m_recomputing;
        marker.later = m_later;
        marker.activations = m_activations;
        marker.transient = m_transient;
        marker.copies = m_copies;
        marker.parameters = m_parameters;
        marker.repeat = repeat;
        push(std::move(marker));
    }

    void allocate(const std::vector<std::size_t>& storages)
    {
        for (const std::size_t s : storages)
            m_activations += m_storageBytes[s];
    }
    void release(const std::vector<std::size_t>& storages)
    {
        for (const std::size_t s : storages)
            m_activations -= m_storageBytes[s];
    }

    Affine scratch(const AffineBytes& b, std::size_t op) const { return onGpu(b, m_graph.ops[op].row); }
    /// An op's autocast half weight copies on this GPU (a split layer's are split with it).
    Count copyBytes(std::size_t op) const { return onGpu(AffineBytes{0, m_graph.ops[op].autocastCopyBytes}, m_graph.ops[op].row).fixed; }

    void runMicroBatch(bool later)
    {
        m_later = later;
        m_activations = {};
        m_transient = {};
        m_copies = {};
        m_parameters = {};
        m_allocatedParameter.assign(m_graph.parameters.size(), later);
        forward(later);
        backward(later);
    }

    void forward(bool later)
    {
        const auto& ops = m_graph.ops;
        m_cachedCopies = {};
        m_later = later;
        m_recomputing = false;
        for (std::size_t j = 0; j < ops.size(); ++j) {
            const StepOp& op = ops[j];
            startRepeats(m_forwardFrom, j, true);
            allocate(op.allocates);
            m_copies += copyBytes(j);
            emit(StepPhase::Forward, j, false, later, scratch(op.forwardScratch, j), 0);
            release(m_freeAfterForward[j]);
            switch (forwardCopyRelease(op)) {
            case CopyRelease::AfterForwardOp: m_copies = minus(m_copies, copyBytes(j).value()); break;
            case CopyRelease::AfterForward: m_cachedCopies += copyBytes(j); break;
            case CopyRelease::AfterBackward: break;
            }
            endRepeats(m_forwardTo, j, true);
        }
        m_copies = minus(m_copies, m_cachedCopies.value()); // autocast exits: its cast cache is cleared
        // The end of the forward pass (for a hand-made analysis without a step graph, its only moment).
        emit(StepPhase::Forward, ops.empty() ? kNoStepOp : ops.size() - 1, false, later, Affine{}, 0, true);
    }

    /// When the first forward frees an op's autocast copies: inside a checkpointed iteration nothing is
    /// saved (the forward runs without grad), so only the cast cache keeps them.
    static CopyRelease forwardCopyRelease(const StepOp& op)
    {
        if (op.segment >= 0 && op.copyRelease == CopyRelease::AfterBackward)
            return CopyRelease::AfterForward;
        return op.copyRelease;
    }

    using RepeatsAt = std::map<std::size_t, std::vector<std::size_t>>;
    /// `within`: only repeats whose iterations all lie in it (a checkpointed iteration's recomputation
    /// runs again the hidden iterations inside it, not those it is one of).
    void startRepeats(const RepeatsAt& at, std::size_t op, bool forward, OpRange within = {})
    {
        if (const auto it = at.find(op); it != at.end())
            for (const std::size_t r : it->second)
                if (within.holds(m_graph.repeats[r]))
                    snapshot(r, forward);
    }
    void endRepeats(const RepeatsAt& at, std::size_t op, bool forward, OpRange within = {})
    {
        if (const auto it = at.find(op); it != at.end())
            for (const std::size_t r : it->second)
                if (within.holds(m_graph.repeats[r]))
                    jump(r, forward);
    }

    static Count minus(Count a, std::uint64_t b)
    {
        return a.isOverflow() ? a : Count{a.value() - std::min(a.value(), b)};
    }

    int newBuffer(const AffineBytes& bytes, std::size_t row)
    {
        m_buffers.push_back(GradientBuffer{onGpu(bytes, row), 1});
        m_transient += m_buffers.back().bytes;
        return static_cast<int>(m_buffers.size() - 1);
    }
    void dropReference(int buffer)
    {
        if (buffer < 0)
            return;
        auto& b = m_buffers[static_cast<std::size_t>(buffer)];
        if (--b.references == 0)
            m_transient -= b.bytes;
    }

    void backward(bool later)
    {
        const auto& ops = m_graph.ops;
        const std::size_t n = ops.size();
        m_buffers.clear();
        m_gradientOf.assign(m_graph.tensors.size(), -1);
        if (n == 0)
            return;
        // Backward starts from the last op's output: the loss (a scalar: nothing per sample) or, without
        // a loss, the network output's gradient, which the caller supplies.
        const StepTensor& root = m_graph.tensors[ops[n - 1].output];
        const bool lossRoot = m_analysis.rows[ops[n - 1].row].specPath == "loss";
        m_gradientOf[ops[n - 1].output] = newBuffer(lossRoot ? AffineBytes{} : root.gradientBytes, ops[n - 1].row);
        std::vector<int> heldOutputGradient(m_graph.segments, -1);
        for (std::size_t j = n; j-- > 0;) {
            const StepOp& op = ops[j];
            startRepeats(m_backwardFrom, j, false);
            const std::ptrdiff_t g = op.segment;
            if (g >= 0 && m_segmentLast[static_cast<std::size_t>(g)] == j)
                recompute(static_cast<std::size_t>(g), later);
            if (op.recorded && m_gradientOf[op.output] >= 0)
                backwardOf(j, later, g >= 0 && m_segmentLast[static_cast<std::size_t>(g)] == j
                                         ? &heldOutputGradient[static_cast<std::size_t>(g)]
                                         : nullptr);
            release(m_releaseRecomputedAfterBackward[j]);
            if (g >= 0 && m_segmentFirst[static_cast<std::size_t>(g)] == j) // the iteration's backward ends
                dropReference(std::exchange(heldOutputGradient[static_cast<std::size_t>(g)], -1));
            endRepeats(m_backwardTo, j, false);
        }
        for (std::size_t t = 0; t < m_gradientOf.size(); ++t) // gradients nobody consumed (the input's)
            dropReference(std::exchange(m_gradientOf[t], -1));
        if (m_rootStorage != kNoStepOp)
            release({m_rootStorage});
    }

    /// A checkpointed iteration's forward, run again before its backward (torch.utils.checkpoint).
    void recompute(std::size_t g, bool later)
    {
        m_recomputing = true;
        for (std::size_t k = m_segmentFirst[g]; k <= m_segmentLast[g]; ++k) {
            const StepOp& op = m_graph.ops[k];
            const OpRange segment{m_segmentFirst[g], m_segmentLast[g]};
            startRepeats(m_forwardFrom, k, true, segment);
            allocate(op.allocates);
            if (op.copyRelease == CopyRelease::AfterBackward)
                m_copies += copyBytes(k);
            emit(StepPhase::Backward, k, true, later, scratch(op.forwardScratch, k), 0);
            release(m_freeAfterRecompute[k]);
            endRepeats(m_forwardTo, k, true, segment);
        }
        m_recomputing = false;
    }

    void backwardOf(std::size_t j, bool later, int* holdOutputGradient)
    {
        const StepOp& op = m_graph.ops[j];
        const int outGrad = m_gradientOf[op.output];
        std::vector<int> releaseAfter;
        for (const auto& in : op.inputs) {
            const StepTensor& t = m_graph.tensors[in.tensor];
            if (!t.requiresGrad)
                continue;
            int incoming = -1;
            if (in.aliasedGradient) {
                incoming = outGrad;
                ++m_buffers[static_cast<std::size_t>(outGrad)].references;
            } else {
                incoming = newBuffer(t.gradientBytes, producerRow(in.tensor));
            }
            int& slot = m_gradientOf[in.tensor];
            if (slot < 0) {
                slot = incoming;
            } else if (m_c.gradientSumsInPlace && m_buffers[static_cast<std::size_t>(slot)].references == 1) {
                releaseAfter.push_back(incoming); // added in place into the existing gradient
            } else {
                releaseAfter.push_back(slot); // shared: summed out of place into a new buffer
                releaseAfter.push_back(incoming);
                slot = newBuffer(t.gradientBytes, producerRow(in.tensor));
            }
        }
        std::uint64_t parameterTransient = 0;
        for (const std::size_t p : op.parameters) {
            if (m_allocatedParameter[p]) {
                parameterTransient += m_parameterBytes[p]; // accumulated in place, then freed
            } else {
                m_allocatedParameter[p] = true;
                m_parameters += Count{m_parameterBytes[p]};
            }
        }
        emit(StepPhase::Backward, j, false, later, scratch(op.backwardScratch, j), parameterTransient);
        if (holdOutputGradient != nullptr)
            *holdOutputGradient = outGrad; // the checkpoint holds it until the iteration's backward ends
        else
            dropReference(outGrad);
        m_gradientOf[op.output] = -1;
        for (const int b : releaseAfter)
            dropReference(b);
        release(m_freeAfterBackward[j]);
        if (op.copyRelease == CopyRelease::AfterBackward)
            m_copies = minus(m_copies, copyBytes(j).value());
    }

    /// The row whose tensor-parallel split applies to a tensor's gradient: its storage's.
    std::size_t producerRow(std::size_t tensor) const
    {
        return m_graph.storages[m_graph.tensors[tensor].storage].chargedRow;
    }

    void optimizerStep()
    {
        m_activations = {};
        m_transient = {};
        m_copies = {};
        m_parameters = m_allParameterBytes;
        emit(StepPhase::OptimizerStep, kNoStepOp, false, m_c.accumulationSteps > 1, Affine{}, m_c.stepTemporaries);
    }

    const Analysis& m_analysis;
    const StepGraph& m_graph;
    const StepConditions& m_c;
    std::vector<bool> m_split;
    std::vector<Affine> m_storageBytes;
    std::vector<std::vector<std::size_t>> m_freeAfterForward, m_freeAfterBackward, m_freeAfterRecompute,
        m_releaseRecomputedAfterBackward;
    std::vector<std::size_t> m_segmentFirst, m_segmentLast;
    std::size_t m_rootStorage = kNoStepOp; ///< the storage of the tensor backward starts from
    std::vector<std::uint64_t> m_parameterBytes;
    Count m_allParameterBytes;
    Affine m_input;

    RepeatsAt m_forwardFrom, m_forwardTo, m_backwardFrom, m_backwardTo;
    std::vector<Snapshot> m_forwardSnapshots, m_backwardSnapshots;
    std::vector<RawMoment> m_raw; ///< what the moments from m_rawBase on were made from
    std::size_t m_rawBase = 0;
    int m_openSnapshots = 0;

    Affine m_activations;
    Affine m_transient;
    Count m_copies;
    Count m_cachedCopies; ///< autocast's cast cache, cleared when the forward pass ends
    bool m_later = false;
    bool m_recomputing = false;
    Count m_parameters;
    std::vector<bool> m_allocatedParameter;
    std::vector<GradientBuffer> m_buffers;
    std::vector<int> m_gradientOf;
    std::vector<StepMoment> m_moments;
    bool m_overflow = false;
};

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
    case StepPhase::Forward: return "forward";
    case StepPhase::Backward: return "backward";
    case StepPhase::OptimizerStep: return "optimizer_step";
    }
    return "";
}

std::string_view stepPhaseLabel(StepPhase p) noexcept
{
    switch (p) {
    case StepPhase::Forward: return "Forward";
    case StepPhase::Backward: return "Backward";
    case StepPhase::OptimizerStep: return "Optimizer step";
    }
    return "";
}

StepTimeline StepTimeline::simulate(const Analysis& analysis, const StepConditions& conditions)
{
    Simulator simulator{analysis, conditions};
    StepTimeline t;
    t.m_moments = simulator.run();
    t.m_optimizerState = conditions.optimizerState;
    std::vector<UpperEnvelope::Line> steady, first;
    steady.reserve(t.m_moments.size());
    first.reserve(t.m_moments.size());
    for (std::size_t i = 0; i < t.m_moments.size(); ++i) {
        const StepMoment& m = t.m_moments[i];
        if (m.repeat != kNoStepOp)
            continue; // what is alive after hidden iterations: never above the moments around it
        const std::uint64_t fixed = total(m.fixed);
        const std::uint64_t perSample = total(m.perSample);
        steady.push_back(UpperEnvelope::Line{fixed, perSample, i});
        const bool beforeTheStep = m.phase != StepPhase::OptimizerStep;
        first.push_back(UpperEnvelope::Line{beforeTheStep ? fixed - m.fixed.optimizerState : fixed, perSample, i});
    }
    t.m_steady = UpperEnvelope{std::move(steady)};
    t.m_first = UpperEnvelope{std::move(first)};
    t.m_overflow = simulator.overflowed();
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
        return analysis.rows[r.headerRow].name + "." + first + (r.hidden > 1 ? "\u2013" + std::to_string(last) : "");
    }
    if (moment.row >= analysis.rows.size())
        return {};
    return instanceName(analysis.rows[moment.row], moment.shift);
}

std::vector<std::size_t> StepTimeline::oneStep() const
{
    const bool accumulation = std::any_of(m_moments.begin(), m_moments.end(),
                                          [](const StepMoment& m) { return m.laterMicroBatch; });
    std::vector<std::size_t> out;
    for (std::size_t i = 0; i < m_moments.size(); ++i) {
        const StepMoment& m = m_moments[i];
        if (m.phase == StepPhase::OptimizerStep || m.laterMicroBatch == accumulation)
            out.push_back(i);
    }
    return out;
}

} // namespace headroom

#pragma once

// The one simulation of a training step (docs/memory-model.md, "One training step"): it walks the step
// graph and tells a sink, in order, every block of memory the step allocates and frees, at tensor
// granularity and affine in the batch size, and marks the moments memory can peak. StepTimeline's moments
// and the allocation trace the caching allocator replays (StepTrace) are both built from these events,
// so the two cannot drift apart.

#include "headroom/analysis/Analysis.h"
#include "headroom/step/StepTimeline.h"
#include "headroom/support/Count.h"

#include <cstddef>
#include <cstdint>
#include <map>
#include <vector>

namespace headroom::step {

/// x / n rounded up; n of 0 or 1 leaves x (a step split into n micro-batches or shards).
[[nodiscard]] inline std::uint64_t ceilDiv(std::uint64_t x, std::uint64_t n)
{
    return n <= 1 ? x : x / n + (x % n != 0 ? 1 : 0);
}

/// Running affine byte counts. Sums only ever hold bytes that were added, so they never go below zero.
struct Affine
{
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
    [[nodiscard]] bool empty() const { return perSample.value() == 0 && fixed.value() == 0 && !overflowed(); }
    static Count minus(Count a, Count b)
    {
        if (a.isOverflow() || b.isOverflow())
            return Count::overflowed();
        return Count { a.value() - std::min(a.value(), b.value()) };
    }
};

[[nodiscard]] inline Affine affine(const AffineBytes& b)
{
    return Affine { Count { b.perSample }, Count { b.fixed } };
}

/// What a block of the step is. The id that comes with it is a StepGraph index of that kind.
enum class BlockRole : std::uint8_t {
    Storage, ///< a StepGraph storage made by the forward pass (id: storage)
    RecomputedStorage, ///< the same storage made again by a checkpointed iteration's recomputation
    ActivationGradient, ///< a gradient buffer of backward (id: its number in this backward pass)
    ForwardScratch, ///< what an op allocates only while its forward runs (id: op)
    BackwardScratch, ///< what an op's backward allocates beyond the gradients (id: op)
    AutocastCopy, ///< an op's half weight copies (id: op)
    ParameterGradient, ///< a parameter's .grad, alive until zero_grad (id: StepGraph parameter)
    GradientAccumulation, ///< a later micro-batch's new parameter gradient, added into .grad (id: parameter)
    /// Buffers held while an op runs (id: op): sequence / context parallelism's
    /// (StepConditions::forwardCommunication) and expert parallelism's all-to-all dispatch buffers
    Communication,
};

/// A moment of the step: memory can peak here.
struct MomentEvent
{
    StepPhase phase = StepPhase::Forward;
    std::size_t op = kNoStepOp;
    bool recomputing = false;
    bool afterOp = false;
};

/// Receives the step's events in order.
class StepSink
{
public:
    virtual ~StepSink() = default;
    /// A micro-batch begins (later: a micro-batch after the first, every .grad already exists).
    virtual void microBatch(bool later) = 0;
    /// `cachedCopy`: an autocast copy in the cast cache, freed by autocastExit() rather than release().
    /// `op`: the op running (forward or backward) that allocates it.
    virtual void allocate(
        BlockRole role, std::size_t id, const Affine& bytes, bool cachedCopy, std::size_t op)
        = 0;
    virtual void release(BlockRole role, std::size_t id, const Affine& bytes) = 0;
    virtual void moment(const MomentEvent& m) = 0;
    /// The iteration that stands for a Repeat block's hidden iterations starts (forward: the one before
    /// them; backward: the one after them) or has just ended (StepRepeat; StepTimeline jumps there).
    virtual void repeatBegin(std::size_t repeat, bool forward) = 0;
    virtual void repeatEnd(std::size_t repeat, bool forward, bool recomputing) = 0;
    /// The forward pass ends: autocast exits and clears its cast cache.
    virtual void autocastExit() = 0;
    /// The micro-batch's backward has returned.
    virtual void backwardDone() = 0;
    /// After the last micro-batch's backward: optimizer.step().
    virtual void optimizerStep() = 0;
};

/// Ops first..last.
struct OpRange
{
    std::size_t first = 0;
    std::size_t last = kNoStepOp;
    [[nodiscard]] bool holds(const StepRepeat& r) const { return r.first >= first && r.nextLast <= last; }
};

/// A step graph's lifetimes under a set-up's per-GPU conditions.
class StepSimulation final
{
public:
    StepSimulation(const Analysis& analysis, const StepConditions& conditions);
    /// The same for another graph of this analysis (its repeated blocks written out: StepGraphExpansion).
    StepSimulation(const Analysis& analysis, const StepGraph& graph, const StepConditions& conditions);

    /// The first micro-batch's forward and backward, a later micro-batch's with gradient accumulation, then
    /// the optimizer step.
    void run(StepSink& sink);
    /// One micro-batch's forward and backward.
    void runMicroBatch(StepSink& sink, bool later);

    [[nodiscard]] bool overflowed() const { return m_overflow; }
    /// Each StepGraph parameter's gradient on this GPU (tensor parallelism shares the set-up's total out).
    [[nodiscard]] const std::vector<std::uint64_t>& parameterBytes() const { return m_parameterBytes; }
    /// Every gradient on this GPU (each parameter times the identical ones it stands for).
    [[nodiscard]] Count allParameterBytes() const { return m_allParameterBytes; }
    /// The input batch and its labels.
    [[nodiscard]] const Affine& input() const { return m_input; }
    /// A storage's bytes on this GPU.
    [[nodiscard]] const Affine& storageBytes(std::size_t s) const { return m_storageBytes[s]; }

private:
    Affine onGpu(const AffineBytes& b, std::size_t row) const;
    void sharedWeightGradient(
        StepSink& sink, std::size_t j, std::size_t p, std::vector<std::size_t>& accumulated);
    void prepare();
    void prepareReleases();
    void findSegmentBounds();
    [[nodiscard]] std::vector<std::size_t> lastUsesInSegments() const;
    void sortReleasesByCreation();
    void prepareParameters();
    void prepareRepeats();
    void forward(StepSink& sink);
    void backward(StepSink& sink);
    void recompute(StepSink& sink, std::size_t segment);
    void backwardOf(StepSink& sink, std::size_t op, int* holdOutputGradient);

    using RepeatsAt = std::map<std::size_t, std::vector<std::size_t>>;
    void startRepeats(StepSink& sink, const RepeatsAt& at, std::size_t op, bool forward, OpRange within = {});
    void endRepeats(StepSink& sink, const RepeatsAt& at, std::size_t op, bool forward, OpRange within = {});

    void allocate(StepSink& sink, const std::vector<std::size_t>& storages, BlockRole role, std::size_t op);
    void release(StepSink& sink, const std::vector<std::size_t>& storages, BlockRole role);
    Affine scratch(const AffineBytes& b, std::size_t op) const { return onGpu(b, m_graph.ops[op].row); }
    /// Sequence / context parallelism's buffers while op runs forward (recomputation included) or backward.
    [[nodiscard]] Affine communication(std::size_t op, bool backward) const;
    /// An op's autocast half weight copies on this GPU (a split layer's are split with it).
    Affine copyBytes(std::size_t op) const;
    int newBuffer(StepSink& sink, const AffineBytes& bytes, std::size_t row, std::size_t op);
    /// Runs `atMoment` between allocating and releasing op's all-to-all dispatch buffers (if any).
    template <typename F> void withDispatch(StepSink& sink, std::size_t op, F atMoment);
    void prepareOffload();
    void dropReference(StepSink& sink, int buffer);
    /// The row whose tensor-parallel split applies to a tensor's gradient: its storage's.
    std::size_t producerRow(std::size_t tensor) const;

    /// A gradient buffer of an activation: one storage, referenced by one or more tensors' gradient slots
    /// (the engine's input buffers) and by the op that passes it on.
    struct GradientBuffer
    {
        Affine bytes;
        int references = 0;
    };

    const Analysis& m_analysis;
    const StepGraph& m_graph;
    const StepConditions& m_c;
    std::vector<bool> m_split;
    std::vector<Affine> m_dispatch; ///< per row: expert parallelism's dispatch buffers (empty: none)
    /// Activation offloading: the saved storages copied back from CPU memory when backward reaches an op
    /// (before a checkpointed iteration's recomputation); the backward that releases them is unchanged.
    std::vector<std::vector<std::size_t>> m_unpackBeforeBackward;
    std::vector<Affine> m_storageBytes;
    std::vector<std::vector<std::size_t>> m_freeAfterForward, m_freeAfterBackward, m_freeAfterRecompute,
        m_releaseRecomputedAfterBackward;
    std::vector<std::size_t> m_segmentFirst, m_segmentLast;
    std::size_t m_rootStorage = kNoStepOp; ///< the storage of the tensor backward starts from
    std::vector<std::uint64_t> m_parameterBytes;
    Count m_allParameterBytes;
    Affine m_input;
    RepeatsAt m_forwardFrom, m_forwardTo, m_backwardFrom, m_backwardTo;

    bool m_recomputing = false;
    std::vector<bool> m_allocatedParameter;
    /// Per parameter: the ops whose backward produces its gradient (more than one: a tied weight), how
    /// many of them have run in this micro-batch's backward, whether the gradient held so far is a view
    /// (summed out of place), and whether it is held as a later micro-batch's accumulation block.
    std::vector<std::size_t> m_gradientProducers, m_gradientsSeen;
    std::vector<bool> m_heldIsView, m_heldAsAccumulation;
    std::vector<GradientBuffer> m_buffers;
    std::vector<int> m_gradientOf;
    bool m_overflow = false;
};

} // namespace headroom::step

#pragma once

// What a training run reserves on the GPU, not only what its tensors hold: the allocation trace of its
// first two steps (AllocationTrace) replayed through PyTorch's caching allocator (CachingAllocator), with
// the cuBLAS workspaces. The CUDA context is outside the allocator (cudaContextBytes). docs/memory-model.md,
// "What the GPU reserves", gives the rules and their sources.

#include "headroom/allocator/CachingAllocator.h"
#include "headroom/allocator/CudaRuntime.h"
#include "headroom/analysis/Analysis.h"
#include "headroom/step/AllocationTrace.h"
#include "headroom/step/MemoryModel.h"
#include "headroom/support/Error.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <vector>

namespace headroom {

/// The runtime a reserved model stands for.
struct ReservedOptions final
{
    ComputeCapability gpu { 9, 0 }; ///< decides the cuBLAS workspace (CudaRuntime.h)
    TorchVersion torch { 2, 11 };
    /// PYTORCH_CUDA_ALLOC_CONF (expandable_segments, max_split_size_mb, ...); its capacity is ignored:
    /// each question passes its own.
    AllocatorSettings allocator;
    int steps = 2; ///< training steps replayed: the first (it creates the optimizer state) and a steady one
    /// The cuBLAS workspaces (off: a process that already made them, as in a second measurement).
    bool cublasWorkspaces = true;
    friend bool operator==(const ReservedOptions&, const ReservedOptions&) = default;
};

/// Free bytes inside reserved segments at the reserved peak that one kind of tensor of one layer left.
struct FragmentationSource final
{
    TraceKind kind = TraceKind::Activation;
    std::uint32_t row = kNoTraceRow; ///< the layer (Analysis::rows), kNoTraceRow for none
    bool smallPool = false;
    std::uint64_t bytes = 0;
    std::uint64_t blocks = 0;
};

/// The peaks of one phase of one step (what torch.cuda.max_memory_allocated / max_memory_reserved report
/// when their peaks are reset as the phase starts).
struct PhasePeak final
{
    std::uint8_t step = 0;
    TraceStage stage = TraceStage::Setup;
    std::uint64_t allocated = 0;
    std::uint64_t reserved = 0;
};

/// One replay of the trace at one batch size under one capacity.
struct ReservedRun final
{
    std::int64_t batch = 0;
    std::uint64_t capacity = kNoLimit;
    bool fits = false; ///< no allocation failed (cuDNN workspaces may: they are optional)
    std::size_t outOfMemoryEvent = kNoEvent; ///< the trace event that failed (kNoEvent: none)
    std::uint64_t peakAllocated = 0; ///< max_memory_allocated over the run (workspaces included)
    /// Of peakAllocated: the cuBLAS and cuDNN workspaces allocated when it was reached. PyTorch makes them
    /// through the caching allocator, so max_memory_allocated counts them (docs/memory-model.md,
    /// "Workspaces and the CUDA context"); the tensors' model does not.
    std::uint64_t peakAllocatedWorkspaces = 0;
    std::uint64_t peakReserved = 0; ///< max_memory_reserved over the run
    std::size_t peakReservedEvent = kNoEvent; ///< where the reserved peak was first reached
    std::uint64_t allocRetries = 0; ///< times the cache was released and an allocation retried
    std::vector<PhasePeak> phases; ///< setup, then each step's forward, backward, optimizer
    /// Free bytes inside reserved memory at the reserved peak, by pool, kind and layer, largest first
    /// (only when asked for: it replays the run a second time).
    std::vector<FragmentationSource> fragmentation;
    static constexpr std::size_t kNoEvent = static_cast<std::size_t>(-1);
};

/// What the answer keeps free for what the model cannot see, as a fraction of the capacity: the tolerance
/// to which its allocated bytes are verified against measured steps (docs/accuracy.md, 2 %).
inline constexpr double kReservedMarginFraction = 0.02;

/// The allocated and reserved bytes after one event of a replay (ReservedModel::eventMemory): what a
/// measured run's samples show, event by event, for the same step.
struct EventMemory final
{
    std::size_t event = 0; ///< the index in AllocationTrace::events()
    TraceStage stage = TraceStage::Setup; ///< the event's
    std::uint64_t allocated = 0; ///< memory_allocated() after it (workspaces included)
    std::uint64_t reserved = 0; ///< memory_reserved() after it
    /// What the event added to allocated (an allocation) or took from it (a free): the block as the
    /// allocator holds it (rounded, or with an unsplit remainder); 0 where the allocator saw nothing (an
    /// empty tensor, an optional workspace it refused).
    std::uint64_t blockBytes = 0;
};

/// The largest batch that fits, and how sure it is.
struct ReservedMaxBatch final
{
    /// The answer: fits under the capacity less the margin, less half of it, and the capacity itself (a
    /// batch that fits only for a lucky layout of the cache at exactly the capacity is not reported).
    std::int64_t batch = 0;
    /// The largest batch the replay fits at exactly the capacity; kNotSearched where the search was asked
    /// for the answer alone (MaxBatchSearch::AnswerOnly).
    std::int64_t unguarded = 0;
    std::uint64_t marginBytes = 0; ///< the band below the capacity the answer also fits in (marginBytes())
    std::size_t replays = 0; ///< replays of the trace the search ran (its cost; not a figure)
    static constexpr std::int64_t kNotSearched = -1;
};

/// What a max batch search looks for: the answer and the largest batch at exactly the capacity
/// (ReservedMaxBatch::unguarded, which `headroom estimate`, its report and the GUI's tooltip show), or the
/// answer alone (`compare`: the second search up from the answer is often as long again). MaxBatchOnly:
/// the answer alone, and evaluate() does not replay the plan's own batch either (`max-batch` prints
/// nothing else): the estimate then has no headroom figure (FitBasis::MaxBatchOnly, as on a slider tick).
enum class MaxBatchSearch : std::uint8_t { WithUnguarded, AnswerOnly, MaxBatchOnly };

/// The max batch search starts again below any batch that fails under the answer it found, to about 3 %
/// below it (ReservedModel::maxBatch). Where failures recur all the way down that walk grows with the
/// answer: a small network at a batch of millions, whose tensors' 2 MiB rounding makes runs of batches
/// fail every hundred or so (LeNet-5 on 2 TiB: 333,871 replays, 23 s). The walk stops starting again once
/// it has started again this many times and the search has asked for kMaxBatchSearchEvents trace events
/// worth of replays (about 45 ms at 45 ns an event); below both, the answer is the walk's as before.
inline constexpr int kMaxBatchEdgeRestarts = 8;
inline constexpr std::uint64_t kMaxBatchSearchEvents = 1'000'000;

/// Built once per analysis and set-up (the trace), then asked per batch size: a replay of the allocator
/// over the whole trace (tens of thousands of events for a 10,000-layer network; docs/performance.md).
class ReservedModel final
{
public:
    /// Fails where the analysis has an error, the set-up is invalid, or the step is too large to replay
    /// tensor by tensor (over two million ops once repeated blocks are written out).
    [[nodiscard]] static Result<ReservedModel> build(
        const Analysis& analysis, const TrainingSetup& setup, const ReservedOptions& options = {});

    /// max_memory_reserved over the first two steps at `batch` with memory to spare (for charts).
    [[nodiscard]] std::uint64_t reservedAt(std::int64_t batch) const;
    /// max_memory_allocated over the same steps (the tensors in their rounded blocks, plus workspaces).
    [[nodiscard]] std::uint64_t allocatedAt(std::int64_t batch) const;
    /// The replay at `batch` with the allocator capped at `capacity` bytes (set_per_process_memory_fraction,
    /// or the GPU's memory less the CUDA context): PyTorch's release-and-retry applies at the cap.
    [[nodiscard]] ReservedRun run(
        std::int64_t batch, std::uint64_t capacity = kNoLimit, bool withFragmentation = false) const;
    /// The largest batch (up to kMaxBatch) whose first two steps fit `capacity` (0 if batch 1 does not),
    /// and under `capacity` less marginBytes(capacity) and less half of it. Searches below the
    /// allocated-bytes answer (MemoryModel::maxBatch, an upper bound: reserved >= allocated), starting where
    /// the tensors' peak scaled by one replay's allocated bytes over them (rounding, workspaces) meets the
    /// capacity; typically 5 to 15 replays, more where the edge is ragged (a replay that fits without the
    /// capacity ever refusing a segment also fits under any larger capacity, which spares some).
    /// The answer does not depend on `what`, nor on the questions asked before.
    [[nodiscard]] ReservedMaxBatch maxBatch(
        std::uint64_t capacity, MaxBatchSearch what = MaxBatchSearch::WithUnguarded) const;
    /// What the answer keeps free below `capacity` for what the model cannot see exactly (a workspace cuDNN
    /// sizes differently, a kernel's temporary; docs/memory-model.md, "Max batch and where the model is
    /// uncertain"): kReservedMarginFraction of it, the bytes the UI can show next to the answer.
    [[nodiscard]] static std::uint64_t marginBytes(std::uint64_t capacity) noexcept;

    /// What the allocator holds reserved at some moments of `timeline` (indices into its moments(), such
    /// as oneStep()), a simulation of the same analysis and set-up: the first training step's or a steady
    /// one's, at `batch`, replayed under `capacity` (or with memory to spare where it does not fit there).
    /// A moment of an op reads the reserved bytes as it runs; a marker of hidden iterations the most over
    /// them; the optimizer step the most during it. Empty where the timeline's moments do not line up with
    /// the trace's (StepMoment::ordinal): a chart then draws no reserved line rather than a wrong one.
    [[nodiscard]] std::vector<std::uint64_t> reservedAtMoments(const StepTimeline& timeline,
        const std::vector<std::size_t>& moments, std::int64_t batch, bool firstStep,
        std::uint64_t capacity = kNoLimit) const;

    /// The cuBLAS and cuDNN workspaces allocated at the same moments as reservedAtMoments() reads them
    /// (same replay): at an op's moment the most allocated while it ran (a convolution's cuDNN workspace
    /// lives only inside its call), at a marker of hidden iterations the most over them, during the
    /// optimizer step the most during it (the cuBLAS workspaces, kept for the process). In the allocator's
    /// rounded blocks, as max_memory_allocated counts them. Empty where reservedAtMoments() is.
    [[nodiscard]] std::vector<std::uint64_t> workspacesAtMoments(const StepTimeline& timeline,
        const std::vector<std::size_t>& moments, std::int64_t batch, bool firstStep,
        std::uint64_t capacity = kNoLimit) const;

    /// After each event of training step `step` (1: the first, 2: a steady one; 0: every event, the set-up's
    /// included) of one replay at `batch` under `capacity` (with memory to spare where it does not fit
    /// there): the allocated and reserved bytes, for a chart of the step beside a measured run's samples.
    /// One replay, nothing kept; other questions do not pay for it.
    [[nodiscard]] std::vector<EventMemory> eventMemory(
        std::int64_t batch, std::uint8_t step, std::uint64_t capacity = kNoLimit) const;

    /// The replays of the trace this model has run so far, every question together, and the trace events
    /// they replayed (to the end, or to the allocation that failed): its cost, counted for tests and
    /// benchmarks.
    struct Work
    {
        std::size_t replays = 0;
        std::uint64_t events = 0;
    };
    [[nodiscard]] Work work() const noexcept;

    /// The runtime the model stands for (its allocator settings round requests as the replay does).
    [[nodiscard]] const ReservedOptions& options() const noexcept { return m_options; }
    /// The allocations and frees replayed (affine in the batch).
    [[nodiscard]] const AllocationTrace& trace() const noexcept { return m_trace; }
    /// The cuBLAS workspace each handle makes (CudaRuntime.h).
    [[nodiscard]] std::uint64_t cublasWorkspaceBytes() const noexcept { return m_cublasWorkspace; }

private:
    /// What one search's replays have shown: a batch that fit while the capacity never refused a segment
    /// replays the same way, and fits, under any larger capacity (no release-and-retry, no garbage
    /// collection or oversize release, which depend on the capacity). The smallest such capacity per batch.
    struct FitMemo
    {
        std::map<std::int64_t, std::uint64_t> untouched;
        std::map<std::pair<std::int64_t, std::uint64_t>, bool> known; ///< every replay's answer
        std::size_t replays = 0;
        /// Every question asked, answered from the memo or not: the budget counts these, so an answer
        /// does not depend on what earlier searches left in the memo.
        std::size_t queries = 0;
    };
    /// One replay's answer: whether it fit, and whether it fit without the capacity ever refusing a segment;
    /// its peaks (to the end, or to the allocation that failed).
    struct FitReplay
    {
        bool fits = false;
        bool untouched = false;
        std::uint64_t peakAllocated = 0;
        std::uint64_t peakReserved = 0;
    };
    [[nodiscard]] FitReplay replayFit(std::int64_t batch, std::uint64_t capacity) const;
    void remember(FitMemo& memo, std::int64_t batch, std::uint64_t capacity, const FitReplay& replay) const;
    /// What `memo` already says of `batch` under `capacity` (nothing: a replay must tell).
    [[nodiscard]] static std::optional<bool> known(
        const FitMemo& memo, std::int64_t batch, std::uint64_t capacity);
    [[nodiscard]] bool fits(std::int64_t batch, std::uint64_t capacity, FitMemo* memo = nullptr) const;
    /// Replays those of `batches` the memo does not know yet side by side on the machine's free cores and
    /// keeps their answers (nothing where one core is free, or fewer than two are unknown): a search that
    /// then asks them finds them there, and its questions, answers and result are what they were. The
    /// replays count in FitMemo::replays, not in its queries.
    void replayAhead(const std::vector<std::int64_t>& batches, std::uint64_t capacity, FitMemo* memo) const;
    /// The largest batch that fits `capacity` between `lo` (fits; 0: nothing known to) and `hi` (does not):
    /// galloping from `guess` to a bracket, then bisecting.
    [[nodiscard]] std::int64_t largestFitting(
        std::uint64_t capacity, std::int64_t lo, std::int64_t hi, std::int64_t guess, FitMemo* memo) const;
    /// largestFitting() below `hi`, then no batch 1, 2, 4, ... below the answer (within about 3 % of it)
    /// fails: the largest batch every batch up to which fits, as far as a few replays can tell.
    [[nodiscard]] std::int64_t firstFailureBelow(
        std::uint64_t capacity, std::int64_t hi, std::int64_t guess, FitMemo* memo) const;
    /// maxBatch() without the answers kept from earlier searches.
    [[nodiscard]] ReservedMaxBatch searchMaxBatch(std::uint64_t capacity, FitMemo& memo) const;
    /// The search's bounds at `capacity`: the allocated-bytes answer (0: nothing fits), and the first
    /// guess's scale (one replay there, kept).
    struct SearchStart
    {
        std::int64_t upper = 0;
        double ratio = 1.0;
    };
    [[nodiscard]] SearchStart searchStart(std::uint64_t capacity, FitMemo& memo) const;
    /// How many replays of this trace to run at once: the free cores (parallelWidth()), or 1 where a
    /// replay is too short to be worth a thread.
    [[nodiscard]] std::size_t sideBySide() const noexcept;
    /// The search's first question under `capacity` where one replay allocates `ratio` times the tensors.
    [[nodiscard]] std::int64_t firstGuess(std::uint64_t capacity, double ratio) const;
    /// The most the trace's requests at `batch` hold at once, each rounded as the allocator rounds it: at
    /// most a replay's allocated peak (a block taken whole with its remainder holds more).
    [[nodiscard]] std::uint64_t roundedRequestsPeak(std::int64_t batch) const;
    /// ReservedMaxBatch::unguarded for `found`, the answer at `capacity`.
    [[nodiscard]] std::int64_t searchUnguarded(
        std::uint64_t capacity, const ReservedMaxBatch& found, FitMemo& memo) const;
    /// run(batch) with memory to spare, kept for the next call at that batch.
    [[nodiscard]] ReservedRun uncappedRun(std::int64_t batch) const;
    bool replay(std::int64_t batch, std::uint64_t capacity, ReservedRun& out, std::size_t stopAt,
        CachingAllocator* keep) const;
    bool replayWith(CachingAllocator& a, std::vector<CachingAllocator::Handle>& handles, std::int64_t batch,
        std::uint64_t capacity, ReservedRun& out, std::size_t stopAt) const;
    /// The trace's events up to `end` through `a` at `batch`, `after` called after each one the allocator
    /// saw; the event that ran out of memory, or ReservedRun::kNoEvent.
    std::size_t replayEvents(CachingAllocator& a, std::vector<CachingAllocator::Handle>& handles,
        std::int64_t batch, std::size_t end, const std::function<void(std::size_t)>& after,
        std::size_t begin = 0) const;
    /// After each event of a replay at `batch` (element i: after events[0, i)), under `capacity`, or with
    /// memory to spare where that runs out: the reserved bytes, and the workspaces' allocated bytes.
    struct AfterEvents
    {
        std::vector<std::uint64_t> reserved;
        std::vector<std::uint64_t> workspaces;
    };
    [[nodiscard]] AfterEvents afterEvents(std::int64_t batch, std::uint64_t capacity) const;
    /// reservedAtMoments()'s reading of `after` (an AfterEvents series) at `moments`; with `window`, an
    /// op's moment is the most since the trace's previous moment rather than the value at its own.
    [[nodiscard]] std::vector<std::uint64_t> atMoments(const StepTimeline& timeline,
        const std::vector<std::size_t>& moments, bool firstStep, const std::vector<std::uint64_t>& after,
        bool window) const;
    /// Calls `use` with an allocator in the state `settings` describe and room for the trace's handles: one
    /// of the model's own, kept between replays (a replay is thousands of allocations), one per thread
    /// replaying at the same time.
    void withAllocator(const AllocatorSettings& settings,
        const std::function<void(CachingAllocator&, std::vector<CachingAllocator::Handle>&)>& use) const;

    struct Scratch;
    std::shared_ptr<Scratch> m_scratch;
    struct ReplayPrefix;
    /// The state after the batch-independent first events where a replay under `settings` may start from
    /// it (made at the first call), else nullptr.
    [[nodiscard]] const ReplayPrefix* prefixUnder(const AllocatorSettings& settings) const;

    AllocationTrace m_trace;
    MemoryModel m_allocated; ///< the allocated-bytes model (no overhead): the upper bound of maxBatch
    ReservedOptions m_options;
    std::uint64_t m_cublasWorkspace = 0;
};

} // namespace headroom

#pragma once

// The step model: memory over one training step (StepTimeline) as affine functions of the batch, per
// GPU, with where it peaks. estimate/Estimate.h reads it at one batch on one GPU.

#include "headroom/analysis/Analysis.h"
#include "headroom/setup/TrainingSetup.h"
#include "headroom/step/MemoryBreakdown.h"
#include "headroom/step/StepTimeline.h"
#include "headroom/support/Error.h"

#include <cstddef>
#include <cstdint>
#include <optional>

namespace headroom {

/// bitsandbytes' block-wise 8-bit optimizer state: one uint8 per element plus one float32 absmax per
/// block of 2048 elements; tensors below 4096 elements (min_8bit_size) keep float32 state
/// (bitsandbytes/optim/optimizer.py, Optimizer2State/Optimizer1State.init_state).
constexpr std::uint64_t kEightBitBlockElements = 2048;
constexpr std::uint64_t kEightBitMinTensorElements = 4096;
/// DeepSpeed ZeRO-3 steps the optimizer one sub-group of at most this many elements at a time
/// (zero_optimization.sub_group_size, default 1e9; deepspeed/runtime/zero/config.py).
constexpr std::uint64_t kDeepSpeedSubGroupElements = 1'000'000'000;

/// What PyTorch versions do differently in a step (docs/memory-model.md); the defaults are PyTorch 2.x's.
struct RuntimeBehaviour final
{
    /// InputBuffer::accumulate adds a tensor's second gradient into the first (2.0 and later).
    bool gradientSumsInPlace = true;
};

/// Expert parallelism against the network: e must divide every mixture-of-experts layer's experts, and
/// (for the whole model, not a pipeline stage that may hold none) some layer must have experts. The
/// error names both settings; nullopt without expert parallelism or without a problem.
[[nodiscard]] std::optional<Error> expertParallelProblem(
    const Analysis& analysis, const Parallelism& par, bool wholeModel);

/// Where in one training step the memory peaks, at a given batch size.
struct StepPeak final
{
    StepPhase phase = StepPhase::Forward;
    std::size_t row = 0; ///< the layer running (Analysis::rows index); meaningless for the optimizer step
    bool recomputing = false; ///< inside a checkpointed iteration's recomputation
    bool laterMicroBatch = false; ///< in a micro-batch after the first (gradient accumulation)
    std::size_t moment = 0; ///< StepTimeline::moments() index
};

/// Memory over one training step (StepTimeline), per GPU: every moment is affine in the batch size, so
/// the peak over batch sizes is an upper envelope built once per analysis and set-up; evaluating it is
/// a few multiplications (the slider path). docs/memory-model.md gives the step's rules, and
/// docs/multi-gpu.md the data-parallel, sharding, tensor-parallel, offload and 8-bit optimizer rules.
class MemoryModel final
{
public:
    [[nodiscard]] static Result<MemoryModel> build(const Analysis& analysis, const TrainingSetup& setup);
    /// build() for a PyTorch whose behaviour differs from 2.x's (the reference runs use torch 1.13).
    [[nodiscard]] static Result<MemoryModel> build(
        const Analysis& analysis, const TrainingSetup& setup, const RuntimeBehaviour& runtime);

    /// What is alive at the step's peak at `batch`, by component; an error if a count would not fit 64 bits.
    [[nodiscard]] Result<MemoryBreakdown> at(std::int64_t batch) const;
    /// Where the peak is at `batch` (1..kMaxBatch).
    [[nodiscard]] StepPeak peakAt(std::int64_t batch) const;
    /// The peak of the first step (no optimizer state until its optimizer step) at `batch`.
    [[nodiscard]] std::uint64_t firstStepPeak(std::int64_t batch) const noexcept;
    /// The largest batch whose peak fits `capacityBytes` (0 if batch 1 does not), capped at kMaxBatch.
    [[nodiscard]] std::int64_t maxBatch(std::uint64_t capacityBytes) const noexcept;
    /// A moment's breakdown at `batch` (saturating: for charts of one step).
    [[nodiscard]] MemoryBreakdown momentAt(std::size_t moment, std::int64_t batch) const noexcept;
    /// A moment of the first step at `batch` (saturating): as momentAt(), without the optimizer state
    /// before the optimizer step creates it.
    [[nodiscard]] MemoryBreakdown firstStepMomentAt(std::size_t moment, std::int64_t batch) const noexcept;
    /// Where the first step peaks at `batch` (1..kMaxBatch).
    [[nodiscard]] StepPeak firstStepPeakAt(std::int64_t batch) const;
    [[nodiscard]] const StepTimeline& timeline() const noexcept { return m_timeline; }
    /// The optimizer step's moment (weights, gradients, state, its temporaries, the batch).
    [[nodiscard]] std::size_t optimizerStepMoment() const noexcept { return m_timeline.moments().size() - 1; }
    /// The end of the (first micro-batch's) forward pass: what backward starts from.
    [[nodiscard]] std::size_t endOfForwardMoment() const noexcept;

private:
    /// A pipeline stage's held micro-batches and buffers (setup.pipelineStage) added to `c`, worked out
    /// from `single`, the stage's step without them; whether anything was added.
    static bool addPipelineStage(
        StepConditions& c, const Analysis& analysis, const MemoryModel& single, const TrainingSetup& setup);

    StepTimeline m_timeline;
};

} // namespace headroom

#pragma once

#include "headroom/Analysis.h"
#include "headroom/Count.h"
#include "headroom/Error.h"
#include "headroom/MemoryBreakdown.h"
#include "headroom/Optimizer.h"
#include "headroom/Precision.h"
#include "headroom/StepTimeline.h"
#include "headroom/Training.h"
#include "headroom/TrainingSetup.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

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
    StepTimeline m_timeline;
};

/// The answer the product gives: memory at one batch size on one GPU.
struct Estimate final
{
    std::int64_t batch = 0; ///< the micro-batch per GPU
    std::int64_t effectiveBatch
        = 0; ///< samples per optimizer step: batch x accumulation steps x data-parallel GPUs
    Precision precision = Precision::Fp32;
    Optimizer optimizer = Optimizer::Adam;
    /// What is alive at the peak of a training step (docs/memory-model.md), by component; total() is the
    /// peak.
    MemoryBreakdown bytes;
    StepPeak peak; ///< where the peak happens
    std::string peakLayer; ///< its layer's name ("" for the optimizer step)
    std::uint64_t firstStepPeakBytes
        = 0; ///< the first step's peak (at most total(): no state before its step)
    std::uint64_t optimizerStepBytes = 0; ///< memory during the optimizer step
    std::uint64_t gpuMemoryBytes = 0; ///< the GPU's memory it was estimated for
    bool fits = false; ///< total() <= gpuMemoryBytes
    std::int64_t maxBatch = 0; ///< the largest micro-batch per GPU that fits
    std::int64_t maxEffectiveBatch = 0; ///< maxBatch x accumulation steps x data-parallel GPUs

    [[nodiscard]] std::uint64_t total() const noexcept { return bytes.total(); }
    /// The peak: what the GPU must hold (total()).
    [[nodiscard]] std::uint64_t peakBytes() const noexcept { return total(); }
    /// GPU memory left over at the peak (negative: the shortfall).
    [[nodiscard]] double headroomBytes() const noexcept
    {
        return static_cast<double>(gpuMemoryBytes) - static_cast<double>(peakBytes());
    }
};

/// The estimate on a GPU of `gpuMemoryBytes` from a memory model already built for this analysis and
/// set-up (every slider tick: a few multiplications). Fails if the batch is not in 1..kMaxBatch or a
/// byte count would overflow.
[[nodiscard]] Result<Estimate> estimate(const Analysis& analysis, const MemoryModel& model,
    const TrainingSetup& setup, std::uint64_t gpuMemoryBytes);

/// Combines an analysis with a set-up on a GPU of `gpuMemoryBytes` (Plan's evaluate() does it for a
/// plan, on its GPU). Fails if the analysis has an error (naming the blocking layer), the batch is
/// not in 1..kMaxBatch, or a byte count would overflow.
[[nodiscard]] Result<Estimate> estimate(
    const Analysis& analysis, const TrainingSetup& setup, std::uint64_t gpuMemoryBytes);

/// The breakdown for each batch in [first, last] (step 1), for charts. Empty on error.
[[nodiscard]] Result<std::vector<MemoryBreakdown>> sweep(
    const Analysis& analysis, const TrainingSetup& setup, std::int64_t first, std::int64_t last);

} // namespace headroom

#pragma once

#include "headroom/analysis/Analysis.h"
#include "headroom/setup/Optimizer.h"
#include "headroom/setup/Precision.h"
#include "headroom/setup/Training.h"
#include "headroom/setup/TrainingSetup.h"
#include "headroom/step/MemoryBreakdown.h"
#include "headroom/step/MemoryModel.h"
#include "headroom/step/StepTimeline.h"
#include "headroom/support/Count.h"
#include "headroom/support/Error.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace headroom {

/// What an estimate's fit and headroom are judged on: one notion for every view (docs/memory-model.md,
/// "Where the answer is used").
enum class FitBasis : std::uint8_t {
    /// The caching allocator is not simulated (off, or the step too large to replay): the tensors' peak
    /// with the overhead, total(), is what the GPU holds.
    Tensors,
    /// The allocator replayed at the batch under the GPU's memory less the overhead: what the GPU holds
    /// is its reserved peak plus the overhead (ReservedFigures::peakWithOverheadBytes).
    Reserved,
    /// The reserved max batch alone, not yet replayed at this batch (the GUI's slider tick): whether
    /// the batch fits is known, the GPU's peak is not (no headroom figure).
    MaxBatchOnly,
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
    /// tensors' peak (with the overhead).
    MemoryBreakdown bytes;
    StepPeak peak; ///< where the peak happens
    std::string peakLayer; ///< its layer's name ("" for the optimizer step)
    /// Its layer as sentences name it, number and name: "18 (layer2.0.conv1)", "5 (MaxPool2d)"
    /// (momentLayerReference; "" for the optimizer step).
    std::string peakReference;
    std::uint64_t firstStepPeakBytes
        = 0; ///< the first step's peak (at most total(): no state before its step)
    std::uint64_t optimizerStepBytes = 0; ///< memory during the optimizer step
    std::uint64_t gpuMemoryBytes = 0; ///< the GPU's memory it was estimated for
    /// Whether the batch trains: with the tensors alone total() <= gpuMemoryBytes; with the allocator
    /// (applyReserved) the batch is not above maxBatch and the replay at it held every allocation.
    bool fits = false;
    std::int64_t maxBatch = 0; ///< the largest micro-batch per GPU that fits
    std::int64_t maxEffectiveBatch = 0; ///< maxBatch x accumulation steps x data-parallel GPUs
    FitBasis fitBasis = FitBasis::Tensors; ///< what fits and heldBytes are judged on
    /// What the GPU holds at the peak (fitBasis says which figure): total() with the tensors alone, the
    /// reserved peak plus the overhead with the allocator.
    std::uint64_t heldBytes = 0;

    /// The tensors' peak (with the overhead): the sum of the breakdown.
    [[nodiscard]] std::uint64_t total() const noexcept { return bytes.total(); }
    /// The tensors' peak (total()); what the GPU holds is heldBytes.
    [[nodiscard]] std::uint64_t peakBytes() const noexcept { return total(); }
    /// Whether there is a headroom figure (not on a slider tick before the replay at the batch).
    [[nodiscard]] bool hasHeadroom() const noexcept { return fitBasis != FitBasis::MaxBatchOnly; }
    /// GPU memory left over at the peak: gpuMemoryBytes - heldBytes (negative: the shortfall). The one
    /// headroom every view shows; only where hasHeadroom().
    [[nodiscard]] double headroomBytes() const noexcept
    {
        return static_cast<double>(gpuMemoryBytes) - static_cast<double>(heldBytes);
    }
    /// What the tensors alone leave (gpuMemoryBytes - total()); shown only labelled as the tensors'.
    [[nodiscard]] double tensorsHeadroomBytes() const noexcept
    {
        return static_cast<double>(gpuMemoryBytes) - static_cast<double>(total());
    }
    /// The batch does not fit although the GPU would hold less than its memory: above the max batch, in
    /// the margin it keeps for what the model cannot see (ReservedMaxBatch::marginBytes).
    [[nodiscard]] bool withinMargin() const noexcept
    {
        return !fits && hasHeadroom() && headroomBytes() >= 0;
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

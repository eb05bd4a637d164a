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

#pragma once

// How many micro-batches a pipeline schedule keeps in flight on each stage (docs/multi-gpu.md,
// "Pipeline parallelism"): what one stage's GPU holds besides the micro-batch it is running.

#include "headroom/setup/Training.h"

#include <cstdint>

namespace headroom {

/// What a stage holds at its peak besides the micro-batch its step simulation runs (a whole micro-batch
/// through all of the stage's layers): `chunkPasses` forward passes through one of its `chunksPerStage`
/// model chunks (v with the interleaved schedule, else 1) whose backward has not run. Held activations are
/// those of chunkPasses / chunksPerStage whole-stage micro-batches.
struct HeldMicroBatches final
{
    std::int64_t chunkPasses = 0;
    std::int64_t chunksPerStage = 1;

    /// Held micro-batches as a fraction of the stage's (chunkPasses / chunksPerStage).
    [[nodiscard]] double value() const noexcept
    {
        return static_cast<double>(chunkPasses) / static_cast<double>(chunksPerStage);
    }
    /// Micro-batches' worth in flight at the peak, the running one included.
    [[nodiscard]] double inFlight() const noexcept { return value() + 1.0; }
    friend bool operator==(const HeldMicroBatches&, const HeldMicroBatches&) = default;
};

/// The held micro-batches of stage `stage` (from 0) of `par.pipelineParallel` under `par.schedule`, with
/// `microBatches` micro-batches per step:
/// - GPipe (Huang et al. 2019): every forward before any backward: m - 1 held.
/// - 1F1B and zero-bubble ZB-H1 (Narayanan et al. 2021; Qi et al. 2023, whose ZB-H1 keeps 1F1B's peak):
///   p - s - 1 warm-up forwards, at most m - 1.
/// - Interleaved 1F1B (Megatron-LM schedules.py): w = (p - s - 1) x 2 + (v - 1) x p warm-up chunk passes,
///   at most m x v - 1, and the running one: (w + 1) / v micro-batches' worth in flight, on the first
///   stage p + (p - 1) / v, the factor 1 + (p - 1) / (p v) of Megatron's theoretical memory. The held
///   passes are w + 1 - v (the simulated micro-batch stands for v of them).
[[nodiscard]] HeldMicroBatches heldMicroBatches(
    const Parallelism& par, std::int64_t microBatches, std::int64_t stage) noexcept;

} // namespace headroom

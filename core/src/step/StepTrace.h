#pragma once

// Builds the allocation trace of a training run's first steps from the step simulation's events
// (StepSimulation), the model's weights and the optimizer's per-tensor state and temporaries
// (docs/memory-model.md, "The allocation trace").

#include "headroom/analysis/Analysis.h"
#include "headroom/step/AllocationTrace.h"
#include "headroom/step/MemoryModel.h"
#include "headroom/support/Error.h"

#include <cstdint>

namespace headroom::step {

/// What the trace includes beyond the step graph.
struct TraceSettings
{
    int steps = 2; ///< training steps: the first creates the optimizer state, the second is steady
    int microBatches = 1; ///< micro-batches simulated per step (the first, then later ones)
    std::uint64_t cublasWorkspace = 0; ///< per cuBLAS handle (CudaRuntime.h)
    std::uint64_t cublasLtWorkspace = 0; ///< per handle when not unified with cuBLAS's
    bool cudnnWorkspaces = true; ///< a convolution's workspace around its forward and backward
    /// Refuse to write out repeated blocks past this many ops: a replay costs about 1 µs per op and max
    /// batch 5 to 15 replays, so this keeps evaluate() under a second (issue 26: no input under 1 MB may
    /// cost more); a larger step keeps the tensors' max batch, with the reason.
    std::size_t maxOps = 50'000;
    std::uint64_t maxWrittenOutLayers = 25'000; ///< the same bound in layers, for nested blocks
};

/// The trace of `settings.steps` training steps under `setup`, whose per-GPU constants are `conditions`
/// (MemoryModel::build's, StepTimeline::conditions()).
[[nodiscard]] Result<AllocationTrace> buildTrace(const Analysis& analysis, const TrainingSetup& setup,
    const StepConditions& conditions, const TraceSettings& settings);

/// A convolution's cuDNN workspace, affine in the batch, for op `op` of `graph` (docs/memory-model.md,
/// "cuDNN workspaces"); 0 for ops that are not convolutions.
[[nodiscard]] AffineBytes cudnnWorkspace(
    const Analysis& analysis, const StepGraph& graph, std::size_t op, bool backward);

} // namespace headroom::step

#pragma once

// Part of the per-layer stage: a layer's backward FLOPs per sample (docs/finetuning.md, "Backward
// FLOPs"), from its outcome and which of its inputs require grad. Reads only its arguments.

#include "headroom/layers/LayerKind.h"
#include "headroom/support/Count.h"

#include <vector>

namespace headroom::analysis {

/// What the layer's backward computes, given whether each input requires grad (`inputRequiresGrad`,
/// one per input), whether any input gradient is needed, whether its weights train and whether
/// autograd records it at all.
[[nodiscard]] Count backwardFlops(const LayerOutcome& outcome, const std::vector<bool>& inputRequiresGrad,
    bool anyInputGrad, bool baseTrains, bool recorded);

} // namespace headroom::analysis

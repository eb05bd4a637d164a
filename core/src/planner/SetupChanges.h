#pragma once

// How a planned set-up differs from the plan it started from, in words and as `headroom estimate` values.

#include "headroom/planner/Planner.h"

#include <vector>

namespace headroom {

/// Whether two LoRA settings train alike: equal, or both off (whatever rank or targets they keep).
[[nodiscard]] bool sameLora(const LoraOptions& a, const LoraOptions& b);

/// What `candidate` changes against `base`, in the order a reader needs them: changes to training
/// first. `batchNorm`: the network has batch-norm layers, whose statistics follow the micro-batch.
[[nodiscard]] std::vector<SetupChange> changesBetween(
    const PlanSettings& base, const PlanSettings& candidate, bool batchNorm);

} // namespace headroom

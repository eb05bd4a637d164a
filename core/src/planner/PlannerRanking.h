#pragma once

// The planner's ranking of the set-ups it found (docs/planner.md, "Ranking and the Pareto front").

#include "headroom/planner/Planner.h"

#include <vector>

namespace headroom {

/// `candidates` fastest first (samples per second per GPU; ties: fewer changes to training, less
/// communication the estimate leaves out, fewer changes, less memory, then the order given), without
/// those whose extra changes buy neither memory nor speed over a listed one, the memory/speed Pareto
/// front marked.
[[nodiscard]] std::vector<PlanCandidate> rankCandidates(std::vector<PlanCandidate> candidates);

/// Whether `a` misses the goal by less than `b` (a later kind: memory < batch < step time, then less
/// missing).
[[nodiscard]] bool closer(const PlanShortfall& a, const PlanShortfall& b);

} // namespace headroom

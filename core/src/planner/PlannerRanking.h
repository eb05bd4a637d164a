#pragma once

// The planner's ranking of the set-ups it found (docs/planner.md, "Ranking and the Pareto front").

#include "headroom/planner/Planner.h"

#include <vector>

namespace headroom {

/// Whether `a` misses the goal by less than `b` (a later kind: memory < batch < step time, then less
/// missing).
[[nodiscard]] bool closer(const PlanShortfall& a, const PlanShortfall& b);

} // namespace headroom

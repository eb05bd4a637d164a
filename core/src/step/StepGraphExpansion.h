#pragma once

// A step graph with every hidden iteration of its Repeat blocks written out (StepRepeat): the caching
// allocator needs each tensor of each iteration, where the moments only need what an iteration changes.

#include "headroom/analysis/StepGraph.h"
#include "headroom/support/Error.h"

#include <cstddef>
#include <vector>

namespace headroom::step {

struct ExpandedGraph
{
    StepGraph graph; ///< no repeats; every StepParameter stands for itself (copies 1)
    /// For each parameter of `graph`, the parameter of the original graph it is an instance of.
    std::vector<std::size_t> parameterOrigin;
};

/// Writes out the hidden iterations: each is a copy of the iteration before them (its ops, storages,
/// tensors, trainable parameters and, when the iterations are checkpointed, its segment), reading the
/// previous copy's output where that iteration read its own input. Innermost blocks first, so a nested
/// block's copies are part of the iteration that is copied. Fails when the graph would exceed `maxOps`.
[[nodiscard]] Result<ExpandedGraph> expandRepeats(const StepGraph& graph, std::size_t maxOps);

} // namespace headroom::step

#pragma once

// Stage: the layer walk, through Repeat blocks. Reads the layer specs in forward order; checks their
// names, gives each layer its full name and scope, hands each layer to the per-layer stage (Layer.h)
// and walks each Repeat block iteration by iteration: its header row, one checkpoint segment per
// iteration under per-block checkpointing, identical iterations jumped (IdenticalIterations.h). Writes
// the header rows, each layer's output under its name and the step's repeats and segments.

#include "AnalysisState.h"
#include "Inputs.h"
#include "headroom/Network.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace headroom::analysis {

/// The most iterations a Repeat block may have.
inline constexpr std::int64_t kMaxRepeatTimes = 1'000'000'000;

/// Layers after expanding Repeat blocks (overflowed past 64 bits).
[[nodiscard]] Count expandedLayers(const std::vector<LayerSpec>& specs);
/// Some Repeat block is marked "checkpoint" (then only marked blocks are segments).
[[nodiscard]] bool anyCheckpointMark(const std::vector<LayerSpec>& specs);

/// Walks a list of specs ("layers[2].layers" at `specPrefix`, full names below `namePrefix`).
/// `current` is the tensor flowing in and out; `frozen`: a block around them is frozen.
void walkLayers(AnalysisState& state, const std::vector<LayerSpec>& specs, const std::string& specPrefix,
    const std::string& namePrefix, int depth, Scope& scope, std::size_t& current, bool frozen);

} // namespace headroom::analysis

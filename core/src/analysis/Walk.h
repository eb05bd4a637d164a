#pragma once

// Stage: the layer walk, through Repeat blocks. Reads the layer specs in forward order; checks their
// names, gives each layer its full name and scope, hands each layer to the per-layer stage (Layer.h)
// and walks each Repeat block iteration by iteration: its header row, one checkpoint segment per
// iteration under per-block checkpointing, identical iterations jumped (IdenticalIterations.h). Writes
// the header rows, each layer's output under its name and the step's repeats and segments.

#include "AnalysisState.h"
#include "Inputs.h"
#include "headroom/model/Network.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace headroom::analysis {

/// The most iterations a Repeat block may have.
inline constexpr std::int64_t kMaxRepeatTimes = 1'000'000'000;

/// Layers after expanding Repeat blocks (overflowed past 64 bits).
[[nodiscard]] Count expandedLayers(const std::vector<LayerSpec>& specs);
/// Layers the specs describe, each Repeat block's once (what the file writes down).
[[nodiscard]] std::size_t describedLayers(const std::vector<LayerSpec>& specs);

/// Nested Repeat blocks each analyse a few iterations on their own (the first, the last two, any that
/// differ or are singled out), so the layers analysed multiply with the nesting: 15 blocks of 2
/// iterations around 2 layers analyse 65,536 of them. This bounds what the nesting may add: at most
/// kAnalysedPerDescribedLayer times the layers the file describes, or kAnalysedWithoutRatio if more.
/// (Issue 26: no input under 1 MB may cost over a second; an analysed layer costs about 35 µs.)
inline constexpr std::size_t kAnalysedWithoutRatio = 8'192;
inline constexpr std::size_t kAnalysedPerDescribedLayer = 16;
/// The most layers `network`'s analysis may analyse before nested Repeat blocks are refused.
[[nodiscard]] std::size_t analysedLayersAllowed(const std::vector<LayerSpec>& layers);
/// Some Repeat block is marked "checkpoint" (then only marked blocks are segments).
[[nodiscard]] bool anyCheckpointMark(const std::vector<LayerSpec>& specs);

/// Walks a list of specs ("layers[2].layers" at `specPrefix`, full names below `namePrefix`).
/// `current` is the tensor flowing in and out; `frozen`: a block around them is frozen.
void walkLayers(AnalysisState& state, const std::vector<LayerSpec>& specs, const std::string& specPrefix,
    const std::string& namePrefix, int depth, Scope& scope, std::size_t& current, bool frozen);

} // namespace headroom::analysis

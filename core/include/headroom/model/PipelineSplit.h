#pragma once

// A network cut into pipeline stages (docs/multi-gpu.md, "Pipeline parallelism"): which of its layers
// each stage holds, and each stage as a network of its own whose input is what the stage before it
// sends. Pure data: the boundary tensor's shape comes from the caller's analysis.

#include "headroom/model/Network.h"
#include "headroom/support/Error.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace headroom {

/// The layers a pipeline distributes: the iterations of the network's top-level Repeat blocks (a
/// transformer's layers), or, in a network without one, its top-level layers. The layers around them
/// go with their neighbours: those before the first to the first stage (the embedding), those after
/// the last to the last stage (the final norm, the output head and the loss), those between two blocks
/// with the layer before them (Megatron-LM's placement).
[[nodiscard]] std::int64_t pipelineLayerCount(const Network& network);

/// What one pipeline stage (one GPU of a pipeline) holds.
struct PipelineStageSlice final
{
    std::int64_t index = 0; ///< 0 = the first stage
    /// Of each top-level layer of the network: how many of its iterations the stage holds (a layer that is
    /// not a Repeat block: 0 or 1).
    std::vector<std::int64_t> iterations;
    /// The pipeline layers the stage holds, in pipelineLayerCount()'s numbering from 0, as ranges
    /// [first, last] (one per virtual stage; several with the interleaved schedule).
    std::vector<std::pair<std::int64_t, std::int64_t>> layerRanges;
    /// The top-level layer whose output the stage receives (the last one the stage before it ends on);
    /// none on the first stage.
    std::optional<std::size_t> receivesFrom;
    /// The top-level layer whose output the stage sends; none on the last stage.
    std::optional<std::size_t> sendsFrom;

    [[nodiscard]] std::int64_t layerCount() const noexcept;
    [[nodiscard]] bool first() const noexcept { return !receivesFrom.has_value(); }
    [[nodiscard]] bool last() const noexcept { return !sendsFrom.has_value(); }
};

/// The pipeline layers of `stages` stages with `virtualStages` model chunks each: `stageLayers` as given
/// (one count per stage, their sum the network's pipeline layers, each divisible by `virtualStages`), or
/// empty for the most even split (the last stages take one more layer where they cannot all have as
/// many). Errors name both settings: more stages than layers, interleaving with too few layers, counts
/// that do not add up.
[[nodiscard]] Result<std::vector<PipelineStageSlice>> splitPipeline(const Network& network,
    std::int64_t stages, std::int64_t virtualStages, const std::vector<std::int64_t>& stageLayers);

/// The stage as a network of its own: its layers (a Repeat block with the stage's iterations of it), the
/// boundary tensor `received` as input on every stage but the first, the loss on the last stage only
/// (others send their output on). A weight tied to a layer on another stage becomes the stage's own copy
/// (Megatron-LM keeps the word embedding on the first and the last stage). A layer that takes a tensor
/// from another stage other than through the boundary is an error naming both layers.
[[nodiscard]] Result<Network> stageNetwork(
    const Network& network, const PipelineStageSlice& stage, const InputSpec& received);

} // namespace headroom

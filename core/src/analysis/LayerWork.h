#pragma once

// The per-layer stage's working record of the layer being analysed (Layer.cpp fills it in order;
// LayerOp.cpp records its op from it). Private to that stage.

#include "AnalysisState.h"
#include "Layer.h"
#include "Lora.h"
#include "Parameters.h"
#include "headroom/analysis/StepGraph.h"
#include "headroom/layers/LayerKind.h"

#include <optional>
#include <set>
#include <string>
#include <vector>

namespace headroom::analysis {

struct LayerWork final
{
    LayerWork(const LayerSite& layer, std::size_t row)
        : site { layer }
        , rowIndex { row }
    {
    }

    const LayerSite& site;
    std::size_t rowIndex = 0;
    LayerRow row;
    const LayerKind* kind = nullptr;
    std::vector<std::size_t> inputs; ///< tensor indices
    std::vector<TensorInfo> effective; ///< the inputs as the kind receives them (autocast casts)
    std::vector<bool> casted; ///< per input: autocast made a cast copy
    std::vector<bool> castSaved; ///< per input: autograd keeps that copy
    LayerOutcome outcome;
    std::optional<std::size_t> tiedRow; ///< the row whose weight this layer's is (weight tying)
    StepOp op;
    std::size_t output = 0; ///< the output tensor

    [[nodiscard]] ParameterSink sink(AnalysisState& state)
    {
        return ParameterSink { row, rowIndex, op.parameters, state.totals, state.step, state.result };
    }
};

/// What trains in the layer and what autograd records (PEFT freezes every base parameter).
struct Training final
{
    bool layerFrozen = false;
    bool adapted = false; ///< LoRA adapts the layer itself (a Linear layer)
    std::vector<InnerAdapter> innerAdapters;
    bool ownWeight = false; ///< the kind gives it a parameter named "weight"
    std::set<std::string> nf4Weights;
    bool tiedTrains = false; ///< its tied weight trains, through this layer too
    bool anyInputGrad = false;
    bool weightTrains = false;
    bool baseTrains = false; ///< some parameter of the layer (not its adapters) trains
    bool recorded = false; ///< autograd records the layer
};

/// The layer's output tensor: the input's storage for in-place ops and views (of an uncast input), else
/// a new one. Recorded under the layer's full name.
void addOutput(AnalysisState& state, LayerWork& work, const Training& training);
/// Keeps what autograd saves for the layer's backward; returns whether selective checkpointing dropped
/// its attention scores instead.
bool keepSavedTensors(AnalysisState& state, LayerWork& work, const Training& training);
/// The layer's op: its inputs, scratch and gradients, the FLOPs (`forward`, `backward`: its own and its
/// adapters'); the op is recorded, the row pushed.
void finishLayer(AnalysisState& state, LayerWork& work, const Training& training, bool scoresDropped,
    Count forward, Count backward);

} // namespace headroom::analysis

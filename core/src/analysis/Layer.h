#pragma once

// Stage: per-layer inference, for each layer (not Repeat) spec the walk reaches. Resolves the layer's
// inputs (Inputs.h), finds its kind, validates its attributes and lets the kind infer its output,
// parameters and saved tensors on its inputs as autocast casts them; then counts its parameters
// (Parameters.h), decides what trains and what autograd records, adds its adapters (Lora.h) and records
// its op (LayerOp.h). Writes the layer's row and its output tensor; an invalid layer gets a row with
// its error and passes its input through, so that the layers reading it are blocked, not wrong.

#include "AnalysisState.h"
#include "Inputs.h"
#include "headroom/model/Network.h"

#include <cstddef>
#include <string>

namespace headroom::analysis {

/// Where a layer spec sits in the model file and the network.
struct LayerSite final
{
    const LayerSpec& spec;
    const std::string& specPath; ///< "layers[4].layers[1]"
    const std::string& name; ///< the full name, "blocks.3.attn"
    int depth = 0;
};

/// Analyses one layer reading `current` (unless its spec names inputs) and returns its output tensor.
/// `frozen`: the spec or a block around it is frozen.
std::size_t analyzeLayer(
    AnalysisState& state, const LayerSite& site, const Scope& scope, std::size_t current, bool frozen);

} // namespace headroom::analysis

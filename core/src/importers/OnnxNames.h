#pragma once

// Layer names for an imported ONNX graph (docs/onnx-import.md, "Names and branches").

#include "OnnxGraph.h"
#include "OnnxOperators.h"

#include <string>
#include <vector>

namespace headroom::onnximport {

/// Headroom names for the layers: the module scope when one layer has it ("layer1.0.conv1"), the
/// scope plus the operator otherwise ("layer1.0.Add"), unique and in the model file's alphabet.
[[nodiscard]] std::vector<std::string> layerNames(
    const OnnxGraph& g, const std::vector<PendingLayer>& layers);

} // namespace headroom::onnximport

#pragma once

// Maps the nodes of an indexed ONNX graph to Headroom layer specs (docs/onnx-import.md). The operators
// and patterns are registered in OnnxRegistry.cpp, one file per family under onnxops/.

#include "OnnxGraph.h"

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace headroom::onnximport {

/// A layer before naming: what it is, which ONNX values feed it and which value it produces.
struct PendingLayer
{
    std::string type;
    nlohmann::json attributes = nlohmann::json::object();
    std::vector<std::string> inputValues;
    std::string outputValue;
    int node = -1; ///< the ONNX node the layer is named after (the last of a fused pattern)
    /// The PyTorch module path when the export's metadata gives it for this layer alone (a BatchNorm put
    /// back after the node that took over its place); empty: named after `node`.
    std::string modulePath = {};
};

/// An operator the importer cannot map to a layer of its own; `reason` is empty when no Headroom layer has
/// its type. Such a node becomes a GenericOp layer with a warning, unless it is `fatal`: the file
/// contradicts itself, or the node changes the batch axis, so the graph cannot be followed.
struct Refusal
{
    int node = -1;
    std::string reason;
    bool fatal = false;
};

struct OperatorMapping
{
    std::vector<PendingLayer> layers;
    std::vector<Refusal> refusals;
    /// The first tensor whose shape a mapping needed but shape inference did not give.
    std::optional<Error> missingShape;
    /// ONNX values that are another value under a new name (a trailing LogSoftmax folded into the loss).
    std::vector<std::pair<std::string, std::string>> aliases; ///< {value, the value it stands for}
    std::vector<std::string> notes; ///< sentences for the network's description
    /// Assumptions the user should see next to the numbers (an eval-mode export), for Network::warnings.
    std::vector<std::string> warnings;
    std::size_t genericLayers = 0; ///< GenericOp layers standing in for refused nodes
};

/// Walks back from the graph outputs through the nodes that carry data from the input and maps
/// each such node, or each recognised pattern of nodes (GELU's erf form, SiLU, MatMul + bias), to a
/// layer; a node no layer fits becomes a GenericOp (docs/onnx-import.md). Shape-computation nodes
/// (Shape, Gather on shapes, Concat of sizes...) and constant subgraphs are skipped: they cost no
/// training memory.
[[nodiscard]] OperatorMapping mapOperators(const OnnxGraph& graph, int opset);

} // namespace headroom::onnximport

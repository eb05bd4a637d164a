#pragma once

// Reads models of opsets newer than the ONNX 1.12 library knows (torch 2's dynamo exporter writes 18 and
// later) by rewriting the few operators whose form changed into their opset-17 form.

#include "headroom/support/Error.h"

#include <onnx/onnx_pb.h>
#include <optional>
#include <string>

namespace headroom::onnximport {

/// Rewrites `model`'s default-domain nodes from opset `from` (18 to kOnnxMaxReadOpset) to their opset-`to`
/// forms and declares opset `to`: reductions' axes input becomes the axes attribute, Split drops
/// num_outputs, and attributes added since that only name their default (Resize's antialias = 0, Cast's
/// saturate, AveragePool's unit dilations) are dropped. An operator new since `to` (Gelu, ...) is kept for
/// the mapping. Fails, naming the nodes, when a node's settings have no opset-`to` form.
[[nodiscard]] std::optional<Error> readAsOpset(
    onnx::ModelProto& model, int from, int to, const std::string& file);

} // namespace headroom::onnximport

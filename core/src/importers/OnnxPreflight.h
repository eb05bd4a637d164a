#pragma once

// The node-level checks before ONNX's shape inference: each standard node against its operator's schema,
// convolutions given the kernel_shape of their stored weight, other domains hidden, control flow refused.

#include "headroom/support/Error.h"

#include <onnx/onnx_pb.h>
#include <optional>
#include <string>

namespace headroom::onnximport {

/// Makes `model` (already checked by validateModel) safe for ONNX 1.12's shape inference, which trusts
/// what it reads: a node that does not match its operator's schema, a convolution whose weight has more
/// axes than its input (no kernel_shape), a Reshape target below -1 or a tensor read before it is defined
/// crashes it. Every standard node is checked against its schema (the ONNX checker's node rule);
/// convolutions get their kernel_shape from the stored weight; operators of other domains and
/// model-local functions are hidden from inference (Headroom refuses them anyway), and nodes with
/// subgraphs (If, Loop, Scan) are refused. Errors start with `file`.
[[nodiscard]] std::optional<Error> preflight(onnx::ModelProto& model, int opset, const std::string& file);

} // namespace headroom::onnximport

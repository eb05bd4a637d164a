#pragma once

// ONNX 1.12's shape inference, run behind a guard. InferShapes calls each operator's inference function
// with whatever the graph gives it; the guard (a schema registry handing out wrapped copies of ONNX's
// schemas) calls a node's function only when every named input has a type, gives it no constant larger
// than a shape could be, refuses a shape list longer than kMaxRank before ONNX loops over it, and checks
// every tensor type the function produces (at most kMaxRank axes, sizes 0 to 2^40), so that no output
// can grow the work of the nodes after it. docs/onnx-import.md, "What ONNX's shape inference is given".

#include "headroom/support/Error.h"

#include <onnx/onnx_pb.h>
#include <string>
#include <unordered_map>

namespace headroom::onnximport {

using ShapeData = std::unordered_map<std::string, onnx::TensorShapeProto>;
/// The types the file declares for its graph outputs, by name.
using DeclaredTypes = std::unordered_map<std::string, onnx::TypeProto>;

/// `graph`'s outputs as the file declares them (read before any inference writes its own types there).
[[nodiscard]] DeclaredTypes declaredOutputTypes(const onnx::GraphProto& graph);

/// Runs ONNX shape inference on `model` (with data propagation, so Reshape targets computed from Shape
/// are known), writing the inferred types into its graph. A node ONNX cannot infer does not stop it: its
/// message is kept in `inferenceError` for whichever tensor turns out to be missing; if even lenient
/// inference gives up, the types the file declares are kept. Fails (message without the file name) when
/// a node would produce a tensor Headroom refuses (more than kMaxRank axes, an axis outside 0 to 2^40) or
/// reads a shape list longer than kMaxRank, or computes a graph output whose element type or sizes contradict
/// what `declared` says of it.
[[nodiscard]] Result<ShapeData> inferShapes(
    onnx::ModelProto& model, const DeclaredTypes& declared, std::string& inferenceError);

} // namespace headroom::onnximport

#pragma once

// What an ONNX file must satisfy before anything reads it: ONNX 1.12's shape inference trusts the file
// (a raw_data that is not a whole number of elements overflows a heap buffer, a scalar without data is
// read at index 0, a blocksize of 2^32 squares to 0 and divides), so every tensor, declared type and
// attribute is checked here, generically, and refused with a message naming it (docs/onnx-import.md,
// "What ONNX's shape inference is given").

#include "OnnxLimits.h"
#include "headroom/support/Error.h"

#include <onnx/onnx_pb.h>
#include <optional>
#include <string>

namespace headroom::onnximport {

/// Checks every tensor the file stores (initializers, tensor attributes such as Constant's value), every
/// declared type (graph inputs, outputs, value_info) and every attribute of the default-domain nodes;
/// refuses sparse tensors, duplicate initializers and an initializer that a node also writes. The error's
/// message has no file name yet. Call before any reader of the model.
[[nodiscard]] std::optional<Error> validateModel(const onnx::ModelProto& model);

/// The problem with one stored tensor, or nullopt: an element type Headroom reads (no STRING), at most
/// kMaxRank axes of 0 to kMaxDimension, and data (raw_data, or the one typed field its element type
/// uses) of exactly the size its dims give. A tensor without data (stripped weights, external data) is
/// fine.
[[nodiscard]] std::optional<std::string> tensorProblem(const onnx::TensorProto& tensor);

/// Marks every stored tensor that holds no data although its dims say it has elements (stripped or
/// external weights, or data Headroom dropped) as external, so that ONNX's inference refuses to read
/// it instead of reading an empty vector (a scalar without data is read at index 0).
void markMissingDataExternal(onnx::ModelProto& model);

} // namespace headroom::onnximport

#pragma once

// Shape inputs ONNX 1.12's data propagation leaves open but the importer works out, pinned as constants
// between inference passes.

#include "OnnxGraph.h"

#include <onnx/onnx_pb.h>

namespace headroom::onnximport {

/// Reshape targets, Slice bounds, Pad amounts and Resize scales ONNX 1.12's data propagation leaves open
/// (a Gather of a Shape, size arithmetic: ShuffleNet's channel shuffle and chunk, ViT's patches) but
/// OnnxGraph::shapeTensor and foldIntegers work out: pinned as constants, with 0 ("copy the input's
/// axis") for a Reshape's batch axis, so that the next inference pass knows the output and everything
/// after it; a Resize that keeps the batch axis gets its symbol back. Only shapes are read; the file on
/// disk is not changed. The mapping reads the pinned values; whether another inference pass can learn
/// more shapes from them is the result.
enum class PinResult { Nothing, ValuesOnly, OpensShapes };
PinResult pinShapeInputs(onnx::ModelProto& model, const OnnxGraph& g);

} // namespace headroom::onnximport

#pragma once

#include "headroom/model/Network.h"
#include "headroom/support/Error.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace headroom {

/// The default-domain ("ai.onnx") opsets the importer accepts: 7 (the oldest opset whose operators
/// torch.onnx.export still writes) to 17 (the newest the ONNX 1.12 library's shape inference knows).
constexpr int kOnnxMinOpset = 7;
constexpr int kOnnxMaxOpset = 17;
/// Newer opsets (torch 2's dynamo exporter writes 18 and later) are read as 17 where their operators
/// have an opset-17 form (docs/onnx-import.md, "Supported opsets").
constexpr int kOnnxMaxReadOpset = 21;
/// ONNX's protobuf encoding cannot exceed 2 GiB; larger models keep their weights in external files.
constexpr std::uint64_t kMaxOnnxFileBytes = (2ULL << 30) - 1;

/// Parses a serialised ONNX ModelProto, runs ONNX shape inference and maps its operators to
/// Headroom layers (docs/onnx-import.md). The batch axis is the input's first axis (symbolic or
/// fixed). Only initializer shapes are read, never their values, so weight-stripped files and files
/// with external data import as well. Errors start with `nameForErrors`; a model with operators
/// Headroom cannot map fails with one error listing every such operator by node name and type.
/// The result has been analysed once: every layer's shape equals the one ONNX inferred.
[[nodiscard]] Result<Network> importOnnx(std::string_view bytes, const std::string& nameForErrors);
/// Reads `path` (at most kMaxOnnxFileBytes) and imports it; errors name the file.
[[nodiscard]] Result<Network> importOnnxFile(const std::string& path);

} // namespace headroom

#pragma once

#include "headroom/model/Network.h"
#include "headroom/support/Error.h"

#include <string>

namespace headroom {

/// True when `path` names an ONNX model (its extension is ".onnx", in any case).
[[nodiscard]] bool isOnnxPath(const std::string& path);
/// Loads any file a user may open: an ONNX model (.onnx, through importOnnxFile) or a Headroom
/// model file (anything else, through loadModelFile). Errors name the file.
[[nodiscard]] Result<Network> loadNetworkFile(const std::string& path);

} // namespace headroom

#pragma once

#include "headroom/model/ModelFile.h"
#include "headroom/model/Network.h"
#include "headroom/support/Error.h"

#include <string>

namespace headroom {

/// True when `path` names an ONNX model (its extension is ".onnx", in any case).
[[nodiscard]] bool isOnnxPath(const std::string& path);
/// Loads any file a user may open: an ONNX model (.onnx, through importOnnxFile) or a Headroom
/// model file (anything else, through loadModelFile). Errors name the file.
[[nodiscard]] Result<Network> loadNetworkFile(const std::string& path);
/// loadNetworkFile() with the training set-up a Headroom model file saves (ModelDocument::training;
/// null for an ONNX model or a Hugging Face config, which have none).
[[nodiscard]] Result<ModelDocument> loadNetworkDocument(const std::string& path);

} // namespace headroom

#include "headroom/NetworkFile.h"

#include "headroom/ModelFile.h"
#include "headroom/OnnxImport.h"

#include <algorithm>
#include <filesystem>

namespace headroom {

bool isOnnxPath(const std::string& path)
{
    std::string ext = std::filesystem::path(path).extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(),
        [](unsigned char c) { return static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c); });
    return ext == ".onnx";
}

Result<Network> loadNetworkFile(const std::string& path)
{
    return isOnnxPath(path) ? importOnnxFile(path) : loadModelFile(path);
}

} // namespace headroom

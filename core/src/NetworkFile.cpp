#include "headroom/NetworkFile.h"

#include "headroom/HfConfig.h"
#include "headroom/ModelFile.h"
#include "headroom/OnnxImport.h"

#include "JsonText.h"

#include <algorithm>
#include <filesystem>

namespace headroom {

namespace {

/// A JSON object with a "model_type" string and no Headroom "format" key: a Hugging Face config
/// saved under another name ("llama-7b.json").
bool looksLikeHfConfig(const std::string& path)
{
    auto text = detail::readTextFile(path, kMaxModelFileBytes);
    if (!text)
        return false;
    auto j = detail::parseJsonText(text.value(), path);
    if (!j || !j.value().is_object())
        return false;
    const auto& object = j.value();
    const auto type = object.find("model_type");
    return type != object.end() && type->is_string() && !object.contains("format");
}

} // namespace

bool isOnnxPath(const std::string& path)
{
    std::string ext = std::filesystem::path(path).extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(),
        [](unsigned char c) { return static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c); });
    return ext == ".onnx";
}

Result<Network> loadNetworkFile(const std::string& path)
{
    if (isOnnxPath(path))
        return importOnnxFile(path);
    if (isHfConfigPath(path))
        return importHfConfigFile(path);
    auto network = loadModelFile(path);
    if (!network && looksLikeHfConfig(path))
        return importHfConfigFile(path);
    return network;
}

} // namespace headroom

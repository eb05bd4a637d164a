#include "headroom/NetworkFile.h"

#include "headroom/Format.h"
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
bool looksLikeHfConfig(std::string_view text)
{
    auto j = detail::parseJsonText(text, "");
    if (!j || !j.value().is_object())
        return false;
    const auto& object = j.value();
    const auto type = object.find("model_type");
    return type != object.end() && type->is_string() && !object.contains("format");
}

/// Names taken from a file or folder name ("llama\xff.json") need not be UTF-8; everything that shows
/// or writes them (JSON output, the GUI, the report) expects UTF-8.
Result<Network> withPrintableNames(Result<Network> network)
{
    if (!network)
        return network;
    Network n = std::move(network).value();
    n.name = escapeInvalidUtf8(n.name);
    n.description = escapeInvalidUtf8(n.description);
    return n;
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
        return withPrintableNames(importOnnxFile(path));
    if (isHfConfigPath(path))
        return withPrintableNames(importHfConfigFile(path));
    // Read once: the file may be a pipe (`headroom estimate <(...)`) that cannot be read again.
    auto text = detail::readTextFile(path, kMaxModelFileBytes);
    if (!text)
        return text.error();
    auto network = parseModel(text.value());
    if (network)
        return network;
    if (looksLikeHfConfig(text.value()))
        return withPrintableNames(importHfConfig(text.value(), path));
    return Error{path + ": " + network.error().message, network.error().location};
}

} // namespace headroom

#include "headroom/importers/NetworkFile.h"

#include "headroom/importers/HfConfig.h"
#include "headroom/importers/OnnxImport.h"
#include "headroom/model/ModelFile.h"
#include "headroom/support/Format.h"
#include "support/JsonText.h"

#include <algorithm>
#include <filesystem>
#include <optional>

namespace headroom {

namespace {

/// A JSON object with a "model_type" string and no Headroom "format" key: a Hugging Face config
/// saved under another name ("llama-7b.json").
bool looksLikeHfConfig(const nlohmann::json& j)
{
    if (!j.is_object())
        return false;
    const auto type = j.find("model_type");
    return type != j.end() && type->is_string() && !j.contains("format");
}

/// A file that is not a Headroom model at all (any file not named *.onnx or config.json is read
/// as one): what it was taken for, why it is not one, and what Headroom opens. A model with a typo
/// (it starts with "{" and claims the Headroom format) keeps its located error instead.
Error notAModel(const std::string& path, const std::string& why)
{
    return Error { path
            + ": read as a Headroom model file (its name does not end in .onnx or config.json), but " + why
            + ". Headroom opens Headroom model files (.json), ONNX models (.onnx) and Hugging Face "
              "configs (config.json)",
        "" };
}

/// Why `text`, which parseModel refused, is not a Headroom model, or nothing when it is one with
/// a mistake in it (the parser's error says where).
std::optional<std::string> whyNotAModel(std::string_view text, const nlohmann::json* parsed)
{
    const auto first = text.find_first_not_of(" \t\r\n");
    if (first == std::string_view::npos)
        return "it is empty";
    if (parsed == nullptr) {
        // A file that starts like JSON has a syntax error somewhere; one that does not is not JSON.
        if (text[first] == '{')
            return std::nullopt;
        if (const auto encoding = detail::notUtf8Text(text)) {
            // UTF-16 or UTF-32 text is likely a model saved in the wrong encoding: its own message
            // ("save it as UTF-8") is the help. Other bytes are no text at all.
            if (encoding->starts_with("the file is UTF-"))
                return std::nullopt;
            return "it cannot be read as JSON: " + *encoding;
        }
        return "it is not JSON text (a model file starts with \"{\")";
    }
    const auto format = parsed->is_object() ? parsed->find("format") : parsed->end();
    if (!parsed->is_object() || format == parsed->end() || !format->is_string()
        || format->get<std::string>() != "headroom-model")
        return "it holds JSON without the model's \"format\": \"headroom-model\"";
    return std::nullopt;
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

Result<ModelDocument> loadNetworkDocument(const std::string& path)
{
    const auto imported = [](Result<Network> network) -> Result<ModelDocument> {
        if (!network)
            return network.error();
        return ModelDocument { std::move(network).value(), nlohmann::json() };
    };
    if (isOnnxPath(path)) {
        // A pipe or a device has no size and cannot seek: read it into memory once (at most the limit),
        // then parse those bytes. A regular file is parsed straight from disk (not held twice).
        std::error_code ec;
        const auto status = std::filesystem::status(path, ec);
        if (!ec && std::filesystem::exists(status) && !std::filesystem::is_regular_file(status)
            && !std::filesystem::is_directory(status)) {
            auto bytes = detail::readTextFile(path, kMaxOnnxFileBytes);
            if (!bytes)
                return bytes.error();
            return imported(withPrintableNames(importOnnx(bytes.value(), path)));
        }
        return imported(withPrintableNames(importOnnxFile(path)));
    }
    if (isHfConfigPath(path))
        return imported(withPrintableNames(importHfConfigFile(path)));
    // Read once: the file may be a pipe (`headroom estimate <(...)`) that cannot be read again.
    auto text = detail::readTextFile(path, kMaxModelFileBytes);
    if (!text)
        return text.error();
    auto document = parseModelDocument(text.value());
    if (document)
        return document;
    // Refused: parse once more to tell a Hugging Face config saved under another name, a file that
    // is no model at all, and a model with a mistake apart.
    auto json = detail::parseJsonText(text.value(), "");
    if (json && looksLikeHfConfig(json.value()))
        return imported(withPrintableNames(importHfConfig(text.value(), path)));
    if (const auto why = whyNotAModel(text.value(), json ? &json.value() : nullptr))
        return notAModel(path, *why);
    return Error { path + ": " + document.error().message, document.error().location };
}

Result<Network> loadNetworkFile(const std::string& path)
{
    auto document = loadNetworkDocument(path);
    if (!document)
        return document.error();
    return std::move(document).value().network;
}

} // namespace headroom

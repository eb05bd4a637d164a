// Hugging Face config.json -> Headroom layers (docs/hf-import.md): the file is read and checked here,
// then the model_type's family builder (importers/hf/HfFamilies.h: one per family, over the shared
// transformer blocks of HfBlocks.h) spells the model out in the primitive layers its PyTorch modules
// run, named as Hugging Face names its modules (so LoRA targets such as "q_proj" match), with the
// decoder/encoder layers in Repeat blocks (so per-block checkpointing checkpoints each of them).
#include "headroom/importers/HfConfig.h"

#include "headroom/support/Format.h"
#include "hf/HfFamilies.h"
#include "support/JsonText.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <optional>
#include <set>
#include <sstream>

namespace headroom {

namespace {

using nlohmann::json;

constexpr std::uint64_t kMaxConfigBytes = 4 * 1024 * 1024;

std::string lowercase(std::string s)
{
    std::transform(
        s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
}

/// The first problem that keeps `text` from being a JSON object a person could have written: empty,
/// UTF-16, or binary (JSON has no raw control characters, in strings or out).
std::optional<Error> notJsonText(std::string_view text, const std::string& file)
{
    const std::string hint = " (a config.json is a JSON object such as {\"model_type\": \"llama\", ...})";
    if (text.find_first_not_of(" \t\r\n") == std::string_view::npos)
        return Error { file + ": the file is empty" + hint, "" };
    if (text.size() >= 2 && (text.substr(0, 2) == "\xFF\xFE" || text.substr(0, 2) == "\xFE\xFF"))
        return Error { file + ": the file is UTF-16 text; save it as UTF-8", "" };
    for (std::size_t i = 0; i < text.size(); ++i) {
        const auto c = static_cast<unsigned char>(text[i]);
        if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') {
            std::ostringstream byte;
            byte << "0x" << std::hex << (c < 0x10 ? "0" : "") << static_cast<int>(c);
            return Error { file + ": not a text file: byte " + std::to_string(i) + " is " + byte.str()
                    + ", a control character JSON does not allow" + hint,
                "" };
        }
    }
    return std::nullopt;
}

/// A value Python's json writes for non-finite floats (NaN, Infinity, -Infinity), which JSON does not
/// allow, and the key it is the value of.
std::optional<std::pair<std::string, std::string>> nonFiniteValue(std::string_view text)
{
    bool inString = false;
    std::size_t stringStart = 0;
    std::string lastString;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (inString) {
            if (c == '\\')
                ++i;
            else if (c == '"') {
                inString = false;
                lastString = std::string(text.substr(stringStart, i - stringStart));
            }
            continue;
        }
        if (c == '"') {
            inString = true;
            stringStart = i + 1;
            continue;
        }
        for (const std::string_view literal : { "NaN", "Infinity", "-Infinity" }) {
            if (text.substr(i, literal.size()) == literal)
                return std::pair { lastString, std::string(literal) };
        }
    }
    return std::nullopt;
}

/// parseJsonText's error, with what it most likely means for a config.json.
Error explainParseError(std::string_view text, const std::string& file, Error error)
{
    if (const auto bad = nonFiniteValue(text)) {
        const std::string key = bad->first.empty() ? "a value" : shortForMessage(bad->first);
        return Error { file + ": " + key + " is " + bad->second
                + ", which JSON does not allow (Python's json writes it for a non-finite float); give a "
                  "number",
            bad->first };
    }
    // Text that does not start like JSON (notes saved as config.json) is not a config with a typo.
    const auto first = text.find_first_not_of(" \t\r\n");
    if (first != std::string_view::npos && text[first] != '{' && text[first] != '['
        && !detail::notUtf8Text(text))
        return Error { file
                + ": read as a Hugging Face config (it is named config.json), but it is not JSON text (a "
                  "config.json starts with \"{\"). Headroom opens Headroom model files (.json), ONNX models "
                  "(.onnx) and Hugging Face configs (config.json)",
            "" };
    return error;
}

/// A top-level key given twice ({"model_type": "llama", "model_type": "gpt2"}): Python keeps the last
/// silently, which is rarely what was meant.
std::optional<std::string> duplicateKey(std::string_view text)
{
    std::set<std::string> seen;
    std::optional<std::string> duplicate;
    const json::parser_callback_t callback = [&](int depth, json::parse_event_t event, json& parsed) {
        if (event == json::parse_event_t::key && depth == 1 && !duplicate
            && !seen.insert(parsed.get<std::string>()).second)
            duplicate = parsed.get<std::string>();
        return true;
    };
    // Without exceptions: the text has parsed once already.
    return json::parse(text, callback, false).is_discarded() ? std::nullopt : duplicate;
}

/// The model's name: _name_or_path if given; else the file's name unless it is "config" ("gpt2.json");
/// else its folder's, as the Hub lays models out ("Llama-2-7b-hf/config.json"); else "model".
std::string modelName(const json& config, const std::filesystem::path& file)
{
    const auto path = config.find("_name_or_path");
    if (path != config.end() && path->is_string() && !path->get<std::string>().empty())
        return path->get<std::string>();
    const std::string stem = file.stem().string();
    if (!stem.empty() && lowercase(stem) != "config")
        return stem;
    const std::string folder = file.lexically_normal().parent_path().filename().string();
    return folder.empty() ? "model" : folder;
}

/// importHfConfig, naming the model after `file` (modelName).
std::string defaultLengthWarning(std::int64_t positions)
{
    return "sequence length: " + formatCount(kDefaultTrainingSequenceLength)
        + " tokens, the length Hugging Face's run_clm.py and TRL's SFTTrainer train at by default; the "
          "config "
          "allows up to "
        + formatCount(static_cast<std::uint64_t>(positions))
        + " (max_position_embeddings). Set the length you train at (Sequence length; --sequence-length).";
}

/// The network's input at the length one trains at (kDefaultTrainingSequenceLength) where the config's
/// context is longer, the config's kept as the longest; a warning says so.
void startAtTrainingLength(Network& n)
{
    if (n.input.shape.dims.size() != 1)
        return;
    const std::int64_t positions = n.input.shape.dims[0];
    n.input.maxSequenceLength = positions;
    if (positions <= kDefaultTrainingSequenceLength)
        return;
    n.input.shape.dims[0] = kDefaultTrainingSequenceLength;
    n.warnings.push_back(defaultLengthWarning(positions));
}

Result<Network> importText(
    std::string_view text, const std::string& nameForErrors, const std::filesystem::path& file)
{
    if (auto e = notJsonText(text, nameForErrors))
        return *e;
    auto parsed = detail::parseJsonText(text, nameForErrors);
    if (!parsed)
        return explainParseError(text, nameForErrors, parsed.error());
    const json& config = parsed.value();
    if (!config.is_object())
        return Error { nameForErrors + ": a Hugging Face config.json is a JSON object, not "
                + detail::jsonTypeName(config),
            "" };
    if (const auto key = duplicateKey(text))
        return Error { nameForErrors + ": " + shortForMessage(*key)
                + " is given more than once; give each key once",
            *key };
    const std::string supported = "; supported: " + hf::supportedModelTypes();
    const auto type = config.find("model_type");
    if (type == config.end())
        return Error { nameForErrors + ": model_type is missing (a string such as \"llama\")" + supported,
            "model_type" };
    if (!type->is_string())
        return Error { nameForErrors + ": model_type must be a string such as \"llama\", not "
                + detail::shortJson(*type) + supported,
            "model_type" };
    const std::string modelType = type->get<std::string>();

    const hf::Family* family = hf::findFamily(modelType);
    if (family == nullptr)
        return Error { nameForErrors + ": model_type " + quoteForMessage(modelType) + " is not supported"
                + supported,
            "model_type" };
    hf::ConfigReader reader { config, nameForErrors };
    std::optional<Network> network = family->build(reader, config, modelType);
    if (reader.error() || !network)
        return reader.error().value_or(Error { nameForErrors + ": cannot be imported", "" });

    Network n = std::move(*network);
    n.loss = Loss::CrossEntropy;
    n.name = modelName(config, file);
    n.description += ". Imported from a Hugging Face config.json (model_type " + modelType + ").";
    startAtTrainingLength(n);
    return n;
}

} // namespace

bool isHfConfigPath(const std::string& path)
{
    return lowercase(std::filesystem::path(path).filename().string()) == "config.json";
}

Result<Network> importHfConfig(std::string_view text, const std::string& path)
{
    return importText(text, path, path);
}

Result<Network> importHfConfigFile(const std::string& path)
{
    auto text = detail::readTextFile(path, kMaxConfigBytes);
    if (!text)
        return text.error();
    // Absolute, so that "config.json" in the current folder is named after that folder.
    std::error_code ec;
    const auto absolute = std::filesystem::absolute(path, ec);
    return importText(text.value(), path, ec ? std::filesystem::path(path) : absolute);
}

Result<Network> atTrainingLength(const Network& network, std::int64_t length)
{
    auto resized = withSequenceLength(network, length);
    if (!resized)
        return resized;
    Network n = std::move(resized).value();
    if (n.input.maxSequenceLength) {
        const std::string note = defaultLengthWarning(*n.input.maxSequenceLength);
        std::erase(n.warnings, note);
    }
    return n;
}

} // namespace headroom

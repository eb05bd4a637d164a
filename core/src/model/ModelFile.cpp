#include "headroom/model/ModelFile.h"

#include "headroom/model/SaveTarget.h"
#include "headroom/support/Format.h"
#include "support/JsonText.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <optional>
#include <random>
#include <sys/stat.h>
#include <unistd.h>
#include <utility>

namespace headroom {

namespace {

using detail::jsonTypeName;
using nlohmann::json;

constexpr std::string_view kFormatName = "headroom-model";
constexpr std::array<std::string_view, 8> kTopLevelKeys { "format", "version", "name", "description", "input",
    "loss", "warnings", "training" };
constexpr std::array<std::string_view, 8> kStructuralKeys { "type", "name", "inputs", "tied_to", "times",
    "layers", "frozen", "checkpoint" };
constexpr std::int64_t kMaxDimension = 1LL << 40;
/// PyTorch's CUDA kernels take tensors of at most 25 axes (aten/src/ATen/cuda/detail/OffsetCalculator.cuh,
/// MAX_DIMS): 24 per sample, with the batch axis.
constexpr std::size_t kMaxInputAxes = 24;
/// Identical iterations are analysed once and jumped in the step simulation (docs/model-format.md,
/// "Repeat"), so a block's cost does not grow with `times`; the expanded network is limited separately
/// (10^15 layers, Analysis).
constexpr std::int64_t kMaxRepeatTimes = 1'000'000'000;

Error at(const std::string& path, const std::string& what)
{
    return Error { path + " " + what, path };
}

bool validName(const std::string& name)
{
    return !name.empty() && name.size() <= 200 && std::all_of(name.begin(), name.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'
            || c == '.' || c == '-';
    });
}

Result<InputSpec> parseInput(const json& j)
{
    if (!j.is_object())
        return at("input", "must be an object with \"shape\" (and optionally \"dtype\")");
    for (const auto& [key, value] : j.items()) {
        if (key != "shape" && key != "dtype" && key != "max_sequence_length")
            return at("input." + detail::shortKey(key),
                "is not a known key (expected \"shape\", \"dtype\" and \"max_sequence_length\")");
    }
    InputSpec input;
    const auto shape = j.find("shape");
    if (shape == j.end() || !shape->is_array() || shape->empty())
        return at(
            "input.shape", "must be a list of positive integers: one sample's shape without the batch axis");
    if (shape->size() > kMaxInputAxes)
        return at("input.shape",
            "has " + std::to_string(shape->size()) + " axes; a sample has at most "
                + std::to_string(kMaxInputAxes)
                + " (PyTorch's tensors have at most 25, with the batch axis)");
    for (std::size_t i = 0; i < shape->size(); ++i) {
        const auto& d = (*shape)[i];
        if (!(d.is_number_integer() || d.is_number_unsigned()) || d.get<std::int64_t>() < 1
            || (d.is_number_unsigned() && d.get<std::uint64_t>() > static_cast<std::uint64_t>(kMaxDimension))
            || d.get<std::int64_t>() > kMaxDimension)
            return at("input.shape[" + std::to_string(i) + "]",
                "must be a positive integer up to 2^40, not " + detail::shortJson(d));
        input.shape.dims.push_back(d.get<std::int64_t>());
    }
    if (const auto dtype = j.find("dtype"); dtype != j.end()) {
        const auto parsed = dtype->is_string() ? parseDType(dtype->get<std::string>()) : std::nullopt;
        if (!parsed)
            return at("input.dtype",
                "must be one of \"float32\", \"float16\", \"bfloat16\", \"float64\", \"int64\", "
                "\"int32\", \"uint8\", \"bool\"");
        input.dtype = *parsed;
    }
    if (const auto longest = j.find("max_sequence_length"); longest != j.end()) {
        if (!(longest->is_number_integer() || longest->is_number_unsigned())
            || longest->get<std::int64_t>() < 1
            || (longest->is_number_unsigned()
                && longest->get<std::uint64_t>() > static_cast<std::uint64_t>(kMaxDimension))
            || longest->get<std::int64_t>() > kMaxDimension)
            return at("input.max_sequence_length",
                "must be a positive integer up to 2^40 (the longest sequence the model takes), not "
                    + detail::shortJson(*longest));
        input.maxSequenceLength = longest->get<std::int64_t>();
    }
    return input;
}

Result<LayerSpec> parseLayer(const json& j, const std::string& path, int depth);

Result<std::vector<LayerSpec>> parseLayers(const json& j, const std::string& path, int depth)
{
    if (!j.is_array())
        return at(path, "must be a list of layers, not " + jsonTypeName(j));
    std::vector<LayerSpec> layers;
    layers.reserve(j.size());
    for (std::size_t i = 0; i < j.size(); ++i) {
        auto layer = parseLayer(j[i], path + "[" + std::to_string(i) + "]", depth);
        if (!layer)
            return layer.error();
        layers.push_back(std::move(layer).value());
    }
    return layers;
}

/// The keys any layer may have (name, inputs, tied_to, frozen; checkpoint on a Repeat block) into `spec`.
std::optional<Error> parseLayerKeys(const json& j, const std::string& path, LayerSpec& spec)
{
    if (const auto name = j.find("name"); name != j.end()) {
        if (!name->is_string() || !validName(name->get<std::string>()))
            return at(path + ".name", "must be a name of letters, digits, '_', '.' or '-'");
        spec.name = name->get<std::string>();
        if (spec.name == "input" || spec.name == "repeat_input")
            return at(path + ".name", "\"" + spec.name + "\" is reserved for the network's input");
    }
    if (const auto inputs = j.find("inputs"); inputs != j.end()) {
        if (!inputs->is_array() || inputs->empty())
            return at(path + ".inputs", "must be a non-empty list of layer names");
        for (std::size_t i = 0; i < inputs->size(); ++i) {
            if (!(*inputs)[i].is_string())
                return at(path + ".inputs[" + std::to_string(i) + "]", "must be a layer name (a string)");
            spec.inputs.push_back((*inputs)[i].get<std::string>());
        }
    }
    if (const auto tied = j.find("tied_to"); tied != j.end()) {
        if (!tied->is_string() || tied->get<std::string>().empty())
            return at(path + ".tied_to", "must be the name of an earlier layer");
        spec.tiedTo = tied->get<std::string>();
    }
    if (const auto frozen = j.find("frozen"); frozen != j.end()) {
        if (!frozen->is_boolean())
            return at(path + ".frozen", "must be true or false (true: none of its parameters is trained)");
        spec.frozen = frozen->get<bool>();
    }
    if (const auto checkpoint = j.find("checkpoint"); checkpoint != j.end()) {
        if (!spec.isRepeat())
            return at(path + ".checkpoint",
                "only belongs to a Repeat block (each repetition is a checkpoint segment)");
        if (!checkpoint->is_boolean())
            return at(path + ".checkpoint", "must be true or false");
        spec.checkpoint = checkpoint->get<bool>();
    }
    return std::nullopt;
}

/// A Repeat block's times and layers (`spec` has its other keys); no keys but those.
Result<LayerSpec> parseRepeat(const json& j, const std::string& path, int depth, LayerSpec spec)
{
    if (depth >= 16)
        return at(path, "nests Repeat blocks more than 16 deep");
    const auto times = j.find("times");
    if (times == j.end() || !(times->is_number_integer() || times->is_number_unsigned())
        || (times->is_number_unsigned()
            && times->get<std::uint64_t>() > static_cast<std::uint64_t>(kMaxRepeatTimes))
        || times->get<std::int64_t>() < 1 || times->get<std::int64_t>() > kMaxRepeatTimes)
        return at(path + ".times", "must be an integer from 1 to 1,000,000,000");
    spec.times = times->get<std::int64_t>();
    const auto children = j.find("layers");
    if (children == j.end())
        return at(path + ".layers", "is required: the layers to repeat");
    auto parsed = parseLayers(*children, path + ".layers", depth + 1);
    if (!parsed)
        return parsed.error();
    if (parsed->empty())
        return at(path + ".layers", "must hold at least one layer");
    spec.children = std::move(parsed).value();
    for (const auto& [key, value] : j.items()) {
        if (std::find(kStructuralKeys.begin(), kStructuralKeys.end(), key) == kStructuralKeys.end())
            return at(path + "." + detail::shortKey(key),
                "is not a key of a Repeat block (it takes \"times\", \"layers\", "
                "\"frozen\" and \"checkpoint\")");
    }
    return spec;
}

Result<LayerSpec> parseLayer(const json& j, const std::string& path, int depth)
{
    if (!j.is_object())
        return at(path, "must be an object with a \"type\", not " + jsonTypeName(j));
    LayerSpec spec;
    const auto type = j.find("type");
    if (type == j.end() || !type->is_string() || type->get<std::string>().empty())
        return at(path + ".type", "must be a layer type name such as \"Conv2d\"");
    spec.type = type->get<std::string>();
    if (auto error = parseLayerKeys(j, path, spec))
        return std::move(*error);
    if (spec.isRepeat())
        return parseRepeat(j, path, depth, std::move(spec));
    for (const auto& [key, value] : j.items()) {
        if (key == "times" || key == "layers")
            return at(path + "." + detail::shortKey(key), "only belongs to a Repeat block");
        if (std::find(kStructuralKeys.begin(), kStructuralKeys.end(), key) == kStructuralKeys.end())
            spec.attributes[key] = value;
    }
    return spec;
}

Result<ModelDocument> parseDocument(const json& j)
{
    if (!j.is_object())
        return Error { "a model file must hold a JSON object, not " + jsonTypeName(j), "" };
    const auto format = j.find("format");
    if (format == j.end() || *format != std::string(kFormatName))
        return at("format", "must be \"headroom-model\" (this is not a Headroom model file)");
    const auto version = j.find("version");
    if (version == j.end() || !version->is_number_integer())
        return at("version", "must be the format version, 1");
    if (version->get<std::int64_t>() != kModelFormatVersion)
        return at("version",
            std::to_string(version->get<std::int64_t>()) + " is not supported; this Headroom reads version "
                + std::to_string(kModelFormatVersion));
    for (const auto& [key, value] : j.items()) {
        if (key != "layers"
            && std::find(kTopLevelKeys.begin(), kTopLevelKeys.end(), key) == kTopLevelKeys.end())
            return at(detail::shortKey(key), "is not a known top-level key");
    }
    Network net;
    if (const auto name = j.find("name"); name != j.end()) {
        if (!name->is_string())
            return at("name", "must be a string");
        net.name = name->get<std::string>();
    }
    if (const auto d = j.find("description"); d != j.end()) {
        if (!d->is_string())
            return at("description", "must be a string");
        net.description = d->get<std::string>();
    }
    const auto input = j.find("input");
    if (input == j.end())
        return at("input", "is required: {\"shape\": [C, H, W], \"dtype\": \"float32\"}");
    auto parsedInput = parseInput(*input);
    if (!parsedInput)
        return parsedInput.error();
    net.input = parsedInput.value();
    if (const auto loss = j.find("loss"); loss != j.end()) {
        const auto parsed = loss->is_string() ? parseLoss(loss->get<std::string>()) : std::nullopt;
        if (!parsed)
            return at("loss", "must be \"cross_entropy\", \"mse\", \"l1\", \"bce\" or \"none\"");
        net.loss = *parsed;
    }
    if (const auto warnings = j.find("warnings"); warnings != j.end()) {
        if (!warnings->is_array()
            || !std::all_of(warnings->begin(), warnings->end(), [](const json& w) { return w.is_string(); }))
            return at("warnings", "must be a list of strings");
        net.warnings = warnings->get<std::vector<std::string>>();
    }
    const auto layers = j.find("layers");
    if (layers == j.end())
        return at("layers", "is required: the list of layers");
    auto parsedLayers = parseLayers(*layers, "layers", 0);
    if (!parsedLayers)
        return parsedLayers.error();
    net.layers = std::move(parsedLayers).value();
    ModelDocument document { std::move(net), json() };
    if (const auto training = j.find("training"); training != j.end()) {
        // Its keys are read by parseTrainingSetup() (estimate/SetupFile.h), which knows the set-up.
        if (!training->is_object())
            return at("training",
                "must be an object: the training set-up saved with the model, not "
                    + jsonTypeName(*training));
        document.training = *training;
    }
    return document;
}

nlohmann::ordered_json layerToJson(const LayerSpec& spec)
{
    nlohmann::ordered_json j;
    j["type"] = spec.type;
    if (!spec.name.empty())
        j["name"] = spec.name;
    if (!spec.inputs.empty())
        j["inputs"] = spec.inputs;
    if (!spec.tiedTo.empty())
        j["tied_to"] = spec.tiedTo;
    if (spec.frozen)
        j["frozen"] = true;
    if (spec.isRepeat()) {
        j["times"] = spec.times;
        if (spec.checkpoint)
            j["checkpoint"] = true;
        auto children = nlohmann::ordered_json::array();
        for (const auto& c : spec.children)
            children.push_back(layerToJson(c));
        j["layers"] = children;
        return j;
    }
    for (const auto& [key, value] : spec.attributes.items())
        j[key] = value;
    return j;
}

} // namespace

Result<ModelDocument> parseModelDocument(std::string_view text)
{
    if (text.size() > kMaxModelFileBytes)
        return Error { "the model is larger than " + std::to_string(kMaxModelFileBytes) + " bytes", "" };
    auto j = detail::parseJsonText(text, "");
    if (!j)
        return j.error();
    return parseDocument(j.value());
}

Result<ModelDocument> loadModelDocument(const std::string& path)
{
    auto text = detail::readTextFile(path, kMaxModelFileBytes);
    if (!text)
        return text.error();
    auto j = detail::parseJsonText(text.value(), path);
    if (!j)
        return j.error();
    auto document = parseDocument(j.value());
    if (!document)
        return Error { path + ": " + document.error().message, document.error().location };
    return document;
}

Result<Network> parseModel(std::string_view text)
{
    auto document = parseModelDocument(text);
    if (!document)
        return document.error();
    return std::move(document).value().network;
}

Result<Network> loadModelFile(const std::string& path)
{
    auto document = loadModelDocument(path);
    if (!document)
        return document.error();
    return std::move(document).value().network;
}

std::string serializeModel(const Network& network, const nlohmann::ordered_json& training)
{
    nlohmann::ordered_json j;
    j["format"] = kFormatName;
    j["version"] = kModelFormatVersion;
    // Escaped so that dump() cannot throw on a name that is not UTF-8 (one taken from a file name).
    j["name"] = escapeInvalidUtf8(network.name);
    if (!network.description.empty())
        j["description"] = escapeInvalidUtf8(network.description);
    j["input"] = { { "shape", network.input.shape.dims }, { "dtype", dtypeName(network.input.dtype) } };
    if (network.input.maxSequenceLength)
        j["input"]["max_sequence_length"] = *network.input.maxSequenceLength;
    j["loss"] = lossName(network.loss);
    if (!network.warnings.empty())
        j["warnings"] = network.warnings;
    auto layers = nlohmann::ordered_json::array();
    for (const auto& l : network.layers)
        layers.push_back(layerToJson(l));
    j["layers"] = layers;
    if (!training.is_null())
        j["training"] = training;
    return j.dump(2) + "\n";
}

namespace {

/// A new file next to `target`, named into `temp` (O_EXCL: never someone else's file of the same name): its
/// descriptor, or -1 with errno set.
int createTemporary(
    const std::filesystem::path& folder, const std::filesystem::path& target, std::filesystem::path& temp)
{
    std::random_device random;
    int fd = -1;
    for (int attempt = 0; fd < 0 && attempt < 16; ++attempt) {
        temp = folder / (".~" + target.filename().string() + "." + std::to_string(random()) + ".tmp");
        fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd < 0 && errno != EEXIST)
            break;
    }
    return fd;
}

/// All of `text` into `fd` (a write interrupted by a signal is retried); false with errno set.
bool writeAll(int fd, const std::string& text)
{
    for (std::size_t written = 0; written < text.size();) {
        const auto n = ::write(fd, text.data() + written, text.size() - written);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        written += static_cast<std::size_t>(n);
    }
    return true;
}

} // namespace

Result<bool> saveModelFile(
    const Network& network, const std::string& path, const nlohmann::ordered_json& training)
{
    namespace fs = std::filesystem;
    const auto resolved = saveTarget(path);
    if (!resolved)
        return resolved.error();
    const fs::path target { resolved.value() };
    const fs::path folder = target.has_parent_path() ? target.parent_path() : fs::path(".");
    const std::string text = serializeModel(network, training);
    const auto failed = [&](const std::string& what) {
        return Error { path + ": " + what + " (" + std::strerror(errno) + ")", path };
    };

    // A temporary file next to the target, renamed over it once complete: a failure at any point leaves
    // the old file as it was.
    fs::path temp;
    const int fd = createTemporary(folder, target, temp);
    if (fd < 0)
        return failed("cannot write to the folder " + folder.string());
    const auto abandon = [&](const std::string& what) {
        const auto error = failed(what);
        ::close(fd);
        ::unlink(temp.c_str());
        return error;
    };
    // The replaced file's permissions and owner (a 600 file stays 600); a new file gets the umask's.
    struct stat existing
    {
    };
    if (::stat(target.c_str(), &existing) == 0) {
        if (::fchmod(fd, existing.st_mode & 07777) != 0)
            return abandon("cannot keep the file's permissions");
        (void)!::fchown(fd, existing.st_uid, existing.st_gid); // only root may give a file away
    }
    if (!writeAll(fd, text) || ::fsync(fd) != 0)
        return abandon("writing failed");
    if (::close(fd) != 0) {
        const auto error = failed("writing failed");
        ::unlink(temp.c_str());
        return error;
    }
    if (::rename(temp.c_str(), target.c_str()) != 0) {
        const auto error = failed("cannot replace the file");
        ::unlink(temp.c_str());
        return error;
    }
    // The rename is durable only once the folder is: before that a crash may bring back the old file.
    if (!syncFolder(folder.string()))
        return failed("the file is written but its folder could not be synced to disk");
    return true;
}

} // namespace headroom

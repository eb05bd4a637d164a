#pragma once

#include "headroom/model/Network.h"
#include "headroom/support/Error.h"

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace headroom {

/// The model-file format (docs/model-format.md): "format": "headroom-model", "version": 1.
constexpr int kModelFormatVersion = 1;
constexpr std::uint64_t kMaxModelFileBytes = 64ULL * 1024ULL * 1024ULL;

/// What a model file holds: the network, and the training set-up saved with it (the optional top-level
/// "training" object, docs/model-format.md "The saved set-up"), as written. The set-up is read by
/// parseTrainingSetup() (estimate/SetupFile.h), a later stage than the model's: here it is only checked
/// to be an object. Null when the file has none.
struct ModelDocument final
{
    Network network;
    nlohmann::json training;
};

/// Parses a model file's text, its "training" object kept as written (see ModelDocument).
[[nodiscard]] Result<ModelDocument> parseModelDocument(std::string_view text);
/// Reads and parses a file as parseModelDocument() does; errors name the file.
[[nodiscard]] Result<ModelDocument> loadModelDocument(const std::string& path);

/// Parses a model file's text. Syntax errors carry "line L, column C"; structural errors carry the
/// JSON path ("layers[3].inputs[0] ..."). Layer attributes are checked later, by analyze().
[[nodiscard]] Result<Network> parseModel(std::string_view text);
/// Reads and parses a file; errors name the file.
[[nodiscard]] Result<Network> loadModelFile(const std::string& path);
/// Serialises a network in the current format, pretty-printed, ending in a newline; a `training` object
/// (trainingSetupToJson()) is written last, a null one not at all.
[[nodiscard]] std::string serializeModel(
    const Network& network, const nlohmann::ordered_json& training = nlohmann::ordered_json());
/// Writes atomically (a temporary file renamed over the target, file and folder synced to disk before
/// it returns): a failure leaves the old file. A symbolic link is written through to its target, which
/// keeps its permissions; a read-only or non-regular target (a device, a FIFO) is refused (saveTarget).
[[nodiscard]] Result<bool> saveModelFile(const Network& network, const std::string& path,
    const nlohmann::ordered_json& training = nlohmann::ordered_json());

} // namespace headroom

#pragma once

// One builder per Hugging Face model_type family, over the shared blocks of HfBlocks.h, and the registry
// that maps each model_type to its builder (docs/hf-import.md lists them with their rules and sources).

#include "HfReader.h"
#include "headroom/model/Network.h"

#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace headroom::hf {

/// Builds the network `config` describes; nullopt once the reader has recorded an error. `modelType`
/// is the config's model_type (one builder serves related types: llama, mistral, qwen2, qwen3).
using FamilyBuilder
    = std::optional<Network> (*)(ConfigReader& r, const nlohmann::json& config, const std::string& modelType);

struct Family
{
    std::string_view modelType;
    FamilyBuilder build;
};

/// Every supported model_type with its builder, sorted by model_type.
[[nodiscard]] std::span<const Family> families();
/// The builder for `modelType`, or nullptr.
[[nodiscard]] const Family* findFamily(std::string_view modelType);
/// "bert, deepseek_v3, gemma, ...": for messages.
[[nodiscard]] std::string supportedModelTypes();

// The builders, one file each (HfGpt2.cpp, HfBert.cpp, ...).
std::optional<Network> buildGpt2(ConfigReader& r, const nlohmann::json& config, const std::string& modelType);
std::optional<Network> buildBert(ConfigReader& r, const nlohmann::json& config, const std::string& modelType);
std::optional<Network> buildLlama(
    ConfigReader& r, const nlohmann::json& config, const std::string& modelType);
std::optional<Network> buildGemma(
    ConfigReader& r, const nlohmann::json& config, const std::string& modelType);
std::optional<Network> buildPhi3(ConfigReader& r, const nlohmann::json& config, const std::string& modelType);
std::optional<Network> buildGptNeox(
    ConfigReader& r, const nlohmann::json& config, const std::string& modelType);
std::optional<Network> buildSparseMoe(
    ConfigReader& r, const nlohmann::json& config, const std::string& modelType);
std::optional<Network> buildDeepseekV3(
    ConfigReader& r, const nlohmann::json& config, const std::string& modelType);

} // namespace headroom::hf

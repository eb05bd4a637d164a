#pragma once

// Reading a Hugging Face config.json: typed values with messages that name the key (docs/hf-import.md,
// "Errors"), and the limits every model_type family shares.

#include "headroom/support/Error.h"

#include <cstdint>
#include <initializer_list>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace headroom::hf {

/// Every size a config gives becomes a layer attribute (out_features, num_embeddings, num_heads, ...),
/// and those take at most a 32-bit int (AttributeSpec::maxInt).
inline constexpr std::int64_t kMaxSize = std::numeric_limits<std::int32_t>::max();
/// Far beyond any published model (the deepest have about 128), and well within the 1,000,000 layers
/// the analysis expands a network to.
inline constexpr std::int64_t kMaxLayers = 10'000;
/// 2^50 (about 1.1e15) parameters, some 500 times the largest published models: with gradients and
/// optimizer state their bytes stay far from overflowing 64 bits.
inline constexpr double kMaxParameters = 1125899906842624.0;

/// A size read from the config and the key it came from, for messages.
struct Size
{
    std::int64_t value = 1;
    std::string key; ///< as the user finds it in the file ("text_config.hidden_size")
    bool given = false; ///< false: the default

    /// "hidden_size (4096)"
    [[nodiscard]] std::string said() const { return key + " (" + std::to_string(value) + ")"; }
};

/// Reads typed values from the config object (or from an object inside it, such as a multimodal
/// config's "text_config", whose keys are then named "text_config.<key>"); the first problem is kept as
/// the error. A key given as null is an error unless Hugging Face's code substitutes a default for None.
class ConfigReader final
{
public:
    ConfigReader(const nlohmann::json& config, std::string file);
    /// A reader of the object `object` found under `key` in this reader's config, whose keys are named
    /// "<key>.<name>" and whose errors are this reader's.
    [[nodiscard]] ConfigReader nested(const nlohmann::json& object, const std::string& key);

    [[nodiscard]] const std::optional<Error>& error() const noexcept
    {
        return m_parent != nullptr ? m_parent->error() : m_error;
    }
    [[nodiscard]] const std::string& file() const noexcept { return m_file; }
    /// The key as the user finds it: "text_config.hidden_size".
    [[nodiscard]] std::string named(const std::string& key) const { return m_prefix + key; }

    /// A whole number from 1 to `max` from the first of `keys` present (HF spells some keys two ways:
    /// n_embd / hidden_size). Absent: `fallback`, or an error when there is none. Null is an error too,
    /// unless `nullIsDefault` (transformers substitutes a default for None only for num_key_value_heads,
    /// head_dim and n_inner; elsewhere the model would not build).
    Size size(std::initializer_list<const char*> keys, std::optional<std::int64_t> fallback = std::nullopt,
        std::int64_t max = kMaxSize, bool nullIsDefault = false);
    /// A number from 0 to `max`; absent: `fallback`. `nullIsDefault`: null is `fallback` too.
    double number(const char* key, double fallback, double max, bool nullIsDefault = false);
    bool flag(const char* key, bool fallback);
    std::string text(const char* key, const std::string& fallback, bool nullIsDefault = false);
    /// A list of distinct whole numbers from 0 to `limit` - 1 (layer indices); absent or null: empty.
    std::vector<std::int64_t> indices(const char* key, std::int64_t limit);
    /// A whole number from 0 to `max` (a count that may be none: first_k_dense_replace); absent: `fallback`.
    std::int64_t count(const char* key, std::int64_t fallback, std::int64_t max);
    /// True when `key` is present and not null.
    [[nodiscard]] bool has(const char* key) const;
    /// True when `key` is present, even as null.
    [[nodiscard]] bool present(const char* key) const;

    /// Records `message` (after the file's name) as the error unless there is one; `location` is the key.
    void fail(const std::string& message, const std::string& location);

private:
    std::pair<std::string, const nlohmann::json*> find(std::initializer_list<const char*> keys) const;
    std::string spelled(std::initializer_list<const char*> keys) const;

    const nlohmann::json& m_config;
    std::string m_file;
    std::string m_prefix;
    ConfigReader* m_parent = nullptr;
    std::optional<Error> m_error;
};

} // namespace headroom::hf

#pragma once

// Parsing JSON text into nlohmann::json with errors a person can act on.

#include "headroom/Error.h"

#include <nlohmann/json.hpp>

#include <optional>

#include <string>
#include <string_view>

namespace headroom::detail {

constexpr int kMaxJsonDepth = 200;

/// Parses `text`; a syntax error says "line L, column C: ..." (prefixed by `what`, e.g. a file name).
[[nodiscard]] Result<nlohmann::json> parseJsonText(std::string_view text, const std::string& what);
/// Why `text` is not UTF-8 text JSON could be (UTF-16 or UTF-32, binary data, bytes that are not
/// UTF-8), or nothing. nlohmann would report these as "invalid literal" or "invalid BOM" and echo
/// the raw bytes.
[[nodiscard]] std::optional<std::string> notUtf8Text(std::string_view text);
/// Reads a whole file of at most `maxBytes`; errors name the file.
[[nodiscard]] Result<std::string> readTextFile(const std::string& path, std::uint64_t maxBytes);
/// "a string", "an array", ... for error messages.
[[nodiscard]] std::string jsonTypeName(const nlohmann::json& v);

} // namespace headroom::detail

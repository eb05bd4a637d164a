#pragma once

// Parsing JSON text into nlohmann::json with errors a person can act on.

#include "headroom/support/Error.h"

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>

namespace headroom::detail {

constexpr int kMaxJsonDepth = 200;

/// Parses `text`; a syntax error says "line L, column C: ..." (prefixed by `what`, e.g. a file name).
[[nodiscard]] Result<nlohmann::json> parseJsonText(std::string_view text, const std::string& what);
/// Why `path` cannot be opened, for a path that status() could not follow: "no such file", "is a loop of
/// symbolic links", "is a symbolic link to X, which does not exist", "permission denied" (prefixed by
/// the path). Also for the ONNX importer.
[[nodiscard]] Error unopenablePath(const std::string& path, std::error_code ec);
/// Why `text` is not UTF-8 text JSON could be (UTF-16 or UTF-32, binary data, bytes that are not
/// UTF-8), or nothing. nlohmann would report these as "invalid literal" or "invalid BOM" and echo
/// the raw bytes.
[[nodiscard]] std::optional<std::string> notUtf8Text(std::string_view text);
/// Reads a whole file of at most `maxBytes`; errors name the file.
[[nodiscard]] Result<std::string> readTextFile(const std::string& path, std::uint64_t maxBytes);
/// A value as a message shows it: its JSON text, cut to 64 characters with an ellipsis and the full
/// length when longer (a 100,000-digit number or a 1 MB string in a file would flood the message).
[[nodiscard]] std::string shortJson(const nlohmann::json& v);
/// A key (or a name in a path) as a message shows it: as is when short and printable, else quoted and
/// cut (Format.h's quoteForMessage).
[[nodiscard]] std::string shortKey(std::string_view key);
/// "a string", "an array", ... for error messages.
[[nodiscard]] std::string jsonTypeName(const nlohmann::json& v);

} // namespace headroom::detail

#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace headroom {

/// Binary units as a person reads them, three significant decimals where it matters:
/// "512 B", "1.50 KiB", "7.12 GiB". Every view (CLI, GUI, report) formats through this.
[[nodiscard]] std::string formatBytes(std::uint64_t bytes);
/// A signed byte difference: "+1.20 GiB" / "-340 MiB".
[[nodiscard]] std::string formatSignedBytes(double bytes);
/// Thousands separated with commas: "138,357,544".
[[nodiscard]] std::string formatCount(std::uint64_t n);

/// `text` with every byte that is not part of valid UTF-8 written as "\xff": safe to put in JSON and
/// on a terminal. Valid text comes back unchanged.
[[nodiscard]] std::string escapeInvalidUtf8(std::string_view text);
/// A name from a file or the command line as a message quotes it: in double quotes, bytes that are not
/// UTF-8 and control characters escaped, and cut to `maxCharacters` with an ellipsis and the full
/// length ("\"aaaa…\" (100000 characters)"), so a huge name cannot flood a message.
[[nodiscard]] std::string quoteForMessage(std::string_view text, std::size_t maxCharacters = 64);
/// A path or key as a message shows it: as it is when it is at most `maxCharacters` bytes of valid UTF-8
/// without control characters, else quoteForMessage(text, maxCharacters) (a 4,200-character path becomes
/// "\"/tmp/aaaa…\" (4,200 characters)").
[[nodiscard]] std::string shortForMessage(std::string_view text, std::size_t maxCharacters = 64);

/// Edits (insertions, deletions, substitutions) that turn `a` into `b` (Levenshtein), ignoring ASCII case
/// if asked: for "did you mean" suggestions. O(|a| |b|): callers cut long input first.
[[nodiscard]] std::size_t editDistance(std::string_view a, std::string_view b, bool ignoreCase = false);

} // namespace headroom

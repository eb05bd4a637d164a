#pragma once

#include <cstdint>
#include <string>

namespace headroom {

/// Binary units as a person reads them, three significant decimals where it matters:
/// "512 B", "1.50 KiB", "7.12 GiB". Every view (CLI, GUI, report) formats through this.
[[nodiscard]] std::string formatBytes(std::uint64_t bytes);
/// A signed byte difference: "+1.20 GiB" / "-340 MiB".
[[nodiscard]] std::string formatSignedBytes(double bytes);
/// Thousands separated with commas: "138,357,544".
[[nodiscard]] std::string formatCount(std::uint64_t n);

} // namespace headroom

#include "headroom/Format.h"

#include <array>
#include <cmath>
#include <cstdio>

namespace headroom {

namespace {
std::string scaled(double value)
{
    const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    std::size_t unit = 0;
    while (std::fabs(value) >= 1024.0 && unit + 1 < std::size(units)) {
        value /= 1024.0;
        ++unit;
    }
    std::array<char, 48> buffer{};
    if (unit == 0)
        std::snprintf(buffer.data(), buffer.size(), "%.0f %s", value, units[unit]);
    else
        std::snprintf(buffer.data(), buffer.size(), std::fabs(value) >= 100 ? "%.0f %s" : "%.2f %s", value, units[unit]);
    return buffer.data();
}
} // namespace

std::string formatBytes(std::uint64_t bytes) { return scaled(static_cast<double>(bytes)); }

std::string formatSignedBytes(double bytes)
{
    std::string text(1, bytes >= 0 ? '+' : '-');
    text += scaled(std::fabs(bytes));
    return text;
}

std::string formatCount(std::uint64_t n)
{
    std::string digits = std::to_string(n);
    std::string out;
    for (std::size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0)
            out += ',';
        out += digits[i];
    }
    return out;
}

} // namespace headroom

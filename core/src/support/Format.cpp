#include "headroom/support/Format.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <vector>

namespace headroom {

namespace {
std::string scaled(double value)
{
    const char* units[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
    std::size_t unit = 0;
    while (std::fabs(value) >= 1024.0 && unit + 1 < std::size(units)) {
        value /= 1024.0;
        ++unit;
    }
    std::array<char, 48> buffer {};
    if (unit == 0)
        std::snprintf(buffer.data(), buffer.size(), "%.0f %s", value, units[unit]);
    else
        std::snprintf(buffer.data(), buffer.size(), std::fabs(value) >= 100 ? "%.0f %s" : "%.2f %s", value,
            units[unit]);
    return buffer.data();
}
} // namespace

std::string formatBytes(std::uint64_t bytes)
{
    return scaled(static_cast<double>(bytes));
}

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

namespace {

/// The length of the valid UTF-8 sequence starting at `i` (1 to 4), or 0 (RFC 3629: no overlong
/// forms, no surrogates, nothing above U+10FFFF).
std::size_t utf8SequenceLength(std::string_view s, std::size_t i)
{
    const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
    const unsigned char c = byte(i);
    if (c < 0x80)
        return 1;
    std::size_t length = 0;
    unsigned char low = 0x80;
    unsigned char high = 0xBF;
    if (c >= 0xC2 && c <= 0xDF) {
        length = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
        length = 3;
        if (c == 0xE0)
            low = 0xA0;
        else if (c == 0xED)
            high = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
        length = 4;
        if (c == 0xF0)
            low = 0x90;
        else if (c == 0xF4)
            high = 0x8F;
    } else {
        return 0;
    }
    if (i + length > s.size())
        return 0;
    if (byte(i + 1) < low || byte(i + 1) > high)
        return 0;
    for (std::size_t k = 2; k < length; ++k) {
        if (byte(i + k) < 0x80 || byte(i + k) > 0xBF)
            return 0;
    }
    return length;
}

std::string escapedByte(unsigned char c)
{
    static constexpr char kDigits[] = "0123456789abcdef";
    return std::string { '\\', 'x', kDigits[c >> 4], kDigits[c & 0xF] };
}

} // namespace

std::string escapeInvalidUtf8(std::string_view text)
{
    std::string out;
    out.reserve(text.size());
    for (std::size_t i = 0; i < text.size();) {
        const std::size_t n = utf8SequenceLength(text, i);
        if (n == 0) {
            out += escapedByte(static_cast<unsigned char>(text[i]));
            ++i;
        } else {
            out.append(text.substr(i, n));
            i += n;
        }
    }
    return out;
}

std::string quoteForMessage(std::string_view text, std::size_t maxCharacters)
{
    std::string out = "\"";
    std::size_t characters = 0;
    std::size_t i = 0;
    for (; i < text.size() && characters < maxCharacters; ++characters) {
        const std::size_t n = utf8SequenceLength(text, i);
        const auto c = static_cast<unsigned char>(text[i]);
        if (n == 0 || c < 0x20 || c == 0x7F) {
            out += escapedByte(c);
            ++i;
        } else {
            out.append(text.substr(i, n));
            i += n;
        }
    }
    out += '"';
    if (i < text.size()) {
        // Count what was left out, in characters (a byte that is not UTF-8 counts as one).
        std::size_t total = characters;
        for (std::size_t k = i; k < text.size(); ++total)
            k += std::max<std::size_t>(utf8SequenceLength(text, k), 1);
        out.insert(out.size() - 1, "\xE2\x80\xA6"); // U+2026 HORIZONTAL ELLIPSIS
        out += " (" + formatCount(total) + " characters)";
    }
    return out;
}

std::string shortForMessage(std::string_view text, std::size_t maxCharacters)
{
    const bool plain = text.size() <= maxCharacters && escapeInvalidUtf8(text) == text
        && std::none_of(text.begin(), text.end(), [](char c) {
               const auto u = static_cast<unsigned char>(c);
               return u < 0x20 || u == 0x7F;
           });
    return plain ? std::string(text) : quoteForMessage(text, maxCharacters);
}

std::size_t editDistance(std::string_view a, std::string_view b, bool ignoreCase)
{
    const auto same = [&](char x, char y) {
        return ignoreCase
            ? std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y))
            : x == y;
    };
    std::vector<std::size_t> row(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j)
        row[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        std::size_t diagonal = row[0];
        row[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const std::size_t above = row[j];
            row[j] = std::min({ row[j] + 1, row[j - 1] + 1, diagonal + (same(a[i - 1], b[j - 1]) ? 0 : 1) });
            diagonal = above;
        }
    }
    return row[b.size()];
}

} // namespace headroom

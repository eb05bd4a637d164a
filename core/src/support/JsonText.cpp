#include "support/JsonText.h"

#include "headroom/support/Format.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <vector>

namespace headroom::detail {

namespace {

std::string position(std::string_view text, std::size_t byte)
{
    byte = std::min(byte, text.size());
    std::size_t line = 1;
    std::size_t column = 1;
    for (std::size_t i = 0; i < byte; ++i) {
        if (text[i] == '\n') {
            ++line;
            column = 1;
        } else {
            ++column;
        }
    }
    return "line " + std::to_string(line) + ", column " + std::to_string(column);
}

/// Rejects nesting deeper than kMaxJsonDepth before parsing, so no input can exhaust the stack.
std::optional<std::size_t> tooDeep(std::string_view text)
{
    int depth = 0;
    bool inString = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (inString) {
            if (c == '\\')
                ++i;
            else if (c == '"')
                inString = false;
        } else if (c == '"') {
            inString = true;
        } else if (c == '[' || c == '{') {
            if (++depth > kMaxJsonDepth)
                return i;
        } else if (c == ']' || c == '}') {
            --depth;
        }
    }
    return std::nullopt;
}

/// nlohmann's message without its "[json.exception.parse_error.101] parse error at line 1, column 2: "
/// prefix.
std::string reason(const std::string& what)
{
    const auto colon = what.find(": ");
    return colon == std::string::npos ? what : what.substr(colon + 2);
}

std::string hexLiteral(unsigned char c)
{
    static constexpr char kDigits[] = "0123456789ABCDEF";
    return std::string { '0', 'x', kDigits[c >> 4], kDigits[c & 0xF] };
}

} // namespace

std::optional<std::string> notUtf8Text(std::string_view text)
{
    const auto startsWith = [&](std::string_view prefix) { return text.substr(0, prefix.size()) == prefix; };
    using namespace std::string_view_literals;
    if (startsWith("\xFF\xFE\0\0"sv) || startsWith("\0\0\xFE\xFF"sv)
        || (text.size() >= 4 && text[0] == '\0' && text[1] == '\0' && text[2] == '\0' && text[3] != '\0')
        || (text.size() >= 4 && text[0] != '\0' && text[1] == '\0' && text[2] == '\0' && text[3] == '\0'))
        return "the file is UTF-32 text; save it as UTF-8";
    // JSON starts with an ASCII character, so UTF-16 without a byte-order mark has a zero byte
    // before or after it.
    if (startsWith("\xFF\xFE"sv) || startsWith("\xFE\xFF"sv)
        || (text.size() >= 2 && (text[0] == '\0') != (text[1] == '\0')))
        return "the file is UTF-16 text; save it as UTF-8";
    const auto control = std::find_if(text.begin(), text.end(), [](char ch) {
        const auto c = static_cast<unsigned char>(ch);
        return c < 0x20 && c != '\t' && c != '\n' && c != '\r';
    });
    // escapeInvalidUtf8 copies valid text unchanged, so the first difference is the first bad byte.
    const std::string escaped = escapeInvalidUtf8(text);
    const auto invalid = std::mismatch(text.begin(), text.end(), escaped.begin(), escaped.end()).first;
    if (control < invalid) {
        const auto at = static_cast<std::size_t>(control - text.begin());
        return position(text, at) + ": not a text file: byte " + std::to_string(at) + " is "
            + hexLiteral(static_cast<unsigned char>(*control)) + ", a control character JSON does not allow";
    }
    if (invalid != text.end()) {
        const auto at = static_cast<std::size_t>(invalid - text.begin());
        return position(text, at) + ": not UTF-8 text: byte " + std::to_string(at) + " is "
            + hexLiteral(static_cast<unsigned char>(*invalid))
            + ", which is not valid UTF-8 (JSON files are UTF-8)";
    }
    return std::nullopt;
}

namespace {

/// Byte offset of the `ordinal`-th object key (0-based, in document order) of valid JSON text: a key
/// is a string followed by a colon.
std::size_t keyOffset(std::string_view text, std::size_t ordinal)
{
    std::size_t seen = 0;
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] != '"')
            continue;
        const std::size_t start = i;
        for (++i; i < text.size() && text[i] != '"'; ++i) {
            if (text[i] == '\\')
                ++i;
        }
        const std::size_t next = std::min(text.find_first_not_of(" \t\n\r", i + 1), text.size());
        if (next < text.size() && text[next] == ':' && seen++ == ordinal)
            return start;
    }
    return 0;
}

/// A SAX pass that finds the first key given twice in one object and names it by its path
/// ("layers[2].padding"). A separate pass rather than a parse callback: nlohmann's callback parser
/// scans the enclosing container after every value it closes, quadratic in a long `layers` array.
struct DuplicateFinder
{
    struct Frame
    {
        bool object = false;
        std::set<std::string> keys;
        std::string key; ///< objects: the key being read
        std::size_t index = 0; ///< arrays: the element being read
    };
    std::vector<Frame> stack;
    std::size_t keysSeen = 0;
    std::optional<std::size_t> duplicateOrdinal;
    std::string duplicatePath;

    std::string path() const
    {
        std::string p;
        for (const auto& f : stack) {
            if (f.object)
                p += (p.empty() ? "" : ".") + f.key;
            else
                p += "[" + std::to_string(f.index) + "]";
        }
        return p;
    }

    bool value()
    {
        if (!stack.empty() && !stack.back().object)
            ++stack.back().index;
        return true;
    }
    bool open(bool object)
    {
        stack.push_back(Frame { object, {}, {}, 0 });
        return true;
    }
    bool close()
    {
        if (!stack.empty())
            stack.pop_back();
        return value();
    }

    bool null() { return value(); }
    bool boolean(bool) { return value(); }
    bool number_integer(nlohmann::json::number_integer_t) { return value(); }
    bool number_unsigned(nlohmann::json::number_unsigned_t) { return value(); }
    bool number_float(nlohmann::json::number_float_t, const std::string&) { return value(); }
    bool string(std::string&) { return value(); }
    bool binary(nlohmann::json::binary_t&) { return value(); }
    bool start_object(std::size_t) { return open(true); }
    bool start_array(std::size_t) { return open(false); }
    bool end_object() { return close(); }
    bool end_array() { return close(); }
    bool key(std::string& name)
    {
        if (!stack.empty()) {
            auto& f = stack.back();
            f.key = name;
            if (!f.keys.insert(f.key).second && !duplicateOrdinal) {
                duplicateOrdinal = keysSeen;
                duplicatePath = path();
            }
        }
        ++keysSeen;
        return !duplicateOrdinal; // the first duplicate is all the error needs
    }
    bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) { return false; }
};

/// A SAX handler that accepts everything and records where parsing fails.
struct ErrorPosition
{
    std::optional<std::size_t> byte;

    bool null() { return true; }
    bool boolean(bool) { return true; }
    bool number_integer(nlohmann::json::number_integer_t) { return true; }
    bool number_unsigned(nlohmann::json::number_unsigned_t) { return true; }
    bool number_float(nlohmann::json::number_float_t, const std::string&) { return true; }
    bool string(std::string&) { return true; }
    bool binary(nlohmann::json::binary_t&) { return true; }
    bool start_object(std::size_t) { return true; }
    bool start_array(std::size_t) { return true; }
    bool end_object() { return true; }
    bool end_array() { return true; }
    bool key(std::string&) { return true; }
    /// `at` is just past the token (the lexer has read one character more): the token starts earlier.
    bool parse_error(std::size_t at, const std::string& token, const nlohmann::detail::exception&)
    {
        byte = at >= token.size() ? at - token.size() : at;
        return false;
    }
};

/// nlohmann's messages quote the token they stopped at ("last read: '...'", "number overflow parsing
/// '...'"), which may be a whole 1 MB string or a 100,000-digit number: cut to 40 characters.
std::string shortQuotedToken(const std::string& why)
{
    constexpr std::size_t kShown = 40;
    const auto open = why.find('\'');
    const auto close = why.rfind('\'');
    if (open == std::string::npos || close <= open + kShown + 1)
        return why;
    std::size_t cut = open + 1 + kShown;
    while (cut > open + 1 && (static_cast<unsigned char>(why[cut]) & 0xC0u) == 0x80u)
        --cut;
    return why.substr(0, cut) + "\xE2\x80\xA6' (" + formatCount(close - open - 1) + " characters)"
        + why.substr(close + 1);
}

} // namespace

Result<nlohmann::json> parseJsonText(std::string_view text, const std::string& what)
{
    const std::string prefix = what.empty() ? std::string() : what + ": ";
    if (const auto why = notUtf8Text(text))
        return Error { prefix + *why, "" };
    if (const auto at = tooDeep(text)) {
        const std::string where = position(text, *at);
        return Error {
            prefix + where + ": nesting is deeper than " + std::to_string(kMaxJsonDepth) + " levels", where
        };
    }
    try {
        auto parsed = nlohmann::json::parse(text);
        DuplicateFinder finder;
        nlohmann::json::sax_parse(text, &finder);
        if (finder.duplicateOrdinal) {
            const std::string where = position(text, keyOffset(text, *finder.duplicateOrdinal));
            return Error { prefix + shortForMessage(finder.duplicatePath)
                    + " is given more than once; give each key once (the second is at " + where + ")",
                finder.duplicatePath };
        }
        return parsed;
    } catch (const nlohmann::json::parse_error& e) {
        const std::size_t byte = e.byte > 0 ? e.byte - 1 : 0;
        const std::string where = position(text, byte);
        std::string why = text.find_first_not_of(" \t\r\n") == std::string_view::npos
            ? "the file is empty"
            : shortQuotedToken(reason(e.what()));
        // What nlohmann calls running out of text is, in a file, most often a file cut short.
        if (why.find("unexpected end of input") != std::string::npos)
            why += " (the file ends before the JSON does: is it cut short?)";
        return Error { prefix + where + ": " + why, where };
    } catch (const nlohmann::json::exception& e) { // e.g. a number too large for a double (1e400)
        const std::string message = e.what();
        const auto bracket = message.find("] ");
        const std::string why
            = shortQuotedToken(bracket == std::string::npos ? message : message.substr(bracket + 2));
        // The DOM parser's exception has no position; a SAX pass over the same text reports it.
        ErrorPosition finder;
        (void)nlohmann::json::sax_parse(text, &finder);
        const std::string where = finder.byte ? position(text, *finder.byte) : std::string();
        return Error { prefix + (where.empty() ? "" : where + ": ") + why, where };
    }
}

Error unopenablePath(const std::string& path, std::error_code ec)
{
    namespace fs = std::filesystem;
    std::string why = "no such file";
    std::error_code linkError;
    if (ec == std::errc::too_many_symbolic_link_levels)
        why = "is a loop of symbolic links (following them never reaches a file)";
    else if (ec == std::errc::permission_denied)
        why = "cannot be reached: permission denied";
    else if (ec == std::errc::not_a_directory)
        why = "cannot be reached: a part of the path is a file, not a folder";
    else if (ec == std::errc::filename_too_long)
        why = "the path is too long";
    else if (fs::is_symlink(fs::symlink_status(path, linkError)))
        why = "is a symbolic link to " + fs::read_symlink(path, linkError).string()
            + ", which does not exist";
    return Error { path + ": " + why, path };
}

Result<std::string> readTextFile(const std::string& path, std::uint64_t maxBytes)
{
    std::error_code ec;
    const auto status = std::filesystem::status(path, ec);
    if (ec || !std::filesystem::exists(status))
        return unopenablePath(path, ec);
    if (std::filesystem::is_directory(status))
        return Error { path + ": is a folder, not a file", path };
    const std::string limit = formatBytes(maxBytes) + " (" + formatCount(maxBytes) + " bytes)";
    if (std::filesystem::is_regular_file(status)) {
        const auto size = std::filesystem::file_size(path, ec);
        if (!ec && size > maxBytes)
            return Error {
                path + ": the file is " + formatBytes(size) + ", more than the " + limit + " allowed", path
            };
    }
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return Error { path + ": cannot be read (" + std::strerror(errno) + ")", path };
    // Read in pieces and stop past the limit whatever the file is: a device (/dev/zero) or a pipe has
    // no size to check first, and a regular file may grow while it is read.
    std::string text;
    std::array<char, 1 << 16> buffer {};
    while (in) {
        in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
        text.append(buffer.data(), static_cast<std::size_t>(in.gcount()));
        if (text.size() > maxBytes)
            return Error { path + ": holds more than the " + limit + " allowed", path };
    }
    if (in.bad())
        return Error { path + ": reading failed", path };
    return text;
}

std::string shortJson(const nlohmann::json& v)
{
    constexpr std::size_t kShown = 64;
    // Strings from a parsed file are valid UTF-8; replace keeps dump() from throwing on any other.
    const std::string text = v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    if (text.size() <= kShown)
        return text;
    std::size_t cut = kShown;
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0u) == 0x80u)
        --cut; // not inside a UTF-8 sequence
    const auto characters = static_cast<std::uint64_t>(std::count_if(
        text.begin(), text.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0u) != 0x80u; }));
    return text.substr(0, cut) + "\xE2\x80\xA6 (" + formatCount(characters) + " characters)";
}

std::string shortKey(std::string_view key)
{
    const bool plain = key.size() <= 64 && !key.empty()
        && std::all_of(key.begin(), key.end(), [](char c) { return c > 0x20 && c < 0x7F && c != '"'; });
    return plain ? std::string(key) : quoteForMessage(key);
}

std::string jsonTypeName(const nlohmann::json& v)
{
    switch (v.type()) {
    case nlohmann::json::value_t::null:
        return "null";
    case nlohmann::json::value_t::object:
        return "an object";
    case nlohmann::json::value_t::array:
        return "an array";
    case nlohmann::json::value_t::string:
        return "a string";
    case nlohmann::json::value_t::boolean:
        return "a boolean";
    case nlohmann::json::value_t::number_integer:
    case nlohmann::json::value_t::number_unsigned:
        return "an integer";
    case nlohmann::json::value_t::number_float:
        return "a number";
    default:
        return "a value";
    }
}

} // namespace headroom::detail

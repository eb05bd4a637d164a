#include "JsonText.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

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

/// nlohmann's message without its "[json.exception.parse_error.101] parse error at line 1, column 2: " prefix.
std::string reason(const std::string& what)
{
    const auto colon = what.find(": ");
    return colon == std::string::npos ? what : what.substr(colon + 2);
}

} // namespace

Result<nlohmann::json> parseJsonText(std::string_view text, const std::string& what)
{
    const std::string prefix = what.empty() ? std::string() : what + ": ";
    if (const auto at = tooDeep(text)) {
        const std::string where = position(text, *at);
        return Error{prefix + where + ": nesting is deeper than " + std::to_string(kMaxJsonDepth) + " levels", where};
    }
    try {
        return nlohmann::json::parse(text);
    } catch (const nlohmann::json::parse_error& e) {
        const std::size_t byte = e.byte > 0 ? e.byte - 1 : 0;
        const std::string where = position(text, byte);
        const std::string why = text.empty() ? "the file is empty" : reason(e.what());
        return Error{prefix + where + ": " + why, where};
    } catch (const nlohmann::json::exception& e) { // e.g. a number too large for a double (1e400)
        const std::string what = e.what();
        const auto bracket = what.find("] ");
        return Error{prefix + (bracket == std::string::npos ? what : what.substr(bracket + 2)), ""};
    }
}

Result<std::string> readTextFile(const std::string& path, std::uint64_t maxBytes)
{
    std::error_code ec;
    const auto status = std::filesystem::status(path, ec);
    if (ec || !std::filesystem::exists(status))
        return Error{path + ": no such file", path};
    if (std::filesystem::is_directory(status))
        return Error{path + ": is a folder, not a file", path};
    const auto size = std::filesystem::file_size(path, ec);
    if (!ec && size > maxBytes)
        return Error{path + ": the file is " + std::to_string(size) + " bytes, more than the "
                         + std::to_string(maxBytes) + " allowed",
                     path};
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return Error{path + ": cannot be read (" + std::strerror(errno) + ")", path};
    std::ostringstream buffer;
    buffer << in.rdbuf();
    if (in.bad())
        return Error{path + ": reading failed", path};
    return buffer.str();
}

std::string jsonTypeName(const nlohmann::json& v)
{
    switch (v.type()) {
    case nlohmann::json::value_t::null: return "null";
    case nlohmann::json::value_t::object: return "an object";
    case nlohmann::json::value_t::array: return "an array";
    case nlohmann::json::value_t::string: return "a string";
    case nlohmann::json::value_t::boolean: return "a boolean";
    case nlohmann::json::value_t::number_integer:
    case nlohmann::json::value_t::number_unsigned: return "an integer";
    case nlohmann::json::value_t::number_float: return "a number";
    default: return "a value";
    }
}

} // namespace headroom::detail

// readPlainJson: JSON text into a PlainDocument through nlohmann::json's SAX interface, with no JSON DOM
// in between: each value becomes a node as the parser meets it, and each open object or array collects
// its items in a buffer per depth until it closes.
#include "headroom/measured/PlainData.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace headroom {

namespace {

class PlainJsonBuilder final
{
public:
    using json = nlohmann::json;

    explicit PlainJsonBuilder(const PlainLimits& limits)
        : m_limits { limits }
    {
    }

    // ---- nlohmann's SAX interface -------------------------------------------------------------------
    bool null() { return room() && add(m_doc.addNone()); }
    bool boolean(bool v) { return room() && add(m_doc.addBool(v)); }
    bool number_integer(json::number_integer_t v) { return room() && add(m_doc.addInt(v)); }
    bool number_unsigned(json::number_unsigned_t v)
    {
        if (v > static_cast<json::number_unsigned_t>(std::numeric_limits<std::int64_t>::max())) {
            return refuse("the int " + std::to_string(v) + " is beyond the signed 64-bit range");
        }
        return room() && add(m_doc.addInt(static_cast<std::int64_t>(v)));
    }
    bool number_float(json::number_float_t v, const json::string_t& /*text*/)
    {
        return room() && add(m_doc.addFloat(v));
    }
    bool string(json::string_t& v) { return text(v) && add(m_doc.addString(v)); }
    bool binary(json::binary_t& /*v*/) { return refuse("binary values are not JSON"); }
    bool start_object(std::size_t /*size*/) { return open(PlainKind::Dict); }
    bool key(json::string_t& v)
    {
        if (!text(v)) {
            return false;
        }
        // Keys repeat in every trace entry: one node each.
        auto [it, inserted] = m_keys.try_emplace(v, 0U);
        if (inserted) {
            it->second = m_doc.addString(v);
        }
        if (!add(it->second)) {
            return false;
        }
        m_open.back().lastKey = it->second;
        return true;
    }
    bool end_object() { return close(); }
    bool start_array(std::size_t /*size*/) { return open(PlainKind::List); }
    bool end_array() { return close(); }
    bool parse_error(
        std::size_t position, const std::string& /*token*/, const nlohmann::detail::exception& ex)
    {
        m_parseErrorAt = position;
        m_parseError = ex.what();
        return false;
    }

    PlainDocument& document() noexcept { return m_doc; }
    std::optional<std::size_t> parseErrorAt() const noexcept { return m_parseErrorAt; }
    const std::string& parseError() const noexcept { return m_parseError; }
    const std::string& refusal() const noexcept { return m_refusal; }
    std::uint32_t root() const noexcept { return m_root; }

private:
    struct Open
    {
        PlainKind kind;
        std::uint32_t lastKey; ///< a Dict's latest key (for the path in an error)
    };

    const PlainLimits& m_limits;
    PlainDocument m_doc;
    std::vector<Open> m_open;
    std::vector<std::vector<std::uint32_t>> m_items; ///< the open containers' items, one buffer per depth
    std::uint32_t m_root = 0;
    std::optional<std::size_t> m_parseErrorAt;
    std::string m_parseError;
    std::string m_refusal;
    std::unordered_map<std::string, std::uint32_t> m_keys;

    /// Where the parser is, as a path ("device_traces[0][1234].frames").
    std::string path() const
    {
        std::string out;
        for (std::size_t depth = 0; depth < m_open.size(); ++depth) {
            const auto& items = m_items[depth];
            if (m_open[depth].kind == PlainKind::Dict) {
                if (!items.empty()) {
                    const PlainValue key { &m_doc, m_open[depth].lastKey };
                    out += out.empty() ? "" : ".";
                    for (const char c : key.asString().substr(0, 80)) {
                        out += (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) ? '?' : c; // one line
                    }
                }
            } else {
                out += "[" + std::to_string(items.size()) + "]"; // the item being read
            }
        }
        return out.empty() ? std::string("the top level") : out;
    }
    bool refuse(const std::string& what)
    {
        m_refusal = path() + ": " + what;
        return false;
    }
    bool room()
    {
        if (m_doc.nodes().size() >= m_limits.maxNodes
            || m_doc.nodes().size() >= std::numeric_limits<std::uint32_t>::max()) {
            return refuse("more than " + std::to_string(m_limits.maxNodes) + " values, beyond the limit");
        }
        return true;
    }
    bool text(const json::string_t& v)
    {
        if (v.size() > m_limits.maxStringBytes || v.size() >= std::numeric_limits<std::uint32_t>::max()) {
            return refuse("a string of " + std::to_string(v.size()) + " bytes, beyond the limit of "
                + std::to_string(m_limits.maxStringBytes));
        }
        return room();
    }
    bool add(std::uint32_t node)
    {
        if (m_open.empty()) {
            m_root = node;
            return true;
        }
        auto& items = m_items[m_open.size() - 1];
        const auto count = m_open.back().kind == PlainKind::Dict ? (items.size() + 1) / 2 : items.size() + 1;
        if (count > m_limits.maxContainerItems) {
            return refuse(
                "more than " + std::to_string(m_limits.maxContainerItems) + " items, beyond the limit");
        }
        items.push_back(node);
        return true;
    }
    bool open(PlainKind kind)
    {
        if (m_open.size() + 1 > m_limits.maxDepth) {
            return refuse("containers nested deeper than " + std::to_string(m_limits.maxDepth));
        }
        if (!room()) {
            return false;
        }
        m_open.push_back({ kind, 0 });
        if (m_items.size() < m_open.size()) {
            m_items.emplace_back();
        }
        m_items[m_open.size() - 1].clear();
        return true;
    }
    bool close()
    {
        auto& items = m_items[m_open.size() - 1];
        const auto node = m_doc.addContainer(m_open.back().kind, items);
        m_open.pop_back();
        return add(node);
    }
};

/// Line and column (both from 1) of a byte offset.
std::pair<std::size_t, std::size_t> jsonLineColumn(std::string_view text, std::size_t offset)
{
    offset = std::min(offset, text.size());
    const auto before = text.substr(0, offset);
    const auto line = 1 + static_cast<std::size_t>(std::count(before.begin(), before.end(), '\n'));
    const auto lastNewline = before.rfind('\n');
    const auto column = lastNewline == std::string_view::npos ? offset + 1 : offset - lastNewline;
    return { line, column };
}

} // namespace

Result<PlainDocument> readPlainJson(std::string_view text, const PlainLimits& limits)
{
    if (text.size() > limits.maxInputBytes) {
        return Error { "the JSON text is " + std::to_string(text.size()) + " bytes, beyond the limit of "
                + std::to_string(limits.maxInputBytes),
            "byte 0" };
    }
    PlainJsonBuilder builder(limits);
    const bool ok = nlohmann::json::sax_parse(text.begin(), text.end(), &builder);
    if (!ok) {
        if (builder.parseErrorAt()) {
            // nlohmann counts the bytes read, the failing one included.
            const auto at = *builder.parseErrorAt() == 0 ? 0 : *builder.parseErrorAt() - 1;
            const auto [line, column] = jsonLineColumn(text, at);
            std::string what = builder.parseError();
            // "[json.exception.out_of_range.406] number overflow ..." -> "number overflow ..."
            if (what.rfind("[json.exception.", 0) == 0 && what.find("] ") != std::string::npos) {
                what = what.substr(what.find("] ") + 2);
            }
            // "[json.exception.parse_error.101] parse error at line 1, column 5: syntax error ..." -> "syntax
            // error ..."
            if (const auto c = what.find("column "); c != std::string::npos) {
                if (const auto colon = what.find(": ", c); colon != std::string::npos) {
                    what = what.substr(colon + 2);
                }
            }
            const auto where = "line " + std::to_string(line) + ", column " + std::to_string(column);
            return Error { where + ": " + what, where };
        }
        return Error { "JSON: " + builder.refusal(),
            builder.refusal().substr(0, builder.refusal().find(": ")) };
    }
    builder.document().setRoot(builder.root());
    return std::move(builder.document());
}

} // namespace headroom

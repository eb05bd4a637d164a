// The compact tree of plain data (PlainData.h): the builder the readers use and the accessors the
// decoders use. The pickle, JSON, HTML and gzip readers live in their own files.
#include "headroom/measured/PlainData.h"

#include <bit>

namespace headroom {

static_assert(sizeof(PlainDocument::Node) == 16, "a node is 16 bytes: the tree's memory budget counts on it");

std::string_view plainKindName(PlainKind k) noexcept
{
    switch (k) {
    case PlainKind::None:
        return "None";
    case PlainKind::Bool:
        return "bool";
    case PlainKind::Int:
        return "int";
    case PlainKind::Float:
        return "float";
    case PlainKind::String:
        return "str";
    case PlainKind::Bytes:
        return "bytes";
    case PlainKind::List:
        return "list";
    case PlainKind::Tuple:
        return "tuple";
    case PlainKind::Dict:
        return "dict";
    }
    return "?";
}

// ---- PlainValue -------------------------------------------------------------------------------------

namespace {

const PlainDocument::Node* plainNodeOf(const PlainDocument* document, std::uint32_t node) noexcept
{
    if (document == nullptr || node >= document->nodes().size()) {
        return nullptr;
    }
    return &document->nodes()[node];
}

} // namespace

PlainKind PlainValue::kind() const noexcept
{
    const auto* n = plainNodeOf(m_document, m_node);
    return n != nullptr ? n->kind : PlainKind::None;
}

bool PlainValue::isInteger() const noexcept
{
    const auto k = kind();
    return valid() && (k == PlainKind::Int || k == PlainKind::Bool);
}

std::int64_t PlainValue::asInt() const noexcept
{
    if (!isInteger()) {
        return 0;
    }
    return static_cast<std::int64_t>(plainNodeOf(m_document, m_node)->payload);
}

double PlainValue::asDouble() const noexcept
{
    const auto* n = plainNodeOf(m_document, m_node);
    if (n == nullptr) {
        return 0.0;
    }
    switch (n->kind) {
    case PlainKind::Int:
    case PlainKind::Bool:
        return static_cast<double>(static_cast<std::int64_t>(n->payload));
    case PlainKind::Float:
        return std::bit_cast<double>(n->payload);
    default:
        return 0.0;
    }
}

bool PlainValue::asBool() const noexcept
{
    return isInteger() && plainNodeOf(m_document, m_node)->payload != 0;
}

std::string_view PlainValue::asString() const noexcept
{
    const auto* n = plainNodeOf(m_document, m_node);
    if (n == nullptr || (n->kind != PlainKind::String && n->kind != PlainKind::Bytes)) {
        return {};
    }
    return std::string_view(m_document->text()).substr(static_cast<std::size_t>(n->payload), n->size);
}

std::size_t PlainValue::size() const noexcept
{
    const auto* n = plainNodeOf(m_document, m_node);
    if (n == nullptr
        || (n->kind != PlainKind::List && n->kind != PlainKind::Tuple && n->kind != PlainKind::Dict)) {
        return 0;
    }
    return n->size;
}

PlainValue PlainValue::operator[](std::size_t i) const noexcept
{
    const auto* n = plainNodeOf(m_document, m_node);
    if (n == nullptr || (n->kind != PlainKind::List && n->kind != PlainKind::Tuple) || i >= n->size) {
        return {};
    }
    return PlainValue { m_document, m_document->children()[static_cast<std::size_t>(n->payload) + i] };
}

PlainValue PlainValue::keyAt(std::size_t i) const noexcept
{
    const auto* n = plainNodeOf(m_document, m_node);
    if (n == nullptr || n->kind != PlainKind::Dict || i >= n->size) {
        return {};
    }
    return PlainValue { m_document, m_document->children()[static_cast<std::size_t>(n->payload) + 2 * i] };
}

PlainValue PlainValue::valueAt(std::size_t i) const noexcept
{
    const auto* n = plainNodeOf(m_document, m_node);
    if (n == nullptr || n->kind != PlainKind::Dict || i >= n->size) {
        return {};
    }
    return PlainValue { m_document,
        m_document->children()[static_cast<std::size_t>(n->payload) + 2 * i + 1] };
}

PlainValue PlainValue::find(std::string_view key) const noexcept
{
    const auto* n = plainNodeOf(m_document, m_node);
    if (n == nullptr || n->kind != PlainKind::Dict) {
        return {};
    }
    const auto& nodes = m_document->nodes();
    const auto* items = m_document->children().data() + n->payload;
    const std::string_view text = m_document->text();
    for (std::uint32_t i = n->size; i-- > 0;) { // from the end: a repeated key's later value, as Python
        const auto& k = nodes[items[2 * i]];
        if (k.kind == PlainKind::String && k.size == key.size()
            && text.substr(static_cast<std::size_t>(k.payload), k.size) == key) {
            return PlainValue { m_document, items[2 * i + 1] };
        }
    }
    return {};
}

// ---- PlainDocument ----------------------------------------------------------------------------------

std::size_t PlainDocument::memoryBytes() const noexcept
{
    return sizeof(*this) + m_nodes.capacity() * sizeof(Node) + m_children.capacity() * sizeof(std::uint32_t)
        + m_text.capacity();
}

namespace {

std::uint32_t pushPlainNode(std::vector<PlainDocument::Node>& nodes, PlainDocument::Node node)
{
    nodes.push_back(node);
    return static_cast<std::uint32_t>(nodes.size() - 1);
}

} // namespace

std::uint32_t PlainDocument::addNone()
{
    return pushPlainNode(m_nodes, { PlainKind::None, 0, 0 });
}

std::uint32_t PlainDocument::addBool(bool v)
{
    return pushPlainNode(m_nodes, { PlainKind::Bool, 0, v ? 1U : 0U });
}

std::uint32_t PlainDocument::addInt(std::int64_t v)
{
    return pushPlainNode(m_nodes, { PlainKind::Int, 0, static_cast<std::uint64_t>(v) });
}

std::uint32_t PlainDocument::addFloat(double v)
{
    return pushPlainNode(m_nodes, { PlainKind::Float, 0, std::bit_cast<std::uint64_t>(v) });
}

std::uint32_t PlainDocument::addString(std::string_view v, PlainKind kind)
{
    const auto offset = m_text.size();
    m_text.append(v);
    return pushPlainNode(m_nodes,
        { kind == PlainKind::Bytes ? PlainKind::Bytes : PlainKind::String,
            static_cast<std::uint32_t>(v.size()), offset });
}

std::uint32_t PlainDocument::addContainer(PlainKind kind, const std::vector<std::uint32_t>& items)
{
    return addContainer(kind, items.data(), items.size());
}

std::uint32_t PlainDocument::addContainer(PlainKind kind, const std::uint32_t* items, std::size_t count)
{
    const auto offset = m_children.size();
    m_children.insert(m_children.end(), items, items + count);
    if (kind == PlainKind::Dict) {
        count /= 2; // key, value, key, value ...
    }
    return pushPlainNode(m_nodes, { kind, static_cast<std::uint32_t>(count), offset });
}

} // namespace headroom

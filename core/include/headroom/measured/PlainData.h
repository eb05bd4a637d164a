#pragma once

// The plain data a PyTorch memory snapshot holds (dict, list, tuple, str, bytes, int, float, bool, None),
// read from a pickle, from JSON, or from the memory_viz HTML page that embeds the pickle. One compact tree
// for all three, so that one decoder (MemorySnapshot.h) reads them all. The pickle reader is strict: it
// knows the opcodes of protocols 0 to 5 that build plain data and refuses every opcode that would import a
// name or build an object (GLOBAL, STACK_GLOBAL, REDUCE, BUILD, INST, OBJ, NEWOBJ, EXT*, PERSID ...), never
// executing anything. docs/measured-runs.md lists what is read.

#include "headroom/support/Error.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace headroom {

/// Hard limits on what a reader accepts; a file beyond any of them gets a one-line error naming it.
struct PlainLimits final
{
    std::uint64_t maxInputBytes = 4ULL << 30; ///< the decoded file (after gzip / base64)
    std::uint32_t maxDepth = 64; ///< containers inside containers
    std::uint64_t maxNodes = 200'000'000; ///< values in the tree
    std::uint64_t maxContainerItems = 100'000'000; ///< items of one list, tuple or dict
    std::uint64_t maxStringBytes = 1ULL << 30; ///< one str or bytes value
    std::uint64_t maxMemo = 200'000'000; ///< pickle memo entries
};

enum class PlainKind : std::uint8_t { None, Bool, Int, Float, String, Bytes, List, Tuple, Dict };
[[nodiscard]] std::string_view plainKindName(PlainKind k) noexcept; ///< "dict", "int" ... (Python's names)

class PlainDocument;

/// A value in a PlainDocument (a cheap handle; valid while its document is).
class PlainValue final
{
public:
    PlainValue() = default;
    PlainValue(const PlainDocument* document, std::uint32_t node)
        : m_document { document }
        , m_node { node }
    {
    }
    [[nodiscard]] bool valid() const noexcept { return m_document != nullptr; }
    [[nodiscard]] PlainKind kind() const noexcept;
    [[nodiscard]] bool isNone() const noexcept { return kind() == PlainKind::None; }
    /// Int and Bool as an integer; a Python int beyond 64 bits is refused by the reader.
    [[nodiscard]] bool isInteger() const noexcept;
    [[nodiscard]] std::int64_t asInt() const noexcept; ///< 0 unless isInteger()
    [[nodiscard]] double asDouble() const noexcept; ///< Int, Bool or Float; 0 otherwise
    [[nodiscard]] bool asBool() const noexcept; ///< Bool (or a non-zero Int)
    [[nodiscard]] std::string_view asString() const noexcept; ///< String or Bytes; "" otherwise
    /// Items of a List or Tuple, entries of a Dict; 0 otherwise.
    [[nodiscard]] std::size_t size() const noexcept;
    /// The i-th item of a List or Tuple (invalid value when out of range or not a sequence).
    [[nodiscard]] PlainValue operator[](std::size_t i) const noexcept;
    /// The value of a Dict's string key (invalid value when absent or not a dict; a key repeated in the
    /// file gives its later value, as Python). Linear in the dict's size: snapshot dicts have a dozen keys.
    /// Keys of other kinds (int, tuple ...) are kept as they are and reached through keyAt().
    [[nodiscard]] PlainValue find(std::string_view key) const noexcept;
    /// A Dict's i-th key and value, in the file's order.
    [[nodiscard]] PlainValue keyAt(std::size_t i) const noexcept;
    [[nodiscard]] PlainValue valueAt(std::size_t i) const noexcept;
    [[nodiscard]] std::uint32_t node() const noexcept { return m_node; }

private:
    const PlainDocument* m_document = nullptr;
    std::uint32_t m_node = 0;
};

/// The tree: nodes in one array, strings in one buffer, children as node indices. A memo reference in a
/// pickle points at the same node again (a DAG), so a repeated frame list costs nothing.
class PlainDocument final
{
public:
    struct Node
    {
        PlainKind kind = PlainKind::None;
        std::uint32_t size = 0; ///< String/Bytes: length; List/Tuple: items; Dict: entries
        std::uint64_t payload = 0; ///< Int/Bool: the value's bits; Float: the double's bits;
                                   ///< String/Bytes: offset in text(); containers: offset in children()
    };
    [[nodiscard]] PlainValue root() const noexcept { return PlainValue { this, m_root }; }
    [[nodiscard]] const std::vector<Node>& nodes() const noexcept { return m_nodes; }
    [[nodiscard]] const std::vector<std::uint32_t>& children() const noexcept { return m_children; }
    [[nodiscard]] const std::string& text() const noexcept { return m_text; }
    /// The bytes the tree takes in memory (the benchmark's budget).
    [[nodiscard]] std::size_t memoryBytes() const noexcept;

    // Building (the readers and hand-made test documents).
    std::uint32_t addNone();
    std::uint32_t addBool(bool v);
    std::uint32_t addInt(std::int64_t v);
    std::uint32_t addFloat(double v);
    std::uint32_t addString(std::string_view v, PlainKind kind = PlainKind::String);
    /// A container whose items (Dict: key, value, key, value ...) are already nodes.
    std::uint32_t addContainer(PlainKind kind, const std::vector<std::uint32_t>& items);
    std::uint32_t addContainer(PlainKind kind, const std::uint32_t* items, std::size_t count);
    void setRoot(std::uint32_t node) noexcept { m_root = node; }

private:
    friend class PlainDocumentAccess; // the readers build the tree in place (src/measured/)
    std::vector<Node> m_nodes;
    std::vector<std::uint32_t> m_children;
    std::string m_text;
    std::uint32_t m_root = 0;
};

/// A pickle (protocols 0 to 5) of plain data. Errors name the byte offset and the opcode ("byte 1834:
/// opcode GLOBAL (c) would import 'os system': a memory snapshot holds only plain data"); Error::location
/// is "byte N". Read as Python 3 reads it, with these decisions: Python 2 strings (STRING, BINSTRING,
/// SHORT_BINSTRING) become str; sets and frozensets become lists in the file's order; bytearray becomes
/// bytes; dict keys keep their kind (str, bytes, int, bool, None, float, tuple; a list or dict key is
/// refused); ints beyond the signed 64-bit range, a container that contains itself, nesting beyond
/// limits.maxDepth, a MARK or extra values left at STOP and bytes after STOP are refused. A container
/// memoized and appended to later (APPENDS onto a list fetched by GET) is read whole; memo references
/// share one node.
[[nodiscard]] Result<PlainDocument> readPickle(std::string_view bytes, const PlainLimits& limits = {});
/// JSON text (RFC 8259) into the same tree: objects become dicts, arrays lists. Errors name line and
/// column.
[[nodiscard]] Result<PlainDocument> readPlainJson(std::string_view text, const PlainLimits& limits = {});
/// The pickle a memory_viz HTML page embeds, decoded. torch/cuda/_memory_viz.py's _format_viz (trace_plot,
/// segment_plot, profile_plot; see PlainEnvelopes.cpp for the versions read) writes `const local_files =
/// [{"name": "snapshot.pickle", "base64": "..."}]` into the page's script: pickle.dumps(snapshot) plus 1 to 3
/// NUL bytes (to a multiple of 3), base64-encoded. The first "base64" string is decoded (strictly: a
/// character outside the alphabet is an error naming its byte) and the NUL padding dropped.
[[nodiscard]] Result<std::string> pickleFromMemoryVizHtml(
    std::string_view html, const PlainLimits& limits = {});
/// gzip data (a .json.gz export) inflated, refusing output beyond limits.maxInputBytes.
[[nodiscard]] Result<std::string> gunzip(std::string_view data, const PlainLimits& limits = {});

} // namespace headroom

// readPickle: a strict stack machine over pickle protocols 0 to 5 that knows only the opcodes building
// plain data, the opcode list and semantics of CPython's Lib/pickle.py and Lib/pickletools.py. Every
// opcode that would import a name, call it or build an object is refused before anything happens:
// nothing is ever executed, and no name is looked up.
//
// Decisions beyond CPython's own reading:
// - STRING, BINSTRING and SHORT_BINSTRING (Python 2's str) become str, as Python 3 reads them by default.
// - Sets and frozensets (EMPTY_SET, ADDITEMS, FROZENSET) become lists in the file's order.
// - Dict keys are kept as they are (str, bytes, int, bool, None, float or tuple: what Python can hash);
//   PlainValue::find matches only str keys. A list or dict as a key is refused (Python cannot hash it).
// - Ints beyond the signed 64-bit range are refused (a snapshot's addresses and sizes fit).
// - A container that contains itself (through the memo) is refused: a snapshot has no cycles, and the
//   decoders walk the tree recursively. Nesting beyond PlainLimits::maxDepth is refused too.
// - The file must end at its STOP with one value on the stack and no open MARK.
//
// Layout: a value on the machine's stack is a node index. Containers stay open until STOP, since a
// memoized list or dict may be appended to after it was put into another container (APPENDS onto a list
// fetched by GET). Each appended batch goes to the end of the document's children array; as long as a
// container's batches are adjacent there (the usual case: EMPTY_DICT MARK ... SETITEMS) it keeps one run.
// Otherwise its extra runs are remembered aside and copied together at STOP.
#include "PlainDocumentAccess.h"
#include "headroom/measured/PlainData.h"
#include "headroom/support/Format.h"

#include <algorithm>
#include <array>
#include <bit>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace headroom {

namespace {

constexpr std::uint32_t kNoPickleNode = std::numeric_limits<std::uint32_t>::max();

/// The name pickletools gives each opcode (protocols 0 to 5), or nullptr for a byte that is none.
const char* pickleOpcodeName(unsigned char op) noexcept
{
    switch (op) {
    case '(':
        return "MARK";
    case '.':
        return "STOP";
    case '0':
        return "POP";
    case '1':
        return "POP_MARK";
    case '2':
        return "DUP";
    case 'F':
        return "FLOAT";
    case 'I':
        return "INT";
    case 'J':
        return "BININT";
    case 'K':
        return "BININT1";
    case 'L':
        return "LONG";
    case 'M':
        return "BININT2";
    case 'N':
        return "NONE";
    case 'P':
        return "PERSID";
    case 'Q':
        return "BINPERSID";
    case 'R':
        return "REDUCE";
    case 'S':
        return "STRING";
    case 'T':
        return "BINSTRING";
    case 'U':
        return "SHORT_BINSTRING";
    case 'V':
        return "UNICODE";
    case 'X':
        return "BINUNICODE";
    case 'a':
        return "APPEND";
    case 'b':
        return "BUILD";
    case 'c':
        return "GLOBAL";
    case 'd':
        return "DICT";
    case '}':
        return "EMPTY_DICT";
    case 'e':
        return "APPENDS";
    case 'g':
        return "GET";
    case 'h':
        return "BINGET";
    case 'i':
        return "INST";
    case 'j':
        return "LONG_BINGET";
    case 'l':
        return "LIST";
    case ']':
        return "EMPTY_LIST";
    case 'o':
        return "OBJ";
    case 'p':
        return "PUT";
    case 'q':
        return "BINPUT";
    case 'r':
        return "LONG_BINPUT";
    case 's':
        return "SETITEM";
    case 't':
        return "TUPLE";
    case ')':
        return "EMPTY_TUPLE";
    case 'u':
        return "SETITEMS";
    case 'G':
        return "BINFLOAT";
    case 0x80:
        return "PROTO";
    case 0x81:
        return "NEWOBJ";
    case 0x82:
        return "EXT1";
    case 0x83:
        return "EXT2";
    case 0x84:
        return "EXT4";
    case 0x85:
        return "TUPLE1";
    case 0x86:
        return "TUPLE2";
    case 0x87:
        return "TUPLE3";
    case 0x88:
        return "NEWTRUE";
    case 0x89:
        return "NEWFALSE";
    case 0x8a:
        return "LONG1";
    case 0x8b:
        return "LONG4";
    case 'B':
        return "BINBYTES";
    case 'C':
        return "SHORT_BINBYTES";
    case 0x8c:
        return "SHORT_BINUNICODE";
    case 0x8d:
        return "BINUNICODE8";
    case 0x8e:
        return "BINBYTES8";
    case 0x8f:
        return "EMPTY_SET";
    case 0x90:
        return "ADDITEMS";
    case 0x91:
        return "FROZENSET";
    case 0x92:
        return "NEWOBJ_EX";
    case 0x93:
        return "STACK_GLOBAL";
    case 0x94:
        return "MEMOIZE";
    case 0x95:
        return "FRAME";
    case 0x96:
        return "BYTEARRAY8";
    case 0x97:
        return "NEXT_BUFFER";
    case 0x98:
        return "READONLY_BUFFER";
    default:
        return nullptr;
    }
}

std::string opcodeText(unsigned char op)
{
    const char* name = pickleOpcodeName(op);
    char hex[8];
    std::snprintf(hex, sizeof hex, "0x%02x", static_cast<unsigned>(op));
    if (name == nullptr) {
        return hex;
    }
    std::string text(name);
    text += " (";
    if (op >= 0x21 && op < 0x7f) {
        text += static_cast<char>(op);
    } else {
        text += hex;
    }
    text += ')';
    return text;
}

/// What a refused opcode would have done, said in the error.
std::string_view refusedWhat(unsigned char op) noexcept
{
    switch (op) {
    case 'R':
        return "would call a function";
    case 'b':
        return "would set an object's state";
    case 'o':
    case 0x81:
    case 0x92:
        return "would build an object";
    case 0x82:
    case 0x83:
    case 0x84:
        return "would import a registered extension";
    case 'P':
    case 'Q':
        return "would load a persistent object";
    case 0x97:
    case 0x98:
        return "would read an out-of-band buffer";
    default:
        return "would import a name";
    }
}

/// A printable, short form of a name taken from the file, for an error.
std::string printableName(std::string_view text)
{
    std::string out;
    for (const char c : text.substr(0, 80)) {
        out += (c >= 0x20 && c < 0x7f) ? c : '?';
    }
    if (text.size() > 80) {
        out += "...";
    }
    return out;
}

bool hashableKey(PlainKind k) noexcept
{
    return k != PlainKind::List && k != PlainKind::Dict;
}

void appendUtf8CodePoint(std::string& out, std::uint32_t cp)
{
    if (cp < 0x80) {
        out += static_cast<char>(cp);
    } else if (cp < 0x800) {
        out += static_cast<char>(0xC0 | (cp >> 6));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        out += static_cast<char>(0xE0 | (cp >> 12));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
        out += static_cast<char>(0xF0 | (cp >> 18));
        out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    }
}

int pickleHexDigit(char c) noexcept
{
    if (c >= '0' && c <= '9') {
        return c - '0';
    }
    if (c >= 'a' && c <= 'f') {
        return c - 'a' + 10;
    }
    if (c >= 'A' && c <= 'F') {
        return c - 'A' + 10;
    }
    return -1;
}

class PickleMachine final
{
public:
    PickleMachine(std::string_view in, const PlainLimits& limits)
        : m_in { in }
        , m_limits { limits }
        , m_nodes { PlainDocumentAccess::nodes(m_doc) }
        , m_children { PlainDocumentAccess::children(m_doc) }
        , m_text { PlainDocumentAccess::text(m_doc) }
    {
    }

    Result<PlainDocument> run()
    {
        if (m_in.size() > m_limits.maxInputBytes) {
            return fail(0,
                "the pickle is " + std::to_string(m_in.size()) + " bytes, beyond the limit of "
                    + std::to_string(m_limits.maxInputBytes));
        }
        if (m_in.empty()) {
            return fail(0, "the file is empty: no pickle");
        }
        // A snapshot's pickle spends about 10 bytes per value and 5 per container item (the benchmark's
        // trace entries): room for that up front, what is left unused given back at STOP.
        m_nodes.reserve(
            static_cast<std::size_t>(std::min<std::uint64_t>(m_in.size() / 10 + 16, m_limits.maxNodes)));
        m_children.reserve(m_in.size() / 5 + 16);
        if (auto error = loop()) {
            return std::move(*error);
        }
        if (auto error = finish()) {
            return std::move(*error);
        }
        return std::move(m_doc);
    }

private:
    struct Run
    {
        std::uint64_t offset;
        std::uint64_t count;
    };

    std::string_view m_in;
    const PlainLimits& m_limits;
    PlainDocument m_doc;
    std::vector<PlainDocument::Node>& m_nodes;
    std::vector<std::uint32_t>& m_children;
    std::string& m_text;
    std::size_t m_pos = 0; ///< the next byte to read
    std::size_t m_opAt = 0; ///< the current opcode's byte
    unsigned char m_op = 0;
    std::vector<std::uint32_t> m_stack;
    std::vector<std::size_t> m_marks;
    std::vector<std::uint32_t> m_memo; ///< dense memo (kNoPickleNode: empty)
    std::unordered_map<std::uint64_t, std::uint32_t> m_sparseMemo; ///< PUT with far-off indices
    std::uint64_t m_memoCount = 0;
    std::unordered_map<std::uint32_t, std::vector<Run>> m_extraRuns; ///< containers not in one run
    std::uint32_t m_none = kNoPickleNode;
    std::uint32_t m_true = kNoPickleNode;
    std::uint32_t m_false = kNoPickleNode;
    std::uint32_t m_emptyTuple = kNoPickleNode;
    std::size_t m_stopAt = 0;

    Error fail(std::size_t at, const std::string& what) const
    {
        return Error { "byte " + std::to_string(at) + ": " + what, "byte " + std::to_string(at) };
    }
    Error failOp(const std::string& what) const
    {
        return fail(m_opAt, "opcode " + opcodeText(m_op) + " " + what);
    }

    // ---- reading the input ------------------------------------------------------------------------

    std::optional<Error> need(std::uint64_t n) const
    {
        if (n > m_in.size() - m_pos) {
            return failOp("needs " + std::to_string(n) + " more byte" + (n == 1 ? "" : "s")
                + " but the file ends after " + std::to_string(m_in.size() - m_pos) + ": truncated");
        }
        return std::nullopt;
    }
    template <typename T> T little(std::size_t n)
    {
        std::uint64_t v = 0;
        for (std::size_t i = 0; i < n; ++i) {
            v |= static_cast<std::uint64_t>(static_cast<unsigned char>(m_in[m_pos + i])) << (8 * i);
        }
        m_pos += n;
        return static_cast<T>(v);
    }
    /// A protocol 0 argument: the text up to the next newline (not included).
    std::optional<Error> line(std::string_view& out)
    {
        const auto end = m_in.find('\n', m_pos);
        if (end == std::string_view::npos) {
            return failOp("has no end of line: truncated");
        }
        out = m_in.substr(m_pos, end - m_pos);
        m_pos = end + 1;
        return std::nullopt;
    }

    // ---- nodes ------------------------------------------------------------------------------------

    std::optional<Error> newNode(
        PlainKind kind, std::uint32_t size, std::uint64_t payload, std::uint32_t& index)
    {
        if (m_nodes.size() >= m_limits.maxNodes || m_nodes.size() >= kNoPickleNode) {
            return failOp("makes value number " + std::to_string(m_nodes.size() + 1)
                + ", beyond the limit of " + std::to_string(m_limits.maxNodes) + " values");
        }
        index = static_cast<std::uint32_t>(m_nodes.size());
        m_nodes.push_back({ kind, size, payload });
        return std::nullopt;
    }
    std::optional<Error> push(PlainKind kind, std::uint64_t payload)
    {
        std::uint32_t index = 0;
        if (auto e = newNode(kind, 0, payload, index)) {
            return e;
        }
        m_stack.push_back(index);
        return std::nullopt;
    }
    std::optional<Error> pushShared(std::uint32_t& cache, PlainKind kind, std::uint64_t payload)
    {
        if (cache == kNoPickleNode) {
            if (auto e = newNode(kind, 0, payload, cache)) {
                return e;
            }
        }
        m_stack.push_back(cache);
        return std::nullopt;
    }
    std::optional<Error> pushInt(std::int64_t v)
    {
        return push(PlainKind::Int, static_cast<std::uint64_t>(v));
    }
    std::optional<Error> pushText(std::string_view bytes, PlainKind kind)
    {
        if (bytes.size() > m_limits.maxStringBytes || bytes.size() >= kNoPickleNode) {
            return failOp("holds a " + std::string(plainKindName(kind)) + " value of "
                + std::to_string(bytes.size()) + " bytes, beyond the limit of "
                + std::to_string(m_limits.maxStringBytes));
        }
        std::uint32_t index = 0;
        if (auto e = newNode(kind, static_cast<std::uint32_t>(bytes.size()), m_text.size(), index)) {
            return e;
        }
        m_text.append(bytes);
        m_stack.push_back(index);
        return std::nullopt;
    }
    /// A length-prefixed str or bytes: the length in n little-endian bytes.
    std::optional<Error> counted(std::size_t lengthBytes, PlainKind kind, bool signedLength = false)
    {
        if (auto e = need(lengthBytes)) {
            return e;
        }
        std::uint64_t length = little<std::uint64_t>(lengthBytes);
        if (signedLength && (length & 0x80000000ULL) != 0) {
            return failOp("declares a negative length");
        }
        if (length > m_limits.maxStringBytes) {
            return failOp("declares a " + std::string(plainKindName(kind)) + " value of "
                + std::to_string(length) + " bytes, beyond the limit of "
                + std::to_string(m_limits.maxStringBytes));
        }
        if (auto e = need(length)) {
            return e;
        }
        const auto bytes = m_in.substr(m_pos, static_cast<std::size_t>(length));
        m_pos += static_cast<std::size_t>(length);
        return pushText(bytes, kind);
    }

    // ---- the stack --------------------------------------------------------------------------------

    std::size_t fence() const noexcept { return m_marks.empty() ? 0 : m_marks.back(); }
    std::optional<Error> needStack(std::size_t n) const
    {
        if (m_stack.size() - fence() < n) {
            return failOp("needs " + std::to_string(n) + " value" + (n == 1 ? "" : "s")
                + " on the stack, finds " + std::to_string(m_stack.size() - fence()) + ": stack underflow");
        }
        return std::nullopt;
    }
    std::optional<Error> popMark(std::size_t& mark)
    {
        if (m_marks.empty()) {
            return failOp("finds no MARK on the stack");
        }
        mark = m_marks.back();
        m_marks.pop_back();
        return std::nullopt;
    }

    // ---- containers -------------------------------------------------------------------------------

    /// A container of `count` items; `popped` values leave the stack first (the items when they are
    /// the stack's top), then the container goes on it.
    std::optional<Error> newContainer(
        PlainKind kind, const std::uint32_t* items, std::size_t count, std::size_t popped = 0)
    {
        const std::size_t entries = kind == PlainKind::Dict ? count / 2 : count;
        if (entries > m_limits.maxContainerItems) {
            return failOp("makes a " + std::string(plainKindName(kind)) + " of " + std::to_string(entries)
                + " items, beyond the limit of " + std::to_string(m_limits.maxContainerItems));
        }
        if (kind == PlainKind::Dict) {
            if (auto e = checkKeys(items, count)) {
                return e;
            }
        }
        std::uint32_t index = 0;
        if (auto e = newNode(kind, static_cast<std::uint32_t>(count), m_children.size(), index)) {
            return e;
        }
        m_children.insert(m_children.end(), items, items + count);
        m_stack.resize(m_stack.size() - popped);
        m_stack.push_back(index);
        return std::nullopt;
    }
    std::optional<Error> checkKeys(const std::uint32_t* items, std::size_t count) const
    {
        if (count % 2 != 0) {
            return failOp(
                "finds an odd number of values (" + std::to_string(count) + ") for a dict's keys and values");
        }
        for (std::size_t i = 0; i < count; i += 2) {
            const auto k = m_nodes[items[i]].kind;
            if (!hashableKey(k)) {
                return failOp(
                    "uses a " + std::string(plainKindName(k)) + " as a dict key (Python cannot hash it)");
            }
        }
        return std::nullopt;
    }
    /// Adds items (a dict: key, value, ...) to the open container `target`. During reading a container
    /// node's size counts children entries (a dict's are halved at STOP).
    std::optional<Error> addItems(
        std::uint32_t target, PlainKind want, const std::uint32_t* items, std::size_t count)
    {
        auto& node = m_nodes[target];
        if (node.kind != want) {
            return failOp("adds to a " + std::string(plainKindName(node.kind)) + ", not a "
                + std::string(plainKindName(want)));
        }
        if (count == 0) {
            return std::nullopt;
        }
        const std::uint64_t entries
            = (static_cast<std::uint64_t>(node.size) + count) / (want == PlainKind::Dict ? 2 : 1);
        if (entries > m_limits.maxContainerItems
            || static_cast<std::uint64_t>(node.size) + count >= kNoPickleNode) {
            return failOp("makes a " + std::string(plainKindName(want)) + " of " + std::to_string(entries)
                + " items, beyond the limit of " + std::to_string(m_limits.maxContainerItems));
        }
        if (want == PlainKind::Dict) {
            if (auto e = checkKeys(items, count)) {
                return e;
            }
        }
        const auto end = m_children.size();
        const auto extra = m_extraRuns.empty() ? m_extraRuns.end() : m_extraRuns.find(target);
        if (extra == m_extraRuns.end()) {
            if (node.size == 0) {
                node.payload = end;
            } else if (node.payload + node.size != end) {
                auto& runs = m_extraRuns[target];
                runs.push_back({ node.payload, node.size });
                runs.push_back({ end, count });
            }
        } else {
            auto& last = extra->second.back();
            if (last.offset + last.count == end) {
                last.count += count;
            } else {
                extra->second.push_back({ end, count });
            }
        }
        node.size += static_cast<std::uint32_t>(count);
        m_children.insert(m_children.end(), items, items + count);
        return std::nullopt;
    }
    /// APPENDS, SETITEMS, ADDITEMS: the items above the last MARK go into the value below it.
    std::optional<Error> addFromMark(PlainKind want)
    {
        std::size_t mark = 0;
        if (auto e = popMark(mark)) {
            return e;
        }
        if (mark == 0 || mark <= fence()) {
            return failOp("finds no container below its MARK: stack underflow");
        }
        const auto target = m_stack[mark - 1];
        const auto count = m_stack.size() - mark;
        auto error = addItems(target, want, m_stack.data() + mark, count);
        m_stack.resize(mark);
        return error;
    }

    // ---- the memo ---------------------------------------------------------------------------------

    std::optional<Error> memoPut(std::uint64_t index)
    {
        if (auto e = needStack(1)) {
            return e;
        }
        const auto value = m_stack.back();
        if (index < m_memo.size()) {
            if (m_memo[index] == kNoPickleNode) {
                ++m_memoCount;
            }
            m_memo[index] = value;
            return std::nullopt;
        }
        if (m_memoCount >= m_limits.maxMemo) {
            return failOp("stores memo entry " + std::to_string(m_memoCount + 1) + ", beyond the limit of "
                + std::to_string(m_limits.maxMemo));
        }
        if (index == m_memo.size()) {
            m_memo.push_back(value);
            ++m_memoCount;
            return std::nullopt;
        }
        auto [it, inserted] = m_sparseMemo.insert_or_assign(index, value);
        (void)it;
        if (inserted) {
            ++m_memoCount;
        }
        return std::nullopt;
    }
    std::optional<Error> memoGet(std::uint64_t index)
    {
        std::uint32_t value = kNoPickleNode;
        if (index < m_memo.size()) {
            value = m_memo[index];
        } else if (const auto it = m_sparseMemo.find(index); it != m_sparseMemo.end()) {
            value = it->second;
        }
        if (value == kNoPickleNode) {
            return failOp("reads memo entry " + std::to_string(index) + ", which was never stored");
        }
        m_stack.push_back(value);
        return std::nullopt;
    }
    std::optional<Error> decimalIndex(std::uint64_t& index)
    {
        std::string_view text;
        if (auto e = line(text)) {
            return e;
        }
        const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), index);
        if (ec != std::errc {} || ptr != text.data() + text.size() || text.empty()) {
            return failOp("has '" + printableName(text) + "' where a memo index belongs");
        }
        return std::nullopt;
    }

    // ---- numbers ----------------------------------------------------------------------------------

    std::optional<Error> decimal(std::string_view text, std::int64_t& v)
    {
        std::string_view digits = text;
        if (!digits.empty() && digits.front() == '+') {
            digits.remove_prefix(1);
        }
        const auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
        if (ec == std::errc::result_out_of_range) {
            return failOp("holds the int " + printableName(text)
                + ", beyond 64 bits: a memory snapshot's ints fit in 64");
        }
        if (ec != std::errc {} || ptr != digits.data() + digits.size() || digits.empty()) {
            return failOp("has '" + printableName(text) + "' where an int belongs");
        }
        return std::nullopt;
    }
    /// LONG1 / LONG4: n bytes of little-endian two's complement.
    std::optional<Error> twosComplement(std::uint64_t n)
    {
        if (auto e = need(n)) {
            return e;
        }
        const auto* b = reinterpret_cast<const unsigned char*>(m_in.data() + m_pos);
        m_pos += static_cast<std::size_t>(n);
        if (n == 0) {
            return pushInt(0);
        }
        const bool negative = (b[n - 1] & 0x80) != 0;
        // Bytes beyond the eighth must only extend the sign, and the eighth must agree with it.
        for (std::uint64_t i = 8; i < n; ++i) {
            if (b[i] != (negative ? 0xFF : 0x00)) {
                return failOp("holds an int of " + std::to_string(n)
                    + " bytes, beyond 64 bits: a memory snapshot's "
                      "ints fit in 64");
            }
        }
        if (n > 8 && ((b[7] & 0x80) != 0) != negative) {
            return failOp("holds an int beyond the signed 64-bit range: a memory snapshot's ints fit in 64");
        }
        std::uint64_t v = negative ? ~0ULL : 0ULL;
        const auto used = n < 8 ? n : 8;
        for (std::uint64_t i = 0; i < used; ++i) {
            v &= ~(0xFFULL << (8 * i));
            v |= static_cast<std::uint64_t>(b[i]) << (8 * i);
        }
        return pushInt(static_cast<std::int64_t>(v));
    }
    std::optional<Error> floatText(std::string_view text)
    {
        double v = 0.0;
        const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
        if (ec != std::errc {} || ptr != text.data() + text.size() || text.empty()) {
            return failOp("has '" + printableName(text) + "' where a float belongs");
        }
        return push(PlainKind::Float, std::bit_cast<std::uint64_t>(v));
    }

    // ---- protocol 0 strings -----------------------------------------------------------------------

    /// STRING: a Python 2 str literal, quoted and backslash-escaped (codecs.escape_decode).
    std::optional<Error> quotedString(std::string_view text)
    {
        if (text.size() < 2 || (text.front() != '\'' && text.front() != '"') || text.back() != text.front()) {
            return failOp("needs a quoted string, finds '" + printableName(text) + "'");
        }
        text = text.substr(1, text.size() - 2);
        std::string out;
        out.reserve(text.size());
        for (std::size_t i = 0; i < text.size(); ++i) {
            if (text[i] != '\\') {
                out += text[i];
                continue;
            }
            if (++i == text.size()) {
                return failOp("ends its string with a lone backslash");
            }
            const char c = text[i];
            switch (c) {
            case '\n':
                break;
            case '\\':
                out += '\\';
                break;
            case '\'':
                out += '\'';
                break;
            case '"':
                out += '"';
                break;
            case 'a':
                out += '\a';
                break;
            case 'b':
                out += '\b';
                break;
            case 'f':
                out += '\f';
                break;
            case 'n':
                out += '\n';
                break;
            case 'r':
                out += '\r';
                break;
            case 't':
                out += '\t';
                break;
            case 'v':
                out += '\v';
                break;
            case 'x': {
                const int hi = i + 1 < text.size() ? pickleHexDigit(text[i + 1]) : -1;
                const int lo = i + 2 < text.size() ? pickleHexDigit(text[i + 2]) : -1;
                if (hi < 0 || lo < 0) {
                    return failOp("has a \\x escape without two hex digits");
                }
                out += static_cast<char>(hi * 16 + lo);
                i += 2;
                break;
            }
            default:
                if (c >= '0' && c <= '7') {
                    int v = c - '0';
                    for (int k = 0; k < 2 && i + 1 < text.size() && text[i + 1] >= '0' && text[i + 1] <= '7';
                         ++k) {
                        v = v * 8 + (text[++i] - '0');
                    }
                    out += static_cast<char>(v & 0xFF);
                } else {
                    out += '\\'; // Python keeps an unknown escape as it is
                    out += c;
                }
            }
        }
        return pushText(out, PlainKind::String);
    }
    /// UNICODE: raw-unicode-escape: Latin-1 bytes, \uXXXX and \UXXXXXXXX escapes; out as UTF-8.
    std::optional<Error> rawUnicode(std::string_view text)
    {
        std::string out;
        out.reserve(text.size());
        for (std::size_t i = 0; i < text.size(); ++i) {
            const auto c = static_cast<unsigned char>(text[i]);
            if (c == '\\' && i + 1 < text.size() && (text[i + 1] == 'u' || text[i + 1] == 'U')) {
                // An odd run of backslashes before u escapes; Python counts them the same way.
                const std::size_t digits = text[i + 1] == 'u' ? 4 : 8;
                if (i + 2 + digits > text.size()) {
                    return failOp(
                        "has a truncated escape " + quoteForMessage("\\" + std::string(1, text[i + 1])));
                }
                std::uint32_t cp = 0;
                for (std::size_t k = 0; k < digits; ++k) {
                    const int d = pickleHexDigit(text[i + 2 + k]);
                    if (d < 0) {
                        return failOp("has a \\u escape with a non-hex digit");
                    }
                    cp = cp * 16 + static_cast<std::uint32_t>(d);
                }
                if (cp > 0x10FFFF) {
                    return failOp("has the escape "
                        + quoteForMessage("\\U" + std::string(text.substr(i + 2, digits)))
                        + ", beyond Unicode");
                }
                appendUtf8CodePoint(out, cp);
                i += 1 + digits;
            } else if (c == '\\' && i + 1 < text.size() && text[i + 1] == '\\') {
                out += "\\\\"; // raw-unicode-escape leaves other backslashes alone
                ++i;
            } else {
                appendUtf8CodePoint(out, c);
            }
        }
        return pushText(out, PlainKind::String);
    }

    // ---- the loop ---------------------------------------------------------------------------------

    std::optional<Error> refuse()
    {
        std::string what(refusedWhat(m_op));
        if (m_op == 'c' || m_op == 'i') {
            // GLOBAL / INST name the module and the name on two lines: say which, still importing nothing.
            const auto first = m_in.find('\n', m_pos);
            const auto second = first == std::string_view::npos ? first : m_in.find('\n', first + 1);
            if (second != std::string_view::npos) {
                what = "would import '" + printableName(m_in.substr(m_pos, first - m_pos)) + " "
                    + printableName(m_in.substr(first + 1, second - first - 1)) + "'";
                if (m_op == 'i') {
                    what += " and build an object";
                }
            }
        } else if (m_op == 0x93 && m_stack.size() - fence() >= 2) {
            const PlainValue module { &m_doc, m_stack[m_stack.size() - 2] };
            const PlainValue name { &m_doc, m_stack.back() };
            if (module.kind() == PlainKind::String && name.kind() == PlainKind::String) {
                what = "would import '" + printableName(module.asString()) + " "
                    + printableName(name.asString()) + "'";
            }
        }
        return failOp(what + ": a memory snapshot holds only plain data");
    }

    std::optional<Error> loop()
    {
        while (true) {
            if (m_pos >= m_in.size()) {
                return fail(m_in.size(), "the file ends before the pickle's STOP: truncated");
            }
            m_opAt = m_pos;
            m_op = static_cast<unsigned char>(m_in[m_pos++]);
            if (auto e = step()) {
                return e;
            }
            if (m_op == '.') {
                return std::nullopt;
            }
        }
    }

    std::optional<Error> step()
    {
        switch (m_op) {
        case 0x80: { // PROTO
            if (auto e = need(1)) {
                return e;
            }
            const auto version = little<unsigned>(1);
            if (version > 5) {
                return failOp("asks for protocol " + std::to_string(version) + "; protocols 0 to 5 are read");
            }
            return std::nullopt;
        }
        case 0x95: { // FRAME: a length to skip, checked against the file
            if (auto e = need(8)) {
                return e;
            }
            const auto length = little<std::uint64_t>(8);
            if (auto e = need(length)) {
                return e;
            }
            return std::nullopt;
        }
        case '.': { // STOP
            if (!m_marks.empty()) {
                return failOp("finds a MARK still open");
            }
            if (m_stack.size() != 1) {
                return failOp("finds " + std::to_string(m_stack.size())
                    + " values on the stack; a pickle ends with one");
            }
            m_stopAt = m_opAt;
            if (m_pos != m_in.size()) {
                return fail(m_pos,
                    std::to_string(m_in.size() - m_pos) + " bytes follow the pickle's STOP at byte "
                        + std::to_string(m_opAt));
            }
            return std::nullopt;
        }
        case '(':
            m_marks.push_back(m_stack.size());
            return std::nullopt;
        case '0': // POP: the top value, or (as CPython) an empty MARK
            if (m_stack.size() > fence()) {
                m_stack.pop_back();
                return std::nullopt;
            }
            if (!m_marks.empty()) {
                m_marks.pop_back();
                return std::nullopt;
            }
            return needStack(1);
        case '1': { // POP_MARK
            std::size_t mark = 0;
            if (auto e = popMark(mark)) {
                return e;
            }
            m_stack.resize(mark);
            return std::nullopt;
        }
        case '2': // DUP
            if (auto e = needStack(1)) {
                return e;
            }
            m_stack.push_back(m_stack.back());
            return std::nullopt;
        case 'N':
            return pushShared(m_none, PlainKind::None, 0);
        case 0x88:
            return pushShared(m_true, PlainKind::Bool, 1);
        case 0x89:
            return pushShared(m_false, PlainKind::Bool, 0);
        case 'I': { // INT, with Python 2's "01" / "00" bools
            std::string_view text;
            if (auto e = line(text)) {
                return e;
            }
            if (text == "01") {
                return pushShared(m_true, PlainKind::Bool, 1);
            }
            if (text == "00") {
                return pushShared(m_false, PlainKind::Bool, 0);
            }
            std::int64_t v = 0;
            if (auto e = decimal(text, v)) {
                return e;
            }
            return pushInt(v);
        }
        case 'L': { // LONG: decimal with an optional trailing L
            std::string_view text;
            if (auto e = line(text)) {
                return e;
            }
            if (!text.empty() && text.back() == 'L') {
                text.remove_suffix(1);
            }
            std::int64_t v = 0;
            if (auto e = decimal(text, v)) {
                return e;
            }
            return pushInt(v);
        }
        case 'J':
            if (auto e = need(4)) {
                return e;
            }
            return pushInt(little<std::int32_t>(4));
        case 'K':
            if (auto e = need(1)) {
                return e;
            }
            return pushInt(little<std::uint8_t>(1));
        case 'M':
            if (auto e = need(2)) {
                return e;
            }
            return pushInt(little<std::uint16_t>(2));
        case 0x8a: // LONG1
            if (auto e = need(1)) {
                return e;
            }
            return twosComplement(little<std::uint8_t>(1));
        case 0x8b: { // LONG4
            if (auto e = need(4)) {
                return e;
            }
            const auto n = little<std::int32_t>(4);
            if (n < 0) {
                return failOp("declares a negative length");
            }
            if (n > 8 && static_cast<std::uint64_t>(n) > m_limits.maxStringBytes) {
                return failOp("declares an int of " + std::to_string(n) + " bytes, beyond the limit of "
                    + std::to_string(m_limits.maxStringBytes));
            }
            return twosComplement(static_cast<std::uint64_t>(n));
        }
        case 'F': {
            std::string_view text;
            if (auto e = line(text)) {
                return e;
            }
            return floatText(text);
        }
        case 'G': {
            if (auto e = need(8)) {
                return e;
            }
            std::uint64_t bits = 0;
            for (int i = 0; i < 8; ++i) {
                bits = (bits << 8) | static_cast<unsigned char>(m_in[m_pos++]);
            }
            return push(PlainKind::Float, bits);
        }
        case 'S': {
            std::string_view text;
            if (auto e = line(text)) {
                return e;
            }
            return quotedString(text);
        }
        case 'V': {
            std::string_view text;
            if (auto e = line(text)) {
                return e;
            }
            return rawUnicode(text);
        }
        case 'T':
            return counted(4, PlainKind::String, true); // BINSTRING
        case 'U':
            return counted(1, PlainKind::String); // SHORT_BINSTRING
        case 'X':
            return counted(4, PlainKind::String); // BINUNICODE
        case 0x8c:
            return counted(1, PlainKind::String); // SHORT_BINUNICODE
        case 0x8d:
            return counted(8, PlainKind::String); // BINUNICODE8
        case 'B':
            return counted(4, PlainKind::Bytes); // BINBYTES
        case 'C':
            return counted(1, PlainKind::Bytes); // SHORT_BINBYTES
        case 0x8e: // BINBYTES8
        case 0x96:
            return counted(8, PlainKind::Bytes); // BYTEARRAY8
        case ']': // EMPTY_LIST
        case 0x8f:
            return newContainer(PlainKind::List, nullptr, 0); // EMPTY_SET
        case '}':
            return newContainer(PlainKind::Dict, nullptr, 0);
        case ')':
            if (m_emptyTuple == kNoPickleNode) {
                if (auto e = newNode(PlainKind::Tuple, 0, 0, m_emptyTuple)) {
                    return e;
                }
            }
            m_stack.push_back(m_emptyTuple);
            return std::nullopt;
        case 'l': // LIST
        case 't': // TUPLE
        case 'd': // DICT
        case 0x91: { // FROZENSET
            std::size_t mark = 0;
            if (auto e = popMark(mark)) {
                return e;
            }
            const auto kind = m_op == 't' ? PlainKind::Tuple
                : m_op == 'd'             ? PlainKind::Dict
                                          : PlainKind::List;
            const auto count = m_stack.size() - mark;
            return newContainer(kind, m_stack.data() + mark, count, count);
        }
        case 0x85:
        case 0x86:
        case 0x87: { // TUPLE1/2/3
            const std::size_t n = m_op - 0x84U;
            if (auto e = needStack(n)) {
                return e;
            }
            return newContainer(PlainKind::Tuple, m_stack.data() + (m_stack.size() - n), n, n);
        }
        case 'a': { // APPEND
            if (auto e = needStack(2)) {
                return e;
            }
            const auto item = m_stack.back();
            m_stack.pop_back();
            return addItems(m_stack.back(), PlainKind::List, &item, 1);
        }
        case 'e':
            return addFromMark(PlainKind::List); // APPENDS
        case 0x90:
            return addFromMark(PlainKind::List); // ADDITEMS (a set is read as a list)
        case 'u':
            return addFromMark(PlainKind::Dict); // SETITEMS
        case 's': { // SETITEM
            if (auto e = needStack(3)) {
                return e;
            }
            const std::array<std::uint32_t, 2> kv { m_stack[m_stack.size() - 2], m_stack.back() };
            m_stack.resize(m_stack.size() - 2);
            return addItems(m_stack.back(), PlainKind::Dict, kv.data(), 2);
        }
        case 'p': { // PUT
            std::uint64_t index = 0;
            if (auto e = decimalIndex(index)) {
                return e;
            }
            return memoPut(index);
        }
        case 'q':
            if (auto e = need(1)) {
                return e;
            }
            return memoPut(little<std::uint8_t>(1));
        case 'r':
            if (auto e = need(4)) {
                return e;
            }
            return memoPut(little<std::uint32_t>(4));
        case 0x94:
            return memoPut(m_memo.size() + m_sparseMemo.size()); // MEMOIZE: the next index, len(memo)
        case 'g': {
            std::uint64_t index = 0;
            if (auto e = decimalIndex(index)) {
                return e;
            }
            return memoGet(index);
        }
        case 'h':
            if (auto e = need(1)) {
                return e;
            }
            return memoGet(little<std::uint8_t>(1));
        case 'j':
            if (auto e = need(4)) {
                return e;
            }
            return memoGet(little<std::uint32_t>(4));
        case 'c':
        case 0x93:
        case 'R':
        case 'b':
        case 'i':
        case 'o':
        case 0x81:
        case 0x92:
        case 0x82:
        case 0x83:
        case 0x84:
        case 'P':
        case 'Q':
        case 0x97:
        case 0x98:
            return refuse();
        default:
            return fail(m_opAt, "unknown opcode " + opcodeText(m_op) + ": not a pickle, or a damaged one");
        }
    }

    // ---- STOP: the tree made final ----------------------------------------------------------------

    std::optional<Error> finish()
    {
        // Containers appended to in several places get their items together at the end.
        std::size_t extra = 0;
        for (const auto& [node, runs] : m_extraRuns) {
            extra += m_nodes[node].size;
        }
        m_children.reserve(m_children.size() + extra);
        for (const auto& [node, runs] : m_extraRuns) {
            const auto offset = m_children.size();
            for (const auto& run : runs) {
                for (std::uint64_t i = 0; i < run.count; ++i) {
                    m_children.push_back(m_children[static_cast<std::size_t>(run.offset + i)]);
                }
            }
            m_nodes[node].payload = offset;
        }
        for (auto& node : m_nodes) {
            if (node.kind == PlainKind::Dict) {
                node.size /= 2;
            }
        }
        const auto root = m_stack.back();
        m_doc.setRoot(root);
        if (auto e = checkDepth(root)) {
            return e;
        }
        m_stack = {};
        m_memo = {};
        m_sparseMemo = {};
        m_extraRuns = {};
        // Leave no more than a quarter unused (the tree's memory budget counts capacity).
        if (m_nodes.capacity() > m_nodes.size() + m_nodes.size() / 4) {
            m_nodes.shrink_to_fit();
        }
        if (m_children.capacity() > m_children.size() + m_children.size() / 4) {
            m_children.shrink_to_fit();
        }
        if (m_text.capacity() > m_text.size() + m_text.size() / 4) {
            m_text.shrink_to_fit();
        }
        return std::nullopt;
    }

    /// Depth-first over the containers, each once: refuses a container that contains itself and nesting
    /// beyond maxDepth (each container's height kept, so a shared one reached by a longer path counts).
    std::optional<Error> checkDepth(std::uint32_t root)
    {
        constexpr std::uint32_t kOpen = std::numeric_limits<std::uint32_t>::max();
        std::vector<std::uint32_t> height(m_nodes.size(), 0); // 0: not seen; containers' heights are >= 1
        struct Frame
        {
            std::uint32_t node;
            std::uint32_t next;
            std::uint32_t height;
        };
        std::vector<Frame> path;
        const auto isContainer = [](PlainKind k) {
            return k == PlainKind::List || k == PlainKind::Tuple || k == PlainKind::Dict;
        };
        const auto childCount = [](const PlainDocument::Node& n) {
            return n.kind == PlainKind::Dict ? static_cast<std::uint64_t>(n.size) * 2 : n.size;
        };
        const auto tooDeep = [&] {
            return fail(m_stopAt,
                "opcode STOP (.) finds containers nested deeper than " + std::to_string(m_limits.maxDepth));
        };
        if (!isContainer(m_nodes[root].kind)) {
            return std::nullopt;
        }
        height[root] = kOpen;
        path.push_back({ root, 0, 1 });
        while (!path.empty()) {
            auto& top = path.back();
            const auto& node = m_nodes[top.node];
            if (top.next == childCount(node)) {
                const auto done = top;
                path.pop_back();
                height[done.node] = done.height;
                if (!path.empty()) {
                    path.back().height = std::max(path.back().height, done.height + 1);
                }
                continue;
            }
            const auto child = m_children[static_cast<std::size_t>(node.payload) + top.next++];
            if (!isContainer(m_nodes[child].kind)) {
                continue;
            }
            const auto h = height[child];
            if (h == kOpen) {
                return fail(m_stopAt,
                    "opcode STOP (.) finds a " + std::string(plainKindName(m_nodes[child].kind))
                        + " that contains itself (through the memo): a memory snapshot has no cycles");
            }
            if (h != 0) {
                if (path.size() + h > m_limits.maxDepth) {
                    return tooDeep();
                }
                top.height = std::max(top.height, h + 1);
                continue;
            }
            if (path.size() + 1 > m_limits.maxDepth) {
                return tooDeep();
            }
            height[child] = kOpen;
            path.push_back({ child, 0, 1 });
        }
        return std::nullopt;
    }
};

} // namespace

Result<PlainDocument> readPickle(std::string_view bytes, const PlainLimits& limits)
{
    PickleMachine machine(bytes, limits);
    return machine.run();
}

} // namespace headroom

// Opening any file PyTorch writes about a run's memory, recognised by its content: a pickle (protocol 2+
// starts with PROTO 0x80; protocols 0 and 1 with MARK '(' or EMPTY_DICT '}'), gzip (1f 8b: a .json.gz
// memory timeline, or anything above compressed), an HTML page (memory_viz's export embedding the
// pickle), or JSON: an object with segments / device_traces (the snapshot saved as JSON), an object
// with traceEvents (a Chrome trace), an array [times, sizes] (a memory timeline).
#include "ProfilerExports.h"
#include "headroom/measured/MeasuredRun.h"
#include "support/JsonText.h"

#include <cctype>
#include <string>

namespace headroom {

namespace {

std::string_view trimmedStart(std::string_view s)
{
    if (s.starts_with("\xEF\xBB\xBF"))
        s.remove_prefix(3);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())) != 0)
        s.remove_prefix(1);
    return s;
}

/// The first bytes as a message shows them: printable characters as they are, others as \xNN.
std::string shownStart(std::string_view bytes)
{
    std::string out;
    for (std::size_t i = 0; i < bytes.size() && i < 8; ++i) {
        const auto c = static_cast<unsigned char>(bytes[i]);
        if (c >= 0x20 && c < 0x7f) {
            out += static_cast<char>(c);
        } else {
            static constexpr char kHex[] = "0123456789abcdef";
            out += "\\x";
            out += kHex[c >> 4U];
            out += kHex[c & 15U];
        }
    }
    return out;
}

Error prefixed(const std::string& fileName, const Error& e)
{
    return Error { fileName + ": " + e.message,
        e.location.empty() ? fileName : fileName + ": " + e.location };
}

Result<MeasuredRun> fromPlain(Result<PlainDocument> document, RunFileKind kind, const std::string& fileName)
{
    if (!document)
        return prefixed(fileName, document.error());
    auto snapshot = decodeSnapshot(document.value().root());
    if (!snapshot)
        return prefixed(fileName, snapshot.error());
    return measureSnapshot(std::move(snapshot).value(), kind);
}

Result<MeasuredRun> readBytes(
    std::string_view bytes, const std::string& fileName, const PlainLimits& limits, int depth)
{
    if (bytes.size() > limits.maxInputBytes)
        return Error { fileName + ": " + std::to_string(bytes.size()) + " bytes, more than the "
                + std::to_string(limits.maxInputBytes) + " allowed",
            fileName };
    if (bytes.empty())
        return Error { fileName + ": the file is empty: not a file PyTorch writes about memory", fileName };
    const auto first = static_cast<unsigned char>(bytes.front());
    if (bytes.size() >= 2 && first == 0x1f && static_cast<unsigned char>(bytes[1]) == 0x8b) {
        if (depth > 0)
            return Error { fileName + ": gzip data inside gzip data: not a file PyTorch writes about memory",
                fileName };
        auto inflated = gunzip(bytes, limits);
        if (!inflated)
            return prefixed(fileName, inflated.error());
        return readBytes(inflated.value(), fileName, limits, depth + 1);
    }
    if (first == 0x80 || first == '(' || first == '}' || first == ']')
        return fromPlain(readPickle(bytes, limits), RunFileKind::SnapshotPickle, fileName);
    const std::string_view text = trimmedStart(bytes);
    if (text.starts_with("<")) {
        auto pickle = pickleFromMemoryVizHtml(text, limits);
        if (!pickle)
            return prefixed(fileName, pickle.error());
        return fromPlain(readPickle(pickle.value(), limits), RunFileKind::SnapshotHtml, fileName);
    }
    if (text.starts_with("{")) {
        // A Chrome trace names traceEvents; a snapshot segments / device_traces (read by the plain
        // reader, which keeps a large trace compact).
        const bool chrome = text.find("\"traceEvents\"") != std::string_view::npos;
        if (!chrome) {
            if (text.find("\"device_traces\"") == std::string_view::npos
                && text.find("\"segments\"") == std::string_view::npos)
                return Error { fileName
                        + ": not a file PyTorch writes about memory (a JSON object without "
                          "segments, device_traces or traceEvents)",
                    fileName };
            return fromPlain(readPlainJson(text, limits), RunFileKind::SnapshotJson, fileName);
        }
    }
    if (text.starts_with("{") || text.starts_with("[")) {
        auto json = detail::parseJsonText(text, fileName);
        if (!json)
            return json.error();
        const nlohmann::json& root = json.value();
        if (root.is_object() || (root.is_array() && !root.empty() && root[0].is_object()))
            return measured::readChromeTrace(root, fileName);
        return measured::readMemoryTimeline(root, fileName);
    }
    return Error { fileName + ": not a file PyTorch writes about memory (it starts with \""
            + shownStart(bytes)
            + "\"; expected a memory snapshot pickle, its JSON or memory_viz page, a memory timeline or a "
              "Chrome trace)",
        fileName };
}

} // namespace

Result<MeasuredRun> readMeasuredRun(
    std::string_view bytes, std::string_view fileName, const PlainLimits& limits)
{
    return readBytes(bytes, std::string(fileName), limits, 0);
}

Result<MeasuredRun> readMeasuredRun(const std::filesystem::path& path, const PlainLimits& limits)
{
    auto bytes = detail::readTextFile(path.string(), limits.maxInputBytes);
    if (!bytes)
        return bytes.error();
    return readBytes(bytes.value(), path.string(), limits, 0);
}

} // namespace headroom

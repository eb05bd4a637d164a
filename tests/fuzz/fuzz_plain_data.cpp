// libFuzzer harness for the plain-data readers of measured runs (headroom/measured/PlainData.h): any
// bytes, read as a pickle, as JSON, as gzip and as a memory_viz page, must give a tree or an Error (one
// line, naming where), never a crash, a hang or a leak; a tree must be whole: every child index, string
// span and dict entry inside the document, and reachable from the root without a cycle.
#include "headroom/measured/PlainData.h"

#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

namespace {

using headroom::PlainDocument;
using headroom::PlainKind;

/// Small limits: the fuzzer's inputs are small, and the limits' own errors get exercised.
headroom::PlainLimits fuzzLimits()
{
    headroom::PlainLimits limits;
    limits.maxInputBytes = 1 << 20;
    limits.maxDepth = 16;
    limits.maxNodes = 100'000;
    limits.maxContainerItems = 10'000;
    limits.maxStringBytes = 1 << 16;
    limits.maxMemo = 10'000;
    return limits;
}

void checkError(const headroom::Error& error)
{
    if (error.message.empty() || error.location.empty() || error.message.find('\n') != std::string::npos) {
        std::abort(); // one line, and a place
    }
}

void checkTree(const PlainDocument& doc)
{
    const auto& nodes = doc.nodes();
    const auto& children = doc.children();
    if (doc.root().node() >= nodes.size()) {
        std::abort();
    }
    for (const auto& node : nodes) {
        switch (node.kind) {
        case PlainKind::String:
        case PlainKind::Bytes:
            if (node.payload + node.size > doc.text().size()) {
                std::abort();
            }
            break;
        case PlainKind::List:
        case PlainKind::Tuple:
        case PlainKind::Dict: {
            const std::uint64_t count
                = node.kind == PlainKind::Dict ? std::uint64_t { node.size } * 2 : node.size;
            if (node.payload + count > children.size()) {
                std::abort();
            }
            for (std::uint64_t i = 0; i < count; ++i) {
                if (children[node.payload + i] >= nodes.size()) {
                    std::abort();
                }
            }
            break;
        }
        default:
            break;
        }
    }
    // Every value reachable through the accessors within the depth limit (no cycle: the reader refuses them).
    std::vector<std::pair<headroom::PlainValue, int>> stack { { doc.root(), 0 } };
    std::size_t visited = 0;
    while (!stack.empty()) {
        const auto [value, depth] = stack.back();
        stack.pop_back();
        if (++visited > 10'000'000 || depth > 17) {
            std::abort();
        }
        (void)value.asString();
        (void)value.asDouble();
        for (std::size_t i = 0; i < value.size(); ++i) {
            if (value.kind() == PlainKind::Dict) {
                stack.push_back({ value.keyAt(i), depth + 1 });
                stack.push_back({ value.valueAt(i), depth + 1 });
                (void)value.find(value.keyAt(i).asString());
            } else {
                stack.push_back({ value[i], depth + 1 });
            }
        }
    }
}

template <typename R> void check(const R& result)
{
    if (result.ok()) {
        checkTree(result.value());
    } else {
        checkError(result.error());
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const std::string_view bytes(reinterpret_cast<const char*>(data), size);
    const auto limits = fuzzLimits();
    check(headroom::readPickle(bytes, limits));
    check(headroom::readPlainJson(bytes, limits));
    if (const auto text = headroom::gunzip(bytes, limits); text.ok()) {
        check(headroom::readPickle(text.value(), limits));
        check(headroom::readPlainJson(text.value(), limits));
    } else {
        checkError(text.error());
    }
    if (const auto pickle = headroom::pickleFromMemoryVizHtml(bytes, limits); pickle.ok()) {
        check(headroom::readPickle(pickle.value(), limits));
    } else {
        checkError(pickle.error());
    }
    return 0;
}

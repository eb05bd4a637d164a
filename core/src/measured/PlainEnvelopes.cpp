// The wrappers a snapshot or an export comes in: gzip (a .json.gz memory timeline) and the memory_viz
// HTML page that embeds a snapshot's pickle.
//
// How memory_viz embeds the snapshot (pytorch/pytorch torch/cuda/_memory_viz.py, `_format_viz`, used by
// `trace_plot`, `segment_plot` and `profile_plot`). Read at pytorch/pytorch commit 0044eb67 (the
// single-quoted file with _profile_to_snapshot and a plain warnings.warn: the PyTorch 2.1/2.2 form) and
// in the later reformatted file (double quotes, FutureWarning with stacklevel=3: PyTorch 2.4 on), as
// well as copies of it in other projects; the embedding is the same in all of them. PyTorch 1.13 has no
// trace_plot. No release was checked one by one:
//     buffer = pickle.dumps(data)
//     buffer += b'\x00' * (3 - len(buffer) % 3)           # 1 to 3 NUL bytes, never 0
//     encoded_buffer = base64.b64encode(buffer).decode('utf-8')
//     json_format = json.dumps([{"name": 'snapshot.pickle', "base64": encoded_buffer}])
// and the page's module script holds `const local_files = <json_format>` followed by
// `add_local_files(local_files, <viz kind>)`; torch/utils/viz/MemoryViz.js's add_local_files decodes each
// file's "base64" with decode_base64 and unpickles it. So the pickle is the first "base64" string of the
// page: standard base64 (A-Z a-z 0-9 + /, '=' padding, no line breaks), followed by the NUL padding,
// which is dropped here (a pickle ends with its STOP byte '.').
#include "headroom/measured/PlainData.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <zlib.h>

namespace headroom {

namespace {

/// The value of a base64 character, -1 for '=', -2 for anything else.
int base64Value(unsigned char c) noexcept
{
    if (c >= 'A' && c <= 'Z') {
        return c - 'A';
    }
    if (c >= 'a' && c <= 'z') {
        return c - 'a' + 26;
    }
    if (c >= '0' && c <= '9') {
        return c - '0' + 52;
    }
    if (c == '+') {
        return 62;
    }
    if (c == '/') {
        return 63;
    }
    return c == '=' ? -1 : -2;
}

Error htmlError(std::size_t at, const std::string& what)
{
    return Error { "memory_viz page, byte " + std::to_string(at) + ": " + what,
        "byte " + std::to_string(at) };
}

} // namespace

Result<std::string> pickleFromMemoryVizHtml(std::string_view html, const PlainLimits& limits)
{
    constexpr std::string_view kKey = "\"base64\"";
    const auto keyAt = html.find(kKey);
    if (keyAt == std::string_view::npos) {
        return htmlError(0,
            "no embedded snapshot (memory_viz's trace_plot and segment_plot pages hold it as \"base64\" in "
            "their script)");
    }
    auto pos = keyAt + kKey.size();
    const auto skipSpace = [&] {
        while (pos < html.size()
            && (html[pos] == ' ' || html[pos] == '\t' || html[pos] == '\n' || html[pos] == '\r')) {
            ++pos;
        }
    };
    skipSpace();
    if (pos >= html.size() || html[pos] != ':') {
        return htmlError(pos, "\"base64\" is not followed by ':'");
    }
    ++pos;
    skipSpace();
    if (pos >= html.size() || html[pos] != '"') {
        return htmlError(pos, "\"base64\" is not followed by a string");
    }
    const auto start = ++pos;
    const auto end = html.find('"', start);
    if (end == std::string_view::npos) {
        return htmlError(start, "the base64 string has no closing quote: truncated");
    }

    std::string out;
    const auto length = end - start;
    if (length / 4 * 3 > limits.maxInputBytes + 3) {
        return htmlError(start,
            "the embedded snapshot is about " + std::to_string(length / 4 * 3)
                + " bytes, beyond the limit of " + std::to_string(limits.maxInputBytes));
    }
    out.reserve(length / 4 * 3);
    std::uint32_t quad = 0;
    int inQuad = 0;
    int padding = 0;
    for (std::size_t i = start; i < end; ++i) {
        const auto c = static_cast<unsigned char>(html[i]);
        if (c == '\\' && i + 1 < end && html[i + 1] == '/') {
            continue; // JSON may write '/' as "\/"
        }
        const int v = base64Value(c);
        if (v == -2) {
            return htmlError(i,
                std::string("'") + (c >= 0x20 && c < 0x7f ? std::string(1, static_cast<char>(c)) : "?")
                    + "' is not base64");
        }
        if (v == -1) {
            ++padding;
            if (padding > 2 || inQuad < 2) {
                return htmlError(i, "misplaced '=' in the base64 string");
            }
        } else if (padding > 0) {
            return htmlError(i, "base64 continues after its '=' padding");
        }
        quad = (quad << 6) | static_cast<std::uint32_t>(v < 0 ? 0 : v);
        if (++inQuad == 4) {
            out += static_cast<char>((quad >> 16) & 0xFF);
            if (padding < 2) {
                out += static_cast<char>((quad >> 8) & 0xFF);
            }
            if (padding < 1) {
                out += static_cast<char>(quad & 0xFF);
            }
            quad = 0;
            inQuad = 0;
        }
    }
    if (inQuad != 0) {
        return htmlError(end, "the base64 string's length is not a multiple of 4: truncated");
    }
    // _format_viz's padding: 1 to 3 NUL bytes after the pickle's STOP.
    for (int i = 0; i < 3 && !out.empty() && out.back() == '\0'; ++i) {
        out.pop_back();
    }
    if (out.empty()) {
        return htmlError(start, "the embedded snapshot is empty");
    }
    if (out.size() > limits.maxInputBytes) {
        return htmlError(start,
            "the embedded snapshot is " + std::to_string(out.size()) + " bytes, beyond the limit of "
                + std::to_string(limits.maxInputBytes));
    }
    return out;
}

Result<std::string> gunzip(std::string_view data, const PlainLimits& limits)
{
    const auto fail = [](std::uint64_t at, const std::string& what) {
        return Error { "gzip data, byte " + std::to_string(at) + ": " + what, "byte " + std::to_string(at) };
    };
    if (data.size() < 2 || static_cast<unsigned char>(data[0]) != 0x1f
        || static_cast<unsigned char>(data[1]) != 0x8b) {
        return fail(0, "not gzip data (no 1f 8b signature)");
    }
    z_stream stream {};
    // 16 + MAX_WBITS: the gzip wrapper only, its header and CRC checked by zlib.
    if (inflateInit2(&stream, 16 + MAX_WBITS) != Z_OK) {
        return fail(0, "zlib cannot start inflating");
    }
    struct End
    {
        z_stream* s;
        ~End() { inflateEnd(s); }
    } end { &stream };

    std::string out;
    std::array<unsigned char, 1 << 16> buffer {};
    std::size_t offset = 0;
    while (true) {
        // zlib counts in 32-bit uInt: the input is fed in pieces below 1 GiB.
        const auto piece = std::min<std::size_t>(data.size() - offset, 1U << 30);
        stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data() + offset));
        stream.avail_in = static_cast<uInt>(piece);
        int status = Z_OK;
        do {
            stream.next_out = buffer.data();
            stream.avail_out = static_cast<uInt>(buffer.size());
            status = inflate(&stream, Z_NO_FLUSH);
            const auto at = offset + (piece - stream.avail_in);
            if (status == Z_NEED_DICT || status == Z_DATA_ERROR || status == Z_MEM_ERROR) {
                return fail(at,
                    std::string("corrupt data (zlib: ") + (stream.msg != nullptr ? stream.msg : "error")
                        + ")");
            }
            const auto produced = buffer.size() - stream.avail_out;
            if (out.size() + produced > limits.maxInputBytes) {
                return fail(at,
                    "inflates beyond the limit of " + std::to_string(limits.maxInputBytes)
                        + " bytes (a zip bomb, or a file too large to read)");
            }
            out.append(reinterpret_cast<const char*>(buffer.data()), produced);
        } while (status != Z_STREAM_END && (stream.avail_in > 0 || stream.avail_out == 0));
        offset += piece - stream.avail_in;
        if (status == Z_STREAM_END) {
            // Another gzip member may follow (gzip concatenates them); NUL padding is allowed after the last.
            const auto rest = data.substr(offset);
            if (rest.size() >= 2 && static_cast<unsigned char>(rest[0]) == 0x1f
                && static_cast<unsigned char>(rest[1]) == 0x8b) {
                inflateReset(&stream);
                continue;
            }
            if (std::any_of(rest.begin(), rest.end(), [](char c) { return c != '\0'; })) {
                return fail(offset, std::to_string(rest.size()) + " bytes follow the gzip stream");
            }
            return out;
        }
        if (offset >= data.size()) {
            return fail(data.size(), "the gzip stream ends early: truncated");
        }
    }
}

} // namespace headroom

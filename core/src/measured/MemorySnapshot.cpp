// A memory snapshot's plain data decoded (MemorySnapshot.h). The keys follow what PyTorch writes:
// torch/csrc/cuda/Module.cpp THCPModule_memorySnapshot (2.1 to 2.4: segments and device_traces; time_us
// from 2.1's successors) and torch/csrc/cuda/memory_snapshot.cpp _memory_snapshot_pickled (later:
// allocator_settings, external_annotations, compile_context, user_metadata, pool_id per trace entry).
// What a key means:
// - segment: device, address, total_size (cudaMalloc'd, or an expandable segment's mapped range),
//   allocated_size, active_size, requested_size, stream, segment_type "large"/"small", segment_pool_id
//   (a tuple (int, int): (0, 0) is the default pool), is_expandable, frames, blocks.
// - block: address, size (the block: what allocated_bytes counts), requested_size, state
//   ("active_allocated" when allocated; "active_pending_free" when freed but still used by another
//   stream's pending work; "inactive" when cached), frames.
// - trace entry: action, addr (device_free for an oom), size, stream, time_us, frames, compile_context,
//   user_metadata. record_trace in c10/cuda/CUDACachingAllocator.cpp: alloc and free_requested /
//   free_completed carry the *requested* size (orig_size, block->requested_size), segment_alloc /
//   segment_free the segment's size, segment_map / segment_unmap the range (un)mapped (which is what
//   reserved_bytes grows or shrinks by), oom the requested size.
// - allocator_settings: PYTORCH_CUDA_ALLOC_CONF (the string last set), max_split_size (SIZE_MAX, written as
//   int64 -1, when unset), garbage_collection_threshold, expandable_segments, roundup_power2_divisions
//   (a dict {"1": n, "2": n, "4": n, ...}: the interval from that many MiB), pinned_num_register_threads,
//   release_lock_on_cudamalloc, pinned_use_cuda_host_register.
#include "headroom/measured/MemorySnapshot.h"

#include "headroom/support/Format.h"

#include <bit>
#include <cstddef>
#include <functional>
#include <string>
#include <unordered_map>
#include <utility>

namespace headroom {

std::string_view runActionName(RunAction a) noexcept
{
    switch (a) {
    case RunAction::Alloc:
        return "alloc";
    case RunAction::FreeRequested:
        return "free_requested";
    case RunAction::FreeCompleted:
        return "free_completed";
    case RunAction::SegmentAlloc:
        return "segment_alloc";
    case RunAction::SegmentFree:
        return "segment_free";
    case RunAction::SegmentMap:
        return "segment_map";
    case RunAction::SegmentUnmap:
        return "segment_unmap";
    case RunAction::Snapshot:
        return "snapshot";
    case RunAction::Oom:
        return "oom";
    case RunAction::Annotate:
        return "annotate";
    }
    return "alloc";
}

namespace snapshot_decoding {

/// Thrown inside the decoder, turned into an Error at its edge (one place builds the message).
struct DecodeFailure
{
    Error error;
};

[[noreturn]] void fail(const std::string& path, const std::string& what)
{
    throw DecodeFailure { Error { path + " " + what, path } };
}

std::string kindOf(const PlainValue& v)
{
    return v.valid() ? std::string(plainKindName(v.kind())) : std::string("missing");
}

std::string at(const std::string& path, std::size_t i)
{
    return path + "[" + std::to_string(i) + "]";
}
std::string key(const std::string& path, std::string_view k)
{
    return path + "." + std::string(k);
}

class Decoder
{
public:
    explicit Decoder(MemorySnapshot& out)
        : m_out { out }
    {
    }

    void decode(const PlainValue& root)
    {
        if (!root.valid() || root.kind() != PlainKind::Dict)
            fail("the snapshot", "must be a dict with segments and device_traces, not " + kindOf(root));
        const PlainValue segments = root.find("segments");
        const PlainValue traces = root.find("device_traces");
        if (!segments.valid() && !traces.valid())
            fail("the snapshot", "has neither segments nor device_traces: not a PyTorch memory snapshot");
        if (segments.valid())
            decodeSegments(segments);
        else {
            m_out.segmentsRecorded = false;
            m_out.notes.push_back("no segments: the allocator's state at the snapshot is unknown");
        }
        if (traces.valid())
            decodeTraces(traces);
        else
            m_out.notes.push_back("no device_traces: the memory history was not recorded");
        const PlainValue settings = root.find("allocator_settings");
        if (settings.valid() && !settings.isNone())
            decodeSettings(settings);
        else
            m_out.notes.push_back("no allocator_settings (files before PyTorch 2.4 lack them): the "
                                  "allocator's defaults are assumed");
        const PlainValue external = root.find("external_annotations");
        if (external.valid() && !external.isNone())
            decodeExternal(external);
        if (m_missingTimes)
            m_out.notes.push_back("trace entries without time_us (PyTorch before 2.1): times are the "
                                  "entries' order");
    }

private:
    MemorySnapshot& m_out;
    std::unordered_map<std::uint32_t, StackId> m_byNode; ///< a frame list's node (pickle memo) -> stack
    std::unordered_multimap<std::size_t, StackId> m_byHash; ///< equal lists met as different nodes
    std::unordered_map<std::string, std::uint32_t> m_annotationIndex;
    bool m_missingTimes = false;

    static PlainValue required(const PlainValue& dict, std::string_view k, const std::string& path)
    {
        const PlainValue v = dict.find(k);
        if (!v.valid())
            fail(key(path, k), "is missing");
        return v;
    }

    static bool isUnsigned(const PlainValue& v)
    {
        return v.valid() && v.kind() == PlainKind::Int && v.asInt() >= 0;
    }
    [[noreturn]] static void notUnsigned(const PlainValue& v, const std::string& path)
    {
        fail(path,
            "must be a non-negative integer, not "
                + (v.valid() && v.kind() == PlainKind::Int ? "a negative number" : kindOf(v)));
    }
    static std::uint64_t unsignedValue(const PlainValue& v, const std::string& path)
    {
        if (!isUnsigned(v))
            notUnsigned(v, path);
        return static_cast<std::uint64_t>(v.asInt());
    }
    static std::uint64_t unsignedAt(const PlainValue& dict, std::string_view k, const std::string& path)
    {
        const PlainValue v = required(dict, k, path);
        if (!isUnsigned(v))
            notUnsigned(v, key(path, k)); // the path is built only for the message
        return static_cast<std::uint64_t>(v.asInt());
    }
    static std::uint64_t unsignedOr(
        const PlainValue& dict, std::string_view k, const std::string& path, std::uint64_t otherwise)
    {
        const PlainValue v = dict.find(k);
        if (!v.valid() || v.isNone())
            return otherwise;
        if (!isUnsigned(v))
            notUnsigned(v, key(path, k));
        return static_cast<std::uint64_t>(v.asInt());
    }
    static std::int64_t integerOr(
        const PlainValue& dict, std::string_view k, const std::string& path, std::int64_t otherwise)
    {
        const PlainValue v = dict.find(k);
        if (!v.valid() || v.isNone())
            return otherwise;
        if (!v.isInteger())
            fail(key(path, k), "must be an integer, not " + kindOf(v));
        return v.asInt();
    }
    static std::string_view stringAt(const PlainValue& dict, std::string_view k, const std::string& path)
    {
        const PlainValue v = required(dict, k, path);
        if (v.kind() != PlainKind::String && v.kind() != PlainKind::Bytes)
            fail(key(path, k), "must be a string, not " + kindOf(v));
        return v.asString();
    }
    static void requireDict(const PlainValue& v, const std::string& path)
    {
        if (!v.valid() || v.kind() != PlainKind::Dict)
            fail(path, "must be a dict, not " + kindOf(v));
    }
    static void requireSequence(const PlainValue& v, const std::string& path)
    {
        if (!v.valid() || (v.kind() != PlainKind::List && v.kind() != PlainKind::Tuple))
            fail(path, "must be a list, not " + kindOf(v));
    }

    /// The stack of a dict's "frames" (kNoStack when absent or empty). A list met again as the same
    /// node (pickle memo) costs a lookup; equal lists as different nodes (JSON) are found by hash.
    StackId stackOf(const PlainValue& dict, const std::string& path)
    {
        const PlainValue frames = dict.find("frames");
        if (!frames.valid() || frames.isNone())
            return kNoStack;
        if (frames.kind() != PlainKind::List && frames.kind() != PlainKind::Tuple)
            requireSequence(frames, key(path, "frames"));
        if (frames.size() == 0)
            return kNoStack;
        if (const auto it = m_byNode.find(frames.node()); it != m_byNode.end())
            return it->second;
        std::vector<RunFrame> stack;
        stack.reserve(frames.size());
        std::size_t hash = frames.size();
        for (std::size_t i = 0; i < frames.size(); ++i) {
            const PlainValue f = frames[i];
            const std::string fpath = at(key(path, "frames"), i);
            requireDict(f, fpath);
            RunFrame frame;
            const PlainValue file = f.find("filename");
            const PlainValue name = f.find("name");
            frame.filename = std::string(file.asString());
            frame.name = std::string(name.asString());
            frame.line = integerOr(f, "line", fpath, 0);
            hash = hash * 1000003U ^ std::hash<std::string> {}(frame.filename)
                ^ (std::hash<std::string> {}(frame.name) << 1U) ^ static_cast<std::size_t>(frame.line);
            stack.push_back(std::move(frame));
        }
        StackId id = kNoStack;
        const auto [first, last] = m_byHash.equal_range(hash);
        for (auto it = first; it != last; ++it) {
            if (m_out.stacks[it->second] == stack) {
                id = it->second;
                break;
            }
        }
        if (id == kNoStack) {
            id = static_cast<StackId>(m_out.stacks.size());
            m_out.stacks.push_back(std::move(stack));
            m_byHash.emplace(hash, id);
        }
        m_byNode.emplace(frames.node(), id);
        return id;
    }

    std::uint32_t annotationIndex(std::string text)
    {
        if (const auto it = m_annotationIndex.find(text); it != m_annotationIndex.end())
            return it->second;
        const auto index = static_cast<std::uint32_t>(m_out.annotations.size());
        m_annotationIndex.emplace(text, index);
        m_out.annotations.push_back(std::move(text));
        return index;
    }

    void decodeSegments(const PlainValue& segments)
    {
        requireSequence(segments, "segments");
        m_out.segments.reserve(segments.size());
        for (std::size_t i = 0; i < segments.size(); ++i) {
            const std::string path = at("segments", i);
            const PlainValue s = segments[i];
            requireDict(s, path);
            SnapshotSegment seg;
            seg.device = integerOr(s, "device", path, 0);
            seg.address = unsignedAt(s, "address", path);
            seg.totalSize = unsignedAt(s, "total_size", path);
            seg.allocatedSize = unsignedOr(s, "allocated_size", path, 0);
            seg.activeSize = unsignedOr(s, "active_size", path, 0);
            seg.requestedSize = unsignedOr(s, "requested_size", path, 0);
            seg.stream = integerOr(s, "stream", path, 0);
            if (const PlainValue type = s.find("segment_type"); type.valid() && !type.isNone()) {
                const std::string_view t = stringAt(s, "segment_type", path);
                if (t != "large" && t != "small")
                    fail(key(path, "segment_type"),
                        "must be \"large\" or \"small\", not " + quoteForMessage(t));
                seg.large = t == "large";
            } else {
                seg.large = seg.totalSize > kSmallBuffer;
            }
            if (const PlainValue pool = s.find("segment_pool_id"); pool.valid() && !pool.isNone()) {
                if ((pool.kind() == PlainKind::Tuple || pool.kind() == PlainKind::List) && pool.size() >= 1) {
                    // (0, 0) is the default pool; CUDA graphs and MemPools number theirs (n, 0) or (0, n).
                    seg.poolId
                        = pool[0].asInt() != 0 ? pool[0].asInt() : (pool.size() > 1 ? pool[1].asInt() : 0);
                } else if (pool.isInteger()) {
                    seg.poolId = pool.asInt();
                } else {
                    fail(
                        key(path, "segment_pool_id"), "must be a tuple of two integers, not " + kindOf(pool));
                }
            }
            if (const PlainValue e = s.find("is_expandable"); e.valid() && !e.isNone()) {
                if (e.kind() != PlainKind::Bool && e.kind() != PlainKind::Int)
                    fail(key(path, "is_expandable"), "must be a bool, not " + kindOf(e));
                seg.expandable = e.asBool();
            }
            seg.stack = stackOf(s, path);
            const PlainValue blocks = s.find("blocks");
            if (blocks.valid() && !blocks.isNone()) {
                const std::string bpath = key(path, "blocks");
                requireSequence(blocks, bpath);
                seg.blocks.reserve(blocks.size());
                std::uint64_t next = seg.address;
                for (std::size_t j = 0; j < blocks.size(); ++j) {
                    const std::string p = at(bpath, j);
                    const PlainValue b = blocks[j];
                    requireDict(b, p);
                    SnapshotBlock block;
                    block.size = unsignedAt(b, "size", p);
                    // Blocks follow one another from the segment's address (Module.cpp writes
                    // address += size); files without "address" rely on that.
                    block.address = unsignedOr(b, "address", p, next);
                    next = block.address + block.size;
                    block.requestedSize = unsignedOr(b, "requested_size", p, 0);
                    const std::string_view state = stringAt(b, "state", p);
                    if (state == "active_allocated")
                        block.state = BlockState::ActiveAllocated;
                    else if (state == "active_pending_free" || state == "active_awaiting_free")
                        block.state = BlockState::ActivePendingFree;
                    else if (state == "inactive")
                        block.state = BlockState::Inactive;
                    else
                        fail(key(p, "state"),
                            "must be active_allocated, active_pending_free or inactive, not "
                                + quoteForMessage(state));
                    block.stack = stackOf(b, p);
                    seg.blocks.push_back(block);
                }
            }
            m_out.segments.push_back(std::move(seg));
        }
    }

    static RunAction actionOf(std::string_view a, const std::string& entryPath)
    {
        static constexpr std::pair<std::string_view, RunAction> kActions[] = {
            { "alloc", RunAction::Alloc },
            { "free_requested", RunAction::FreeRequested },
            { "free_completed", RunAction::FreeCompleted },
            { "segment_alloc", RunAction::SegmentAlloc },
            { "segment_free", RunAction::SegmentFree },
            { "segment_map", RunAction::SegmentMap },
            { "segment_unmap", RunAction::SegmentUnmap },
            { "snapshot", RunAction::Snapshot },
            { "oom", RunAction::Oom },
            { "annotate", RunAction::Annotate },
        };
        for (const auto& [name, action] : kActions) {
            if (name == a)
                return action;
        }
        fail(key(entryPath, "action"),
            "is " + quoteForMessage(a) + ", not an action PyTorch records (alloc, free_requested, ...)");
    }

    void decodeTraces(const PlainValue& traces)
    {
        requireSequence(traces, "device_traces");
        m_out.deviceTraces.resize(traces.size());
        for (std::size_t d = 0; d < traces.size(); ++d) {
            const std::string dpath = at("device_traces", d);
            const PlainValue trace = traces[d];
            requireSequence(trace, dpath);
            auto& out = m_out.deviceTraces[d];
            out.reserve(trace.size());
            for (std::size_t i = 0; i < trace.size(); ++i) {
                const std::string path = at(dpath, i);
                const PlainValue e = trace[i];
                requireDict(e, path);
                SnapshotTraceEntry entry;
                entry.action = actionOf(stringAt(e, "action", path), path);
                if (entry.action == RunAction::Oom) {
                    entry.deviceFree = unsignedOr(e, "device_free", path, 0);
                } else {
                    entry.address = unsignedOr(e, "addr", path, 0);
                }
                entry.size = unsignedOr(e, "size", path, 0);
                entry.stream = integerOr(e, "stream", path, 0);
                const PlainValue time = e.find("time_us");
                if (time.valid() && !time.isNone()) {
                    if (!time.isInteger())
                        fail(key(path, "time_us"), "must be an integer, not " + kindOf(time));
                    entry.timeUs = time.asInt();
                } else {
                    m_missingTimes = true;
                }
                entry.stack = stackOf(e, path);
                std::string text;
                for (const std::string_view k : { "compile_context", "user_metadata" }) {
                    const PlainValue v = e.find(k);
                    if (v.valid() && (v.kind() == PlainKind::String || v.kind() == PlainKind::Bytes)
                        && !v.asString().empty() && v.asString() != "N/A") {
                        if (!text.empty())
                            text += " | ";
                        text += v.asString();
                    }
                }
                if (!text.empty())
                    entry.annotation = annotationIndex(std::move(text));
                out.push_back(entry);
            }
        }
    }

    void decodeSettings(const PlainValue& s)
    {
        requireDict(s, "allocator_settings");
        RecordedAllocatorSettings& out = m_out.allocatorSettings;
        out.present = true;
        const std::string path = "allocator_settings";
        if (const PlainValue conf = s.find("PYTORCH_CUDA_ALLOC_CONF"); conf.valid() && !conf.isNone())
            out.allocConf = std::string(conf.asString());
        if (const PlainValue v = s.find("max_split_size"); v.valid() && v.isInteger()) {
            // SIZE_MAX when unset, written as int64: -1.
            if (v.asInt() > 0 && static_cast<std::uint64_t>(v.asInt()) < kNoLimit / 2)
                out.settings.maxSplitSize = static_cast<std::uint64_t>(v.asInt());
        }
        if (const PlainValue v = s.find("garbage_collection_threshold"); v.valid() && !v.isNone())
            out.settings.garbageCollectionThreshold = v.asDouble();
        if (const PlainValue v = s.find("expandable_segments"); v.valid() && !v.isNone())
            out.settings.expandableSegments = v.asBool();
        if (const PlainValue r = s.find("roundup_power2_divisions"); r.valid() && !r.isNone()) {
            const std::string rpath = key(path, "roundup_power2_divisions");
            if (r.kind() == PlainKind::Dict) {
                for (std::size_t i = 0; i < r.size(); ++i) {
                    // Key "1", "2", "4" ... : the interval from that many MiB (index log2 of it).
                    const std::string k(r.keyAt(i).asString());
                    std::uint64_t mib = 0;
                    for (const char c : k)
                        mib = c >= '0' && c <= '9' && mib < (1ULL << 40)
                            ? mib * 10 + static_cast<std::uint64_t>(c - '0')
                            : (1ULL << 41);
                    if (mib == 0 || !std::has_single_bit(mib) || mib > (1ULL << 15))
                        fail(rpath, "has key " + quoteForMessage(k) + ": expected 1, 2, 4 ... 32768 (MiB)");
                    const auto index = static_cast<std::size_t>(std::bit_width(mib) - 1);
                    const PlainValue v = r.valueAt(i);
                    out.settings.roundupPower2Divisions[index]
                        = static_cast<std::uint32_t>(unsignedValue(v, rpath + "[\"" + k + "\"]"));
                }
            } else if (r.kind() == PlainKind::List || r.kind() == PlainKind::Tuple) {
                for (std::size_t i = 0; i < r.size() && i < out.settings.roundupPower2Divisions.size(); ++i)
                    out.settings.roundupPower2Divisions[i]
                        = static_cast<std::uint32_t>(unsignedValue(r[i], at(rpath, i)));
            } else {
                fail(rpath, "must be a dict, not " + kindOf(r));
            }
        }
        // max_non_split_rounding_mb and the backend are only in the configuration string.
        const std::string& conf = out.allocConf;
        if (const auto p = conf.find("max_non_split_rounding_mb:"); p != std::string::npos) {
            std::uint64_t mb = 0;
            for (std::size_t i = p + 26;
                 i < conf.size() && conf[i] >= '0' && conf[i] <= '9' && mb < (1ULL << 30); ++i)
                mb = mb * 10 + static_cast<std::uint64_t>(conf[i] - '0');
            if (mb > 0)
                out.settings.maxNonSplitRoundingSize = mb << 20U;
        }
        if (conf.find("cudaMallocAsync") != std::string::npos)
            out.unmodelled.push_back(
                "backend:cudaMallocAsync (CUDA's own allocator, not the caching allocator)");
        if (const PlainValue v = s.find("release_lock_on_cudamalloc"); v.valid() && v.asBool())
            out.unmodelled.push_back("release_lock_on_cudamalloc");
        if (const PlainValue v = s.find("pinned_use_cuda_host_register"); v.valid() && v.asBool())
            out.unmodelled.push_back("pinned_use_cuda_host_register (pinned host memory)");
    }

    void decodeExternal(const PlainValue& list)
    {
        requireSequence(list, "external_annotations");
        m_out.externalAnnotations.reserve(list.size());
        for (std::size_t i = 0; i < list.size(); ++i) {
            const std::string path = at("external_annotations", i);
            const PlainValue a = list[i];
            requireDict(a, path);
            SnapshotAnnotation out;
            out.device = integerOr(a, "device", path, 0);
            out.timeUs = integerOr(a, "time_us", path, SnapshotTraceEntry::kNoTime);
            out.name = std::string(a.find("name").asString());
            const std::string_view stage = a.find("stage").asString();
            out.start = stage != "END";
            m_out.externalAnnotations.push_back(std::move(out));
        }
    }
};

} // namespace snapshot_decoding

Result<MemorySnapshot> decodeSnapshot(const PlainValue& root)
{
    using namespace snapshot_decoding;
    MemorySnapshot snapshot;
    try {
        Decoder(snapshot).decode(root);
    } catch (const DecodeFailure& failure) {
        return failure.error;
    }
    return snapshot;
}

} // namespace headroom

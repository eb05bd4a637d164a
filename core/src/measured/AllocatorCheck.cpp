#include "headroom/measured/AllocatorCheck.h"

#include "headroom/support/Format.h"

#include <algorithm>
#include <map>
#include <span>
#include <unordered_map>
#include <unordered_set>

// The run's own allocations replayed through CachingAllocator, and the segment events compared with the
// ones it recorded. What PyTorch records (c10/cuda/CUDACachingAllocator.cpp, DeviceCachingAllocator):
// - alloc_found_block: ALLOC with the block's address and orig_size, the size asked for (not the rounded
//   block), after any SEGMENT_ALLOC / SEGMENT_MAP the same malloc made;
// - free(): FREE_REQUESTED (requested_size); free_block(): FREE_COMPLETED (requested_size), at once when
//   the block was used on no other stream, else once its events complete (process_events): only then does
//   the block return to its pool, so the replay frees at free_completed (traces without any: at
//   free_requested);
// - alloc_block: SEGMENT_ALLOC with the segment's size (get_allocation_size of the rounded request), none
//   for expandable segments, which record SEGMENT_MAP (map_block, the mapped range: whole 2 MiB / 20 MiB
//   pages) and SEGMENT_UNMAP (unmap_block);
// - release_block: SEGMENT_FREE with the segment's size, from release_cached_blocks (empty_cache(), or a
//   malloc whose cudaMalloc failed: then before that allocation's SEGMENT_ALLOC and ALLOC),
//   release_available_cached_blocks and garbage_collect_cached_blocks (both inside malloc).

namespace headroom {

// Its own namespace: the unity build compiles this file with others, whose anonymous namespaces it shares.
namespace allocator_check {
namespace {

/// Sizes no device has: an entry claiming one is garbage.
constexpr std::uint64_t kAbsurdBytes = 1ULL << 48;
/// Within one allocation's events, how far either side is searched for the next agreeing event.
constexpr std::size_t kWindow = 8;
constexpr std::size_t kNoCause = static_cast<std::size_t>(-1);

bool isSegmentAction(RunAction a)
{
    return a == RunAction::SegmentAlloc || a == RunAction::SegmentFree || a == RunAction::SegmentMap
        || a == RunAction::SegmentUnmap;
}

SegmentEventKind segmentKind(RunAction a)
{
    switch (a) {
    case RunAction::SegmentFree:
        return SegmentEventKind::Free;
    case RunAction::SegmentMap:
        return SegmentEventKind::Map;
    case RunAction::SegmentUnmap:
        return SegmentEventKind::Unmap;
    default:
        return SegmentEventKind::Alloc;
    }
}

bool grows(SegmentEventKind k)
{
    return k == SegmentEventKind::Alloc || k == SegmentEventKind::Map;
}

std::string describe(SegmentEventKind kind, std::uint64_t bytes)
{
    switch (kind) {
    case SegmentEventKind::Alloc:
        return "reserved a " + formatBytes(bytes) + " segment (segment_alloc)";
    case SegmentEventKind::Free:
        return "released a " + formatBytes(bytes) + " segment (segment_free)";
    case SegmentEventKind::Map:
        return "mapped " + formatBytes(bytes) + " (segment_map)";
    case SegmentEventKind::Unmap:
        return "unmapped " + formatBytes(bytes) + " (segment_unmap)";
    }
    return {};
}

/// A segment event on either side, with the trace entry it happened at and the one that caused it.
struct Event
{
    SegmentEventKind kind = SegmentEventKind::Alloc;
    std::uint64_t bytes = 0;
    std::size_t event = 0;
    std::size_t cause = 0;
};

bool same(const Event& a, const Event& b)
{
    return a.kind == b.kind && a.bytes == b.bytes;
}

/// Aligns one cause's recorded and simulated events in order: equal heads match; otherwise the nearest
/// pair that agrees within kWindow on either side, skipping what lies before it. Marks the matched.
std::size_t align(std::span<const Event> rec, std::span<const Event> sim, std::vector<bool>& recMatched,
    std::vector<bool>& simMatched)
{
    recMatched.assign(rec.size(), false);
    simMatched.assign(sim.size(), false);
    std::size_t i = 0;
    std::size_t j = 0;
    std::size_t matches = 0;
    while (i < rec.size() && j < sim.size()) {
        if (same(rec[i], sim[j])) {
            recMatched[i++] = true;
            simMatched[j++] = true;
            ++matches;
            continue;
        }
        bool found = false;
        for (std::size_t skip = 1; skip <= 2 * kWindow && !found; ++skip) {
            for (std::size_t p = 0; p <= std::min(skip, kWindow) && !found; ++p) {
                const std::size_t q = skip - p;
                if (q > kWindow || i + p >= rec.size() || j + q >= sim.size())
                    continue;
                if (same(rec[i + p], sim[j + q])) {
                    i += p;
                    j += q;
                    found = true;
                }
            }
        }
        if (!found) {
            ++i;
            ++j;
        }
    }
    return matches;
}

std::string join(const std::vector<std::string>& parts)
{
    std::string text;
    for (std::size_t k = 0; k < parts.size(); ++k) {
        if (k > 0)
            text += k + 1 == parts.size() ? " and " : ", ";
        text += parts[k];
    }
    return text;
}

/// "reserved a 20.00 MiB segment (segment_alloc) and mapped ..." for the unmatched events, at most three.
std::string describeAll(std::span<const Event> events, const std::vector<bool>& matched)
{
    std::vector<std::string> parts;
    std::size_t more = 0;
    for (std::size_t k = 0; k < events.size(); ++k) {
        if (matched[k])
            continue;
        if (parts.size() < 3)
            parts.push_back(describe(events[k].kind, events[k].bytes));
        else
            ++more;
    }
    if (more > 0)
        parts.push_back(std::to_string(more) + " more");
    return join(parts);
}

bool anyGrows(std::span<const Event> events, const std::vector<bool>& matched)
{
    for (std::size_t k = 0; k < events.size(); ++k) {
        if (!matched[k] && grows(events[k].kind))
            return true;
    }
    return false;
}

std::string_view kindLabel(RunFileKind k)
{
    switch (k) {
    case RunFileKind::MemoryTimeline:
        return "the profiler's memory timeline";
    case RunFileKind::ChromeTrace:
        return "a Chrome trace";
    default:
        return "this file";
    }
}

/// A block alive before the trace's first entry.
struct EarlierBlock
{
    std::uint64_t address = 0;
    std::uint64_t size = 0; ///< the block's (rounded) size
    std::uint64_t requested = 0;
};

/// A segment that existed before the trace's first entry.
struct EarlierSegment
{
    std::uint64_t address = 0;
    std::uint64_t size = 0;
    bool small = false;
    bool expandable = false; ///< the mapped start of the pool's expandable segment
};

/// Saturating sums for sizes from a file.
std::uint64_t addBytes(std::uint64_t a, std::uint64_t b)
{
    return a > kNoLimit - b ? kNoLimit : a + b;
}
std::uint64_t subBytes(std::uint64_t a, std::uint64_t b)
{
    return a > b ? a - b : 0;
}

class Checker
{
public:
    Checker(
        const MeasuredRun& run, const MemorySnapshot& snapshot, const std::vector<SnapshotTraceEntry>& trace)
        : m_run(run)
        , m_snapshot(snapshot)
        , m_trace(trace)
    {
    }
    AllocatorCheck check();

private:
    void scan();
    void rebuildStart(
        CachingAllocator& sim, std::unordered_map<std::uint64_t, CachingAllocator::Handle>& live);
    void compare();
    AllocatorDivergence divergence(std::size_t cause, std::span<const Event> rec, std::span<const Event> sim,
        const std::vector<bool>& recMatched, const std::vector<bool>& simMatched) const;
    [[nodiscard]] const AllocatorCheckPoint& pointAt(std::size_t event) const;
    static void note(std::size_t& counter) { ++counter; }

    const MeasuredRun& m_run;
    const MemorySnapshot& m_snapshot;
    const std::vector<SnapshotTraceEntry>& m_trace;
    AllocatorCheck m_out;
    AllocatorSettings m_settings;
    bool m_freeAtCompleted = false;
    /// Per segment entry (in trace order): the alloc / oom entry it served, or the first entry of its run
    /// of releases outside any allocation.
    std::vector<std::size_t> m_causes;
    std::vector<bool> m_causedByAllocation;
    std::vector<EarlierBlock> m_earlierBlocks;
    std::vector<EarlierSegment> m_earlierSegments;
    std::vector<Event> m_recorded;
    std::vector<Event> m_simulated;
    std::vector<std::pair<std::uint64_t, std::uint64_t>> m_graphSegments; ///< [address, end), sorted
    // garbage, counted
    std::size_t m_zeroSize = 0;
    std::size_t m_absurd = 0;
    std::size_t m_unknownFrees = 0;
    std::size_t m_doubleAllocs = 0;
    std::size_t m_failedReplays = 0;
    std::size_t m_outsideSegments = 0;
    std::size_t m_ooms = 0;
};

void Checker::scan()
{
    std::unordered_set<std::int64_t> streams;
    for (const SnapshotTraceEntry& e : m_trace) {
        if (e.action == RunAction::FreeCompleted)
            m_freeAtCompleted = true;
        if (e.action == RunAction::Alloc)
            streams.insert(e.stream);
    }
    m_out.streams = streams.size();

    // Causes: segment events recorded just before an alloc (or oom) were made by that malloc.
    std::vector<std::pair<std::size_t, bool>> reversed;
    std::size_t trigger = kNoCause;
    for (std::size_t i = m_trace.size(); i-- > 0;) {
        const RunAction a = m_trace[i].action;
        if (a == RunAction::Alloc || a == RunAction::Oom)
            trigger = i;
        else if (isSegmentAction(a))
            reversed.emplace_back(trigger, trigger != kNoCause);
        else
            trigger = kNoCause;
    }
    std::reverse(reversed.begin(), reversed.end());
    m_causes.reserve(reversed.size());
    m_causedByAllocation.reserve(reversed.size());
    std::size_t k = 0;
    std::size_t runStart = kNoCause;
    for (std::size_t i = 0; i < m_trace.size(); ++i) {
        if (!isSegmentAction(m_trace[i].action)) {
            runStart = kNoCause;
            continue;
        }
        if (runStart == kNoCause)
            runStart = i;
        const auto [cause, byAllocation] = reversed[k++];
        m_causes.push_back(byAllocation ? cause : runStart);
        m_causedByAllocation.push_back(byAllocation);
    }

    // What was alive before the first entry: blocks freed without being allocated in the trace, blocks
    // alive at the snapshot never allocated in it; segments freed without being made in it, segments at
    // the snapshot it never touched.
    const auto freeAction = m_freeAtCompleted ? RunAction::FreeCompleted : RunAction::FreeRequested;
    // per address allocated in the trace: whether it is allocated now
    std::unordered_map<std::uint64_t, bool> allocated;
    allocated.reserve(1024);
    std::unordered_set<std::uint64_t> earlierFreed;
    std::unordered_set<std::uint64_t> segmentsMade;
    std::unordered_set<std::uint64_t> segmentsTouched;
    std::map<bool, std::int64_t> netMapped; // by pool (small?): mapped less unmapped in the trace
    for (const SnapshotTraceEntry& e : m_trace) {
        if (e.action == RunAction::Alloc && e.size != 0 && e.size < kAbsurdBytes) {
            allocated[e.address] = true;
        } else if (e.action == freeAction) {
            // A block alive before the trace is freed before any allocation at its address; a second free
            // is garbage (the replay notes it).
            auto it = allocated.find(e.address);
            if (it != allocated.end())
                it->second = false;
            else if (earlierFreed.insert(e.address).second && e.size != 0 && e.size < kAbsurdBytes)
                m_earlierBlocks.push_back(
                    EarlierBlock { e.address, CachingAllocator::roundSize(e.size, m_settings), e.size });
        } else if (e.action == RunAction::SegmentAlloc) {
            segmentsMade.insert(e.address);
            segmentsTouched.insert(e.address);
        } else if (e.action == RunAction::SegmentFree) {
            segmentsTouched.insert(e.address);
            if (segmentsMade.erase(e.address) == 0 && e.size != 0 && e.size < kAbsurdBytes)
                m_earlierSegments.push_back(EarlierSegment { e.address, e.size, e.size <= kSmallBuffer });
        } else if (e.action == RunAction::SegmentMap || e.action == RunAction::SegmentUnmap) {
            // 20 MiB pages are the large pool's; a small-pool map is one 2 MiB page
            const bool small = e.size % kLargeBuffer != 0;
            if (e.size < kAbsurdBytes)
                netMapped[small]
                    += (e.action == RunAction::SegmentMap ? 1 : -1) * static_cast<std::int64_t>(e.size);
        }
    }
    std::map<bool, std::uint64_t> expandableAtEnd;
    std::map<bool, std::uint64_t> expandableBase;
    for (const SnapshotSegment& s : m_snapshot.segments) {
        if (s.device != m_run.device)
            continue;
        if (s.poolId != 0)
            m_graphSegments.emplace_back(s.address, addBytes(s.address, s.totalSize));
        for (const SnapshotBlock& b : s.blocks) {
            const auto it = allocated.find(b.address);
            if (b.state != BlockState::Inactive && it == allocated.end() && earlierFreed.count(b.address) == 0
                && b.size != 0)
                m_earlierBlocks.push_back(EarlierBlock { b.address, b.size, b.requestedSize });
        }
        if (s.expandable) {
            expandableAtEnd[!s.large] += s.totalSize;
            auto [it, fresh] = expandableBase.emplace(!s.large, s.address);
            if (!fresh)
                it->second = std::min(it->second, s.address);
        } else if (segmentsTouched.count(s.address) == 0 && s.totalSize != 0) {
            m_earlierSegments.push_back(EarlierSegment { s.address, s.totalSize, !s.large });
        }
    }
    for (const bool small : { false, true }) {
        const auto end = static_cast<std::int64_t>(expandableAtEnd[small]);
        const std::int64_t before = end - netMapped[small];
        const std::uint64_t page = small ? kSmallBuffer : kLargeBuffer;
        if (before <= 0)
            continue;
        const auto bytes = (static_cast<std::uint64_t>(before) + page - 1) / page * page;
        const std::uint64_t base = expandableBase.count(small) != 0 ? expandableBase[small] : 0;
        m_earlierSegments.push_back(EarlierSegment { base, bytes, small, true });
    }
    std::sort(m_graphSegments.begin(), m_graphSegments.end());
    std::sort(m_earlierBlocks.begin(), m_earlierBlocks.end(),
        [](const EarlierBlock& a, const EarlierBlock& b) { return a.address < b.address; });
    std::sort(m_earlierSegments.begin(), m_earlierSegments.end(),
        [](const EarlierSegment& a, const EarlierSegment& b) { return a.address < b.address; });
}

void Checker::rebuildStart(
    CachingAllocator& sim, std::unordered_map<std::uint64_t, CachingAllocator::Handle>& live)
{
    std::vector<bool> placed(m_earlierBlocks.size(), false);
    std::vector<AdoptedBlock> layout;
    std::vector<std::size_t> which;
    for (const EarlierSegment& s : m_earlierSegments) {
        const bool expandable = s.expandable;
        const std::uint64_t end = addBytes(s.address, s.size);
        layout.clear();
        which.clear();
        std::uint64_t cursor = s.address;
        auto first = std::lower_bound(m_earlierBlocks.begin(), m_earlierBlocks.end(), s.address,
            [](const EarlierBlock& b, std::uint64_t a) { return b.address < a; });
        for (auto it = first; it != m_earlierBlocks.end() && it->address < end; ++it) {
            if (it->address < cursor)
                continue; // overlaps the block before: garbage, allocated afresh below
            if (it->address > cursor) {
                const std::uint64_t gap = it->address - cursor;
                // A large segment's cached block is always over 1 MiB: a smaller gap is the end of the block
                // before it (unsplit remainder).
                if (!s.small && !expandable && gap <= kSmallSize && !layout.empty()
                    && layout.back().allocated)
                    layout.back().size += gap;
                else
                    layout.push_back(AdoptedBlock { gap, false, 0 });
            }
            const std::uint64_t size = std::min(it->size, end - it->address);
            layout.push_back(AdoptedBlock { size, true, std::min(it->requested, size) });
            which.push_back(static_cast<std::size_t>(it - m_earlierBlocks.begin()));
            placed[which.back()] = true;
            cursor = it->address + size;
        }
        if (cursor < end) {
            const std::uint64_t gap = end - cursor;
            if (!s.small && !expandable && gap <= kSmallSize && !layout.empty() && layout.back().allocated)
                layout.back().size += gap;
            else
                layout.push_back(AdoptedBlock { gap, false, 0 });
        }
        const std::vector<CachingAllocator::Handle> handles = sim.adoptSegment(layout, s.small, expandable);
        std::size_t w = 0;
        for (std::size_t k = 0; k < layout.size(); ++k) {
            if (!layout[k].allocated)
                continue;
            const std::size_t b = which[w++];
            if (handles[k] != CachingAllocator::kFailed)
                live[m_earlierBlocks[b].address] = handles[k];
            else
                placed[b] = false;
        }
        ++m_out.rebuiltSegments;
        m_out.rebuiltReserved = addBytes(m_out.rebuiltReserved, s.size);
    }
    for (std::size_t b = 0; b < m_earlierBlocks.size(); ++b) {
        if (placed[b])
            continue;
        ++m_outsideSegments;
        const CachingAllocator::Handle h = sim.allocate(m_earlierBlocks[b].requested);
        if (h != CachingAllocator::kFailed)
            live[m_earlierBlocks[b].address] = h;
    }
    m_out.rebuiltAllocations = m_earlierBlocks.size();
}

const AllocatorCheckPoint& Checker::pointAt(std::size_t event) const
{
    const auto& points = m_out.reserved;
    auto it = std::upper_bound(points.begin(), points.end(), event,
        [](std::size_t e, const AllocatorCheckPoint& p) { return e < p.event; });
    return it == points.begin() ? points.front() : *std::prev(it);
}

AllocatorDivergence Checker::divergence(std::size_t cause, std::span<const Event> rec,
    std::span<const Event> sim, const std::vector<bool>& recMatched,
    const std::vector<bool>& simMatched) const
{
    AllocatorDivergence d;
    d.allocation = cause;
    d.event = cause;
    for (std::size_t k = 0; k < rec.size(); ++k) {
        if (!recMatched[k]) {
            d.event = rec[k].event;
            break;
        }
    }
    const SnapshotTraceEntry& entry = m_trace[cause];
    d.timeUs = entry.timeUs;
    d.stack = entry.stack;
    const AllocatorCheckPoint& p = pointAt(cause);
    d.recordedReserved = p.recorded;
    d.simulatedReserved = p.simulated;
    const bool byAllocation = entry.action == RunAction::Alloc || entry.action == RunAction::Oom;
    const std::string recText = describeAll(rec, recMatched);
    const std::string simText = describeAll(sim, simMatched);
    const std::string at = "at event " + std::to_string(d.event);
    if (byAllocation) {
        const std::string what = entry.action == RunAction::Oom
            ? "an allocation of " + formatBytes(entry.size) + " that ran out of memory (oom)"
            : "a " + formatBytes(entry.size) + " allocation";
        if (!recText.empty()) {
            d.what = "the run " + recText + " " + at + " for " + what + "; the simulation ";
            if (!simText.empty())
                d.what += simText;
            else if (anyGrows(rec, recMatched))
                d.what += "served it from a cached block";
            else
                d.what += "released nothing there";
        } else {
            d.what = at + " the run served " + what + " from its cache; the simulation " + simText;
        }
    } else {
        if (!recText.empty()) {
            d.what = "the run " + recText + " " + at
                + " outside any allocation (as torch.cuda.empty_cache() does); the simulation, releasing its "
                  "cache there too, ";
            d.what += simText.empty() ? "held no such segment" : simText;
        } else {
            d.what = at
                + " the run released its cache (as torch.cuda.empty_cache() does); the simulation also "
                + simText;
        }
    }
    return d;
}

void Checker::compare()
{
    m_out.recordedSegmentEvents = m_recorded.size();
    m_out.simulatedSegmentEvents = m_simulated.size();
    std::vector<bool> recMatched;
    std::vector<bool> simMatched;
    std::size_t r = 0;
    std::size_t s = 0;
    while (r < m_recorded.size() || s < m_simulated.size()) {
        const std::size_t cause = std::min(r < m_recorded.size() ? m_recorded[r].cause : kNoCause,
            s < m_simulated.size() ? m_simulated[s].cause : kNoCause);
        std::size_t re = r;
        while (re < m_recorded.size() && m_recorded[re].cause == cause)
            ++re;
        std::size_t se = s;
        while (se < m_simulated.size() && m_simulated[se].cause == cause)
            ++se;
        const std::span<const Event> rec(m_recorded.data() + r, re - r);
        const std::span<const Event> sim(m_simulated.data() + s, se - s);
        const std::size_t matches = align(rec, sim, recMatched, simMatched);
        m_out.matchingSegmentEvents += matches;
        if (matches != rec.size() || matches != sim.size()) {
            ++m_out.divergenceCount;
            if (m_out.divergences.size() < AllocatorCheck::kMaxDivergences)
                m_out.divergences.push_back(divergence(cause, rec, sim, recMatched, simMatched));
        }
        r = re;
        s = se;
    }
}

AllocatorCheck Checker::check()
{
    m_out.checked = true;
    m_settings = m_snapshot.allocatorSettings.settings;
    // The snapshot does not record the device's size or a memory fraction: the replay has no limit (where
    // the run met one, it released its cache: the replay follows that).
    m_settings.capacity = kNoLimit;
    m_settings.physicalCapacity = kNoLimit;
    scan();

    std::size_t allocs = 0;
    for (const SnapshotTraceEntry& e : m_trace)
        allocs += e.action == RunAction::Alloc ? 1 : 0;
    CachingAllocator sim(m_settings, allocs / 4 + m_earlierBlocks.size() + 16);
    std::unordered_map<std::uint64_t, CachingAllocator::Handle> live;
    live.reserve(m_earlierBlocks.size() + 1024);
    m_out.startsMidRun = !m_earlierBlocks.empty() || !m_earlierSegments.empty();
    if (m_out.startsMidRun)
        rebuildStart(sim, live);

    std::vector<SegmentEvent> log;
    sim.setSegmentLog(&log);
    std::uint64_t recorded = m_out.rebuiltReserved;
    m_out.reserved.push_back(AllocatorCheckPoint { 0, recorded, sim.stats().reserved });
    m_out.recordedPeakReserved = recorded;
    m_out.simulatedPeakReserved = sim.stats().reserved;
    bool pendingRelease = false; // the run released its cache to make room for the coming allocation
    bool releasedHere = false; // this run of releases outside any allocation was followed
    const RunAction freeAction = m_freeAtCompleted ? RunAction::FreeCompleted : RunAction::FreeRequested;
    std::size_t segmentAt = 0;
    const auto graphPool = [&](std::uint64_t address) {
        auto it = std::upper_bound(m_graphSegments.begin(), m_graphSegments.end(),
            std::pair<std::uint64_t, std::uint64_t> { address, kNoLimit });
        return it != m_graphSegments.begin() && address < std::prev(it)->second;
    };
    for (std::size_t i = 0; i < m_trace.size(); ++i) {
        const SnapshotTraceEntry& e = m_trace[i];
        const std::size_t logged = log.size();
        std::size_t cause = i;
        bool midAllocation = false;
        if (isSegmentAction(e.action)) {
            cause = m_causes[segmentAt];
            const bool byAllocation = m_causedByAllocation[segmentAt];
            midAllocation
                = byAllocation || (i + 1 < m_trace.size() && isSegmentAction(m_trace[i + 1].action));
            ++segmentAt;
            const SegmentEventKind kind = segmentKind(e.action);
            if (e.size == 0 || e.size >= kAbsurdBytes) {
                note(m_absurd);
            } else {
                m_recorded.push_back(Event { kind, e.size, i, cause });
                recorded = grows(kind) ? addBytes(recorded, e.size) : subBytes(recorded, e.size);
                if (!grows(kind)) {
                    if (byAllocation) {
                        pendingRelease = true;
                    } else if (!releasedHere) {
                        sim.emptyCache();
                        releasedHere = true;
                        ++m_out.cacheReleasesFollowed;
                    }
                }
            }
        } else {
            releasedHere = false;
            if (e.action == RunAction::Alloc || e.action == RunAction::Oom) {
                if (pendingRelease) {
                    sim.emptyCache();
                    pendingRelease = false;
                    ++m_out.cacheReleasesFollowed;
                }
            }
            if (e.action == RunAction::Alloc) {
                if (e.size == 0 || e.size >= kAbsurdBytes) {
                    note(e.size == 0 ? m_zeroSize : m_absurd);
                } else {
                    auto [it, fresh] = live.try_emplace(e.address, CachingAllocator::kFailed);
                    if (!fresh) {
                        note(m_doubleAllocs);
                        sim.free(it->second);
                    }
                    it->second = sim.allocate(e.size);
                    if (it->second == CachingAllocator::kFailed) {
                        note(m_failedReplays);
                        live.erase(it);
                    } else {
                        ++m_out.allocations;
                        if (!m_graphSegments.empty() && graphPool(e.address))
                            ++m_out.graphPoolAllocations;
                    }
                }
            } else if (e.action == freeAction) {
                auto it = live.find(e.address);
                if (it == live.end()) {
                    note(m_unknownFrees);
                } else {
                    sim.free(it->second);
                    live.erase(it);
                    ++m_out.frees;
                }
            } else if (e.action == RunAction::Oom) {
                ++m_ooms;
            }
        }
        for (std::size_t k = logged; k < log.size(); ++k)
            m_simulated.push_back(Event { log[k].kind, log[k].bytes, i, cause });
        // A point once the entry's allocation is done: segment events recorded before an allocation (or
        // in a run of releases) count with it, where the replay makes its own.
        if (midAllocation)
            continue;
        const std::uint64_t simulated = sim.stats().reserved;
        const AllocatorCheckPoint& last = m_out.reserved.back();
        if (last.recorded != recorded || last.simulated != simulated) {
            m_out.reserved.push_back(AllocatorCheckPoint { i, recorded, simulated });
            m_out.recordedPeakReserved = std::max(m_out.recordedPeakReserved, recorded);
            m_out.simulatedPeakReserved = std::max(m_out.simulatedPeakReserved, simulated);
            const std::uint64_t gap = recorded > simulated ? recorded - simulated : simulated - recorded;
            if (gap > m_out.largestReservedGap) {
                m_out.largestReservedGap = gap;
                m_out.largestReservedGapEvent = i;
            }
        }
    }
    compare();

    // The segments the snapshot shows against the trace's end.
    std::uint64_t atSnapshot = 0;
    for (const SnapshotSegment& s : m_snapshot.segments)
        atSnapshot += s.device == m_run.device ? s.totalSize : 0;
    if (!m_snapshot.segments.empty() && atSnapshot != recorded)
        m_out.notes.push_back("the trace ends with " + formatBytes(recorded)
            + " reserved, the snapshot's segments hold " + formatBytes(atSnapshot)
            + ": entries are missing, or the segments were taken at another moment");

    const auto count = [&](std::size_t n, const std::string& text) {
        if (n > 0)
            m_out.notes.push_back(text + ": " + std::to_string(n));
    };
    count(m_unknownFrees, "frees of an address no allocation holds, skipped");
    count(m_zeroSize, "allocations of 0 bytes (PyTorch records none), skipped");
    count(m_absurd, "entries with a size no device has (0 for a segment, or 256 TiB and over), skipped");
    count(m_doubleAllocs, "allocations at an address already allocated (the earlier one freed first)");
    count(m_failedReplays, "allocations the replay could not make");
    count(m_outsideSegments,
        "allocations alive before the trace in no segment the snapshot walked back shows, allocated afresh");
    count(m_ooms, "allocations that ran out of memory (oom), not replayed");

    std::vector<std::string> why;
    if (m_out.startsMidRun)
        why.push_back("the trace starts mid-run: " + std::to_string(m_out.rebuiltAllocations)
            + " allocations and " + std::to_string(m_out.rebuiltSegments) + " segments ("
            + formatBytes(m_out.rebuiltReserved)
            + ") alive before its first entry were rebuilt from the snapshot's segments walked back; the "
              "cache's "
              "layout there is approximate (blocks freed in the trace are taken at their rounded size)");
    if (m_out.streams > 1)
        why.push_back("the allocations ran on " + std::to_string(m_out.streams)
            + " streams: PyTorch keeps each stream's cached blocks apart, the simulation has one stream");
    if (m_out.graphPoolAllocations > 0 || !m_graphSegments.empty())
        why.push_back(std::to_string(m_graphSegments.size()) + " segments belong to CUDA-graph pools ("
            + std::to_string(m_out.graphPoolAllocations)
            + " allocations): the simulation replays them in the default pool");
    if (!m_freeAtCompleted && m_out.frees > 0)
        why.push_back(
            "the trace has no free_completed entries: blocks return to the cache at free_requested");
    if (m_snapshot.allocatorSettings.settings.garbageCollectionThreshold > 0.0)
        why.push_back(
            "garbage_collection_threshold acts only under a memory fraction, which the snapshot does "
            "not record: not replayed");
    for (const std::string& u : m_snapshot.allocatorSettings.unmodelled)
        why.push_back("not modelled: " + u);
    for (std::size_t k = 0; k < why.size(); ++k)
        m_out.why += (k == 0 ? "" : "; ") + why[k];
    return m_out;
}

} // namespace
} // namespace allocator_check

AllocatorCheck checkAllocator(const MeasuredRun& run)
{
    AllocatorCheck out;
    if (!run.snapshot) {
        out.why = std::string(allocator_check::kindLabel(run.kind))
            + " has no allocator trace: only a memory snapshot records each allocation and segment";
        return out;
    }
    const MemorySnapshot& snapshot = *run.snapshot;
    if (run.device < 0 || static_cast<std::size_t>(run.device) >= snapshot.deviceTraces.size()
        || snapshot.deviceTraces[static_cast<std::size_t>(run.device)].empty()) {
        out.why = "the snapshot has no trace of device " + std::to_string(run.device)
            + "'s allocations (recorded without torch.cuda.memory._record_memory_history)";
        return out;
    }
    const auto& trace = snapshot.deviceTraces[static_cast<std::size_t>(run.device)];
    bool any = false;
    for (const SnapshotTraceEntry& e : trace)
        any = any || e.action == RunAction::Alloc || allocator_check::isSegmentAction(e.action);
    if (!any) {
        out.why
            = "the trace of device " + std::to_string(run.device) + " holds no allocation or segment event";
        return out;
    }
    allocator_check::Checker checker(run, snapshot, trace);
    return checker.check();
}

} // namespace headroom

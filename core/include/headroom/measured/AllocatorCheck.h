#pragma once

// Headroom's caching-allocator simulation checked on the user's own run: the run's own allocations and
// frees (its trace's alloc and free_completed entries, in order: a block returns to the cache when its
// free completes) replayed through CachingAllocator with the run's allocator settings, and the segments it
// reserves compared with the segment_alloc / segment_free / segment_map / segment_unmap the run recorded,
// allocation by allocation. Where the two part is reported with the event and the allocation's frames.

#include "headroom/measured/MeasuredRun.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace headroom {

/// One place where the run and the replay part: the segment events one allocation (or one release of the
/// cache outside any allocation, as torch.cuda.empty_cache() makes) caused that the other side did not.
struct AllocatorDivergence final
{
    std::size_t event = 0; ///< index in the device's trace of the first recorded event that differs
    std::size_t allocation = 0; ///< the alloc (or oom) entry that caused it; `event` itself for a release
    std::int64_t timeUs = 0; ///< of `allocation` (SnapshotTraceEntry::kNoTime where the file has none)
    std::uint64_t recordedReserved = 0; ///< reserved after `allocation`, as the run recorded it
    std::uint64_t simulatedReserved = 0; ///< reserved after `allocation` in the replay
    /// "the run reserved a 20.00 MiB segment (segment_alloc) at event 412 for a 2.50 MiB allocation; the
    /// simulation served it from a cached block"
    std::string what;
    StackId stack = kNoStack; ///< the allocation's (a release's own where no allocation caused it)
};

/// Reserved bytes after a trace entry, recorded and replayed (a point wherever either changes).
struct AllocatorCheckPoint final
{
    std::size_t event = 0;
    std::uint64_t recorded = 0;
    std::uint64_t simulated = 0;
};

struct AllocatorCheck final
{
    bool checked = false; ///< false: nothing to replay (no trace, or not a snapshot), see why
    /// checked: what limits the comparison (a trace starting mid-run, several streams, graph pools), or
    /// empty; not checked: why not.
    std::string why;
    std::size_t allocations = 0; ///< allocs replayed
    std::size_t frees = 0; ///< frees replayed (free_completed; free_requested in traces without it)
    std::size_t recordedSegmentEvents = 0; ///< segment_alloc/free/map/unmap in the trace
    std::size_t simulatedSegmentEvents = 0;
    /// Same kind and size, caused by the same allocation (or the same release of the cache), in order;
    /// within one allocation's events a few that differ are skipped to find the rest.
    std::size_t matchingSegmentEvents = 0;
    std::uint64_t recordedPeakReserved = 0;
    std::uint64_t simulatedPeakReserved = 0;
    /// The largest difference of the two reserved curves, and after which trace entry.
    std::uint64_t largestReservedGap = 0;
    std::size_t largestReservedGapEvent = 0;
    /// The trace starts mid-run: the allocations and segments alive before its first entry were rebuilt
    /// from the snapshot's segments walked back through the trace (the cache's layout there is approximate).
    bool startsMidRun = false;
    std::size_t rebuiltAllocations = 0;
    std::size_t rebuiltSegments = 0;
    /// Reserved before the first entry as the run had it (the recorded curve starts there; the replay's
    /// where its rebuilt segments put it).
    std::uint64_t rebuiltReserved = 0;
    std::size_t streams = 0; ///< distinct streams the allocations ran on (the simulation has one)
    std::size_t graphPoolAllocations
        = 0; ///< allocations inside CUDA-graph pools' segments (segment_pool_id != 0)
    /// The run released its cache outside any allocation (torch.cuda.empty_cache()) or to make room at the
    /// device's limit before an allocation: each time the replay released its own cache there too.
    std::size_t cacheReleasesFollowed = 0;
    std::vector<AllocatorCheckPoint>
        reserved; ///< both curves: before the first entry, then where either changes
    std::size_t divergenceCount = 0; ///< places they part, all of them
    std::vector<AllocatorDivergence> divergences; ///< the first few places they part, in order
    std::vector<std::string> notes; ///< entries skipped as impossible (a free of an unknown address, ...)
    static constexpr std::size_t kMaxDivergences = 20;
};

/// Replays `run`'s device trace (snapshot kinds) through CachingAllocator with the run's allocator
/// settings (no capacity: where the run released its cache to make room, or called empty_cache(), the
/// replay releases its own there too). A trace that starts mid-run is replayed from the segments and
/// allocations the snapshot walked back implies; allocations on other streams and graph pools are counted
/// but replayed on the one stream the simulation has (said in `why`).
[[nodiscard]] AllocatorCheck checkAllocator(const MeasuredRun& run);

} // namespace headroom

#pragma once

// Headroom's caching-allocator simulation checked on the user's own run: the run's own allocations and
// frees (its trace's alloc / free_requested entries, in order) replayed through CachingAllocator with the
// run's allocator settings, and the segments it reserves compared with the segment_alloc / segment_free /
// segment_map / segment_unmap the run recorded. Where the two part is reported with the event and frames.

#include "headroom/measured/MeasuredRun.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace headroom {

struct AllocatorDivergence final
{
    std::size_t event = 0; ///< index in the device's trace
    std::int64_t timeUs = 0;
    std::uint64_t recordedReserved = 0; ///< reserved after the event, as the run recorded it
    std::uint64_t simulatedReserved = 0; ///< reserved after the event in the replay
    std::string what; ///< "the run reserved a 20 MiB segment here; the simulation reused a cached block"
    StackId stack = kNoStack;
};

struct AllocatorCheck final
{
    bool checked = false; ///< false: nothing to replay (no trace, or not a snapshot), see why
    std::string why;
    std::size_t allocations = 0; ///< allocs replayed
    std::size_t recordedSegmentEvents = 0; ///< segment_alloc/free/map/unmap in the trace
    std::size_t simulatedSegmentEvents = 0;
    std::size_t matchingSegmentEvents = 0; ///< same kind and size, in the same order
    std::uint64_t recordedPeakReserved = 0;
    std::uint64_t simulatedPeakReserved = 0;
    std::vector<AllocatorDivergence> divergences; ///< the first few places they part, in order
    static constexpr std::size_t kMaxDivergences = 20;
};

/// Replays `run`'s device trace (snapshot kinds) through CachingAllocator. A trace that starts mid-run
/// is replayed from the segments its blocks imply (the allocations alive before its first entry are
/// reconstructed from the snapshot walked back); allocations on other streams and graph pools are
/// counted but replayed on the one stream the simulation has (said in `why`).
[[nodiscard]] AllocatorCheck checkAllocator(const MeasuredRun& run);

} // namespace headroom

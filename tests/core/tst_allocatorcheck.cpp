// The caching-allocator simulation checked on a recorded run (issue 36, item 7): hand-built traces in the
// order PyTorch records them (c10/cuda/CUDACachingAllocator.cpp: a malloc that needs memory records its
// segment_alloc / segment_map before the alloc; free() records free_requested, free_block free_completed;
// empty_cache() records a segment_free per released segment). Each expected segment sequence is worked out
// by hand from the allocator's rules in the comments (round_size, get_allocation_size: 2 MiB small
// segments for requests up to 1 MiB, 20 MiB large segments for 1-10 MiB, else the request rounded to 2 MiB;
// best fit; a large block splits when over 1 MiB remains; expandable segments map 20 MiB pages).
#include "headroom/measured/AllocatorCheck.h"

#include <QTest>

using namespace headroom;

namespace {
constexpr std::uint64_t KiB = 1024;
constexpr std::uint64_t MiB = 1024 * KiB;

/// A device trace written as PyTorch records it, with addresses chosen by the test.
class Trace
{
public:
    MemorySnapshot snapshot;

    Trace() { snapshot.deviceTraces.emplace_back(); }
    std::size_t add(RunAction action, std::uint64_t address, std::uint64_t size, std::int64_t stream = 0)
    {
        auto& t = snapshot.deviceTraces[0];
        SnapshotTraceEntry e;
        e.action = action;
        e.address = address;
        e.size = size;
        e.stream = stream;
        e.timeUs = static_cast<std::int64_t>(t.size()) * 10;
        e.stack = static_cast<StackId>(t.size() + 1);
        t.push_back(e);
        return t.size() - 1;
    }
    std::size_t alloc(std::uint64_t address, std::uint64_t size, std::int64_t stream = 0)
    {
        return add(RunAction::Alloc, address, size, stream);
    }
    /// free() on one stream: free_requested and free_completed at once.
    void free(std::uint64_t address, std::uint64_t size)
    {
        add(RunAction::FreeRequested, address, size);
        add(RunAction::FreeCompleted, address, size);
    }
    std::size_t segmentAlloc(std::uint64_t address, std::uint64_t size)
    {
        return add(RunAction::SegmentAlloc, address, size);
    }
    std::size_t segmentFree(std::uint64_t address, std::uint64_t size)
    {
        return add(RunAction::SegmentFree, address, size);
    }
    std::size_t map(std::uint64_t address, std::uint64_t size)
    {
        return add(RunAction::SegmentMap, address, size);
    }
    [[nodiscard]] std::size_t size() const { return snapshot.deviceTraces[0].size(); }

    [[nodiscard]] AllocatorCheck check() const
    {
        MeasuredRun run;
        run.kind = RunFileKind::SnapshotPickle;
        run.device = 0;
        run.snapshot = snapshot;
        return checkAllocator(run);
    }
};

SnapshotSegment segment(std::uint64_t address, std::uint64_t size, std::vector<SnapshotBlock> blocks)
{
    SnapshotSegment s;
    s.address = address;
    s.totalSize = size;
    s.large = size > 2 * MiB;
    s.blocks = std::move(blocks);
    return s;
}

SnapshotBlock block(std::uint64_t address, std::uint64_t size, BlockState state)
{
    return SnapshotBlock { address, size, size, state, kNoStack };
}

constexpr std::uint64_t A = 0x7f0000000000;
constexpr std::uint64_t B = 0x7f0100000000;
constexpr std::uint64_t C = 0x7f0200000000;

/// Full agreement: every segment event matched, nothing parts.
void verifyAgreement(const AllocatorCheck& c, std::size_t segmentEvents)
{
    QVERIFY2(c.checked, c.why.c_str());
    QCOMPARE(c.recordedSegmentEvents, segmentEvents);
    QCOMPARE(c.simulatedSegmentEvents, segmentEvents);
    QCOMPARE(c.matchingSegmentEvents, segmentEvents);
    QCOMPARE(c.divergenceCount, std::size_t { 0 });
    QVERIFY(c.divergences.empty());
    QCOMPARE(c.simulatedPeakReserved, c.recordedPeakReserved);
    QCOMPARE(c.largestReservedGap, std::uint64_t { 0 });
}
} // namespace

// A helper's failed comparison ends the helper; this ends the test too.
#define VERIFY_AGREEMENT(c, n)                                                                               \
    do {                                                                                                     \
        verifyAgreement(c, n);                                                                               \
        if (QTest::currentTestFailed())                                                                      \
            return;                                                                                          \
    } while (false)

class TestAllocatorCheck : public QObject
{
    Q_OBJECT
private slots:
    void threeAllocationsShareOneLargeSegment();
    void smallAllocationTakesSmallSegment();
    void largeAllocationRoundsToTwoMebibytes();
    void freedBlockTooSmallMakesNewSegment();
    void expandableSegmentsMapPages();
    void roundupDivisionsFromSettings();
    void differentSegmentSizeParts();
    void runServedFromCacheWhereSimulationReserved();
    void simulationServedFromCacheWhereRunReserved();
    void emptyCacheFollowed();
    void extraSegmentFreeParts();
    void releaseAtDeviceLimitFollowed();
    void freeCompletedLaterThanRequested();
    void midRunTraceRebuildsStart();
    void midRunExpandableSegment();
    void midRunWithoutRebuildWouldPart();
    void streamsAndGraphPoolsSaid();
    void noTraceNotChecked();
    void garbageGivesNotes();
    void divergencesCappedInOrder();
};

void TestAllocatorCheck::threeAllocationsShareOneLargeSegment()
{
    // 3 MiB is over kSmallSize (1 MiB) and under kMinLargeAlloc (10 MiB): the first takes a 20 MiB
    // segment and splits it (17 MiB left, over 1 MiB); the second and third split the rest (14, then 11 MiB).
    Trace t;
    t.segmentAlloc(A, 20 * MiB);
    t.alloc(A, 3 * MiB);
    t.alloc(A + 3 * MiB, 3 * MiB);
    t.alloc(A + 6 * MiB, 3 * MiB);
    const AllocatorCheck c = t.check();
    VERIFY_AGREEMENT(c, 1);
    QCOMPARE(c.allocations, std::size_t { 3 });
    QCOMPARE(c.recordedPeakReserved, 20 * MiB);
    QVERIFY(!c.startsMidRun);
    QVERIFY2(c.why.empty(), c.why.c_str());
    // the curves: before the first entry (0, 0), then 20 MiB on both sides after the alloc (entry 1) whose
    // malloc recorded the segment_alloc (entry 0)
    QCOMPARE(c.reserved.size(), std::size_t { 2 });
    QCOMPARE(c.reserved[0].recorded, std::uint64_t { 0 });
    QCOMPARE(c.reserved[0].simulated, std::uint64_t { 0 });
    QCOMPARE(c.reserved[1].event, std::size_t { 1 });
    QCOMPARE(c.reserved[1].recorded, 20 * MiB);
    QCOMPARE(c.reserved[1].simulated, 20 * MiB);
}

void TestAllocatorCheck::smallAllocationTakesSmallSegment()
{
    // 1 KiB is a small request: a 2 MiB small segment; a second 1 KiB fits the rest of it.
    Trace t;
    t.segmentAlloc(A, 2 * MiB);
    t.alloc(A, 1 * KiB);
    t.alloc(A + 1 * KiB, 1 * KiB);
    VERIFY_AGREEMENT(t.check(), 1);
}

void TestAllocatorCheck::largeAllocationRoundsToTwoMebibytes()
{
    // 25 MiB is over kMinLargeAlloc: its own segment, rounded up to 2 MiB: 26 MiB. 25 MiB + 1 byte rounds
    // (512 bytes) to 25 MiB + 512, whose segment is also 26 MiB; a third of 27 MiB gets 28 MiB.
    Trace t;
    t.segmentAlloc(A, 26 * MiB);
    t.alloc(A, 25 * MiB);
    t.segmentAlloc(B, 26 * MiB);
    t.alloc(B, 25 * MiB + 1);
    t.segmentAlloc(C, 28 * MiB);
    t.alloc(C, 27 * MiB);
    const AllocatorCheck c = t.check();
    VERIFY_AGREEMENT(c, 3);
    QCOMPARE(c.recordedPeakReserved, 80 * MiB);
}

void TestAllocatorCheck::freedBlockTooSmallMakesNewSegment()
{
    // 12 MiB: a 12 MiB segment. Freed, it is cached; 14 MiB does not fit it: a new 14 MiB segment (26 MiB
    // reserved); another 12 MiB reuses the cached 12 MiB block, no segment event.
    Trace t;
    t.segmentAlloc(A, 12 * MiB);
    t.alloc(A, 12 * MiB);
    t.free(A, 12 * MiB);
    t.segmentAlloc(B, 14 * MiB);
    t.alloc(B, 14 * MiB);
    t.alloc(A, 12 * MiB);
    const AllocatorCheck c = t.check();
    VERIFY_AGREEMENT(c, 2);
    QCOMPARE(c.frees, std::size_t { 1 });
    QCOMPARE(c.recordedPeakReserved, 26 * MiB);
}

void TestAllocatorCheck::expandableSegmentsMapPages()
{
    // expandable_segments:True: 3 MiB maps one 20 MiB page (map_block rounds to the large pool's pages);
    // 30 MiB then takes the 17 MiB free at the mapped end and maps 13 MiB more: one more 20 MiB page.
    // A 1 KiB request maps one 2 MiB page of the small pool's segment.
    Trace t;
    t.snapshot.allocatorSettings.present = true;
    t.snapshot.allocatorSettings.settings.expandableSegments = true;
    t.map(A, 20 * MiB);
    t.alloc(A, 3 * MiB);
    t.map(A + 20 * MiB, 20 * MiB);
    t.alloc(A + 3 * MiB, 30 * MiB);
    t.map(B, 2 * MiB);
    t.alloc(B, 1 * KiB);
    const AllocatorCheck c = t.check();
    VERIFY_AGREEMENT(c, 3);
    QCOMPARE(c.recordedPeakReserved, 42 * MiB);
}

void TestAllocatorCheck::roundupDivisionsFromSettings()
{
    // roundup_power2_divisions:4 rounds 9 MiB + 1 byte up to the next quarter between 8 and 16 MiB: 10 MiB,
    // which is kMinLargeAlloc, not under it: a 10 MiB segment of its own. Plain 512-byte rounding gives
    // 9 MiB + 512, under 10 MiB: a shared 20 MiB segment.
    Trace t;
    t.snapshot.allocatorSettings.present = true;
    t.snapshot.allocatorSettings.settings.roundupPower2Divisions.fill(4);
    t.segmentAlloc(A, 10 * MiB);
    t.alloc(A, 9 * MiB + 1);
    VERIFY_AGREEMENT(t.check(), 1);

    Trace plain = t;
    plain.snapshot.allocatorSettings.settings.roundupPower2Divisions.fill(0);
    const AllocatorCheck c = plain.check();
    QCOMPARE(c.divergenceCount, std::size_t { 1 });
    QVERIFY2(
        c.divergences[0].what.find("20.00 MiB segment") != std::string::npos, c.divergences[0].what.c_str());
}

void TestAllocatorCheck::differentSegmentSizeParts()
{
    // The run recorded a 22 MiB segment for a 3 MiB allocation; the rules give 20 MiB.
    Trace t;
    t.segmentAlloc(A, 20 * MiB);
    t.alloc(A, 3 * MiB);
    const std::size_t at = t.segmentAlloc(B, 22 * MiB);
    t.alloc(B, 3 * MiB + 20 * MiB); // 23 MiB: its own segment, 24 MiB by the rules
    const AllocatorCheck c = t.check();
    QVERIFY(c.checked);
    QCOMPARE(c.recordedSegmentEvents, std::size_t { 2 });
    QCOMPARE(c.simulatedSegmentEvents, std::size_t { 2 });
    QCOMPARE(c.matchingSegmentEvents, std::size_t { 1 });
    QCOMPARE(c.divergenceCount, std::size_t { 1 });
    const AllocatorDivergence& d = c.divergences[0];
    QCOMPARE(d.event, at);
    QCOMPARE(d.allocation, at + 1);
    QCOMPARE(d.stack, StackId(at + 2));
    QCOMPARE(d.timeUs, std::int64_t((at + 1) * 10));
    // after the allocation: recorded 20 + 22, replayed 20 + 24 MiB
    QCOMPARE(d.recordedReserved, 42 * MiB);
    QCOMPARE(d.simulatedReserved, 44 * MiB);
    QCOMPARE(d.what,
        std::string(
            "the run reserved a 22.00 MiB segment (segment_alloc) at event 2 for a 23.00 MiB allocation; "
            "the simulation reserved a 24.00 MiB segment (segment_alloc)"));
    QCOMPARE(c.recordedPeakReserved, 42 * MiB);
    QCOMPARE(c.simulatedPeakReserved, 44 * MiB);
    QCOMPARE(c.largestReservedGap, 2 * MiB);
    QCOMPARE(c.largestReservedGapEvent, at + 1);
}

void TestAllocatorCheck::runServedFromCacheWhereSimulationReserved()
{
    // The run allocated 3 MiB with no segment event (a block it had cached before a full trace began could
    // not exist: the rules make a 20 MiB segment).
    Trace t;
    t.alloc(A, 3 * MiB);
    const AllocatorCheck c = t.check();
    QCOMPARE(c.divergenceCount, std::size_t { 1 });
    QCOMPARE(c.divergences[0].event, std::size_t { 0 });
    QCOMPARE(c.divergences[0].what,
        std::string(
            "at event 0 the run served a 3.00 MiB allocation from its cache; the simulation reserved a "
            "20.00 MiB segment (segment_alloc)"));
}

void TestAllocatorCheck::simulationServedFromCacheWhereRunReserved()
{
    // 12 MiB allocated and freed: cached. The run then reserved a new 12 MiB segment for 12 MiB again; the
    // rules reuse the cached block.
    Trace t;
    t.segmentAlloc(A, 12 * MiB);
    t.alloc(A, 12 * MiB);
    t.free(A, 12 * MiB);
    const std::size_t at = t.segmentAlloc(B, 12 * MiB);
    t.alloc(B, 12 * MiB);
    const AllocatorCheck c = t.check();
    QCOMPARE(c.matchingSegmentEvents, std::size_t { 1 });
    QCOMPARE(c.divergenceCount, std::size_t { 1 });
    QCOMPARE(c.divergences[0].event, at);
    QCOMPARE(c.divergences[0].what,
        std::string(
            "the run reserved a 12.00 MiB segment (segment_alloc) at event 4 for a 12.00 MiB allocation; "
            "the simulation served it from a cached block"));
    QCOMPARE(c.divergences[0].recordedReserved, 24 * MiB);
    QCOMPARE(c.divergences[0].simulatedReserved, 12 * MiB);
}

void TestAllocatorCheck::emptyCacheFollowed()
{
    // Two 12 MiB segments, one freed; torch.cuda.empty_cache() releases the cached one (segment_free
    // outside any allocation); the replay releases its cache there too: the same segment. B is freed and
    // 12 MiB allocated again: B's cached segment serves it on both sides.
    Trace t;
    t.segmentAlloc(A, 12 * MiB);
    t.alloc(A, 12 * MiB);
    t.segmentAlloc(B, 12 * MiB);
    t.alloc(B, 12 * MiB);
    t.free(A, 12 * MiB);
    t.segmentFree(A, 12 * MiB);
    t.free(B, 12 * MiB);
    t.alloc(B, 12 * MiB);
    const AllocatorCheck c = t.check();
    VERIFY_AGREEMENT(c, 3);
    QCOMPARE(c.cacheReleasesFollowed, std::size_t { 1 });
    QCOMPARE(c.recordedPeakReserved, 24 * MiB);
}

void TestAllocatorCheck::extraSegmentFreeParts()
{
    // A segment_free of the 20 MiB segment while its 3 MiB block is still allocated, followed by that
    // block's free: no cache release could give the segment up, and the replay's release keeps it.
    Trace t;
    t.segmentAlloc(A, 20 * MiB);
    t.alloc(A, 3 * MiB);
    const std::size_t at = t.segmentFree(A, 20 * MiB);
    t.free(A, 3 * MiB);
    const AllocatorCheck c = t.check();
    QCOMPARE(c.matchingSegmentEvents, std::size_t { 1 });
    QCOMPARE(c.divergenceCount, std::size_t { 1 });
    const AllocatorDivergence& d = c.divergences[0];
    QCOMPARE(d.event, at);
    QCOMPARE(d.allocation, at);
    QCOMPARE(d.recordedReserved, std::uint64_t { 0 });
    QCOMPARE(d.simulatedReserved, 20 * MiB);
    QCOMPARE(d.what,
        std::string(
            "the run released a 20.00 MiB segment (segment_free) at event 2 outside any allocation (as "
            "torch.cuda.empty_cache() does); the simulation, releasing its cache there too, held no such "
            "segment"));
}

void TestAllocatorCheck::releaseAtDeviceLimitFollowed()
{
    // At the device's limit, malloc's release_cached_blocks frees the cached 12 MiB segment before the new
    // 14 MiB one (segment_free, segment_alloc, alloc): the replay (no limit) releases its cache there too.
    Trace t;
    t.segmentAlloc(A, 12 * MiB);
    t.alloc(A, 12 * MiB);
    t.free(A, 12 * MiB);
    t.segmentFree(A, 12 * MiB);
    t.segmentAlloc(B, 14 * MiB);
    t.alloc(B, 14 * MiB);
    const AllocatorCheck c = t.check();
    VERIFY_AGREEMENT(c, 3);
    QCOMPARE(c.cacheReleasesFollowed, std::size_t { 1 });

    // The same release before an allocation that still fails (oom, 100 GiB): followed, the oom not replayed.
    Trace oom;
    oom.segmentAlloc(A, 12 * MiB);
    oom.alloc(A, 12 * MiB);
    oom.free(A, 12 * MiB);
    oom.segmentFree(A, 12 * MiB);
    oom.add(RunAction::Oom, 0, 100 * 1024 * MiB);
    const AllocatorCheck o = oom.check();
    VERIFY_AGREEMENT(o, 2);
    QCOMPARE(o.cacheReleasesFollowed, std::size_t { 1 });
    QCOMPARE(o.allocations, std::size_t { 1 });
    QCOMPARE(o.notes.size(), std::size_t { 1 });
    QCOMPARE(o.notes[0], std::string("allocations that ran out of memory (oom), not replayed: 1"));
}

void TestAllocatorCheck::freeCompletedLaterThanRequested()
{
    // A block used on another stream returns to the pool at free_completed, not free_requested: 12 MiB freed
    // (requested) and 12 MiB allocated before the free completes needs a new segment.
    Trace t;
    t.segmentAlloc(A, 12 * MiB);
    t.alloc(A, 12 * MiB);
    t.add(RunAction::FreeRequested, A, 12 * MiB);
    t.segmentAlloc(B, 12 * MiB);
    t.alloc(B, 12 * MiB);
    t.add(RunAction::FreeCompleted, A, 12 * MiB);
    t.alloc(A, 12 * MiB);
    const AllocatorCheck c = t.check();
    VERIFY_AGREEMENT(c, 2);
    QCOMPARE(c.frees, std::size_t { 1 });
}

void TestAllocatorCheck::midRunTraceRebuildsStart()
{
    // Before the trace: a 20 MiB segment at A holding X (3 MiB at A, freed in the trace) and W (2 MiB at
    // A + 8 MiB, alive throughout); free: 5 MiB at A + 3 MiB and 10 MiB at A + 10 MiB. The trace allocates
    // Y (3 MiB): best fit, the 5 MiB block (2 MiB left, over 1 MiB: split), no segment event; frees X;
    // allocates Z (30 MiB): nothing cached is large enough: a 30 MiB segment.
    Trace t;
    t.alloc(A + 3 * MiB, 3 * MiB);
    t.free(A, 3 * MiB);
    t.segmentAlloc(B, 30 * MiB);
    t.alloc(B, 30 * MiB);
    t.snapshot.segments.push_back(segment(A, 20 * MiB,
        { block(A, 3 * MiB, BlockState::Inactive), block(A + 3 * MiB, 3 * MiB, BlockState::ActiveAllocated),
            block(A + 6 * MiB, 2 * MiB, BlockState::Inactive),
            block(A + 8 * MiB, 2 * MiB, BlockState::ActiveAllocated),
            block(A + 10 * MiB, 10 * MiB, BlockState::Inactive) }));
    t.snapshot.segments.push_back(segment(B, 30 * MiB, { block(B, 30 * MiB, BlockState::ActiveAllocated) }));
    const AllocatorCheck c = t.check();
    VERIFY_AGREEMENT(c, 1);
    QVERIFY(c.startsMidRun);
    QCOMPARE(c.rebuiltAllocations, std::size_t { 2 }); // X and W
    QCOMPARE(c.rebuiltSegments, std::size_t { 1 });
    QCOMPARE(c.rebuiltReserved, 20 * MiB);
    QCOMPARE(c.recordedPeakReserved, 50 * MiB);
    QCOMPARE(c.reserved.front().recorded, 20 * MiB);
    QCOMPARE(c.reserved.front().simulated, 20 * MiB);
    QVERIFY2(c.why.find("starts mid-run") != std::string::npos, c.why.c_str());
    QVERIFY2(c.notes.empty(), c.notes.empty() ? "" : c.notes.front().c_str());
}

void TestAllocatorCheck::midRunExpandableSegment()
{
    // expandable_segments:True. At the snapshot the large pool's expandable segment at A has 60 MiB mapped:
    // X (10 MiB, alive before the trace), Y (25 MiB), Z (20 MiB), 5 MiB free. The trace mapped 20 MiB of
    // it, so 40 MiB were mapped before: X and 30 MiB free. Y takes 25 MiB of the 30 (an expandable block
    // splits any remainder), no segment event; Z (20 MiB) finds 5 MiB free at the mapped end and maps one
    // more 20 MiB page: segment_map of 20 MiB.
    Trace t;
    t.snapshot.allocatorSettings.present = true;
    t.snapshot.allocatorSettings.settings.expandableSegments = true;
    t.alloc(A + 10 * MiB, 25 * MiB);
    t.map(A + 40 * MiB, 20 * MiB);
    t.alloc(A + 35 * MiB, 20 * MiB);
    SnapshotSegment s = segment(A, 60 * MiB,
        { block(A, 10 * MiB, BlockState::ActiveAllocated),
            block(A + 10 * MiB, 25 * MiB, BlockState::ActiveAllocated),
            block(A + 35 * MiB, 20 * MiB, BlockState::ActiveAllocated),
            block(A + 55 * MiB, 5 * MiB, BlockState::Inactive) });
    s.expandable = true;
    t.snapshot.segments.push_back(s);
    const AllocatorCheck c = t.check();
    VERIFY_AGREEMENT(c, 1);
    QVERIFY(c.startsMidRun);
    QCOMPARE(c.rebuiltAllocations, std::size_t { 1 });
    QCOMPARE(c.rebuiltReserved, 40 * MiB);
    QCOMPARE(c.recordedPeakReserved, 60 * MiB);
    QVERIFY2(c.notes.empty(), c.notes.empty() ? "" : c.notes.front().c_str());
}

void TestAllocatorCheck::midRunWithoutRebuildWouldPart()
{
    // The same run with the segment at A unknown (the snapshot lost): Y's 3 MiB needs a 20 MiB segment in
    // a replay that starts empty, where the run had one: the check says so at the allocation.
    Trace t;
    t.alloc(A + 3 * MiB, 3 * MiB);
    t.segmentAlloc(B, 30 * MiB);
    t.alloc(B, 30 * MiB);
    const AllocatorCheck c = t.check();
    QVERIFY(!c.startsMidRun);
    QCOMPARE(c.divergenceCount, std::size_t { 1 });
    QCOMPARE(c.divergences[0].allocation, std::size_t { 0 });
}

void TestAllocatorCheck::streamsAndGraphPoolsSaid()
{
    Trace t;
    t.segmentAlloc(A, 20 * MiB);
    t.alloc(A, 3 * MiB, 7);
    t.alloc(A + 3 * MiB, 3 * MiB, 9);
    SnapshotSegment pool = segment(A, 20 * MiB,
        { block(A, 3 * MiB, BlockState::ActiveAllocated),
            block(A + 3 * MiB, 3 * MiB, BlockState::ActiveAllocated),
            block(A + 6 * MiB, 14 * MiB, BlockState::Inactive) });
    pool.poolId = 1;
    t.snapshot.segments.push_back(pool);
    const AllocatorCheck c = t.check();
    QVERIFY(c.checked);
    QCOMPARE(c.streams, std::size_t { 2 });
    QCOMPARE(c.graphPoolAllocations, std::size_t { 2 });
    QVERIFY2(c.why.find("2 streams") != std::string::npos, c.why.c_str());
    QVERIFY2(c.why.find("CUDA-graph") != std::string::npos, c.why.c_str());
}

void TestAllocatorCheck::noTraceNotChecked()
{
    MeasuredRun timeline;
    timeline.kind = RunFileKind::MemoryTimeline;
    AllocatorCheck c = checkAllocator(timeline);
    QVERIFY(!c.checked);
    QVERIFY(c.why.find("memory timeline") != std::string::npos);

    MeasuredRun bare;
    bare.snapshot = MemorySnapshot {};
    c = checkAllocator(bare);
    QVERIFY(!c.checked);
    QVERIFY2(c.why.find("no trace of device 0") != std::string::npos, c.why.c_str());

    MeasuredRun otherDevice;
    otherDevice.device = 3;
    otherDevice.snapshot = Trace().snapshot;
    QVERIFY(!checkAllocator(otherDevice).checked);
}

void TestAllocatorCheck::garbageGivesNotes()
{
    Trace t;
    t.segmentAlloc(A, 20 * MiB);
    t.alloc(A, 3 * MiB);
    t.free(A, 3 * MiB);
    t.free(A, 3 * MiB); // a second free of the same block
    t.alloc(B, 0); // PyTorch records no allocation of 0 bytes
    t.alloc(C, 1ULL << 60); // no device has an exbibyte
    t.segmentAlloc(C, 0);
    t.add(RunAction::Annotate, 0, 0);
    const AllocatorCheck c = t.check();
    QVERIFY(c.checked);
    QCOMPARE(c.allocations, std::size_t { 1 });
    QCOMPARE(c.frees, std::size_t { 1 });
    QCOMPARE(c.matchingSegmentEvents, std::size_t { 1 });
    QCOMPARE(c.notes.size(), std::size_t { 3 });
    QCOMPARE(c.notes[0], std::string("frees of an address no allocation holds, skipped: 1"));
    QCOMPARE(c.notes[1], std::string("allocations of 0 bytes (PyTorch records none), skipped: 1"));
    QCOMPARE(c.notes[2],
        std::string("entries with a size no device has (0 for a segment, or 256 TiB and over), skipped: 2"));
}

void TestAllocatorCheck::divergencesCappedInOrder()
{
    // 30 allocations of 3 MiB each recorded with a 22 MiB segment (the rules: 20 MiB, and the next ones fit
    // its remainder until it runs out: the first divergence is the first allocation, at event 0).
    Trace t;
    for (std::uint64_t k = 0; k < 30; ++k) {
        t.segmentAlloc(A + k * 32 * MiB, 22 * MiB);
        t.alloc(A + k * 32 * MiB, 3 * MiB);
    }
    const AllocatorCheck c = t.check();
    QCOMPARE(c.divergenceCount, std::size_t { 30 });
    QCOMPARE(c.divergences.size(), AllocatorCheck::kMaxDivergences);
    for (std::size_t k = 0; k < c.divergences.size(); ++k)
        QCOMPARE(c.divergences[k].event, 2 * k);
    // The rules: a 20 MiB segment holds six 3 MiB blocks (the sixth takes the last 5 MiB and splits, 2 MiB
    // left over 1 MiB), the seventh needs a new one: 30 allocations, 5 segments.
    QCOMPARE(c.simulatedSegmentEvents, std::size_t { 5 });
    QCOMPARE(c.matchingSegmentEvents, std::size_t { 0 });
}

QTEST_APPLESS_MAIN(TestAllocatorCheck)
#include "tst_allocatorcheck.moc"

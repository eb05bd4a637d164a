// The caching allocator simulation (issue 23) on short sequences whose bytes are worked out by hand from
// the rules of c10/cuda/CUDACachingAllocator.cpp: round_size (512-byte blocks), get_allocation_size (2 MiB
// small segments, 20 MiB shared large segments for 1-10 MiB, else 2 MiB multiples), get_free_block (best
// fit), should_split (small pool: any remainder of 512 bytes; large pool: a remainder over 1 MiB),
// free_block (merge with free neighbours), malloc's release-and-retry at the cap, expandable segments.
#include "headroom/allocator/CachingAllocator.h"

#include <QTest>
#include <algorithm>
#include <vector>

using namespace headroom;

namespace {
constexpr std::uint64_t KiB = 1024;
constexpr std::uint64_t MiB = 1024 * KiB;

AllocatorSettings capped(std::uint64_t capacity)
{
    AllocatorSettings s;
    s.capacity = capacity;
    return s;
}
} // namespace

class TestCachingAllocator : public QObject
{
    Q_OBJECT
private slots:
    void roundSize_data();
    void roundSize();
    void allocationSize_data();
    void allocationSize();
    void smallRequestsShareTwoMebibyteSegments();
    void largeRequestsSplitOnlyOverOneMebibyte();
    void unsplitRemainderCountsAsAllocated();
    void freedBlockIsReusedAndSplit();
    void freedNeighboursMerge();
    void mergesTakeBlocksFromAmongTheirSize();
    void copiedStateGoesOnAsTheOriginal();
    void bestFitAmongManyLargeSizes();
    void largeCachedBlockThatCannotBeReused();
    void capReleasesCacheAndRetries();
    void fragmentationCausesOutOfMemory();
    void maxSplitSizeKeepsOversizeBlocksWhole();
    void expandableSegmentsGrowOneSegment();
    void expandableSegmentsReleasePages();
    void fragmentationNamesWhatFreedTheBytes();
    void segmentLogRecordsWhatPyTorchTraces();
    void adoptedSegmentServesAsCached();
};

void TestCachingAllocator::roundSize_data()
{
    QTest::addColumn<quint64>("size");
    QTest::addColumn<quint32>("divisions");
    QTest::addColumn<quint64>("rounded");
    // round_size: below 512 bytes a 512-byte block; otherwise the next multiple of 512.
    QTest::newRow("0 bytes") << quint64 { 0 } << 0u << quint64 { 512 };
    QTest::newRow("1 byte") << quint64 { 1 } << 0u << quint64 { 512 };
    QTest::newRow("512") << quint64 { 512 } << 0u << quint64 { 512 };
    QTest::newRow("513") << quint64 { 513 } << 0u << quint64 { 1024 };
    QTest::newRow("a 1000-float bias") << quint64 { 4000 } << 0u << quint64 { 4096 };
    // roundup_power2_divisions:4 splits [1 MiB, 2 MiB) into 1, 1.25, 1.5, 1.75 MiB: 1.2 MiB -> 1.25 MiB.
    QTest::newRow("1.2 MiB, 4 divisions") << quint64 { 1258291 } << 4u << quint64 { 1310720 };
    // A power of two stays; below 512 x divisions the plain rule applies (1200 -> 1536).
    QTest::newRow("2 MiB, 4 divisions") << quint64 { 2 * MiB } << 4u << quint64 { 2 * MiB };
    QTest::newRow("1200, 4 divisions") << quint64 { 1200 } << 4u << quint64 { 1536 };
    // 5000 lies in [4096, 8192): steps of 1024, next is 5120.
    QTest::newRow("5000, 4 divisions") << quint64 { 5000 } << 4u << quint64 { 5120 };
}

void TestCachingAllocator::roundSize()
{
    QFETCH(quint64, size);
    QFETCH(quint32, divisions);
    QFETCH(quint64, rounded);
    AllocatorSettings s;
    s.roundupPower2Divisions.fill(divisions);
    QCOMPARE(CachingAllocator::roundSize(size, s), rounded);
}

void TestCachingAllocator::allocationSize_data()
{
    QTest::addColumn<quint64>("size");
    QTest::addColumn<quint64>("segment");
    QTest::newRow("512 bytes: small segment") << quint64 { 512 } << quint64 { 2 * MiB };
    QTest::newRow("1 MiB: still small") << quint64 { MiB } << quint64 { 2 * MiB };
    QTest::newRow("1 MiB + 512: shared 20 MiB") << quint64 { MiB + 512 } << quint64 { 20 * MiB };
    QTest::newRow("10 MiB - 512: shared 20 MiB") << quint64 { 10 * MiB - 512 } << quint64 { 20 * MiB };
    QTest::newRow("10 MiB: its own") << quint64 { 10 * MiB } << quint64 { 10 * MiB };
    QTest::newRow("11 MiB + 512: 12 MiB") << quint64 { 11 * MiB + 512 } << quint64 { 12 * MiB };
}

void TestCachingAllocator::allocationSize()
{
    QFETCH(quint64, size);
    QFETCH(quint64, segment);
    QCOMPARE(CachingAllocator::allocationSize(size), segment);
}

void TestCachingAllocator::smallRequestsShareTwoMebibyteSegments()
{
    CachingAllocator a;
    // 1 MiB is a small request: a 2 MiB segment, split (1 MiB left >= 512 bytes).
    const auto x = a.allocate(MiB);
    QCOMPARE(a.stats().reserved, 2 * MiB);
    QCOMPARE(a.stats().allocated, MiB);
    // The second 1 MiB takes the remainder exactly; nothing is left to split.
    const auto y = a.allocate(MiB);
    QCOMPARE(a.stats().reserved, 2 * MiB);
    QCOMPARE(a.blockSize(y), MiB);
    // A 1-byte request (512 bytes) finds no free block: a second segment.
    QVERIFY(a.allocate(1) != CachingAllocator::kFailed);
    QCOMPARE(a.stats().reserved, 4 * MiB);
    QCOMPARE(a.stats().allocated, 2 * MiB + 512);
    QCOMPARE(a.stats().requested, 2 * MiB + 1);
    QVERIFY(x != y);
}

void TestCachingAllocator::largeRequestsSplitOnlyOverOneMebibyte()
{
    CachingAllocator a;
    // 1 MiB + 1 byte rounds to 1 MiB + 512: large pool, a 20 MiB segment split (19 MiB - 512 left > 1 MiB).
    const auto x = a.allocate(MiB + 1);
    QCOMPARE(a.blockSize(x), MiB + 512);
    QCOMPARE(a.stats().reserved, 20 * MiB);
    // 18.5 MiB: the best fit is the 19 MiB - 512 remainder; 0.5 MiB - 512 would be left, not over 1 MiB,
    // so the whole remainder is handed out.
    const auto y = a.allocate(18 * MiB + 512 * KiB);
    QCOMPARE(a.blockSize(y), 19 * MiB - 512);
    QCOMPARE(a.stats().reserved, 20 * MiB);
    QCOMPARE(a.stats().allocated, 20 * MiB);
}

void TestCachingAllocator::unsplitRemainderCountsAsAllocated()
{
    CachingAllocator a;
    // 11 MiB + 1 byte: a 12 MiB segment (2 MiB multiple); 1 MiB - 512 left is not over 1 MiB: no split,
    // and max_memory_allocated counts the whole 12 MiB.
    const auto x = a.allocate(11 * MiB + 1);
    QCOMPARE(a.blockSize(x), 12 * MiB);
    QCOMPARE(a.stats().allocated, 12 * MiB);
    QCOMPARE(a.stats().reserved, 12 * MiB);
    // Exactly 10 MiB has a segment of its own, nothing shared.
    QVERIFY(a.allocate(10 * MiB) != CachingAllocator::kFailed);
    QCOMPARE(a.stats().reserved, 22 * MiB);
}

void TestCachingAllocator::freedBlockIsReusedAndSplit()
{
    CachingAllocator a;
    const auto x = a.allocate(50 * MiB);
    a.free(x);
    QCOMPARE(a.stats().allocated, 0u);
    QCOMPARE(a.stats().reserved, 50 * MiB); // cached, not returned
    // 30 MiB: the cached 50 MiB block is the best fit, split (20 MiB left > 1 MiB): no new segment.
    const auto y = a.allocate(30 * MiB);
    QCOMPARE(a.blockSize(y), 30 * MiB);
    QCOMPARE(a.stats().reserved, 50 * MiB);
    // The 20 MiB remainder takes a 20 MiB request exactly.
    QVERIFY(a.allocate(20 * MiB) != CachingAllocator::kFailed);
    QCOMPARE(a.stats().reserved, 50 * MiB);
    QCOMPARE(a.stats().allocated, 50 * MiB);
    QCOMPARE(a.stats().segments, 1u);
}

void TestCachingAllocator::bestFitAmongManyLargeSizes()
{
    // get_free_block's best fit (BlockComparatorSize: the smallest cached size that holds the request, then
    // the lowest address) among hundreds of cached segments of sizes from 12 MiB to 117 GiB, many sharing
    // their power of two, some equal (issue 38: the index of large sizes was rewritten). The expected block
    // is found by a scan of a list of what is cached, not by the index.
    CachingAllocator a;
    struct Cached
    {
        std::uint64_t size;
        std::size_t order; ///< allocation order: segments are laid out in it, so it orders addresses
        CachingAllocator::Handle handle;
        bool free;
    };
    std::vector<Cached> blocks;
    std::uint64_t x = 12345;
    const auto next = [&]() { // a fixed pseudo-random sequence (Knuth's MMIX LCG)
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        return x >> 33;
    };
    for (std::size_t i = 0; i < 400; ++i) {
        // 2 MiB multiples over 10 MiB: a segment of exactly the request each, never split when allocated.
        const std::uint64_t size = (i % 7 == 6 ? blocks[i - 3].size : (6 + next() % 60000) * 2 * MiB);
        const auto h = a.allocate(size);
        QVERIFY(h != CachingAllocator::kFailed);
        QCOMPARE(a.blockSize(h), size);
        blocks.push_back(Cached { size, i, h, false });
    }
    for (Cached& b : blocks) {
        if (next() % 3 != 0) {
            a.free(b.handle);
            b.free = true;
        }
    }
    const std::uint64_t reserved = a.stats().reserved;
    std::uint64_t largest = 0;
    for (const Cached& b : blocks)
        largest = b.free ? std::max(largest, b.size) : largest;
    for (int q = 0; q < 600; ++q) {
        // A request up to the largest cached size, near one of the sizes (just under, at, just over) or
        // anywhere, in 512-byte steps.
        const Cached& near = blocks[next() % blocks.size()];
        const std::uint64_t offsets[] = { 0, 512, MiB - 512, MiB + 512, 3 * MiB };
        std::uint64_t request = near.size - offsets[next() % 5];
        if (q % 4 == 3)
            request = near.size + 512;
        if (q % 8 == 5)
            request = (11 * MiB / 512 + next() % (largest / 512 - 11 * MiB / 512)) * 512;
        if (request > largest)
            continue;
        Cached* expected = nullptr;
        for (Cached& b : blocks) {
            if (b.free && b.size >= request
                && (expected == nullptr || b.size < expected->size
                    || (b.size == expected->size && b.order < expected->order)))
                expected = &b;
        }
        QVERIFY(expected != nullptr);
        const auto h = a.allocate(request);
        QCOMPARE(a.stats().reserved, reserved); // a cached block took it: no new segment
        if (expected->size - request <= MiB) {
            QCOMPARE(h, expected->handle); // taken whole (a remainder of 1 MiB or less is not split off)
            QCOMPARE(a.blockSize(h), expected->size);
        } else {
            QCOMPARE(a.blockSize(h), request); // its front, split off (the index says which block: below)
        }
        a.free(h); // back whole: the front merges with its remainder under the freed handle
        expected->handle = h;
        const auto again = a.allocate(expected->size); // that block, whole, is the best fit for its size
        QCOMPARE(again, h);
        a.free(again);
    }
}

void TestCachingAllocator::freedNeighboursMerge()
{
    CachingAllocator a;
    const auto x = a.allocate(50 * MiB);
    a.free(x);
    const auto y = a.allocate(30 * MiB); // [y 30][free 20]
    const auto z = a.allocate(20 * MiB); // [y 30][z 20]
    a.free(y); // [free 30][z 20]
    a.free(z); // merges with its free neighbour: [free 50]
    // 50 MiB fits the merged block: no new segment.
    QVERIFY(a.allocate(50 * MiB) != CachingAllocator::kFailed);
    QCOMPARE(a.stats().reserved, 50 * MiB);
    QCOMPARE(a.stats().segments, 1u);
    QCOMPARE(a.stats().peakReserved, 50 * MiB);
}

void TestCachingAllocator::mergesTakeBlocksFromAmongTheirSize()
{
    // Cached blocks leave the index from anywhere among the blocks of their size when a freed neighbour
    // merges with them; the best fit for that size is still the lowest address left. A 256 MiB segment is
    // cut into 64 blocks of 4 MiB, in address order; the odd ones are freed (32 cached blocks of one size),
    // then the even ones, each merging with the free neighbours it has. After each, 4 MiB requests take
    // the cached 4 MiB blocks lowest address first: the odd blocks whose neighbours are both still
    // allocated (the last block ends the segment).
    CachingAllocator a;
    a.free(a.allocate(256 * MiB));
    std::vector<CachingAllocator::Handle> h;
    for (int i = 0; i < 64; ++i)
        h.push_back(a.allocate(4 * MiB));
    QCOMPARE(a.stats().reserved, 256 * MiB);
    // Both halves freed in a fixed scramble (a step prime to 32), so blocks enter and leave their size's
    // blocks in no order of address.
    const auto scrambled = [](int first, int step) {
        std::vector<int> out;
        for (int k = 0; k < 32; ++k)
            out.push_back(first + 2 * ((k * step + 5) % 32));
        return out;
    };
    std::vector<bool> allocated(64, true);
    for (const int o : scrambled(1, 7)) {
        a.free(h[o]);
        allocated[o] = false;
    }
    for (const int e : scrambled(0, 13)) {
        a.free(h[e]);
        allocated[e] = false;
        // Every cached 4 MiB block, taken one by one, lowest address first; then all back.
        std::vector<int> taken;
        for (int i = 1; i < 64; i += 2) {
            if (allocated[i - 1] && (i == 63 || allocated[i + 1])) {
                const auto got = a.allocate(4 * MiB);
                QCOMPARE(got, h[i]);
                taken.push_back(i);
            }
        }
        QCOMPARE(a.stats().reserved, 256 * MiB); // the cache served them
        for (std::size_t k = 0; k < taken.size(); ++k) // back in another order: from the middle on
            a.free(h[taken[(k + taken.size() / 2) % taken.size()]]);
    }
    QCOMPARE(a.stats().allocated, 0u);
    QVERIFY(a.allocate(256 * MiB) != CachingAllocator::kFailed); // all one block again
    QCOMPARE(a.stats().reserved, 256 * MiB);
}

void TestCachingAllocator::copiedStateGoesOnAsTheOriginal()
{
    // A replay may start from a copy of another allocator's state (the max batch search starts after the
    // weights): the copy must then behave as the original, under its own capacity.
    CachingAllocator a;
    const auto x = a.allocate(50 * MiB); // segment 1: 50 MiB
    const auto w = a.allocate(3 * MiB); // segment 2: 20 MiB, split: [w 3][free 17]
    QVERIFY(a.allocate(300 * KiB) != CachingAllocator::kFailed); // small pool: one 2 MiB segment
    a.free(x); // [free 50]
    // 72 MiB reserved, 3 MiB + 300 KiB allocated; the peak allocated was 53 MiB + 300 KiB.
    CachingAllocator b { capped(80 * MiB) };
    QVERIFY(b.allocate(10 * MiB) != CachingAllocator::kFailed); // state of its own, overwritten
    b.copyState(a, capped(80 * MiB));
    QCOMPARE(b.stats().reserved, 72 * MiB);
    QCOMPARE(b.stats().allocated, 3 * MiB + 300 * KiB);
    QCOMPARE(b.stats().peakAllocated, 53 * MiB + 300 * KiB);
    QCOMPARE(b.stats().segments, 3u);
    // The cached 50 MiB block serves 40 MiB (split: a remainder of 10 MiB stays cached) and the 17 MiB
    // remainder of segment 2 serves 16 MiB (a remainder of 1 MiB is not split off: the block is whole).
    const auto big = b.allocate(40 * MiB);
    QVERIFY(big != CachingAllocator::kFailed);
    QCOMPARE(b.blockSize(big), 40 * MiB);
    QVERIFY(b.allocate(16 * MiB) != CachingAllocator::kFailed);
    QCOMPARE(b.stats().reserved, 72 * MiB);
    QCOMPARE(b.stats().allocated, 3 * MiB + 300 * KiB + 40 * MiB + 17 * MiB);
    // Under its own cap of 80 MiB: 10 MiB and a byte is larger than the 10 MiB left cached and needs a
    // segment of its own, rounded to 2 MiB: 12 MiB, 84 MiB in all, above the cap. No cached segment is
    // whole to release (the 10 MiB left is part of segment 1), so it fails.
    QCOMPARE(b.allocate(10 * MiB + 1), CachingAllocator::kFailed);
    QCOMPARE(b.stats().ooms, 1u);
    // The original is untouched and has no cap.
    QCOMPARE(a.stats().reserved, 72 * MiB);
    QVERIFY(a.allocate(10 * MiB + 1) != CachingAllocator::kFailed);
    QVERIFY(a.blockSize(w) == 3 * MiB);
}

void TestCachingAllocator::largeCachedBlockThatCannotBeReused()
{
    CachingAllocator a;
    const auto x = a.allocate(50 * MiB);
    QVERIFY(a.allocate(50 * MiB) != CachingAllocator::kFailed);
    a.free(x);
    // 60 MiB: the only cached block (50 MiB) is too small, so cudaMalloc a 60 MiB segment while the 50 MiB
    // one stays cached: 50 + 50 + 60.
    QVERIFY(a.allocate(60 * MiB) != CachingAllocator::kFailed);
    QCOMPARE(a.stats().reserved, 160 * MiB);
    QCOMPARE(a.stats().allocated, 110 * MiB);
    // Releasing the cache returns the unused 50 MiB segment.
    a.emptyCache();
    QCOMPARE(a.stats().reserved, 110 * MiB);
    QCOMPARE(a.stats().peakReserved, 160 * MiB);
}

void TestCachingAllocator::capReleasesCacheAndRetries()
{
    CachingAllocator a { capped(100 * MiB) };
    const auto x = a.allocate(50 * MiB);
    a.free(x);
    // 60 MiB: nothing cached fits; a new 60 MiB segment would make 110 MiB > 100 MiB, so malloc releases
    // the cached (unsplit) 50 MiB segment and retries: 60 MiB reserved.
    const auto y = a.allocate(60 * MiB);
    QVERIFY(y != CachingAllocator::kFailed);
    QCOMPARE(a.stats().reserved, 60 * MiB);
    QCOMPARE(a.stats().allocRetries, 1u);
    QCOMPARE(a.stats().ooms, 0u);
    QCOMPARE(a.stats().peakReserved, 60 * MiB);
}

void TestCachingAllocator::fragmentationCausesOutOfMemory()
{
    CachingAllocator a { capped(100 * MiB) };
    const auto x = a.allocate(60 * MiB);
    a.free(x);
    // 30 MiB splits the cached 60 MiB segment: [y 30][free 30].
    const auto y = a.allocate(30 * MiB);
    QVERIFY(y != CachingAllocator::kFailed);
    // 45 MiB: no cached block of 45 MiB; 60 + 46 (2 MiB multiple) > 100; the 60 MiB segment is split, so
    // releasing the cache frees nothing: out of memory with 30 MiB allocated under a 100 MiB cap.
    QCOMPARE(a.allocate(45 * MiB), CachingAllocator::kFailed);
    QCOMPARE(a.stats().ooms, 1u);
    QCOMPARE(a.stats().reserved, 60 * MiB);
    QCOMPARE(a.stats().allocated, 30 * MiB);
    // Once y is freed the segment is whole again and 45 MiB splits it: no new segment.
    a.free(y);
    QVERIFY(a.allocate(45 * MiB) != CachingAllocator::kFailed);
    QCOMPARE(a.stats().reserved, 60 * MiB);
}

void TestCachingAllocator::maxSplitSizeKeepsOversizeBlocksWhole()
{
    AllocatorSettings s;
    s.maxSplitSize = 40 * MiB;
    CachingAllocator a { s };
    const auto x = a.allocate(100 * MiB);
    a.free(x);
    // 30 MiB < max_split_size may not take the oversize (>= 40 MiB) cached block: a new 30 MiB segment.
    QVERIFY(a.allocate(30 * MiB) != CachingAllocator::kFailed);
    QCOMPARE(a.stats().reserved, 130 * MiB);
    // 90 MiB >= max_split_size takes an oversize block only within 20 MiB of its size: 100 < 90 + 20.
    const auto z = a.allocate(90 * MiB);
    QCOMPARE(a.blockSize(z), 100 * MiB); // not split
    QCOMPARE(a.stats().reserved, 130 * MiB);
}

void TestCachingAllocator::expandableSegmentsGrowOneSegment()
{
    AllocatorSettings s;
    s.expandableSegments = true;
    CachingAllocator a { s };
    // 5 MiB maps one 20 MiB page of the large pool's segment: [5 used][15 free], 20 MiB reserved.
    const auto x = a.allocate(5 * MiB);
    QCOMPARE(a.stats().reserved, 20 * MiB);
    // 30 MiB: no mapped block fits; the lowest place with room is the free 15 MiB followed by unmapped
    // space: map 15 MiB more, rounded to a 20 MiB page -> [5][35 free] -> [5][30 used][5 free], 40 MiB.
    const auto y = a.allocate(30 * MiB);
    QCOMPARE(a.stats().reserved, 40 * MiB);
    a.free(x);
    a.free(y);
    // Everything is free and contiguous: 38 MiB fits without mapping more.
    QVERIFY(a.allocate(38 * MiB) != CachingAllocator::kFailed);
    QCOMPARE(a.stats().reserved, 40 * MiB);

    // Without expandable segments: 20 MiB shared segment + a 30 MiB segment; after freeing both, 38 MiB
    // fits neither cached block: a third segment.
    CachingAllocator b;
    const auto p = b.allocate(5 * MiB);
    const auto q = b.allocate(30 * MiB);
    QCOMPARE(b.stats().reserved, 50 * MiB);
    b.free(p);
    b.free(q);
    QVERIFY(b.allocate(38 * MiB) != CachingAllocator::kFailed);
    QCOMPARE(b.stats().reserved, 88 * MiB);
}

void TestCachingAllocator::expandableSegmentsReleasePages()
{
    AllocatorSettings s;
    s.expandableSegments = true;
    s.capacity = 60 * MiB;
    CachingAllocator a { s };
    const auto x = a.allocate(30 * MiB); // two 20 MiB pages: [30 used][10 free], 40 MiB
    const auto y = a.allocate(5 * MiB); // fits the 10 MiB free tail: 40 MiB
    QCOMPARE(a.stats().reserved, 40 * MiB);
    a.free(x); // [30 free][5 used][5 free]
    // 25 MiB fits the free 30 MiB at the start without growing.
    const auto z = a.allocate(25 * MiB);
    QCOMPARE(a.stats().reserved, 40 * MiB);
    a.free(z);
    a.free(y);
    // Releasing the cache unmaps every page no allocation touches: nothing is left.
    a.emptyCache();
    QCOMPARE(a.stats().reserved, 0u);
    // At the cap: the alloc_block check counts get_allocation_size (a 50 MiB request: 50 MiB <= 60), then
    // three 20 MiB pages are mapped: [50 used][10 free], 60 MiB.
    QVERIFY(a.allocate(50 * MiB) != CachingAllocator::kFailed);
    QCOMPARE(a.stats().reserved, 60 * MiB);
    // 12 MiB more: the free 10 MiB tail is too small; 60 + 12 > 60: release (nothing unmappable) -> OOM.
    QCOMPARE(a.allocate(12 * MiB), CachingAllocator::kFailed);
}

void TestCachingAllocator::fragmentationNamesWhatFreedTheBytes()
{
    CachingAllocator a;
    const auto x = a.allocate(40 * MiB, 7); // tag 7
    QVERIFY(a.allocate(100, 3)
        != CachingAllocator::kFailed); // small pool: 2 MiB segment, 2 MiB - 512 free (split off by 3)
    a.free(x); // 40 MiB free, freed by 7
    const auto report = a.fragmentationNow();
    QCOMPARE(report.size(), std::size_t { 2 });
    QCOMPARE(report[0].tag, 7u);
    QCOMPARE(report[0].bytes, 40 * MiB);
    QVERIFY(!report[0].smallPool);
    QCOMPARE(report[1].tag, 3u);
    QCOMPARE(report[1].bytes, 2 * MiB - 512);
    QVERIFY(report[1].smallPool);
}

void TestCachingAllocator::segmentLogRecordsWhatPyTorchTraces()
{
    // The events PyTorch's trace records: segment_alloc with the segment's size (alloc_block),
    // segment_free (release_block); expandable: segment_map / segment_unmap of whole pages.
    std::vector<SegmentEvent> log;
    CachingAllocator a;
    const auto x = a.allocate(3 * MiB); // before the log: not logged
    a.setSegmentLog(&log);
    const auto y = a.allocate(25 * MiB); // 26 MiB segment
    QVERIFY(a.allocate(1 * KiB) != CachingAllocator::kFailed); // 2 MiB small segment
    a.free(y);
    a.free(x);
    a.emptyCache(); // releases the 20 MiB and 26 MiB segments (the small one holds 1 KiB)
    QCOMPARE(log.size(), std::size_t { 4 });
    QVERIFY(log[0].kind == SegmentEventKind::Alloc && log[0].bytes == 26 * MiB && !log[0].small);
    QCOMPARE(log[0].reservedAfter, 46 * MiB);
    QVERIFY(log[1].kind == SegmentEventKind::Alloc && log[1].bytes == 2 * MiB && log[1].small);
    // release_blocks walks the large pool by (size, address): 20 MiB, then 26 MiB
    QVERIFY(log[2].kind == SegmentEventKind::Free && log[2].bytes == 20 * MiB);
    QVERIFY(log[3].kind == SegmentEventKind::Free && log[3].bytes == 26 * MiB);
    QCOMPARE(log[3].address, log[0].address);
    QCOMPARE(log[3].reservedAfter, 2 * MiB);

    std::vector<SegmentEvent> pages;
    AllocatorSettings s;
    s.expandableSegments = true;
    CachingAllocator e { s };
    e.setSegmentLog(&pages);
    const auto z = e.allocate(30 * MiB); // two 20 MiB pages, mapped in one range
    e.free(z);
    e.emptyCache(); // both unmapped in one range
    QCOMPARE(pages.size(), std::size_t { 2 });
    QVERIFY(pages[0].kind == SegmentEventKind::Map && pages[0].bytes == 40 * MiB);
    QVERIFY(pages[1].kind == SegmentEventKind::Unmap && pages[1].bytes == 40 * MiB);
    QCOMPARE(pages[1].address, pages[0].address);
}

void TestCachingAllocator::adoptedSegmentServesAsCached()
{
    // A 20 MiB segment as a recorded run had it: [3 MiB used][5 MiB free][2 MiB used][10 MiB free].
    std::vector<SegmentEvent> log;
    CachingAllocator a;
    a.setSegmentLog(&log);
    const std::vector<AdoptedBlock> layout { { 3 * MiB, true, 3 * MiB }, { 5 * MiB, false, 0 },
        { 2 * MiB, true, 2 * MiB - 100 }, { 10 * MiB, false, 0 } };
    const auto handles = a.adoptSegment(layout, false);
    QCOMPARE(handles.size(), std::size_t { 4 });
    QVERIFY(handles[0] != CachingAllocator::kFailed && handles[2] != CachingAllocator::kFailed);
    QCOMPARE(handles[1], CachingAllocator::kFailed);
    QCOMPARE(a.stats().reserved, 20 * MiB);
    QCOMPARE(a.stats().allocated, 5 * MiB);
    QCOMPARE(a.stats().requested, 5 * MiB - 100);
    QCOMPARE(a.stats().segments, std::uint64_t { 1 });
    QVERIFY(log.empty());
    // 4 MiB: best fit, the 5 MiB block (1 MiB left, not over 1 MiB: not split): 5 MiB allocated.
    const auto b = a.allocate(4 * MiB);
    QCOMPARE(a.blockSize(b), 5 * MiB);
    // 9 MiB: the 10 MiB block, split off is 1 MiB: not split either: 10 MiB. Nothing reserved.
    const auto c = a.allocate(9 * MiB);
    QCOMPARE(a.blockSize(c), 10 * MiB);
    QCOMPARE(a.stats().reserved, 20 * MiB);
    QVERIFY(log.empty());
    // Freed, all four merge into the whole segment, which empty_cache releases.
    for (const auto h : { handles[0], handles[2], b, c })
        a.free(h);
    a.emptyCache();
    QCOMPARE(a.stats().reserved, 0u);
    QCOMPARE(log.size(), std::size_t { 1 });
    QCOMPARE(log[0].bytes, 20 * MiB);

    // Expandable: the pool's segment with 40 MiB mapped, [10 MiB used][30 MiB free]; 35 MiB more maps
    // one 20 MiB page after the free 30 MiB (35 - 30 = 5 MiB, a page).
    AllocatorSettings s;
    s.expandableSegments = true;
    CachingAllocator e { s };
    e.setSegmentLog(&log);
    log.clear();
    const std::vector<AdoptedBlock> mapped { { 10 * MiB, true, 0 }, { 30 * MiB, false, 0 } };
    QVERIFY(e.adoptSegment(mapped, false, true)[0] != CachingAllocator::kFailed);
    QCOMPARE(e.stats().reserved, 40 * MiB);
    QVERIFY(e.allocate(35 * MiB) != CachingAllocator::kFailed);
    QCOMPARE(log.size(), std::size_t { 1 });
    QVERIFY(log[0].kind == SegmentEventKind::Map && log[0].bytes == 20 * MiB);
    QCOMPARE(e.stats().reserved, 60 * MiB);
}

QTEST_APPLESS_MAIN(TestCachingAllocator)
#include "tst_cachingallocator.moc"

// What a recorded run measured (issue 36): snapshots walked back to absolute bytes, steps and phases by
// frames and by pattern, the profiler's memory timeline and Chrome trace, and bad input. Every expected
// figure is worked out by hand in the comments (MiB throughout: M = 1 MiB).
#include "headroom/measured/MeasuredRun.h"

#include <QTest>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

using namespace headroom;

namespace {

constexpr std::uint64_t M = 1ULL << 20;
constexpr std::uint64_t kBase = 0x7f0000000000ULL;

std::string dataPath(const std::string& name)
{
    return std::string(HEADROOM_TEST_SOURCE_DIR) + "/tests/data/measured/" + name;
}

std::string readData(const std::string& name)
{
    std::ifstream in(dataPath(name), std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

/// JSON turned into plain data with the document's own builder (independent of the JSON and pickle
/// readers, which PlainData's tests check).
std::uint32_t addJson(PlainDocument& doc, const nlohmann::json& j)
{
    switch (j.type()) {
    case nlohmann::json::value_t::null:
        return doc.addNone();
    case nlohmann::json::value_t::boolean:
        return doc.addBool(j.get<bool>());
    case nlohmann::json::value_t::number_integer:
    case nlohmann::json::value_t::number_unsigned:
        return doc.addInt(j.get<std::int64_t>());
    case nlohmann::json::value_t::number_float:
        return doc.addFloat(j.get<double>());
    case nlohmann::json::value_t::string:
        return doc.addString(j.get<std::string>());
    case nlohmann::json::value_t::array: {
        std::vector<std::uint32_t> items;
        for (const auto& item : j)
            items.push_back(addJson(doc, item));
        return doc.addContainer(PlainKind::List, items);
    }
    case nlohmann::json::value_t::object: {
        std::vector<std::uint32_t> items;
        for (const auto& [k, v] : j.items()) {
            items.push_back(doc.addString(k));
            items.push_back(addJson(doc, v));
        }
        return doc.addContainer(PlainKind::Dict, items);
    }
    default:
        return doc.addNone();
    }
}

PlainDocument plain(const nlohmann::json& j)
{
    PlainDocument doc;
    doc.setRoot(addJson(doc, j));
    return doc;
}

SnapshotTraceEntry entry(
    RunAction action, std::uint64_t address, std::uint64_t size, StackId stack = kNoStack)
{
    SnapshotTraceEntry e;
    e.action = action;
    e.address = address;
    e.size = size;
    e.stack = stack;
    return e;
}

SnapshotBlock block(std::uint64_t address, std::uint64_t size, BlockState state, std::uint64_t requested = 0)
{
    SnapshotBlock b;
    b.address = address;
    b.size = size;
    b.state = state;
    b.requestedSize = requested != 0 ? requested : size;
    return b;
}

SnapshotSegment segment(
    std::uint64_t address, std::uint64_t total, std::vector<SnapshotBlock> blocks, std::int64_t device = 0)
{
    SnapshotSegment s;
    s.device = device;
    s.address = address;
    s.totalSize = total;
    s.blocks = std::move(blocks);
    return s;
}

std::vector<std::uint64_t> allocatedCurve(const MeasuredRun& run)
{
    std::vector<std::uint64_t> out;
    for (const auto& s : run.samples)
        out.push_back(s.allocated);
    return out;
}
std::vector<std::uint64_t> reservedCurve(const MeasuredRun& run)
{
    std::vector<std::uint64_t> out;
    for (const auto& s : run.samples)
        out.push_back(s.reserved);
    return out;
}
std::vector<std::uint64_t> inMiB(std::initializer_list<std::uint64_t> v)
{
    std::vector<std::uint64_t> out;
    for (const auto x : v)
        out.push_back(x * M);
    return out;
}

bool hasNote(const MeasuredRun& run, const std::string& part)
{
    for (const auto& n : run.notes) {
        if (n.find(part) != std::string::npos)
            return true;
    }
    return false;
}

struct Phase
{
    RunPhase phase;
    std::size_t first;
    std::size_t end;
    std::uint64_t peakMiB;
};
void checkPhases(const MeasuredStep& step, std::initializer_list<Phase> expected, PhaseSource source)
{
    QCOMPARE(step.phases.size(), expected.size());
    std::size_t i = 0;
    for (const Phase& e : expected) {
        const MeasuredPhase& p = step.phases[i++];
        QCOMPARE(runPhaseName(p.phase), runPhaseName(e.phase));
        QCOMPARE(p.firstSample, e.first);
        QCOMPARE(p.endSample, e.end);
        QCOMPARE(p.peakAllocated, e.peakMiB * M);
        if (p.phase != RunPhase::Backward)
            QCOMPARE(static_cast<int>(p.source), static_cast<int>(source));
    }
}

} // namespace

class TestMeasuredRun : public QObject
{
    Q_OBJECT

private slots:
    void midRunTraceIsAnchoredAtTheSegments();
    void requestedSizesAreRounded();
    void freshSegmentsHandOutUnsplitBlocks();
    void expandableSegmentsMapAndUnmap();
    void deviceWithoutSegmentsIsRelative();
    void unknownAndDoubleFreesAreNotes();
    void snapshotWithoutTrace();
    void stepsAndPhasesFromFrames();
    void stepsAndPhasesFromPattern();
    void stepsAndPhasesFromAnnotations();
    void backwardFromCppFrames();
    void compiledForwardIsNotBackward();
    void stateReplacedOutOfPlaceIsNotTheFirstStep();
    void profilerStepsWithoutOptimizerAllocations();
    void decodesKeyVariants();
    void decodeErrorsNameThePath_data();
    void decodeErrorsNameThePath();
    void memoryTimeline();
    void chromeTrace();
    void rawMemoryTimeline();
    void chromeTraceWithBytesOnly();
    void readsSnapshotJsonFile();
    void readsEveryFormOfTheSameRun_data();
    void readsEveryFormOfTheSameRun();
    void refusesWhatIsNotARun_data();
    void refusesWhatIsNotARun();
    void missingFileNamesThePath();
    void hostilePicklesNameTheFile();
    void recordedRunsMatchPyTorchsCounters();
};

// Weights W (4 M) were allocated before the trace began (ring buffer); the trace then shows:
//   e0 alloc a1 2M, e1 alloc a2 2M, e2 segment_alloc S2 20M, e3 alloc a3 12M (in S2),
//   e4 free a3, e5 free a2, e6 alloc g 2M, e7 free a1, e8 segment_free S2.
// At the snapshot: S1 (20 M) holds W and g allocated: allocated 6 M, reserved 20 M.
// The trace's net change in allocated is +2+2+12-12-2+2-2 = +2 M, so before e0 allocated = 4 M (= W);
// reserved before = 20 - (+20 - 20) = 20 M. After each event:
//   allocated 6, 8, 8, 20, 8, 6, 8, 6, 6   reserved 20, 20, 40, 40, 40, 40, 40, 40, 20.
// Peak allocated 20 M at sample 3 (reserved 40 there: fragmentation (40-20)/40 = 0.5); peak reserved
// 40 M first at sample 2. Alive at the peak: a3 12, W 4, a1 2, a2 2 (largest first; W is listed first
// among the blocks, being from before the trace).
void TestMeasuredRun::midRunTraceIsAnchoredAtTheSegments()
{
    const std::uint64_t s1 = kBase;
    const std::uint64_t s2 = kBase + 100 * M;
    MemorySnapshot snap;
    snap.segments.push_back(segment(s1, 20 * M,
        { block(s1, 4 * M, BlockState::ActiveAllocated), block(s1 + 4 * M, 4 * M, BlockState::Inactive),
            block(s1 + 8 * M, 2 * M, BlockState::ActiveAllocated),
            block(s1 + 10 * M, 10 * M, BlockState::Inactive) }));
    snap.deviceTraces.push_back({
        entry(RunAction::Alloc, s1 + 4 * M, 2 * M),
        entry(RunAction::Alloc, s1 + 6 * M, 2 * M),
        entry(RunAction::SegmentAlloc, s2, 20 * M),
        entry(RunAction::Alloc, s2, 12 * M),
        entry(RunAction::FreeRequested, s2, 12 * M),
        entry(RunAction::FreeRequested, s1 + 6 * M, 2 * M),
        entry(RunAction::Alloc, s1 + 8 * M, 2 * M),
        entry(RunAction::FreeRequested, s1 + 4 * M, 2 * M),
        entry(RunAction::SegmentFree, s2, 20 * M),
    });
    const MeasuredRun run = measureSnapshot(snap, RunFileKind::SnapshotPickle);
    QVERIFY(run.absolute);
    QCOMPARE(run.device, std::int64_t { 0 });
    QCOMPARE(allocatedCurve(run), inMiB({ 6, 8, 8, 20, 8, 6, 8, 6, 6 }));
    QCOMPARE(reservedCurve(run), inMiB({ 20, 20, 40, 40, 40, 40, 40, 40, 20 }));
    QCOMPARE(run.peakAllocated, 20 * M);
    QCOMPARE(run.peakAllocatedSample, std::size_t { 3 });
    QCOMPARE(run.peakReserved, 40 * M);
    QCOMPARE(run.peakReservedSample, std::size_t { 2 });
    QCOMPARE(run.fragmentationAtPeak, 0.5);
    QCOMPARE(run.blocks.size(), std::size_t { 5 }); // W, a1, a2, a3, g
    QCOMPARE(run.blocks.front().address, s1);
    QCOMPARE(run.blocks.front().allocSample, MeasuredBlock::kNoSample);
    QCOMPARE(run.blocks.front().freeSample, MeasuredBlock::kNoSample);
    QCOMPARE(run.peakBlocks.size(), std::size_t { 4 });
    QCOMPARE(run.blocks[run.peakBlocks[0]].size, 12 * M);
    QCOMPARE(run.blocks[run.peakBlocks[0]].allocSample, std::size_t { 3 });
    QCOMPARE(run.blocks[run.peakBlocks[0]].freeSample, std::size_t { 4 });
    QCOMPARE(run.blocks[run.peakBlocks[1]].address, s1);
    QCOMPARE(run.blocks[run.peakBlocks[2]].size, 2 * M);
    QCOMPARE(run.blocks[run.peakBlocks[3]].size, 2 * M);
    QCOMPARE(run.outOfMemoryEvents, 0U);
}

// Trace entries carry the requested size (record_trace(ALLOC, ..., orig_size)); allocated counts the
// block. A small segment (2 M): e0 alloc b1 1000 bytes, e1 alloc b2 1000 bytes, e2 free b1.
// b1 is freed: its block is round_size(1000) = 1024 (512-byte multiples). b2 is still allocated and
// the segment says its block is 1536 bytes (handed out with an unsplit remainder).
// Allocated at the end = 1536; net change 1024 + 1536 - 1024 = 1536, so 0 before the trace;
// after each event: 1024, 2560, 1536.
void TestMeasuredRun::requestedSizesAreRounded()
{
    MemorySnapshot snap;
    snap.segments.push_back(segment(kBase, 2 * M,
        { block(kBase, 1024, BlockState::Inactive),
            block(kBase + 1024, 1536, BlockState::ActiveAllocated, 1000),
            block(kBase + 2560, 2 * M - 2560, BlockState::Inactive) }));
    snap.deviceTraces.push_back({ entry(RunAction::Alloc, kBase, 1000),
        entry(RunAction::Alloc, kBase + 1024, 1000), entry(RunAction::FreeRequested, kBase, 1000) });
    const MeasuredRun run = measureSnapshot(snap, RunFileKind::SnapshotPickle);
    QCOMPARE(allocatedCurve(run), (std::vector<std::uint64_t> { 1024, 2560, 1536 }));
    QCOMPARE(run.blocks.size(), std::size_t { 2 });
    QCOMPARE(run.blocks[0].size, std::uint64_t { 1024 });
    QCOMPARE(run.blocks[0].requestedSize, std::uint64_t { 1000 });
    QCOMPARE(run.blocks[1].size, std::uint64_t { 1536 });
}

// A request of 11 M gets a 12 M segment (rounded up to 2 MiB, get_allocation_size); the 1 M left is
// not more than kSmallSize, so should_split keeps it in the block: the block is 12 M. A 15 M request in
// a fresh 20 M segment leaves 5 M: split, the block is 15 M. Both segments are cached at the snapshot
// (32 M reserved, nothing allocated).
//   e0 segment_alloc 12, e1 alloc 11 -> block 12, e2 free, e3 segment_alloc 20, e4 alloc 15, e5 free.
// Allocated 0, 12, 0, 0, 15, 0; reserved (0 before) 12, 12, 12, 32, 32, 32.
void TestMeasuredRun::freshSegmentsHandOutUnsplitBlocks()
{
    const std::uint64_t s2 = kBase;
    const std::uint64_t s3 = kBase + 64 * M;
    MemorySnapshot snap;
    snap.segments.push_back(segment(s2, 12 * M, { block(s2, 12 * M, BlockState::Inactive) }));
    snap.segments.push_back(segment(s3, 20 * M, { block(s3, 20 * M, BlockState::Inactive) }));
    snap.deviceTraces.push_back(
        { entry(RunAction::SegmentAlloc, s2, 12 * M), entry(RunAction::Alloc, s2, 11 * M),
            entry(RunAction::FreeRequested, s2, 11 * M), entry(RunAction::SegmentAlloc, s3, 20 * M),
            entry(RunAction::Alloc, s3, 15 * M), entry(RunAction::FreeRequested, s3, 15 * M) });
    const MeasuredRun run = measureSnapshot(snap, RunFileKind::SnapshotPickle);
    QVERIFY(run.absolute);
    QCOMPARE(allocatedCurve(run), inMiB({ 0, 12, 0, 0, 15, 0 }));
    QCOMPARE(reservedCurve(run), inMiB({ 12, 12, 12, 32, 32, 32 }));
    QCOMPARE(run.blocks[0].size, 12 * M);
    QCOMPARE(run.blocks[0].requestedSize, 11 * M);
    QCOMPARE(run.blocks[1].size, 15 * M);
}

// Expandable segments: reserved grows by each segment_map's range and shrinks by each segment_unmap's
// (map_block / unmap_block change reserved_bytes by mapped_range.size). At the snapshot one expandable
// segment with 20 M mapped, nothing allocated: reserved 20, allocated 0.
//   e0 map 20M, e1 map 20M, e2 alloc a 30M, e3 free a, e4 unmap 20M.
// Reserved before = 20 - (20 + 20 - 20) = 0; after each event: 20, 40, 40, 40, 20.
// Allocated: 0, 0, 30, 0, 0. Peak allocated 30 M at sample 2, reserved there 40: fragmentation 0.25.
void TestMeasuredRun::expandableSegmentsMapAndUnmap()
{
    MemorySnapshot snap;
    auto seg = segment(kBase, 20 * M, { block(kBase, 20 * M, BlockState::Inactive) });
    seg.expandable = true;
    snap.segments.push_back(seg);
    snap.deviceTraces.push_back(
        { entry(RunAction::SegmentMap, kBase, 20 * M), entry(RunAction::SegmentMap, kBase + 20 * M, 20 * M),
            entry(RunAction::Alloc, kBase, 30 * M), entry(RunAction::FreeRequested, kBase, 30 * M),
            entry(RunAction::SegmentUnmap, kBase + 20 * M, 20 * M) });
    const MeasuredRun run = measureSnapshot(snap, RunFileKind::SnapshotPickle);
    QCOMPARE(reservedCurve(run), inMiB({ 20, 40, 40, 40, 20 }));
    QCOMPARE(allocatedCurve(run), inMiB({ 0, 0, 30, 0, 0 }));
    QCOMPARE(run.peakReserved, 40 * M);
    QCOMPARE(run.peakReservedSample, std::size_t { 1 });
    QCOMPARE(run.fragmentationAtPeak, 0.25);
}

// Device 1 has the longer trace (4 entries against none); the snapshot's segments are all device 0's,
// so device 1 had nothing reserved or allocated at the snapshot.
//   alloc 4M, alloc 2M, free the 4M, oom (8 M requested, 1 M free).
// Its changes +4, +2, -4 leave 2 M allocated, but the snapshot says 0: walked back, the bytes before
// the trace would be -2 M. The two disagree, so the changes count from their lowest point (0, before
// the trace): allocated 4, 6, 2, 2. The same trace in a file without segments cannot be anchored at
// all, and counts the same way.
void TestMeasuredRun::deviceWithoutSegmentsIsRelative()
{
    MemorySnapshot snap;
    snap.segments.push_back(segment(kBase, 20 * M, { block(kBase, 20 * M, BlockState::Inactive) }, 0));
    snap.deviceTraces.resize(2);
    auto oom = entry(RunAction::Oom, 0, 8 * M);
    oom.deviceFree = 1 * M;
    snap.deviceTraces[1]
        = { entry(RunAction::Alloc, kBase + 200 * M, 4 * M), entry(RunAction::Alloc, kBase + 204 * M, 2 * M),
              entry(RunAction::FreeRequested, kBase + 200 * M, 4 * M), oom };
    const MeasuredRun run = measureSnapshot(snap, RunFileKind::SnapshotPickle);
    QCOMPARE(run.device, std::int64_t { 1 });
    QVERIFY(!run.absolute);
    QVERIFY2(run.whyNotAbsolute.find("segments of device 1 disagree") != std::string::npos,
        run.whyNotAbsolute.c_str());
    QCOMPARE(allocatedCurve(run), inMiB({ 4, 6, 2, 2 }));
    QCOMPARE(run.outOfMemoryEvents, 1U);
    QVERIFY(hasNote(run, "out of memory at entry 3: 8.0 MiB requested with 1.0 MiB free"));

    snap.segments.clear();
    snap.segmentsRecorded = false;
    const MeasuredRun unanchored = measureSnapshot(snap, RunFileKind::SnapshotPickle);
    QVERIFY(!unanchored.absolute);
    QVERIFY(unanchored.whyNotAbsolute.find("has no segments") != std::string::npos);
    QCOMPARE(allocatedCurve(unanchored), inMiB({ 4, 6, 2, 2 }));

    // Freed back to 0 by the end, device 1 is anchored: nothing before the trace, 4, 6, 2, 0.
    snap.segmentsRecorded = true;
    snap.deviceTraces[1].push_back(entry(RunAction::FreeRequested, kBase + 204 * M, 2 * M));
    const MeasuredRun anchored = measureSnapshot(snap, RunFileKind::SnapshotPickle);
    QVERIFY(anchored.absolute);
    QCOMPARE(allocatedCurve(anchored), inMiB({ 4, 6, 2, 2, 0 }));
}

// A free of an address the trace never allocated is a block from before the trace (3 M requested:
// round_size keeps 3 M); freeing it again is noted and ignored. Nothing allocated at the snapshot:
// before the trace 3 M, after the frees 0 and 0.
void TestMeasuredRun::unknownAndDoubleFreesAreNotes()
{
    MemorySnapshot snap;
    snap.segments.push_back(segment(kBase, 20 * M, { block(kBase, 20 * M, BlockState::Inactive) }));
    snap.deviceTraces.push_back(
        { entry(RunAction::FreeRequested, kBase, 3 * M), entry(RunAction::FreeRequested, kBase, 3 * M) });
    const MeasuredRun run = measureSnapshot(snap, RunFileKind::SnapshotPickle);
    QCOMPARE(allocatedCurve(run), inMiB({ 0, 0 }));
    QCOMPARE(run.blocks.size(), std::size_t { 1 });
    QCOMPARE(run.blocks[0].allocSample, MeasuredBlock::kNoSample);
    QCOMPARE(run.blocks[0].freeSample, std::size_t { 0 });
    QVERIFY(hasNote(run, "already freed"));
    QVERIFY(hasNote(run, "1 blocks (3.0 MiB) freed in the trace were allocated before it began"));
}

// No trace recorded (history off): the one state known is the snapshot's, 6 M of 20 M.
void TestMeasuredRun::snapshotWithoutTrace()
{
    MemorySnapshot snap;
    snap.segments.push_back(segment(kBase, 20 * M,
        { block(kBase, 4 * M, BlockState::ActiveAllocated),
            block(kBase + 4 * M, 2 * M, BlockState::ActivePendingFree),
            block(kBase + 6 * M, 2 * M, BlockState::ActiveAllocated),
            block(kBase + 8 * M, 12 * M, BlockState::Inactive) }));
    const MeasuredRun run = measureSnapshot(snap, RunFileKind::SnapshotPickle);
    // active_pending_free is not counted (its free was requested: allocated_bytes already dropped).
    QCOMPARE(allocatedCurve(run), inMiB({ 6 }));
    QCOMPARE(reservedCurve(run), inMiB({ 20 }));
    QCOMPARE(run.peakBlocks.size(), std::size_t { 2 });
    QVERIFY(run.steps.empty());
    QVERIFY(hasNote(run, "no trace"));
}

// tests/data/measured/snapshot_steps.json: two Adam steps with Python frames. Weights W 4M before the
// trace. Events (tag from frames: O other, F forward, B backward, U no frames, P optimizer):
//   e0 O x1 +1 | e1 F h1 +2, e2 F h2 +2, e3 B g0 +1, e4 U gw +4, e5 -h2, e6 -h1, e7 -g0,
//   e8 P s1 +4, e9 P s2 +4, e10 P t +1, e11 -t | e12 O x2 +1, e13 -x1, e14 F +2, e15 F +2, e16 -gw,
//   e17 U gw' +4, e18 -2, e19 -2, e20 P t' +1, e21 -t'.
// Alive at the end: W 4, x2 1, gw' 4, s1 4, s2 4 = 17 M; the net change is +13 M, so 4 M before e0.
// Allocated after each event: 5,7,9,10,14,12,10,9,13,17,18,17,18,17,19,21,17,21,19,17,18,17.
// Steps: the first starts at the first forward allocation (e1; e0 is before it), the second at e12
// (an allocation outside the optimizer after it). Step 0 [1,12): forward [1,3) peak 9, backward
// [3,8) from the first backward allocation, peak 14, optimizer [8,12) peak 18; its optimizer makes s1
// and s2, alive to the end: the first step. Step 1 [12,22): forward [12,17) peak 21, backward from the
// first allocation without frames after the forward's last (e17) [17,20) peak 21, optimizer [20,22)
// peak 18. Run peak 21 M at sample 15; reserved 40 M throughout: fragmentation (40-21)/40 = 0.475.
void TestMeasuredRun::stepsAndPhasesFromFrames()
{
    const auto doc = plain(nlohmann::json::parse(readData("snapshot_steps.json")));
    auto snap = decodeSnapshot(doc.root());
    QVERIFY2(snap.ok(), snap.ok() ? "" : snap.error().message.c_str());
    // Frames are stored once: other, forward, backward, optimizer stacks and W's.
    QCOMPARE(snap.value().stacks.size(), std::size_t { 6 });
    QVERIFY(snap.value().allocatorSettings.present);
    const MeasuredRun run = measureSnapshot(std::move(snap).value(), RunFileKind::SnapshotJson);
    QCOMPARE(allocatedCurve(run),
        inMiB({ 5, 7, 9, 10, 14, 12, 10, 9, 13, 17, 18, 17, 18, 17, 19, 21, 17, 21, 19, 17, 18, 17 }));
    QCOMPARE(run.peakAllocated, 21 * M);
    QCOMPARE(run.peakAllocatedSample, std::size_t { 15 });
    QCOMPARE(run.fragmentationAtPeak, 0.475);
    QCOMPARE(run.samples[3].timeUs, std::int64_t { 1030 });
    QCOMPARE(run.steps.size(), std::size_t { 2 });
    QVERIFY(run.steps[0].first);
    QVERIFY(!run.steps[1].first);
    QCOMPARE(run.steps[0].firstSample, std::size_t { 1 });
    QCOMPARE(run.steps[0].endSample, std::size_t { 12 });
    QCOMPARE(run.steps[0].peakAllocated, 18 * M);
    checkPhases(run.steps[0],
        { { RunPhase::Forward, 1, 3, 9 }, { RunPhase::Backward, 3, 8, 14 },
            { RunPhase::OptimizerStep, 8, 12, 18 } },
        PhaseSource::Frames);
    QCOMPARE(run.steps[1].firstSample, std::size_t { 12 });
    QCOMPARE(run.steps[1].endSample, std::size_t { 22 });
    QCOMPARE(run.steps[1].peakAllocated, 21 * M);
    checkPhases(run.steps[1],
        { { RunPhase::Forward, 12, 17, 21 }, { RunPhase::Backward, 17, 20, 21 },
            { RunPhase::OptimizerStep, 20, 22, 18 } },
        PhaseSource::Frames);
    // Alive at the peak (sample 15): W, gw, s1, s2 (4 M each), h1', h2' (2 M), x2 (1 M) = 21 M.
    std::uint64_t alive = 0;
    for (const auto i : run.peakBlocks)
        alive += run.blocks[i].size;
    QCOMPARE(alive, 21 * M);
    QCOMPARE(run.blocks[run.peakBlocks[0]].address, kBase); // W, the first of the 4 M blocks
    QCOMPARE(run.blocks[run.peakBlocks.back()].size, 1 * M);
    QVERIFY(run.snapshot.has_value());
    const auto& wStack = run.snapshot->stacks[run.blocks[run.peakBlocks[0]].stack];
    QCOMPARE(wStack.size(), std::size_t { 1 });
    QCOMPARE(wStack[0].line, std::int64_t { 20 });
}

// Without frames: weights W 4 M before the trace, then three steps, each: forward f1, f2, f3 (+2 M
// each), the gradient g +2, backward frees f3, f2, f1, (the first step only) optimizer state s +2,
// an optimizer temporary t +1 then freed; from the second step on, zero_grad frees the last g first.
// Allocated after each event:
//   6,8,10,12,10,8,6,8,9,8 | 6,8,10,12,14,12,10,8,9,8 | 6,8,10,12,14,12,10,8,9,8.
// The largest fall is 14 -> 6 = 8 M: cycles must rise and fall 4 M. Valleys (the last of equal minima)
// at 0, 10, 20 and 29, peaks at 3, 14, 24: steps [1,11), [11,21), [21,30).
// Step 0: forward [1,4) (to the maximum) peak 12; the lowest point after it before the step's end
// is sample 6 (6 M), the first rise after it (sample 7) starts the optimizer: backward [4,7) peak 10,
// optimizer [7,11) peak 9; s made there lives on: the first step.
// Step 1: forward [11,15) peak 14, backward [15,18) peak 12, optimizer [18,21) peak 9.
// Step 2: forward [21,25) peak 14, backward [25,28) peak 12, optimizer [28,30) peak 9.
void TestMeasuredRun::stepsAndPhasesFromPattern()
{
    MemorySnapshot snap;
    snap.segments.push_back(segment(kBase, 40 * M,
        { block(kBase, 4 * M, BlockState::ActiveAllocated),
            block(kBase + 4 * M, 2 * M, BlockState::ActiveAllocated),
            block(kBase + 6 * M, 2 * M, BlockState::ActiveAllocated),
            block(kBase + 8 * M, 32 * M, BlockState::Inactive) }));
    std::vector<SnapshotTraceEntry> t;
    const std::uint64_t f1 = kBase + 10 * M;
    const std::uint64_t f2 = kBase + 12 * M;
    const std::uint64_t f3 = kBase + 14 * M;
    const std::uint64_t tmp = kBase + 16 * M;
    const std::uint64_t grads[] = { kBase + 20 * M, kBase + 22 * M, kBase + 6 * M };
    for (int k = 0; k < 3; ++k) {
        if (k > 0)
            t.push_back(entry(RunAction::FreeRequested, grads[k - 1], 2 * M));
        for (const auto a : { f1, f2, f3 })
            t.push_back(entry(RunAction::Alloc, a, 2 * M));
        t.push_back(entry(RunAction::Alloc, grads[k], 2 * M));
        for (const auto a : { f3, f2, f1 })
            t.push_back(entry(RunAction::FreeRequested, a, 2 * M));
        if (k == 0)
            t.push_back(entry(RunAction::Alloc, kBase + 4 * M, 2 * M));
        t.push_back(entry(RunAction::Alloc, tmp, 1 * M));
        t.push_back(entry(RunAction::FreeRequested, tmp, 1 * M));
    }
    snap.deviceTraces.push_back(t);
    const MeasuredRun run = measureSnapshot(snap, RunFileKind::SnapshotPickle);
    QCOMPARE(allocatedCurve(run),
        inMiB({ 6, 8, 10, 12, 10, 8, 6, 8, 9, 8, 6, 8, 10, 12, 14, 12, 10, 8, 9, 8, 6, 8, 10, 12, 14, 12, 10,
            8, 9, 8 }));
    QCOMPARE(run.steps.size(), std::size_t { 3 });
    QVERIFY(run.steps[0].first);
    QVERIFY(!run.steps[1].first);
    checkPhases(run.steps[0],
        { { RunPhase::Forward, 1, 4, 12 }, { RunPhase::Backward, 4, 7, 10 },
            { RunPhase::OptimizerStep, 7, 11, 9 } },
        PhaseSource::Pattern);
    checkPhases(run.steps[1],
        { { RunPhase::Forward, 11, 15, 14 }, { RunPhase::Backward, 15, 18, 12 },
            { RunPhase::OptimizerStep, 18, 21, 9 } },
        PhaseSource::Pattern);
    checkPhases(run.steps[2],
        { { RunPhase::Forward, 21, 25, 14 }, { RunPhase::Backward, 25, 28, 12 },
            { RunPhase::OptimizerStep, 28, 30, 9 } },
        PhaseSource::Pattern);
    QCOMPARE(run.peakAllocated, 14 * M);
    QCOMPARE(run.peakAllocatedSample, std::size_t { 14 });
}

// record_function spans kept as external_annotations (global_record_annotations=True), no frames:
// ProfilerStep#1 [0,100] with backward [30,55] and Optimizer.step [60,90], ProfilerStep#2 [100,200]
// with [130,155] and [160,190]. Weights 4 M before the trace. Events (time: change -> allocated):
//   e0 10: +2 -> 6, e1 20: +2 -> 8, e2 35: g +4 -> 12, e3 40: -2 -> 10, e4 45: -2 -> 8,
//   e5 65: s +2 -> 10, e6 70: +1 -> 11, e7 75: -1 -> 10, e8 105: -g -> 6, e9 110: +2 -> 8,
//   e10 120: +2 -> 10, e11 135: g +4 -> 14, e12 140: -2 -> 12, e13 145: -2 -> 10, e14 170: +1 -> 11,
//   e15 175: -1 -> 10.
// At the end W, s and g are alive: 10 M. Step 0 [0,9): forward [0,2) peak 8, backward [2,5) peak 12,
// optimizer [5,9) peak 11 (s outlives it: the first step); step 1 from the first allocation of
// ProfilerStep#2 (e9) [9,16): forward [9,11) 10, backward [11,14) 14, optimizer [14,16) 11.
void TestMeasuredRun::stepsAndPhasesFromAnnotations()
{
    MemorySnapshot snap;
    snap.segments.push_back(segment(kBase, 40 * M,
        { block(kBase, 4 * M, BlockState::ActiveAllocated),
            block(kBase + 4 * M, 2 * M, BlockState::ActiveAllocated),
            block(kBase + 6 * M, 4 * M, BlockState::ActiveAllocated),
            block(kBase + 10 * M, 30 * M, BlockState::Inactive) }));
    const std::uint64_t a = kBase + 20 * M;
    const std::uint64_t b = kBase + 22 * M;
    const std::uint64_t g1 = kBase + 24 * M;
    const std::uint64_t tmp = kBase + 30 * M;
    struct E
    {
        std::int64_t t;
        RunAction action;
        std::uint64_t address;
        std::uint64_t size;
    };
    const E events[] = { { 10, RunAction::Alloc, a, 2 * M }, { 20, RunAction::Alloc, b, 2 * M },
        { 35, RunAction::Alloc, g1, 4 * M }, { 40, RunAction::FreeRequested, b, 2 * M },
        { 45, RunAction::FreeRequested, a, 2 * M }, { 65, RunAction::Alloc, kBase + 4 * M, 2 * M },
        { 70, RunAction::Alloc, tmp, 1 * M }, { 75, RunAction::FreeRequested, tmp, 1 * M },
        { 105, RunAction::FreeRequested, g1, 4 * M }, { 110, RunAction::Alloc, a, 2 * M },
        { 120, RunAction::Alloc, b, 2 * M }, { 135, RunAction::Alloc, kBase + 6 * M, 4 * M },
        { 140, RunAction::FreeRequested, b, 2 * M }, { 145, RunAction::FreeRequested, a, 2 * M },
        { 170, RunAction::Alloc, tmp, 1 * M }, { 175, RunAction::FreeRequested, tmp, 1 * M } };
    std::vector<SnapshotTraceEntry> trace;
    for (const E& e : events) {
        auto x = entry(e.action, e.address, e.size);
        x.timeUs = e.t;
        trace.push_back(x);
    }
    snap.deviceTraces.push_back(trace);
    auto span = [&](const char* name, std::int64_t begin, std::int64_t end) {
        snap.externalAnnotations.push_back(SnapshotAnnotation { 0, begin, true, name });
        snap.externalAnnotations.push_back(SnapshotAnnotation { 0, end, false, name });
    };
    span("ProfilerStep#1", 0, 100);
    span("autograd::engine::evaluate_function: AddmmBackward0", 30, 55);
    span("Optimizer.step#Adam.step", 60, 90);
    span("ProfilerStep#2", 100, 200);
    span("autograd::engine::evaluate_function: AddmmBackward0", 130, 155);
    span("Optimizer.step#Adam.step", 160, 190);
    const MeasuredRun run = measureSnapshot(snap, RunFileKind::SnapshotPickle);
    QCOMPARE(allocatedCurve(run), inMiB({ 6, 8, 12, 10, 8, 10, 11, 10, 6, 8, 10, 14, 12, 10, 11, 10 }));
    QCOMPARE(run.steps.size(), std::size_t { 2 });
    QVERIFY(run.steps[0].first);
    QVERIFY(!run.steps[1].first);
    checkPhases(run.steps[0],
        { { RunPhase::Forward, 0, 2, 8 }, { RunPhase::Backward, 2, 5, 12 },
            { RunPhase::OptimizerStep, 5, 9, 11 } },
        PhaseSource::Annotations);
    checkPhases(run.steps[1],
        { { RunPhase::Forward, 9, 11, 10 }, { RunPhase::Backward, 11, 14, 14 },
            { RunPhase::OptimizerStep, 14, 16, 11 } },
        PhaseSource::Annotations);
}

// stacks="all": autograd's device thread has C++ frames only (torch::autograd::Engine). Weights 4 M
// before the trace; e0 F +2 -> 6, e1 F +2 -> 8, e2 B +2 -> 10 (a gradient, kept), e3 -2 -> 8,
// e4 -2 -> 6, e5 P +1 -> 7, e6 -1 -> 6, e7 F +2 -> 8 (the next step), e8 -2 -> 6.
// Step 0 [0,7): forward [0,2) peak 8, backward [2,5) peak 10, optimizer [5,7) peak 7; step 1 [7,9):
// forward only, peak 8. Nothing the optimizer made outlives step 0 and no step's baseline grows: no
// first step.
void TestMeasuredRun::backwardFromCppFrames()
{
    MemorySnapshot snap;
    snap.stacks.push_back({ RunFrame { "/opt/venv/lib/python3.12/site-packages/torch/nn/modules/module.py",
                                1750, "_call_impl" },
        RunFrame { "train.py", 9, "<module>" } });
    snap.stacks.push_back({ RunFrame { "", 0, "at::native::empty_cuda(...)" },
        RunFrame { "", 0, "torch::autograd::Engine::evaluate_function(...)" },
        RunFrame { "", 0, "torch::autograd::Engine::thread_main(...)" } });
    snap.stacks.push_back(
        { RunFrame { "/opt/venv/lib/python3.12/site-packages/torch/optim/sgd.py", 80, "step" } });
    const StackId fwd = 1;
    const StackId bwd = 2;
    const StackId opt = 3;
    snap.segments.push_back(segment(kBase, 20 * M,
        { block(kBase, 4 * M, BlockState::ActiveAllocated),
            block(kBase + 4 * M, 2 * M, BlockState::ActiveAllocated),
            block(kBase + 6 * M, 14 * M, BlockState::Inactive) }));
    const std::uint64_t a = kBase + 10 * M;
    const std::uint64_t b = kBase + 12 * M;
    snap.deviceTraces.push_back({ entry(RunAction::Alloc, a, 2 * M, fwd),
        entry(RunAction::Alloc, b, 2 * M, fwd), entry(RunAction::Alloc, kBase + 4 * M, 2 * M, bwd),
        entry(RunAction::FreeRequested, b, 2 * M, bwd), entry(RunAction::FreeRequested, a, 2 * M, bwd),
        entry(RunAction::Alloc, kBase + 14 * M, 1 * M, opt),
        entry(RunAction::FreeRequested, kBase + 14 * M, 1 * M, opt), entry(RunAction::Alloc, a, 2 * M, fwd),
        entry(RunAction::FreeRequested, a, 2 * M, fwd) });
    const MeasuredRun run = measureSnapshot(snap, RunFileKind::SnapshotPickle);
    QCOMPARE(allocatedCurve(run), inMiB({ 6, 8, 10, 8, 6, 7, 6, 8, 6 }));
    QCOMPARE(run.steps.size(), std::size_t { 2 });
    QVERIFY(!run.steps[0].first);
    checkPhases(run.steps[0],
        { { RunPhase::Forward, 0, 2, 8 }, { RunPhase::Backward, 2, 5, 10 },
            { RunPhase::OptimizerStep, 5, 7, 7 } },
        PhaseSource::Frames);
    checkPhases(run.steps[1], { { RunPhase::Forward, 7, 9, 8 } }, PhaseSource::Frames);
}

// torch.compile (tests/data/measured/public/cs336_compiled_adamw_step.pickle.gz): the compiled forward
// runs inside torch.autograd.Function.apply (torch/autograd/function.py), as does any autograd Function's
// forward, and a no_grad function inside grad_mode.py's decorate_context: neither is a backward frame.
// The compiled backward has runtime_wrappers' "backward". Weights 4 M before the trace; e0 F +2 -> 6,
// e1 F (no_grad) +2 -> 8, e2 B +2 -> 10 (a gradient, kept), e3 -2 -> 8, e4 -2 -> 6, e5 O +1 -> 7,
// e6 -1 -> 6: one step, forward [0,2) peak 8, backward [2,5) peak 10, optimizer [5,7) peak 7, all from
// the frames (were the forward's frames taken as backward, no forward would start a step).
void TestMeasuredRun::compiledForwardIsNotBackward()
{
    const std::string site = "/venv/lib/python3.10/site-packages/torch/";
    MemorySnapshot snap;
    snap.stacks.push_back(
        { RunFrame { "/tmp/torchinductor_u/si/csip.py", 102, "call" }, RunFrame { "model.py", 57, "forward" },
            RunFrame { site + "_functorch/_aot_autograd/runtime_wrappers.py", 2152, "forward" },
            RunFrame { site + "autograd/function.py", 583, "apply" },
            RunFrame { site + "_dynamo/eval_frame.py", 1181, "_fn" }, RunFrame { "train.py", 51, "train" } });
    snap.stacks.push_back({ RunFrame { "model.py", 12, "forward" },
        RunFrame { site + "autograd/grad_mode.py", 80, "decorate_context" },
        RunFrame { "train.py", 51, "train" } });
    snap.stacks.push_back(
        { RunFrame { "/tmp/torchinductor_u/gm/cgm4.py", 54, "call" }, RunFrame { "model.py", 41, "forward" },
            RunFrame { site + "_functorch/_aot_autograd/runtime_wrappers.py", 2338, "backward" },
            RunFrame { site + "autograd/function.py", 317, "apply" } });
    snap.stacks.push_back({ RunFrame { "cs336_basics/optimizer.py", 74, "step" },
        RunFrame { site + "optim/optimizer.py", 526, "wrapper" }, RunFrame { "train.py", 54, "train" } });
    const StackId fwd = 1;
    const StackId noGrad = 2;
    const StackId bwd = 3;
    const StackId opt = 4;
    snap.segments.push_back(segment(kBase, 20 * M,
        { block(kBase, 4 * M, BlockState::ActiveAllocated),
            block(kBase + 4 * M, 2 * M, BlockState::ActiveAllocated),
            block(kBase + 6 * M, 14 * M, BlockState::Inactive) }));
    const std::uint64_t a = kBase + 10 * M;
    const std::uint64_t b = kBase + 12 * M;
    snap.deviceTraces.push_back({ entry(RunAction::Alloc, a, 2 * M, fwd),
        entry(RunAction::Alloc, b, 2 * M, noGrad), entry(RunAction::Alloc, kBase + 4 * M, 2 * M, bwd),
        entry(RunAction::FreeRequested, b, 2 * M, bwd), entry(RunAction::FreeRequested, a, 2 * M, bwd),
        entry(RunAction::Alloc, kBase + 14 * M, 1 * M, opt),
        entry(RunAction::FreeRequested, kBase + 14 * M, 1 * M, opt) });
    const MeasuredRun run = measureSnapshot(snap, RunFileKind::SnapshotPickle);
    QCOMPARE(allocatedCurve(run), inMiB({ 6, 8, 10, 8, 6, 7, 6 }));
    QCOMPARE(run.steps.size(), std::size_t { 1 });
    checkPhases(run.steps[0],
        { { RunPhase::Forward, 0, 2, 8 }, { RunPhase::Backward, 2, 5, 10 },
            { RunPhase::OptimizerStep, 5, 7, 7 } },
        PhaseSource::Frames);
    QCOMPARE(static_cast<int>(run.steps[0].phases[1].source), static_cast<int>(PhaseSource::Frames));
}

// A hand-written AdamW writes its state out of place (m = beta1 * m + ...: a new block kept, the old one
// freed), so a steady step's optimizer also keeps new blocks; what it frees of the state made before the
// step is taken off (tests/data/measured/public/cs336_medium_training_step.pickle.gz). Weights W 4 M and
// the state s 2 M before the trace; e0 F +2 (a) -> 8, e1 B +2 (g, kept) -> 10, e2 free a -> 8,
// e3 O +2 (s', kept) -> 10, e4 O free s -> 8: kept 2 M, replaced 2 M: not the first step. Without e4
// (the state made, nothing replaced: the first step) it is.
void TestMeasuredRun::stateReplacedOutOfPlaceIsNotTheFirstStep()
{
    for (const bool replaces : { true, false }) {
        MemorySnapshot snap;
        snap.stacks.push_back({ RunFrame { "/venv/torch/nn/modules/module.py", 1750, "_call_impl" } });
        snap.stacks.push_back({ RunFrame { "", 0, "torch::autograd::Engine::evaluate_function(...)" } });
        snap.stacks.push_back({ RunFrame { "cs336_basics/optimizer.py", 76, "step" },
            RunFrame { "/venv/torch/optim/optimizer.py", 526, "wrapper" } });
        const StackId fwd = 1;
        const StackId bwd = 2;
        const StackId opt = 3;
        const std::uint64_t s = kBase + 4 * M;
        const std::uint64_t g = kBase + 6 * M;
        const std::uint64_t s2 = kBase + 8 * M;
        const std::uint64_t a = kBase + 10 * M;
        std::vector<SnapshotBlock> blocks { block(kBase, 4 * M, BlockState::ActiveAllocated),
            block(s, 2 * M, replaces ? BlockState::Inactive : BlockState::ActiveAllocated),
            block(g, 2 * M, BlockState::ActiveAllocated), block(s2, 2 * M, BlockState::ActiveAllocated),
            block(a, 10 * M, BlockState::Inactive) };
        snap.segments.push_back(segment(kBase, 20 * M, blocks));
        std::vector<SnapshotTraceEntry> trace { entry(RunAction::Alloc, a, 2 * M, fwd),
            entry(RunAction::Alloc, g, 2 * M, bwd), entry(RunAction::FreeRequested, a, 2 * M, bwd),
            entry(RunAction::Alloc, s2, 2 * M, opt) };
        if (replaces)
            trace.push_back(entry(RunAction::FreeRequested, s, 2 * M, opt));
        snap.deviceTraces.push_back(trace);
        const MeasuredRun run = measureSnapshot(snap, RunFileKind::SnapshotPickle);
        QCOMPARE(allocatedCurve(run), replaces ? inMiB({ 8, 10, 8, 10, 8 }) : inMiB({ 8, 10, 8, 10 }));
        QCOMPARE(run.steps.size(), std::size_t { 1 });
        QCOMPARE(runPhaseName(run.steps[0].phases.back().phase), runPhaseName(RunPhase::OptimizerStep));
        QCOMPARE(run.steps[0].first, !replaces);
    }
}

// Plain SGD allocates nothing in its Optimizer.step span, so no optimizer phase ends a step: the
// ProfilerStep spans start them (tests/data/measured/public/hta_ddp_rank1_memory.json.gz, 5 steps).
// [memory] events (Total Allocated after each, M): step 1: t10 +2 -> 6, t20 +2 -> 8, t35 +2 -> 10
// (inside the backward's span), t40 -2 -> 8, t45 -2 -> 6; step 2 the same 100 us later, from 6:
// 8, 10, 12, 10, 8. Steps [0,5) and [5,10); backward from the first allocation in a backward span:
// forward [0,2) peak 8, backward [2,5) peak 10; forward [5,7) peak 10, backward [7,10) peak 12.
void TestMeasuredRun::profilerStepsWithoutOptimizerAllocations()
{
    nlohmann::json events = nlohmann::json::array();
    auto span = [&](const char* name, int ts, int dur) {
        events.push_back({ { "ph", "X" }, { "name", name }, { "ts", ts }, { "dur", dur } });
    };
    auto memory = [&](int ts, std::int64_t bytes, std::uint64_t total) {
        events.push_back({ { "ph", "i" }, { "name", "[memory]" }, { "ts", ts },
            { "args",
                { { "Device Type", 1 }, { "Device Id", 0 }, { "Bytes", bytes }, { "Total Allocated", total },
                    { "Total Reserved", 20 * M } } } });
    };
    const auto m = static_cast<std::int64_t>(M);
    for (const int base : { 0, 100 }) {
        span(base == 0 ? "ProfilerStep#1" : "ProfilerStep#2", base, 100);
        span("autograd::engine::evaluate_function: AddmmBackward0", base + 30, 25);
        span("Optimizer.step#SGD.step", base + 60, 30);
        const std::uint64_t from = base == 0 ? 4 * M : 6 * M;
        memory(base + 10, 2 * m, from + 2 * M);
        memory(base + 20, 2 * m, from + 4 * M);
        memory(base + 35, 2 * m, from + 6 * M);
        memory(base + 40, -2 * m, from + 4 * M);
        memory(base + 45, -2 * m, from + 2 * M);
    }
    const auto result = readMeasuredRun(nlohmann::json { { "traceEvents", events } }.dump(), "sgd.json");
    QVERIFY2(result.ok(), result.ok() ? "" : result.error().message.c_str());
    const MeasuredRun& run = result.value();
    QCOMPARE(allocatedCurve(run), inMiB({ 6, 8, 10, 8, 6, 8, 10, 12, 10, 8 }));
    QCOMPARE(run.steps.size(), std::size_t { 2 });
    checkPhases(run.steps[0], { { RunPhase::Forward, 0, 2, 8 }, { RunPhase::Backward, 2, 5, 10 } },
        PhaseSource::Annotations);
    checkPhases(run.steps[1], { { RunPhase::Forward, 5, 7, 10 }, { RunPhase::Backward, 7, 10, 12 } },
        PhaseSource::Annotations);
}

// Old files (PyTorch 2.1) have no time_us, no allocator_settings, blocks without addresses; newer ones
// have allocator_settings (mapped onto AllocatorSettings) and external_annotations.
void TestMeasuredRun::decodesKeyVariants()
{
    const auto old = plain(nlohmann::json::parse(R"({
        "segments": [{"device": 0, "address": 4096, "total_size": 2097152, "allocated_size": 1024,
            "active_size": 1024, "stream": 0, "segment_type": "small", "segment_pool_id": [0, 0],
            "blocks": [{"size": 1024, "state": "active_allocated", "frames": []},
                       {"size": 2096128, "state": "inactive"}]}],
        "device_traces": [[{"action": "alloc", "addr": 4096, "size": 1000, "stream": 0,
            "frames": [{"filename": "a.py", "line": 3, "name": "f"}]}]]})"));
    const auto a = decodeSnapshot(old.root());
    QVERIFY2(a.ok(), a.ok() ? "" : a.error().message.c_str());
    QVERIFY(!a.value().allocatorSettings.present);
    QCOMPARE(a.value().segments[0].blocks[1].address, std::uint64_t { 4096 + 1024 }); // address += size
    QVERIFY(!a.value().segments[0].large);
    QCOMPARE(a.value().deviceTraces[0][0].timeUs, SnapshotTraceEntry::kNoTime);
    bool noted = false;
    for (const auto& n : a.value().notes)
        noted = noted || n.find("time_us") != std::string::npos;
    QVERIFY(noted);

    const auto recent = plain(nlohmann::json::parse(R"({
        "segments": [], "device_traces": [[
            {"action": "alloc", "addr": 1, "size": 512, "stream": 7, "time_us": 5,
             "frames": [{"filename": "m.py", "line": 1, "name": "forward"}], "compile_context": "N/A",
             "user_metadata": "layer 3"},
            {"action": "annotate", "addr": 1, "size": 0, "stream": 7, "time_us": 6,
             "frames": [{"filename": "m.py", "line": 1, "name": "forward"}], "user_metadata": "layer 3"},
            {"action": "oom", "device_free": 1048576, "size": 4096, "stream": 7, "time_us": 7}]],
        "allocator_settings": {"PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:True,max_non_split_rounding_mb:40",
            "max_split_size": 209715200, "garbage_collection_threshold": 0.6, "expandable_segments": true,
            "pinned_num_register_threads": 1, "release_lock_on_cudamalloc": false,
            "pinned_use_cuda_host_register": false,
            "roundup_power2_divisions": {"1": 4, "2": 4, "4": 2, "8": 0, "16": 0, "32": 0, "64": 0, "128": 0,
                "256": 0, "512": 0, "1024": 0, "2048": 0, "4096": 0, "8192": 0, "16384": 0, "32768": 8}},
        "external_annotations": [{"name": "Optimizer.step#Adam.step", "stage": "START", "device": 0, "time_us": 9},
                                 {"name": "Optimizer.step#Adam.step", "stage": "END", "device": 0, "time_us": 12}]})"));
    const auto b = decodeSnapshot(recent.root());
    QVERIFY2(b.ok(), b.ok() ? "" : b.error().message.c_str());
    const auto& s = b.value();
    QCOMPARE(s.stacks.size(), std::size_t { 2 }); // one stack, met twice
    QCOMPARE(s.deviceTraces[0][0].stack, s.deviceTraces[0][1].stack);
    QVERIFY(s.deviceTraces[0][1].action == RunAction::Annotate);
    QCOMPARE(s.annotations.at(s.deviceTraces[0][0].annotation), std::string("layer 3"));
    QCOMPARE(s.deviceTraces[0][2].deviceFree, std::uint64_t { 1048576 });
    QCOMPARE(s.deviceTraces[0][0].stream, std::int64_t { 7 });
    const AllocatorSettings& set = s.allocatorSettings.settings;
    QVERIFY(set.expandableSegments);
    QCOMPARE(set.maxSplitSize, std::uint64_t { 200 } * M);
    QCOMPARE(set.garbageCollectionThreshold, 0.6);
    QCOMPARE(set.maxNonSplitRoundingSize, std::uint64_t { 40 } * M);
    QCOMPARE(set.roundupPower2Divisions[0], 4U); // "1": the interval from 1 MiB
    QCOMPARE(set.roundupPower2Divisions[2], 2U); // "4"
    QCOMPARE(set.roundupPower2Divisions[15], 8U); // "32768"
    QCOMPARE(s.externalAnnotations.size(), std::size_t { 2 });
    QVERIFY(s.externalAnnotations[0].start);
    QVERIFY(!s.externalAnnotations[1].start);
    QCOMPARE(s.externalAnnotations[1].timeUs, std::int64_t { 12 });

    // max_split_size unset is SIZE_MAX written as int64: -1.
    const auto unset = plain(nlohmann::json::parse(R"({"segments": [], "device_traces": [],
        "allocator_settings": {"max_split_size": -1}})"));
    const auto c = decodeSnapshot(unset.root());
    QVERIFY(c.ok());
    QCOMPARE(c.value().allocatorSettings.settings.maxSplitSize, kNoLimit);
    QVERIFY(c.value().segmentsRecorded); // an empty list: nothing reserved

    const auto traceOnly = plain(nlohmann::json::parse(R"({"device_traces": [[]]})"));
    const auto d = decodeSnapshot(traceOnly.root());
    QVERIFY(d.ok());
    QVERIFY(!d.value().segmentsRecorded);
}

void TestMeasuredRun::decodeErrorsNameThePath_data()
{
    QTest::addColumn<QString>("json");
    QTest::addColumn<QString>("message");
    QTest::newRow("not a dict") << "[1, 2]"
                                << "the snapshot must be a dict with segments and device_traces, not list";
    QTest::newRow("neither key")
        << R"({"a": 1})"
        << "the snapshot has neither segments nor device_traces: not a PyTorch memory snapshot";
    QTest::newRow("size as text") << R"({"device_traces": [[{"action": "alloc", "addr": 0, "size": 5},
        {"action": "alloc", "addr": 0, "size": "12"}]]})"
                                  << "device_traces[0][1].size must be a non-negative integer, not str";
    QTest::newRow("negative size")
        << R"({"device_traces": [[{"action": "free_requested", "addr": 0, "size": -4}]]})"
        << "device_traces[0][0].size must be a non-negative integer, not a negative number";
    QTest::newRow("unknown action")
        << R"({"device_traces": [[{"action": "teleport", "addr": 0, "size": 4}]]})"
        << "device_traces[0][0].action is \"teleport\", not an action PyTorch records (alloc, "
           "free_requested, ...)";
    QTest::newRow("trace not a list") << R"({"device_traces": {"0": []}})"
                                      << "device_traces must be a list, not dict";
    QTest::newRow("missing total_size") << R"({"segments": [{"device": 0, "address": 0, "blocks": []}]})"
                                        << "segments[0].total_size is missing";
    QTest::newRow("bad state") << R"({"segments": [{"address": 0, "total_size": 512,
        "blocks": [{"size": 512, "state": "busy"}]}]})"
                               << "segments[0].blocks[0].state must be active_allocated, active_pending_free "
                                  "or inactive, not \"busy\"";
    QTest::newRow("frame not a dict") << R"({"device_traces": [[{"action": "alloc", "addr": 0, "size": 4,
        "frames": ["x.py:3"]}]]})"
                                      << "device_traces[0][0].frames[0] must be a dict, not str";
    QTest::newRow("bad roundup key")
        << R"({"segments": [], "allocator_settings": {"roundup_power2_divisions": {"3": 4}}})"
        << "allocator_settings.roundup_power2_divisions has key \"3\": expected 1, 2, 4 ... 32768 (MiB)";
}

void TestMeasuredRun::decodeErrorsNameThePath()
{
    QFETCH(QString, json);
    QFETCH(QString, message);
    const auto doc = plain(nlohmann::json::parse(json.toStdString()));
    const auto result = decodeSnapshot(doc.root());
    QVERIFY(!result.ok());
    QCOMPARE(QString::fromStdString(result.error().message), message);
}

// tests/data/measured/timeline.json (M per category: P parameters, OS optimizer state, I input,
// T temporary, A activations, G gradients); the totals per row:
//   step 0: 4, 5, 7, 9, 11, 10, 9, 17, 19, 17, 13 (OS 8 created at row 7; zero_grad at row 10)
//   steps 1 and 2: 15, 17, 19, 18, 17, 19, 17, 13.
// The largest fall is 19 -> 13 = 6 M, cycles rise and fall 3 M: peaks at 8, 13, 21, valleys at 0,
// 10, 18, 26: steps [1,11), [11,19), [19,27). Phases from GRADIENT: backward from its first growth,
// the optimizer after its last: step 0 G grows at rows 4 and 5: forward [1,4) peak 9, backward [4,6)
// peak 11, optimizer [6,11) peak 19; OPTIMIZER_STATE 0 before, 8 M after: the first step.
// Step 1: G grows at 13, 14: forward [11,13) 17, backward [13,15) 19, optimizer [15,19) 19.
// Step 2: forward [19,21) 17, backward [21,23) 19, optimizer [23,27) 19.
void TestMeasuredRun::memoryTimeline()
{
    const auto result = readMeasuredRun(readData("timeline.json"), "timeline.json");
    QVERIFY2(result.ok(), result.ok() ? "" : result.error().message.c_str());
    const MeasuredRun& run = result.value();
    QVERIFY(run.kind == RunFileKind::MemoryTimeline);
    QVERIFY(!run.hasReserved);
    QCOMPARE(allocatedCurve(run),
        inMiB({ 4, 5, 7, 9, 11, 10, 9, 17, 19, 17, 13, 15, 17, 19, 18, 17, 19, 17, 13, 15, 17, 19, 18, 17, 19,
            17, 13 }));
    QCOMPARE(run.categories.size(), run.samples.size());
    QCOMPARE(run.categories[8][static_cast<std::size_t>(ProfilerCategory::OptimizerState)], 8 * M);
    QCOMPARE(run.categories[8][static_cast<std::size_t>(ProfilerCategory::Temporary)], 2 * M);
    QCOMPARE(run.samples[3].timeUs, std::int64_t { 3000 });
    QCOMPARE(run.peakAllocated, 19 * M);
    QCOMPARE(run.peakAllocatedSample, std::size_t { 8 });
    QCOMPARE(run.steps.size(), std::size_t { 3 });
    QVERIFY(run.steps[0].first);
    QVERIFY(!run.steps[1].first);
    checkPhases(run.steps[0],
        { { RunPhase::Forward, 1, 4, 9 }, { RunPhase::Backward, 4, 6, 11 },
            { RunPhase::OptimizerStep, 6, 11, 19 } },
        PhaseSource::Pattern);
    checkPhases(run.steps[1],
        { { RunPhase::Forward, 11, 13, 17 }, { RunPhase::Backward, 13, 15, 19 },
            { RunPhase::OptimizerStep, 15, 19, 19 } },
        PhaseSource::Pattern);
    checkPhases(run.steps[2],
        { { RunPhase::Forward, 19, 21, 17 }, { RunPhase::Backward, 21, 23, 19 },
            { RunPhase::OptimizerStep, 23, 27, 19 } },
        PhaseSource::Pattern);
}

// tests/data/measured/chrome_trace.json: [memory] events of device CUDA 0 (one CPU event, ignored;
// two listed out of time order), ProfilerStep#1 [0,100) and #2 [100,200), backward spans [30,60] and
// [130,160], Optimizer.step spans [65,90] and [165,190]. Sorted by time, allocated / reserved (M):
//   6/20, 8/20, 12/40, 10/40, 8/40, 9/40, 8/40, 4/40 (zero_grad at 105), 6/40, 8/40, 12/40, 10/40,
//   8/40, 9/40, 8/40.
// Step 0 [0,8): forward [0,2) peak 8, backward from sample 2 (in the backward span) [2,5) peak 12,
// optimizer from sample 5 [5,8) peak 9; step 1 from the first allocation in ProfilerStep#2 (sample 8)
// [8,15): forward [8,10) 8, backward [10,13) 12, optimizer [13,15) 9. Peak allocated 12 M at sample 2,
// reserved 40 M from sample 2: fragmentation (40-12)/40 = 0.7.
void TestMeasuredRun::chromeTrace()
{
    const auto result = readMeasuredRun(readData("chrome_trace.json"), "trace.json");
    QVERIFY2(result.ok(), result.ok() ? "" : result.error().message.c_str());
    const MeasuredRun& run = result.value();
    QVERIFY(run.kind == RunFileKind::ChromeTrace);
    QCOMPARE(run.device, std::int64_t { 0 });
    QCOMPARE(allocatedCurve(run), inMiB({ 6, 8, 12, 10, 8, 9, 8, 4, 6, 8, 12, 10, 8, 9, 8 }));
    QCOMPARE(reservedCurve(run), inMiB({ 20, 20, 40, 40, 40, 40, 40, 40, 40, 40, 40, 40, 40, 40, 40 }));
    QCOMPARE(run.peakAllocated, 12 * M);
    QCOMPARE(run.peakAllocatedSample, std::size_t { 2 });
    QCOMPARE(run.peakReserved, 40 * M);
    QCOMPARE(run.fragmentationAtPeak, 0.7);
    QCOMPARE(run.steps.size(), std::size_t { 2 });
    checkPhases(run.steps[0],
        { { RunPhase::Forward, 0, 2, 8 }, { RunPhase::Backward, 2, 5, 12 },
            { RunPhase::OptimizerStep, 5, 8, 9 } },
        PhaseSource::Annotations);
    checkPhases(run.steps[1],
        { { RunPhase::Forward, 8, 10, 8 }, { RunPhase::Backward, 10, 13, 12 },
            { RunPhase::OptimizerStep, 13, 15, 9 } },
        PhaseSource::Annotations);
    QCOMPARE(run.steps[1].peakReserved, 40 * M);
}

// PyTorch 1.9's [memory] events carry Bytes only: allocated is their running sum, counted from its lowest
// point. Bytes (M) -1, +3, -2, +4: sums -1, 2, 0, 4; lowest -1: 0, 3, 1, 5. No reserved, not absolute.
void TestMeasuredRun::chromeTraceWithBytesOnly()
{
    nlohmann::json events = nlohmann::json::array();
    int ts = 0;
    for (const int mib : { -1, 3, -2, 4 }) {
        events.push_back({ { "ph", "i" }, { "name", "[memory]" }, { "ts", ts += 10 },
            { "args",
                { { "Device Type", 1 }, { "Device Id", 0 },
                    { "Bytes", static_cast<std::int64_t>(mib) * static_cast<std::int64_t>(M) } } } });
    }
    const auto result = readMeasuredRun(nlohmann::json { { "traceEvents", events } }.dump(), "old.json");
    QVERIFY2(result.ok(), result.ok() ? "" : result.error().message.c_str());
    const MeasuredRun& run = result.value();
    QCOMPARE(allocatedCurve(run), inMiB({ 0, 3, 1, 5 }));
    QCOMPARE(reservedCurve(run), inMiB({ 0, 0, 0, 0 }));
    QVERIFY(!run.absolute);
    QVERIFY(!run.hasReserved);
    QCOMPARE(run.peakAllocated, 5 * M);
}

// export_memory_timeline_raw: [time ns (-1: before the profile), action, signed bytes, category] rows,
// added up per category at each distinct time. A parameter (category 0) of 1024 existed before; at 1000 ns
// an activation (4) of 2048 and a temporary (3) of 512 are made: 1024 + 2048 + 512 = 3584; at 3000 ns the
// temporary goes (-512) and the activation's bytes become a gradient's (5; increment version: -2048 on 4,
// +2048 on 5): 3072; at 5000 ns the gradient goes: 1024. The -1 time takes the first positive one; times
// in microseconds: 1, 1, 3, 5.
void TestMeasuredRun::rawMemoryTimeline()
{
    const QByteArray raw("[[-1, 1, 1024, 0], [1000, 2, 2048, 4], [1000, 2, 512, 3], [3000, 4, -512, 3], "
                         "[3000, 3, -2048, 4], [3000, 3, 2048, 5], [5000, 4, -2048, 5]]");
    const auto result = readMeasuredRun(std::string_view(raw.constData(), raw.size()), "mem.raw.json");
    QVERIFY2(result.ok(), result.ok() ? "" : result.error().message.c_str());
    const MeasuredRun& run = result.value();
    QVERIFY(run.kind == RunFileKind::MemoryTimeline);
    QCOMPARE(allocatedCurve(run), (std::vector<std::uint64_t> { 1024, 3584, 3072, 1024 }));
    std::vector<std::int64_t> times;
    for (const auto& x : run.samples)
        times.push_back(x.timeUs);
    QCOMPARE(times, (std::vector<std::int64_t> { 1, 1, 3, 5 }));
    QCOMPARE(run.peakAllocated, std::uint64_t { 3584 });
    QCOMPARE(run.peakAllocatedSample, std::size_t { 1 });
    QCOMPARE(
        run.categories[1][static_cast<std::size_t>(ProfilerCategory::Activation)], std::uint64_t { 2048 });
    QCOMPARE(run.categories[1][static_cast<std::size_t>(ProfilerCategory::Temporary)], std::uint64_t { 512 });
    QCOMPARE(run.categories[2][static_cast<std::size_t>(ProfilerCategory::Gradient)], std::uint64_t { 2048 });
    QCOMPARE(run.categories[2][static_cast<std::size_t>(ProfilerCategory::Activation)], std::uint64_t { 0 });
    QVERIFY(hasNote(run, "a raw memory timeline (one event per tensor)"));
}

// The same snapshot as stepsAndPhasesFromFrames, through readMeasuredRun (the JSON reader).
void TestMeasuredRun::readsSnapshotJsonFile()
{
    const auto result = readMeasuredRun(std::filesystem::path(dataPath("snapshot_steps.json")));
    QVERIFY2(result.ok(), result.ok() ? "" : result.error().message.c_str());
    QVERIFY(result.value().kind == RunFileKind::SnapshotJson);
    QCOMPARE(result.value().peakAllocated, 21 * M);
    QCOMPARE(result.value().steps.size(), std::size_t { 2 });
}

// The same snapshot pickled (frames shared through the pickle's memo), in the memory_viz page, and the
// timeline gzipped (tests/data/measured/make_measured_runs.py): the figures worked out above.
void TestMeasuredRun::readsEveryFormOfTheSameRun_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<int>("kind");
    QTest::addColumn<quint64>("peak");
    QTest::addColumn<int>("steps");
    QTest::newRow("pickle") << "snapshot_steps.pickle" << static_cast<int>(RunFileKind::SnapshotPickle)
                            << quint64 { 21 * M } << 2;
    QTest::newRow("html") << "snapshot_steps.html" << static_cast<int>(RunFileKind::SnapshotHtml)
                          << quint64 { 21 * M } << 2;
    QTest::newRow("json.gz") << "timeline.json.gz" << static_cast<int>(RunFileKind::MemoryTimeline)
                             << quint64 { 19 * M } << 3;
}

void TestMeasuredRun::readsEveryFormOfTheSameRun()
{
    QFETCH(QString, file);
    QFETCH(int, kind);
    QFETCH(quint64, peak);
    QFETCH(int, steps);
    const auto result = readMeasuredRun(std::filesystem::path(dataPath(file.toStdString())));
    QVERIFY2(result.ok(), result.ok() ? "" : result.error().message.c_str());
    const MeasuredRun& run = result.value();
    QCOMPARE(static_cast<int>(run.kind), kind);
    QCOMPARE(run.peakAllocated, std::uint64_t { peak });
    QCOMPARE(run.steps.size(), static_cast<std::size_t>(steps));
    QVERIFY(run.steps[0].first);
    if (run.snapshot) {
        QCOMPARE(run.snapshot->stacks.size(), std::size_t { 6 });
        QCOMPARE(run.peakAllocatedSample, std::size_t { 15 });
        QCOMPARE(run.steps[1].phases.size(), std::size_t { 3 });
        QCOMPARE(run.steps[1].phases[1].firstSample, std::size_t { 17 });
    }
}

void TestMeasuredRun::refusesWhatIsNotARun_data()
{
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QString>("message");
    QTest::newRow("zip")
        << QByteArray("PK\x03\x04rest", 8)
        << "run.pickle: not a file PyTorch writes about memory (it starts with \"PK\\x03\\x04rest\"; "
           "expected a "
           "memory snapshot pickle, its JSON or memory_viz page, a memory timeline or a Chrome trace)";
    QTest::newRow("empty") << QByteArray()
                           << "run.pickle: the file is empty: not a file PyTorch writes about memory";
    QTest::newRow("other object")
        << QByteArray(R"({"name": "resnet"})")
        << "run.pickle: not a file PyTorch writes about memory (a JSON object without segments, "
           "device_traces or traceEvents)";
    QTest::newRow("uneven timeline") << QByteArray("[[0, 1], [[0, 5, 0, 0, 0, 0, 0, 0, 0]]]")
                                     << "run.pickle: the memory timeline has 2 times but 1 rows of sizes";
    QTest::newRow("negative size")
        << QByteArray("[[0], [[0, -5, 0, 0, 0, 0, 0, 0, 0]]]")
        << "run.pickle: [1][0][1] must be a non-negative number of bytes, not a negative number";
    QTest::newRow("raw timeline, unknown action")
        << QByteArray("[[1, 2, 512, 0], [2, 9, 512, 0]]")
        << "run.pickle: [1][1] must be an action: 1 pre-existing, 2 create, 3 increment version, 4 destroy";
    QTest::newRow("raw timeline, below zero") << QByteArray("[[1, 2, 512, 0], [2, 4, -1024, 0]]")
                                              << "run.pickle: [1][2] takes its category below zero bytes (a "
                                                 "tensor destroyed that the timeline never made)";
    QTest::newRow("raw timeline, category out of range") << QByteArray(
        "[[1, 2, 512, 0], [2, 4, -512, 8]]") << "run.pickle: [1][3] must be a category index from 0 to 7";
    QTest::newRow("raw timeline, fractional bytes") << QByteArray(
        "[[1, 2, 512.5, 0], [2, 4, -512, 0]]") << "run.pickle: [0][2] must be an integer, not a fraction";
    QTest::newRow("trace without memory")
        << QByteArray(R"({"traceEvents": [{"name": "aten::mm", "ph": "X", "ts": 1, "dur": 2}]})")
        << "run.pickle: a Chrome trace without [memory] events: record it with "
           "torch.profiler.profile(profile_memory=True)";
    QTest::newRow("memory without totals")
        << QByteArray(R"({"traceEvents": [{"name": "[memory]", "ph": "i", "ts": 1,
        "args": {"Bytes": 5, "Total Allocated": "5"}}]})")
        << "run.pickle: traceEvents[0].args.Total Allocated must be a non-negative number of "
           "bytes, not string";
}

void TestMeasuredRun::refusesWhatIsNotARun()
{
    QFETCH(QByteArray, bytes);
    QFETCH(QString, message);
    const auto result = readMeasuredRun(
        std::string_view(bytes.constData(), static_cast<std::size_t>(bytes.size())), "run.pickle");
    QVERIFY(!result.ok());
    QCOMPARE(QString::fromStdString(result.error().message), message);
}

// Pickles: a list where the snapshot's dict belongs (decoded, then refused by the decoder), and one that
// would import a name (refused by the reader before anything runs). Both name the file.
void TestMeasuredRun::hostilePicklesNameTheFile()
{
    // PROTO 2, EMPTY_LIST, BINPUT 0, STOP: pickle.dumps([], protocol=2).
    const std::string list("\x80\x02]q\x00.", 6);
    const auto a = readMeasuredRun(list, "run.pickle");
    QVERIFY(!a.ok());
    QCOMPARE(QString::fromStdString(a.error().message),
        QStringLiteral("run.pickle: the snapshot must be a dict with segments and device_traces, not list"));
    // PROTO 2, GLOBAL "os\nsystem\n", ...: what pickle.dumps(os.system) starts with.
    const std::string global("\x80\x02"
                             "cos\nsystem\nq\x00.",
        16);
    const auto b = readMeasuredRun(global, "run.pickle");
    QVERIFY(!b.ok());
    QVERIFY2(b.error().message.starts_with("run.pickle: "), b.error().message.c_str());
    QVERIFY2(b.error().message.find("GLOBAL") != std::string::npos, b.error().message.c_str());
    // Truncated: the dict never closed.
    const std::string truncated("\x80\x04}q\x00(X\x08\x00\x00\x00segments", 19);
    const auto c = readMeasuredRun(truncated, "run.pickle");
    QVERIFY(!c.ok());
    QVERIFY2(c.error().message.starts_with("run.pickle: "), c.error().message.c_str());
}

void TestMeasuredRun::missingFileNamesThePath()
{
    const std::filesystem::path path = dataPath("no-such-run.pickle");
    const auto result = readMeasuredRun(path);
    QVERIFY(!result.ok());
    QVERIFY2(result.error().message.find(path.string()) != std::string::npos, result.error().message.c_str());
}

// Runs recorded on a GPU by tests/reference/record_measured_runs.py: every figure the reader
// reconstructs against the allocator's own counters in the sidecar (max_memory_allocated /
// max_memory_reserved per phase, memory_allocated / memory_reserved at the snapshot). The snapshot's
// anchor and reserved bytes must match exactly (segment sizes are exact); allocated peaks within
// 2 MiB (a block freed inside the trace is counted as round_size of its request, which a block handed
// out with an unsplit remainder exceeds); the Chrome trace's totals are the allocator's own.
void TestMeasuredRun::recordedRunsMatchPyTorchsCounters()
{
    const std::filesystem::path dir = dataPath("recorded");
    std::vector<std::filesystem::path> sidecars;
    if (std::filesystem::is_directory(dir)) {
        for (const auto& e : std::filesystem::directory_iterator(dir)) {
            const auto name = e.path().filename().string();
            if (name.ends_with(".json") && !name.ends_with(".timeline.json")
                && !name.ends_with(".trace.json"))
                sidecars.push_back(e.path());
        }
    }
    if (sidecars.empty())
        QSKIP("no runs recorded on a GPU yet (tests/reference/record_measured_runs.py)");
    constexpr std::uint64_t kTolerance = 2 * M;
    auto near = [](std::uint64_t a, std::uint64_t b) { return (a > b ? a - b : b - a) <= kTolerance; };
    for (const auto& path : sidecars) {
        const auto side = nlohmann::json::parse(std::ifstream(path));
        const std::string name = side.at("network").get<std::string>();
        const auto& full = side.at("snapshot");
        const auto run = readMeasuredRun(dir / full.at("file").get<std::string>());
        QVERIFY2(run.ok(), run.ok() ? name.c_str() : run.error().message.c_str());
        const MeasuredRun& r = run.value();
        QVERIFY2(r.absolute, name.c_str());
        QCOMPARE(r.samples.back().allocated, full.at("at_snapshot").at("allocated").get<std::uint64_t>());
        QCOMPARE(r.samples.back().reserved, full.at("at_snapshot").at("reserved").get<std::uint64_t>());
        QCOMPARE(r.peakReserved, full.at("max_reserved").get<std::uint64_t>());
        QVERIFY2(near(r.peakAllocated, full.at("max_allocated").get<std::uint64_t>()),
            (name + ": peak allocated " + std::to_string(r.peakAllocated) + " against "
                + full.at("max_allocated").dump())
                .c_str());
        const auto& steps = full.at("steps");
        QCOMPARE(r.steps.size(), steps.size());
        QVERIFY2(r.steps.front().first, name.c_str());
        for (std::size_t k = 0; k < steps.size(); ++k)
            QVERIFY2(near(r.steps[k].peakAllocated, steps[k].at("max_allocated").get<std::uint64_t>()),
                (name + ": step " + std::to_string(k) + " peak " + std::to_string(r.steps[k].peakAllocated))
                    .c_str());

        const auto& ring = side.at("midrun_snapshot");
        const auto mid = readMeasuredRun(dir / ring.at("file").get<std::string>());
        QVERIFY2(mid.ok(), mid.ok() ? name.c_str() : mid.error().message.c_str());
        QVERIFY(mid.value().absolute);
        QCOMPARE(mid.value().samples.back().allocated,
            ring.at("at_snapshot").at("allocated").get<std::uint64_t>());
        QVERIFY2(!mid.value().steps.empty(), name.c_str());
        const auto& last = ring.at("steps").back();
        QVERIFY2(mid.value().peakAllocated <= ring.at("max_allocated").get<std::uint64_t>() + kTolerance,
            name.c_str());
        QVERIFY2(near(mid.value().steps.back().peakAllocated, last.at("max_allocated").get<std::uint64_t>()),
            name.c_str());

        const auto& prof = side.at("profile");
        if (prof.is_null())
            continue;
        const auto trace = readMeasuredRun(dir / prof.at("files").at("trace.json").get<std::string>());
        QVERIFY2(trace.ok(), trace.ok() ? name.c_str() : trace.error().message.c_str());
        QCOMPARE(trace.value().peakAllocated, prof.at("max_allocated").get<std::uint64_t>());
        QCOMPARE(trace.value().peakReserved, prof.at("max_reserved").get<std::uint64_t>());
        QCOMPARE(trace.value().steps.size(), prof.at("steps").size());
        for (const char* file : { "timeline.json", "timeline.json.gz" }) {
            const auto timeline = readMeasuredRun(dir / prof.at("files").at(file).get<std::string>());
            QVERIFY2(timeline.ok(), timeline.ok() ? name.c_str() : timeline.error().message.c_str());
            // Tensors' bytes without the allocator's rounding: never above what it allocated.
            QVERIFY2(timeline.value().peakAllocated <= prof.at("max_allocated").get<std::uint64_t>(),
                name.c_str());
        }
    }
}

QTEST_APPLESS_MAIN(TestMeasuredRun)
#include "tst_measuredrun.moc"

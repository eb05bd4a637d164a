// Speed of the allocator check on a recorded run (issue 36 item 7; the bar: a 1,000,000-entry
// trace read and compared in under 3 s): checkAllocator over a synthetic 1,000,000-entry device trace of a
// training loop (weights kept, per step a forward that keeps activations and frees temporaries, a backward
// that frees them in reverse, an optimizer step; every 20 steps torch.cuda.empty_cache()), in the order
// PyTorch records it. Its segment events are
// the ones a CachingAllocator made while the trace was written, so the check must find them all.
// Run: build/tests/benchmarks/bench_allocatorcheck (add -iterations N for stable figures). Each benchmark
// also logs the processor time per call (the project's machine is shared).
#include "BenchTiming.h"
#include "headroom/measured/AllocatorCheck.h"

#include <QTest>
#include <ctime>

using namespace headroom;

namespace {

using bench::cpuMs;

constexpr std::uint64_t KiB = 1024;
constexpr std::uint64_t MiB = 1024 * KiB;

/// Writes a training loop's trace until it holds `entries` entries (give or take one step's end).
class LoopWriter
{
public:
    explicit LoopWriter(std::size_t entries)
        : m_entries(entries)
    {
        m_snapshot.deviceTraces.emplace_back();
        m_trace().reserve(entries + 4096);
        m_recorder.setSegmentLog(&m_log);
    }

    MemorySnapshot write()
    {
        // 60 weights from 16 KiB to about 40 MiB, kept
        for (std::uint64_t w = 0; w < 60; ++w)
            alloc(16 * KiB + (w * w * w * 11 * KiB) % (40 * MiB));
        std::uint64_t step = 0;
        while (m_trace().size() < m_entries) {
            // the batch of this step: sizes shift a little from step to step (a data loader's last batch)
            const std::uint64_t batch = step % 50 == 49 ? 7 : 8;
            std::vector<Live> kept;
            for (std::uint64_t layer = 0; layer < 120; ++layer) {
                const std::uint64_t act = batch * ((layer % 9) + 1) * 384 * KiB + (layer % 5) * 4 * KiB;
                kept.push_back(alloc(act));
                const Live temp = alloc(act / 2 + 512);
                const Live small = alloc(4 * KiB + layer * 64);
                free(temp);
                free(small);
            }
            for (std::size_t k = kept.size(); k-- > 0;) {
                const Live grad = alloc(kept[k].size);
                const Live temp = alloc(kept[k].size / 3 + 1024);
                free(temp);
                free(kept[k]);
                free(grad);
            }
            for (std::uint64_t w = 0; w < 60; ++w)
                free(alloc(16 * KiB + (w * w * w * 11 * KiB) % (40 * MiB)));
            if (step % 20 == 19)
                emptyCache();
            ++step;
        }
        return std::move(m_snapshot);
    }

private:
    struct Live
    {
        std::uint64_t address = 0;
        std::uint64_t size = 0;
        CachingAllocator::Handle handle = 0;
    };

    std::vector<SnapshotTraceEntry>& m_trace() { return m_snapshot.deviceTraces[0]; }

    void entry(RunAction action, std::uint64_t address, std::uint64_t size)
    {
        SnapshotTraceEntry e;
        e.action = action;
        e.address = address;
        e.size = size;
        e.timeUs = static_cast<std::int64_t>(m_trace().size());
        m_trace().push_back(e);
    }

    Live alloc(std::uint64_t size)
    {
        const std::size_t logged = m_log.size();
        const CachingAllocator::Handle h = m_recorder.allocate(size);
        for (std::size_t k = logged; k < m_log.size(); ++k) {
            const RunAction a = m_log[k].kind == SegmentEventKind::Alloc ? RunAction::SegmentAlloc
                : m_log[k].kind == SegmentEventKind::Free                ? RunAction::SegmentFree
                : m_log[k].kind == SegmentEventKind::Map                 ? RunAction::SegmentMap
                                                                         : RunAction::SegmentUnmap;
            entry(a, m_log[k].address, m_log[k].bytes);
        }
        const Live live { m_nextAddress, size, h };
        m_nextAddress += 512 * ((size + 511) / 512);
        entry(RunAction::Alloc, live.address, size);
        return live;
    }

    /// torch.cuda.empty_cache(): a segment_free (or segment_unmap) per released segment.
    void emptyCache()
    {
        const std::size_t logged = m_log.size();
        m_recorder.emptyCache();
        for (std::size_t k = logged; k < m_log.size(); ++k)
            entry(m_log[k].kind == SegmentEventKind::Free ? RunAction::SegmentFree : RunAction::SegmentUnmap,
                m_log[k].address, m_log[k].bytes);
    }

    void free(const Live& live)
    {
        m_recorder.free(live.handle);
        entry(RunAction::FreeRequested, live.address, live.size);
        entry(RunAction::FreeCompleted, live.address, live.size);
    }

    std::size_t m_entries;
    MemorySnapshot m_snapshot;
    CachingAllocator m_recorder;
    std::vector<SegmentEvent> m_log;
    std::uint64_t m_nextAddress = 1ULL << 40;
};

} // namespace

class BenchAllocatorCheck : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void checkMillionEntryTrace();

private:
    MeasuredRun m_run;
};

void BenchAllocatorCheck::initTestCase()
{
    const double start = cpuMs();
    m_run.snapshot = LoopWriter(1'000'000).write();
    qInfo("trace: %zu entries written in %.0f ms", m_run.snapshot->deviceTraces[0].size(), cpuMs() - start);
}

void BenchAllocatorCheck::checkMillionEntryTrace()
{
    AllocatorCheck c;
    int calls = 0;
    const double start = cpuMs();
    QBENCHMARK
    {
        c = checkAllocator(m_run);
        ++calls;
    }
    qInfo("check: %.1f ms processor time per call (%d calls)", (cpuMs() - start) / calls, calls);
    qInfo("%zu allocations, %zu frees, %zu segment events, %zu matching", c.allocations, c.frees,
        c.recordedSegmentEvents, c.matchingSegmentEvents);
    QVERIFY2(c.checked, c.why.c_str());
    QVERIFY(c.recordedSegmentEvents > 0);
    QCOMPARE(c.matchingSegmentEvents, c.recordedSegmentEvents);
    QCOMPARE(c.divergenceCount, std::size_t { 0 });
}

QTEST_APPLESS_MAIN(BenchAllocatorCheck)
#include "bench_allocatorcheck.moc"

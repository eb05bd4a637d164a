// Speed and memory of the memory snapshot's pickle reader (issue 36): a snapshot with 20,000 and with
// 1,000,000 trace entries, written here as CPython's pickler (protocol 4) writes torch.cuda.memory's
// _snapshot(): every dict and str memoized, keys met again read from the memo, trace entries in APPENDS
// batches of 1000, and each entry's frames one of 50 shared lists of 10 frame dicts (PyTorch converts a
// traceback once and hands the same list to every entry that shares it).
// Run: build/tests/benchmarks/bench_plaindata. Logs the processor time per read and the tree's
// memoryBytes() against the file's size (issue 36's budget: under 10 times the file; aimed at 5).
#include "BenchTiming.h"
#include "PickleWriter.h"
#include "headroom/measured/PlainData.h"

#include <QTest>
#include <cstdint>
#include <ctime>
#include <map>
#include <string>

using namespace headroom;
using headroom::bench::PickleWriter;

namespace {

using bench::cpuMs;

/// A snapshot-shaped pickle: one segment, `entries` trace entries, allocator settings.
std::string snapshotPickle(int entries)
{
    PickleWriter w;
    w.begin();
    w.emptyDict();
    w.mark();
    w.key("segments");
    w.emptyList();
    w.mark();
    w.emptyDict();
    w.mark();
    w.key("device");
    w.integer(0);
    w.key("address");
    w.integer(0x7F3A00000000LL);
    w.key("total_size");
    w.integer(std::int64_t { 2 } << 30);
    w.key("stream");
    w.integer(0);
    w.key("segment_type");
    w.str("large");
    w.key("blocks");
    w.emptyList();
    w.setItems();
    w.appends();

    w.key("device_traces");
    w.emptyList();
    w.emptyList();
    const char* actions[] = { "alloc", "free_requested", "free_completed" };
    std::vector<std::uint32_t> frameLists;
    for (int i = 0; i < entries; ++i) {
        if (i % 1000 == 0) {
            if (i > 0) {
                w.appends();
            }
            w.mark();
        }
        w.emptyDict();
        w.mark();
        w.key("action");
        w.str(actions[i % 3]);
        w.key("addr");
        w.integer(0x7F3A00000000LL + std::int64_t { 512 } * (i % 100000));
        w.key("size");
        w.integer(512 * (1 + i % 4096));
        w.key("stream");
        w.integer(0);
        w.key("time_us");
        w.integer(1'700'000'000'000'000LL + i);
        w.key("frames");
        const auto stack = static_cast<std::size_t>(i % 50);
        if (stack < frameLists.size()) {
            w.get(frameLists[stack]);
        } else {
            frameLists.push_back(w.emptyList());
            w.mark();
            for (int f = 0; f < 10; ++f) {
                w.emptyDict();
                w.mark();
                w.key("filename");
                w.str("/home/user/project/model_" + std::to_string(stack) + ".py");
                w.key("line");
                w.integer(100 + f);
                w.key("name");
                w.str("forward_" + std::to_string(f));
                w.setItems();
            }
            w.appends();
        }
        w.setItems();
    }
    if (entries > 0) {
        w.appends();
    }
    // the list of devices holds one trace: APPEND
    w.out += 'a';
    w.key("allocator_settings");
    w.emptyDict();
    w.mark();
    w.key("PYTORCH_CUDA_ALLOC_CONF");
    w.str("expandable_segments:True");
    w.key("max_split_size");
    w.integer(-1);
    w.setItems();
    w.setItems();
    w.end();
    return w.out;
}

void readAndLog(const std::string& bytes, int entries, bool once)
{
    const double start = cpuMs();
    int calls = 0;
    std::size_t memory = 0;
    std::size_t nodes = 0;
    const auto body = [&] {
        const auto doc = readPickle(bytes);
        QVERIFY2(doc.ok(), doc.ok() ? "" : doc.error().message.c_str());
        QCOMPARE(doc->root().find("device_traces")[0].size(), static_cast<std::size_t>(entries));
        memory = doc->memoryBytes();
        nodes = doc->nodes().size();
        ++calls;
    };
    if (once) {
        QBENCHMARK_ONCE
        {
            body();
        }
    } else {
        QBENCHMARK
        {
            body();
        }
    }
    const double ms = (cpuMs() - start) / calls;
    qInfo("%d entries: %.1f MB pickle read in %.1f ms processor time (%.0f MB/s); tree %.1f MB = %.2f x the "
          "file, "
          "%zu nodes",
        entries, static_cast<double>(bytes.size()) / 1e6, ms, static_cast<double>(bytes.size()) / 1e3 / ms,
        static_cast<double>(memory) / 1e6, static_cast<double>(memory) / static_cast<double>(bytes.size()),
        nodes);
    QVERIFY2(memory < 5 * bytes.size(), "the tree is beyond 5 times the file's size");
}

} // namespace

class BenchPlainData : public QObject
{
    Q_OBJECT

private slots:
    void readSnapshot20k() { readAndLog(snapshotPickle(20'000), 20'000, false); }
    void readSnapshot1M() { readAndLog(snapshotPickle(1'000'000), 1'000'000, true); }
};

QTEST_APPLESS_MAIN(BenchPlainData)
#include "bench_plaindata.moc"

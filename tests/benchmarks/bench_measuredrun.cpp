// Opening a measured run end to end (issue 36's speed goal): a memory snapshot with 20,000 and with
// 1,000,000 trace entries read (pickle), its bytes reconstructed, its steps and phases found, and the run
// compared with a plan (ResNet-18 at batch 32 on a 24 GiB Ampere card). The goal: 20,000 entries in
// under 200 ms, 1,000,000 in under 3 s and under 10 times the file's size in memory.
//
// The snapshot is a training loop as PyTorch records it: the weights allocated before the trace (the
// ring buffer starts mid-run), then per step each activation allocated in forward (model.py frames), in
// backward an activation gradient made and the activation and gradient freed (no Python frames: autograd's
// worker thread), the first step's weight gradients and Adam state kept, and the optimizer's temporaries
// (torch/optim/adam.py frames). One 8 GiB segment holds it all.
// Run: build/tests/benchmarks/bench_measuredrun. Logs processor time and the process's peak memory.
#include "BenchTiming.h"
#include "PickleWriter.h"
#include "headroom/estimate/Plan.h"
#include "headroom/estimate/RunComparison.h"
#include "headroom/measured/MeasuredRun.h"
#include "headroom/model/ModelFile.h"

#include <QTest>
#include <cstdint>
#include <ctime>
#include <string>
#include <sys/resource.h>
#include <vector>

using namespace headroom;
using headroom::bench::PickleWriter;

namespace {

using bench::cpuMs;

double peakRssMb()
{
    rusage usage {};
    getrusage(RUSAGE_SELF, &usage);
    return static_cast<double>(usage.ru_maxrss) / 1024.0; // kilobytes on Linux
}

constexpr std::int64_t kBase = 0x7F0000000000LL;
constexpr std::int64_t kSegment = std::int64_t { 8 } << 30;
constexpr int kLayers = 20;
constexpr int kActivations = 40;

struct Layout
{
    std::vector<std::int64_t> weights, grads, states, activations;
    std::int64_t activationGrad = 0, temporary = 0, end = 0;
};

Layout layout()
{
    Layout l;
    std::int64_t at = kBase;
    const auto place = [&](std::vector<std::int64_t>& into, int n, std::int64_t size) {
        for (int i = 0; i < n; ++i) {
            into.push_back(at);
            at += size;
        }
    };
    place(l.weights, kLayers, 1 << 20);
    place(l.grads, kLayers, 1 << 20);
    place(l.states, 2 * kLayers, 1 << 20);
    place(l.activations, kActivations, 4 << 20);
    l.activationGrad = at;
    at += 4 << 20;
    l.temporary = at;
    at += 1 << 20;
    l.end = at;
    return l;
}

class SnapshotWriter
{
public:
    PickleWriter w;

    void frames(int stack)
    {
        static const char* const files[] = { "/home/user/train.py", "/home/user/model.py",
            "/usr/lib/python3/dist-packages/torch/optim/adam.py" };
        static const char* const names[] = { "main", "forward", "step" };
        if (stack < 0) {
            w.emptyList();
            return;
        }
        if (static_cast<std::size_t>(stack) < m_stacks.size()
            && m_stacks[static_cast<std::size_t>(stack)] != 0) {
            w.get(m_stacks[static_cast<std::size_t>(stack)]);
            return;
        }
        m_stacks.resize(std::max<std::size_t>(m_stacks.size(), static_cast<std::size_t>(stack) + 1));
        m_stacks[static_cast<std::size_t>(stack)] = w.emptyList();
        w.mark();
        for (const int f : { stack, 0 }) {
            w.emptyDict();
            w.mark();
            w.key("filename");
            w.str(files[f]);
            w.key("line");
            w.integer(10 + f);
            w.key("name");
            w.str(names[f]);
            w.setItems();
        }
        w.appends();
    }

    void entry(const char* action, std::int64_t address, std::int64_t size, int stack)
    {
        if (m_entries % 1000 == 0) {
            if (m_entries > 0)
                w.appends();
            w.mark();
        }
        w.emptyDict();
        w.mark();
        w.key("action");
        w.key(action);
        w.key("addr");
        w.integer(address);
        w.key("size");
        w.integer(size);
        w.key("stream");
        w.integer(0);
        w.key("time_us");
        w.integer(1'700'000'000'000'000LL + m_entries);
        w.key("frames");
        frames(stack);
        w.setItems();
        ++m_entries;
    }
    void allocFree(std::int64_t address, std::int64_t size, int stack)
    {
        entry("alloc", address, size, stack);
        entry("free_requested", address, size, stack);
        entry("free_completed", address, size, stack);
    }
    [[nodiscard]] int entries() const noexcept { return m_entries; }
    [[nodiscard]] bool inBatch() const noexcept { return m_entries % 1000 != 0; }

private:
    std::vector<std::uint32_t> m_stacks;
    int m_entries = 0;
};

void block(PickleWriter& w, std::int64_t address, std::int64_t size, const char* state)
{
    w.emptyDict();
    w.mark();
    w.key("address");
    w.integer(address);
    w.key("size");
    w.integer(size);
    w.key("requested_size");
    w.integer(size);
    w.key("state");
    w.key(state);
    w.setItems();
}

/// The snapshot of a training loop with at least `entries` trace entries.
std::string trainingSnapshot(int entries)
{
    const Layout l = layout();
    SnapshotWriter s;
    PickleWriter& w = s.w;
    w.begin();
    w.emptyDict();
    w.mark();
    w.key("device_traces");
    w.emptyList();
    w.emptyList();
    constexpr int kForward = 1, kOptimizer = 2, kNoFrames = -1;
    for (int step = 0; s.entries() < entries; ++step) {
        for (int a = 0; a < kActivations; ++a)
            s.entry("alloc", l.activations[static_cast<std::size_t>(a)], 4 << 20, kForward);
        for (int a = kActivations - 1; a >= 0; --a) {
            s.entry("alloc", l.activationGrad, 4 << 20, kNoFrames);
            const auto act = l.activations[static_cast<std::size_t>(a)];
            s.entry("free_requested", act, 4 << 20, kNoFrames);
            s.entry("free_completed", act, 4 << 20, kNoFrames);
            s.entry("free_requested", l.activationGrad, 4 << 20, kNoFrames);
            s.entry("free_completed", l.activationGrad, 4 << 20, kNoFrames);
            if (step == 0 && a < kLayers)
                s.entry("alloc", l.grads[static_cast<std::size_t>(a)], 1 << 20, kNoFrames);
        }
        if (step == 0) {
            for (const auto state : l.states)
                s.entry("alloc", state, 1 << 20, kOptimizer);
        }
        s.allocFree(l.temporary, 1 << 20, kOptimizer);
    }
    if (s.inBatch())
        w.appends();
    w.out += 'a'; // the device list holds this one trace
    // At the snapshot: the weights, gradients and Adam state alive, the rest of the segment cached.
    w.key("segments");
    w.emptyList();
    w.mark();
    w.emptyDict();
    w.mark();
    w.key("device");
    w.integer(0);
    w.key("address");
    w.integer(kBase);
    w.key("total_size");
    w.integer(kSegment);
    w.key("stream");
    w.integer(0);
    w.key("segment_type");
    w.key("large");
    w.key("blocks");
    w.emptyList();
    w.mark();
    for (const auto* region : { &l.weights, &l.grads, &l.states }) {
        for (const auto address : *region)
            block(w, address, 1 << 20, "active_allocated");
    }
    block(w, l.states.back() + (1 << 20), kBase + kSegment - (l.states.back() + (1 << 20)), "inactive");
    w.appends();
    w.setItems();
    w.appends();
    w.setItems();
    w.end();
    return w.out;
}

struct Evaluated
{
    Plan plan;
    PlanResult result;
};

Evaluated resnet18()
{
    Evaluated e;
    auto network = loadModelFile(HEADROOM_TEST_SOURCE_DIR "/resources/presets/resnet18.json");
    if (!network.ok())
        qFatal("%s", network.error().message.c_str());
    e.plan.network = std::move(network).value();
    e.plan.gpu = Gpu { .name = "Test GPU",
        .vendor = "NVIDIA",
        .family = "GeForce 30 (Ampere)",
        .aliases = {},
        .memoryBytes = 24ULL << 30,
        .bandwidthGBps = 900,
        .fp32Tflops = 35,
        .fp16Tflops = 70,
        .bf16Tflops = 70 };
    e.plan.setup.batch = 32;
    e.result = evaluate(e.plan);
    return e;
}

void openAndCompare(int entries, double budgetMs)
{
    const std::string bytes = trainingSnapshot(entries);
    const Evaluated plan = resnet18();
    const double rssBefore = peakRssMb();
    const double start = cpuMs();
    const auto run = readMeasuredRun(bytes, "bench.pickle");
    QVERIFY2(run.ok(), run.ok() ? "" : run.error().message.c_str());
    const double read = cpuMs();
    const RunComparison comparison = compareRun(run.value(), plan.plan, plan.result, RunContext {});
    const double end = cpuMs();
    const double rssGrowth = peakRssMb() - rssBefore;
    // The loop's figures, by hand: weights, gradients and Adam state (4 x 20 MiB) stay; a steady step adds
    // the 40 activations of 4 MiB and one 4 MiB activation gradient: the steady peak is 80 + 164 MiB.
    QVERIFY(run->absolute);
    QCOMPARE(run->peakAllocated, std::uint64_t { (80 + 164) } << 20);
    QVERIFY(run->steps.size() >= 2);
    QVERIFY(comparison.steady.has_value());
    const double fileMb = static_cast<double>(bytes.size()) / 1e6;
    qInfo(
        "%d entries (%.1f MB pickle, %zu steps): read and measured in %.0f ms, compared in %.0f ms "
        "processor time (%.0f ms in all; goal under %.0f ms); peak memory grew by %.0f MB = %.1f x the file",
        run->snapshot ? static_cast<int>(run->snapshot->deviceTraces.front().size()) : 0, fileMb,
        run->steps.size(), read - start, end - read, end - start, budgetMs, rssGrowth, rssGrowth / fileMb);
}

} // namespace

class BenchMeasuredRun : public QObject
{
    Q_OBJECT

private slots:
    void open20kEntries() { openAndCompare(20'000, 200); }
    void open1MEntries() { openAndCompare(1'000'000, 3000); }
};

QTEST_APPLESS_MAIN(BenchMeasuredRun)
#include "bench_measuredrun.moc"

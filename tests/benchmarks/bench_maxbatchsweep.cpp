// Issue 38, item 4: the cost of a max batch must not grow with the batch it finds. `max-batch` under 100 ms
// and `compare` (every GPU) under 1 s for every preset and every model, ONNX file and Hugging Face config
// in tests/data, at every capacity from 0.25 GiB to 4 TiB. This sweeps them: for each file, evaluate()
// (what `headroom max-batch FILE --gpu-memory-gib N` runs once the file is read: analysis, step model,
// allocation trace, the max batch search without the batch at exactly the capacity, and no replay at the
// plan's batch) at 0.25, 1, 8, 80, 1,024 and 4,096 GiB on the default GPU, and compareGpus() over the
// whole catalogue; then it lists the slowest.
//
// Run: build/tests/benchmarks/bench_maxbatchsweep. CTest runs the presets only; HEADROOM_SWEEP_ALL=1
// sweeps every file and the 8,000-Pad Repeat (a few minutes). Files the importers refuse by design are
// skipped and counted. Times are processor time (all threads: compare runs its GPUs on the machine's
// cores) and wall clock; on the shared 2-core machine the wall clock under load is several times the
// processor time. docs/performance.md.
#include "BenchTiming.h"
#include "headroom/estimate/Plan.h"
#include "headroom/importers/NetworkFile.h"
#include "headroom/model/ModelFile.h"
#include "headroom/planner/Planner.h"
#include "headroom/setup/GpuCatalog.h"

#include <QTest>
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <string>
#include <vector>

using namespace headroom;

namespace {

using bench::cpuMs;

double wallMs()
{
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

/// A Repeat of 8,000 Pads (the issue's 180-byte model): each iteration a tensor of its own size.
constexpr const char* kPads = R"({"format": "headroom-model", "version": 1, "name": "8,000 Pads",
    "input": {"shape": [1], "dtype": "float32"},
    "layers": [{"type": "Repeat", "times": 8000, "layers": [{"type": "Pad", "pad": [0, 1]}]}]})";

struct Timing
{
    std::string what;
    double cpu = 0;
    double wall = 0;
    std::int64_t maxBatch = 0;
};

} // namespace

class BenchMaxBatchSweep : public QObject
{
    Q_OBJECT
private slots:
    void sweep();
};

void BenchMaxBatchSweep::sweep()
{
    namespace fs = std::filesystem;
    const std::string root = HEADROOM_TEST_SOURCE_DIR;
    const bool all = std::getenv("HEADROOM_SWEEP_ALL") != nullptr;
    std::vector<std::string> files;
    for (const auto& e : fs::directory_iterator(root + "/resources/presets"))
        files.push_back(e.path().string());
    if (all) {
        for (const auto& e : fs::recursive_directory_iterator(root + "/tests/data")) {
            const std::string p = e.path().string();
            const std::string name = e.path().filename().string();
            const bool hf = p.find("/tests/data/hf/") != std::string::npos && e.path().extension() == ".json"
                && !name.starts_with("measured");
            const bool model
                = p.find("/tests/data/parallel/") != std::string::npos && name == "gpt3_175b.json";
            if (e.is_regular_file() && (e.path().extension() == ".onnx" || hf || model))
                files.push_back(p);
        }
    }
    std::sort(files.begin(), files.end());
    const auto catalog = GpuCatalog::fromFile(root + "/resources/gpus.json");
    QVERIFY(catalog.ok());
    std::vector<std::pair<std::string, Network>> networks;
    std::vector<std::string> skipped;
    for (const std::string& f : files) {
        auto net = loadNetworkFile(f);
        if (net)
            networks.emplace_back(f.substr(root.size() + 1), std::move(net).value());
        else
            skipped.push_back(f.substr(root.size() + 1));
    }
    if (all) {
        auto pads = parseModel(kPads);
        QVERIFY(pads.ok());
        networks.emplace_back("(a Repeat of 8,000 Pads)", std::move(pads).value());
    }

    std::vector<Timing> maxBatch, compare;
    for (const auto& [name, net] : networks) {
        Plan plan;
        plan.network = net;
        plan.gpu = catalog.value().defaultGpu();
        bool refused = false;
        for (const double gib : { 0.25, 1.0, 8.0, 80.0, 1024.0, 4096.0 }) {
            plan.gpu.memoryBytes = static_cast<std::uint64_t>(gib * 1073741824.0);
            const double cpu = cpuMs();
            const double wall = wallMs();
            const PlanResult r = evaluate(plan, MaxBatchSearch::MaxBatchOnly); // as `headroom max-batch`
            const Timing t { name + " at " + QByteArray::number(gib).toStdString() + " GiB", cpuMs() - cpu,
                wallMs() - wall, r.estimate ? r.estimate->maxBatch : -1 };
            if (!r.estimate) {
                refused = true; // refused by design (a fixed batch, an operator without a mapping ...)
                break;
            }
            maxBatch.push_back(t);
        }
        if (refused) {
            skipped.push_back(name);
            continue;
        }
        plan.gpu = catalog.value().defaultGpu();
        const double cpu = cpuMs();
        const double wall = wallMs();
        CompareWork work;
        const auto rows = compareGpus(plan, catalog.value().gpus(), std::nullopt, &work);
        QVERIFY2(rows.ok(), name.c_str());
        compare.push_back(Timing { name + " (" + std::to_string(work.traces) + " traces, "
                + std::to_string(work.replays) + " replays)",
            cpuMs() - cpu, wallMs() - wall, 0 });
    }
    const auto slowest = [](std::vector<Timing>& v, const char* what, double goal) {
        std::sort(v.begin(), v.end(), [](const Timing& a, const Timing& b) { return a.cpu > b.cpu; });
        const auto over = std::count_if(v.begin(), v.end(), [&](const Timing& t) { return t.cpu > goal; });
        qInfo("%s: %zu runs, %lld over %.0f ms of processor time; the slowest:", what, v.size(),
            static_cast<long long>(over), goal);
        for (std::size_t i = 0; i < std::min<std::size_t>(v.size(), 10); ++i)
            qInfo("  %8.1f ms processor, %8.1f ms wall  %s%s", v[i].cpu, v[i].wall, v[i].what.c_str(),
                v[i].maxBatch > 0 ? (" (max batch " + std::to_string(v[i].maxBatch) + ")").c_str() : "");
    };
    slowest(maxBatch, "max-batch (evaluate)", 100.0);
    slowest(compare, "compare (every GPU)", 1000.0);
    qInfo("%zu files swept, %zu skipped (refused by design):", compare.size(), skipped.size());
    for (const std::string& s : skipped)
        qInfo("  %s", s.c_str());
}

QTEST_APPLESS_MAIN(BenchMaxBatchSweep)
#include "bench_maxbatchsweep.moc"

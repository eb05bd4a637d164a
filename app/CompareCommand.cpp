// headroom compare: the set-up on every GPU of the catalogue (or of --gpus-list).
#include "Command.h"
#include "Output.h"
#include "PlanFromOptions.h"
#include "PlanText.h" // report/
#include "TextTable.h"
#include "headroom/planner/Planner.h"
#include "headroom/support/Format.h"

#include <algorithm>
#include <ostream>

namespace headroom::cli {

namespace {

/// --gpus-list resolved in the catalogue (each an error if unknown or ambiguous), or the whole catalogue.
std::vector<Gpu> gpusToCompare(const Options& o, const GpuCatalog& catalog)
{
    if (o.gpuList.empty())
        return catalog.gpus();
    std::vector<Gpu> gpus;
    for (const auto& name : o.gpuList) {
        auto gpu = catalog.find(name);
        if (!gpu)
            throw UsageError { "--gpus-list: " + gpu.error().message };
        if (std::none_of(gpus.begin(), gpus.end(), [&](const Gpu& g) { return g.name == gpu->name; }))
            gpus.push_back(gpu.value());
    }
    return gpus;
}

void printCompareJson(
    const Plan& plan, const std::vector<GpuComparison>& rows, std::int64_t target, std::ostream& out)
{
    using nlohmann::ordered_json;
    auto list = ordered_json::array();
    for (const auto& r : rows) {
        ordered_json j;
        j["gpu"] = r.gpu.name;
        j["memory_bytes"] = r.gpu.memoryBytes;
        j["peak_bytes"] = r.estimate.peakBytes(); // the tensors'
        // What the GPU holds at the peak and what it leaves: `headroom estimate`'s headroom_bytes.
        j["held_at_peak_bytes"] = r.estimate.heldBytes;
        j["headroom_bytes"] = r.estimate.headroomBytes();
        j["fits"] = r.estimate.fits;
        j["max_batch"] = r.estimate.maxBatch;
        j["max_effective_batch"] = r.estimate.maxEffectiveBatch;
        // What the caching allocator reserves at the batch, and what stays outside it (the CUDA context).
        j["reserved_peak_bytes"]
            = r.reserved ? ordered_json(r.reserved->peakReservedBytes) : ordered_json(nullptr);
        j["overhead_bytes"] = r.reserved ? ordered_json(r.reserved->overheadBytes) : ordered_json(nullptr);
        if (r.throughput) {
            j["step_seconds"] = r.throughput->stepSeconds;
            j["samples_per_second"] = r.throughput->samplesPerSecond;
            j["tokens_per_second"] = r.throughput->tokensPerSecond;
        } else {
            j["step_seconds"] = nullptr;
            j["samples_per_second"] = nullptr;
            j["tokens_per_second"] = nullptr;
            j["throughput_error"] = r.throughputError;
        }
        j["reaches_target"] = r.reachesTarget;
        j["smallest_reaching_target"] = r.smallestReachingTarget;
        list.push_back(j);
    }
    writeJson(out,
        { { "model", plan.network.name }, { "batch", plan.setup.batch }, { "target_batch", target },
            { "gpus", list } },
        2);
}

void printCompareText(
    const Plan& plan, const std::vector<GpuComparison>& rows, std::int64_t target, std::ostream& out)
{
    using namespace report::plantext;
    const TrainingSetup& s = plan.setup;
    keyLine(out, "Model", plan.network.name);
    keyLine(out, "Set-up",
        std::string(optimizerLabel(s.optimizer)) + ", " + std::string(precisionLabel(plan.precision))
            + ", batch " + std::to_string(s.batch) + (hasEffectiveBatch(s) ? " per GPU" : ""));
    for (const auto& [key, value] : strategyRows(plan))
        keyLine(out, key, value);
    keyLine(out, "Target", "effective batch " + std::to_string(target));
    out << '\n';
    using Align = TextTable::Align;
    const bool effective = hasEffectiveBatch(s);
    // Each column says what it answers, as the GUI's do: the peak (what the GPU holds: the reserved
    // peak plus the overhead) and the fit at the set-up's batch, reaching the target with the largest
    // batch that fits.
    const std::string batch = std::to_string(s.batch);
    std::vector<TextTable::Column> columns { { "GPU" }, { "Memory", Align::Right },
        { "Peak (batch " + batch + ")", Align::Right }, { "Fits batch " + batch },
        { "Max batch", Align::Right } };
    if (effective)
        columns.push_back({ "Max effective", Align::Right });
    columns.insert(columns.end(),
        { { "Reaches target" }, { "Step", Align::Right }, { "Samples/s", Align::Right }, { "" } });
    TextTable table(columns);
    for (const auto& r : rows) {
        const bool runs = r.estimate.fits && r.throughput;
        std::vector<std::string> row { r.gpu.name, formatBytes(r.gpu.memoryBytes),
            formatBytes(r.estimate.heldBytes), r.estimate.fits ? "yes" : "no",
            std::to_string(r.estimate.maxBatch) };
        if (effective)
            row.push_back(std::to_string(r.estimate.maxEffectiveBatch));
        row.push_back(r.reachesTarget ? "yes" : "no");
        row.push_back(runs ? formatSeconds(r.throughput->stepSeconds) : "-");
        row.push_back(runs ? formatRate(r.throughput->samplesPerSecond) : "-");
        row.push_back(r.smallestReachingTarget ? "<- smallest that reaches the target" : "");
        table.addRow(std::move(row));
    }
    table.print(out);
    if (std::none_of(rows.begin(), rows.end(), [](const GpuComparison& r) { return r.reachesTarget; }))
        out << "\nNo GPU listed reaches an effective batch of " << target
            << " with this set-up (headroom plan finds"
            << " set-ups that do).\n";
}

int runCompare(const Options& o, const CommandContext& c)
{
    const GpuCatalog catalog = loadCatalog(c.executablePath);
    const std::vector<Gpu> gpus = gpusToCompare(o, catalog);
    const Plan plan = makePlan(o, c.executablePath);
    const auto compared = compareGpus(plan, gpus, o.targetBatch);
    if (!compared)
        throw UsageError { compared.error().message };
    const auto& rows = compared.value();
    const std::int64_t target
        = o.targetBatch.value_or(rows.empty() ? plan.setup.batch : rows.front().estimate.effectiveBatch);
    if (o.json)
        printCompareJson(plan, rows, target, c.out);
    else
        printCompareText(plan, rows, target, c.out);
    return kExitOk;
}

} // namespace

const Command& compareCommand()
{
    static const Command command {
        .name = "compare",
        .usage = "FILE [options] [--target-batch N] [--gpus-list LIST] [--json]",
        .summary = "the set-up on every GPU: fits, max batch, speed",
        .description
        = "The set-up on every GPU of the catalogue (or of --gpus-list), smallest memory first: its peak,\n"
          "whether it fits, the largest micro-batch, step time and samples per second, with the smallest\n"
          "GPU that reaches the target effective batch marked.\n",
        .options = setupOptions({ "--gpu", "--gpu-memory-gib" },
            { { "--json" },
                { "--target-batch", "samples per optimizer step to reach [the set-up's effective batch]" },
                { "--gpus-list", "comma-separated GPUs to compare [the whole catalogue]" } }),
        .refused = { { "--gpu",
                         "compare runs the set-up on every GPU of the catalogue: choose some with "
                         "--gpus-list, not --gpu" },
            { "--gpu-memory-gib",
                "compare runs the set-up on every GPU of the catalogue: choose some with --gpus-list, not "
                "--gpu-memory-gib" } },
        .run = runCompare,
    };
    return command;
}

} // namespace headroom::cli

#include "headroom/Planner.h"

#include <algorithm>

namespace headroom {

Result<std::vector<GpuComparison>> compareGpus(const Plan& base, std::span<const Gpu> gpus,
                                               std::optional<std::int64_t> targetBatch)
{
    // One evaluation for every GPU: the analysis and the step model do not depend on it.
    const PlanResult result = evaluate(base);
    if (result.analysis.error)
        return Error{"cannot compare: " + result.analysis.error->message, result.analysis.error->location};
    if (!result.memory)
        return result.error.value_or(Error{"cannot compare: no step model", "setup"});
    std::vector<GpuComparison> rows;
    rows.reserve(gpus.size());
    PlanSettings onGpu = base;
    for (const Gpu& gpu : gpus) {
        onGpu.gpu = gpu;
        auto figures = figuresOf(result.analysis, *result.memory, onGpu);
        if (!figures)
            return figures.error();
        GpuComparison row;
        row.gpu = gpu;
        row.estimate = figures->estimate;
        row.throughput = figures->throughput;
        if (figures->throughputError)
            row.throughputError = figures->throughputError->message;
        row.reachesTarget = row.estimate.maxEffectiveBatch >= targetBatch.value_or(row.estimate.effectiveBatch)
            && row.estimate.maxBatch > 0;
        rows.push_back(std::move(row));
    }
    const auto samples = [](const GpuComparison& r) { return r.throughput ? r.throughput->samplesPerSecond : 0.0; };
    std::stable_sort(rows.begin(), rows.end(), [&](const GpuComparison& a, const GpuComparison& b) {
        if (a.gpu.memoryBytes != b.gpu.memoryBytes)
            return a.gpu.memoryBytes < b.gpu.memoryBytes;
        if (samples(a) != samples(b))
            return samples(a) > samples(b);
        return a.gpu.name < b.gpu.name;
    });
    const auto smallest = std::find_if(rows.begin(), rows.end(), [](const GpuComparison& r) { return r.reachesTarget; });
    if (smallest != rows.end())
        smallest->smallestReachingTarget = true;
    return rows;
}

} // namespace headroom

#include "headroom/Planner.h"

#include <algorithm>
#include <utility>
#include <vector>

namespace headroom {

Result<std::vector<GpuComparison>> compareGpus(
    const Plan& base, std::span<const Gpu> gpus, std::optional<std::int64_t> targetBatch)
{
    // One evaluation for every GPU: the analysis does not depend on it, the step model only through
    // the overhead (one per overhead: an overhead at the CUDA context follows each GPU's).
    const PlanResult result = evaluate(base);
    if (result.analysis.error)
        return Error { "cannot compare: " + result.analysis.error->message, result.analysis.error->location };
    if (!result.memory)
        return result.error.value_or(Error { "cannot compare: no step model", "setup" });
    std::vector<GpuComparison> rows;
    rows.reserve(gpus.size());
    // The reserved model depends on the GPU only through its cuBLAS workspace: one per generation.
    std::vector<std::pair<ComputeCapability, std::shared_ptr<const ReservedModel>>> reserved;
    const auto reservedFor = [&](const PlanSettings& settings) -> const ReservedModel* {
        if (!settings.reservedModel)
            return nullptr;
        const ComputeCapability cc = computeCapabilityOf(settings.gpu);
        for (const auto& [capability, model] : reserved) {
            if (capability == cc)
                return model.get();
        }
        auto built = buildReservedModel(result.analysis, settings);
        reserved.emplace_back(cc, built ? std::move(built).value() : nullptr);
        return reserved.back().second.get();
    };
    std::vector<std::shared_ptr<const MemoryModel>> memory { result.memory };
    const auto memoryFor = [&](const PlanSettings& settings) -> Result<const MemoryModel*> {
        for (const auto& m : memory) {
            if (m->timeline().conditions().overhead == settings.setup.overheadBytes)
                return m.get();
        }
        auto built = MemoryModel::build(result.analysis, settings.setup);
        if (!built)
            return built.error();
        memory.push_back(std::make_shared<const MemoryModel>(std::move(built).value()));
        return memory.back().get();
    };
    for (const Gpu& gpu : gpus) {
        PlanSettings onGpu = base;
        moveToGpu(onGpu, gpu); // an overhead left at the CUDA context follows each GPU's
        const auto model = memoryFor(onGpu);
        if (!model)
            return model.error();
        auto figures = figuresOf(result.analysis, *model.value(), onGpu, reservedFor(onGpu));
        if (!figures)
            return figures.error();
        GpuComparison row;
        row.gpu = gpu;
        row.estimate = figures->estimate;
        row.throughput = figures->throughput;
        row.reserved = figures->reserved;
        if (figures->throughputError)
            row.throughputError = figures->throughputError->message;
        row.reachesTarget
            = row.estimate.maxEffectiveBatch >= targetBatch.value_or(row.estimate.effectiveBatch)
            && row.estimate.maxBatch > 0;
        rows.push_back(std::move(row));
    }
    const auto samples
        = [](const GpuComparison& r) { return r.throughput ? r.throughput->samplesPerSecond : 0.0; };
    std::stable_sort(rows.begin(), rows.end(), [&](const GpuComparison& a, const GpuComparison& b) {
        if (a.gpu.memoryBytes != b.gpu.memoryBytes)
            return a.gpu.memoryBytes < b.gpu.memoryBytes;
        if (samples(a) != samples(b))
            return samples(a) > samples(b);
        return a.gpu.name < b.gpu.name;
    });
    const auto smallest
        = std::find_if(rows.begin(), rows.end(), [](const GpuComparison& r) { return r.reachesTarget; });
    if (smallest != rows.end())
        smallest->smallestReachingTarget = true;
    return rows;
}

} // namespace headroom

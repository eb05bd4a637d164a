#include "headroom/planner/Planner.h"
#include "planner/PlannerWork.h"
#include "support/Parallel.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

namespace headroom {

namespace {

/// The step models and reserved models the GPUs share, each built once: a step model per overhead (an
/// overhead at the CUDA context follows each GPU's), a reserved model per cuBLAS workspace (the GPU enters
/// its trace only there: ReservedModel::build), so that GPUs of several generations share one trace and
/// the max batch searches it answered (issue 38: GPUs of the same memory and context asked it again).
class SharedModels final
{
public:
    explicit SharedModels(const PlanResult& result)
        : m_result { result }
        , m_memory { result.memory }
    {
    }

    const ReservedModel* reservedFor(const PlanSettings& settings)
    {
        if (!settings.reservedModel)
            return nullptr;
        // buildReservedModel() replays PyTorch's default version (ReservedOptions::torch).
        const std::uint64_t workspace
            = cublasWorkspaceBytes(computeCapabilityOf(settings.gpu), ReservedOptions {}.torch);
        for (const auto& [bytes, model] : m_reserved) {
            if (bytes == workspace)
                return model.get();
        }
        auto built = buildReservedModel(m_result.analysis, settings);
        m_reserved.emplace_back(workspace, built ? std::move(built).value() : nullptr);
        return m_reserved.back().second.get();
    }

    Result<const MemoryModel*> memoryFor(const PlanSettings& settings)
    {
        for (const auto& m : m_memory) {
            if (m->timeline().conditions().overhead == settings.setup.overheadBytes)
                return m.get();
        }
        auto built = MemoryModel::build(m_result.analysis, settings.setup);
        if (!built)
            return built.error();
        m_memory.push_back(std::make_shared<const MemoryModel>(std::move(built).value()));
        return m_memory.back().get();
    }

    /// The reserved models built and what they replayed.
    void addWork(CompareWork& work) const
    {
        for (const auto& [bytes, model] : m_reserved) {
            if (!model)
                continue;
            ++work.traces;
            work.replays += model->work().replays;
            work.replayedEvents += model->work().events;
        }
    }

private:
    const PlanResult& m_result;
    std::vector<std::shared_ptr<const MemoryModel>> m_memory;
    std::vector<std::pair<std::uint64_t, std::shared_ptr<const ReservedModel>>> m_reserved;
};

GpuComparison comparisonRow(
    const Gpu& gpu, const SetupFigures& figures, std::optional<std::int64_t> targetBatch)
{
    GpuComparison row;
    row.gpu = gpu;
    row.estimate = figures.estimate;
    row.throughput = figures.throughput;
    row.reserved = figures.reserved;
    if (figures.throughputError)
        row.throughputError = figures.throughputError->message;
    row.reachesTarget = row.estimate.maxEffectiveBatch >= targetBatch.value_or(row.estimate.effectiveBatch)
        && row.estimate.maxBatch > 0;
    return row;
}

/// Smallest memory first, then fastest, then by name; the smallest GPU that reaches the target marked.
void rank(std::vector<GpuComparison>& rows)
{
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
}

} // namespace

Result<std::vector<GpuComparison>> compareGpus(
    const Plan& base, std::span<const Gpu> gpus, std::optional<std::int64_t> targetBatch, CompareWork* work)
{
    // One evaluation for every GPU: the analysis does not depend on it, the step model only through
    // the overhead (one per overhead: an overhead at the CUDA context follows each GPU's).
    // The rows replay the allocator on models of their own (SharedModels): the plan's own GPU needs none.
    Plan analysed = base;
    analysed.reservedModel = false;
    const PlanResult result = evaluate(analysed);
    if (result.analysis.error)
        return Error { "cannot compare: " + result.analysis.error->message, result.analysis.error->location };
    if (!result.memory)
        return result.error.value_or(Error { "cannot compare: no step model", "setup" });
    // The models each GPU needs, built one after the other; then the GPUs' figures on the machine's
    // cores, a max batch search per reserved model and capacity (GPUs of the same memory and context
    // share it: the first searches, the others read its answer), the longest searches first.
    SharedModels models { result };
    struct Job
    {
        PlanSettings settings;
        const MemoryModel* memory = nullptr;
        const ReservedModel* reserved = nullptr;
    };
    std::vector<Job> jobs;
    jobs.reserve(gpus.size());
    for (const Gpu& gpu : gpus) {
        Job job { base, nullptr, nullptr };
        moveToGpu(job.settings, gpu); // an overhead left at the CUDA context follows each GPU's
        const auto model = models.memoryFor(job.settings);
        if (!model)
            return model.error();
        job.memory = model.value();
        job.reserved = models.reservedFor(job.settings);
        jobs.push_back(std::move(job));
    }
    const auto capacityOf = [&](const Job& job) {
        return job.settings.gpu.memoryBytes
            - std::min(job.settings.gpu.memoryBytes, job.settings.setup.overheadBytes);
    };
    std::vector<std::vector<std::size_t>> groups;
    for (std::size_t i = 0; i < jobs.size(); ++i) {
        const auto same = std::find_if(groups.begin(), groups.end(), [&](const std::vector<std::size_t>& g) {
            return jobs[g.front()].reserved == jobs[i].reserved
                && capacityOf(jobs[g.front()]) == capacityOf(jobs[i]);
        });
        if (same != groups.end())
            same->push_back(i);
        else
            groups.push_back({ i });
    }
    std::stable_sort(groups.begin(), groups.end(), [&](const auto& x, const auto& y) {
        return capacityOf(jobs[x.front()]) > capacityOf(jobs[y.front()]);
    });
    std::vector<std::optional<Result<SetupFigures>>> figures(jobs.size());
    forEachInParallel(groups.size(), [&](std::size_t g) {
        for (const std::size_t i : groups[g]) {
            // No row shows the batch that fits at exactly the capacity (ReservedMaxBatch::unguarded).
            figures[i] = figuresOf(result.analysis, *jobs[i].memory, jobs[i].settings, jobs[i].reserved,
                nullptr, MaxBatchSearch::AnswerOnly);
        }
    });
    std::vector<GpuComparison> rows;
    rows.reserve(gpus.size());
    for (std::size_t i = 0; i < jobs.size(); ++i) {
        if (!*figures[i])
            return figures[i]->error();
        rows.push_back(comparisonRow(gpus[i], figures[i]->value(), targetBatch));
    }
    rank(rows);
    if (work != nullptr)
        models.addWork(*work);
    return rows;
}

} // namespace headroom

#include "headroom/estimate/Estimate.h"

#include <limits>
#include <string>
#include <vector>

namespace headroom {

Result<Estimate> estimate(const Analysis& analysis, const TrainingSetup& setup, std::uint64_t gpuMemoryBytes)
{
    auto model = MemoryModel::build(analysis, setup);
    if (!model)
        return model.error();
    return estimate(analysis, model.value(), setup, gpuMemoryBytes);
}

Result<Estimate> estimate(const Analysis& analysis, const MemoryModel& memory, const TrainingSetup& setup,
    std::uint64_t gpuMemoryBytes)
{
    const MemoryModel* model = &memory;
    auto bytes = model->at(setup.batch);
    if (!bytes)
        return bytes.error();
    Estimate e;
    e.batch = setup.batch;
    e.precision = analysis.precision;
    e.optimizer = setup.optimizer;
    e.bytes = bytes.value();
    e.peak = model->peakAt(setup.batch);
    e.peakLayer = momentLayerName(analysis, model->timeline().moments()[e.peak.moment]);
    e.peakReference = momentLayerReference(analysis, model->timeline().moments()[e.peak.moment]);
    e.firstStepPeakBytes = model->firstStepPeak(setup.batch);
    e.optimizerStepBytes = model->momentAt(model->optimizerStepMoment(), setup.batch).total();
    e.gpuMemoryBytes = gpuMemoryBytes;
    e.fits = e.peakBytes() <= gpuMemoryBytes;
    e.fitBasis = FitBasis::Tensors; // until applyReserved() judges it on the allocator's replay
    e.heldBytes = e.peakBytes();
    e.maxBatch = model->maxBatch(gpuMemoryBytes);
    // build() validated steps and GPUs (each at most 2^20); the products saturate rather than wrap.
    const auto times = [](std::int64_t a, std::int64_t b) {
        std::int64_t r = 0;
        return __builtin_mul_overflow(a, b, &r) ? std::numeric_limits<std::int64_t>::max() : r;
    };
    const std::int64_t stepsTimesRanks = times(setup.accumulationSteps, setup.parallel.dataParallel());
    e.effectiveBatch = times(e.batch, stepsTimesRanks);
    e.maxEffectiveBatch = times(e.maxBatch, stepsTimesRanks);
    return e;
}

Result<std::vector<MemoryBreakdown>> sweep(
    const Analysis& analysis, const TrainingSetup& setup, std::int64_t first, std::int64_t last)
{
    auto model = MemoryModel::build(analysis, setup);
    if (!model)
        return model.error();
    if (first < 1 || last < first || last > kMaxBatch)
        return Error { "sweep range " + std::to_string(first) + ".." + std::to_string(last) + " is not valid",
            "batch" };
    std::vector<MemoryBreakdown> out;
    out.reserve(static_cast<std::size_t>(last - first + 1));
    for (std::int64_t b = first; b <= last; ++b) {
        auto m = model->at(b);
        if (!m)
            return m.error();
        out.push_back(m.value());
    }
    return out;
}

} // namespace headroom

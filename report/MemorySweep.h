#pragma once

#include "headroom/estimate/Estimate.h"
#include "headroom/estimate/Plan.h"

#include <QCoreApplication>
#include <QString>
#include <cstdint>
#include <vector>

namespace headroom::report {

/// What the memory-versus-batch chart draws, decided once for the GUI (ui/MemoryChartView) and the
/// PDF report (MemoryChartPainter), so both show the same picture: a logarithmic batch axis from 1
/// to a power of two with room above the batch and the largest batch that fits, labelled at powers
/// of two; the memory model sampled evenly in log2(batch) over it; a memory axis reaching a little
/// above the GPU's memory (or the batch's total when that is higher), the region above the GPU's
/// memory shaded as over budget.
struct MemorySweep
{
    Q_DECLARE_TR_FUNCTIONS(headroom::report::MemorySweep)

public:
    static constexpr int kSamples = 384;

    std::vector<std::int64_t> batches; ///< ascending, the first 1, evenly spaced in log2(batch)
    std::vector<MemoryBreakdown> breakdowns; ///< MemoryModel::at(batch) for each
    std::int64_t range = 1; ///< where the batch axis ends (the samples stop early where 64 bits overflow)
    /// What the GPU holds by PyTorch's caching allocator's count (reserved bytes plus the overhead) at
    /// some of the sampled batches: under the GPU's memory where the step fits, what the allocator
    /// would need where it does not. Empty without a reserved model (sampleReserved()).
    std::vector<std::int64_t> reservedBatches;
    std::vector<std::uint64_t> reservedBytes;
    /// The reserved line takes every this-many-th sample (and the last).
    static constexpr std::size_t kReservedStride = 8;

    /// The batch range for `batch` and `maxBatch`: the power of two at or above both plus a quarter
    /// (the max batch counted up to 2^20), at least 16, at most kMaxBatch.
    [[nodiscard]] static std::int64_t rangeFor(std::int64_t batch, std::int64_t maxBatch);
    /// The model's breakdown at batches evenly spaced in log2(batch) from 1 to `range`.
    [[nodiscard]] static MemorySweep sample(
        const MemoryModel& model, std::int64_t range, int samples = kSamples);
    /// Fills the reserved line from `model` replayed at a sample each time the log axis has moved on by
    /// kReservedStride samples' worth (every kReservedStride-th sample of a long range, every batch of a
    /// short one), and at the last
    /// (under the capacity up to the largest batch that fits there, then with memory to spare), plus
    /// `figures`' overhead: a replay per point, well under a millisecond for hundreds of layers.
    void sampleReserved(const ReservedModel& model, const ReservedFigures& figures);
    /// The breakdown at the first sample at or above `batch` (the last when none is).
    [[nodiscard]] const MemoryBreakdown& near(std::int64_t batch) const;
    /// How high the memory axis must reach: 1.2 x the GPU's memory, or 1.05 x the total at `batch`
    /// (or at batch 1) where that is higher. Before rounding to a round number.
    [[nodiscard]] double topBytes(std::uint64_t capacityBytes, std::int64_t batch) const;

    /// The batch axis's position of a batch: log2(batch).
    [[nodiscard]] static double axisX(std::int64_t batch);
    /// Every how many powers of two the batch axis is labelled (1, 2, 4 or 8) so that labels
    /// `labelWidth` wide fit `plotWidth` without touching, on an axis up to `range`.
    [[nodiscard]] static int labelEvery(std::int64_t range, double labelWidth, double plotWidth);
    /// A batch-axis label: 512, 1k, 1.5k, 128k, 1M (k = 1,024, as batch sizes are counted).
    [[nodiscard]] static QString batchLabel(std::int64_t batch);
};

} // namespace headroom::report

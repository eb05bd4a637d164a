#include "MemorySweep.h"

#include <algorithm>
#include <bit>
#include <cmath>

namespace headroom::report {

namespace {

constexpr std::int64_t kMinRange = 16;
constexpr std::int64_t kMaxRangeFromMaxBatch = 1 << 20;

} // namespace

std::int64_t MemorySweep::rangeFor(std::int64_t batch, std::int64_t maxBatch)
{
    const auto room = [](std::int64_t b) { return b + b / 4; };
    const std::int64_t wanted = std::max({ kMinRange, room(std::max<std::int64_t>(batch, 1)),
        room(std::min(maxBatch, kMaxRangeFromMaxBatch)) });
    return static_cast<std::int64_t>(std::bit_ceil(static_cast<std::uint64_t>(std::min(wanted, kMaxBatch))));
}

void MemorySweep::sampleReserved(const ReservedModel& model, const ReservedFigures& figures)
{
    reservedBatches.clear();
    reservedBytes.clear();
    if (batches.empty())
        return;
    const auto at = [&](std::int64_t b) {
        // Past the largest batch that fits at the capacity it fails there: what it would reserve.
        if (b <= figures.maxBatch.unguarded) {
            if (const ReservedRun run = model.run(b, figures.capacityBytes); run.fits)
                return run.peakReserved;
        }
        return model.reservedAt(b);
    };
    // One replay per kReservedStride samples' worth of the log axis the chart draws: where the range is
    // short the samples are every integer (1, 2, ... 16), and every 8th of them (1, 9, 16) would draw
    // the line from batch 1 to 9 straight across most of the axis (GPT-2 on 8 GiB: 8 GiB at batch 2,
    // where the replay holds 5.4). A sample is replayed once the axis has moved on that far, and the last.
    const std::size_t last = batches.size() - 1;
    const double step = std::log2(static_cast<double>(batches.back())) * static_cast<double>(kReservedStride)
        / static_cast<double>(kSamples);
    double previous = 0.0;
    for (std::size_t i = 0; i <= last; ++i) {
        const double x = std::log2(static_cast<double>(batches[i]));
        if (i != 0 && i != last && x - previous < step)
            continue;
        reservedBatches.push_back(batches[i]);
        reservedBytes.push_back(at(batches[i]) + figures.overheadBytes);
        previous = x;
    }
}

MemorySweep MemorySweep::sample(const MemoryModel& model, std::int64_t range, int samples)
{
    MemorySweep sweep;
    sweep.range = std::max<std::int64_t>(range, 2);
    const double top = std::log2(static_cast<double>(sweep.range));
    std::int64_t previous = 0;
    for (int i = 0; i <= samples; ++i) {
        const auto b = std::clamp<std::int64_t>(
            std::llround(std::exp2(top * static_cast<double>(i) / static_cast<double>(samples))), 1,
            sweep.range);
        if (b == previous)
            continue;
        auto at = model.at(b);
        if (!at) // 64-bit overflow far right of a huge range: the chart ends before it
            break;
        sweep.batches.push_back(b);
        sweep.breakdowns.push_back(at.value());
        previous = b;
    }
    return sweep;
}

const MemoryBreakdown& MemorySweep::near(std::int64_t batch) const
{
    const auto it = std::lower_bound(batches.begin(), batches.end(), batch);
    const auto i
        = std::min<std::ptrdiff_t>(it - batches.begin(), static_cast<std::ptrdiff_t>(batches.size()) - 1);
    return breakdowns[static_cast<std::size_t>(i)];
}

double MemorySweep::topBytes(std::uint64_t capacityBytes, std::int64_t batch) const
{
    if (breakdowns.empty())
        return static_cast<double>(capacityBytes) * 1.2;
    return std::max(
        { static_cast<double>(capacityBytes) * 1.2, static_cast<double>(near(batch).total()) * 1.05,
            static_cast<double>(breakdowns.front().total()) * 1.05 });
}

double MemorySweep::axisX(std::int64_t batch)
{
    return std::log2(static_cast<double>(std::max<std::int64_t>(batch, 1)));
}

int MemorySweep::labelEvery(std::int64_t range, double labelWidth, double plotWidth)
{
    const int powers = static_cast<int>(std::lround(axisX(range)));
    int step = 1;
    while (step < 8 && (powers / step + 1) * labelWidth > plotWidth)
        step *= 2;
    return step;
}

QString MemorySweep::batchLabel(std::int64_t batch)
{
    const auto scaled = [](std::int64_t n, std::int64_t unit, const QString& suffix) {
        const double v = static_cast<double>(n) / static_cast<double>(unit);
        return QString::number(v, 'g', 4) + suffix;
    };
    if (batch >= (1 << 20))
        return scaled(batch, 1 << 20, tr("M", "batch-size suffix: 1,048,576"));
    if (batch >= 1024)
        return scaled(batch, 1024, tr("k", "batch-size suffix: 1,024"));
    return QString::number(batch);
}

} // namespace headroom::report

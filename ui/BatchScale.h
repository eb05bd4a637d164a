#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace headroom::ui {

/// The batch slider's logarithmic scale: 100 slider steps per doubling, batch 1 to 4096, so small
/// batches (1..32 take 500 steps) and large ones (512..4096 take 300) are both easy to hit.
struct BatchScale final
{
    static constexpr int kStepsPerDoubling = 100;
    static constexpr std::int64_t kMaxSliderBatch = 4096;
    static constexpr int kMaxPosition = 12 * kStepsPerDoubling; // log2(4096) = 12

    [[nodiscard]] static std::int64_t batchAt(int position) noexcept
    {
        const double b = std::round(
            std::exp2(static_cast<double>(std::clamp(position, 0, kMaxPosition)) / kStepsPerDoubling));
        return std::clamp<std::int64_t>(static_cast<std::int64_t>(b), 1, kMaxSliderBatch);
    }
    [[nodiscard]] static int positionOf(std::int64_t batch) noexcept
    {
        const auto b = static_cast<double>(std::clamp<std::int64_t>(batch, 1, kMaxSliderBatch));
        return std::clamp(static_cast<int>(std::lround(std::log2(b) * kStepsPerDoubling)), 0, kMaxPosition);
    }
};

} // namespace headroom::ui

#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace headroom {

/// The upper envelope of lines y = fixed + perSample x B over B >= 1: the peak of a training step as a
/// function of the batch size, when every moment of the step is affine in B. Built once (O(n log n));
/// evaluating it at one B or finding the largest B under a capacity costs O(log h) or O(h) for its h
/// lines, which are few (typically under 20), so a slider tick stays sub-microsecond.
class UpperEnvelope final
{
public:
    struct Line
    {
        std::uint64_t fixed = 0;
        std::uint64_t perSample = 0;
        std::size_t id = 0; ///< the caller's index of the moment this line describes
    };

    UpperEnvelope() = default;
    explicit UpperEnvelope(std::vector<Line> lines);

    [[nodiscard]] bool empty() const noexcept { return m_hull.empty(); }
    /// The lines that form the envelope, by increasing slope.
    [[nodiscard]] const std::vector<Line>& lines() const noexcept { return m_hull; }
    /// The line that is highest at `batch` (ties: the steeper one). Requires !empty().
    [[nodiscard]] const Line& highestAt(std::int64_t batch) const noexcept;
    /// fixed + perSample x batch of the highest line, saturating at UINT64_MAX on overflow.
    [[nodiscard]] std::uint64_t valueAt(std::int64_t batch) const noexcept;
    /// The largest batch in [1, limit] whose value is at most `capacity`; 0 if not even batch 1 fits.
    [[nodiscard]] std::int64_t largestBatchWithin(std::uint64_t capacity, std::int64_t limit) const noexcept;

private:
    std::vector<Line> m_hull;
};

} // namespace headroom

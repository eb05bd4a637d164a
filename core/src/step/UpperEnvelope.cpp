#include "headroom/step/UpperEnvelope.h"

#include "support/Wide.h"

#include <algorithm>
#include <limits>

namespace headroom {

namespace {

SignedWide valueOf(const UpperEnvelope::Line& l, SignedWide b)
{
    return static_cast<SignedWide>(l.fixed) + static_cast<SignedWide>(l.perSample) * b;
}

/// Line `b` is never strictly highest between `a` and `c` (slopes a < b < c), over all real B.
bool redundant(const UpperEnvelope::Line& a, const UpperEnvelope::Line& b, const UpperEnvelope::Line& c)
{
    // The crossing of a and c is at x = (a.f - c.f) / (c.s - a.s); b is redundant if it is not above
    // that point: (b.f - a.f)(c.s - a.s) <= (c.f - a.f)(b.s - a.s), cross-multiplied, exact in 128 bits.
    const SignedWide lhs = (static_cast<SignedWide>(b.fixed) - static_cast<SignedWide>(a.fixed))
        * (static_cast<SignedWide>(c.perSample) - static_cast<SignedWide>(a.perSample));
    const SignedWide rhs = (static_cast<SignedWide>(c.fixed) - static_cast<SignedWide>(a.fixed))
        * (static_cast<SignedWide>(b.perSample) - static_cast<SignedWide>(a.perSample));
    return lhs <= rhs;
}

} // namespace

UpperEnvelope::UpperEnvelope(std::vector<Line> lines)
{
    // By slope, and for equal slopes keep the highest intercept; of equal lines the first (lowest id), so
    // that the peak is the earliest moment that reaches it, whatever order the lines come in.
    std::sort(lines.begin(), lines.end(), [](const Line& a, const Line& b) {
        if (a.perSample != b.perSample)
            return a.perSample < b.perSample;
        return a.fixed != b.fixed ? a.fixed > b.fixed : a.id < b.id;
    });
    for (const Line& line : lines) {
        if (!m_hull.empty() && m_hull.back().perSample == line.perSample)
            continue; // a lower or equal line of the same slope
        // Only B >= 1 matters: a flatter line that is below this one already at B = 1 never wins.
        while (!m_hull.empty() && valueOf(m_hull.back(), 1) <= valueOf(line, 1))
            m_hull.pop_back();
        while (m_hull.size() >= 2 && redundant(m_hull[m_hull.size() - 2], m_hull.back(), line))
            m_hull.pop_back();
        m_hull.push_back(line);
    }
}

const UpperEnvelope::Line& UpperEnvelope::highestAt(std::int64_t batch) const noexcept
{
    // The hull's values at a fixed B rise and then fall along the slopes: binary search the top.
    const SignedWide b = batch;
    std::size_t lo = 0;
    std::size_t hi = m_hull.size() - 1;
    while (lo < hi) {
        const std::size_t mid = (lo + hi) / 2;
        if (valueOf(m_hull[mid], b) > valueOf(m_hull[mid + 1], b))
            hi = mid;
        else
            lo = mid + 1;
    }
    return m_hull[lo];
}

std::uint64_t UpperEnvelope::valueAt(std::int64_t batch) const noexcept
{
    if (m_hull.empty())
        return 0;
    const SignedWide v = valueOf(highestAt(batch), batch);
    return v > static_cast<SignedWide>(std::numeric_limits<std::uint64_t>::max())
        ? std::numeric_limits<std::uint64_t>::max()
        : static_cast<std::uint64_t>(v);
}

std::int64_t UpperEnvelope::largestBatchWithin(std::uint64_t capacity, std::int64_t limit) const noexcept
{
    // Every line must stay within the capacity: B <= (capacity - fixed) / perSample for each.
    SignedWide best = limit;
    for (const Line& l : m_hull) {
        if (valueOf(l, 1) > static_cast<SignedWide>(capacity))
            return 0;
        if (l.perSample > 0)
            best = std::min<SignedWide>(best, (static_cast<SignedWide>(capacity) - l.fixed) / l.perSample);
    }
    return static_cast<std::int64_t>(best);
}

} // namespace headroom

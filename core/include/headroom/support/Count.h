#pragma once

#include <cstdint>
#include <limits>

namespace headroom {

/// An element or byte count whose arithmetic never wraps: an overflowing operation yields an
/// "overflowed" value that stays overflowed through later arithmetic, so a layer kind can write
/// plain formulas and the analysis reports one clear error at the end.
class Count final
{
public:
    constexpr Count() noexcept = default;
    constexpr Count(std::uint64_t n) noexcept
        : m_value { n }
    {
    } // NOLINT: implicit from literals is the point
    [[nodiscard]] static constexpr Count overflowed() noexcept
    {
        Count c;
        c.m_overflow = true;
        return c;
    }
    /// A non-negative signed value; a negative one is treated as an overflow (an impossible size).
    [[nodiscard]] static constexpr Count fromSigned(std::int64_t n) noexcept
    {
        return n < 0 ? overflowed() : Count { static_cast<std::uint64_t>(n) };
    }

    [[nodiscard]] constexpr bool isOverflow() const noexcept { return m_overflow; }
    [[nodiscard]] constexpr std::uint64_t value() const noexcept { return m_overflow ? 0 : m_value; }

    friend constexpr Count operator+(Count a, Count b) noexcept
    {
        Count r;
        r.m_overflow
            = a.m_overflow || b.m_overflow || __builtin_add_overflow(a.m_value, b.m_value, &r.m_value);
        return r;
    }
    friend constexpr Count operator*(Count a, Count b) noexcept
    {
        Count r;
        r.m_overflow
            = a.m_overflow || b.m_overflow || __builtin_mul_overflow(a.m_value, b.m_value, &r.m_value);
        return r;
    }
    constexpr Count& operator+=(Count o) noexcept { return *this = *this + o; }
    constexpr Count& operator*=(Count o) noexcept { return *this = *this * o; }
    friend constexpr bool operator==(Count, Count) = default;

private:
    std::uint64_t m_value = 0;
    bool m_overflow = false;
};

constexpr std::uint64_t kMiB = 1024ULL * 1024ULL;
constexpr std::uint64_t kGiB = 1024ULL * kMiB;

} // namespace headroom

#pragma once

#include "headroom/support/Count.h"

#include <cstdint>
#include <string>
#include <vector>

namespace headroom {

/// The shape of one sample's tensor, without the batch axis (PyTorch order, channels first).
struct Shape final
{
    std::vector<std::int64_t> dims;

    [[nodiscard]] std::size_t rank() const noexcept { return dims.size(); }
    /// Product of the dimensions (1 for a scalar); overflowed if it does not fit 64 bits.
    [[nodiscard]] Count elements() const noexcept;
    /// "[3, 224, 224]"
    [[nodiscard]] std::string toString() const;
    /// "B x 3 x 224 x 224": the shape with the batch axis, as a user reads it; with `batchAxis` the
    /// batch axis at that place among all axes ("16 x B x 32" for a sequence-first tensor).
    [[nodiscard]] std::string toBatchedString(std::size_t batchAxis = 0) const;

    friend bool operator==(const Shape&, const Shape&) = default;
};

} // namespace headroom

#include "headroom/model/Shape.h"

namespace headroom {

Count Shape::elements() const noexcept
{
    Count n { 1 };
    for (const std::int64_t d : dims)
        n *= Count::fromSigned(d);
    return n;
}

std::string Shape::toString() const
{
    std::string s = "[";
    for (std::size_t i = 0; i < dims.size(); ++i) {
        if (i > 0)
            s += ", ";
        s += std::to_string(dims[i]);
    }
    return s + "]";
}

std::string Shape::toBatchedString(std::size_t batchAxis) const
{
    std::string s;
    for (std::size_t i = 0; i <= dims.size(); ++i) {
        if (i > 0)
            s += " x ";
        if (i == batchAxis)
            s += "B";
        else
            s += std::to_string(dims[i < batchAxis ? i : i - 1]);
    }
    return s;
}

} // namespace headroom

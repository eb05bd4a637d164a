#include "Layout.h"

#include <algorithm>
#include <limits>
#include <numeric>

namespace headroom::layers {

namespace {

/// Any batch size above 1 decides the same views: the batch axis's stride does not depend on it.
constexpr std::int64_t kProbeBatch = 2;

/// Products of sizes and strides saturate instead of overflowing: a tensor that large is reported by
/// the analysis (its byte count overflows) whatever layout it is given here.
std::int64_t mul(std::int64_t a, std::int64_t b)
{
    std::int64_t r = 0;
    return __builtin_mul_overflow(a, b, &r) ? std::numeric_limits<std::int64_t>::max() : r;
}

std::vector<std::int64_t> batched(const Shape& shape)
{
    std::vector<std::int64_t> dims{kProbeBatch};
    dims.insert(dims.end(), shape.dims.begin(), shape.dims.end());
    return dims;
}

/// c10's compute_contiguous: row-major strides, size-1 axes ignored.
bool isRowMajor(const std::vector<std::int64_t>& sizes, const Strides& strides)
{
    std::int64_t expected = 1;
    for (std::size_t d = sizes.size(); d-- > 0;) {
        if (sizes[d] == 1)
            continue;
        if (strides[d] != expected)
            return false;
        expected = mul(expected, sizes[d]);
    }
    return true;
}

/// ATen's computeStride_impl (aten/src/ATen/TensorUtils.cpp): walks the old axes from the innermost,
/// grouping axes that are contiguous with each other into chunks, and lays the new axes over each
/// chunk; a new axis that would straddle two chunks needs a copy.
std::optional<Strides> computeStride(const std::vector<std::int64_t>& oldShape, const Strides& oldStrides,
                                     const std::vector<std::int64_t>& newShape)
{
    Strides newStrides(newShape.size(), 0);
    auto viewD = static_cast<std::ptrdiff_t>(newShape.size()) - 1;
    std::int64_t chunkBaseStride = oldStrides.back();
    std::int64_t tensorNumel = 1;
    std::int64_t viewNumel = 1;
    for (auto tensorD = static_cast<std::ptrdiff_t>(oldShape.size()) - 1; tensorD >= 0; --tensorD) {
        const auto t = static_cast<std::size_t>(tensorD);
        tensorNumel = mul(tensorNumel, oldShape[t]);
        if (tensorD == 0 || (oldShape[t - 1] != 1 && oldStrides[t - 1] != mul(tensorNumel, chunkBaseStride))) {
            while (viewD >= 0
                   && (viewNumel < tensorNumel || newShape[static_cast<std::size_t>(viewD)] == 1)) {
                newStrides[static_cast<std::size_t>(viewD)] = mul(viewNumel, chunkBaseStride);
                viewNumel = mul(viewNumel, newShape[static_cast<std::size_t>(viewD)]);
                --viewD;
            }
            if (viewNumel != tensorNumel)
                return std::nullopt;
            if (tensorD > 0) {
                chunkBaseStride = oldStrides[t - 1];
                tensorNumel = 1;
                viewNumel = 1;
            }
        }
    }
    if (viewD != -1)
        return std::nullopt;
    return newStrides;
}

/// Strides that make every axis its own chunk: an unknown layout, where only splitting axes is a view.
Strides unmergeable(const std::vector<std::int64_t>& sizes)
{
    Strides strides(sizes.size(), 1);
    for (std::size_t d = sizes.size() - 1; d-- > 0;) {
        const std::int64_t contiguous = mul(strides[d + 1], sizes[d + 1]);
        strides[d] = contiguous == std::numeric_limits<std::int64_t>::max() ? contiguous - 1 : contiguous + 1;
    }
    return strides;
}

} // namespace

Strides contiguousStrides(const Shape& shape)
{
    const auto sizes = batched(shape);
    Strides strides(sizes.size(), 1);
    for (std::size_t d = sizes.size() - 1; d-- > 0;)
        strides[d] = mul(strides[d + 1], sizes[d + 1]);
    return strides;
}

std::optional<Strides> stridesOf(const TensorInfo& t)
{
    if (t.contiguous)
        return contiguousStrides(t.shape);
    if (t.strides.size() == t.shape.rank() + 1)
        return t.strides;
    return std::nullopt;
}

TensorInfo stridedTensor(Shape shape, DType dtype, Strides strides)
{
    TensorInfo t{std::move(shape), dtype};
    if (!isRowMajor(batched(t.shape), strides)) {
        t.contiguous = false;
        t.strides = std::move(strides);
    }
    return t;
}

TensorInfo contiguousTensor(Shape shape, DType dtype)
{
    return TensorInfo{std::move(shape), dtype};
}

std::optional<Strides> viewStrides(const TensorInfo& t, const std::vector<std::int64_t>& batchedShape)
{
    const auto sizes = batched(t.shape);
    const auto strides = stridesOf(t);
    return computeStride(sizes, strides ? *strides : unmergeable(sizes), batchedShape);
}

Reshaped reshaped(const TensorInfo& in, const Shape& shape)
{
    const auto strides = viewStrides(in, batched(shape));
    if (!strides)
        return Reshaped{contiguousTensor(shape, in.dtype), false};
    if (!stridesOf(in)) { // a view of an unknown layout keeps it unknown
        TensorInfo out{shape, in.dtype};
        out.contiguous = false;
        return Reshaped{out, true};
    }
    return Reshaped{stridedTensor(shape, in.dtype, *strides), true};
}

bool mergesWithBatchAsView(const TensorInfo& t, std::size_t axes)
{
    if (t.contiguous || axes == 0)
        return true;
    const auto& dims = t.shape.dims;
    std::vector<std::int64_t> merged{std::accumulate(dims.begin(), dims.begin() + static_cast<std::ptrdiff_t>(axes),
                                                     kProbeBatch, mul)};
    merged.insert(merged.end(), dims.begin() + static_cast<std::ptrdiff_t>(axes), dims.end());
    return viewStrides(t, merged).has_value();
}

bool foldsAsView(const TensorInfo& t)
{
    return t.shape.rank() < 2 || mergesWithBatchAsView(t, t.shape.rank() - 1);
}

TensorInfo elementwiseResult(const TensorInfo& like, Shape shape, DType dtype)
{
    if (like.contiguous || shape != like.shape)
        return contiguousTensor(std::move(shape), dtype);
    const auto strides = stridesOf(like);
    if (!strides) {
        TensorInfo out{std::move(shape), dtype};
        out.contiguous = false;
        return out;
    }
    if (std::find(strides->begin(), strides->end(), 0) != strides->end())
        return contiguousTensor(std::move(shape), dtype);
    // Dense, innermost axis = the one with the smallest stride (stable for equal strides).
    const auto sizes = batched(shape);
    std::vector<std::size_t> order(sizes.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](auto a, auto b) { return (*strides)[a] > (*strides)[b]; });
    Strides dense(sizes.size(), 1);
    std::int64_t step = 1;
    for (std::size_t i = order.size(); i-- > 0;) {
        dense[order[i]] = step;
        step = mul(step, sizes[order[i]]);
    }
    return stridedTensor(std::move(shape), dtype, std::move(dense));
}

std::optional<std::size_t> featureAxis(std::int64_t dim, std::size_t rank)
{
    const auto batchedRank = static_cast<std::int64_t>(rank) + 1;
    if (dim < 0)
        dim += batchedRank;
    if (dim < 1 || dim >= batchedRank)
        return std::nullopt;
    return static_cast<std::size_t>(dim - 1);
}

} // namespace headroom::layers

#include "Layout.h"

#include <algorithm>
#include <limits>
#include <numeric>

namespace headroom::layers {

namespace {

/// The batch size strides are computed with. A batch-first tensor's strides do not depend on it; a
/// sequence-first one's outer axes do, and a prime far from usual sizes keeps their ratios from
/// matching a per-sample axis's size by accident (which would make a copy look like a view).
constexpr std::int64_t kProbeBatch = 1009;

/// Products of sizes and strides saturate instead of overflowing: a tensor that large is reported by
/// the analysis (its byte count overflows) whatever layout it is given here.
std::int64_t mul(std::int64_t a, std::int64_t b)
{
    std::int64_t r = 0;
    return __builtin_mul_overflow(a, b, &r) ? std::numeric_limits<std::int64_t>::max() : r;
}

std::vector<std::int64_t> batched(const Shape& shape, std::size_t batchAxis = 0)
{
    std::vector<std::int64_t> dims = shape.dims;
    dims.insert(dims.begin() + static_cast<std::ptrdiff_t>(std::min(batchAxis, dims.size())), kProbeBatch);
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
        if (tensorD == 0
            || (oldShape[t - 1] != 1 && oldStrides[t - 1] != mul(tensorNumel, chunkBaseStride))) {
            while (
                viewD >= 0 && (viewNumel < tensorNumel || newShape[static_cast<std::size_t>(viewD)] == 1)) {
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

Strides contiguousStrides(const Shape& shape, std::size_t batchAxis)
{
    const auto sizes = batched(shape, batchAxis);
    Strides strides(sizes.size(), 1);
    for (std::size_t d = sizes.size() - 1; d-- > 0;)
        strides[d] = mul(strides[d + 1], sizes[d + 1]);
    return strides;
}

std::optional<Strides> stridesOf(const TensorInfo& t)
{
    if (t.contiguous)
        return contiguousStrides(t.shape, t.batchAxis);
    if (t.strides.size() == t.shape.rank() + 1)
        return t.strides;
    return std::nullopt;
}

TensorInfo stridedTensor(Shape shape, DType dtype, Strides strides, std::size_t batchAxis)
{
    TensorInfo t { std::move(shape), dtype };
    t.batchAxis = batchAxis;
    if (!isRowMajor(batched(t.shape, batchAxis), strides)) {
        t.contiguous = false;
        t.strides = std::move(strides);
    }
    return t;
}

TensorInfo contiguousTensor(Shape shape, DType dtype, std::size_t batchAxis)
{
    TensorInfo t { std::move(shape), dtype };
    t.batchAxis = batchAxis;
    return t;
}

std::optional<Strides> viewStrides(const TensorInfo& t, const std::vector<std::int64_t>& batchedShape)
{
    const auto sizes = batched(t.shape, t.batchAxis);
    const auto strides = stridesOf(t);
    return computeStride(sizes, strides ? *strides : unmergeable(sizes), batchedShape);
}

Reshaped reshaped(const TensorInfo& in, const Shape& shape, std::size_t batchAxis)
{
    const auto strides = viewStrides(in, batched(shape, batchAxis));
    if (!strides)
        return Reshaped { contiguousTensor(shape, in.dtype, batchAxis), false };
    if (!stridesOf(in)) { // a view of an unknown layout keeps it unknown
        TensorInfo out { shape, in.dtype };
        out.contiguous = false;
        out.batchAxis = batchAxis;
        return Reshaped { out, true };
    }
    return Reshaped { stridedTensor(shape, in.dtype, *strides, batchAxis), true };
}

bool mergesWithBatchAsView(const TensorInfo& t, std::size_t axes)
{
    if (t.contiguous || axes == 0)
        return true;
    const auto& dims = t.shape.dims;
    std::vector<std::int64_t> merged { std::accumulate(
        dims.begin(), dims.begin() + static_cast<std::ptrdiff_t>(axes), kProbeBatch, mul) };
    merged.insert(merged.end(), dims.begin() + static_cast<std::ptrdiff_t>(axes), dims.end());
    return viewStrides(t, merged).has_value();
}

bool foldsAsView(const TensorInfo& t)
{
    if (t.batchAxis == 0)
        return t.shape.rank() < 2 || mergesWithBatchAsView(t, t.shape.rank() - 1);
    if (t.contiguous)
        return true;
    const auto sizes = batched(t.shape, t.batchAxis);
    const std::vector<std::int64_t> matrix {
        std::accumulate(sizes.begin(), sizes.end() - 1, std::int64_t { 1 }, mul), sizes.back()
    };
    return viewStrides(t, matrix).has_value();
}

TensorInfo elementwiseResult(const TensorInfo& like, Shape shape, DType dtype)
{
    if (like.contiguous || shape != like.shape)
        return contiguousTensor(std::move(shape), dtype, like.batchAxis);
    const auto strides = stridesOf(like);
    if (!strides) {
        TensorInfo out { std::move(shape), dtype };
        out.contiguous = false;
        return out;
    }
    if (std::find(strides->begin(), strides->end(), 0) != strides->end())
        return contiguousTensor(std::move(shape), dtype, like.batchAxis);
    // Dense, innermost axis = the one with the smallest stride (stable for equal strides).
    const auto sizes = batched(shape, like.batchAxis);
    std::vector<std::size_t> order(sizes.size());
    std::iota(order.begin(), order.end(), std::size_t { 0 });
    std::stable_sort(
        order.begin(), order.end(), [&](auto a, auto b) { return (*strides)[a] > (*strides)[b]; });
    Strides dense(sizes.size(), 1);
    std::int64_t step = 1;
    for (std::size_t i = order.size(); i-- > 0;) {
        dense[order[i]] = step;
        step = mul(step, sizes[order[i]]);
    }
    return stridedTensor(std::move(shape), dtype, std::move(dense), like.batchAxis);
}

std::optional<std::size_t> featureAxis(std::int64_t dim, std::size_t rank, std::size_t batchAxis)
{
    const auto batchedRank = static_cast<std::int64_t>(rank) + 1;
    if (dim < 0)
        dim += batchedRank;
    const auto batch = static_cast<std::int64_t>(batchAxis);
    if (dim < 0 || dim >= batchedRank || dim == batch)
        return std::nullopt;
    return static_cast<std::size_t>(dim < batch ? dim : dim - 1);
}

std::string layoutText(const TensorInfo& t)
{
    return t.shape.toBatchedString(t.batchAxis) + " (the batch axis at position "
        + std::to_string(t.batchAxis) + ")";
}

} // namespace headroom::layers

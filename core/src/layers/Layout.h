#pragma once

// Memory layouts of the tensors flowing between layers, as PyTorch decides them: which reshapes are
// views and which copy (ATen's computeStride, the rule behind Tensor.view and Tensor.reshape), when a
// tensor is contiguous (c10's compute_contiguous), and the layout an element-wise op gives its result
// (TensorIterator allocates it dense, in its input's axis order). Strides are of the batched tensor,
// in its axis order with the batch axis at TensorInfo::batchAxis (first for most tensors). The batch is
// taken as kProbeBatch (Layout.cpp): it is larger than 1, and a batch-first tensor's strides do not
// depend on it; a sequence-first tensor's outer strides do, and only their ratios decide views.

#include "headroom/layers/LayerKind.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace headroom::layers {

using Strides = std::vector<std::int64_t>;

/// The strides of a contiguous batched tensor of per-sample shape `shape`, its batch axis at `batchAxis`.
[[nodiscard]] Strides contiguousStrides(const Shape& shape, std::size_t batchAxis = 0);
/// The batched strides of `t`; nullopt when its layout is not a fixed pattern (a batch-first RNN output).
[[nodiscard]] std::optional<Strides> stridesOf(const TensorInfo& t);
/// A tensor with the given batched strides; contiguous (no strides stored) when they are row-major.
[[nodiscard]] TensorInfo stridedTensor(Shape shape, DType dtype, Strides strides, std::size_t batchAxis = 0);
/// A contiguous tensor.
[[nodiscard]] TensorInfo contiguousTensor(Shape shape, DType dtype, std::size_t batchAxis = 0);

/// ATen's computeStride: the strides of `t` viewed with batched shape `batchedShape` (its first entry
/// the batch axis, or the batch merged with the leading axes), or nullopt when no view can express it
/// and reshape copies. `t`'s own batch axis is where t.batchAxis says.
[[nodiscard]] std::optional<Strides> viewStrides(
    const TensorInfo& t, const std::vector<std::int64_t>& batchedShape);

/// Tensor.reshape of the per-sample axes to `shape` (same element count), the result's batch axis at
/// `batchAxis`: a view of `in` when its layout allows one, otherwise a contiguous copy.
struct Reshaped
{
    TensorInfo output;
    bool view = true;
};
[[nodiscard]] Reshaped reshaped(const TensorInfo& in, const Shape& shape, std::size_t batchAxis = 0);

/// Whether merging the batch axis with the first `axes` per-sample axes of `t` (leaving the others) is a
/// view (no copy): bmm's [P, n, k] operands, matmul's fold.
[[nodiscard]] bool mergesWithBatchAsView(const TensorInfo& t, std::size_t axes);
/// Whether matmul's fold of `t` into a matrix (every axis but the last merged with the batch, as
/// at::linear and at::matmul do for inputs of three or more dimensions) is a view (no copy), wherever
/// the batch axis is among the merged ones.
[[nodiscard]] bool foldsAsView(const TensorInfo& t);

/// The result of an element-wise op whose first input is `like`, with the result's shape and dtype:
/// TensorIterator allocates it dense in `like`'s axis order (a permuted input gives a permuted result,
/// a slice a dense one); a contiguous input or a broadcast result is contiguous; an unknown layout
/// stays unknown.
[[nodiscard]] TensorInfo elementwiseResult(const TensorInfo& like, Shape shape, DType dtype);

/// The per-sample axis a dim argument names, counting the whole tensor's rank + 1 axes (the batch axis
/// at `batchAxis`) and negative values from the end: nullopt when out of range or the batch axis.
[[nodiscard]] std::optional<std::size_t> featureAxis(
    std::int64_t dim, std::size_t rank, std::size_t batchAxis = 0);
/// The whole-tensor axis of per-sample axis `axis` when the batch axis is at `batchAxis`.
[[nodiscard]] constexpr std::size_t wholeAxis(std::size_t axis, std::size_t batchAxis) noexcept
{
    return axis < batchAxis ? axis : axis + 1;
}
/// "16 x B x 32 (the batch axis at position 1)": a tensor's layout for messages.
[[nodiscard]] std::string layoutText(const TensorInfo& t);

} // namespace headroom::layers

#pragma once

// Memory layouts of the tensors flowing between layers, as PyTorch decides them: which reshapes are
// views and which copy (ATen's computeStride, the rule behind Tensor.view and Tensor.reshape), when a
// tensor is contiguous (c10's compute_contiguous), and the layout an element-wise op gives its result
// (TensorIterator allocates it dense, in its input's axis order). Strides are of the batched tensor,
// batch axis first; the batch axis is always outermost and larger than 1.

#include "headroom/LayerKind.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace headroom::layers {

using Strides = std::vector<std::int64_t>;

/// The strides of a contiguous batched tensor of per-sample shape `shape`.
[[nodiscard]] Strides contiguousStrides(const Shape& shape);
/// The batched strides of `t`; nullopt when its layout is not a fixed pattern (a batch-first RNN output).
[[nodiscard]] std::optional<Strides> stridesOf(const TensorInfo& t);
/// A tensor with the given batched strides; contiguous (no strides stored) when they are row-major.
[[nodiscard]] TensorInfo stridedTensor(Shape shape, DType dtype, Strides strides);
/// A contiguous tensor.
[[nodiscard]] TensorInfo contiguousTensor(Shape shape, DType dtype);

/// ATen's computeStride: the strides of `t` viewed with batched shape `batchedShape` (its first entry
/// the batch axis, or the batch merged with the leading axes), or nullopt when no view can express it
/// and reshape copies.
[[nodiscard]] std::optional<Strides> viewStrides(const TensorInfo& t, const std::vector<std::int64_t>& batchedShape);

/// Tensor.reshape of the per-sample axes to `shape` (same element count): a view of `in` when its
/// layout allows one, otherwise a contiguous copy.
struct Reshaped {
    TensorInfo output;
    bool view = true;
};
[[nodiscard]] Reshaped reshaped(const TensorInfo& in, const Shape& shape);

/// Whether merging the batch axis with the first `axes` per-sample axes of `t` (leaving the others) is a
/// view (no copy): bmm's [P, n, k] operands, matmul's fold.
[[nodiscard]] bool mergesWithBatchAsView(const TensorInfo& t, std::size_t axes);
/// Whether matmul's fold of `t` into a matrix (every axis but the last merged with the batch, as
/// at::linear and at::matmul do for inputs of three or more dimensions) is a view (no copy).
[[nodiscard]] bool foldsAsView(const TensorInfo& t);

/// The result of an element-wise op whose first input is `like`, with the result's shape and dtype:
/// TensorIterator allocates it dense in `like`'s axis order (a permuted input gives a permuted result,
/// a slice a dense one); a contiguous input or a broadcast result is contiguous; an unknown layout
/// stays unknown.
[[nodiscard]] TensorInfo elementwiseResult(const TensorInfo& like, Shape shape, DType dtype);

/// The axes of a batched tensor of per-sample rank `rank` a dim argument names, counting the batch
/// axis as 0 and negative values from the end: nullopt when out of range or the batch axis.
[[nodiscard]] std::optional<std::size_t> featureAxis(std::int64_t dim, std::size_t rank);

} // namespace headroom::layers

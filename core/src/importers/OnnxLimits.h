#pragma once

// The limits the ONNX importer holds every file to (docs/onnx-import.md, "What ONNX's shape inference is
// given"; docs/cli.md lists them with the other input limits).

#include <cstddef>
#include <cstdint>

namespace headroom::onnximport {

/// The most axes a tensor may have: PyTorch's CUDA kernels index at most 25 dimensions
/// (aten/src/ATen/cuda/detail/OffsetCalculator.cuh, MAX_DIMS = 25: "tensor has too many (>25) dims").
inline constexpr std::size_t kMaxRank = 25;
/// The largest size of one axis (as the model file, docs/model-format.md), and the most elements of one
/// stored tensor (4 TB of float32).
inline constexpr std::int64_t kMaxDimension = 1LL << 40;
/// Sizes ONNX's inference divides by or multiplies (strides, dilations, kernel_shape, group, blocksize,
/// size): at most 2^20, so that blocksize^2 and a kernel's extent stay far from 64-bit overflow.
inline constexpr std::int64_t kMaxSizeAttribute = 1LL << 20;
/// Any other integer attribute: at most 2^40 either way (Slice's starts and ends, which torch writes as
/// INT64_MAX for "to the end", and Constant's values are exempt).
inline constexpr std::int64_t kMaxIntAttribute = 1LL << 40;
/// The most values in a list attribute (pads has two per axis); Constant's values and Split's sizes
/// are exempt.
inline constexpr std::size_t kMaxAttributeList = 4 * kMaxRank;

} // namespace headroom::onnximport

#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace headroom {

/// Tensor element types, named as in PyTorch.
enum class DType : std::uint8_t { Float32, Float16, BFloat16, Float64, Int64, Int32, UInt8, Bool };

/// Bytes per element (torch.Tensor.element_size()).
[[nodiscard]] constexpr std::uint64_t elementSize(DType t) noexcept
{
    switch (t) {
    case DType::Float64:
    case DType::Int64:
        return 8;
    case DType::Float32:
    case DType::Int32:
        return 4;
    case DType::Float16:
    case DType::BFloat16:
        return 2;
    case DType::UInt8:
    case DType::Bool:
        return 1;
    }
    return 0;
}

[[nodiscard]] constexpr bool isFloatingPoint(DType t) noexcept
{
    return t == DType::Float32 || t == DType::Float16 || t == DType::BFloat16 || t == DType::Float64;
}

/// The name used in model files and reports: "float32", "float16", "bfloat16", "int64", ...
[[nodiscard]] std::string_view dtypeName(DType t) noexcept;
/// Parses a model-file dtype name; accepts PyTorch's aliases ("float", "half", "long").
[[nodiscard]] std::optional<DType> parseDType(std::string_view name) noexcept;

} // namespace headroom

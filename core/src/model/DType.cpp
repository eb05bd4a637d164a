#include "headroom/model/DType.h"

#include <array>
#include <utility>

namespace headroom {

namespace {
constexpr std::array<std::pair<std::string_view, DType>, 14> kDTypeNames { {
    { "float32", DType::Float32 },
    { "float16", DType::Float16 },
    { "bfloat16", DType::BFloat16 },
    { "float64", DType::Float64 },
    { "int64", DType::Int64 },
    { "int32", DType::Int32 },
    { "uint8", DType::UInt8 },
    { "bool", DType::Bool },
    { "float", DType::Float32 },
    { "half", DType::Float16 },
    { "double", DType::Float64 },
    { "long", DType::Int64 },
    { "int", DType::Int32 },
    { "bf16", DType::BFloat16 },
} };
} // namespace

std::string_view dtypeName(DType t) noexcept
{
    for (const auto& [name, type] : kDTypeNames) {
        if (type == t)
            return name;
    }
    return "unknown";
}

std::optional<DType> parseDType(std::string_view name) noexcept
{
    for (const auto& [n, type] : kDTypeNames) {
        if (n == name)
            return type;
    }
    return std::nullopt;
}

} // namespace headroom

#include "headroom/DType.h"
#include "headroom/Network.h"
#include "headroom/Precision.h"
#include "headroom/Shape.h"

#include <array>
#include <utility>

namespace headroom {

namespace {
constexpr std::array<std::pair<std::string_view, DType>, 14> kDTypeNames{{
    {"float32", DType::Float32}, {"float16", DType::Float16}, {"bfloat16", DType::BFloat16},
    {"float64", DType::Float64}, {"int64", DType::Int64},     {"int32", DType::Int32},
    {"uint8", DType::UInt8},     {"bool", DType::Bool},       {"float", DType::Float32},
    {"half", DType::Float16},    {"double", DType::Float64},  {"long", DType::Int64},
    {"int", DType::Int32},       {"bf16", DType::BFloat16},
}};

constexpr std::array<std::pair<std::string_view, Precision>, 5> kPrecisionNames{{
    {"fp32", Precision::Fp32},
    {"amp-fp16", Precision::AmpFp16},
    {"amp-bf16", Precision::AmpBf16},
    {"fp16", Precision::Fp16},
    {"bf16", Precision::Bf16},
}};
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

Count Shape::elements() const noexcept
{
    Count n{1};
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

std::string Shape::toBatchedString() const
{
    std::string s = "B";
    for (const std::int64_t d : dims)
        s += " x " + std::to_string(d);
    return s;
}

std::string_view lossName(Loss loss) noexcept
{
    switch (loss) {
    case Loss::CrossEntropy: return "cross_entropy";
    case Loss::Mse: return "mse";
    case Loss::L1: return "l1";
    case Loss::Bce: return "bce";
    case Loss::None: return "none";
    }
    return "none";
}

std::span<const Loss> allLosses() noexcept
{
    static constexpr std::array kLosses{Loss::CrossEntropy, Loss::Mse, Loss::L1, Loss::Bce, Loss::None};
    return kLosses;
}

std::optional<Loss> parseLoss(std::string_view name) noexcept
{
    for (const Loss l : allLosses()) {
        if (lossName(l) == name)
            return l;
    }
    return std::nullopt;
}

std::string_view precisionName(Precision p) noexcept
{
    for (const auto& [name, value] : kPrecisionNames) {
        if (value == p)
            return name;
    }
    return "fp32";
}

std::string_view precisionLabel(Precision p) noexcept
{
    switch (p) {
    case Precision::Fp32: return "FP32";
    case Precision::AmpFp16: return "Mixed precision (FP16 autocast)";
    case Precision::AmpBf16: return "Mixed precision (BF16 autocast)";
    case Precision::Fp16: return "Pure FP16 (FP32 master weights)";
    case Precision::Bf16: return "Pure BF16 (FP32 master weights)";
    }
    return "FP32";
}

std::optional<Precision> parsePrecision(std::string_view name) noexcept
{
    for (const auto& [n, value] : kPrecisionNames) {
        if (n == name)
            return value;
    }
    return std::nullopt;
}

} // namespace headroom

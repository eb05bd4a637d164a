#include "headroom/setup/Precision.h"

#include <array>
#include <utility>

namespace headroom {

namespace {
constexpr std::array<std::pair<std::string_view, Precision>, 5> kPrecisionNames { {
    { "fp32", Precision::Fp32 },
    { "amp-fp16", Precision::AmpFp16 },
    { "amp-bf16", Precision::AmpBf16 },
    { "fp16", Precision::Fp16 },
    { "bf16", Precision::Bf16 },
} };
} // namespace

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
    case Precision::Fp32:
        return "FP32";
    case Precision::AmpFp16:
        return "Mixed precision (FP16 autocast)";
    case Precision::AmpBf16:
        return "Mixed precision (BF16 autocast)";
    case Precision::Fp16:
        return "Pure FP16 (FP32 master weights)";
    case Precision::Bf16:
        return "Pure BF16 (FP32 master weights)";
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

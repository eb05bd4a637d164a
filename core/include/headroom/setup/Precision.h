#pragma once

#include "headroom/model/DType.h"

#include <optional>
#include <string_view>

namespace headroom {

/// How training stores and computes tensors.
enum class Precision {
    Fp32, ///< everything float32
    AmpFp16, ///< torch.autocast(float16): fp32 weights, gradients, optimizer state; half activations where
             ///< autocast casts
    AmpBf16, ///< torch.autocast(bfloat16): as AmpFp16 with bfloat16
    Fp16, ///< pure float16 model (model.half()) with an fp32 master copy of the weights in the optimizer
    Bf16, ///< pure bfloat16 model with an fp32 master copy of the weights in the optimizer
};

[[nodiscard]] std::string_view precisionName(Precision p) noexcept; ///< "fp32", "amp-fp16", ...
[[nodiscard]] std::string_view precisionLabel(Precision p) noexcept; ///< "Mixed precision (fp16)", ...
[[nodiscard]] std::optional<Precision> parsePrecision(std::string_view name) noexcept;

[[nodiscard]] constexpr bool isAutocast(Precision p) noexcept
{
    return p == Precision::AmpFp16 || p == Precision::AmpBf16;
}
[[nodiscard]] constexpr bool isPureHalf(Precision p) noexcept
{
    return p == Precision::Fp16 || p == Precision::Bf16;
}
/// The 16-bit type of a mixed or pure half policy; Float32 for Fp32.
[[nodiscard]] constexpr DType halfType(Precision p) noexcept
{
    switch (p) {
    case Precision::AmpFp16:
    case Precision::Fp16:
        return DType::Float16;
    case Precision::AmpBf16:
    case Precision::Bf16:
        return DType::BFloat16;
    case Precision::Fp32:
        return DType::Float32;
    }
    return DType::Float32;
}
/// The dtype parameters are stored in (float16/bfloat16 for pure half, else float32).
[[nodiscard]] constexpr DType parameterType(Precision p) noexcept
{
    return isPureHalf(p) ? halfType(p) : DType::Float32;
}

} // namespace headroom

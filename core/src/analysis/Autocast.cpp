// Stage: autocast (see Autocast.h).
#include "Autocast.h"

namespace headroom::analysis {

std::optional<DType> autocastTarget(Precision precision, AutocastPolicy policy, DType dtype)
{
    if (!isAutocast(precision) || !isFloatingPoint(dtype))
        return std::nullopt;
    if (policy == AutocastPolicy::LowerPrecision && dtype != halfType(precision))
        return halfType(precision);
    if (policy == AutocastPolicy::Float32 && dtype != DType::Float32)
        return DType::Float32;
    return std::nullopt;
}

Count autocastCopyBytes(Precision precision, AutocastPolicy policy, const LayerOutcome& outcome,
    const std::set<std::string>& nf4Weights, std::optional<Count> tiedWeight)
{
    Count bytes;
    if (!isAutocast(precision))
        return bytes;
    const Count half { elementSize(halfType(precision)) };
    for (const auto& p : outcome.params) {
        const bool cast = p.role == ParamTensor::Role::Parameter
            && (policy == AutocastPolicy::LowerPrecision || p.castByAutocast) && !nf4Weights.contains(p.name);
        if (cast)
            bytes += p.elements * half;
    }
    if (tiedWeight && policy == AutocastPolicy::LowerPrecision)
        bytes += *tiedWeight * half;
    return bytes;
}

CopyRelease copyRelease(bool recorded, bool anyInputGrad, bool convolution, bool weightTrains)
{
    const bool copySaved = recorded && (anyInputGrad || convolution);
    return copySaved   ? CopyRelease::AfterBackward
        : weightTrains ? CopyRelease::AfterForward
                       : CopyRelease::AfterForwardOp;
}

} // namespace headroom::analysis

#pragma once

// Stage: autocast (torch.autocast under the mixed precisions), for each layer the layer stage infers.
// Reads the precision, the kind's autocast policy and the layer's parameters; says which inputs the
// layer sees cast, how many bytes of half weight copies it makes and when the step frees them. Writes
// nothing: the layer stage records what it says.

#include "headroom/analysis/StepGraph.h"
#include "headroom/layers/LayerKind.h"
#include "headroom/setup/Precision.h"

#include <optional>
#include <set>
#include <string>

namespace headroom::analysis {

/// The dtype autocast casts a `dtype` input of an op with `policy` to; nullopt when it stays.
[[nodiscard]] std::optional<DType> autocastTarget(Precision precision, AutocastPolicy policy, DType dtype);

/// Under autocast: the half copy of each weight a conv/linear (or a Custom kind's castByAutocast
/// parameter) uses; a tied weight (`tiedWeight` elements) is cast again (autocast casts the shared
/// weight all the same). QLoRA's NF4 weights are dequantised on the fly instead.
[[nodiscard]] Count autocastCopyBytes(Precision precision, AutocastPolicy policy, const LayerOutcome& outcome,
    const std::set<std::string>& nf4Weights, std::optional<Count> tiedWeight);

/// When a layer's half weight copy is freed: saved for backward when backward computes the input's
/// gradient from it (convolution's single derivative formula, derivatives.yaml, saves its weight
/// whatever requires grad; addmm only then); else in the cast cache while the weight trains; else
/// when the layer returns.
[[nodiscard]] CopyRelease copyRelease(bool recorded, bool anyInputGrad, bool convolution, bool weightTrains);

} // namespace headroom::analysis

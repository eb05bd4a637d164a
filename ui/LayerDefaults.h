#pragma once

#include "headroom/LayerKind.h"
#include "headroom/Network.h"

#include <string>
#include <vector>

namespace headroom::ui {

/// Builds the spec of a newly added layer. Attributes with a default are left to it; required
/// attributes without one get a value that fits the layer it follows: channel and feature counts
/// are kept, kernels are 3 (2 for pooling windows), output sizes 1. A layer taking several inputs
/// gets the two layers before it (`recentOutputs`, nearest last).
[[nodiscard]] LayerSpec newLayerSpec(const LayerKind& kind, const TensorInfo* previousOutput,
                                     const std::vector<std::string>& recentOutputs);
/// A Repeat block holding one Identity layer, to be filled by dragging layers into it.
[[nodiscard]] LayerSpec newRepeatSpec();

} // namespace headroom::ui

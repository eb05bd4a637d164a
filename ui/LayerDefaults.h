#pragma once

#include "headroom/layers/LayerKind.h"
#include "headroom/model/Network.h"

#include <string>
#include <vector>

namespace headroom::ui {

/// Builds the spec of a newly added layer. Attributes with a default are left to it; required
/// attributes without one get a value that fits the layer it follows, as a network would start:
/// a convolution keeps a channel count of 64 or more (64 after an image's few channels) with a 3x3
/// kernel padded to keep the size ("same" for odd kernels: padding (k - 1) / 2 x dilation); a
/// Linear keeps up to 512 features (more are reduced to 512: after a Flatten of 25,088 a hidden
/// layer, not a 25,088-wide one); normalisations take the size they see; pooling windows are 2;
/// output sizes 1. A layer taking several inputs gets the two layers before it (`recentOutputs`,
/// nearest last).
[[nodiscard]] LayerSpec newLayerSpec(
    const LayerKind& kind, const TensorInfo* previousOutput, const std::vector<std::string>& recentOutputs);
/// A Repeat block holding one Identity layer, to be filled by dragging layers into it.
[[nodiscard]] LayerSpec newRepeatSpec();

} // namespace headroom::ui

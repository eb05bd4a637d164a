// Part of the per-layer stage: backward FLOPs (see BackwardFlops.h).
#include "BackwardFlops.h"

#include <algorithm>

namespace headroom::analysis {

// The layer's matrix products with weights (everything not split out below) cost their forward once for
// the input gradient when an input requires grad and once for the weight gradients when the weights
// train. The attention core's products of two activations cost one product per operand that requires
// grad: Q K^T gives dQ = dS K and dK = dS^T Q, P V gives dP = dO V^T (P requires grad when Q or K does)
// and dV = P^T dO; its softmax, like the layer's weight-free element-wise work, costs its forward once.
Count backwardFlops(const LayerOutcome& o, const std::vector<bool>& inputRequiresGrad, bool anyInputGrad,
    bool baseTrains, bool recorded)
{
    const auto requiresGrad = [&](std::size_t operand) {
        if (operand == AttentionCoreFlops::kMadeInside)
            return recorded;
        return static_cast<bool>(inputRequiresGrad[std::min(operand, inputRequiresGrad.size() - 1)]);
    };
    Count special = o.elementwiseFlopsPerSample;
    Count backward;
    if (recorded)
        backward += o.elementwiseFlopsPerSample;
    if (o.attentionCore) {
        const auto& core = *o.attentionCore;
        special += core.scores + core.values + core.softmax;
        const bool q = requiresGrad(core.q);
        const bool k = requiresGrad(core.k);
        const bool v = requiresGrad(core.v);
        const bool p = q || k;
        backward += core.scores * Count { (q ? 1U : 0U) + (k ? 1U : 0U) };
        backward += core.values * Count { (p ? 1U : 0U) + (v ? 1U : 0U) };
        if (p)
            backward += core.softmax;
    }
    const std::uint64_t total = o.forwardFlopsPerSample.value();
    const Count products { total > special.value() ? total - special.value() : 0 };
    if (anyInputGrad)
        backward += products; // input gradients
    if (baseTrains)
        backward += products; // weight gradients
    if (special.isOverflow() || o.forwardFlopsPerSample.isOverflow())
        return Count::overflowed();
    return backward;
}

} // namespace headroom::analysis

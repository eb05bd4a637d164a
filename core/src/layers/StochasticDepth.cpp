// Stochastic depth in training mode (torchvision.ops.StochasticDepth, Huang et al. 2016), which drops a
// residual branch for whole samples: torchvision/ops/stochastic_depth.py
//   noise = torch.empty([B, 1, ..., 1] for mode "row", [1, ..., 1] for "batch").bernoulli_(1 - p)
//   noise.div_(1 - p)        (when 1 - p > 0)
//   return input * noise
// The noise needs no gradient, so mul saves it alone (derivatives.yaml mul.Tensor: self's gradient
// needs `other`; `self` is saved only for other's gradient): one element of the input's dtype per sample
// ("row"), or one for the whole batch ("batch"). p = 0 returns the input itself.
#include "KindSupport.h"
#include "Kinds.h"
#include "Layout.h"

namespace headroom::layers {
namespace {

class StochasticDepthKind final : public DescribedKind
{
public:
    StochasticDepthKind()
        : DescribedKind("StochasticDepth", LayerCategory::Dropout,
            "Drops a residual branch for whole samples with probability p while training",
            { floatAttr("p", 0.1, "Probability of dropping a sample's branch", 0.0, 1.0),
                choiceAttr("mode", "row", { "row", "batch" },
                    "row: each sample on its own; batch: the whole batch at once") })
    {
    }

    [[nodiscard]] BatchAxisUse batchAxisUse() const override { return BatchAxisUse::Kept; }

    [[nodiscard]] Result<LayerOutcome> infer(const LayerContext& ctx) const override
    {
        const auto& in = ctx.in();
        if (!isFloatingPoint(in.dtype))
            return failure("needs a floating-point input");
        const double p = ctx.attrs.real("p");
        LayerOutcome o;
        o.outputAliasesInput = p == 0.0;
        o.output = o.outputAliasesInput ? in : elementwiseResult(in, in.shape, in.dtype);
        o.aliasedInputGradients = { p == 0.0 };
        if (p > 0.0) {
            const bool row = ctx.attrs.choice("mode") == "row";
            o.saved.push_back(
                SavedTensor::internal("noise", Count { row ? 1U : 0U }, in.dtype, Count { row ? 0U : 1U }));
            o.saved.back().madeWithoutGrad = true;
            o.forwardFlopsPerSample = in.shape.elements();
        }
        return o;
    }
};

} // namespace

std::unique_ptr<LayerKind> makeStochasticDepth()
{
    return std::make_unique<StochasticDepthKind>();
}

} // namespace headroom::layers

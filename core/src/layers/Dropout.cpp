// Dropout in training mode. On CUDA, native_dropout keeps a bool mask of the output's size
// (1 byte per element); p = 0 returns the input itself; p = 1 multiplies by a scalar zero.
#include "KindSupport.h"
#include "Kinds.h"
#include "Layout.h"

namespace headroom::layers {
namespace {

class DropoutKind final : public DescribedKind
{
public:
    DropoutKind()
        : DescribedKind("Dropout", LayerCategory::Dropout,
            "Zeroes elements with probability p while training",
            { floatAttr("p", 0.5, "Probability of zeroing an element", 0.0, 1.0),
                boolAttr("inplace", false, "Overwrites the input") })
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
        o.outputAliasesInput = p == 0.0 || ctx.attrs.flag("inplace");
        o.output = o.outputAliasesInput ? in : elementwiseResult(in, in.shape, in.dtype);
        o.aliasedInputGradients = { p == 0.0 }; // F.dropout(p=0) returns its input unchanged
        if (p > 0.0 && p < 1.0) {
            o.saved.push_back(SavedTensor::internal("mask", in.shape.elements(), DType::Bool));
            o.saved.back().madeWithoutGrad = true; // native_dropout returns it whether or not it is kept
        }
        o.forwardFlopsPerSample = in.shape.elements();
        return o;
    }
};

} // namespace

std::unique_ptr<LayerKind> makeDropout()
{
    return std::make_unique<DropoutKind>();
}

} // namespace headroom::layers

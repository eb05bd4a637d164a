// Dropout in training mode. On CUDA, F.dropout is native_dropout, which keeps a bool mask of the
// output's size (1 byte per element); inplace=True is dropout_, which is not fused
// (aten/src/ATen/native/Dropout.cpp: dropout_ -> _dropout<true> -> _dropout_impl: noise =
// at::empty_like(input).bernoulli_(1 - p).div_(1 - p); input.mul_(noise)) and keeps the noise, a tensor
// of the input's size and dtype (measured on an H100, PyTorch 2.11: [2, 8, 5, 5] float32 saves
// 1,600 bytes in place, a 400-byte bool mask otherwise). p = 0 returns the input itself; p = 1
// multiplies by a scalar zero.
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
        if (p > 0.0 && p < 1.0 && ctx.attrs.flag("inplace")) {
            // dropout_ never takes the fused kernel: _dropout_impl<inplace> draws a noise tensor like the
            // input (bernoulli_, div_ by 1 - p) and multiplies it in with mul_, which saves the noise.
            o.saved.push_back(SavedTensor::internal("noise", in.shape.elements(), in.dtype));
            o.saved.back().madeWithoutGrad = true;
        } else if (p > 0.0 && p < 1.0) {
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

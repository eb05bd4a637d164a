// Linear (torch.nn.Linear): y = x W^T + b on the last axis; saves its input for the weight gradient.
#include "KindSupport.h"
#include "Kinds.h"
#include "Layout.h"

namespace headroom::layers {
namespace {

class LinearKind final : public DescribedKind
{
public:
    LinearKind()
        : DescribedKind("Linear", LayerCategory::Linear, "Fully connected layer on the last axis",
            { inferredAttr("in_features", "Input features"),
                intAttr("out_features", nullptr, "Output features"),
                boolAttr("bias", true, "Adds a learnable bias") })
    {
    }

    [[nodiscard]] AutocastPolicy autocast() const override { return AutocastPolicy::LowerPrecision; }

    [[nodiscard]] BatchAxisUse batchAxisUse() const override { return BatchAxisUse::Kept; }

    [[nodiscard]] Result<LayerOutcome> infer(const LayerContext& ctx) const override
    {
        const auto& in = ctx.in();
        if (in.shape.rank() == 0)
            return failure("needs an input with at least one axis (features); flatten it first");
        if (!isFloatingPoint(in.dtype))
            return failure("needs a floating-point input but gets " + std::string(dtypeName(in.dtype))
                + " (token ids go through an Embedding first)");
        const std::int64_t inFeatures = in.shape.dims.back();
        if (auto e = checkInferred(ctx.attrs, "in_features", inFeatures, "features (its last axis)"))
            return *e;
        const std::int64_t outFeatures = ctx.attrs.integer("out_features");

        LayerOutcome o;
        o.output = contiguousTensor(in.shape, ctx.activationType());
        o.output.shape.dims.back() = outFeatures;
        o.params.push_back(parameter("weight", { outFeatures, inFeatures }));
        if (ctx.attrs.flag("bias"))
            o.params.push_back(parameter("bias", Count::fromSigned(outFeatures)));
        // at::linear folds an input of three or more dimensions into a matrix for the matmul: a view
        // when its layout allows one (always for a contiguous input), otherwise a contiguous copy (what
        // mm then keeps; PyTorch 2.x's matmul folds whenever the weight requires grad, should_fold in
        // LinearAlgebra.cpp, and without a weight gradient nothing is kept). A 2-D input goes to addmm as
        // it is, strided or not.
        SavedTensor kept = foldsAsView(in)
            ? SavedTensor::input()
            : SavedTensor::internal("input (contiguous copy)", in.shape.elements(), in.dtype);
        kept.onlyFor = { SavedTensor::kWeight };
        o.saved.push_back(kept);
        o.forwardFlopsPerSample = Count { 2 } * in.shape.elements() * Count::fromSigned(outFeatures);
        return o;
    }
};

} // namespace

std::unique_ptr<LayerKind> makeLinear()
{
    return std::make_unique<LinearKind>();
}

} // namespace headroom::layers

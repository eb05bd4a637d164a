// Softmax (torch.nn.Softmax): keeps its output; autocast runs it in float32.
#include "KindSupport.h"
#include "Kinds.h"
#include "Layout.h"

namespace headroom::layers {
namespace {

class SoftmaxKind final : public DescribedKind
{
public:
    SoftmaxKind()
        : DescribedKind("Softmax", LayerCategory::Activation, "Softmax along one axis",
            { intAttr("dim", -1, "Axis, counting the batch axis as 0 (negative counts from the end)",
                std::numeric_limits<std::int32_t>::min()) })
    {
    }

    [[nodiscard]] AutocastPolicy autocast() const override { return AutocastPolicy::Float32; }

    [[nodiscard]] BatchAxisUse batchAxisUse() const override { return BatchAxisUse::Own; }

    [[nodiscard]] Result<LayerOutcome> infer(const LayerContext& ctx) const override
    {
        const auto& in = ctx.in();
        if (!isFloatingPoint(in.dtype))
            return failure("needs a floating-point input");
        if (!featureAxis(ctx.attrs.integer("dim"), in.shape.rank(), in.batchAxis))
            return failure("dim " + std::to_string(ctx.attrs.integer("dim")) + " is not a feature axis of "
                + in.shape.toBatchedString(in.batchAxis) + " (the batch axis " + std::to_string(in.batchAxis)
                + " cannot be normalised per sample)");
        LayerOutcome o;
        o.output = contiguousTensor(in.shape, in.dtype, in.batchAxis); // computed on input.contiguous()
        o.saved.push_back(SavedTensor::output());
        o.forwardFlopsPerSample = Count { 5 } * in.shape.elements();
        return o;
    }
};

} // namespace

std::unique_ptr<LayerKind> makeSoftmax()
{
    return std::make_unique<SoftmaxKind>();
}

} // namespace headroom::layers

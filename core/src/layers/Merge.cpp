// Concat (torch.cat) of the inputs, optionally after a learned tensor (`parameter`: a class token,
// cls_token.expand(B, -1, -1) put first). cat keeps nothing for backward (only the inputs' sizes) and
// hands each input a slice of the output gradient (a view; a cast copy where the input was promoted);
// the learned tensor's gradient is its slice summed over the batch. The result is a new contiguous tensor.
#include "KindSupport.h"
#include "Kinds.h"
#include "Layout.h"

namespace headroom::layers {
namespace {

class ConcatKind final : public DescribedKind
{
public:
    ConcatKind()
        : DescribedKind("Concat", LayerCategory::Merge, "Concatenates inputs along an axis (torch.cat)",
            { intAttr("dim", 1, "Axis, counting the batch axis as 0 (1 = channels)",
                  std::numeric_limits<std::int32_t>::min()),
                learnedOperandAttr("Shape of a learned tensor put before the inputs, per sample (no batch "
                                   "axis): [1, 768] for a class token") })
    {
    }
    [[nodiscard]] std::size_t minInputs() const override { return 1; }
    [[nodiscard]] std::size_t maxInputs() const override { return kManyInputs; }

    [[nodiscard]] Result<LayerOutcome> infer(const LayerContext& ctx) const override
    {
        std::vector<TensorInfo> parts;
        if (ctx.attrs.has("parameter"))
            parts.push_back(TensorInfo { Shape { ctx.attrs.integers("parameter") }, ctx.parameterType() });
        parts.insert(parts.end(), ctx.inputs.begin(), ctx.inputs.end());
        if (parts.size() < 2)
            return failure("needs at least two inputs, or one input and a `parameter` (a learned tensor)");
        const auto& first = parts.front();
        const auto axis = featureAxis(ctx.attrs.integer("dim"), first.shape.rank());
        if (!axis)
            return failure("dim " + std::to_string(ctx.attrs.integer("dim")) + " is not a feature axis of "
                + first.shape.toBatchedString());
        TensorInfo out { first.shape, first.dtype };
        for (std::size_t i = 1; i < parts.size(); ++i) {
            const auto& next = parts[i];
            bool compatible = next.shape.rank() == first.shape.rank();
            for (std::size_t d = 0; compatible && d < first.shape.rank(); ++d)
                compatible = d == *axis || next.shape.dims[d] == first.shape.dims[d];
            if (!compatible)
                return failure("cannot concatenate " + first.shape.toString() + " and "
                    + next.shape.toString() + " along dim " + std::to_string(*axis + 1)
                    + ": the other axes must match");
            const auto grown = grownSize(out.shape.dims[*axis], 1, next.shape.dims[*axis]);
            if (!grown)
                return tooLarge("the concatenated axis");
            out.shape.dims[*axis] = *grown;
            out.dtype = promote(out.dtype, next.dtype);
        }
        LayerOutcome o;
        o.output = out;
        if (ctx.attrs.has("parameter"))
            o.params.push_back(parameter("weight", first.shape.elements()));
        for (const auto& in : ctx.inputs)
            o.aliasedInputGradients.push_back(in.dtype == out.dtype);
        return o;
    }
};

} // namespace

std::unique_ptr<LayerKind> makeConcat()
{
    return std::make_unique<ConcatKind>();
}

} // namespace headroom::layers

// Flatten (torch.nn.Flatten): a view of its input when the merged axes allow one (ATen's computeStride;
// always for a contiguous input), so it shares its input's storage; otherwise reshape copies.
#include "KindSupport.h"
#include "Kinds.h"
#include "Layout.h"

namespace headroom::layers {
namespace {

class FlattenKind final : public DescribedKind
{
public:
    FlattenKind()
        : DescribedKind("Flatten", LayerCategory::Shape, "Flattens a range of axes into one (a view)",
            { intAttr("start_dim", 1, "First axis to flatten, counting the batch axis as 0", kMinDim),
                intAttr("end_dim", -1, "Last axis to flatten (negative counts from the end)", kMinDim) })
    {
    }

    [[nodiscard]] Result<LayerOutcome> infer(const LayerContext& ctx) const override
    {
        const auto& in = ctx.in();
        const auto rank = static_cast<std::int64_t>(in.shape.rank()) + 1; // with the batch axis
        std::int64_t start = ctx.attrs.integer("start_dim");
        std::int64_t end = ctx.attrs.integer("end_dim");
        if (start < 0)
            start += rank;
        if (end < 0)
            end += rank;
        if (start < 0 || start >= rank || end < 0 || end >= rank)
            return failure("start_dim/end_dim " + std::to_string(ctx.attrs.integer("start_dim")) + ", "
                + std::to_string(ctx.attrs.integer("end_dim")) + " are out of range for "
                + in.shape.toBatchedString());
        if (start == 0)
            return failure(
                "start_dim 0 would merge the batch axis into the features; Headroom keeps the batch "
                "axis first (use start_dim 1)");
        if (end < start)
            return failure("end_dim comes before start_dim");
        const auto first = static_cast<std::size_t>(start - 1);
        const auto last = static_cast<std::size_t>(end - 1);
        Shape shape;
        std::int64_t merged = 1;
        for (std::size_t i = 0; i < in.shape.rank(); ++i) {
            if (i < first || i > last) {
                shape.dims.push_back(in.shape.dims[i]);
            } else {
                if (__builtin_mul_overflow(merged, in.shape.dims[i], &merged))
                    return tooLarge("the flattened axis of " + in.shape.toString());
                if (i == last)
                    shape.dims.push_back(merged);
            }
        }
        // flatten is a reshape: a view, unless the merged axes are not contiguous with each other (a copy).
        auto result = reshaped(in, shape);
        LayerOutcome o;
        o.output = std::move(result.output);
        o.outputAliasesInput = result.view;
        // The backward of a view (and of the copying reshape, _unsafe_view(clone)) reshapes the gradient.
        o.aliasedInputGradients = { true };
        return o;
    }
};

} // namespace

std::unique_ptr<LayerKind> makeFlatten()
{
    return std::make_unique<FlattenKind>();
}

} // namespace headroom::layers

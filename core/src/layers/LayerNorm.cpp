// LayerNorm (torch.nn.LayerNorm): native_layer_norm saves its input and a float32 mean and rstd
// per normalised row, over any trailing shape (normalized_shape). Autocast runs it in float32.
#include "KindSupport.h"
#include "Kinds.h"
#include "Layout.h"

#include <algorithm>

namespace headroom::layers {
namespace {

class LayerNormKind final : public DescribedKind
{
public:
    LayerNormKind()
        : DescribedKind("LayerNorm", LayerCategory::Normalization,
            "Layer normalisation over the trailing axes",
            { [] {
                 AttributeSpec s;
                 s.name = "normalized_shape";
                 s.type = AttributeType::IntList;
                 s.optional = true;
                 s.whenOmitted = "the last axis";
                 s.minInt = 1;
                 s.help = "Trailing axes to normalise (the last axis if left out)";
                 return s;
             }(),
                floatAttr("eps", 1e-5, "Added to the variance", 0.0, 1.0),
                boolAttr("elementwise_affine", true, "Learnable per-element scale (and shift)"),
                boolAttr("bias", true, "Learnable shift (with elementwise_affine)") })
    {
    }

    [[nodiscard]] AutocastPolicy autocast() const override { return AutocastPolicy::Float32; }

    [[nodiscard]] BatchAxisUse batchAxisUse() const override { return BatchAxisUse::Kept; }

    [[nodiscard]] Result<LayerOutcome> infer(const LayerContext& ctx) const override
    {
        const auto& in = ctx.in();
        if (in.shape.rank() == 0 || !isFloatingPoint(in.dtype))
            return failure("needs a floating-point input with at least one axis");
        std::vector<std::int64_t> normalized = ctx.attrs.has("normalized_shape")
            ? ctx.attrs.integers("normalized_shape")
            : std::vector<std::int64_t> { in.shape.dims.back() };
        const auto& dims = in.shape.dims;
        if (normalized.size() > dims.size()
            || !std::equal(normalized.rbegin(), normalized.rend(), dims.rbegin()))
            return failure("normalized_shape " + Shape { normalized }.toString()
                + " does not match the trailing axes of the input " + in.shape.toString());
        if (normalized.size() > dims.size() - in.batchAxis)
            return failure("normalized_shape " + Shape { normalized }.toString()
                + " would take in the batch axis of " + layoutText(in));
        const Count normalizedElements = Shape { normalized }.elements();
        const Count rows = Shape {
            { dims.begin(), dims.end() - static_cast<std::ptrdiff_t>(normalized.size()) }
        }.elements();

        LayerOutcome o;
        o.output = contiguousTensor(in.shape, in.dtype);
        // native_layer_norm computes on input.expect_contiguous() and its backward does again: a
        // non-contiguous input (a transposed view) is copied while each runs, and the view is what is kept.
        if (!in.contiguous)
            o.forwardScratchBytesPerSample = o.backwardScratchBytesPerSample
                = in.shape.elements() * Count { elementSize(in.dtype) };
        if (ctx.attrs.flag("elementwise_affine")) {
            o.params.push_back(parameter("weight", normalizedElements));
            if (ctx.attrs.flag("bias"))
                o.params.push_back(parameter("bias", normalizedElements));
        }
        o.saved.push_back(SavedTensor::input());
        o.saved.push_back(SavedTensor::internal("mean", rows, DType::Float32));
        o.saved.push_back(SavedTensor::internal("rstd", rows, DType::Float32));
        o.forwardFlopsPerSample = Count { 5 } * in.shape.elements();
        return o;
    }
};

} // namespace

std::unique_ptr<LayerKind> makeLayerNorm()
{
    return std::make_unique<LayerNormKind>();
}

} // namespace headroom::layers

// Conv1d, Conv2d and Conv3d (torch.nn.ConvNd): convolution_backward(grad, input, weight, ...) keeps the
// input for the weight gradient (the weight is a parameter). What the input is depends on the padding:
// - padding_mode "zeros" (the default) pads inside the kernel: the layer's own input is kept;
// - padding="same" with an even reach (dilation x (kernel - 1) odd) pads asymmetrically: ATen's
//   _convolution_mode first makes a constant_pad_nd copy one element larger on the far side of each
//   such axis, and the convolution keeps that copy (aten/src/ATen/native/Convolution.cpp);
// - padding_mode "reflect", "replicate" or "circular": _ConvNd._conv_forward calls F.pad first, so the
//   convolution keeps the padded copy, and reflection_pad / replication_pad keep their input too
//   (derivatives.yaml: reflection_padNd_backward(grad, self, padding)); circular padding is built from
//   slice copies that keep nothing.
#include "KindSupport.h"
#include "Kinds.h"
#include "Layout.h"

#include <algorithm>
#include <array>

namespace headroom::layers {
namespace {

/// Padding before and after each axis (at most three: fixed arrays, no allocation per layer).
struct Padding
{
    std::array<std::int64_t, 3> before {};
    std::array<std::int64_t, 3> after {};
};

/// "same" padding (the odd one of an even total after), the given sizes, or none for "valid".
Padding paddingOf(const Attributes& a, std::size_t dims, bool same, bool named,
    const std::vector<std::int64_t>& kernel, const std::vector<std::int64_t>& dilation)
{
    Padding p;
    if (same) {
        for (std::size_t d = 0; d < dims; ++d) {
            const std::int64_t total = dilation[d] * (kernel[d] - 1);
            p.before[d] = total / 2;
            p.after[d] = total - p.before[d];
        }
    } else if (!named) {
        const auto padding = a.integers("padding");
        std::copy(padding.begin(), padding.end(), p.before.begin());
        p.after = p.before;
    }
    return p;
}

/// A padded axis too large for a size (the input's sizes plus the padding), or nothing.
std::optional<Error> checkPaddedSize(const TensorInfo& in, std::size_t dims, const Padding& padding)
{
    const auto& before = padding.before;
    const auto& after = padding.after;
    for (std::size_t d = 0; d < dims; ++d)
        if (!grownSize(in.shape.dims[d + 1], 1, before[d] + after[d]))
            return tooLarge("the padded input "
                + joinSizes({ in.shape.dims.begin() + 1, in.shape.dims.end() }) + " + 2x"
                + joinSizes({ before.begin(), before.begin() + static_cast<std::ptrdiff_t>(dims) }));
    return std::nullopt;
}

/// [out_channels, spatial sizes]: each padded axis less the dilated kernel's reach, over the stride, plus
/// one.
Result<TensorInfo> outputOf(const LayerContext& ctx, std::size_t dims, std::int64_t outChannels,
    const Padding& padding, const std::vector<std::int64_t>& kernel, const std::vector<std::int64_t>& stride,
    const std::vector<std::int64_t>& dilation)
{
    const auto& in = ctx.in();
    const auto spatialIn = [&](std::size_t d) { return in.shape.dims[d + 1]; };
    const auto& before = padding.before;
    const auto& after = padding.after;
    TensorInfo out { Shape { { outChannels } }, ctx.activationType() };
    for (std::size_t d = 0; d < dims; ++d) {
        const std::int64_t reach = dilation[d] * (kernel[d] - 1) + 1;
        if (spatialIn(d) + before[d] + after[d] < reach)
            return failure("kernel " + joinSizes(kernel) + " (dilation " + joinSizes(dilation)
                + ") does not fit the padded input "
                + joinSizes({ in.shape.dims.begin() + 1, in.shape.dims.end() }) + " + 2x"
                + joinSizes({ before.begin(), before.begin() + static_cast<std::ptrdiff_t>(dims) })
                + " padding");
        out.shape.dims.push_back((spatialIn(d) + before[d] + after[d] - reach) / stride[d] + 1);
    }
    return out;
}

/// What the convolution keeps: its input, or a padded copy of it (its elements per sample).
struct KeptInput
{
    bool copied = false;
    Count elements;
};

Result<KeptInput> keptInput(
    const TensorInfo& in, std::size_t dims, const std::string& paddingMode, const Padding& padding)
{
    const auto spatialIn = [&](std::size_t d) { return in.shape.dims[d + 1]; };
    const auto& before = padding.before;
    const auto& after = padding.after;
    const bool zeros = paddingMode == "zeros";
    KeptInput kept { false, Count::fromSigned(in.shape.dims[0]) };
    for (std::size_t d = 0; d < dims; ++d) {
        if (!zeros) {
            if ((paddingMode == "reflect" && after[d] >= spatialIn(d))
                || (paddingMode == "circular" && after[d] > spatialIn(d)))
                return failure("padding " + std::to_string(after[d]) + " is too large for \"" + paddingMode
                    + "\" padding of an axis of size " + std::to_string(spatialIn(d)));
            kept.copied = kept.copied || after[d] > 0;
            kept.elements *= Count::fromSigned(spatialIn(d) + before[d] + after[d]);
        } else {
            kept.copied = kept.copied || after[d] != before[d];
            kept.elements *= Count::fromSigned(spatialIn(d) + after[d] - before[d]);
        }
    }
    return kept;
}

class ConvolutionKind final : public DescribedKind
{
public:
    explicit ConvolutionKind(int spatialDims)
        : DescribedKind("Conv" + std::to_string(spatialDims) + "d", LayerCategory::Convolution,
            std::to_string(spatialDims) + "-D convolution over " + std::string(spatialLayout(spatialDims)),
            { inferredAttr("in_channels", "Input channels"),
                intAttr("out_channels", nullptr, "Output channels"),
                tupleAttr("kernel_size", spatialDims, nullptr, "Kernel size"),
                tupleAttr("stride", spatialDims, 1, "Stride"),
                tupleAttr("padding", spatialDims, 0, "Padding on each side", 0, { "valid", "same" }),
                tupleAttr("dilation", spatialDims, 1, "Spacing between kernel elements"),
                intAttr("groups", 1, "Blocked connections from input to output channels"),
                boolAttr("bias", true, "Adds a learnable bias"),
                choiceAttr("padding_mode", "zeros", { "zeros", "reflect", "replicate", "circular" },
                    "How the padding is filled (other than zeros: a padded copy is made first)") })
        , m_dims { spatialDims }
    {
    }

    [[nodiscard]] AutocastPolicy autocast() const override { return AutocastPolicy::LowerPrecision; }

    [[nodiscard]] Result<LayerOutcome> infer(const LayerContext& ctx) const override
    {
        const auto& in = ctx.in();
        const auto dims = static_cast<std::size_t>(m_dims);
        if (auto e = expectRank(in, dims + 1, spatialLayout(m_dims)))
            return *e;
        if (auto e
            = expectFloatingPoint(in, "a convolution's input must have its (floating-point) weight's dtype"))
            return *e;
        const auto& a = ctx.attrs;
        const std::int64_t inChannels = in.shape.dims[0];
        if (auto e = checkChannels(a, inChannels))
            return *e;
        const std::int64_t outChannels = a.integer("out_channels");
        const std::int64_t groups = a.integer("groups");
        const auto kernel = a.integers("kernel_size");
        const auto stride = a.integers("stride");
        const auto dilation = a.integers("dilation");
        const auto paddingText = a.text("padding");
        const std::string paddingMode = a.choice("padding_mode");
        const bool same = paddingText == "same";
        if (same && std::any_of(stride.begin(), stride.end(), [](auto s) { return s != 1; }))
            return failure("padding \"same\" needs stride 1 (PyTorch refuses strided \"same\" convolutions)");

        const Padding padding = paddingOf(a, dims, same, paddingText.has_value(), kernel, dilation);
        if (auto e = checkPaddedSize(in, dims, padding))
            return *e;
        const auto kept = keptInput(in, dims, paddingMode, padding);
        if (!kept)
            return kept.error();
        const bool copied = kept->copied;
        const Count keptElements = kept->elements;

        const auto output = outputOf(ctx, dims, outChannels, padding, kernel, stride, dilation);
        if (!output)
            return output.error();
        const TensorInfo& out = *output;

        const Count kernelVolume = product(kernel);
        LayerOutcome o;
        o.output = out;
        o.params.push_back(parameter("weight",
            Count::fromSigned(outChannels) * Count::fromSigned(inChannels / groups) * kernelVolume));
        if (a.flag("bias"))
            o.params.push_back(parameter("bias", Count::fromSigned(outChannels)));
        if (copied) {
            o.saved.push_back(SavedTensor::internal("padded input", keptElements, in.dtype));
            if (paddingMode == "reflect" || paddingMode == "replicate")
                o.saved.push_back(SavedTensor::input());
        } else {
            o.saved.push_back(SavedTensor::input());
        }
        o.forwardFlopsPerSample
            = Count { 2 } * out.shape.elements() * Count::fromSigned(inChannels / groups) * kernelVolume;
        return o;
    }

private:
    int m_dims;
};

} // namespace

std::unique_ptr<LayerKind> makeConv1d()
{
    return std::make_unique<ConvolutionKind>(1);
}
std::unique_ptr<LayerKind> makeConv2d()
{
    return std::make_unique<ConvolutionKind>(2);
}
std::unique_ptr<LayerKind> makeConv3d()
{
    return std::make_unique<ConvolutionKind>(3);
}

} // namespace headroom::layers

// ConvTranspose1d, ConvTranspose2d and ConvTranspose3d (torch.nn.ConvTransposeNd):
// convolution_backward(grad, input, weight, ..., transposed=true, ...) keeps the input for the weight
// gradient. Output size per axis: (in - 1) stride - 2 padding + dilation (kernel - 1) + output_padding + 1.
#include "KindSupport.h"
#include "Kinds.h"

namespace headroom::layers {
namespace {

class ConvTransposeKind final : public DescribedKind
{
public:
    explicit ConvTransposeKind(int spatialDims)
        : DescribedKind("ConvTranspose" + std::to_string(spatialDims) + "d", LayerCategory::Convolution,
            std::to_string(spatialDims) + "-D transposed convolution over "
                + std::string(spatialLayout(spatialDims)),
            { inferredAttr("in_channels", "Input channels"),
                intAttr("out_channels", nullptr, "Output channels"),
                tupleAttr("kernel_size", spatialDims, nullptr, "Kernel size"),
                tupleAttr("stride", spatialDims, 1, "Stride"),
                tupleAttr("padding", spatialDims, 0, "Implicit zero padding removed from each side", 0),
                tupleAttr("output_padding", spatialDims, 0, "Extra size added to one side of the output", 0),
                intAttr("groups", 1, "Blocked connections from input to output channels"),
                boolAttr("bias", true, "Adds a learnable bias"),
                tupleAttr("dilation", spatialDims, 1, "Spacing between kernel elements"),
                choiceAttr("padding_mode", "zeros", { "zeros" },
                    "Only zeros: PyTorch's transposed convolutions support no other") })
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
        if (auto e = expectFloatingPoint(
                in, "a transposed convolution's input must have its (floating-point) weight's dtype"))
            return *e;
        const auto& a = ctx.attrs;
        const std::int64_t inChannels = in.shape.dims[0];
        if (auto e = checkChannels(a, inChannels))
            return *e;
        const std::int64_t outChannels = a.integer("out_channels");
        const std::int64_t groups = a.integer("groups");
        const auto kernel = a.integers("kernel_size");
        const auto stride = a.integers("stride");
        const auto padding = a.integers("padding");
        const auto outputPadding = a.integers("output_padding");
        const auto dilation = a.integers("dilation");

        TensorInfo out { Shape { { outChannels } }, ctx.activationType() };
        const Count kernelVolume = product(kernel);
        for (std::size_t d = 0; d < dims; ++d) {
            if (outputPadding[d] >= stride[d] && outputPadding[d] >= dilation[d])
                return failure("output_padding " + joinSizes(outputPadding)
                    + " must be smaller than either stride or dilation");
            // (in - 1) stride + the rest, which attributes below 2^31 keep below 2^63
            const auto grown = grownSize(in.shape.dims[d + 1] - 1, stride[d],
                dilation[d] * (kernel[d] - 1) + outputPadding[d] + 1 - 2 * padding[d]);
            if (!grown)
                return tooLarge("the output size (" + std::to_string(in.shape.dims[d + 1]) + " - 1) x stride "
                    + std::to_string(stride[d]));
            const std::int64_t size = *grown;
            if (size <= 0)
                return failure(
                    "padding " + joinSizes(padding) + " leaves no output for input " + in.shape.toString());
            out.shape.dims.push_back(size);
        }
        LayerOutcome o;
        o.output = out;
        o.params.push_back(parameter("weight",
            Count::fromSigned(inChannels) * Count::fromSigned(outChannels / groups) * kernelVolume));
        if (a.flag("bias"))
            o.params.push_back(parameter("bias", Count::fromSigned(outChannels)));
        o.saved.push_back(SavedTensor::input());
        o.forwardFlopsPerSample
            = Count { 2 } * in.shape.elements() * Count::fromSigned(outChannels / groups) * kernelVolume;
        return o;
    }

private:
    int m_dims;
};

} // namespace

std::unique_ptr<LayerKind> makeConvTranspose1d()
{
    return std::make_unique<ConvTransposeKind>(1);
}
std::unique_ptr<LayerKind> makeConvTranspose2d()
{
    return std::make_unique<ConvTransposeKind>(2);
}
std::unique_ptr<LayerKind> makeConvTranspose3d()
{
    return std::make_unique<ConvTransposeKind>(3);
}

} // namespace headroom::layers

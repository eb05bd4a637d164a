// ConvTranspose2d (torch.nn.ConvTranspose2d): saves its input for the weight gradient.
#include "Kinds.h"
#include "KindSupport.h"

namespace headroom::layers {
namespace {

class ConvTranspose2dKind final : public DescribedKind {
public:
    ConvTranspose2dKind()
        : DescribedKind("ConvTranspose2d", LayerCategory::Convolution, "2-D transposed convolution over [C, H, W]",
                        {inferredAttr("in_channels", "Input channels"),
                         intAttr("out_channels", nullptr, "Output channels"),
                         tupleAttr("kernel_size", 2, nullptr, "Kernel size"),
                         tupleAttr("stride", 2, 1, "Stride"),
                         tupleAttr("padding", 2, 0, "Implicit zero padding removed from each side", 0),
                         tupleAttr("output_padding", 2, 0, "Extra size added to one side of the output", 0),
                         intAttr("groups", 1, "Blocked connections from input to output channels"),
                         boolAttr("bias", true, "Adds a learnable bias"),
                         tupleAttr("dilation", 2, 1, "Spacing between kernel elements")})
    {
    }

    [[nodiscard]] AutocastPolicy autocast() const override { return AutocastPolicy::LowerPrecision; }

    [[nodiscard]] Result<LayerOutcome> infer(const LayerContext& ctx) const override
    {
        const auto& in = ctx.in();
        if (auto e = expectRank(in, 3, "[C, H, W]"))
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

        TensorInfo out{Shape{{outChannels}}, ctx.activationType()};
        for (std::size_t d = 0; d < 2; ++d) {
            if (outputPadding[d] >= stride[d] && outputPadding[d] >= dilation[d])
                return failure("output_padding " + joinSizes(outputPadding)
                               + " must be smaller than either stride or dilation");
            // (in - 1) stride - 2 pad + dilation (kernel - 1) + output_padding + 1; the last terms are at
            // most 2^62 (attributes below 2^31), the first product is not bounded.
            const std::int64_t rest = dilation[d] * (kernel[d] - 1) + outputPadding[d] + 1 - 2 * padding[d];
            std::int64_t size = 0;
            if (__builtin_mul_overflow(in.shape.dims[d + 1] - 1, stride[d], &size)
                || __builtin_add_overflow(size, rest, &size))
                return sizeOverflow("the output size (" + std::to_string(in.shape.dims[d + 1]) + " - 1) x stride "
                                    + std::to_string(stride[d]));
            if (size <= 0)
                return failure("padding " + joinSizes(padding) + " leaves no output for input "
                               + in.shape.toString());
            out.shape.dims.push_back(size);
        }
        const Count kernelVolume = Count::fromSigned(kernel[0]) * Count::fromSigned(kernel[1]);
        LayerOutcome o;
        o.output = out;
        o.params.push_back(parameter("weight", {inChannels, outChannels / groups, kernel[0], kernel[1]}));
        if (a.flag("bias"))
            o.params.push_back(parameter("bias", Count::fromSigned(outChannels)));
        o.saved.push_back(SavedTensor::input());
        o.forwardFlopsPerSample
            = Count{2} * in.shape.elements() * Count::fromSigned(outChannels / groups) * kernelVolume;
        return o;
    }
};

} // namespace

std::unique_ptr<LayerKind> makeConvTranspose2d() { return std::make_unique<ConvTranspose2dKind>(); }

} // namespace headroom::layers

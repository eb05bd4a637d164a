// Conv1d and Conv2d (torch.nn.ConvNd): saves its input for the weight gradient.
#include "Kinds.h"
#include "KindSupport.h"

#include <algorithm>

namespace headroom::layers {
namespace {

class ConvolutionKind final : public DescribedKind {
public:
    explicit ConvolutionKind(int spatialDims)
        : DescribedKind(spatialDims == 1 ? "Conv1d" : "Conv2d", LayerCategory::Convolution,
                        spatialDims == 1 ? "1-D convolution over [C, L]" : "2-D convolution over [C, H, W]",
                        {inferredAttr("in_channels", "Input channels"),
                         intAttr("out_channels", nullptr, "Output channels"),
                         tupleAttr("kernel_size", spatialDims, nullptr, "Kernel size"),
                         tupleAttr("stride", spatialDims, 1, "Stride"),
                         tupleAttr("padding", spatialDims, 0, "Zero padding on each side", 0, {"valid", "same"}),
                         tupleAttr("dilation", spatialDims, 1, "Spacing between kernel elements"),
                         intAttr("groups", 1, "Blocked connections from input to output channels"),
                         boolAttr("bias", true, "Adds a learnable bias"),
                         choiceAttr("padding_mode", "zeros", {"zeros", "reflect", "replicate", "circular"},
                                    "Padding mode (does not change sizes)")}),
          m_dims{spatialDims}
    {
    }

    [[nodiscard]] AutocastPolicy autocast() const override { return AutocastPolicy::LowerPrecision; }

    [[nodiscard]] Result<LayerOutcome> infer(const LayerContext& ctx) const override
    {
        const auto& in = ctx.in();
        if (auto e = expectRank(in, static_cast<std::size_t>(m_dims) + 1, m_dims == 1 ? "[C, L]" : "[C, H, W]"))
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
        const auto paddingMode = a.text("padding");
        std::vector<std::int64_t> spatialIn(in.shape.dims.begin() + 1, in.shape.dims.end());
        std::vector<std::int64_t> padding = a.integers("padding");
        if (paddingMode) {
            if (*paddingMode == "same" && std::any_of(stride.begin(), stride.end(), [](auto s) { return s != 1; }))
                return failure("padding \"same\" needs stride 1 (PyTorch refuses strided \"same\" convolutions)");
            padding.assign(static_cast<std::size_t>(m_dims), 0);
        }

        TensorInfo out{Shape{{outChannels}}, ctx.activationType()};
        for (int i = 0; i < m_dims; ++i) {
            const auto d = static_cast<std::size_t>(i);
            std::int64_t size = 0;
            if (paddingMode == "same") {
                size = spatialIn[d];
            } else {
                const auto sliding
                    = slidingOutputSize(spatialIn[d], kernel[d], stride[d], padding[d], dilation[d], false);
                if (!sliding)
                    return sizeOverflow("the padded input " + joinSizes(spatialIn) + " + 2x" + joinSizes(padding));
                if (*sliding == 0)
                    return failure("kernel " + joinSizes(kernel) + " (dilation " + joinSizes(dilation)
                                   + ") does not fit the padded input " + joinSizes(spatialIn) + " + 2x"
                                   + joinSizes(padding) + " padding");
                size = *sliding;
            }
            out.shape.dims.push_back(size);
        }

        Count kernelVolume{1};
        for (const auto k : kernel)
            kernelVolume *= Count::fromSigned(k);

        LayerOutcome o;
        o.output = out;
        std::vector<std::int64_t> weightShape{outChannels, inChannels / groups};
        weightShape.insert(weightShape.end(), kernel.begin(), kernel.end());
        o.params.push_back(parameter("weight", std::move(weightShape)));
        if (a.flag("bias"))
            o.params.push_back(parameter("bias", Count::fromSigned(outChannels)));
        o.saved.push_back(SavedTensor::input());
        o.forwardFlopsPerSample = Count{2} * out.shape.elements() * Count::fromSigned(inChannels / groups) * kernelVolume;
        return o;
    }

private:
    int m_dims;
};

} // namespace

std::unique_ptr<LayerKind> makeConv1d() { return std::make_unique<ConvolutionKind>(1); }
std::unique_ptr<LayerKind> makeConv2d() { return std::make_unique<ConvolutionKind>(2); }

} // namespace headroom::layers

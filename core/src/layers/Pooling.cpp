// MaxPool2d, AvgPool2d and AdaptiveAvgPool2d.
// max_pool2d_with_indices keeps its input and int64 indices of the output's size;
// avg_pool2d and adaptive_avg_pool2d keep their input (derivatives.yaml passes `self` to the
// backward); adaptive_avg_pool2d to 1x1 is computed as mean(-1, -2), which keeps only sizes.
#include "Kinds.h"
#include "KindSupport.h"

namespace headroom::layers {
namespace {

struct Window {
    std::vector<std::int64_t> kernel, stride, padding, dilation;
    bool ceilMode = false;
};

Result<Shape> pooledShape(const TensorInfo& in, const Window& w)
{
    Shape out{{in.shape.dims[0]}};
    for (std::size_t d = 0; d < 2; ++d) {
        if (w.padding[d] * 2 > w.kernel[d])
            return failure("padding " + joinSizes(w.padding) + " must be at most half the kernel "
                           + joinSizes(w.kernel));
        const std::int64_t inSize = in.shape.dims[d + 1];
        const auto size = slidingOutputSize(inSize, w.kernel[d], w.stride[d], w.padding[d], w.dilation[d], w.ceilMode);
        if (!size)
            return sizeOverflow("the padded input " + std::to_string(in.shape.dims[1]) + "x"
                                + std::to_string(in.shape.dims[2]));
        if (*size <= 0)
            return failure("kernel " + joinSizes(w.kernel) + " is larger than the padded input "
                           + std::to_string(in.shape.dims[1]) + "x" + std::to_string(in.shape.dims[2]));
        out.dims.push_back(*size);
    }
    return out;
}

Window windowOf(const Attributes& a, bool hasDilation)
{
    Window w;
    w.kernel = a.integers("kernel_size");
    w.stride = a.has("stride") ? a.integers("stride") : w.kernel; // PyTorch: stride defaults to kernel_size
    w.padding = a.integers("padding");
    w.dilation = hasDilation ? a.integers("dilation") : std::vector<std::int64_t>{1, 1};
    w.ceilMode = a.flag("ceil_mode");
    return w;
}

AttributeSpec optionalStride()
{
    AttributeSpec s = tupleAttr("stride", 2, nullptr, "Stride (kernel_size if left out)");
    s.optional = true;
    s.whenOmitted = "kernel_size";
    return s;
}

class MaxPool2dKind final : public DescribedKind {
public:
    MaxPool2dKind()
        : DescribedKind("MaxPool2d", LayerCategory::Pooling, "2-D max pooling over [C, H, W]",
                        {tupleAttr("kernel_size", 2, nullptr, "Window size"), optionalStride(),
                         tupleAttr("padding", 2, 0, "Implicit negative-infinity padding", 0),
                         tupleAttr("dilation", 2, 1, "Spacing between window elements"),
                         boolAttr("ceil_mode", false, "Rounds the output size up"),
                         boolAttr("return_indices", false, "Also returns the indices (they are kept anyway)")})
    {
    }

    [[nodiscard]] Result<LayerOutcome> infer(const LayerContext& ctx) const override
    {
        if (auto e = expectRank(ctx.in(), 3, "[C, H, W]"))
            return *e;
        const Window w = windowOf(ctx.attrs, true);
        auto shape = pooledShape(ctx.in(), w);
        if (!shape)
            return shape.error();
        LayerOutcome o;
        o.output = TensorInfo{shape.value(), ctx.in().dtype};
        o.saved.push_back(SavedTensor::input());
        o.saved.push_back(SavedTensor::internal("indices", o.output.shape.elements(), DType::Int64));
        o.forwardFlopsPerSample = o.output.shape.elements() * Count::fromSigned(w.kernel[0] * w.kernel[1]);
        return o;
    }
};

class AvgPool2dKind final : public DescribedKind {
public:
    AvgPool2dKind()
        : DescribedKind("AvgPool2d", LayerCategory::Pooling, "2-D average pooling over [C, H, W]",
                        {tupleAttr("kernel_size", 2, nullptr, "Window size"), optionalStride(),
                         tupleAttr("padding", 2, 0, "Implicit zero padding", 0),
                         boolAttr("ceil_mode", false, "Rounds the output size up"),
                         boolAttr("count_include_pad", true, "Averages over padding too"),
                         [] {
                             AttributeSpec s = intAttr("divisor_override", nullptr, "Divisor instead of the window size");
                             s.optional = true;
                             s.whenOmitted = "the window size";
                             return s;
                         }()})
    {
    }

    [[nodiscard]] Result<LayerOutcome> infer(const LayerContext& ctx) const override
    {
        if (auto e = expectRank(ctx.in(), 3, "[C, H, W]"))
            return *e;
        const Window w = windowOf(ctx.attrs, false);
        auto shape = pooledShape(ctx.in(), w);
        if (!shape)
            return shape.error();
        LayerOutcome o;
        o.output = TensorInfo{shape.value(), ctx.in().dtype};
        o.saved.push_back(SavedTensor::input());
        o.forwardFlopsPerSample = o.output.shape.elements() * Count::fromSigned(w.kernel[0] * w.kernel[1]);
        return o;
    }
};

class AdaptiveAvgPool2dKind final : public DescribedKind {
public:
    AdaptiveAvgPool2dKind()
        : DescribedKind("AdaptiveAvgPool2d", LayerCategory::Pooling, "Average pooling to a fixed output size",
                        {tupleAttr("output_size", 2, nullptr, "Output height and width")})
    {
    }

    [[nodiscard]] Result<LayerOutcome> infer(const LayerContext& ctx) const override
    {
        const auto& in = ctx.in();
        if (auto e = expectRank(in, 3, "[C, H, W]"))
            return *e;
        const auto size = ctx.attrs.integers("output_size");
        LayerOutcome o;
        o.output = TensorInfo{Shape{{in.shape.dims[0], size[0], size[1]}}, in.dtype};
        if (size[0] != 1 || size[1] != 1)
            o.saved.push_back(SavedTensor::input());
        o.forwardFlopsPerSample = in.shape.elements();
        return o;
    }
};

} // namespace

std::unique_ptr<LayerKind> makeMaxPool2d() { return std::make_unique<MaxPool2dKind>(); }
std::unique_ptr<LayerKind> makeAvgPool2d() { return std::make_unique<AvgPool2dKind>(); }
std::unique_ptr<LayerKind> makeAdaptiveAvgPool2d() { return std::make_unique<AdaptiveAvgPool2dKind>(); }

} // namespace headroom::layers

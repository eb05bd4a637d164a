// Max, average and adaptive pooling in 1, 2 and 3 dimensions (torch.nn.MaxPoolNd, AvgPoolNd,
// AdaptiveAvgPoolNd, AdaptiveMaxPoolNd). What each keeps (tools/autograd/derivatives.yaml):
// - max_pool{2,3}d_with_indices: the input and int64 indices of the output's size
//   (max_poolNd_with_indices_backward(grad, self, ..., result1)); MaxPool1d runs max_pool2d_with_indices
//   on the input unsqueezed to [C, 1, L] whenever autograd records it (aten/src/ATen/native/MaxPooling.cpp);
// - avg_pool{2,3}d: the input (avg_poolNd_backward(grad, self, ...)); AvgPool1d is avg_pool2d on [C, 1, L];
// - adaptive_max_pool{2,3}d: the input and int64 indices (AdaptiveMaxPool1d: the 2-D one on [C, 1, L]);
// - _adaptive_avg_pool{2,3}d: the input; an output of size 1 on every axis is computed as
//   input.mean(spatial axes) instead (AdaptiveAveragePooling.cpp, AdaptiveAveragePooling3d.cpp), whose
//   backward needs only sizes (mean_backward(grad, self.sym_sizes(), ...)), so it keeps nothing.
// Outputs are contiguous; pooling runs in its input's dtype under autocast.
#include "KindSupport.h"
#include "Kinds.h"

#include <algorithm>

namespace headroom::layers {
namespace {

std::string name(std::string_view base, int dims)
{
    return std::string(base) + std::to_string(dims) + "d";
}

struct Window
{
    std::vector<std::int64_t> kernel, stride, padding, dilation;
    bool ceilMode = false;
};

Result<Shape> pooledShape(const TensorInfo& in, const Window& w)
{
    Shape out { { in.shape.dims[0] } };
    const std::vector<std::int64_t> spatial(in.shape.dims.begin() + 1, in.shape.dims.end());
    for (std::size_t d = 0; d < spatial.size(); ++d) {
        if (w.padding[d] * 2 > w.kernel[d])
            return failure("padding " + joinSizes(w.padding) + " must be at most half the kernel "
                + joinSizes(w.kernel));
        const std::int64_t reach = w.dilation[d] * (w.kernel[d] - 1) + 1;
        if (spatial[d] + 2 * w.padding[d] < reach)
            return failure(
                "kernel " + joinSizes(w.kernel) + " is larger than the padded input " + joinSizes(spatial));
        const auto size = slidingOutputSize(
            spatial[d], w.kernel[d], w.stride[d], w.padding[d], w.dilation[d], w.ceilMode);
        if (!size)
            return tooLarge("the padded input " + joinSizes(spatial));
        if (*size <= 0)
            return failure("output would be empty for input " + in.shape.toString());
        out.dims.push_back(*size);
    }
    return out;
}

Window windowOf(const Attributes& a, std::size_t dims, bool hasDilation)
{
    Window w;
    w.kernel = a.integers("kernel_size");
    w.stride = a.has("stride") ? a.integers("stride") : w.kernel; // PyTorch: stride defaults to kernel_size
    w.padding = a.integers("padding");
    w.dilation = hasDilation ? a.integers("dilation") : std::vector<std::int64_t>(dims, 1);
    w.ceilMode = a.flag("ceil_mode");
    return w;
}

AttributeSpec optionalStride(int dims)
{
    return optionalAttr(
        tupleAttr("stride", dims, nullptr, "Stride (kernel_size if left out)"), "kernel_size");
}

class MaxPoolKind final : public DescribedKind
{
public:
    explicit MaxPoolKind(int dims)
        : DescribedKind(name("MaxPool", dims), LayerCategory::Pooling,
            std::to_string(dims) + "-D max pooling over " + std::string(spatialLayout(dims)),
            { tupleAttr("kernel_size", dims, nullptr, "Window size"), optionalStride(dims),
                tupleAttr("padding", dims, 0, "Implicit negative-infinity padding", 0),
                tupleAttr("dilation", dims, 1, "Spacing between window elements"),
                boolAttr("ceil_mode", false, "Rounds the output size up"),
                boolAttr("return_indices", false, "Also returns the indices (they are kept anyway)") })
        , m_dims { static_cast<std::size_t>(dims) }
    {
    }

    [[nodiscard]] Result<LayerOutcome> infer(const LayerContext& ctx) const override
    {
        if (auto e = expectRank(ctx.in(), m_dims + 1, spatialLayout(static_cast<int>(m_dims))))
            return *e;
        if (auto e
            = expectFloatingPoint(ctx.in(), "PyTorch's max pooling has no integer or bool CUDA kernel"))
            return *e;
        const Window w = windowOf(ctx.attrs, m_dims, true);
        auto shape = pooledShape(ctx.in(), w);
        if (!shape)
            return shape.error();
        LayerOutcome o;
        o.output = TensorInfo { shape.value(), ctx.in().dtype };
        o.saved.push_back(SavedTensor::input());
        o.saved.push_back(SavedTensor::internal("indices", o.output.shape.elements(), DType::Int64));
        o.forwardFlopsPerSample = o.output.shape.elements() * product(w.kernel);
        return o;
    }

private:
    std::size_t m_dims;
};

class AvgPoolKind final : public DescribedKind
{
public:
    explicit AvgPoolKind(int dims)
        : DescribedKind(name("AvgPool", dims), LayerCategory::Pooling,
            std::to_string(dims) + "-D average pooling over " + std::string(spatialLayout(dims)),
            attributesFor(dims))
        , m_dims { static_cast<std::size_t>(dims) }
    {
    }

    [[nodiscard]] Result<LayerOutcome> infer(const LayerContext& ctx) const override
    {
        if (auto e = expectRank(ctx.in(), m_dims + 1, spatialLayout(static_cast<int>(m_dims))))
            return *e;
        if (auto e
            = expectFloatingPoint(ctx.in(), "PyTorch's average pooling has no integer or bool CUDA kernel"))
            return *e;
        const Window w = windowOf(ctx.attrs, m_dims, false);
        auto shape = pooledShape(ctx.in(), w);
        if (!shape)
            return shape.error();
        LayerOutcome o;
        o.output = TensorInfo { shape.value(), ctx.in().dtype };
        o.saved.push_back(SavedTensor::input());
        o.forwardFlopsPerSample = o.output.shape.elements() * product(w.kernel);
        return o;
    }

private:
    static std::vector<AttributeSpec> attributesFor(int dims)
    {
        std::vector<AttributeSpec> attrs { tupleAttr("kernel_size", dims, nullptr, "Window size"),
            optionalStride(dims), tupleAttr("padding", dims, 0, "Implicit zero padding", 0),
            boolAttr("ceil_mode", false, "Rounds the output size up"),
            boolAttr("count_include_pad", true, "Averages over padding too") };
        if (dims > 1) // torch.nn.AvgPool1d has no divisor_override
            attrs.push_back(
                optionalAttr(intAttr("divisor_override", nullptr, "Divisor instead of the window size"),
                    "the window size"));
        return attrs;
    }

    std::size_t m_dims;
};

class AdaptivePoolKind final : public DescribedKind
{
public:
    AdaptivePoolKind(bool max, int dims)
        : DescribedKind(name(max ? "AdaptiveMaxPool" : "AdaptiveAvgPool", dims), LayerCategory::Pooling,
            std::string(max ? "Max" : "Average") + " pooling of " + std::string(spatialLayout(dims))
                + " to a fixed output size",
            attributesFor(max, dims))
        , m_max { max }
        , m_dims { static_cast<std::size_t>(dims) }
    {
    }

    [[nodiscard]] Result<LayerOutcome> infer(const LayerContext& ctx) const override
    {
        const auto& in = ctx.in();
        if (auto e = expectRank(in, m_dims + 1, spatialLayout(static_cast<int>(m_dims))))
            return *e;
        if (auto e = expectFloatingPoint(in, "PyTorch's adaptive pooling has no integer or bool CUDA kernel"))
            return *e;
        const auto size = ctx.attrs.integers("output_size");
        LayerOutcome o;
        o.output = TensorInfo { Shape { { in.shape.dims[0] } }, in.dtype };
        o.output.shape.dims.insert(o.output.shape.dims.end(), size.begin(), size.end());
        const bool allOnes = std::all_of(size.begin(), size.end(), [](auto s) { return s == 1; });
        if (m_max) {
            o.saved.push_back(SavedTensor::input());
            o.saved.push_back(SavedTensor::internal("indices", o.output.shape.elements(), DType::Int64));
        } else if (!allOnes) {
            o.saved.push_back(SavedTensor::input());
        }
        o.forwardFlopsPerSample = in.shape.elements();
        return o;
    }

private:
    static std::vector<AttributeSpec> attributesFor(bool max, int dims)
    {
        std::vector<AttributeSpec> attrs { tupleAttr("output_size", dims, nullptr, "Output size") };
        if (max)
            attrs.push_back(
                boolAttr("return_indices", false, "Also returns the indices (they are kept anyway)"));
        return attrs;
    }

    bool m_max;
    std::size_t m_dims;
};

} // namespace

std::unique_ptr<LayerKind> makeMaxPool1d()
{
    return std::make_unique<MaxPoolKind>(1);
}
std::unique_ptr<LayerKind> makeMaxPool2d()
{
    return std::make_unique<MaxPoolKind>(2);
}
std::unique_ptr<LayerKind> makeMaxPool3d()
{
    return std::make_unique<MaxPoolKind>(3);
}
std::unique_ptr<LayerKind> makeAvgPool1d()
{
    return std::make_unique<AvgPoolKind>(1);
}
std::unique_ptr<LayerKind> makeAvgPool2d()
{
    return std::make_unique<AvgPoolKind>(2);
}
std::unique_ptr<LayerKind> makeAvgPool3d()
{
    return std::make_unique<AvgPoolKind>(3);
}
std::unique_ptr<LayerKind> makeAdaptiveAvgPool1d()
{
    return std::make_unique<AdaptivePoolKind>(false, 1);
}
std::unique_ptr<LayerKind> makeAdaptiveAvgPool2d()
{
    return std::make_unique<AdaptivePoolKind>(false, 2);
}
std::unique_ptr<LayerKind> makeAdaptiveAvgPool3d()
{
    return std::make_unique<AdaptivePoolKind>(false, 3);
}
std::unique_ptr<LayerKind> makeAdaptiveMaxPool1d()
{
    return std::make_unique<AdaptivePoolKind>(true, 1);
}
std::unique_ptr<LayerKind> makeAdaptiveMaxPool2d()
{
    return std::make_unique<AdaptivePoolKind>(true, 2);
}
std::unique_ptr<LayerKind> makeAdaptiveMaxPool3d()
{
    return std::make_unique<AdaptivePoolKind>(true, 3);
}

} // namespace headroom::layers

// Resampling: Upsample (nn.Upsample / F.interpolate; UpsamplingNearest2d and UpsamplingBilinear2d are
// its fixed-mode forms), PixelShuffle and PixelUnshuffle. The result is a new contiguous tensor.
// derivatives.yaml: upsample_{nearest,linear,bilinear,bicubic,trilinear}Nd and _upsample_nearest_exactNd
// pass only sizes to their backward (upsample_*_backward(grad, output_size, self.sym_sizes(), ...)), so
// they keep nothing; mode "area" is adaptive_avg_poolNd, which keeps its input (nothing when every output
// size is 1: it runs as a mean). pixel_shuffle / pixel_unshuffle keep nothing (each one's backward is the
// other). None is on the CUDA autocast lists: they run in their input's dtype.
// Output sizes (torch/nn/functional.py interpolate): `size`, or floor(input size x scale_factor).
#include "KindSupport.h"
#include "Kinds.h"
#include "Layout.h"

#include <algorithm>
#include <cmath>

namespace headroom::layers {
namespace {

/// Spatial axes each mode works on (the per-sample input has one more: channels).
std::pair<std::size_t, std::size_t> spatialAxesOf(const std::string& mode)
{
    if (mode == "linear")
        return { 1, 1 };
    if (mode == "bilinear" || mode == "bicubic")
        return { 2, 2 };
    if (mode == "trilinear")
        return { 3, 3 };
    return { 1, 3 }; // nearest, nearest-exact, area
}

class UpsampleKind final : public DescribedKind
{
public:
    /// `fixedMode` empty: nn.Upsample with a `mode` attribute; otherwise UpsamplingNearest2d /
    /// UpsamplingBilinear2d (bilinear with align_corners=True).
    UpsampleKind(std::string type, std::string fixedMode)
        : DescribedKind(std::move(type), LayerCategory::Shape,
            fixedMode.empty() ? "Resizes the spatial axes (nn.Upsample, F.interpolate)"
                              : "Resizes the spatial axes, " + fixedMode + " (2-D)",
            attributesFor(fixedMode.empty()))
        , m_fixedMode { std::move(fixedMode) }
    {
    }

    [[nodiscard]] Result<LayerOutcome> infer(const LayerContext& ctx) const override
    {
        const auto& in = ctx.in();
        const auto& a = ctx.attrs;
        const std::string mode = m_fixedMode.empty() ? a.choice("mode") : m_fixedMode;
        auto [minAxes, maxAxes] = spatialAxesOf(mode);
        if (!m_fixedMode.empty())
            minAxes = maxAxes = 2;
        if (!isFloatingPoint(in.dtype))
            return failure("needs a floating-point input");
        if (in.shape.rank() < minAxes + 1 || in.shape.rank() > maxAxes + 1)
            return failure("mode \"" + mode + "\" resizes "
                + (minAxes == maxAxes ? std::to_string(minAxes) : "1 to 3")
                + " spatial axes of an input [C, ...] but gets " + in.shape.toString());
        if (m_fixedMode.empty() && a.has("align_corners") && a.flag("align_corners")
            && (mode == "nearest" || mode == "nearest-exact" || mode == "area"))
            return failure("align_corners only applies to the interpolating modes (linear, bilinear, "
                           "bicubic, trilinear)");
        if (a.has("size") == a.has("scale_factor"))
            return failure("needs exactly one of `size` and `scale_factor`");
        const std::size_t axes = in.shape.rank() - 1;
        Shape shape { { in.shape.dims[0] } };
        if (a.has("size")) {
            auto size = a.integers("size");
            if (size.size() == 1)
                size.assign(axes, size[0]);
            if (size.size() != axes)
                return failure("size lists " + std::to_string(size.size()) + " sizes for "
                    + std::to_string(axes) + " spatial axes");
            shape.dims.insert(shape.dims.end(), size.begin(), size.end());
        } else {
            const double scale = a.real("scale_factor");
            for (std::size_t d = 0; d < axes; ++d) {
                const double size = std::floor(static_cast<double>(in.shape.dims[d + 1]) * scale);
                if (size < 1)
                    return failure("scale_factor " + std::to_string(scale) + " leaves no output for input "
                        + in.shape.toString());
                if (size > 4.0e18)
                    return tooLarge("the upsampled size of " + in.shape.toString());
                shape.dims.push_back(static_cast<std::int64_t>(size));
            }
        }
        LayerOutcome o;
        o.output = contiguousTensor(shape, in.dtype);
        o.aliasedInputGradients = { false };
        const bool allOnes
            = std::all_of(shape.dims.begin() + 1, shape.dims.end(), [](auto s) { return s == 1; });
        if (mode == "area" && !allOnes)
            o.saved.push_back(SavedTensor::input());
        const std::uint64_t perOutput = mode == "bicubic" ? 16
            : mode == "trilinear"                         ? 8
            : mode == "bilinear"                          ? 4
            : mode == "linear"                            ? 2
                                                          : 1;
        o.forwardFlopsPerSample = Count { 2 * perOutput } * shape.elements();
        return o;
    }

private:
    static std::vector<AttributeSpec> attributesFor(bool withMode)
    {
        AttributeSpec scale = floatAttr("scale_factor", 1.0,
            "Multiplier of every spatial axis (the output is floor(input x scale_factor))", 0.0, 1e9);
        scale.minFloatExclusive = true;
        std::vector<AttributeSpec> attrs {
            optionalAttr(
                listAttr("size", "Output size of the spatial axes (one size for all, or one per axis)"),
                "from scale_factor"),
            optionalAttr(scale, "from size")
        };
        if (withMode) {
            attrs.push_back(choiceAttr("mode", "nearest",
                { "nearest", "linear", "bilinear", "bicubic", "trilinear", "nearest-exact", "area" },
                "Interpolation"));
            attrs.push_back(optionalAttr(
                boolAttr("align_corners", false, "Aligns the corner pixels (interpolating modes)"), "false"));
            attrs.push_back(
                optionalAttr(boolAttr("recompute_scale_factor", false,
                                 "Recomputes the scale from the output size (sizes are the same)"),
                    "false"));
        }
        return attrs;
    }

    std::string m_fixedMode;
};

class PixelShuffleKind final : public DescribedKind
{
public:
    explicit PixelShuffleKind(bool unshuffle)
        : DescribedKind(unshuffle ? "PixelUnshuffle" : "PixelShuffle", LayerCategory::Shape,
            unshuffle ? "[C, H r, W r] to [C r^2, H, W]"
                      : "[C r^2, H, W] to [C, H r, W r] (sub-pixel convolution)",
            { intAttr(unshuffle ? "downscale_factor" : "upscale_factor", nullptr, "The factor r") })
        , m_unshuffle { unshuffle }
    {
    }

    [[nodiscard]] Result<LayerOutcome> infer(const LayerContext& ctx) const override
    {
        const auto& in = ctx.in();
        if (in.shape.rank() < 3)
            return failure("expects a per-sample input [C, H, W] (or with more leading axes) but gets "
                + in.shape.toString());
        const std::int64_t r = ctx.attrs.integer(m_unshuffle ? "downscale_factor" : "upscale_factor");
        const std::size_t c = in.shape.rank() - 3;
        Shape shape = in.shape;
        if (m_unshuffle) {
            if (shape.dims[c + 1] % r != 0 || shape.dims[c + 2] % r != 0)
                return failure("height and width " + std::to_string(shape.dims[c + 1]) + "x"
                    + std::to_string(shape.dims[c + 2]) + " must be divisible by downscale_factor "
                    + std::to_string(r));
            const auto grown = grownSize(shape.dims[c], r * r);
            if (!grown)
                return tooLarge("the channels of " + in.shape.toString() + " x downscale_factor^2");
            shape.dims[c] = *grown;
            shape.dims[c + 1] /= r;
            shape.dims[c + 2] /= r;
        } else {
            if (shape.dims[c] % (r * r) != 0)
                return failure("channels " + std::to_string(shape.dims[c])
                    + " must be divisible by upscale_factor^2 = " + std::to_string(r * r));
            shape.dims[c] /= r * r;
            for (std::size_t d = c + 1; d <= c + 2; ++d) {
                const auto grown = grownSize(shape.dims[d], r);
                if (!grown)
                    return tooLarge("the shuffled size of " + in.shape.toString());
                shape.dims[d] = *grown;
            }
        }
        LayerOutcome o;
        o.output = contiguousTensor(shape, in.dtype);
        o.aliasedInputGradients = { false };
        return o;
    }

private:
    bool m_unshuffle;
};

} // namespace

std::unique_ptr<LayerKind> makeUpsample()
{
    return std::make_unique<UpsampleKind>("Upsample", "");
}
std::unique_ptr<LayerKind> makeUpsamplingNearest2d()
{
    return std::make_unique<UpsampleKind>("UpsamplingNearest2d", "nearest");
}
std::unique_ptr<LayerKind> makeUpsamplingBilinear2d()
{
    return std::make_unique<UpsampleKind>("UpsamplingBilinear2d", "bilinear");
}
std::unique_ptr<LayerKind> makePixelShuffle()
{
    return std::make_unique<PixelShuffleKind>(false);
}
std::unique_ptr<LayerKind> makePixelUnshuffle()
{
    return std::make_unique<PixelShuffleKind>(true);
}

} // namespace headroom::layers

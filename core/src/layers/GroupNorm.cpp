// GroupNorm (torch.nn.GroupNorm): native_group_norm saves its input and a mean and rstd per
// (sample, group). Autocast runs it in float32.
#include "KindSupport.h"
#include "Kinds.h"

namespace headroom::layers {
namespace {

class GroupNormKind final : public DescribedKind
{
public:
    GroupNormKind()
        : DescribedKind("GroupNorm", LayerCategory::Normalization, "Group normalisation over [C, *]",
            { intAttr("num_groups", nullptr, "Groups the channels are split into"),
                inferredAttr("num_channels", "Channels"),
                floatAttr("eps", 1e-5, "Added to the variance", 0.0, 1.0),
                boolAttr("affine", true, "Learnable per-channel scale and shift") })
    {
    }

    [[nodiscard]] AutocastPolicy autocast() const override { return AutocastPolicy::Float32; }

    [[nodiscard]] Result<LayerOutcome> infer(const LayerContext& ctx) const override
    {
        const auto& in = ctx.in();
        if (in.shape.rank() < 1 || !isFloatingPoint(in.dtype))
            return failure("needs a floating-point input of shape [C, *]");
        const std::int64_t channels = in.shape.dims[0];
        if (auto e = checkInferred(ctx.attrs, "num_channels", channels, "channels"))
            return *e;
        const std::int64_t groups = ctx.attrs.integer("num_groups");
        if (channels % groups != 0)
            return failure("num_groups " + std::to_string(groups) + " must divide the "
                + std::to_string(channels) + " channels");
        LayerOutcome o;
        o.output = in;
        if (ctx.attrs.flag("affine")) {
            o.params.push_back(parameter("weight", Count::fromSigned(channels)));
            o.params.push_back(parameter("bias", Count::fromSigned(channels)));
        }
        o.saved.push_back(SavedTensor::input());
        o.saved.push_back(SavedTensor::internal("mean", Count::fromSigned(groups), in.dtype));
        o.saved.push_back(SavedTensor::internal("rstd", Count::fromSigned(groups), in.dtype));
        o.forwardFlopsPerSample = Count { 5 } * in.shape.elements();
        return o;
    }
};

} // namespace

std::unique_ptr<LayerKind> makeGroupNorm()
{
    return std::make_unique<GroupNormKind>();
}

} // namespace headroom::layers

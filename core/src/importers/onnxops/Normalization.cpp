// BatchNormalization -> BatchNorm1d / 2d / 3d, InstanceNormalization -> InstanceNorm1d / 2d / 3d,
// LayerNormalization -> LayerNorm.
#include "Families.h"

#include <cmath>

namespace headroom::onnximport::ops {

namespace {

using nlohmann::json;

/// The channel count of node `i`'s input (its second axis), or nullopt with the shape recorded missing.
std::optional<std::int64_t> channelsOf(MappingContext& ctx, int i)
{
    const auto& input = ctx.node(i).input(0);
    const auto* t = ctx.graph().type(input);
    if (t == nullptr || t->rank() < 2 || !t->dims[1].known()) {
        ctx.missing(i, input);
        return std::nullopt;
    }
    return *t->dims[1].value;
}

void batchNorm(MappingContext& ctx, int i)
{
    const auto& n = ctx.node(i);
    if (n.input_size() < 5) {
        ctx.reject(i, "it lacks scale, bias, mean or variance inputs");
        return;
    }
    const auto rank = ctx.rankOf(i, n.input(0));
    if (!rank)
        return;
    if (*rank < 2 || *rank > 5) {
        ctx.refuse(i, "only inputs of rank 2 to 5 have a BatchNorm layer (BatchNorm1d, 2d, 3d)");
        return;
    }
    const auto channels = channelsOf(ctx, i);
    if (!channels)
        return;
    for (int k = 1; k < 5; ++k) {
        const char* what = k == 1 ? "scale" : k == 2 ? "bias" : k == 3 ? "mean" : "variance";
        if (!ctx.parameterShaped(i, n.input(k), what, { *channels }, "one value per channel"))
            return;
    }
    json a = json::object();
    if (const auto eps = attrFloat(n, "epsilon"); eps && !near(*eps, 1e-5))
        a["eps"] = *eps;
    // ONNX's momentum weighs the old running value; PyTorch's weighs the new batch statistic.
    if (const auto m = attrFloat(n, "momentum")) {
        const double torchMomentum = std::round((1.0 - *m) * 1e9) / 1e9;
        if (!near(torchMomentum, 0.1))
            a["momentum"] = torchMomentum;
    }
    ctx.emit(i, *rank == 5 ? "BatchNorm3d" : *rank == 4 ? "BatchNorm2d" : "BatchNorm1d", a);
}

/// InstanceNormalization -> InstanceNorm1d/2d/3d: affine when its scale and bias are stored parameters
/// (initializers); torch writes constant ones and zeros for affine=False. ONNX has no running
/// statistics, so track_running_stats stays PyTorch's default (false).
void instanceNorm(MappingContext& ctx, int i)
{
    const auto& n = ctx.node(i);
    if (n.input_size() < 3) {
        ctx.reject(i, "it lacks scale or bias inputs");
        return;
    }
    const auto rank = ctx.rankOf(i, n.input(0));
    if (!rank)
        return;
    if (*rank < 3 || *rank > 5) {
        ctx.refuse(i, "only inputs of rank 3 to 5 have an InstanceNorm layer (InstanceNorm1d, 2d, 3d)");
        return;
    }
    const auto channels = channelsOf(ctx, i);
    if (!channels || !ctx.parameterShaped(i, n.input(1), "scale", { *channels }, "one value per channel")
        || !ctx.parameterShaped(i, n.input(2), "bias", { *channels }, "one value per channel"))
        return;
    json a = json::object();
    if (const auto eps = attrFloat(n, "epsilon"); eps && !near(*eps, 1e-5))
        a["eps"] = *eps;
    if (ctx.graph().isInitializer(n.input(1)))
        a["affine"] = true;
    ctx.emit(i, "InstanceNorm" + std::to_string(*rank - 2) + "d", a);
}

void layerNorm(MappingContext& ctx, int i)
{
    const auto& n = ctx.node(i);
    if (n.input_size() < 2) {
        ctx.reject(i, "it has no scale input");
        return;
    }
    const auto in = ctx.perSampleOf(i, n.input(0));
    if (!in)
        return;
    const bool bias = n.input_size() > 2 && !n.input(2).empty();
    const auto rank = static_cast<std::int64_t>(in->size()) + 1;
    std::int64_t axis = attrInt(n, "axis").value_or(-1);
    if (axis < 0)
        axis += rank;
    if (axis < 1 || axis >= rank) {
        ctx.reject(i,
            "its axis " + std::to_string(attrInt(n, "axis").value_or(-1))
                + " is not a feature axis (the batch axis cannot be normalised per sample)");
        return;
    }
    const std::vector<std::int64_t> normalized(in->begin() + (axis - 1), in->end());
    if (!ctx.parameterShaped(i, n.input(1), "scale", normalized, "the normalised axes")
        || (bias && !ctx.parameterShaped(i, n.input(2), "bias", normalized, "the normalised axes")))
        return;
    json a = json::object();
    if (axis != rank - 1)
        a["normalized_shape"] = normalized;
    if (const auto eps = attrFloat(n, "epsilon"); eps && !near(*eps, 1e-5))
        a["eps"] = *eps;
    if (!bias)
        a["bias"] = false;
    ctx.emit(i, "LayerNorm", a);
}

} // namespace

void addNormalization(Operators& table)
{
    table.push_back({ "BatchNormalization", &batchNorm });
    table.push_back({ "LayerNormalization", &layerNorm });
    table.push_back({ "InstanceNormalization", &instanceNorm });
}

} // namespace headroom::onnximport::ops

// MaxPool -> MaxPool1d/2d/3d, AveragePool -> AvgPool1d/2d/3d, GlobalAveragePool / GlobalMaxPool ->
// AdaptiveAvgPool / AdaptiveMaxPool 1d/2d/3d (output_size 1).
#include "Families.h"

namespace headroom::onnximport::ops {

namespace {

using nlohmann::json;

void pool(MappingContext& ctx, int i, bool isMax)
{
    const auto& n = ctx.node(i);
    const auto rank = ctx.rankOf(i, n.input(0));
    if (!rank)
        return;
    if (*rank < 3 || *rank > 5) {
        ctx.refuse(i, std::to_string(*rank - 2) + "-D pooling has no Headroom layer");
        return;
    }
    const std::size_t spatial = *rank - 2;
    if (isMax && n.output_size() > 1 && !n.output(1).empty() && !ctx.graph().consumers(n.output(1)).empty()) {
        ctx.refuse(i, "its indices output is used, which no Headroom layer models");
        return;
    }
    const auto kernel = ctx.window(i, "kernel_shape", spatial, std::nullopt);
    const auto stride = ctx.window(i, "strides", spatial, std::vector<std::int64_t>(spatial, 1));
    const auto dilation = isMax
        ? ctx.window(i, "dilations", spatial, std::vector<std::int64_t>(spatial, 1))
        : std::optional<std::vector<std::int64_t>>(std::vector<std::int64_t>(spatial, 1));
    if (!kernel || !stride || !dilation)
        return;
    const auto pad = ctx.padding(i, spatial, *kernel, *stride, *dilation, false);
    if (!pad)
        return;
    json a { { "kernel_size", tupleJson(*kernel) }, { "stride", tupleJson(*stride) } };
    if (const auto& p = std::get<std::vector<std::int64_t>>(*pad); !allEqual(p, 0))
        a["padding"] = tupleJson(p);
    if (!allEqual(*dilation, 1))
        a["dilation"] = tupleJson(*dilation);
    if (attrInt(n, "ceil_mode").value_or(0) != 0)
        a["ceil_mode"] = true;
    if (!isMax && attrInt(n, "count_include_pad").value_or(0) == 0)
        a["count_include_pad"] = false;
    ctx.emit(i, (isMax ? "MaxPool" : "AvgPool") + std::to_string(spatial) + "d", a);
}

void maxPool(MappingContext& ctx, int i)
{
    pool(ctx, i, true);
}
void averagePool(MappingContext& ctx, int i)
{
    pool(ctx, i, false);
}

/// GlobalAveragePool / GlobalMaxPool: adaptive pooling to one value per channel, 1-D to 3-D.
void globalPool(MappingContext& ctx, int i, const char* kind)
{
    const auto rank = ctx.rankOf(i, ctx.node(i).input(0));
    if (!rank)
        return;
    if (*rank < 3 || *rank > 5) {
        ctx.refuse(i, std::to_string(*rank - 2) + "-D global pooling has no Headroom layer");
        return;
    }
    ctx.emit(i, kind + std::to_string(*rank - 2) + "d", json { { "output_size", 1 } });
}

void globalAveragePool(MappingContext& ctx, int i)
{
    globalPool(ctx, i, "AdaptiveAvgPool");
}
void globalMaxPool(MappingContext& ctx, int i)
{
    globalPool(ctx, i, "AdaptiveMaxPool");
}

} // namespace

void addPooling(Operators& table)
{
    table.push_back({ "MaxPool", &maxPool });
    table.push_back({ "AveragePool", &averagePool });
    table.push_back({ "GlobalAveragePool", &globalAveragePool });
    table.push_back({ "GlobalMaxPool", &globalMaxPool });
}

} // namespace headroom::onnximport::ops

// MaxPool -> MaxPool2d, AveragePool -> AvgPool2d, GlobalAveragePool -> AdaptiveAvgPool2d(1).
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
    if (*rank != 4) {
        ctx.refuse(i, "only 2-D pooling has a Headroom layer");
        return;
    }
    if (isMax && n.output_size() > 1 && !n.output(1).empty() && !ctx.graph().consumers(n.output(1)).empty()) {
        ctx.refuse(i, "its indices output is used, which no Headroom layer models");
        return;
    }
    const auto kernel = ctx.window(i, "kernel_shape", 2, std::nullopt);
    const auto stride = ctx.window(i, "strides", 2, std::vector<std::int64_t>(2, 1));
    const auto dilation = isMax ? ctx.window(i, "dilations", 2, std::vector<std::int64_t>(2, 1))
                                : std::optional<std::vector<std::int64_t>>(std::vector<std::int64_t>(2, 1));
    if (!kernel || !stride || !dilation)
        return;
    const auto pad = ctx.padding(i, 2, *kernel, *stride, *dilation, false);
    if (!pad)
        return;
    json a{{"kernel_size", tupleJson(*kernel)}, {"stride", tupleJson(*stride)}};
    if (const auto& p = std::get<std::vector<std::int64_t>>(*pad); !allEqual(p, 0))
        a["padding"] = tupleJson(p);
    if (!allEqual(*dilation, 1))
        a["dilation"] = tupleJson(*dilation);
    if (attrInt(n, "ceil_mode").value_or(0) != 0)
        a["ceil_mode"] = true;
    if (!isMax && attrInt(n, "count_include_pad").value_or(0) == 0)
        a["count_include_pad"] = false;
    ctx.emit(i, isMax ? "MaxPool2d" : "AvgPool2d", a);
}

void maxPool(MappingContext& ctx, int i) { pool(ctx, i, true); }
void averagePool(MappingContext& ctx, int i) { pool(ctx, i, false); }

void globalAveragePool(MappingContext& ctx, int i)
{
    const auto rank = ctx.rankOf(i, ctx.node(i).input(0));
    if (!rank)
        return;
    if (*rank != 4) {
        ctx.refuse(i, "only 2-D global pooling has a Headroom layer (AdaptiveAvgPool2d)");
        return;
    }
    ctx.emit(i, "AdaptiveAvgPool2d", json{{"output_size", 1}});
}

} // namespace

void addPooling(Operators& table)
{
    table.push_back({"MaxPool", &maxPool});
    table.push_back({"AveragePool", &averagePool});
    table.push_back({"GlobalAveragePool", &globalAveragePool});
}

} // namespace headroom::onnximport::ops

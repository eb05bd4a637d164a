// Softmax -> Softmax; LogSoftmax only as the graph's last node, folded into the cross-entropy loss.
#include "Families.h"

namespace headroom::onnximport::ops {

namespace {

using nlohmann::json;

void softmax(MappingContext& ctx, int i)
{
    const auto& n = ctx.node(i);
    const auto rank = ctx.rankOf(i, n.input(0));
    if (!rank)
        return;
    const auto r = static_cast<std::int64_t>(*rank);
    std::int64_t axis = attrInt(n, "axis").value_or(ctx.opset() < 13 ? 1 : -1);
    if (axis < 0)
        axis += r;
    if (axis < 0 || axis >= r || axis == static_cast<std::int64_t>(ctx.graph().batchAxisOf(n.input(0)))) {
        ctx.reject(i, "its axis is not a feature axis (the batch axis cannot be normalised per sample)");
        return;
    }
    if (ctx.opset() < 13 && axis != r - 1) {
        ctx.refuse(i,
            "before opset 13 Softmax normalises all axes from " + std::to_string(axis)
                + " on together, which has no Headroom layer");
        return;
    }
    json a = json::object();
    // A batch axis merged with values of each sample before `axis` is several axes in Headroom's tensor.
    const bool mergedBefore = axis > static_cast<std::int64_t>(ctx.graph().batchAxisOf(n.input(0)));
    if (axis != r - 1)
        a["dim"] = axis
            + (mergedBefore ? static_cast<std::int64_t>(ctx.graph().batchMergeOf(n.input(0)).axes()) - 1 : 0);
    ctx.emit(i, "Softmax", a);
}

void logSoftmax(MappingContext& ctx, int i)
{
    ctx.refuse(i, "only as the graph's last operator, where it becomes part of the cross-entropy loss");
}

} // namespace

void addSoftmax(Operators& table)
{
    table.push_back({ "Softmax", &softmax });
    table.push_back({ "LogSoftmax", &logSoftmax });
}

} // namespace headroom::onnximport::ops

// Add / Sum and Concat of computed tensors -> Add, Concat (residual branches, skip connections).
#include "Families.h"

namespace headroom::onnximport::ops {

namespace {

using nlohmann::json;

void add(MappingContext& ctx, int i)
{
    const auto& n = ctx.node(i);
    std::vector<std::string> inputs;
    for (const auto& in : n.input()) {
        if (in.empty())
            continue;
        if (!ctx.graph().isDynamic(in)) {
            ctx.refuse(i,
                "it adds the stored tensor '" + in
                    + "' (a bias or a learned table), which no Headroom "
                      "layer holds");
            return;
        }
        inputs.push_back(in);
    }
    if (inputs.size() == 1) {
        ctx.emit(i, "Identity");
        return;
    }
    ctx.push(PendingLayer{"Add", json::object(), inputs, n.output(0), i});
}

void concat(MappingContext& ctx, int i)
{
    const auto& n = ctx.node(i);
    std::vector<std::string> inputs;
    for (const auto& in : n.input()) {
        if (in.empty())
            continue;
        if (!ctx.graph().isDynamic(in)) {
            ctx.refuse(i, "it concatenates the stored tensor '" + in + "', which no Headroom layer holds");
            return;
        }
        inputs.push_back(in);
    }
    const auto rank = ctx.rankOf(i, n.input(0));
    if (!rank)
        return;
    const auto r = static_cast<std::int64_t>(*rank);
    std::int64_t axis = attrInt(n, "axis").value_or(1);
    if (axis < 0)
        axis += r;
    if (axis < 1 || axis >= r) {
        ctx.reject(i, "it concatenates along the batch axis");
        return;
    }
    if (inputs.size() == 1) {
        ctx.emit(i, "Identity");
        return;
    }
    json a = json::object();
    if (axis != 1)
        a["dim"] = axis;
    ctx.push(PendingLayer{"Concat", a, inputs, n.output(0), i});
}

} // namespace

void addMerge(Operators& table)
{
    table.push_back({"Add", &add});
    table.push_back({"Sum", &add});
    table.push_back({"Concat", &concat});
}

} // namespace headroom::onnximport::ops

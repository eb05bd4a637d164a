// Sum of computed tensors -> Add; Concat -> Concat, with a stored tensor first as its parameter (a class
// token).
#include "Families.h"

namespace headroom::onnximport::ops {

namespace {

using nlohmann::json;

/// Sum of computed tensors (ONNX's variadic Sum) -> Add; ONNX's Add is in Arithmetic.cpp.
void sum(MappingContext& ctx, int i)
{
    const auto& n = ctx.node(i);
    std::vector<std::string> inputs;
    for (const auto& in : n.input()) {
        if (in.empty())
            continue;
        if (!ctx.graph().isDynamic(in)) {
            ctx.refuse(i, "it sums the stored tensor '" + in + "' with computed ones");
            return;
        }
        inputs.push_back(in);
    }
    if (inputs.size() == 1) {
        ctx.emit(i, "Identity");
        return;
    }
    ctx.push(PendingLayer { "Add", json::object(), inputs, n.output(0), i });
}

/// A stored tensor concatenated before the computed ones: the tensor itself, or one torch expanded over
/// the batch first (ViT's class token: `class_token.expand(n, -1, -1)`, whose Expand carries no data
/// from the input and so is not mapped itself). Returns its per-sample shape.
std::optional<std::vector<std::int64_t>> storedFirst(
    MappingContext& ctx, int i, const std::string& value, std::size_t rank)
{
    const auto& g = ctx.graph();
    std::string stored = value;
    if (g.isDynamic(value)) {
        const int expand = g.producer(value);
        if (!ctx.isOp(expand, "Expand") || g.isDynamic(ctx.node(expand).input(0))) {
            ctx.refuse(i, "it concatenates '" + value + "', computed from the input's shape only");
            return std::nullopt;
        }
        stored = ctx.node(expand).input(0);
    }
    const auto dims = ctx.weightDims(i, stored, "stored operand");
    if (!dims)
        return std::nullopt;
    if (dims->size() != rank || dims->front() != 1) {
        ctx.refuse(i, "its stored operand " + joinDims(*dims) + " is not one tensor per sample");
        return std::nullopt;
    }
    return std::vector<std::int64_t>(dims->begin() + 1, dims->end());
}

void concat(MappingContext& ctx, int i)
{
    const auto& n = ctx.node(i);
    const auto& g = ctx.graph();
    std::string computed;
    for (const auto& in : n.input()) {
        if (!in.empty() && g.carriesData(in)) {
            computed = in;
            break;
        }
    }
    if (computed.empty()) {
        ctx.reject(i, "none of its operands carries data from the input");
        return;
    }
    const auto rank = ctx.rankOf(i, computed);
    if (!rank)
        return;
    std::vector<std::string> inputs;
    std::optional<std::vector<std::int64_t>> parameter;
    for (int k = 0; k < n.input_size(); ++k) {
        const auto& in = n.input(k);
        if (in.empty())
            continue;
        if (g.carriesData(in)) {
            inputs.push_back(in);
            continue;
        }
        if (k != 0 || n.input_size() < 2) {
            ctx.refuse(i,
                "it concatenates the stored tensor '" + in
                    + "' after a computed one; Concat's parameter comes first");
            return;
        }
        const auto stored = storedFirst(ctx, i, in, *rank);
        if (!stored)
            return;
        parameter = *stored;
    }
    const auto r = static_cast<std::int64_t>(*rank);
    std::int64_t axis = attrInt(n, "axis").value_or(1);
    if (axis < 0)
        axis += r;
    if (axis < 1 || axis >= r) {
        ctx.reject(i, "it concatenates along the batch axis");
        return;
    }
    if (inputs.size() == 1 && !parameter) {
        ctx.emit(i, "Identity");
        return;
    }
    json a = json::object();
    if (axis != 1)
        a["dim"] = axis;
    if (parameter)
        a["parameter"] = *parameter;
    ctx.push(PendingLayer { "Concat", a, inputs, n.output(0), i });
}

} // namespace

void addMerge(Operators& table)
{
    table.push_back({ "Sum", &sum });
    table.push_back({ "Concat", &concat });
}

} // namespace headroom::onnximport::ops

// nn.LayerNorm / F.layer_norm as torch.onnx writes it below opset 17 (torch/onnx/symbolic_opset9.py
// layer_norm): mean = ReduceMean(x); d = x - mean; var = ReduceMean(Pow(d, 2)); n = d / Sqrt(var + eps);
// then Mul by the weight and Add of the bias when elementwise_affine. Comes back as one LayerNorm, which
// keeps what native_layer_norm keeps (its input, mean and rstd) instead of the nine nodes' tensors.
#include "Families.h"

namespace headroom::onnximport::ops {

namespace {

/// The reduced axes of a ReduceMean that keeps dims, as counts from the end ({1, 2}: the last two), or
/// empty when they are not the trailing axes of a known-rank input.
std::vector<std::int64_t> trailingAxes(const MappingContext& ctx, int node, std::size_t rank)
{
    const auto& n = ctx.node(node);
    if (attrInt(n, "keepdims").value_or(1) != 1 || n.input_size() != 1)
        return {};
    auto axes = attrInts(n, "axes");
    if (!axes || axes->empty() || axes->size() >= rank)
        return {};
    std::vector<bool> reduced(rank, false);
    for (auto a : *axes) {
        if (a < 0)
            a += static_cast<std::int64_t>(rank);
        if (a < 1 || a >= static_cast<std::int64_t>(rank) || reduced[static_cast<std::size_t>(a)])
            return {};
        reduced[static_cast<std::size_t>(a)] = true;
    }
    for (std::size_t k = rank - axes->size(); k < rank; ++k) {
        if (!reduced[k])
            return {};
    }
    return *axes;
}

/// A stored tensor (the affine weight or bias) whose dims are exactly `shape`.
bool isStoredOfShape(
    const MappingContext& ctx, const std::string& value, const std::vector<std::int64_t>& shape)
{
    const auto& g = ctx.graph();
    if (value.empty() || g.isDynamic(value))
        return false;
    const auto* t = g.type(value);
    const auto dims = t ? t->knownDims() : std::nullopt;
    return dims && *dims == shape;
}

} // namespace

void recogniseLayerNorm(MappingContext& ctx, int mean)
{
    const auto& g = ctx.graph();
    const auto& m1 = ctx.node(mean);
    const std::string& x = m1.input(0);
    const auto* xt = g.type(x);
    const auto perSample = g.perSampleOf(x);
    if (!xt || !perSample || !g.carriesData(x))
        return;
    const auto axes = trailingAxes(ctx, mean, xt->rank());
    if (axes.empty() || axes.size() >= xt->rank() - g.batchAxisOf(x)) // the batch axis is not normalised
        return;
    const int sub = ctx.soleConsumer(m1.output(0));
    if (!ctx.isOp(sub, "Sub") || ctx.node(sub).input(0) != x || ctx.node(sub).input(1) != m1.output(0))
        return;
    const std::string& d = ctx.node(sub).output(0);
    const auto& dUsers = g.consumers(d);
    if (dUsers.size() != 2 || g.isGraphOutput(d))
        return;
    const int pow = ctx.isOp(dUsers[0], "Pow") ? dUsers[0] : dUsers[1];
    const int div = pow == dUsers[0] ? dUsers[1] : dUsers[0];
    if (!ctx.isOp(pow, "Pow") || !ctx.isOp(div, "Div") || ctx.node(pow).input(0) != d
        || !ctx.isConstant(ctx.node(pow).input(1), 2.0) || ctx.node(div).input(0) != d)
        return;
    const int mean2 = ctx.soleConsumer(ctx.node(pow).output(0));
    if (!ctx.isOp(mean2, "ReduceMean") || trailingAxes(ctx, mean2, xt->rank()) != axes)
        return;
    const int addEps = ctx.soleConsumer(ctx.node(mean2).output(0));
    if (!ctx.isOp(addEps, "Add") || ctx.node(addEps).input(0) != ctx.node(mean2).output(0))
        return;
    const auto eps = g.constantNumbers(ctx.node(addEps).input(1), 1);
    const int sqrt = ctx.soleConsumer(ctx.node(addEps).output(0));
    if (!eps || eps->size() != 1 || !(eps->front() >= 0.0 && eps->front() <= 1.0) || !ctx.isOp(sqrt, "Sqrt")
        || ctx.soleConsumer(ctx.node(sqrt).output(0)) != div
        || ctx.node(div).input(1) != ctx.node(sqrt).output(0))
        return;
    const std::vector<std::int64_t> normalized(
        perSample->end() - static_cast<std::ptrdiff_t>(axes.size()), perSample->end());
    std::vector<int> parts { mean, sub, pow, mean2, addEps, sqrt, div };
    int last = div;
    bool affine = false, bias = false;
    const int mul = ctx.soleConsumer(ctx.node(div).output(0));
    if (ctx.isOp(mul, "Mul") && ctx.node(mul).input(0) == ctx.node(div).output(0)
        && isStoredOfShape(ctx, ctx.node(mul).input(1), normalized)) {
        affine = true;
        parts.push_back(last = mul);
        const int add = ctx.soleConsumer(ctx.node(mul).output(0));
        if (ctx.isOp(add, "Add") && ctx.node(add).input(0) == ctx.node(mul).output(0)
            && isStoredOfShape(ctx, ctx.node(add).input(1), normalized)) {
            bias = true;
            parts.push_back(last = add);
        }
    }
    nlohmann::json a = nlohmann::json::object();
    if (normalized.size() > 1)
        a["normalized_shape"] = normalized;
    const double epsilon = decimal(static_cast<float>(eps->front()));
    if (!near(epsilon, 1e-5))
        a["eps"] = epsilon;
    if (!affine)
        a["elementwise_affine"] = false;
    else if (!bias)
        a["bias"] = false;
    ctx.fuse(parts, PendingLayer { "LayerNorm", a, { x }, ctx.node(last).output(0), last });
}

} // namespace headroom::onnximport::ops

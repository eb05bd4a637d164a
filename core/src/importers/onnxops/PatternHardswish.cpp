// nn.Hardswish as torch writes it below opset 14: x * HardSigmoid(x, alpha = 1/6, beta = 0.5); and nn.Mish
// as torch 1.13 writes it: x * tanh(softplus(x)). Each keeps its input, as the one PyTorch op does.
#include "Families.h"

namespace headroom::onnximport::ops {

namespace {

/// Fuses `mul` = x * f(x), where `inner` (the node computing f's last step) reads `chainStart`'s output.
void fuseSelfGate(MappingContext& ctx, const std::vector<int>& chain, const std::string& x, const char* kind)
{
    const int last = chain.back();
    const int mul = ctx.soleConsumer(ctx.node(last).output(0));
    if (!ctx.isOp(mul, "Mul") || MappingContext::otherOperand(ctx.node(mul), ctx.node(last).output(0)) != x)
        return;
    for (std::size_t k = 0; k + 1 < chain.size(); ++k) {
        if (ctx.soleConsumer(ctx.node(chain[k]).output(0)) != chain[k + 1])
            return;
    }
    std::vector<int> parts = chain;
    parts.push_back(mul);
    ctx.fuse(parts, PendingLayer { kind, nlohmann::json::object(), { x }, ctx.node(mul).output(0), mul });
}

} // namespace

void recogniseHardswish(MappingContext& ctx, int hardSigmoid)
{
    const auto& h = ctx.node(hardSigmoid);
    if (h.input_size() != 1 || !near(attrFloat(h, "alpha").value_or(0.2), 1.0 / 6.0)
        || !near(attrFloat(h, "beta").value_or(0.5), 0.5))
        return;
    fuseSelfGate(ctx, { hardSigmoid }, h.input(0), "Hardswish");
}

void recogniseMish(MappingContext& ctx, int softplus)
{
    const auto& s = ctx.node(softplus);
    if (s.input_size() != 1)
        return;
    const int tanh = ctx.soleConsumer(s.output(0));
    if (!ctx.isOp(tanh, "Tanh"))
        return;
    fuseSelfGate(ctx, { softplus, tanh }, s.input(0), "Mish");
}

} // namespace headroom::onnximport::ops

// torch's export of nn.GELU(): x * (erf(x / sqrt(2)) + 1) * 0.5, also with x * 0.5 multiplied first.
#include "Families.h"

#include <cmath>

namespace headroom::onnximport::ops {

void recogniseGeluErf(MappingContext& ctx, int erf)
{
    const auto& g = ctx.graph();
    const auto& e = ctx.node(erf);
    if (e.input_size() != 1 || e.output_size() != 1)
        return;
    const int scale = g.producer(e.input(0));
    std::string x;
    if (ctx.isOp(scale, "Div") && ctx.node(scale).input_size() == 2
        && ctx.isConstant(ctx.node(scale).input(1), std::sqrt(2.0)))
        x = ctx.node(scale).input(0);
    else if (ctx.isOp(scale, "Mul") && ctx.node(scale).input_size() == 2) {
        for (int k = 0; k < 2 && x.empty(); ++k) {
            if (ctx.isConstant(ctx.node(scale).input(k), std::sqrt(0.5)))
                x = ctx.node(scale).input(1 - k);
        }
    }
    if (x.empty() || !g.isDynamic(x) || ctx.soleConsumer(e.input(0)) != erf)
        return;
    const int plusOne = ctx.soleConsumer(e.output(0));
    if (!ctx.isOp(plusOne, "Add")
        || !ctx.isConstant(MappingContext::otherOperand(ctx.node(plusOne), e.output(0)), 1.0))
        return;
    const std::string& sum = ctx.node(plusOne).output(0);
    const int times = ctx.soleConsumer(sum);
    if (!ctx.isOp(times, "Mul"))
        return;
    const std::string factor = MappingContext::otherOperand(ctx.node(times), sum);
    std::vector<int> parts { scale, erf, plusOne, times };
    int last = -1;
    if (factor == x) {
        last = ctx.soleConsumer(ctx.node(times).output(0));
        if (!ctx.isOp(last, "Mul")
            || !ctx.isConstant(MappingContext::otherOperand(ctx.node(last), ctx.node(times).output(0)), 0.5))
            return;
    } else {
        const int half = g.producer(factor);
        if (!ctx.isOp(half, "Mul") || ctx.soleConsumer(factor) != times
            || !ctx.isConstant(MappingContext::otherOperand(ctx.node(half), x), 0.5))
            return;
        parts.push_back(half);
        last = times;
    }
    parts.push_back(last);
    ctx.fuse(parts, PendingLayer { "GELU", nlohmann::json::object(), { x }, ctx.node(last).output(0), last });
}

} // namespace headroom::onnximport::ops

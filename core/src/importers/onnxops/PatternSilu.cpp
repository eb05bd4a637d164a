// nn.SiLU as torch exports it: x * sigmoid(x).
#include "Families.h"

namespace headroom::onnximport::ops {

void recogniseSilu(MappingContext& ctx, int mul)
{
    const auto& m = ctx.node(mul);
    if (m.input_size() != 2)
        return;
    for (int k = 0; k < 2; ++k) {
        const std::string& s = m.input(k);
        const std::string& x = m.input(1 - k);
        const int sig = ctx.graph().producer(s);
        if (ctx.isOp(sig, "Sigmoid") && ctx.node(sig).input_size() == 1 && ctx.node(sig).input(0) == x
            && ctx.soleConsumer(s) == mul && ctx.graph().isDynamic(x)) {
            ctx.fuse(
                { sig, mul }, PendingLayer { "SiLU", nlohmann::json::object(), { x }, m.output(0), mul });
            return;
        }
    }
}

} // namespace headroom::onnximport::ops

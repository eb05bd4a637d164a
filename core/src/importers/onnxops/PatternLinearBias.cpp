// nn.Linear on inputs with more than two axes: MatMul with a stored weight, then the Add of its bias.
#include "Families.h"

namespace headroom::onnximport::ops {

void recogniseLinearBias(MappingContext& ctx, int matmul)
{
    const auto& g = ctx.graph();
    const auto& m = ctx.node(matmul);
    if (m.input_size() != 2 || m.output_size() != 1 || g.isDynamic(m.input(1)))
        return;
    const auto* w = g.type(m.input(1));
    const auto wd = w ? w->knownDims() : std::nullopt;
    if (!wd || wd->size() != 2)
        return;
    const int add = ctx.soleConsumer(m.output(0));
    if (!ctx.isOp(add, "Add"))
        return;
    const std::string bias = MappingContext::otherOperand(ctx.node(add), m.output(0));
    if (bias.empty() || g.isDynamic(bias))
        return;
    const auto* b = g.type(bias);
    const auto bd = b ? b->knownDims() : std::nullopt;
    if (!bd || bd->empty() || bd->back() != (*wd)[1])
        return;
    for (std::size_t k = 0; k + 1 < bd->size(); ++k) {
        if ((*bd)[k] != 1)
            return;
    }
    auto layer = ctx.linearFrom(matmul, m.input(0), (*wd)[0], (*wd)[1], true, true);
    if (!layer)
        return;
    layer->node = add;
    layer->outputValue = ctx.node(add).output(0);
    ctx.fuse({ matmul, add }, std::move(*layer));
}

} // namespace headroom::onnximport::ops

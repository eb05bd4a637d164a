// A LogSoftmax on the last axis that produces the graph's output: what F.cross_entropy computes itself
// (log_softmax + nll_loss), so it becomes part of the loss rather than a layer.
#include "Families.h"

namespace headroom::onnximport::ops {

void recogniseTrailingLogSoftmax(MappingContext& ctx, int p)
{
    const auto& g = ctx.graph();
    if (g.graph().output_size() == 0)
        return;
    const std::string& out = g.graph().output(0).name();
    const auto& n = ctx.node(p);
    if (n.output_size() < 1 || n.output(0) != out || !g.consumers(out).empty())
        return;
    if (n.input_size() != 1 || !g.isDynamic(n.input(0)))
        return;
    const auto* t = g.type(n.input(0));
    if (t == nullptr || !t->hasShape)
        return;
    const auto rank = static_cast<std::int64_t>(t->rank());
    std::int64_t axis = attrInt(n, "axis").value_or(ctx.opset() < 13 ? 1 : -1);
    if (axis < 0)
        axis += rank;
    if (axis != rank - 1 || rank < 2)
        return;
    ctx.absorb(p, out, n.input(0));
    ctx.note("The graph's final LogSoftmax (" + nodeLabel(n)
        + ") is left out: the cross-entropy loss computes and keeps it.");
}

} // namespace headroom::onnximport::ops

// The mapping driver: which nodes matter, the pattern recognisers, then one mapper per remaining node.
// The operators and patterns themselves live under onnxops/, one file per family (OnnxRegistry.cpp).
#include "OnnxMapping.h"

namespace headroom::onnximport {

namespace {

void mapNode(MappingContext& ctx, int i)
{
    const auto& n = ctx.node(i);
    if (!n.domain().empty() && n.domain() != "ai.onnx") {
        ctx.refuse(i);
        return;
    }
    if (n.input_size() < 1 || n.output_size() < 1 || n.input(0).empty()) {
        ctx.refuse(i, n.op_type() == "Constant" ? "" : "it has no input");
        return;
    }
    const OperatorMapper map = findOperator(n.op_type());
    if (map == nullptr) {
        ctx.refuse(i);
        return;
    }
    map(ctx, i);
}

} // namespace

OperatorMapping mapOperators(const OnnxGraph& graph, int opset)
{
    MappingContext ctx(graph, opset);
    ctx.markNeeded();
    for (int i = 0; i < ctx.nodeCount(); ++i) {
        for (const auto& p : patterns()) {
            if (ctx.needed(i) && !ctx.absorbed(i) && ctx.fusedAt(i) == nullptr && ctx.isOp(i, p.anchorOp))
                p.recognise(ctx, i);
        }
    }
    for (int i = 0; i < ctx.nodeCount(); ++i) {
        if (!ctx.needed(i) || ctx.absorbed(i))
            continue;
        if (const auto* fused = ctx.fusedAt(i))
            ctx.push(*fused);
        else
            mapNode(ctx, i);
    }
    return ctx.take();
}

} // namespace headroom::onnximport

// F.avg_pool2d / nn.AvgPool2d with padding and count_include_pad=True (the default): torch.onnx writes a
// zero Pad of the spatial axes followed by an unpadded AveragePool (torch/onnx/symbolic_opset11.py
// avg_pool, because ONNX's count_include_pad pads with zeros only inside the window sum). It comes back
// as the one AvgPool2d, which keeps its unpadded input, not the padded copy.
#include "Families.h"

namespace headroom::onnximport::ops {

void recogniseZeroPaddedAvgPool(MappingContext& ctx, int pool)
{
    const auto& g = ctx.graph();
    const auto& p = ctx.node(pool);
    const int pad = p.input_size() == 1 ? g.producer(p.input(0)) : -1;
    if (!ctx.isOp(pad, "Pad") || ctx.soleConsumer(p.input(0)) != pool)
        return;
    const auto& n = ctx.node(pad);
    const auto* in = g.type(n.input(0));
    if (in == nullptr || in->rank() != 4 || attrString(n, "mode", "constant") != "constant"
        || !g.carriesData(n.input(0)))
        return;
    // pads: from the attribute before opset 11, then from the second input; the value must be 0.
    const auto pads = ctx.opset() < 11 ? [&]() -> std::optional<std::vector<double>> {
        const auto a = attrInts(n, "pads");
        return a ? std::optional<std::vector<double>>(std::vector<double>(a->begin(), a->end()))
                 : std::nullopt;
    }()
        : (n.input_size() > 1 ? g.constantNumbers(n.input(1), 16) : std::nullopt);
    const double value = ctx.opset() < 11
        ? attrFloat(n, "value").value_or(0.0)
        : (n.input_size() > 2 && !n.input(2).empty()
                ? g.constantNumbers(n.input(2), 1).value_or(std::vector<double> { 1.0 }).at(0)
                : 0.0);
    // [N, C, H, W] begins, then ends: nothing on N and C, the same on both sides of H and of W.
    if (!pads || pads->size() != 8 || value != 0.0 || (*pads)[0] != 0 || (*pads)[1] != 0 || (*pads)[4] != 0
        || (*pads)[5] != 0 || (*pads)[2] != (*pads)[6] || (*pads)[3] != (*pads)[7] || (*pads)[2] < 0
        || (*pads)[3] < 0)
        return;
    const auto kernel = attrInts(p, "kernel_shape");
    const auto stride = attrInts(p, "strides").value_or(std::vector<std::int64_t> { 1, 1 });
    const auto ownPads = attrInts(p, "pads").value_or(std::vector<std::int64_t>(4, 0));
    if (!kernel || kernel->size() != 2 || stride.size() != 2 || !allEqual(ownPads, 0)
        || attrString(p, "auto_pad", "NOTSET") != "NOTSET")
        return;
    const auto top = saturatedInteger((*pads)[2]);
    const auto left = saturatedInteger((*pads)[3]);
    if (!top || !left)
        return;
    const std::vector<std::int64_t> padding { *top, *left };
    // PyTorch allows at most half the kernel as padding; a wider Pad is not what avg_pool2d wrote.
    if (padding[0] > (*kernel)[0] / 2 || padding[1] > (*kernel)[1] / 2)
        return;
    nlohmann::json a { { "kernel_size", tupleJson(*kernel) }, { "stride", tupleJson(stride) },
        { "padding", tupleJson(padding) } };
    if (attrInt(p, "ceil_mode").value_or(0) != 0)
        a["ceil_mode"] = true;
    ctx.fuse({ pad, pool }, PendingLayer { "AvgPool2d", a, { n.input(0) }, p.output(0), pool });
}

} // namespace headroom::onnximport::ops

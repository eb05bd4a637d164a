// Conv -> Conv1d / Conv2d / Conv3d, ConvTranspose -> ConvTranspose1d / 2d / 3d: sizes from the stored weight,
// PyTorch's symmetric padding.
#include "Families.h"

#include <algorithm>

namespace headroom::onnximport::ops {

namespace {

using nlohmann::json;

/// A (transposed) convolution's stored weight dims and its input's rank; nullopt (the node refused or
/// rejected) when either is missing.
struct WeightAndRank
{
    std::vector<std::int64_t> weight;
    std::size_t rank = 0;
};

std::optional<WeightAndRank> weightAndRank(MappingContext& ctx, int i)
{
    const auto& n = ctx.node(i);
    if (n.input_size() < 2) {
        ctx.refuse(i, "it has no weight input");
        return std::nullopt;
    }
    auto w = ctx.weightDims(i, n.input(1), "weight");
    const auto rank = ctx.rankOf(i, n.input(0));
    if (!w || !rank)
        return std::nullopt;
    return WeightAndRank { std::move(*w), *rank };
}

void conv(MappingContext& ctx, int i)
{
    const auto& n = ctx.node(i);
    const auto wr = weightAndRank(ctx, i);
    if (!wr)
        return;
    const auto& w = wr->weight;
    const std::size_t rank = wr->rank;
    if (w.size() != rank) {
        ctx.reject(i, "its weight " + joinDims(w) + " does not fit an input of rank " + std::to_string(rank));
        return;
    }
    if (rank < 3 || rank > 5) {
        ctx.refuse(i, std::to_string(rank - 2) + "-D convolution has no Headroom layer");
        return;
    }
    const std::size_t spatial = rank - 2;
    const std::vector<std::int64_t> weightKernel(w.begin() + 2, w.end());
    const auto kernel = ctx.window(i, "kernel_shape", spatial, weightKernel);
    const auto stride = ctx.window(i, "strides", spatial, std::vector<std::int64_t>(spatial, 1));
    const auto dilation = ctx.window(i, "dilations", spatial, std::vector<std::int64_t>(spatial, 1));
    if (!kernel || !stride || !dilation)
        return;
    if (*kernel != weightKernel) {
        ctx.reject(i, "its kernel_shape " + joinDims(*kernel) + " disagrees with its weight " + joinDims(w));
        return;
    }
    const std::int64_t groups = attrInt(n, "group").value_or(1);
    if (groups < 1 || groups > kMaxDimension) {
        ctx.reject(i, "its group " + std::to_string(groups) + " is not a positive count");
        return;
    }
    const auto* in = ctx.graph().type(n.input(0));
    if (in && in->rank() > 1 && in->dims[1].known() && *in->dims[1].value != w[1] * groups) {
        ctx.reject(i,
            "its weight " + joinDims(w) + " with group " + std::to_string(groups) + " does not fit "
                + std::to_string(*in->dims[1].value) + " input channels");
        return;
    }
    const auto pad = ctx.padding(i, spatial, *kernel, *stride, *dilation, true);
    if (!pad)
        return;
    json a { { "out_channels", w[0] }, { "kernel_size", tupleJson(*kernel) } };
    if (!allEqual(*stride, 1))
        a["stride"] = tupleJson(*stride);
    if (const auto* same = std::get_if<std::string>(&*pad))
        a["padding"] = *same;
    else if (const auto& p = std::get<std::vector<std::int64_t>>(*pad); !allEqual(p, 0))
        a["padding"] = tupleJson(p);
    if (!allEqual(*dilation, 1))
        a["dilation"] = tupleJson(*dilation);
    if (groups != 1)
        a["groups"] = groups;
    const bool bias = n.input_size() > 2 && !n.input(2).empty();
    if (bias && !ctx.parameterShaped(i, n.input(2), "bias", { w[0] }, "one value per output channel"))
        return;
    if (!bias)
        a["bias"] = false;
    ctx.emit(i, "Conv" + std::to_string(spatial) + "d", a);
}

void convTranspose(MappingContext& ctx, int i)
{
    const auto& n = ctx.node(i);
    const auto wr = weightAndRank(ctx, i);
    if (!wr)
        return;
    const auto& w = wr->weight;
    const std::size_t rank = wr->rank;
    if (rank < 3 || rank > 5 || w.size() != rank) {
        ctx.refuse(i, std::to_string(rank - 2) + "-D transposed convolution has no Headroom layer");
        return;
    }
    const std::size_t spatial = rank - 2;
    if (findAttr(n, "output_shape") != nullptr) {
        ctx.refuse(i, "output_shape is not supported; export with explicit pads and output_padding");
        return;
    }
    const std::string autoPad = attrString(n, "auto_pad", "NOTSET");
    if (autoPad != "NOTSET" && autoPad != "VALID") {
        ctx.refuse(i, "auto_pad \"" + autoPad + "\" has no PyTorch equivalent for a transposed convolution");
        return;
    }
    const std::vector<std::int64_t> weightKernel(w.begin() + 2, w.end());
    const auto kernel = ctx.window(i, "kernel_shape", spatial, weightKernel);
    const auto stride = ctx.window(i, "strides", spatial, std::vector<std::int64_t>(spatial, 1));
    const auto dilation = ctx.window(i, "dilations", spatial, std::vector<std::int64_t>(spatial, 1));
    if (!kernel || !stride || !dilation)
        return;
    if (*kernel != weightKernel) {
        ctx.reject(i, "its kernel_shape " + joinDims(*kernel) + " disagrees with its weight " + joinDims(w));
        return;
    }
    const auto pad = ctx.padding(i, spatial, *kernel, *stride, *dilation, false);
    if (!pad)
        return;
    const auto outputPadding = attrInts(n, "output_padding").value_or(std::vector<std::int64_t>(spatial, 0));
    if (outputPadding.size() != spatial
        || std::any_of(
            outputPadding.begin(), outputPadding.end(), [](auto p) { return p < 0 || p > kMaxDimension; })) {
        ctx.reject(i,
            "its output_padding " + joinDims(outputPadding) + " is not " + std::to_string(spatial)
                + " sizes");
        return;
    }
    const std::int64_t groups = attrInt(n, "group").value_or(1);
    if (groups < 1 || groups > kMaxDimension) {
        ctx.reject(i, "its group " + std::to_string(groups) + " is not a positive count");
        return;
    }
    json a { { "out_channels", w[1] * groups }, { "kernel_size", tupleJson(*kernel) } };
    if (!allEqual(*stride, 1))
        a["stride"] = tupleJson(*stride);
    if (const auto& p = std::get<std::vector<std::int64_t>>(*pad); !allEqual(p, 0))
        a["padding"] = tupleJson(p);
    if (!allEqual(outputPadding, 0))
        a["output_padding"] = tupleJson(outputPadding);
    if (!allEqual(*dilation, 1))
        a["dilation"] = tupleJson(*dilation);
    if (groups != 1)
        a["groups"] = groups;
    const bool bias = n.input_size() > 2 && !n.input(2).empty();
    if (bias
        && !ctx.parameterShaped(i, n.input(2), "bias", { w[1] * groups }, "one value per output channel"))
        return;
    if (!bias)
        a["bias"] = false;
    ctx.emit(i, "ConvTranspose" + std::to_string(spatial) + "d", a);
}

} // namespace

void addConvolution(Operators& table)
{
    table.push_back({ "Conv", &conv });
    table.push_back({ "ConvTranspose", &convTranspose });
}

} // namespace headroom::onnximport::ops

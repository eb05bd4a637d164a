// What PyTorch 2.x's dynamo exporter leaves out of a train()-mode graph, put back from the metadata it
// writes on each node ("pkg.torch.onnx.fx_node": the FX node the ONNX node came from, with its arguments).
// Measured with PyTorch 2.11 on every torchvision classification network (tests/data/torch2):
//
// - BatchNorm: torch.onnx.export(..., dynamo=True) of a model in train() or eval() mode writes no
//   BatchNormalization node: the training-mode batch norm (aten._native_batch_norm_legit_functional)
//   disappears in the exporter's optimisation, and the node before it (the Conv) takes over its output
//   and its metadata. The graph alone would train without any BatchNorm: no scale and shift parameters,
//   none of the inputs BatchNorm keeps for backward (half of ResNet-18's activations). The metadata names
//   the batch norm with its arguments, so it is put back exactly: after that node, affine when it had a
//   weight, with running statistics when it had them. An eval()-mode export's batch norm
//   (aten._native_batch_norm_legit_no_training) comes back as training runs it, with a warning: its
//   Dropout left no trace at all (torch.export does not trace dropout outside training).
// - Biases that are all zeros (PyTorch's initialisation of many classifiers, as torchvision's) are
//   dropped from Gemm and Conv; the metadata's aten.linear / aten.conv2d call still names the bias
//   parameter, so the layer keeps it. (A Conv whose BatchNorm was dropped carries the BatchNorm's metadata,
//   not its own: a zero bias there cannot be told, docs/onnx-import.md.)
#include "Families.h"
#include "importers/OnnxMetadata.h"

#include <array>
#include <cmath>
#include <cstdlib>

namespace headroom::onnximport::ops {

namespace {

using nlohmann::json;

/// Where each batch-norm operator of ATen keeps its arguments (derivatives.yaml / native_functions.yaml):
/// input, weight, bias, then running mean and variance (when the variant has them), training, momentum, eps.
struct BatchNormSignature
{
    std::string_view target;
    int runningMean; ///< -1: the variant has no running statistics
    int training; ///< -1: always training, -2: always inference
    int momentum;
    int eps;
};

constexpr std::array<BatchNormSignature, 8> kBatchNormOps { {
    { "aten._native_batch_norm_legit_no_training.default", 3, -2, 5, 6 },
    { "aten._native_batch_norm_legit_functional.default", 3, 5, 6, 7 },
    { "aten._native_batch_norm_legit.default", 3, 5, 6, 7 },
    { "aten._native_batch_norm_legit.no_stats", -1, 3, 4, 5 },
    { "aten.native_batch_norm.default", 3, 5, 6, 7 },
    { "aten.batch_norm.default", 3, 5, 6, 7 },
    { "aten._batch_norm_with_update.default", 3, -1, 5, 6 },
    { "aten._batch_norm_with_update_functional.default", 3, -1, 5, 6 },
} };

struct DroppedBatchNorm
{
    bool affine = true;
    bool runningStats = true;
    std::optional<double> momentum;
    std::optional<double> eps;
    bool inference = false; ///< an eval()-mode export: the module is a BatchNorm, trained in training mode
};

std::optional<double> numberArg(const std::vector<std::string>& args, int k)
{
    if (k < 0 || static_cast<std::size_t>(k) >= args.size())
        return std::nullopt;
    const char* text = args[static_cast<std::size_t>(k)].c_str();
    char* end = nullptr;
    const double value = std::strtod(text, &end);
    return end != text && *end == '\0' && std::isfinite(value) ? std::optional<double>(value) : std::nullopt;
}

bool givenArg(const std::vector<std::string>& args, int k)
{
    return k >= 0 && static_cast<std::size_t>(k) < args.size() && args[static_cast<std::size_t>(k)] != "None";
}

/// The batch-norm call node `n`'s metadata names, if any.
std::optional<DroppedBatchNorm> batchNormCallOf(const onnx::NodeProto& n)
{
    const auto text = nodeMetadata(n, "pkg.torch.onnx.fx_node");
    const auto call = text ? parseFxNode(*text) : std::nullopt;
    if (!call)
        return std::nullopt;
    for (const auto& op : kBatchNormOps) {
        if (call->target != op.target)
            continue;
        const auto& args = call->args;
        if (args.size() <= static_cast<std::size_t>(op.eps))
            return std::nullopt; // cut short: not the call the exporter writes, so the graph stands
        DroppedBatchNorm bn;
        bn.inference = op.training == -2
            || (op.training >= 0
                && (static_cast<std::size_t>(op.training) >= args.size()
                    || args[static_cast<std::size_t>(op.training)] != "True"));
        bn.affine = givenArg(args, 1) || givenArg(args, 2);
        bn.runningStats = op.runningMean >= 0 && givenArg(args, op.runningMean);
        bn.momentum = numberArg(args, op.momentum);
        bn.eps = numberArg(args, op.eps);
        return bn;
    }
    return std::nullopt;
}

/// The batch norm node `n` stands for although it is no BatchNormalization, if any.
std::optional<DroppedBatchNorm> droppedBatchNormAt(const onnx::NodeProto& n)
{
    return n.op_type() == "BatchNormalization" ? std::nullopt : batchNormCallOf(n);
}

/// Where the bias is among the arguments of the ATen calls a Linear or convolution is exported from.
constexpr std::array<std::pair<std::string_view, int>, 9> kBiasArgument { {
    { "aten.linear.default", 2 },
    { "aten.addmm.default", 0 },
    { "aten.conv1d.default", 2 },
    { "aten.conv2d.default", 2 },
    { "aten.conv3d.default", 2 },
    { "aten.convolution.default", 2 },
    { "aten.conv_transpose1d.input", 2 },
    { "aten.conv_transpose2d.input", 2 },
    { "aten.conv_transpose3d.input", 2 },
} };

/// A Linear or convolution layer without a bias whose PyTorch call had one (a bias parameter, "%p_...").
bool hadBias(const onnx::NodeProto& n, const PendingLayer& layer)
{
    const auto bias = layer.attributes.find("bias");
    if (bias == layer.attributes.end() || *bias != false)
        return false;
    const auto text = nodeMetadata(n, "pkg.torch.onnx.fx_node");
    const auto call = text ? parseFxNode(*text) : std::nullopt;
    if (!call)
        return false;
    for (const auto& [target, k] : kBiasArgument) {
        if (call->target == target)
            return givenArg(call->args, k) && call->args[static_cast<std::size_t>(k)].rfind("%p_", 0) == 0;
    }
    return false;
}

} // namespace

bool trainingBatchNormPerMetadata(const onnx::NodeProto& n)
{
    const auto call = batchNormCallOf(n);
    return call && !call->inference;
}

bool restoreDroppedBias(MappingContext& ctx, int i)
{
    auto& layers = ctx.layers();
    if (layers.empty() || layers.back().node != i || !hadBias(ctx.node(i), layers.back()))
        return false;
    layers.back().attributes.erase("bias");
    return true;
}

RestoredBatchNorm restoreDroppedBatchNorm(MappingContext& ctx, int i)
{
    const auto& n = ctx.node(i);
    auto& layers = ctx.layers();
    if (layers.empty() || layers.back().node != i || n.output_size() < 1
        || layers.back().outputValue != n.output(0))
        return RestoredBatchNorm::None;
    const auto bn = droppedBatchNormAt(n);
    if (!bn)
        return RestoredBatchNorm::None;
    const auto* t = ctx.graph().type(n.output(0));
    const std::size_t rank = t != nullptr && t->hasShape ? t->rank() : 0;
    if (rank < 2 || rank > 5) {
        ctx.reject(i,
            "it stands for a BatchNorm the exporter left out (its metadata says so), and its output's rank "
            "is not 2 to 5, so Headroom cannot put the BatchNorm back");
        return RestoredBatchNorm::None;
    }
    json a = json::object();
    if (!bn->affine)
        a["affine"] = false;
    if (!bn->runningStats)
        a["track_running_stats"] = false;
    if (bn->eps && std::abs(*bn->eps - 1e-5) > 1e-12)
        a["eps"] = *bn->eps;
    if (bn->momentum && std::abs(*bn->momentum - 0.1) > 1e-12)
        a["momentum"] = *bn->momentum;
    const std::string output = n.output(0);
    layers.back().outputValue = output + "#before_batchnorm";
    const auto scopes = nodeMetadata(n, "pkg.torch.onnx.name_scopes");
    layers.push_back(PendingLayer { rank == 5 ? "BatchNorm3d"
            : rank == 4                       ? "BatchNorm2d"
                                              : "BatchNorm1d",
        a, { layers.back().outputValue }, output, i, scopes ? modulePathOfScopes(*scopes) : std::string() });
    return bn->inference ? RestoredBatchNorm::Inference : RestoredBatchNorm::Training;
}

} // namespace headroom::onnximport::ops

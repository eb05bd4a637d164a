// An eval-mode export, where the graph shows it. torch.onnx.export in TrainingMode.EVAL (the default
// for a model in eval mode) folds each BatchNorm into the convolution before it, whose weight and bias
// then become new constants named "onnx::Conv_<n>" instead of the module's "conv1.weight"; a BatchNorm
// that is kept runs in inference mode (training_mode 0 from opset 14, a single output before); and every
// Dropout is removed, which leaves no trace at all. Measured with torch 1.13 (tests/data/onnx/README.md).
// PyTorch 2.x's dynamo exporter writes a training-mode BatchNorm it keeps (one not after a convolution) as
// a BatchNormalization without training_mode; its metadata says it trained (tests/data/torch2).
#include "Families.h"

#include <algorithm>

namespace headroom::onnximport::ops {

namespace {

/// A name torch gives a constant it computed during export, not a module's parameter.
bool isExportConstant(const std::string& name)
{
    return name.rfind("onnx::", 0) == 0
        || (!name.empty()
            && std::all_of(name.begin(), name.end(), [](char c) { return c >= '0' && c <= '9'; }));
}

std::string listed(const std::vector<std::string>& labels)
{
    constexpr std::size_t kShown = 3;
    std::string s;
    for (std::size_t k = 0; k < labels.size() && k < kShown; ++k)
        s += (k == 0 ? "" : ", ") + labels[k];
    if (labels.size() > kShown)
        s += ", ...";
    return s;
}

} // namespace

void checkExportMode(MappingContext& ctx)
{
    const auto& g = ctx.graph();
    std::vector<std::string> folded, inference;
    for (int i = 0; i < ctx.nodeCount(); ++i) {
        if (!ctx.needed(i))
            continue;
        const auto& n = ctx.node(i);
        if (ctx.isOp(i, "Conv") && n.input_size() == 3 && g.isInitializer(n.input(1))
            && g.isInitializer(n.input(2)) && isExportConstant(n.input(1)) && isExportConstant(n.input(2)))
            folded.push_back(nodeLabel(n));
        const bool inferenceMode
            = ctx.opset() >= 14 ? attrInt(n, "training_mode").value_or(0) == 0 : n.output_size() == 1;
        if (ctx.isOp(i, "BatchNormalization") && inferenceMode && !trainingBatchNormPerMetadata(n))
            inference.push_back(nodeLabel(n));
    }
    if (folded.empty() && inference.empty())
        return;
    std::string what;
    if (!folded.empty())
        what = "BatchNorm was folded into " + std::to_string(folded.size()) + " convolution"
            + (folded.size() == 1 ? "" : "s") + " (" + listed(folded)
            + "), so its parameters, buffers and saved "
              "activations are missing";
    if (!inference.empty())
        what += (what.empty() ? "" : "; ") + std::to_string(inference.size()) + " BatchNormalization node"
            + (inference.size() == 1 ? " is" : "s are") + " in inference mode (" + listed(inference)
            + "; Headroom models them as training runs them)";
    ctx.warn("the ONNX file was exported in inference (eval) mode: " + what
        + ", and any Dropout was removed. Export the model in training mode for a full plan: "
          "torch.onnx.export(model, example, \"model.onnx\", training=torch.onnx.TrainingMode.TRAINING, "
          "do_constant_folding=False)");
}

} // namespace headroom::onnximport::ops

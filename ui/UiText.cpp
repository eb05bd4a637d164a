#include "UiText.h"

#include "PlanText.h" // report/
#include "QtText.h"
#include "headroom/support/Format.h"

#include <cmath>

namespace headroom::ui {

QString UiText::component(Component c)
{
    switch (c) {
    case Component::Weights:
        return tr("Weights");
    case Component::Gradients:
        return tr("Gradients");
    case Component::OptimizerState:
        return tr("Optimizer state");
    case Component::Activations:
        return tr("Activations");
    case Component::Input:
        return tr("Input batch");
    case Component::Transient:
        return tr("Transient");
    case Component::Communication:
        return tr("Communication buffers");
    case Component::Calibration:
        return tr("Calibration (measured excess)");
    case Component::Overhead:
        return tr("Framework overhead");
    }
    return qs(componentLabel(c));
}

QString UiText::category(LayerCategory c)
{
    switch (c) {
    case LayerCategory::Convolution:
        return tr("Convolution");
    case LayerCategory::Linear:
        return tr("Linear");
    case LayerCategory::Normalization:
        return tr("Normalization");
    case LayerCategory::Activation:
        return tr("Activation");
    case LayerCategory::Pooling:
        return tr("Pooling");
    case LayerCategory::Dropout:
        return tr("Dropout");
    case LayerCategory::Shape:
        return tr("Shape");
    case LayerCategory::Recurrent:
        return tr("Recurrent");
    case LayerCategory::Attention:
        return tr("Attention");
    case LayerCategory::Embedding:
        return tr("Embedding");
    case LayerCategory::Merge:
        return tr("Merge");
    case LayerCategory::Structure:
        return tr("Structure");
    }
    return qs(categoryName(c));
}

QString UiText::precision(Precision p)
{
    switch (p) {
    case Precision::Fp32:
        return tr("FP32");
    case Precision::AmpFp16:
        return tr("Mixed precision (FP16 autocast)");
    case Precision::AmpBf16:
        return tr("Mixed precision (BF16 autocast)");
    case Precision::Fp16:
        return tr("Pure FP16 (FP32 master weights)");
    case Precision::Bf16:
        return tr("Pure BF16 (FP32 master weights)");
    }
    return qs(precisionLabel(p));
}

QString UiText::optimizer(Optimizer o)
{
    switch (o) {
    case Optimizer::Sgd:
        return tr("SGD");
    case Optimizer::Momentum:
        return tr("SGD with momentum");
    case Optimizer::Nesterov:
        return tr("SGD with Nesterov momentum");
    case Optimizer::Adam:
        return tr("Adam");
    case Optimizer::AdamW:
        return tr("AdamW");
    case Optimizer::AdamAmsgrad:
        return tr("Adam (AMSGrad)");
    case Optimizer::RMSprop:
        return tr("RMSprop");
    case Optimizer::RMSpropMomentum:
        return tr("RMSprop with momentum");
    case Optimizer::RMSpropCentered:
        return tr("RMSprop (centred, momentum)");
    case Optimizer::Adagrad:
        return tr("Adagrad");
    case Optimizer::Adadelta:
        return tr("Adadelta");
    case Optimizer::Adamax:
        return tr("Adamax");
    }
    return qs(optimizerLabel(o));
}

QString UiText::loss(Loss l)
{
    switch (l) {
    case Loss::CrossEntropy:
        return tr("Cross-entropy");
    case Loss::Mse:
        return tr("Mean squared error");
    case Loss::L1:
        return tr("Mean absolute error (L1)");
    case Loss::Bce:
        return tr("Binary cross-entropy");
    case Loss::None:
        return tr("None");
    }
    return qs(lossName(l));
}

QString UiText::checkpointing(Checkpointing c)
{
    switch (c) {
    case Checkpointing::None:
        return tr("None");
    case Checkpointing::PerBlock:
        return tr("Per block");
    case Checkpointing::Selective:
        return tr("Selective (attention scores)");
    }
    return qs(checkpointingLabel(c));
}

QString UiText::attention(AttentionImplementation a)
{
    switch (a) {
    case AttentionImplementation::Sdpa:
        return tr("Flash / SDPA");
    case AttentionImplementation::Eager:
        return tr("Eager (keeps T × T)");
    }
    return qs(attentionLabel(a));
}

QString UiText::sharding(Sharding s)
{
    switch (s) {
    case Sharding::None:
        return tr("DDP (no sharding)");
    case Sharding::Zero1:
        return tr("ZeRO stage 1");
    case Sharding::Zero2:
        return tr("ZeRO stage 2");
    case Sharding::Zero3:
        return tr("ZeRO stage 3");
    case Sharding::FsdpShardGradOp:
        return tr("FSDP shard-grad-op");
    case Sharding::FsdpFullShard:
        return tr("FSDP full shard");
    }
    return qs(shardingLabel(s));
}

QString UiText::optimizerImplementation(OptimizerImplementation i)
{
    switch (i) {
    case OptimizerImplementation::Foreach:
        return tr("Foreach (PyTorch default)");
    case OptimizerImplementation::Fused:
        return tr("Fused");
    case OptimizerImplementation::ForLoop:
        return tr("For-loop");
    }
    return qs(optimizerImplementationLabel(i));
}

QString UiText::bytes(std::uint64_t n)
{
    return qs(formatBytes(n));
}

QString UiText::signedBytes(double n)
{
    return qs(formatSignedBytes(n));
}

QString UiText::count(std::uint64_t n)
{
    return qs(formatCount(n));
}

namespace {

/// Three significant digits, as the report and the command line round: 4.12, 41.2, 412, 0.598.
QString threeDigits(double v)
{
    return qs(report::plantext::significant(v, 3));
}

} // namespace

QString UiText::flops(double n)
{
    static constexpr std::array<const char*, 6> kPrefixes { "", "k", "M", "G", "T", "P" };
    std::size_t i = 0;
    while (n >= 999.5 && i + 1 < kPrefixes.size()) {
        n /= 1000.0;
        ++i;
    }
    return tr("%1 %2FLOP").arg(threeDigits(n), QString::fromLatin1(kPrefixes[i]));
}

QString UiText::seconds(double s)
{
    if (!(s > 0))
        return tr("0 s");
    if (s < 1e-3)
        return tr("%1 µs").arg(threeDigits(s * 1e6));
    if (s < 1)
        return tr("%1 ms").arg(threeDigits(s * 1e3));
    if (s < 120)
        return tr("%1 s").arg(threeDigits(s));
    if (s < 7200)
        return tr("%1 min").arg(threeDigits(s / 60));
    return tr("%1 h").arg(threeDigits(s / 3600));
}

QString UiText::rate(double perSecond)
{
    return qs(report::plantext::formatRate(perSecond));
}

} // namespace headroom::ui

#include "UiText.h"

#include "QtText.h"

#include "headroom/Format.h"

namespace headroom::ui {

QString UiText::component(Component c)
{
    switch (c) {
    case Component::Weights: return tr("Weights");
    case Component::Gradients: return tr("Gradients");
    case Component::OptimizerState: return tr("Optimizer state");
    case Component::Activations: return tr("Activations");
    case Component::Input: return tr("Input batch");
    case Component::Transient: return tr("Backward transient");
    case Component::Communication: return tr("Communication buffers");
    case Component::Overhead: return tr("Framework overhead");
    }
    return qs(componentLabel(c));
}

QString UiText::category(LayerCategory c)
{
    switch (c) {
    case LayerCategory::Convolution: return tr("Convolution");
    case LayerCategory::Linear: return tr("Linear");
    case LayerCategory::Normalization: return tr("Normalization");
    case LayerCategory::Activation: return tr("Activation");
    case LayerCategory::Pooling: return tr("Pooling");
    case LayerCategory::Dropout: return tr("Dropout");
    case LayerCategory::Shape: return tr("Shape");
    case LayerCategory::Recurrent: return tr("Recurrent");
    case LayerCategory::Attention: return tr("Attention");
    case LayerCategory::Embedding: return tr("Embedding");
    case LayerCategory::Merge: return tr("Merge");
    case LayerCategory::Structure: return tr("Structure");
    }
    return qs(categoryName(c));
}

QString UiText::precision(Precision p)
{
    switch (p) {
    case Precision::Fp32: return tr("FP32");
    case Precision::AmpFp16: return tr("Mixed precision (FP16 autocast)");
    case Precision::AmpBf16: return tr("Mixed precision (BF16 autocast)");
    case Precision::Fp16: return tr("Pure FP16 (FP32 master weights)");
    case Precision::Bf16: return tr("Pure BF16 (FP32 master weights)");
    }
    return qs(precisionLabel(p));
}

QString UiText::optimizer(Optimizer o)
{
    switch (o) {
    case Optimizer::Sgd: return tr("SGD");
    case Optimizer::Momentum: return tr("SGD with momentum");
    case Optimizer::Nesterov: return tr("SGD with Nesterov momentum");
    case Optimizer::Adam: return tr("Adam");
    case Optimizer::AdamW: return tr("AdamW");
    case Optimizer::AdamAmsgrad: return tr("Adam (AMSGrad)");
    case Optimizer::RMSprop: return tr("RMSprop");
    case Optimizer::RMSpropMomentum: return tr("RMSprop with momentum");
    case Optimizer::RMSpropCentered: return tr("RMSprop (centred, momentum)");
    case Optimizer::Adagrad: return tr("Adagrad");
    case Optimizer::Adadelta: return tr("Adadelta");
    case Optimizer::Adamax: return tr("Adamax");
    }
    return qs(optimizerLabel(o));
}

QString UiText::loss(Loss l)
{
    switch (l) {
    case Loss::CrossEntropy: return tr("Cross-entropy");
    case Loss::Mse: return tr("Mean squared error");
    case Loss::None: return tr("None");
    }
    return qs(lossName(l));
}

QString UiText::bytes(std::uint64_t n) { return qs(formatBytes(n)); }

QString UiText::signedBytes(double n) { return qs(formatSignedBytes(n)); }

QString UiText::count(std::uint64_t n) { return qs(formatCount(n)); }

} // namespace headroom::ui

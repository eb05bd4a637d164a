#pragma once

// Factories of the built-in layer kinds; LayerRegistry::builtin() lists each once.

#include "headroom/layers/LayerKind.h"

#include <memory>
#include <vector>

namespace headroom::layers {

std::unique_ptr<LayerKind> makeConv1d();
std::unique_ptr<LayerKind> makeConv2d();
std::unique_ptr<LayerKind> makeConvTranspose2d();
std::unique_ptr<LayerKind> makeLinear();
std::unique_ptr<LayerKind> makeBatchNorm1d();
std::unique_ptr<LayerKind> makeBatchNorm2d();
std::unique_ptr<LayerKind> makeLayerNorm();
std::unique_ptr<LayerKind> makeGroupNorm();
std::unique_ptr<LayerKind> makeReLU();
std::unique_ptr<LayerKind> makeReLU6();
std::unique_ptr<LayerKind> makeLeakyReLU();
std::unique_ptr<LayerKind> makeGELU();
std::unique_ptr<LayerKind> makeSiLU();
std::unique_ptr<LayerKind> makeSigmoid();
std::unique_ptr<LayerKind> makeTanh();
std::unique_ptr<LayerKind> makeIdentity();
std::unique_ptr<LayerKind> makeSoftmax();
std::unique_ptr<LayerKind> makeMaxPool2d();
std::unique_ptr<LayerKind> makeAvgPool2d();
std::unique_ptr<LayerKind> makeAdaptiveAvgPool2d();
std::unique_ptr<LayerKind> makeFlatten();
std::unique_ptr<LayerKind> makeDropout();
std::unique_ptr<LayerKind> makeStochasticDepth();
std::unique_ptr<LayerKind> makeAdd();
std::unique_ptr<LayerKind> makeConcat();
// Sequence models (Sequence*.cpp)
std::unique_ptr<LayerKind> makeEmbedding();
std::unique_ptr<LayerKind> makePositionalEmbedding();
std::unique_ptr<LayerKind> makeMultiheadAttention();
std::unique_ptr<LayerKind> makeTransformerEncoderLayer();
std::unique_ptr<LayerKind> makeLSTM();
std::unique_ptr<LayerKind> makeGRU();
// Hugging Face transformer building blocks (docs/hf-import.md)
std::unique_ptr<LayerKind> makeRMSNorm();
std::unique_ptr<LayerKind> makeMul();
std::unique_ptr<LayerKind> makeNewGELU();
std::unique_ptr<LayerKind> makeScaledDotProductAttention();
std::unique_ptr<LayerKind> makeTokenTypeEmbedding();
// An operator Headroom does not model (GenericOp.cpp; ONNX import's fallback)
std::unique_ptr<LayerKind> makeGenericOp();
// Language models from Hugging Face configs (docs/hf-import.md): Gemma, Phi-3, mixture of experts, DeepSeek
std::unique_ptr<LayerKind> makeLogitSoftcap();
std::unique_ptr<LayerKind> makeGatedActivation();
std::unique_ptr<LayerKind> makeMixtureOfExperts();
std::unique_ptr<LayerKind> makeMultiHeadLatentAttention();

// Convolution, pooling and normalisation in 1, 2 and 3 dimensions (issue 13)
std::unique_ptr<LayerKind> makeConv3d();
std::unique_ptr<LayerKind> makeConvTranspose1d();
std::unique_ptr<LayerKind> makeConvTranspose3d();
std::unique_ptr<LayerKind> makeMaxPool1d();
std::unique_ptr<LayerKind> makeMaxPool3d();
std::unique_ptr<LayerKind> makeAvgPool1d();
std::unique_ptr<LayerKind> makeAvgPool3d();
std::unique_ptr<LayerKind> makeAdaptiveAvgPool1d();
std::unique_ptr<LayerKind> makeAdaptiveAvgPool3d();
std::unique_ptr<LayerKind> makeAdaptiveMaxPool1d();
std::unique_ptr<LayerKind> makeAdaptiveMaxPool2d();
std::unique_ptr<LayerKind> makeAdaptiveMaxPool3d();
std::unique_ptr<LayerKind> makeBatchNorm3d();
std::unique_ptr<LayerKind> makeInstanceNorm1d();
std::unique_ptr<LayerKind> makeInstanceNorm2d();
std::unique_ptr<LayerKind> makeInstanceNorm3d();
// Activations (issue 13)
std::unique_ptr<LayerKind> makeHardswish();
std::unique_ptr<LayerKind> makeHardsigmoid();
std::unique_ptr<LayerKind> makeHardtanh();
std::unique_ptr<LayerKind> makeMish();
std::unique_ptr<LayerKind> makeSoftplus();
std::unique_ptr<LayerKind> makeELU();
std::unique_ptr<LayerKind> makeSELU();
std::unique_ptr<LayerKind> makeCELU();
std::unique_ptr<LayerKind> makePReLU();
std::unique_ptr<LayerKind> makeLogSigmoid();

// Tensor arithmetic, reductions and matrix products (issue 13)
std::unique_ptr<LayerKind> makeSub();
std::unique_ptr<LayerKind> makeDiv();
std::unique_ptr<LayerKind> makePow();
std::unique_ptr<LayerKind> makeSqrt();
std::unique_ptr<LayerKind> makeExp();
std::unique_ptr<LayerKind> makeNeg();
std::unique_ptr<LayerKind> makeAbs();
std::unique_ptr<LayerKind> makeClamp();
std::unique_ptr<LayerKind> makeMean();
std::unique_ptr<LayerKind> makeSum();
std::unique_ptr<LayerKind> makeAmax();
std::unique_ptr<LayerKind> makeNorm();
std::unique_ptr<LayerKind> makeMatMul();
// Shape and data movement (issue 13)
std::unique_ptr<LayerKind> makePermute();
std::unique_ptr<LayerKind> makeTranspose();
std::unique_ptr<LayerKind> makeReshape();
std::unique_ptr<LayerKind> makeView();
std::unique_ptr<LayerKind> makeUnflatten();
std::unique_ptr<LayerKind> makeSqueeze();
std::unique_ptr<LayerKind> makeUnsqueeze();
std::unique_ptr<LayerKind> makeContiguous();
std::unique_ptr<LayerKind> makeExpand();
std::unique_ptr<LayerKind> makeNarrow();
std::unique_ptr<LayerKind> makeSlice();
std::unique_ptr<LayerKind> makeSelect();
std::unique_ptr<LayerKind> makePad();
std::unique_ptr<LayerKind> makeUpsample();
std::unique_ptr<LayerKind> makeUpsamplingNearest2d();
std::unique_ptr<LayerKind> makeUpsamplingBilinear2d();
std::unique_ptr<LayerKind> makePixelShuffle();
std::unique_ptr<LayerKind> makePixelUnshuffle();
/// ConstantPadNd, ZeroPadNd, ReflectionPadNd, ReplicationPadNd, CircularPadNd for N = 1, 2, 3.
std::vector<std::unique_ptr<LayerKind>> makePadModules();

} // namespace headroom::layers

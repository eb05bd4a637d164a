#pragma once

// Factories of the built-in layer kinds; LayerRegistry::builtin() lists each once.

#include "headroom/LayerKind.h"

#include <memory>

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

} // namespace headroom::layers

#pragma once

// The operator families and pattern recognisers of the ONNX importer; OnnxRegistry.cpp lists each once.

#include "importers/OnnxMapping.h"

namespace headroom::onnximport::ops {

using Operators = std::vector<OperatorEntry>;

// One file per family: the operators it maps (docs/onnx-import.md, "What maps to what").
void addConvolution(Operators& table); // Conv, ConvTranspose
void addLinear(Operators& table); // Gemm, MatMul (with a stored matrix, or of two computed tensors)
void addNormalization(Operators& table); // BatchNormalization, InstanceNormalization, LayerNormalization
void addActivations(Operators& table); // Relu, LeakyRelu, Sigmoid, Tanh, Clip, Identity, Gelu, HardSigmoid,
                                       // HardSwish, Mish, Softplus, Elu, Celu, Selu, PRelu
void addSoftmax(Operators& table); // Softmax, LogSoftmax
void addPooling(Operators& table); // MaxPool, AveragePool, GlobalAveragePool, GlobalMaxPool
void addReshape(Operators& table); // Flatten, Reshape, Squeeze, Unsqueeze
void addDropout(Operators& table); // Dropout
void addMerge(Operators& table); // Sum, Concat
void addGather(Operators& table); // Gather (Embedding, Select)
void addArithmetic(Operators& table); // Add, Mul, Sub, Div, Pow, Sqrt, Exp, Neg, Abs, ReduceMean/Sum/Max
void addMovement(Operators& table); // Transpose, Slice, Split, Expand, Pad, Resize, Upsample,
                                    // DepthToSpace, SpaceToDepth
void addRecurrent(Operators& table); // LSTM, GRU (sequence-first, one layer per node or per module)
void addEinsum(Operators& table); // Einsum (a batched matrix product)

/// An Einsum equation's terms, spaces removed ("B G H I D, B G H J D -> B G H I J"): each a run of distinct
/// letters; nullopt for an implicit output, an ellipsis or anything else.
struct EinsumTerms
{
    std::vector<std::string> inputs;
    std::string output;
};
[[nodiscard]] std::optional<EinsumTerms> parseEinsum(const std::string& equation);

/// An axis of a rank-`rank` input (negative counts from the end) that is not its batch axis (at
/// `batchAxis`, OnnxGraph::batchAxisOf); otherwise the node is rejected with `what` named, and nullopt.
std::optional<std::int64_t> featureAxis(MappingContext& ctx, int i, std::int64_t axis, std::size_t rank,
    const char* what, std::size_t batchAxis = 0);
/// An operand that does not depend on the input's values and is not itself stored (DerivedOperand.cpp): its
/// dims, and how many stored floating-point values it is computed from as weights (what trains behind it;
/// 0 for a constant computed from sizes, as the shifted-window attention mask).
struct DerivedOperand
{
    std::vector<std::int64_t> dims;
    std::int64_t trainedElements = 0;
};
[[nodiscard]] std::optional<DerivedOperand> derivedOperand(const OnnxGraph& g, const std::string& value);

/// featureAxis of `value`'s axes, as the axis of Headroom's tensor: after a batch axis merged with values of
/// each sample (OnnxGraph::batchMergeOf), which Headroom reads as up to three axes, the later ones move on.
std::optional<std::int64_t> featureAxisOf(
    MappingContext& ctx, int i, std::int64_t axis, const std::string& value, const char* what);

/// A Dropout node's ratio (0.5 when not given), or nullopt when it is computed at run time.
std::optional<double> dropoutRatio(const MappingContext& ctx, int i);

// Patterns of several nodes that come back as the one operator PyTorch ran.
void recogniseTrailingLogSoftmax(MappingContext& ctx, int logSoftmax);
void recogniseGeluErf(MappingContext& ctx, int erf);
void recogniseSilu(MappingContext& ctx, int mul);
void recogniseRandomNoise(MappingContext& ctx, int mul);
void recogniseLinearBias(MappingContext& ctx, int matmul);
void recogniseLayerNorm(MappingContext& ctx, int reduceMean);
void recogniseGeluTanh(MappingContext& ctx, int tanh);
void recogniseMultiheadAttention(MappingContext& ctx, int softmax);
void recogniseWrittenOutAttention(MappingContext& ctx, int softmax);
void recogniseZeroPaddedAvgPool(MappingContext& ctx, int averagePool);
void recogniseHardswish(MappingContext& ctx, int hardSigmoid);
void recogniseMish(MappingContext& ctx, int softplus);

/// An attention core written out around a Softmax (PatternWrittenOutAttention.cpp): the product of two
/// computed tensors (through a mask's Add or a scaling), Softmax on the last axis, an optional Dropout,
/// and the product with v.
struct WrittenOutAttention
{
    int softmax = -1, product = -1, dropoutNode = -1, values = -1;
    std::string q, k, v; ///< the product's operands before their scaling (k transposed), and v
    std::int64_t headDim = 0; ///< the axis the product contracts: q's last
    double dropout = 0.0;
    bool scaledAfter = false; ///< the scores are scaled after the product (hand-written attention)
    /// scaled_dot_product_attention's decomposition: both operands scaled by the same sqrt(scale), or the
    /// dynamo exporter's name for its last MatMul.
    bool fromSdpa = false;
};
[[nodiscard]] std::optional<WrittenOutAttention> writtenOutAttentionAt(MappingContext& ctx, int softmax);

/// After node `i` is mapped: when its metadata says it stands for a batch norm that the dynamo exporter
/// left out (DynamoRestore.cpp), appends that BatchNorm after node i's layer, and says whether the
/// export ran it in training or in inference mode.
enum class RestoredBatchNorm { None, Training, Inference };
RestoredBatchNorm restoreDroppedBatchNorm(MappingContext& ctx, int i);
/// After node `i` is mapped to a Linear or convolution without a bias: when its metadata says PyTorch's
/// call had a bias parameter (an all-zero bias the dynamo exporter dropped), the layer keeps it; true then.
bool restoreDroppedBias(MappingContext& ctx, int i);

/// Node `n`'s dynamo metadata names a batch norm run in training mode (the dynamo exporter writes a
/// training-mode BatchNorm that it keeps as a BatchNormalization node without training_mode).
[[nodiscard]] bool trainingBatchNormPerMetadata(const onnx::NodeProto& n);

/// Warns when the graph shows an export in inference mode (BatchNorm folded into convolutions or
/// BatchNormalization in inference mode; Dropout is then gone too).
void checkExportMode(MappingContext& ctx);

} // namespace headroom::onnximport::ops

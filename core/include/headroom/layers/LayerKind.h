#pragma once

#include "headroom/model/AttributeSpec.h"
#include "headroom/model/Attributes.h"
#include "headroom/model/DType.h"
#include "headroom/model/Shape.h"
#include "headroom/setup/Precision.h"
#include "headroom/setup/Training.h"
#include "headroom/support/Count.h"
#include "headroom/support/Error.h"

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace headroom {

/// One tensor flowing between layers, per sample (no batch axis).
struct TensorInfo final
{
    Shape shape;
    DType dtype = DType::Float32;
    /// Where the batch axis is among the whole tensor's rank() + 1 axes: 0 for batch-first tensors,
    /// 1 for a sequence-first [T, B, E] (an LSTM or MultiheadAttention without batch_first); `shape`
    /// lists the other axes in order. Memory does not depend on it (batch x shape.elements() either way).
    std::size_t batchAxis = 0;
    /// False for a batch-first view whose batch axis is not outermost in memory (an LSTM/GRU's
    /// output with batch_first: cuDNN computes [T, B, H] and returns its transpose). Elementwise
    /// layers keep the layout; a layer that reshapes such a tensor copies it.
    bool contiguous = true;
    /// The layout of a strided view whose pattern is known (Permute, Transpose, Slice, Expand): each
    /// axis's stride in elements, in the whole tensor's axis order (rank + 1 entries, the batch axis at
    /// `batchAxis`; strides of axes outside the batch axis assume Layout.h's probe batch size). Empty when
    /// `contiguous`, and when the layout is not such a view (a batch-first RNN output): then any reshape that
    /// merges axes copies.
    std::vector<std::int64_t> strides {};
    friend bool operator==(const TensorInfo&, const TensorInfo&) = default;
};

/// How torch.autocast treats an operator (PyTorch's autocast op lists).
enum class AutocastPolicy {
    Passthrough, ///< runs in its input's dtype (ReLU, pooling, BatchNorm, Dropout, Add)
    LowerPrecision, ///< casts float inputs and its weights to the half type (conv, linear, matmul)
    Float32, ///< casts float inputs to float32 (layer_norm, group_norm, softmax, losses)
    Custom, ///< a composite layer that decides per internal op; sees its raw inputs
};

/// A parameter or buffer tensor of a layer.
struct ParamTensor final
{
    enum class Role { Parameter, Buffer };
    std::string name; ///< "weight", "bias", "running_mean", "in_proj_weight", ...
    Count elements;
    /// The tensor's shape as PyTorch holds it (Linear's weight is [out, in]); empty where a kind does not
    /// say. Weight tying compares shapes where both weights have one, as F.linear and friends would.
    std::vector<std::int64_t> shape;
    Role role = Role::Parameter;
    /// Storage dtype if fixed (num_batches_tracked is int64); Float32 here means "the precision's
    /// parameter type" for floating-point tensors.
    DType dtype = DType::Float32;
    /// A Custom kind sets this for the parameters autocast casts to half (a cached copy per step).
    bool castByAutocast = false;
    /// One of a mixture of experts' routed experts' weights: what expert parallelism splits (the router
    /// and shared experts are not).
    bool routedExpert = false;
};

/// A tensor autograd keeps from the forward pass for the backward pass.
struct SavedTensor final
{
    enum class Source {
        Input, ///< the layer's (effective) input `inputIndex`: shares that storage
        Output, ///< the layer's output: shares its storage
        Internal, ///< a buffer the layer creates (mask, indices, statistics, internal activations)
    };
    Source source = Source::Internal;
    std::size_t inputIndex = 0;
    std::string label; ///< what it is, for the per-layer breakdown: "indices", "mask", "save_mean"
    Count perSampleElements; ///< Internal only: elements that scale with the batch
    Count fixedElements; ///< Internal only: elements independent of the batch (per-channel statistics)
    DType dtype = DType::Float32; ///< Internal only
    /// An attention score matrix (softmax probabilities, their dropout mask): what selective
    /// checkpointing drops and recomputes.
    bool attentionScores = false;
    /// `onlyFor` names the weight's gradient with this.
    static constexpr std::size_t kWeight = static_cast<std::size_t>(-1);
    /// Kept only to compute these gradients: input indices, or kWeight for the layer's weight. The
    /// autograd codegen saves a tensor only when an output whose formula uses it needs a gradient:
    /// mm/addmm keep mat1 only when mat2 (the weight) requires grad, mul keeps `other` only when
    /// `self` does. Dropped when none of them is needed; empty: kept whenever the layer is recorded.
    std::vector<std::size_t> onlyFor;
    /// Internal only: the kernel makes it even when autograd does not record the layer (CUDA's
    /// native_dropout always returns its mask): then it lives only while the layer runs.
    bool madeWithoutGrad = false;
    /// Like onlyFor's kWeight for a composite layer's inner modules (InnerLinear::name, or an inner
    /// norm's name such as "q_a_layernorm"): kept only for the weight gradients of these modules, so
    /// dropped unless the layer trains or LoRA adapts one of them (whose lora_A then keeps this same
    /// input). Empty: kept whenever recorded.
    std::vector<std::string> onlyForInnerWeights;

    [[nodiscard]] static SavedTensor input(std::size_t index = 0)
    {
        SavedTensor s;
        s.source = Source::Input;
        s.inputIndex = index;
        s.label = "input";
        return s;
    }
    [[nodiscard]] static SavedTensor output()
    {
        SavedTensor s;
        s.source = Source::Output;
        s.label = "output";
        return s;
    }
    [[nodiscard]] static SavedTensor internal(
        std::string label, Count perSample, DType dtype, Count fixed = 0)
    {
        SavedTensor s;
        s.source = Source::Internal;
        s.label = std::move(label);
        s.perSampleElements = perSample;
        s.fixedElements = fixed;
        s.dtype = dtype;
        return s;
    }
};

/// What a layer kind sees of one layer when inferring it.
struct LayerContext final
{
    const Attributes& attrs;
    /// The inputs as the operator receives them: under autocast, a LowerPrecision kind sees its float
    /// inputs already cast to the half type and a Float32 kind sees them in float32.
    std::span<const TensorInfo> inputs;
    Precision precision = Precision::Fp32;
    AttentionImplementation attention = AttentionImplementation::Sdpa;
    /// Mixture-of-experts routing: the busiest expert's assignments relative to an even share
    /// (AnalysisOptions::moeImbalance; 1 = balanced).
    double moeImbalance = 1.0;

    [[nodiscard]] const TensorInfo& in(std::size_t i = 0) const { return inputs[i]; }
    /// The floating-point type this layer's new activations have: its first float input's dtype, or
    /// the parameter type when it has no float input (Embedding).
    [[nodiscard]] DType activationType() const noexcept;
    [[nodiscard]] DType parameterType() const noexcept { return headroom::parameterType(precision); }
};

/// The attention core inside an attention layer, per sample: S = Q K^T (scaled, masked), P = softmax(S)
/// (and its dropout), O = P V. All of it is part of LayerOutcome::forwardFlopsPerSample; the analysis
/// uses the split to count backward per operand that requires grad, selective checkpointing's
/// recomputation, and the fused kernels' recomputation of S (docs/finetuning.md, "Backward FLOPs").
struct AttentionCoreFlops final
{
    /// An operand the layer makes itself from its own projections: it requires grad whenever the layer
    /// is recorded by autograd.
    static constexpr std::size_t kMadeInside = static_cast<std::size_t>(-1);
    Count scores; ///< Q K^T: 2 x T x S x head_dim per head
    Count values; ///< P V: the same
    Count softmax; ///< scaling, masking, softmax and dropout of the scores
    std::size_t q = kMadeInside; ///< the layer input Q comes from (it requires grad when that input does)
    std::size_t k = kMadeInside;
    std::size_t v = kMadeInside;
    /// Flash / memory-efficient attention keeps only a logsumexp, so its backward computes S and P again.
    bool recomputedInBackward = false;
};

/// A Linear module inside a composite layer (a mixture of experts' router and expert projections, latent
/// attention's projections): what PEFT's LoRA targets by its name and QLoRA stores in 4 bits, as it does
/// the Linear layers of a network.
struct InnerLinear final
{
    /// The module's name below the layer as PyTorch's named_modules() gives it ("gate", "q_a_proj"); "{}"
    /// stands for the index of each of `instances` copies ("experts.{}.w1": experts.0.w1, experts.1.w1, ...).
    std::string name;
    std::int64_t inFeatures = 0;
    std::int64_t outFeatures = 0;
    std::int64_t instances = 1;
    /// Rows through all instances together, per sample (an expert projection: num_experts_per_tok x T
    /// however the tokens are routed); LoRA charges each instance an equal share.
    Count rowsPerSample;
    /// The dtype of the rows the module receives, before autocast casts them.
    DType inputType = DType::Float32;
    /// The ParamTensor::name of the instances' weights ("experts.w1.weight").
    std::string weight;
};

/// What inferring a layer yields.
struct LayerOutcome final
{
    TensorInfo output;
    /// The output shares storage with input 0 (an in-place op, a view, Identity): it costs nothing new.
    bool outputAliasesInput = false;
    std::vector<ParamTensor> params;
    std::vector<SavedTensor> saved;
    /// Forward multiply-adds x 2 per sample (FLOPs), for throughput estimates.
    Count forwardFlopsPerSample;
    /// Attention kinds: the attention core's part of forwardFlopsPerSample.
    std::optional<AttentionCoreFlops> attentionCore;
    /// Composite kinds with weights: the part of forwardFlopsPerSample that uses no weight (activations,
    /// dropout, residual adds), whose backward is one pass like a parameter-free layer's rather than
    /// one per gradient (input and weight).
    Count elementwiseFlopsPerSample;

    // What the step simulation (docs/memory-model.md, "One training step") reads beyond the above.

    /// Backward: input i with aliasedInputGradients[i] set receives the output gradient itself or a view
    /// of it (Identity, views, an Add operand of the output's shape and dtype, Concat's slices), so
    /// nothing is allocated for it. Every other input that needs a gradient gets a new tensor of its own
    /// size (the default; an empty vector aliases none).
    std::vector<bool> aliasedInputGradients;
    /// Bytes per sample a layer holds only while its forward (backward) runs, beyond its output, its
    /// saved tensors and its gradients: a composite layer's internal intermediates, a kernel's
    /// temporaries. Freed when the layer returns.
    Count forwardScratchBytesPerSample;
    Count backwardScratchBytesPerSample;
    /// Composite layers: the Linear modules inside, for LoRA and QLoRA.
    std::vector<InnerLinear> innerLinears;
    /// Assumptions about this layer that the user should know, in the user's terms ("assumes balanced
    /// routing across the 8 experts"); the analysis lists them with the layer's name.
    std::vector<std::string> warnings;
    /// A mixture of experts: its routed experts and the experts each token goes to (0: not one).
    std::int64_t routedExperts = 0;
    std::int64_t expertsPerToken = 0;
};

/// How a layer kind treats the position of its inputs' batch axis (TensorInfo::batchAxis).
enum class BatchAxisUse {
    /// Needs the batch axis first (convolutions, pooling, BatchNorm, reshapes): the analysis refuses an
    /// input whose batch axis is elsewhere, naming the layer and the input's layout.
    First,
    /// Acts on each position alike or on trailing axes after the batch axis (element-wise ops, Linear,
    /// LayerNorm, Dropout): the inputs' batch axes must be at the same place counted from the end, and
    /// the output's is there too; the analysis refuses a batch axis that is the last axis.
    Kept,
    /// Reads and sets the batch axis itself (Permute, Select, sequence-first LSTM and attention).
    Own,
};

enum class LayerCategory {
    Convolution,
    Linear,
    Normalization,
    Activation,
    Pooling,
    Dropout,
    Shape,
    Recurrent,
    Attention,
    Embedding,
    Merge,
    Structure,
};
[[nodiscard]] std::string_view categoryName(LayerCategory c) noexcept;

/// One operator. Each lives in its own file under core/src/layers/ and is listed once in the
/// registry; nothing else in the engine switches on type names.
class LayerKind
{
public:
    virtual ~LayerKind() = default;
    [[nodiscard]] virtual std::string_view type() const = 0;
    [[nodiscard]] virtual LayerCategory category() const = 0;
    [[nodiscard]] virtual std::string_view summary() const = 0; ///< one line for menus and tooltips
    [[nodiscard]] virtual std::span<const AttributeSpec> attributes() const = 0;
    [[nodiscard]] virtual AutocastPolicy autocast() const { return AutocastPolicy::Passthrough; }
    [[nodiscard]] virtual BatchAxisUse batchAxisUse() const { return BatchAxisUse::First; }
    [[nodiscard]] virtual std::size_t minInputs() const { return 1; }
    [[nodiscard]] virtual std::size_t maxInputs() const { return 1; }
    /// Infers output, parameters, saved tensors. An error's message describes the problem in the
    /// user's terms without the layer's name (the analysis prefixes it): "kernel 5x5 is larger
    /// than the padded input 3x3".
    [[nodiscard]] virtual Result<LayerOutcome> infer(const LayerContext& ctx) const = 0;
};

} // namespace headroom

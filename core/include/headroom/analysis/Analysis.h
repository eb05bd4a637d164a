#pragma once

#include "headroom/analysis/StepGraph.h"
#include "headroom/layers/LayerKind.h"
#include "headroom/model/Network.h"
#include "headroom/setup/Precision.h"
#include "headroom/setup/Training.h"
#include "headroom/support/Count.h"
#include "headroom/support/Error.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace headroom {

/// Where the index of an enclosing Repeat block's iteration sits in a row's name, and the consecutive
/// iterations the row stands for.
struct RowIterations final
{
    std::size_t offset = 0; ///< the index's first character in LayerRow::name
    std::int64_t first = 0;
    std::int64_t last = 0;
    friend bool operator==(const RowIterations&, const RowIterations&) = default;
};

/// One analysed layer (a Repeat block gives one row per layer of each iteration it analyses, plus a
/// row for the block itself). Identical iterations of a block are analysed once: the row of such an
/// iteration stands for `count` identical layers, named first to last by `iterations`.
struct LayerRow final
{
    std::string name; ///< unique path, PyTorch style: "features.0", "blocks.3.attn"
    std::string type; ///< "Conv2d", or "Repeat" for a block header row
    int depth = 0; ///< nesting level (0 = top level)
    std::vector<std::string> inputs; ///< resolved producer names ("input" for the network input)
    /// JSON path of the spec in the model file ("layers[4].layers[1]"), for editors and errors.
    std::string specPath;
    /// The file gives the layer no name: `name` ends in its automatic name, its 0-based index in its
    /// list (PyTorch's nn.Sequential naming: "features.4" is the fifth layer of "features").
    bool automaticName = false;
    TensorInfo output;
    std::uint64_t params = 0; ///< trainable + frozen parameter elements
    std::uint64_t trainableParams = 0;
    std::uint64_t bufferElements = 0;
    std::uint64_t activationBytesPerSample = 0; ///< saved-for-backward bytes first kept by this layer
    std::uint64_t activationBytesFixed = 0; ///< batch-independent saved bytes (per-channel statistics)
    std::uint64_t forwardFlopsPerSample = 0; ///< LoRA adapters included
    /// This layer's input-gradient plus weight-gradient FLOPs per sample (LoRA adapters included;
    /// 0 for block headers and the loss): the rows sum to Analysis::backwardFlopsPerSample.
    std::uint64_t backwardFlopsPerSample = 0;
    std::optional<Error> error; ///< set when this layer is invalid or depends on an invalid layer
    bool blockedByEarlierError = false;
    bool frozen = false; ///< no parameter of this layer is trained (frozen in the model, or by LoRA)
    bool checkpointed = false; ///< recomputed in backward (inside a checkpointed block)
    std::uint64_t loraParams = 0; ///< LoRA adapter elements added to this layer (trainable)
    /// One per enclosing Repeat block, outermost first: the iterations this row stands for.
    std::vector<RowIterations> iterations;
    /// The identical layers this row stands for (the product of its iteration counts); every per-layer
    /// figure above is one layer's, and the network's totals count each of them.
    std::uint64_t count = 1;
    /// A mixture-of-experts layer's routed experts and the experts each token goes to (0: not one), and
    /// of `params` the routed experts' elements: all, trainable, and those autocast casts to half.
    /// Expert parallelism splits these (docs/multi-gpu.md, "Expert parallelism").
    std::int64_t experts = 0;
    std::int64_t expertsPerToken = 0;
    std::uint64_t expertParams = 0;
    std::uint64_t expertTrainableParams = 0;
    std::uint64_t expertCastParams = 0;

    [[nodiscard]] bool valid() const noexcept { return !error.has_value(); }
};

/// The name of one layer a row stands for: `shift[level]` iterations after the first of each
/// enclosing block ("b.1.fc" shifted by {5} is "b.6.fc"); a shorter `shift` leaves the rest.
[[nodiscard]] std::string instanceName(const LayerRow& row, const std::vector<std::int64_t>& shift);
/// The row's name with each iteration range written out: "b.1–9998.fc" (the name itself when it
/// stands for one layer).
[[nodiscard]] std::string rangeName(const LayerRow& row);

/// A layer's number, the same in every view (the GUI's layer table, `headroom estimate`'s table, the
/// PDF's, error messages and the peak): its position in the model file's layer list counted from 1, the
/// layers of a Repeat block after a dot, as the GUI's tree shows them: "layers[16].layers[2]" is "17.3".
/// Every iteration of a block shares its layers' numbers (their names tell them apart). Empty for a path
/// that is not a layer's ("loss").
[[nodiscard]] std::string layerNumber(std::string_view specPath);
/// How a sentence names a layer: its number, then its name, "18 (layer2.0.conv1)", or its type when the
/// name is automatic (LayerRow::automaticName) ("5 (MaxPool2d)", not "4", which would read as another layer's
/// number). `name` is the layer's (or one iteration's) name; the loss and rows outside the file's layers are
/// named alone.
[[nodiscard]] std::string layerReference(const LayerRow& row, const std::string& name);
/// An error message (which names layers by their JSON path in the model file, as Error::location does)
/// with each layer also named by its number: "layers[6] (Linear \"fc\"): ..." becomes
/// "layer 7 (fc, layers[6]): ...", "layers[6] (Linear): ..." "layer 7 (Linear, layers[6]): ..." and any
/// other path "layers[1].tied_to" "layer 2 (layers[1].tied_to)". For the command line and the PDF.
[[nodiscard]] std::string withLayerNumbers(const std::string& message);

/// Rows as the outputs list them: consecutive iterations of a Repeat block whose layers are alike in
/// everything but their names shown once. Each group stands for `count` identical layers.
struct RowGroup final
{
    std::size_t row = 0; ///< the Analysis::rows index of its first layer (its figures)
    std::vector<RowIterations> iterations; ///< the iterations it spans, per enclosing block
    std::uint64_t count = 1; ///< the identical layers it stands for
    std::string name; ///< "b.1.fc" ... "b.9998.fc" as "b.1–9998.fc"
    std::string firstName; ///< "b.1.fc"
    std::string lastName; ///< "b.9998.fc"
};

/// An assumption or approximation behind an analysis that the user should see next to the numbers
/// (an operator Headroom does not know, modelled generically; balanced expert routing).
struct AnalysisWarning final
{
    std::string layer; ///< the layer's name ("" for the whole network)
    std::string message; ///< in the user's terms, without the layer's name
    friend bool operator==(const AnalysisWarning&, const AnalysisWarning&) = default;
};

/// The largest mixture-of-experts imbalance accepted anywhere (AnalysisOptions::moeImbalance); a layer
/// allows at most num_experts / num_experts_per_tok, which no published model takes near this.
inline constexpr double kMaxMoeImbalance = 1024.0;

/// What changes how a network is analysed (as opposed to how its memory is then budgeted).
struct AnalysisOptions final
{
    Precision precision = Precision::Fp32;
    Checkpointing checkpointing = Checkpointing::None;
    AttentionImplementation attention = AttentionImplementation::Sdpa;
    LoraOptions lora;
    /// Mixture-of-experts routing imbalance: the tokens routed to a layer's busiest expert divided by an
    /// even share (num_experts_per_tok x tokens / num_experts). 1 is balanced routing; at most
    /// num_experts / num_experts_per_tok, where that expert receives every token. Hugging Face's expert
    /// loop keeps k x tokens assignments whatever the routing, so it scales what one expert allocates
    /// while its backward runs (docs/hf-import.md, "Mixture of experts").
    double moeImbalance = 1.0;
    friend bool operator==(const AnalysisOptions&, const AnalysisOptions&) = default;
};

/// The batch-independent result of walking a network once for one precision policy: shapes,
/// parameters, and per-sample / fixed bytes. Everything set-up dependent lives in estimate().
struct Analysis final
{
    Precision precision = Precision::Fp32;
    AnalysisOptions options; ///< options.precision == precision
    std::vector<LayerRow> rows;
    /// The first blocking error (also recorded on its row); estimates are refused while set.
    std::optional<Error> error;
    /// Assumptions behind the numbers, in layer order (LayerOutcome::warnings, once per layer spec).
    std::vector<AnalysisWarning> warnings;

    std::uint64_t totalParams = 0; ///< as sum(p.numel() for p in model.parameters())
    std::uint64_t trainableParams = 0;
    std::uint64_t bufferElements = 0;
    std::uint64_t parameterBytes = 0; ///< parameters in their storage dtype
    std::uint64_t bufferBytes = 0;
    /// Trainable parameters in their storage dtype (what gradients cost: a gradient has its
    /// parameter's dtype). Differs from trainableParams x parameter size when LoRA adapters have
    /// their own dtype (QLoRA).
    std::uint64_t trainableParameterBytes = 0;
    /// Under autocast: the half copies of weights autocast caches for the step.
    std::uint64_t autocastWeightCopyBytes = 0;

    std::uint64_t activationBytesPerSample = 0; ///< all layers' and the loss's, excluding the input
    std::uint64_t activationBytesFixed = 0;
    std::uint64_t lossActivationBytesPerSample = 0; ///< the part kept by the loss (included above)
    std::uint64_t inputBytesPerSample = 0; ///< the sample plus its labels
    /// Largest activation-gradient pair (a layer's input gradient + output gradient) alive at once
    /// during backward, per sample.
    std::uint64_t transientBytesPerSample = 0;
    std::uint64_t forwardFlopsPerSample = 0;
    /// Backward FLOPs per sample (docs/finetuning.md, "Backward FLOPs"): per matrix product, one product
    /// of its size for the input gradient when the input requires grad and one for the weight gradient
    /// when the weight trains; per product of two activations (attention's Q K^T, P V), one per operand
    /// that requires grad; weight-free element-wise work once. 2 x forward for a fully trained
    /// transformer (Narayanan et al. 2021); 0 where nothing upstream needs gradients.
    std::uint64_t backwardFlopsPerSample = 0;
    /// The extra forward FLOPs activation checkpointing spends recomputing in backward (per block: the
    /// segments' forward; selective: the attention cores whose scores were dropped).
    std::uint64_t recomputeFlopsPerSample = 0;
    /// What flash / memory-efficient attention recomputes inside its backward kernel (Q K^T and the
    /// softmax, from the saved logsumexp; Dao 2023, FlashAttention-2, §4.1), per sample. Not part of
    /// backwardFlopsPerSample or recomputeFlopsPerSample, which count model FLOPs and checkpointing.
    std::uint64_t attentionRecomputeFlopsPerSample = 0;
    /// What activationBytesPerSample / Fixed would be without checkpointing (equal when it is off).
    std::uint64_t uncheckpointedActivationBytesPerSample = 0;
    std::uint64_t uncheckpointedActivationBytesFixed = 0;
    std::uint64_t loraParams = 0; ///< LoRA adapter elements (included in totalParams and trainableParams)
    /// Element count of every trainable parameter tensor, for optimizers whose state depends on the
    /// tensor size (8-bit optimizers keep tensors below 4096 elements in 32 bits), in forward order.
    std::vector<std::uint64_t> trainableTensorElements;
    /// How many identical tensors each entry above stands for (identical Repeat iterations are analysed
    /// once); empty means one each.
    std::vector<std::uint64_t> trainableTensorCopies;
    /// Layers after expanding every Repeat block (rows.size() counts the analysed ones).
    std::uint64_t expandedLayers = 0;
    TensorInfo output; ///< the last layer's output (what the loss sees)
    /// Who allocates, reads and keeps each storage in one step: what StepTimeline simulates.
    StepGraph step;

    [[nodiscard]] bool valid() const noexcept { return !error.has_value(); }
};

/// Walks the network once: validates attributes, infers shapes, counts parameters, resolves which
/// storages autograd keeps (each counted once) and attributes them to layers. Never throws; every
/// problem becomes an Error naming the layer.
[[nodiscard]] Analysis analyze(const Network& network, const AnalysisOptions& options);
/// analyze() with default options at `precision`.
[[nodiscard]] Analysis analyze(const Network& network, Precision precision);
/// The analysis's rows (Repeat headers and the loss included) grouped for display.
[[nodiscard]] std::vector<RowGroup> groupRows(const Analysis& analysis);

} // namespace headroom

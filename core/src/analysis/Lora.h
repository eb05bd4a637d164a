#pragma once

// Stage: adapters (LoRA, QLoRA), for each layer the layer stage infers. Reads the LoRA options, the
// precision and the layer's name, outcome and input; decides which Linear layers and inner Linear
// modules PEFT adapts and which base weights QLoRA stores in 4 bits, and records each adapter's
// parameters, kept tensors and FLOPs (through a ParameterSink). At the end, a target that matched no
// layer is an error.

#include "Diagnostics.h"
#include "Parameters.h"
#include "StepRecorder.h"
#include "headroom/analysis/Analysis.h"
#include "headroom/layers/LayerKind.h"
#include "headroom/model/Network.h"
#include "headroom/setup/Training.h"

#include <optional>
#include <set>
#include <string>
#include <vector>

namespace headroom::analysis {

/// FLOPs per sample.
struct Flops final
{
    Count forward;
    Count backward;
};

/// The part of a tensor that is kept: `kept` of `total` equal shares.
struct Share final
{
    std::uint64_t kept = 1;
    std::uint64_t total = 1;
    [[nodiscard]] Count of(Count elements) const;
};

/// An inner Linear module of a composite layer that LoRA adapts: how many of its instances.
struct InnerAdapter final
{
    const InnerLinear* module = nullptr;
    std::uint64_t instances = 0;
};

/// An inner module's name (InnerLinear::name, ::weight) for instance `i`: "experts.{}.w1" -> "experts.3.w1".
[[nodiscard]] std::string innerModuleName(std::string pattern, std::int64_t i);

class LoraAdapters final
{
public:
    /// `layers`: the network's, for its output head (the last Linear layer), which LoRA leaves alone
    /// unless a target names it.
    LoraAdapters(const LoraOptions& options, Precision precision, const std::vector<LayerSpec>& layers);

    /// The options' own errors (rank, dropout, empty targets).
    [[nodiscard]] static std::optional<Error> validate(const LoraOptions& options);

    [[nodiscard]] bool enabled() const noexcept { return m_options.enabled(); }
    /// Whether LoRA adapts the Linear module of this full name (and notes which targets matched).
    bool adapts(const std::string& name);
    /// The inner Linear modules (LayerOutcome::innerLinears) LoRA's targets match, by their full names
    /// ("model.layers.0.block_sparse_moe.experts.3.w1"), as PEFT matches named_modules().
    [[nodiscard]] std::vector<InnerAdapter> innerAdapters(
        const LayerOutcome& outcome, const std::string& layerName);
    /// The parameters of a layer that QLoRA stores in NF4: every Linear module's weight but the head's,
    /// those inside composite layers included.
    [[nodiscard]] std::set<std::string> nf4Weights(
        const LayerOutcome& outcome, const std::string& layerName, bool isLinear, bool ownWeight) const;
    /// How much LoRA keeps of a tensor a composite layer keeps only for some inner modules' weight
    /// gradients, in `dtype` (lora_A keeps that same input when it needs no dropped or cast copy of it).
    [[nodiscard]] Share innerShare(
        const SavedTensor& saved, DType dtype, const std::vector<InnerAdapter>& adapters) const;

    /// A Linear layer's adapter, on its input `x` (`effective`: as the layer receives it).
    Flops addLinearAdapter(const Tensor& x, const TensorInfo& effective, const TensorInfo& output,
        const ParameterSink& sink) const;
    /// The adapters of an inner module's adapted instances (`saved`: what the layer keeps).
    Flops addInnerAdapter(
        const InnerAdapter& adapter, const std::vector<SavedTensor>& saved, const ParameterSink& sink) const;

    /// After the walk: an error for each target that matched no Linear module.
    void reportUnmatched(Diagnostics& diagnostics) const;

private:
    struct AdapterSite;

    Flops addAdapters(const AdapterSite& site, const ParameterSink& sink) const;
    [[nodiscard]] DType adapterType() const noexcept;
    [[nodiscard]] DType computeType(DType input) const noexcept;

    LoraOptions m_options;
    Precision m_precision;
    std::string m_headName; ///< the last Linear layer: the default targets skip it
    std::vector<bool> m_targetMatched; ///< per target
};

} // namespace headroom::analysis

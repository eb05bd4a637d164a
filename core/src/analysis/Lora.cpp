// Stage: adapters (see Lora.h). PEFT's LoRA Linear: result = base(x) + lora_B(lora_A(dropout(x))) *
// scaling, with every base parameter frozen; QLoRA stores the base Linear weights in NF4.
#include "Lora.h"

#include "headroom/support/Format.h"

#include <algorithm>

namespace headroom::analysis {

namespace {

/// PEFT's target matching: the module's full name is the target or ends with "." + target.
bool matchesTarget(const std::string& name, const std::string& target)
{
    if (target.empty() || target.size() > name.size())
        return false;
    if (name.size() == target.size())
        return name == target;
    return name.compare(name.size() - target.size(), target.size(), target) == 0
        && name[name.size() - target.size() - 1] == '.';
}

/// The full name of the last Linear layer in forward order: the output head LoRA leaves alone.
std::optional<std::string> lastLinearName(const std::vector<LayerSpec>& specs, const std::string& prefix)
{
    for (std::size_t i = specs.size(); i-- > 0;) {
        const auto& spec = specs[i];
        const std::string local = spec.name.empty() ? std::to_string(i) : spec.name;
        if (spec.isRepeat()) {
            if (spec.times < 1)
                continue;
            if (auto found
                = lastLinearName(spec.children, prefix + local + "." + std::to_string(spec.times - 1) + "."))
                return found;
        } else if (spec.type == "Linear") {
            return prefix + local;
        }
    }
    return std::nullopt;
}

} // namespace

/// One place LoRA adapts: `copies` modules of in x out features through which `positions` rows pass
/// per sample in all (a Linear layer: one module; an expert projection: the adapted experts' share
/// of the routed rows).
struct LoraAdapters::AdapterSite
{
    Count positions;
    Count in;
    Count out;
    std::uint64_t copies = 1;
    DType inputType = DType::Float32;
    /// x's storage when A can keep x itself (a Linear layer's input); empty when x lives inside a
    /// composite layer, whose kind keeps it (SavedTensor::onlyForInnerWeights) or not.
    std::optional<std::size_t> inputStorage;
    /// A's input is a tensor the layer keeps already (the kind's, for an inner module).
    bool inputKept = false;
    bool inputRequiresGrad = true;
};

Count Share::of(Count elements) const
{
    if (kept == total || elements.isOverflow())
        return elements;
    const std::uint64_t n = elements.value();
    return Count { n / total * kept + n % total * kept / total }; // n kept / total without overflow
}

std::string innerModuleName(std::string pattern, std::int64_t i)
{
    if (const auto slot = pattern.find("{}"); slot != std::string::npos)
        pattern.replace(slot, 2, std::to_string(i));
    return pattern;
}

LoraAdapters::LoraAdapters(
    const LoraOptions& options, Precision precision, const std::vector<LayerSpec>& layers)
    : m_options { options }
    , m_precision { precision }
    , m_headName { lastLinearName(layers, "").value_or(std::string()) }
    , m_targetMatched(options.targets.size(), false)
{
}

std::optional<Error> LoraAdapters::validate(const LoraOptions& lora)
{
    if (lora.rank < 0)
        return Error { "lora.rank must be 0 (off) or a positive integer, not " + std::to_string(lora.rank),
            "lora.rank" };
    if (!(lora.dropout >= 0.0 && lora.dropout < 1.0))
        return Error { "lora.dropout must be at least 0 and below 1", "lora.dropout" };
    for (std::size_t i = 0; i < lora.targets.size(); ++i) {
        if (lora.targets[i].empty()) {
            const std::string where = "lora.targets[" + std::to_string(i) + "]";
            return Error { where + " must be a layer name (or the end of one), not empty", where };
        }
    }
    return std::nullopt;
}

bool LoraAdapters::adapts(const std::string& name)
{
    const auto& targets = m_options.targets;
    if (targets.empty())
        return name != m_headName;
    bool any = false;
    for (std::size_t i = 0; i < targets.size(); ++i) {
        if (matchesTarget(name, targets[i])) {
            m_targetMatched[i] = true;
            any = true;
        }
    }
    return any;
}

std::vector<InnerAdapter> LoraAdapters::innerAdapters(
    const LayerOutcome& outcome, const std::string& layerName)
{
    std::vector<InnerAdapter> out;
    if (!enabled())
        return out;
    for (const auto& inner : outcome.innerLinears) {
        InnerAdapter match { &inner, 0 };
        for (std::int64_t i = 0; i < inner.instances; ++i) {
            if (adapts(layerName + "." + innerModuleName(inner.name, i)))
                ++match.instances;
        }
        if (match.instances > 0)
            out.push_back(match);
    }
    return out;
}

std::set<std::string> LoraAdapters::nf4Weights(
    const LayerOutcome& outcome, const std::string& layerName, bool isLinear, bool ownWeight) const
{
    std::set<std::string> out;
    if (!enabled() || !m_options.quantizeBase)
        return out;
    if (isLinear && ownWeight && layerName != m_headName)
        out.insert("weight");
    for (const auto& inner : outcome.innerLinears) {
        for (std::int64_t i = 0; i < inner.instances; ++i)
            out.insert(innerModuleName(inner.weight, i));
    }
    return out;
}

Share LoraAdapters::innerShare(
    const SavedTensor& s, DType dtype, const std::vector<InnerAdapter>& adapters) const
{
    Share share { 0, 1 };
    if (m_options.dropout > 0.0)
        return share;
    for (const auto& a : adapters) {
        const auto& modules = s.onlyForInnerWeights;
        if (std::find(modules.begin(), modules.end(), a.module->name) == modules.end()
            || computeType(a.module->inputType) != dtype)
            continue;
        const auto total = static_cast<std::uint64_t>(std::max<std::int64_t>(a.module->instances, 1));
        // The largest share among the modules (w1 and w3 of the same experts read the same tokens).
        if (a.instances * share.total > share.kept * total)
            share = Share { a.instances, total };
    }
    return share;
}

Flops LoraAdapters::addLinearAdapter(
    const Tensor& x, const TensorInfo& effective, const TensorInfo& output, const ParameterSink& sink) const
{
    AdapterSite site;
    site.in = Count::fromSigned(effective.shape.dims.back());
    site.out = Count::fromSigned(output.shape.dims.back());
    const Count elements = x.info.shape.elements();
    site.positions = site.in.value() == 0 ? Count { 0 } : Count { elements.value() / site.in.value() };
    site.inputType = x.info.dtype;
    site.inputStorage = x.storage;
    site.inputRequiresGrad = x.requiresGrad;
    return addAdapters(site, sink);
}

Flops LoraAdapters::addInnerAdapter(
    const InnerAdapter& adapter, const std::vector<SavedTensor>& saved, const ParameterSink& sink) const
{
    const InnerLinear& inner = *adapter.module;
    AdapterSite site;
    site.in = Count::fromSigned(inner.inFeatures);
    site.out = Count::fromSigned(inner.outFeatures);
    site.copies = adapter.instances;
    const std::uint64_t instances = static_cast<std::uint64_t>(std::max<std::int64_t>(inner.instances, 1));
    const Count share = inner.rowsPerSample * Count { adapter.instances };
    site.positions = Count { share.value() / instances + (share.value() % instances != 0 ? 1 : 0) };
    if (share.isOverflow())
        site.positions = Count::overflowed();
    site.inputType = inner.inputType;
    // A's input is the tensor the kind keeps for this module's weight gradient when its dtype is the
    // adapters' (innerShare keeps it); with no such tensor the kind keeps x whatever trains.
    const DType compute = computeType(inner.inputType);
    bool tagged = false;
    bool taggedMatches = false;
    for (const auto& s : saved) {
        if (std::find(s.onlyForInnerWeights.begin(), s.onlyForInnerWeights.end(), inner.name)
            == s.onlyForInnerWeights.end())
            continue;
        tagged = true;
        // The layer's own input reaches the module as it is (a Custom kind sees it uncast).
        const DType dtype = s.source == SavedTensor::Source::Input ? inner.inputType : s.dtype;
        taggedMatches = taggedMatches || dtype == compute;
    }
    site.inputKept = tagged ? taggedMatches : compute == inner.inputType;
    return addAdapters(site, sink);
}

/// A (r x in) and B (out x r) train; A keeps its (dropped, cast) input, B keeps A's output (r per
/// position).
Flops LoraAdapters::addAdapters(const AdapterSite& site, const ParameterSink& sink) const
{
    const Count r = Count::fromSigned(m_options.rank);
    const DType adapter = adapterType();
    const Count a = r * site.in;
    const Count b = site.out * r;
    const Count elements = (a + b) * Count { site.copies };
    const Count bytes = elements * Count { elementSize(adapter) };
    sink.row.loraParams += elements.value();
    sink.row.params += elements.value();
    sink.row.trainableParams += elements.value();
    Totals& totals = sink.totals;
    totals.params += elements;
    totals.trainable += elements;
    totals.lora += elements;
    totals.paramBytes += bytes;
    totals.trainableBytes += bytes;
    for (std::uint64_t i = 0; i < site.copies; ++i) {
        sink.addTrainable(a, a * Count { elementSize(adapter) });
        sink.addTrainable(b, b * Count { elementSize(adapter) });
    }
    totals.overflow
        = totals.overflow || elements.isOverflow() || bytes.isOverflow() || site.positions.isOverflow();
    if (isAutocast(m_precision) && adapter == DType::Float32)
        totals.autocastCopies += elements * Count { elementSize(halfType(m_precision)) };

    StepRecorder& step = sink.step;
    const DType compute = computeType(site.inputType);
    const Count inputs = site.positions * site.in;
    bool keepsInput = !site.inputKept && site.inputStorage.has_value();
    std::size_t aInput = site.inputStorage.value_or(0);
    if (m_options.dropout > 0.0) {
        if (site.inputRequiresGrad) // dropout is recorded (and keeps its mask) only when x requires grad
            step.keep(step.newStorage(inputs * Count { elementSize(DType::Bool) }, 0), sink.row);
        aInput = step.newStorage(inputs * Count { elementSize(site.inputType) }, 0);
        keepsInput = true;
    }
    if (compute != site.inputType && !(site.inputKept && m_options.dropout == 0.0)) {
        aInput = step.newStorage(inputs * Count { elementSize(compute) }, 0);
        keepsInput = true;
    }
    if (keepsInput)
        step.keep(aInput, sink.row);
    // A's output, B's input
    step.keep(step.newStorage(site.positions * r * Count { elementSize(compute) }, 0), sink.row);

    // Forward: two matmuls. Backward: A's and B's weight gradients, B's input gradient (A trains),
    // and A's input gradient only when x needs one.
    const Count aFlops = Count { 2 } * site.positions * r * site.in;
    const Count bFlops = Count { 2 } * site.positions * r * site.out;
    return Flops { aFlops + bFlops,
        aFlops + bFlops + bFlops + (site.inputRequiresGrad ? aFlops : Count { 0 }) };
}

/// QLoRA adapters are stored in the precision's half type (bf16 unless it is fp16-based); LoRA's
/// in the precision's parameter type.
DType LoraAdapters::adapterType() const noexcept
{
    if (!m_options.quantizeBase)
        return parameterType(m_precision);
    return halfType(m_precision) == DType::Float16 ? DType::Float16 : DType::BFloat16;
}

/// The dtype LoRA's adapters compute in on an input of `input`: the autocast type, or (QLoRA) their
/// own dtype, since PEFT casts x to lora_A.weight.dtype outside autocast.
DType LoraAdapters::computeType(DType input) const noexcept
{
    if (isAutocast(m_precision))
        return halfType(m_precision);
    return m_options.quantizeBase ? adapterType() : input;
}

void LoraAdapters::reportUnmatched(Diagnostics& diagnostics) const
{
    if (!enabled())
        return;
    for (std::size_t i = 0; i < m_targetMatched.size(); ++i) {
        if (m_targetMatched[i])
            continue;
        const std::string where = "lora.targets[" + std::to_string(i) + "]";
        diagnostics.record(Error { where + " " + quoteForMessage(m_options.targets[i])
                + " matches no Linear layer (a target must be a layer's full name or its end after a dot, "
                  "e.g. \"q_proj\" for \"layers.3.self_attn.q_proj\")",
            where });
    }
}

} // namespace headroom::analysis

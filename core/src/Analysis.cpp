#include "headroom/Analysis.h"

#include "headroom/LayerRegistry.h"

#include <algorithm>
#include <map>
#include <unordered_map>
#include <unordered_set>
#include <utility>

namespace headroom {

namespace {

constexpr std::int64_t kMaxRepeatTimes = 100'000;
constexpr std::size_t kMaxExpandedLayers = 1'000'000;
constexpr std::string_view kNetworkInputName = "input";
constexpr std::string_view kRepeatInputName = "repeat_input";

/// A memory block: one tensor's storage, possibly shared by several tensors (views, in-place ops).
struct Storage {
    Count bytesPerSample;
    Count bytesFixed;
    bool isNetworkInput = false;
    bool saved = false; ///< kept for backward by some layer (what counts without checkpointing)
    /// Kept from the forward pass to the backward pass under per-block checkpointing: saved by a layer
    /// outside every checkpointed iteration, saved by a checkpointed iteration that did not create
    /// it, or the input of a checkpointed iteration (torch.utils.checkpoint saves its inputs).
    bool kept = false;
    std::ptrdiff_t segment = -1; ///< the checkpointed iteration that created it (-1: none)
    /// Saved by a layer of the checkpointed iteration that created it: recomputation in backward
    /// materialises it again as a fresh storage (even when the original is kept, as a block's output
    /// that is the next block's input), so it counts in that iteration's recomputed activations.
    bool savedInSegment = false;
};

/// A tensor flowing between layers.
struct Tensor {
    TensorInfo info;
    std::size_t storage = 0;
    std::optional<std::size_t> producerRow; ///< nullopt for the network input
    bool valid = true;
    bool requiresGrad = false; ///< autograd records it (an upstream input or parameter needs a gradient)
};

/// QLoRA's NF4 storage of `elements` weights (Dettmers et al. 2023, QLoRA section 3): 4 bits per
/// weight, one 8-bit quantised absmax per block of 64, one float32 constant per 256 such blocks
/// ("Double Quantization": 8/64 + 32/(64 x 256) bits per parameter on top of the 4).
Count nf4Bytes(Count elements)
{
    const std::uint64_t n = elements.value();
    const std::uint64_t blocks = n / 64 + (n % 64 != 0 ? 1 : 0);
    const std::uint64_t superBlocks = blocks / 256 + (blocks % 256 != 0 ? 1 : 0);
    return elements.isOverflow() ? Count::overflowed() : Count{n / 2 + n % 2} + Count{blocks} + Count{4} * Count{superBlocks};
}

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
            if (auto found = lastLinearName(spec.children, prefix + local + "." + std::to_string(spec.times - 1) + "."))
                return found;
        } else if (spec.type == "Linear") {
            return prefix + local;
        }
    }
    return std::nullopt;
}

bool anyCheckpointMark(const std::vector<LayerSpec>& specs)
{
    return std::any_of(specs.begin(), specs.end(),
                       [](const LayerSpec& s) { return s.isRepeat() && (s.checkpoint || anyCheckpointMark(s.children)); });
}

/// Names visible to a layer's `inputs`: a chain of scopes, innermost first.
struct Scope {
    std::unordered_map<std::string, std::size_t> names; ///< local name -> tensor index
    std::optional<std::size_t> repeatInput;
    const Scope* parent = nullptr;

    [[nodiscard]] std::optional<std::size_t> lookup(const std::string& name) const
    {
        for (const Scope* s = this; s != nullptr; s = s->parent) {
            if (const auto it = s->names.find(name); it != s->names.end())
                return it->second;
            if (name == kRepeatInputName && s->repeatInput)
                return s->repeatInput;
        }
        return std::nullopt;
    }
};

class Analyzer {
public:
    Analyzer(const Network& network, const AnalysisOptions& options)
        : m_network{network}, m_options{options}, m_precision{options.precision}
    {
        m_result.precision = m_precision;
        m_result.options = options;
    }

    Analysis run()
    {
        for (const auto& w : m_network.warnings)
            m_result.warnings.push_back(AnalysisWarning{"", w});
        if (auto e = validateInput()) {
            m_result.error = e;
            return std::move(m_result);
        }
        if (const auto count = expandedCount(m_network.layers); count > kMaxExpandedLayers) {
            m_result.error = Error{"the network expands to more than " + std::to_string(kMaxExpandedLayers)
                                       + " layers (check the Repeat counts)",
                                   "layers"};
            return std::move(m_result);
        }
        if (auto e = validateLora()) {
            m_result.error = e;
            return std::move(m_result);
        }
        m_headName = lastLinearName(m_network.layers, "").value_or(std::string());
        m_anyCheckpointMark = anyCheckpointMark(m_network.layers);
        m_targetMatched.assign(m_options.lora.targets.size(), false);
        addNetworkInput();
        Scope top;
        top.names.emplace(std::string(kNetworkInputName), 0);
        std::size_t current = 0;
        walk(m_network.layers, "layers", "", 0, top, current, false);
        if (!m_result.error)
            addLoss(current);
        if (!m_stopped && m_options.lora.enabled()) {
            for (std::size_t i = 0; i < m_targetMatched.size(); ++i) {
                if (!m_targetMatched[i]) {
                    const std::string where = "lora.targets[" + std::to_string(i) + "]";
                    recordError(Error{where + " \"" + m_options.lora.targets[i]
                                          + "\" matches no Linear layer (a target must be a layer's full name or its "
                                            "end after a dot, e.g. \"q_proj\" for \"layers.3.self_attn.q_proj\")",
                                      where});
                }
            }
        }
        finish();
        return std::move(m_result);
    }

private:
    std::optional<Error> validateLora() const
    {
        const auto& lora = m_options.lora;
        if (lora.rank < 0)
            return Error{"lora.rank must be 0 (off) or a positive integer, not " + std::to_string(lora.rank), "lora.rank"};
        if (!(lora.dropout >= 0.0 && lora.dropout < 1.0))
            return Error{"lora.dropout must be at least 0 and below 1", "lora.dropout"};
        for (std::size_t i = 0; i < lora.targets.size(); ++i) {
            if (lora.targets[i].empty()) {
                const std::string where = "lora.targets[" + std::to_string(i) + "]";
                return Error{where + " must be a layer name (or the end of one), not empty", where};
            }
        }
        return std::nullopt;
    }

    std::optional<Error> validateInput()
    {
        const auto& shape = m_network.input.shape;
        if (shape.rank() == 0)
            return Error{"input.shape must list at least one dimension", "input.shape"};
        for (std::size_t i = 0; i < shape.rank(); ++i) {
            if (shape.dims[i] <= 0) {
                const std::string where = "input.shape[" + std::to_string(i) + "]";
                return Error{where + " must be a positive integer", where};
            }
        }
        if (shape.elements().isOverflow())
            return Error{"input.shape " + shape.toString() + " has more elements than fit 64 bits", "input.shape"};
        return std::nullopt;
    }

    /// Layers after expanding Repeat blocks, saturating just past the limit.
    static std::size_t expandedCount(const std::vector<LayerSpec>& specs)
    {
        std::size_t n = 0;
        for (const auto& spec : specs) {
            const std::size_t one = spec.isRepeat()
                ? static_cast<std::size_t>(std::clamp<std::int64_t>(spec.times, 0, kMaxRepeatTimes))
                    * expandedCount(spec.children)
                : 1;
            n = std::min(n + one, kMaxExpandedLayers + 1);
        }
        return n;
    }

    void addNetworkInput()
    {
        TensorInfo info{m_network.input.shape, m_network.input.dtype};
        if (isPureHalf(m_precision) && isFloatingPoint(info.dtype))
            info.dtype = halfType(m_precision); // the batch is converted with .half() / .bfloat16()
        m_storages.push_back(Storage{info.shape.elements() * Count{elementSize(info.dtype)}, 0, true, false});
        m_tensors.push_back(Tensor{info, 0, std::nullopt, true});
        m_result.inputBytesPerSample = m_storages[0].bytesPerSample.value();
    }

    /// Walks a list of specs, expanding Repeat blocks. `current` is the tensor flowing in and out.
    void walk(const std::vector<LayerSpec>& specs, const std::string& specPrefix, const std::string& namePrefix,
              int depth, Scope& scope, std::size_t& current, bool frozen)
    {
        for (std::size_t i = 0; i < specs.size(); ++i) {
            const auto& spec = specs[i];
            const std::string specPath = specPrefix + "[" + std::to_string(i) + "]";
            const std::string localName = spec.name.empty() ? std::to_string(i) : spec.name;
            if (!spec.name.empty() && scope.names.contains(spec.name)) {
                fail(specPath + ".name \"" + spec.name + "\" is used twice in the same block", specPath + ".name");
                return;
            }
            if (spec.isRepeat())
                walkRepeat(spec, specPath, namePrefix + localName, depth, scope, current, frozen || spec.frozen);
            else
                current = addLayer(spec, specPath, namePrefix + localName, depth, scope, current, frozen || spec.frozen);
            if (m_stopped)
                return;
            if (!spec.name.empty())
                scope.names[spec.name] = current;
        }
    }

    void walkRepeat(const LayerSpec& spec, const std::string& specPath, const std::string& name, int depth,
                    const Scope& scope, std::size_t& current, bool frozen)
    {
        if (spec.times < 1 || spec.times > kMaxRepeatTimes) {
            fail(specPath + ".times must be an integer from 1 to " + std::to_string(kMaxRepeatTimes), specPath + ".times");
            return;
        }
        if (spec.children.empty()) {
            fail(specPath + ".layers must hold at least one layer", specPath + ".layers");
            return;
        }
        LayerRow header;
        header.name = name;
        header.type = "Repeat";
        header.depth = depth;
        header.specPath = specPath;
        // Per-block checkpointing: each iteration of this block is one torch.utils.checkpoint segment
        // (the outermost checkpointed block wins; marks inside it change nothing).
        const bool segments = m_options.checkpointing == Checkpointing::PerBlock && m_segment < 0
            && (m_anyCheckpointMark ? spec.checkpoint : depth == 0);
        header.checkpointed = segments || m_segment >= 0;
        const std::size_t headerRow = m_result.rows.size();
        m_result.rows.push_back(header);
        for (std::int64_t t = 0; t < spec.times && !m_stopped; ++t) {
            Scope inner;
            inner.parent = &scope;
            inner.repeatInput = current;
            if (segments) {
                m_segment = static_cast<std::ptrdiff_t>(m_segmentCount++);
                m_storages[m_tensors[current].storage].kept = true; // checkpoint saves its input
            }
            walk(spec.children, specPath + ".layers", name + "." + std::to_string(t) + ".", depth + 1, inner, current,
                 frozen);
            if (segments)
                m_segment = -1;
        }
        m_byFullName[name] = current;
        auto& row = m_result.rows[headerRow];
        row.output = m_tensors[current].info;
        bool anyParams = false;
        bool anyTrains = false;
        for (std::size_t r = headerRow + 1; r < m_result.rows.size(); ++r) {
            anyParams = anyParams || m_result.rows[r].params > 0;
            anyTrains = anyTrains || m_result.rows[r].trainableParams > 0;
        }
        row.frozen = anyParams && !anyTrains;
        if (!m_tensors[current].valid)
            row.error = Error{"contains an invalid layer", specPath};
    }

    std::size_t addLayer(const LayerSpec& spec, const std::string& specPath, const std::string& name, int depth,
                         const Scope& scope, std::size_t current, bool frozen)
    {
        if (++m_expanded > kMaxExpandedLayers) {
            fail("the network expands to more than " + std::to_string(kMaxExpandedLayers)
                     + " layers (check the Repeat counts)",
                 specPath);
            return current;
        }
        LayerRow row;
        row.name = name;
        row.type = spec.type;
        row.depth = depth;
        row.specPath = specPath;
        const std::size_t rowIndex = m_result.rows.size();

        std::vector<std::size_t> inputs;
        std::optional<Error> error = resolveInputs(spec, specPath, scope, current, inputs, row);
        const LayerKind* kind = LayerRegistry::builtin().find(spec.type);
        if (!error && kind == nullptr)
            error = Error{specPath + ".type \"" + spec.type + "\" is not a known layer type; known types: "
                              + LayerRegistry::builtin().knownTypesList(),
                          specPath + ".type"};
        if (!error && (inputs.size() < kind->minInputs() || inputs.size() > kind->maxInputs()))
            error = Error{specPath + " (" + spec.type + "): takes " + inputCountText(*kind) + " but gets "
                              + std::to_string(inputs.size()),
                          specPath + ".inputs"};

        const bool blocked = !error && std::any_of(inputs.begin(), inputs.end(), [&](auto t) { return !m_tensors[t].valid; });
        if (blocked) {
            row.blockedByEarlierError = true;
            row.error = Error{"depends on an invalid layer", specPath};
            return pushInvalid(std::move(row), m_tensors[current].info);
        }
        if (error) {
            row.error = error;
            recordError(*error);
            return pushInvalid(std::move(row), m_tensors[current].info);
        }

        auto attrs = Attributes::validate(kind->attributes(), spec.attributes, specPath);
        if (!attrs) {
            row.error = attrs.error();
            recordError(attrs.error());
            return pushInvalid(std::move(row), m_tensors[current].info);
        }

        std::vector<TensorInfo> effective;
        std::vector<bool> casted;
        for (const auto t : inputs) {
            TensorInfo info = m_tensors[t].info;
            const auto target = autocastTarget(kind->autocast(), info.dtype);
            casted.push_back(target.has_value());
            if (target)
                info.dtype = *target;
            effective.push_back(info);
        }
        const LayerContext ctx{attrs.value(), effective, m_precision, m_options.attention};
        auto outcome = kind->infer(ctx);
        if (!outcome) {
            const Error e{specPath + " (" + spec.type + (spec.name.empty() ? "" : " \"" + spec.name + "\"")
                              + "): " + outcome.error().message,
                          specPath};
            row.error = e;
            recordError(e);
            return pushInvalid(std::move(row), m_tensors[current].info);
        }
        auto& o = outcome.value();
        recordWarnings(o.warnings, specPath, name);

        std::optional<std::size_t> tiedRow;
        if (auto e = applyTying(spec, specPath, scope, o, tiedRow)) {
            row.error = e;
            recordError(*e);
            return pushInvalid(std::move(row), m_tensors[current].info);
        }

        // What trains (PEFT freezes every base parameter) and what autograd records.
        const auto& lora = m_options.lora;
        const bool layerFrozen = frozen || lora.enabled();
        const bool isLinear = spec.type == "Linear";
        const bool adapted = lora.enabled() && isLinear && loraTargets(name);
        const bool ownWeight
            = std::any_of(o.params.begin(), o.params.end(), [](const auto& p) { return p.name == "weight"; });
        const bool quantized = lora.enabled() && lora.quantizeBase && isLinear && ownWeight && name != m_headName;
        const bool tiedTrains = tiedRow && !layerFrozen && m_weightTrainsByRow[*tiedRow];
        const bool anyInputGrad
            = std::any_of(inputs.begin(), inputs.end(), [&](auto t) { return m_tensors[t].requiresGrad; });
        countParameters(o, row, layerFrozen, quantized);
        const bool weightTrains = tiedRow ? tiedTrains : (ownWeight && !layerFrozen);
        const bool baseTrains = row.trainableParams > 0 || tiedTrains;
        const bool recorded = anyInputGrad || baseTrains || adapted;
        // The autocast cast cache keeps half copies of weights that require grad; a frozen weight's copy
        // lives on only when backward keeps it (mm/conv save the weight for the input gradient).
        if (weightTrains || anyInputGrad || (recorded && !ownWeight && !tiedRow))
            countAutocastCopies(kind->autocast(), o, quantized, tiedRow);

        // The output: a new storage, or the input's for in-place ops and views.
        Tensor out{o.output, 0, rowIndex, true, recorded};
        if (o.outputAliasesInput && !casted[0]) {
            out.storage = m_tensors[inputs[0]].storage;
        } else {
            out.storage = newStorage(o.output.shape.elements() * Count{elementSize(o.output.dtype)}, 0);
        }
        const std::size_t outIndex = m_tensors.size();
        m_tensors.push_back(out);
        m_byFullName[name] = outIndex;

        bool scoresDropped = false; // selective checkpointing dropped this layer's attention scores
        const std::vector<SavedTensor> nothing; // a layer autograd does not record keeps nothing
        for (const auto& s : recorded ? o.saved : nothing) {
            // addmm/mm save their input only for the weight gradient (measured, docs/finetuning.md).
            if (s.onlyForWeightGradient && !weightTrains)
                continue;
            switch (s.source) {
            case SavedTensor::Source::Input: {
                const auto i = std::min(s.inputIndex, inputs.size() - 1);
                const std::size_t storage = casted[i]
                    ? newStorage(effective[i].shape.elements() * Count{elementSize(effective[i].dtype)}, 0)
                    : m_tensors[inputs[i]].storage;
                keep(storage, row);
                break;
            }
            case SavedTensor::Source::Output: keep(out.storage, row); break;
            case SavedTensor::Source::Internal: {
                const Count perSample = s.perSampleElements * Count{elementSize(s.dtype)};
                const Count fixed = s.fixedElements * Count{elementSize(s.dtype)};
                if (s.attentionScores && m_options.checkpointing == Checkpointing::Selective) {
                    m_droppedPerSample += perSample;
                    m_droppedFixed += fixed;
                    scoresDropped = true;
                    break;
                }
                keep(newStorage(perSample, fixed), row);
                break;
            }
            }
        }

        Count forward = o.forwardFlopsPerSample;
        Count backward = backwardFlops(o, inputs, anyInputGrad, baseTrains, recorded);
        if (adapted) {
            const auto flops = addAdapter(inputs[0], effective[0], o.output, row);
            forward += flops.forward;
            backward += flops.backward;
        }
        if (o.attentionCore) {
            const auto& core = *o.attentionCore;
            // Selective checkpointing dropped the scores: backward runs the attention core again (Q K^T,
            // softmax, dropout, P V; Korthikanti et al. 2022, §5).
            if (scoresDropped)
                m_recompute += core.scores + core.values + core.softmax;
            // Flash / memory-efficient kernels rebuild S and P from the logsumexp whenever backward
            // runs through them.
            if (core.recomputedInBackward && recorded)
                m_attentionRecompute += core.scores + core.softmax;
        }

        if (recorded) {
            Count gradients = o.output.shape.elements() * Count{elementSize(o.output.dtype)};
            for (const auto t : inputs) {
                if (m_tensors[t].requiresGrad)
                    gradients += m_tensors[t].info.shape.elements() * Count{elementSize(m_tensors[t].info.dtype)};
            }
            m_transient = std::max(m_transient, gradients.value());
            m_overflow = m_overflow || gradients.isOverflow();
        }
        m_overflow = m_overflow || forward.isOverflow() || backward.isOverflow();
        if (m_overflow && !m_result.error)
            recordError(Error{specPath + " (" + spec.type + "): its sizes overflow 64-bit byte counts", specPath});

        row.output = o.output;
        row.forwardFlopsPerSample = forward.value();
        row.backwardFlopsPerSample = backward.value();
        row.frozen = row.params > 0 && row.trainableParams == 0 && !tiedTrains;
        row.checkpointed = m_segment >= 0;
        m_forward += forward;
        m_backward += backward;
        if (row.checkpointed)
            m_recompute += forward;
        m_result.rows.push_back(std::move(row));
        return outIndex;
    }

    struct Flops {
        Count forward;
        Count backward;
    };

    /// A layer's backward FLOPs per sample (docs/finetuning.md, "Backward FLOPs"). Its matrix products
    /// with weights (everything not split out below) cost their forward once for the input gradient when
    /// an input requires grad and once for the weight gradients when the weights train. The attention
    /// core's products of two activations cost one product per operand that requires grad: Q K^T gives
    /// dQ = dS K and dK = dS^T Q, P V gives dP = dO V^T (P requires grad when Q or K does) and
    /// dV = P^T dO; its softmax, like the layer's weight-free element-wise work, costs its forward once.
    Count backwardFlops(const LayerOutcome& o, const std::vector<std::size_t>& inputs, bool anyInputGrad,
                        bool baseTrains, bool recorded) const
    {
        const auto requiresGrad = [&](std::size_t operand) {
            if (operand == AttentionCoreFlops::kMadeInside)
                return recorded;
            return m_tensors[inputs[std::min(operand, inputs.size() - 1)]].requiresGrad;
        };
        Count special = o.elementwiseFlopsPerSample;
        Count backward;
        if (recorded)
            backward += o.elementwiseFlopsPerSample;
        if (o.attentionCore) {
            const auto& core = *o.attentionCore;
            special += core.scores + core.values + core.softmax;
            const bool q = requiresGrad(core.q);
            const bool k = requiresGrad(core.k);
            const bool v = requiresGrad(core.v);
            const bool p = q || k;
            backward += core.scores * Count{(q ? 1U : 0U) + (k ? 1U : 0U)};
            backward += core.values * Count{(p ? 1U : 0U) + (v ? 1U : 0U)};
            if (p)
                backward += core.softmax;
        }
        const std::uint64_t total = o.forwardFlopsPerSample.value();
        const Count products{total > special.value() ? total - special.value() : 0};
        if (anyInputGrad)
            backward += products; // input gradients
        if (baseTrains)
            backward += products; // weight gradients
        if (special.isOverflow() || o.forwardFlopsPerSample.isOverflow())
            return Count::overflowed();
        return backward;
    }

    /// PEFT's LoRA Linear: result = base(x) + lora_B(lora_A(dropout(x))) * scaling. A (r x in) and
    /// B (out x r) train; A keeps its (dropped, cast) input, B keeps A's output (r per position).
    Flops addAdapter(std::size_t input, const TensorInfo& effective, const TensorInfo& output, LayerRow& row)
    {
        const auto& lora = m_options.lora;
        const Tensor& x = m_tensors[input];
        const Count in = Count::fromSigned(effective.shape.dims.back());
        const Count out = Count::fromSigned(output.shape.dims.back());
        const Count r = Count::fromSigned(lora.rank);
        const Count elements = x.info.shape.elements();
        const Count positions = in.value() == 0 ? Count{0} : Count{elements.value() / in.value()};
        const DType adapterType = loraAdapterType();
        const Count a = r * in;
        const Count b = out * r;
        const Count bytes = (a + b) * Count{elementSize(adapterType)};
        row.loraParams = (a + b).value();
        row.params += row.loraParams;
        row.trainableParams += row.loraParams;
        m_params += a + b;
        m_trainable += a + b;
        m_lora += a + b;
        m_paramBytes += bytes;
        m_trainableBytes += bytes;
        m_result.trainableTensorElements.push_back(a.value());
        m_result.trainableTensorElements.push_back(b.value());
        m_overflow = m_overflow || a.isOverflow() || b.isOverflow() || bytes.isOverflow() || positions.isOverflow();
        if (isAutocast(m_precision) && adapterType == DType::Float32)
            m_autocastCopies += (a + b) * Count{elementSize(halfType(m_precision))};

        // The adapters compute in the autocast type, or (QLoRA) in their own dtype: PEFT casts x to
        // lora_A.weight.dtype outside autocast.
        const DType compute = isAutocast(m_precision) ? halfType(m_precision)
            : lora.quantizeBase                       ? adapterType
                                                      : x.info.dtype;
        std::size_t aInput = x.storage;
        if (lora.dropout > 0.0) {
            if (x.requiresGrad) // dropout is recorded (and keeps its mask) only when x requires grad
                keep(newStorage(elements * Count{elementSize(DType::Bool)}, 0), row);
            aInput = newStorage(elements * Count{elementSize(x.info.dtype)}, 0);
        }
        if (compute != x.info.dtype)
            aInput = newStorage(elements * Count{elementSize(compute)}, 0);
        keep(aInput, row);
        keep(newStorage(positions * r * Count{elementSize(compute)}, 0), row); // A's output, B's input

        // Forward: two matmuls. Backward: A's and B's weight gradients, B's input gradient (A trains),
        // and A's input gradient only when x needs one.
        const Count aFlops = Count{2} * positions * r * in;
        const Count bFlops = Count{2} * positions * r * out;
        return Flops{aFlops + bFlops, aFlops + bFlops + bFlops + (x.requiresGrad ? aFlops : Count{0})};
    }

    /// QLoRA adapters are stored in the precision's half type (bf16 unless it is fp16-based); LoRA's
    /// in the precision's parameter type.
    DType loraAdapterType() const noexcept
    {
        if (!m_options.lora.quantizeBase)
            return parameterType(m_precision);
        return halfType(m_precision) == DType::Float16 ? DType::Float16 : DType::BFloat16;
    }

    bool loraTargets(const std::string& name)
    {
        const auto& targets = m_options.lora.targets;
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

    std::optional<Error> resolveInputs(const LayerSpec& spec, const std::string& specPath, const Scope& scope,
                                       std::size_t current, std::vector<std::size_t>& inputs, LayerRow& row)
    {
        if (spec.inputs.empty()) {
            inputs.push_back(current);
            row.inputs.push_back(tensorName(current));
            return std::nullopt;
        }
        for (std::size_t i = 0; i < spec.inputs.size(); ++i) {
            const auto& ref = spec.inputs[i];
            auto found = scope.lookup(ref);
            if (!found) {
                if (const auto it = m_byFullName.find(ref); it != m_byFullName.end())
                    found = it->second;
            }
            if (!found) {
                const std::string where = specPath + ".inputs[" + std::to_string(i) + "]";
                return Error{where + " \"" + ref + "\" does not name an earlier layer (or \"input\""
                                 + (scope.repeatInput ? std::string(", \"repeat_input\"") : std::string()) + ")",
                             where};
            }
            inputs.push_back(*found);
            row.inputs.push_back(tensorName(*found));
        }
        return std::nullopt;
    }

    std::optional<DType> autocastTarget(AutocastPolicy policy, DType dtype) const
    {
        if (!isAutocast(m_precision) || !isFloatingPoint(dtype))
            return std::nullopt;
        if (policy == AutocastPolicy::LowerPrecision && dtype != halfType(m_precision))
            return halfType(m_precision);
        if (policy == AutocastPolicy::Float32 && dtype != DType::Float32)
            return DType::Float32;
        return std::nullopt;
    }

    /// Weight tying: the tied weight is the other layer's parameter, so it is not counted again.
    std::optional<Error> applyTying(const LayerSpec& spec, const std::string& specPath, const Scope& scope,
                                    LayerOutcome& o, std::optional<std::size_t>& tiedRow)
    {
        if (spec.tiedTo.empty())
            return std::nullopt;
        const std::string where = specPath + ".tied_to";
        std::optional<std::size_t> target = scope.lookup(spec.tiedTo);
        const auto weights = target && m_tensors[*target].producerRow
            ? m_weightByRow.find(*m_tensors[*target].producerRow)
            : m_weightByRow.end();
        if (weights == m_weightByRow.end())
            return Error{where + " \"" + spec.tiedTo + "\" does not name an earlier layer with a weight", where};
        const auto own = std::find_if(o.params.begin(), o.params.end(), [](const auto& p) { return p.name == "weight"; });
        if (own == o.params.end())
            return Error{where + ": this layer has no weight to tie", where};
        if (own->elements != weights->second)
            return Error{where + ": this layer's weight has " + std::to_string(own->elements.value())
                             + " elements but \"" + spec.tiedTo + "\"'s has " + std::to_string(weights->second.value()),
                         where};
        o.params.erase(own);
        tiedRow = *m_tensors[*target].producerRow;
        return std::nullopt;
    }

    /// Under autocast: the half copy of each weight a conv/linear (or a Custom kind's castByAutocast
    /// parameter) uses; a tied weight is cast again (autocast casts the shared weight all the same).
    /// QLoRA's NF4 weights are dequantised on the fly instead.
    void countAutocastCopies(AutocastPolicy policy, const LayerOutcome& o, bool quantized,
                             std::optional<std::size_t> tiedRow)
    {
        if (!isAutocast(m_precision))
            return;
        const Count half{elementSize(halfType(m_precision))};
        for (const auto& p : o.params) {
            const bool cast = p.role == ParamTensor::Role::Parameter
                && (policy == AutocastPolicy::LowerPrecision || p.castByAutocast)
                && !(quantized && p.name == "weight");
            if (cast)
                m_autocastCopies += p.elements * half;
        }
        if (tiedRow && policy == AutocastPolicy::LowerPrecision)
            m_autocastCopies += m_weightByRow[*tiedRow] * half;
    }

    void countParameters(const LayerOutcome& o, LayerRow& row, bool frozen, bool quantized)
    {
        Count params, buffers, paramBytes, bufferBytes, trainable, trainableBytes;
        for (const auto& p : o.params) {
            const DType dtype = p.dtype == DType::Float32 ? parameterType(m_precision) : p.dtype;
            const bool nf4 = quantized && p.name == "weight";
            const Count bytes = nf4 ? nf4Bytes(p.elements) : p.elements * Count{elementSize(dtype)};
            if (p.role == ParamTensor::Role::Parameter) {
                params += p.elements;
                paramBytes += bytes;
                if (!frozen) {
                    trainable += p.elements;
                    trainableBytes += bytes;
                    m_result.trainableTensorElements.push_back(p.elements.value());
                }
                if (p.name == "weight") {
                    m_weightByRow[m_result.rows.size()] = p.elements;
                    m_weightTrainsByRow[m_result.rows.size()] = !frozen;
                }
            } else {
                buffers += p.elements;
                bufferBytes += bytes;
            }
        }
        m_overflow = m_overflow || params.isOverflow() || buffers.isOverflow() || paramBytes.isOverflow()
            || bufferBytes.isOverflow();
        row.params = params.value();
        row.trainableParams = trainable.value();
        row.bufferElements = buffers.value();
        m_trainable += trainable;
        m_trainableBytes += trainableBytes;
        m_params += params;
        m_buffers += buffers;
        m_paramBytes += paramBytes;
        m_bufferBytes += bufferBytes;
    }

    void addLoss(std::size_t current)
    {
        if (m_network.loss == Loss::None)
            return;
        const auto& logits = m_tensors[current];
        LayerRow row;
        row.name = "loss";
        row.inputs.push_back(tensorName(current));
        row.specPath = "loss";
        if (!isFloatingPoint(logits.info.dtype) || logits.info.shape.rank() == 0) {
            recordError(Error{"loss " + std::string(lossName(m_network.loss))
                                  + " needs a floating-point network output with at least one axis, but the output is "
                                  + std::string(dtypeName(logits.info.dtype)) + " " + logits.info.shape.toString(),
                              "loss"});
            return;
        }
        // Autocast runs log_softmax / nll_loss, mse_loss, l1_loss and binary_cross_entropy_with_logits in
        // float32; a half output is cast first.
        const DType lossType = isAutocast(m_precision) ? DType::Float32 : logits.info.dtype;
        const Count elements = logits.info.shape.elements();
        // Nothing upstream trains: the loss is not recorded and keeps nothing.
        const bool recorded = logits.requiresGrad;
        if (m_network.loss == Loss::CrossEntropy) {
            row.type = "CrossEntropyLoss";
            if (recorded)
                keep(newStorage(elements * Count{elementSize(lossType)}, 0), row); // log_softmax output
            const Count rows = Shape{{logits.info.shape.dims.begin(), logits.info.shape.dims.end() - 1}}.elements();
            m_labelBytes = rows * Count{elementSize(DType::Int64)};
        } else if (m_network.loss == Loss::L1) {
            // l1_loss is (input - target).abs().mean() (ATen Loss.cpp): abs keeps the difference, a new
            // tensor; sub and mean keep nothing.
            row.type = "L1Loss";
            if (recorded)
                keep(newStorage(elements * Count{elementSize(lossType)}, 0), row);
            m_labelBytes = elements * Count{elementSize(lossType)};
        } else {
            // mse_loss and binary_cross_entropy(_with_logits) keep the prediction (self) and the target.
            row.type = m_network.loss == Loss::Mse ? "MSELoss" : "BCELoss";
            const std::size_t prediction = lossType == logits.info.dtype
                ? logits.storage
                : newStorage(elements * Count{elementSize(lossType)}, 0);
            if (recorded)
                keep(prediction, row);
            m_labelBytes = elements * Count{elementSize(lossType)};
        }
        row.output = TensorInfo{Shape{}, lossType};
        m_result.lossActivationBytesPerSample = row.activationBytesPerSample;
        m_result.rows.push_back(std::move(row));
    }

    void finish()
    {
        m_result.totalParams = m_params.value();
        m_result.trainableParams = m_trainable.value();
        m_result.trainableParameterBytes = m_trainableBytes.value();
        m_result.loraParams = m_lora.value();
        m_result.forwardFlopsPerSample = m_forward.value();
        m_result.backwardFlopsPerSample = m_backward.value();
        m_result.recomputeFlopsPerSample = m_recompute.value();
        m_result.attentionRecomputeFlopsPerSample = m_attentionRecompute.value();
        m_result.bufferElements = m_buffers.value();
        m_result.parameterBytes = m_paramBytes.value();
        m_result.bufferBytes = m_bufferBytes.value();
        m_result.autocastWeightCopyBytes = m_autocastCopies.value();
        m_result.transientBytesPerSample = m_transient;
        // Without checkpointing: every saved storage. Per block: what stays kept, plus the one
        // checkpointed iteration whose recomputed activations are the largest (alive while backward
        // runs through it). Selective: the attention scores were never kept.
        Count perSample, fixed, fullPerSample{m_droppedPerSample}, fullFixed{m_droppedFixed};
        std::vector<std::pair<Count, Count>> segments(m_segmentCount);
        for (const auto& s : m_storages) {
            if (s.isNetworkInput)
                continue;
            if (s.saved) {
                fullPerSample += s.bytesPerSample;
                fullFixed += s.bytesFixed;
            }
            if (s.kept) {
                perSample += s.bytesPerSample;
                fixed += s.bytesFixed;
            }
            if (s.savedInSegment) {
                auto& seg = segments[static_cast<std::size_t>(s.segment)];
                seg.first += s.bytesPerSample;
                seg.second += s.bytesFixed;
            }
        }
        Count largestPerSample, largestFixed;
        for (const auto& [segPerSample, segFixed] : segments) {
            m_overflow = m_overflow || segPerSample.isOverflow() || segFixed.isOverflow();
            largestPerSample = std::max(largestPerSample.value(), segPerSample.value());
            largestFixed = std::max(largestFixed.value(), segFixed.value());
        }
        perSample += largestPerSample;
        fixed += largestFixed;
        const Count input = Count{m_result.inputBytesPerSample} + m_labelBytes;
        m_result.activationBytesPerSample = perSample.value();
        m_result.activationBytesFixed = fixed.value();
        m_result.uncheckpointedActivationBytesPerSample = fullPerSample.value();
        m_result.uncheckpointedActivationBytesFixed = fullFixed.value();
        m_result.inputBytesPerSample = input.value();
        m_result.output = m_tensors.empty() ? TensorInfo{} : m_tensors.back().info;
        const bool overflow = m_overflow || perSample.isOverflow() || fixed.isOverflow() || input.isOverflow()
            || m_autocastCopies.isOverflow() || m_params.isOverflow() || fullPerSample.isOverflow()
            || fullFixed.isOverflow() || m_trainableBytes.isOverflow() || m_forward.isOverflow()
            || m_backward.isOverflow() || m_recompute.isOverflow() || m_attentionRecompute.isOverflow();
        if (overflow && !m_result.error)
            m_result.error = Error{"the network's sizes overflow 64-bit byte counts", "layers"};
    }

    std::size_t newStorage(Count perSample, Count fixed)
    {
        m_overflow = m_overflow || perSample.isOverflow() || fixed.isOverflow();
        m_storages.push_back(Storage{perSample, fixed, false, false, false, m_segment, false});
        return m_storages.size() - 1;
    }

    /// Marks a storage as kept for backward; the first layer to keep it is charged for it (inside a
    /// checkpointed block: what the layer keeps while backward recomputes the block).
    void keep(std::size_t storage, LayerRow& row)
    {
        auto& s = m_storages[storage];
        if (s.isNetworkInput)
            return;
        // Inside a checkpointed iteration, a storage that iteration created is recomputed, not kept.
        if (m_segment >= 0 && s.segment == m_segment)
            s.savedInSegment = true;
        else
            s.kept = true;
        if (s.saved)
            return;
        s.saved = true;
        row.activationBytesPerSample += s.bytesPerSample.value();
        row.activationBytesFixed += s.bytesFixed.value();
    }

    std::size_t pushInvalid(LayerRow row, const TensorInfo& passThrough)
    {
        row.output = passThrough;
        m_byFullName[row.name] = m_tensors.size();
        m_result.rows.push_back(std::move(row));
        m_tensors.push_back(Tensor{passThrough, 0, m_result.rows.size() - 1, false, true});
        return m_tensors.size() - 1;
    }

    /// A layer's warnings, once per spec (a Repeat block's iterations would repeat them).
    void recordWarnings(const std::vector<std::string>& warnings, const std::string& specPath, const std::string& name)
    {
        for (const auto& message : warnings) {
            if (m_warned.insert(specPath + '\n' + message).second)
                m_result.warnings.push_back(AnalysisWarning{name, message});
        }
    }

    void recordError(const Error& e)
    {
        if (!m_result.error)
            m_result.error = e;
    }

    /// A structural error that stops the walk (the rest of the file cannot be interpreted).
    void fail(std::string message, std::string location)
    {
        recordError(Error{std::move(message), std::move(location)});
        m_stopped = true;
    }

    std::string tensorName(std::size_t tensor) const
    {
        const auto& t = m_tensors[tensor];
        return t.producerRow ? m_result.rows[*t.producerRow].name : std::string(kNetworkInputName);
    }

    static std::string inputCountText(const LayerKind& kind)
    {
        if (kind.minInputs() == kind.maxInputs())
            return kind.minInputs() == 1 ? "1 input" : std::to_string(kind.minInputs()) + " inputs";
        return "at least " + std::to_string(kind.minInputs()) + " inputs";
    }

    const Network& m_network;
    AnalysisOptions m_options;
    Precision m_precision;
    Analysis m_result;
    std::vector<Storage> m_storages;
    std::vector<Tensor> m_tensors;
    std::unordered_map<std::string, std::size_t> m_byFullName;
    std::unordered_set<std::string> m_warned; ///< spec path + message of each warning recorded
    std::map<std::size_t, Count> m_weightByRow;
    std::map<std::size_t, bool> m_weightTrainsByRow;
    Count m_params, m_buffers, m_paramBytes, m_bufferBytes, m_autocastCopies, m_labelBytes;
    Count m_trainable, m_trainableBytes, m_lora, m_forward, m_backward, m_recompute, m_attentionRecompute;
    Count m_droppedPerSample, m_droppedFixed; ///< attention scores selective checkpointing drops
    std::string m_headName;              ///< the last Linear layer: LoRA's default targets skip it
    std::vector<bool> m_targetMatched;   ///< per LoRA target
    bool m_anyCheckpointMark = false;
    std::ptrdiff_t m_segment = -1;       ///< the checkpointed iteration being walked
    std::size_t m_segmentCount = 0;      ///< checkpointed iterations so far
    std::uint64_t m_transient = 0;
    std::size_t m_expanded = 0;
    bool m_overflow = false;
    bool m_stopped = false;
};

} // namespace

Analysis analyze(const Network& network, const AnalysisOptions& options)
{
    return Analyzer{network, options}.run();
}

Analysis analyze(const Network& network, Precision precision)
{
    AnalysisOptions options;
    options.precision = precision;
    return analyze(network, options);
}

} // namespace headroom

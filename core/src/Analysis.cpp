#include "headroom/Analysis.h"

#include "headroom/LayerRegistry.h"

#include <algorithm>
#include <map>
#include <unordered_map>

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
    bool saved = false;
};

/// A tensor flowing between layers.
struct Tensor {
    TensorInfo info;
    std::size_t storage = 0;
    std::optional<std::size_t> producerRow; ///< nullopt for the network input
    bool valid = true;
};

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
        addNetworkInput();
        Scope top;
        top.names.emplace(std::string(kNetworkInputName), 0);
        std::size_t current = 0;
        walk(m_network.layers, "layers", "", 0, top, current);
        if (!m_result.error)
            addLoss(current);
        finish();
        return std::move(m_result);
    }

private:
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
              int depth, Scope& scope, std::size_t& current)
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
                walkRepeat(spec, specPath, namePrefix + localName, depth, scope, current);
            else
                current = addLayer(spec, specPath, namePrefix + localName, depth, scope, current);
            if (m_stopped)
                return;
            if (!spec.name.empty())
                scope.names[spec.name] = current;
        }
    }

    void walkRepeat(const LayerSpec& spec, const std::string& specPath, const std::string& name, int depth,
                    const Scope& scope, std::size_t& current)
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
        const std::size_t headerRow = m_result.rows.size();
        m_result.rows.push_back(header);
        for (std::int64_t t = 0; t < spec.times && !m_stopped; ++t) {
            Scope inner;
            inner.parent = &scope;
            inner.repeatInput = current;
            walk(spec.children, specPath + ".layers", name + "." + std::to_string(t) + ".", depth + 1, inner, current);
        }
        m_byFullName[name] = current;
        auto& row = m_result.rows[headerRow];
        row.output = m_tensors[current].info;
        if (!m_tensors[current].valid)
            row.error = Error{"contains an invalid layer", specPath};
    }

    std::size_t addLayer(const LayerSpec& spec, const std::string& specPath, const std::string& name, int depth,
                         const Scope& scope, std::size_t current)
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

        if (auto e = applyTying(spec, specPath, scope, kind->autocast(), o)) {
            row.error = e;
            recordError(*e);
            return pushInvalid(std::move(row), m_tensors[current].info);
        }
        countParameters(o, row);

        // The output: a new storage, or the input's for in-place ops and views.
        Tensor out{o.output, 0, rowIndex, true};
        if (o.outputAliasesInput && !casted[0]) {
            out.storage = m_tensors[inputs[0]].storage;
        } else {
            out.storage = newStorage(o.output.shape.elements() * Count{elementSize(o.output.dtype)}, 0);
        }
        const std::size_t outIndex = m_tensors.size();
        m_tensors.push_back(out);
        m_byFullName[name] = outIndex;

        for (const auto& s : o.saved) {
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
            case SavedTensor::Source::Internal:
                keep(newStorage(s.perSampleElements * Count{elementSize(s.dtype)},
                                s.fixedElements * Count{elementSize(s.dtype)}),
                     row);
                break;
            }
        }

        Count gradients = o.output.shape.elements() * Count{elementSize(o.output.dtype)};
        for (const auto t : inputs) {
            if (isFloatingPoint(m_tensors[t].info.dtype))
                gradients += m_tensors[t].info.shape.elements() * Count{elementSize(m_tensors[t].info.dtype)};
        }
        m_transient = std::max(m_transient, gradients.value());
        m_overflow = m_overflow || gradients.isOverflow() || o.forwardFlopsPerSample.isOverflow();
        if (m_overflow && !m_result.error)
            recordError(Error{specPath + " (" + spec.type + "): its sizes overflow 64-bit byte counts", specPath});

        row.output = o.output;
        row.forwardFlopsPerSample = o.forwardFlopsPerSample.value();
        m_result.forwardFlopsPerSample += row.forwardFlopsPerSample;
        m_result.rows.push_back(std::move(row));
        return outIndex;
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
                                    AutocastPolicy policy, LayerOutcome& o)
    {
        countAutocastCopies(policy, o); // autocast casts the shared weight all the same
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
        return std::nullopt;
    }

    void countAutocastCopies(AutocastPolicy policy, const LayerOutcome& o)
    {
        if (!isAutocast(m_precision))
            return;
        for (const auto& p : o.params) {
            const bool cast = p.role == ParamTensor::Role::Parameter
                && (policy == AutocastPolicy::LowerPrecision || p.castByAutocast);
            if (cast)
                m_autocastCopies += p.elements * Count{elementSize(halfType(m_precision))};
        }
    }

    void countParameters(const LayerOutcome& o, LayerRow& row)
    {
        Count params, buffers, paramBytes, bufferBytes;
        for (const auto& p : o.params) {
            const DType dtype = p.dtype == DType::Float32 ? parameterType(m_precision) : p.dtype;
            const Count bytes = p.elements * Count{elementSize(dtype)};
            if (p.role == ParamTensor::Role::Parameter) {
                params += p.elements;
                paramBytes += bytes;
                if (p.name == "weight")
                    m_weightByRow[m_result.rows.size()] = p.elements;
            } else {
                buffers += p.elements;
                bufferBytes += bytes;
            }
        }
        m_overflow = m_overflow || params.isOverflow() || buffers.isOverflow() || paramBytes.isOverflow()
            || bufferBytes.isOverflow();
        row.params = params.value();
        row.trainableParams = params.value();
        row.bufferElements = buffers.value();
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
        // Autocast runs log_softmax / nll_loss / mse_loss in float32; a half output is cast first.
        const DType lossType = isAutocast(m_precision) ? DType::Float32 : logits.info.dtype;
        const Count elements = logits.info.shape.elements();
        if (m_network.loss == Loss::CrossEntropy) {
            row.type = "CrossEntropyLoss";
            keep(newStorage(elements * Count{elementSize(lossType)}, 0), row); // log_softmax output
            const Count rows = Shape{{logits.info.shape.dims.begin(), logits.info.shape.dims.end() - 1}}.elements();
            m_labelBytes = rows * Count{elementSize(DType::Int64)};
        } else {
            row.type = "MSELoss";
            const std::size_t prediction = lossType == logits.info.dtype
                ? logits.storage
                : newStorage(elements * Count{elementSize(lossType)}, 0);
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
        m_result.trainableParams = m_params.value();
        m_result.bufferElements = m_buffers.value();
        m_result.parameterBytes = m_paramBytes.value();
        m_result.bufferBytes = m_bufferBytes.value();
        m_result.autocastWeightCopyBytes = m_autocastCopies.value();
        m_result.transientBytesPerSample = m_transient;
        Count perSample, fixed;
        for (const auto& s : m_storages) {
            if (s.saved && !s.isNetworkInput) {
                perSample += s.bytesPerSample;
                fixed += s.bytesFixed;
            }
        }
        const Count input = Count{m_result.inputBytesPerSample} + m_labelBytes;
        m_result.activationBytesPerSample = perSample.value();
        m_result.activationBytesFixed = fixed.value();
        m_result.inputBytesPerSample = input.value();
        m_result.output = m_tensors.empty() ? TensorInfo{} : m_tensors.back().info;
        const bool overflow = m_overflow || perSample.isOverflow() || fixed.isOverflow() || input.isOverflow()
            || m_autocastCopies.isOverflow() || m_params.isOverflow();
        if (overflow && !m_result.error)
            m_result.error = Error{"the network's sizes overflow 64-bit byte counts", "layers"};
    }

    std::size_t newStorage(Count perSample, Count fixed)
    {
        m_overflow = m_overflow || perSample.isOverflow() || fixed.isOverflow();
        m_storages.push_back(Storage{perSample, fixed, false, false});
        return m_storages.size() - 1;
    }

    /// Marks a storage as kept for backward; the first layer to keep it is charged for it.
    void keep(std::size_t storage, LayerRow& row)
    {
        auto& s = m_storages[storage];
        if (s.saved || s.isNetworkInput)
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
        m_tensors.push_back(Tensor{passThrough, 0, m_result.rows.size() - 1, false});
        return m_tensors.size() - 1;
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
    std::map<std::size_t, Count> m_weightByRow;
    Count m_params, m_buffers, m_paramBytes, m_bufferBytes, m_autocastCopies, m_labelBytes;
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

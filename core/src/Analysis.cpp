#include "headroom/Analysis.h"

#include "analysis/StepRecorder.h"

#include "headroom/Format.h"
#include "headroom/LayerRegistry.h"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>
#include <utility>

namespace headroom {

namespace {

// Identical iterations of a Repeat block are analysed once (docs/model-format.md, "Repeat"), so the
// expanded network may be huge while the analysed layers stay few; the limits bound the rest.
constexpr std::int64_t kMaxRepeatTimes = 1'000'000'000;
constexpr std::uint64_t kMaxExpandedLayers = 1'000'000'000'000'000;
constexpr std::size_t kMaxAnalysedLayers = 100'000;
constexpr std::string_view kNetworkInputName = "input";
constexpr std::string_view kRepeatInputName = "repeat_input";

/// An inner module's name (InnerLinear::name, ::weight) for instance `i`: "experts.{}.w1" -> "experts.3.w1".
std::string innerModuleName(std::string pattern, std::int64_t i)
{
    if (const auto slot = pattern.find("{}"); slot != std::string::npos)
        pattern.replace(slot, 2, std::to_string(i));
    return pattern;
}

/// "1.5", "inf": the imbalance as given.
std::string formatImbalance(double value)
{
    char text[32];
    std::snprintf(text, sizeof text, "%g", value);
    return text;
}

/// A count minus an earlier value of it (what was added since), overflow kept.
Count since(Count now, Count before)
{
    return now.isOverflow() || before.isOverflow() ? Count::overflowed() : Count{now.value() - before.value()};
}

/// Every run of digits between dots in `text` ("layers.3.fc" -> 3): the Repeat iterations a name,
/// reference or LoRA target may single out.
void addIterationNumbers(std::string_view text, std::set<std::int64_t>& out)
{
    std::size_t start = 0;
    while (start <= text.size()) {
        const std::size_t dot = std::min(text.find('.', start), text.size());
        const std::string_view part = text.substr(start, dot - start);
        if (!part.empty() && part.size() <= 18
            && std::all_of(part.begin(), part.end(), [](char c) { return c >= '0' && c <= '9'; }))
            out.insert(std::stoll(std::string(part)));
        start = dot + 1;
    }
}

void collectIterationNumbers(const std::vector<LayerSpec>& specs, std::set<std::int64_t>& out)
{
    for (const auto& spec : specs) {
        addIterationNumbers(spec.name, out);
        addIterationNumbers(spec.tiedTo, out);
        for (const auto& input : spec.inputs)
            addIterationNumbers(input, out);
        collectIterationNumbers(spec.children, out);
    }
}

/// What an iteration of a Repeat block sees of its input: iterations with equal inputs are identical.
struct InputSignature {
    TensorInfo info;
    bool requiresGrad = false;
    bool valid = true;
    friend bool operator==(const InputSignature&, const InputSignature&) = default;
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
        const Count expanded = expandedCount(m_network.layers);
        if (expanded.isOverflow() || expanded.value() > kMaxExpandedLayers) {
            m_result.error = Error{"the network expands to more than " + formatCount(kMaxExpandedLayers)
                                       + " layers (check the Repeat counts)",
                                   "layers"};
            return std::move(m_result);
        }
        m_result.expandedLayers = expanded.value();
        if (auto e = validateLora()) {
            m_result.error = e;
            return std::move(m_result);
        }
        if (!(m_options.moeImbalance >= 1.0 && m_options.moeImbalance <= kMaxMoeImbalance)) { // also NaN
            m_result.error = Error{"moe_imbalance must be a number from 1 (balanced routing) to "
                                       + std::to_string(static_cast<int>(kMaxMoeImbalance)) + ", not "
                                       + formatImbalance(m_options.moeImbalance),
                                   "moe_imbalance"};
            return std::move(m_result);
        }
        m_headName = lastLinearName(m_network.layers, "").value_or(std::string());
        m_anyCheckpointMark = anyCheckpointMark(m_network.layers);
        m_targetMatched.assign(m_options.lora.targets.size(), false);
        collectIterationNumbers(m_network.layers, m_singledOut);
        for (const auto& target : m_options.lora.targets)
            addIterationNumbers(target, m_singledOut);
        addNetworkInput();
        Scope top;
        top.names.emplace(std::string(kNetworkInputName), 0);
        std::size_t current = 0;
        walk(m_network.layers, "layers", "", 0, top, current, false);
        m_networkOutput = current;
        if (!m_result.error)
            addLoss(current);
        if (!m_stopped && m_options.lora.enabled()) {
            for (std::size_t i = 0; i < m_targetMatched.size(); ++i) {
                if (!m_targetMatched[i]) {
                    const std::string where = "lora.targets[" + std::to_string(i) + "]";
                    recordError(Error{where + " " + quoteForMessage(m_options.lora.targets[i])
                                          + " matches no Linear layer (a target must be a layer's full name or its "
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

    /// Layers after expanding Repeat blocks (overflowed past 64 bits).
    static Count expandedCount(const std::vector<LayerSpec>& specs)
    {
        Count n;
        for (const auto& spec : specs) {
            n += spec.isRepeat() ? Count{static_cast<std::uint64_t>(std::clamp<std::int64_t>(spec.times, 0, kMaxRepeatTimes))}
                    * expandedCount(spec.children)
                                 : Count{1};
        }
        return n;
    }

    void addNetworkInput()
    {
        TensorInfo info{m_network.input.shape, m_network.input.dtype};
        if (isPureHalf(m_precision) && isFloatingPoint(info.dtype))
            info.dtype = halfType(m_precision); // the batch is converted with .half() / .bfloat16()
        m_result.inputBytesPerSample = m_rec.addNetworkInput(info).value();
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
            if (m_byFullName.contains(namePrefix + localName)) {
                fail(duplicateNameError(namePrefix + localName, specPath), specPath + ".name");
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
        const bool segments = m_options.checkpointing == Checkpointing::PerBlock && m_rec.segment() < 0
            && (m_anyCheckpointMark ? spec.checkpoint : depth == 0);
        header.checkpointed = segments || m_rec.segment() >= 0;
        header.iterations = m_iterations;
        const std::size_t headerRow = m_result.rows.size();
        m_result.rows.push_back(header);
        const bool insideSegment = m_rec.segment() >= 0;
        const std::size_t level = m_iterations.size();
        std::optional<InputSignature> previousInput;
        std::size_t awaitingNext = kNoStepOp; // the StepRepeat whose next iteration comes now
        for (std::int64_t t = 0; t < spec.times && !m_stopped;) {
            const InputSignature input{m_rec.tensor(current).info, m_rec.tensor(current).requiresGrad, m_rec.tensor(current).valid};
            const Mark before = mark();
            Scope inner;
            inner.parent = &scope;
            inner.repeatInput = current;
            if (segments)
                m_rec.beginSegment(m_rec.tensor(current).storage);
            m_iterations.push_back(RowIterations{name.size() + 1, t, t});
            walk(spec.children, specPath + ".layers", name + "." + std::to_string(t) + ".", depth + 1, inner, current,
                 frozen);
            m_iterations.pop_back();
            if (segments)
                m_rec.endSegment();
            if (awaitingNext != kNoStepOp) {
                auto& r = m_rec.repeat(awaitingNext);
                r.nextFirst = before.step.ops;
                r.nextLast = m_rec.nextOp() - 1;
                awaitingNext = kNoStepOp;
            }
            std::int64_t next = t + 1;
            if (const std::int64_t hidden = hiddenAfter(t, spec.times, previousInput, input); hidden > 0 && !m_stopped) {
                repeatSince(before, static_cast<std::uint64_t>(hidden), level, !insideSegment);
                if (m_rec.nextOp() > before.step.ops) {
                    awaitingNext = m_rec.addRepeat(StepRepeat{before.step.ops, m_rec.nextOp() - 1, 0, 0,
                                                              static_cast<std::uint64_t>(hidden), level, headerRow, t + 1});
                }
                next += hidden;
            }
            previousInput = input;
            t = next;
        }
        m_byFullName[name] = current;
        auto& row = m_result.rows[headerRow];
        row.output = m_rec.tensor(current).info;
        bool anyParams = false;
        bool anyTrains = false;
        for (std::size_t r = headerRow + 1; r < m_result.rows.size(); ++r) {
            anyParams = anyParams || m_result.rows[r].params > 0;
            anyTrains = anyTrains || m_result.rows[r].trainableParams > 0;
        }
        row.frozen = anyParams && !anyTrains;
        if (!m_rec.tensor(current).valid)
            row.error = Error{"contains an invalid layer", specPath};
    }

    /// Where the analysis stands: what an iteration of a Repeat block adds from here.
    struct Mark {
        std::size_t rows = 0;
        analysis::StepSizes step;
        std::size_t trainableTensors = 0;
        std::vector<Count> totals;
    };

    /// Every network total an iteration adds to.
    std::vector<Count*> totals()
    {
        return {&m_params, &m_buffers, &m_paramBytes, &m_bufferBytes, &m_autocastCopies, &m_trainable,
                &m_trainableBytes, &m_lora, &m_forward, &m_backward, &m_recompute, &m_attentionRecompute,
                &m_droppedPerSample, &m_droppedFixed};
    }

    Mark mark()
    {
        Mark m{m_result.rows.size(), m_rec.sizes(),
               m_result.trainableTensorElements.size(), {}};
        for (const Count* c : totals())
            m.totals.push_back(*c);
        return m;
    }

    /// The iterations after iteration `t` (of `times`) that are identical to it and need no analysis
    /// of their own. Iteration t's input equals the previous one's, so every later iteration is the
    /// same, except where something singles one out by its number: a name, a reference or a LoRA target
    /// ("b.7.fc"). Those, their neighbours and the last two iterations stay analysed, so that the
    /// iterations on either side of a hidden run behave as its members do (StepRepeat).
    std::int64_t hiddenAfter(std::int64_t t, std::int64_t times, const std::optional<InputSignature>& previous,
                             const InputSignature& input) const
    {
        const auto singledOut = [&](std::int64_t i) { return m_singledOut.contains(i); };
        if (t < 1 || previous != input || singledOut(t - 1) || singledOut(t) || singledOut(t + 1))
            return 0;
        std::int64_t next = times - 2; // the analysed iteration after the hidden ones
        if (const auto p = m_singledOut.upper_bound(t + 1); p != m_singledOut.end())
            next = std::min(next, *p - 1);
        return next > t + 1 ? next - t - 1 : 0;
    }

    /// Makes what was analysed since `before` (one iteration) stand for itself and `hidden` identical
    /// iterations after it: rows name the range and count them, storages, parameters and totals
    /// multiply. `ownSegments`: the block is not inside a checkpointed iteration (its iterations are
    /// segments of their own, or none is).
    void repeatSince(const Mark& before, std::uint64_t hidden, std::size_t level, bool ownSegments)
    {
        const Count times = Count{hidden} + Count{1};
        for (std::size_t r = before.rows; r < m_result.rows.size(); ++r) {
            auto& row = m_result.rows[r];
            row.iterations[level].last += static_cast<std::int64_t>(hidden);
            const Count count = Count{row.count} * times;
            m_overflow = m_overflow || count.isOverflow();
            row.count = count.value();
        }
        m_rec.multiplySince(before.step, times, ownSegments);
        for (std::size_t i = before.trainableTensors; i < m_result.trainableTensorCopies.size(); ++i) {
            const Count copies = Count{m_result.trainableTensorCopies[i]} * times;
            m_overflow = m_overflow || copies.isOverflow();
            m_result.trainableTensorCopies[i] = copies.value();
        }
        const auto now = totals();
        for (std::size_t i = 0; i < now.size(); ++i)
            *now[i] += since(*now[i], before.totals[i]) * Count{hidden};
    }

    std::size_t addLayer(const LayerSpec& spec, const std::string& specPath, const std::string& name, int depth,
                         const Scope& scope, std::size_t current, bool frozen)
    {
        if (++m_analysed > kMaxAnalysedLayers) {
            fail("the network has more than " + formatCount(kMaxAnalysedLayers)
                     + " layers to analyse (identical iterations of a Repeat block count once); split it or "
                       "describe repeated layers with Repeat",
                 specPath);
            return current;
        }
        LayerRow row;
        row.name = name;
        row.type = spec.type;
        row.depth = depth;
        row.specPath = specPath;
        row.iterations = m_iterations;
        const std::size_t rowIndex = m_result.rows.size();

        std::vector<std::size_t> inputs;
        std::optional<Error> error = resolveInputs(spec, specPath, scope, current, inputs, row);
        const LayerKind* kind = LayerRegistry::builtin().find(spec.type);
        if (!error && kind == nullptr)
            error = Error{specPath + ".type " + quoteForMessage(spec.type) + " is not a known layer type; known types: "
                              + LayerRegistry::builtin().knownTypesList(),
                          specPath + ".type"};
        if (!error && (inputs.size() < kind->minInputs() || inputs.size() > kind->maxInputs()))
            error = Error{specPath + " (" + spec.type + "): takes " + inputCountText(*kind) + " but gets "
                              + std::to_string(inputs.size()),
                          specPath + ".inputs"};

        const bool blocked = !error && std::any_of(inputs.begin(), inputs.end(), [&](auto t) { return !m_rec.tensor(t).valid; });
        if (blocked) {
            row.blockedByEarlierError = true;
            row.error = Error{"depends on an invalid layer", specPath};
            return pushInvalid(std::move(row), m_rec.tensor(current).info);
        }
        if (error) {
            row.error = error;
            recordError(*error);
            return pushInvalid(std::move(row), m_rec.tensor(current).info);
        }

        auto attrs = Attributes::validate(kind->attributes(), spec.attributes, specPath);
        if (!attrs) {
            row.error = attrs.error();
            recordError(attrs.error());
            return pushInvalid(std::move(row), m_rec.tensor(current).info);
        }

        std::vector<TensorInfo> effective;
        std::vector<bool> casted;
        for (const auto t : inputs) {
            TensorInfo info = m_rec.tensor(t).info;
            const auto target = autocastTarget(kind->autocast(), info.dtype);
            casted.push_back(target.has_value());
            if (target)
                info.dtype = *target;
            effective.push_back(info);
        }
        const LayerContext ctx{attrs.value(), effective, m_precision, m_options.attention, m_options.moeImbalance};
        auto outcome = kind->infer(ctx);
        if (!outcome) {
            const Error e{specPath + " (" + spec.type + (spec.name.empty() ? "" : " \"" + spec.name + "\"")
                              + "): " + outcome.error().message,
                          specPath};
            row.error = e;
            recordError(e);
            return pushInvalid(std::move(row), m_rec.tensor(current).info);
        }
        auto& o = outcome.value();
        // PyTorch's sizes are 64-bit: an output with more elements is an error here, and the layers that
        // read it are blocked rather than computing with it.
        if (const Count elements = o.output.shape.elements(); elements.isOverflow()
            || elements.value() > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
            const Error e{specPath + " (" + spec.type + "): its output " + o.output.shape.toString()
                              + " overflows 64-bit sizes (more than 2^63 - 1 elements)",
                          specPath};
            row.error = e;
            recordError(e);
            return pushInvalid(std::move(row), m_rec.tensor(current).info);
        }
        recordWarnings(o.warnings, specPath, name);

        std::optional<std::size_t> tiedRow;
        if (auto e = applyTying(spec, specPath, scope, o, tiedRow)) {
            row.error = e;
            recordError(*e);
            return pushInvalid(std::move(row), m_rec.tensor(current).info);
        }

        // What trains (PEFT freezes every base parameter) and what autograd records.
        const auto& lora = m_options.lora;
        const bool layerFrozen = frozen || lora.enabled();
        const bool isLinear = spec.type == "Linear";
        const bool adapted = lora.enabled() && isLinear && loraTargets(name);
        const std::vector<InnerAdapter> innerAdapters = matchInnerLinears(o, name);
        const bool innerAdapted = !innerAdapters.empty();
        const bool ownWeight
            = std::any_of(o.params.begin(), o.params.end(), [](const auto& p) { return p.name == "weight"; });
        const bool quantized = lora.enabled() && lora.quantizeBase && isLinear && ownWeight && name != m_headName;
        // QLoRA loads every Linear module but the head in 4 bits, those inside composite layers included.
        std::set<std::string> nf4Weights;
        if (quantized)
            nf4Weights.insert("weight");
        if (lora.enabled() && lora.quantizeBase) {
            for (const auto& inner : o.innerLinears) {
                for (std::int64_t i = 0; i < inner.instances; ++i)
                    nf4Weights.insert(innerModuleName(inner.weight, i));
            }
        }
        const bool tiedTrains = tiedRow && !layerFrozen && m_weightTrainsByRow[*tiedRow];
        const bool anyInputGrad
            = std::any_of(inputs.begin(), inputs.end(), [&](auto t) { return m_rec.tensor(t).requiresGrad; });
        StepOp op;
        op.row = rowIndex;
        op.segment = m_rec.segment();
        countParameters(o, row, layerFrozen, nf4Weights, op.parameters);
        const bool weightTrains = tiedRow ? tiedTrains : (ownWeight && !layerFrozen);
        const bool baseTrains = row.trainableParams > 0 || tiedTrains;
        const bool recorded = anyInputGrad || baseTrains || adapted || innerAdapted;
        op.recorded = recorded;
        if (tiedTrains) // backward produces the shared weight's gradient here too
            op.parameters.push_back(m_weightParameterByRow[*tiedRow]);
        // The autocast cast cache keeps half copies of weights that require grad; a frozen weight's copy
        // lives on only when backward keeps it (mm/conv save the weight for the input gradient).
        const Count copiesBefore = m_autocastCopies;
        if (weightTrains || anyInputGrad || (recorded && !ownWeight && !tiedRow))
            countAutocastCopies(kind->autocast(), o, nf4Weights, tiedRow);
        op.autocastCopyBytes = m_autocastCopies.value() - copiesBefore.value();
        // Backward keeps the half copy when it computes the input's gradient from it; convolution's single
        // derivative formula (derivatives.yaml) saves its weight whatever requires grad, addmm only then.
        const bool copySaved = recorded && (anyInputGrad || kind->category() == LayerCategory::Convolution);
        op.copyRelease = copySaved ? CopyRelease::AfterBackward
            : weightTrains         ? CopyRelease::AfterForward
                                   : CopyRelease::AfterForwardOp;

        // The output: a new storage, or the input's for in-place ops and views.
        analysis::Tensor out{o.output, 0, rowIndex, true, recorded, m_rec.nextOp()};
        if (o.outputAliasesInput && !casted[0]) {
            out.storage = m_rec.tensor(inputs[0]).storage;
        } else {
            out.storage = newStorage(o.output.shape.elements() * Count{elementSize(o.output.dtype)}, 0);
        }
        const std::size_t outIndex = m_rec.addTensor(out);
        m_byFullName[name] = outIndex;

        bool scoresDropped = false; // selective checkpointing dropped this layer's attention scores
        std::vector<bool> castSaved(inputs.size(), false);
        const std::vector<SavedTensor> nothing; // a layer autograd does not record keeps nothing
        const auto gradientNeeded = [&](std::size_t of) {
            return of == SavedTensor::kWeight ? weightTrains
                                              : m_rec.tensor(inputs[std::min(of, inputs.size() - 1)]).requiresGrad;
        };
        for (const auto& s : recorded ? o.saved : nothing) {
            // A tensor kept only for gradients nobody needs is not saved: addmm/mm keep their input only
            // for the weight gradient (measured, docs/finetuning.md), mul keeps each operand for the other's.
            if (!s.onlyFor.empty() && std::none_of(s.onlyFor.begin(), s.onlyFor.end(), gradientNeeded))
                continue;
            // A composite layer's tensor for its inner modules' weight gradients: kept for the instances
            // LoRA adapts (an expert's share of an all-expert tensor) unless the layer trains.
            Share share{1, 1};
            if (!s.onlyForInnerWeights.empty() && !baseTrains) {
                share = innerAdapterShare(s,
                    s.source == SavedTensor::Source::Input ? effective[std::min(s.inputIndex, inputs.size() - 1)].dtype
                                                           : s.dtype,
                    innerAdapters);
                if (share.kept == 0)
                    continue;
            }
            switch (s.source) {
            case SavedTensor::Source::Input: {
                const auto i = std::min(s.inputIndex, inputs.size() - 1);
                const std::size_t storage = casted[i]
                    ? newStorage(effective[i].shape.elements() * Count{elementSize(effective[i].dtype)}, 0)
                    : m_rec.tensor(inputs[i]).storage;
                castSaved[i] = castSaved[i] || casted[i];
                keep(storage, row);
                break;
            }
            case SavedTensor::Source::Output: keep(out.storage, row); break;
            case SavedTensor::Source::Internal: {
                const Count perSample = share.of(s.perSampleElements) * Count{elementSize(s.dtype)};
                const Count fixed = share.of(s.fixedElements) * Count{elementSize(s.dtype)};
                if (s.attentionScores && m_options.checkpointing == Checkpointing::Selective) {
                    m_droppedPerSample += perSample;
                    m_droppedFixed += fixed;
                    scoresDropped = true;
                    // recomputed inside this layer's backward
                    op.backwardScratch.perSample += perSample.value();
                    op.backwardScratch.fixed += fixed.value();
                    break;
                }
                keep(newStorage(perSample, fixed), row);
                break;
            }
            }
        }

        if (!recorded) { // what the kernel makes anyway lives only while the layer runs
            for (const auto& s : o.saved) {
                if (s.source == SavedTensor::Source::Internal && s.madeWithoutGrad)
                    op.forwardScratch.perSample += (s.perSampleElements * Count{elementSize(s.dtype)}).value();
            }
        }
        Count forward = o.forwardFlopsPerSample;
        Count backward = backwardFlops(o, inputs, anyInputGrad || innerAdapted, baseTrains, recorded);
        for (const auto& inner : innerAdapters) {
            const auto flops = addInnerAdapter(inner, o.saved, row, op.parameters);
            forward += flops.forward;
            backward += flops.backward;
        }
        if (adapted) {
            const auto flops = addAdapter(inputs[0], effective[0], o.output, row, op.parameters);
            forward += flops.forward;
            backward += flops.backward;
        }
        for (std::size_t i = 0; i < inputs.size(); ++i) {
            // a cast copy's backward (ToCopyBackward) makes a new gradient in the original dtype
            const bool aliased = !casted[i] && i < o.aliasedInputGradients.size() && o.aliasedInputGradients[i];
            op.inputs.push_back(StepInput{inputs[i], aliased});
            if (casted[i] && !castSaved[i]) // the cast copy lives only while the layer runs
                op.forwardScratch.perSample += (effective[i].shape.elements() * Count{elementSize(effective[i].dtype)}).value();
        }
        op.output = outIndex;
        op.forwardScratch.perSample += o.forwardScratchBytesPerSample.value();
        op.backwardScratch.perSample += o.backwardScratchBytesPerSample.value();
        m_overflow = m_overflow || o.forwardScratchBytesPerSample.isOverflow()
            || o.backwardScratchBytesPerSample.isOverflow();
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
            // What the layer's backward allocates beyond the gradients (a mixture of experts: the
            // busiest expert's gradients) is alive with them.
            Count gradients = o.output.shape.elements() * Count{elementSize(o.output.dtype)} + o.backwardScratchBytesPerSample;
            for (const auto t : inputs) {
                if (m_rec.tensor(t).requiresGrad)
                    gradients += m_rec.tensor(t).info.shape.elements() * Count{elementSize(m_rec.tensor(t).info.dtype)};
            }
            m_transient = std::max(m_transient, gradients.value());
            m_overflow = m_overflow || gradients.isOverflow();
        }
        m_overflow = m_overflow || forward.isOverflow() || backward.isOverflow();
        if ((m_overflow || m_rec.overflowed()) && !m_result.error)
            recordError(Error{specPath + " (" + spec.type + "): its sizes overflow 64-bit byte counts", specPath});

        row.output = o.output;
        row.forwardFlopsPerSample = forward.value();
        row.backwardFlopsPerSample = backward.value();
        row.frozen = row.params > 0 && row.trainableParams == 0 && !tiedTrains;
        row.checkpointed = m_rec.segment() >= 0;
        m_forward += forward;
        m_backward += backward;
        if (row.checkpointed)
            m_recompute += forward;
        m_result.rows.push_back(std::move(row));
        m_rec.addOp(std::move(op));
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
            return m_rec.tensor(inputs[std::min(operand, inputs.size() - 1)]).requiresGrad;
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

    /// One place LoRA adapts: `copies` modules of in x out features through which `positions` rows pass
    /// per sample in all (a Linear layer: one module; an expert projection: the adapted experts' share
    /// of the routed rows).
    struct AdapterSite {
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

    /// PEFT's LoRA Linear: result = base(x) + lora_B(lora_A(dropout(x))) * scaling. A (r x in) and
    /// B (out x r) train; A keeps its (dropped, cast) input, B keeps A's output (r per position).
    Flops addAdapters(const AdapterSite& site, LayerRow& row, std::vector<std::size_t>& stepParameters)
    {
        const auto& lora = m_options.lora;
        const Count r = Count::fromSigned(lora.rank);
        const DType adapterType = loraAdapterType();
        const Count copies{site.copies};
        const Count a = r * site.in;
        const Count b = site.out * r;
        const Count elements = (a + b) * copies;
        const Count bytes = elements * Count{elementSize(adapterType)};
        row.loraParams += elements.value();
        row.params += elements.value();
        row.trainableParams += elements.value();
        m_params += elements;
        m_trainable += elements;
        m_lora += elements;
        m_paramBytes += bytes;
        m_trainableBytes += bytes;
        for (std::uint64_t i = 0; i < site.copies; ++i) {
            m_result.trainableTensorElements.push_back(a.value());
            m_result.trainableTensorElements.push_back(b.value());
            m_result.trainableTensorCopies.insert(m_result.trainableTensorCopies.end(), 2, 1);
            stepParameters.push_back(addStepParameter(a * Count{elementSize(adapterType)}));
            stepParameters.push_back(addStepParameter(b * Count{elementSize(adapterType)}));
        }
        m_overflow = m_overflow || elements.isOverflow() || bytes.isOverflow() || site.positions.isOverflow();
        if (isAutocast(m_precision) && adapterType == DType::Float32)
            m_autocastCopies += elements * Count{elementSize(halfType(m_precision))};

        const DType compute = adapterComputeType(site.inputType);
        const Count inputs = site.positions * site.in;
        bool keepsInput = !site.inputKept && site.inputStorage.has_value();
        std::size_t aInput = site.inputStorage.value_or(0);
        if (lora.dropout > 0.0) {
            if (site.inputRequiresGrad) // dropout is recorded (and keeps its mask) only when x requires grad
                keep(newStorage(inputs * Count{elementSize(DType::Bool)}, 0), row);
            aInput = newStorage(inputs * Count{elementSize(site.inputType)}, 0);
            keepsInput = true;
        }
        if (compute != site.inputType && !(site.inputKept && lora.dropout == 0.0)) {
            aInput = newStorage(inputs * Count{elementSize(compute)}, 0);
            keepsInput = true;
        }
        if (keepsInput)
            keep(aInput, row);
        keep(newStorage(site.positions * r * Count{elementSize(compute)}, 0), row); // A's output, B's input

        // Forward: two matmuls. Backward: A's and B's weight gradients, B's input gradient (A trains),
        // and A's input gradient only when x needs one.
        const Count aFlops = Count{2} * site.positions * r * site.in;
        const Count bFlops = Count{2} * site.positions * r * site.out;
        return Flops{aFlops + bFlops, aFlops + bFlops + bFlops + (site.inputRequiresGrad ? aFlops : Count{0})};
    }

    /// The dtype LoRA's adapters compute in on an input of `input`: the autocast type, or (QLoRA) their
    /// own dtype, since PEFT casts x to lora_A.weight.dtype outside autocast.
    DType adapterComputeType(DType input) const noexcept
    {
        if (isAutocast(m_precision))
            return halfType(m_precision);
        return m_options.lora.quantizeBase ? loraAdapterType() : input;
    }

    /// A Linear layer's adapter.
    Flops addAdapter(std::size_t input, const TensorInfo& effective, const TensorInfo& output, LayerRow& row,
                     std::vector<std::size_t>& stepParameters)
    {
        const analysis::Tensor& x = m_rec.tensor(input);
        AdapterSite site;
        site.in = Count::fromSigned(effective.shape.dims.back());
        site.out = Count::fromSigned(output.shape.dims.back());
        const Count elements = x.info.shape.elements();
        site.positions = site.in.value() == 0 ? Count{0} : Count{elements.value() / site.in.value()};
        site.inputType = x.info.dtype;
        site.inputStorage = x.storage;
        site.inputRequiresGrad = x.requiresGrad;
        return addAdapters(site, row, stepParameters);
    }

    /// An inner Linear module of a composite layer that LoRA adapts: how many of its instances.
    struct InnerAdapter {
        const InnerLinear* module = nullptr;
        std::uint64_t instances = 0;
    };

    /// The inner Linear modules (LayerOutcome::innerLinears) LoRA's targets match, by their full names
    /// ("model.layers.0.block_sparse_moe.experts.3.w1"), as PEFT matches named_modules().
    std::vector<InnerAdapter> matchInnerLinears(const LayerOutcome& o, const std::string& layerName)
    {
        std::vector<InnerAdapter> out;
        if (!m_options.lora.enabled())
            return out;
        for (const auto& inner : o.innerLinears) {
            InnerAdapter match{&inner, 0};
            for (std::int64_t i = 0; i < inner.instances; ++i) {
                if (loraTargets(layerName + "." + innerModuleName(inner.name, i)))
                    ++match.instances;
            }
            if (match.instances > 0)
                out.push_back(match);
        }
        return out;
    }

    /// The part of a tensor that is kept: `kept` of `total` equal shares.
    struct Share {
        std::uint64_t kept = 1;
        std::uint64_t total = 1;
        [[nodiscard]] Count of(Count elements) const
        {
            if (kept == total || elements.isOverflow())
                return elements;
            const std::uint64_t n = elements.value();
            return Count{n / total * kept + n % total * kept / total}; // n kept / total without overflow
        }
    };

    /// How much LoRA keeps of a tensor a composite layer keeps only for some inner modules' weight
    /// gradients: lora_A of an adapted module keeps that same input when it needs no dropped or cast copy
    /// of it, for the instances adapted (the tensor holds all instances' rows, an equal share each).
    Share innerAdapterShare(const SavedTensor& s, DType dtype, const std::vector<InnerAdapter>& adapters) const
    {
        Share share{0, 1};
        if (m_options.lora.dropout > 0.0)
            return share;
        for (const auto& a : adapters) {
            const auto& modules = s.onlyForInnerWeights;
            if (std::find(modules.begin(), modules.end(), a.module->name) == modules.end()
                || adapterComputeType(a.module->inputType) != dtype)
                continue;
            const auto total = static_cast<std::uint64_t>(std::max<std::int64_t>(a.module->instances, 1));
            // The largest share among the modules (w1 and w3 of the same experts read the same tokens).
            if (a.instances * share.total > share.kept * total)
                share = Share{a.instances, total};
        }
        return share;
    }

    /// The adapters of an inner module's adapted instances; each instance gets an equal share of the rows.
    Flops addInnerAdapter(const InnerAdapter& adapter, const std::vector<SavedTensor>& saved, LayerRow& row,
                          std::vector<std::size_t>& stepParameters)
    {
        const InnerLinear& inner = *adapter.module;
        AdapterSite site;
        site.in = Count::fromSigned(inner.inFeatures);
        site.out = Count::fromSigned(inner.outFeatures);
        site.copies = adapter.instances;
        const std::uint64_t instances = static_cast<std::uint64_t>(std::max<std::int64_t>(inner.instances, 1));
        const Count share = inner.rowsPerSample * Count{adapter.instances};
        site.positions = Count{share.value() / instances + (share.value() % instances != 0 ? 1 : 0)};
        if (share.isOverflow())
            site.positions = Count::overflowed();
        site.inputType = inner.inputType;
        // A's input is the tensor the kind keeps for this module's weight gradient when its dtype is the
        // adapters' (innerAdapterShare keeps it); with no such tensor the kind keeps x whatever trains.
        const DType compute = adapterComputeType(inner.inputType);
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
        return addAdapters(site, row, stepParameters);
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
                return Error{where + " " + quoteForMessage(ref) + " does not name an earlier layer (or \"input\""
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
        const auto weights = target && m_rec.tensor(*target).producerRow
            ? m_weightByRow.find(*m_rec.tensor(*target).producerRow)
            : m_weightByRow.end();
        if (weights == m_weightByRow.end())
            return Error{where + " " + quoteForMessage(spec.tiedTo) + " does not name an earlier layer with a weight",
                         where};
        const auto own = std::find_if(o.params.begin(), o.params.end(), [](const auto& p) { return p.name == "weight"; });
        if (own == o.params.end())
            return Error{where + ": this layer has no weight to tie", where};
        const auto& targetShape = m_weightShapeByRow[weights->first];
        if (!own->shape.empty() && !targetShape.empty() && own->shape != targetShape)
            return Error{where + ": this layer's weight is " + Shape{own->shape}.toString() + " but "
                             + quoteForMessage(spec.tiedTo) + "'s is " + Shape{targetShape}.toString()
                             + "; a tied weight must have the same shape",
                         where};
        if (own->elements != weights->second)
            return Error{where + ": this layer's weight has " + std::to_string(own->elements.value())
                             + " elements but " + quoteForMessage(spec.tiedTo) + "'s has "
                             + std::to_string(weights->second.value()),
                         where};
        o.params.erase(own);
        tiedRow = *m_rec.tensor(*target).producerRow;
        return std::nullopt;
    }

    /// Under autocast: the half copy of each weight a conv/linear (or a Custom kind's castByAutocast
    /// parameter) uses; a tied weight is cast again (autocast casts the shared weight all the same).
    /// QLoRA's NF4 weights are dequantised on the fly instead.
    void countAutocastCopies(AutocastPolicy policy, const LayerOutcome& o, const std::set<std::string>& nf4Weights,
                             std::optional<std::size_t> tiedRow)
    {
        if (!isAutocast(m_precision))
            return;
        const Count half{elementSize(halfType(m_precision))};
        for (const auto& p : o.params) {
            const bool cast = p.role == ParamTensor::Role::Parameter
                && (policy == AutocastPolicy::LowerPrecision || p.castByAutocast)
                && !nf4Weights.contains(p.name);
            if (cast)
                m_autocastCopies += p.elements * half;
        }
        if (tiedRow && policy == AutocastPolicy::LowerPrecision)
            m_autocastCopies += m_weightByRow[*tiedRow] * half;
    }

    void countParameters(const LayerOutcome& o, LayerRow& row, bool frozen, const std::set<std::string>& nf4Weights,
                         std::vector<std::size_t>& stepParameters)
    {
        Count params, buffers, paramBytes, bufferBytes, trainable, trainableBytes;
        for (const auto& p : o.params) {
            const DType dtype = p.dtype == DType::Float32 ? parameterType(m_precision) : p.dtype;
            const bool nf4 = nf4Weights.contains(p.name);
            const Count bytes = nf4 ? nf4Bytes(p.elements) : p.elements * Count{elementSize(dtype)};
            if (p.role == ParamTensor::Role::Parameter) {
                params += p.elements;
                paramBytes += bytes;
                if (!frozen) {
                    trainable += p.elements;
                    trainableBytes += bytes;
                    m_result.trainableTensorElements.push_back(p.elements.value());
                    m_result.trainableTensorCopies.push_back(1);
                    stepParameters.push_back(addStepParameter(bytes));
                    if (p.name == "weight")
                        m_weightParameterByRow[m_result.rows.size()] = stepParameters.back();
                }
                if (p.name == "weight") {
                    m_weightByRow[m_result.rows.size()] = p.elements;
                    m_weightShapeByRow[m_result.rows.size()] = p.shape;
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
        const analysis::Tensor logits = m_rec.tensor(current); // a copy: the loss's ops add tensors
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
        const std::size_t rowIndex = m_result.rows.size();
        // In the step, the loss is a chain of ops: [cast to float32,] log_softmax + nll_loss, or mse_loss.
        std::size_t prediction = current;
        if (lossType != logits.info.dtype) {
            const TensorInfo cast{logits.info.shape, lossType};
            prediction = addLossOp(rowIndex, current, cast, recorded, false);
        }
        if (m_network.loss == Loss::CrossEntropy) {
            row.type = "CrossEntropyLoss";
            // log_softmax keeps its output; nll_loss's backward makes a gradient of that size (zeros, then
            // a scatter) that log_softmax's backward turns into the logits' gradient.
            const std::size_t logProbabilities
                = addLossOp(rowIndex, prediction, TensorInfo{logits.info.shape, lossType}, recorded, true, &row);
            addLossOp(rowIndex, logProbabilities, TensorInfo{Shape{}, lossType}, recorded, false);
            const Count rows = Shape{{logits.info.shape.dims.begin(), logits.info.shape.dims.end() - 1}}.elements();
            m_labelBytes = rows * Count{elementSize(DType::Int64)};
        } else if (m_network.loss == Loss::L1) {
            // l1_loss is (input - target).abs().mean() (ATen Loss.cpp): abs keeps the difference, a new
            // tensor; sub and mean keep nothing.
            row.type = "L1Loss";
            const TensorInfo elementwise{logits.info.shape, lossType};
            const std::size_t difference = addLossOp(rowIndex, prediction, elementwise, recorded, true, &row);
            const std::size_t absolute = addLossOp(rowIndex, difference, elementwise, recorded, false);
            addLossOp(rowIndex, absolute, TensorInfo{Shape{}, lossType}, recorded, false);
            m_labelBytes = elements * Count{elementSize(lossType)};
        } else {
            const bool mse = m_network.loss == Loss::Mse;
            row.type = mse ? "MSELoss" : "BCELoss";
            // mse_loss and binary_cross_entropy(_with_logits) keep their input (the float32 cast under
            // autocast) and the target. mse_loss is a structured op (aten/src/ATen/native/Loss.cpp,
            // TORCH_IMPL_FUNC(mse_loss_out)): its meta function builds the output as a TensorIterator over
            // input and target (input-sized), then resize_({}) makes it the scalar loss without shrinking the
            // storage, which the loss tensor holds until it is deleted; the elementwise squared errors are a
            // second input-sized tensor, freed once mean_out sums them. binary_cross_entropy computes the
            // elementwise loss into an input-sized tensor and reduces it to a new scalar (apply_loss_reduction).
            if (recorded)
                keep(m_rec.tensor(prediction).storage, row);
            const std::size_t loss = addLossOp(rowIndex, prediction, TensorInfo{Shape{}, lossType}, recorded, false);
            const Count inputSized = elements * Count{elementSize(lossType)};
            if (mse) {
                m_rec.resize(m_rec.tensor(loss).storage, inputSized, Count{});
            }
            m_rec.lastOp().forwardScratch.perSample = inputSized.value();
            m_overflow = m_overflow || inputSized.isOverflow();
            m_labelBytes = elements * Count{elementSize(lossType)};
        }
        row.output = TensorInfo{Shape{}, lossType};
        m_result.lossActivationBytesPerSample = row.activationBytesPerSample;
        m_result.rows.push_back(std::move(row));
    }

    /// One op of the loss's chain: reads `input`, produces a new tensor `output` (a scalar costs nothing);
    /// with `keepsOutput`, keeps it for backward (charged to the loss row). Returns the output tensor.
    std::size_t addLossOp(std::size_t rowIndex, std::size_t input, const TensorInfo& output, bool recorded,
                          bool keepsOutput, LayerRow* row = nullptr)
    {
        StepOp op;
        op.row = rowIndex;
        op.recorded = recorded;
        op.inputs.push_back(StepInput{input, false});
        // A scalar (the loss) is one element for the whole batch, not one per sample.
        const Count bytes = output.shape.elements() * Count{elementSize(output.dtype)};
        const bool scalar = output.shape.rank() == 0;
        const std::size_t storage = scalar ? newStorage(0, bytes) : newStorage(bytes, 0);
        op.output = m_rec.addTensor(analysis::Tensor{output, storage, rowIndex, true, recorded, m_rec.nextOp()});
        const std::size_t tensor = op.output;
        if (keepsOutput && recorded && row != nullptr)
            keep(storage, *row);
        m_rec.addOp(std::move(op));
        return tensor;
    }

    std::size_t addStepParameter(Count gradientBytes)
    {
        return m_rec.addParameter(gradientBytes, m_result.rows.size());
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
        const analysis::KeptActivations kept = m_rec.keptActivations(m_droppedPerSample, m_droppedFixed);
        const Count perSample = kept.perSample;
        const Count fixed = kept.fixed;
        const Count fullPerSample = kept.fullPerSample;
        const Count fullFixed = kept.fullFixed;
        const Count input = Count{m_result.inputBytesPerSample} + m_labelBytes;
        m_result.activationBytesPerSample = perSample.value();
        m_result.activationBytesFixed = fixed.value();
        m_result.uncheckpointedActivationBytesPerSample = fullPerSample.value();
        m_result.uncheckpointedActivationBytesFixed = fullFixed.value();
        m_result.inputBytesPerSample = input.value();
        m_result.output = m_rec.tensorCount() == 0 ? TensorInfo{} : m_rec.tensor(m_networkOutput).info;
        const bool overflow = m_overflow || m_rec.overflowed() || kept.overflow || perSample.isOverflow() || fixed.isOverflow() || input.isOverflow()
            || m_autocastCopies.isOverflow() || m_params.isOverflow() || fullPerSample.isOverflow()
            || fullFixed.isOverflow() || m_trainableBytes.isOverflow() || m_forward.isOverflow()
            || m_backward.isOverflow() || m_recompute.isOverflow() || m_attentionRecompute.isOverflow();
        if (overflow && !m_result.error)
            m_result.error = Error{"the network's sizes overflow 64-bit byte counts", "layers"};
        if (!m_result.error)
            m_result.step = m_rec.finish(m_result.inputBytesPerSample);
    }

    std::size_t newStorage(Count perSample, Count fixed) { return m_rec.newStorage(perSample, fixed); }

    void keep(std::size_t storage, LayerRow& row) { m_rec.keep(storage, row); }

    /// A layer whose full name another layer already has: "b.0.r" at the top level beside the Repeat
    /// block b's layer r, or a layer named "0" beside the unnamed first layer.
    std::string duplicateNameError(const std::string& fullName, const std::string& specPath) const
    {
        const auto first = std::find_if(m_result.rows.begin(), m_result.rows.end(),
                                        [&](const LayerRow& r) { return r.name == fullName; });
        return specPath + ": its name " + quoteForMessage(fullName) + " is already the name of "
            + (first == m_result.rows.end() ? std::string("an earlier layer") : first->specPath)
            + " (an unnamed layer is called by its position, a layer in a Repeat block block.iteration.layer); "
              "give each layer a name of its own";
    }

    std::size_t pushInvalid(LayerRow row, const TensorInfo& passThrough)
    {
        row.output = passThrough;
        m_byFullName[row.name] = m_rec.tensorCount();
        m_result.rows.push_back(std::move(row));
        return m_rec.addTensor(analysis::Tensor{passThrough, 0, m_result.rows.size() - 1, false, true});
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
        const auto& t = m_rec.tensor(tensor);
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
    analysis::StepRecorder m_rec;
    std::unordered_map<std::string, std::size_t> m_byFullName;
    std::unordered_set<std::string> m_warned; ///< spec path + message of each warning recorded
    std::map<std::size_t, Count> m_weightByRow;
    std::map<std::size_t, std::vector<std::int64_t>> m_weightShapeByRow; ///< empty where the kind gives none
    std::map<std::size_t, bool> m_weightTrainsByRow;
    std::map<std::size_t, std::size_t> m_weightParameterByRow; ///< row -> its trainable weight's StepParameter
    Count m_params, m_buffers, m_paramBytes, m_bufferBytes, m_autocastCopies, m_labelBytes;
    Count m_trainable, m_trainableBytes, m_lora, m_forward, m_backward, m_recompute, m_attentionRecompute;
    Count m_droppedPerSample, m_droppedFixed; ///< attention scores selective checkpointing drops
    std::string m_headName;              ///< the last Linear layer: LoRA's default targets skip it
    std::vector<bool> m_targetMatched;   ///< per LoRA target
    bool m_anyCheckpointMark = false;
    std::uint64_t m_transient = 0;
    std::size_t m_analysed = 0;
    std::vector<RowIterations> m_iterations; ///< the Repeat iterations being walked, outermost first
    std::set<std::int64_t> m_singledOut;     ///< iteration numbers that names, references or targets single out
    std::size_t m_networkOutput = 0; ///< the tensor the last layer produces (what the loss reads)
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

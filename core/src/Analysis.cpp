// The analysis while it is being split into core/src/analysis/: the stages not yet in files of their own,
// as functions over AnalysisState (each part below says which stage it is).
#include "analysis/AnalysisState.h"
#include "analysis/Autocast.h"
#include "analysis/BackwardFlops.h"
#include "analysis/Inputs.h"
#include "analysis/Lora.h"
#include "analysis/Loss.h"
#include "analysis/Parameters.h"
#include "analysis/Summary.h"
#include "headroom/Analysis.h"
#include "headroom/Format.h"
#include "headroom/LayerKind.h"
#include "headroom/LayerRegistry.h"
#include "headroom/Network.h"
#include "headroom/StepGraph.h"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace headroom::analysis {

// Stage: the layer walk, through Repeat blocks. Reads the layer specs in forward order; checks their
// names, gives each layer its full name and scope, hands each layer to the per-layer stage (Layer.h)
// and walks each Repeat block iteration by iteration: its header row, one checkpoint segment per
// iteration under per-block checkpointing, identical iterations jumped (IdenticalIterations.h). Writes
// the header rows, each layer's output under its name and the step's repeats and segments.

/// The most iterations a Repeat block may have.
inline constexpr std::int64_t kMaxRepeatTimes = 1'000'000'000;

/// Layers after expanding Repeat blocks (overflowed past 64 bits).
[[nodiscard]] Count expandedLayers(const std::vector<LayerSpec>& specs);
/// Some Repeat block is marked "checkpoint" (then only marked blocks are segments).
[[nodiscard]] bool anyCheckpointMark(const std::vector<LayerSpec>& specs);

/// Walks a list of specs ("layers[2].layers" at `specPrefix`, full names below `namePrefix`).
/// `current` is the tensor flowing in and out; `frozen`: a block around them is frozen.
void walkLayers(AnalysisState& state, const std::vector<LayerSpec>& specs, const std::string& specPrefix,
    const std::string& namePrefix, int depth, Scope& scope, std::size_t& current, bool frozen);

// Stage: the identical-iteration jump, inside the Repeat walk. Iterations of a Repeat block whose input
// is the same as the previous iteration's are identical (docs/model-format.md, "Repeat"), unless the
// file singles one out by its number. Reads what one iteration added to the state (since a Mark);
// decides how many iterations after it need no analysis of their own, and makes what it added stand
// for them too: its rows name the range and count it, its storages, parameters, trainable tensors and
// totals multiply.

/// What an iteration of a Repeat block sees of its input: iterations with equal inputs are identical.
struct InputSignature final
{
    TensorInfo info;
    bool requiresGrad = false;
    bool valid = true;
    friend bool operator==(const InputSignature&, const InputSignature&) = default;
};

/// Where the analysis stands: what an iteration of a Repeat block adds from here.
struct Mark final
{
    std::size_t rows = 0;
    StepSizes step;
    std::size_t trainableTensors = 0;
    std::array<Count, 14> totals {}; ///< Totals::perIteration()
};

[[nodiscard]] Mark mark(AnalysisState& state);

/// Every run of digits between dots in the specs' names, references and ties, and in the LoRA targets
/// ("layers.3.fc" -> 3): the Repeat iterations they may single out.
[[nodiscard]] std::set<std::int64_t> singledOutIterations(
    const std::vector<LayerSpec>& specs, const std::vector<std::string>& loraTargets);

/// The iterations after iteration `t` (of `times`) that are identical to it and need no analysis of
/// their own (0 when its input differs from the previous iteration's).
[[nodiscard]] std::int64_t hiddenAfter(std::int64_t t, std::int64_t times,
    const std::optional<InputSignature>& previous, const InputSignature& input,
    const std::set<std::int64_t>& singledOut);

/// Makes what was analysed since `before` (one iteration) stand for itself and `hidden` identical
/// iterations after it. `level`: the block's place in the rows' iterations; `ownSegments`: the block is
/// not inside a checkpointed iteration (its iterations are segments of their own, or none is).
void repeatSince(
    AnalysisState& state, const Mark& before, std::uint64_t hidden, std::size_t level, bool ownSegments);

// Stage: per-layer inference, for each layer (not Repeat) spec the walk reaches. Resolves the layer's
// inputs (Inputs.h), finds its kind, validates its attributes and lets the kind infer its output,
// parameters and saved tensors on its inputs as autocast casts them; then counts its parameters
// (Parameters.h), decides what trains and what autograd records, adds its adapters (Lora.h) and records
// its op (LayerOp.h). Writes the layer's row and its output tensor; an invalid layer gets a row with
// its error and passes its input through, so that the layers reading it are blocked, not wrong.

/// Where a layer spec sits in the model file and the network.
struct LayerSite final
{
    const LayerSpec& spec;
    const std::string& specPath; ///< "layers[4].layers[1]"
    const std::string& name; ///< the full name, "blocks.3.attn"
    int depth = 0;
};

/// Analyses one layer reading `current` (unless its spec names inputs) and returns its output tensor.
/// `frozen`: the spec or a block around it is frozen.
std::size_t analyzeLayer(
    AnalysisState& state, const LayerSite& site, const Scope& scope, std::size_t current, bool frozen);

// The per-layer stage's working record of the layer being analysed (Layer.cpp fills it in order;
// LayerOp.cpp records its op from it). Private to that stage.

struct LayerWork final
{
    const LayerSite& site;
    std::size_t rowIndex = 0;
    LayerRow row;
    const LayerKind* kind = nullptr;
    std::vector<std::size_t> inputs; ///< tensor indices
    std::vector<TensorInfo> effective; ///< the inputs as the kind receives them (autocast casts)
    std::vector<bool> casted; ///< per input: autocast made a cast copy
    std::vector<bool> castSaved; ///< per input: autograd keeps that copy
    LayerOutcome outcome;
    std::optional<std::size_t> tiedRow; ///< the row whose weight this layer's is (weight tying)
    StepOp op;
    std::size_t output = 0; ///< the output tensor

    [[nodiscard]] ParameterSink sink(AnalysisState& state)
    {
        return ParameterSink { row, rowIndex, op.parameters, state.totals, state.step, state.result };
    }
};

/// What trains in the layer and what autograd records (PEFT freezes every base parameter).
struct Training final
{
    bool layerFrozen = false;
    bool adapted = false; ///< LoRA adapts the layer itself (a Linear layer)
    std::vector<InnerAdapter> innerAdapters;
    bool ownWeight = false; ///< the kind gives it a parameter named "weight"
    std::set<std::string> nf4Weights;
    bool tiedTrains = false; ///< its tied weight trains, through this layer too
    bool anyInputGrad = false;
    bool weightTrains = false;
    bool baseTrains = false; ///< some parameter of the layer (not its adapters) trains
    bool recorded = false; ///< autograd records the layer
};

/// The layer's output tensor: the input's storage for in-place ops and views (of an uncast input), else
/// a new one. Recorded under the layer's full name.
void addOutput(AnalysisState& state, LayerWork& work, const Training& training);
/// Keeps what autograd saves for the layer's backward; returns whether selective checkpointing dropped
/// its attention scores instead.
bool keepSavedTensors(AnalysisState& state, LayerWork& work, const Training& training);
/// The layer's op: its inputs, scratch and gradients, the FLOPs (`forward`, `backward`: its own and its
/// adapters'); the op is recorded, the row pushed.
void finishLayer(AnalysisState& state, LayerWork& work, const Training& training, bool scoresDropped,
    Count forward, Count backward);

namespace {

/// A count minus an earlier value of it (what was added since), overflow kept.
Count since(Count now, Count before)
{
    return now.isOverflow() || before.isOverflow() ? Count::overflowed()
                                                   : Count { now.value() - before.value() };
}

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

} // namespace

Mark mark(AnalysisState& state)
{
    Mark m { state.result.rows.size(), state.step.sizes(), state.result.trainableTensorElements.size(), {} };
    const auto totals = state.totals.perIteration();
    for (std::size_t i = 0; i < totals.size(); ++i)
        m.totals[i] = *totals[i];
    return m;
}

std::set<std::int64_t> singledOutIterations(
    const std::vector<LayerSpec>& specs, const std::vector<std::string>& loraTargets)
{
    std::set<std::int64_t> out;
    collectIterationNumbers(specs, out);
    for (const auto& target : loraTargets)
        addIterationNumbers(target, out);
    return out;
}

// Iteration t's input equals the previous one's, so every later iteration is the same, except where
// something singles one out by its number: a name, a reference or a LoRA target ("b.7.fc"). Those,
// their neighbours and the last two iterations stay analysed, so that the iterations on either side
// of a hidden run behave as its members do (StepRepeat).
std::int64_t hiddenAfter(std::int64_t t, std::int64_t times, const std::optional<InputSignature>& previous,
    const InputSignature& input, const std::set<std::int64_t>& singledOut)
{
    const auto isSingledOut = [&](std::int64_t i) { return singledOut.contains(i); };
    if (t < 1 || previous != input || isSingledOut(t - 1) || isSingledOut(t) || isSingledOut(t + 1))
        return 0;
    std::int64_t next = times - 2; // the analysed iteration after the hidden ones
    if (const auto p = singledOut.upper_bound(t + 1); p != singledOut.end())
        next = std::min(next, *p - 1);
    return next > t + 1 ? next - t - 1 : 0;
}

void repeatSince(
    AnalysisState& state, const Mark& before, std::uint64_t hidden, std::size_t level, bool ownSegments)
{
    const Count times = Count { hidden } + Count { 1 };
    bool& overflow = state.totals.overflow;
    auto& rows = state.result.rows;
    for (std::size_t r = before.rows; r < rows.size(); ++r) {
        auto& row = rows[r];
        row.iterations[level].last += static_cast<std::int64_t>(hidden);
        const Count count = Count { row.count } * times;
        overflow = overflow || count.isOverflow();
        row.count = count.value();
    }
    state.step.multiplySince(before.step, times, ownSegments);
    auto& copies = state.result.trainableTensorCopies;
    for (std::size_t i = before.trainableTensors; i < copies.size(); ++i) {
        const Count c = Count { copies[i] } * times;
        overflow = overflow || c.isOverflow();
        copies[i] = c.value();
    }
    const auto now = state.totals.perIteration();
    for (std::size_t i = 0; i < now.size(); ++i)
        *now[i] += since(*now[i], before.totals[i]) * Count { hidden };
}

// Part of the per-layer stage: what the layer adds to the step (see LayerWork.h). Reads the layer's
// outcome and what trains; writes its output tensor and storage, the storages autograd keeps for its
// backward, its op (inputs, scratch), the network's recomputation and largest gradient pair, and its row.

namespace {

Count bytesOf(const TensorInfo& t)
{
    return t.shape.elements() * Count { elementSize(t.dtype) };
}

/// One saved tensor of a recorded layer: the storage it keeps (a new one for a cast input or an
/// internal buffer). Returns false when selective checkpointing drops it (attention scores) instead.
bool keepSaved(AnalysisState& state, LayerWork& work, const SavedTensor& s, Share share)
{
    StepRecorder& step = state.step;
    switch (s.source) {
    case SavedTensor::Source::Input: {
        const auto i = std::min(s.inputIndex, work.inputs.size() - 1);
        const std::size_t storage = work.casted[i] ? step.newStorage(bytesOf(work.effective[i]), 0)
                                                   : step.tensor(work.inputs[i]).storage;
        work.castSaved[i] = work.castSaved[i] || work.casted[i];
        step.keep(storage, work.row);
        return true;
    }
    case SavedTensor::Source::Output:
        step.keep(step.tensor(work.output).storage, work.row);
        return true;
    case SavedTensor::Source::Internal: {
        const Count perSample = share.of(s.perSampleElements) * Count { elementSize(s.dtype) };
        const Count fixed = share.of(s.fixedElements) * Count { elementSize(s.dtype) };
        if (s.attentionScores && state.options.checkpointing == Checkpointing::Selective) {
            state.totals.droppedPerSample += perSample;
            state.totals.droppedFixed += fixed;
            // recomputed inside this layer's backward
            work.op.backwardScratch.perSample += perSample.value();
            work.op.backwardScratch.fixed += fixed.value();
            return false;
        }
        step.keep(step.newStorage(perSample, fixed), work.row);
        return true;
    }
    }
    return true;
}

/// The op's inputs (and the gradients backward hands them), and what lives only while it runs.
void addInputsAndScratch(AnalysisState& state, LayerWork& work, const Training& t)
{
    const LayerOutcome& o = work.outcome;
    StepOp& op = work.op;
    if (!t.recorded) { // what the kernel makes anyway lives only while the layer runs
        for (const auto& s : o.saved) {
            if (s.source == SavedTensor::Source::Internal && s.madeWithoutGrad)
                op.forwardScratch.perSample += (s.perSampleElements * Count { elementSize(s.dtype) }).value();
        }
    }
    for (std::size_t i = 0; i < work.inputs.size(); ++i) {
        // a cast copy's backward (ToCopyBackward) makes a new gradient in the original dtype
        const bool aliased
            = !work.casted[i] && i < o.aliasedInputGradients.size() && o.aliasedInputGradients[i];
        op.inputs.push_back(StepInput { work.inputs[i], aliased });
        if (work.casted[i] && !work.castSaved[i]) // the cast copy lives only while the layer runs
            op.forwardScratch.perSample += bytesOf(work.effective[i]).value();
    }
    op.output = work.output;
    op.forwardScratch.perSample += o.forwardScratchBytesPerSample.value();
    op.backwardScratch.perSample += o.backwardScratchBytesPerSample.value();
    state.totals.overflow = state.totals.overflow || o.forwardScratchBytesPerSample.isOverflow()
        || o.backwardScratchBytesPerSample.isOverflow();
}

/// What the attention core computes again: in backward after selective checkpointing dropped the
/// scores (Q K^T, softmax, dropout, P V; Korthikanti et al. 2022, §5), and inside flash /
/// memory-efficient kernels, which rebuild S and P from the logsumexp whenever backward runs through them.
void addAttentionRecompute(Totals& totals, const LayerOutcome& o, bool scoresDropped, bool recorded)
{
    if (!o.attentionCore)
        return;
    const auto& core = *o.attentionCore;
    if (scoresDropped)
        totals.recompute += core.scores + core.values + core.softmax;
    if (core.recomputedInBackward && recorded)
        totals.attentionRecompute += core.scores + core.softmax;
}

/// The layer's gradient pair: its output's gradient and its inputs' that require grad, with what its
/// backward allocates beyond them (a mixture of experts: the busiest expert's gradients).
void addGradientPair(AnalysisState& state, const LayerWork& work)
{
    const LayerOutcome& o = work.outcome;
    Count gradients = bytesOf(o.output) + o.backwardScratchBytesPerSample;
    for (const auto i : work.inputs) {
        if (state.step.tensor(i).requiresGrad)
            gradients += bytesOf(state.step.tensor(i).info);
    }
    state.totals.transient = std::max(state.totals.transient, gradients.value());
    state.totals.overflow = state.totals.overflow || gradients.isOverflow();
}

} // namespace

void addOutput(AnalysisState& state, LayerWork& work, const Training& t)
{
    const LayerOutcome& o = work.outcome;
    Tensor out { o.output, 0, work.rowIndex, true, t.recorded, state.step.nextOp() };
    if (o.outputAliasesInput && !work.casted[0])
        out.storage = state.step.tensor(work.inputs[0]).storage;
    else
        out.storage = state.step.newStorage(bytesOf(o.output), 0);
    work.output = state.step.addTensor(out);
    state.byFullName[work.site.name] = work.output;
}

bool keepSavedTensors(AnalysisState& state, LayerWork& work, const Training& t)
{
    work.castSaved.assign(work.inputs.size(), false);
    if (!t.recorded) // a layer autograd does not record keeps nothing
        return false;
    const auto& inputs = work.inputs;
    const auto gradientNeeded = [&](std::size_t of) {
        return of == SavedTensor::kWeight
            ? t.weightTrains
            : state.step.tensor(inputs[std::min(of, inputs.size() - 1)]).requiresGrad;
    };
    bool scoresDropped = false;
    for (const auto& s : work.outcome.saved) {
        // A tensor kept only for gradients nobody needs is not saved: addmm/mm keep their input only
        // for the weight gradient (measured, docs/finetuning.md), mul keeps each operand for the other's.
        if (!s.onlyFor.empty() && std::none_of(s.onlyFor.begin(), s.onlyFor.end(), gradientNeeded))
            continue;
        // A composite layer's tensor for its inner modules' weight gradients: kept for the instances
        // LoRA adapts (an expert's share of an all-expert tensor) unless the layer trains.
        Share share { 1, 1 };
        if (!s.onlyForInnerWeights.empty() && !t.baseTrains) {
            const bool input = s.source == SavedTensor::Source::Input;
            const DType dtype
                = input ? work.effective[std::min(s.inputIndex, inputs.size() - 1)].dtype : s.dtype;
            share = state.lora.innerShare(s, dtype, t.innerAdapters);
            if (share.kept == 0)
                continue;
        }
        if (!keepSaved(state, work, s, share))
            scoresDropped = true;
    }
    return scoresDropped;
}

void finishLayer(AnalysisState& state, LayerWork& work, const Training& t, bool scoresDropped, Count forward,
    Count backward)
{
    addInputsAndScratch(state, work, t);
    addAttentionRecompute(state.totals, work.outcome, scoresDropped, t.recorded);
    if (t.recorded)
        addGradientPair(state, work);
    Totals& totals = state.totals;
    totals.overflow = totals.overflow || forward.isOverflow() || backward.isOverflow();
    const auto& site = work.site;
    if (state.overflowed())
        state.diagnostics.record(
            Error { site.specPath + " (" + site.spec.type + "): its sizes overflow 64-bit byte counts",
                site.specPath });

    LayerRow& row = work.row;
    row.output = work.outcome.output;
    row.forwardFlopsPerSample = forward.value();
    row.backwardFlopsPerSample = backward.value();
    row.frozen = row.params > 0 && row.trainableParams == 0 && !t.tiedTrains;
    row.checkpointed = state.step.segment() >= 0;
    totals.forward += forward;
    totals.backward += backward;
    if (row.checkpointed)
        totals.recompute += forward;
    state.result.rows.push_back(std::move(row));
    state.step.addOp(std::move(work.op));
}

namespace {

// Identical iterations of a Repeat block are analysed once (docs/model-format.md, "Repeat"), so the
// layers analysed stay few however large the expanded network is; this bounds them.
constexpr std::size_t kMaxAnalysedLayers = 100'000;

std::string inputCountText(const LayerKind& kind)
{
    if (kind.minInputs() == kind.maxInputs())
        return kind.minInputs() == 1 ? "1 input" : std::to_string(kind.minInputs()) + " inputs";
    return "at least " + std::to_string(kind.minInputs()) + " inputs";
}

/// The row of an invalid layer, whose output is its input passed through (marked invalid).
std::size_t pushInvalid(AnalysisState& state, LayerRow row, const TensorInfo& passThrough)
{
    row.output = passThrough;
    state.byFullName[row.name] = state.step.tensorCount();
    state.result.rows.push_back(std::move(row));
    return state.step.addTensor(Tensor { passThrough, 0, state.result.rows.size() - 1, false, true });
}

/// The layer's inputs and kind; an error for an unknown kind or the wrong number of inputs. An input
/// from an invalid layer blocks the layer (without an error of its own).
std::optional<Error> resolveLayer(
    AnalysisState& state, LayerWork& work, const Scope& scope, std::size_t current)
{
    const LayerSpec& spec = work.site.spec;
    const std::string& specPath = work.site.specPath;
    std::optional<Error> error = resolveInputs(spec, specPath, scope, state.byFullName, current, work.inputs);
    for (const auto t : work.inputs)
        work.row.inputs.push_back(tensorName(state.step, state.result.rows, t));
    const LayerKind* kind = LayerRegistry::builtin().find(spec.type);
    if (!error && kind == nullptr)
        error = Error { specPath + ".type " + quoteForMessage(spec.type)
                + " is not a known layer type; known types: " + LayerRegistry::builtin().knownTypesList(),
            specPath + ".type" };
    const auto count = work.inputs.size();
    if (!error && (count < kind->minInputs() || count > kind->maxInputs()))
        error = Error { specPath + " (" + spec.type + "): takes " + inputCountText(*kind) + " but gets "
                + std::to_string(count),
            specPath + ".inputs" };
    work.kind = kind;
    return error;
}

/// Attributes, the inputs as autocast casts them, and the kind's inference; an error for invalid
/// attributes, what the kind rejects, and an output past PyTorch's 64-bit sizes.
std::optional<Error> inferOutcome(AnalysisState& state, LayerWork& work)
{
    const LayerSpec& spec = work.site.spec;
    const std::string& specPath = work.site.specPath;
    const auto attrs = Attributes::validate(work.kind->attributes(), spec.attributes, specPath);
    if (!attrs)
        return attrs.error();
    for (const auto t : work.inputs) {
        TensorInfo info = state.step.tensor(t).info;
        const auto target = autocastTarget(state.precision, work.kind->autocast(), info.dtype);
        work.casted.push_back(target.has_value());
        if (target)
            info.dtype = *target;
        work.effective.push_back(info);
    }
    const auto& options = state.options;
    const LayerContext ctx { attrs.value(), work.effective, state.precision, options.attention,
        options.moeImbalance };
    auto outcome = work.kind->infer(ctx);
    if (!outcome)
        return Error { specPath + " (" + spec.type + (spec.name.empty() ? "" : " \"" + spec.name + "\"")
                + "): " + outcome.error().message,
            specPath };
    work.outcome = std::move(outcome).value();
    // PyTorch's sizes are 64-bit: an output with more elements is an error here, and the layers that
    // read it are blocked rather than computing with it.
    const auto& shape = work.outcome.output.shape;
    if (const Count elements = shape.elements(); elements.isOverflow()
        || elements.value() > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
        return Error { specPath + " (" + spec.type + "): its output " + shape.toString()
                + " overflows 64-bit sizes (more than 2^63 - 1 elements)",
            specPath };
    return std::nullopt;
}

/// What trains and what autograd records; counts the layer's parameters on the way (what trains
/// depends on them).
Training decideTraining(AnalysisState& state, LayerWork& work, bool frozen)
{
    const LayerOutcome& o = work.outcome;
    const std::string& name = work.site.name;
    Training t;
    t.layerFrozen = frozen || state.options.lora.enabled();
    const bool isLinear = work.site.spec.type == "Linear";
    t.adapted = state.lora.enabled() && isLinear && state.lora.adapts(name);
    t.innerAdapters = state.lora.innerAdapters(o, name);
    t.ownWeight
        = std::any_of(o.params.begin(), o.params.end(), [](const auto& p) { return p.name == "weight"; });
    t.nf4Weights = state.lora.nf4Weights(o, name, isLinear, t.ownWeight);
    const LayerWeight* tied = work.tiedRow ? state.weights.find(*work.tiedRow) : nullptr;
    t.tiedTrains = tied != nullptr && !t.layerFrozen && tied->trains;
    t.anyInputGrad = std::any_of(
        work.inputs.begin(), work.inputs.end(), [&](auto i) { return state.step.tensor(i).requiresGrad; });
    work.op.row = work.rowIndex;
    work.op.segment = state.step.segment();
    countParameters(o, t.layerFrozen, t.nf4Weights, state.precision, state.weights, work.sink(state));
    t.weightTrains = work.tiedRow ? t.tiedTrains : (t.ownWeight && !t.layerFrozen);
    t.baseTrains = work.row.trainableParams > 0 || t.tiedTrains;
    t.recorded = t.anyInputGrad || t.baseTrains || t.adapted || !t.innerAdapters.empty();
    work.op.recorded = t.recorded;
    if (t.tiedTrains) // backward produces the shared weight's gradient here too
        work.op.parameters.push_back(tied->parameter);
    return t;
}

/// The autocast cast cache keeps half copies of weights that require grad; a frozen weight's copy
/// lives on only when backward keeps it (mm/conv save the weight for the input gradient).
void recordAutocastCopies(AnalysisState& state, LayerWork& work, const Training& t)
{
    const LayerWeight* tied = work.tiedRow ? state.weights.find(*work.tiedRow) : nullptr;
    if (t.weightTrains || t.anyInputGrad || (t.recorded && !t.ownWeight && !work.tiedRow)) {
        const Count copies = autocastCopyBytes(state.precision, work.kind->autocast(), work.outcome,
            t.nf4Weights, tied != nullptr ? std::optional<Count> { tied->elements } : std::nullopt);
        state.totals.autocastCopies += copies;
        work.op.autocastCopyBytes = copies.value();
    }
    const bool convolution = work.kind->category() == LayerCategory::Convolution;
    work.op.copyRelease = copyRelease(t.recorded, t.anyInputGrad, convolution, t.weightTrains);
}

/// The layer's own FLOPs and its adapters' (which record their parameters and kept tensors).
Flops addFlopsAndAdapters(AnalysisState& state, LayerWork& work, const Training& t)
{
    const LayerOutcome& o = work.outcome;
    std::vector<bool> inputRequiresGrad;
    for (const auto i : work.inputs)
        inputRequiresGrad.push_back(state.step.tensor(i).requiresGrad);
    const bool anyInputGrad = t.anyInputGrad || !t.innerAdapters.empty();
    Flops flops { o.forwardFlopsPerSample,
        backwardFlops(o, inputRequiresGrad, anyInputGrad, t.baseTrains, t.recorded) };
    const ParameterSink sink = work.sink(state);
    for (const auto& inner : t.innerAdapters) {
        const auto adapter = state.lora.addInnerAdapter(inner, o.saved, sink);
        flops.forward += adapter.forward;
        flops.backward += adapter.backward;
    }
    if (t.adapted) {
        const auto& x = state.step.tensor(work.inputs[0]);
        const auto adapter = state.lora.addLinearAdapter(x, work.effective[0], o.output, sink);
        flops.forward += adapter.forward;
        flops.backward += adapter.backward;
    }
    return flops;
}

} // namespace

std::size_t analyzeLayer(
    AnalysisState& state, const LayerSite& site, const Scope& scope, std::size_t current, bool frozen)
{
    if (++state.analysedLayers > kMaxAnalysedLayers) {
        state.diagnostics.fail("the network has more than " + formatCount(kMaxAnalysedLayers)
                + " layers to analyse (identical iterations of a Repeat block count once); split it or "
                  "describe repeated layers with Repeat",
            site.specPath);
        return current;
    }
    LayerWork work { site, state.result.rows.size(), {}, nullptr, {}, {}, {}, {}, {}, {}, {}, 0 };
    work.row.name = site.name;
    work.row.type = site.spec.type;
    work.row.depth = site.depth;
    work.row.specPath = site.specPath;
    work.row.iterations = state.iterations;
    const TensorInfo passThrough = state.step.tensor(current).info;

    std::optional<Error> error = resolveLayer(state, work, scope, current);
    const auto invalidInput = [&](auto t) { return !state.step.tensor(t).valid; };
    if (!error && std::any_of(work.inputs.begin(), work.inputs.end(), invalidInput)) {
        work.row.blockedByEarlierError = true;
        work.row.error = Error { "depends on an invalid layer", site.specPath };
        return pushInvalid(state, std::move(work.row), passThrough);
    }
    if (!error)
        error = inferOutcome(state, work);
    if (!error) {
        state.diagnostics.warnLayer(work.outcome.warnings, site.specPath, site.name);
        std::optional<std::size_t> target; // the row of the layer `tied_to` names
        if (const auto named = site.spec.tiedTo.empty() ? std::nullopt : scope.lookup(site.spec.tiedTo))
            target = state.step.tensor(*named).producerRow;
        error = applyTying(site.spec, site.specPath, target, state.weights, work.outcome, work.tiedRow);
    }
    if (error) {
        work.row.error = error;
        state.diagnostics.record(*error);
        return pushInvalid(state, std::move(work.row), passThrough);
    }

    const Training training = decideTraining(state, work, frozen);
    recordAutocastCopies(state, work, training);
    addOutput(state, work, training);
    const bool scoresDropped = keepSavedTensors(state, work, training);
    const Flops flops = addFlopsAndAdapters(state, work, training);
    finishLayer(state, work, training, scoresDropped, flops.forward, flops.backward);
    return work.output;
}

namespace {

/// A Repeat block being walked.
struct Block
{
    const LayerSpec& spec;
    const std::string& specPath;
    const std::string& name;
    int depth = 0;
    bool frozen = false;
    bool segments = false; ///< each iteration is a checkpoint segment
    std::size_t headerRow = 0;
    std::size_t level = 0; ///< its place in the rows' iterations
};

/// The block's header row; under per-block checkpointing each iteration of the block is one
/// torch.utils.checkpoint segment (the outermost checkpointed block wins; marks inside it change nothing).
Block addHeader(AnalysisState& state, const LayerSpec& spec, const std::string& specPath,
    const std::string& name, int depth, bool frozen)
{
    const bool insideSegment = state.step.segment() >= 0;
    const bool segments = state.options.checkpointing == Checkpointing::PerBlock && !insideSegment
        && (state.anyCheckpointMark ? spec.checkpoint : depth == 0);
    LayerRow header;
    header.name = name;
    header.type = "Repeat";
    header.depth = depth;
    header.specPath = specPath;
    header.checkpointed = segments || insideSegment;
    header.iterations = state.iterations;
    state.result.rows.push_back(header);
    return Block { spec, specPath, name, depth, frozen, segments, state.result.rows.size() - 1,
        state.iterations.size() };
}

/// The header row once the block is walked: its output, frozen when it has parameters and none trains,
/// invalid when a layer inside is.
void finishHeader(AnalysisState& state, const Block& block, std::size_t current)
{
    state.byFullName[block.name] = current;
    auto& rows = state.result.rows;
    auto& row = rows[block.headerRow];
    row.output = state.step.tensor(current).info;
    bool anyParams = false;
    bool anyTrains = false;
    for (std::size_t r = block.headerRow + 1; r < rows.size(); ++r) {
        anyParams = anyParams || rows[r].params > 0;
        anyTrains = anyTrains || rows[r].trainableParams > 0;
    }
    row.frozen = anyParams && !anyTrains;
    if (!state.step.tensor(current).valid)
        row.error = Error { "contains an invalid layer", block.specPath };
}

/// One iteration `t` of the block.
void walkIteration(
    AnalysisState& state, const Block& block, std::int64_t t, const Scope& scope, std::size_t& current)
{
    Scope inner;
    inner.parent = &scope;
    inner.repeatInput = current;
    if (block.segments) // checkpoint saves its input until the iteration's backward ends (its first op's)
        state.step.beginSegment(state.step.tensor(current).storage);
    state.iterations.push_back(RowIterations { block.name.size() + 1, t, t });
    walkLayers(state, block.spec.children, block.specPath + ".layers",
        block.name + "." + std::to_string(t) + ".", block.depth + 1, inner, current, block.frozen);
    state.iterations.pop_back();
    if (block.segments)
        state.step.endSegment();
}

/// A Repeat block: its header row, then its iterations in order, jumping over those identical to the
/// one before (a StepRepeat records each jump; the iteration after it is known only once walked).
void walkRepeat(AnalysisState& state, const LayerSpec& spec, const std::string& specPath,
    const std::string& name, int depth, const Scope& scope, std::size_t& current, bool frozen)
{
    if (spec.times < 1 || spec.times > kMaxRepeatTimes) {
        state.diagnostics.fail(
            specPath + ".times must be an integer from 1 to " + std::to_string(kMaxRepeatTimes),
            specPath + ".times");
        return;
    }
    if (spec.children.empty()) {
        state.diagnostics.fail(specPath + ".layers must hold at least one layer", specPath + ".layers");
        return;
    }
    const bool insideSegment = state.step.segment() >= 0;
    const Block block = addHeader(state, spec, specPath, name, depth, frozen);
    std::optional<InputSignature> previousInput;
    std::size_t awaitingNext = kNoStepOp; // the StepRepeat whose next iteration comes now
    for (std::int64_t t = 0; t < spec.times && !state.diagnostics.stopped();) {
        const Tensor& in = state.step.tensor(current);
        const InputSignature input { in.info, in.requiresGrad, in.valid };
        const Mark before = mark(state);
        walkIteration(state, block, t, scope, current);
        if (awaitingNext != kNoStepOp) {
            auto& r = state.step.repeat(awaitingNext);
            r.nextFirst = before.step.ops;
            r.nextLast = state.step.nextOp() - 1;
            awaitingNext = kNoStepOp;
        }
        std::int64_t next = t + 1;
        const std::int64_t hidden = hiddenAfter(t, spec.times, previousInput, input, state.singledOut);
        if (hidden > 0 && !state.diagnostics.stopped()) {
            const auto count = static_cast<std::uint64_t>(hidden);
            repeatSince(state, before, count, block.level, !insideSegment);
            if (state.step.nextOp() > before.step.ops)
                awaitingNext = state.step.addRepeat(StepRepeat { before.step.ops, state.step.nextOp() - 1, 0,
                    0, count, block.level, block.headerRow, t + 1 });
            next += hidden;
        }
        previousInput = input;
        t = next;
    }
    finishHeader(state, block, current);
}

} // namespace

Count expandedLayers(const std::vector<LayerSpec>& specs)
{
    Count n;
    for (const auto& spec : specs) {
        if (!spec.isRepeat()) {
            n += Count { 1 };
            continue;
        }
        const auto times
            = static_cast<std::uint64_t>(std::clamp<std::int64_t>(spec.times, 0, kMaxRepeatTimes));
        n += Count { times } * expandedLayers(spec.children);
    }
    return n;
}

bool anyCheckpointMark(const std::vector<LayerSpec>& specs)
{
    return std::any_of(specs.begin(), specs.end(),
        [](const LayerSpec& s) { return s.isRepeat() && (s.checkpoint || anyCheckpointMark(s.children)); });
}

void walkLayers(AnalysisState& state, const std::vector<LayerSpec>& specs, const std::string& specPrefix,
    const std::string& namePrefix, int depth, Scope& scope, std::size_t& current, bool frozen)
{
    for (std::size_t i = 0; i < specs.size(); ++i) {
        const auto& spec = specs[i];
        const std::string specPath = specPrefix + "[" + std::to_string(i) + "]";
        const std::string name = namePrefix + (spec.name.empty() ? std::to_string(i) : spec.name);
        if (!spec.name.empty() && scope.names.contains(spec.name)) {
            state.diagnostics.fail(
                specPath + ".name \"" + spec.name + "\" is used twice in the same block", specPath + ".name");
            return;
        }
        if (state.byFullName.contains(name)) {
            state.diagnostics.fail(duplicateNameError(state.result.rows, name, specPath), specPath + ".name");
            return;
        }
        if (spec.isRepeat())
            walkRepeat(state, spec, specPath, name, depth, scope, current, frozen || spec.frozen);
        else
            current = analyzeLayer(
                state, LayerSite { spec, specPath, name, depth }, scope, current, frozen || spec.frozen);
        if (state.diagnostics.stopped())
            return;
        if (!spec.name.empty())
            scope.names[spec.name] = current;
    }
}

} // namespace headroom::analysis

namespace headroom {

namespace {

using analysis::AnalysisState;

// Identical iterations of a Repeat block are analysed once (docs/model-format.md, "Repeat"), so the
// expanded network may be huge while the analysed layers stay few; this bounds the rest.
constexpr std::uint64_t kMaxExpandedLayers = 1'000'000'000'000'000;

/// "1.5", "inf": the imbalance as given.
std::string formatImbalance(double value)
{
    char text[32];
    std::snprintf(text, sizeof text, "%g", value);
    return text;
}

/// What makes the whole network unanalysable: its input, its size once expanded, the LoRA options and
/// the mixture-of-experts imbalance. Sets the expanded layer count on the way.
std::optional<Error> checkNetwork(AnalysisState& state)
{
    if (auto e = analysis::checkInput(state.network.input))
        return e;
    const Count expanded = analysis::expandedLayers(state.network.layers);
    if (expanded.isOverflow() || expanded.value() > kMaxExpandedLayers)
        return Error { "the network expands to more than " + formatCount(kMaxExpandedLayers)
                + " layers (check the Repeat counts)",
            "layers" };
    state.result.expandedLayers = expanded.value();
    if (auto e = analysis::LoraAdapters::validate(state.options.lora))
        return e;
    const double imbalance = state.options.moeImbalance;
    if (!(imbalance >= 1.0 && imbalance <= kMaxMoeImbalance)) // also NaN
        return Error { "moe_imbalance must be a number from 1 (balanced routing) to "
                + std::to_string(static_cast<int>(kMaxMoeImbalance)) + ", not " + formatImbalance(imbalance),
            "moe_imbalance" };
    return std::nullopt;
}

} // namespace

Analysis analyze(const Network& network, const AnalysisOptions& options)
{
    AnalysisState state { network, options };
    for (const auto& w : network.warnings)
        state.diagnostics.warnNetwork(w);
    if (auto e = checkNetwork(state)) {
        state.diagnostics.record(*e);
        state.diagnostics.moveInto(state.result);
        return std::move(state.result);
    }
    state.anyCheckpointMark = analysis::anyCheckpointMark(network.layers);
    state.singledOut = analysis::singledOutIterations(network.layers, options.lora.targets);
    const auto batch = analysis::batchTensor(network.input, state.precision);
    state.result.inputBytesPerSample = state.step.addNetworkInput(batch).value();

    analysis::Scope top;
    top.names.emplace(std::string(analysis::kNetworkInputName), 0);
    std::size_t current = 0;
    analysis::walkLayers(state, network.layers, "layers", "", 0, top, current, false);
    state.networkOutput = current;
    if (!state.diagnostics.hasError())
        analysis::addLoss(state, current);
    if (!state.diagnostics.stopped())
        state.lora.reportUnmatched(state.diagnostics);
    return analysis::summarize(state);
}

Analysis analyze(const Network& network, Precision precision)
{
    AnalysisOptions options;
    options.precision = precision;
    return analyze(network, options);
}

} // namespace headroom

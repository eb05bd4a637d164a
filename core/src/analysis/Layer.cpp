// Stage: per-layer inference (see Layer.h).
#include "Layer.h"

#include "Autocast.h"
#include "BackwardFlops.h"
#include "LayerWork.h"
#include "headroom/layers/LayerRegistry.h"
#include "headroom/support/Format.h"

#include <algorithm>
#include <limits>
#include <span>
#include <utility>

namespace headroom::analysis {

namespace {

// Identical iterations of a Repeat block are analysed once (docs/model-format.md, "Repeat"), so the
// layers analysed stay few however large the expanded network is; this bounds them.
constexpr std::size_t kMaxAnalysedLayers = 100'000;
/// Axes of one sample: PyTorch's CUDA kernels take at most 25 with the batch axis
/// (aten/src/ATen/cuda/detail/OffsetCalculator.cuh, MAX_DIMS).
constexpr std::size_t kMaxSampleAxes = 24;

/// "1 input", "2 inputs", "at least 2 inputs", "at most 65,536 inputs": the bound `given` breaks.
std::string inputCountText(const LayerKind& kind, std::size_t given)
{
    const auto inputs = [](std::size_t n) { return formatCount(n) + (n == 1 ? " input" : " inputs"); };
    if (kind.minInputs() == kind.maxInputs())
        return inputs(kind.minInputs());
    return given > kind.maxInputs() ? "at most " + inputs(kind.maxInputs())
                                    : "at least " + inputs(kind.minInputs());
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
                + " is not a known layer type; the closest are "
                + LayerRegistry::builtin().closestTypes(spec.type)
                + " (docs/model-format.md lists every type)",
            specPath + ".type" };
    const auto count = work.inputs.size();
    if (!error && (count < kind->minInputs() || count > kind->maxInputs()))
        error = Error { specPath + " (" + spec.type + "): takes " + inputCountText(*kind, count)
                + " but gets " + formatCount(count),
            specPath + ".inputs" };
    work.kind = kind;
    return error;
}

/// How far from the last axis the batch axis is (1: it is the last axis).
std::size_t batchFromEnd(const TensorInfo& t)
{
    return t.shape.rank() + 1 - t.batchAxis;
}

/// TensorInfo::batchAxis against what the kind accepts (LayerKind::batchAxisUse): an error for a moved
/// batch axis a kind needs first, or inputs whose batch axes do not line up; for a Kept kind the
/// batch axis's distance from the end that the output keeps (nullopt when every input is batch-first).
Result<std::optional<std::size_t>> keptBatchAxis(const LayerKind& kind, std::span<const TensorInfo> inputs)
{
    const auto moved
        = std::find_if(inputs.begin(), inputs.end(), [](const auto& t) { return t.batchAxis != 0; });
    if (moved == inputs.end() || kind.batchAxisUse() == BatchAxisUse::Own)
        return std::optional<std::size_t> {};
    const std::string layout = moved->shape.toBatchedString(moved->batchAxis)
        + " (the batch axis at position " + std::to_string(moved->batchAxis) + ")";
    if (kind.batchAxisUse() == BatchAxisUse::First)
        return Error { "needs the batch axis first, but its input is " + layout
                + "; a Transpose or Permute can bring the batch axis to the front",
            {} };
    const std::size_t fromEnd = batchFromEnd(*moved);
    if (fromEnd == 1)
        return Error { "acts on the last axis, which is the batch axis of its input " + layout, {} };
    for (const auto& t : inputs)
        if (batchFromEnd(t) != fromEnd)
            return Error { "its inputs have their batch axes at different places: " + layout + " and "
                    + t.shape.toBatchedString(t.batchAxis),
                {} };
    return std::optional<std::size_t> { fromEnd };
}

/// Attributes, the inputs as autocast casts them, and the kind's inference; an error for invalid
/// attributes, what the kind rejects, and an output past PyTorch's 64-bit sizes.
std::optional<Error> inferOutcome(AnalysisState& state, LayerWork& work)
{
    const LayerSpec& spec = work.site.spec;
    const std::string& specPath = work.site.specPath;
    auto checked = state.checkedAttributes.find(&spec);
    if (checked == state.checkedAttributes.end()) {
        auto attrs = Attributes::validate(work.kind->attributes(), spec.attributes, specPath);
        if (!attrs)
            return attrs.error();
        checked = state.checkedAttributes.emplace(&spec, std::move(attrs).value()).first;
    }
    const Attributes& attrs = checked->second;
    for (const auto t : work.inputs) {
        TensorInfo info = state.step.tensor(t).info;
        const auto target = autocastTarget(state.precision, work.kind->autocast(), info.dtype);
        work.casted.push_back(target.has_value());
        if (target)
            info.dtype = *target;
        work.effective.push_back(info);
    }
    const auto& options = state.options;
    const LayerContext ctx { attrs, work.effective, state.precision, options.attention,
        options.moeImbalance };
    const std::string where
        = specPath + " (" + spec.type + (spec.name.empty() ? "" : " \"" + spec.name + "\"") + "): ";
    const auto kept = keptBatchAxis(*work.kind, work.effective);
    if (!kept)
        return Error { where + kept.error().message, specPath };
    auto outcome = work.kind->infer(ctx);
    if (!outcome)
        return Error { where + outcome.error().message, specPath };
    work.outcome = std::move(outcome).value();
    if (const auto fromEnd = kept.value()) {
        TensorInfo& out = work.outcome.output;
        if (*fromEnd > out.shape.rank() + 1)
            return Error { where + "its output " + out.shape.toString()
                    + " has too few axes to keep the batch axis " + std::to_string(*fromEnd - 1)
                    + " from the end, where its input has it",
                specPath };
        const std::size_t axis = out.shape.rank() + 1 - *fromEnd;
        if (out.batchAxis != axis && !out.contiguous)
            out.strides.clear(); // laid out for another batch position: unknown
        out.batchAxis = axis;
    }
    // PyTorch's sizes are 64-bit: an output with more elements is an error here, and the layers that
    // read it are blocked rather than computing with it.
    const auto& shape = work.outcome.output.shape;
    // And at most kMaxSampleAxes axes (PyTorch's CUDA limit): a Repeat of Unsqueeze would otherwise grow
    // every later shape (issue 26).
    if (shape.rank() > kMaxSampleAxes)
        return Error { specPath + " (" + spec.type + "): its output has " + std::to_string(shape.rank() + 1)
                + " axes with the batch axis; PyTorch's tensors have at most 25",
            specPath };
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
    // at::linear runs matmul(input, weight.t()): the weight's gradient is mm_mat2_backward's transposed
    // product seen through TBackward's .t(), unless autocast's cast (ToCopyBackward) copies it.
    work.op.weightGradientIsView = isLinear
        && !(isAutocast(state.precision) && work.kind->autocast() == AutocastPolicy::LowerPrecision);
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
    LayerWork work { site, state.result.rows.size() };
    work.row.name = site.name;
    work.row.type = site.spec.type;
    work.row.depth = site.depth;
    work.row.specPath = site.specPath;
    work.row.automaticName = site.spec.name.empty();
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

} // namespace headroom::analysis

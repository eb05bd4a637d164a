// The analysis while it is being split into core/src/analysis/: the stages not yet in files of their own,
// as functions over AnalysisState (each part below says which stage it is).
#include "analysis/AnalysisState.h"
#include "analysis/Inputs.h"
#include "analysis/Layer.h"
#include "analysis/Loss.h"
#include "analysis/Summary.h"
#include "headroom/Analysis.h"
#include "headroom/Format.h"
#include "headroom/Network.h"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <set>
#include <string>
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

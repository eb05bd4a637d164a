// Stage: the layer walk (see Walk.h).
#include "Walk.h"

#include "IdenticalIterations.h"
#include "Layer.h"
#include "headroom/support/Format.h"

#include <algorithm>
#include <optional>

namespace headroom::analysis {

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
    header.automaticName = spec.name.empty();
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

bool containsRepeat(const std::vector<LayerSpec>& specs)
{
    return std::any_of(specs.begin(), specs.end(),
        [](const LayerSpec& spec) { return spec.isRepeat() || containsRepeat(spec.children); });
}

/// Whether the walk may go on with iteration `t` of the block: fails, naming the block, once nested
/// blocks have analysed more layers than the file describes allows (Walk.h, kAnalysedWithoutRatio).
bool mayAnalyse(AnalysisState& state, const Block& block, std::int64_t t)
{
    if (state.analysedLayersAllowed == 0)
        state.analysedLayersAllowed = analysedLayersAllowed(state.network.layers);
    if (state.analysedLayers <= state.analysedLayersAllowed)
        return true;
    if (block.depth == 0 && !containsRepeat(block.spec.children)) {
        // One block, nothing nested: its iterations differ from one another (each changes its input's
        // shape, dtype or layout, or a name singles it out), so each is analysed on its own.
        const std::size_t perIteration = std::max<std::size_t>(describedLayers(block.spec.children), 1);
        state.diagnostics.fail(block.specPath + " (iteration " + std::to_string(t)
                + "): the Repeat block's iterations differ from one another (each changes its input's shape, "
                  "dtype or layout), so each is analysed on its own, and a file may have at most "
                + formatCount(state.analysedLayersAllowed) + " layers analysed inside Repeat blocks (16 for "
                + "each of the " + formatCount(describedLayers(state.network.layers))
                + " layers it describes, or 8,192 if that is more): at most "
                + formatCount(state.analysedLayersAllowed / perIteration)
                + " such iterations of this block's " + formatCount(perIteration)
                + (perIteration == 1 ? " layer" : " layers")
                + "; give it fewer iterations, or write the layers out",
            block.specPath);
        return false;
    }
    state.diagnostics.fail(block.specPath + " (iteration " + std::to_string(t)
            + "): the nested Repeat blocks need more than " + formatCount(state.analysedLayersAllowed)
            + " layers analysed one by one for the " + formatCount(describedLayers(state.network.layers))
            + " layers the file describes (each block analyses its first iteration, its last two and any "
              "that differ on their own, so the count multiplies with every level); nest fewer blocks",
        block.specPath);
    return false;
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
        if (!mayAnalyse(state, block, t))
            break;
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

std::size_t describedLayers(const std::vector<LayerSpec>& specs)
{
    std::size_t n = 0;
    for (const auto& spec : specs)
        n += spec.isRepeat() ? describedLayers(spec.children) : 1;
    return n;
}

std::size_t analysedLayersAllowed(const std::vector<LayerSpec>& layers)
{
    const std::size_t described = describedLayers(layers);
    return described > kAnalysedWithoutRatio / kAnalysedPerDescribedLayer
        ? described * kAnalysedPerDescribedLayer
        : kAnalysedWithoutRatio;
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

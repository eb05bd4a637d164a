#include "headroom/estimate/Pipeline.h"

#include "headroom/importers/HfConfig.h"
#include "headroom/support/Format.h"

#include <algorithm>
#include <utility>

namespace headroom {

namespace {

/// The tensor a stage receives: the output of top-level layer `item` as the whole model's analysis has it
/// (a Repeat block's is its last layer's).
Result<InputSpec> boundaryInput(const Analysis& whole, std::size_t item)
{
    const std::string path = "layers[" + std::to_string(item) + "]";
    const LayerRow* found = nullptr;
    for (const LayerRow& row : whole.rows) {
        const bool inside = row.specPath == path || row.specPath.starts_with(path + ".");
        if (inside && row.type != "Repeat")
            found = &row;
    }
    if (found == nullptr || found->output.shape.rank() == 0)
        return Error { "the pipeline stage boundary after " + path + " has no tensor to send", path };
    InputSpec spec;
    spec.shape = found->output.shape;
    spec.dtype = found->output.dtype;
    return spec;
}

std::uint64_t bytesPerSample(const InputSpec& spec)
{
    return (spec.shape.elements() * Count { elementSize(spec.dtype) }).value();
}

/// The stage whose GPU is the plan's answer: the smallest max batch, then the most held at the batch; a
/// stage that cannot be estimated first (its error is the plan's).
std::size_t heaviest(const std::vector<PipelineStageResult>& stages)
{
    const auto heavier = [](const PlanResult& a, const PlanResult& b) {
        if (!a.estimate || !b.estimate)
            return !a.estimate && b.estimate;
        if (a.estimate->maxBatch != b.estimate->maxBatch)
            return a.estimate->maxBatch < b.estimate->maxBatch;
        return std::max(a.estimate->heldBytes, a.estimate->peakBytes())
            > std::max(b.estimate->heldBytes, b.estimate->peakBytes());
    };
    std::size_t best = 0;
    for (std::size_t s = 1; s < stages.size(); ++s)
        if (heavier(stages[s].result, stages[best].result))
            best = s;
    return best;
}

/// The heaviest stage's figures as the plan's, its step time with the pipeline's bubble.
void showHeaviest(PlanResult& out, const PlanSettings& settings)
{
    out.heaviestStage = heaviest(out.stages);
    const PlanResult& h = out.stages[out.heaviestStage].result;
    out.analysis = h.analysis;
    out.memory = h.memory;
    out.estimate = h.estimate;
    out.error = h.error;
    out.reserved = h.reserved;
    out.reservedFigures = h.reservedFigures;
    out.reservedError = h.reservedError;
    out.throughputError = h.throughputError;
    // The slowest stage sets the pace: every stage runs its m micro-batches plus the bubble.
    out.throughput.reset();
    const double bubble = pipelineBubbleFraction(settings.setup.parallel, settings.setup.accumulationSteps);
    for (const PipelineStageResult& stage : out.stages) {
        if (!stage.result.throughput)
            continue;
        ThroughputEstimate t = *stage.result.throughput;
        applyPipelineBubble(t, bubble); // the bubble stretches all but the data-parallel exchanges
        if (!out.throughput || t.stepSeconds > out.throughput->stepSeconds)
            out.throughput = std::move(t);
    }
    if (out.throughput) {
        ThroughputEstimate& t = *out.throughput;
        t.notes.push_back(
            "Includes the pipeline bubble: " + std::to_string(static_cast<int>(bubble * 100.0 + 0.5))
            + " % of the busiest stage's time idle, (p - 1) / (v m)");
        t.noteTemplates.push_back(TemplatedText {
            "Includes the pipeline bubble: %1 % of the busiest stage's time idle, (p - 1) / (v m)",
            { std::to_string(static_cast<int>(bubble * 100.0 + 0.5)) } });
    }
}

/// The rows of the block whose header is `headerRow`, named from iteration 0 in the stage's own network,
/// named as the model numbers them: `shift` iterations on ("h.0.attn" of a stage holding h.6-8 is
/// "h.6.attn"), and the hidden iterations' first index with them.
void numberAsInModel(Analysis& a, std::size_t headerRow, std::int64_t shift)
{
    const std::size_t offset = a.rows[headerRow].name.size() + 1;
    for (std::size_t r = headerRow + 1; r < a.rows.size() && a.rows[r].depth > a.rows[headerRow].depth; ++r) {
        LayerRow& row = a.rows[r];
        if (row.iterations.empty() || row.iterations[0].offset != offset)
            continue;
        RowIterations& it = row.iterations[0];
        const std::string was = std::to_string(it.first);
        const std::string is = std::to_string(it.first + shift);
        if (row.name.compare(offset, was.size(), was) != 0)
            continue;
        row.name.replace(offset, was.size(), is);
        it.first += shift;
        it.last += shift;
        for (std::size_t level = 1; level < row.iterations.size(); ++level)
            row.iterations[level].offset += is.size() - was.size();
    }
    for (StepRepeat& repeat : a.step.repeats)
        if (repeat.headerRow == headerRow && repeat.level == 0)
            repeat.firstHidden += shift;
}

/// The stage's analysis with its blocks' layers named as in the whole model, where the stage holds one
/// run of a block's iterations (with interleaving a block's iterations on a stage are not one run: they
/// keep the stage's own numbering).
void nameAsInModel(Analysis& a, const Network& network, const PipelineStageSlice& slice)
{
    std::int64_t firstUnit = 0; // the pipeline layer number of each block's first iteration
    std::size_t held = 0; // the top-level layer's index in the stage's network
    for (std::size_t i = 0; i < network.layers.size(); ++i) {
        const LayerSpec& l = network.layers[i];
        const bool onStage = i < slice.iterations.size() && slice.iterations[i] > 0;
        if (l.isRepeat() && onStage) {
            std::vector<std::int64_t> starts;
            for (const auto& [first, last] : slice.layerRanges)
                if (std::max(first, firstUnit) <= std::min(last, firstUnit + l.times - 1))
                    starts.push_back(std::max(first, firstUnit) - firstUnit);
            const std::string path = "layers[" + std::to_string(held) + "]";
            for (std::size_t r = 0; r < a.rows.size() && starts.size() == 1 && starts[0] > 0; ++r)
                if (a.rows[r].depth == 0 && a.rows[r].type == "Repeat" && a.rows[r].specPath == path)
                    numberAsInModel(a, r, starts[0]);
        }
        if (l.isRepeat())
            firstUnit += l.times;
        held += onStage ? 1 : 0;
    }
}

std::string rangeText(std::int64_t first, std::int64_t last)
{
    return first == last ? std::to_string(first) : std::to_string(first) + "–" + std::to_string(last);
}

} // namespace

double pipelineBubbleFraction(const Parallelism& par, std::int64_t microBatches) noexcept
{
    const auto p = static_cast<double>(std::max<std::int64_t>(1, par.pipelineParallel));
    const auto m = static_cast<double>(std::max<std::int64_t>(1, microBatches));
    const double v = par.schedule == PipelineSchedule::Interleaved
        ? static_cast<double>(std::max<std::int64_t>(1, par.virtualStages))
        : 1.0;
    const double bubble = (p - 1.0) / (v * m);
    return par.schedule == PipelineSchedule::ZeroBubble ? bubble / 3.0 : bubble;
}

std::string stageLayersText(const Network& network, const PipelineStageSlice& slice)
{
    const bool repeats = std::any_of(
        network.layers.begin(), network.layers.end(), [](const LayerSpec& l) { return l.isRepeat(); });
    std::string text;
    const auto add = [&](const std::string& part) { text += (text.empty() ? "" : ", ") + part; };
    if (!repeats) { // the pipeline layers are the top-level layers, numbered from 1 as every view does
        for (const auto& [first, last] : slice.layerRanges)
            add("layers " + rangeText(first + 1, last + 1));
        return text;
    }
    std::int64_t firstUnit = 0; // the pipeline layer number of each block's first iteration
    for (std::size_t i = 0; i < network.layers.size(); ++i) {
        const LayerSpec& l = network.layers[i];
        const std::string name = l.name.empty() ? std::to_string(i) : l.name;
        if (!l.isRepeat()) {
            if (i < slice.iterations.size() && slice.iterations[i] > 0)
                add(name);
            continue;
        }
        for (const auto& [first, last] : slice.layerRanges) {
            const std::int64_t from = std::max(first, firstUnit);
            const std::int64_t to = std::min(last, firstUnit + l.times - 1);
            if (from <= to)
                add(name + "." + rangeText(from - firstUnit, to - firstUnit));
        }
        firstUnit += l.times;
    }
    return text;
}

std::string stageExplanation(const PipelineStageResult& stage, std::int64_t stages)
{
    const PlanResult& r = stage.result;
    if (!r.estimate || !r.memory)
        return {};
    const Parallelism& par = stage.settings.setup.parallel;
    const std::int64_t batch = stage.settings.setup.batch;
    const std::string rule = par.schedule == PipelineSchedule::GPipe ? "GPipe: m"
        : par.schedule == PipelineSchedule::Interleaved              ? "interleaved 1F1B: (w + 1) / v"
        : par.schedule == PipelineSchedule::ZeroBubble               ? "ZB-H1: p − s, as 1F1B"
                                                                     : "1F1B: p − s";
    const double inFlight = stage.held.inFlight();
    // A whole count, or (interleaved) a number of chunk passes over v: "5.5".
    const std::int64_t tenths = static_cast<std::int64_t>(inFlight * 10.0 + 0.5);
    const std::string count
        = std::to_string(tenths / 10) + (tenths % 10 != 0 ? "." + std::to_string(tenths % 10) : "");
    std::string text = "Stage " + std::to_string(stage.slice.index + 1) + " of " + std::to_string(stages)
        + " keeps " + count + (inFlight == 1.0 ? " micro-batch" : " micro-batches") + " in flight (" + rule
        + ")";
    const StepConditions& c = r.memory->timeline().conditions();
    if (c.heldPasses > 0) {
        const Count perPass = Count { c.heldActivationsPerPass.perSample + c.heldInputPerPass.perSample }
                * Count::fromSigned(batch)
            + Count { c.heldActivationsPerPass.fixed + c.heldInputPerPass.fixed };
        const bool one = c.heldPasses == 1;
        const std::string what = stage.held.chunksPerStage > 1
            ? (one ? " held chunk pass" : " held chunk passes")
            : (one ? " held micro-batch" : " held micro-batches");
        text += ": besides the running one, " + std::to_string(c.heldPasses) + what + " of "
            + formatBytes(perPass.value()) + (one ? "" : " each") + " (saved activations and received input)";
    }
    const Estimate& e = *r.estimate;
    const std::uint64_t held = e.hasHeadroom() ? e.heldBytes : e.peakBytes();
    text += "; at batch " + std::to_string(batch) + " it holds " + formatBytes(held) + " of "
        + formatBytes(e.gpuMemoryBytes) + ", max batch " + std::to_string(e.maxBatch) + ".";
    return text;
}

Result<StageBoundaries> stageBoundaries(const Network& network, const Analysis& whole,
    const std::vector<PipelineStageSlice>& slices, bool interleaved)
{
    // With interleaving every stage also receives and sends between its model chunks: the largest
    // boundary tensor stands for those.
    std::uint64_t largest = 0;
    for (const PipelineStageSlice& slice : slices)
        if (slice.sendsFrom)
            if (auto sent = boundaryInput(whole, *slice.sendsFrom))
                largest = std::max(largest, bytesPerSample(sent.value()));
    StageBoundaries out;
    for (const PipelineStageSlice& slice : slices) {
        InputSpec received = network.input;
        PipelineStageRole role;
        role.index = slice.index;
        if (slice.receivesFrom) {
            auto boundary = boundaryInput(whole, *slice.receivesFrom);
            if (!boundary)
                return boundary.error();
            received = boundary.value();
            role.receivedBytesPerSample = bytesPerSample(received);
        }
        if (slice.sendsFrom)
            if (auto sent = boundaryInput(whole, *slice.sendsFrom))
                role.sentBytesPerSample = bytesPerSample(sent.value());
        if (interleaved && slices.size() > 1) {
            role.receivedBytesPerSample = std::max(role.receivedBytesPerSample, largest);
            role.sentBytesPerSample = std::max(role.sentBytesPerSample, largest);
        }
        out.received.push_back(std::move(received));
        out.roles.push_back(role);
    }
    return out;
}

PlanResult evaluatePipeline(const Plan& plan, Analysis analysis)
{
    PlanResult out;
    auto whole = std::make_shared<const Analysis>(std::move(analysis));
    out.modelAnalysis = whole;
    out.analysis = *whole;
    if (whole->error) {
        out.error = whole->error;
        return out;
    }
    Network network = plan.network;
    if (plan.sequenceLength) {
        auto resized = atTrainingLength(plan.network, *plan.sequenceLength);
        if (!resized) {
            out.error = resized.error();
            return out;
        }
        network = std::move(resized).value();
    }
    const Parallelism& par = plan.setup.parallel;
    if (auto problem = expertParallelProblem(*whole, par, true)) {
        out.error = std::move(problem);
        return out;
    }
    auto slices = splitPipeline(network, par.pipelineParallel,
        par.schedule == PipelineSchedule::Interleaved ? par.virtualStages : 1, par.stageLayers);
    if (!slices) {
        out.error = slices.error();
        return out;
    }
    // With interleaving every stage also receives and sends between its model chunks: the largest
    // boundary tensor stands for those.
    auto boundaries
        = stageBoundaries(network, *whole, slices.value(), par.schedule == PipelineSchedule::Interleaved);
    if (!boundaries) {
        out.error = boundaries.error();
        return out;
    }
    for (PipelineStageSlice& slice : slices.value()) {
        const auto at = static_cast<std::size_t>(slice.index);
        const InputSpec& received = boundaries.value().received[at];
        const PipelineStageRole& role = boundaries.value().roles[at];
        auto stageNet = stageNetwork(network, slice, received);
        if (!stageNet) {
            out.error = stageNet.error();
            return out;
        }
        Plan stagePlan = static_cast<const PlanSettings&>(plan).appliedTo(Plan {});
        stagePlan.network = std::move(stageNet).value();
        stagePlan.sequenceLength.reset(); // the cut network is at the training length already
        stagePlan.setup.pipelineStage = role;
        PipelineStageResult stage;
        stage.held = heldMicroBatches(par, plan.setup.accumulationSteps, slice.index);
        Analysis stageAnalysis = analyzePlan(stagePlan, stagePlan.analysisOptions());
        if (!stageAnalysis.error)
            nameAsInModel(stageAnalysis, network, slice);
        stage.result = evaluate(stagePlan, std::move(stageAnalysis));
        stage.slice = std::move(slice);
        stage.settings = static_cast<const PlanSettings&>(stagePlan);
        out.stages.push_back(std::move(stage));
    }
    showHeaviest(out, plan);
    return out;
}

void reestimatePipeline(PlanResult& result, const PlanSettings& settings)
{
    for (PipelineStageResult& stage : result.stages) {
        PlanSettings s = settings;
        s.setup.pipelineStage = stage.settings.setup.pipelineStage;
        s.sequenceLength.reset();
        reestimate(stage.result, s);
        stage.settings = std::move(s);
    }
    if (!result.stages.empty())
        showHeaviest(result, settings);
}

} // namespace headroom

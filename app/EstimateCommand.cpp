// headroom estimate: the memory breakdown, the fit, the max batch, the throughput and the layer table.
#include "Command.h"
#include "Output.h"
#include "PlanFromOptions.h"
#include "PlanText.h" // report/
#include "TextTable.h"
#include "headroom/estimate/Pipeline.h"
#include "headroom/estimate/SetupFile.h"
#include "headroom/model/ModelFile.h"
#include "headroom/support/Format.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <ostream>
#include <vector>

namespace headroom::cli {

namespace {

void printThroughput(const Plan& plan, const PlanResult& result, std::ostream& out)
{
    using namespace report::plantext;
    const auto t = throughputOf(result);
    out << "Throughput (estimated)\n";
    if (!t) {
        keyLine(out, "  Not estimated", t.error().message);
        return;
    }
    const ThroughputEstimate& e = *t;
    keyLine(out, "  Step time",
        formatSeconds(e.stepSeconds) + " per optimizer step ("
            + (e.memoryBound ? "memory-bound" : "compute-bound") + ")");
    const std::int64_t gpus = plan.setup.parallel.gpus;
    keyLine(out, "  Samples/s",
        formatRate(e.samplesPerSecond) + (gpus > 1 ? " across " + plural(gpus, "GPU", "GPUs") : ""));
    if (e.tokensPerSecond > 0)
        keyLine(out, "  Tokens/s",
            formatRate(e.tokensPerSecond) + " (" + formatCount(static_cast<std::uint64_t>(e.sequenceLength))
                + " tokens per sample)");
    std::string flops = formatFlops(e.forwardFlopsPerSample) + " forward + "
        + formatFlops(e.backwardFlopsPerSample) + " backward";
    if (e.recomputeFlopsPerSample > 0)
        flops += " + " + formatFlops(e.recomputeFlopsPerSample) + " recomputed";
    keyLine(out, "  FLOPs/sample", flops);
    keyLine(
        out, "  Peak", formatRate(e.peakTflops) + " TFLOP/s, " + formatFraction(e.utilization) + " assumed");
    if (!e.communication.empty()) {
        keyLine(out, "  Communication", formatSeconds(e.communicationSeconds) + " not hidden by compute");
        for (const CommunicationTerm& c : e.communication) {
            out << "    " << communicationKindName(c.kind) << ": " << c.collective << " over "
                << plural(c.ranks, "GPU", "GPUs") << (c.crossesNodes ? " across nodes" : " in a node") << ", "
                << formatBytes(static_cast<std::uint64_t>(c.busBytes)) << " sent per GPU, "
                << formatSeconds(c.seconds);
            if (c.overlapSeconds > 0)
                out << ", " << formatSeconds(c.exposedSeconds) << " not hidden";
            out << '\n';
        }
    }
    for (const auto& note : e.notes)
        out << "  - " << note << '\n';
}

/// Model, GPU and set-up, then the memory by component.
void printBreakdown(const Plan& plan, const PlanResult& result, std::ostream& out)
{
    using namespace report::plantext;
    const Analysis& a = result.wholeModel(); // the whole model, not the heaviest pipeline stage
    const Estimate& e = *result.estimate;
    const TrainingSetup& s = plan.setup;
    std::string params = formatCount(a.totalParams) + " parameters";
    if (a.trainableParams != a.totalParams)
        params += ", " + formatCount(a.trainableParams) + " trainable";
    keyLine(out, "Model", plan.network.name + " (" + params + ")");
    keyLine(out, "GPU", plan.gpu.name + " (" + formatBytes(plan.gpu.memoryBytes) + ")");
    keyLine(out, "Set-up",
        std::string(optimizerLabel(s.optimizer)) + ", " + std::string(precisionLabel(plan.precision))
            + ", batch " + std::to_string(s.batch) + (hasEffectiveBatch(s) ? " per GPU" : "") + ", overhead "
            + formatBytes(s.overheadBytes));
    for (const auto& [key, value] : strategyRows(plan))
        keyLine(out, key, value);
    if (hasEffectiveBatch(s))
        keyLine(out, "Effective batch", effectiveBatchText(s.batch, s));
    out << '\n';

    const bool multiGpu = s.parallel.gpus > 1;
    if (!result.stages.empty())
        out << "Memory of the heaviest GPU: " << heaviestStageText(result) << '\n';
    std::vector<Component> rows;
    for (const auto c : kAllComponents) {
        const auto bytes = componentBytes(e.bytes, c);
        if (c == Component::Communication && bytes == 0 && !multiGpu)
            continue; // no multi-GPU buffers on one GPU: not worth a row
        if (c == Component::Calibration && bytes == 0)
            continue; // no measured excess without a calibration
        rows.push_back(c);
    }
    // 22 columns hold every label but the calibration's, which widens the first column when it is shown.
    int width = 22;
    for (const auto c : rows)
        width = std::max(width, static_cast<int>(componentLabel(c).size()) + 2);
    out << std::left << std::setw(width) << "Component" << std::right << std::setw(14)
        << (multiGpu ? "Per GPU" : "Memory") << std::setw(10) << "Share" << '\n';
    for (const auto c : rows) {
        const auto bytes = componentBytes(e.bytes, c);
        out << std::left << std::setw(width) << componentLabel(c) << std::right << std::setw(14)
            << formatBytes(bytes) << std::setw(10) << percent(bytes, e.total()) << '\n';
    }
    out << std::left << std::setw(width) << "Total (tensors)" << std::right << std::setw(14)
        << formatBytes(e.total()) << "\n\n";
}

/// Where the step peaks, whether it fits, the max batch and what the strategies save or add.
void printFit(const Plan& plan, const PlanResult& result, std::ostream& out)
{
    using namespace report::plantext;
    const Estimate& e = *result.estimate;
    const TrainingSetup& s = plan.setup;
    out << peakText(e) << ".\n";
    const ReservedFigures* r = result.reservedFigures ? &*result.reservedFigures : nullptr;
    // One notion of fitting and headroom (applyReserved): what the GPU holds at the peak.
    out << (e.fits ? "Fits" : "Does not fit") << " on the " << plan.gpu.name
        << (s.parallel.gpus > 1 ? " (each GPU)" : "") << ": ";
    const auto magnitude
        = [](double bytes) { return formatBytes(static_cast<std::uint64_t>(std::abs(bytes))); };
    if (e.withinMargin() && r != nullptr)
        out << "the GPU would hold " << formatBytes(e.heldBytes) << " at the peak, leaving "
            << magnitude(e.headroomBytes()) << ", less than the margin of "
            << formatBytes(r->maxBatch.marginBytes) << " the max batch keeps\n";
    else
        out << (e.headroomBytes() >= 0 ? "headroom " : "short by ") << magnitude(e.headroomBytes())
            << (e.fitBasis == FitBasis::Reserved ? " (the GPU holds " : " (the tensors hold ")
            << formatBytes(e.heldBytes) << " at the peak)\n";
    if (e.fitBasis == FitBasis::Reserved)
        out << "Reserved by PyTorch's caching allocator"
            << (r->expandableSegments ? " (expandable segments)" : "") << ": "
            << formatBytes(r->peakReservedBytes) << " at its peak, plus " << formatBytes(r->overheadBytes)
            << " outside it\n"
            << "Allocated at its peak: " << formatBytes(r->peakAllocatedBytes) << " (tensors "
            << formatBytes(r->peakAllocatedTensorBytes()) << ", cuBLAS and cuDNN workspaces "
            << formatBytes(r->peakAllocatedWorkspaceBytes) << ")\n";
    else if (result.reservedError)
        out << "Reserved by PyTorch's caching allocator: not simulated (" << result.reservedError->message
            << "); the headroom and the max batch count the tensors alone and may be a few percent above "
               "what trains\n";
    else
        out << "Reserved by PyTorch's caching allocator: not simulated; the headroom and the max batch "
               "count the tensors alone\n";
    if (hasEffectiveBatch(s))
        out << "Max micro-batch per GPU: " << e.maxBatch << " (effective batch "
            << effectiveBatchText(e.maxBatch, s) << ")\n";
    else
        out << "Max batch: " << e.maxBatch << '\n';
    if (r != nullptr && e.maxBatch > 0 && e.maxBatch < kMaxBatch)
        out << "  from the reserved peak, keeping " << formatBytes(r->maxBatch.marginBytes)
            << " spare for what the model cannot see (" << r->maxBatch.unguarded
            << " at exactly the allocator's " << formatBytes(r->capacityBytes) << ")\n";
    if (const auto saved = checkpointingSavingsText(plan, result.analysis, s.batch))
        out << *saved << '\n';
    if (const auto lora = loraText(plan, result.wholeModel()))
        out << *lora << '\n';
}

/// Every pipeline stage: its layers, the micro-batches in flight, its peak and max batch.
void printPipelineStages(const Plan& plan, const PlanResult& result, std::ostream& out)
{
    using namespace report::plantext;
    using Align = TextTable::Align;
    const auto headers = pipelineStageHeaders();
    std::vector<TextTable::Column> columns;
    for (std::size_t i = 0; i < headers.size(); ++i)
        columns.push_back({ headers[i], i == 0 || i == 1 ? Align::Left : Align::Right });
    TextTable table(std::move(columns));
    const auto rows = pipelineStageRows(plan, result);
    for (const PipelineStageRow& row : rows)
        table.addRow(
            { row.stage, row.layers, row.params, row.inFlight, row.peak, row.held, row.maxBatch, row.fits });
    out << "Pipeline stages (" << std::string(pipelineScheduleLabel(plan.setup.parallel.schedule)) << ", "
        << plural(plan.setup.accumulationSteps, "micro-batch", "micro-batches") << ", bubble "
        << formatFraction(pipelineBubbleFraction(plan.setup.parallel, plan.setup.accumulationSteps)) << ")\n";
    table.print(out);
    for (const PipelineStageRow& row : rows) {
        if (!row.error.empty())
            out << "  Stage " << row.stage << ": " << row.error << '\n';
        else if (!row.explanation.empty())
            out << "  - " << row.explanation << '\n';
    }
    out << '\n';
}

void printLayerTable(const Analysis& a, std::ostream& out)
{
    using namespace report::plantext;
    using Align = TextTable::Align;
    TextTable table({ { "#" }, { "Layer" }, { "Type" }, { "Output" }, { "Parameters", Align::Right },
        { "Act./sample", Align::Right }, { "FLOPs/sample", Align::Right } });
    // Identical iterations of a Repeat block share one line ("b.1–9998.fc × 9,998"). Numbered as the
    // GUI's tree and the report's table are (layerNumber: "17.3" is the third layer of the block in
    // row 17; each iteration shows its layers' numbers); the loss is not a layer and has no number.
    for (const auto& group : groupRows(a)) {
        const LayerRow& row = a.rows[group.row];
        if (row.type == "Repeat")
            continue;
        const std::string indent(static_cast<std::size_t>(row.depth) * 2, ' ');
        const std::string times = group.count > 1 ? " \u00d7 " + formatCount(group.count) : std::string();
        const bool loss = row.specPath == "loss";
        table.addRow({ loss ? std::string() : layerNumber(row.specPath), indent + group.name + times,
            row.type, row.output.shape.toString(), formatCount(row.params),
            formatBytes(row.activationBytesPerSample),
            formatFlops(static_cast<double>(row.forwardFlopsPerSample)
                + static_cast<double>(row.backwardFlopsPerSample)) });
    }
    table.print(out);
}

/// The estimate's communication terms and the links they assumed (empty terms on one GPU).
nlohmann::ordered_json communicationJson(const ThroughputEstimate& e)
{
    auto terms = nlohmann::ordered_json::array();
    for (const CommunicationTerm& c : e.communication)
        terms.push_back({ { "kind", communicationKindKey(c.kind) }, { "collective", c.collective },
            { "ranks", c.ranks }, { "crosses_nodes", c.crossesNodes }, { "bytes", c.bytes },
            { "bus_bytes", c.busBytes }, { "seconds", c.seconds }, { "overlap_seconds", c.overlapSeconds },
            { "exposed_seconds", c.exposedSeconds }, { "per_micro_batch", c.perMicroBatch } });
    return { { "intra_node_gbps", e.intraNodeGBps }, { "inter_node_gbps", e.interNodeGBps },
        { "terms", std::move(terms) } };
}

nlohmann::ordered_json throughputJson(const PlanResult& result)
{
    const auto t = throughputOf(result);
    if (!t)
        return { { "error", t.error().message } };
    const ThroughputEstimate& e = *t;
    return { { "step_seconds", e.stepSeconds }, { "compute_seconds", e.computeSeconds },
        { "memory_seconds", e.memorySeconds }, { "memory_bound", e.memoryBound },
        { "samples_per_second", e.samplesPerSecond }, { "tokens_per_second", e.tokensPerSecond },
        { "sequence_length", e.sequenceLength }, { "forward_flops_per_sample", e.forwardFlopsPerSample },
        { "backward_flops_per_sample", e.backwardFlopsPerSample },
        { "recompute_flops_per_sample", e.recomputeFlopsPerSample }, { "flops_per_step", e.flopsPerStep },
        { "bytes_per_step", e.bytesPerStep }, { "peak_tflops", e.peakTflops },
        { "utilization", e.utilization }, { "communication_seconds", e.communicationSeconds },
        { "communication", communicationJson(e) }, { "notes", e.notes } };
}

int runEstimate(const Options& o, const CommandContext& c)
{
    const Plan plan = makePlan(o, c.executablePath);
    const PlanResult result = evaluateOrRefuse(plan);
    if (!o.saveSetup.empty()) {
        // The model as planned (--loss and --freeze included) with the set-up the options and the file made.
        const auto saved = saveModelFile(plan.network, o.saveSetup, trainingSetupToJson(plan));
        if (!saved)
            throw UsageError { "--save-setup: " + saved.error().message };
    }
    printWarnings(result, c.err);
    if (o.json) {
        auto j = planToJson(plan, result);
        // planToJson carries the memory plan; the throughput estimate is the command line's addition.
        if (!j.contains("throughput"))
            j["throughput"] = throughputJson(result);
        writeJson(c.out, std::move(j), 2);
        return kExitOk;
    }
    printBreakdown(plan, result, c.out);
    printFit(plan, result, c.out);
    c.out << '\n';
    printThroughput(plan, result, c.out);
    c.out << '\n';
    if (!result.stages.empty())
        printPipelineStages(plan, result, c.out);
    printLayerTable(result.wholeModel(), c.out); // with a pipeline: every stage's layers
    return kExitOk;
}

} // namespace

const Command& estimateCommand()
{
    static const Command command {
        .name = "estimate",
        .usage = "FILE [options] [--json]",
        .summary = "memory breakdown, fit and max batch",
        .description
        = "The memory one training step takes on the GPU, by component, whether it fits, the largest\n"
          "batch that does, the throughput estimate and the per-layer table.\n",
        .options = setupOptions({}, { { "--json" }, { "--save-setup" } }),
        .run = runEstimate,
    };
    return command;
}

} // namespace headroom::cli

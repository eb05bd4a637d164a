#include "headroom/estimate/Plan.h"

#include "headroom/estimate/ContextParallel.h"
#include "headroom/estimate/Pipeline.h"
#include "headroom/importers/HfConfig.h"
#include "headroom/model/EmptyNetwork.h"
#include "support/Parallel.h"

#include <cstdlib>
#include <optional>
#include <utility>

namespace headroom {

AnalysisOptions PlanSettings::analysisOptions() const
{
    AnalysisOptions o;
    o.precision = precision;
    o.checkpointing = checkpointing;
    o.attention = attention;
    o.lora = lora;
    o.moeImbalance = moeImbalance;
    return o;
}

Plan PlanSettings::appliedTo(Plan plan) const
{
    static_cast<PlanSettings&>(plan) = *this;
    return plan;
}

Analysis analyzePlan(const Plan& plan, const AnalysisOptions& options)
{
    if (plan.network.layers.empty()) {
        // Only the input batch and the overhead would be left: a step time of nothing, a max batch
        // of the input alone. Every view of a plan (the GUI, the planner, compare, the report, the
        // command line) says the network is empty instead.
        Analysis empty;
        empty.precision = options.precision;
        empty.options = options;
        empty.error = Error { std::string(kEmptyNetworkMessage), "layers" };
        return empty;
    }
    if (!plan.sequenceLength && plan.setup.parallel.contextParallel <= 1)
        return analyze(plan.network, options);
    // atTrainingLength: the import's note that it started at a default length goes once a length is set.
    // Context parallelism: each rank runs T / c tokens (docs/multi-gpu.md).
    auto resized = contextParallelNetwork(plan.network, plan);
    if (resized)
        return analyze(resized.value(), options);
    Analysis failed;
    failed.precision = options.precision;
    failed.options = options;
    failed.error = resized.error();
    return failed;
}

DroppedSettings keepWhatApplies(PlanSettings& settings, const Network& network)
{
    DroppedSettings dropped;
    auto& targets = settings.lora.targets;
    if (!settings.lora.enabled() || targets.empty() || network.layers.empty())
        return dropped;
    // The analysis matches targets against the layers' full names (inside Repeat blocks too) and
    // reports the first that matches nothing at "lora.targets[i]": drop it and ask again.
    const std::string prefix = "lora.targets[";
    Plan base;
    base.network = network;
    Plan plan = settings.appliedTo(std::move(base)); // the network copied once; each round only the targets
    for (std::size_t round = 0; round <= targets.size() && !targets.empty(); ++round) {
        plan.lora.targets = targets;
        const Analysis a = analyzePlan(plan, plan.analysisOptions());
        if (!a.error || !a.error->location.starts_with(prefix))
            break;
        const std::size_t index = std::strtoull(a.error->location.c_str() + prefix.size(), nullptr, 10);
        if (index >= targets.size())
            break;
        dropped.loraTargets.push_back(targets[index]);
        targets.erase(targets.begin() + static_cast<std::ptrdiff_t>(index));
    }
    return dropped;
}

Result<SetupFigures> figuresOf(const Analysis& analysis, const MemoryModel& model,
    const PlanSettings& settings, const ReservedModel* reserved, const ReservedFigures* known,
    MaxBatchSearch what)
{
    auto e = estimate(analysis, model, settings.setup, settings.gpu.memoryBytes);
    if (!e)
        return e.error();
    SetupFigures f { std::move(e).value(), std::nullopt, std::nullopt, std::nullopt };
    if (reserved != nullptr) {
        f.reserved = reservedFiguresOf(*reserved, settings, known, what);
        applyReserved(f.estimate, *f.reserved, settings.setup);
    }
    if (auto t = estimateThroughput(analysis, settings.setup, settings.gpu, model))
        f.throughput = std::move(t).value();
    else
        f.throughputError = t.error();
    return f;
}

void reestimate(PlanResult& result, const PlanSettings& settings)
{
    if (!result.stages.empty()) {
        reestimatePipeline(result, settings);
        return;
    }
    result.estimate.reset();
    result.throughput.reset();
    result.throughputError.reset();
    if (!result.memory)
        return; // result.error says why there is none
    result.error.reset();
    // The throughput does not depend on the estimate: it is there even when the batch is refused.
    if (auto t = estimateThroughput(result.analysis, settings.setup, settings.gpu, *result.memory))
        result.throughput = std::move(t).value();
    else
        result.throughputError = t.error();
    auto e = estimate(result.analysis, *result.memory, settings.setup, settings.gpu.memoryBytes);
    if (!e) {
        result.reservedFigures.reset();
        result.error = e.error();
        return;
    }
    result.estimate = std::move(e).value();
    if (result.reserved) {
        // The max batch search runs again only when the allocator's capacity changed.
        const std::optional<ReservedFigures> known = std::move(result.reservedFigures);
        result.reservedFigures
            = reservedFiguresOf(*result.reserved, settings, known ? &*known : nullptr, result.maxBatchSearch);
        applyReserved(*result.estimate, *result.reservedFigures, settings.setup);
    } else {
        result.reservedFigures.reset();
    }
}

namespace {
/// From this many operators in the step graph evaluate() builds the step model and the allocation trace
/// on two threads: the 8,000-Pad block's step model takes 4 ms, LeNet-5's (a dozen operators) far less
/// than starting a thread.
constexpr std::size_t kSideBySideOps = 2000;
} // namespace

PlanResult evaluate(const PlanSettings& settings, Analysis analysis, MaxBatchSearch what)
{
    PlanResult result;
    result.analysis = std::move(analysis);
    result.maxBatchSearch = what;
    if (result.analysis.error && result.analysis.rows.empty()) { // the sequence length could not be applied
        result.error = result.analysis.error;
        return result;
    }
    // The step model and the allocation trace (which simulates the step again, without the overhead)
    // are built side by side for a network of many layers: neither reads the other.
    std::optional<Result<MemoryModel>> model;
    std::optional<Result<std::shared_ptr<const ReservedModel>>> reserved;
    const bool sideBySide = settings.reservedModel && result.analysis.step.ops.size() >= kSideBySideOps;
    forEachInParallel(sideBySide ? 2 : 1, [&](std::size_t i) {
        if (i == 0)
            model = MemoryModel::build(result.analysis, settings.setup);
        else
            reserved = buildReservedModel(result.analysis, settings);
    });
    if (!model->ok()) {
        result.error = model->error();
        return result;
    }
    result.memory = std::make_shared<const MemoryModel>(std::move(*model).value());
    if (settings.reservedModel && !reserved)
        reserved = buildReservedModel(result.analysis, settings);
    if (!reserved) {
        // the tensors alone
    } else if (reserved->ok()) {
        result.reserved = std::move(*reserved).value();
    } else {
        result.reservedError = reserved->error(); // the max batch is then the tensors' alone
    }
    reestimate(result, settings);
    return result;
}

PlanResult evaluate(const Plan& plan, Analysis analysis, MaxBatchSearch what)
{
    if (plan.setup.parallel.pipelineParallel > 1 && !plan.setup.pipelineStage)
        return evaluatePipeline(plan, std::move(analysis));
    return evaluate(static_cast<const PlanSettings&>(plan), std::move(analysis), what);
}

PlanResult evaluate(const Plan& plan, MaxBatchSearch what)
{
    return evaluate(plan, analyzePlan(plan, plan.analysisOptions()), what);
}

namespace {

using nlohmann::ordered_json;

std::string_view fitBasisName(FitBasis b)
{
    switch (b) {
    case FitBasis::Reserved:
        return "reserved";
    case FitBasis::MaxBatchOnly:
        return "max_batch";
    case FitBasis::Tensors:
        break;
    }
    return "tensors";
}

ordered_json breakdownJson(const MemoryBreakdown& m)
{
    ordered_json b;
    for (const auto c : kAllComponents) {
        // Only a calibrated plan has the measured excess (TrainingSetup::calibration): other plans keep
        // the keys they always had.
        if (c == Component::Calibration && m.calibration == 0)
            continue;
        b[std::string(componentName(c))] = componentBytes(m, c);
    }
    b["total"] = m.total();
    return b;
}

} // namespace

ordered_json parallelismToJson(const Parallelism& par)
{
    auto stages = ordered_json::array();
    for (const std::int64_t n : par.stageLayers)
        stages.push_back(n);
    return { { "gpus", par.gpus }, { "sharding", shardingName(par.sharding) },
        { "tensor_parallel", par.tensorParallel }, { "sequence_parallel", par.sequenceParallel },
        { "pipeline_parallel", par.pipelineParallel }, { "schedule", pipelineScheduleName(par.schedule) },
        { "virtual_stages", par.virtualStages },
        { "stage_layers", par.stageLayers.empty() ? ordered_json(nullptr) : stages },
        { "context_parallel", par.contextParallel },
        { "context_parallel_kind", contextParallelismName(par.contextKind) },
        { "expert_parallel", par.expertParallel }, { "expert_tensor_parallel", par.expertTensorParallel },
        { "data_parallel", par.dataParallel() }, { "expert_data_parallel", par.expertDataParallel() },
        { "offload_optimizer", par.offloadOptimizer },
        { "offload_activations", activationOffloadName(par.activationOffload) } };
}

namespace {

/// The set-up as `headroom estimate` was given it.
void addSettings(ordered_json& j, const Plan& plan)
{
    j["optimizer"] = optimizerName(plan.setup.optimizer);
    j["optimizer_implementation"] = optimizerImplementationName(plan.setup.optimizerImplementation);
    j["eight_bit_optimizer"] = plan.setup.eightBitOptimizer;
    j["precision"] = precisionName(plan.precision);
    const Parallelism& par = plan.setup.parallel;
    j["parallel"] = parallelismToJson(par);
    j["gpus_per_node"] = plan.setup.gpusPerNode;
    j["inter_node_gbps"] = plan.setup.interNodeGBps;
    j["checkpointing"] = checkpointingName(plan.checkpointing);
    j["attention"] = attentionName(plan.attention);
    j["lora"] = { { "rank", plan.lora.rank }, { "targets", plan.lora.targets },
        { "dropout", plan.lora.dropout }, { "quantize_base", plan.lora.quantizeBase } };
    j["sequence_length"] = plan.sequenceLength ? ordered_json(*plan.sequenceLength) : ordered_json(nullptr);
    j["moe_imbalance"] = plan.moeImbalance;
    j["gpu"] = { { "name", plan.gpu.name }, { "memory_bytes", plan.gpu.memoryBytes } };
    const RunCalibration& cal = plan.setup.calibration;
    j["calibration"] = cal.active() ? ordered_json { { "fixed_bytes", cal.fixedBytes },
        { "per_sample_bytes", cal.perSampleBytes },
        { "measured_batch", cal.measuredBatch > 0 ? ordered_json(cal.measuredBatch) : ordered_json(nullptr) },
        { "source", cal.source.empty() ? ordered_json(nullptr) : ordered_json(cal.source) } }
                                    : ordered_json(nullptr);
}

/// The estimate: the peak's components and where it is, per-sample bytes, fit and max batch.
void addEstimate(ordered_json& j, const Plan& plan, const PlanResult& result)
{
    const Estimate& e = *result.estimate;
    const Analysis& a = result.analysis;
    j["bytes"] = breakdownJson(e.bytes);
    // Two named moments of the step: what backward starts from, and what the optimizer step holds.
    if (result.memory) {
        const MemoryModel& m = *result.memory;
        j["at_end_of_forward"] = breakdownJson(m.momentAt(m.endOfForwardMoment(), plan.setup.batch));
        j["at_optimizer_step"] = breakdownJson(m.momentAt(m.optimizerStepMoment(), plan.setup.batch));
    }
    j["optimizer_step_bytes"] = e.optimizerStepBytes;
    j["peak_bytes"] = e.peakBytes();
    j["peak"] = { { "bytes", e.peakBytes() }, { "phase", stepPhaseName(e.peak.phase) },
        { "layer",
            e.peak.phase == StepPhase::OptimizerStep ? ordered_json(nullptr) : ordered_json(e.peakLayer) },
        { "recomputing", e.peak.recomputing }, { "micro_batch", e.peak.laterMicroBatch ? "later" : "first" },
        { "step", e.firstStepPeakBytes < e.peakBytes() ? "steady" : "first and steady" },
        { "first_step_bytes", e.firstStepPeakBytes }, { "steady_step_bytes", e.peakBytes() } };
    j["per_sample_bytes"] = { { "activations", a.activationBytesPerSample },
        { "input", a.inputBytesPerSample }, { "transient", a.transientBytesPerSample } };
    j["fits"] = e.fits;
    j["max_batch"] = e.maxBatch;
    j["max_effective_batch"] = e.maxEffectiveBatch;
    // One notion of fitting and headroom (applyReserved): what the GPU holds at the peak, on the basis
    // `headroom_basis` names; the tensors' own figure only under its own name.
    j["headroom_bytes"] = e.hasHeadroom() ? ordered_json(e.headroomBytes()) : ordered_json(nullptr);
    j["headroom_basis"] = fitBasisName(e.fitBasis);
    j["held_at_peak_bytes"] = e.hasHeadroom() ? ordered_json(e.heldBytes) : ordered_json(nullptr);
    j["tensors_headroom_bytes"] = e.tensorsHeadroomBytes();
}

/// What PyTorch's caching allocator reserves (docs/cli.md, "reserved").
ordered_json reservedJson(const ReservedFigures& r)
{
    ordered_json j;
    j["peak_bytes"] = r.peakReservedBytes;
    j["peak_allocated_bytes"] = r.peakAllocatedBytes;
    j["peak_allocated_tensor_bytes"] = r.peakAllocatedTensorBytes();
    j["peak_allocated_workspace_bytes"] = r.peakAllocatedWorkspaceBytes;
    j["peak_with_overhead_bytes"] = r.peakWithOverheadBytes();
    j["fits"] = r.fits;
    j["expandable_segments"] = r.expandableSegments;
    j["capacity_bytes"] = r.capacityBytes;
    j["overhead_bytes"] = r.overheadBytes;
    j["cuda_context"] = { { "bytes", r.cudaContextBytes }, { "source", r.cudaContextSource } };
    j["workspaces"]
        = { { "cublas_bytes", r.cublasWorkspaceBytes }, { "cublas_handles", kCublasHandlesPerTrainingStep },
              { "cudnn_largest_bytes", r.cudnnWorkspaceBytes } };
    j["max_batch"] = r.maxBatch.batch;
    j["max_batch_at_capacity"] = r.maxBatch.unguarded;
    j["margin_bytes"] = r.maxBatch.marginBytes;
    return j;
}

/// Identical iterations of a Repeat block are one entry: `count` layers named name to last_name.
ordered_json layersJson(const Analysis& a)
{
    auto layers = ordered_json::array();
    for (const auto& group : groupRows(a)) {
        const LayerRow& row = a.rows[group.row];
        if (row.type == "Repeat")
            continue;
        ordered_json l;
        l["name"] = group.firstName;
        l["count"] = group.count;
        if (group.count > 1)
            l["last_name"] = group.lastName;
        l["type"] = row.type;
        l["output_shape"] = row.output.shape.dims;
        l["output_dtype"] = dtypeName(row.output.dtype);
        l["params"] = row.params;
        l["activation_bytes_per_sample"] = row.activationBytesPerSample;
        l["activation_bytes_fixed"] = row.activationBytesFixed;
        l["forward_flops_per_sample"] = row.forwardFlopsPerSample;
        l["backward_flops_per_sample"] = row.backwardFlopsPerSample;
        if (row.error)
            l["error"] = row.error->message;
        // The number every view gives the layer ("17.3"); the loss has none.
        if (const std::string number = layerNumber(row.specPath); !number.empty())
            l["number"] = number;
        layers.push_back(l);
    }
    return layers;
}

/// One steady step at the plan's batch: every moment's live bytes by component.
ordered_json timelineJson(const Analysis& a, const MemoryModel& model, std::int64_t batch)
{
    auto timeline = ordered_json::array();
    for (const std::size_t i : model.timeline().oneStep()) {
        const StepMoment& m = model.timeline().moments()[i];
        ordered_json point;
        point["phase"] = stepPhaseName(m.phase);
        point["layer"] = m.phase == StepPhase::OptimizerStep ? ordered_json(nullptr)
                                                             : ordered_json(momentLayerName(a, m));
        if (m.repeat != kNoStepOp) // the identical iterations run here, not simulated one by one
            point["repeated_iterations"] = a.step.repeats[m.repeat].hidden;
        point["recomputing"] = m.recomputing;
        point["end_of_forward"] = m.afterOp;
        point["bytes"] = breakdownJson(model.momentAt(i, batch));
        timeline.push_back(point);
    }
    return timeline;
}

/// Every stage of a pipeline: its layers, what is in flight and what its GPU holds (docs/cli.md).
ordered_json pipelineJson(const Plan& plan, const PlanResult& result)
{
    auto stages = ordered_json::array();
    for (const PipelineStageResult& stage : result.stages) {
        const PlanResult& r = stage.result;
        const PipelineStageRole role = stage.settings.setup.pipelineStage.value_or(PipelineStageRole {});
        ordered_json s;
        s["stage"] = stage.slice.index;
        s["layers"] = stageLayersText(plan.network, stage.slice);
        s["pipeline_layers"] = stage.slice.layerCount();
        s["params"] = r.analysis.totalParams;
        s["held_micro_batches"] = stage.held.value();
        s["in_flight_micro_batches"] = stage.held.inFlight();
        s["received_bytes_per_sample"] = role.receivedBytesPerSample;
        s["sent_bytes_per_sample"] = role.sentBytesPerSample;
        if (r.estimate) {
            s["peak_bytes"] = r.estimate->peakBytes();
            s["held_at_peak_bytes"]
                = r.estimate->hasHeadroom() ? ordered_json(r.estimate->heldBytes) : ordered_json(nullptr);
            s["peak"] = { { "phase", stepPhaseName(r.estimate->peak.phase) },
                { "layer",
                    r.estimate->peak.phase == StepPhase::OptimizerStep
                        ? ordered_json(nullptr)
                        : ordered_json(r.estimate->peakLayer) } };
            s["bytes"] = breakdownJson(r.estimate->bytes);
            s["fits"] = r.estimate->fits;
            s["max_batch"] = r.estimate->maxBatch;
        }
        if (r.reservedFigures && r.estimate)
            s["reserved_peak_bytes"] = r.reservedFigures->peakReservedBytes;
        if (const std::string why = stageExplanation(stage, static_cast<std::int64_t>(result.stages.size()));
            !why.empty())
            s["explanation"] = why;
        if (r.error)
            s["error"] = r.error->message;
        stages.push_back(s);
    }
    const Parallelism& par = plan.setup.parallel;
    return { { "stages", stages }, { "heaviest_stage", result.heaviestStage },
        { "schedule", pipelineScheduleName(par.schedule) }, { "micro_batches", plan.setup.accumulationSteps },
        { "bubble_fraction", pipelineBubbleFraction(par, plan.setup.accumulationSteps) } };
}

} // namespace

nlohmann::ordered_json planToJson(const Plan& plan, const PlanResult& result)
{
    const Analysis& a = result.wholeModel();
    ordered_json j;
    j["model"] = plan.network.name;
    j["params"]
        = { { "total", a.totalParams }, { "trainable", a.trainableParams }, { "buffers", a.bufferElements } };
    j["batch"] = plan.setup.batch;
    j["accumulation_steps"] = plan.setup.accumulationSteps;
    if (result.estimate)
        j["effective_batch"] = result.estimate->effectiveBatch;
    addSettings(j, plan);
    if (result.estimate)
        addEstimate(j, plan, result);
    j["layers"] = layersJson(a);
    if (result.reservedFigures && result.estimate)
        j["reserved"] = reservedJson(*result.reservedFigures);
    else if (result.reservedError)
        j["reserved"] = { { "error", result.reservedError->message } };
    if (!result.stages.empty())
        j["pipeline"] = pipelineJson(plan, result);
    if (result.memory && result.estimate)
        j["timeline"] = timelineJson(result.analysis, *result.memory, plan.setup.batch);
    auto warnings = ordered_json::array();
    for (const auto& w : a.warnings)
        warnings.push_back({ { "layer", w.layer }, { "message", w.message } });
    j["warnings"] = warnings;
    if (result.error)
        j["error"] = result.error->message;
    return j;
}

} // namespace headroom

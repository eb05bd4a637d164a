#include "headroom/Plan.h"

#include "headroom/HfConfig.h"

namespace headroom {

AnalysisOptions Plan::analysisOptions() const
{
    AnalysisOptions o;
    o.precision = precision;
    o.checkpointing = checkpointing;
    o.attention = attention;
    o.lora = lora;
    o.moeImbalance = moeImbalance;
    return o;
}

Analysis analyzePlan(const Plan& plan, const AnalysisOptions& options)
{
    if (!plan.sequenceLength)
        return analyze(plan.network, options);
    auto resized = withSequenceLength(plan.network, *plan.sequenceLength);
    if (resized)
        return analyze(resized.value(), options);
    Analysis failed;
    failed.precision = options.precision;
    failed.options = options;
    failed.error = resized.error();
    return failed;
}

PlanResult evaluate(const Plan& plan)
{
    PlanResult result;
    result.analysis = analyzePlan(plan, plan.analysisOptions());
    if (result.analysis.error && result.analysis.rows.empty()) { // the sequence length could not be applied
        result.error = result.analysis.error;
        return result;
    }
    TrainingSetup setup = plan.setup;
    setup.gpuMemoryBytes = plan.gpu.memoryBytes;
    auto e = estimate(result.analysis, setup);
    if (e) {
        result.estimate = e.value();
        auto model = MemoryModel::build(result.analysis, setup);
        if (model)
            result.memory = std::move(model).value();
    } else {
        result.error = e.error();
    }
    return result;
}

nlohmann::ordered_json planToJson(const Plan& plan, const PlanResult& result)
{
    using nlohmann::ordered_json;
    const Analysis& a = result.analysis;
    ordered_json j;
    j["model"] = plan.network.name;
    j["params"] = {{"total", a.totalParams}, {"trainable", a.trainableParams}, {"buffers", a.bufferElements}};
    j["batch"] = plan.setup.batch;
    j["accumulation_steps"] = plan.setup.accumulationSteps;
    if (result.estimate)
        j["effective_batch"] = result.estimate->effectiveBatch;
    j["optimizer"] = optimizerName(plan.setup.optimizer);
    j["optimizer_implementation"] = optimizerImplementationName(plan.setup.optimizerImplementation);
    j["eight_bit_optimizer"] = plan.setup.eightBitOptimizer;
    j["precision"] = precisionName(plan.precision);
    const Parallelism& par = plan.setup.parallel;
    j["parallel"] = {{"gpus", par.gpus},
                     {"sharding", shardingName(par.sharding)},
                     {"tensor_parallel", par.tensorParallel},
                     {"data_parallel", par.dataParallel()},
                     {"offload_optimizer", par.offloadOptimizer}};
    j["checkpointing"] = checkpointingName(plan.checkpointing);
    j["attention"] = attentionName(plan.attention);
    j["lora"] = {{"rank", plan.lora.rank},
                 {"targets", plan.lora.targets},
                 {"dropout", plan.lora.dropout},
                 {"quantize_base", plan.lora.quantizeBase}};
    j["sequence_length"] = plan.sequenceLength ? ordered_json(*plan.sequenceLength) : ordered_json(nullptr);
    j["moe_imbalance"] = plan.moeImbalance;
    j["gpu"] = {{"name", plan.gpu.name}, {"memory_bytes", plan.gpu.memoryBytes}};
    if (result.estimate) {
        const auto& e = *result.estimate;
        ordered_json bytes;
        for (const auto c : kAllComponents)
            bytes[std::string(componentName(c))] = componentBytes(e.bytes, c);
        bytes["total"] = e.total();
        j["bytes"] = bytes;
        // Two named moments of the step: what backward starts from, and what the optimizer step holds.
        if (result.memory) {
            const auto moment = [&](std::size_t i) {
                const MemoryBreakdown m = result.memory->momentAt(i, plan.setup.batch);
                ordered_json b;
                for (const auto c : kAllComponents)
                    b[std::string(componentName(c))] = componentBytes(m, c);
                b["total"] = m.total();
                return b;
            };
            j["at_end_of_forward"] = moment(result.memory->endOfForwardMoment());
            j["at_optimizer_step"] = moment(result.memory->optimizerStepMoment());
        }
        j["optimizer_step_bytes"] = e.optimizerStepBytes;
        j["peak_bytes"] = e.peakBytes();
        j["peak"] = {{"bytes", e.peakBytes()},
                     {"phase", stepPhaseName(e.peak.phase)},
                     {"layer", e.peak.phase == StepPhase::OptimizerStep ? ordered_json(nullptr) : ordered_json(e.peakLayer)},
                     {"recomputing", e.peak.recomputing},
                     {"micro_batch", e.peak.laterMicroBatch ? "later" : "first"},
                     {"step", e.firstStepPeakBytes < e.peakBytes() ? "steady" : "first and steady"},
                     {"first_step_bytes", e.firstStepPeakBytes},
                     {"steady_step_bytes", e.peakBytes()}};
        j["per_sample_bytes"] = {{"activations", a.activationBytesPerSample},
                                 {"input", a.inputBytesPerSample},
                                 {"transient", a.transientBytesPerSample}};
        j["fits"] = e.fits;
        j["max_batch"] = e.maxBatch;
        j["max_effective_batch"] = e.maxEffectiveBatch;
        j["headroom_bytes"] = e.headroomBytes();
    }
    auto layers = ordered_json::array();
    // Identical iterations of a Repeat block are one entry: `count` layers named name to last_name.
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
        layers.push_back(l);
    }
    j["layers"] = layers;
    if (result.memory && result.estimate) {
        // One steady step at the chosen batch: every moment's live bytes by component.
        auto timeline = ordered_json::array();
        for (const std::size_t i : result.memory->timeline().oneStep()) {
            const StepMoment& m = result.memory->timeline().moments()[i];
            const MemoryBreakdown bytes = result.memory->momentAt(i, plan.setup.batch);
            ordered_json point;
            point["phase"] = stepPhaseName(m.phase);
            point["layer"] = m.phase == StepPhase::OptimizerStep ? ordered_json(nullptr) : ordered_json(momentLayerName(a, m));
            if (m.repeat != kNoStepOp) // the identical iterations run here, not simulated one by one
                point["repeated_iterations"] = a.step.repeats[m.repeat].hidden;
            point["recomputing"] = m.recomputing;
            point["end_of_forward"] = m.afterOp;
            ordered_json b;
            for (const auto c : kAllComponents)
                b[std::string(componentName(c))] = componentBytes(bytes, c);
            b["total"] = bytes.total();
            point["bytes"] = b;
            timeline.push_back(point);
        }
        j["timeline"] = timeline;
    }
    auto warnings = ordered_json::array();
    for (const auto& w : a.warnings)
        warnings.push_back({{"layer", w.layer}, {"message", w.message}});
    j["warnings"] = warnings;
    if (result.error)
        j["error"] = result.error->message;
    return j;
}

} // namespace headroom

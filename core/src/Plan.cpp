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

PlanResult evaluate(const Plan& plan)
{
    PlanResult result;
    if (plan.sequenceLength) {
        auto resized = withSequenceLength(plan.network, *plan.sequenceLength);
        if (!resized) {
            result.analysis.precision = plan.precision;
            result.analysis.options = plan.analysisOptions();
            result.analysis.error = resized.error();
            result.error = resized.error();
            return result;
        }
        result.analysis = analyze(resized.value(), plan.analysisOptions());
    } else {
        result.analysis = analyze(plan.network, plan.analysisOptions());
    }
    TrainingSetup setup = plan.setup;
    setup.gpuMemoryBytes = plan.gpu.memoryBytes;
    auto e = estimate(result.analysis, setup);
    if (e)
        result.estimate = e.value();
    else
        result.error = e.error();
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
        // DeepSpeed ZeRO's optimizer step can exceed the breakdown; fits and max_batch use the peak.
        j["optimizer_step_bytes"] = e.optimizerStepBytes;
        j["peak_bytes"] = e.peakBytes();
        j["per_sample_bytes"] = {{"activations", a.activationBytesPerSample},
                                 {"input", a.inputBytesPerSample},
                                 {"transient", a.transientBytesPerSample}};
        j["fits"] = e.fits;
        j["max_batch"] = e.maxBatch;
        j["max_effective_batch"] = e.maxEffectiveBatch;
        j["headroom_bytes"] = e.headroomBytes();
    }
    auto layers = ordered_json::array();
    for (const auto& row : a.rows) {
        if (row.type == "Repeat")
            continue;
        ordered_json l;
        l["name"] = row.name;
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
    auto warnings = ordered_json::array();
    for (const auto& w : a.warnings)
        warnings.push_back({{"layer", w.layer}, {"message", w.message}});
    j["warnings"] = warnings;
    if (result.error)
        j["error"] = result.error->message;
    return j;
}

} // namespace headroom

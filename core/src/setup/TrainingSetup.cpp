#include "headroom/setup/TrainingSetup.h"

#include <algorithm>
#include <string>

namespace headroom {

namespace {

bool allShardingsContain(Sharding s) noexcept
{
    const auto all = allShardings();
    return std::find(all.begin(), all.end(), s) != all.end();
}

bool allActivationOffloadsContain(ActivationOffload a) noexcept
{
    const auto all = allActivationOffloads();
    return std::find(all.begin(), all.end(), a) != all.end();
}

/// The calibration's terms: at most 1 PiB each, the per-sample one also small enough that it times
/// any batch fits 64 bits (8 GiB per sample), and a measured batch in 0..kMaxBatch.
std::optional<Error> validateCalibration(const RunCalibration& c)
{
    const std::string limit = std::to_string(kMaxCalibrationBytes) + " (1 PiB)";
    if (c.fixedBytes > kMaxCalibrationBytes)
        return Error { "the calibration's fixed bytes must be at most " + limit + ", not "
                + std::to_string(c.fixedBytes),
            "calibration.fixed_bytes" };
    constexpr std::uint64_t kMaxPerSample = std::min(kMaxCalibrationBytes, kMaxCalibrationPerSampleBytes);
    if (c.perSampleBytes > kMaxPerSample)
        return Error { "the calibration's bytes per sample must be at most " + std::to_string(kMaxPerSample)
                + " (so that any batch up to " + std::to_string(kMaxBatch) + " fits 64 bits), not "
                + std::to_string(c.perSampleBytes),
            "calibration.per_sample_bytes" };
    if (c.measuredBatch < 0 || c.measuredBatch > kMaxBatch)
        return Error { "the calibration's measured batch must be from 0 (not known) to "
                + std::to_string(kMaxBatch) + ", not " + std::to_string(c.measuredBatch),
            "calibration.measured_batch" };
    return std::nullopt;
}

std::optional<Error> degreeOutOfRange(
    std::int64_t value, std::int64_t most, std::string_view what, std::string_view location)
{
    if (value >= 1 && value <= most)
        return std::nullopt;
    return Error { "the " + std::string { what } + " must be from 1 to " + std::to_string(most) + ", not "
            + std::to_string(value),
        std::string { location } };
}

/// The pipeline's own settings: the schedule's virtual stages and the per-stage layer counts (whose sum
/// the network checks: it alone knows its layers).
std::optional<Error> validatePipeline(const Parallelism& par, std::int64_t microBatches)
{
    const std::string p = std::to_string(par.pipelineParallel);
    if (auto e = degreeOutOfRange(
            par.virtualStages, kMaxParallelDegree, "virtual-stage count", "parallel.virtual_stages"))
        return e;
    if (par.schedule == PipelineSchedule::Interleaved) {
        if (par.pipelineParallel < 2)
            return Error { "the interleaved schedule needs a pipeline (pipeline parallel of 2 or more), "
                           "not pipeline parallel 1",
                "parallel.schedule" };
        if (par.virtualStages < 2)
            return Error { "the interleaved schedule needs 2 or more virtual stages per pipeline stage, not "
                    + std::to_string(par.virtualStages),
                "parallel.virtual_stages" };
        // Megatron-LM runs the interleaved schedule's micro-batches in groups of p (schedules.py,
        // forward_backward_pipelining_with_interleaving).
        if (microBatches % par.pipelineParallel != 0)
            return Error { "the interleaved schedule runs micro-batches in groups of the pipeline-parallel "
                           "degree: accumulation steps (micro-batches per step) "
                    + std::to_string(microBatches) + " must be a multiple of pipeline parallel " + p,
                "accumulation_steps" };
    } else if (par.virtualStages != 1) {
        return Error { std::to_string(par.virtualStages)
                + " virtual stages need the interleaved schedule, not "
                + std::string { pipelineScheduleLabel(par.schedule) },
            "parallel.virtual_stages" };
    }
    if (!par.stageLayers.empty()) {
        if (static_cast<std::int64_t>(par.stageLayers.size()) != par.pipelineParallel)
            return Error { "the layers per stage list " + std::to_string(par.stageLayers.size())
                    + " stages, but pipeline parallel is " + p,
                "parallel.stage_layers" };
        for (std::size_t s = 0; s < par.stageLayers.size(); ++s)
            if (par.stageLayers[s] < 0 || par.stageLayers[s] > kMaxParallelDegree)
                return Error { "stage " + std::to_string(s) + "'s layer count must be from 0 to "
                        + std::to_string(kMaxParallelDegree) + ", not " + std::to_string(par.stageLayers[s]),
                    "parallel.stage_layers[" + std::to_string(s) + "]" };
    }
    // deepspeed/runtime/pipe/engine.py: "ZeRO-2 and ZeRO-3 are incompatible with pipeline parallelism".
    if (par.pipelineParallel > 1 && isDeepSpeedZero(par.sharding) && shardingStage(par.sharding) >= 2)
        return Error { std::string { shardingLabel(par.sharding) }
                + " does not run with pipeline parallelism (DeepSpeed's pipeline engine allows ZeRO stage 0 "
                  "or "
                  "1); choose ZeRO stage 1, FSDP or pipeline parallel 1",
            "parallel.sharding" };
    return std::nullopt;
}

/// The degrees that split one model replica (tensor x pipeline x context parallel) and the experts.
std::optional<Error> validateModelParallel(const Parallelism& par, std::int64_t microBatches)
{
    const std::string gpus = std::to_string(par.gpus);
    if (par.tensorParallel < 1 || par.tensorParallel > par.gpus)
        return Error { "the tensor-parallel degree must be from 1 to the GPU count (" + gpus + "), not "
                + std::to_string(par.tensorParallel),
            "parallel.tensor_parallel" };
    if (auto e = degreeOutOfRange(par.pipelineParallel, kMaxParallelDegree, "pipeline-parallel degree",
            "parallel.pipeline_parallel"))
        return e;
    if (auto e = degreeOutOfRange(
            par.contextParallel, kMaxParallelDegree, "context-parallel degree", "parallel.context_parallel"))
        return e;
    if (auto e = degreeOutOfRange(
            par.expertParallel, kMaxParallelDegree, "expert-parallel degree", "parallel.expert_parallel"))
        return e;
    if (auto e = degreeOutOfRange(par.expertTensorParallel, kMaxParallelDegree,
            "expert tensor-parallel degree", "parallel.expert_tensor_parallel"))
        return e;
    const std::int64_t model = par.modelParallel(); // at most 2^20 x 2^16 x 2^16: fits 64 bits
    if (par.gpus % model != 0) {
        if (par.pipelineParallel == 1 && par.contextParallel == 1)
            return Error { "the tensor-parallel degree " + std::to_string(par.tensorParallel)
                    + " must divide the GPU count " + gpus
                    + " (data-parallel degree = GPUs / tensor-parallel degree)",
                "parallel.tensor_parallel" };
        return Error { "tensor x pipeline x context parallel (" + std::to_string(par.tensorParallel) + " x "
                + std::to_string(par.pipelineParallel) + " x " + std::to_string(par.contextParallel) + " = "
                + std::to_string(model) + ") must divide the GPU count " + gpus,
            par.pipelineParallel > 1 ? "parallel.pipeline_parallel" : "parallel.context_parallel" };
    }
    if (par.sequenceParallel && par.tensorParallel < 2)
        return Error { "sequence parallelism splits the sequence over the tensor-parallel ranks: it needs "
                       "tensor parallel 2 or more, not 1",
            "parallel.sequence_parallel" };
    const std::int64_t perStage = par.gpus / par.pipelineParallel;
    const std::int64_t experts = par.expertParallel * par.expertTensorParallel;
    if (perStage % experts != 0)
        return Error { "expert parallel x expert tensor parallel (" + std::to_string(par.expertParallel)
                + " x " + std::to_string(par.expertTensorParallel)
                + ") must divide the GPUs of one pipeline stage (" + gpus + " / pipeline parallel "
                + std::to_string(par.pipelineParallel) + " = " + std::to_string(perStage) + ")",
            "parallel.expert_parallel" };
    if (!allActivationOffloadsContain(par.activationOffload))
        return Error { "the activation offload is not one Headroom knows", "parallel.activation_offload" };
    return validatePipeline(par, microBatches);
}

} // namespace

bool isDeepSpeedZero(Sharding s) noexcept
{
    return s == Sharding::Zero1 || s == Sharding::Zero2 || s == Sharding::Zero3;
}

bool stepsWithTorchOptim(const TrainingSetup& setup) noexcept
{
    return !setup.eightBitOptimizer && !isDeepSpeedZero(setup.parallel.sharding);
}

bool fusedStepAvailable(const TrainingSetup& setup) noexcept
{
    return hasFusedImplementation(setup.optimizer) || !stepsWithTorchOptim(setup);
}

TrainingSetup normalized(TrainingSetup setup) noexcept
{
    if (setup.optimizerImplementation == OptimizerImplementation::Fused && !fusedStepAvailable(setup))
        setup.optimizerImplementation = OptimizerImplementation::Foreach;
    return setup;
}

std::optional<Error> validateSetup(const TrainingSetup& setup)
{
    if (setup.accumulationSteps < 1 || setup.accumulationSteps > kMaxAccumulationSteps)
        return Error { "accumulation steps must be from 1 to " + std::to_string(kMaxAccumulationSteps)
                + ", not " + std::to_string(setup.accumulationSteps),
            "accumulation_steps" };
    const Parallelism& par = setup.parallel;
    if (par.gpus < 1 || par.gpus > kMaxGpus)
        return Error { "the GPU count must be from 1 to " + std::to_string(kMaxGpus) + ", not "
                + std::to_string(par.gpus),
            "parallel.gpus" };
    if (auto problem = validateModelParallel(par, setup.accumulationSteps))
        return problem;
    if (setup.gpusPerNode < 1 || setup.gpusPerNode > kMaxGpus)
        return Error { "the GPUs per node must be from 1 to " + std::to_string(kMaxGpus) + ", not "
                + std::to_string(setup.gpusPerNode),
            "gpus_per_node" };
    if (!(setup.interNodeGBps > 0.0 && setup.interNodeGBps <= kMaxInterNodeGBps)) // also NaN
        return Error { "the bandwidth between nodes must be above 0 and at most "
                + std::to_string(static_cast<long long>(kMaxInterNodeGBps)) + " GB/s per GPU",
            "inter_node_gbps" };
    if (!allShardingsContain(par.sharding))
        return Error { "the sharding strategy is not one Headroom knows", "parallel.sharding" };
    if (par.offloadOptimizer && par.sharding == Sharding::None)
        return Error {
            "offloading the optimizer to the CPU needs DeepSpeed ZeRO (stage 1, 2 or 3, also on one "
            "GPU) or FSDP; plain PyTorch and DDP keep the optimizer on the GPU",
            "parallel.offload_optimizer"
        };
    if (setup.eightBitOptimizer && !hasEightBitVariant(setup.optimizer)) {
        const std::string name { optimizerLabel(setup.optimizer) };
        return Error { optimizerStateTensors(setup.optimizer) == 0
                ? "8-bit optimizer state needs an optimizer with state; " + name + " keeps none"
                : "8-bit optimizer state is not available for " + name
                    + ": bitsandbytes ships 8-bit SGD with momentum, Adam, AdamW, RMSprop and Adagrad",
            "eight_bit_optimizer" };
    }
    if (auto problem = validateCalibration(setup.calibration))
        return problem;
    if (setup.optimizerImplementation == OptimizerImplementation::Fused && !fusedStepAvailable(setup))
        return Error { "torch.optim has no fused " + std::string { optimizerLabel(setup.optimizer) }
                + " on CUDA (fused=True exists for SGD, SGD with momentum or Nesterov, Adam, AdamW and "
                  "AMSGrad); choose foreach or for-loop",
            "optimizer_implementation" };
    return std::nullopt;
}

} // namespace headroom

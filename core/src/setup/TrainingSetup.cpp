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
    if (par.tensorParallel < 1 || par.tensorParallel > par.gpus)
        return Error { "the tensor-parallel degree must be from 1 to the GPU count ("
                + std::to_string(par.gpus) + "), not " + std::to_string(par.tensorParallel),
            "parallel.tensor_parallel" };
    if (par.gpus % par.tensorParallel != 0)
        return Error { "the tensor-parallel degree " + std::to_string(par.tensorParallel)
                + " must divide the GPU count " + std::to_string(par.gpus)
                + " (data-parallel degree = GPUs / tensor-parallel degree)",
            "parallel.tensor_parallel" };
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

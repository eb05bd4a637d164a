#include "planner/SetupChanges.h"

#include "headroom/support/Format.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace headroom {

namespace {

std::string loraText(const LoraOptions& lora)
{
    if (!lora.enabled())
        return "No LoRA: every weight trains";
    return std::string(lora.quantizeBase ? "QLoRA" : "LoRA") + " rank " + std::to_string(lora.rank)
        + (lora.quantizeBase ? " (4-bit base weights)" : "");
}

std::string loraValue(const LoraOptions& lora)
{
    if (!lora.enabled())
        return "off";
    return std::string(lora.quantizeBase ? "qlora-" : "lora-") + std::to_string(lora.rank);
}

} // namespace

bool sameLora(const LoraOptions& a, const LoraOptions& b)
{
    return a == b || (!a.enabled() && !b.enabled());
}

/// What `candidate` changes against `base`, in the order a reader needs them: changes to training first.
std::vector<SetupChange> changesBetween(
    const PlanSettings& base, const PlanSettings& candidate, bool batchNorm)
{
    std::vector<SetupChange> out;
    const TrainingSetup& b = base.setup;
    const TrainingSetup& c = candidate.setup;
    if (candidate.precision != base.precision)
        out.push_back({ SetupSetting::Precision, std::string(precisionName(candidate.precision)),
            std::string(precisionLabel(candidate.precision)), true });
    if (!sameLora(candidate.lora, base.lora))
        out.push_back({ SetupSetting::Lora, loraValue(candidate.lora), loraText(candidate.lora), true });
    if (c.eightBitOptimizer != b.eightBitOptimizer)
        out.push_back({ SetupSetting::EightBitOptimizer, c.eightBitOptimizer ? "on" : "off",
            c.eightBitOptimizer ? "8-bit optimizer state" : "32-bit optimizer state", true });
    if (c.accumulationSteps != b.accumulationSteps) {
        std::string text = c.accumulationSteps == 1
            ? std::string("No gradient accumulation")
            : std::to_string(c.accumulationSteps) + " accumulation steps";
        const bool changesStatistics = batchNorm && c.accumulationSteps > 1;
        if (changesStatistics)
            text += " (batch-norm statistics over micro-batches of " + std::to_string(c.batch) + ")";
        out.push_back(
            { SetupSetting::Accumulation, std::to_string(c.accumulationSteps), text, changesStatistics });
    }
    if (candidate.checkpointing != base.checkpointing)
        out.push_back({ SetupSetting::Checkpointing, std::string(checkpointingName(candidate.checkpointing)),
            candidate.checkpointing == Checkpointing::None
                ? std::string("No checkpointing")
                : "Checkpointing: " + std::string(checkpointingLabel(candidate.checkpointing)),
            false });
    if (c.optimizerImplementation != b.optimizerImplementation)
        out.push_back({ SetupSetting::OptimizerImplementation,
            std::string(optimizerImplementationName(c.optimizerImplementation)),
            "Optimizer step: " + std::string(optimizerImplementationLabel(c.optimizerImplementation)),
            false });
    if (c.parallel.sharding != b.parallel.sharding)
        out.push_back({ SetupSetting::Sharding, std::string(shardingName(c.parallel.sharding)),
            std::string(shardingLabel(c.parallel.sharding)), false });
    if (c.parallel.tensorParallel != b.parallel.tensorParallel)
        out.push_back({ SetupSetting::TensorParallel, std::to_string(c.parallel.tensorParallel),
            "Tensor parallel x " + std::to_string(c.parallel.tensorParallel), false });
    if (c.parallel.offloadOptimizer != b.parallel.offloadOptimizer)
        out.push_back({ SetupSetting::Offload, c.parallel.offloadOptimizer ? "on" : "off",
            c.parallel.offloadOptimizer ? "Optimizer state in CPU memory" : "Optimizer state on the GPU",
            false });
    return out;
}

std::string_view setupSettingName(SetupSetting s) noexcept
{
    switch (s) {
    case SetupSetting::Precision:
        return "precision";
    case SetupSetting::Lora:
        return "lora";
    case SetupSetting::EightBitOptimizer:
        return "eight_bit_optimizer";
    case SetupSetting::OptimizerImplementation:
        return "optimizer_implementation";
    case SetupSetting::Checkpointing:
        return "checkpointing";
    case SetupSetting::Accumulation:
        return "accumulation_steps";
    case SetupSetting::Sharding:
        return "sharding";
    case SetupSetting::TensorParallel:
        return "tensor_parallel";
    case SetupSetting::Offload:
        return "offload_optimizer";
    }
    return "";
}

bool PlanCandidate::changesTraining() const noexcept
{
    return std::any_of(
        changes.begin(), changes.end(), [](const SetupChange& c) { return c.changesTraining; });
}

double PlanCandidate::samplesPerSecondPerGpu() const noexcept
{
    if (!throughput)
        return 0;
    return throughput->samplesPerSecond / static_cast<double>(settings.setup.parallel.gpus);
}

double PlanCandidate::tokensPerSecondPerGpu() const noexcept
{
    if (!throughput)
        return 0;
    return throughput->tokensPerSecond / static_cast<double>(settings.setup.parallel.gpus);
}

std::string PlanShortfall::text() const
{
    switch (kind) {
    case Kind::Memory:
        return "needs " + formatBytes(bytesOver) + " more than the GPU holds, at a micro-batch of 1";
    case Kind::Batch:
        return "reaches an effective batch " + formatCount(static_cast<std::uint64_t>(batchShort))
            + " short of the target";
    case Kind::StepTime: {
        char seconds[48];
        std::snprintf(seconds, sizeof seconds, "%.3g s", secondsOver);
        return std::isfinite(secondsOver)
            ? "takes " + std::string(seconds) + " longer per optimizer step than allowed"
            : "has no step-time estimate on this GPU";
    }
    }
    return {};
}

} // namespace headroom

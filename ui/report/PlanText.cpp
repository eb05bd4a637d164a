#include "PlanText.h"

#include "headroom/Format.h"
#include "headroom/Optimizer.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>

namespace headroom::report::plantext {

namespace {

std::string plural(std::int64_t n, const char* singular, const char* pluralForm)
{
    return std::to_string(n) + ' ' + (n == 1 ? singular : pluralForm);
}

/// `value` to `digits` significant digits, without trailing zeros after the point.
std::string significant(double value, int digits)
{
    if (!(value > 0) || !std::isfinite(value))
        return "0";
    const int magnitude = static_cast<int>(std::floor(std::log10(value)));
    const int decimals = std::max(0, digits - 1 - magnitude);
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.*f", decimals, value);
    std::string s = buffer;
    if (s.find('.') != std::string::npos) {
        while (s.back() == '0')
            s.pop_back();
        if (s.back() == '.')
            s.pop_back();
    }
    return s;
}

std::string percentText(double part, double whole)
{
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.1f %%", whole > 0 ? 100.0 * part / whole : 0.0);
    return buffer;
}

} // namespace

std::vector<std::pair<std::string, std::string>> strategyRows(const Plan& plan)
{
    std::vector<std::pair<std::string, std::string>> rows;
    const TrainingSetup& s = plan.setup;
    const Parallelism& par = s.parallel;
    if (plan.sequenceLength)
        rows.emplace_back(
            "Sequence length", formatCount(static_cast<std::uint64_t>(*plan.sequenceLength)) + " tokens");
    if (s.accumulationSteps > 1)
        rows.emplace_back("Accumulation",
            plural(s.accumulationSteps, "micro-batch", "micro-batches") + " per optimizer step");
    if (par.gpus > 1 || par.sharding != Sharding::None || par.tensorParallel > 1) {
        std::string gpus = std::to_string(par.gpus);
        if (par.tensorParallel > 1)
            gpus += " (" + std::to_string(par.dataParallel()) + " data-parallel x "
                + std::to_string(par.tensorParallel) + " tensor-parallel)";
        gpus += ", ";
        gpus += shardingLabel(par.sharding);
        rows.emplace_back("GPUs", gpus);
    }
    if (par.offloadOptimizer)
        rows.emplace_back("Offload", "optimizer state in CPU memory");
    if (s.eightBitOptimizer)
        rows.emplace_back("Optimizer state", "8-bit (block-wise quantised)");
    if (plan.checkpointing != Checkpointing::None)
        rows.emplace_back("Checkpointing", std::string(checkpointingLabel(plan.checkpointing)));
    if (plan.attention != AttentionImplementation::Sdpa)
        rows.emplace_back("Attention", std::string(attentionLabel(plan.attention)));
    if (plan.lora.enabled()) {
        std::string lora = (plan.lora.quantizeBase ? "QLoRA rank " : "LoRA rank ")
            + std::to_string(plan.lora.rank) + " on ";
        if (plan.lora.targets.empty()) {
            lora += "every Linear layer but the output head";
        } else {
            for (std::size_t i = 0; i < plan.lora.targets.size(); ++i)
                lora += (i == 0 ? "" : ", ") + plan.lora.targets[i];
        }
        if (plan.lora.dropout > 0)
            lora += ", dropout " + significant(plan.lora.dropout, 3);
        if (plan.lora.quantizeBase)
            lora += "; base weights 4-bit NF4";
        rows.emplace_back("LoRA", lora);
    }
    if (s.assumedUtilization != TrainingSetup {}.assumedUtilization)
        rows.emplace_back("Utilisation", formatFraction(s.assumedUtilization) + " of peak assumed");
    return rows;
}

bool hasEffectiveBatch(const TrainingSetup& setup)
{
    return setup.accumulationSteps > 1 || setup.parallel.dataParallel() > 1;
}

std::string effectiveBatchText(std::int64_t microBatch, const TrainingSetup& setup, bool grouped)
{
    const auto number = [grouped](std::int64_t n) {
        return grouped ? formatCount(static_cast<std::uint64_t>(std::max<std::int64_t>(n, 0)))
                       : std::to_string(n);
    };
    const std::int64_t steps = std::max<std::int64_t>(1, setup.accumulationSteps);
    const std::int64_t replicas = std::max<std::int64_t>(1, setup.parallel.dataParallel());
    const std::string gpus = setup.parallel.tensorParallel > 1 ? plural(replicas, "replica", "replicas")
                                                               : plural(replicas, "GPU", "GPUs");
    return number(microBatch * steps * replicas) + " = " + number(microBatch) + " x "
        + plural(steps, "step", "steps") + " x " + gpus;
}

std::optional<std::string> checkpointingSavingsText(const Plan& plan, const Analysis& a, std::int64_t batch)
{
    if (plan.checkpointing == Checkpointing::None || batch < 1)
        return std::nullopt;
    const double b = static_cast<double>(batch);
    const double without = static_cast<double>(a.uncheckpointedActivationBytesPerSample) * b
        + static_cast<double>(a.uncheckpointedActivationBytesFixed);
    const double with
        = static_cast<double>(a.activationBytesPerSample) * b + static_cast<double>(a.activationBytesFixed);
    const double saved = std::max(0.0, without - with);
    std::string text = "Checkpointing (" + std::string(checkpointingName(plan.checkpointing)) + ") saves "
        + formatBytes(static_cast<std::uint64_t>(saved)) + " of activations at batch " + std::to_string(batch)
        + " (" + percentText(saved, without) + ") for +"
        + percentText(
            static_cast<double>(a.recomputeFlopsPerSample), static_cast<double>(a.forwardFlopsPerSample))
        + " forward compute";
    return text;
}

std::optional<std::string> loraText(const Plan& plan, const Analysis& a)
{
    if (!plan.lora.enabled())
        return std::nullopt;
    return "LoRA adds " + formatCount(a.loraParams) + " adapter parameters: " + formatCount(a.trainableParams)
        + " of " + formatCount(a.totalParams) + " parameters train ("
        + percentText(static_cast<double>(a.trainableParams), static_cast<double>(a.totalParams)) + ")";
}

std::string peakText(const Estimate& e)
{
    std::string text;
    switch (e.peak.phase) {
    case StepPhase::OptimizerStep:
        text = "The peak is the optimizer step: weights, gradients and optimizer state with the step's own "
               "temporaries, after the activations are freed";
        break;
    case StepPhase::Backward:
        text = e.peak.recomputing ? "The peak is in the backward pass, while checkpointing recomputes layer "
                                  : "The peak is in the backward pass, at layer ";
        text += e.peakLayer;
        break;
    case StepPhase::Forward: text = "The peak is in the forward pass, at layer " + e.peakLayer; break;
    }
    if (e.peak.laterMicroBatch && e.peak.phase != StepPhase::OptimizerStep)
        text += ", in a micro-batch after the first (the accumulated gradients are alive)";
    return text;
}

std::string formatSeconds(double seconds)
{
    if (!(seconds > 0) || !std::isfinite(seconds))
        return "0 s";
    if (seconds < 1e-3)
        return significant(seconds * 1e6, 3) + " us";
    if (seconds < 1)
        return significant(seconds * 1e3, 3) + " ms";
    if (seconds < 120)
        return significant(seconds, 3) + " s";
    if (seconds < 7200)
        return significant(seconds / 60, 3) + " min";
    return significant(seconds / 3600, 3) + " h";
}

std::string formatRate(double perSecond)
{
    if (!(perSecond > 0) || !std::isfinite(perSecond))
        return "0";
    if (perSecond >= 1000)
        return formatCount(static_cast<std::uint64_t>(std::llround(perSecond)));
    return significant(perSecond, 3);
}

std::string formatFlops(double flops)
{
    static constexpr std::array<std::pair<double, const char*>, 6> prefixes { { { 1e18, "EFLOP" },
        { 1e15, "PFLOP" }, { 1e12, "TFLOP" }, { 1e9, "GFLOP" }, { 1e6, "MFLOP" }, { 1e3, "kFLOP" } } };
    for (const auto& [scale, unit] : prefixes) {
        if (flops >= scale)
            return significant(flops / scale, 3) + ' ' + unit;
    }
    return significant(flops, 3) + " FLOP";
}

std::string formatFraction(double fraction)
{
    return significant(fraction * 100.0, 3) + " %";
}

} // namespace headroom::report::plantext

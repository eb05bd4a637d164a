#include "PlanText.h"

#include "CoreText.h" // text/
#include "headroom/setup/Optimizer.h"
#include "headroom/support/Format.h"

#include <QCoreApplication>
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <optional>

// The sentences are translated in the context "headroom::report::plantext": the GUI installs the
// user's language; the command line installs none, so `headroom estimate` prints them in English.

namespace headroom::report::plantext {

namespace {

std::string str(const QString& s)
{
    return s.toStdString();
}
std::string label(std::string_view english)
{
    return str(ui::CoreText::translate(english));
}
QString q(const std::string& s)
{
    return QString::fromStdString(s);
}

} // namespace

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

namespace {

/// "8 (2 data-parallel x 4 tensor-parallel), ZeRO stage 2": the GPUs row.
std::string gpusText(const Parallelism& par)
{
    QString gpus = QString::number(par.gpus);
    if (par.tensorParallel > 1)
        gpus = QCoreApplication::translate(
            "headroom::report::plantext", "%1 (%2 data-parallel x %3 tensor-parallel)")
                   .arg(par.gpus)
                   .arg(par.dataParallel())
                   .arg(par.tensorParallel);
    return str(QCoreApplication::translate("headroom::report::plantext", "%1, %2")
                   .arg(gpus, q(label(shardingLabel(par.sharding)))));
}

/// "QLoRA rank 16 on q_proj, v_proj, dropout 0.05; base weights 4-bit NF4": the LoRA row.
std::string loraSetupText(const LoraOptions& lora)
{
    QString targets;
    if (lora.targets.empty()) {
        targets = QCoreApplication::translate(
            "headroom::report::plantext", "every Linear layer but the output head");
    } else {
        for (std::size_t i = 0; i < lora.targets.size(); ++i)
            targets += (i == 0 ? QString() : QStringLiteral(", ")) + q(lora.targets[i]);
    }
    QString text = (lora.quantizeBase
            ? QCoreApplication::translate("headroom::report::plantext", "QLoRA rank %1 on %2")
            : QCoreApplication::translate("headroom::report::plantext", "LoRA rank %1 on %2"))
                       .arg(lora.rank)
                       .arg(targets);
    if (lora.dropout > 0)
        text += QCoreApplication::translate("headroom::report::plantext", ", dropout %1")
                    .arg(q(significant(lora.dropout, 3)));
    if (lora.quantizeBase)
        text += QCoreApplication::translate("headroom::report::plantext", "; base weights 4-bit NF4");
    return str(text);
}

} // namespace

std::vector<std::pair<std::string, std::string>> strategyRows(const Plan& plan)
{
    std::vector<std::pair<std::string, std::string>> rows;
    const TrainingSetup& s = plan.setup;
    const Parallelism& par = s.parallel;
    // The length trained at: the plan's, or the model's own where its source gave a longest (an imported
    // config starts at a default length the user should see).
    const auto& dims = plan.network.input.shape.dims;
    std::optional<std::int64_t> length = plan.sequenceLength;
    if (!length && plan.network.input.maxSequenceLength && !dims.empty())
        length = dims[0];
    if (length)
        rows.emplace_back(str(QCoreApplication::translate("headroom::report::plantext", "Sequence length")),
            str(QCoreApplication::translate("headroom::report::plantext", "%1 tokens")
                    .arg(q(formatCount(static_cast<std::uint64_t>(*length))))));
    if (s.accumulationSteps > 1)
        rows.emplace_back(str(QCoreApplication::translate("headroom::report::plantext", "Accumulation")),
            str(QCoreApplication::translate(
                "headroom::report::plantext", "%1 micro-batches per optimizer step")
                    .arg(s.accumulationSteps)));
    if (par.gpus > 1 || par.sharding != Sharding::None || par.tensorParallel > 1)
        rows.emplace_back(
            str(QCoreApplication::translate("headroom::report::plantext", "GPUs")), gpusText(par));
    if (par.offloadOptimizer)
        rows.emplace_back(str(QCoreApplication::translate("headroom::report::plantext", "Offload")),
            str(QCoreApplication::translate("headroom::report::plantext", "optimizer state in CPU memory")));
    if (s.eightBitOptimizer)
        rows.emplace_back(str(QCoreApplication::translate("headroom::report::plantext", "Optimizer state")),
            str(QCoreApplication::translate("headroom::report::plantext", "8-bit (block-wise quantised)")));
    if (plan.checkpointing != Checkpointing::None)
        rows.emplace_back(str(QCoreApplication::translate("headroom::report::plantext", "Checkpointing")),
            label(checkpointingLabel(plan.checkpointing)));
    if (plan.attention != AttentionImplementation::Sdpa)
        rows.emplace_back(str(QCoreApplication::translate("headroom::report::plantext", "Attention")),
            label(attentionLabel(plan.attention)));
    if (plan.lora.enabled())
        rows.emplace_back(
            str(QCoreApplication::translate("headroom::report::plantext", "LoRA")), loraSetupText(plan.lora));
    if (s.calibration.active())
        rows.emplace_back(str(QCoreApplication::translate("headroom::report::plantext", "Calibration")),
            calibrationText(s.calibration));
    if (s.assumedUtilization != TrainingSetup {}.assumedUtilization)
        rows.emplace_back(str(QCoreApplication::translate("headroom::report::plantext", "Utilisation")),
            str(QCoreApplication::translate("headroom::report::plantext", "%1 of peak assumed")
                    .arg(q(formatFraction(s.assumedUtilization)))));
    return rows;
}

std::string calibrationText(const RunCalibration& c)
{
    const QString terms
        = QCoreApplication::translate("headroom::report::plantext", "%1 fixed + %2 per sample")
              .arg(q(formatBytes(c.fixedBytes)), q(formatBytes(c.perSampleBytes)));
    const QString batch = q(std::to_string(c.measuredBatch));
    const QString source = q(c.source);
    QString where;
    if (c.measuredBatch > 0 && !c.source.empty())
        where = QCoreApplication::translate("headroom::report::plantext", "measured at batch %1 in %2")
                    .arg(batch, source);
    else if (c.measuredBatch > 0)
        where = QCoreApplication::translate("headroom::report::plantext", "measured at batch %1").arg(batch);
    else if (!c.source.empty())
        where = QCoreApplication::translate("headroom::report::plantext", "measured in %1").arg(source);
    return str(where.isEmpty()
            ? terms
            : QCoreApplication::translate("headroom::report::plantext", "%1 (%2)").arg(terms, where));
}

bool hasEffectiveBatch(const TrainingSetup& setup)
{
    return setup.accumulationSteps > 1 || setup.parallel.dataParallel() > 1;
}

std::string effectiveBatchText(std::int64_t microBatch, const TrainingSetup& setup, bool grouped)
{
    const auto number = [grouped](std::int64_t n) {
        return q(grouped ? formatCount(static_cast<std::uint64_t>(std::max<std::int64_t>(n, 0)))
                         : std::to_string(n));
    };
    const std::int64_t steps = std::max<std::int64_t>(1, setup.accumulationSteps);
    const std::int64_t replicas = std::max<std::int64_t>(1, setup.parallel.dataParallel());
    const QString stepsText = steps == 1
        ? QCoreApplication::translate("headroom::report::plantext", "1 step")
        : QCoreApplication::translate("headroom::report::plantext", "%1 steps").arg(steps);
    const QString gpus = setup.parallel.tensorParallel > 1
        ? (replicas == 1
                ? QCoreApplication::translate("headroom::report::plantext", "1 replica")
                : QCoreApplication::translate("headroom::report::plantext", "%1 replicas").arg(replicas))
        : (replicas == 1
                ? QCoreApplication::translate("headroom::report::plantext", "1 GPU")
                : QCoreApplication::translate("headroom::report::plantext", "%1 GPUs").arg(replicas));
    return str(QCoreApplication::translate("headroom::report::plantext", "%1 = %2 x %3 x %4")
                   .arg(number(microBatch * steps * replicas), number(microBatch), stepsText, gpus));
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
    const QString mode = q(std::string(checkpointingName(plan.checkpointing)));
    const QString compute = q(percentText(
        static_cast<double>(a.recomputeFlopsPerSample), static_cast<double>(a.forwardFlopsPerSample)));
    // Checkpointing a few cheap layers can cost memory: their recomputed outputs are alive next to
    // the kept inputs. Say so, rather than "saves 0 B (0.0 %)".
    if (with > without)
        return str(QCoreApplication::translate("headroom::report::plantext",
            "Checkpointing (%1) adds %2 of activations at batch %3 (+%4): checkpointing these "
            "layers costs memory, and +%5 forward compute")
                       .arg(mode, q(formatBytes(static_cast<std::uint64_t>(with - without))),
                           QString::number(batch), q(percentText(with - without, without)), compute));
    const double saved = without - with;
    return str(QCoreApplication::translate("headroom::report::plantext",
        "Checkpointing (%1) saves %2 of activations at batch %3 (%4) for +%5 forward compute")
                   .arg(mode, q(formatBytes(static_cast<std::uint64_t>(saved))), QString::number(batch),
                       q(percentText(saved, without)), compute));
}

std::optional<std::string> loraText(const Plan& plan, const Analysis& a)
{
    if (!plan.lora.enabled())
        return std::nullopt;
    return str(
        QCoreApplication::translate(
            "headroom::report::plantext", "LoRA adds %1 adapter parameters: %2 of %3 parameters train (%4)")
            .arg(q(formatCount(a.loraParams)), q(formatCount(a.trainableParams)),
                q(formatCount(a.totalParams)),
                q(percentText(static_cast<double>(a.trainableParams), static_cast<double>(a.totalParams)))));
}

std::string peakText(const Estimate& e)
{
    QString text;
    switch (e.peak.phase) {
    case StepPhase::OptimizerStep:
        text = QCoreApplication::translate("headroom::report::plantext",
            "The peak is the optimizer step: weights, gradients and optimizer state with the step's own "
            "temporaries, after the activations are freed");
        break;
    case StepPhase::Backward:
        text = (e.peak.recomputing ? QCoreApplication::translate("headroom::report::plantext",
                    "The peak is in the backward pass, while checkpointing recomputes layer %1")
                                   : QCoreApplication::translate("headroom::report::plantext",
                                       "The peak is in the backward pass, at layer %1"))
                   .arg(q(e.peakReference));
        break;
    case StepPhase::Forward:
        text = QCoreApplication::translate(
            "headroom::report::plantext", "The peak is in the forward pass, at layer %1")
                   .arg(q(e.peakReference));
        break;
    }
    if (e.peak.laterMicroBatch && e.peak.phase != StepPhase::OptimizerStep)
        text = QCoreApplication::translate("headroom::report::plantext",
            "%1, in a micro-batch after the first (the accumulated gradients are alive)")
                   .arg(text);
    return str(text);
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

std::string percentText(double part, double whole)
{
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.1f %%", whole > 0 ? 100.0 * part / whole : 0.0);
    return buffer;
}

std::string formatFraction(double fraction)
{
    return significant(fraction * 100.0, 3) + " %";
}

} // namespace headroom::report::plantext

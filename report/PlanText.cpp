#include "PlanText.h"

#include "CoreText.h" // text/
#include "headroom/estimate/Pipeline.h"
#include "headroom/setup/Optimizer.h"
#include "headroom/support/Format.h"

#include <QCoreApplication>
#include <QStringList>
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

/// "64 (2 data-parallel x 8 tensor-parallel x 4 pipeline-parallel), ZeRO stage 1, 1F1B, 8 micro-batches":
/// the GPUs row, each model-parallel degree above 1 named, then the sharding and the pipeline's schedule.
std::string gpusText(const Parallelism& par, std::int64_t microBatches)
{
    QStringList degrees;
    if (par.tensorParallel > 1)
        degrees << QCoreApplication::translate("headroom::report::plantext", "%1 tensor-parallel")
                       .arg(par.tensorParallel);
    if (par.pipelineParallel > 1)
        degrees << QCoreApplication::translate("headroom::report::plantext", "%1 pipeline-parallel")
                       .arg(par.pipelineParallel);
    if (par.contextParallel > 1)
        degrees << QCoreApplication::translate("headroom::report::plantext", "%1 context-parallel")
                       .arg(par.contextParallel);
    QString gpus = QString::number(par.gpus);
    if (!degrees.isEmpty()) {
        degrees.prepend(QCoreApplication::translate("headroom::report::plantext", "%1 data-parallel")
                            .arg(par.dataParallel()));
        gpus = QCoreApplication::translate("headroom::report::plantext", "%1 (%2)")
                   .arg(gpus, degrees.join(QStringLiteral(" x ")));
    }
    QString text = QCoreApplication::translate("headroom::report::plantext", "%1, %2")
                       .arg(gpus, q(label(shardingLabel(par.sharding))));
    if (par.pipelineParallel > 1) {
        QString schedule = q(label(pipelineScheduleLabel(par.schedule)));
        if (par.schedule == PipelineSchedule::Interleaved && par.virtualStages > 1)
            schedule = QCoreApplication::translate("headroom::report::plantext", "%1 (%2 virtual stages)")
                           .arg(schedule)
                           .arg(par.virtualStages);
        text = QCoreApplication::translate("headroom::report::plantext", "%1, %2").arg(text, schedule);
        text = QCoreApplication::translate("headroom::report::plantext", "%1, %2")
                   .arg(text,
                       microBatches == 1
                           ? QCoreApplication::translate("headroom::report::plantext", "1 micro-batch")
                           : QCoreApplication::translate("headroom::report::plantext", "%1 micro-batches")
                                 .arg(microBatches));
        if (!par.stageLayers.empty()) {
            QStringList counts;
            for (const std::int64_t n : par.stageLayers)
                counts << QString::number(n);
            text = QCoreApplication::translate("headroom::report::plantext", "%1, layers per stage %2")
                       .arg(text, counts.join(QLatin1Char(',')));
        }
    }
    return str(text);
}

/// "2 (sequence parallel), ring attention": the extra parallelism rows' values.
std::vector<std::pair<std::string, std::string>> parallelismRows(const Parallelism& par)
{
    std::vector<std::pair<std::string, std::string>> rows;
    if (par.sequenceParallel)
        rows.emplace_back(str(QCoreApplication::translate("headroom::report::plantext", "Sequence parallel")),
            str(QCoreApplication::translate(
                "headroom::report::plantext", "norms and dropouts split over the %1 tensor-parallel ranks")
                    .arg(par.tensorParallel)));
    if (par.contextParallel > 1)
        rows.emplace_back(str(QCoreApplication::translate("headroom::report::plantext", "Context parallel")),
            str(QCoreApplication::translate("headroom::report::plantext", "%1 ranks, %2")
                    .arg(par.contextParallel)
                    .arg(q(label(contextParallelismLabel(par.contextKind))))));
    if (par.expertParallel > 1 || par.expertTensorParallel > 1) {
        QString experts = QCoreApplication::translate("headroom::report::plantext", "%1 expert-parallel")
                              .arg(par.expertParallel);
        if (par.expertTensorParallel > 1)
            experts
                = QCoreApplication::translate("headroom::report::plantext", "%1 x %2 expert-tensor-parallel")
                      .arg(experts)
                      .arg(par.expertTensorParallel);
        rows.emplace_back(
            str(QCoreApplication::translate("headroom::report::plantext", "Experts")), str(experts));
    }
    if (par.activationOffload != ActivationOffload::None)
        rows.emplace_back(
            str(QCoreApplication::translate("headroom::report::plantext", "Activation offload")),
            str(QCoreApplication::translate("headroom::report::plantext", "%1 in CPU memory")
                    .arg(q(label(activationOffloadLabel(par.activationOffload))))));
    return rows;
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
    if (par.gpus > 1 || par.sharding != Sharding::None || par.tensorParallel > 1 || par.pipelineParallel > 1
        || par.contextParallel > 1)
        rows.emplace_back(str(QCoreApplication::translate("headroom::report::plantext", "GPUs")),
            gpusText(par, s.accumulationSteps));
    for (auto& row : parallelismRows(par))
        rows.push_back(std::move(row));
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

std::vector<std::string> pipelineStageHeaders()
{
    const char* context = "headroom::report::plantext";
    std::vector<std::string> headers;
    for (const char* title : { QT_TRANSLATE_NOOP("headroom::report::plantext", "Stage"),
             QT_TRANSLATE_NOOP("headroom::report::plantext", "Layers"),
             QT_TRANSLATE_NOOP("headroom::report::plantext", "Parameters"),
             QT_TRANSLATE_NOOP("headroom::report::plantext", "In flight"),
             QT_TRANSLATE_NOOP("headroom::report::plantext", "Peak (tensors)"),
             QT_TRANSLATE_NOOP("headroom::report::plantext", "Held at peak"),
             QT_TRANSLATE_NOOP("headroom::report::plantext", "Max batch"),
             QT_TRANSLATE_NOOP("headroom::report::plantext", "Fits") })
        headers.push_back(str(QCoreApplication::translate(context, title)));
    return headers;
}

std::string inFlightText(double inFlight)
{
    const double whole = std::round(inFlight);
    if (std::abs(inFlight - whole) < 1e-9)
        return std::to_string(static_cast<std::int64_t>(whole));
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.1f", inFlight);
    return buffer;
}

std::vector<PipelineStageRow> pipelineStageRows(const Plan& plan, const PlanResult& result)
{
    const std::string none = "\u2013"; // an en dash: no figure
    std::vector<PipelineStageRow> rows;
    for (std::size_t i = 0; i < result.stages.size(); ++i) {
        const PipelineStageResult& stage = result.stages[i];
        const PlanResult& r = stage.result;
        PipelineStageRow row;
        row.heaviest = i == result.heaviestStage;
        row.stage = row.heaviest
            ? str(QCoreApplication::translate("headroom::report::plantext", "%1 (heaviest)")
                      .arg(stage.slice.index + 1))
            : std::to_string(stage.slice.index + 1);
        row.layers = stageLayersText(plan.network, stage.slice);
        row.params = formatCount(r.analysis.totalParams);
        row.inFlight = inFlightText(stage.held.inFlight());
        row.explanation = stageExplanation(stage, static_cast<std::int64_t>(result.stages.size()));
        row.peak = row.held = row.maxBatch = row.fits = none;
        if (r.estimate) {
            const Estimate& e = *r.estimate;
            row.peak = formatBytes(e.peakBytes());
            if (e.hasHeadroom())
                row.held = formatBytes(e.heldBytes);
            row.maxBatch = formatCount(static_cast<std::uint64_t>(std::max<std::int64_t>(0, e.maxBatch)));
            row.fits = str(e.fits ? QCoreApplication::translate("headroom::report::plantext", "yes")
                                  : QCoreApplication::translate("headroom::report::plantext", "no"));
        }
        if (r.error)
            row.error = str(ui::CoreText::translate(r.error->message));
        rows.push_back(std::move(row));
    }
    return rows;
}

std::string heaviestStageText(const PlanResult& result)
{
    if (result.stages.empty())
        return {};
    return str(QCoreApplication::translate("headroom::report::plantext", "Stage %1 of %2 (heaviest)")
                   .arg(result.heaviestStage + 1)
                   .arg(result.stages.size()));
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

#include "PlannerText.h"

#include "CoreText.h"
#include "PlanText.h"
#include "ReportFormatting.h"
#include "headroom/support/Format.h"

#include <QStringList>
#include <cmath>

namespace headroom::report {

using detail::qs;

QString PlannerText::change(const SetupChange& change, const PlanSettings& settings)
{
    const TrainingSetup& s = settings.setup;
    switch (change.setting) {
    case SetupSetting::Precision:
        return ui::CoreText::translate(precisionLabel(settings.precision));
    case SetupSetting::Lora:
        if (!settings.lora.enabled())
            return tr("No LoRA: every weight trains");
        return settings.lora.quantizeBase ? tr("QLoRA rank %1 (4-bit base weights)").arg(settings.lora.rank)
                                          : tr("LoRA rank %1").arg(settings.lora.rank);
    case SetupSetting::EightBitOptimizer:
        return s.eightBitOptimizer ? tr("8-bit optimizer state") : tr("32-bit optimizer state");
    case SetupSetting::OptimizerImplementation:
        return tr("Optimizer step: %1")
            .arg(ui::CoreText::translate(optimizerImplementationLabel(s.optimizerImplementation)));
    case SetupSetting::Checkpointing:
        return settings.checkpointing == Checkpointing::None
            ? tr("No checkpointing")
            : tr("Checkpointing: %1")
                  .arg(ui::CoreText::translate(checkpointingLabel(settings.checkpointing)));
    case SetupSetting::Accumulation:
        if (s.accumulationSteps == 1)
            return tr("No gradient accumulation");
        return change.changesTraining
            ? tr("%1 accumulation steps (batch-norm statistics over micro-batches of %2)")
                  .arg(s.accumulationSteps)
                  .arg(s.batch)
            : tr("%1 accumulation steps").arg(s.accumulationSteps);
    case SetupSetting::Sharding:
        return ui::CoreText::translate(shardingLabel(s.parallel.sharding));
    case SetupSetting::TensorParallel:
        return tr("Tensor parallel × %1").arg(s.parallel.tensorParallel);
    case SetupSetting::Offload:
        return s.parallel.offloadOptimizer ? tr("Optimizer state in CPU memory")
                                           : tr("Optimizer state on the GPU");
    }
    return {};
}

QString PlannerText::changes(const PlanCandidate& candidate)
{
    if (candidate.changes.empty())
        return tr("As set up");
    QStringList parts;
    for (const auto& c : candidate.changes)
        parts << change(c, candidate.settings);
    return parts.join(tr(", "));
}

QString PlannerText::batch(const TrainingSetup& setup)
{
    QString text = QString::number(setup.batch);
    if (setup.accumulationSteps > 1)
        text += QStringLiteral(" × ") + QString::number(setup.accumulationSteps);
    if (setup.parallel.dataParallel() > 1)
        text += QStringLiteral(" × ") + tr("%1 GPUs").arg(setup.parallel.dataParallel());
    return text;
}

QString PlannerText::shortfall(const PlanShortfall& s)
{
    switch (s.kind) {
    case PlanShortfall::Kind::Memory:
        return tr("it needs %1 more than the GPU holds, at a micro-batch of 1")
            .arg(qs(formatBytes(s.bytesOver)));
    case PlanShortfall::Kind::Batch:
        return tr("it reaches an effective batch %1 short of the target")
            .arg(qs(formatCount(static_cast<std::uint64_t>(s.batchShort))));
    case PlanShortfall::Kind::StepTime:
        return std::isfinite(s.secondsOver) ? tr("its optimizer step takes %1 longer than allowed")
                                                  .arg(qs(plantext::formatSeconds(s.secondsOver)))
                                            : tr("this GPU has no figures to estimate its step time");
    }
    return {};
}

QString PlannerText::training(const PlanCandidate& candidate)
{
    return candidate.changesTraining() ? tr("changed") : tr("same");
}

} // namespace headroom::report

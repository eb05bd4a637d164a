// ReportComposer's longer sections: the planner's set-ups and the notes on method and assumptions.
#include "ComponentColors.h"
#include "CoreText.h" // text/
#include "LayerTablePainter.h"
#include "MemoryChartPainter.h"
#include "PlanText.h"
#include "PlannerText.h"
#include "ReportCanvas.h"
#include "ReportComposer.h"
#include "ReportFormatting.h"
#include "ReportStyle.h"
#include "StepChartPainter.h"
#include "TextTable.h"
#include "headroom/estimate/Pipeline.h"
#include "headroom/importers/HfConfig.h"
#include "headroom/setup/Optimizer.h"
#include "headroom/setup/Precision.h"
#include "headroom/support/Format.h"

#include <QPen>
#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

namespace headroom::report {

using namespace detail;
using style::FontRole;

QString ReportComposer::plannerGoalText() const
{
    const PlanGoal& goal = m_options.plannerGoal;
    QString goalText = goal.targetBatch ? tr("Goal: an effective batch of %1").arg(*goal.targetBatch)
                                        : tr("Goal: the largest micro-batch that fits");
    if (goal.maxStepSeconds)
        goalText += tr(", optimizer steps of at most %1").arg(seconds(*goal.maxStepSeconds));
    goalText += tr(". Fastest first (estimated samples per second per GPU); ★ marks the Pareto front, "
                   "where no other set-up is as fast with less memory; \"changed\": the set-up computes "
                   "something different from the one above.");
    goalText
        += tr(" Planned batch: the micro-batch (× accumulation steps × GPUs) each set-up runs to reach the "
              "goal, not the set-up's batch.");
    return goalText;
}

std::vector<std::vector<QString>> ReportComposer::plannerRows() const
{
    const PlannerResult& planned = *m_options.planner;
    // The report lists the fastest set-ups and the whole Pareto front, as `headroom plan` does.
    constexpr std::size_t kListed = 10;
    std::vector<std::vector<QString>> body;
    for (std::size_t i = 0; i < planned.candidates.size(); ++i) {
        const PlanCandidate& c = planned.candidates[i];
        if (i >= kListed && !c.paretoOptimal)
            continue;
        body.push_back({ QString::number(i + 1), PlannerText::changes(c), PlannerText::training(c),
            PlannerText::batch(c.settings.setup), qs(formatBytes(c.estimate.heldBytes)),
            QString::number(c.estimate.maxBatch),
            c.throughput ? seconds(c.throughput->stepSeconds) : QStringLiteral("–"),
            c.throughput ? qs(plantext::formatRate(c.samplesPerSecondPerGpu())) : QStringLiteral("–"),
            c.paretoOptimal ? QStringLiteral("★") : QString() });
    }
    return body;
}

void ReportComposer::plannerTable(ReportCanvas& canvas, const std::vector<std::vector<QString>>& body) const
{
    // Every figure column as wide as its widest text (header included), so none is set smaller; the
    // changes take the rest, wrapped to two lines' height by ReportCanvas::text's shrinking at worst.
    struct Column
    {
        QString header;
        int alignment;
    };
    const std::vector<Column> columns { { tr("#"), Qt::AlignRight }, { tr("What changes"), Qt::AlignLeft },
        { tr("Training"), Qt::AlignLeft }, { tr("Planned batch"), Qt::AlignLeft },
        { tr("Memory"), Qt::AlignRight }, { tr("Max batch"), Qt::AlignRight },
        { tr("Step time"), Qt::AlignRight }, { tr("Samples/s/GPU"), Qt::AlignRight },
        { QStringLiteral("★"), Qt::AlignCenter } };
    constexpr std::size_t kChangesColumn = 1;
    TextTable table { {}, body, {}, {} };
    for (const auto& c : columns) {
        table.header.push_back(c.header);
        table.alignments.push_back(c.alignment);
    }
    std::vector<double> widths = table.naturalWidths(canvas);
    TextTable::fillRest(widths, kChangesColumn, canvas.width(), 0.25 * canvas.width());
    table.paint(canvas, widths);
}

void ReportComposer::pipelineSection(ReportCanvas& canvas) const
{
    const auto rows = plantext::pipelineStageRows(m_plan, m_result);
    const Parallelism& par = m_plan.setup.parallel;
    const std::int64_t m = m_plan.setup.accumulationSteps;
    const QString intro
        = tr("%1 stages, %2, %3 micro-batches (the accumulation steps), bubble %4 of the step. Each "
             "stage's GPU holds its layers and the micro-batches its schedule keeps in flight; the heaviest "
             "(in bold) is the plan's answer: the summary, the charts and the max batch are its.")
              .arg(par.pipelineParallel)
              .arg(ui::CoreText::translate(pipelineScheduleLabel(par.schedule)))
              .arg(m)
              .arg(qs(plantext::formatFraction(pipelineBubbleFraction(par, m))));
    constexpr std::size_t kLayersColumn = 1;
    TextTable table;
    for (const auto& text : plantext::pipelineStageHeaders()) {
        table.alignments.push_back(table.header.size() <= kLayersColumn ? Qt::AlignLeft : Qt::AlignRight);
        table.header.push_back(qs(text));
    }
    for (const auto& r : rows) {
        table.body.push_back({ qs(r.stage), qs(r.layers), qs(r.params), qs(r.inFlight), qs(r.peak),
            qs(r.held), qs(r.maxBatch), qs(r.fits) });
        table.boldRows.push_back(r.heaviest);
    }
    canvas.heading(tr("Pipeline stages"),
        canvas.paragraphHeight(intro, FontRole::Small, canvas.width()) + 3 * TextTable::rowHeight(canvas));
    canvas.paragraph(intro, FontRole::Small, style::kMuted);
    canvas.advance(canvas.pt(3));
    // Every figure column as wide as its widest text (the heaviest stage's in bold); the layers take the
    // rest.
    std::vector<double> widths = table.naturalWidths(canvas, FontRole::SmallBold);
    TextTable::fillRest(widths, kLayersColumn, canvas.width(), 0.2 * canvas.width());
    table.paint(canvas, widths);
    for (const auto& r : rows)
        if (!r.error.empty())
            canvas.paragraph(
                tr("Stage %1: %2").arg(qs(r.stage), qs(r.error)), FontRole::Small, style::kFails);
    canvas.advance(canvas.pt(6));
}

void ReportComposer::plannerSection(ReportCanvas& canvas) const
{
    const PlannerResult& planned = *m_options.planner;
    const double lineH = canvas.lineHeight(FontRole::Small);
    const QString goalText = plannerGoalText();
    canvas.heading(tr("Set-ups that fit"),
        canvas.paragraphHeight(goalText, FontRole::Small, canvas.width()) + 4 * lineH);
    canvas.paragraph(goalText, FontRole::Small, style::kMuted);
    canvas.advance(canvas.pt(3));
    if (planned.candidates.empty()) {
        QString nothing = tr("Nothing fits.");
        if (planned.closest && planned.shortfall)
            nothing = tr("Nothing fits. Closest: %1 (%2), but %3.")
                          .arg(PlannerText::changes(*planned.closest),
                              PlannerText::batch(planned.closest->settings.setup),
                              PlannerText::shortfall(*planned.shortfall));
        canvas.paragraph(nothing, FontRole::Body, style::kText);
        return;
    }
    plannerTable(canvas, plannerRows());
}

std::vector<ReportComposer::Note> ReportComposer::warningNotes() const
{
    std::vector<Note> notes;
    for (const auto& w : m_result.analysis.warnings) {
        QString message = qs(w.message);
        if (!message.isEmpty())
            message[0] = message[0].toUpper();
        if (!message.endsWith(QLatin1Char('.')))
            message += QLatin1Char('.');
        notes.emplace_back(w.layer.empty() ? tr("Warning.") : tr("Warning (%1).").arg(qs(w.layer)), message);
    }
    return notes;
}

QString ReportComposer::peakNote() const
{
    QString peak
        = tr("Headroom simulates one training step as PyTorch 2.x runs it: the forward pass layer by layer "
             "(each output allocated, a tensor nothing keeps freed after its last use), the backward pass in "
             "reverse (activation gradients alive until their layer's backward has run, parameter gradients "
             "created when first reached, as zero_grad(set_to_none=True) leaves them, saved tensors freed "
             "once no backward needs them), then the optimizer step with the temporaries of its "
             "implementation (here %1, as torch.optim names it). The total is the highest point of that "
             "step, and the breakdown is "
             "what is alive then. The first step has no optimizer state until its optimizer step creates "
             "it. Every moment's memory is a fixed part plus a part per sample.")
              .arg(qs(optimizerImplementationName(m_plan.setup.optimizerImplementation)));
    if (m_result.estimate)
        peak += QLatin1Char(' ')
            + tr("At batch %1 the step's tensors peak at %2, the first step's at %3.")
                  .arg(count(m_result.estimate->batch), bytes(m_result.estimate->peakBytes()),
                      bytes(m_result.estimate->firstStepPeakBytes));
    return peak;
}

QString ReportComposer::optimizerNote() const
{
    const int tensors = optimizerStateTensors(m_plan.setup.optimizer);
    QString optimizer = tensors == 0
        ? tr("%1 keeps no state.").arg(label(optimizerLabel(m_plan.setup.optimizer)))
        : tensors == 1 ? tr("%1 keeps one float32 state tensor the size of each trainable parameter.")
                             .arg(label(optimizerLabel(m_plan.setup.optimizer)))
                       : tr("%1 keeps %2 float32 state tensors the size of each trainable parameter.")
                             .arg(label(optimizerLabel(m_plan.setup.optimizer)))
                             .arg(tensors);
    if (isPureHalf(m_plan.precision))
        optimizer += tr(" Pure half-precision training adds a float32 master copy of the weights.");
    else if (isAutocast(m_plan.precision))
        optimizer += tr(" Under autocast, weights, gradients and optimizer state stay float32, and the "
                        "half copies of weights autocast caches for the step count as weights.");
    return optimizer;
}

QString ReportComposer::parallelismNote() const
{
    const Parallelism& par = m_plan.setup.parallel;
    QString text;
    switch (par.sharding) {
    case Sharding::None:
        text = tr("DDP: every GPU holds all weights, gradients and optimizer state, plus the "
                  "gradient buckets the all-reduce uses.");
        break;
    case Sharding::Zero1:
        text = tr("ZeRO stage 1: each GPU keeps 1/N of the optimizer state.");
        break;
    case Sharding::Zero2:
    case Sharding::FsdpShardGradOp:
        text = tr("%1: each GPU keeps 1/N of the optimizer state and of the gradients.")
                   .arg(label(shardingLabel(par.sharding)));
        break;
    case Sharding::Zero3:
    case Sharding::FsdpFullShard:
        text = tr("%1: each GPU keeps 1/N of the weights, the gradients and the optimizer "
                  "state, and gathers each layer's full weights into communication buffers "
                  "when it runs.")
                   .arg(label(shardingLabel(par.sharding)));
        break;
    }
    text += par.dataParallel() == 1 ? tr(" Here N is 1 data-parallel GPU.")
                                    : tr(" Here N is %1 data-parallel GPUs.").arg(count(par.dataParallel()));
    if (par.tensorParallel > 1)
        text += tr(" Tensor parallelism splits the attention and MLP layers' weights and "
                   "activations %1 ways.")
                    .arg(count(par.tensorParallel));
    if (par.offloadOptimizer)
        text += tr(" The optimizer state (with any float32 master weights) lives in CPU memory "
                   "and takes no GPU memory.");
    text += tr(" Every figure is for one GPU; the chart's line is one GPU's memory.");
    return text;
}

void ReportComposer::strategyNotes(std::vector<Note>& items) const
{
    const TrainingSetup& setup = m_plan.setup;
    const Parallelism& par = setup.parallel;
    if (setup.accumulationSteps > 1)
        items.emplace_back(tr("Gradient accumulation."),
            tr("Each optimizer step runs %1 micro-batches of %2 samples; memory follows the "
               "micro-batch, and the gradients are kept between micro-batches.")
                .arg(count(setup.accumulationSteps), count(setup.batch)));
    if (par.gpus > 1 || par.sharding != Sharding::None || par.offloadOptimizer || par.tensorParallel > 1)
        items.emplace_back(tr("Several GPUs."), parallelismNote());
    if (setup.eightBitOptimizer)
        items.emplace_back(tr("8-bit optimizer."),
            tr("Optimizer state is kept in 8 bits with block-wise scales (bitsandbytes); "
               "tensors below 4,096 elements stay 32-bit."));
    if (m_plan.checkpointing != Checkpointing::None)
        items.emplace_back(tr("Checkpointing."),
            m_plan.checkpointing == Checkpointing::PerBlock
                ? tr("Each checkpointed block keeps only its input; its activations are recomputed "
                     "during backward, so one block's activations are alive at a time. The "
                     "recomputation costs one more forward pass through those blocks.")
                : tr("Selective recomputation keeps everything but the attention score matrices, "
                     "which backward recomputes."));
    if (m_plan.lora.enabled())
        items.emplace_back(tr("LoRA."),
            tr("Targeted Linear layers get trainable rank-%1 adapters; every other parameter is "
               "frozen, so only the adapters have gradients and optimizer state.%2")
                .arg(count(m_plan.lora.rank),
                    m_plan.lora.quantizeBase
                        ? tr(" QLoRA stores the frozen base weights in 4-bit NF4 with "
                             "double-quantised constants; the adapters are half precision.")
                        : QString {}));
}

QString ReportComposer::overheadNote() const
{
    const QString outside
        = tr("Framework overhead is the memory outside PyTorch's caching allocator, here %1: "
             "by default the CUDA context of the GPU (driver state and the kernel images of "
             "CUDA, cuBLAS and cuDNN), whose real size depends on the driver and the CUDA "
             "version.")
              .arg(bytes(m_plan.setup.overheadBytes));
    const QString gpu = tr("The GPU's memory is as the vendor states it; the display, the driver and other "
                           "processes may hold part of it.");
    // One account of the allocator in the whole report: simulated (page 1's reserved figure), or not,
    // with the reason the first page gives too.
    const QString allocator = m_result.reservedError
        ? tr("The caching allocator's rounding, cached segments and fragmentation and the cuBLAS and cuDNN "
             "workspaces were not simulated for this plan (%1): the max batch is from the tensors alone.")
              .arg(qs(m_result.reservedError->message))
        : tr("The allocator's rounding, cached segments and fragmentation and the cuBLAS and cuDNN "
             "workspaces are in the reserved figure, from a replay of the step's allocations through the "
             "allocator's rules.");
    return outside + QLatin1Char(' ') + allocator + QLatin1Char(' ') + gpu;
}

std::vector<ReportComposer::Note> ReportComposer::methodNotes() const
{
    // What the analysis had to assume (an operator modelled generically, an eval-mode export) comes first.
    std::vector<Note> items = warningNotes();
    items.emplace_back(tr("Activations."),
        tr("The tensors autograd saves for the backward pass, with PyTorch 2.x semantics on CUDA: each "
           "saved storage is counted once, at the layer that first keeps it, the loss's included. The "
           "input batch with its labels and the transient (the activation gradients alive at the peak, or "
           "the optimizer step's temporaries) are components of their own."));
    items.emplace_back(tr("Peak memory."), peakNote());
    items.emplace_back(tr("Optimizer and precision."), optimizerNote());
    items.emplace_back(tr("Overhead and GPU memory."), overheadNote());
    strategyNotes(items);
    items.emplace_back(tr("Throughput."),
        tr("A roofline estimate: the step's FLOPs at %1 of the GPU's peak for the precision, or "
           "the bytes it must move at the GPU's memory bandwidth, whichever takes longer. Real "
           "runs vary with kernels, data loading and communication.")
            .arg(qs(plantext::formatFraction(m_plan.setup.assumedUtilization))));
    // What docs/memory-model.md lists as not modelled; the allocator itself is (overheadNote()).
    items.emplace_back(tr("Not modelled."),
        tr("Several CUDA streams, CUDA graphs, torch.compile's memory planning, NCCL's own buffers, and "
           "tensors the training loop keeps beyond the step (a logged loss, metrics, a batch prefetched "
           "by the data loader)."));
    return items;
}

void ReportComposer::methodSection(ReportCanvas& canvas) const
{
    const std::vector<Note> items = methodNotes();
    // The path leads its sentence so the line never breaks inside it (at its hyphen).
    const QString intro = tr("docs/memory-model.md in Headroom's documentation describes the memory model, "
                             "its formulas and their sources. In short:");
    const double gap = canvas.pt(4);
    const auto height = [&](const Note& item) {
        return canvas.paragraphHeight(
            item.first + QLatin1Char(' ') + item.second, FontRole::Body, canvas.width(), item.first.size());
    };
    // The heading stays with the introduction and the first item.
    canvas.heading(tr("Assumptions and method"),
        canvas.paragraphHeight(intro, FontRole::Body, canvas.width()) + gap + height(items.front()));
    canvas.paragraph(intro, FontRole::Body, style::kText);
    canvas.advance(gap);
    for (const auto& item : items) {
        // Short paragraphs read better whole: one that does not fit moves to the next page.
        canvas.ensureSpace(height(item));
        canvas.paragraph(
            item.first + QLatin1Char(' ') + item.second, FontRole::Body, style::kText, 0, item.first.size());
        canvas.advance(gap);
    }
}

} // namespace headroom::report

#include "ReportComposer.h"

#include "ComponentColors.h"
#include "CoreText.h" // text/
#include "LayerTablePainter.h"
#include "MemoryChartPainter.h"
#include "PlanText.h"
#include "PlannerText.h"
#include "ReportCanvas.h"
#include "ReportFormatting.h"
#include "ReportStyle.h"
#include "StepChartPainter.h"
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

ReportComposer::ReportComposer(
    const Plan& plan, const PlanResult& result, QDateTime generated, const ReportOptions& options)
    : m_plan { plan }
    , m_result { result }
    , m_generated { std::move(generated) }
    , m_options { options }
{
}

QString ReportComposer::modelName() const
{
    return m_plan.network.name.empty() ? tr("Untitled model") : qs(m_plan.network.name);
}

QString ReportComposer::title() const
{
    return tr("Memory plan for %1").arg(modelName());
}

QString ReportComposer::footerText() const
{
    return QStringLiteral("Headroom %1 \u00b7 %2 \u00b7 %3")
        .arg(QStringLiteral(HEADROOM_VERSION), title(), m_generated.toString(QStringLiteral("yyyy-MM-dd")));
}

void ReportComposer::compose(ReportCanvas& canvas) const
{
    titleBlock(canvas);
    setupSection(canvas);
    if (m_result.estimate && m_result.memory) {
        summarySection(canvas);
        if (!m_result.stages.empty())
            pipelineSection(canvas);
        chartSection(canvas);
        stepSection(canvas);
        throughputSection(canvas);
        if (m_options.planner)
            plannerSection(canvas);
        if (m_options.cluster)
            clusterSection(canvas);
        if (m_options.measured)
            measuredSection(canvas);
    } else {
        noEstimateSection(canvas);
    }
    if (!m_plan.network.layers.empty()) // "Layers (0)" over an empty table says nothing more
        layerSection(canvas);
    methodSection(canvas);
}

void ReportComposer::titleBlock(ReportCanvas& canvas) const
{
    canvas.paragraph(title(), FontRole::Title, style::kText);
    canvas.advance(canvas.pt(1));
    canvas.paragraph(
        tr("Generated %1 by Headroom %2, the GPU memory planner for deep-learning training")
            .arg(m_generated.toString(QStringLiteral("yyyy-MM-dd HH:mm")), QStringLiteral(HEADROOM_VERSION)),
        FontRole::Small, style::kMuted);
    if (!m_plan.network.description.empty()) {
        canvas.advance(canvas.pt(4));
        // A preset's description in the report's language; the user's own as written.
        canvas.paragraph(ui::CoreText::translate(m_plan.network.description), FontRole::Body, style::kText);
    }
}

void ReportComposer::keyValue(ReportCanvas& canvas, const QString& key, const QString& value) const
{
    const double keyWidth = canvas.pt(130);
    const double lineH = canvas.lineHeight(FontRole::Body);
    canvas.ensureSpace(lineH);
    canvas.text(QRectF { 0, canvas.y(), keyWidth - canvas.pt(8), lineH }, Qt::AlignLeft | Qt::AlignTop, key,
        FontRole::Body, style::kMuted);
    canvas.paragraph(value, FontRole::Body, style::kText, keyWidth);
}

void ReportComposer::setupSection(ReportCanvas& canvas) const
{
    const Analysis& a = m_result.wholeModel(); // with a pipeline, every stage's layers
    const double lineH = canvas.lineHeight(FontRole::Body);
    const auto strategies = plantext::strategyRows(m_plan);
    canvas.heading(tr("Set-up"), 10 * lineH);
    keyValue(canvas, tr("Model"), modelName());
    keyValue(canvas, tr("Layers"), qs(formatCount(LayerTablePainter::layerCount(a))));
    if (a.valid())
        keyValue(canvas, tr("Parameters"),
            tr("%1 (%2 trainable)").arg(qs(formatCount(a.totalParams)), qs(formatCount(a.trainableParams))));
    // The input as analysed: with the plan's sequence length when it overrides the model's.
    auto input = m_plan.network.input;
    if (m_plan.sequenceLength) {
        if (auto resized = withSequenceLength(m_plan.network, *m_plan.sequenceLength))
            input = resized->input;
    }
    keyValue(
        canvas, tr("Input"), tr("%1, %2").arg(qs(input.shape.toBatchedString()), qs(dtypeName(input.dtype))));
    QString gpu = qs(m_plan.gpu.name);
    if (!m_plan.gpu.vendor.empty() && !gpu.startsWith(qs(m_plan.gpu.vendor)))
        gpu = qs(m_plan.gpu.vendor) + QLatin1Char(' ') + gpu;
    keyValue(canvas, tr("GPU"), tr("%1, %2 memory").arg(gpu, bytes(m_plan.gpu.memoryBytes)));
    keyValue(canvas, tr("Optimizer"), label(optimizerLabel(m_plan.setup.optimizer)));
    keyValue(canvas, tr("Implementation"),
        label(optimizerImplementationLabel(m_plan.setup.optimizerImplementation)));
    keyValue(canvas, tr("Precision"), label(precisionLabel(m_plan.precision)));
    if (plantext::hasEffectiveBatch(m_plan.setup))
        keyValue(canvas, tr("Batch size"),
            tr("%1 per GPU (micro-batch); effective batch %2")
                .arg(count(m_plan.setup.batch),
                    qs(plantext::effectiveBatchText(m_plan.setup.batch, m_plan.setup, true))));
    else
        keyValue(canvas, tr("Batch size"), count(m_plan.setup.batch));
    keyValue(canvas, tr("Framework overhead"), bytes(m_plan.setup.overheadBytes));
    // Training strategies: only those that differ from one GPU training every weight.
    for (const auto& [key, value] : strategies)
        keyValue(canvas, qs(key), qs(value));
}

QString ReportComposer::reservedText(const ReservedFigures& r) const
{
    // Allocated (the tensors) and reserved (the allocator's segments) and why they differ.
    QString text
        = tr(" PyTorch's caching allocator reserves %1 at its peak for %2 allocated (tensors %3, cuBLAS and "
             "cuDNN workspaces %4): it rounds every block, holds them in 2 MiB and 20 MiB segments and keeps "
             "freed blocks cached, and cuBLAS and cuDNN take workspaces from it (%5 for cuBLAS). With the %6 "
             "outside it (the CUDA context), the GPU holds %7.")
              .arg(bytes(r.peakReservedBytes), bytes(r.peakAllocatedBytes),
                  bytes(r.peakAllocatedTensorBytes()), bytes(r.peakAllocatedWorkspaceBytes),
                  bytes(r.cublasWorkspaceBytes), bytes(r.overheadBytes), bytes(r.peakWithOverheadBytes()));
    if (r.expandableSegments)
        text += tr(" With expandable_segments:True, one segment per pool grows by mapping pages instead.");
    if (r.maxBatch.batch > 0 && r.maxBatch.batch < kMaxBatch)
        text += tr(" The max batch is the largest whose reserved peak fits in %1, keeping %2 spare for what "
                   "the model cannot see exactly.")
                    .arg(bytes(r.capacityBytes), bytes(r.maxBatch.marginBytes));
    return text;
}

QString ReportComposer::verdictDetail() const
{
    const Estimate& e = *m_result.estimate;
    const ReservedFigures* reserved = m_result.reservedFigures ? &*m_result.reservedFigures : nullptr;
    // One notion of fitting and headroom (applyReserved): what the GPU holds at the peak.
    QString detail;
    if (e.withinMargin() && reserved != nullptr)
        detail
            = tr("Batch %1: the GPU would hold %2 of %3 at the peak, leaving %4, less than the margin of %5 "
                 "the max batch keeps for what the model cannot see exactly.")
                  .arg(count(e.batch), bytes(e.heldBytes), bytes(e.gpuMemoryBytes),
                      absoluteBytes(e.headroomBytes()), bytes(reserved->maxBatch.marginBytes));
    else if (e.fitBasis == FitBasis::Reserved)
        detail = tr("Batch %1: the GPU holds %2 of %3 at the peak (PyTorch's reserved memory and the "
                    "overhead): %4 %5. The tensors alone peak at %6.")
                     .arg(count(e.batch), bytes(e.heldBytes), bytes(e.gpuMemoryBytes),
                         e.headroomBytes() >= 0 ? tr("headroom") : tr("shortfall"),
                         absoluteBytes(e.headroomBytes()), bytes(e.peakBytes()));
    else
        detail = tr("Batch %1's tensors need %2 of %3: %4 %5.")
                     .arg(count(e.batch), bytes(e.peakBytes()), bytes(e.gpuMemoryBytes),
                         e.headroomBytes() >= 0 ? tr("headroom") : tr("shortfall"),
                         absoluteBytes(e.headroomBytes()));
    if (e.maxBatch == 0) {
        const auto one = m_result.memory->at(1);
        detail += one ? tr(" Not even batch 1 fits: it needs %1.").arg(bytes(one->total()))
                      : tr(" Not even batch 1 fits.");
    } else if (e.maxBatch >= kMaxBatch) {
        detail += tr(" Max batch: %1 (the largest batch Headroom considers).").arg(count(e.maxBatch));
    } else if (plantext::hasEffectiveBatch(m_plan.setup)) {
        detail
            += tr(" Max batch: %1 per GPU, an effective batch of %2.")
                   .arg(count(e.maxBatch), qs(plantext::effectiveBatchText(e.maxBatch, m_plan.setup, true)));
    } else {
        detail += tr(" Max batch: %1.").arg(count(e.maxBatch));
    }
    if (reserved != nullptr)
        detail += reservedText(*reserved);
    else if (m_result.reservedError)
        detail += tr(" Reserved by PyTorch's caching allocator: not simulated (%1). The max batch is from "
                     "the tensors alone.")
                      .arg(qs(m_result.reservedError->message));
    if (!m_result.stages.empty())
        detail += tr(" Memory is per GPU: a GPU of the heaviest pipeline stage, of %1 GPUs in all.")
                      .arg(count(m_plan.setup.parallel.gpus));
    else if (m_plan.setup.parallel.gpus > 1)
        detail += tr(" Memory is per GPU, on each of %1 GPUs.").arg(count(m_plan.setup.parallel.gpus));
    return detail;
}

void ReportComposer::verdictBox(ReportCanvas& canvas, double keepWithHeight) const
{
    const Estimate& e = *m_result.estimate;
    const QString gpuName = qs(m_plan.gpu.name);
    QString verdict = e.fits ? tr("Fits on the %1").arg(gpuName) : tr("Does not fit on the %1").arg(gpuName);
    if (!m_result.stages.empty()) // the heaviest stage's GPU is the answer
        verdict = tr("%1: %2").arg(verdict, qs(plantext::heaviestStageText(m_result)));
    const QString detail = verdictDetail();
    const double pad = canvas.pt(8);
    const double bar = canvas.pt(3);
    const double innerWidth = canvas.width() - 2 * pad - bar;
    const double verdictH = canvas.paragraphHeight(verdict, FontRole::Heading, innerWidth);
    const double detailH = canvas.paragraphHeight(detail, FontRole::Body, innerWidth);
    const double boxH = pad + verdictH + canvas.pt(2) + detailH + pad;
    canvas.heading(tr("Summary"), boxH + canvas.pt(10) + keepWithHeight);
    const QColor ink = e.fits ? style::kFits : style::kFails;
    canvas.fillRect(QRectF { 0, canvas.y(), canvas.width(), boxH },
        e.fits ? style::kFitsBackground : style::kFailsBackground);
    canvas.fillRect(QRectF { 0, canvas.y(), bar, boxH }, ink);
    canvas.advance(pad);
    canvas.paragraph(verdict, FontRole::Heading, ink, bar + pad);
    canvas.advance(canvas.pt(2));
    canvas.paragraph(detail, FontRole::Body, style::kText, bar + pad);
    canvas.advance(pad + canvas.pt(10));
}

std::vector<Component> ReportComposer::summaryComponents() const
{
    // Communication buffers exist only with several GPUs: on one, the row would always read 0 B. The
    // measured excess exists only in a calibrated plan.
    std::vector<Component> components;
    for (const auto c : kAllComponents) {
        const bool empty = componentBytes(m_result.estimate->bytes, c) == 0;
        if (c == Component::Communication && empty && m_plan.setup.parallel.gpus == 1)
            continue;
        if (c == Component::Calibration && empty)
            continue;
        components.push_back(c);
    }
    return components;
}

void ReportComposer::breakdownTable(
    ReportCanvas& canvas, const std::vector<Component>& components, double rowH, double tableH) const
{
    const Estimate& e = *m_result.estimate;
    const MemoryBreakdown& perSample = m_result.memory->timeline().moments()[e.peak.moment].perSample;
    const double w = canvas.width();
    const double swatch = canvas.pt(8);
    struct Col
    {
        double left;
        double width;
        Qt::Alignment align;
    };
    const Col name { swatch + canvas.pt(6), w * 0.42, Qt::AlignLeft };
    const Col memory { w * 0.44, w * 0.18, Qt::AlignRight };
    const Col share { w * 0.62, w * 0.14, Qt::AlignRight };
    const Col growth { w * 0.76, w * 0.24, Qt::AlignRight };
    const auto cell
        = [&](const Col& col, const QString& text, FontRole role, const QColor& color = style::kText) {
              canvas.text(QRectF { col.left, canvas.y(), col.width, rowH }, col.align | Qt::AlignVCenter,
                  text, role, color);
          };
    canvas.ensureSpace(tableH);
    cell(name, tr("Component"), FontRole::SmallBold, style::kMuted);
    cell(memory, tr("At batch %1").arg(count(e.batch)), FontRole::SmallBold, style::kMuted);
    cell(share, tr("Share"), FontRole::SmallBold, style::kMuted);
    cell(growth, tr("Per sample"), FontRole::SmallBold, style::kMuted);
    canvas.advance(rowH);
    canvas.line(QPointF { 0, canvas.y() }, QPointF { w, canvas.y() }, QPen { style::kRule, canvas.pt(0.6) });
    for (const auto c : components) {
        const std::uint64_t n = componentBytes(e.bytes, c);
        const std::uint64_t each = componentBytes(perSample, c);
        canvas.fillRect(
            QRectF { 0, canvas.y() + (rowH - swatch) / 2, swatch, swatch }, ui::ComponentColors::color(c));
        cell(name, label(componentLabel(c)), FontRole::Body);
        cell(memory, bytes(n), FontRole::Body);
        cell(share, percent(n, e.total()), FontRole::Body);
        cell(growth, each > 0 ? bytes(each) : tr("fixed"), FontRole::Body,
            each > 0 ? style::kText : style::kMuted);
        canvas.advance(rowH);
    }
    canvas.line(QPointF { 0, canvas.y() }, QPointF { w, canvas.y() }, QPen { style::kMuted, canvas.pt(0.6) });
    cell(name, tr("Total"), FontRole::BodyBold);
    cell(memory, bytes(e.total()), FontRole::BodyBold);
    cell(share, percent(e.total(), e.total()), FontRole::BodyBold);
    cell(growth, bytes(perSample.total()), FontRole::BodyBold);
    canvas.advance(rowH);
}

void ReportComposer::strategyEffects(ReportCanvas& canvas) const
{
    const Estimate& e = *m_result.estimate;
    std::vector<QString> notes;
    notes.push_back(qs(plantext::peakText(e)) + QLatin1Char('.'));
    if (const auto saved = plantext::checkpointingSavingsText(m_plan, m_result.analysis, e.batch))
        notes.push_back(qs(*saved) + QLatin1Char('.'));
    if (const auto lora = plantext::loraText(m_plan, m_result.wholeModel()))
        notes.push_back(qs(*lora) + QLatin1Char('.'));
    if (!notes.empty())
        canvas.advance(canvas.pt(6));
    for (const auto& note : notes) {
        canvas.ensureSpace(canvas.paragraphHeight(note, FontRole::Body, canvas.width()));
        canvas.paragraph(note, FontRole::Body, style::kText);
        canvas.advance(canvas.pt(2));
    }
}

void ReportComposer::summarySection(ReportCanvas& canvas) const
{
    // The verdict, in a tinted box: what a reader came for; the heading keeps the table with it.
    const double rowH = canvas.metrics(FontRole::Body).lineSpacing() * 1.25;
    const std::vector<Component> components = summaryComponents();
    const double tableH = static_cast<double>(components.size() + 2) * rowH;
    verdictBox(canvas, tableH);
    // The breakdown: each component at this batch, its share, and how it grows with the batch.
    breakdownTable(canvas, components, rowH, tableH);
    // What the strategies change: checkpointing's saving and its price, LoRA's trainable share.
    strategyEffects(canvas);
}

void ReportComposer::throughputSection(ReportCanvas& canvas) const
{
    const double lineH = canvas.lineHeight(FontRole::Body);
    if (!m_result.throughput) {
        const QString why
            = tr("No throughput estimate: %1.")
                  .arg(qs(m_result.throughputError ? m_result.throughputError->message : std::string()));
        canvas.heading(tr("Throughput"), canvas.paragraphHeight(why, FontRole::Body, canvas.width()));
        canvas.paragraph(why, FontRole::Body, style::kText);
        return;
    }
    const ThroughputEstimate& t = *m_result.throughput;
    canvas.heading(tr("Throughput (estimated)"), 6 * lineH);
    const std::int64_t gpus = m_plan.setup.parallel.gpus;
    keyValue(canvas, tr("Step time"),
        tr("%1 per optimizer step (%2)")
            .arg(seconds(t.stepSeconds), t.memoryBound ? tr("memory-bound") : tr("compute-bound")));
    keyValue(canvas, tr("Samples per second"),
        qs(plantext::formatRate(t.samplesPerSecond))
            + (gpus > 1 ? tr(" across %1 GPUs").arg(count(gpus)) : QString {}));
    if (t.tokensPerSecond > 0)
        keyValue(canvas, tr("Tokens per second"),
            tr("%1 (%2 tokens per sample)")
                .arg(qs(plantext::formatRate(t.tokensPerSecond)), count(t.sequenceLength)));
    QString flops = tr("%1 forward + %2 backward")
                        .arg(qs(plantext::formatFlops(t.forwardFlopsPerSample)),
                            qs(plantext::formatFlops(t.backwardFlopsPerSample)));
    if (t.recomputeFlopsPerSample > 0)
        flops += tr(" + %1 recomputed").arg(qs(plantext::formatFlops(t.recomputeFlopsPerSample)));
    keyValue(canvas, tr("FLOPs per sample"), flops);
    keyValue(canvas, tr("Assumed utilisation"),
        tr("%1 of %2 TFLOP/s peak")
            .arg(qs(plantext::formatFraction(t.utilization)), qs(plantext::formatRate(t.peakTflops))));
    canvas.advance(canvas.pt(4));
    for (const auto& note : t.noteTemplates) {
        const QString text = QStringLiteral("\u2022 ") + ui::CoreText::format(note);
        canvas.ensureSpace(canvas.paragraphHeight(text, FontRole::Small, canvas.width()));
        canvas.paragraph(text, FontRole::Small, style::kMuted);
        canvas.advance(canvas.pt(1));
    }
}

void ReportComposer::noEstimateSection(ReportCanvas& canvas) const
{
    // The analysis's error is the root cause; estimate() only wraps it ("cannot estimate: ...").
    const Error error = m_result.analysis.error ? *m_result.analysis.error
        : m_result.error                        ? *m_result.error
                                                : Error { "the plan could not be worked out", "" };
    // An empty network has nothing to fix: it says so, as the GUI and the command line do.
    const bool empty = m_plan.network.layers.empty();
    const QString verdict = empty ? tr("The network is empty") : tr("No estimate");
    // Layers named by number and JSON path ("layer 7 (fc, layers[6])"), as in the layer table below.
    QString detail = tr("Headroom cannot estimate this plan: %1.").arg(qs(withLayerNumbers(error.message)));
    if (empty) {
        detail = tr(
            "It has no layers, so there is no training step to estimate. Add layers to see how much memory "
            "training it takes, then export the report again.");
    } else {
        if (!error.location.empty() && error.message.find(error.location) == std::string::npos)
            detail += tr(" (at %1)").arg(qs(withLayerNumbers(error.location)));
        detail += tr(" Fix the model and export the report again; the layer table below marks the "
                     "layers concerned.");
    }
    const double pad = canvas.pt(8);
    const double bar = canvas.pt(3);
    const double innerWidth = canvas.width() - 2 * pad - bar;
    const double boxH = pad + canvas.paragraphHeight(verdict, FontRole::Heading, innerWidth) + canvas.pt(2)
        + canvas.paragraphHeight(detail, FontRole::Body, innerWidth) + pad;
    canvas.heading(tr("Summary"), boxH);
    canvas.fillRect(QRectF { 0, canvas.y(), canvas.width(), boxH }, style::kFailsBackground);
    canvas.fillRect(QRectF { 0, canvas.y(), bar, boxH }, style::kFails);
    canvas.advance(pad);
    canvas.paragraph(verdict, FontRole::Heading, style::kFails, bar + pad);
    canvas.advance(canvas.pt(2));
    canvas.paragraph(detail, FontRole::Body, style::kText, bar + pad);
    canvas.advance(pad);
}

void ReportComposer::chartSection(ReportCanvas& canvas) const
{
    const bool microBatch = m_plan.setup.parallel.gpus > 1 || m_plan.setup.accumulationSteps > 1;
    const MemoryChartPainter chart { *m_result.memory, *m_result.estimate, m_plan.gpu, microBatch,
        m_result.reserved.get(), m_result.reservedFigures ? &*m_result.reservedFigures : nullptr };
    const StepMoment& peak = m_result.memory->timeline().moments()[m_result.estimate->peak.moment];
    QString caption
        = tr("The peak of one training step by component from batch %1 to %2, stacked. At batch %3 the peak "
             "holds %4 fixed plus %5 per sample.")
              .arg(count(chart.batches().empty() ? 1 : chart.batches().front()),
                  count(chart.batches().empty() ? 1 : chart.batches().back()),
                  count(m_result.estimate->batch), bytes(peak.fixed.total()), bytes(peak.perSample.total()));
    if (!m_result.stages.empty()) // the heaviest stage's GPU
        caption = tr("%1: %2").arg(qs(plantext::heaviestStageText(m_result)), caption);
    captionedChart(canvas, tr("Memory versus batch size"), caption, { 190, 320 },
        [&](const QRectF& rect) { chart.paint(canvas, rect); });
}

void ReportComposer::stepSection(ReportCanvas& canvas) const
{
    const StepReservedSource reserved { m_result.reserved.get(),
        m_result.reservedFigures ? m_result.reservedFigures->capacityBytes : kNoLimit,
        m_plan.setup.overheadBytes };
    const StepChart step = StepChart::build(*m_result.memory, m_result.estimate->batch, StepKind::Steady,
        StepChartPainter::kMaxDrawnMoments, reserved);
    const StepChartPainter chart { step, m_result.analysis, m_plan.gpu };
    QString caption = step.caption(chart.peakLayer());
    if (!step.reserved.empty())
        caption += QLatin1Char(' ') + step.reservedCaption();
    if (const QString workspaces = step.workspacesCaption(); !workspaces.isEmpty())
        caption += QLatin1Char(' ') + workspaces;
    if (m_plan.setup.accumulationSteps > 1)
        caption += QLatin1Char(' ') + StepChart::accumulationNote(m_plan.setup.accumulationSteps);
    captionedChart(canvas, tr("During one step"), caption, { 170, 250 },
        [&](const QRectF& rect) { chart.paint(canvas, rect); });
}

void ReportComposer::captionedChart(ReportCanvas& canvas, const QString& heading, const QString& caption,
    std::pair<double, double> heightPt, const std::function<void(const QRectF&)>& paint) const
{
    // As tall as the page has room for, within the bounds: a chart never starts a page alone.
    const double captionH = canvas.paragraphHeight(caption, FontRole::Small, canvas.width());
    const double minimum = canvas.pt(heightPt.first);
    canvas.heading(heading, minimum + captionH);
    const double height
        = std::clamp(canvas.remaining() - captionH - canvas.pt(8), minimum, canvas.pt(heightPt.second));
    paint(QRectF { 0, canvas.y(), canvas.width(), height });
    canvas.advance(height + canvas.pt(6));
    canvas.paragraph(caption, FontRole::Small, style::kMuted);
}

void ReportComposer::layerSection(ReportCanvas& canvas) const
{
    const Analysis& whole = m_result.wholeModel(); // with a pipeline, every stage's layers
    const LayerTablePainter table { whole };
    canvas.heading(tr("Layers (%1)").arg(qs(formatCount(LayerTablePainter::layerCount(whole)))),
        table.headerHeight(canvas) + 4 * table.rowHeight(canvas));
    table.paint(canvas);
    canvas.advance(canvas.pt(4));
    canvas.paragraph(tr("Activations per sample: the bytes autograd saves for backward that this layer "
                        "keeps first, for one sample. Batch-independent saved bytes (such as per-channel "
                        "statistics) are part of the estimate but not of this column. FLOPs per sample: "
                        "forward plus backward (input and weight gradients) for one sample; checkpoint "
                        "recomputation is in the throughput section."),
        FontRole::Tiny, style::kMuted);
}

} // namespace headroom::report

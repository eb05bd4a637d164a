#include "StepChart.h"

#include "CoreText.h" // text/
#include "headroom/support/Format.h"

#include <algorithm>
#include <optional>

namespace headroom::report {

StepChart StepChart::build(const MemoryModel& model, std::int64_t batch, StepKind kind,
    std::size_t maxMoments, const StepReservedSource& reserved)
{
    StepChart chart;
    chart.batch = batch;
    chart.kind = kind;
    const std::vector<std::size_t> step = model.timeline().oneStep();
    chart.stepMoments = step.size();
    if (step.empty())
        return chart;
    const auto runs = chart.pick(model, step, maxMoments);
    if (reserved.model == nullptr)
        return chart;
    const std::vector<std::uint64_t> at = reserved.model->reservedAtMoments(
        model.timeline(), step, batch, kind == StepKind::First, reserved.capacity);
    if (at.size() != step.size())
        return chart; // the trace and the timeline do not line up: no line rather than a wrong one
    const auto mostOver = [](const std::vector<std::uint64_t>& values, std::size_t begin, std::size_t end) {
        return *std::max_element(values.begin() + static_cast<std::ptrdiff_t>(begin),
            values.begin() + static_cast<std::ptrdiff_t>(end));
    };
    for (const auto& [begin, end] : runs)
        chart.reserved.push_back(mostOver(at, begin, end) + reserved.overhead);
    const std::vector<std::uint64_t> workspaces = reserved.model->workspacesAtMoments(
        model.timeline(), step, batch, kind == StepKind::First, reserved.capacity);
    if (workspaces.size() == step.size()) {
        for (const auto& [begin, end] : runs)
            chart.workspaces.push_back(mostOver(workspaces, begin, end));
    }
    return chart;
}

std::uint64_t StepChart::allocatedAt(std::size_t k) const
{
    const std::uint64_t stack = moments[k].bytes.total();
    return k < workspaces.size() ? stack + workspaces[k] : stack;
}

QString StepChart::workspacesCaption() const
{
    if (workspaces.empty() || *std::max_element(workspaces.begin(), workspaces.end()) == 0)
        return {};
    return tr(
        "The solid line adds to the stack the cuBLAS and cuDNN workspaces PyTorch allocates through its "
        "cache, up to %1: torch.cuda.max_memory_allocated() counts them.")
        .arg(QString::fromStdString(formatBytes(*std::max_element(workspaces.begin(), workspaces.end()))));
}

std::vector<std::pair<std::size_t, std::size_t>> StepChart::pick(
    const MemoryModel& model, const std::vector<std::size_t>& step, std::size_t maxMoments)
{
    const bool first = kind == StepKind::First;
    const auto& all = model.timeline().moments();
    const std::size_t peakIndex = (first ? model.firstStepPeakAt(batch) : model.peakAt(batch)).moment;
    const auto totalAt = [&](std::size_t i) {
        return (first ? model.firstStepMomentAt(i, batch) : model.momentAt(i, batch)).total();
    };
    // The core's peak may be in a micro-batch the chart does not show (the first of several): the last
    // one holds at least as much at each moment, so its highest moment stands for it.
    std::size_t marked = peakIndex;
    if (std::find(step.begin(), step.end(), peakIndex) == step.end()) {
        marked = *std::max_element(
            step.begin(), step.end(), [&](std::size_t a, std::size_t b) { return totalAt(a) < totalAt(b); });
    }
    // Runs of at most `run` neighbours in one phase; each is drawn as its highest moment (the peak's
    // run as the peak).
    const std::size_t n = step.size();
    const std::size_t run = std::max<std::size_t>(
        1, (n + std::max<std::size_t>(maxMoments, 1) - 1) / std::max<std::size_t>(maxMoments, 1));
    std::vector<std::pair<std::size_t, std::size_t>> runs;
    for (std::size_t start = 0; start < n;) {
        std::size_t end = start + 1;
        while (end < n && end - start < run && all[step[end]].phase == all[step[start]].phase)
            ++end;
        std::size_t best = step[start];
        std::uint64_t bestTotal = totalAt(best);
        for (std::size_t k = start + 1; k < end; ++k) {
            const std::uint64_t t = totalAt(step[k]);
            if (step[k] == marked || (best != marked && t > bestTotal)) {
                best = step[k];
                bestTotal = t;
            }
        }
        const StepMoment& m = all[best];
        if (best == marked)
            peak = moments.size();
        moments.push_back(
            StepChartMoment { m.phase, m.row, m.recomputing, m.afterOp && m.phase == StepPhase::Forward,
                first ? model.firstStepMomentAt(best, batch) : model.momentAt(best, batch) });
        runs.emplace_back(start, end);
        start = end;
    }
    return runs;
}

std::vector<double> StepChart::bandStarts() const
{
    std::size_t steps = 0;
    for (const StepChartMoment& m : moments)
        steps += m.phase == StepPhase::OptimizerStep ? 1 : 0;
    const std::size_t others = moments.size() - steps;
    // A fifth of the axis for the optimizer step: width w with w / (others + w) = 1/5.
    const double stepWidth = std::max(1.0, static_cast<double>(others) / 4.0);
    std::vector<double> starts;
    starts.reserve(moments.size() + 1);
    double x = 0;
    for (const StepChartMoment& m : moments) {
        starts.push_back(x);
        x += m.phase == StepPhase::OptimizerStep ? stepWidth : 1.0;
    }
    starts.push_back(x);
    return starts;
}

std::vector<StepChart::PhaseRun> StepChart::phaseRuns() const
{
    std::vector<PhaseRun> runs;
    for (std::size_t k = 0; k < moments.size(); ++k) {
        const StepPhase phase = moments[k].phase;
        if (runs.empty() || runs.back().phase != phase)
            runs.push_back(PhaseRun { phase, k, k });
        runs.back().end = k + 1;
    }
    return runs;
}

QString StepChart::phaseName(StepPhase phase)
{
    return ui::CoreText::translate(stepPhaseLabel(phase));
}

QString StepChart::momentName(const StepChartMoment& moment, const QString& layer)
{
    switch (moment.phase) {
    case StepPhase::Forward:
        return moment.endOfForward ? tr("End of the forward pass, after layer %1").arg(layer)
                                   : tr("Forward pass, layer %1").arg(layer);
    case StepPhase::Backward:
        return moment.recomputing ? tr("Backward pass, recomputing layer %1 (checkpointing)").arg(layer)
                                  : tr("Backward pass, layer %1").arg(layer);
    case StepPhase::OptimizerStep:
        return tr("Optimizer step");
    }
    return {};
}

QString StepChart::peakText(const QString& layer) const
{
    if (moments.empty())
        return {};
    return tr("Peak %1 · %2")
        .arg(
            QString::fromStdString(formatBytes(peakMoment().bytes.total())), momentName(peakMoment(), layer));
}

QString StepChart::accumulationNote(std::int64_t steps)
{
    return tr("The last of %1 micro-batches: the accumulated gradients are alive.")
        .arg(QString::fromStdString(formatCount(static_cast<std::uint64_t>(steps))));
}

QString StepChart::reservedCaption() const
{
    if (reserved.empty())
        return {};
    return tr("The line: what PyTorch's caching allocator holds reserved, plus the overhead, %1 at most; "
              "it stays above the tensors, as the allocator rounds blocks, keeps freed ones cached and "
              "grows in whole segments.")
        .arg(QString::fromStdString(formatBytes(*std::max_element(reserved.begin(), reserved.end()))));
}

QString StepChart::caption(const QString& layer) const
{
    if (moments.empty())
        return {};
    const StepChartMoment& m = peakMoment();
    QString where;
    switch (m.phase) {
    case StepPhase::Forward:
        where = m.endOfForward ? tr("at the end of the forward pass, after layer %1").arg(layer)
                               : tr("in the forward pass, at layer %1").arg(layer);
        break;
    case StepPhase::Backward:
        where = m.recomputing ? tr("in the backward pass, while checkpointing recomputes layer %1").arg(layer)
                              : tr("in the backward pass, at layer %1").arg(layer);
        break;
    case StepPhase::OptimizerStep:
        where = tr("in the optimizer step");
        break;
    }
    const QString bytes = QString::fromStdString(formatBytes(m.bytes.total()));
    const QString samples = QString::fromStdString(formatCount(static_cast<std::uint64_t>(batch)));
    return kind == StepKind::First
        ? tr("The first training step at batch %1 (no optimizer state before its optimizer step): %2 at "
             "its peak, %3.")
              .arg(samples, bytes, where)
        : tr("One training step at batch %1: %2 at its peak, %3.").arg(samples, bytes, where);
}

} // namespace headroom::report

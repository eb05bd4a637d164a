#include "StepChartPainter.h"

#include "ChartParts.h"
#include "ComponentColors.h"
#include "ReportCanvas.h"
#include "ReportStyle.h"
#include "headroom/Format.h"

#include <QPainter>
#include <QPainterPath>
#include <QPolygonF>
#include <algorithm>
#include <cmath>

namespace headroom::report {

using style::FontRole;

StepChartPainter::StepChartPainter(const StepChart& chart, const Analysis& analysis, const Gpu& gpu)
    : m_chart { chart }
    , m_analysis { analysis }
    , m_gpu { gpu }
    , m_bandStart { chart.bandStarts() }
{
    for (const auto c : ui::ComponentColors::kStackOrder) {
        if (std::any_of(chart.moments.begin(), chart.moments.end(),
                [&](const StepChartMoment& m) { return componentBytes(m.bytes, c) > 0; }))
            m_shown.push_back(c);
    }
}

QString StepChartPainter::peakLayer() const
{
    if (m_chart.empty() || m_chart.peakMoment().phase == StepPhase::OptimizerStep
        || m_chart.peakMoment().row >= m_analysis.rows.size())
        return {};
    return QString::fromStdString(m_analysis.rows[m_chart.peakMoment().row].name);
}

void StepChartPainter::paint(const ReportCanvas& canvas, const QRectF& rect) const
{
    QPainter* p = canvas.painter();
    if (!p || m_chart.empty())
        return;
    const auto small = canvas.metrics(FontRole::Small);
    const double peakBytes = static_cast<double>(m_chart.peakMoment().bytes.total());
    const double gpuBytes = static_cast<double>(m_gpu.memoryBytes);
    // The GPU's memory is drawn when it is near the peak (or below it); far above, it would flatten the step.
    const bool gpuShown = gpuBytes > 0 && gpuBytes <= peakBytes * 1.6;
    const double yData = std::max(peakBytes * 1.12, gpuShown ? gpuBytes * 1.04 : 0.0);
    const chartparts::MemoryScale scale = chartparts::memoryScale(canvas, yData, rect.height() * 0.7);
    const double yTop = scale.topBytes;

    // ---- layout: the peak's label on top, y labels left, phase labels + legend below
    const double labelRow = small.height() * 1.3;
    const double legendH = chartparts::legendHeight(canvas, m_shown, rect.width());
    const double phaseH = small.height() + canvas.pt(6);
    QRectF plot { rect.left() + scale.labelWidth + canvas.pt(6), rect.top() + labelRow + canvas.pt(2), 0, 0 };
    plot.setRight(rect.right() - canvas.pt(6));
    plot.setBottom(rect.bottom() - legendH - phaseH - canvas.pt(4));
    const double xMax = m_bandStart.back();
    const auto xOf = [&](double x) { return plot.left() + x / xMax * plot.width(); };
    const auto yOf = [&](double bytes) { return plot.bottom() - bytes / yTop * plot.height(); };

    p->save();
    p->setRenderHint(QPainter::Antialiasing, true);

    chartparts::paintMemoryGrid(canvas, scale, plot, rect.left());
    // Each moment a flat band: two points.
    const std::size_t count = m_chart.moments.size();
    std::vector<double> xs;
    xs.reserve(2 * count);
    for (std::size_t k = 0; k < count; ++k) {
        xs.push_back(xOf(m_bandStart[k]));
        xs.push_back(xOf(m_bandStart[k + 1]));
    }
    chartparts::paintStack(
        canvas, m_shown, xs,
        [&](std::size_t i) -> const MemoryBreakdown& { return m_chart.moments[i / 2].bytes; }, yOf);

    // ---- axes, phase separators and labels
    canvas.line(plot.bottomLeft(), plot.bottomRight(), QPen { style::kMuted, canvas.pt(0.7) });
    canvas.line(plot.bottomLeft(), plot.topLeft(), QPen { style::kMuted, canvas.pt(0.7) });
    const auto runs = m_chart.phaseRuns();
    for (std::size_t r = 0; r < runs.size(); ++r) {
        const double left = xOf(m_bandStart[runs[r].begin]);
        const double right = xOf(m_bandStart[runs[r].end]);
        if (r > 0)
            canvas.line(QPointF { left, plot.top() }, QPointF { left, plot.bottom() + canvas.pt(4) },
                QPen { style::kMuted, canvas.pt(0.7), Qt::DashLine });
        canvas.text(QRectF { left, plot.bottom() + canvas.pt(3), right - left, phaseH - canvas.pt(3) },
            Qt::AlignCenter, StepChart::phaseName(runs[r].phase), FontRole::Small, style::kText, true);
    }

    // ---- the GPU's memory
    if (gpuShown) {
        const double gpuY = yOf(gpuBytes);
        canvas.line(QPointF { plot.left(), gpuY }, QPointF { plot.right(), gpuY },
            QPen { style::kGpuLine, canvas.pt(1.2), Qt::DashLine });
        const QString label = QString::fromStdString(m_gpu.name + ": " + formatBytes(m_gpu.memoryBytes));
        const double w = std::min(small.horizontalAdvance(label) + canvas.pt(10), plot.width() * 0.45);
        const double h = small.height() + canvas.pt(2);
        const double top
            = gpuY - plot.top() >= h + canvas.pt(2) ? gpuY - h - canvas.pt(1) : gpuY + canvas.pt(1);
        const QRectF box { plot.left() + canvas.pt(4), top, w, h };
        p->fillRect(box, Qt::white);
        canvas.text(box.adjusted(canvas.pt(4), 0, -canvas.pt(2), 0), Qt::AlignLeft | Qt::AlignVCenter, label,
            FontRole::Small, style::kGpuLine);
    }

    // ---- the peak: a dot on the top of the stack, its label above the plot
    {
        const std::size_t k = m_chart.peak;
        const double x = (xOf(m_bandStart[k]) + xOf(m_bandStart[k + 1])) / 2;
        const double y = yOf(peakBytes);
        canvas.line(QPointF { x, rect.top() + labelRow }, QPointF { x, y },
            QPen { style::kText, canvas.pt(0.6), Qt::DotLine });
        p->setPen(QPen { Qt::white, canvas.pt(0.8) });
        p->setBrush(style::kText);
        p->drawEllipse(QPointF { x, y }, canvas.pt(2.6), canvas.pt(2.6));
        const QString label = m_chart.peakText(peakLayer());
        const double w = std::min(small.horizontalAdvance(label) + canvas.pt(2), rect.width());
        const double left = std::clamp(x - w / 2, rect.left(), rect.right() - w);
        canvas.text(
            QRectF { left, rect.top(), w, labelRow }, Qt::AlignCenter, label, FontRole::Small, style::kText);
    }

    chartparts::paintLegend(
        canvas, m_shown, QRectF { rect.left(), rect.bottom() - legendH, rect.width(), legendH });
    p->restore();
}

} // namespace headroom::report

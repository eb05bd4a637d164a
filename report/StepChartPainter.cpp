#include "StepChartPainter.h"

#include "ChartParts.h"
#include "ComponentColors.h"
#include "ReportCanvas.h"
#include "ReportStyle.h"
#include "headroom/support/Format.h"

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
    m_reservedLine = !chart.reserved.empty() && chart.reserved.size() == chart.moments.size();
    if (m_reservedLine)
        m_lines.push_back(chartparts::reservedLegend());
    m_allocatedLine = !chart.workspacesCaption().isEmpty() && chart.workspaces.size() == chart.moments.size();
    if (m_allocatedLine)
        m_lines.push_back(chartparts::allocatedLegend());
}

QString StepChartPainter::peakLayer() const
{
    if (m_chart.empty() || m_chart.peakMoment().phase == StepPhase::OptimizerStep
        || m_chart.peakMoment().row >= m_analysis.rows.size())
        return {};
    // Number and name, as the sentences about the peak name it ("5 (MaxPool2d)", "18 (layer2.0.conv1)").
    const LayerRow& row = m_analysis.rows[m_chart.peakMoment().row];
    return QString::fromStdString(layerReference(row, row.name));
}

/// Where everything goes: the memory scale, the plot, and the x of each moment's band.
struct StepChartPainter::Layout : chartparts::ChartFrame
{
    double labelRow = 0;
    double phaseH = 0;
    bool gpuShown = false;

    [[nodiscard]] double xOf(double x) const { return plot.left() + x / xMax * plot.width(); }
};

StepChartPainter::Layout StepChartPainter::layout(const ReportCanvas& canvas, const QRectF& rect) const
{
    // The peak's label on top, y labels left, phase labels + legend below. The GPU's memory is drawn
    // when it is near the peak (or below it); far above, it would flatten the step.
    const auto small = canvas.metrics(FontRole::Small);
    Layout l;
    l.rect = rect;
    const double peakBytes = static_cast<double>(m_chart.peakMoment().bytes.total());
    const double reservedBytes = m_chart.reserved.empty()
        ? 0.0
        : static_cast<double>(*std::max_element(m_chart.reserved.begin(), m_chart.reserved.end()));
    double highest = std::max(peakBytes, reservedBytes);
    for (std::size_t k = 0; k < m_chart.workspaces.size() && k < m_chart.moments.size(); ++k)
        highest = std::max(highest, static_cast<double>(m_chart.allocatedAt(k)));
    const double gpuBytes = static_cast<double>(m_gpu.memoryBytes);
    l.gpuShown = gpuBytes > 0 && gpuBytes <= highest * 1.6;
    const double yData = std::max(highest * 1.12, l.gpuShown ? gpuBytes * 1.04 : 0.0);
    l.scale = chartparts::memoryScale(canvas, yData, rect.height() * 0.7);
    l.labelRow = small.height() * 1.3;
    l.legendH = chartparts::legendHeight(canvas, m_shown, rect.width(), m_lines);
    l.phaseH = small.height() + canvas.pt(6);
    l.plot = QRectF { rect.left() + l.scale.labelWidth + canvas.pt(6), rect.top() + l.labelRow + canvas.pt(2),
        0, 0 };
    l.plot.setRight(rect.right() - canvas.pt(6));
    l.plot.setBottom(rect.bottom() - l.legendH - l.phaseH - canvas.pt(4));
    l.xMax = m_bandStart.back();
    return l;
}

void StepChartPainter::paint(const ReportCanvas& canvas, const QRectF& rect) const
{
    QPainter* p = canvas.painter();
    if (!p || m_chart.empty())
        return;
    const Layout l = layout(canvas, rect);
    p->save();
    p->setRenderHint(QPainter::Antialiasing, true);
    chartparts::paintMemoryGrid(canvas, l.scale, l.plot, rect.left());
    // Each moment a flat band: two points.
    const std::size_t count = m_chart.moments.size();
    std::vector<double> xs;
    xs.reserve(2 * count);
    for (std::size_t k = 0; k < count; ++k) {
        xs.push_back(l.xOf(m_bandStart[k]));
        xs.push_back(l.xOf(m_bandStart[k + 1]));
    }
    const auto yOf = [&](double bytes) { return l.yOf(bytes); };
    chartparts::paintStack(
        canvas, m_shown, xs,
        [&](std::size_t i) -> const MemoryBreakdown& { return m_chart.moments[i / 2].bytes; }, yOf);
    // The reserved and the allocated bytes of each moment over its band, above the stack's top.
    const auto paintPerMoment = [&](const chartparts::LegendLine& line, double widthPt, auto bytesAt) {
        std::vector<double> bytes;
        bytes.reserve(2 * count);
        for (std::size_t k = 0; k < count; ++k)
            bytes.insert(bytes.end(), 2, static_cast<double>(bytesAt(k)));
        chartparts::paintLine(canvas, xs, bytes, yOf, line, widthPt);
    };
    if (m_allocatedLine)
        paintPerMoment(m_lines.back(), 0.9, [&](std::size_t k) { return m_chart.allocatedAt(k); });
    if (m_reservedLine)
        paintPerMoment(m_lines.front(), 1.2, [&](std::size_t k) { return m_chart.reserved[k]; });
    paintPhases(canvas, l);
    if (l.gpuShown)
        paintGpu(canvas, l);
    paintPeak(canvas, l);
    chartparts::paintLegend(
        canvas, m_shown, QRectF { rect.left(), rect.bottom() - l.legendH, rect.width(), l.legendH }, m_lines);
    p->restore();
}

void StepChartPainter::paintPhases(const ReportCanvas& canvas, const Layout& l) const
{
    // The axes, the phase separators and their labels.
    const QRectF& plot = l.plot;
    canvas.line(plot.bottomLeft(), plot.bottomRight(), QPen { style::kMuted, canvas.pt(0.7) });
    canvas.line(plot.bottomLeft(), plot.topLeft(), QPen { style::kMuted, canvas.pt(0.7) });
    const auto runs = m_chart.phaseRuns();
    for (std::size_t r = 0; r < runs.size(); ++r) {
        const double left = l.xOf(m_bandStart[runs[r].begin]);
        const double right = l.xOf(m_bandStart[runs[r].end]);
        if (r > 0)
            canvas.line(QPointF { left, plot.top() }, QPointF { left, plot.bottom() + canvas.pt(4) },
                QPen { style::kMuted, canvas.pt(0.7), Qt::DashLine });
        canvas.text(QRectF { left, plot.bottom() + canvas.pt(3), right - left, l.phaseH - canvas.pt(3) },
            Qt::AlignCenter, StepChart::phaseName(runs[r].phase), FontRole::Small, style::kText, true);
    }
}

void StepChartPainter::paintGpu(const ReportCanvas& canvas, const Layout& l) const
{
    const auto small = canvas.metrics(FontRole::Small);
    const double gpuY = l.yOf(static_cast<double>(m_gpu.memoryBytes));
    canvas.line(QPointF { l.plot.left(), gpuY }, QPointF { l.plot.right(), gpuY },
        QPen { style::kGpuLine, canvas.pt(1.2), Qt::DashLine });
    const QString label = QString::fromStdString(m_gpu.name + ": " + formatBytes(m_gpu.memoryBytes));
    const double w = std::min(small.horizontalAdvance(label) + canvas.pt(10), l.plot.width() * 0.45);
    const double h = small.height() + canvas.pt(2);
    const double top
        = gpuY - l.plot.top() >= h + canvas.pt(2) ? gpuY - h - canvas.pt(1) : gpuY + canvas.pt(1);
    const QRectF box { l.plot.left() + canvas.pt(4), top, w, h };
    canvas.painter()->fillRect(box, Qt::white);
    canvas.text(box.adjusted(canvas.pt(4), 0, -canvas.pt(2), 0), Qt::AlignLeft | Qt::AlignVCenter, label,
        FontRole::Small, style::kGpuLine);
}

void StepChartPainter::paintPeak(const ReportCanvas& canvas, const Layout& l) const
{
    // A dot on the top of the stack, its label above the plot.
    QPainter* p = canvas.painter();
    const auto small = canvas.metrics(FontRole::Small);
    const std::size_t k = m_chart.peak;
    const double x = (l.xOf(m_bandStart[k]) + l.xOf(m_bandStart[k + 1])) / 2;
    const double y = l.yOf(static_cast<double>(m_chart.peakMoment().bytes.total()));
    canvas.line(QPointF { x, l.rect.top() + l.labelRow }, QPointF { x, y },
        QPen { style::kText, canvas.pt(0.6), Qt::DotLine });
    p->setPen(QPen { Qt::white, canvas.pt(0.8) });
    p->setBrush(style::kText);
    p->drawEllipse(QPointF { x, y }, canvas.pt(2.6), canvas.pt(2.6));
    const QString label = m_chart.peakText(peakLayer());
    const double w = std::min(small.horizontalAdvance(label) + canvas.pt(2), l.rect.width());
    const double left = std::clamp(x - w / 2, l.rect.left(), l.rect.right() - w);
    canvas.text(
        QRectF { left, l.rect.top(), w, l.labelRow }, Qt::AlignCenter, label, FontRole::Small, style::kText);
}

} // namespace headroom::report

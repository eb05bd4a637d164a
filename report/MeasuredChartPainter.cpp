#include "MeasuredChartPainter.h"

#include "ReportCanvas.h"
#include "ReportStyle.h"
#include "headroom/support/Format.h"

#include <QPainter>
#include <algorithm>
#include <cmath>

namespace headroom::report {

using style::FontRole;

namespace {

/// The common axis: three phases of width 1.
constexpr double kAxisEnd = 3.0;

/// At most `limit` points: the axis cut into limit / 2 slices, each keeping its highest allocated and
/// highest reserved points (so no peak is lost), in order.
std::vector<CurvePoint> thinned(const std::vector<CurvePoint>& points, std::size_t limit)
{
    if (points.size() <= limit)
        return points;
    const std::size_t slices = limit / 2;
    std::vector<CurvePoint> out;
    out.reserve(limit);
    std::size_t i = 0;
    for (std::size_t s = 0; s < slices && i < points.size(); ++s) {
        const double end = kAxisEnd * static_cast<double>(s + 1) / static_cast<double>(slices);
        std::size_t top = i;
        std::size_t topReserved = i;
        std::size_t j = i;
        for (; j < points.size() && (points[j].x < end || s + 1 == slices); ++j) {
            if (points[j].allocated > points[top].allocated)
                top = j;
            if (points[j].reserved > points[topReserved].reserved)
                topReserved = j;
        }
        if (j == i)
            continue;
        const std::size_t first = std::min(top, topReserved);
        const std::size_t second = std::max(top, topReserved);
        out.push_back(points[first]);
        if (second != first)
            out.push_back(points[second]);
        i = j;
    }
    return out;
}

} // namespace

const QColor& MeasuredChartPainter::predictedColour()
{
    static const QColor colour { 0x2b, 0x6c, 0xb0 };
    return colour;
}

const QColor& MeasuredChartPainter::measuredColour()
{
    static const QColor colour { 0xc0, 0x56, 0x21 };
    return colour;
}

QString MeasuredChartPainter::phaseName(RunPhase phase)
{
    switch (phase) {
    case RunPhase::BeforeSteps:
        return tr("Before the steps");
    case RunPhase::Forward:
        return tr("Forward");
    case RunPhase::Backward:
        return tr("Backward");
    case RunPhase::OptimizerStep:
        return tr("Optimizer step");
    }
    return {};
}

MeasuredChartPainter::MeasuredChartPainter(const AlignedStep& step)
    : m_step { step }
    , m_predicted { thinned(step.predicted.points, kMaxDrawnPoints) }
    , m_measured { thinned(step.measured.points, kMaxDrawnPoints) }
{
    m_lines.push_back({ tr("Predicted allocated"), predictedColour(), Qt::SolidLine });
    if (step.predicted.peakReserved.found)
        m_lines.push_back({ tr("Predicted reserved"), predictedColour(), Qt::DashLine });
    m_lines.push_back({ tr("Measured allocated"), measuredColour(), Qt::SolidLine });
    if (step.measuredReserved && step.measured.peakReserved.found)
        m_lines.push_back({ tr("Measured reserved"), measuredColour(), Qt::DashLine });
}

struct MeasuredChartPainter::Layout : chartparts::ChartFrame
{
    double labelRow = 0;
    double phaseH = 0;

    [[nodiscard]] double xOf(double x) const { return plot.left() + x / xMax * plot.width(); }
};

void MeasuredChartPainter::paint(const ReportCanvas& canvas, const QRectF& rect) const
{
    QPainter* p = canvas.painter();
    if (!p)
        return;
    const auto small = canvas.metrics(FontRole::Small);
    double highest = 1;
    for (const auto* curve : { &m_predicted, &m_measured }) {
        for (const auto& point : *curve)
            highest = std::max(
                { highest, static_cast<double>(point.allocated), static_cast<double>(point.reserved) });
    }
    Layout l;
    l.rect = rect;
    l.xMax = kAxisEnd;
    l.scale = chartparts::memoryScale(canvas, highest * 1.15, rect.height() * 0.7);
    l.labelRow = small.height() * 1.3;
    l.legendH = chartparts::legendHeight(canvas, {}, rect.width(), m_lines);
    l.phaseH = small.height() + canvas.pt(6);
    l.plot = QRectF { rect.left() + l.scale.labelWidth + canvas.pt(6), rect.top() + l.labelRow + canvas.pt(2),
        0, 0 };
    l.plot.setRight(rect.right() - canvas.pt(6));
    l.plot.setBottom(rect.bottom() - l.legendH - l.phaseH - canvas.pt(4));

    p->save();
    p->setRenderHint(QPainter::Antialiasing, true);
    paintPhases(canvas, l); // the shading under the grid and the curves
    chartparts::paintMemoryGrid(canvas, l.scale, l.plot, rect.left());
    const auto yOf = [&](double bytes) { return l.yOf(bytes); };
    const auto draw
        = [&](const std::vector<CurvePoint>& points, bool reserved, const chartparts::LegendLine& legend) {
              std::vector<double> xs;
              std::vector<double> bytes;
              xs.reserve(points.size());
              bytes.reserve(points.size());
              for (const auto& point : points) {
                  xs.push_back(l.xOf(point.x));
                  bytes.push_back(static_cast<double>(reserved ? point.reserved : point.allocated));
              }
              chartparts::paintLine(canvas, xs, bytes, yOf, legend, reserved ? 1.0 : 1.3);
          };
    for (const auto& line : m_lines) {
        const bool predicted = line.colour == predictedColour();
        draw(predicted ? m_predicted : m_measured, line.style == Qt::DashLine, line);
    }
    canvas.line(l.plot.bottomLeft(), l.plot.bottomRight(), QPen { style::kMuted, canvas.pt(0.7) });
    canvas.line(l.plot.bottomLeft(), l.plot.topLeft(), QPen { style::kMuted, canvas.pt(0.7) });
    paintPeaks(canvas, l);
    chartparts::paintLegend(
        canvas, {}, QRectF { rect.left(), rect.bottom() - l.legendH, rect.width(), l.legendH }, m_lines);
    p->restore();
}

void MeasuredChartPainter::paintPhases(const ReportCanvas& canvas, const Layout& l) const
{
    // Each phase a band, tinted alternately, its name under the plot.
    static const QColor kTints[]
        = { QColor { 0xf3, 0xf6, 0xfa }, QColor { 0xfb, 0xf6, 0xef }, QColor { 0xf2, 0xf8, 0xf3 } };
    const RunPhase phases[] = { RunPhase::Forward, RunPhase::Backward, RunPhase::OptimizerStep };
    for (int k = 0; k < 3; ++k) {
        const double left = l.xOf(k);
        const double right = l.xOf(k + 1);
        canvas.fillRect(QRectF { left, l.plot.top(), right - left, l.plot.height() }, kTints[k]);
        if (k > 0)
            canvas.line(QPointF { left, l.plot.top() }, QPointF { left, l.plot.bottom() + canvas.pt(4) },
                QPen { style::kMuted, canvas.pt(0.7), Qt::DashLine });
        canvas.text(QRectF { left, l.plot.bottom() + canvas.pt(3), right - left, l.phaseH - canvas.pt(3) },
            Qt::AlignCenter, phaseName(phases[k]), FontRole::Small, style::kText, true);
    }
}

void MeasuredChartPainter::paintPeaks(const ReportCanvas& canvas, const Layout& l) const
{
    // A dot on each allocated peak, its label above the plot (or, where the two labels would meet, the
    // second inside the plot's top).
    QPainter* p = canvas.painter();
    const auto small = canvas.metrics(FontRole::Small);
    std::vector<QRectF> placed;
    const auto mark = [&](const CurvePeak& peak, const QColor& colour, const QString& text) {
        if (!peak.found)
            return;
        const double x = l.xOf(std::clamp(peak.x, 0.0, kAxisEnd));
        const double y = l.yOf(static_cast<double>(peak.bytes));
        const QString label
            = text.arg(QString::fromStdString(formatBytes(peak.bytes)), phaseName(peak.phase));
        const double w = std::min(small.horizontalAdvance(label) + canvas.pt(4), l.plot.width() / 2);
        const double left = std::clamp(x - w / 2, l.rect.left(), l.rect.right() - w);
        QRectF box { left, l.rect.top(), w, l.labelRow };
        for (const auto& other : placed) {
            if (box.intersects(other))
                box.moveTop(l.plot.top() + canvas.pt(2));
        }
        placed.push_back(box);
        canvas.line(QPointF { x, box.center().y() < l.plot.top() ? l.plot.top() : box.bottom() },
            QPointF { x, y }, QPen { colour, canvas.pt(0.6), Qt::DotLine });
        p->setPen(QPen { Qt::white, canvas.pt(0.8) });
        p->setBrush(colour);
        p->drawEllipse(QPointF { x, y }, canvas.pt(2.6), canvas.pt(2.6));
        if (box.top() >= l.plot.top())
            canvas.fillRect(box, QColor { 255, 255, 255, 220 });
        canvas.text(box, Qt::AlignCenter, label, FontRole::Small, colour);
    };
    mark(m_step.predicted.peakAllocated, predictedColour(), tr("Predicted peak %1 (%2)"));
    mark(m_step.measured.peakAllocated, measuredColour(), tr("Measured peak %1 (%2)"));
}

} // namespace headroom::report

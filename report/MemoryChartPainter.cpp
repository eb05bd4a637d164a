#include "MemoryChartPainter.h"

#include "ChartParts.h"
#include "ComponentColors.h"
#include "ReportCanvas.h"
#include "ReportStyle.h"
#include "headroom/Count.h"
#include "headroom/Format.h"

#include <QPainter>
#include <QPainterPath>
#include <QPolygonF>
#include <algorithm>
#include <cmath>

namespace headroom::report {

using style::FontRole;

namespace {

QString qs(const std::string& s)
{
    return QString::fromStdString(s);
}

} // namespace

MemoryChartPainter::MemoryChartPainter(
    const MemoryModel& model, const Estimate& estimate, const Gpu& gpu, bool microBatch)
    : m_estimate { estimate }
    , m_gpu { gpu }
    , m_microBatch { microBatch }
    , m_sweep { MemorySweep::sample(model, MemorySweep::rangeFor(estimate.batch, estimate.maxBatch)) }
{
    for (const auto c : ui::ComponentColors::kStackOrder) {
        if (std::any_of(m_sweep.breakdowns.begin(), m_sweep.breakdowns.end(),
                [c](const MemoryBreakdown& m) { return componentBytes(m, c) > 0; }))
            m_shown.push_back(c);
    }
}

void MemoryChartPainter::paint(const ReportCanvas& canvas, const QRectF& rect) const
{
    QPainter* p = canvas.painter();
    if (!p || m_sweep.batches.empty())
        return;
    const auto small = canvas.metrics(FontRole::Small);
    const auto tiny = canvas.metrics(FontRole::Tiny);
    const double gpuBytes = static_cast<double>(m_gpu.memoryBytes);

    // ---- value ranges and ticks: the GUI chart's (MemorySweep), the batch axis in log2(batch)
    const double xMax = MemorySweep::axisX(m_sweep.range);
    const double yData = m_sweep.topBytes(m_gpu.memoryBytes, m_estimate.batch);
    const chartparts::MemoryScale scale = chartparts::memoryScale(canvas, yData, rect.height() * 0.7);
    const double yTop = scale.topBytes;

    // ---- layout: marker labels on top, y labels left, x labels + title + legend below
    const double markerRow = small.height() * 1.3;
    const double gap = canvas.pt(10);
    const QString batchLabel = tr("Batch %1: %2")
                                   .arg(qs(formatCount(static_cast<std::uint64_t>(m_estimate.batch))),
                                       qs(formatBytes(m_estimate.total())));
    const bool showBatch = m_estimate.batch >= 1 && m_estimate.batch <= m_sweep.range;
    const bool showMax = m_estimate.maxBatch >= 1 && m_estimate.maxBatch <= m_sweep.range;
    const QString maxLabel
        = tr("Max batch %1").arg(qs(formatCount(static_cast<std::uint64_t>(m_estimate.maxBatch))));

    const double legendH = chartparts::legendHeight(canvas, m_shown, rect.width());
    const double xLabelsH = tiny.height() + canvas.pt(4);
    const double xTitleH = small.height() + canvas.pt(4);
    QRectF plot { rect.left() + scale.labelWidth + canvas.pt(6), rect.top(), 0, 0 };
    plot.setRight(rect.right() - canvas.pt(6));

    const auto xOf = [&](double batch) {
        return plot.left()
            + MemorySweep::axisX(static_cast<std::int64_t>(std::llround(batch))) / xMax * plot.width();
    };
    // Marker labels: one row, or two when the current and the max batch labels would collide.
    const double batchLabelW = small.horizontalAdvance(batchLabel) + canvas.pt(2);
    const double maxLabelW = small.horizontalAdvance(maxLabel) + canvas.pt(2);
    const auto labelLeft
        = [&](double x, double w) { return std::clamp(x - w / 2, plot.left(), plot.right() - w); };
    const double batchX = xOf(static_cast<double>(m_estimate.batch));
    const double maxX = showMax ? xOf(static_cast<double>(m_estimate.maxBatch)) : 0;
    bool twoRows = false;
    if (showMax && showBatch) {
        const double a = labelLeft(batchX, batchLabelW);
        const double b = labelLeft(maxX, maxLabelW);
        twoRows = a < b + maxLabelW + gap && b < a + batchLabelW + gap;
    }
    plot.setTop(rect.top() + markerRow * (twoRows ? 2 : 1) + canvas.pt(2));
    plot.setBottom(rect.bottom() - legendH - xTitleH - xLabelsH - canvas.pt(6));
    const auto yOf = [&](double bytes) { return plot.bottom() - bytes / yTop * plot.height(); };

    p->save();
    p->setRenderHint(QPainter::Antialiasing, true);

    chartparts::paintMemoryGrid(canvas, scale, plot, rect.left());
    std::vector<double> xs;
    xs.reserve(m_sweep.batches.size());
    for (const std::int64_t b : m_sweep.batches)
        xs.push_back(xOf(static_cast<double>(b)));
    // The axis reaches a little above the GPU's memory: the stack is cut off at its top, as in the GUI.
    p->save();
    p->setClipRect(plot);
    chartparts::paintStack(
        canvas, m_shown, xs, [&](std::size_t i) -> const MemoryBreakdown& { return m_sweep.breakdowns[i]; },
        yOf);
    p->restore();
    // Above the GPU's memory: over budget, shaded as in the GUI.
    const double gpuY = std::clamp(yOf(gpuBytes), plot.top(), plot.bottom());
    if (gpuBytes > 0 && gpuY > plot.top())
        p->fillRect(QRectF { plot.left(), plot.top(), plot.width(), gpuY - plot.top() },
            ui::ComponentColors::overBudget());

    // ---- x axis: powers of two, as many as fit without touching
    canvas.line(plot.bottomLeft(), plot.bottomRight(), QPen { style::kMuted, canvas.pt(0.7) });
    canvas.line(plot.bottomLeft(), plot.topLeft(), QPen { style::kMuted, canvas.pt(0.7) });
    const double widestX = tiny.horizontalAdvance(QStringLiteral("512k")) + canvas.pt(8);
    const int every = MemorySweep::labelEvery(m_sweep.range, widestX, plot.width());
    const int powers = static_cast<int>(std::lround(xMax));
    for (int power = 0; power <= powers; power += every) {
        const std::int64_t batch = std::int64_t { 1 } << power;
        const double x = xOf(static_cast<double>(batch));
        canvas.line(QPointF { x, plot.bottom() }, QPointF { x, plot.bottom() + canvas.pt(3) },
            QPen { style::kMuted, canvas.pt(0.7) });
        const double left
            = std::clamp(x - widestX / 2, plot.left() - widestX / 2, plot.right() - widestX / 2);
        canvas.text(QRectF { left, plot.bottom() + canvas.pt(4), widestX, tiny.height() }, Qt::AlignCenter,
            MemorySweep::batchLabel(batch), FontRole::Tiny, style::kMuted);
    }
    canvas.text(QRectF { plot.left(), plot.bottom() + xLabelsH + canvas.pt(2), plot.width(), xTitleH },
        Qt::AlignHCenter | Qt::AlignVCenter,
        m_microBatch ? tr("Micro-batch per GPU (log scale)") : tr("Batch size (log scale)"), FontRole::Small,
        style::kText);

    // ---- the GPU's memory: the line under the markers, its label over them
    if (gpuBytes > 0)
        canvas.line(QPointF { plot.left(), gpuY }, QPointF { plot.right(), gpuY },
            QPen { style::kGpuLine, canvas.pt(1.2), Qt::DashLine });

    // ---- markers: the current batch, the largest batch that fits
    const auto marker = [&](double x, const QString& label, double labelW, int row, const QColor& color,
                            Qt::PenStyle penStyle) {
        canvas.line(QPointF { x, plot.top() }, QPointF { x, plot.bottom() },
            QPen { color, canvas.pt(0.9), penStyle });
        const double left = labelLeft(x, labelW);
        canvas.text(QRectF { left, rect.top() + row * markerRow, labelW, markerRow }, Qt::AlignCenter, label,
            FontRole::Small, color);
    };
    if (showMax)
        marker(maxX, maxLabel, maxLabelW, twoRows ? 1 : 0, style::kFits, Qt::DotLine);
    if (showBatch) {
        marker(
            batchX, batchLabel, batchLabelW, 0, m_estimate.fits ? style::kText : style::kFails, Qt::DashLine);
        const double y = yOf(static_cast<double>(m_estimate.total()));
        p->setPen(QPen { Qt::white, canvas.pt(0.8) });
        p->setBrush(m_estimate.fits ? style::kText : style::kFails);
        p->drawEllipse(QPointF { batchX, y }, canvas.pt(2.6), canvas.pt(2.6));
    }

    if (gpuBytes > 0) {
        // A long name is elided, never the memory size.
        const QString size = QStringLiteral(": ") + qs(formatBytes(m_gpu.memoryBytes));
        const double room = plot.width() * 0.45 - canvas.pt(8) - small.horizontalAdvance(size);
        const QString label = small.elidedText(qs(m_gpu.name), Qt::ElideRight, std::max(room, 0.0)) + size;
        const double w = small.horizontalAdvance(label) + canvas.pt(10);
        const double h = small.height() + canvas.pt(2);
        const double top
            = (gpuY - plot.top() >= h + canvas.pt(2)) ? gpuY - h - canvas.pt(1) : gpuY + canvas.pt(1);
        // At the left end unless a marker runs through it there and not at the right end.
        const auto crossings = [&](double left) {
            int n = 0;
            for (const auto& [shown, x] : { std::pair { showBatch, batchX }, std::pair { showMax, maxX } })
                n += shown && x > left - canvas.pt(3) && x < left + w + canvas.pt(3) ? 1 : 0;
            return n;
        };
        const double leftX = plot.left() + canvas.pt(4);
        const double rightX = plot.right() - canvas.pt(4) - w;
        const QRectF box { crossings(rightX) < crossings(leftX) ? rightX : leftX, top, w, h };
        p->fillRect(box, Qt::white);
        canvas.text(box.adjusted(canvas.pt(4), 0, -canvas.pt(2), 0), Qt::AlignLeft | Qt::AlignVCenter, label,
            FontRole::Small, style::kGpuLine);
    }

    chartparts::paintLegend(
        canvas, m_shown, QRectF { rect.left(), rect.bottom() - legendH, rect.width(), legendH });
    p->restore();
}

} // namespace headroom::report

#include "MemoryChartPainter.h"

#include "ChartParts.h"
#include "ComponentColors.h"
#include "ReportCanvas.h"
#include "ReportFormatting.h"
#include "ReportStyle.h"
#include "headroom/support/Count.h"
#include "headroom/support/Format.h"

#include <QPainter>
#include <QPainterPath>
#include <QPolygonF>
#include <algorithm>
#include <cmath>

namespace headroom::report {

using detail::qs;

using style::FontRole;

MemoryChartPainter::MemoryChartPainter(const MemoryModel& model, const Estimate& estimate, const Gpu& gpu,
    bool microBatch, const ReservedModel* reserved, const ReservedFigures* figures)
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
    if (reserved != nullptr && figures != nullptr)
        m_sweep.sampleReserved(*reserved, *figures);
    if (!m_sweep.reservedBatches.empty())
        m_lines.push_back(chartparts::reservedLegend());
}

/// Where everything goes: the scales, the plot and the markers' places.
struct MemoryChartPainter::Layout : chartparts::ChartFrame
{
    double markerRow = 0;
    double xLabelsH = 0;
    double xTitleH = 0;
    bool showBatch = false;
    bool showMax = false;
    bool twoRows = false; ///< the current and the max batch labels would collide on one row
    QString batchLabel;
    QString maxLabel;
    double batchLabelW = 0;
    double maxLabelW = 0;
    double batchX = 0;
    double maxX = 0;

    [[nodiscard]] double xOf(double batch) const
    {
        return plot.left()
            + MemorySweep::axisX(static_cast<std::int64_t>(std::llround(batch))) / xMax * plot.width();
    }
    [[nodiscard]] double labelLeft(double x, double w) const
    {
        return std::clamp(x - w / 2, plot.left(), plot.right() - w);
    }
};

MemoryChartPainter::Layout MemoryChartPainter::layout(const ReportCanvas& canvas, const QRectF& rect) const
{
    // Value ranges and ticks: the GUI chart's (MemorySweep), the batch axis in log2(batch). Marker labels
    // on top, y labels left, x labels + title + legend below.
    const auto small = canvas.metrics(FontRole::Small);
    Layout l;
    l.rect = rect;
    l.xMax = MemorySweep::axisX(m_sweep.range);
    l.scale = chartparts::memoryScale(
        canvas, m_sweep.topBytes(m_gpu.memoryBytes, m_estimate.batch), rect.height() * 0.7);
    l.markerRow = small.height() * 1.3;
    // The batch's mark: what the GPU holds at the peak (on the reserved line), as the verdict judges it;
    // the tensors' total, so labelled, where the allocator was not replayed.
    const QString batchCount = qs(formatCount(static_cast<std::uint64_t>(m_estimate.batch)));
    l.batchLabel = m_estimate.fitBasis == FitBasis::Reserved
        ? tr("Batch %1: %2").arg(batchCount, qs(formatBytes(m_estimate.heldBytes)))
        : tr("Batch %1: tensors %2").arg(batchCount, qs(formatBytes(m_estimate.total())));
    l.showBatch = m_estimate.batch >= 1 && m_estimate.batch <= m_sweep.range;
    l.showMax = m_estimate.maxBatch >= 1 && m_estimate.maxBatch <= m_sweep.range;
    l.maxLabel = tr("Max batch %1").arg(qs(formatCount(static_cast<std::uint64_t>(m_estimate.maxBatch))));
    l.legendH = chartparts::legendHeight(canvas, m_shown, rect.width(), m_lines);
    l.xLabelsH = canvas.metrics(FontRole::Tiny).height() + canvas.pt(4);
    l.xTitleH = small.height() + canvas.pt(4);
    l.plot = QRectF { rect.left() + l.scale.labelWidth + canvas.pt(6), rect.top(), 0, 0 };
    l.plot.setRight(rect.right() - canvas.pt(6));
    // Marker labels: one row, or two when the current and the max batch labels would collide.
    const double gap = canvas.pt(10);
    l.batchLabelW = small.horizontalAdvance(l.batchLabel) + canvas.pt(2);
    l.maxLabelW = small.horizontalAdvance(l.maxLabel) + canvas.pt(2);
    l.batchX = l.xOf(static_cast<double>(m_estimate.batch));
    l.maxX = l.showMax ? l.xOf(static_cast<double>(m_estimate.maxBatch)) : 0;
    if (l.showMax && l.showBatch) {
        const double a = l.labelLeft(l.batchX, l.batchLabelW);
        const double b = l.labelLeft(l.maxX, l.maxLabelW);
        l.twoRows = a < b + l.maxLabelW + gap && b < a + l.batchLabelW + gap;
    }
    l.plot.setTop(rect.top() + l.markerRow * (l.twoRows ? 2 : 1) + canvas.pt(2));
    l.plot.setBottom(rect.bottom() - l.legendH - l.xTitleH - l.xLabelsH - canvas.pt(6));
    return l;
}

void MemoryChartPainter::paint(const ReportCanvas& canvas, const QRectF& rect) const
{
    QPainter* p = canvas.painter();
    if (!p || m_sweep.batches.empty())
        return;
    const Layout l = layout(canvas, rect);
    p->save();
    p->setRenderHint(QPainter::Antialiasing, true);
    paintArea(canvas, l);
    paintBatchAxis(canvas, l);
    // The GPU's memory: the line under the markers, its label over them.
    const double gpuY = gpuLineY(l);
    if (m_gpu.memoryBytes > 0)
        canvas.line(QPointF { l.plot.left(), gpuY }, QPointF { l.plot.right(), gpuY },
            QPen { style::kGpuLine, canvas.pt(1.2), Qt::DashLine });
    paintMarkers(canvas, l);
    if (m_gpu.memoryBytes > 0)
        paintGpuLabel(canvas, l);
    chartparts::paintLegend(
        canvas, m_shown, QRectF { rect.left(), rect.bottom() - l.legendH, rect.width(), l.legendH }, m_lines);
    p->restore();
}

double MemoryChartPainter::gpuLineY(const Layout& l) const
{
    return std::clamp(l.yOf(static_cast<double>(m_gpu.memoryBytes)), l.plot.top(), l.plot.bottom());
}

void MemoryChartPainter::paintArea(const ReportCanvas& canvas, const Layout& l) const
{
    QPainter* p = canvas.painter();
    chartparts::paintMemoryGrid(canvas, l.scale, l.plot, l.rect.left());
    const auto yOf = [&](double bytes) { return l.yOf(bytes); };
    const auto xsOf = [&](const std::vector<std::int64_t>& batches) {
        std::vector<double> xs;
        xs.reserve(batches.size());
        for (const std::int64_t b : batches)
            xs.push_back(l.xOf(static_cast<double>(b)));
        return xs;
    };
    // The axis reaches a little above the GPU's memory: the stack and the reserved line are cut off at
    // its top, as in the GUI.
    p->save();
    p->setClipRect(l.plot);
    chartparts::paintStack(
        canvas, m_shown, xsOf(m_sweep.batches),
        [&](std::size_t i) -> const MemoryBreakdown& { return m_sweep.breakdowns[i]; }, yOf);
    if (!m_lines.empty()) {
        const std::vector<double> bytes(m_sweep.reservedBytes.begin(), m_sweep.reservedBytes.end());
        chartparts::paintLine(canvas, xsOf(m_sweep.reservedBatches), bytes, yOf, m_lines.front(), 1.2);
    }
    p->restore();
    // Above the GPU's memory: over budget, shaded as in the GUI.
    const double gpuY = gpuLineY(l);
    if (m_gpu.memoryBytes > 0 && gpuY > l.plot.top())
        p->fillRect(QRectF { l.plot.left(), l.plot.top(), l.plot.width(), gpuY - l.plot.top() },
            ui::ComponentColors::overBudget());
}

void MemoryChartPainter::paintBatchAxis(const ReportCanvas& canvas, const Layout& l) const
{
    // Powers of two, as many as fit without touching.
    const auto tiny = canvas.metrics(FontRole::Tiny);
    const QRectF& plot = l.plot;
    canvas.line(plot.bottomLeft(), plot.bottomRight(), QPen { style::kMuted, canvas.pt(0.7) });
    canvas.line(plot.bottomLeft(), plot.topLeft(), QPen { style::kMuted, canvas.pt(0.7) });
    const double widestX = tiny.horizontalAdvance(QStringLiteral("512k")) + canvas.pt(8);
    const int every = MemorySweep::labelEvery(m_sweep.range, widestX, plot.width());
    const int powers = static_cast<int>(std::lround(l.xMax));
    for (int power = 0; power <= powers; power += every) {
        const std::int64_t batch = std::int64_t { 1 } << power;
        const double x = l.xOf(static_cast<double>(batch));
        canvas.line(QPointF { x, plot.bottom() }, QPointF { x, plot.bottom() + canvas.pt(3) },
            QPen { style::kMuted, canvas.pt(0.7) });
        const double left
            = std::clamp(x - widestX / 2, plot.left() - widestX / 2, plot.right() - widestX / 2);
        canvas.text(QRectF { left, plot.bottom() + canvas.pt(4), widestX, tiny.height() }, Qt::AlignCenter,
            MemorySweep::batchLabel(batch), FontRole::Tiny, style::kMuted);
    }
    canvas.text(QRectF { plot.left(), plot.bottom() + l.xLabelsH + canvas.pt(2), plot.width(), l.xTitleH },
        Qt::AlignHCenter | Qt::AlignVCenter,
        m_microBatch ? tr("Micro-batch per GPU (log scale)") : tr("Batch size (log scale)"), FontRole::Small,
        style::kText);
}

void MemoryChartPainter::paintMarkers(const ReportCanvas& canvas, const Layout& l) const
{
    // The current batch, the largest batch that fits.
    QPainter* p = canvas.painter();
    const auto marker = [&](double x, const QString& label, double labelW, int row, const QColor& color,
                            Qt::PenStyle penStyle) {
        canvas.line(QPointF { x, l.plot.top() }, QPointF { x, l.plot.bottom() },
            QPen { color, canvas.pt(0.9), penStyle });
        canvas.text(QRectF { l.labelLeft(x, labelW), l.rect.top() + row * l.markerRow, labelW, l.markerRow },
            Qt::AlignCenter, label, FontRole::Small, color);
    };
    if (l.showMax)
        marker(l.maxX, l.maxLabel, l.maxLabelW, l.twoRows ? 1 : 0, style::kFits, Qt::DotLine);
    if (l.showBatch) {
        marker(l.batchX, l.batchLabel, l.batchLabelW, 0, m_estimate.fits ? style::kText : style::kFails,
            Qt::DashLine);
        const double y = l.yOf(static_cast<double>(
            m_estimate.fitBasis == FitBasis::Reserved ? m_estimate.heldBytes : m_estimate.total()));
        p->setPen(QPen { Qt::white, canvas.pt(0.8) });
        p->setBrush(m_estimate.fits ? style::kText : style::kFails);
        p->drawEllipse(QPointF { l.batchX, y }, canvas.pt(2.6), canvas.pt(2.6));
    }
}

void MemoryChartPainter::paintGpuLabel(const ReportCanvas& canvas, const Layout& l) const
{
    // A long name is elided, never the memory size.
    const auto small = canvas.metrics(FontRole::Small);
    const double gpuY = gpuLineY(l);
    const QString size = QStringLiteral(": ") + qs(formatBytes(m_gpu.memoryBytes));
    const double room = l.plot.width() * 0.45 - canvas.pt(8) - small.horizontalAdvance(size);
    const QString label = small.elidedText(qs(m_gpu.name), Qt::ElideRight, std::max(room, 0.0)) + size;
    const double w = small.horizontalAdvance(label) + canvas.pt(10);
    const double h = small.height() + canvas.pt(2);
    const double top
        = (gpuY - l.plot.top() >= h + canvas.pt(2)) ? gpuY - h - canvas.pt(1) : gpuY + canvas.pt(1);
    // At the left end unless a marker runs through it there and not at the right end.
    const auto crossings = [&](double left) {
        int n = 0;
        for (const auto& [shown, x] :
            { std::pair { l.showBatch, l.batchX }, std::pair { l.showMax, l.maxX } })
            n += shown && x > left - canvas.pt(3) && x < left + w + canvas.pt(3) ? 1 : 0;
        return n;
    };
    const double leftX = l.plot.left() + canvas.pt(4);
    const double rightX = l.plot.right() - canvas.pt(4) - w;
    const QRectF box { crossings(rightX) < crossings(leftX) ? rightX : leftX, top, w, h };
    canvas.painter()->fillRect(box, Qt::white);
    canvas.text(box.adjusted(canvas.pt(4), 0, -canvas.pt(2), 0), Qt::AlignLeft | Qt::AlignVCenter, label,
        FontRole::Small, style::kGpuLine);
}

} // namespace headroom::report

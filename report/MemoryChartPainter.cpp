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
#include <array>
#include <cmath>

namespace headroom::report {

using style::FontRole;

namespace {

constexpr std::int64_t kMaxSamples = 240;

QString qs(const std::string& s)
{
    return QString::fromStdString(s);
}

} // namespace

MemoryChartPainter::MemoryChartPainter(const MemoryModel& model, const Estimate& estimate, const Gpu& gpu)
    : m_estimate { estimate }
    , m_gpu { gpu }
{
    // Enough range to show both the chosen batch and where the stack crosses the GPU's memory.
    const double wanted = std::max({ 2.0 * static_cast<double>(estimate.batch),
        std::ceil(1.25 * static_cast<double>(estimate.maxBatch)), 8.0 });
    const std::int64_t last = static_cast<std::int64_t>(std::min(wanted, static_cast<double>(kMaxBatch)));
    // Memory is affine in the batch, so a few hundred samples draw it exactly; the batches the
    // markers sit on are sampled too.
    const std::int64_t count = std::min<std::int64_t>(last, kMaxSamples);
    for (std::int64_t i = 0; i < count; ++i) {
        const double t = count == 1 ? 0.0 : static_cast<double>(i) / static_cast<double>(count - 1);
        m_batches.push_back(1 + std::llround(t * static_cast<double>(last - 1)));
    }
    for (const std::int64_t b : { estimate.batch, estimate.maxBatch }) {
        if (b >= 1 && b <= last)
            m_batches.push_back(b);
    }
    std::sort(m_batches.begin(), m_batches.end());
    m_batches.erase(std::unique(m_batches.begin(), m_batches.end()), m_batches.end());
    for (std::size_t i = 0; i < m_batches.size(); ++i) {
        auto bytes = model.at(m_batches[i]);
        if (!bytes) { // 64-bit overflow far right of a huge range: the chart ends before it
            m_batches.resize(i);
            break;
        }
        m_breakdowns.push_back(bytes.value());
        m_peakBytes = std::max(m_peakBytes, bytes->total());
    }
    for (const auto c : ui::ComponentColors::kStackOrder) {
        if (std::any_of(m_breakdowns.begin(), m_breakdowns.end(),
                [c](const MemoryBreakdown& m) { return componentBytes(m, c) > 0; }))
            m_shown.push_back(c);
    }
}

void MemoryChartPainter::paint(const ReportCanvas& canvas, const QRectF& rect) const
{
    QPainter* p = canvas.painter();
    if (!p || m_batches.empty())
        return;
    const auto small = canvas.metrics(FontRole::Small);
    const auto tiny = canvas.metrics(FontRole::Tiny);
    const double gpuBytes = static_cast<double>(m_gpu.memoryBytes);

    // ---- value ranges and ticks
    const double xMin = static_cast<double>(m_batches.front());
    const double xMax = std::max(xMin + 1, static_cast<double>(m_batches.back()));
    const double yData = std::max(static_cast<double>(m_peakBytes), gpuBytes) * 1.04;
    const chartparts::MemoryScale scale = chartparts::memoryScale(canvas, yData, rect.height() * 0.7);
    const double yTop = scale.topBytes;

    // ---- layout: marker labels on top, y labels left, x labels + title + legend below
    const double markerRow = small.height() * 1.3;
    const double gap = canvas.pt(10);
    const QString batchLabel = tr("Batch %1: %2")
                                   .arg(qs(formatCount(static_cast<std::uint64_t>(m_estimate.batch))),
                                       qs(formatBytes(m_estimate.total())));
    const bool showBatch = static_cast<double>(m_estimate.batch) <= xMax;
    const bool showMax = m_estimate.maxBatch >= 1 && static_cast<double>(m_estimate.maxBatch) <= xMax;
    const QString maxLabel = tr("Max batch %1")
                                 .arg(qs(formatCount(static_cast<std::uint64_t>(m_estimate.maxBatch))));

    const double legendH = chartparts::legendHeight(canvas, m_shown, rect.width());
    const double xLabelsH = tiny.height() + canvas.pt(4);
    const double xTitleH = small.height() + canvas.pt(4);
    QRectF plot { rect.left() + scale.labelWidth + canvas.pt(6), rect.top(), 0, 0 };
    plot.setRight(rect.right() - canvas.pt(6));

    const auto xOf
        = [&](double batch) { return plot.left() + (batch - xMin) / (xMax - xMin) * plot.width(); };
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
    xs.reserve(m_batches.size());
    for (const std::int64_t b : m_batches)
        xs.push_back(xOf(static_cast<double>(b)));
    chartparts::paintStack(canvas, m_shown, xs, [&](std::size_t i) -> const MemoryBreakdown& { return m_breakdowns[i]; }, yOf);

    // ---- x axis
    canvas.line(plot.bottomLeft(), plot.bottomRight(), QPen { style::kMuted, canvas.pt(0.7) });
    canvas.line(plot.bottomLeft(), plot.topLeft(), QPen { style::kMuted, canvas.pt(0.7) });
    const double widestX
        = tiny.horizontalAdvance(qs(formatCount(static_cast<std::uint64_t>(xMax)))) + canvas.pt(14);
    double xStep = chartparts::niceStep((xMax - xMin) / 8, true);
    while ((xStep / (xMax - xMin)) * plot.width() < widestX)
        xStep = chartparts::niceStep(xStep * 1.01, true);
    for (double v = std::ceil(xMin / xStep) * xStep; v <= xMax + 1e-9; v += xStep) {
        const double x = xOf(v);
        canvas.line(QPointF { x, plot.bottom() }, QPointF { x, plot.bottom() + canvas.pt(3) },
            QPen { style::kMuted, canvas.pt(0.7) });
        const double w = widestX;
        canvas.text(QRectF { x - w / 2, plot.bottom() + canvas.pt(4), w, tiny.height() }, Qt::AlignCenter,
            qs(formatCount(static_cast<std::uint64_t>(v))), FontRole::Tiny, style::kMuted);
    }
    canvas.text(QRectF { plot.left(), plot.bottom() + xLabelsH + canvas.pt(2), plot.width(), xTitleH },
        Qt::AlignHCenter | Qt::AlignVCenter, tr("Batch size"), FontRole::Small, style::kText);

    // ---- the GPU's memory: the line under the markers, its label over them
    const double gpuY = yOf(gpuBytes);
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

    chartparts::paintLegend(canvas, m_shown, QRectF { rect.left(), rect.bottom() - legendH, rect.width(), legendH });
    p->restore();
}

} // namespace headroom::report

#include "MemoryChartPainter.h"

#include "CoreText.h" // ui/

#include "ComponentColors.h" // ui/
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
constexpr double kLegendGapPt = 11; ///< between legend entries

QString qs(const std::string& s)
{
    return QString::fromStdString(s);
}

/// The smallest of 1, 2, 5 x 10^k (k >= 0 when `integral`) not below `raw`.
double niceStep(double raw, bool integral)
{
    if (!(raw > 0))
        return 1;
    const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
    for (const double m : { 1.0, 2.0, 2.5, 5.0, 10.0 }) {
        if (integral && m == 2.5)
            continue;
        if (m * magnitude >= raw * (1 - 1e-9))
            return integral ? std::max(1.0, m * magnitude) : m * magnitude;
    }
    return 10 * magnitude;
}

/// The binary unit the y axis counts in: the largest one the top of the axis holds at least twice.
std::pair<double, QString> yUnit(double maxBytes)
{
    static const std::array<std::pair<double, const char*>, 5> units { { { double(kGiB) * 1024, "TiB" },
        { double(kGiB), "GiB" }, { double(kMiB), "MiB" }, { 1024.0, "KiB" }, { 1.0, "B" } } };
    for (const auto& [size, name] : units) {
        if (maxBytes >= 2 * size)
            return { size, QString::fromLatin1(name) };
    }
    return { 1.0, QStringLiteral("B") };
}

QString tickLabel(double valueInUnit, const QString& unit)
{
    if (valueInUnit == 0)
        return QStringLiteral("0");
    return QString::number(valueInUnit, 'g', 6) + QLatin1Char(' ') + unit;
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

double MemoryChartPainter::legendHeight(const ReportCanvas& canvas, double width) const
{
    const auto fm = canvas.metrics(FontRole::Small);
    const double swatch = canvas.pt(7);
    double x = 0;
    int rows = 1;
    for (const auto c : m_shown) {
        const double entry = swatch + canvas.pt(4) + fm.horizontalAdvance(ui::CoreText::translate(componentLabel(c)))
            + canvas.pt(kLegendGapPt);
        if (x > 0 && x + entry > width) {
            ++rows;
            x = 0;
        }
        x += entry;
    }
    return rows * fm.height() * 1.5;
}

void MemoryChartPainter::paintLegend(const ReportCanvas& canvas, const QRectF& rect) const
{
    const auto fm = canvas.metrics(FontRole::Small);
    const double swatch = canvas.pt(7);
    const double rowHeight = fm.height() * 1.5;
    // Rows are centred: measure each row first.
    std::vector<std::vector<Component>> rows(1);
    std::vector<double> rowWidths(1, 0);
    for (const auto c : m_shown) {
        const double entry = swatch + canvas.pt(4) + fm.horizontalAdvance(ui::CoreText::translate(componentLabel(c)))
            + canvas.pt(kLegendGapPt);
        if (!rows.back().empty() && rowWidths.back() + entry > rect.width()) {
            rows.emplace_back();
            rowWidths.push_back(0);
        }
        rows.back().push_back(c);
        rowWidths.back() += entry;
    }
    for (std::size_t r = 0; r < rows.size(); ++r) {
        double x = rect.left() + (rect.width() - rowWidths[r] + canvas.pt(kLegendGapPt)) / 2;
        const double y = rect.top() + static_cast<double>(r) * rowHeight;
        for (const auto c : rows[r]) {
            const QString label = ui::CoreText::translate(componentLabel(c));
            canvas.fillRect(
                QRectF { x, y + (rowHeight - swatch) / 2, swatch, swatch }, ui::ComponentColors::color(c));
            x += swatch + canvas.pt(4);
            const double w = fm.horizontalAdvance(label) + canvas.pt(1);
            canvas.text(QRectF { x, y, w, rowHeight }, Qt::AlignLeft | Qt::AlignVCenter, label,
                FontRole::Small, style::kText);
            x += w - canvas.pt(1) + canvas.pt(kLegendGapPt);
        }
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
    const auto [unitBytes, unitName] = yUnit(yData);

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

    // About one labelled grid line per 30 points of plot height.
    double yLabelWidth = 0;
    const double plotHeightGuess = rect.height() * 0.7;
    const double yStep = niceStep(yData / unitBytes / std::max(2.0, plotHeightGuess / canvas.pt(30)), false);
    // The axis ends on a labelled grid line.
    const double yTop = std::ceil(yData / unitBytes / yStep - 1e-9) * yStep * unitBytes;
    std::vector<double> yTicks;
    for (double v = 0; v * unitBytes <= yTop * (1 + 1e-9); v += yStep) {
        yTicks.push_back(v);
        yLabelWidth = std::max(yLabelWidth, tiny.horizontalAdvance(tickLabel(v, unitName)));
    }

    const double legendH = legendHeight(canvas, rect.width());
    const double xLabelsH = tiny.height() + canvas.pt(4);
    const double xTitleH = small.height() + canvas.pt(4);
    QRectF plot { rect.left() + yLabelWidth + canvas.pt(6), rect.top(), 0, 0 };
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

    // ---- grid and y axis
    for (const double v : yTicks) {
        const double y = yOf(v * unitBytes);
        canvas.line(
            QPointF { plot.left(), y }, QPointF { plot.right(), y }, QPen { style::kGrid, canvas.pt(0.5) });
        canvas.text(QRectF { rect.left(), y - tiny.height() / 2, yLabelWidth, tiny.height() },
            Qt::AlignRight | Qt::AlignVCenter, tickLabel(v, unitName), FontRole::Tiny, style::kMuted);
    }

    // ---- stacked areas, bottom to top
    std::vector<double> below(m_batches.size(), 0.0);
    for (const auto c : m_shown) {
        QPolygonF area;
        std::vector<double> above(below);
        for (std::size_t i = 0; i < m_batches.size(); ++i) {
            above[i] += static_cast<double>(componentBytes(m_breakdowns[i], c));
            area << QPointF { xOf(static_cast<double>(m_batches[i])), yOf(above[i]) };
        }
        for (std::size_t i = m_batches.size(); i-- > 0;)
            area << QPointF { xOf(static_cast<double>(m_batches[i])), yOf(below[i]) };
        QPainterPath path;
        path.addPolygon(area);
        path.closeSubpath();
        p->fillPath(path, ui::ComponentColors::color(c));
        below = std::move(above);
    }
    // A thin outline of the total makes the top edge crisp.
    {
        QPolygonF top;
        for (std::size_t i = 0; i < m_batches.size(); ++i)
            top << QPointF { xOf(static_cast<double>(m_batches[i])), yOf(below[i]) };
        p->setPen(QPen { style::kText, canvas.pt(0.6) });
        p->setBrush(Qt::NoBrush);
        p->drawPolyline(top);
    }

    // ---- x axis
    canvas.line(plot.bottomLeft(), plot.bottomRight(), QPen { style::kMuted, canvas.pt(0.7) });
    canvas.line(plot.bottomLeft(), plot.topLeft(), QPen { style::kMuted, canvas.pt(0.7) });
    const double widestX
        = tiny.horizontalAdvance(qs(formatCount(static_cast<std::uint64_t>(xMax)))) + canvas.pt(14);
    double xStep = niceStep((xMax - xMin) / 8, true);
    while ((xStep / (xMax - xMin)) * plot.width() < widestX)
        xStep = niceStep(xStep * 1.01, true);
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

    paintLegend(canvas, QRectF { rect.left(), rect.bottom() - legendH, rect.width(), legendH });
    p->restore();
}

} // namespace headroom::report

#include "ChartParts.h"

#include "ComponentColors.h"
#include "CoreText.h" // text/
#include "ReportCanvas.h"
#include "ReportStyle.h"
#include "headroom/support/Count.h"

#include <QPainter>
#include <QPainterPath>
#include <QPolygonF>
#include <array>
#include <cmath>
#include <optional>
#include <tuple>

namespace headroom::report::chartparts {

using style::FontRole;

namespace {
constexpr double kLegendGapPt = 11; ///< between legend entries

/// A legend entry: a component's swatch, or a line's.
struct LegendEntry
{
    QString label;
    QColor colour;
    std::optional<Qt::PenStyle> line; ///< a line's style; none: a filled swatch
};

std::vector<LegendEntry> legendEntries(
    const std::vector<Component>& shown, const std::vector<LegendLine>& lines)
{
    std::vector<LegendEntry> entries;
    for (const auto c : shown)
        entries.push_back(
            LegendEntry { ui::CoreText::translate(componentLabel(c)), ui::ComponentColors::color(c), {} });
    for (const LegendLine& l : lines)
        entries.push_back(LegendEntry { l.label, l.colour, l.style });
    return entries;
}

double swatchWidth(const ReportCanvas& canvas, const LegendEntry& e)
{
    return canvas.pt(e.line ? 16 : 7);
}

double legendEntryWidth(const ReportCanvas& canvas, const LegendEntry& e)
{
    const auto fm = canvas.metrics(FontRole::Small);
    return swatchWidth(canvas, e) + canvas.pt(4) + fm.horizontalAdvance(e.label) + canvas.pt(kLegendGapPt);
}

/// The entries in centred rows of at most `width`: the rows and each one's width.
std::pair<std::vector<std::vector<LegendEntry>>, std::vector<double>> legendRows(
    const ReportCanvas& canvas, const std::vector<LegendEntry>& entries, double width)
{
    std::vector<std::vector<LegendEntry>> rows(1);
    std::vector<double> rowWidths(1, 0);
    for (const LegendEntry& e : entries) {
        const double w = legendEntryWidth(canvas, e);
        if (!rows.back().empty() && rowWidths.back() + w > width) {
            rows.emplace_back();
            rowWidths.push_back(0);
        }
        rows.back().push_back(e);
        rowWidths.back() += w;
    }
    return { std::move(rows), std::move(rowWidths) };
}
} // namespace

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

std::pair<double, QString> binaryUnit(double maxBytes)
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

MemoryScale memoryScale(const ReportCanvas& canvas, double maxBytes, double plotHeight)
{
    MemoryScale scale;
    std::tie(scale.unitBytes, scale.unitName) = binaryUnit(maxBytes);
    const double inUnits = maxBytes / scale.unitBytes;
    const double step = niceStep(inUnits / std::max(2.0, plotHeight / canvas.pt(30)), false);
    scale.topBytes = std::ceil(inUnits / step - 1e-9) * step * scale.unitBytes;
    const auto tiny = canvas.metrics(FontRole::Tiny);
    for (double v = 0; v * scale.unitBytes <= scale.topBytes * (1 + 1e-9); v += step) {
        scale.ticks.push_back(v);
        scale.labelWidth = std::max(scale.labelWidth, tiny.horizontalAdvance(tickLabel(v, scale.unitName)));
    }
    return scale;
}

void paintMemoryGrid(
    const ReportCanvas& canvas, const MemoryScale& scale, const QRectF& plot, double labelsLeft)
{
    const auto tiny = canvas.metrics(FontRole::Tiny);
    for (const double v : scale.ticks) {
        const double y = plot.bottom() - v * scale.unitBytes / scale.topBytes * plot.height();
        canvas.line(
            QPointF { plot.left(), y }, QPointF { plot.right(), y }, QPen { style::kGrid, canvas.pt(0.5) });
        canvas.text(QRectF { labelsLeft, y - tiny.height() / 2, scale.labelWidth, tiny.height() },
            Qt::AlignRight | Qt::AlignVCenter, tickLabel(v, scale.unitName), FontRole::Tiny, style::kMuted);
    }
}

void paintStack(const ReportCanvas& canvas, const std::vector<Component>& shown,
    const std::vector<double>& xs, const std::function<const MemoryBreakdown&(std::size_t)>& at,
    const std::function<double(double)>& yOf)
{
    QPainter* p = canvas.painter();
    if (p == nullptr)
        return;
    std::vector<double> below(xs.size(), 0.0);
    for (const auto c : shown) {
        QPolygonF area;
        std::vector<double> above(below);
        for (std::size_t i = 0; i < xs.size(); ++i) {
            above[i] += static_cast<double>(componentBytes(at(i), c));
            area << QPointF { xs[i], yOf(above[i]) };
        }
        for (std::size_t i = xs.size(); i-- > 0;)
            area << QPointF { xs[i], yOf(below[i]) };
        QPainterPath path;
        path.addPolygon(area);
        path.closeSubpath();
        p->fillPath(path, ui::ComponentColors::color(c));
        below = std::move(above);
    }
    // A thin outline of the total makes the top edge crisp.
    QPolygonF top;
    for (std::size_t i = 0; i < xs.size(); ++i)
        top << QPointF { xs[i], yOf(below[i]) };
    p->setPen(QPen { style::kText, canvas.pt(0.6) });
    p->setBrush(Qt::NoBrush);
    p->drawPolyline(top);
}

double legendHeight(const ReportCanvas& canvas, const std::vector<Component>& shown, double width,
    const std::vector<LegendLine>& lines)
{
    const auto rows = legendRows(canvas, legendEntries(shown, lines), width).first;
    return static_cast<double>(rows.size()) * canvas.metrics(FontRole::Small).height() * 1.5;
}

void paintLegend(const ReportCanvas& canvas, const std::vector<Component>& shown, const QRectF& rect,
    const std::vector<LegendLine>& lines)
{
    const auto fm = canvas.metrics(FontRole::Small);
    const double swatch = canvas.pt(7);
    const double rowHeight = fm.height() * 1.5;
    const auto [rows, rowWidths] = legendRows(canvas, legendEntries(shown, lines), rect.width());
    for (std::size_t r = 0; r < rows.size(); ++r) {
        double x = rect.left() + (rect.width() - rowWidths[r] + canvas.pt(kLegendGapPt)) / 2;
        const double y = rect.top() + static_cast<double>(r) * rowHeight;
        for (const LegendEntry& e : rows[r]) {
            if (e.line)
                canvas.line(QPointF { x, y + rowHeight / 2 },
                    QPointF { x + swatchWidth(canvas, e), y + rowHeight / 2 },
                    QPen { e.colour, canvas.pt(1.2), *e.line });
            else
                canvas.fillRect(QRectF { x, y + (rowHeight - swatch) / 2, swatch, swatch }, e.colour);
            x += swatchWidth(canvas, e) + canvas.pt(4);
            const double w = fm.horizontalAdvance(e.label) + canvas.pt(1);
            canvas.text(QRectF { x, y, w, rowHeight }, Qt::AlignLeft | Qt::AlignVCenter, e.label,
                FontRole::Small, style::kText);
            x += w - canvas.pt(1) + canvas.pt(kLegendGapPt);
        }
    }
}

LegendLine reservedLegend()
{
    return LegendLine { QCoreApplication::translate(
                            "headroom::report::chartparts", "Reserved (PyTorch's cache + overhead)"),
        ui::ComponentColors::reserved(), Qt::DashDotLine };
}

LegendLine allocatedLegend()
{
    return LegendLine { QCoreApplication::translate("headroom::report::chartparts", "Allocated + workspaces"),
        ui::ComponentColors::allocated(), Qt::SolidLine };
}

void paintLine(const ReportCanvas& canvas, const std::vector<double>& xs, const std::vector<double>& bytes,
    const std::function<double(double)>& yOf, const LegendLine& legend, double widthPt)
{
    QPainter* p = canvas.painter();
    if (p == nullptr || xs.size() < 2)
        return;
    QPolygonF line;
    for (std::size_t i = 0; i < xs.size() && i < bytes.size(); ++i)
        line << QPointF { xs[i], yOf(bytes[i]) };
    p->setPen(QPen { legend.colour, canvas.pt(widthPt), legend.style });
    p->setBrush(Qt::NoBrush);
    p->drawPolyline(line);
}

} // namespace headroom::report::chartparts

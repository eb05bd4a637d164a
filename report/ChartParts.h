#pragma once

#include "headroom/step/MemoryBreakdown.h"

#include <QColor>
#include <QCoreApplication>
#include <QRectF>
#include <QString>
#include <functional>
#include <utility>
#include <vector>

namespace headroom::report {

class ReportCanvas;

/// Pieces the report's charts share: round axis steps, the byte unit of a memory axis, and the
/// component legend.
namespace chartparts {

/// The smallest of 1, 2, 2.5, 5 x 10^k (no 2.5 and k >= 0 when `integral`) not below `raw`.
[[nodiscard]] double niceStep(double raw, bool integral);
/// The binary unit a memory axis up to `maxBytes` counts in: the largest one it holds at least twice
/// (bytes per unit, "GiB").
[[nodiscard]] std::pair<double, QString> binaryUnit(double maxBytes);
/// "2.5 GiB", or "0".
[[nodiscard]] QString tickLabel(double valueInUnit, const QString& unit);

/// A memory axis from 0 to at least `maxBytes`, in a binary unit, with about one labelled grid line per
/// 30 points of `plotHeight`; it ends on a labelled line.
struct MemoryScale
{
    double unitBytes = 1;
    QString unitName;
    double topBytes = 1;
    std::vector<double> ticks; ///< in units, from 0
    double labelWidth = 0; ///< the widest tick label
};
[[nodiscard]] MemoryScale memoryScale(const ReportCanvas& canvas, double maxBytes, double plotHeight);

/// What both charts lay out alike: the memory scale, the chart's rectangle and its plot, the x axis's
/// extent and the legend's height; `yOf` maps bytes to device y on that scale.
struct ChartFrame
{
    MemoryScale scale;
    QRectF rect;
    QRectF plot;
    double xMax = 1;
    double legendH = 0;

    [[nodiscard]] double yOf(double bytes) const
    {
        return plot.bottom() - bytes / scale.topBytes * plot.height();
    }
};
/// The grid lines across `plot` and their labels right-aligned in [labelsLeft, plot's left).
void paintMemoryGrid(
    const ReportCanvas& canvas, const MemoryScale& scale, const QRectF& plot, double labelsLeft);

/// Stacked areas of the `shown` components (bottom to top) through points at device x `xs[i]` holding
/// `at(i)`, with a thin outline along the top of the stack; `yOf` maps bytes to device y.
void paintStack(const ReportCanvas& canvas, const std::vector<Component>& shown,
    const std::vector<double>& xs, const std::function<const MemoryBreakdown&(std::size_t)>& at,
    const std::function<double(double)>& yOf);

/// A line a chart draws over its stack, as the legend shows it after the components.
struct LegendLine
{
    QString label;
    QColor colour;
    Qt::PenStyle style = Qt::SolidLine;
};

/// The height of the legend of `shown` (bottom to top of the stack) and `lines` wrapped to `width`.
[[nodiscard]] double legendHeight(const ReportCanvas& canvas, const std::vector<Component>& shown,
    double width, const std::vector<LegendLine>& lines = {});
/// A swatch and the translated name of each component, then each line's stroke and label, in centred rows.
void paintLegend(const ReportCanvas& canvas, const std::vector<Component>& shown, const QRectF& rect,
    const std::vector<LegendLine>& lines = {});
/// The reserved line's legend entry, in both charts: "Reserved (PyTorch's cache + overhead)".
[[nodiscard]] LegendLine reservedLegend();
/// The line of what max_memory_allocated counts in a step chart: the tensors plus cuBLAS and cuDNN
/// workspaces.
[[nodiscard]] LegendLine allocatedLegend();
/// A line through (xs[i], yOf(bytes[i])) drawn as `legend` says, `width` points wide.
void paintLine(const ReportCanvas& canvas, const std::vector<double>& xs, const std::vector<double>& bytes,
    const std::function<double(double)>& yOf, const LegendLine& legend, double widthPt);

} // namespace chartparts
} // namespace headroom::report

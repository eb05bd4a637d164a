#pragma once

#include "ComponentColors.h"

#include <QList>
#include <QPointF>
#include <QString>
#include <array>
#include <functional>

class QAbstractAxis;
class QAreaSeries;
class QChart;
class QChartView;
class QFont;
class QLineSeries;
class QObject;

namespace headroom::ui {

/// Memory components as stacked areas on a Qt chart: one QAreaSeries per component between two line
/// series, named, coloured and ordered as ComponentColors has them. The memory and the step charts
/// share it.
class ComponentStack final
{
public:
    static constexpr auto kStackOrder = ComponentColors::kStackOrder;

    /// Adds the areas to `chart` on axes `x` and `y`; the line series belong to `owner`, and each area
    /// is named "<component><objectNameSuffix>" (weightsSeries).
    ComponentStack(
        QChart* chart, QAbstractAxis* x, QAbstractAxis* y, QObject* owner, const QString& objectNameSuffix);

    /// `hovered(point, entered)` when the pointer enters or leaves an area (point in axis units).
    void onHover(QObject* context, const std::function<void(const QPointF&, bool)>& hovered) const;
    /// Stacks `at(i)` / `unit` at x = xs[i]. A component that is zero everywhere keeps no legend entry.
    void set(
        const QList<double>& xs, const std::function<const MemoryBreakdown&(qsizetype)>& at, double unit);
    /// The top edge of a component's band (the stack up to and including it).
    [[nodiscard]] QList<QPointF> upperPoints(Component c) const;
    /// True when the component is non-zero somewhere and has a legend entry.
    [[nodiscard]] bool shows(Component c) const;

    /// Keeps the legend of `view`'s chart (on its right) whole: the view is never shorter than every
    /// component's entry needs in the legend's small font, which a view shorter than kShortChart
    /// uses. Without it a docked panel squeezed the chart until entries dropped off the legend. The
    /// calibration's entry counts only while the chart shows it (set() tells the view): only a
    /// calibrated plan has one, and the window keeps its size on a small screen otherwise.
    static void fitLegend(QChartView* view);
    /// The height a vertical legend of every component's entry (the calibration's only `withCalibration`)
    /// takes in `font`, with the chart's margins: each entry is a line of the translated name as Qt
    /// Charts lays it out (Chinese and Korean names come from a taller fallback font, which the font's
    /// own metrics do not show).
    [[nodiscard]] static int legendHeight(const QFont& font, bool withCalibration = false);
    static constexpr int kShortChart = 300;

private:
    QChart* m_chart;
    std::array<QLineSeries*, kStackOrder.size()> m_upper {};
    std::array<QLineSeries*, kStackOrder.size()> m_lower {};
    std::array<QAreaSeries*, kStackOrder.size()> m_areas {};
};

} // namespace headroom::ui

#pragma once

#include "ChartParts.h"
#include "headroom/estimate/RunComparison.h"

#include <QColor>
#include <QCoreApplication>
#include <QRectF>
#include <QString>
#include <vector>

namespace headroom::report {

class ReportCanvas;

/// The report's "Plan and measured run" chart: one training step predicted and measured on the common
/// axis of RunComparison (forward [0, 1), backward [1, 2), the optimizer step [2, 3)), allocated as solid
/// lines and reserved as dashed ones, the phases shaded and labelled under the plot, both allocated
/// peaks marked with their bytes, and a legend. Vector paths and real text, as the other charts.
class MeasuredChartPainter final
{
    Q_DECLARE_TR_FUNCTIONS(headroom::report::MeasuredChartPainter)

public:
    /// At most this many points of a curve are drawn (the highest of each slice of the axis kept).
    static constexpr std::size_t kMaxDrawnPoints = 800;

    explicit MeasuredChartPainter(const AlignedStep& step);

    /// Paints into `rect` (device coordinates of `canvas`); nothing in the measuring pass.
    void paint(const ReportCanvas& canvas, const QRectF& rect) const;

    /// The colours of the two sides (the legend's, the tables').
    static const QColor& predictedColour();
    static const QColor& measuredColour();
    /// "Forward", "Backward", "Optimizer step".
    [[nodiscard]] static QString phaseName(RunPhase phase);

private:
    struct Layout;
    void paintPhases(const ReportCanvas& canvas, const Layout& l) const;
    void paintPeaks(const ReportCanvas& canvas, const Layout& l) const;

    const AlignedStep& m_step;
    std::vector<CurvePoint> m_predicted; ///< thinned to kMaxDrawnPoints
    std::vector<CurvePoint> m_measured;
    std::vector<chartparts::LegendLine> m_lines;
};

} // namespace headroom::report

#pragma once

#include "ChartParts.h"
#include "StepChart.h"
#include "headroom/analysis/Analysis.h"
#include "headroom/setup/GpuCatalog.h"

#include <QCoreApplication>
#include <QRectF>
#include <vector>

namespace headroom::report {

class ReportCanvas;

/// The "during one step" chart of the report: live memory by component over the moments of one
/// training step at the plan's batch, stacked, with the phases labelled under the plot, the GPU's
/// memory when it is near, the peak marked with its bytes and layer, and the component legend. Vector
/// paths and real text, as MemoryChartPainter.
class StepChartPainter final
{
    Q_DECLARE_TR_FUNCTIONS(headroom::report::StepChartPainter)

public:
    /// At most this many moments are worth drawing (a printed chart is about 500 points wide).
    static constexpr std::size_t kMaxDrawnMoments = 600;

    /// `chart` built with at most kMaxDrawnMoments.
    StepChartPainter(const StepChart& chart, const Analysis& analysis, const Gpu& gpu);

    /// Paints into `rect` (device coordinates of `canvas`); nothing in the measuring pass.
    void paint(const ReportCanvas& canvas, const QRectF& rect) const;
    /// The peak's layer, number and name as sentences name it ("5 (MaxPool2d)"; "" for the optimizer step).
    [[nodiscard]] QString peakLayer() const;

private:
    struct Layout;
    [[nodiscard]] Layout layout(const ReportCanvas& canvas, const QRectF& rect) const;
    void paintPhases(const ReportCanvas& canvas, const Layout& l) const;
    void paintGpu(const ReportCanvas& canvas, const Layout& l) const;
    void paintPeak(const ReportCanvas& canvas, const Layout& l) const;

    const StepChart& m_chart;
    const Analysis& m_analysis;
    const Gpu& m_gpu;
    std::vector<double> m_bandStart;
    std::vector<Component> m_shown; ///< components that are not zero somewhere, bottom to top
    std::vector<chartparts::LegendLine> m_lines; ///< the lines' legend entries, for the lines drawn
    bool m_reservedLine = false; ///< the reserved line is drawn (m_lines holds its entry)
    bool m_allocatedLine = false; ///< the allocated line (tensors + workspaces) is drawn
};

} // namespace headroom::report

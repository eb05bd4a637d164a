#pragma once

#include <QCoreApplication>

#include "headroom/Estimate.h"
#include "headroom/GpuCatalog.h"

#include <QRectF>
#include <cstdint>
#include <vector>

namespace headroom::report {

class ReportCanvas;

/// The stacked memory chart: one filled area per component against the batch size (a sweep of the
/// MemoryModel from 1 to about max(2 x batch, 1.25 x max batch)), the GPU's memory as a labelled
/// line, the current and the largest fitting batch marked, axes and a legend. Painted as vector
/// paths and real text, so it stays sharp at any zoom and its labels can be selected.
class MemoryChartPainter final
{
    Q_DECLARE_TR_FUNCTIONS(headroom::report::MemoryChartPainter)

public:
    MemoryChartPainter(const MemoryModel& model, const Estimate& estimate, const Gpu& gpu);

    /// Paints into `rect` (device coordinates of `canvas`); nothing in the measuring pass.
    void paint(const ReportCanvas& canvas, const QRectF& rect) const;

    /// The batch sizes the chart samples (ascending) and the breakdown at each.
    [[nodiscard]] const std::vector<std::int64_t>& batches() const noexcept { return m_batches; }

private:
    const Estimate& m_estimate;
    const Gpu& m_gpu;
    std::vector<std::int64_t> m_batches;
    std::vector<MemoryBreakdown> m_breakdowns;
    std::vector<Component> m_shown; ///< components that are not zero everywhere, bottom to top
    std::uint64_t m_peakBytes = 0;
};

} // namespace headroom::report

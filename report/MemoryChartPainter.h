#pragma once

#include "ChartParts.h"
#include "MemorySweep.h"
#include "headroom/estimate/Estimate.h"
#include "headroom/setup/GpuCatalog.h"

#include <QCoreApplication>
#include <QRectF>
#include <cstdint>
#include <vector>

namespace headroom::report {

class ReportCanvas;

/// The stacked memory chart: one filled area per component against the batch size, the GPU's memory
/// as a labelled line with the region above it shaded as over budget, the current and the largest
/// fitting batch marked, axes and a legend. The batch axis, its range and samples, and the memory
/// axis's reach are the GUI chart's (MemorySweep): a logarithmic axis labelled at powers of two.
/// Painted as vector paths and real text, so it stays sharp at any zoom and its labels can be
/// selected.
class MemoryChartPainter final
{
    Q_DECLARE_TR_FUNCTIONS(headroom::report::MemoryChartPainter)

public:
    /// `microBatch`: the batch axis counts micro-batches per GPU (several GPUs or accumulation). With a
    /// reserved model and its figures, the reserved line (what PyTorch's caching allocator reserves plus
    /// the overhead) runs over the stack, as in the GUI.
    MemoryChartPainter(const MemoryModel& model, const Estimate& estimate, const Gpu& gpu,
        bool microBatch = false, const ReservedModel* reserved = nullptr,
        const ReservedFigures* figures = nullptr);

    /// Paints into `rect` (device coordinates of `canvas`); nothing in the measuring pass.
    void paint(const ReportCanvas& canvas, const QRectF& rect) const;

    /// The batch sizes the chart samples (ascending) and the breakdown at each.
    [[nodiscard]] const std::vector<std::int64_t>& batches() const noexcept { return m_sweep.batches; }
    /// Where the batch axis ends.
    [[nodiscard]] std::int64_t range() const noexcept { return m_sweep.range; }

    /// The reserved line's samples (empty without a reserved model).
    [[nodiscard]] const std::vector<std::int64_t>& reservedBatches() const noexcept
    {
        return m_sweep.reservedBatches;
    }
    [[nodiscard]] const std::vector<std::uint64_t>& reservedBytes() const noexcept
    {
        return m_sweep.reservedBytes;
    }

private:
    struct Layout;
    [[nodiscard]] Layout layout(const ReportCanvas& canvas, const QRectF& rect) const;
    [[nodiscard]] double gpuLineY(const Layout& l) const;
    /// The grid, the stack, the reserved line and the over-budget shading.
    void paintArea(const ReportCanvas& canvas, const Layout& l) const;
    void paintBatchAxis(const ReportCanvas& canvas, const Layout& l) const;
    void paintMarkers(const ReportCanvas& canvas, const Layout& l) const;
    void paintGpuLabel(const ReportCanvas& canvas, const Layout& l) const;

    const Estimate& m_estimate;
    const Gpu& m_gpu;
    bool m_microBatch;
    MemorySweep m_sweep;
    std::vector<Component> m_shown; ///< components that are not zero everywhere, bottom to top
    std::vector<chartparts::LegendLine> m_lines; ///< the reserved line's legend entry, when it is drawn
};

} // namespace headroom::report

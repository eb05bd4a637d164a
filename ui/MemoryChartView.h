#pragma once

#include "ChartData.h"
#include "ComponentColors.h"

#include <QList>
#include <QPointF>
#include <QRectF>
#include <QWidget>
#include <array>
#include <cstdint>
#include <memory>

class QAbstractSeries;
class QImage;
class QLabel;
class QMenu;
class QStackedWidget;
class QTabWidget;
class QTreeWidget;

namespace headroom::ui {

class LayerActivationsView;
class StepChartView;
struct EstimateState;

/// The charts, and with StepChartView the only classes that know Qt Charts (so they can move to Qt
/// Graphs): memory versus batch size as stacked areas per component with the GPU's capacity, the
/// over-budget region, the current batch, the largest batch that fits and a hover breakdown; memory
/// during one step (StepChartView); and the per-layer activation memory (LayerActivationsView). It draws what
/// the PlanController hands it and computes nothing.
///
/// The batch axis is logarithmic (powers of two, labelled 1, 2, ..., 512, 1k, ..., 128k): a batch
/// of 32 and a max batch of 13,256 both stay readable, where a linear axis would press the first
/// against the y axis. The memory axis reaches a little above the GPU's memory, so the capacity
/// line is never flat on the axis.
class MemoryChartView final : public QWidget
{
    Q_OBJECT

public:
    explicit MemoryChartView(QWidget* parent = nullptr);
    ~MemoryChartView() override;

    /// Components from the bottom of the stack to the top: fixed costs first.
    static constexpr auto kStackOrder = ComponentColors::kStackOrder;

    /// A batch-axis label: 512, 1k, 1.5k, 128k, 1M (k = 1,024, as batch sizes are counted).
    [[nodiscard]] static QString compactBatch(std::int64_t batch);

    // What is drawn, for tests: points are (batch, memory in axis units).
    [[nodiscard]] double bytesPerUnit() const noexcept { return m_unit; }
    [[nodiscard]] QString unitName() const;
    /// The top edge of a component's band (the stack up to and including it).
    [[nodiscard]] QList<QPointF> upperPoints(Component c) const;
    /// True when the component has a band (non-zero somewhere) and a legend entry.
    [[nodiscard]] bool showsComponent(Component c) const;
    [[nodiscard]] QList<QPointF> capacityPoints() const;
    /// The reserved line: (batch, bytes reserved by the caching allocator plus the overhead).
    [[nodiscard]] QList<QPointF> reservedPoints() const;
    [[nodiscard]] QString capacityLabel() const;
    /// The GPU's label's box: x in batches (left and right), y in axis units; empty when not shown.
    [[nodiscard]] QRectF capacityLabelBox() const;
    [[nodiscard]] QList<QPointF> markerPoints() const;
    /// The vertical line at the largest batch that fits (empty when it is not on the chart).
    [[nodiscard]] QList<QPointF> maxBatchPoints() const;
    [[nodiscard]] QString maxBatchLabel() const;
    [[nodiscard]] QStringList batchAxisLabels() const;
    [[nodiscard]] double axisMaxBatch() const;
    [[nodiscard]] double axisMaxMemory() const;
    /// The memory axis's tick labels, bottom to top.
    [[nodiscard]] QStringList memoryAxisLabels() const;
    /// The hover tooltip's text for the sample nearest `batch`.
    [[nodiscard]] QString breakdownText(double batch) const;
    [[nodiscard]] LayerActivationsView* layerView() const noexcept { return m_layers; }
    [[nodiscard]] StepChartView* stepView() const noexcept { return m_step; }
    [[nodiscard]] QTabWidget* tabs() const noexcept { return m_tabs; }
    /// Why the reserved line is missing (the allocator is not simulated); hidden where it is not.
    [[nodiscard]] QLabel* reservedNote() const noexcept { return m_reservedNote; }

    /// What a right-click on the memory chart or the step chart offers: Copy Image (to the
    /// clipboard), Export Image... (PNG) and Export Report... (the last two asked of the window).
    [[nodiscard]] QMenu* contextMenu() const noexcept { return m_menu; }
    /// The chart of the tab shown (the memory chart, or the step chart) as an image.
    [[nodiscard]] QImage chartImage() const;
    /// "memory vs batch size" or "during one step": the chart shown, for a file name.
    [[nodiscard]] QString chartName() const;

Q_SIGNALS:
    void exportImageRequested();
    void exportReportRequested();

public Q_SLOTS:
    void setData(const headroom::ui::ChartData& data);
    void setEstimate(const headroom::ui::EstimateState& state);
    void setCurrentBatch(std::int64_t batch);
    void setStepData(const headroom::ui::StepChartData& data);

private:
    struct Charts;
    // The constructor's parts: the chart and its axes and stack; the capacity, marker and reserved
    // series; the labels over the plot; the tabs and the note under them.
    void buildChart();
    void buildSeries();
    void buildLabels();
    void buildTabs();
    void buildContextMenu();
    /// The chart widget of the tab shown (the memory chart view, or the step chart's).
    [[nodiscard]] QWidget* shownChart() const;
    void attach(QAbstractSeries* series);
    /// The axes, the stack and the markers for m_data at m_batch.
    void draw();
    void placeMarker();
    void updateLabels();
    void labelBatchAxis();
    [[nodiscard]] QList<QPointF> inBatches(const QList<QPointF>& points) const;

    std::unique_ptr<Charts> m_charts;
    ChartData m_data;
    std::int64_t m_batch = 1;
    double m_unit = 1024.0 * 1024.0 * 1024.0;
    int m_labelStep = 0; ///< every how many powers of two the batch axis is labelled
    double m_drawnTop = 0; ///< the memory axis's reach when last drawn (bytes, before rounding)
    QTabWidget* m_tabs;
    LayerActivationsView* m_layers;
    StepChartView* m_step;
    QStackedWidget* m_memoryStack;
    QLabel* m_message;
    QLabel* m_reservedNote = nullptr;
    QMenu* m_menu = nullptr;
};

} // namespace headroom::ui

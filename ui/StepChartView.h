#pragma once

#include "ChartData.h"
#include "ComponentColors.h"

#include <QList>
#include <QPoint>
#include <QPointF>
#include <QRectF>
#include <QWidget>
#include <cstddef>
#include <memory>
#include <optional>
#include <vector>

namespace headroom {
struct RunComparison;
struct AlignedStep;
} // namespace headroom

class QComboBox;
class QLabel;
class QStackedWidget;

namespace headroom::ui {

/// "During one step": live memory by component over the moments of one training step (forward,
/// backward, the optimizer step) at the chosen batch, as stacked areas, with the phases labelled, the
/// GPU's memory, and the peak marked with its layer and bytes; hovering names a moment's layer, phase
/// and live bytes. Shows the steady step or the first (no optimizer state before its optimizer step).
/// It draws what the PlanController hands it (the core's step simulation) and computes nothing.
///
/// Each moment is drawn as a flat step of equal width, the optimizer step as a wider band so its label
/// fits; a long step is thinned to the highest moment of each run of neighbours (the peak always kept).
/// It reads the step from the model only when shown: a slider tick with the tab hidden costs nothing.
class StepChartView final : public QWidget
{
    Q_OBJECT

public:
    explicit StepChartView(QWidget* parent = nullptr);
    ~StepChartView() override;

    static constexpr auto kStackOrder = ComponentColors::kStackOrder;
    /// At most this many moments are drawn (about one per two pixels of a wide chart).
    static constexpr std::size_t kMaxDrawnMoments = 800;

    [[nodiscard]] report::StepKind stepKind() const noexcept { return m_kind; }
    void setStepKind(report::StepKind kind);
    [[nodiscard]] QComboBox* stepKindBox() const noexcept { return m_kindBox; }
    /// The chart itself (a QChartView), without the header above it.
    [[nodiscard]] QWidget* chartWidget() const;

    // What is drawn, for tests: x runs over the moments (see xOfMoment), y is memory in axis units.
    [[nodiscard]] double bytesPerUnit() const noexcept { return m_unit; }
    [[nodiscard]] QString unitName() const { return m_unitName; }
    /// The top edge of a component's band (the stack up to and including it).
    [[nodiscard]] QList<QPointF> upperPoints(Component c) const;
    [[nodiscard]] bool showsComponent(Component c) const;
    /// The top of the whole stack: the step's total live memory.
    [[nodiscard]] QList<QPointF> totalPoints() const;
    /// The peak marker: (x, total in axis units); empty when nothing is drawn.
    [[nodiscard]] QList<QPointF> peakPoints() const;
    [[nodiscard]] QString peakLabel() const;
    /// The moments[] index of the peak in the chart shown.
    [[nodiscard]] std::size_t peakMoment() const { return m_chart.peak; }
    /// The step drawn (its moments thinned to at most kMaxDrawnMoments).
    [[nodiscard]] const report::StepChart& chart() const noexcept { return m_chart; }
    /// Where the peak marker is, in this widget's coordinates (for hovering it).
    [[nodiscard]] QPoint peakPosition() const;
    /// The x (in the bands' values, as xOfMoment) under `position`, a point of this widget.
    [[nodiscard]] double xAt(const QPoint& position) const;
    /// The memory axis's tick labels, bottom to top.
    [[nodiscard]] QStringList memoryAxisLabels() const;
    /// The phase labels under the plot, left to right.
    [[nodiscard]] QStringList phaseLabels() const;
    [[nodiscard]] QList<QPointF> capacityPoints() const;
    /// The allocated line's points (tensors + cuBLAS/cuDNN workspaces + overhead), in the axis unit; empty
    /// where it is not drawn.
    [[nodiscard]] QList<QPointF> allocatedPoints() const;
    /// The reserved line: (x, bytes reserved by the caching allocator plus the overhead, in axis units),
    /// two points per moment (its band's ends); empty where the allocator is not simulated.
    [[nodiscard]] QList<QPointF> reservedPoints() const;
    /// The peak label's box in the chart's values (x as the bands', y in axis units); empty if none.
    [[nodiscard]] QRectF peakLabelBox() const;
    /// The middle of a moment's band (moments[] index of the chart shown).
    [[nodiscard]] double xOfMoment(std::size_t moment) const;
    /// The hover tooltip's text at `x`: the moment's phase, layer and live bytes by component.
    [[nodiscard]] QString momentText(double x) const;
    [[nodiscard]] QString message() const;

    // A measured run beside the plan (issue 36): while one is open the chart draws, instead of the stack,
    // the comparison's four curves on its common x axis (forward [0, 1), backward [1, 2), the optimizer
    // step [2, 3)), the steady or the first step as the box says, with both allocated peaks marked.
    /// Draws `comparison` (null: back to the components' stack); `runName` names the measured curves.
    void setComparison(std::shared_ptr<const RunComparison> comparison, const QString& runName);
    [[nodiscard]] bool showsRun() const;
    /// The curves drawn, as steps (each event's level held until the next: two points per event), x on
    /// the common axis, y in axis units (bytesPerUnit()).
    [[nodiscard]] QList<QPointF> predictedAllocatedPoints() const;
    [[nodiscard]] QList<QPointF> predictedReservedPoints() const;
    [[nodiscard]] QList<QPointF> measuredAllocatedPoints() const;
    [[nodiscard]] QList<QPointF> measuredReservedPoints() const;
    /// The allocated peaks' markers (x, axis units) and labels, predicted then measured.
    [[nodiscard]] QList<QPointF> runPeakPoints() const;
    [[nodiscard]] QStringList runPeakLabels() const;
    /// The legend's names of the four curves (predicted allocated, reserved, measured allocated, reserved).
    [[nodiscard]] QStringList runLegend() const;
    /// The tooltip over the curves at `x` (the common axis): the phase there, then each drawn curve's
    /// bytes at that point (the level of its last event at or before x in that phase; a curve without
    /// events in the phase is left out). Empty outside [0, 3) or without a run.
    [[nodiscard]] QString runMomentText(double x) const;

public Q_SLOTS:
    void setData(const headroom::ui::StepChartData& data);

protected:
    void showEvent(QShowEvent* event) override;
    /// The tooltip follows the pointer along a band (an area series only says when it is entered).
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    struct Charts;
    struct RunChart;
    void buildRunChart();
    void redrawRun();
    void updateRunLabels();
    // The constructor's parts: the chart and its axes and stack; the capacity, reserved and peak
    // series; the labels over the plot; the header, the caption and the message.
    void buildChart();
    void buildSeries();
    void buildLabels();
    void buildWidgets();
    void redraw();
    /// The axes' ranges and labels for m_chart (the memory unit), then the stack in that unit.
    void drawAxes();
    /// The stack and the reserved line, in m_unit.
    void drawStack();
    void updateCaption();
    void updateLabels();
    /// Where the peak's label, wanted at `wanted` (scene coordinates), goes so it hides no reserved line.
    [[nodiscard]] double peakLabelTop(const QRectF& wanted) const;
    /// The moments[] index of the band under x.
    [[nodiscard]] std::optional<std::size_t> bandAt(double x) const;
    [[nodiscard]] QString layerText(const report::StepChartMoment& m) const;

    std::unique_ptr<Charts> m_charts;
    std::unique_ptr<RunChart> m_run;
    std::shared_ptr<const RunComparison> m_comparison;
    QString m_runName;
    StepChartData m_data;
    report::StepKind m_kind = report::StepKind::Steady;
    bool m_dirty = true; ///< data arrived while hidden: redraw when shown
    report::StepChart m_chart; ///< read from the model when drawn
    std::vector<double> m_bandStart; ///< x where each moment's band starts (and one past the last)
    double m_unit = 1024.0 * 1024.0;
    QString m_unitName = QStringLiteral("MiB");
    QComboBox* m_kindBox;
    QLabel* m_caption;
    QStackedWidget* m_stack;
    QLabel* m_message;
};

} // namespace headroom::ui

#pragma once

#include "ChartData.h"
#include "ComponentColors.h"

#include <QList>
#include <QPointF>
#include <QWidget>

#include <array>
#include <cstdint>
#include <memory>

class QLabel;
class QStackedWidget;
class QTabWidget;

namespace headroom::ui {

struct EstimateState;

/// The charts, and the only class that knows Qt Charts (so it can move to Qt Graphs): memory
/// versus batch size as stacked areas per component with the GPU's capacity, the over-budget
/// region, the current batch and a hover breakdown; and the per-layer activation memory as bars.
/// It draws what the PlanController hands it and computes nothing.
class MemoryChartView final : public QWidget {
    Q_OBJECT

public:
    explicit MemoryChartView(QWidget* parent = nullptr);
    ~MemoryChartView() override;

    /// Components from the bottom of the stack to the top: fixed costs first.
    static constexpr auto kStackOrder = ComponentColors::kStackOrder;

    // What is drawn, for tests: points are (batch, memory in axis units).
    [[nodiscard]] double bytesPerUnit() const noexcept { return m_unit; }
    [[nodiscard]] QString unitName() const;
    /// The top edge of a component's band (the stack up to and including it).
    [[nodiscard]] QList<QPointF> upperPoints(Component c) const;
    /// True when the component has a band (non-zero somewhere) and a legend entry.
    [[nodiscard]] bool showsComponent(Component c) const;
    [[nodiscard]] QList<QPointF> capacityPoints() const;
    [[nodiscard]] QString capacityLabel() const;
    [[nodiscard]] QList<QPointF> markerPoints() const;
    [[nodiscard]] double axisMaxBatch() const;
    [[nodiscard]] double axisMaxMemory() const;
    /// The hover tooltip's text for the sample nearest `batch`.
    [[nodiscard]] QString breakdownText(double batch) const;
    [[nodiscard]] QStringList barNames() const;
    [[nodiscard]] QList<qreal> barValues() const;
    [[nodiscard]] QTabWidget* tabs() const noexcept { return m_tabs; }

public Q_SLOTS:
    void setData(const headroom::ui::ChartData& data);
    void setEstimate(const headroom::ui::EstimateState& state);
    void setCurrentBatch(std::int64_t batch);

private:
    struct Charts;
    void updateLabels();
    void updateBars();

    std::unique_ptr<Charts> m_charts;
    ChartData m_data;
    std::int64_t m_batch = 1;
    double m_unit = 1024.0 * 1024.0 * 1024.0;
    double m_barUnit = 1024.0 * 1024.0;
    QTabWidget* m_tabs;
    QStackedWidget* m_memoryStack;
    QLabel* m_message;
};

} // namespace headroom::ui

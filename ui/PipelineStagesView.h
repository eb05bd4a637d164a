#pragma once

#include "headroom/estimate/Plan.h"

#include <QWidget>

class QLabel;
class QTableWidget;

namespace headroom::ui {

/// A pipeline plan's stages side by side (a tab of the charts while the plan has a pipeline): each
/// stage's layers, parameters, micro-batches in flight, peak, what its GPU holds, max batch and fit,
/// the heaviest (whose GPU the charts draw) in bold. The rows are report::plantext::pipelineStageRows(),
/// as `headroom estimate` and the PDF print them. Selecting a row does not change the charts.
class PipelineStagesView final : public QWidget
{
    Q_OBJECT

public:
    explicit PipelineStagesView(QWidget* parent = nullptr);

    /// The stages of `result` (none: an empty table), `charted` (the stage the charts show) selected.
    void setResult(const Plan& plan, const PlanResult& result, std::size_t charted);
    [[nodiscard]] QTableWidget* table() const noexcept { return m_table; }
    /// The heaviest stage's row, or -1 without stages.
    [[nodiscard]] int heaviestRow() const noexcept { return m_heaviestRow; }

Q_SIGNALS:
    /// The user chose a stage (from 0) to chart.
    void stageChosen(int stage);

private:
    QLabel* m_summary;
    QTableWidget* m_table;
    QLabel* m_errors;
    int m_heaviestRow = -1;
};

} // namespace headroom::ui

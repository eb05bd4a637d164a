#pragma once

#include "RowTableModel.h"
#include "headroom/planner/Planner.h"

#include <vector>

namespace headroom::ui {

/// The planner's set-ups (planSetups()), ranked, as a table: what each changes, whether that changes
/// what training computes, its batch, memory, largest micro-batch, step time, speed and whether it is
/// on the memory/speed Pareto front.
class PlanCandidateModel final : public RowTableModel<PlanCandidate>
{
    Q_OBJECT

public:
    enum Column {
        RankColumn,
        ChangesColumn,
        TrainingColumn,
        BatchColumn,
        MemoryColumn,
        MaxBatchColumn,
        StepColumn,
        SpeedColumn,
        ParetoColumn,
        ColumnCount
    };
    /// Qt::UserRole: true for a set-up on the Pareto front; the next role: true when it changes training.
    enum Role { ParetoRole = Qt::UserRole, ChangesTrainingRole };

    explicit PlanCandidateModel(QObject* parent = nullptr);

    void setCandidates(std::vector<PlanCandidate> candidates) { setRows(std::move(candidates)); }
    [[nodiscard]] const std::vector<PlanCandidate>& candidates() const noexcept { return rows(); }
    /// The set-up of a row, or null for a row that is not there.
    [[nodiscard]] const PlanCandidate* candidate(int row) const { return rowAt(row); }

private:
    void rowsReset() override;
    [[nodiscard]] QVariant cell(const PlanCandidate& c, const QModelIndex& index, int role) const override;
    [[nodiscard]] QVariant header(int column, bool tip) const override;
    [[nodiscard]] static QVariant alignment(int column);
    [[nodiscard]] static QVariant toolTip(const PlanCandidate& c, int column);
    [[nodiscard]] QVariant displayText(const PlanCandidate& c, const QModelIndex& index) const;

    bool m_tokens = false; ///< sequence models: the speed column counts tokens
};

} // namespace headroom::ui

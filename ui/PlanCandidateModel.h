#pragma once

#include "headroom/planner/Planner.h"

#include <QAbstractTableModel>
#include <QString>
#include <vector>

namespace headroom::ui {

/// The planner's set-ups (planSetups()), ranked, as a table: what each changes, whether that changes
/// what training computes, its batch, memory, largest micro-batch, step time, speed and whether it is
/// on the memory/speed Pareto front.
class PlanCandidateModel final : public QAbstractTableModel
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

    void setCandidates(std::vector<PlanCandidate> candidates);
    [[nodiscard]] const std::vector<PlanCandidate>& candidates() const noexcept { return m_candidates; }
    /// The set-up of a row, or null for a row that is not there.
    [[nodiscard]] const PlanCandidate* candidate(int row) const;

    [[nodiscard]] int rowCount(const QModelIndex& parent = QModelIndex()) const override;
    [[nodiscard]] int columnCount(const QModelIndex& parent = QModelIndex()) const override;
    [[nodiscard]] QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    [[nodiscard]] QVariant headerData(
        int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    [[nodiscard]] static QVariant alignment(int column);
    [[nodiscard]] static QVariant toolTip(const PlanCandidate& c, int column);
    [[nodiscard]] QVariant displayText(const PlanCandidate& c, const QModelIndex& index) const;

    std::vector<PlanCandidate> m_candidates;
    bool m_tokens = false; ///< sequence models: the speed column counts tokens
};

} // namespace headroom::ui

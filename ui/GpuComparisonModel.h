#pragma once

#include "headroom/planner/Planner.h"

#include <QAbstractTableModel>
#include <vector>

namespace headroom::ui {

/// Every GPU side by side (compareGpus()) for the open set-up, as a table: the peak and whether it
/// fits at the set-up's batch (the headers name it), max batch, whether that reaches the target
/// effective batch, step time, samples per second, smallest memory first, the smallest GPU that
/// reaches the target marked (Qt::UserRole, bold and highlighted). The command line's compare
/// table has the same columns.
class GpuComparisonModel final : public QAbstractTableModel
{
    Q_OBJECT

public:
    enum Column {
        GpuColumn,
        MemoryColumn,
        PeakColumn,
        FitsColumn,
        MaxBatchColumn,
        ReachesColumn,
        StepColumn,
        SpeedColumn,
        ColumnCount
    };
    enum Role { SmallestReachingTargetRole = Qt::UserRole, ReachesTargetRole };

    explicit GpuComparisonModel(QObject* parent = nullptr);
    /// `batch`: the set-up's (micro-)batch, which the peak and fit columns are at.
    void setRows(std::vector<GpuComparison> rows, std::int64_t batch);
    [[nodiscard]] const std::vector<GpuComparison>& rows() const noexcept { return m_rows; }

    [[nodiscard]] int rowCount(const QModelIndex& parent = QModelIndex()) const override;
    [[nodiscard]] int columnCount(const QModelIndex& parent = QModelIndex()) const override;
    [[nodiscard]] QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    [[nodiscard]] QVariant headerData(
        int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::vector<GpuComparison> m_rows;
    std::int64_t m_batch = 1;
};

} // namespace headroom::ui

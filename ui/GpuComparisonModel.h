#pragma once

#include "headroom/Planner.h"

#include <QAbstractTableModel>

#include <vector>

namespace headroom::ui {

/// Every GPU side by side (compareGpus()) for the open set-up, as a table: fits or not, max batch,
/// step time, samples per second, smallest memory first, the smallest GPU that reaches the target
/// effective batch marked (Qt::UserRole, bold and highlighted).
class GpuComparisonModel final : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Column { GpuColumn, MemoryColumn, FitsColumn, MaxBatchColumn, StepColumn, SpeedColumn, ColumnCount };
    enum Role { SmallestReachingTargetRole = Qt::UserRole, ReachesTargetRole };

    explicit GpuComparisonModel(QObject* parent = nullptr);
    void setRows(std::vector<GpuComparison> rows);
    [[nodiscard]] const std::vector<GpuComparison>& rows() const noexcept { return m_rows; }

    [[nodiscard]] int rowCount(const QModelIndex& parent = QModelIndex()) const override;
    [[nodiscard]] int columnCount(const QModelIndex& parent = QModelIndex()) const override;
    [[nodiscard]] QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    [[nodiscard]] QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::vector<GpuComparison> m_rows;
};

} // namespace headroom::ui

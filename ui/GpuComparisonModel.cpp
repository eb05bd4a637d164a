#include "GpuComparisonModel.h"

#include "QtText.h"
#include "UiText.h"

#include <QBrush>
#include <QFont>
#include <QPalette>

namespace headroom::ui {

GpuComparisonModel::GpuComparisonModel(QObject* parent) : QAbstractTableModel(parent) {}

void GpuComparisonModel::setRows(std::vector<GpuComparison> rows)
{
    beginResetModel();
    m_rows = std::move(rows);
    endResetModel();
}

int GpuComparisonModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int GpuComparisonModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant GpuComparisonModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const GpuComparison& r = m_rows[static_cast<std::size_t>(index.row())];
    const bool runs = r.estimate.fits && r.throughput;
    switch (role) {
    case SmallestReachingTargetRole: return r.smallestReachingTarget;
    case ReachesTargetRole: return r.reachesTarget;
    case Qt::FontRole:
        if (r.smallestReachingTarget) {
            QFont bold;
            bold.setBold(true);
            return bold;
        }
        return {};
    case Qt::BackgroundRole:
        if (r.smallestReachingTarget)
            return QBrush(QPalette().color(QPalette::Highlight).lighter(170));
        return {};
    case Qt::ToolTipRole:
        if (r.smallestReachingTarget)
            return tr("The GPU with the least memory that reaches the target effective batch");
        if (!r.throughput && index.column() >= StepColumn)
            return qs(r.throughputError);
        return {};
    case Qt::TextAlignmentRole:
        return index.column() == GpuColumn || index.column() == FitsColumn
            ? QVariant::fromValue(Qt::AlignLeft | Qt::AlignVCenter)
            : QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
    case Qt::DisplayRole: break;
    default: return {};
    }
    switch (static_cast<Column>(index.column())) {
    case GpuColumn: return qs(r.gpu.name);
    case MemoryColumn: return UiText::bytes(r.gpu.memoryBytes);
    case FitsColumn: return r.estimate.fits ? tr("yes") : tr("no");
    case MaxBatchColumn:
        return r.estimate.maxEffectiveBatch != r.estimate.maxBatch
            ? tr("%1 (effective %2)").arg(r.estimate.maxBatch).arg(r.estimate.maxEffectiveBatch)
            : QString::number(r.estimate.maxBatch);
    case StepColumn: return runs ? UiText::seconds(r.throughput->stepSeconds) : tr("–");
    case SpeedColumn: return runs ? UiText::rate(r.throughput->samplesPerSecond) : tr("–");
    case ColumnCount: break;
    }
    return {};
}

QVariant GpuComparisonModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (static_cast<Column>(section)) {
    case GpuColumn: return tr("GPU");
    case MemoryColumn: return tr("Memory");
    case FitsColumn: return tr("Fits");
    case MaxBatchColumn: return tr("Max batch");
    case StepColumn: return tr("Step time");
    case SpeedColumn: return tr("Samples/s");
    case ColumnCount: break;
    }
    return {};
}

} // namespace headroom::ui

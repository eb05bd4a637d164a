#include "GpuComparisonModel.h"

#include "QtText.h"
#include "UiText.h"

#include <QBrush>
#include <QFont>
#include <QPalette>
#include <algorithm>

namespace headroom::ui {

GpuComparisonModel::GpuComparisonModel(QObject* parent)
    : QAbstractTableModel(parent)
{
}

void GpuComparisonModel::setRows(std::vector<GpuComparison> rows, std::int64_t batch)
{
    beginResetModel();
    m_rows = std::move(rows);
    m_batch = batch;
    endResetModel();
}

int GpuComparisonModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int GpuComparisonModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant GpuComparisonModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const GpuComparison& r = m_rows[static_cast<std::size_t>(index.row())];
    const bool runs = r.estimate.fits && r.throughput;
    switch (role) {
    case SmallestReachingTargetRole:
        return r.smallestReachingTarget;
    case ReachesTargetRole:
        return r.reachesTarget;
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
    case Qt::ToolTipRole: {
        QStringList tip;
        if (r.smallestReachingTarget)
            tip << tr("The GPU with the least memory that reaches the target effective batch");
        if (!r.throughput && index.column() >= StepColumn)
            tip << qs(r.throughputError);
        if (index.column() == GpuColumn)
            tip << tr("Double-click (or right-click) to use this GPU");
        return tip.isEmpty() ? QVariant() : QVariant(tip.join(QLatin1Char('\n')));
    }
    case Qt::TextAlignmentRole:
        return index.column() == GpuColumn || index.column() == FitsColumn || index.column() == ReachesColumn
            ? QVariant::fromValue(Qt::AlignLeft | Qt::AlignVCenter)
            : QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
    case Qt::DisplayRole:
        break;
    default:
        return {};
    }
    switch (static_cast<Column>(index.column())) {
    case GpuColumn:
        return qs(r.gpu.name);
    case MemoryColumn:
        return UiText::bytes(r.gpu.memoryBytes);
    case PeakColumn:
        return UiText::bytes(r.estimate.heldBytes);
    case FitsColumn:
        return r.estimate.fits ? tr("yes") : tr("no");
    case ReachesColumn:
        return r.reachesTarget ? tr("yes") : tr("no");
    case MaxBatchColumn:
        return r.estimate.maxEffectiveBatch != r.estimate.maxBatch
            ? tr("%1 (effective %2)")
                  .arg(UiText::count(
                           static_cast<std::uint64_t>(std::max<std::int64_t>(r.estimate.maxBatch, 0))),
                      UiText::count(static_cast<std::uint64_t>(
                          std::max<std::int64_t>(r.estimate.maxEffectiveBatch, 0))))
            : UiText::count(static_cast<std::uint64_t>(std::max<std::int64_t>(r.estimate.maxBatch, 0)));
    case StepColumn:
        return runs ? UiText::seconds(r.throughput->stepSeconds) : tr("–");
    case SpeedColumn:
        return runs ? UiText::rate(r.throughput->samplesPerSecond) : tr("–");
    case ColumnCount:
        break;
    }
    return {};
}

QVariant GpuComparisonModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || (role != Qt::DisplayRole && role != Qt::ToolTipRole))
        return QAbstractTableModel::headerData(section, orientation, role);
    const bool tip = role == Qt::ToolTipRole;
    switch (static_cast<Column>(section)) {
    case GpuColumn:
        return tip ? QVariant() : tr("GPU");
    case MemoryColumn:
        return tip ? tr("The GPU's memory") : tr("Memory");
    case PeakColumn:
        return tip ? tr("What the GPU holds at the peak of one training step at the set-up's batch, %1: what "
                        "PyTorch's "
                        "caching allocator reserves, plus the overhead")
                         .arg(m_batch)
                   : tr("Peak (batch %1)").arg(m_batch);
    case FitsColumn:
        return tip ? tr("Whether the set-up's batch, %1, fits this GPU").arg(m_batch)
                   : tr("Fits batch %1").arg(m_batch);
    case MaxBatchColumn:
        return tip ? tr("The largest micro-batch that fits this GPU") : tr("Max batch");
    case ReachesColumn:
        return tip ? tr("Whether the largest batch that fits reaches the target effective batch")
                   : tr("Reaches target");
    case StepColumn:
        return tip ? tr("One optimizer step at the set-up's batch") : tr("Step time");
    case SpeedColumn:
        return tip ? tr("Samples per second at the set-up's batch") : tr("Samples/s");
    case ColumnCount:
        break;
    }
    return {};
}

} // namespace headroom::ui

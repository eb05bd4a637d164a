#pragma once

#include "headroom/planner/ClusterPlanner.h"

#include <QAbstractTableModel>
#include <vector>

namespace headroom::ui {

/// The cluster planner's layouts (planCluster()), fastest first, as a table: the degrees of each
/// parallelism, the micro-batch and accumulation, recomputation and sharding, what the heaviest GPU
/// holds (the caching allocator's reserved peak plus the overhead) and which pipeline stage that is,
/// the samples per second and the pipeline bubble. The cells are the PDF's (report::plantext).
class ClusterLayoutModel final : public QAbstractTableModel
{
    Q_OBJECT

public:
    enum Column {
        RankColumn,
        TensorParallelColumn,
        PipelineParallelColumn,
        ScheduleColumn,
        ContextParallelColumn,
        ExpertParallelColumn,
        DataParallelColumn,
        MicroBatchColumn,
        AccumulationColumn,
        RecomputeColumn,
        ShardingColumn,
        MemoryColumn,
        HeaviestStageColumn,
        SamplesPerSecondColumn,
        BubbleColumn,
        ColumnCount
    };

    explicit ClusterLayoutModel(QObject* parent = nullptr);

    void setLayouts(std::vector<ClusterLayout> layouts);
    [[nodiscard]] const std::vector<ClusterLayout>& layouts() const noexcept { return m_layouts; }
    /// The layout of a row, or null for a row that is not there.
    [[nodiscard]] const ClusterLayout* layout(int row) const;

    [[nodiscard]] int rowCount(const QModelIndex& parent = QModelIndex()) const override;
    [[nodiscard]] int columnCount(const QModelIndex& parent = QModelIndex()) const override;
    [[nodiscard]] QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    [[nodiscard]] QVariant headerData(
        int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    [[nodiscard]] static QVariant displayText(const ClusterLayout& l, int row, int column);
    [[nodiscard]] static QVariant toolTip(const ClusterLayout& l, int column);

    std::vector<ClusterLayout> m_layouts;
};

} // namespace headroom::ui

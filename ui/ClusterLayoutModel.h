#pragma once

#include "RowTableModel.h"
#include "headroom/planner/ClusterPlanner.h"

#include <vector>

namespace headroom::ui {

/// The cluster planner's layouts (planCluster()), fastest first, as a table: the degrees of each
/// parallelism, the micro-batch and accumulation, recomputation and sharding, what the heaviest GPU
/// holds (the caching allocator's reserved peak plus the overhead) and which pipeline stage that is,
/// the samples per second and the pipeline bubble. The cells are the PDF's (report::plantext).
class ClusterLayoutModel final : public RowTableModel<ClusterLayout>
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

    void setLayouts(std::vector<ClusterLayout> layouts) { setRows(std::move(layouts)); }
    [[nodiscard]] const std::vector<ClusterLayout>& layouts() const noexcept { return rows(); }
    /// The layout of a row, or null for a row that is not there.
    [[nodiscard]] const ClusterLayout* layout(int row) const { return rowAt(row); }

private:
    [[nodiscard]] QVariant cell(const ClusterLayout& l, const QModelIndex& index, int role) const override;
    [[nodiscard]] QVariant header(int column, bool tip) const override;
    [[nodiscard]] static QVariant displayText(const ClusterLayout& l, int row, int column);
    [[nodiscard]] static QVariant toolTip(const ClusterLayout& l, int column);
};

} // namespace headroom::ui

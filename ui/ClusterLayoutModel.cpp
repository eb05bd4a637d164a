#include "ClusterLayoutModel.h"

#include "ClusterText.h" // report/
#include "QtText.h"
#include "UiText.h"

namespace headroom::ui {

ClusterLayoutModel::ClusterLayoutModel(QObject* parent)
    : RowTableModel(ColumnCount, parent)
{
}

QVariant ClusterLayoutModel::displayText(const ClusterLayout& l, int row, int column)
{
    const report::plantext::ClusterLayoutRow r = report::plantext::clusterLayoutRow(l);
    switch (static_cast<Column>(column)) {
    case RankColumn:
        return row + 1;
    case TensorParallelColumn:
        return qs(r.tensorParallel);
    case PipelineParallelColumn:
        return qs(r.pipelineParallel);
    case ScheduleColumn:
        return qs(r.schedule);
    case ContextParallelColumn:
        return qs(r.contextParallel);
    case ExpertParallelColumn:
        return qs(r.expertParallel);
    case DataParallelColumn:
        return qs(r.dataParallel);
    case MicroBatchColumn:
        return qs(r.microBatch);
    case AccumulationColumn:
        return qs(r.accumulation);
    case RecomputeColumn:
        return qs(r.recompute);
    case ShardingColumn:
        return qs(r.sharding);
    case MemoryColumn:
        return qs(r.reserved);
    case HeaviestStageColumn:
        return qs(r.heaviestStage);
    case SamplesPerSecondColumn:
        return qs(r.samplesPerSecond);
    case BubbleColumn:
        return qs(r.bubble);
    case ColumnCount:
        break;
    }
    return {};
}

QVariant ClusterLayoutModel::toolTip(const ClusterLayout& l, int column)
{
    const report::plantext::ClusterLayoutRow r = report::plantext::clusterLayoutRow(l);
    switch (column) {
    case MemoryColumn:
        return tr("Held at the peak: %1 (the tensors: %2) of %3")
            .arg(qs(r.reserved), qs(r.tensors), UiText::bytes(l.estimate.gpuMemoryBytes));
    case HeaviestStageColumn:
        return r.heaviestStageLayers.empty() ? QVariant {} : QVariant { qs(r.heaviestStageLayers) };
    case SamplesPerSecondColumn:
        return tr("One optimizer step: %1").arg(qs(r.step));
    default:
        return {};
    }
}

QVariant ClusterLayoutModel::cell(const ClusterLayout& l, const QModelIndex& index, int role) const
{
    switch (role) {
    case Qt::TextAlignmentRole:
        return index.column() == ScheduleColumn || index.column() == RecomputeColumn
                || index.column() == ShardingColumn
            ? QVariant::fromValue(Qt::AlignLeft | Qt::AlignVCenter)
            : QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
    case Qt::ToolTipRole:
        return toolTip(l, index.column());
    case Qt::DisplayRole:
        return displayText(l, index.row(), index.column());
    default:
        return {};
    }
}

QVariant ClusterLayoutModel::header(int column, bool tip) const
{
    switch (static_cast<Column>(column)) {
    case RankColumn:
        return tip ? tr("Fastest first") : tr("#");
    case TensorParallelColumn:
        return tip ? tr("Tensor parallel GPUs (with sequence parallelism), within one node") : tr("TP");
    case PipelineParallelColumn:
        return tip ? tr("Pipeline stages") : tr("PP");
    case ScheduleColumn:
        return tip ? tr("The pipeline's schedule (× the model chunks of each stage)") : tr("Schedule");
    case ContextParallelColumn:
        return tip ? tr("Context parallel GPUs: each holds a part of the sequence") : tr("CP");
    case ExpertParallelColumn:
        return tip ? tr("Expert parallel GPUs: each holds a part of the experts") : tr("EP");
    case DataParallelColumn:
        return tip ? tr("Data-parallel replicas: the GPUs ÷ (TP × PP × CP)") : tr("DP");
    case MicroBatchColumn:
        return tip ? tr("Samples per micro-batch on each data-parallel replica") : tr("Micro-batch");
    case AccumulationColumn:
        return tip ? tr("Micro-batches per optimizer step (the accumulation steps)") : tr("Accumulation");
    case RecomputeColumn:
        return tip ? tr("Activation recomputation (checkpointing)") : tr("Recompute");
    case ShardingColumn:
        return tip ? tr("Sharding over the data-parallel replicas (DDP: none)") : tr("ZeRO");
    case MemoryColumn:
        return tip ? tr("What the heaviest GPU holds at its peak: what PyTorch's caching allocator "
                        "reserves, plus the overhead")
                   : tr("Memory (heaviest GPU)");
    case HeaviestStageColumn:
        return tip ? tr("The pipeline stage on that GPU (its layers in the cell's tooltip)")
                   : tr("Heaviest stage");
    case SamplesPerSecondColumn:
        return tip ? tr("Samples per second of the whole cluster, by the throughput model (no "
                        "communication timed)")
                   : tr("Samples/s");
    case BubbleColumn:
        return tip ? tr("The pipeline bubble's share of the step: (PP − 1) ÷ (chunks × accumulation)")
                   : tr("Bubble");
    case ColumnCount:
        break;
    }
    return {};
}

} // namespace headroom::ui

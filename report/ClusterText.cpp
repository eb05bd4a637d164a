#include "ClusterText.h"

#include "PlanText.h"
#include "headroom/support/Format.h"

#include <QCoreApplication>
#include <algorithm>

// Translated in the context "headroom::report::plantext", as PlanText.cpp's sentences.

namespace headroom::report::plantext {

namespace {

constexpr const char* kClusterContext = "headroom::report::plantext";

QString clusterTr(const char* english)
{
    return QCoreApplication::translate(kClusterContext, english);
}

std::string clusterStr(const QString& s)
{
    return s.toStdString();
}

std::string countText(std::int64_t n)
{
    return formatCount(static_cast<std::uint64_t>(std::max<std::int64_t>(n, 0)));
}

std::string pluralText(std::size_t n, const char* one, const char* many)
{
    return clusterStr(clusterTr(n == 1 ? one : many).arg(QString::fromStdString(formatCount(n))));
}

} // namespace

std::string clusterScheduleText(const Parallelism& par)
{
    if (par.pipelineParallel <= 1)
        return "–";
    switch (par.schedule) {
    case PipelineSchedule::Interleaved:
        return clusterStr(clusterTr(QT_TRANSLATE_NOOP("headroom::report::plantext", "interleaved ×%1"))
                              .arg(par.virtualStages));
    case PipelineSchedule::GPipe:
        return "GPipe";
    case PipelineSchedule::ZeroBubble:
        return clusterStr(clusterTr(QT_TRANSLATE_NOOP("headroom::report::plantext", "zero bubble")));
    case PipelineSchedule::OneFOneB:
        break;
    }
    return "1F1B";
}

std::string clusterShardingText(const Parallelism& par)
{
    std::string text;
    switch (par.sharding) {
    case Sharding::None:
        text = "DDP";
        break;
    case Sharding::Zero1:
        text = "ZeRO-1";
        break;
    case Sharding::Zero2:
        text = "ZeRO-2";
        break;
    case Sharding::Zero3:
        text = "ZeRO-3";
        break;
    case Sharding::FsdpShardGradOp:
        text = "FSDP SHARD_GRAD_OP";
        break;
    case Sharding::FsdpFullShard:
        text = "FSDP FULL_SHARD";
        break;
    }
    if (par.offloadOptimizer)
        text = clusterStr(clusterTr(QT_TRANSLATE_NOOP("headroom::report::plantext", "%1 + offload"))
                              .arg(QString::fromStdString(text)));
    return text;
}

namespace {

std::string clusterRecomputeText(Checkpointing c)
{
    switch (c) {
    case Checkpointing::Selective:
        return clusterStr(clusterTr(QT_TRANSLATE_NOOP("headroom::report::plantext", "Selective")));
    case Checkpointing::PerBlock:
        return clusterStr(clusterTr(QT_TRANSLATE_NOOP("headroom::report::plantext", "Per block")));
    case Checkpointing::None:
        break;
    }
    return clusterStr(clusterTr(QT_TRANSLATE_NOOP("headroom::report::plantext", "None")));
}

} // namespace

ClusterLayoutRow clusterLayoutRow(const ClusterLayout& l)
{
    const TrainingSetup& t = l.settings.setup;
    const Parallelism& p = t.parallel;
    ClusterLayoutRow row;
    row.tensorParallel = countText(p.tensorParallel);
    row.pipelineParallel = countText(p.pipelineParallel);
    row.schedule = clusterScheduleText(p);
    row.contextParallel = countText(p.contextParallel);
    row.expertParallel = countText(p.expertParallel);
    row.dataParallel = countText(p.dataParallel());
    row.microBatch = countText(t.batch);
    row.accumulation = countText(t.accumulationSteps);
    row.batch = row.microBatch + " × " + row.accumulation;
    row.recompute = clusterRecomputeText(l.settings.checkpointing);
    row.sharding = clusterShardingText(p);
    row.tensors = formatBytes(l.estimate.peakBytes());
    // What the GPU holds at the peak: the replayed reserved peak plus the overhead (heldBytes, the
    // figure the fit and the ranking use, is the same where the allocator was replayed).
    row.reserved
        = formatBytes(l.reserved.replayed() ? l.reserved.peakWithOverheadBytes() : l.estimate.heldBytes);
    if (p.pipelineParallel > 1) {
        row.heaviestStage = clusterStr(clusterTr(QT_TRANSLATE_NOOP("headroom::report::plantext", "%1 of %2"))
                                           .arg(l.heaviestStage + 1)
                                           .arg(p.pipelineParallel));
        row.heaviestStageLayers = l.heaviestStageText;
    } else {
        row.heaviestStage = "–";
    }
    row.step = formatSeconds(l.throughput.stepSeconds);
    row.bubble = std::to_string(static_cast<int>(l.bubbleFraction * 100.0 + 0.5)) + " %";
    row.samplesPerSecond = formatRate(l.throughput.samplesPerSecond);
    row.tokensPerSecondPerGpu = l.throughput.tokensPerSecond > 0 && p.gpus > 0
        ? formatRate(l.throughput.tokensPerSecond / static_cast<double>(p.gpus))
        : std::string("–");
    return row;
}

std::string clusterRequestText(const ClusterRequest& request, const Gpu& gpu)
{
    return clusterStr(
        clusterTr(QT_TRANSLATE_NOOP("headroom::report::plantext",
                      "%1 × %2 (%3), %4 per node, global batch %5 (micro-batch × accumulation steps × data "
                      "parallel)"))
            .arg(QString::fromStdString(countText(request.gpus)), QString::fromStdString(gpu.name),
                QString::fromStdString(formatBytes(gpu.memoryBytes)),
                QString::fromStdString(countText(request.gpusPerNode)),
                QString::fromStdString(countText(request.globalBatch))));
}

std::string clusterSearchedText(const ClusterPlan& plan)
{
    return clusterStr(
        clusterTr(QT_TRANSLATE_NOOP("headroom::report::plantext", "%1, %2 worked out (%3, %4, %5)"))
            .arg(QString::fromStdString(pluralText(plan.layoutsEnumerated,
                     QT_TRANSLATE_NOOP("headroom::report::plantext", "%1 layout"),
                     QT_TRANSLATE_NOOP("headroom::report::plantext", "%1 layouts"))),
                QString::fromStdString(formatCount(plan.layoutsExamined)),
                QString::fromStdString(
                    pluralText(plan.analyses, QT_TRANSLATE_NOOP("headroom::report::plantext", "%1 analysis"),
                        QT_TRANSLATE_NOOP("headroom::report::plantext", "%1 analyses"))),
                QString::fromStdString(pluralText(plan.memoryModels,
                    QT_TRANSLATE_NOOP("headroom::report::plantext", "%1 step model"),
                    QT_TRANSLATE_NOOP("headroom::report::plantext", "%1 step models"))),
                QString::fromStdString(pluralText(plan.replays,
                    QT_TRANSLATE_NOOP("headroom::report::plantext", "%1 allocator replay"),
                    QT_TRANSLATE_NOOP("headroom::report::plantext", "%1 allocator replays")))));
}

} // namespace headroom::report::plantext

#pragma once

#include "headroom/planner/ClusterPlanner.h"

#include <string>
#include <vector>

namespace headroom::report::plantext {

/// One layout of the cluster planner (planCluster()) as the GUI's Make It Fit panel and the PDF's
/// "Cluster layouts" table show it: the figures `headroom plan --global-batch` prints, formatted the
/// same way (Format.h), the words translated like the rest of plantext.
struct ClusterLayoutRow final
{
    std::string tensorParallel; ///< "8"
    std::string pipelineParallel; ///< "4"
    std::string schedule; ///< "1F1B", "interleaved ×2"; "–" without a pipeline
    std::string contextParallel;
    std::string expertParallel;
    std::string dataParallel; ///< G / (t p c)
    std::string microBatch;
    std::string accumulation; ///< micro-batches per step on each data-parallel rank
    std::string batch; ///< "2 × 16": the micro-batch × the accumulation steps (the command line's column)
    std::string recompute; ///< "None", "Selective", "Per block"
    std::string sharding; ///< "DDP", "ZeRO-1", ... with " + offload" for the optimizer state in CPU memory
    std::string tensors; ///< the heaviest GPU's peak by the tensors
    std::string reserved; ///< what the heaviest GPU holds: the allocator's reserved peak + the overhead
    std::string heaviestStage; ///< "1 of 4"; "–" without a pipeline
    std::string heaviestStageLayers; ///< stageLayersText() of that stage; empty without a pipeline
    std::string step; ///< "1.85 s": the slowest stage's step with the bubble
    std::string bubble; ///< "12 %"
    std::string samplesPerSecond; ///< the whole cluster's
    std::string tokensPerSecondPerGpu; ///< "–" for models without tokens
};

[[nodiscard]] ClusterLayoutRow clusterLayoutRow(const ClusterLayout& layout);
/// "1F1B", "interleaved ×2"; "–" without a pipeline.
[[nodiscard]] std::string clusterScheduleText(const Parallelism& par);
/// "ZeRO-1", "DDP", "ZeRO-1 + offload".
[[nodiscard]] std::string clusterShardingText(const Parallelism& par);
/// "64 × H100 SXM5 80GB (80.0 GiB), 8 per node, global batch 1,024": what was searched for.
[[nodiscard]] std::string clusterRequestText(const ClusterRequest& request, const Gpu& gpu);
/// "4,407 layouts, 774 worked out (57 analyses, 765 step models, 29 allocator replays)".
[[nodiscard]] std::string clusterSearchedText(const ClusterPlan& plan);

} // namespace headroom::report::plantext

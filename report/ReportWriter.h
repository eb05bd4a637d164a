#pragma once

#include "headroom/estimate/Plan.h"
#include "headroom/estimate/RunComparison.h"
#include "headroom/measured/MeasuredRun.h"
#include "headroom/planner/ClusterPlanner.h"
#include "headroom/planner/Planner.h"
#include "headroom/support/Error.h"

#include <QString>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace headroom::report {

/// A recorded run beside the plan (`headroom report --measured RUN`, the GUI's export with a run open):
/// the "Plan and measured run" page.
struct MeasuredRunReport final
{
    std::shared_ptr<const MeasuredRun> run;
    /// compareRun(*run, plan, result, context) of the plan reported.
    RunComparison comparison;
    /// The run's file name as the page names it ("run.pickle").
    std::string source;
};

/// The cluster planner's layouts beside the plan (`headroom report --include-plan --global-batch B`, the
/// GUI's export while Make It Fit shows cluster layouts): the "Cluster layouts" section.
struct ClusterReport final
{
    ClusterRequest request; ///< what was searched: the GPUs, GPUs per node, global batch
    ClusterPlan plan; ///< planCluster(plan reported, request)
};

/// What a report adds on request.
struct ReportOptions final
{
    /// The planner's set-ups for `plannerGoal` (`headroom report --include-plan`, the GUI's Plan >
    /// Include Set-ups in Reports): a table after the throughput.
    std::optional<PlannerResult> planner;
    PlanGoal plannerGoal;
    /// The files the plan was read from (the model file, the ONNX model or config it was imported from):
    /// the report never replaces one of them (saveTarget).
    std::vector<std::string> sources;
    /// A measured run: the "Plan and measured run" page after the throughput (and the planner's table).
    std::optional<MeasuredRunReport> measured;
    /// The cluster planner's layouts: a "Cluster layouts" section after the planner's set-ups.
    std::optional<ClusterReport> cluster;
};

/// Writes `plan` (worked out as `result`) as a PDF report: title, set-up, summary, the stacked
/// memory chart as vector graphics, the per-layer table across pages, assumptions and method.
/// The file appears atomically: on any failure nothing is left at `path` and the error says why.
/// Needs a QGuiApplication (the offscreen platform is enough).
[[nodiscard]] Result<bool> writePdfReport(
    const Plan& plan, const PlanResult& result, const QString& path, const ReportOptions& options = {});

} // namespace headroom::report

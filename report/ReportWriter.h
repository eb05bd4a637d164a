#pragma once

#include "headroom/estimate/Plan.h"
#include "headroom/planner/Planner.h"
#include "headroom/support/Error.h"

#include <QString>
#include <optional>
#include <string>
#include <vector>

namespace headroom::report {

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
};

/// Writes `plan` (worked out as `result`) as a PDF report: title, set-up, summary, the stacked
/// memory chart as vector graphics, the per-layer table across pages, assumptions and method.
/// The file appears atomically: on any failure nothing is left at `path` and the error says why.
/// Needs a QGuiApplication (the offscreen platform is enough).
[[nodiscard]] Result<bool> writePdfReport(
    const Plan& plan, const PlanResult& result, const QString& path, const ReportOptions& options = {});

} // namespace headroom::report

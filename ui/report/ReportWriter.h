#pragma once

#include "headroom/Error.h"
#include "headroom/Plan.h"

#include <QString>

namespace headroom::report {

/// Writes `plan` (worked out as `result`) as a PDF report: title, set-up, summary, the stacked
/// memory chart as vector graphics, the per-layer table across pages, assumptions and method.
/// The file appears atomically: on any failure nothing is left at `path` and the error says why.
/// Needs a QGuiApplication (the offscreen platform is enough).
[[nodiscard]] Result<bool> writePdfReport(const Plan& plan, const PlanResult& result, const QString& path);

} // namespace headroom::report

#pragma once

#include "Options.h"
#include "headroom/estimate/Plan.h"
#include "headroom/setup/GpuCatalog.h"

#include <iosfwd>
#include <string>

namespace headroom::cli {

/// The GPU catalogue in Headroom's data folder (found from the executable, or HEADROOM_RESOURCES).
[[nodiscard]] GpuCatalog loadCatalog(const std::string& executablePath);

/// The plan the options describe: the model file loaded, the GPU looked up, the set-up filled in.
[[nodiscard]] Plan makePlan(const Options& o, const std::string& executablePath);

/// evaluate(); a plan that cannot be estimated is a UsageError with the reason (and nothing else: its
/// warnings are printed only with an answer, issue 38).
[[nodiscard]] PlanResult evaluateOrRefuse(
    const Plan& plan, MaxBatchSearch what = MaxBatchSearch::WithUnguarded);

/// The assumptions behind the numbers (Analysis::warnings) on `err`, once the command has its answer: at
/// most 20 lines, then one that counts the rest (--json lists every one).
void printWarnings(const PlanResult& result, std::ostream& err);

} // namespace headroom::cli

#pragma once

#include "Options.h"
#include "headroom/estimate/Plan.h"
#include "headroom/planner/ClusterPlanner.h"
#include "headroom/setup/GpuCatalog.h"

#include <iosfwd>
#include <optional>
#include <string>

namespace headroom::cli {

/// The GPU catalogue in Headroom's data folder (found from the executable, or HEADROOM_RESOURCES).
[[nodiscard]] GpuCatalog loadCatalog(const std::string& executablePath);

/// The plan the options describe: the model file loaded, the GPU looked up, the set-up filled in. A set-up
/// saved in the model file ("training", estimate/SetupFile.h) is the start; each option given overrides
/// its setting. The checks between options (checkOptionCombinations) run here, on the merged set-up.
/// `saved`, when given, receives the file's saved set-up (nothing when it has none).
[[nodiscard]] Plan makePlan(
    const Options& o, const std::string& executablePath, std::optional<PlanSettings>* saved = nullptr);

/// What `plan --global-batch` and `report --include-plan --global-batch` search (defined in
/// PlanCommand.cpp): the plan's GPUs (--gpus, or the model file's set-up), --gpus-per-node and
/// --global-batch; --checkpointing and --sharding fix those; the layout options the search chooses itself
/// are a UsageError beside --global-batch.
[[nodiscard]] ClusterRequest clusterRequestFromOptions(const Options& o, const Plan& plan);

/// evaluate(); a plan that cannot be estimated is a UsageError with the reason (and nothing else: its
/// warnings are printed only with an answer, issue 38).
[[nodiscard]] PlanResult evaluateOrRefuse(
    const Plan& plan, MaxBatchSearch what = MaxBatchSearch::WithUnguarded);

/// The assumptions behind the numbers (Analysis::warnings) on `err`, once the command has its answer: at
/// most 20 lines, then one that counts the rest (--json lists every one).
void printWarnings(const PlanResult& result, std::ostream& err);

} // namespace headroom::cli

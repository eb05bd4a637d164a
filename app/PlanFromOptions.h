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

/// evaluate(), with the assumptions behind the numbers (Analysis::warnings) printed to `err`: at most 20
/// lines, then one that counts the rest (--json lists every one).
[[nodiscard]] PlanResult evaluateWithWarnings(const Plan& plan, std::ostream& err);

} // namespace headroom::cli

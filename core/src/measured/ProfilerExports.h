#pragma once

// The profiler's exports about memory, read into a MeasuredRun (ProfilerExports.cpp says what each holds).

#include "headroom/measured/MeasuredRun.h"

#include <nlohmann/json.hpp>
#include <string>

namespace headroom::measured {

/// torch.profiler's export_memory_timeline(".json" / ".json.gz"): [times, sizes by category].
[[nodiscard]] Result<MeasuredRun> readMemoryTimeline(const nlohmann::json& root, const std::string& fileName);
/// torch.profiler's export_chrome_trace(): the "[memory]" instant events, and the step and phase spans.
[[nodiscard]] Result<MeasuredRun> readChromeTrace(const nlohmann::json& root, const std::string& fileName);

} // namespace headroom::measured

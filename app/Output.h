#pragma once

#include "headroom/estimate/Plan.h"
#include "headroom/estimate/Throughput.h"
#include "headroom/support/Error.h"

#include <cstdint>
#include <iosfwd>
#include <nlohmann/json.hpp>
#include <string>

namespace headroom::cli {

/// Output shared by the commands (the text tables are TextTable's).

/// A catalogue figure as the stream prints it: 320, 8.873.
[[nodiscard]] std::string shortNumber(double value);
/// "37.5 %": `part` of `whole`, to one decimal.
[[nodiscard]] std::string percent(std::uint64_t part, std::uint64_t whole);
/// "1 GPU", "4 GPUs".
[[nodiscard]] std::string plural(std::int64_t n, const char* one, const char* many);
/// "Model            VGG-16": a key in a column of its own, then the value.
void keyLine(std::ostream& out, const std::string& key, const std::string& value);

/// `j` printed with `indent` (-1: one line), every string made valid UTF-8 first (a model named
/// after a file "llama\xff.json"), so dump() cannot throw.
void writeJson(std::ostream& out, nlohmann::ordered_json j, int indent);

/// The throughput estimate evaluate() made, or why there is none (a GPU without figures for the precision).
[[nodiscard]] Result<ThroughputEstimate> throughputOf(const PlanResult& result);

} // namespace headroom::cli

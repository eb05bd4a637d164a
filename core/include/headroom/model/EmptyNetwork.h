#pragma once

#include <string_view>

namespace headroom {

/// Why a plan whose network has no layers has no figures: analyzePlan()'s error for it, so the GUI,
/// the planner, compare, the report and the command line all say the network is empty instead of
/// showing the input batch alone as a training step ("0.00 us · 1280 G samples/s").
inline constexpr std::string_view kEmptyNetworkMessage
    = "the network is empty: add layers to see how much memory training it takes";

} // namespace headroom

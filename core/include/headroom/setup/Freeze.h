#pragma once

#include "headroom/model/Network.h"
#include "headroom/support/Error.h"

#include <cstddef>
#include <string>
#include <vector>

namespace headroom {

/// Marks layers frozen by name, as `"frozen": true` in the model file does. A name addresses a
/// top-level layer or Repeat block by its own name, or a layer inside a Repeat as "block.child"
/// (in every iteration: a Repeat's iterations share one description). Returns how many entries
/// were marked, or an error naming the first name that matches none; the network is unchanged then.
[[nodiscard]] Result<std::size_t> freezeLayers(Network& network, const std::vector<std::string>& names);

} // namespace headroom

#pragma once

// Context parallelism at the plan level (docs/multi-gpu.md, "Context parallelism"): each of c ranks runs
// the network on T / c of the sequence's T tokens.

#include "headroom/estimate/Plan.h"
#include "headroom/model/Network.h"
#include "headroom/support/Error.h"

namespace headroom {

/// The network one context-parallel rank runs: `network` at T / c tokens, T being settings.sequenceLength
/// or else the model's own length. Errors, each naming both settings, at "parallel.context_parallel": a
/// model without a sequence axis, c not dividing T, eager attention, and with all-to-all (Ulysses) c not
/// dividing an attention layer's heads (query or key/value). With c = 1: the network at
/// settings.sequenceLength as analyzePlan() applies it.
[[nodiscard]] Result<Network> contextParallelNetwork(const Network& network, const PlanSettings& settings);

} // namespace headroom

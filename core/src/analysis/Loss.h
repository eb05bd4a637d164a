#pragma once

// Stage: the loss, after the last layer. Reads the network's loss, the precision and the logits tensor
// (the last layer's output); records the loss's chain of ops in the step (with what each keeps for
// backward), the labels' bytes and the loss row; an output the loss cannot take is an error.

#include "AnalysisState.h"

#include <cstddef>

namespace headroom::analysis {

void addLoss(AnalysisState& state, std::size_t logits);

} // namespace headroom::analysis

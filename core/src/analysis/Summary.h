#pragma once

// Stage: the summary, after the walk and the loss. Reads the totals, the kept storages, the diagnostics
// and the step record; writes the Analysis's network figures (parameters, bytes, FLOPs, activations
// with and without checkpointing, the batch with its labels), an error when a figure overflowed, and,
// when nothing is in error, the step graph.

#include "AnalysisState.h"
#include "headroom/analysis/Analysis.h"

namespace headroom::analysis {

/// The finished analysis (the state is spent).
[[nodiscard]] Analysis summarize(AnalysisState& state);

} // namespace headroom::analysis

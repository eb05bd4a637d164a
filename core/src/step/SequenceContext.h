#pragma once

// Sequence and context parallelism's communication buffers (docs/multi-gpu.md, "Sequence parallelism" and
// "Context parallelism"), read off the analysis's step graph.

#include "headroom/analysis/Analysis.h"
#include "headroom/setup/Training.h"
#include "headroom/step/StepTimeline.h"
#include "headroom/support/Error.h"

#include <cstdint>
#include <optional>
#include <string>

namespace headroom {

/// Sequence parallelism's buffers (Megatron-Core's ColumnParallelLinear / RowParallelLinear with
/// sequence_parallel): c.sequenceGather, the largest whole input of a column-parallel linear (a Linear whose
/// input is not already split by features, or an attention layer's QKV projection), gathered into one
/// global memory buffer kept once allocated; and per row, while it runs, a row-parallel linear's whole
/// output before its reduce-scatter (forward) and its output gradient all-gathered again (backward), and
/// a column-parallel linear's whole input gradient before its reduce-scatter (backward). Per-sample and
/// fixed bytes are each the largest (an upper bound when different layers give them).
void addSequenceParallelBuffers(StepConditions& c, const Analysis& analysis);

/// Context parallelism's buffers on one rank while each attention layer runs: ring attention receives the
/// next key/value block while it uses the current one (2 x (K + V)) and in backward also passes dK/dV
/// around (another 2 x); all-to-all (Ulysses) holds the exchanged Q, K, V and attention output (the
/// local bytes). Tensor parallelism divides them with the heads. In c.forwardCommunication and
/// c.backwardCommunication, the larger of them and a sequence-parallel buffer of the same layer.
void addContextParallelBuffers(StepConditions& c, const Analysis& analysis, const Parallelism& par);

/// Context parallelism with c > 1 and eager attention: ring attention and Ulysses are built on the fused
/// (flash / SDPA) kernels. The error names both settings.
[[nodiscard]] std::optional<Error> contextParallelAttentionProblem(
    std::int64_t contextParallel, AttentionImplementation attention);

} // namespace headroom

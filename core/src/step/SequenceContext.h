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

/// Sequence parallelism's all-gather buffer: the largest whole input of a column-parallel linear (a Linear,
/// or an attention layer's QKV projection, whose input is not already split across the tensor-parallel
/// ranks). Megatron-Core gathers the sequence-sharded input into one global memory buffer before the GEMM
/// in forward and again in backward. Per-sample and fixed bytes are each the largest (an upper bound when
/// different layers give them).
[[nodiscard]] AffineBytes sequenceParallelGatherBytes(const Analysis& analysis);

/// Context parallelism's buffers on one rank while each attention layer runs: ring attention receives the
/// next key/value block while it uses the current one (2 x (K + V)) and in backward also passes dK/dV
/// around (another 2 x); all-to-all (Ulysses) holds the exchanged Q, K, V and attention output (the
/// local bytes). Tensor parallelism divides them with the heads. Fills c.forwardCommunication and
/// c.backwardCommunication.
void addContextParallelBuffers(StepConditions& c, const Analysis& analysis, const Parallelism& par);

/// Context parallelism with c > 1 and eager attention: ring attention and Ulysses are built on the fused
/// (flash / SDPA) kernels. The error names both settings.
[[nodiscard]] std::optional<Error> contextParallelAttentionProblem(
    std::int64_t contextParallel, AttentionImplementation attention);

} // namespace headroom

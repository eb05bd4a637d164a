#pragma once

// The attention core of Hugging Face attention modules, between the projections (q, k, v already
// computed, rotated and repeated to every query head) and the output projection: transformers'
// eager_attention_forward or sdpa_attention_forward. Shared by the ScaledDotProductAttention and
// MultiHeadLatentAttention kinds; the rules are stated in ScaledDotProductAttention.cpp.

#include "OpTrace.h"

#include <cstdint>

namespace headroom::layers {

struct AttentionCoreShape final {
    std::int64_t length = 0;    ///< T
    std::int64_t heads = 1;     ///< h (after repeat_kv: every operand has h heads)
    std::int64_t qkHeadDim = 0; ///< d of q and k
    std::int64_t vHeadDim = 0;  ///< d of v and of the output
    /// The operand is laid out head-major ([B, h, T, d] contiguous: a cat or repeat_kv result), so eager
    /// matmul's reshape to [B h, T, d] is a view; otherwise (a projection's output viewed as heads) a copy.
    bool qHeadMajor = false;
    bool kHeadMajor = false;
    bool vHeadMajor = false;
    double dropout = 0.0;
    bool softmaxFloat32 = true;    ///< softmax(dtype=float32), then cast back
    double logitSoftcapping = 0.0; ///< Gemma 2: scores / cap, tanh, * cap before the softmax (eager only)
};

/// Records the core on q, k, v in `trace` and returns its output [T, h dv] (heads merged, the tensor
/// the output projection receives).
[[nodiscard]] OpTrace::Tensor traceAttentionCore(OpTrace& trace, const LayerContext& ctx, OpTrace::Tensor q,
    OpTrace::Tensor k, OpTrace::Tensor v, const AttentionCoreShape& shape);

/// Q K^T and P V (2 T T h d each), the softmax (about 5 per score, 3 more with soft-capping); SDPA's
/// kernels recompute S in backward. The operands are marked as made inside the layer.
[[nodiscard]] AttentionCoreFlops attentionCoreFlops(const LayerContext& ctx, const AttentionCoreShape& shape);

/// transformers' sdpa_attention_forward ignores soft-capping: the warning a layer with a cap gives under SDPA.
[[nodiscard]] std::string softcapIgnoredWarning(double cap);

} // namespace headroom::layers

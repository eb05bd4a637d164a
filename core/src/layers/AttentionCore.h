#pragma once

// The attention core of Hugging Face attention modules, between the projections (q, k, v already
// computed and rotated; for eager attention also repeated to every query head) and the output
// projection: transformers' eager_attention_forward or sdpa_attention_forward. Shared by the
// ScaledDotProductAttention and MultiHeadLatentAttention kinds; the rules are stated in
// ScaledDotProductAttention.cpp.

#include "OpTrace.h"

#include <cstdint>

namespace headroom::layers {

struct AttentionCoreShape final
{
    std::int64_t length = 0; ///< T
    std::int64_t heads = 1; ///< h: query heads
    /// g: the heads of k and v as the core receives them; 0 means h. Eager attention receives them
    /// repeated to h heads (repeat_kv); SDPA receives g < h and runs with enable_gqa.
    std::int64_t kvHeads = 0;
    std::int64_t qkHeadDim = 0; ///< d of q and k
    std::int64_t vHeadDim = 0; ///< d of v and of the output
    /// The operand is laid out head-major ([B, h, T, d] contiguous: a cat or repeat_kv result), so eager
    /// matmul's reshape to [B h, T, d] is a view; otherwise (a projection's output viewed as heads) a copy.
    bool qHeadMajor = false;
    bool kHeadMajor = false;
    bool vHeadMajor = false;
    double dropout = 0.0;
    bool softmaxFloat32 = true; ///< softmax(dtype=float32), then cast back
    double logitSoftcapping = 0.0; ///< Gemma 2: scores / cap, tanh, * cap before the softmax (eager only)
};

/// The kernel scaled_dot_product_attention picks (sdp_utils.cpp's select_sdp_backend on CUDA, PyTorch
/// >= 2.5): flash for half types with equal q/k and v head sizes up to 256 (grouped-query included),
/// else memory-efficient when k and v have every query head (its dense constraints refuse
/// enable_gqa), else the math path.
enum class SdpaKernel { Flash, MemoryEfficient, Math };
[[nodiscard]] SdpaKernel sdpaKernel(const AttentionCoreShape& shape, DType q);

/// The rows of the float32 logsumexp a fused SDPA kernel keeps per head for `length` queries: flash
/// keeps T; memory-efficient attention pads T to a multiple of 32 (kAlignLSE in PyTorch's
/// mem_eff_attention kernel_forward.h).
[[nodiscard]] Count logsumexpRows(std::int64_t length, bool flash);

struct AttentionCoreTrace final
{
    OpTrace::Tensor output; ///< [T, h dv], heads merged: the tensor the output projection receives
    /// Eager, or SDPA's math path: the T x T scores are real tensors (no recomputation in backward).
    bool explicitScores = true;
    Count forwardScratchBytes; ///< per sample, alive only while the core runs
    Count backwardScratchBytes; ///< per sample, alive only while its backward runs
};

/// Records the core on q, k, v in `trace`.
[[nodiscard]] AttentionCoreTrace traceAttentionCore(OpTrace& trace, const LayerContext& ctx,
    OpTrace::Tensor q, OpTrace::Tensor k, OpTrace::Tensor v, const AttentionCoreShape& shape);

/// Q K^T and P V (2 T T h d each), the softmax (about 5 per score, 3 more with soft-capping); the fused
/// SDPA kernels recompute S in backward (`explicitScores` false). The operands are marked as made inside
/// the layer.
[[nodiscard]] AttentionCoreFlops attentionCoreFlops(
    const LayerContext& ctx, const AttentionCoreShape& shape, bool explicitScores);

/// transformers' sdpa_attention_forward ignores soft-capping: the warning a layer with a cap gives under
/// SDPA.
[[nodiscard]] std::string softcapIgnoredWarning(double cap);

} // namespace headroom::layers

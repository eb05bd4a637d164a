#pragma once

// nn.MultiheadAttention used as self-attention (query = key = value = the input), shared by the
// MultiheadAttention and TransformerEncoderLayer kinds.

#include "OpTrace.h"

#include <cstdint>
#include <string>
#include <vector>

namespace headroom::layers {

struct SelfAttentionOptions
{
    std::int64_t sequence = 0; ///< T
    std::int64_t embed = 0; ///< E
    std::int64_t heads = 1;
    double dropout = 0.0; ///< on the attention probabilities
    bool addBiasKv = false;
    bool addZeroAttn = false;
    /// true: the explicit bmm/softmax path that keeps the heads x T x S probabilities;
    /// false: scaled_dot_product_attention (flash / memory-efficient on CUDA, or its math path when
    /// `implementation` is Eager).
    bool needWeights = true;
    /// Sdpa: the fused kernels; Eager: SDPA's math backend (the fused kernels disabled or unavailable),
    /// which keeps the T x S probabilities. Only matters when needWeights is false.
    AttentionImplementation implementation = AttentionImplementation::Sdpa;
    std::string prefix; ///< "" or "self_attn." for parameter names and saved-tensor labels
};

/// Source length S: T plus one row for add_bias_kv and one for add_zero_attn.
[[nodiscard]] Count attentionSourceLength(const SelfAttentionOptions& o) noexcept;

/// in_proj_weight 3E x E, in_proj_bias 3E, bias_k and bias_v of E each (add_bias_kv),
/// out_proj.weight E x E, out_proj.bias E (the biases only with bias=true): named and ordered as
/// PyTorch's named_parameters() lists them.
/// The projections are used through F.linear, so autocast casts them (castByAutocast).
[[nodiscard]] std::vector<ParamTensor> selfAttentionParameters(const SelfAttentionOptions& o, bool bias);

/// Records torch.nn.functional.multi_head_attention_forward (PyTorch >= 2.1) on `x` [T, E] in
/// `trace` and returns its output [T, E].
[[nodiscard]] OpTrace::Tensor selfAttention(
    OpTrace& trace, const OpTrace::Tensor& x, const SelfAttentionOptions& o);

/// Marks the saved attention score matrices (softmax probabilities, their casts, dropout masks and
/// dropped probabilities: everything whose label starts with "attention probabilities", "attention
/// scores" or "attention dropout", after an optional prefix) as SavedTensor::attentionScores, for
/// selective checkpointing. Every attention kind calls it on its OpTrace's saved list.
void markAttentionScores(std::vector<SavedTensor>& saved);

/// The attention core per sample: Q K^T and P V 2 T S E each, softmax ~5 heads T S. Q, K and V come from
/// the in-projection (made inside); the fused kernels (need_weights=false with SDPA) recompute S in backward.
[[nodiscard]] AttentionCoreFlops selfAttentionCore(const SelfAttentionOptions& o);

/// Forward FLOPs per sample: projections 8 T E^2 plus the core, 4 T S E + ~5 heads T S.
[[nodiscard]] Count selfAttentionFlops(const SelfAttentionOptions& o);

} // namespace headroom::layers

// Self-attention as torch/nn/functional.py multi_head_attention_forward runs it in training
// (PyTorch >= 2.1; nn.MultiheadAttention's fast path is inference-only). Per sample, with T the
// sequence, E the embedding, h the heads, S the source length (T, +1 for add_bias_kv, +1 for
// add_zero_attn):
//
//   proj = F.linear(x, in_proj_weight, in_proj_bias)           keeps x (autocast: its half copy)
//   proj = proj.unflatten(-1, (3, E))...transpose(0, -2).contiguous()   a new [3, T, B, E] buffer;
//   q, k, v = proj[0], proj[1], proj[2]                         views of that one storage (3 T E)
//   add_bias_kv: k, v = cat([k, bias_k.repeat(1, B, 1)]) ...    new S x E buffers (autocast's cat
//                                                               promotes to float32 with the fp32 bias)
//   add_zero_attn: k, v = cat([k, zeros], dim=1)                new S x E buffers
//
// need_weights=True (nn.MultiheadAttention's default; the explicit path):
//   q_scaled = q * sqrt(1 / head_dim)      mul by a Python scalar keeps only the 0-dim scalar
//   bmm(q_scaled, k^T)                     keeps q_scaled (T E) and k            (derivatives.yaml bmm)
//   softmax (autocast: float32)            keeps its result, h T S               (_softmax_backward_data)
//   dropout (p > 0)                        keeps a bool mask h T S; its output is kept by the next bmm
//   bmm(probs, v)                          keeps probs (autocast: a new half copy, h T S) and v
//   out.transpose(0, 1).contiguous()       a new T E buffer, kept by out_proj's F.linear
// so k and v keep the in-projection buffer alive whole (3 T E) unless they were copied.
//
// need_weights=False: scaled_dot_product_attention(q, k, v) on CUDA picks flash attention for
// float16/bfloat16 and memory-efficient attention for float32. Both keep (derivatives.yaml
// _scaled_dot_product_{flash,efficient}_attention) query, key, value, the output (T E) and a float32
// logsumexp: [h, T] for flash, [h, ceil(T / 32) * 32] for memory-efficient (kAlignLSE = 32 in
// mem_eff_attention). Dropout is regenerated from a Philox seed and offset in backward: no mask.
// The seed and offset are two int64 scalars (on the CPU outside CUDA-graph capture): not counted.
// q is a view of the in-projection buffer, so the whole 3 T E stays alive. Then
// out.permute(2, 0, 1, 3).contiguous() is a new T E buffer kept by out_proj (at batch 1 it is
// already contiguous and no copy is made: the per-sample model is exact from batch 2 on).
// With the fused kernels disabled (AttentionImplementation::Eager, or a GPU without them) SDPA runs
// its math backend (_scaled_dot_product_attention_math): q and k are each scaled by sqrt(scale) into
// new tensors (q * s, a T E buffer; k^T * s, an S E buffer), matmul keeps both, softmax keeps its
// result (h T S, in the half type under autocast: the math path runs below autocast), dropout keeps a
// bool mask and its output, and the second matmul keeps the probabilities and v (a view of the
// in-projection buffer, which so stays alive whole).
// Assumed: head_dim is a multiple of 8 and at most 256 and the GPU supports the fused kernels
// (sm80+ for flash); otherwise PyTorch falls back to the math path, which keeps the T x S matrix.
#include "SelfAttention.h"

#include "AttentionCore.h"
#include "KindSupport.h"

#include <array>

namespace headroom::layers {

Count attentionSourceLength(const SelfAttentionOptions& o) noexcept
{
    return Count::fromSigned(o.sequence) + Count { o.addBiasKv ? 1U : 0U }
    + Count { o.addZeroAttn ? 1U : 0U };
}

std::vector<ParamTensor> selfAttentionParameters(const SelfAttentionOptions& o, bool bias)
{
    const Count e = Count::fromSigned(o.embed);
    auto cast = [](ParamTensor p) {
        p.castByAutocast = true;
        return p;
    };
    std::vector<ParamTensor> params;
    params.push_back(cast(parameter(o.prefix + "in_proj_weight", Count { 3 } * e * e)));
    if (bias)
        params.push_back(cast(parameter(o.prefix + "in_proj_bias", Count { 3 } * e)));
    if (o.addBiasKv) {
        // Concatenated to k and v (autocast promotes cat, so no half copy of them is made).
        params.push_back(parameter(o.prefix + "bias_k", e));
        params.push_back(parameter(o.prefix + "bias_v", e));
    }
    params.push_back(cast(parameter(o.prefix + "out_proj.weight", e * e)));
    if (bias)
        params.push_back(cast(parameter(o.prefix + "out_proj.bias", e)));
    return params;
}

namespace {

/// The sizes the cores use: T, E, the heads, the keys' length S (with bias_k and the zero row) and T E.
struct CoreSizes
{
    Count t, e, h, s, te;
};

CoreSizes coreSizes(const SelfAttentionOptions& o)
{
    const Count t = Count::fromSigned(o.sequence);
    const Count e = Count::fromSigned(o.embed);
    return { t, e, Count::fromSigned(o.heads), attentionSourceLength(o), t * e };
}

/// q, k and v in the autocast dtype (casts where they are not).
std::array<OpTrace::Tensor, 3> lowered(OpTrace& trace, const std::string& p, const OpTrace::Tensor& q,
    const OpTrace::Tensor& k, const OpTrace::Tensor& v)
{
    return { trace.toLowerPrecision(q, p + "q"), trace.toLowerPrecision(k, p + "k"),
        trace.toLowerPrecision(v, p + "v") };
}

/// Eager attention without weights returned: scaled q and k, the probabilities and their dropout, v.
OpTrace::Tensor eagerCore(OpTrace& trace, const SelfAttentionOptions& o, const OpTrace::Tensor& q,
    const OpTrace::Tensor& k, const OpTrace::Tensor& v)
{
    const std::string& p = o.prefix;
    const auto [t, e, h, s, te] = coreSizes(o);
    const auto [sq, sk, sv] = lowered(trace, p, q, k, v);
    trace.keep(trace.create(p + "q scaled", te, sq.dtype));
    trace.keep(trace.create(p + "k scaled", s * e, sk.dtype));
    const OpTrace::Tensor probs = trace.create(p + "attention probabilities", h * t * s, sq.dtype);
    trace.keep(probs);
    trace.keep(trace.dropout(probs, o.dropout, p + "attention dropout"));
    trace.keep(sv);
    return trace.create(p + "attention output", te, sq.dtype);
}

/// need_weights: the scores in float32 for the softmax, the probabilities cast back for P V.
OpTrace::Tensor weightsCore(OpTrace& trace, const SelfAttentionOptions& o, const OpTrace::Tensor& q,
    const OpTrace::Tensor& k, const OpTrace::Tensor& v)
{
    const std::string& p = o.prefix;
    const auto [t, e, h, s, te] = coreSizes(o);
    const OpTrace::Tensor scaled = trace.create(p + "q scaled", te, q.dtype);
    const OpTrace::Tensor scoresQ = trace.toLowerPrecision(scaled, p + "q scaled");
    const OpTrace::Tensor scoresK = trace.toLowerPrecision(k, p + "k");
    trace.keep(scoresQ);
    trace.keep(scoresK);
    const OpTrace::Tensor scores = trace.create(p + "attention scores", h * t * s, scoresQ.dtype);
    const OpTrace::Tensor softmaxIn = trace.toFloat32(scores, p + "attention scores");
    const OpTrace::Tensor probs = trace.create(p + "attention probabilities", h * t * s, softmaxIn.dtype);
    trace.keep(probs);
    const OpTrace::Tensor dropped = trace.dropout(probs, o.dropout, p + "attention dropout");
    const OpTrace::Tensor weights = trace.toLowerPrecision(dropped, p + "attention probabilities");
    const OpTrace::Tensor values = trace.toLowerPrecision(v, p + "v");
    trace.keep(weights);
    trace.keep(values);
    return trace.create(p + "attention output", te, weights.dtype);
}

/// SDPA (flash for half types, else memory-efficient): q, k, v, the output and the logsumexp.
OpTrace::Tensor sdpaCore(OpTrace& trace, const SelfAttentionOptions& o, const OpTrace::Tensor& q,
    const OpTrace::Tensor& k, const OpTrace::Tensor& v)
{
    const std::string& p = o.prefix;
    const auto [t, e, h, s, te] = coreSizes(o);
    const auto [sq, sk, sv] = lowered(trace, p, q, k, v);
    trace.keep(sq);
    trace.keep(sk);
    trace.keep(sv);
    const OpTrace::Tensor attended = trace.create(p + "attention output (SDPA)", te, sq.dtype);
    trace.keep(attended);
    const bool flash = sq.dtype == DType::Float16 || sq.dtype == DType::BFloat16;
    trace.keep(trace.create(p + "logsumexp", h * logsumexpRows(o.sequence, flash), DType::Float32));
    return attended;
}

} // namespace

OpTrace::Tensor selfAttention(OpTrace& trace, const OpTrace::Tensor& x, const SelfAttentionOptions& o)
{
    const std::string& p = o.prefix;
    const Count t = Count::fromSigned(o.sequence);
    const Count e = Count::fromSigned(o.embed);
    const Count s = attentionSourceLength(o);
    const Count te = t * e;

    const OpTrace::Tensor projected = trace.linear(x, Count { 3 } * te, p + "in_proj");
    const OpTrace::Tensor qkv
        = trace.create(p + "q, k, v (in-projection made contiguous)", Count { 3 } * te, projected.dtype);
    const OpTrace::Tensor q = OpTrace::view(qkv, te);
    OpTrace::Tensor k = OpTrace::view(qkv, te);
    OpTrace::Tensor v = OpTrace::view(qkv, te);
    if (o.addBiasKv) {
        const DType catType = promote(k.dtype, parameterType(trace.precision()));
        k = trace.create(p + "k with bias_k", (t + Count { 1 }) * e, catType);
        v = trace.create(p + "v with bias_v", (t + Count { 1 }) * e, catType);
    }
    if (o.addZeroAttn) {
        k = trace.create(p + "k with a zero row", s * e, k.dtype);
        v = trace.create(p + "v with a zero row", s * e, v.dtype);
    }

    const OpTrace::Tensor attended = !o.needWeights && o.implementation == AttentionImplementation::Eager
        ? eagerCore(trace, o, q, k, v)
        : o.needWeights ? weightsCore(trace, o, q, k, v)
                        : sdpaCore(trace, o, q, k, v);
    const OpTrace::Tensor merged = trace.create(p + "attention output (heads merged)", te, attended.dtype);
    return trace.linear(merged, te, p + "out_proj");
}

void markAttentionScores(std::vector<SavedTensor>& saved)
{
    for (auto& s : saved) {
        if (s.source != SavedTensor::Source::Internal)
            continue;
        for (const std::string_view mark :
            { "attention probabilities", "attention scores", "attention dropout" }) {
            const auto at = s.label.find(mark);
            if (at != std::string::npos && (at == 0 || s.label[at - 1] == '.'))
                s.attentionScores = true;
        }
    }
}

AttentionCoreFlops selfAttentionCore(const SelfAttentionOptions& o)
{
    const Count t = Count::fromSigned(o.sequence);
    const Count e = Count::fromSigned(o.embed);
    const Count s = attentionSourceLength(o);
    AttentionCoreFlops core;
    core.scores = Count { 2 } * t * s * e;
    core.values = Count { 2 } * t * s * e;
    core.softmax = Count { 5 } * Count::fromSigned(o.heads) * t * s;
    core.recomputedInBackward = !o.needWeights && o.implementation == AttentionImplementation::Sdpa;
    return core;
}

Count selfAttentionFlops(const SelfAttentionOptions& o)
{
    const Count t = Count::fromSigned(o.sequence);
    const Count e = Count::fromSigned(o.embed);
    const AttentionCoreFlops core = selfAttentionCore(o);
    return Count { 8 } * t * e * e + core.scores + core.values + core.softmax;
}

} // namespace headroom::layers

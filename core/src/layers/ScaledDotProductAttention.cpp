// ScaledDotProductAttention: the attention core of Hugging Face decoder and encoder layers, between
// their q/k/v projections and their output projection (which are separate Linear layers, so that LoRA
// and the layer table see them). Inputs: q [T, h d], k [T, g d], v [T, g d] (h query heads, g
// key/value heads, grouped-query attention when g < h), or one packed [T, (h + 2 g) d] tensor (GPT-2's
// c_attn output, split into views). Output [T, h d], the heads merged. No parameters.
//
// What it keeps follows the PyTorch ops transformers runs (modeling_llama.py, modeling_gpt2.py,
// modeling_bert.py); measured with torch in tests/data/hf/measure_layers.py:
//
// rotary (Llama, Mistral, Qwen2): q_embed = q * cos + rotate_half(q) * sin, the same for k. cos and
// sin do not need gradients, so the muls keep only cos and sin (one [T, d] table each for the whole
// model: batch-independent, shared by every layer, not counted); rotate_half is slicing, neg and cat,
// which keep nothing. q_embed and k_embed are new tensors (promoted to the hidden states' dtype: float32
// under autocast, where cos is float32).
//
// Eager (attn_implementation="eager"):
//   repeat_kv(k), repeat_kv(v)         g < h: expand + reshape, new [h, T, d] copies
//   matmul(q, k^T) * scale             matmul reshapes the head-split views to [B h, T, d], which copies
//                                      them (from batch 2 on), and bmm keeps both: q and k, T h d each
//   softmax                            keeps its result h T T (float32 when it runs in float32: HF
//                                      Llama's softmax(dtype=float32), and autocast's softmax)
//   .to(q.dtype) / autocast's matmul   a copy of the probabilities in the matmul dtype if it differs
//   dropout (p > 0)                    a bool mask h T T; its output is kept by the next matmul
//   matmul(probs, v)                   keeps the probabilities and v (a copy, T h d)
//   transpose(1, 2).contiguous()       a new [T, h d]: the output, kept by o_proj
// Every h x T x T tensor is marked as attention scores (selective checkpointing drops them).
//
// SDPA (attn_implementation="sdpa", transformers' default), as transformers 5's sdpa_attention_forward
// (integrations/sdpa_attention.py) runs it on full, unpadded sequences: the causal mask is skipped
// (attention_mask None, is_causal=True), so use_gqa_in_sdpa holds (PyTorch >= 2.5) and keys and values
// go to scaled_dot_product_attention with their g heads and enable_gqa=True, not through repeat_kv.
// PyTorch then picks (AttentionCore.h, sdpaKernel):
//   - flash attention for float16/bfloat16 (autocast casts float32 q/k/v, e.g. the rotary results, to
//     the half type: new copies), grouped-query included: it keeps q, k, v as given (k and v with g
//     heads), its output and a float32 logsumexp [h, T]; dropout is regenerated from a Philox seed.
//     cuDNN attention, put first on H100-class GPUs with cuDNN >= 9.15.1 (check_prefer_cudnn_attention),
//     keeps the same (derivatives.yaml: q, k, v, output, logsumexp);
//   - memory-efficient attention when k and v have every query head (g = h), float32 included: the
//     same, with the logsumexp padded to [h, ceil(T / 32) 32];
//   - the math path otherwise, i.e. float32 with g < h (memory-efficient attention refuses enable_gqa:
//     check_batch_size_and_num_heads_dense<false> in sdp_utils.cpp; cuDNN attention takes half types
//     only): float32 scaled q, k repeated and scaled, v repeated (h T d each) and the probabilities
//     h T T, the very tensors eager attention keeps (AttentionCore.cpp).
// Flash and memory-efficient attention write the output as [B, T, h, d], so transpose(1, 2).contiguous()
// copies nothing: the output is the SDPA output itself; the math path's [B, h, T, d] output is copied.
#include "AttentionCore.h"
#include "KindSupport.h"
#include "Kinds.h"
#include "SelfAttention.h"

namespace headroom::layers {
namespace {

/// The head size: the packed input's width over (h + 2 g) heads, or q's over h (k and v then [T, g d]).
Result<std::int64_t> headDimOf(const LayerContext& ctx, std::int64_t heads, std::int64_t groups)
{
    const std::int64_t length = ctx.in(0).shape.dims[0];
    if (ctx.inputs.size() == 1) {
        const std::int64_t width = ctx.in(0).shape.dims[1];
        const std::int64_t slots = heads + 2 * groups;
        if (width % slots != 0)
            return failure("the packed input's " + std::to_string(width)
                + " features are not (num_heads + 2 "
                  "num_key_value_heads) = "
                + std::to_string(slots) + " heads of equal size");
        return width / slots;
    }
    const std::int64_t qWidth = ctx.in(0).shape.dims[1];
    if (qWidth % heads != 0)
        return failure("q's " + std::to_string(qWidth) + " features are not divisible by num_heads "
            + std::to_string(heads));
    const std::int64_t headDim = qWidth / heads;
    for (std::size_t i = 1; i < 3; ++i) {
        const auto& in = ctx.in(i);
        if (in.shape.dims[0] != length || in.shape.dims[1] != groups * headDim)
            return failure(std::string(i == 1 ? "k" : "v") + " is " + in.shape.toString() + " but should be ["
                + std::to_string(length) + ", " + std::to_string(groups * headDim)
                + "] (T, num_key_value_heads x head_dim " + std::to_string(headDim) + ")");
    }
    return headDim;
}

/// q, k and v as the core gets them: views of the packed input (or the inputs), rotated, and for eager
/// grouped-query attention k and v repeated to every query head.
struct Qkv
{
    OpTrace::Tensor q;
    OpTrace::Tensor k;
    OpTrace::Tensor v;
};

Qkv traceQkv(OpTrace& trace, const LayerContext& ctx, Count te, Count tkv, bool grouped)
{
    OpTrace::Tensor q = OpTrace::view(trace.input(0), te);
    OpTrace::Tensor k = ctx.inputs.size() == 1 ? OpTrace::view(trace.input(0), tkv) : trace.input(1);
    OpTrace::Tensor v = ctx.inputs.size() == 1 ? OpTrace::view(trace.input(0), tkv) : trace.input(2);
    if (ctx.attrs.flag("rotary")) {
        const DType ropeType = ctx.parameterType(); // cos/sin follow the hidden states' dtype
        q = trace.create("q with rotary embedding", te, promote(q.dtype, ropeType));
        k = trace.create("k with rotary embedding", tkv, promote(k.dtype, ropeType));
    }
    const bool eager = ctx.attention == AttentionImplementation::Eager;
    if (grouped && eager) { // eager_attention_forward's repeat_kv
        k = trace.create("k repeated to every query head", te, k.dtype);
        v = trace.create("v repeated to every query head", te, v.dtype);
    }
    return { q, k, v };
}

/// The attention core's shape: eager attention's repeat_kv makes k and v one head per query head.
AttentionCoreShape coreShape(
    const LayerContext& ctx, std::int64_t heads, std::int64_t groups, std::int64_t headDim)
{
    const bool grouped = groups != heads;
    const bool eager = ctx.attention == AttentionImplementation::Eager;
    AttentionCoreShape shape;
    shape.length = ctx.in(0).shape.dims[0];
    shape.heads = heads;
    shape.kvHeads = eager ? heads : groups;
    shape.qkHeadDim = headDim;
    shape.vHeadDim = headDim;
    shape.kHeadMajor = grouped; // repeat_kv's reshape makes k and v head-major copies
    shape.vHeadMajor = grouped;
    shape.dropout = ctx.attrs.real("dropout");
    shape.softmaxFloat32 = ctx.attrs.flag("softmax_float32");
    shape.logitSoftcapping = ctx.attrs.real("logit_softcapping");
    return shape;
}

class ScaledDotProductAttentionKind final : public DescribedKind
{
public:
    ScaledDotProductAttentionKind()
        : DescribedKind("ScaledDotProductAttention", LayerCategory::Attention,
            "Multi-head attention on projected q, k, v (grouped-query, optional rotary embedding)",
            { intAttr("num_heads", nullptr, "Query heads h"),
                [] {
                    AttributeSpec s = intAttr("num_key_value_heads", nullptr,
                        "Key/value heads g (grouped-query attention; must divide num_heads; default "
                        "num_heads)");
                    s.optional = true;
                    s.whenOmitted = "num_heads";
                    return s;
                }(),
                floatAttr("dropout", 0.0, "Dropout on the attention probabilities", 0.0, 1.0),
                boolAttr("rotary", false, "Rotary position embedding applied to q and k (Llama)"),
                boolAttr("softmax_float32", true,
                    "Eager softmax in float32 then cast back (Llama's softmax(dtype=float32)); false: "
                    "in the scores' dtype (GPT-2, BERT)"),
                boolAttr("is_causal", false, "Causal mask (no memory effect)"),
                floatAttr("logit_softcapping", 0.0,
                    "Gemma 2's attn_logit_softcapping: scores become cap x tanh(scores / cap) before the "
                    "softmax "
                    "(eager attention keeps the tanh); 0 = none",
                    0.0, 1e9) })
    {
    }

    [[nodiscard]] AutocastPolicy autocast() const override { return AutocastPolicy::Custom; }
    [[nodiscard]] std::size_t maxInputs() const override { return 3; }

    [[nodiscard]] Result<LayerOutcome> infer(const LayerContext& ctx) const override
    {
        if (ctx.inputs.size() == 2)
            return failure("takes one packed q/k/v input or three inputs (q, k, v), not two");
        for (const auto& in : ctx.inputs) {
            if (!isFloatingPoint(in.dtype))
                return failure("needs floating-point inputs but gets " + std::string(dtypeName(in.dtype)));
            if (auto e = expectRank(in, 2, "[T, features] (sequence, features)"))
                return *e;
        }
        const std::int64_t heads = ctx.attrs.integer("num_heads");
        const std::int64_t groups = ctx.attrs.optionalInteger("num_key_value_heads").value_or(heads);
        if (heads % groups != 0)
            return failure("num_key_value_heads " + std::to_string(groups) + " does not divide num_heads "
                + std::to_string(heads));
        const std::int64_t length = ctx.in(0).shape.dims[0];
        const auto headDimOrError = headDimOf(ctx, heads, groups);
        if (!headDimOrError)
            return headDimOrError.error();
        const std::int64_t headDim = *headDimOrError;
        if (ctx.attrs.flag("rotary") && headDim % 2 != 0)
            return failure("rotary embedding needs an even head dimension, not " + std::to_string(headDim));

        const Count t = Count::fromSigned(length);
        const Count h = Count::fromSigned(heads);
        const Count e = h * Count::fromSigned(headDim);
        const Count te = t * e;
        const Count tkv = t * Count::fromSigned(groups) * Count::fromSigned(headDim);

        OpTrace trace { ctx };
        const Qkv qkv = traceQkv(trace, ctx, te, tkv, groups != heads);
        const AttentionCoreShape shape = coreShape(ctx, heads, groups, headDim);
        const AttentionCoreTrace core = traceAttentionCore(trace, ctx, qkv.q, qkv.k, qkv.v, shape);
        const OpTrace::Tensor& out = core.output;

        LayerOutcome o;
        o.output = TensorInfo { Shape { { length, heads * headDim } }, out.dtype };
        o.saved = trace.saved(out);
        markAttentionScores(o.saved);
        o.forwardScratchBytesPerSample = core.forwardScratchBytes;
        o.backwardScratchBytesPerSample = core.backwardScratchBytes;
        if (shape.logitSoftcapping > 0.0 && ctx.attention == AttentionImplementation::Sdpa)
            o.warnings.push_back(softcapIgnoredWarning(shape.logitSoftcapping));
        // q k^T and probs v: 2 T T h d FLOPs each (grouped-query attention repeats k and v to every
        // query head, so the products are as large as with h key/value heads); softmax about 5 per
        // score; rotary about 3 per element of q and k.
        AttentionCoreFlops flops = attentionCoreFlops(ctx, shape, core.explicitScores);
        flops.q = 0;
        flops.k = ctx.inputs.size() == 1 ? 0 : 1;
        flops.v = ctx.inputs.size() == 1 ? 0 : 2;
        o.forwardFlopsPerSample = flops.scores + flops.values + flops.softmax
            + (ctx.attrs.flag("rotary") ? Count { 3 } * (te + tkv) : Count {});
        o.attentionCore = flops;
        return o;
    }
};

} // namespace

std::unique_ptr<LayerKind> makeScaledDotProductAttention()
{
    return std::make_unique<ScaledDotProductAttentionKind>();
}

} // namespace headroom::layers

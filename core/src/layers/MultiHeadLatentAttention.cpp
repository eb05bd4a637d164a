// MultiHeadLatentAttention: DeepSeek-V2/V3's attention with low-rank query and key/value projections, as
// transformers (4.5x) runs DeepseekV3Attention (modeling_deepseek_v3.py), projections included (so
// LoRA targets them by name: q_a_proj, q_b_proj or q_proj, kv_a_proj_with_mqa, kv_b_proj, o_proj). Input
// and output [T, H]; h heads, query/key head size dn + dr (dn without, dr with rotary embedding), value
// head size dv, ranks rq (queries, 0: one q_proj) and rkv (keys and values). Per sample:
//
//   q = q_b_proj(q_a_layernorm(q_a_proj(x)))           each Linear keeps its input (autocast: a half copy)
//                                                      for its weight gradient; q_a_layernorm is Llama's
//                                                      RMSNorm: its float32 input, rstd, normalised rows
//                                                      (these for its weight's gradient only)
//   q_pass, q_rot = split(q.view(T, h, dn + dr))       views
//   compressed = kv_a_proj_with_mqa(x)                 [T, rkv + dr]
//   k_pass, k_rot = split(compressed)                  views
//   kv = kv_b_proj(kv_a_layernorm(k_pass))             the norm's x.to(float32) of a float32 view is the
//                                                      view itself: the whole [rkv + dr] rows stay alive
//   k_pass, value = split(kv.view(T, h, dn + dv))      views: value keeps kv alive whole for SDPA
//   q_rot, k_rot = apply_rotary_pos_emb(...)           new [h dr] and [dr] tensors; the muls keep only
//                                                      cos and sin
//   query = cat(q_pass, q_rot); key = cat(k_pass, k_rot.expand(h))   new head-major [T, h, dn + dr]
//                                                      (cat promotes: float32 under autocast, where the
//                                                      rotary results are float32)
//   attention (AttentionCore: SDPA or eager); with dv != dn + dr SDPA runs memory-efficient attention
//   o_proj(attn_output)                                keeps its input (the SDPA output, kept anyway)
#include "AttentionCore.h"
#include "KindSupport.h"
#include "Kinds.h"
#include "SelfAttention.h"

namespace headroom::layers {
namespace {

class MultiHeadLatentAttentionKind final : public DescribedKind
{
public:
    MultiHeadLatentAttentionKind()
        : DescribedKind("MultiHeadLatentAttention", LayerCategory::Attention,
            "DeepSeek-V3's attention with low-rank query and key/value projections, projections included",
            { intAttr("num_heads", nullptr, "Heads h"),
                intAttr(
                    "q_lora_rank", 0, "Rank of the query projection (q_a_proj, q_b_proj); 0: one q_proj", 0),
                intAttr(
                    "kv_lora_rank", nullptr, "Rank of the compressed keys and values (kv_a_proj_with_mqa)"),
                intAttr("qk_nope_head_dim", nullptr, "Query/key head size without rotary embedding"),
                intAttr("qk_rope_head_dim", nullptr,
                    "Query/key head size with rotary embedding (shared by the heads for keys)"),
                intAttr("v_head_dim", nullptr, "Value head size"),
                boolAttr("attention_bias", false, "Biases on q_a_proj, kv_a_proj_with_mqa and o_proj"),
                floatAttr("dropout", 0.0, "Dropout on the attention probabilities", 0.0, 1.0), [] {
                    AttributeSpec s = floatAttr("eps", 1e-6, "The RMSNorms' epsilon", 0.0, 1.0);
                    s.minFloatExclusive = true;
                    return s;
                }() })
    {
    }

    [[nodiscard]] AutocastPolicy autocast() const override { return AutocastPolicy::Custom; }

    [[nodiscard]] Result<LayerOutcome> infer(const LayerContext& ctx) const override
    {
        const auto& in = ctx.in();
        if (!isFloatingPoint(in.dtype))
            return failure("needs a floating-point input but gets " + std::string(dtypeName(in.dtype)));
        if (auto e = expectRank(in, 2, "[T, hidden] (sequence, features)"))
            return *e;
        const std::int64_t length = in.shape.dims[0];
        const std::int64_t hidden = in.shape.dims[1];
        const std::int64_t heads = ctx.attrs.integer("num_heads");
        const std::int64_t qRank = ctx.attrs.integer("q_lora_rank");
        const std::int64_t kvRank = ctx.attrs.integer("kv_lora_rank");
        const std::int64_t nope = ctx.attrs.integer("qk_nope_head_dim");
        const std::int64_t rope = ctx.attrs.integer("qk_rope_head_dim");
        const std::int64_t valueDim = ctx.attrs.integer("v_head_dim");
        if (rope % 2 != 0)
            return failure("rotary embedding needs an even qk_rope_head_dim, not " + std::to_string(rope));
        const bool bias = ctx.attrs.flag("attention_bias");

        const Count t = Count::fromSigned(length);
        const Count hd = Count::fromSigned(hidden);
        const Count h = Count::fromSigned(heads);
        const Count qk = Count::fromSigned(nope + rope);
        const Count dv = Count::fromSigned(valueDim);
        const Count rq = Count::fromSigned(qRank);
        const Count rkv = Count::fromSigned(kvRank);
        const Count dr = Count::fromSigned(rope);
        const DType ropeType = ctx.parameterType(); // cos/sin follow the hidden states' dtype

        LayerOutcome o;
        OpTrace trace { ctx };
        const OpTrace::Tensor x = trace.input(0);
        const auto linear = [&](const OpTrace::Tensor& input, Count out, const std::string& name) {
            const OpTrace::Tensor cast = trace.toLowerPrecision(input, name + " input");
            trace.keepForWeightOf(cast, name);
            return trace.create(name + " output", t * out, cast.dtype);
        };
        // LlamaRMSNorm (RMSNorm.cpp): float32 input, rstd, normalised rows in the input's dtype, these
        // only for the norm's weight gradient (weight * normalised: a frozen weight keeps none); the
        // output is promoted with the weight.
        const auto rmsNorm = [&](const OpTrace::Tensor& input, Count features, const std::string& name) {
            trace.keep(input.dtype == DType::Float32
                    ? input
                    : trace.create(name + " input (float32 copy)", t * features, DType::Float32));
            trace.keep(trace.create(name + " rstd", t, DType::Float32));
            trace.keepForWeightOf(trace.create(name + " normalized", t * features, input.dtype), name);
            return trace.create(name + " output", t * features, promote(input.dtype, ctx.parameterType()));
        };

        OpTrace::Tensor q;
        if (qRank > 0)
            q = linear(rmsNorm(linear(x, rq, "q_a_proj"), rq, "q_a_layernorm"), h * qk, "q_b_proj");
        else
            q = linear(x, h * qk, "q_proj");
        const OpTrace::Tensor compressed = linear(x, rkv + dr, "kv_a_proj_with_mqa");
        // k_pass is a view of `compressed`: a float32 one is normalised in place of a copy.
        const OpTrace::Tensor kvNormIn
            = compressed.dtype == DType::Float32 ? compressed : OpTrace::view(compressed, t * rkv);
        const OpTrace::Tensor kv = linear(
            rmsNorm(kvNormIn, rkv, "kv_a_layernorm"), h * Count::fromSigned(nope + valueDim), "kv_b_proj");
        const OpTrace::Tensor qRot
            = trace.create("q with rotary embedding", t * h * dr, promote(q.dtype, ropeType));
        const OpTrace::Tensor kRot
            = trace.create("k with rotary embedding", t * dr, promote(compressed.dtype, ropeType));
        const OpTrace::Tensor query = trace.create("query (cat)", t * h * qk, promote(q.dtype, qRot.dtype));
        const OpTrace::Tensor key = trace.create("key (cat)", t * h * qk, promote(kv.dtype, kRot.dtype));
        const OpTrace::Tensor value = OpTrace::view(kv, t * h * dv);

        AttentionCoreShape shape;
        shape.length = length;
        shape.heads = heads;
        shape.qkHeadDim = nope + rope;
        shape.vHeadDim = valueDim;
        shape.qHeadMajor = true; // cat results
        shape.kHeadMajor = true;
        shape.vHeadMajor = false; // a view of kv_b_proj's [T, h, dn + dv] output
        shape.dropout = ctx.attrs.real("dropout");
        const AttentionCoreTrace core = traceAttentionCore(trace, ctx, query, key, value, shape);
        const OpTrace::Tensor& attended = core.output;
        const OpTrace::Tensor outIn = trace.toLowerPrecision(attended, "o_proj input");
        trace.keepForWeightOf(outIn, "o_proj");
        o.output = TensorInfo { in.shape, outIn.dtype };
        o.saved = trace.saved(trace.create("output", t * hd, o.output.dtype));
        markAttentionScores(o.saved);
        // q_b_proj's output (split into views, then concatenated: not kept) and the rotated parts live
        // until the cat has run.
        o.forwardScratchBytesPerSample = q.elements * Count { elementSize(q.dtype) }
            + qRot.elements * Count { elementSize(qRot.dtype) }
            + kRot.elements * Count { elementSize(kRot.dtype) } + core.forwardScratchBytes;
        o.backwardScratchBytesPerSample = core.backwardScratchBytes;

        const auto addLinear
            = [&](const std::string& name, Count inFeatures, Count outFeatures, bool withBias) {
                  o.params.push_back(castParameter(name + ".weight", outFeatures * inFeatures));
                  if (withBias)
                      o.params.push_back(castParameter(name + ".bias", outFeatures));
              };
        if (qRank > 0) {
            addLinear("q_a_proj", hd, rq, bias);
            o.params.push_back(parameter("q_a_layernorm.weight", rq));
            addLinear("q_b_proj", rq, h * qk, false);
        } else {
            addLinear("q_proj", hd, h * qk, false);
        }
        addLinear("kv_a_proj_with_mqa", hd, rkv + dr, bias);
        o.params.push_back(parameter("kv_a_layernorm.weight", rkv));
        addLinear("kv_b_proj", rkv, h * Count::fromSigned(nope + valueDim), false);
        addLinear("o_proj", h * dv, hd, bias);

        const DType projected
            = isAutocast(ctx.precision) ? halfType(ctx.precision) : in.dtype; // the projections' outputs
        const auto inner
            = [&](const std::string& name, std::int64_t inFeatures, std::int64_t outFeatures, DType type) {
                  o.innerLinears.push_back(
                      InnerLinear { name, inFeatures, outFeatures, 1, t, type, name + ".weight" });
              };
        if (qRank > 0) {
            inner("q_a_proj", hidden, qRank, in.dtype);
            inner("q_b_proj", qRank, heads * (nope + rope), promote(projected, ctx.parameterType()));
        } else {
            inner("q_proj", hidden, heads * (nope + rope), in.dtype);
        }
        inner("kv_a_proj_with_mqa", hidden, kvRank + rope, in.dtype);
        inner("kv_b_proj", kvRank, heads * (nope + valueDim), promote(projected, ctx.parameterType()));
        inner("o_proj", heads * valueDim, hidden, attended.dtype);

        AttentionCoreFlops flops = attentionCoreFlops(ctx, shape, core.explicitScores);
        const Count projections = Count { 2 } * t
            * ((qRank > 0 ? hd * rq + rq * h * qk : hd * h * qk) + hd * (rkv + dr)
                + rkv * h * Count::fromSigned(nope + valueDim) + h * dv * hd);
        o.elementwiseFlopsPerSample = Count { 5 } * t * (rq + rkv) + Count { 3 } * t * (h * dr + dr);
        o.forwardFlopsPerSample
            = projections + flops.scores + flops.values + flops.softmax + o.elementwiseFlopsPerSample;
        o.attentionCore = flops;
        return o;
    }
};

} // namespace

std::unique_ptr<LayerKind> makeMultiHeadLatentAttention()
{
    return std::make_unique<MultiHeadLatentAttentionKind>();
}

} // namespace headroom::layers

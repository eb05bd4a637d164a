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

/// The layer's sizes, as given and as counts.
struct MlaDims
{
    std::int64_t length = 0;
    std::int64_t hidden = 0;
    std::int64_t heads = 0;
    std::int64_t qRank = 0;
    std::int64_t kvRank = 0;
    std::int64_t nope = 0;
    std::int64_t rope = 0;
    std::int64_t valueDim = 0;
    bool bias = false;
    Count t, hd, h, qk, dv, rq, rkv, dr;
};

MlaDims mlaDims(const LayerContext& ctx)
{
    MlaDims d;
    d.length = ctx.in().shape.dims[0];
    d.hidden = ctx.in().shape.dims[1];
    d.heads = ctx.attrs.integer("num_heads");
    d.qRank = ctx.attrs.integer("q_lora_rank");
    d.kvRank = ctx.attrs.integer("kv_lora_rank");
    d.nope = ctx.attrs.integer("qk_nope_head_dim");
    d.rope = ctx.attrs.integer("qk_rope_head_dim");
    d.valueDim = ctx.attrs.integer("v_head_dim");
    d.bias = ctx.attrs.flag("attention_bias");
    d.t = Count::fromSigned(d.length);
    d.hd = Count::fromSigned(d.hidden);
    d.h = Count::fromSigned(d.heads);
    d.qk = Count::fromSigned(d.nope + d.rope);
    d.dv = Count::fromSigned(d.valueDim);
    d.rq = Count::fromSigned(d.qRank);
    d.rkv = Count::fromSigned(d.kvRank);
    d.dr = Count::fromSigned(d.rope);
    return d;
}

/// What the projections make before attention: q_b_proj's (or q_proj's) output, the compressed keys and
/// values, kv_b_proj's output, the rotated parts and the attention's query, key and value.
struct MlaTensors
{
    OpTrace::Tensor q;
    OpTrace::Tensor compressed;
    OpTrace::Tensor kv;
    OpTrace::Tensor qRot;
    OpTrace::Tensor kRot;
    OpTrace::Tensor query;
    OpTrace::Tensor key;
    OpTrace::Tensor value;
};

MlaTensors traceProjections(OpTrace& trace, const LayerContext& ctx, const MlaDims& d)
{
    const Count t = d.t;
    const DType ropeType = ctx.parameterType(); // cos/sin follow the hidden states' dtype
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

    MlaTensors m;
    if (d.qRank > 0)
        m.q = linear(rmsNorm(linear(x, d.rq, "q_a_proj"), d.rq, "q_a_layernorm"), d.h * d.qk, "q_b_proj");
    else
        m.q = linear(x, d.h * d.qk, "q_proj");
    m.compressed = linear(x, d.rkv + d.dr, "kv_a_proj_with_mqa");
    // k_pass is a view of `compressed`: a float32 one is normalised in place of a copy.
    const OpTrace::Tensor kvNormIn
        = m.compressed.dtype == DType::Float32 ? m.compressed : OpTrace::view(m.compressed, t * d.rkv);
    m.kv = linear(rmsNorm(kvNormIn, d.rkv, "kv_a_layernorm"), d.h * Count::fromSigned(d.nope + d.valueDim),
        "kv_b_proj");
    m.qRot = trace.create("q with rotary embedding", t * d.h * d.dr, promote(m.q.dtype, ropeType));
    m.kRot = trace.create("k with rotary embedding", t * d.dr, promote(m.compressed.dtype, ropeType));
    m.query = trace.create("query (cat)", t * d.h * d.qk, promote(m.q.dtype, m.qRot.dtype));
    m.key = trace.create("key (cat)", t * d.h * d.qk, promote(m.kv.dtype, m.kRot.dtype));
    m.value = OpTrace::view(m.kv, t * d.h * d.dv);
    return m;
}

/// The projections' and the norms' parameters, in the module's order.
void addParameters(LayerOutcome& o, const MlaDims& d)
{
    const auto addLinear = [&](const std::string& name, Count inFeatures, Count outFeatures, bool withBias) {
        o.params.push_back(castParameter(name + ".weight", outFeatures * inFeatures));
        if (withBias)
            o.params.push_back(castParameter(name + ".bias", outFeatures));
    };
    if (d.qRank > 0) {
        addLinear("q_a_proj", d.hd, d.rq, d.bias);
        o.params.push_back(parameter("q_a_layernorm.weight", d.rq));
        addLinear("q_b_proj", d.rq, d.h * d.qk, false);
    } else {
        addLinear("q_proj", d.hd, d.h * d.qk, false);
    }
    addLinear("kv_a_proj_with_mqa", d.hd, d.rkv + d.dr, d.bias);
    o.params.push_back(parameter("kv_a_layernorm.weight", d.rkv));
    addLinear("kv_b_proj", d.rkv, d.h * Count::fromSigned(d.nope + d.valueDim), false);
    addLinear("o_proj", d.h * d.dv, d.hd, d.bias);
}

/// The projections as inner Linears (LoRA targets them by name).
void addInnerLinears(LayerOutcome& o, const LayerContext& ctx, const MlaDims& d, DType attended)
{
    const DType inType = ctx.in().dtype;
    const DType projected
        = isAutocast(ctx.precision) ? halfType(ctx.precision) : inType; // the projections' outputs
    const auto inner
        = [&](const std::string& name, std::int64_t inFeatures, std::int64_t outFeatures, DType type) {
              o.innerLinears.push_back(
                  InnerLinear { name, inFeatures, outFeatures, 1, d.t, type, name + ".weight" });
          };
    if (d.qRank > 0) {
        inner("q_a_proj", d.hidden, d.qRank, inType);
        inner("q_b_proj", d.qRank, d.heads * (d.nope + d.rope), promote(projected, ctx.parameterType()));
    } else {
        inner("q_proj", d.hidden, d.heads * (d.nope + d.rope), inType);
    }
    inner("kv_a_proj_with_mqa", d.hidden, d.kvRank + d.rope, inType);
    inner("kv_b_proj", d.kvRank, d.heads * (d.nope + d.valueDim), promote(projected, ctx.parameterType()));
    inner("o_proj", d.heads * d.valueDim, d.hidden, attended);
}

/// Forward FLOPs: the projections, the attention core and the norms' and rotary embedding's elementwise work.
void countFlops(LayerOutcome& o, const LayerContext& ctx, const MlaDims& d, const AttentionCoreShape& shape,
    bool explicitScores)
{
    const Count t = d.t;
    AttentionCoreFlops flops = attentionCoreFlops(ctx, shape, explicitScores);
    const Count projections = Count { 2 } * t
        * ((d.qRank > 0 ? d.hd * d.rq + d.rq * d.h * d.qk : d.hd * d.h * d.qk) + d.hd * (d.rkv + d.dr)
            + d.rkv * d.h * Count::fromSigned(d.nope + d.valueDim) + d.h * d.dv * d.hd);
    o.elementwiseFlopsPerSample = Count { 5 } * t * (d.rq + d.rkv) + Count { 3 } * t * (d.h * d.dr + d.dr);
    o.forwardFlopsPerSample
        = projections + flops.scores + flops.values + flops.softmax + o.elementwiseFlopsPerSample;
    o.attentionCore = flops;
}

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
        const MlaDims d = mlaDims(ctx);
        if (d.rope % 2 != 0)
            return failure("rotary embedding needs an even qk_rope_head_dim, not " + std::to_string(d.rope));

        LayerOutcome o;
        OpTrace trace { ctx };
        const MlaTensors m = traceProjections(trace, ctx, d);
        AttentionCoreShape shape;
        shape.length = d.length;
        shape.heads = d.heads;
        shape.qkHeadDim = d.nope + d.rope;
        shape.vHeadDim = d.valueDim;
        shape.qHeadMajor = true; // cat results
        shape.kHeadMajor = true;
        shape.vHeadMajor = false; // a view of kv_b_proj's [T, h, dn + dv] output
        shape.dropout = ctx.attrs.real("dropout");
        const AttentionCoreTrace core = traceAttentionCore(trace, ctx, m.query, m.key, m.value, shape);
        const OpTrace::Tensor& attended = core.output;
        const OpTrace::Tensor outIn = trace.toLowerPrecision(attended, "o_proj input");
        trace.keepForWeightOf(outIn, "o_proj");
        o.output = TensorInfo { in.shape, outIn.dtype };
        o.saved = trace.saved(trace.create("output", d.t * d.hd, o.output.dtype));
        markAttentionScores(o.saved);
        // q_b_proj's output (split into views, then concatenated: not kept) and the rotated parts live
        // until the cat has run.
        o.forwardScratchBytesPerSample = m.q.elements * Count { elementSize(m.q.dtype) }
            + m.qRot.elements * Count { elementSize(m.qRot.dtype) }
            + m.kRot.elements * Count { elementSize(m.kRot.dtype) } + core.forwardScratchBytes;
        o.backwardScratchBytesPerSample = core.backwardScratchBytes;
        addParameters(o, d);
        addInnerLinears(o, ctx, d, attended.dtype);
        countFlops(o, ctx, d, shape, core.explicitScores);
        return o;
    }
};

} // namespace

std::unique_ptr<LayerKind> makeMultiHeadLatentAttention()
{
    return std::make_unique<MultiHeadLatentAttentionKind>();
}

} // namespace headroom::layers

// MultiheadAttention (torch.nn.MultiheadAttention) as self-attention on its one input [T, E]:
// mha(x, x, x, need_weights=...)[0]. What it keeps is worked out op by op in SelfAttention.cpp.
// With need_weights=True (PyTorch's default) the heads x T x T probabilities are kept; with
// need_weights=False PyTorch 2.x calls scaled_dot_product_attention (flash / memory-efficient on
// CUDA), which keeps no T x T matrix, unless the analysis asks for eager attention (SDPA's math
// backend, which keeps it). batch_first and average_attn_weights change no memory (the
// averaged weights are returned, not saved); is_causal needs the user's T x T mask, a constant that
// baddbmm does not save.
#include "KindSupport.h"
#include "Kinds.h"
#include "SelfAttention.h"

namespace headroom::layers {
namespace {

class MultiheadAttentionKind final : public DescribedKind
{
public:
    MultiheadAttentionKind()
        : DescribedKind("MultiheadAttention", LayerCategory::Attention,
            "Multi-head self-attention over a sequence [T, E]",
            { inferredAttr("embed_dim", "Embedding size E"),
                intAttr("num_heads", nullptr, "Attention heads (must divide embed_dim)"),
                floatAttr("dropout", 0.0, "Dropout on the attention probabilities", 0.0, 1.0),
                boolAttr("bias", true, "Biases on the input and output projections"),
                boolAttr("add_bias_kv", false, "Learned bias rows appended to keys and values"),
                boolAttr("add_zero_attn", false, "A zero row appended to keys and values"),
                inferredAttr("kdim", "Key size (must equal embed_dim: self-attention)"),
                inferredAttr("vdim", "Value size (must equal embed_dim: self-attention)"),
                boolAttr("batch_first", false, "Batch axis first (no memory effect)"),
                boolAttr("need_weights", true,
                    "Return the attention weights: the explicit path that keeps heads x T x T "
                    "probabilities; false uses fused scaled-dot-product attention"),
                boolAttr("is_causal", false, "Causal mask hint (no memory effect)"),
                boolAttr("average_attn_weights", true,
                    "Average the returned weights over heads (no memory effect)") })
    {
    }

    [[nodiscard]] AutocastPolicy autocast() const override { return AutocastPolicy::Custom; }
    [[nodiscard]] BatchAxisUse batchAxisUse() const override { return BatchAxisUse::Own; }

    [[nodiscard]] Result<LayerOutcome> infer(const LayerContext& ctx) const override
    {
        const auto& in = ctx.in();
        if (!isFloatingPoint(in.dtype))
            return failure("needs a floating-point input but gets " + std::string(dtypeName(in.dtype))
                + " (token ids go through an Embedding first)");
        if (auto e = expectRank(in, 2, "[T, E] (sequence, embedding)"))
            return *e;
        const auto batchAxis = sequenceBatchAxis(ctx);
        if (!batchAxis)
            return batchAxis.error();
        const std::int64_t embed = in.shape.dims[1];
        if (auto e = checkInferred(ctx.attrs, "embed_dim", embed, "features (its last axis)"))
            return *e;
        for (const char* name : { "kdim", "vdim" }) {
            const auto given = ctx.attrs.optionalInteger(name);
            if (given && *given != embed)
                return failure(std::string(name) + " " + std::to_string(*given) + " differs from embed_dim "
                    + std::to_string(embed)
                    + ": only self-attention is modelled, where keys and values are the input itself");
        }
        const std::int64_t heads = ctx.attrs.integer("num_heads");
        if (embed % heads != 0)
            return failure("embed_dim " + std::to_string(embed) + " is not divisible by num_heads "
                + std::to_string(heads));

        SelfAttentionOptions options;
        options.sequence = in.shape.dims[0];
        options.embed = embed;
        options.heads = heads;
        options.dropout = ctx.attrs.real("dropout");
        options.addBiasKv = ctx.attrs.flag("add_bias_kv");
        options.addZeroAttn = ctx.attrs.flag("add_zero_attn");
        options.needWeights = ctx.attrs.flag("need_weights");
        options.implementation = ctx.attention;

        OpTrace trace { ctx };
        const OpTrace::Tensor out = selfAttention(trace, trace.input(), options);
        LayerOutcome o;
        o.output = TensorInfo { in.shape, out.dtype };
        o.output.batchAxis = batchAxis.value();
        o.params = selfAttentionParameters(options, ctx.attrs.flag("bias"));
        o.saved = trace.saved(out);
        markAttentionScores(o.saved);
        o.forwardFlopsPerSample = selfAttentionFlops(options);
        o.attentionCore = selfAttentionCore(options);
        return o;
    }
};

} // namespace

std::unique_ptr<LayerKind> makeMultiheadAttention()
{
    return std::make_unique<MultiheadAttentionKind>();
}

} // namespace headroom::layers

// TransformerEncoderLayer (torch.nn.TransformerEncoderLayer) in training on CUDA, PyTorch >= 2.1.
// The fast path (torch._transformer_encoder_layer_fwd) is inference-only, so forward() runs
//
//   norm_first=False:  x = norm1(x + dropout1(self_attn(x)));  x = norm2(x + dropout2(ff(x)))
//   norm_first=True:   x = x + dropout1(self_attn(norm1(x)));  x = x + dropout2(ff(norm2(x)))
//   ff(x) = linear2(dropout(activation(linear1(x))))
//
// self_attn is called with need_weights=False, so attention goes through
// scaled_dot_product_attention (see SelfAttention.cpp: q, k, v in one 3 T d buffer, the output,
// a float32 logsumexp, no T x T matrix; its dropout is regenerated from a Philox seed). With eager
// attention (AttentionImplementation::Eager) SDPA runs its math backend, which keeps the h x T x T
// probabilities (and, with dropout, their mask and the dropped copy). Each op keeps
// what derivatives.yaml says (OpTrace.cpp): linear its input, layer_norm its input and a float32
// mean and rstd per position, relu its output, gelu its input, dropout a bool mask, the residual adds
// nothing. Under autocast linear/SDPA run in the half type (a float32 input gets a half copy) while
// layer_norm runs in float32, and the residual adds promote (float32 + half -> float32).
// is_causal needs the user's T x T mask (a constant) and changes nothing kept; batch_first neither.
#include "KindSupport.h"
#include "Kinds.h"
#include "SelfAttention.h"

namespace headroom::layers {
namespace {

/// nn.TransformerEncoderLayer's forward: self-attention and the feed-forward block, each with its
/// dropout, residual add and LayerNorm (before, with norm_first, or after).
OpTrace::Tensor traceEncoder(OpTrace& trace, const LayerContext& ctx, const SelfAttentionOptions& attention,
    std::int64_t ff, bool gelu)
{
    const double p = attention.dropout;
    const Count t = Count::fromSigned(attention.sequence);
    const Count td = t * Count::fromSigned(attention.embed);
    const Count tf = t * Count::fromSigned(ff);
    const auto feedForward = [&](const OpTrace::Tensor& x) {
        const OpTrace::Tensor hidden = trace.linear(x, tf, "linear1");
        const OpTrace::Tensor activated = gelu ? trace.gelu(hidden, "gelu") : trace.relu(hidden, "relu");
        const OpTrace::Tensor dropped = trace.dropout(activated, p, "dropout");
        return trace.dropout(trace.linear(dropped, td, "linear2"), p, "dropout2");
    };
    const OpTrace::Tensor x = trace.input();
    if (ctx.attrs.flag("norm_first")) {
        const OpTrace::Tensor attended
            = trace.dropout(selfAttention(trace, trace.layerNorm(x, t, "norm1"), attention), p, "dropout1");
        const OpTrace::Tensor residual = trace.add(x, attended, "x + self-attention");
        return trace.add(residual, feedForward(trace.layerNorm(residual, t, "norm2")), "x + feed-forward");
    }
    const OpTrace::Tensor attended = trace.dropout(selfAttention(trace, x, attention), p, "dropout1");
    const OpTrace::Tensor normed = trace.layerNorm(trace.add(x, attended, "x + self-attention"), t, "norm1");
    return trace.layerNorm(trace.add(normed, feedForward(normed), "x + feed-forward"), t, "norm2");
}

/// The attention's parameters, then linear1, linear2 (cast by autocast) and the two LayerNorms.
std::vector<ParamTensor> encoderParameters(const SelfAttentionOptions& attention, std::int64_t ff, bool bias)
{
    const std::int64_t d = attention.embed;
    std::vector<ParamTensor> params = selfAttentionParameters(attention, bias);
    const Count dff = Count::fromSigned(d) * Count::fromSigned(ff);
    auto linearParams = [&](const std::string& name, Count weight, Count biasElements) {
        ParamTensor w = parameter(name + ".weight", weight);
        w.castByAutocast = true;
        params.push_back(w);
        if (bias) {
            ParamTensor b = parameter(name + ".bias", biasElements);
            b.castByAutocast = true;
            params.push_back(b);
        }
    };
    linearParams("linear1", dff, Count::fromSigned(ff));
    linearParams("linear2", dff, Count::fromSigned(d));
    for (const char* norm : { "norm1", "norm2" }) {
        params.push_back(parameter(std::string(norm) + ".weight", Count::fromSigned(d)));
        if (bias)
            params.push_back(parameter(std::string(norm) + ".bias", Count::fromSigned(d)));
    }
    return params;
}

class TransformerEncoderLayerKind final : public DescribedKind
{
public:
    TransformerEncoderLayerKind()
        : DescribedKind("TransformerEncoderLayer", LayerCategory::Attention,
            "Self-attention and feed-forward block with residuals and LayerNorms",
            { inferredAttr("d_model", "Model width (the input's last axis)"),
                intAttr("nhead", nullptr, "Attention heads (must divide d_model)"),
                intAttr("dim_feedforward", 2048, "Feed-forward width"),
                floatAttr("dropout", 0.1, "Dropout probability (attention, residual branches, feed-forward)",
                    0.0, 1.0),
                choiceAttr("activation", "relu", { "relu", "gelu" }, "Feed-forward activation"),
                [] {
                    AttributeSpec s = floatAttr("layer_norm_eps", 1e-5, "LayerNorm epsilon", 0.0, 1.0);
                    s.minFloatExclusive = true;
                    return s;
                }(),
                boolAttr("batch_first", false, "Batch axis first (no memory effect)"),
                boolAttr("norm_first", false, "LayerNorm before attention and feed-forward (pre-norm)"),
                boolAttr("bias", true, "Biases in the linear layers and LayerNorms"),
                boolAttr("is_causal", false, "Causal mask hint (no memory effect)") })
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
        if (auto e = expectRank(in, 2, "[T, d_model] (sequence, features)"))
            return *e;
        const auto batchAxis = sequenceBatchAxis(ctx);
        if (!batchAxis)
            return batchAxis.error();
        const std::int64_t d = in.shape.dims[1];
        if (auto e = checkInferred(ctx.attrs, "d_model", d, "features (its last axis)"))
            return *e;
        const std::int64_t heads = ctx.attrs.integer("nhead");
        if (d % heads != 0)
            return failure(
                "d_model " + std::to_string(d) + " is not divisible by nhead " + std::to_string(heads));
        const std::int64_t ff = ctx.attrs.integer("dim_feedforward");
        const double p = ctx.attrs.real("dropout");
        const bool bias = ctx.attrs.flag("bias");
        const bool gelu = ctx.attrs.choice("activation") == "gelu";

        SelfAttentionOptions attention;
        attention.sequence = in.shape.dims[0];
        attention.embed = d;
        attention.heads = heads;
        attention.dropout = p;
        attention.needWeights = false;
        attention.implementation = ctx.attention;
        attention.prefix = "self_attn.";

        const Count t = Count::fromSigned(attention.sequence);
        const Count td = t * Count::fromSigned(d);
        const Count tf = t * Count::fromSigned(ff);

        OpTrace trace { ctx };
        const OpTrace::Tensor out = traceEncoder(trace, ctx, attention, ff, gelu);

        LayerOutcome o;
        o.output = TensorInfo { in.shape, out.dtype };
        o.output.batchAxis = batchAxis.value();
        o.params = encoderParameters(attention, ff, bias);
        o.saved = trace.saved(out);
        markAttentionScores(o.saved);
        // attention + linear1 and linear2 (4 T d ff) + two LayerNorms (~5 per element each), as the
        // separate kinds count them; then the weight-free part: the activation (ReLU 1, GELU 8 per
        // element, as Activations.cpp), the three dropouts (1 per element when p > 0) and the two
        // residual adds. Built from those kinds, a layer counts the same forward and backward FLOPs.
        const Count dropouts = p > 0.0 ? Count { 2 } * td + tf : Count {};
        o.elementwiseFlopsPerSample = Count { gelu ? 8U : 1U } * tf + dropouts + Count { 2 } * td;
        o.forwardFlopsPerSample = selfAttentionFlops(attention) + Count { 4 } * tf * Count::fromSigned(d)
            + Count { 10 } * td + o.elementwiseFlopsPerSample;
        o.attentionCore = selfAttentionCore(attention);
        return o;
    }
};

} // namespace

std::unique_ptr<LayerKind> makeTransformerEncoderLayer()
{
    return std::make_unique<TransformerEncoderLayerKind>();
}

} // namespace headroom::layers

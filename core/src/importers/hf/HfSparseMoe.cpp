// mixtral, qwen2_moe, qwen3_moe: MixtralForCausalLM, Qwen2MoeForCausalLM, Qwen3MoeForCausalLM
// (modeling_mixtral.py, modeling_qwen2_moe.py, modeling_qwen3_moe.py): Llama-style layers whose MLP is a
// sparse mixture of experts (MixtureOfExperts: the router "gate" and the experts), named as Hugging Face
// names the modules: Mixtral's block_sparse_moe with experts.N.w1/w2/w3, Qwen's mlp with
// experts.N.gate_proj/up_proj/down_proj. Qwen2-MoE adds a shared expert (mlp.shared_expert) behind a
// sigmoid gate (mlp.shared_expert_gate); Qwen3-MoE has q/k norms and no shared expert. A Qwen layer is
// sparse unless it is in mlp_only_layers or (index + 1) is not a multiple of decoder_sparse_step; dense
// layers have an ordinary MLP of intermediate_size.
//
// output_router_logits (false in the published configs) adds the load-balancing auxiliary loss, which
// keeps more: see docs/hf-import.md; the import builds the model as configured and the description says so.
#include "HfBlocks.h"
#include "HfFamilies.h"

#include <algorithm>

namespace headroom::hf {

namespace {

/// The keys of the three families, as read (the ones a family lacks at their defaults).
struct SparseMoeKeys
{
    bool mixtral = false;
    bool qwen2 = false;
    bool qwen3 = false;
    Dimensions d;
    Size dense, experts, topK, shared;
    bool normTopK = false;
    std::int64_t sparseStep = 1;
    std::vector<std::int64_t> denseLayers;
    double eps = 1e-6;
    double attnDrop = 0.0;
    double jitter = 0.0;
    bool routerLogits = false;
    std::string act;
    bool qkvBias = false;
    bool outputBias = false;
};

SparseMoeKeys readSparseMoe(ConfigReader& r, const std::string& modelType)
{
    SparseMoeKeys k;
    k.mixtral = modelType == "mixtral";
    k.qwen2 = modelType == "qwen2_moe";
    k.qwen3 = modelType == "qwen3_moe";
    const bool mixtral = k.mixtral;
    // Mixtral's experts are intermediate_size wide; Qwen's moe_intermediate_size (intermediate_size is
    // the dense layers' MLP).
    k.d = readDimensions(r, mixtral ? "intermediate_size" : "moe_intermediate_size");
    k.dense = mixtral ? Size {} : r.size({ "intermediate_size" });
    k.d.headDim = r.size({ "head_dim" }, 0, kMaxSize, true); // None: hidden_size / num_attention_heads
    k.experts = r.size({ mixtral ? "num_local_experts" : "num_experts" }, std::nullopt, 1 << 16);
    k.topK = r.size({ "num_experts_per_tok" });
    k.shared = k.qwen2 ? r.size({ "shared_expert_intermediate_size" }) : Size {};
    k.normTopK = mixtral || r.flag("norm_topk_prob", false);
    k.sparseStep = mixtral ? 1 : r.size({ "decoder_sparse_step" }, 1, kMaxLayers).value;
    k.denseLayers = mixtral ? std::vector<std::int64_t> {} : r.indices("mlp_only_layers", k.d.layers.value);
    k.eps = r.number("rms_norm_eps", 1e-6, 1.0);
    k.attnDrop = r.number("attention_dropout", 0.0, 1.0);
    k.jitter = mixtral ? r.number("router_jitter_noise", 0.0, 1.0) : 0.0;
    k.routerLogits = r.flag("output_router_logits", false);
    k.act = r.text("hidden_act", "silu");
    k.d.tied = r.flag("tie_word_embeddings", false);
    // Qwen2-MoE: q/k/v biases (qkv_bias, default true), o_proj none; Qwen3-MoE: attention_bias on all four.
    k.qkvBias = k.qwen2 ? r.flag("qkv_bias", true) : k.qwen3 && r.flag("attention_bias", false);
    k.outputBias = k.qwen3 && k.qkvBias;
    return k;
}

/// The sparse MLP: the router and the experts, and Qwen2-MoE's gated shared expert.
ExpertsBlock expertsOf(const SparseMoeKeys& k, const LayerSpec& actFn, const std::string& fused)
{
    ExpertsBlock moe;
    moe.name = k.mixtral ? "block_sparse_moe" : "mlp";
    moe.attributes = { { "num_experts", k.experts.value }, { "num_experts_per_tok", k.topK.value },
        { "intermediate_size", k.d.intermediate.value }, { "activation", fused },
        { "norm_topk_prob", k.normTopK } };
    if (k.mixtral)
        moe.attributes["expert_names"] = "w1/w3/w2";
    if (k.jitter > 0.0)
        moe.attributes["jitter_noise"] = k.jitter;
    if (k.qwen2) {
        GatedMlp sharedExpert = mlpFor(k.d, actFn, k.shared.value);
        sharedExpert.prefix = "mlp.shared_expert.";
        moe.shared = sharedExpert;
        moe.sharedGate = true;
    }
    return moe;
}

std::string describeSparseMoe(const SparseMoeKeys& k, std::int64_t sparseLayers)
{
    const Dimensions& d = k.d;
    const std::string cls = k.mixtral ? "MixtralForCausalLM"
        : k.qwen2                     ? "Qwen2MoeForCausalLM"
                                      : "Qwen3MoeForCausalLM";
    return cls + ": " + describe(d, "experts' MLP", true) + ", " + number(k.experts.value) + " experts, top-"
        + number(k.topK.value) + (k.qwen2 ? ", a shared expert of " + number(k.shared.value) : "")
        + (sparseLayers < d.layers.value ? ", " + number(d.layers.value - sparseLayers) + " dense layers"
                                         : "")
        + (d.tied ? ", LM head tied to embed_tokens" : "")
        + (k.routerLogits ? "; output_router_logits is set: the auxiliary loss keeps more than shown "
                            "(docs/hf-import.md)"
                          : "");
}

} // namespace

std::optional<Network> buildSparseMoe(ConfigReader& r, const json&, const std::string& modelType)
{
    const SparseMoeKeys k = readSparseMoe(r, modelType);
    const Dimensions& d = k.d;
    if (!r.error() && k.topK.value > k.experts.value)
        r.fail(k.topK.said() + " must be at most " + k.experts.said()
                + ": each token goes to that many distinct experts",
            k.topK.key);
    checkDimensions(r, d, true, 3.0 * static_cast<double>(k.experts.value),
        k.qwen2 ? 3.0 * static_cast<double>(d.hidden.value) * static_cast<double>(k.shared.value) : 0.0);
    auto act_fn = activationFor(r, "hidden_act", k.act, "mlp.act_fn");
    const auto fused = fusedActivationFor(r, "hidden_act", k.act);
    if (r.error())
        return std::nullopt;

    AttentionBlock attention = attentionFor(d, k.attnDrop);
    attention.qkvBias = k.qkvBias;
    attention.outputBias = k.outputBias;
    if (k.qwen3) {
        attention.qkNorm = NormStyle::Llama;
        attention.qkNormEps = k.eps;
    }
    const ExpertsBlock moe = expertsOf(k, *act_fn, *fused);
    const GatedMlp mlp = mlpFor(d, *act_fn, k.dense.value);
    DecoderLayer decoder;
    decoder.eps = k.eps;
    const auto sparse = decoderLayer(decoder, attention,
        [&](std::vector<LayerSpec>& b, const std::string& in) { return appendExperts(b, in, moe); });
    const auto plain = decoderLayer(decoder, attention,
        [&](std::vector<LayerSpec>& b, const std::string& in) { return appendGatedMlp(b, in, mlp); });
    const auto isSparse = [&](std::int64_t i) {
        return std::find(k.denseLayers.begin(), k.denseLayers.end(), i) == k.denseLayers.end()
            && (i + 1) % k.sparseStep == 0;
    };
    std::int64_t sparseLayers = 0;
    for (std::int64_t i = 0; i < d.layers.value; ++i)
        sparseLayers += isSparse(i) ? 1 : 0;

    CausalLm lm;
    lm.eps = k.eps;
    lm.tied = d.tied;
    Network n = causalLm(lm, d, decoderStack("model.layers", d.layers.value, [&](std::int64_t i) {
        return isSparse(i) ? sparse : plain;
    }));
    n.description = describeSparseMoe(k, sparseLayers);
    return n;
}

} // namespace headroom::hf

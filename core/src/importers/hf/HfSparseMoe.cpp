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

std::optional<Network> buildSparseMoe(ConfigReader& r, const json&, const std::string& modelType)
{
    const bool mixtral = modelType == "mixtral";
    const bool qwen2 = modelType == "qwen2_moe";
    const bool qwen3 = modelType == "qwen3_moe";
    // Mixtral's experts are intermediate_size wide; Qwen's moe_intermediate_size (intermediate_size is
    // the dense layers' MLP).
    Dimensions d = readDimensions(r, mixtral ? "intermediate_size" : "moe_intermediate_size");
    const Size dense = mixtral ? Size {} : r.size({ "intermediate_size" });
    d.headDim = r.size({ "head_dim" }, 0, kMaxSize, true); // None: hidden_size / num_attention_heads
    const Size experts = r.size({ mixtral ? "num_local_experts" : "num_experts" }, std::nullopt, 1 << 16);
    const Size topK = r.size({ "num_experts_per_tok" });
    const Size shared = qwen2 ? r.size({ "shared_expert_intermediate_size" }) : Size {};
    const bool normTopK = mixtral || r.flag("norm_topk_prob", false);
    const std::int64_t sparseStep = mixtral ? 1 : r.size({ "decoder_sparse_step" }, 1, kMaxLayers).value;
    const std::vector<std::int64_t> denseLayers
        = mixtral ? std::vector<std::int64_t> {} : r.indices("mlp_only_layers", d.layers.value);
    const double eps = r.number("rms_norm_eps", 1e-6, 1.0);
    const double attnDrop = r.number("attention_dropout", 0.0, 1.0);
    const double jitter = mixtral ? r.number("router_jitter_noise", 0.0, 1.0) : 0.0;
    const bool routerLogits = r.flag("output_router_logits", false);
    const std::string act = r.text("hidden_act", "silu");
    d.tied = r.flag("tie_word_embeddings", false);
    // Qwen2-MoE: q/k/v biases (qkv_bias, default true), o_proj none; Qwen3-MoE: attention_bias on all four.
    const bool qkvBias = qwen2 ? r.flag("qkv_bias", true) : qwen3 && r.flag("attention_bias", false);
    const bool outputBias = qwen3 && qkvBias;
    if (!r.error() && topK.value > experts.value)
        r.fail(topK.said() + " must be at most " + experts.said()
                + ": each token goes to that many distinct experts",
            topK.key);
    checkDimensions(r, d, true, 3.0 * static_cast<double>(experts.value),
        qwen2 ? 3.0 * static_cast<double>(d.hidden.value) * static_cast<double>(shared.value) : 0.0);
    auto act_fn = activationFor(r, "hidden_act", act, "mlp.act_fn");
    const auto fused = fusedActivationFor(r, "hidden_act", act);
    if (r.error())
        return std::nullopt;

    AttentionBlock attention = attentionFor(d, attnDrop);
    attention.qkvBias = qkvBias;
    attention.outputBias = outputBias;
    if (qwen3) {
        attention.qkNorm = NormStyle::Llama;
        attention.qkNormEps = eps;
    }
    ExpertsBlock moe;
    moe.name = mixtral ? "block_sparse_moe" : "mlp";
    moe.attributes = { { "num_experts", experts.value }, { "num_experts_per_tok", topK.value },
        { "intermediate_size", d.intermediate.value }, { "activation", *fused },
        { "norm_topk_prob", normTopK } };
    if (mixtral)
        moe.attributes["expert_names"] = "w1/w3/w2";
    if (jitter > 0.0)
        moe.attributes["jitter_noise"] = jitter;
    if (qwen2) {
        GatedMlp sharedExpert = mlpFor(d, *act_fn, shared.value);
        sharedExpert.prefix = "mlp.shared_expert.";
        moe.shared = sharedExpert;
        moe.sharedGate = true;
    }
    const GatedMlp mlp = mlpFor(d, *act_fn, dense.value);
    DecoderLayer decoder;
    decoder.eps = eps;
    const auto sparse = decoderLayer(decoder, attention,
        [&](std::vector<LayerSpec>& b, const std::string& in) { return appendExperts(b, in, moe); });
    const auto plain = decoderLayer(decoder, attention,
        [&](std::vector<LayerSpec>& b, const std::string& in) { return appendGatedMlp(b, in, mlp); });
    const auto isSparse = [&](std::int64_t i) {
        return std::find(denseLayers.begin(), denseLayers.end(), i) == denseLayers.end()
            && (i + 1) % sparseStep == 0;
    };
    std::int64_t sparseLayers = 0;
    for (std::int64_t i = 0; i < d.layers.value; ++i)
        sparseLayers += isSparse(i) ? 1 : 0;

    CausalLm lm;
    lm.eps = eps;
    lm.tied = d.tied;
    Network n = causalLm(lm, d, decoderStack("model.layers", d.layers.value, [&](std::int64_t i) {
        return isSparse(i) ? sparse : plain;
    }));
    const std::string cls = mixtral ? "MixtralForCausalLM"
        : qwen2                     ? "Qwen2MoeForCausalLM"
                                    : "Qwen3MoeForCausalLM";
    n.description = cls + ": " + describe(d, "experts' MLP", true) + ", " + number(experts.value)
        + " experts, top-" + number(topK.value)
        + (qwen2 ? ", a shared expert of " + number(shared.value) : "")
        + (sparseLayers < d.layers.value ? ", " + number(d.layers.value - sparseLayers) + " dense layers"
                                         : "")
        + (d.tied ? ", LM head tied to embed_tokens" : "")
        + (routerLogits ? "; output_router_logits is set: the auxiliary loss keeps more than shown "
                          "(docs/hf-import.md)"
                        : "");
    return n;
}

} // namespace headroom::hf

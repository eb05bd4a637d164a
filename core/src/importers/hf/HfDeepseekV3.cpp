// deepseek_v3: DeepseekV3ForCausalLM (modeling_deepseek_v3.py): embed_tokens, layers x
// (input_layernorm, self_attn (MultiHeadLatentAttention: q_a_proj, q_a_layernorm, q_b_proj or q_proj,
// kv_a_proj_with_mqa, kv_a_layernorm, kv_b_proj, o_proj), +, post_attention_layernorm, mlp, +), norm,
// lm_head. The first first_k_dense_replace layers have a dense MLP of intermediate_size; the others a
// mixture of experts (mlp: DeepseekV3TopkRouter "gate" with sigmoid scores and a bias-corrected,
// group-limited top-k, n_routed_experts of moe_intermediate_size) plus shared experts beside it
// (mlp.shared_experts, one MLP of n_shared_experts x moe_intermediate_size). The multi-token-prediction
// layers of the checkpoint (num_nextn_predict_layers) are not part of the Hugging Face class.
#include "HfBlocks.h"
#include "HfFamilies.h"

namespace headroom::hf {

std::optional<Network> buildDeepseekV3(ConfigReader& r, const json&, const std::string&)
{
    Dimensions d;
    d.hidden = r.size({ "hidden_size" });
    d.layers = r.size({ "num_hidden_layers" }, std::nullopt, kMaxLayers);
    d.heads = r.size({ "num_attention_heads" });
    d.kvHeads = d.heads; // latent attention: every head has its own keys and values
    const Size dense = r.size({ "intermediate_size" });
    d.intermediate = r.size({ "moe_intermediate_size" });
    d.vocab = r.size({ "vocab_size" });
    d.positions = r.size({ "max_position_embeddings" });
    const Size qRank = r.size({ "q_lora_rank" }, 0, kMaxSize, true); // None: one q_proj
    const Size kvRank = r.size({ "kv_lora_rank" });
    const Size nope = r.size({ "qk_nope_head_dim" });
    const Size rope = r.size({ "qk_rope_head_dim" });
    const Size valueDim = r.size({ "v_head_dim" });
    const Size experts = r.size({ "n_routed_experts" }, std::nullopt, 1 << 16);
    const Size sharedExperts = r.size({ "n_shared_experts" });
    const Size topK = r.size({ "num_experts_per_tok" });
    const Size groups = r.size({ "n_group" }, 1);
    const Size topGroups = r.size({ "topk_group" }, 1);
    const std::int64_t denseLayers = r.count("first_k_dense_replace", 0, d.layers.value);
    const bool normTopK = r.flag("norm_topk_prob", true);
    const double eps = r.number("rms_norm_eps", 1e-6, 1.0);
    const double attnDrop = r.number("attention_dropout", 0.0, 1.0);
    const bool attentionBias = r.flag("attention_bias", false);
    const std::string act = r.text("hidden_act", "silu");
    d.tied = r.flag("tie_word_embeddings", false);
    d.headDim.value = nope.value + rope.value; // the query/key head size
    d.headDim.key = nope.key + " + " + rope.key;
    d.headDim.given = true;
    if (!r.error() && topK.value > experts.value)
        r.fail(topK.said() + " must be at most " + experts.said()
                + ": each token goes to that many distinct experts",
            topK.key);
    if (!r.error() && experts.value % groups.value != 0)
        r.fail(groups.said() + " must divide " + experts.said()
                + ": the router picks groups of equally many experts",
            groups.key);
    if (!r.error() && topGroups.value > groups.value)
        r.fail(topGroups.said() + " must be at most " + groups.said(), topGroups.key);
    if (!r.error() && topK.value > topGroups.value * (experts.value / groups.value))
        r.fail(topK.said() + " must be at most " + topGroups.key + " × experts per group ("
                + number(topGroups.value) + " × " + number(experts.value / groups.value)
                + "): the top-k experts come from the chosen groups",
            topK.key);
    if (!r.error() && rope.value % 2 != 0)
        r.fail(
            rope.said() + " must be even: rotary position embeddings rotate pairs of dimensions", rope.key);
    if (!r.error() && sharedExperts.value * d.intermediate.value > kMaxSize)
        r.fail(sharedExperts.key + " × " + d.intermediate.key
                + " (the shared experts' width) must be at most " + number(kMaxSize),
            sharedExperts.key);
    checkDimensions(r, d, false, 3.0 * static_cast<double>(experts.value + sharedExperts.value));
    auto act_fn = activationFor(r, "hidden_act", act, "mlp.act_fn");
    const auto fused = fusedActivationFor(r, "hidden_act", act);
    if (r.error())
        return std::nullopt;

    const json attention = { { "num_heads", d.heads.value }, { "q_lora_rank", qRank.given ? qRank.value : 0 },
        { "kv_lora_rank", kvRank.value }, { "qk_nope_head_dim", nope.value },
        { "qk_rope_head_dim", rope.value }, { "v_head_dim", valueDim.value },
        { "attention_bias", attentionBias }, { "dropout", attnDrop }, { "eps", eps } };
    const AppendBlock latentAttention = [&](std::vector<LayerSpec>& b, const std::string& in) {
        b.push_back(layer("MultiHeadLatentAttention", "self_attn", attention, { in }));
        return std::string("self_attn");
    };
    ExpertsBlock moe;
    moe.name = "mlp";
    moe.attributes = { { "num_experts", experts.value }, { "num_experts_per_tok", topK.value },
        { "intermediate_size", d.intermediate.value }, { "activation", *fused }, { "router", "sigmoid" },
        { "norm_topk_prob", normTopK } };
    GatedMlp sharedMlp = mlpFor(d, *act_fn, sharedExperts.value * d.intermediate.value);
    sharedMlp.prefix = "mlp.shared_experts.";
    moe.shared = sharedMlp;
    const GatedMlp mlp = mlpFor(d, *act_fn, dense.value);
    DecoderLayer decoder;
    decoder.eps = eps;
    const auto denseLayer = decoderLayer(decoder, latentAttention,
        [&](std::vector<LayerSpec>& b, const std::string& in) { return appendGatedMlp(b, in, mlp); });
    const auto moeLayer = decoderLayer(decoder, latentAttention,
        [&](std::vector<LayerSpec>& b, const std::string& in) { return appendExperts(b, in, moe); });

    CausalLm lm;
    lm.eps = eps;
    lm.tied = d.tied;
    Network n = causalLm(lm, d, decoderStack("model.layers", d.layers.value, [&](std::int64_t i) {
        return i < denseLayers ? denseLayer : moeLayer;
    }));
    n.description = "DeepseekV3ForCausalLM: " + number(d.layers.value) + " layers (" + number(denseLayers)
        + " dense, MLP " + number(dense.value) + "), hidden " + number(d.hidden.value) + ", "
        + number(d.heads.value) + " heads of latent attention (ranks "
        + (qRank.given ? number(qRank.value) : std::string("none")) + "/" + number(kvRank.value) + "), "
        + number(experts.value) + " routed experts of " + number(d.intermediate.value) + ", top-"
        + number(topK.value) + ", " + number(sharedExperts.value) + " shared, vocabulary "
        + number(d.vocab.value) + ", " + number(d.positions.value) + " positions"
        + (d.tied ? ", LM head tied to embed_tokens" : "");
    return n;
}

} // namespace headroom::hf

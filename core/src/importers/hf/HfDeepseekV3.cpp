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

namespace {

/// deepseek_v3's keys, as read.
struct DeepseekV3Keys
{
    Dimensions d;
    Size dense, qRank, kvRank, nope, rope, valueDim, experts, sharedExperts, topK, groups, topGroups;
    std::int64_t denseLayers = 0;
    bool normTopK = true;
    double eps = 1e-6;
    double attnDrop = 0.0;
    bool attentionBias = false;
    std::string act;
};

DeepseekV3Keys readDeepseekV3(ConfigReader& r)
{
    DeepseekV3Keys k;
    Dimensions& d = k.d;
    d.hidden = r.size({ "hidden_size" });
    d.layers = r.size({ "num_hidden_layers" }, std::nullopt, kMaxLayers);
    d.heads = r.size({ "num_attention_heads" });
    d.kvHeads = d.heads; // latent attention: every head has its own keys and values
    k.dense = r.size({ "intermediate_size" });
    d.intermediate = r.size({ "moe_intermediate_size" });
    d.vocab = r.size({ "vocab_size" });
    d.positions = r.size({ "max_position_embeddings" });
    k.qRank = r.size({ "q_lora_rank" }, 0, kMaxSize, true); // None: one q_proj
    k.kvRank = r.size({ "kv_lora_rank" });
    k.nope = r.size({ "qk_nope_head_dim" });
    k.rope = r.size({ "qk_rope_head_dim" });
    k.valueDim = r.size({ "v_head_dim" });
    k.experts = r.size({ "n_routed_experts" }, std::nullopt, 1 << 16);
    k.sharedExperts = r.size({ "n_shared_experts" });
    k.topK = r.size({ "num_experts_per_tok" });
    k.groups = r.size({ "n_group" }, 1);
    k.topGroups = r.size({ "topk_group" }, 1);
    k.denseLayers = r.count("first_k_dense_replace", 0, d.layers.value);
    k.normTopK = r.flag("norm_topk_prob", true);
    k.eps = r.number("rms_norm_eps", 1e-6, 1.0);
    k.attnDrop = r.number("attention_dropout", 0.0, 1.0);
    k.attentionBias = r.flag("attention_bias", false);
    k.act = r.text("hidden_act", "silu");
    d.tied = r.flag("tie_word_embeddings", false);
    d.headDim.value = k.nope.value + k.rope.value; // the query/key head size
    d.headDim.key = k.nope.key + " + " + k.rope.key;
    d.headDim.given = true;
    return k;
}

/// The router's and the heads' constraints, the first one broken as the reader's error.
void checkDeepseekV3(ConfigReader& r, const DeepseekV3Keys& k)
{
    const Size& experts = k.experts;
    const Size& groups = k.groups;
    const Size& topK = k.topK;
    const Size& topGroups = k.topGroups;
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
    if (!r.error() && k.rope.value % 2 != 0)
        r.fail(k.rope.said() + " must be even: rotary position embeddings rotate pairs of dimensions",
            k.rope.key);
    if (!r.error() && k.sharedExperts.value * k.d.intermediate.value > kMaxSize)
        r.fail(k.sharedExperts.key + " × " + k.d.intermediate.key
                + " (the shared experts' width) must be at most " + number(kMaxSize),
            k.sharedExperts.key);
    checkDimensions(r, k.d, false, 3.0 * static_cast<double>(experts.value + k.sharedExperts.value));
}

std::string describeDeepseekV3(const DeepseekV3Keys& k)
{
    const Dimensions& d = k.d;
    return "DeepseekV3ForCausalLM: " + number(d.layers.value) + " layers (" + number(k.denseLayers)
        + " dense, MLP " + number(k.dense.value) + "), hidden " + number(d.hidden.value) + ", "
        + number(d.heads.value) + " heads of latent attention (ranks "
        + (k.qRank.given ? number(k.qRank.value) : std::string("none")) + "/" + number(k.kvRank.value) + "), "
        + number(k.experts.value) + " routed experts of " + number(d.intermediate.value) + ", top-"
        + number(k.topK.value) + ", " + number(k.sharedExperts.value) + " shared, vocabulary "
        + number(d.vocab.value) + ", " + number(d.positions.value) + " positions"
        + (d.tied ? ", LM head tied to embed_tokens" : "");
}

} // namespace

std::optional<Network> buildDeepseekV3(ConfigReader& r, const json&, const std::string&)
{
    const DeepseekV3Keys k = readDeepseekV3(r);
    const Dimensions& d = k.d;
    checkDeepseekV3(r, k);
    auto act_fn = activationFor(r, "hidden_act", k.act, "mlp.act_fn");
    const auto fused = fusedActivationFor(r, "hidden_act", k.act);
    if (r.error())
        return std::nullopt;

    const json attention
        = { { "num_heads", d.heads.value }, { "q_lora_rank", k.qRank.given ? k.qRank.value : 0 },
              { "kv_lora_rank", k.kvRank.value }, { "qk_nope_head_dim", k.nope.value },
              { "qk_rope_head_dim", k.rope.value }, { "v_head_dim", k.valueDim.value },
              { "attention_bias", k.attentionBias }, { "dropout", k.attnDrop }, { "eps", k.eps } };
    const AppendBlock latentAttention = [&](std::vector<LayerSpec>& b, const std::string& in) {
        b.push_back(layer("MultiHeadLatentAttention", "self_attn", attention, { in }));
        return std::string("self_attn");
    };
    ExpertsBlock moe;
    moe.name = "mlp";
    moe.attributes = { { "num_experts", k.experts.value }, { "num_experts_per_tok", k.topK.value },
        { "intermediate_size", d.intermediate.value }, { "activation", *fused }, { "router", "sigmoid" },
        { "norm_topk_prob", k.normTopK } };
    GatedMlp sharedMlp = mlpFor(d, *act_fn, k.sharedExperts.value * d.intermediate.value);
    sharedMlp.prefix = "mlp.shared_experts.";
    moe.shared = sharedMlp;
    const GatedMlp mlp = mlpFor(d, *act_fn, k.dense.value);
    DecoderLayer decoder;
    decoder.eps = k.eps;
    const auto denseLayer = decoderLayer(decoder, latentAttention,
        [&](std::vector<LayerSpec>& b, const std::string& in) { return appendGatedMlp(b, in, mlp); });
    const auto moeLayer = decoderLayer(decoder, latentAttention,
        [&](std::vector<LayerSpec>& b, const std::string& in) { return appendExperts(b, in, moe); });

    CausalLm lm;
    lm.eps = k.eps;
    lm.tied = d.tied;
    Network n = causalLm(lm, d, decoderStack("model.layers", d.layers.value, [&](std::int64_t i) {
        return i < k.denseLayers ? denseLayer : moeLayer;
    }));
    n.description = describeDeepseekV3(k);
    return n;
}

} // namespace headroom::hf

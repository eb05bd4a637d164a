// phi3: Phi3ForCausalLM (modeling_phi3.py): embed_tokens, layers x (input_layernorm, the packed
// qkv_proj (q, k and v as views of one projection), rotary attention, o_proj, resid_attn_dropout, +,
// post_attention_layernorm, the packed gate_up_proj, activation_fn(gate) * up, down_proj,
// resid_mlp_dropout, +), norm, lm_head (tied if tie_word_embeddings: Phi-4-mini). Partial rotary
// embeddings (partial_rotary_factor) and long-RoPE scaling change no memory: the rotated q and k are new
// tensors of their full size either way.
#include "HfBlocks.h"
#include "HfFamilies.h"

namespace headroom::hf {

std::optional<Network> buildPhi3(ConfigReader& r, const json&, const std::string&)
{
    Dimensions d = readDimensions(r, "intermediate_size");
    d.headDim = r.size({ "head_dim" }, 0, kMaxSize, true); // None: hidden_size / num_attention_heads
    const double eps = r.number("rms_norm_eps", 1e-5, 1.0);
    const double attnDrop = r.number("attention_dropout", 0.0, 1.0);
    const double residDrop = r.number("resid_pdrop", 0.0, 1.0);
    const std::string act = r.text("hidden_act", "silu");
    d.tied = r.flag("tie_word_embeddings", false);
    checkDimensions(r, d, true);
    if (!r.error() && (d.heads.value + 2 * d.kvHeads.value) * d.headSize() > kMaxSize)
        r.fail("qkv_proj packs (" + d.heads.key + " + 2 × " + d.kvHeads.key
                + ") × head size = " + number((d.heads.value + 2 * d.kvHeads.value) * d.headSize())
                + " features, more than " + number(kMaxSize),
            d.heads.key);
    if (!r.error() && 2 * d.intermediate.value > kMaxSize)
        r.fail(d.intermediate.said() + " must be at most " + number(kMaxSize / 2) + ": gate_up_proj is 2 × "
                + d.intermediate.key + " wide",
            d.intermediate.key);
    const auto fused = fusedActivationFor(r, "hidden_act", act);
    if (r.error())
        return std::nullopt;

    AttentionBlock attention = attentionFor(d, attnDrop);
    attention.packed = "qkv_proj";
    GatedMlp mlp = mlpFor(d, LayerSpec {}, d.intermediate.value);
    mlp.packed = true;
    mlp.fusedActivation = *fused;
    DecoderLayer decoder;
    decoder.eps = eps;
    decoder.residualDropoutLayers = true;
    decoder.residualDropout = residDrop;
    const auto block = decoderLayer(decoder, attention,
        [&](std::vector<LayerSpec>& b, const std::string& in) { return appendGatedMlp(b, in, mlp); });

    CausalLm lm;
    lm.eps = eps;
    lm.tied = d.tied;
    Network n = causalLm(lm, d, block, "model.layers");
    n.description = "Phi3ForCausalLM: " + describe(d, "MLP", true) + ", packed qkv_proj and gate_up_proj"
        + (d.tied ? ", LM head tied to embed_tokens" : "");
    return n;
}

} // namespace headroom::hf

// llama, mistral, qwen2, qwen3: LlamaForCausalLM / MistralForCausalLM / Qwen2ForCausalLM /
// Qwen3ForCausalLM (modeling_llama.py, modeling_mistral.py, modeling_qwen2.py, modeling_qwen3.py):
// embed_tokens, layers x (input_layernorm, q/k/v_proj, (Qwen3: q_norm, k_norm over head_dim), rotary
// attention, o_proj, +, post_attention_layernorm, gate_proj, up_proj, act_fn, *, down_proj, +), norm,
// lm_head (tied if tie_word_embeddings). Sliding windows (Mistral, Qwen) change no memory.
#include "HfBlocks.h"
#include "HfFamilies.h"

namespace headroom::hf {

std::optional<Network> buildLlama(ConfigReader& r, const json&, const std::string& modelType)
{
    const bool llama = modelType == "llama";
    const bool qwen2 = modelType == "qwen2";
    const bool qwen3 = modelType == "qwen3";
    Dimensions d = readDimensions(r, "intermediate_size");
    d.headDim = r.size({ "head_dim" }, 0, kMaxSize, true); // None: hidden_size / num_attention_heads
    const double eps = r.number("rms_norm_eps", 1e-6, 1.0);
    const double attnDrop = r.number("attention_dropout", 0.0, 1.0);
    const std::string act = r.text("hidden_act", "silu");
    d.tied = r.flag("tie_word_embeddings", false);
    // Qwen2: q/k/v always have biases, o_proj none. Llama and Qwen3: attention_bias on all four. Mistral:
    // none.
    const bool attentionBias = (llama || qwen3) && r.flag("attention_bias", false);
    const bool qkvBias = qwen2 || attentionBias;
    const bool mlpBias = llama && r.flag("mlp_bias", false);
    checkDimensions(r, d, true);
    auto act_fn = activationFor(r, "hidden_act", act, "mlp.act_fn");
    if (r.error())
        return std::nullopt;

    AttentionBlock attention = attentionFor(d, attnDrop);
    attention.qkvBias = qkvBias;
    attention.outputBias = attentionBias;
    if (qwen3) {
        attention.qkNorm = NormStyle::Llama;
        attention.qkNormEps = eps;
    }
    GatedMlp mlp = mlpFor(d, *act_fn, d.intermediate.value);
    mlp.bias = mlpBias;
    DecoderLayer decoder;
    decoder.eps = eps;
    const auto block = decoderLayer(decoder, attention,
        [&](std::vector<LayerSpec>& b, const std::string& in) { return appendGatedMlp(b, in, mlp); });

    CausalLm lm;
    lm.eps = eps;
    lm.tied = d.tied;
    Network n = causalLm(lm, d, block, "model.layers");
    const std::string cls = llama ? "LlamaForCausalLM"
        : qwen2                   ? "Qwen2ForCausalLM"
        : qwen3                   ? "Qwen3ForCausalLM"
                                  : "MistralForCausalLM";
    n.description = cls + ": " + describe(d, "MLP", true) + (qwen3 ? ", per-head q/k norms" : "")
        + (d.tied ? ", LM head tied to embed_tokens" : "");
    return n;
}

} // namespace headroom::hf

// gemma, gemma2, gemma3_text, gemma3: GemmaForCausalLM, Gemma2ForCausalLM, Gemma3ForCausalLM
// (modeling_gemma.py, modeling_gemma2.py, modeling_gemma3.py) and the language model of
// Gemma3ForConditionalGeneration (a "gemma3" config's text_config; the vision tower and projector are not
// built). All: embed_tokens scaled by sqrt(hidden_size), GemmaRMSNorm (x * (1 + w) in float32, back to
// the input's dtype), head_dim given, gelu_pytorch_tanh MLP, lm_head tied. Gemma 2 and 3 add four norms
// per layer (post_attention_layernorm after the attention, pre_/post_feedforward_layernorm around the
// MLP); Gemma 2 soft-caps the attention scores (attn_logit_softcapping, eager attention only) and the
// logits (final_logit_softcapping); Gemma 3 normalises q and k per head (q_norm, k_norm). Sliding-window
// layers and query_pre_attn_scalar change no memory.
#include "HfBlocks.h"
#include "HfFamilies.h"
#include "support/JsonText.h"

#include <cmath>

namespace headroom::hf {

namespace {

/// A soft-capping value: absent the config class's default, null none (0), else a number.
double softcap(ConfigReader& r, const char* key, double fallback)
{
    if (!r.present(key))
        return fallback;
    if (!r.has(key))
        return 0.0;
    return r.number(key, fallback, 1e9);
}

/// A multimodal gemma3 config.json holds the language model's keys in text_config, and the Hub's
/// leave out those equal to Gemma3TextConfig's defaults (configuration_gemma3.py), which then apply.
/// False (the error in `top`) when text_config is not an object.
bool openTextConfig(ConfigReader& top, const json& config, std::optional<ConfigReader>& text)
{
    const auto it = config.find("text_config");
    if (it == config.end() || !it->is_object()) {
        top.fail(std::string("text_config must be an object with the language model's sizes (a gemma3 config "
                             "describes an image-text model; Headroom builds its language model), not ")
                + (it == config.end() ? "missing" : detail::shortJson(*it)),
            "text_config");
        return false;
    }
    text.emplace(top.nested(*it, "text_config"));
    return true;
}

/// The Gemma keys, as read.
struct GemmaKeys
{
    Dimensions d;
    double eps = 1e-6;
    double attnDrop = 0.0;
    std::string act;
    bool attentionBias = false;
    double attnCap = 0.0;
    double finalCap = 0.0;
};

GemmaKeys readGemma(ConfigReader& r, bool gemma1, bool gemma2, bool multimodal)
{
    const auto fallback = [&](std::int64_t value) {
        return multimodal ? std::optional<std::int64_t> { value } : std::nullopt;
    };
    GemmaKeys k;
    Dimensions& d = k.d;
    d.hidden = r.size({ "hidden_size" }, fallback(2304));
    d.layers = r.size({ "num_hidden_layers" }, fallback(26), kMaxLayers);
    d.heads = r.size({ "num_attention_heads" }, fallback(8));
    d.kvHeads = r.size({ "num_key_value_heads" }, multimodal ? 4 : d.heads.value, kMaxSize, true);
    d.intermediate = r.size({ "intermediate_size" }, fallback(9216));
    d.vocab = r.size({ "vocab_size" }, fallback(262208));
    d.positions = r.size({ "max_position_embeddings" }, fallback(131072));
    d.headDim = r.size({ "head_dim" }, 256); // every Gemma config class defaults head_dim to 256
    d.headDim.given = true;
    k.eps = r.number("rms_norm_eps", 1e-6, 1.0);
    k.attnDrop = r.number("attention_dropout", 0.0, 1.0);
    // GemmaMLP ignores hidden_act (transformers PR 29402): hidden_activation, gelu_pytorch_tanh when None.
    k.act = r.text("hidden_activation", "gelu_pytorch_tanh", gemma1);
    d.tied = r.flag("tie_word_embeddings", true);
    k.attentionBias = r.flag("attention_bias", false);
    k.attnCap = softcap(r, "attn_logit_softcapping", gemma2 ? 50.0 : 0.0);
    k.finalCap = softcap(r, "final_logit_softcapping", gemma2 ? 30.0 : 0.0);
    return k;
}

std::string describeGemma(const GemmaKeys& k, bool gemma1, bool gemma2, bool multimodal)
{
    const Dimensions& d = k.d;
    const std::string cls = gemma1 ? "GemmaForCausalLM"
        : gemma2                   ? "Gemma2ForCausalLM"
        : multimodal               ? "Gemma3ForConditionalGeneration's language model (no vision tower)"
                                   : "Gemma3ForCausalLM";
    return cls + ": " + describe(d, "MLP", true) + ", head size " + number(d.headSize())
        + (k.attnCap > 0.0 ? ", attention scores soft-capped" : "")
        + (k.finalCap > 0.0 ? ", logits soft-capped" : "") + (d.tied ? ", LM head tied to embed_tokens" : "");
}

} // namespace

std::optional<Network> buildGemma(ConfigReader& top, const json& config, const std::string& modelType)
{
    const bool gemma1 = modelType == "gemma";
    const bool gemma2 = modelType == "gemma2";
    const bool multimodal = modelType == "gemma3";
    std::optional<ConfigReader> text;
    if (multimodal && !openTextConfig(top, config, text))
        return std::nullopt;
    ConfigReader& r = text ? *text : top;
    const GemmaKeys k = readGemma(r, gemma1, gemma2, multimodal);
    const Dimensions& d = k.d;
    checkDimensions(r, d, true);
    auto act_fn = activationFor(r, r.named("hidden_activation"), k.act, "mlp.act_fn");
    if (r.error())
        return std::nullopt;

    AttentionBlock attention = attentionFor(d, k.attnDrop);
    attention.qkvBias = k.attentionBias;
    attention.outputBias = k.attentionBias;
    attention.logitSoftcapping = k.attnCap;
    if (!gemma1 && !gemma2) {
        attention.qkNorm = NormStyle::Gemma;
        attention.qkNormEps = k.eps;
    }
    const GatedMlp mlp = mlpFor(d, *act_fn, d.intermediate.value);
    DecoderLayer decoder;
    decoder.norm = NormStyle::Gemma;
    decoder.eps = k.eps;
    decoder.sandwich = !gemma1;
    const auto block = decoderLayer(decoder, attention,
        [&](std::vector<LayerSpec>& b, const std::string& in) { return appendGatedMlp(b, in, mlp); });

    const std::string model = multimodal ? "model.language_model." : "model.";
    CausalLm lm;
    lm.embedding = model + "embed_tokens";
    lm.embeddingScale = std::sqrt(static_cast<double>(d.hidden.value)); // hidden_size ** 0.5
    lm.norm = NormStyle::Gemma;
    lm.eps = k.eps;
    lm.finalNorm = model + "norm";
    lm.tied = d.tied;
    lm.finalLogitSoftcapping = k.finalCap;
    Network n = causalLm(lm, d, block, model + "layers");
    n.description = describeGemma(k, gemma1, gemma2, multimodal);
    return n;
}

} // namespace headroom::hf

// gpt_neox: GPTNeoXForCausalLM (modeling_gpt_neox.py; Pythia, GPT-NeoX-20B): gpt_neox.embed_in,
// emb_dropout, layers x (input_layernorm, attention.query_key_value (q, k, v interleaved per head in one
// projection), rotary attention on rotary_pct of each head, attention.dense, post_attention_dropout,
// post_attention_layernorm, mlp.dense_h_to_4h, act, mlp.dense_4h_to_h, post_mlp_dropout), final_layer_norm,
// embed_out (untied). With use_parallel_residual the MLP reads the layer's input and the layer returns
// x + attention + MLP; without it the MLP follows the attention's residual sum.
#include "HfBlocks.h"
#include "HfFamilies.h"

namespace headroom::hf {

std::optional<Network> buildGptNeox(ConfigReader& r, const json&, const std::string&)
{
    Dimensions d = readDimensions(r, "intermediate_size", false);
    const double eps = r.number("layer_norm_eps", 1e-5, 1.0);
    r.number("rotary_pct", 0.25, 1.0); // the rotated part is a new tensor of the head's full size either way
    const double attnDrop = r.number("attention_dropout", 0.0, 1.0);
    const double hiddenDrop = r.number("hidden_dropout", 0.0, 1.0);
    const std::string act = r.text("hidden_act", "gelu");
    const bool parallel = r.flag("use_parallel_residual", true);
    const bool bias = r.flag("attention_bias", true);
    d.tied = r.flag("tie_word_embeddings", false);
    checkDimensions(r, d, true, 2.0);
    if (!r.error() && 3 * d.hidden.value > kMaxSize)
        r.fail(d.hidden.said() + " must be at most " + number(kMaxSize / 3)
                + ": attention.query_key_value is 3 × " + d.hidden.key + " wide",
            d.hidden.key);
    auto act_fn = activationFor(r, "hidden_act", act, "mlp.act");
    if (r.error())
        return std::nullopt;

    std::vector<LayerSpec> block;
    block.push_back(norm(NormStyle::LayerNorm, eps, "input_layernorm"));
    AttentionBlock attention = attentionFor(d, attnDrop);
    attention.qkvBias = bias;
    attention.outputBias = bias;
    attention.packed = "query_key_value";
    attention.prefix = "attention.";
    attention.output = "dense";
    appendAttention(block, "input_layernorm", attention);
    block.push_back(dropout("post_attention_dropout", hiddenDrop));
    if (!parallel)
        block.push_back(
            layer("Add", "attn_residual", json::object(), { "post_attention_dropout", "repeat_input" }));
    block.push_back(norm(NormStyle::LayerNorm, eps, "post_attention_layernorm",
        { parallel ? "repeat_input" : "attn_residual" }));
    block.push_back(linear("mlp.dense_h_to_4h", d.intermediate.value, bias));
    block.push_back(*act_fn);
    block.push_back(linear("mlp.dense_4h_to_h", d.hidden.value, bias));
    block.push_back(dropout("post_mlp_dropout", hiddenDrop));
    if (parallel)
        block.push_back(layer("Add", "residual", json::object(),
            { "post_mlp_dropout", "post_attention_dropout", "repeat_input" }));
    else
        block.push_back(
            layer("Add", "mlp_residual", json::object(), { "post_mlp_dropout", "attn_residual" }));

    CausalLm lm;
    lm.embedding = "gpt_neox.embed_in";
    lm.embeddingDropout = hiddenDrop;
    lm.embeddingDropoutName = "gpt_neox.emb_dropout";
    lm.norm = NormStyle::LayerNorm;
    lm.eps = eps;
    lm.finalNorm = "gpt_neox.final_layer_norm";
    lm.head = "embed_out";
    lm.tied = d.tied;
    Network n = causalLm(lm, d, block, "gpt_neox.layers");
    n.description = "GPTNeoXForCausalLM: " + describe(d, "MLP") + (parallel ? ", parallel residual" : "")
        + (d.tied ? ", embed_out tied to embed_in" : "");
    return n;
}

} // namespace headroom::hf

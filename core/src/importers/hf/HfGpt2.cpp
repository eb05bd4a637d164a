// gpt2: GPT2LMHeadModel (modeling_gpt2.py): wte, wpe, drop, h x (ln_1, attn.c_attn, attention,
// attn.c_proj, resid dropout, +, ln_2, mlp.c_fc, gelu_new, mlp.c_proj, dropout, +), ln_f, lm_head (tied
// to wte).
#include "HfBlocks.h"
#include "HfFamilies.h"

namespace headroom::hf {

namespace {

/// One transformer.h block: ln_1, attention, the residual, ln_2, the MLP, the residual.
std::vector<LayerSpec> gpt2Block(
    const Dimensions& d, double eps, double attnDrop, double residDrop, const LayerSpec& act)
{
    std::vector<LayerSpec> block;
    block.push_back(layer("LayerNorm", "ln_1", { { "eps", eps } }));
    block.push_back(linear("attn.c_attn", 3 * d.hidden.value, true));
    block.push_back(layer("ScaledDotProductAttention", "attn.attention",
        { { "num_heads", d.heads.value }, { "dropout", attnDrop }, { "is_causal", true },
            { "softmax_float32", false } }));
    block.push_back(linear("attn.c_proj", d.hidden.value, true));
    block.push_back(dropout("attn.resid_dropout", residDrop));
    block.push_back(layer("Add", "attn_residual", json::object(), { "attn.resid_dropout", "repeat_input" }));
    block.push_back(layer("LayerNorm", "ln_2", { { "eps", eps } }));
    block.push_back(linear("mlp.c_fc", d.intermediate.value, true));
    block.push_back(act);
    block.push_back(linear("mlp.c_proj", d.hidden.value, true));
    block.push_back(dropout("mlp.dropout", residDrop));
    block.push_back(layer("Add", "mlp_residual", json::object(), { "mlp.dropout", "attn_residual" }));
    return block;
}

} // namespace

std::optional<Network> buildGpt2(ConfigReader& r, const json&, const std::string&)
{
    Dimensions d;
    d.hidden = r.size({ "n_embd", "hidden_size" });
    d.layers = r.size({ "n_layer", "num_hidden_layers" }, std::nullopt, kMaxLayers);
    d.heads = r.size({ "n_head", "num_attention_heads" });
    d.kvHeads = d.heads;
    // GPT2MLP: n_inner None is 4 × n_embd.
    d.intermediate = r.size({ "n_inner", "intermediate_size" }, 4 * d.hidden.value, kMaxSize, true);
    d.vocab = r.size({ "vocab_size" });
    d.positions = r.size({ "n_positions", "max_position_embeddings" });
    d.learnedPositions = true;
    const double eps = r.number("layer_norm_epsilon", 1e-5, 1.0);
    const double attnDrop = r.number("attn_pdrop", 0.1, 1.0);
    const double embdDrop = r.number("embd_pdrop", 0.1, 1.0);
    const double residDrop = r.number("resid_pdrop", 0.1, 1.0);
    const std::string act = r.text("activation_function", "gelu_new");
    d.tied = r.flag("tie_word_embeddings", true);
    if (!r.error() && 3 * d.hidden.value > kMaxSize)
        r.fail(d.hidden.said() + " must be at most " + number(kMaxSize / 3) + ": attn.c_attn is 3 × "
                + d.hidden.key + " wide, and a layer is at most " + number(kMaxSize),
            d.hidden.key);
    if (!r.error() && !d.intermediate.given && d.intermediate.value > kMaxSize)
        r.fail(d.intermediate.key + " is not given, so it is 4 × " + d.hidden.key + " = "
                + number(d.intermediate.value) + ", more than " + number(kMaxSize) + "; give "
                + d.intermediate.key,
            d.intermediate.key);
    checkDimensions(r, d, false);
    auto act_fn = activationFor(r, "activation_function", act, "mlp.act");
    if (r.error())
        return std::nullopt;

    Network n;
    n.layers.push_back(layer("Embedding", "transformer.wte",
        { { "num_embeddings", d.vocab.value }, { "embedding_dim", d.hidden.value } }));
    n.layers.push_back(
        layer("PositionalEmbedding", "transformer.wpe", { { "num_embeddings", d.positions.value } }));
    n.layers.push_back(dropout("transformer.drop", embdDrop));
    std::vector<LayerSpec> block = gpt2Block(d, eps, attnDrop, residDrop, *act_fn);
    n.layers.push_back(repeatBlock("transformer.h", d.layers.value, std::move(block)));
    n.layers.push_back(layer("LayerNorm", "transformer.ln_f", { { "eps", eps } }));
    LayerSpec head = linear("lm_head", d.vocab.value, false);
    if (d.tied)
        head.tiedTo = "transformer.wte";
    n.layers.push_back(std::move(head));
    n.input = InputSpec { Shape { { d.positions.value } }, DType::Int64, std::nullopt };
    n.description = "GPT2LMHeadModel: " + describe(d, "MLP") + (d.tied ? ", LM head tied to wte" : "");
    return n;
}

} // namespace headroom::hf

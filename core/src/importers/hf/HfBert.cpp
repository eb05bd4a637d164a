// bert: BertForMaskedLM (modeling_bert.py): embeddings (word + token type + position, LayerNorm,
// dropout), layer x (query, key, value, attention, output.dense, dropout, +, LayerNorm, intermediate,
// GELU, output.dense, dropout, +, LayerNorm), the MLM head (dense, GELU, LayerNorm, decoder tied to the
// word embeddings with its own bias); no pooler.
#include "HfBlocks.h"
#include "HfFamilies.h"
#include "headroom/support/Format.h"

namespace headroom::hf {

std::optional<Network> buildBert(ConfigReader& r, const json&, const std::string&)
{
    Dimensions d = readDimensions(r, "intermediate_size", false);
    d.learnedPositions = true;
    const Size typeVocab = r.size({ "type_vocab_size" }, 2);
    const double eps = r.number("layer_norm_eps", 1e-12, 1.0);
    const double hiddenDrop = r.number("hidden_dropout_prob", 0.1, 1.0);
    const double attnDrop = r.number("attention_probs_dropout_prob", 0.1, 1.0);
    const std::string act = r.text("hidden_act", "gelu");
    d.tied = r.flag("tie_word_embeddings", true);
    // BertSelfAttention: position_embedding_type or "absolute".
    const std::string positionType = r.text("position_embedding_type", "absolute", true);
    checkDimensions(r, d, false);
    if (positionType != "absolute")
        r.fail("position_embedding_type " + quoteForMessage(positionType)
                + " is not supported; only \"absolute\"",
            "position_embedding_type");
    auto intermediateAct = activationFor(r, "hidden_act", act, "intermediate.intermediate_act_fn");
    auto transformAct = activationFor(r, "hidden_act", act, "cls.predictions.transform.transform_act_fn");
    if (r.error())
        return std::nullopt;

    Network n;
    n.layers.push_back(layer("Embedding", "bert.embeddings.word_embeddings",
        { { "num_embeddings", d.vocab.value }, { "embedding_dim", d.hidden.value } }));
    n.layers.push_back(layer("TokenTypeEmbedding", "bert.embeddings.token_type_embeddings",
        { { "num_embeddings", typeVocab.value } }));
    n.layers.push_back(layer("PositionalEmbedding", "bert.embeddings.position_embeddings",
        { { "num_embeddings", d.positions.value } }));
    n.layers.push_back(layer("LayerNorm", "bert.embeddings.LayerNorm", { { "eps", eps } }));
    n.layers.push_back(dropout("bert.embeddings.dropout", hiddenDrop));
    std::vector<LayerSpec> block;
    for (const char* proj : { "attention.self.query", "attention.self.key", "attention.self.value" })
        block.push_back(linear(proj, d.hidden.value, true, { "repeat_input" }));
    block.push_back(layer("ScaledDotProductAttention", "attention.self.attention",
        { { "num_heads", d.heads.value }, { "dropout", attnDrop }, { "softmax_float32", false } },
        { "attention.self.query", "attention.self.key", "attention.self.value" }));
    block.push_back(linear("attention.output.dense", d.hidden.value, true));
    block.push_back(dropout("attention.output.dropout", hiddenDrop));
    block.push_back(layer(
        "Add", "attention.output.residual", json::object(), { "attention.output.dropout", "repeat_input" }));
    block.push_back(layer("LayerNorm", "attention.output.LayerNorm", { { "eps", eps } }));
    block.push_back(linear("intermediate.dense", d.intermediate.value, true));
    block.push_back(*intermediateAct);
    block.push_back(linear("output.dense", d.hidden.value, true));
    block.push_back(dropout("output.dropout", hiddenDrop));
    block.push_back(
        layer("Add", "output.residual", json::object(), { "output.dropout", "attention.output.LayerNorm" }));
    block.push_back(layer("LayerNorm", "output.LayerNorm", { { "eps", eps } }));
    n.layers.push_back(repeatBlock("bert.encoder.layer", d.layers.value, std::move(block)));
    n.layers.push_back(linear("cls.predictions.transform.dense", d.hidden.value, true));
    n.layers.push_back(*transformAct);
    n.layers.push_back(layer("LayerNorm", "cls.predictions.transform.LayerNorm", { { "eps", eps } }));
    LayerSpec decoder = linear("cls.predictions.decoder", d.vocab.value, true);
    if (d.tied)
        decoder.tiedTo = "bert.embeddings.word_embeddings";
    n.layers.push_back(std::move(decoder));
    n.input = InputSpec { Shape { { d.positions.value } }, DType::Int64, std::nullopt };
    n.description = "BertForMaskedLM (no pooler): " + describe(d, "intermediate")
        + (d.tied ? ", decoder tied to the word embeddings" : "");
    return n;
}

} // namespace headroom::hf

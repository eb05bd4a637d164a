// Hugging Face config.json -> Headroom layers (docs/hf-import.md). Each model is spelled out in the
// primitive layers its PyTorch modules run, named as Hugging Face names its modules (so LoRA targets
// such as "q_proj" match), with the decoder/encoder layers in one Repeat block (so per-block
// checkpointing applies):
//
//   gpt2          GPT2LMHeadModel: wte, wpe, drop, h x (ln_1, attn.c_attn, attention, attn.c_proj,
//                 resid dropout, +, ln_2, mlp.c_fc, gelu_new, mlp.c_proj, dropout, +), ln_f, lm_head
//                 (tied to wte)
//   bert          BertForMaskedLM: embeddings (word + token type + position, LayerNorm, dropout),
//                 layer x (query, key, value, attention, output.dense, dropout, +, LayerNorm,
//                 intermediate, GELU, output.dense, dropout, +, LayerNorm), the MLM head (dense, GELU,
//                 LayerNorm, decoder tied to the word embeddings with its own bias); no pooler
//   llama,        LlamaForCausalLM / MistralForCausalLM / Qwen2ForCausalLM: embed_tokens, layers x
//   mistral,      (input_layernorm, q/k/v_proj, rotary attention, o_proj, +, post_attention_layernorm,
//   qwen2         gate_proj, up_proj, SiLU, *, down_proj, +), norm, lm_head (tied if
//                 tie_word_embeddings)
#include "headroom/HfConfig.h"

#include "JsonText.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <limits>
#include <optional>
#include <set>
#include <sstream>

namespace headroom {

namespace {

using nlohmann::json;

constexpr std::uint64_t kMaxConfigBytes = 4 * 1024 * 1024;
/// Every size a config gives becomes a layer attribute (out_features, num_embeddings, num_heads, ...),
/// and those take at most a 32-bit int (AttributeSpec::maxInt).
constexpr std::int64_t kMaxSize = std::numeric_limits<std::int32_t>::max();
/// Far beyond any published model (the deepest have about 128), and well within the 1,000,000 layers
/// the analysis expands a network to.
constexpr std::int64_t kMaxLayers = 10'000;
/// 2^50 (about 1.1e15) parameters, some 500 times the largest published models: with gradients and
/// optimizer state their bytes stay far from overflowing 64 bits.
constexpr double kMaxParameters = 1125899906842624.0;
constexpr const char* kSupported = "bert, gpt2, llama, mistral, qwen2";

std::string lowercase(std::string s)
{
    std::transform(s.begin(), s.end(), s.begin(),
        [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
}

/// A size read from the config and the key it came from, for messages.
struct Size {
    std::int64_t value = 1;
    std::string key;
    bool given = false; ///< false: the default

    /// "hidden_size (4096)"
    [[nodiscard]] std::string said() const { return key + " (" + std::to_string(value) + ")"; }
};

/// Reads typed values from the config object; the first problem is kept as the error. A key given as
/// null is an error unless Hugging Face's code substitutes a default for None (`nullIsDefault`).
class ConfigReader final {
public:
    ConfigReader(const json& config, std::string file) : m_config{config}, m_file{std::move(file)} {}

    [[nodiscard]] const std::optional<Error>& error() const noexcept { return m_error; }

    /// A whole number from 1 to `max` from the first of `keys` present (HF spells some keys two ways:
    /// n_embd / hidden_size). Absent (or null, when there is a fallback): `fallback`, or an error when
    /// there is none.
    Size size(std::initializer_list<const char*> keys, std::optional<std::int64_t> fallback = std::nullopt,
        std::int64_t max = kMaxSize)
    {
        const auto [key, value] = find(keys);
        Size out{fallback.value_or(1), key, false};
        if (value == nullptr || (value->is_null() && fallback)) {
            if (!fallback)
                fail(spelled(keys) + " is missing", key);
            return out;
        }
        const std::string rule = key + " must be a whole number from 1 to " + std::to_string(max) + ", not ";
        if (value->is_number_float()) {
            // Python writes 4096.0 for a float; transformers would fail on it as a size too.
            const double real = value->get<double>();
            const bool whole = real >= 1 && real <= static_cast<double>(max) && real == std::floor(real);
            fail(rule + value->dump()
                    + (whole ? " (a float: write " + std::to_string(static_cast<std::int64_t>(real)) + ")" : ""),
                key);
            return out;
        }
        if (!value->is_number_integer()) {
            fail(rule + value->dump(), key);
            return out;
        }
        const bool tooBig = value->is_number_unsigned()
            ? value->get<std::uint64_t>() > static_cast<std::uint64_t>(max)
            : value->get<std::int64_t>() > max;
        if (tooBig || value->get<std::int64_t>() < 1) {
            fail(rule + value->dump(), key);
            return out;
        }
        out.value = value->get<std::int64_t>();
        out.given = true;
        return out;
    }

    double number(const char* key, double fallback, double max)
    {
        const json* value = find({key}).second;
        if (value == nullptr)
            return fallback;
        if (!value->is_number() || value->get<double>() < 0.0 || value->get<double>() > max) {
            fail(std::string(key) + " must be a number from 0 to " + formatNumber(max) + ", not " + value->dump(), key);
            return fallback;
        }
        return value->get<double>();
    }

    bool flag(const char* key, bool fallback)
    {
        const json* value = find({key}).second;
        if (value == nullptr)
            return fallback;
        if (!value->is_boolean()) {
            fail(std::string(key) + " must be true or false, not " + value->dump(), key);
            return fallback;
        }
        return value->get<bool>();
    }

    std::string text(const char* key, const std::string& fallback, bool nullIsDefault = false)
    {
        const json* value = find({key}).second;
        if (value == nullptr || (value->is_null() && nullIsDefault))
            return fallback;
        if (!value->is_string()) {
            fail(std::string(key) + " must be a string such as \"" + fallback + "\", not " + value->dump(), key);
            return fallback;
        }
        return value->get<std::string>();
    }

    void fail(const std::string& message, const std::string& key)
    {
        if (!m_error)
            m_error = Error{m_file + ": " + message, key};
    }

private:
    /// The first of `keys` with a value, else the first given as null, else none (named by the first).
    std::pair<std::string, const json*> find(std::initializer_list<const char*> keys) const
    {
        std::pair<std::string, const json*> null{*keys.begin(), nullptr};
        for (const char* k : keys) {
            const auto it = m_config.find(k);
            if (it == m_config.end())
                continue;
            if (!it->is_null())
                return {k, &*it};
            if (null.second == nullptr)
                null = {k, &*it};
        }
        return null;
    }

    /// "n_embd (or hidden_size)"
    static std::string spelled(std::initializer_list<const char*> keys)
    {
        std::string s = *keys.begin();
        for (auto it = keys.begin() + 1; it != keys.end(); ++it)
            s += std::string(it == keys.begin() + 1 ? " (or " : ", ") + *it;
        return keys.size() > 1 ? s + ")" : s;
    }

    static std::string formatNumber(double v)
    {
        std::ostringstream s;
        s << v;
        return s.str();
    }

    const json& m_config;
    std::string m_file;
    std::optional<Error> m_error;
};

LayerSpec layer(std::string type, std::string name, json attributes = json::object(),
    std::vector<std::string> inputs = {})
{
    LayerSpec spec;
    spec.type = std::move(type);
    spec.name = std::move(name);
    spec.attributes = std::move(attributes);
    spec.inputs = std::move(inputs);
    return spec;
}

LayerSpec linear(std::string name, std::int64_t out, bool bias, std::vector<std::string> inputs = {})
{
    return layer("Linear", std::move(name), {{"out_features", out}, {"bias", bias}}, std::move(inputs));
}

LayerSpec dropout(std::string name, double p, std::vector<std::string> inputs = {})
{
    return layer("Dropout", std::move(name), {{"p", p}}, std::move(inputs));
}

LayerSpec repeatBlock(std::string name, std::int64_t times, std::vector<LayerSpec> children)
{
    LayerSpec spec;
    spec.type = "Repeat";
    spec.name = std::move(name);
    spec.times = times;
    spec.children = std::move(children);
    return spec;
}

/// The activation layer for a hidden_act / activation_function value.
std::optional<LayerSpec> activation(const std::string& act, std::string name, std::vector<std::string> inputs = {})
{
    if (act == "gelu")
        return layer("GELU", std::move(name), json::object(), std::move(inputs));
    if (act == "gelu_new")
        return layer("NewGELU", std::move(name), json::object(), std::move(inputs));
    if (act == "gelu_pytorch_tanh")
        return layer("GELU", std::move(name), {{"approximate", "tanh"}}, std::move(inputs));
    if (act == "relu")
        return layer("ReLU", std::move(name), json::object(), std::move(inputs));
    if (act == "silu" || act == "swish")
        return layer("SiLU", std::move(name), json::object(), std::move(inputs));
    return std::nullopt;
}

constexpr const char* kActivations = "gelu, gelu_new, gelu_pytorch_tanh, relu, silu";

struct Dimensions {
    Size hidden;
    Size layers;
    Size heads;
    Size kvHeads;
    Size headDim; ///< given as head_dim (Llama family), else not `given` and hidden / heads
    Size intermediate;
    Size vocab;
    Size positions;
    bool learnedPositions = false; ///< a position table of `positions` rows (GPT-2, BERT)
    bool tied = false;
};

std::string number(std::int64_t v)
{
    return std::to_string(v);
}

/// "32 layers, hidden 4096, 32 heads (8 key/value), MLP 14336, vocabulary 32000, 32768 positions"
std::string describe(const Dimensions& d, const char* mlp, bool keyValueHeads = false)
{
    return number(d.layers.value) + " layers, hidden " + number(d.hidden.value) + ", " + number(d.heads.value)
        + " heads" + (keyValueHeads ? " (" + number(d.kvHeads.value) + " key/value)" : "") + ", "
        + mlp + " " + number(d.intermediate.value) + ", vocabulary " + number(d.vocab.value) + ", "
        + number(d.positions.value) + " positions";
}

/// What the sizes must be together, each message naming the keys: the heads divide the width, the
/// key/value heads divide the heads, rotary heads are even, the query width fits a layer, and the
/// parameters can be counted.
void checkDimensions(ConfigReader& r, const Dimensions& d, bool rotary)
{
    if (r.error())
        return;
    if (!d.headDim.given && d.hidden.value % d.heads.value != 0) {
        r.fail(d.heads.said() + " must divide " + d.hidden.said(), d.heads.key);
        return;
    }
    if (d.heads.value % d.kvHeads.value != 0) {
        r.fail(d.kvHeads.said() + " must divide " + d.heads.said(), d.kvHeads.key);
        return;
    }
    const std::int64_t headDim = d.headDim.given ? d.headDim.value : d.hidden.value / d.heads.value;
    const std::int64_t width = d.heads.value * headDim; // both at most 2^31: no overflow
    if (width > kMaxSize) {
        r.fail(d.heads.key + " × head_dim (" + number(d.heads.value) + " × " + number(headDim) + " = "
                + number(width) + ") must be at most " + number(kMaxSize) + ": the query projection is that wide",
            d.headDim.key);
        return;
    }
    if (rotary && headDim % 2 != 0) {
        const std::string why = " must be even: rotary position embeddings rotate pairs of dimensions";
        if (d.headDim.given)
            r.fail(d.headDim.said() + why, d.headDim.key);
        else
            r.fail(d.hidden.key + " / " + d.heads.key + " (" + number(d.hidden.value) + " / "
                    + number(d.heads.value) + " = " + number(headDim) + ", the head size)" + why
                    + "; give an even head_dim",
                d.heads.key);
        return;
    }
    // Roughly what each model builds (GPT-2 and BERT have two MLP matrices, not three): enough to tell
    // a countable model from one whose byte counts would overflow.
    const double e = static_cast<double>(d.hidden.value);
    const double q = static_cast<double>(width);
    const double kv = q * static_cast<double>(d.kvHeads.value) / static_cast<double>(d.heads.value);
    const double perLayer = e * (q + 2 * kv) + q * e + 3 * e * static_cast<double>(d.intermediate.value);
    const double params = static_cast<double>(d.vocab.value) * e * (d.tied ? 1 : 2)
        + (d.learnedPositions ? static_cast<double>(d.positions.value) * e : 0.0)
        + static_cast<double>(d.layers.value) * perLayer;
    if (params > kMaxParameters) {
        std::ostringstream about;
        about.precision(2);
        about << params;
        r.fail(d.hidden.said() + ", " + d.intermediate.said() + ", " + d.vocab.said() + " and " + d.layers.said()
                + " make about " + about.str() + " parameters, more than the 2^50 Headroom counts",
            d.hidden.key);
    }
}

/// The activation for `key`'s value `act`, or an error naming the key.
std::optional<LayerSpec> activationFor(ConfigReader& r, const char* key, const std::string& act,
    std::string name, std::vector<std::string> inputs = {})
{
    auto fn = activation(act, std::move(name), std::move(inputs));
    if (!fn)
        r.fail(std::string(key) + " \"" + act + "\" is not supported; supported: " + kActivations, key);
    return fn;
}

std::optional<Network> gpt2(ConfigReader& r)
{
    Dimensions d;
    d.hidden = r.size({"n_embd", "hidden_size"});
    d.layers = r.size({"n_layer", "num_hidden_layers"}, std::nullopt, kMaxLayers);
    d.heads = r.size({"n_head", "num_attention_heads"});
    d.kvHeads = d.heads;
    // GPT2MLP: n_inner None is 4 × n_embd.
    d.intermediate = r.size({"n_inner", "intermediate_size"}, 4 * d.hidden.value);
    d.vocab = r.size({"vocab_size"});
    d.positions = r.size({"n_positions", "max_position_embeddings"});
    d.learnedPositions = true;
    const double eps = r.number("layer_norm_epsilon", 1e-5, 1.0);
    const double attnDrop = r.number("attn_pdrop", 0.1, 1.0);
    const double embdDrop = r.number("embd_pdrop", 0.1, 1.0);
    const double residDrop = r.number("resid_pdrop", 0.1, 1.0);
    const std::string act = r.text("activation_function", "gelu_new");
    d.tied = r.flag("tie_word_embeddings", true);
    if (!r.error() && 3 * d.hidden.value > kMaxSize)
        r.fail(d.hidden.said() + " must be at most " + number(kMaxSize / 3) + ": attn.c_attn is 3 × " + d.hidden.key
                + " wide, and a layer is at most " + number(kMaxSize),
            d.hidden.key);
    if (!r.error() && !d.intermediate.given && d.intermediate.value > kMaxSize)
        r.fail(d.intermediate.key + " is not given, so it is 4 × " + d.hidden.key + " = "
                + number(d.intermediate.value) + ", more than " + number(kMaxSize) + "; give " + d.intermediate.key,
            d.intermediate.key);
    checkDimensions(r, d, false);
    auto act_fn = activationFor(r, "activation_function", act, "mlp.act");
    if (r.error())
        return std::nullopt;

    Network n;
    n.layers.push_back(layer("Embedding", "transformer.wte",
        {{"num_embeddings", d.vocab.value}, {"embedding_dim", d.hidden.value}}));
    n.layers.push_back(layer("PositionalEmbedding", "transformer.wpe", {{"num_embeddings", d.positions.value}}));
    n.layers.push_back(dropout("transformer.drop", embdDrop));
    std::vector<LayerSpec> block;
    block.push_back(layer("LayerNorm", "ln_1", {{"eps", eps}}));
    block.push_back(linear("attn.c_attn", 3 * d.hidden.value, true));
    block.push_back(layer("ScaledDotProductAttention", "attn.attention",
        {{"num_heads", d.heads.value}, {"dropout", attnDrop}, {"is_causal", true}, {"softmax_float32", false}}));
    block.push_back(linear("attn.c_proj", d.hidden.value, true));
    block.push_back(dropout("attn.resid_dropout", residDrop));
    block.push_back(layer("Add", "attn_residual", json::object(), {"attn.resid_dropout", "repeat_input"}));
    block.push_back(layer("LayerNorm", "ln_2", {{"eps", eps}}));
    block.push_back(linear("mlp.c_fc", d.intermediate.value, true));
    block.push_back(*act_fn);
    block.push_back(linear("mlp.c_proj", d.hidden.value, true));
    block.push_back(dropout("mlp.dropout", residDrop));
    block.push_back(layer("Add", "mlp_residual", json::object(), {"mlp.dropout", "attn_residual"}));
    n.layers.push_back(repeatBlock("transformer.h", d.layers.value, std::move(block)));
    n.layers.push_back(layer("LayerNorm", "transformer.ln_f", {{"eps", eps}}));
    LayerSpec head = linear("lm_head", d.vocab.value, false);
    if (d.tied)
        head.tiedTo = "transformer.wte";
    n.layers.push_back(std::move(head));
    n.input = InputSpec{Shape{{d.positions.value}}, DType::Int64};
    n.description = "GPT2LMHeadModel: " + describe(d, "MLP") + (d.tied ? ", LM head tied to wte" : "");
    return n;
}

std::optional<Network> bert(ConfigReader& r)
{
    Dimensions d;
    d.hidden = r.size({"hidden_size"});
    d.layers = r.size({"num_hidden_layers"}, std::nullopt, kMaxLayers);
    d.heads = r.size({"num_attention_heads"});
    d.kvHeads = d.heads;
    d.intermediate = r.size({"intermediate_size"});
    d.vocab = r.size({"vocab_size"});
    d.positions = r.size({"max_position_embeddings"});
    d.learnedPositions = true;
    const Size typeVocab = r.size({"type_vocab_size"}, 2);
    const double eps = r.number("layer_norm_eps", 1e-12, 1.0);
    const double hiddenDrop = r.number("hidden_dropout_prob", 0.1, 1.0);
    const double attnDrop = r.number("attention_probs_dropout_prob", 0.1, 1.0);
    const std::string act = r.text("hidden_act", "gelu");
    d.tied = r.flag("tie_word_embeddings", true);
    // BertSelfAttention: position_embedding_type or "absolute".
    const std::string positionType = r.text("position_embedding_type", "absolute", true);
    checkDimensions(r, d, false);
    if (positionType != "absolute")
        r.fail("position_embedding_type \"" + positionType + "\" is not supported; only \"absolute\"",
            "position_embedding_type");
    auto intermediateAct = activationFor(r, "hidden_act", act, "intermediate.intermediate_act_fn");
    auto transformAct = activationFor(r, "hidden_act", act, "cls.predictions.transform.transform_act_fn");
    if (r.error())
        return std::nullopt;

    Network n;
    n.layers.push_back(layer("Embedding", "bert.embeddings.word_embeddings",
        {{"num_embeddings", d.vocab.value}, {"embedding_dim", d.hidden.value}}));
    n.layers.push_back(layer("TokenTypeEmbedding", "bert.embeddings.token_type_embeddings",
        {{"num_embeddings", typeVocab.value}}));
    n.layers.push_back(layer("PositionalEmbedding", "bert.embeddings.position_embeddings",
        {{"num_embeddings", d.positions.value}}));
    n.layers.push_back(layer("LayerNorm", "bert.embeddings.LayerNorm", {{"eps", eps}}));
    n.layers.push_back(dropout("bert.embeddings.dropout", hiddenDrop));
    std::vector<LayerSpec> block;
    for (const char* proj : {"attention.self.query", "attention.self.key", "attention.self.value"})
        block.push_back(linear(proj, d.hidden.value, true, {"repeat_input"}));
    block.push_back(layer("ScaledDotProductAttention", "attention.self.attention",
        {{"num_heads", d.heads.value}, {"dropout", attnDrop}, {"softmax_float32", false}},
        {"attention.self.query", "attention.self.key", "attention.self.value"}));
    block.push_back(linear("attention.output.dense", d.hidden.value, true));
    block.push_back(dropout("attention.output.dropout", hiddenDrop));
    block.push_back(layer("Add", "attention.output.residual", json::object(), {"attention.output.dropout", "repeat_input"}));
    block.push_back(layer("LayerNorm", "attention.output.LayerNorm", {{"eps", eps}}));
    block.push_back(linear("intermediate.dense", d.intermediate.value, true));
    block.push_back(*intermediateAct);
    block.push_back(linear("output.dense", d.hidden.value, true));
    block.push_back(dropout("output.dropout", hiddenDrop));
    block.push_back(layer("Add", "output.residual", json::object(), {"output.dropout", "attention.output.LayerNorm"}));
    block.push_back(layer("LayerNorm", "output.LayerNorm", {{"eps", eps}}));
    n.layers.push_back(repeatBlock("bert.encoder.layer", d.layers.value, std::move(block)));
    n.layers.push_back(linear("cls.predictions.transform.dense", d.hidden.value, true));
    n.layers.push_back(*transformAct);
    n.layers.push_back(layer("LayerNorm", "cls.predictions.transform.LayerNorm", {{"eps", eps}}));
    LayerSpec decoder = linear("cls.predictions.decoder", d.vocab.value, true);
    if (d.tied)
        decoder.tiedTo = "bert.embeddings.word_embeddings";
    n.layers.push_back(std::move(decoder));
    n.input = InputSpec{Shape{{d.positions.value}}, DType::Int64};
    n.description = "BertForMaskedLM (no pooler): " + describe(d, "intermediate")
        + (d.tied ? ", decoder tied to the word embeddings" : "");
    return n;
}

std::optional<Network> llamaStyle(ConfigReader& r, const std::string& modelType)
{
    const bool qwen2 = modelType == "qwen2";
    Dimensions d;
    d.hidden = r.size({"hidden_size"});
    d.layers = r.size({"num_hidden_layers"}, std::nullopt, kMaxLayers);
    d.heads = r.size({"num_attention_heads"});
    d.kvHeads = r.size({"num_key_value_heads"}, d.heads.value); // None: as many as the heads
    d.intermediate = r.size({"intermediate_size"});
    d.vocab = r.size({"vocab_size"});
    d.positions = r.size({"max_position_embeddings"});
    d.headDim = r.size({"head_dim"}, 0); // None: hidden_size / num_attention_heads
    const double eps = r.number("rms_norm_eps", 1e-6, 1.0);
    const double attnDrop = r.number("attention_dropout", 0.0, 1.0);
    const std::string act = r.text("hidden_act", "silu");
    d.tied = r.flag("tie_word_embeddings", false);
    // Qwen2: q/k/v always have biases, o_proj none. Llama: attention_bias on all four. Mistral: none.
    const bool llama = modelType == "llama";
    const bool attentionBias = llama && r.flag("attention_bias", false);
    const bool qkvBias = qwen2 || attentionBias;
    const bool mlpBias = llama && r.flag("mlp_bias", false);
    checkDimensions(r, d, true);
    auto act_fn = activationFor(r, "hidden_act", act, "mlp.act_fn", {"mlp.gate_proj"});
    if (r.error())
        return std::nullopt;
    const std::int64_t headDim = d.headDim.given ? d.headDim.value : d.hidden.value / d.heads.value;

    Network n;
    n.layers.push_back(layer("Embedding", "model.embed_tokens",
        {{"num_embeddings", d.vocab.value}, {"embedding_dim", d.hidden.value}}));
    std::vector<LayerSpec> block;
    block.push_back(layer("RMSNorm", "input_layernorm", {{"eps", eps}}));
    block.push_back(linear("self_attn.q_proj", d.heads.value * headDim, qkvBias, {"input_layernorm"}));
    block.push_back(linear("self_attn.k_proj", d.kvHeads.value * headDim, qkvBias, {"input_layernorm"}));
    block.push_back(linear("self_attn.v_proj", d.kvHeads.value * headDim, qkvBias, {"input_layernorm"}));
    block.push_back(layer("ScaledDotProductAttention", "self_attn.attention",
        {{"num_heads", d.heads.value}, {"num_key_value_heads", d.kvHeads.value}, {"dropout", attnDrop},
            {"rotary", true}, {"is_causal", true}},
        {"self_attn.q_proj", "self_attn.k_proj", "self_attn.v_proj"}));
    block.push_back(linear("self_attn.o_proj", d.hidden.value, attentionBias));
    block.push_back(layer("Add", "attn_residual", json::object(), {"self_attn.o_proj", "repeat_input"}));
    block.push_back(layer("RMSNorm", "post_attention_layernorm", {{"eps", eps}}));
    block.push_back(linear("mlp.gate_proj", d.intermediate.value, mlpBias, {"post_attention_layernorm"}));
    block.push_back(linear("mlp.up_proj", d.intermediate.value, mlpBias, {"post_attention_layernorm"}));
    block.push_back(*act_fn);
    block.push_back(layer("Mul", "mlp.act_fn_times_up", json::object(), {"mlp.act_fn", "mlp.up_proj"}));
    block.push_back(linear("mlp.down_proj", d.hidden.value, mlpBias));
    block.push_back(layer("Add", "mlp_residual", json::object(), {"mlp.down_proj", "attn_residual"}));
    n.layers.push_back(repeatBlock("model.layers", d.layers.value, std::move(block)));
    n.layers.push_back(layer("RMSNorm", "model.norm", {{"eps", eps}}));
    LayerSpec head = linear("lm_head", d.vocab.value, false);
    if (d.tied)
        head.tiedTo = "model.embed_tokens";
    n.layers.push_back(std::move(head));
    n.input = InputSpec{Shape{{d.positions.value}}, DType::Int64};
    const std::string cls = llama ? "LlamaForCausalLM" : qwen2 ? "Qwen2ForCausalLM" : "MistralForCausalLM";
    n.description = cls + ": " + describe(d, "MLP", true) + (d.tied ? ", LM head tied to embed_tokens" : "");
    return n;
}

/// The first problem that keeps `text` from being a JSON object a person could have written: empty,
/// UTF-16, or binary (JSON has no raw control characters, in strings or out).
std::optional<Error> notJsonText(std::string_view text, const std::string& file)
{
    const std::string hint = " (a config.json is a JSON object such as {\"model_type\": \"llama\", ...})";
    if (text.find_first_not_of(" \t\r\n") == std::string_view::npos)
        return Error{file + ": the file is empty" + hint, ""};
    if (text.size() >= 2 && (text.substr(0, 2) == "\xFF\xFE" || text.substr(0, 2) == "\xFE\xFF"))
        return Error{file + ": the file is UTF-16 text; save it as UTF-8", ""};
    for (std::size_t i = 0; i < text.size(); ++i) {
        const auto c = static_cast<unsigned char>(text[i]);
        if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') {
            std::ostringstream byte;
            byte << "0x" << std::hex << (c < 0x10 ? "0" : "") << static_cast<int>(c);
            return Error{file + ": not a text file: byte " + std::to_string(i) + " is " + byte.str()
                    + ", a control character JSON does not allow" + hint,
                ""};
        }
    }
    return std::nullopt;
}

/// A value Python's json writes for non-finite floats (NaN, Infinity, -Infinity), which JSON does not
/// allow, and the key it is the value of.
std::optional<std::pair<std::string, std::string>> nonFiniteValue(std::string_view text)
{
    bool inString = false;
    std::size_t stringStart = 0;
    std::string lastString;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (inString) {
            if (c == '\\')
                ++i;
            else if (c == '"') {
                inString = false;
                lastString = std::string(text.substr(stringStart, i - stringStart));
            }
            continue;
        }
        if (c == '"') {
            inString = true;
            stringStart = i + 1;
            continue;
        }
        for (const std::string_view literal : {"NaN", "Infinity", "-Infinity"}) {
            if (text.substr(i, literal.size()) == literal)
                return std::pair{lastString, std::string(literal)};
        }
    }
    return std::nullopt;
}

/// parseJsonText's error, with what it most likely means for a config.json.
Error explainParseError(std::string_view text, const std::string& file, Error error)
{
    if (const auto bad = nonFiniteValue(text)) {
        const std::string key = bad->first.empty() ? "a value" : bad->first;
        return Error{file + ": " + key + " is " + bad->second
                + ", which JSON does not allow (Python's json writes it for a non-finite float); give a number",
            bad->first};
    }
    if (error.message.find("unexpected end of input") != std::string::npos)
        error.message += " (the file ends before the JSON object does: is it cut short?)";
    return error;
}

/// A top-level key given twice ({"model_type": "llama", "model_type": "gpt2"}): Python keeps the last
/// silently, which is rarely what was meant.
std::optional<std::string> duplicateKey(std::string_view text)
{
    std::set<std::string> seen;
    std::optional<std::string> duplicate;
    const json::parser_callback_t callback = [&](int depth, json::parse_event_t event, json& parsed) {
        if (event == json::parse_event_t::key && depth == 1 && !duplicate
            && !seen.insert(parsed.get<std::string>()).second)
            duplicate = parsed.get<std::string>();
        return true;
    };
    // Without exceptions: the text has parsed once already.
    return json::parse(text, callback, false).is_discarded() ? std::nullopt : duplicate;
}

/// The model's name: _name_or_path if given; else the file's name unless it is "config" ("gpt2.json");
/// else its folder's, as the Hub lays models out ("Llama-2-7b-hf/config.json"); else "model".
std::string modelName(const json& config, const std::filesystem::path& file)
{
    const auto path = config.find("_name_or_path");
    if (path != config.end() && path->is_string() && !path->get<std::string>().empty())
        return path->get<std::string>();
    const std::string stem = file.stem().string();
    if (!stem.empty() && lowercase(stem) != "config")
        return stem;
    const std::string folder = file.lexically_normal().parent_path().filename().string();
    return folder.empty() ? "model" : folder;
}

/// importHfConfig, naming the model after `file` (modelName).
Result<Network> importText(
    std::string_view text, const std::string& nameForErrors, const std::filesystem::path& file)
{
    if (auto e = notJsonText(text, nameForErrors))
        return *e;
    auto parsed = detail::parseJsonText(text, nameForErrors);
    if (!parsed)
        return explainParseError(text, nameForErrors, parsed.error());
    const json& config = parsed.value();
    if (!config.is_object())
        return Error{nameForErrors + ": a Hugging Face config.json is a JSON object, not "
                + detail::jsonTypeName(config),
            ""};
    if (const auto key = duplicateKey(text))
        return Error{nameForErrors + ": " + *key + " is given more than once; give each key once", *key};
    const std::string supported = std::string("; supported: ") + kSupported;
    const auto type = config.find("model_type");
    if (type == config.end())
        return Error{
            nameForErrors + ": model_type is missing (a string such as \"llama\")" + supported, "model_type"};
    if (!type->is_string())
        return Error{
            nameForErrors + ": model_type must be a string such as \"llama\", not " + type->dump() + supported,
            "model_type"};
    const std::string modelType = type->get<std::string>();

    ConfigReader reader{config, nameForErrors};
    std::optional<Network> network;
    if (modelType == "gpt2")
        network = gpt2(reader);
    else if (modelType == "bert")
        network = bert(reader);
    else if (modelType == "llama" || modelType == "mistral" || modelType == "qwen2")
        network = llamaStyle(reader, modelType);
    else
        return Error{
            nameForErrors + ": model_type \"" + modelType + "\" is not supported" + supported, "model_type"};
    if (reader.error() || !network)
        return reader.error().value_or(Error{nameForErrors + ": cannot be imported", ""});

    Network n = std::move(*network);
    n.loss = Loss::CrossEntropy;
    n.name = modelName(config, file);
    n.description += ". Imported from a Hugging Face config.json (model_type " + modelType + ").";
    return n;
}

} // namespace

bool isHfConfigPath(const std::string& path)
{
    return lowercase(std::filesystem::path(path).filename().string()) == "config.json";
}

Result<Network> importHfConfig(std::string_view text, const std::string& path)
{
    return importText(text, path, path);
}

Result<Network> importHfConfigFile(const std::string& path)
{
    auto text = detail::readTextFile(path, kMaxConfigBytes);
    if (!text)
        return text.error();
    // Absolute, so that "config.json" in the current folder is named after that folder.
    std::error_code ec;
    const auto absolute = std::filesystem::absolute(path, ec);
    return importText(text.value(), path, ec ? std::filesystem::path(path) : absolute);
}

} // namespace headroom

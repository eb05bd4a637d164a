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
#include <filesystem>
#include <optional>
#include <sstream>

namespace headroom {

namespace {

using nlohmann::json;

constexpr std::uint64_t kMaxConfigBytes = 4 * 1024 * 1024;
constexpr std::int64_t kMaxSize = std::int64_t{1} << 40;
constexpr const char* kSupported = "bert, gpt2, llama, mistral, qwen2";

/// Reads typed values from the config object; the first problem is kept as the error.
class ConfigReader final {
public:
    ConfigReader(const json& config, std::string file) : m_config{config}, m_file{std::move(file)} {}

    [[nodiscard]] const std::optional<Error>& error() const noexcept { return m_error; }

    /// The first of `keys` present (HF spells some keys two ways: n_embd / hidden_size); `fallback`
    /// when none is present or it is null; an error when required and missing.
    std::int64_t integer(std::initializer_list<const char*> keys, std::optional<std::int64_t> fallback = std::nullopt)
    {
        const char* key = *keys.begin();
        const json* value = find(keys, key);
        if (value == nullptr) {
            if (!fallback)
                fail(std::string(key) + " is missing", key);
            return fallback.value_or(1);
        }
        if (!value->is_number_integer() || value->get<std::int64_t>() < 1 || value->get<std::int64_t>() > kMaxSize) {
            fail(std::string(key) + " must be a positive integer up to 2^40, not " + value->dump(), key);
            return 1;
        }
        return value->get<std::int64_t>();
    }

    double real(std::initializer_list<const char*> keys, double fallback, double max)
    {
        const char* key = *keys.begin();
        const json* value = find(keys, key);
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
        const json* value = find({key}, key);
        if (value == nullptr)
            return fallback;
        if (!value->is_boolean()) {
            fail(std::string(key) + " must be true or false, not " + value->dump(), key);
            return fallback;
        }
        return value->get<bool>();
    }

    std::string text(std::initializer_list<const char*> keys, const std::string& fallback)
    {
        const char* key = *keys.begin();
        const json* value = find(keys, key);
        if (value == nullptr)
            return fallback;
        if (!value->is_string()) {
            fail(std::string(key) + " must be a string, not " + value->dump(), key);
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
    const json* find(std::initializer_list<const char*> keys, const char*& found) const
    {
        for (const char* k : keys) {
            const auto it = m_config.find(k);
            if (it != m_config.end() && !it->is_null()) {
                found = k;
                return &*it;
            }
        }
        return nullptr;
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
    std::int64_t hidden = 0;
    std::int64_t layers = 0;
    std::int64_t heads = 0;
    std::int64_t kvHeads = 0;
    std::int64_t headDim = 0;
    std::int64_t intermediate = 0;
    std::int64_t vocab = 0;
    std::int64_t positions = 0;
};

std::optional<Error> checkHeads(ConfigReader& r, const Dimensions& d, bool explicitHeadDim)
{
    if (!explicitHeadDim && d.hidden % d.heads != 0)
        r.fail("num_attention_heads must divide hidden_size (" + std::to_string(d.hidden) + " / "
                + std::to_string(d.heads) + ")",
            "num_attention_heads");
    if (d.heads % d.kvHeads != 0)
        r.fail("num_key_value_heads must divide num_attention_heads (" + std::to_string(d.heads) + " / "
                + std::to_string(d.kvHeads) + ")",
            "num_key_value_heads");
    return r.error();
}

Result<Network> gpt2(ConfigReader& r)
{
    Dimensions d;
    d.hidden = r.integer({"n_embd", "hidden_size"});
    d.layers = r.integer({"n_layer", "num_hidden_layers"});
    d.heads = r.integer({"n_head", "num_attention_heads"});
    d.kvHeads = d.heads;
    d.intermediate = r.integer({"n_inner", "intermediate_size"}, 4 * d.hidden);
    d.vocab = r.integer({"vocab_size"});
    d.positions = r.integer({"n_positions", "max_position_embeddings"});
    const double eps = r.real({"layer_norm_epsilon"}, 1e-5, 1.0);
    const double attnDrop = r.real({"attn_pdrop"}, 0.1, 1.0);
    const double embdDrop = r.real({"embd_pdrop"}, 0.1, 1.0);
    const double residDrop = r.real({"resid_pdrop"}, 0.1, 1.0);
    const std::string act = r.text({"activation_function"}, "gelu_new");
    const bool tied = r.flag("tie_word_embeddings", true);
    if (auto e = checkHeads(r, d, false))
        return *e;
    auto act_fn = activation(act, "mlp.act");
    if (!act_fn)
        return Error{"activation_function \"" + act + "\" is not supported; supported: " + kActivations,
            "activation_function"};

    Network n;
    n.layers.push_back(layer("Embedding", "transformer.wte", {{"num_embeddings", d.vocab}, {"embedding_dim", d.hidden}}));
    n.layers.push_back(layer("PositionalEmbedding", "transformer.wpe", {{"num_embeddings", d.positions}}));
    n.layers.push_back(dropout("transformer.drop", embdDrop));
    std::vector<LayerSpec> block;
    block.push_back(layer("LayerNorm", "ln_1", {{"eps", eps}}));
    block.push_back(linear("attn.c_attn", 3 * d.hidden, true));
    block.push_back(layer("ScaledDotProductAttention", "attn.attention",
        {{"num_heads", d.heads}, {"dropout", attnDrop}, {"is_causal", true}, {"softmax_float32", false}}));
    block.push_back(linear("attn.c_proj", d.hidden, true));
    block.push_back(dropout("attn.resid_dropout", residDrop));
    block.push_back(layer("Add", "attn_residual", json::object(), {"attn.resid_dropout", "repeat_input"}));
    block.push_back(layer("LayerNorm", "ln_2", {{"eps", eps}}));
    block.push_back(linear("mlp.c_fc", d.intermediate, true));
    block.push_back(*act_fn);
    block.push_back(linear("mlp.c_proj", d.hidden, true));
    block.push_back(dropout("mlp.dropout", residDrop));
    block.push_back(layer("Add", "mlp_residual", json::object(), {"mlp.dropout", "attn_residual"}));
    n.layers.push_back(repeatBlock("transformer.h", d.layers, std::move(block)));
    n.layers.push_back(layer("LayerNorm", "transformer.ln_f", {{"eps", eps}}));
    LayerSpec head = linear("lm_head", d.vocab, false);
    if (tied)
        head.tiedTo = "transformer.wte";
    n.layers.push_back(std::move(head));
    n.input = InputSpec{Shape{{d.positions}}, DType::Int64};
    n.description = "GPT2LMHeadModel: " + std::to_string(d.layers) + " layers, hidden " + std::to_string(d.hidden)
        + ", " + std::to_string(d.heads) + " heads, MLP " + std::to_string(d.intermediate) + ", vocabulary "
        + std::to_string(d.vocab) + ", " + std::to_string(d.positions) + " positions"
        + (tied ? ", LM head tied to wte" : "");
    return n;
}

Result<Network> bert(ConfigReader& r)
{
    Dimensions d;
    d.hidden = r.integer({"hidden_size"});
    d.layers = r.integer({"num_hidden_layers"});
    d.heads = r.integer({"num_attention_heads"});
    d.kvHeads = d.heads;
    d.intermediate = r.integer({"intermediate_size"});
    d.vocab = r.integer({"vocab_size"});
    d.positions = r.integer({"max_position_embeddings"});
    const std::int64_t typeVocab = r.integer({"type_vocab_size"}, 2);
    const double eps = r.real({"layer_norm_eps"}, 1e-12, 1.0);
    const double hiddenDrop = r.real({"hidden_dropout_prob"}, 0.1, 1.0);
    const double attnDrop = r.real({"attention_probs_dropout_prob"}, 0.1, 1.0);
    const std::string act = r.text({"hidden_act"}, "gelu");
    const bool tied = r.flag("tie_word_embeddings", true);
    const std::string positionType = r.text({"position_embedding_type"}, "absolute");
    if (auto e = checkHeads(r, d, false))
        return *e;
    if (positionType != "absolute")
        return Error{"position_embedding_type \"" + positionType + "\" is not supported; only \"absolute\"",
            "position_embedding_type"};
    auto intermediateAct = activation(act, "intermediate.intermediate_act_fn");
    auto transformAct = activation(act, "cls.predictions.transform.transform_act_fn");
    if (!intermediateAct || !transformAct)
        return Error{"hidden_act \"" + act + "\" is not supported; supported: " + kActivations, "hidden_act"};

    Network n;
    n.layers.push_back(layer("Embedding", "bert.embeddings.word_embeddings",
        {{"num_embeddings", d.vocab}, {"embedding_dim", d.hidden}}));
    n.layers.push_back(layer("TokenTypeEmbedding", "bert.embeddings.token_type_embeddings",
        {{"num_embeddings", typeVocab}}));
    n.layers.push_back(layer("PositionalEmbedding", "bert.embeddings.position_embeddings",
        {{"num_embeddings", d.positions}}));
    n.layers.push_back(layer("LayerNorm", "bert.embeddings.LayerNorm", {{"eps", eps}}));
    n.layers.push_back(dropout("bert.embeddings.dropout", hiddenDrop));
    std::vector<LayerSpec> block;
    for (const char* proj : {"attention.self.query", "attention.self.key", "attention.self.value"})
        block.push_back(linear(proj, d.hidden, true, {"repeat_input"}));
    block.push_back(layer("ScaledDotProductAttention", "attention.self.attention",
        {{"num_heads", d.heads}, {"dropout", attnDrop}, {"softmax_float32", false}},
        {"attention.self.query", "attention.self.key", "attention.self.value"}));
    block.push_back(linear("attention.output.dense", d.hidden, true));
    block.push_back(dropout("attention.output.dropout", hiddenDrop));
    block.push_back(layer("Add", "attention.output.residual", json::object(), {"attention.output.dropout", "repeat_input"}));
    block.push_back(layer("LayerNorm", "attention.output.LayerNorm", {{"eps", eps}}));
    block.push_back(linear("intermediate.dense", d.intermediate, true));
    block.push_back(*intermediateAct);
    block.push_back(linear("output.dense", d.hidden, true));
    block.push_back(dropout("output.dropout", hiddenDrop));
    block.push_back(layer("Add", "output.residual", json::object(), {"output.dropout", "attention.output.LayerNorm"}));
    block.push_back(layer("LayerNorm", "output.LayerNorm", {{"eps", eps}}));
    n.layers.push_back(repeatBlock("bert.encoder.layer", d.layers, std::move(block)));
    n.layers.push_back(linear("cls.predictions.transform.dense", d.hidden, true));
    n.layers.push_back(*transformAct);
    n.layers.push_back(layer("LayerNorm", "cls.predictions.transform.LayerNorm", {{"eps", eps}}));
    LayerSpec decoder = linear("cls.predictions.decoder", d.vocab, true);
    if (tied)
        decoder.tiedTo = "bert.embeddings.word_embeddings";
    n.layers.push_back(std::move(decoder));
    n.input = InputSpec{Shape{{d.positions}}, DType::Int64};
    n.description = "BertForMaskedLM (no pooler): " + std::to_string(d.layers) + " layers, hidden "
        + std::to_string(d.hidden) + ", " + std::to_string(d.heads) + " heads, intermediate "
        + std::to_string(d.intermediate) + ", vocabulary " + std::to_string(d.vocab) + ", "
        + std::to_string(d.positions) + " positions" + (tied ? ", decoder tied to the word embeddings" : "");
    return n;
}

Result<Network> llamaStyle(ConfigReader& r, const std::string& modelType)
{
    const bool qwen2 = modelType == "qwen2";
    Dimensions d;
    d.hidden = r.integer({"hidden_size"});
    d.layers = r.integer({"num_hidden_layers"});
    d.heads = r.integer({"num_attention_heads"});
    d.kvHeads = r.integer({"num_key_value_heads"}, d.heads);
    d.intermediate = r.integer({"intermediate_size"});
    d.vocab = r.integer({"vocab_size"});
    d.positions = r.integer({"max_position_embeddings"});
    const bool explicitHeadDim = r.integer({"head_dim"}, 0) != 0;
    d.headDim = explicitHeadDim ? r.integer({"head_dim"}) : d.hidden / std::max<std::int64_t>(d.heads, 1);
    const double eps = r.real({"rms_norm_eps"}, 1e-6, 1.0);
    const double attnDrop = r.real({"attention_dropout"}, 0.0, 1.0);
    const std::string act = r.text({"hidden_act"}, "silu");
    const bool tied = r.flag("tie_word_embeddings", false);
    // Qwen2: q/k/v always have biases, o_proj none. Llama: attention_bias on all four. Mistral: none.
    const bool qkvBias = qwen2 || (modelType == "llama" && r.flag("attention_bias", false));
    const bool oBias = modelType == "llama" && r.flag("attention_bias", false);
    const bool mlpBias = modelType == "llama" && r.flag("mlp_bias", false);
    if (auto e = checkHeads(r, d, explicitHeadDim))
        return *e;
    auto act_fn = activation(act, "mlp.act_fn", {"mlp.gate_proj"});
    if (!act_fn)
        return Error{"hidden_act \"" + act + "\" is not supported; supported: " + kActivations, "hidden_act"};

    Network n;
    n.layers.push_back(layer("Embedding", "model.embed_tokens", {{"num_embeddings", d.vocab}, {"embedding_dim", d.hidden}}));
    std::vector<LayerSpec> block;
    block.push_back(layer("RMSNorm", "input_layernorm", {{"eps", eps}}));
    block.push_back(linear("self_attn.q_proj", d.heads * d.headDim, qkvBias, {"input_layernorm"}));
    block.push_back(linear("self_attn.k_proj", d.kvHeads * d.headDim, qkvBias, {"input_layernorm"}));
    block.push_back(linear("self_attn.v_proj", d.kvHeads * d.headDim, qkvBias, {"input_layernorm"}));
    block.push_back(layer("ScaledDotProductAttention", "self_attn.attention",
        {{"num_heads", d.heads}, {"num_key_value_heads", d.kvHeads}, {"dropout", attnDrop}, {"rotary", true},
            {"is_causal", true}},
        {"self_attn.q_proj", "self_attn.k_proj", "self_attn.v_proj"}));
    block.push_back(linear("self_attn.o_proj", d.hidden, oBias));
    block.push_back(layer("Add", "attn_residual", json::object(), {"self_attn.o_proj", "repeat_input"}));
    block.push_back(layer("RMSNorm", "post_attention_layernorm", {{"eps", eps}}));
    block.push_back(linear("mlp.gate_proj", d.intermediate, mlpBias, {"post_attention_layernorm"}));
    block.push_back(linear("mlp.up_proj", d.intermediate, mlpBias, {"post_attention_layernorm"}));
    block.push_back(*act_fn);
    block.push_back(layer("Mul", "mlp.act_fn_times_up", json::object(), {"mlp.act_fn", "mlp.up_proj"}));
    block.push_back(linear("mlp.down_proj", d.hidden, mlpBias));
    block.push_back(layer("Add", "mlp_residual", json::object(), {"mlp.down_proj", "attn_residual"}));
    n.layers.push_back(repeatBlock("model.layers", d.layers, std::move(block)));
    n.layers.push_back(layer("RMSNorm", "model.norm", {{"eps", eps}}));
    LayerSpec head = linear("lm_head", d.vocab, false);
    if (tied)
        head.tiedTo = "model.embed_tokens";
    n.layers.push_back(std::move(head));
    n.input = InputSpec{Shape{{d.positions}}, DType::Int64};
    const std::string cls = modelType == "llama" ? "LlamaForCausalLM" : qwen2 ? "Qwen2ForCausalLM" : "MistralForCausalLM";
    n.description = cls + ": " + std::to_string(d.layers) + " layers, hidden " + std::to_string(d.hidden) + ", "
        + std::to_string(d.heads) + " heads (" + std::to_string(d.kvHeads) + " key/value), MLP "
        + std::to_string(d.intermediate) + ", vocabulary " + std::to_string(d.vocab) + ", "
        + std::to_string(d.positions) + " positions" + (tied ? ", LM head tied to embed_tokens" : "");
    return n;
}

} // namespace

bool isHfConfigPath(const std::string& path)
{
    std::string name = std::filesystem::path(path).filename().string();
    std::transform(name.begin(), name.end(), name.begin(),
        [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return name == "config.json";
}

Result<Network> importHfConfig(std::string_view text, const std::string& nameForErrors)
{
    auto parsed = detail::parseJsonText(text, nameForErrors);
    if (!parsed)
        return parsed.error();
    const json& config = parsed.value();
    if (!config.is_object())
        return Error{nameForErrors + ": a Hugging Face config.json is a JSON object, not "
                + detail::jsonTypeName(config),
            ""};
    const auto type = config.find("model_type");
    if (type == config.end() || !type->is_string())
        return Error{nameForErrors + ": model_type is missing (a string such as \"llama\"); supported: " + kSupported,
            "model_type"};
    const std::string modelType = type->get<std::string>();

    ConfigReader reader{config, nameForErrors};
    Result<Network> network = Error{};
    if (modelType == "gpt2")
        network = gpt2(reader);
    else if (modelType == "bert")
        network = bert(reader);
    else if (modelType == "llama" || modelType == "mistral" || modelType == "qwen2")
        network = llamaStyle(reader, modelType);
    else
        return Error{nameForErrors + ": model_type \"" + modelType + "\" is not supported; supported: " + kSupported,
            "model_type"};
    if (reader.error())
        return *reader.error();
    if (!network)
        return Error{nameForErrors + ": " + network.error().message, network.error().location};

    Network n = std::move(network).value();
    n.loss = Loss::CrossEntropy;
    const auto path = config.find("_name_or_path");
    if (path != config.end() && path->is_string() && !path->get<std::string>().empty())
        n.name = path->get<std::string>();
    else
        n.name = modelType + " (" + nameForErrors + ")";
    n.description += ". Imported from a Hugging Face config.json (model_type " + modelType + ").";
    return n;
}

Result<Network> importHfConfigFile(const std::string& path)
{
    auto text = detail::readTextFile(path, kMaxConfigBytes);
    if (!text)
        return text.error();
    auto network = importHfConfig(text.value(), path);
    if (network && network->name.find(" (" + path + ")") != std::string::npos) {
        // No _name_or_path: name the model after its folder, as the Hub does ("Llama-2-7b-hf").
        const auto folder = std::filesystem::path(path).parent_path().filename().string();
        if (!folder.empty()) {
            Network n = std::move(network).value();
            n.name = folder;
            return n;
        }
    }
    return network;
}

} // namespace headroom

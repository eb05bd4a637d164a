#include "HfBlocks.h"

#include "headroom/support/Format.h"

#include <sstream>

namespace headroom::hf {

LayerSpec layer(std::string type, std::string name, json attributes, std::vector<std::string> inputs)
{
    LayerSpec spec;
    spec.type = std::move(type);
    spec.name = std::move(name);
    spec.attributes = std::move(attributes);
    spec.inputs = std::move(inputs);
    return spec;
}

LayerSpec linear(std::string name, std::int64_t out, bool bias, std::vector<std::string> inputs)
{
    return layer("Linear", std::move(name), { { "out_features", out }, { "bias", bias } }, std::move(inputs));
}

LayerSpec dropout(std::string name, double p, std::vector<std::string> inputs)
{
    return layer("Dropout", std::move(name), { { "p", p } }, std::move(inputs));
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

std::string number(std::int64_t v)
{
    return std::to_string(v);
}

namespace {

/// The activation layer for a hidden_act / activation_function value.
std::optional<LayerSpec> activation(const std::string& act, std::string name, std::vector<std::string> inputs)
{
    if (act == "gelu")
        return layer("GELU", std::move(name), json::object(), std::move(inputs));
    if (act == "gelu_new")
        return layer("NewGELU", std::move(name), json::object(), std::move(inputs));
    if (act == "gelu_pytorch_tanh")
        return layer("GELU", std::move(name), { { "approximate", "tanh" } }, std::move(inputs));
    if (act == "relu")
        return layer("ReLU", std::move(name), json::object(), std::move(inputs));
    if (act == "silu" || act == "swish")
        return layer("SiLU", std::move(name), json::object(), std::move(inputs));
    return std::nullopt;
}

} // namespace

std::optional<LayerSpec> activationFor(ConfigReader& r, const std::string& key, const std::string& act,
    std::string name, std::vector<std::string> inputs)
{
    auto fn = activation(act, std::move(name), std::move(inputs));
    if (!fn)
        r.fail(key + " " + quoteForMessage(act) + " is not supported; supported: " + kActivations, key);
    return fn;
}

std::optional<std::string> fusedActivationFor(ConfigReader& r, const std::string& key, const std::string& act)
{
    if (act == "silu" || act == "swish")
        return "silu";
    if (act == "gelu")
        return "gelu";
    if (act == "gelu_pytorch_tanh")
        return "gelu_tanh";
    if (act == "relu")
        return "relu";
    r.fail(key + " " + quoteForMessage(act)
            + " is not supported here; supported: gelu, gelu_pytorch_tanh, relu, silu",
        key);
    return std::nullopt;
}

Dimensions readDimensions(ConfigReader& r, const char* intermediateKey, bool groupedQuery)
{
    Dimensions d;
    d.hidden = r.size({ "hidden_size" });
    d.layers = r.size({ "num_hidden_layers" }, std::nullopt, kMaxLayers);
    d.heads = r.size({ "num_attention_heads" });
    d.kvHeads = groupedQuery ? r.size({ "num_key_value_heads" }, d.heads.value, kMaxSize, true) : d.heads;
    d.intermediate = r.size({ intermediateKey });
    d.vocab = r.size({ "vocab_size" });
    d.positions = r.size({ "max_position_embeddings" });
    return d;
}

AttentionBlock attentionFor(const Dimensions& d, double dropout)
{
    AttentionBlock a;
    a.hidden = d.hidden.value;
    a.heads = d.heads.value;
    a.kvHeads = d.kvHeads.value;
    a.headDim = d.headSize();
    a.dropout = dropout;
    return a;
}

GatedMlp mlpFor(const Dimensions& d, const LayerSpec& activation, std::int64_t width)
{
    GatedMlp m;
    m.hidden = d.hidden.value;
    m.width = width;
    m.activation = activation;
    return m;
}

std::string describe(const Dimensions& d, const char* mlp, bool keyValueHeads)
{
    return number(d.layers.value) + " layers, hidden " + number(d.hidden.value) + ", " + number(d.heads.value)
        + " heads" + (keyValueHeads ? " (" + number(d.kvHeads.value) + " key/value)" : "") + ", " + mlp + " "
        + number(d.intermediate.value) + ", vocabulary " + number(d.vocab.value) + ", "
        + number(d.positions.value) + " positions";
}

void checkDimensions(
    ConfigReader& r, const Dimensions& d, bool rotary, double mlpMatrices, double extraPerLayer)
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
    const std::int64_t headDim = d.headSize();
    const std::int64_t width = d.heads.value * headDim; // both at most 2^31: no overflow
    if (width > kMaxSize) {
        r.fail(d.heads.key + " × head_dim (" + number(d.heads.value) + " × " + number(headDim) + " = "
                + number(width) + ") must be at most " + number(kMaxSize)
                + ": the query projection is that wide",
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
    // Roughly what each model builds (GPT-2 and BERT have two MLP matrices, not three; a mixture of
    // experts has three per expert): enough to tell a countable model from one whose byte counts would
    // overflow.
    const double e = static_cast<double>(d.hidden.value);
    const double q = static_cast<double>(width);
    const double kv = q * static_cast<double>(d.kvHeads.value) / static_cast<double>(d.heads.value);
    const double perLayer = e * (q + 2 * kv) + q * e
        + mlpMatrices * e * static_cast<double>(d.intermediate.value) + extraPerLayer;
    const double params = static_cast<double>(d.vocab.value) * e * (d.tied ? 1 : 2)
        + (d.learnedPositions ? static_cast<double>(d.positions.value) * e : 0.0)
        + static_cast<double>(d.layers.value) * perLayer;
    if (params > kMaxParameters) {
        std::ostringstream about;
        about.precision(2);
        about << params;
        r.fail(d.hidden.said() + ", " + d.intermediate.said() + ", " + d.vocab.said() + " and "
                + d.layers.said() + " make about " + about.str()
                + " parameters, more than the 2^50 Headroom counts",
            d.hidden.key);
    }
}

LayerSpec norm(NormStyle style, double eps, std::string name, std::vector<std::string> inputs)
{
    switch (style) {
    case NormStyle::Llama:
        return layer("RMSNorm", std::move(name), { { "eps", eps } }, std::move(inputs));
    case NormStyle::Gemma:
        return layer(
            "RMSNorm", std::move(name), { { "eps", eps }, { "unit_offset", true } }, std::move(inputs));
    case NormStyle::LayerNorm:
        return layer("LayerNorm", std::move(name), { { "eps", eps } }, std::move(inputs));
    }
    return layer("RMSNorm", std::move(name), { { "eps", eps } }, std::move(inputs));
}

std::string appendAttention(std::vector<LayerSpec>& block, const std::string& input, const AttentionBlock& a)
{
    const std::string& p = a.prefix;
    json attention = { { "num_heads", a.heads } };
    if (a.kvHeads != a.heads || a.packed.empty())
        attention["num_key_value_heads"] = a.kvHeads;
    attention["dropout"] = a.dropout;
    if (a.rotary)
        attention["rotary"] = true;
    attention["is_causal"] = true;
    if (!a.softmaxFloat32)
        attention["softmax_float32"] = false;
    if (a.logitSoftcapping > 0.0)
        attention["logit_softcapping"] = a.logitSoftcapping;

    std::vector<std::string> inputs;
    if (!a.packed.empty()) {
        block.push_back(linear(p + a.packed, (a.heads + 2 * a.kvHeads) * a.headDim, a.qkvBias, { input }));
        inputs.push_back(p + a.packed);
    } else {
        const auto projection = [&](const char* name, std::int64_t heads) {
            block.push_back(linear(p + name + "_proj", heads * a.headDim, a.qkvBias, { input }));
            std::string out = p + name + "_proj";
            if (a.qkNorm) { // q_norm(q_proj(x).view(..., head_dim)): one RMSNorm per head
                json attrs = { { "eps", a.qkNormEps }, { "group_size", a.headDim } };
                if (*a.qkNorm == NormStyle::Gemma)
                    attrs["unit_offset"] = true;
                if (std::string(name) != "v") {
                    block.push_back(layer("RMSNorm", p + name + "_norm", std::move(attrs), { out }));
                    out = p + name + "_norm";
                }
            }
            inputs.push_back(out);
        };
        projection("q", a.heads);
        projection("k", a.kvHeads);
        projection("v", a.kvHeads);
    }
    block.push_back(
        layer("ScaledDotProductAttention", p + "attention", std::move(attention), std::move(inputs)));
    block.push_back(linear(p + a.output, a.hidden, a.outputBias));
    return p + a.output;
}

std::string appendGatedMlp(std::vector<LayerSpec>& block, const std::string& input, const GatedMlp& m)
{
    const std::string& p = m.prefix;
    if (m.packed) {
        block.push_back(linear(p + "gate_up_proj", 2 * m.width, m.bias, { input }));
        block.push_back(
            layer("GatedActivation", p + "activation_fn", { { "activation", m.fusedActivation } }));
    } else {
        block.push_back(linear(p + "gate_proj", m.width, m.bias, { input }));
        block.push_back(linear(p + "up_proj", m.width, m.bias, { input }));
        LayerSpec act = m.activation;
        act.name = p + "act_fn";
        act.inputs = { p + "gate_proj" };
        block.push_back(std::move(act));
        block.push_back(layer("Mul", p + "act_fn_times_up", json::object(), { p + "act_fn", p + "up_proj" }));
    }
    block.push_back(linear(p + "down_proj", m.hidden, m.bias));
    return p + "down_proj";
}

std::string appendExperts(std::vector<LayerSpec>& block, const std::string& input, const ExpertsBlock& e)
{
    // transformers 5 runs the fused experts with grouped_mm by default (PreTrainedModel.
    // get_correct_experts_implementation; integrations/moe.py): MixtureOfExperts.cpp has its rules.
    json attributes = e.attributes;
    attributes["experts_implementation"] = "grouped_mm";
    block.push_back(layer("MixtureOfExperts", e.name, attributes, { input }));
    if (!e.shared)
        return e.name;
    const std::string sharedOut = appendGatedMlp(block, input, *e.shared);
    std::string added = sharedOut;
    if (e.sharedGate) { // F.sigmoid(self.shared_expert_gate(x)) * shared_expert(x)
        block.push_back(linear(e.name + ".shared_expert_gate", 1, false, { input }));
        block.push_back(layer("Sigmoid", e.name + ".shared_expert_gate_sigmoid"));
        block.push_back(layer("Mul", e.name + ".shared_expert_gated", json::object(),
            { e.name + ".shared_expert_gate_sigmoid", sharedOut }));
        added = e.name + ".shared_expert_gated";
    }
    block.push_back(layer("Add", e.name + ".routed_plus_shared", json::object(), { e.name, added }));
    return e.name + ".routed_plus_shared";
}

std::vector<LayerSpec> decoderLayer(
    const DecoderLayer& d, const AttentionBlock& attention, const AppendBlock& mlp)
{
    return decoderLayer(
        d,
        [&](std::vector<LayerSpec>& b, const std::string& in) { return appendAttention(b, in, attention); },
        mlp);
}

std::vector<LayerSpec> decoderLayer(
    const DecoderLayer& d, const AppendBlock& attention, const AppendBlock& mlp)
{
    std::vector<LayerSpec> block;
    block.push_back(norm(d.norm, d.eps, "input_layernorm"));
    std::string attended = attention(block, "input_layernorm");
    if (d.sandwich) {
        block.push_back(norm(d.norm, d.eps, "post_attention_layernorm", { attended }));
        attended = "post_attention_layernorm";
    }
    if (d.residualDropoutLayers) {
        block.push_back(dropout("resid_attn_dropout", d.residualDropout, { attended }));
        attended = "resid_attn_dropout";
    }
    block.push_back(layer("Add", "attn_residual", json::object(), { attended, "repeat_input" }));
    const std::string mlpNorm = d.sandwich ? "pre_feedforward_layernorm" : "post_attention_layernorm";
    block.push_back(norm(d.norm, d.eps, mlpNorm));
    std::string mlpOut = mlp(block, mlpNorm);
    if (d.sandwich) {
        block.push_back(norm(d.norm, d.eps, "post_feedforward_layernorm", { mlpOut }));
        mlpOut = "post_feedforward_layernorm";
    }
    if (d.residualDropoutLayers) {
        block.push_back(dropout("resid_mlp_dropout", d.residualDropout, { mlpOut }));
        mlpOut = "resid_mlp_dropout";
    }
    block.push_back(layer("Add", "mlp_residual", json::object(), { mlpOut, "attn_residual" }));
    return block;
}

std::vector<LayerSpec> decoderStack(const std::string& name, std::int64_t layers,
    const std::function<std::vector<LayerSpec>(std::int64_t)>& layerAt)
{
    struct Run
    {
        std::int64_t first = 0;
        std::int64_t count = 0;
        std::vector<LayerSpec> layer;
    };
    std::vector<Run> runs;
    for (std::int64_t i = 0; i < layers; ++i) {
        auto current = layerAt(i);
        if (!runs.empty() && runs.back().layer == current)
            ++runs.back().count;
        else
            runs.push_back(Run { i, 1, std::move(current) });
    }
    std::vector<LayerSpec> out;
    for (auto& run : runs) {
        const std::int64_t last = run.first + run.count - 1;
        const std::string runName = runs.size() == 1 ? name
            : run.count == 1                         ? name + "." + number(run.first)
                                                     : name + "." + number(run.first) + "-" + number(last);
        out.push_back(repeatBlock(runName, run.count, std::move(run.layer)));
    }
    return out;
}

Network causalLm(const CausalLm& lm, const Dimensions& d, std::vector<LayerSpec> decoderLayers)
{
    Network n;
    json embedding = { { "num_embeddings", d.vocab.value }, { "embedding_dim", d.hidden.value } };
    if (lm.embeddingScale != 1.0)
        embedding["scale"] = lm.embeddingScale;
    n.layers.push_back(layer("Embedding", lm.embedding, std::move(embedding)));
    if (lm.embeddingDropout >= 0.0)
        n.layers.push_back(dropout(lm.embeddingDropoutName, lm.embeddingDropout));
    for (auto& spec : decoderLayers)
        n.layers.push_back(std::move(spec));
    n.layers.push_back(norm(lm.norm, lm.eps, lm.finalNorm));
    LayerSpec head = linear(lm.head, d.vocab.value, false);
    if (lm.tied)
        head.tiedTo = lm.embedding;
    n.layers.push_back(std::move(head));
    if (lm.finalLogitSoftcapping > 0.0)
        n.layers.push_back(
            layer("LogitSoftcap", "final_logit_softcapping", { { "cap", lm.finalLogitSoftcapping } }));
    n.input = InputSpec { Shape { { d.positions.value } }, DType::Int64, std::nullopt };
    return n;
}

Network causalLm(const CausalLm& lm, const Dimensions& d, const std::vector<LayerSpec>& decoderLayer,
    const std::string& stack)
{
    return causalLm(lm, d, decoderStack(stack, d.layers.value, [&](std::int64_t) { return decoderLayer; }));
}

} // namespace headroom::hf

#pragma once

// The transformer blocks Hugging Face families share, spelled out in Headroom layers named as Hugging Face
// names its modules (so LoRA targets such as "q_proj" match and the layer table reads like print(model)).
// Each family's builder (HfFamilies.h) reads its keys and assembles these.

#include "HfReader.h"
#include "headroom/model/Network.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace headroom::hf {

using nlohmann::json;

[[nodiscard]] LayerSpec layer(std::string type, std::string name, json attributes = json::object(),
    std::vector<std::string> inputs = {});
[[nodiscard]] LayerSpec linear(
    std::string name, std::int64_t out, bool bias, std::vector<std::string> inputs = {});
[[nodiscard]] LayerSpec dropout(std::string name, double p, std::vector<std::string> inputs = {});
[[nodiscard]] LayerSpec repeatBlock(std::string name, std::int64_t times, std::vector<LayerSpec> children);
[[nodiscard]] std::string number(std::int64_t v);

inline constexpr const char* kActivations = "gelu, gelu_new, gelu_pytorch_tanh, relu, silu";

/// The activation layer for a hidden_act / activation_function value, or an error naming `key`.
std::optional<LayerSpec> activationFor(ConfigReader& r, const std::string& key, const std::string& act,
    std::string name, std::vector<std::string> inputs = {});
/// The `activation` attribute of MixtureOfExperts and GatedActivation for a hidden_act value, or an error
/// naming `key` (these fuse the activation, so gelu_new's four saved tensors are not on offer).
std::optional<std::string> fusedActivationFor(
    ConfigReader& r, const std::string& key, const std::string& act);

struct Dimensions
{
    Size hidden;
    Size layers;
    Size heads;
    Size kvHeads;
    Size headDim; ///< given as head_dim, else not `given` and hidden / heads
    Size intermediate;
    Size vocab;
    Size positions;
    bool learnedPositions = false; ///< a position table of `positions` rows (GPT-2, BERT)
    bool tied = false;

    [[nodiscard]] std::int64_t headSize() const
    {
        return headDim.given ? headDim.value : hidden.value / heads.value;
    }
};

/// hidden_size, num_hidden_layers, num_attention_heads, num_key_value_heads (with `groupedQuery`; None:
/// as many as the heads), the MLP width under `intermediateKey`, vocab_size and max_position_embeddings,
/// in that order (the first problem is the error).
[[nodiscard]] Dimensions readDimensions(
    ConfigReader& r, const char* intermediateKey, bool groupedQuery = true);

/// "32 layers, hidden 4096, 32 heads (8 key/value), MLP 14336, vocabulary 32000, 32768 positions"
[[nodiscard]] std::string describe(const Dimensions& d, const char* mlp, bool keyValueHeads = false);

/// What the sizes must be together, each message naming the keys: the heads divide the width, the
/// key/value heads divide the heads, rotary heads are even, the query width fits a layer, and roughly
/// `mlpMatrices` H x F matrices per layer (plus `extraPerLayer` parameters) can be counted.
void checkDimensions(
    ConfigReader& r, const Dimensions& d, bool rotary, double mlpMatrices = 3.0, double extraPerLayer = 0.0);

// ---- Decoder layers ----------------------------------------------------------------------------

enum class NormStyle {
    Llama, ///< LlamaRMSNorm: weight * x.to(input dtype)
    Gemma, ///< GemmaRMSNorm: x * (1 + weight) in float32, back to the input dtype
    LayerNorm, ///< nn.LayerNorm (GPT-NeoX)
};

[[nodiscard]] LayerSpec norm(
    NormStyle style, double eps, std::string name, std::vector<std::string> inputs = {});

struct AttentionBlock
{
    std::int64_t hidden = 1; ///< the output projection's width
    std::int64_t heads = 1;
    std::int64_t kvHeads = 1;
    std::int64_t headDim = 1;
    bool qkvBias = false;
    bool outputBias = false;
    double dropout = 0.0;
    bool rotary = true;
    bool softmaxFloat32 = true;
    /// Qwen3, Gemma 3: q_norm and k_norm over each head's head_dim, after the projections.
    std::optional<NormStyle> qkNorm;
    double qkNormEps = 1e-6;
    double logitSoftcapping = 0.0; ///< Gemma 2
    /// "": separate q_proj, k_proj, v_proj; else the packed projection's name (Phi-3's "qkv_proj",
    /// GPT-NeoX's "query_key_value").
    std::string packed;
    std::string prefix = "self_attn.";
    std::string output = "o_proj";
};

/// The attention of a model with these sizes: q/k/v_proj without biases, rotary, `dropout` on the scores.
[[nodiscard]] AttentionBlock attentionFor(const Dimensions& d, double dropout);

/// Appends the projections, the per-head q/k norms, the attention core and the output projection on
/// `input`; returns the output projection's name.
std::string appendAttention(std::vector<LayerSpec>& block, const std::string& input, const AttentionBlock& a);

struct GatedMlp
{
    std::int64_t hidden = 1; ///< down_proj's width
    std::int64_t width = 1;
    LayerSpec activation; ///< from activationFor; named and wired here
    std::string fusedActivation; ///< the GatedActivation attribute, for `packed`
    bool bias = false;
    bool packed = false; ///< Phi-3's gate_up_proj
    std::string prefix = "mlp.";
};

/// A gated MLP of `width` (act_fn: `activation`) back to the model's hidden size.
[[nodiscard]] GatedMlp mlpFor(const Dimensions& d, const LayerSpec& activation, std::int64_t width);

/// gate_proj, up_proj, act_fn(gate) * up, down_proj on `input` (or Phi-3's packed gate_up_proj);
/// returns down_proj's name.
std::string appendGatedMlp(std::vector<LayerSpec>& block, const std::string& input, const GatedMlp& m);

struct ExpertsBlock
{
    std::string name; ///< "block_sparse_moe" (Mixtral), "mlp" (Qwen-MoE, DeepSeek)
    json attributes; ///< the MixtureOfExperts layer's
    std::optional<GatedMlp> shared; ///< a shared expert beside the routed ones
    bool sharedGate = false; ///< Qwen-MoE's sigmoid(shared_expert_gate(x)) on the shared expert
};

/// The MixtureOfExperts layer on `input`, and its shared expert added to it; returns the block's output.
std::string appendExperts(std::vector<LayerSpec>& block, const std::string& input, const ExpertsBlock& e);

/// Appends a sub-block (attention, MLP) on an input and returns its output's name.
using AppendBlock = std::function<std::string(std::vector<LayerSpec>&, const std::string&)>;

/// One pre-norm decoder layer: input_layernorm, attention, (Gemma 2/3: post_attention_layernorm), the
/// residual add, the MLP's norm (post_attention_layernorm, or Gemma 2/3's pre_feedforward_layernorm), the
/// MLP, (post_feedforward_layernorm), the residual add.
struct DecoderLayer
{
    NormStyle norm = NormStyle::Llama;
    double eps = 1e-6;
    bool sandwich = false; ///< Gemma 2 and 3: four norms
    double residualDropout = 0.0; ///< Phi-3: resid_attn_dropout, resid_mlp_dropout
    bool residualDropoutLayers = false;
};
[[nodiscard]] std::vector<LayerSpec> decoderLayer(
    const DecoderLayer& d, const AppendBlock& attention, const AppendBlock& mlp);
/// The same with the shared attention block.
[[nodiscard]] std::vector<LayerSpec> decoderLayer(
    const DecoderLayer& d, const AttentionBlock& attention, const AppendBlock& mlp);

/// The decoder layers as Repeat blocks (per-block checkpointing checkpoints each decoder layer, as
/// gradient_checkpointing_enable() does): consecutive identical layers form one block, named `name`
/// when all are alike and `name.<first>-<last>` (Hugging Face's indices) otherwise.
[[nodiscard]] std::vector<LayerSpec> decoderStack(const std::string& name, std::int64_t layers,
    const std::function<std::vector<LayerSpec>(std::int64_t)>& layerAt);

/// A decoder-only language model around its decoder layers: the token embedding, the final norm and
/// the language-model head (tied to the embedding when `tied`), with `positions` int64 tokens as input.
struct CausalLm
{
    std::string embedding = "model.embed_tokens";
    double embeddingScale = 1.0; ///< Gemma: sqrt(hidden_size)
    double embeddingDropout = -1; ///< GPT-NeoX's emb_dropout (< 0: none)
    std::string embeddingDropoutName;
    NormStyle norm = NormStyle::Llama;
    double eps = 1e-6;
    std::string finalNorm = "model.norm";
    std::string head = "lm_head";
    bool tied = false;
    double finalLogitSoftcapping = 0.0; ///< Gemma 2: soft-caps the logits
};
[[nodiscard]] Network causalLm(const CausalLm& lm, const Dimensions& d, std::vector<LayerSpec> decoderLayers);
/// The same with `d.layers` copies of one decoder layer in a Repeat block named `stack`.
[[nodiscard]] Network causalLm(const CausalLm& lm, const Dimensions& d,
    const std::vector<LayerSpec>& decoderLayer, const std::string& stack);

} // namespace headroom::hf

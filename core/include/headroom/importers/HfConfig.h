#pragma once

// Transformer models from a Hugging Face config.json (docs/hf-import.md).

#include "headroom/model/Network.h"
#include "headroom/support/Error.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace headroom {

/// True when `path`'s file name is a Hugging Face model config ("config.json", any case).
[[nodiscard]] bool isHfConfigPath(const std::string& path);
/// The sequence length an imported config starts at where its max_position_embeddings is longer: 1,024
/// tokens, what Hugging Face's causal-LM example trains at unless told otherwise (run_clm.py's
/// block_size: "Picking 1024 instead" of a longer model_max_length) and TRL's SFTConfig.max_length
/// default. A config's full context (131,072 tokens for Llama-3) is what the model can take, rarely
/// what one trains at, and its activations are 128 times as large.
inline constexpr std::int64_t kDefaultTrainingSequenceLength = 1024;

/// Builds the network a Hugging Face config.json describes (the model_types docs/hf-import.md lists:
/// GPT-2, BERT, Llama, Mistral, Qwen2/3, Gemma 1-3, Phi-3, GPT-NeoX and the mixture-of-experts Mixtral,
/// Qwen-MoE and DeepSeek-V3) as Headroom layers, with a language-modelling head; the input is
/// max_position_embeddings tokens or kDefaultTrainingSequenceLength where that is shorter (with a
/// warning saying so), InputSpec::maxSequenceLength the config's own; the plan may override it. `path` (the
/// file's path or name) starts every message and names the model when the config has no _name_or_path: the
/// file's stem unless it is "config" ("gpt2.json": "gpt2"), else its folder's name
/// ("Llama-2-7b-hf/config.json"), else "model". Errors name the key and its value
/// ("config.json: num_attention_heads (30) must divide hidden_size (4096)"); docs/hf-import.md lists them.
[[nodiscard]] Result<Network> importHfConfig(std::string_view json, const std::string& path);
/// importHfConfig on the file at `path` (at most 4 MiB); a relative "config.json" is named after the
/// current folder.
[[nodiscard]] Result<Network> importHfConfigFile(const std::string& path);

/// An imported network at `length` tokens, the length the user trains at (asked on import), without
/// the importer's warning that it started at kDefaultTrainingSequenceLength. Errors as
/// withSequenceLength.
[[nodiscard]] Result<Network> atTrainingLength(const Network& network, std::int64_t length);

/// The network with its input's sequence axis (axis 0 of a [T] token input or a [T, E] input) set to
/// `length`. An error if the input has no sequence axis or the length is not in 1..2^31.
[[nodiscard]] Result<Network> withSequenceLength(const Network& network, std::int64_t length);

} // namespace headroom

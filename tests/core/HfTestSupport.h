#pragma once

// What the tests of the Hugging Face config.json import share (tests/core/tst_hf*.cpp): the data files
// in tests/data/hf, configurations changed one key at a time, the tiny one-layer configurations
// tests/data/hf/measure_layers.py measures, and the figures it measured (measured_layers.json).
#include "NetworkBuilder.h"
#include "headroom/analysis/Analysis.h"
#include "headroom/importers/HfConfig.h"

#include <QtGlobal>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

namespace headroom::test {

using nlohmann::json;

inline std::string dataPath(const std::string& file)
{
    return HEADROOM_TEST_SOURCE_DIR "/tests/data/hf/" + file;
}

inline std::string readFile(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

inline void writeFile(const std::string& path, const std::string& text)
{
    std::ofstream out(path, std::ios::binary);
    out << text;
}

/// Llama-2-7b-hf.json with `key` set to `value` (erased when `value` is discarded).
inline std::string llamaWith(const std::string& key, const json& value)
{
    json c = json::parse(readFile(dataPath("Llama-2-7b-hf.json")));
    if (value.is_discarded())
        c.erase(key);
    else
        c[key] = value;
    return c.dump();
}

/// Llama-2-7b-hf.json with `key`'s value written as `raw` text (NaN and the like, which json cannot hold).
inline std::string llamaWithRaw(const std::string& key, const std::string& raw)
{
    const std::string marker = "\"__raw__\"";
    std::string text = llamaWith(key, "__raw__");
    return text.replace(text.find(marker), marker.size(), raw);
}

inline std::string gpt2With(const json& changes)
{
    json c = json::parse(readFile(dataPath("gpt2.json")));
    c.update(changes);
    return c.dump();
}

inline Network importOrDie(const std::string& text)
{
    auto n = importHfConfig(text, "config.json");
    if (!n)
        qFatal("%s", n.error().message.c_str());
    return n.value();
}

inline const LayerRow* row(const Analysis& a, const std::string& name)
{
    return rowStandingFor(a, name);
}

/// measured_layers.json's per-sample figure for one measured layer.
inline std::int64_t measured(const std::string& name)
{
    const json j = json::parse(readFile(dataPath("measured_layers.json")));
    for (const auto& l : j.at("layers")) {
        if (l.at("name") == name)
            return l.at("per_sample_bytes").get<std::int64_t>();
    }
    qFatal("no measurement %s", name.c_str());
    return 0;
}

/// The tiny configurations measure_layers.py measures, as config.json text. One layer; T = 16.
inline std::string tinyLlama(int kvHeads, bool qwen2)
{
    json c = { { "model_type", qwen2 ? "qwen2" : "llama" }, { "hidden_size", 64 }, { "num_hidden_layers", 1 },
        { "num_attention_heads", 4 }, { "num_key_value_heads", kvHeads }, { "intermediate_size", 172 },
        { "vocab_size", 100 }, { "max_position_embeddings", 16 }, { "rms_norm_eps", 1e-6 } };
    return c.dump();
}

inline std::string tinyGpt2(double dropout)
{
    json c = { { "model_type", "gpt2" }, { "n_embd", 64 }, { "n_layer", 1 }, { "n_head", 4 },
        { "n_inner", 256 }, { "vocab_size", 100 }, { "n_positions", 16 }, { "attn_pdrop", dropout },
        { "resid_pdrop", dropout }, { "embd_pdrop", dropout } };
    return c.dump();
}

/// A one-layer config of `modelType` with tinyLlama's sizes (hidden 64, 4 heads of 16, 2 key/value heads,
/// MLP 172, T 16) and `changes`.
inline std::string tinyOf(const std::string& modelType, const json& changes = json::object())
{
    json c = json::parse(tinyLlama(2, false));
    c["model_type"] = modelType;
    c["head_dim"] = 16;
    c.update(changes);
    return c.dump();
}

/// A data file with `changes` (a discarded value erases the key; "a.b" reaches into an object).
inline std::string fileWith(const std::string& file, const json& changes)
{
    json c = json::parse(readFile(dataPath(file)));
    for (const auto& [key, value] : changes.items()) {
        json* target = &c;
        std::string name = key;
        if (const auto dot = key.find('.'); dot != std::string::npos) {
            target = &c[key.substr(0, dot)];
            name = key.substr(dot + 1);
        }
        if (value.is_string() && value.get<std::string>() == "<erase>")
            target->erase(name);
        else
            (*target)[name] = value;
    }
    return c.dump();
}

inline AnalysisOptions options(AttentionImplementation attention, Precision precision = Precision::Fp32)
{
    AnalysisOptions o;
    o.precision = precision;
    o.attention = attention;
    return o;
}

} // namespace headroom::test

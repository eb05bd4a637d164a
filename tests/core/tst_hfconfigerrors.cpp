// Hugging Face config.json import (docs/hf-import.md): the configurations it refuses, each with its
// message, and the variants of a valid one it accepts.
#include "HfTestSupport.h"
#include "headroom/analysis/Analysis.h"
#include "headroom/importers/HfConfig.h"
#include "headroom/importers/NetworkFile.h"
#include "headroom/layers/LayerRegistry.h"
#include "headroom/model/ModelFile.h"

#include <QTest>
#include <limits>

using namespace headroom;
using namespace headroom::test;
using nlohmann::json;

class TestHfConfigErrors : public QObject
{
    Q_OBJECT
private slots:
    void errors_data();
    void errors();
    void acceptedVariants_data();
    void acceptedVariants();
};

void TestHfConfigErrors::errors_data()
{
    // Each message names the key at fault (also the error's location) and its value; `message` is how
    // the message starts. Rows named after files of the audit that found the old messages.
    QTest::addColumn<QByteArray>("config");
    QTest::addColumn<QString>("key");
    QTest::addColumn<QString>("value");
    QTest::addColumn<QString>("message");
    const auto row = [](const char* name, const std::string& config, const char* key, const char* value,
                         const std::string& message) {
        QTest::newRow(name) << QByteArray::fromStdString(config) << QString::fromUtf8(key)
                            << QString::fromUtf8(value) << QString::fromStdString(message);
    };
    const json drop = json::value_t::discarded;
    const std::string supported
        = "; supported: bert, deepseek_v3, gemma, gemma2, gemma3, gemma3_text, gpt2, gpt_neox, "
          "llama, mistral, mixtral, phi3, qwen2, qwen2_moe, qwen3, qwen3_moe";

    // Not a JSON object.
    row("empty", "", "", "empty", "config.json: the file is empty (a config.json is a JSON object such as");
    row("blank", " \n\t\n", "", "empty", "config.json: the file is empty");
    row("binary (nul)", std::string("\0\0", 2), "", "0x00",
        "config.json: not a text file: byte 0 is 0x00, a control character JSON does not allow");
    row("binary (control)", "{\"model_type\": \x01}", "", "0x01",
        "config.json: not a text file: byte 15 is 0x01");
    row("UTF-16", std::string("\xFF\xFE{\0}\0", 6), "", "UTF-16",
        "config.json: the file is UTF-16 text; save it as UTF-8");
    row("array", "[1, 2]", "", "an array",
        "config.json: a Hugging Face config.json is a JSON object, not an array");
    // Issue 35: notes saved as config.json are not a config with a typo.
    row("text", "These are my notes\n", "", "not JSON text",
        "config.json: read as a Hugging Face config (it is named config.json), but it is not JSON text (a "
        "config.json starts with \"{\"). Headroom opens Headroom model files (.json), ONNX models (.onnx) "
        "and Hugging Face configs (config.json)");
    row("syntax", "{\"model_type\": }", "line 1, column 16", "line 1, column 16",
        "config.json: line 1, column 16: ");
    row("trunc", "{\"model_type\": \"llama\", \"hidden_size\": 4096", "line 1, column 44", "cut short",
        "config.json: line 1, column 44: syntax error while parsing object - unexpected end of input; "
        "expected '}' (the file ends before the JSON does: is it cut short?)");
    row("eps_nan", llamaWithRaw("rms_norm_eps", "NaN"), "rms_norm_eps", "NaN",
        "config.json: rms_norm_eps is NaN, which JSON does not allow (Python's json writes it for a "
        "non-finite "
        "float); give a number");
    row("-Infinity", llamaWithRaw("attention_dropout", "-Infinity"), "attention_dropout", "-Infinity",
        "config.json: attention_dropout is -Infinity, which JSON does not allow");
    row("dup_keys", "{\"model_type\": \"llama\", \"model_type\": \"gpt2\"}", "model_type", "model_type",
        "config.json: model_type is given more than once; give each key once");

    // model_type.
    row("no model_type", "{\"hidden_size\": 8}", "model_type", "missing",
        "config.json: model_type is missing (a string such as \"llama\")" + supported);
    row("modeltype_num", llamaWith("model_type", 3), "model_type", "3",
        "config.json: model_type must be a string such as \"llama\", not 3" + supported);
    row("model_type null", llamaWith("model_type", nullptr), "model_type", "null",
        "config.json: model_type must be a string such as \"llama\", not null" + supported);
    row("unsupported", "{\"model_type\": \"t5\"}", "model_type", "t5",
        "config.json: model_type \"t5\" is not supported" + supported);

    // Sizes: whole numbers from 1 to the largest a layer takes (2^31 - 1).
    row("missing", llamaWith("intermediate_size", drop), "intermediate_size", "missing",
        "config.json: intermediate_size is missing");
    row("gpt2_noembd",
        "{\"model_type\": \"gpt2\", \"n_layer\": 2, \"n_head\": 2, \"vocab_size\": 10, "
        "\"n_positions\": 8}",
        "n_embd", "missing", "config.json: n_embd (or hidden_size) is missing");
    row("null size", llamaWith("vocab_size", nullptr), "vocab_size", "null",
        "config.json: vocab_size must be a whole number from 1 to 2147483647, not null");
    // Issue 26: null took the default for these keys, where transformers would build nothing (None
    // reaches an nn.Embedding or a range()); only num_key_value_heads, head_dim (not Gemma's), n_inner,
    // q_lora_rank and position_embedding_type turn None into a default (acceptedVariants).
    const auto nullRow = [&](const char* name, const char* file, const char* key, std::int64_t max) {
        row(name, fileWith(file, { { key, nullptr } }), key, "null",
            std::string("config.json: ") + key + " must be a whole number from 1 to " + std::to_string(max)
                + ", not null");
    };
    nullRow("null type_vocab_size", "bert-base-uncased.json", "type_vocab_size", 2147483647);
    nullRow("null n_group", "DeepSeek-V3.json", "n_group", 2147483647);
    nullRow("null topk_group", "DeepSeek-V3.json", "topk_group", 2147483647);
    nullRow("null decoder_sparse_step", "Qwen1.5-MoE-A2.7B.json", "decoder_sparse_step", 10000);
    nullRow("null gemma head_dim", "gemma-7b.json", "head_dim", 2147483647);
    nullRow("null gemma3 hidden_size", "gemma-3-4b-it.json", "text_config.hidden_size", 2147483647);
    nullRow("null gemma3 num_hidden_layers", "gemma-3-4b-it.json", "text_config.num_hidden_layers", 10000);
    nullRow("null gemma3 num_attention_heads", "gemma-3-4b-it.json", "text_config.num_attention_heads",
        2147483647);
    nullRow(
        "null gemma3 intermediate_size", "gemma-3-4b-it.json", "text_config.intermediate_size", 2147483647);
    nullRow("null gemma3 vocab_size", "gemma-3-4b-it.json", "text_config.vocab_size", 2147483647);
    nullRow("null gemma3 max_position_embeddings", "gemma-3-4b-it.json",
        "text_config.max_position_embeddings", 2147483647);
    row("negative", llamaWith("vocab_size", -3), "vocab_size", "-3",
        "config.json: vocab_size must be a whole number from 1 to 2147483647, not -3");
    row("zero_heads", llamaWith("num_attention_heads", 0), "num_attention_heads", "0",
        "config.json: num_attention_heads must be a whole number from 1 to 2147483647, not 0");
    row("headdim0", llamaWith("head_dim", 0), "head_dim", "0",
        "config.json: head_dim must be a whole number from 1 to 2147483647, not 0");
    row("hugehidden", llamaWith("hidden_size", std::int64_t { 1 } << 40), "hidden_size", "1099511627776",
        "config.json: hidden_size must be a whole number from 1 to 2147483647, not 1099511627776");
    row("hugevocab", llamaWith("vocab_size", std::int64_t { 1 } << 40), "vocab_size", "1099511627776",
        "config.json: vocab_size must be a whole number from 1 to 2147483647, not 1099511627776");
    row("maxpos_huge", llamaWith("max_position_embeddings", std::int64_t { 1 } << 40),
        "max_position_embeddings", "1099511627776",
        "config.json: max_position_embeddings must be a whole number from 1 to 2147483647, not "
        "1099511627776");
    row("just over", llamaWith("intermediate_size", std::int64_t { 2147483648 }), "intermediate_size",
        "2147483648",
        "config.json: intermediate_size must be a whole number from 1 to 2147483647, not 2147483648");
    row("unsigned_big", llamaWith("hidden_size", std::numeric_limits<std::uint64_t>::max()), "hidden_size",
        "18446744073709551615",
        "config.json: hidden_size must be a whole number from 1 to 2147483647, not 18446744073709551615");
    row("bigint", llamaWithRaw("intermediate_size", "99999999999999999999999"), "intermediate_size",
        "9.999999999999999e+22",
        "config.json: intermediate_size must be a whole number from 1 to 2147483647, not "
        "9.999999999999999e+22");
    row("float_hidden", llamaWithRaw("hidden_size", "4096.0"), "hidden_size", "4096.0",
        "config.json: hidden_size must be a whole number from 1 to 2147483647, not 4096.0 (a float: write "
        "4096)");
    row("float_hidden2", llamaWith("hidden_size", 4096.5), "hidden_size", "4096.5",
        "config.json: hidden_size must be a whole number from 1 to 2147483647, not 4096.5");
    row("string_hidden", llamaWith("hidden_size", "4096"), "hidden_size", "\"4096\"",
        "config.json: hidden_size must be a whole number from 1 to 2147483647, not \"4096\"");
    row("bool_int", llamaWith("num_hidden_layers", true), "num_hidden_layers", "true",
        "config.json: num_hidden_layers must be a whole number from 1 to 10000, not true");
    row("hugelayers", llamaWith("num_hidden_layers", std::int64_t { 1 } << 40), "num_hidden_layers",
        "1099511627776",
        "config.json: num_hidden_layers must be a whole number from 1 to 10000, not 1099511627776");
    row("layers1e5", llamaWith("num_hidden_layers", 100000), "num_hidden_layers", "100000",
        "config.json: num_hidden_layers must be a whole number from 1 to 10000, not 100000");

    // Sizes together.
    row("heads", llamaWith("num_attention_heads", 30), "num_attention_heads", "30",
        "config.json: num_attention_heads (30) must divide hidden_size (4096)");
    row("gpt2 heads", gpt2With({ { "n_head", 10 } }), "n_head", "10",
        "config.json: n_head (10) must divide n_embd (768)");
    row("kv heads", llamaWith("num_key_value_heads", 5), "num_key_value_heads", "5",
        "config.json: num_key_value_heads (5) must divide num_attention_heads (32)");
    row("kv_gt_heads", llamaWith("num_key_value_heads", 64), "num_key_value_heads", "64",
        "config.json: num_key_value_heads (64) must divide num_attention_heads (32)");
    row("headdim_mismatch", llamaWith("head_dim", 7), "head_dim", "7",
        "config.json: head_dim (7) must be even: rotary position embeddings rotate pairs of dimensions");
    row("odd head size", llamaWith("hidden_size", 224), "num_attention_heads", "7",
        "config.json: hidden_size / num_attention_heads (224 / 32 = 7, the head size) must be even: rotary "
        "position embeddings rotate pairs of dimensions; give an even head_dim");
    row("wide heads", llamaWith("head_dim", 1 << 30), "head_dim", "1073741824",
        "config.json: num_attention_heads × head_dim (32 × 1073741824 = 34359738368) must be at most "
        "2147483647");
    row("gpt2 c_attn", gpt2With({ { "n_embd", 1'000'000'002 }, { "n_head", 1 } }), "n_embd", "1000000002",
        "config.json: n_embd (1000000002) must be at most 715827882: attn.c_attn is 3 × n_embd wide");
    row("gpt2 n_inner", gpt2With({ { "n_embd", 600'000'000 }, { "n_head", 1 } }), "n_inner", "2400000000",
        "config.json: n_inner is not given, so it is 4 × n_embd = 2400000000, more than 2147483647; give "
        "n_inner");
    const json huge
        = { { "hidden_size", 2'147'483'646 }, { "num_attention_heads", 1 }, { "num_key_value_heads", 1 } };
    json tooMany = json::parse(readFile(dataPath("Llama-2-7b-hf.json")));
    tooMany.update(huge);
    row("too many parameters", tooMany.dump(), "hidden_size", "2147483646",
        "config.json: hidden_size (2147483646), intermediate_size (11008), vocab_size (32000) and "
        "num_hidden_layers (32) make about 5.9e+20 parameters, more than the 2^50 Headroom counts");

    // Other values.
    row("act_null", llamaWith("hidden_act", nullptr), "hidden_act", "null",
        "config.json: hidden_act must be a string such as \"silu\", not null");
    row("activation", llamaWith("hidden_act", "mish"), "hidden_act", "mish",
        "config.json: hidden_act \"mish\" is not supported; supported: gelu, gelu_new, gelu_pytorch_tanh, "
        "relu, silu");
    row("gpt2 activation", gpt2With({ { "activation_function", "quick_gelu" } }), "activation_function",
        "quick_gelu", "config.json: activation_function \"quick_gelu\" is not supported");
    row("bool", llamaWith("tie_word_embeddings", "yes"), "tie_word_embeddings", "\"yes\"",
        "config.json: tie_word_embeddings must be true or false, not \"yes\"");
    row("dropout_gt1", llamaWith("attention_dropout", 1.5), "attention_dropout", "1.5",
        "config.json: attention_dropout must be a number from 0 to 1, not 1.5");
    row("eps_neg", llamaWith("rms_norm_eps", -1), "rms_norm_eps", "-1",
        "config.json: rms_norm_eps must be a number from 0 to 1, not -1");
    row("eps null", llamaWith("rms_norm_eps", nullptr), "rms_norm_eps", "null",
        "config.json: rms_norm_eps must be a number from 0 to 1, not null");
    json bert = json::parse(readFile(dataPath("bert-base-uncased.json")));
    bert["position_embedding_type"] = "relative_key";
    row("bert positions", bert.dump(), "position_embedding_type", "relative_key",
        "config.json: position_embedding_type \"relative_key\" is not supported; only \"absolute\"");

    // The families of issue 14.
    const std::string mixtral = "Mixtral-8x7B-v0.1.json";
    const std::string deepseek = "DeepSeek-V3.json";
    const std::string qwenMoe = "Qwen1.5-MoE-A2.7B.json";
    row("mixtral top-k", fileWith(mixtral, { { "num_experts_per_tok", 9 } }), "num_experts_per_tok", "9",
        "config.json: num_experts_per_tok (9) must be at most num_local_experts (8): each token goes to that "
        "many "
        "distinct experts");
    row("mixtral no experts", fileWith(mixtral, { { "num_local_experts", "<erase>" } }), "num_local_experts",
        "missing", "config.json: num_local_experts is missing");
    row("mixtral experts 0", fileWith(mixtral, { { "num_local_experts", 0 } }), "num_local_experts", "0",
        "config.json: num_local_experts must be a whole number from 1 to 65536, not 0");
    row("mixtral gelu_new", fileWith(mixtral, { { "hidden_act", "gelu_new" } }), "hidden_act", "gelu_new",
        "config.json: hidden_act \"gelu_new\" is not supported here; supported: gelu, gelu_pytorch_tanh, "
        "relu, silu");
    row("qwen2_moe no moe width", fileWith(qwenMoe, { { "moe_intermediate_size", "<erase>" } }),
        "moe_intermediate_size", "missing", "config.json: moe_intermediate_size is missing");
    row("qwen2_moe no shared width", fileWith(qwenMoe, { { "shared_expert_intermediate_size", nullptr } }),
        "shared_expert_intermediate_size", "null",
        "config.json: shared_expert_intermediate_size must be a whole number from 1 to 2147483647, not null");
    row("qwen2_moe sparse step", fileWith(qwenMoe, { { "decoder_sparse_step", 0 } }), "decoder_sparse_step",
        "0", "config.json: decoder_sparse_step must be a whole number from 1 to 10000, not 0");
    row("qwen3_moe mlp_only_layers", fileWith("Qwen3-30B-A3B.json", { { "mlp_only_layers", { 0, 48 } } }),
        "mlp_only_layers", "48",
        "config.json: mlp_only_layers must be a list of layer indices from 0 to 47; 48 is not one");
    row("qwen3_moe top-k", fileWith("Qwen3-30B-A3B.json", { { "num_experts_per_tok", 129 } }),
        "num_experts_per_tok", "129",
        "config.json: num_experts_per_tok (129) must be at most num_experts (128)");
    row("deepseek groups", fileWith(deepseek, { { "n_group", 7 } }), "n_group", "7",
        "config.json: n_group (7) must divide n_routed_experts (256): the router picks groups of equally "
        "many experts");
    row("deepseek topk_group", fileWith(deepseek, { { "topk_group", 9 } }), "topk_group", "9",
        "config.json: topk_group (9) must be at most n_group (8)");
    row("deepseek top-k beyond the groups",
        fileWith(deepseek, { { "topk_group", 2 }, { "num_experts_per_tok", 70 } }), "num_experts_per_tok",
        "70",
        "config.json: num_experts_per_tok (70) must be at most topk_group × experts per group (2 × 32): the "
        "top-k "
        "experts come from the chosen groups");
    row("deepseek dense layers", fileWith(deepseek, { { "first_k_dense_replace", -1 } }),
        "first_k_dense_replace", "-1",
        "config.json: first_k_dense_replace must be a whole number from 0 to 61, not -1");
    row("deepseek odd rope", fileWith(deepseek, { { "qk_rope_head_dim", 63 } }), "qk_rope_head_dim", "63",
        "config.json: qk_rope_head_dim (63) must be even: rotary position embeddings rotate pairs of "
        "dimensions");
    row("deepseek no kv rank", fileWith(deepseek, { { "kv_lora_rank", "<erase>" } }), "kv_lora_rank",
        "missing", "config.json: kv_lora_rank is missing");
    row("phi3 heads", fileWith("Phi-3-mini-4k-instruct.json", { { "num_attention_heads", 30 } }),
        "num_attention_heads", "30", "config.json: num_attention_heads (30) must divide hidden_size (3072)");
    row("phi3 activation", fileWith("Phi-3-mini-4k-instruct.json", { { "hidden_act", "mish" } }),
        "hidden_act", "mish", "config.json: hidden_act \"mish\" is not supported here");
    row("qwen3 kv heads", fileWith("Qwen3-8B.json", { { "num_key_value_heads", 5 } }), "num_key_value_heads",
        "5", "config.json: num_key_value_heads (5) must divide num_attention_heads (32)");
    row("gpt_neox heads", fileWith("pythia-160m.json", { { "num_attention_heads", 10 } }),
        "num_attention_heads", "10", "config.json: num_attention_heads (10) must divide hidden_size (768)");
    row("gpt_neox rotary_pct", fileWith("pythia-160m.json", { { "rotary_pct", 2 } }), "rotary_pct", "2",
        "config.json: rotary_pct must be a number from 0 to 1, not 2");
    row("gemma2 softcap", fileWith("gemma-2-9b.json", { { "attn_logit_softcapping", "x" } }),
        "attn_logit_softcapping", "\"x\"",
        "config.json: attn_logit_softcapping must be a number from 0 to 1e+09, not \"x\"");
    row("gemma3 no text_config", fileWith("gemma-3-4b-it.json", { { "text_config", "<erase>" } }),
        "text_config", "missing",
        "config.json: text_config must be an object with the language model's sizes (a gemma3 config "
        "describes an "
        "image-text model; Headroom builds its language model), not missing");
    row("gemma3 text_config key",
        fileWith("gemma-3-4b-it.json", { { "text_config.num_attention_heads", 0 } }),
        "text_config.num_attention_heads", "0",
        "config.json: text_config.num_attention_heads must be a whole number from 1 to 2147483647, not 0");
    row("gemma3 text_config kv", fileWith("gemma-3-4b-it.json", { { "text_config.num_key_value_heads", 3 } }),
        "text_config.num_key_value_heads", "3",
        "config.json: text_config.num_key_value_heads (3) must divide text_config.num_attention_heads (8)");
}

void TestHfConfigErrors::errors()
{
    QFETCH(QByteArray, config);
    QFETCH(QString, key);
    QFETCH(QString, value);
    QFETCH(QString, message);
    const auto n = importHfConfig(config.toStdString(), "config.json");
    QVERIFY(!n.ok());
    const QString got = QString::fromStdString(n.error().message);
    QVERIFY2(got.startsWith(message), qPrintable(got));
    QVERIFY2(got.contains(key), qPrintable(got));
    QVERIFY2(got.contains(value), qPrintable(got));
    QCOMPARE(QString::fromStdString(n.error().location), key);
}

void TestHfConfigErrors::acceptedVariants_data()
{
    // Values the audit tried that Hugging Face accepts: they import, with the published count where
    // memory is unchanged. Null is the default where transformers substitutes one for None.
    QTest::addColumn<QByteArray>("config");
    QTest::addColumn<qulonglong>("params");
    const auto row = [](const char* name, const std::string& config, qulonglong params) {
        QTest::newRow(name) << QByteArray::fromStdString(config) << params;
    };
    constexpr qulonglong llama2 = 6'738'415'616;
    row("dropout_1 (nn.Dropout takes p = 1)", llamaWith("attention_dropout", 1.0), llama2);
    row("gelu_llama", llamaWith("hidden_act", "gelu"), llama2);
    row("rope_scaling (no memory)", llamaWith("rope_scaling", { { "type", "linear" }, { "factor", 4.0 } }),
        llama2);
    row("maxpos_1e6", llamaWith("max_position_embeddings", 1'000'000), llama2);
    row("num_key_value_heads null", llamaWith("num_key_value_heads", nullptr), llama2);
    row("head_dim null", llamaWith("head_dim", nullptr), llama2);
    row("head_dim as computed", llamaWith("head_dim", 128), llama2);
    row("_name_or_path not a string", llamaWith("_name_or_path", 42), llama2);
    json sliding = json::parse(llamaWith("model_type", "mistral"));
    sliding["sliding_window"] = 16;
    row("sliding (Mistral, no memory)", sliding.dump(), llama2);
    json bert = json::parse(readFile(dataPath("bert-base-uncased.json")));
    bert["position_embedding_type"] = nullptr;
    row("BERT position_embedding_type null", bert.dump(), 109'514'298);
    row("GPT-2 hidden_size for n_embd", gpt2With({ { "hidden_size", 768 }, { "n_embd", nullptr } }),
        124'439'808);
    // The families of issue 14: keys that change no parameter.
    row("mixtral output_router_logits",
        fileWith("Mixtral-8x7B-v0.1.json", { { "output_router_logits", true } }), 46'702'792'704);
    row("mixtral router jitter", fileWith("Mixtral-8x7B-v0.1.json", { { "router_jitter_noise", 0.01 } }),
        46'702'792'704);
    row("qwen3_moe mlp_only_layers null", fileWith("Qwen3-30B-A3B.json", { { "mlp_only_layers", nullptr } }),
        30'532'122'624);
    row("gemma2 soft-capping null (off)",
        fileWith("gemma-2-9b.json",
            { { "attn_logit_softcapping", nullptr }, { "final_logit_softcapping", nullptr } }),
        9'241'705'984);
    row("gemma hidden_act ignored", fileWith("gemma-7b.json", { { "hidden_act", "mish" } }), 8'537'680'896);
    // Qwen2-MoE with every other layer dense (decoder_sparse_step 2: layers 1, 3, ... are sparse): 12 of
    // the 24 layers trade the router 122,880, the experts 519,045,120, the shared expert 34,603,008 and
    // its gate 2,048 (553,773,056) for an MLP of 5632 (3 x 2048 x 5632 = 34,603,008):
    // 14,315,784,192 - 12 x 519,170,048 = 8,085,743,616.
    row("qwen2_moe every other layer dense",
        fileWith("Qwen1.5-MoE-A2.7B.json", { { "decoder_sparse_step", 2 } }), 8'085'743'616);
    // DeepSeek-V3 without a query rank (V2-Lite style): q_proj 7168 x 24576 = 176,160,768 in place of
    // q_a_proj, q_a_layernorm and q_b_proj (48,760,320): + 61 x 127,400,448 = 7,771,427,328.
    row("deepseek q_lora_rank null", fileWith("DeepSeek-V3.json", { { "q_lora_rank", nullptr } }),
        678'797'831'680);
}

void TestHfConfigErrors::acceptedVariants()
{
    QFETCH(QByteArray, config);
    QFETCH(qulonglong, params);
    const auto n = importHfConfig(config.toStdString(), "config.json");
    QVERIFY2(n.ok(), n.ok() ? "" : n.error().message.c_str());
    const Analysis a = analyze(n.value(), Precision::Fp32);
    QVERIFY2(a.valid(), a.valid() ? "" : a.error->message.c_str());
    QCOMPARE(a.totalParams, std::uint64_t { params });
}

QTEST_APPLESS_MAIN(TestHfConfigErrors)
#include "tst_hfconfigerrors.moc"

// Hugging Face config.json import (docs/hf-import.md) and the attention implementation switch.
//
// Parameter counts are the published model sizes, each worked out by hand below from the config.
// Activation figures for one decoder layer are measured with PyTorch (tests/data/hf/measure_layers.py,
// output in tests/data/hf/measured_layers.json, read here) and converted to PyTorch 2.x on CUDA by the
// adjustments stated next to each; the fused SDPA kernels' figures (which torch 1.13 cannot run) are
// worked out by hand from their saved tensors (SDPA's math path is measured: tst_frozenweights). Per sample,
// T = sequence, E = hidden, F = MLP width, h = heads, g = key/value heads, d = head size.
#include "NetworkBuilder.h"
#include "headroom/analysis/Analysis.h"
#include "headroom/importers/HfConfig.h"
#include "headroom/importers/NetworkFile.h"
#include "headroom/layers/LayerRegistry.h"
#include "headroom/model/ModelFile.h"

#include <QFileInfo>
#include <QTemporaryDir>
#include <QTest>
#include <algorithm>
#include <fstream>
#include <limits>
#include <sstream>

using namespace headroom;
using namespace headroom::test;
using nlohmann::json;

namespace {

std::string dataPath(const std::string& file)
{
    return HEADROOM_TEST_SOURCE_DIR "/tests/data/hf/" + file;
}

std::string readFile(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

void writeFile(const std::string& path, const std::string& text)
{
    std::ofstream out(path, std::ios::binary);
    out << text;
}

/// Llama-2-7b-hf.json with `key` set to `value` (erased when `value` is discarded).
std::string llamaWith(const std::string& key, const json& value)
{
    json c = json::parse(readFile(dataPath("Llama-2-7b-hf.json")));
    if (value.is_discarded())
        c.erase(key);
    else
        c[key] = value;
    return c.dump();
}

/// Llama-2-7b-hf.json with `key`'s value written as `raw` text (NaN and the like, which json cannot hold).
std::string llamaWithRaw(const std::string& key, const std::string& raw)
{
    const std::string marker = "\"__raw__\"";
    std::string text = llamaWith(key, "__raw__");
    return text.replace(text.find(marker), marker.size(), raw);
}

std::string gpt2With(const json& changes)
{
    json c = json::parse(readFile(dataPath("gpt2.json")));
    c.update(changes);
    return c.dump();
}

Network importOrDie(const std::string& text)
{
    auto n = importHfConfig(text, "config.json");
    if (!n)
        qFatal("%s", n.error().message.c_str());
    return n.value();
}

const LayerRow* row(const Analysis& a, const std::string& name)
{
    return rowStandingFor(a, name);
}

/// measured_layers.json's per-sample figure for one measured layer.
std::int64_t measured(const std::string& name)
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
std::string tinyLlama(int kvHeads, bool qwen2)
{
    json c = { { "model_type", qwen2 ? "qwen2" : "llama" }, { "hidden_size", 64 }, { "num_hidden_layers", 1 },
        { "num_attention_heads", 4 }, { "num_key_value_heads", kvHeads }, { "intermediate_size", 172 },
        { "vocab_size", 100 }, { "max_position_embeddings", 16 }, { "rms_norm_eps", 1e-6 } };
    return c.dump();
}

std::string tinyGpt2(double dropout)
{
    json c = { { "model_type", "gpt2" }, { "n_embd", 64 }, { "n_layer", 1 }, { "n_head", 4 },
        { "n_inner", 256 }, { "vocab_size", 100 }, { "n_positions", 16 }, { "attn_pdrop", dropout },
        { "resid_pdrop", dropout }, { "embd_pdrop", dropout } };
    return c.dump();
}

/// A one-layer config of `modelType` with tinyLlama's sizes (hidden 64, 4 heads of 16, 2 key/value heads,
/// MLP 172, T 16) and `changes`.
std::string tinyOf(const std::string& modelType, const json& changes = json::object())
{
    json c = json::parse(tinyLlama(2, false));
    c["model_type"] = modelType;
    c["head_dim"] = 16;
    c.update(changes);
    return c.dump();
}

/// A data file with `changes` (a discarded value erases the key; "a.b" reaches into an object).
std::string fileWith(const std::string& file, const json& changes)
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

AnalysisOptions options(AttentionImplementation attention, Precision precision = Precision::Fp32)
{
    AnalysisOptions o;
    o.precision = precision;
    o.attention = attention;
    return o;
}

} // namespace

class TestHfConfig : public QObject
{
    Q_OBJECT

private slots:
    void publishedParameterCounts_data();
    void publishedParameterCounts();
    void namesFollowHuggingFace();
    void modelName_data();
    void modelName();
    void modelNameFallbacks();
    void llamaLayerMatchesPyTorch_data();
    void llamaLayerMatchesPyTorch();
    void gpt2LayerMatchesPyTorch_data();
    void gpt2LayerMatchesPyTorch();
    void sdpaLayerByHand();
    void attentionScoresAreMarked();
    void transformerEncoderLayerEager();
    void sequenceLengthOverride();
    void errors_data();
    void errors();
    void acceptedVariants_data();
    void acceptedVariants();
    void loadNetworkFileDispatches();
    void newFamiliesFollowHuggingFaceNames_data();
    void newFamiliesFollowHuggingFaceNames();
    void newFamilyLayerByHand_data();
    void newFamilyLayerByHand();
    void gemma2SoftcapsScoresAndLogits();
    void loraTargetsPerFamily_data();
    void loraTargetsPerFamily();
    void checkpointingPerDecoderLayer();
    void mixtralFlopsFollowActiveParameters();
    void importedModelsSaveAndReopen_data();
    void importedModelsSaveAndReopen();
};

void TestHfConfig::publishedParameterCounts_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<qulonglong>("params");
    QTest::addColumn<qlonglong>("tokens");

    // GPT2LMHeadModel (lm_head tied to wte): wte 50257 x 768 = 38,597,376; wpe 1024 x 768 = 786,432;
    // per layer ln_1 1,536 + c_attn 768 x 2304 + 2304 = 1,771,776 + c_proj 768 x 768 + 768 = 590,592
    // + ln_2 1,536 + c_fc 768 x 3072 + 3072 = 2,362,368 + mlp.c_proj 3072 x 768 + 768 = 2,360,064
    // = 7,087,872, x 12 = 85,054,464; ln_f 1,536. Total 124,439,808.
    QTest::newRow("gpt2") << "gpt2.json" << qulonglong { 124'439'808 } << qlonglong { 1024 };
    // BertForMaskedLM (no pooler; decoder weight tied, its bias 30,522 separate): embeddings
    // 30522 x 768 = 23,440,896 + 512 x 768 = 393,216 + 2 x 768 = 1,536 + LayerNorm 1,536 = 23,837,184;
    // per layer 4 x (768 x 768 + 768) = 2,362,368 + LN 1,536 + 768 x 3072 + 3072 = 2,362,368
    // + 3072 x 768 + 768 = 2,360,064 + LN 1,536 = 7,087,872, x 12 = 85,054,464; MLM transform
    // 590,592 + 1,536; decoder bias 30,522. Total 109,514,298 (BertModel with its pooler instead:
    // 109,482,240).
    QTest::newRow("bert-base-uncased")
        << "bert-base-uncased.json" << qulonglong { 109'514'298 } << qlonglong { 512 };
    // Llama-2-7B: embed 32000 x 4096 = 131,072,000; per layer q, k, v, o 4 x 4096^2 = 67,108,864
    // + gate, up, down 3 x 4096 x 11008 = 135,266,304 + two RMSNorms 8,192 = 202,383,360, x 32 =
    // 6,476,267,520; norm 4,096; lm_head (untied) 131,072,000. Total 6,738,415,616.
    QTest::newRow("Llama-2-7b") << "Llama-2-7b-hf.json" << qulonglong { 6'738'415'616 } << qlonglong { 4096 };
    // Mistral-7B-v0.1 (8 key/value heads of 128): per layer q, o 2 x 4096^2 = 33,554,432 + k, v
    // 2 x 4096 x 1024 = 8,388,608 + MLP 3 x 4096 x 14336 = 176,160,768 + norms 8,192 = 218,112,000,
    // x 32 = 6,979,584,000; embed and lm_head 2 x 131,072,000; norm 4,096. Total 7,241,732,096.
    QTest::newRow("Mistral-7B") << "Mistral-7B-v0.1.json" << qulonglong { 7'241'732'096 }
                                << qlonglong { 32768 };
    // Qwen2-0.5B (tied; q/k/v biases, 2 key/value heads of 64): embed 151936 x 896 = 136,134,656;
    // per layer q 896^2 + 896 = 803,712 + k, v 2 x (896 x 128 + 128) = 229,632 + o 802,816 + MLP
    // 3 x 896 x 4864 = 13,074,432 + norms 1,792 = 14,912,384, x 24 = 357,897,216; norm 896.
    // Total 494,032,768.
    QTest::newRow("Qwen2-0.5B") << "Qwen2-0.5B.json" << qulonglong { 494'032'768 } << qlonglong { 131072 };
    // TinyLlama-1.1B (4 key/value heads of 64): per layer q, o 2 x 2048^2 = 8,388,608 + k, v
    // 2 x 2048 x 256 = 1,048,576 + MLP 3 x 2048 x 5632 = 34,603,008 + norms 4,096 = 44,044,288,
    // x 22 = 968,974,336; embed and lm_head 2 x 65,536,000; norm 2,048. Total 1,100,048,384.
    QTest::newRow("TinyLlama-1.1B") << "TinyLlama-1.1B-Chat-v1.0.json" << qulonglong { 1'100'048'384 }
                                    << qlonglong { 2048 };
    // Gemma-7B (gemma; 16 heads of 256, tied): embed 256000 x 3072 = 786,432,000; per layer q, k, v
    // 3 x 3072 x 4096 = 37,748,736 + o 4096 x 3072 = 12,582,912 + MLP 3 x 3072 x 24576 = 226,492,416 +
    // two norms 6,144 = 276,830,208, x 28 = 7,751,245,824; norm 3,072. Total 8,537,680,896.
    QTest::newRow("gemma-7b") << "gemma-7b.json" << qulonglong { 8'537'680'896 } << qlonglong { 8192 };
    // Gemma-2-9B (gemma2; 16 heads of 256, 8 key/value, tied): embed 256000 x 3584 = 917,504,000; per
    // layer q 3584 x 4096 = 14,680,064 + k, v 2 x 3584 x 2048 = 14,680,064 + o 14,680,064 + MLP
    // 3 x 3584 x 14336 = 154,140,672 + four norms 14,336 = 198,195,200, x 42 = 8,324,198,400; norm 3,584.
    // Total 9,241,705,984.
    QTest::newRow("gemma-2-9b") << "gemma-2-9b.json" << qulonglong { 9'241'705'984 } << qlonglong { 8192 };
    // Gemma-3-1B (gemma3_text; 4 heads of 256, 1 key/value, tied): embed 262144 x 1152 = 301,989,888; per
    // layer q 1152 x 1024 = 1,179,648 + k, v 2 x 1152 x 256 = 589,824 + o 1,179,648 + q_norm, k_norm
    // 2 x 256 + MLP 3 x 1152 x 6912 = 23,887,872 + four norms 4,608 = 26,842,112, x 26 = 697,894,912;
    // norm 1,152. Total 999,885,952.
    QTest::newRow("gemma-3-1b") << "gemma-3-1b-it.json" << qulonglong { 999'885'952 } << qlonglong { 32768 };
    // Gemma-3-4B (gemma3: the language model of the image-text model; its text_config gives hidden 2560,
    // MLP 10240, 34 layers, Gemma3TextConfig's defaults the rest: 8 heads of 256, 4 key/value, vocabulary
    // 262208, 131072 positions): embed 262208 x 2560 = 671,252,480; per layer q 2560 x 2048 = 5,242,880 +
    // k, v 2 x 2560 x 1024 = 5,242,880 + o 5,242,880 + q/k norms 512 + MLP 3 x 2560 x 10240 = 78,643,200
    // + four norms 10,240 = 94,382,592, x 34 = 3,209,008,128; norm 2,560. Total 3,880,263,168 (the vision
    // tower and projector, not built, make up the rest of the published 4.3B).
    QTest::newRow("gemma-3-4b (text)")
        << "gemma-3-4b-it.json" << qulonglong { 3'880'263'168 } << qlonglong { 131072 };
    // Phi-3-mini-4k (phi3; packed qkv_proj and gate_up_proj, untied): embed 32064 x 3072 = 98,500,608;
    // per layer qkv_proj 3072 x 9216 = 28,311,552 + o 3072 x 3072 = 9,437,184 + gate_up_proj 3072 x 16384 =
    // 50,331,648 + down_proj 8192 x 3072 = 25,165,824 + norms 6,144 = 113,252,352, x 32 = 3,624,075,264;
    // norm 3,072; lm_head 98,500,608. Total 3,821,079,552.
    QTest::newRow("Phi-3-mini") << "Phi-3-mini-4k-instruct.json" << qulonglong { 3'821'079'552 }
                                << qlonglong { 4096 };
    // Qwen3-8B (qwen3; 32 heads of 128, 8 key/value, q/k norms, untied): embed 151936 x 4096 =
    // 622,329,856; per layer q, o 2 x 4096^2 = 33,554,432 + k, v 2 x 4096 x 1024 = 8,388,608 + q_norm,
    // k_norm 256 + MLP 3 x 4096 x 12288 = 150,994,944 + norms 8,192 = 192,946,432, x 36 = 6,946,071,552;
    // norm 4,096; lm_head 622,329,856. Total 8,190,735,360.
    QTest::newRow("Qwen3-8B") << "Qwen3-8B.json" << qulonglong { 8'190'735'360 } << qlonglong { 40960 };
    // Pythia-160M (gpt_neox; biases everywhere, untied embed_out): embed_in 50304 x 768 = 38,633,472; per
    // layer two LayerNorms 3,072 + query_key_value 768 x 2304 + 2304 = 1,771,776 + dense 590,592 +
    // dense_h_to_4h 768 x 3072 + 3072 = 2,362,368 + dense_4h_to_h 3072 x 768 + 768 = 2,360,064 =
    // 7,087,872, x 12 = 85,054,464; final_layer_norm 1,536; embed_out 38,633,472. Total 162,322,944.
    QTest::newRow("pythia-160m") << "pythia-160m.json" << qulonglong { 162'322'944 } << qlonglong { 2048 };
    // Mixtral-8x7B (mixtral; 8 experts of 14336, top-2, 8 key/value heads): embed 32000 x 4096 =
    // 131,072,000; per layer q, o 2 x 4096^2 = 33,554,432 + k, v 2 x 4096 x 1024 = 8,388,608 + gate
    // 4096 x 8 = 32,768 + experts 8 x 3 x 4096 x 14336 = 1,409,286,144 + norms 8,192 = 1,451,270,144,
    // x 32 = 46,440,644,608; norm 4,096; lm_head 131,072,000. Total 46,702,792,704.
    QTest::newRow("Mixtral-8x7B") << "Mixtral-8x7B-v0.1.json" << qulonglong { 46'702'792'704 }
                                  << qlonglong { 32768 };
    // Qwen1.5-MoE-A2.7B (qwen2_moe; 60 experts of 1408, top-4, a shared expert of 5632 and its gate, q/k/v
    // biases): embed 151936 x 2048 = 311,164,928; per layer q, k, v 3 x (2048^2 + 2048) = 12,589,056 + o
    // 4,194,304 + gate 2048 x 60 = 122,880 + experts 60 x 3 x 2048 x 1408 = 519,045,120 + shared expert
    // 3 x 2048 x 5632 = 34,603,008 + shared_expert_gate 2,048 + norms 4,096 = 570,560,512, x 24 =
    // 13,693,452,288; norm 2,048; lm_head 311,164,928. Total 14,315,784,192.
    QTest::newRow("Qwen1.5-MoE-A2.7B")
        << "Qwen1.5-MoE-A2.7B.json" << qulonglong { 14'315'784'192 } << qlonglong { 8192 };
    // Qwen3-30B-A3B (qwen3_moe; 128 experts of 768, top-8, 32 heads of 128, 4 key/value, q/k norms):
    // embed 151936 x 2048 = 311,164,928; per layer q, o 2 x 2048 x 4096 = 16,777,216 + k, v 2 x 2048 x 512
    // = 2,097,152 + q/k norms 256 + gate 2048 x 128 = 262,144 + experts 128 x 3 x 2048 x 768 =
    // 603,979,776 + norms 4,096 = 623,120,640, x 48 = 29,909,790,720; norm 2,048; lm_head 311,164,928.
    // Total 30,532,122,624.
    QTest::newRow("Qwen3-30B-A3B") << "Qwen3-30B-A3B.json" << qulonglong { 30'532'122'624 }
                                   << qlonglong { 40960 };
    // DeepSeek-V3 (deepseek_v3): embed 129280 x 7168 = 926,679,040. Latent attention per layer: q_a_proj
    // 7168 x 1536 = 11,010,048 + q_a_layernorm 1,536 + q_b_proj 1536 x 128 x 192 = 37,748,736 +
    // kv_a_proj_with_mqa 7168 x 576 = 4,128,768 + kv_a_layernorm 512 + kv_b_proj 512 x 128 x 256 =
    // 16,777,216 + o_proj 16384 x 7168 = 117,440,512 = 187,107,328; two norms 14,336. Three dense layers
    // with MLP 3 x 7168 x 18432 = 396,361,728: 583,483,392 each, 1,750,450,176. 58 MoE layers: router
    // 256 x 7168 = 1,835,008 + 256 experts 256 x 3 x 7168 x 2048 = 11,274,289,152 + shared experts
    // 3 x 7168 x 2048 = 44,040,192: 11,507,286,016 each, 667,422,588,928. Norm 7,168; lm_head
    // 926,679,040. Total 671,026,404,352 (the published 671B; e_score_correction_bias is a buffer).
    QTest::newRow("DeepSeek-V3") << "DeepSeek-V3.json" << qulonglong { 671'026'404'352 }
                                 << qlonglong { 163840 };
}

void TestHfConfig::publishedParameterCounts()
{
    QFETCH(QString, file);
    QFETCH(qulonglong, params);
    QFETCH(qlonglong, tokens);
    const auto n = importHfConfigFile(dataPath(file.toStdString()));
    QVERIFY2(n.ok(), n.ok() ? "" : n.error().message.c_str());
    QCOMPARE(n->input.shape.dims, std::vector<std::int64_t> { tokens });
    QCOMPARE(n->input.dtype, DType::Int64);
    QCOMPARE(n->loss, Loss::CrossEntropy);
    const Analysis a = analyze(n.value(), Precision::Fp32);
    QVERIFY2(a.valid(), a.valid() ? "" : a.error->message.c_str());
    QCOMPARE(a.totalParams, std::uint64_t { params });
    QCOMPARE(a.trainableParams, std::uint64_t { params });
}

void TestHfConfig::namesFollowHuggingFace()
{
    const auto llama = importHfConfigFile(dataPath("Llama-2-7b-hf.json"));
    QVERIFY(llama.ok());
    QCOMPARE(llama->name, std::string("meta-llama/Llama-2-7b-hf"));
    const auto block = std::find_if(
        llama->layers.begin(), llama->layers.end(), [](const auto& l) { return l.isRepeat(); });
    QVERIFY(block != llama->layers.end());
    QCOMPARE(block->name, std::string("model.layers"));
    QCOMPARE(block->times, std::int64_t { 32 });
    const Analysis a = analyze(llama.value(), Precision::AmpBf16);
    QVERIFY(a.valid());
    for (const char* name : { "model.embed_tokens", "model.layers.0.self_attn.q_proj",
             "model.layers.0.self_attn.k_proj", "model.layers.0.self_attn.v_proj",
             "model.layers.31.self_attn.o_proj", "model.layers.5.mlp.gate_proj", "model.layers.5.mlp.up_proj",
             "model.layers.5.mlp.down_proj", "model.norm", "lm_head" }) {
        QVERIFY2(row(a, name) != nullptr, name);
    }
    QCOMPARE(row(a, "model.layers.0.self_attn.q_proj")->type, std::string("Linear"));
    QCOMPARE(row(a, "model.layers.0.self_attn.q_proj")->params, std::uint64_t { 4096 } * 4096);
    QCOMPARE(row(a, "lm_head")->output.shape.dims, (std::vector<std::int64_t> { 4096, 32000 }));

    const auto gpt2 = importHfConfigFile(dataPath("gpt2.json"));
    QVERIFY(gpt2.ok());
    QCOMPARE(gpt2->name, std::string("gpt2")); // no _name_or_path: the file's name
    const Analysis g = analyze(gpt2.value(), Precision::Fp32);
    for (const char* name : { "transformer.h.0.attn.c_attn", "transformer.h.0.attn.c_proj",
             "transformer.h.11.mlp.c_fc", "transformer.h.11.mlp.c_proj", "lm_head" }) {
        QVERIFY2(row(g, name) != nullptr && row(g, name)->type == "Linear", name);
    }
    QCOMPARE(row(g, "lm_head")->params, std::uint64_t { 0 }); // tied to wte
}

void TestHfConfig::modelName_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("nameOrPath"); // "-": no _name_or_path key
    QTest::addColumn<QString>("name");
    QTest::newRow("_name_or_path") << "whatever/config.json"
                                   << "org/Some-Model"
                                   << "org/Some-Model";
    QTest::newRow("_name_or_path over the file's name") << "gpt2.json"
                                                        << "openai-community/gpt2"
                                                        << "openai-community/gpt2";
    QTest::newRow("empty _name_or_path: the file's name") << "tiny.json"
                                                          << ""
                                                          << "tiny";
    QTest::newRow("the file's name") << "models/gpt2.json"
                                     << "-"
                                     << "gpt2";
    QTest::newRow("config.json: the folder's name") << "Llama-2-7b-hf/config.json"
                                                    << "-"
                                                    << "Llama-2-7b-hf";
    QTest::newRow("CONFIG.JSON: the folder's name") << "Some-Model/CONFIG.JSON"
                                                    << "-"
                                                    << "Some-Model";
    QTest::newRow("empty _name_or_path in config.json") << "Qwen2-0.5B/config.json"
                                                        << ""
                                                        << "Qwen2-0.5B";
}

void TestHfConfig::modelName()
{
    QFETCH(QString, file);
    QFETCH(QString, nameOrPath);
    QFETCH(QString, name);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    json config = json::parse(readFile(dataPath("gpt2.json")));
    if (nameOrPath != QStringLiteral("-"))
        config["_name_or_path"] = nameOrPath.toStdString();
    const QString path = dir.filePath(file);
    QVERIFY(QDir().mkpath(QFileInfo(path).path()));
    writeFile(path.toStdString(), config.dump());
    const auto n = importHfConfigFile(path.toStdString());
    QVERIFY2(n.ok(), n.ok() ? "" : n.error().message.c_str());
    QCOMPARE(QString::fromStdString(n->name), name);
}

void TestHfConfig::modelNameFallbacks()
{
    // Text with only "config.json" to go by: no folder to name it after.
    QCOMPARE(importOrDie(readFile(dataPath("gpt2.json"))).name, std::string("model"));
    // A relative "config.json" is in the current folder.
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QVERIFY(QDir(dir.path()).mkdir(QStringLiteral("Mistral-7B-v0.1")));
    const QString folder = dir.filePath(QStringLiteral("Mistral-7B-v0.1"));
    writeFile((folder + QStringLiteral("/config.json")).toStdString(), gpt2With(json::object()));
    const QString previous = QDir::currentPath();
    QVERIFY(QDir::setCurrent(folder));
    const auto relative = importHfConfigFile("config.json");
    QVERIFY(QDir::setCurrent(previous));
    QVERIFY2(relative.ok(), relative.ok() ? "" : relative.error().message.c_str());
    QCOMPARE(relative->name, std::string("Mistral-7B-v0.1"));
    // The test configs: Llama-2 has _name_or_path, the others are named after their files.
    QCOMPARE(
        importHfConfigFile(dataPath("Llama-2-7b-hf.json"))->name, std::string("meta-llama/Llama-2-7b-hf"));
    QCOMPARE(importHfConfigFile(dataPath("Qwen2-0.5B.json"))->name, std::string("Qwen2-0.5B"));
    QCOMPARE(importHfConfigFile(dataPath("bert-base-uncased.json"))->name, std::string("bert-base-uncased"));
}

void TestHfConfig::llamaLayerMatchesPyTorch_data()
{
    QTest::addColumn<QString>("measurement");
    QTest::addColumn<int>("kvHeads");
    QTest::addColumn<bool>("qwen2");
    QTest::addColumn<qlonglong>("byHand");
    // One fp32 decoder layer, T 16, E 64, h 4 (d 16), F 172, eager. Measured (torch 1.13):
    //   RMSNorm 1: pow(2) result 4TE (1.13's mean keeps its input), rstd 4T, normalised 4TE, output 4TE
    //   attention: q, k, v after reshape copies / repeat_kv 3 x 4TE, probabilities 4hT^2, o_proj input 4TE
    //   residual sum 4TE (kept by RMSNorm 2's pow), RMSNorm 2 as RMSNorm 1 (4TE + 4T + 4TE + 4TE)
    //   MLP: gate out, SiLU out, up out, product 4 x 4TF
    //   = 11 x 4096 + 2 x 64 + 4096 + 4 x 11008 = 93,312 bytes (the layer input excluded).
    // PyTorch 2.x: mean.dim's backward needs only sizes (derivatives.yaml: mean_backward(grad,
    // self.sym_sizes(), dim, self.sym_numel(), keepdim)), so minus 2 x 4TE = 85,120. Headroom
    // charges the layer input to input_layernorm (its first keeper): + 4TE = 89,216.
    QTest::newRow("llama, grouped-query (g 2)") << "llama_gqa" << 2 << false << qlonglong { 93'312 };
    QTest::newRow("llama, g = h") << "llama_mha" << 4 << false << qlonglong { 93'312 };
    QTest::newRow("qwen2 (q/k/v biases)") << "qwen2_bias" << 2 << true << qlonglong { 93'312 };
}

void TestHfConfig::llamaLayerMatchesPyTorch()
{
    QFETCH(QString, measurement);
    QFETCH(int, kvHeads);
    QFETCH(bool, qwen2);
    QFETCH(qlonglong, byHand);
    const std::int64_t pytorch113 = measured(measurement.toStdString());
    QCOMPARE(pytorch113, std::int64_t { byHand });
    constexpr std::int64_t te = 4 * 16 * 64;
    const std::int64_t pytorch2 = pytorch113 - 2 * te;
    const Analysis a
        = analyze(importOrDie(tinyLlama(kvHeads, qwen2)), options(AttentionImplementation::Eager));
    QVERIFY2(a.valid(), a.valid() ? "" : a.error->message.c_str());
    QCOMPARE(blockBytes(a, "model.layers"), std::uint64_t(pytorch2 + te));
}

void TestHfConfig::gpt2LayerMatchesPyTorch_data()
{
    QTest::addColumn<double>("dropout");
    QTest::addColumn<qlonglong>("byHand");
    QTest::addColumn<qlonglong>("cudaAdjustment");
    // One fp32 GPT-2 block, T 16, E 64, h 4, F 256, eager. Measured (torch 1.13, no dropout):
    //   ln_1 mean, rstd 2 x 4T; ln_1 output 4TE (c_attn); q, k, v reshape copies 3 x 4TE;
    //   probabilities 4hT^2; c_proj input 4TE; residual sum 4TE (ln_2's input); ln_2 mean, rstd 2 x 4T;
    //   ln_2 output 4TE (c_fc); gelu_new: c_fc output, tanh, 0.5x, 1 + tanh 4 x 4TF; mlp.c_proj input 4TF
    //   = 7 x 4096 + 4 x 64 + 4096 + 5 x 16384 = 114,944.
    // With dropout 0.1: + attention noise 4hT^2 + dropped probabilities 4hT^2 + two residual noises
    //   2 x 4TE = 131,328. On the CPU dropout keeps float32 noise; CUDA's native_dropout a bool mask:
    //   3 x 4096 bytes become 3 x 1024 (- 9,216).
    QTest::newRow("dropout 0") << 0.0 << qlonglong { 114'944 } << qlonglong { 0 };
    QTest::newRow("dropout 0.1") << 0.1 << qlonglong { 131'328 } << qlonglong { -9'216 };
}

void TestHfConfig::gpt2LayerMatchesPyTorch()
{
    QFETCH(double, dropout);
    QFETCH(qlonglong, byHand);
    QFETCH(qlonglong, cudaAdjustment);
    const std::int64_t cpu = measured(dropout > 0 ? "gpt2" : "gpt2_nodropout");
    QCOMPARE(cpu, std::int64_t { byHand });
    constexpr std::int64_t te = 4 * 16 * 64;
    const Analysis a = analyze(importOrDie(tinyGpt2(dropout)), options(AttentionImplementation::Eager));
    QVERIFY2(a.valid(), a.valid() ? "" : a.error->message.c_str());
    // The block's input (the embedding dropout's output, or the embeddings' sum) is first kept by
    // ln_1: + 4TE.
    QCOMPARE(blockBytes(a, "transformer.h"), std::uint64_t(cpu + cudaAdjustment + te));
}

void TestHfConfig::sdpaLayerByHand()
{
    // transformers 5's sdpa_attention_forward on an unpadded batch passes k and v with their g heads and
    // enable_gqa=True. The tiny Llama layer (g 2 < h 4) in fp32: flash takes half types only and
    // memory-efficient attention refuses enable_gqa (sdp_utils.cpp, check_batch_size_and_num_heads_dense
    // <false>), so CUDA runs the math path (attention.cpp, _scaled_dot_product_attention_math). Per sample:
    //   input 4TE (charged here), RMSNorm 1 rstd 4T + normalised 4TE + output 4TE, q scaled 4TE, k
    //   repeated and scaled 4TE, v repeated 4TE, the probabilities 4hT^2 = 4,096, the heads-merged copy
    //   o_proj keeps 4TE, residual 4TE, RMSNorm 2 4T + 4TE + 4TE, MLP 4 x 4TF
    //   = 11 x 4096 + 128 + 44,032 = 89,216: what eager keeps (llamaLayerMatchesPyTorch), and 3,584 more
    //   than memory-efficient attention on k and v repeated by repeat_kv would (q, k, v, output 4 x 4TE and
    //   a logsumexp 4 x h x 32 = 512). measure_layers.py measures the math path ("qwen3_sdpa_math_*",
    //   tst_frozenweights).
    const Network n = importOrDie(tinyLlama(2, false));
    const Analysis sdpa = analyze(n, options(AttentionImplementation::Sdpa));
    QVERIFY(sdpa.valid());
    QCOMPARE(blockBytes(sdpa, "model.layers"), std::uint64_t { 89'216 });
    // bf16 autocast, flash (which takes enable_gqa): the rotary results are float32 (cos/sin follow the
    // float32 hidden states), so SDPA gets bfloat16 copies of q and k; v is bfloat16 already; k and v keep
    // their g = 2 heads. Float32 (4TE = 4,096 each): the input, RMSNorm 1's normalised rows, the residual
    // sum, RMSNorm 2's normalised rows (the RMSNorm outputs themselves are not kept: every Linear keeps
    // its own bf16 cast of them). bf16 (2TE = 2,048 each): q_proj's, k_proj's, v_proj's input casts,
    // SDPA's q and output (o_proj keeps that same output), gate_proj's and up_proj's input casts: 7; k and
    // v with 2 heads, 2 x 2 T g d = 2 x 1,024. Then rstd 2 x 4T = 128, the flash logsumexp 4hT = 256, and
    // the MLP's gate output (SiLU), SiLU output and up output (Mul), product (down_proj) in bf16, 4 x 2TF
    // = 22,016.
    //   = 16,384 + 14,336 + 2,048 + 128 + 256 + 22,016 = 55,168.
    const Analysis amp = analyze(n, options(AttentionImplementation::Sdpa, Precision::AmpBf16));
    QVERIFY(amp.valid());
    QCOMPARE(blockBytes(amp, "model.layers"), std::uint64_t { 55'168 });
}

void TestHfConfig::attentionScoresAreMarked()
{
    const LayerKind* kind = LayerRegistry::builtin().find("ScaledDotProductAttention");
    QVERIFY(kind != nullptr);
    const auto attrs = Attributes::validate(
        kind->attributes(), json { { "num_heads", 4 }, { "dropout", 0.1 } }, "layers[0]");
    QVERIFY(attrs.ok());
    const std::vector<TensorInfo> packed { TensorInfo { Shape { { 16, 192 } }, DType::Float32 } };
    for (const auto impl : { AttentionImplementation::Eager, AttentionImplementation::Sdpa }) {
        const LayerContext ctx { attrs.value(), packed, Precision::Fp32, impl };
        const auto o = kind->infer(ctx);
        QVERIFY(o.ok());
        QCOMPARE(o->output.shape.dims, (std::vector<std::int64_t> { 16, 64 }));
        std::uint64_t scores = 0;
        for (const auto& s : o->saved) {
            if (s.attentionScores)
                scores += s.perSampleElements.value() * elementSize(s.dtype);
        }
        // Eager: probabilities 4hT^2 = 4,096, bool mask hT^2 = 1,024, dropped probabilities 4,096.
        QCOMPARE(
            scores, impl == AttentionImplementation::Eager ? std::uint64_t { 9'216 } : std::uint64_t { 0 });
    }
}

void TestHfConfig::transformerEncoderLayerEager()
{
    // TransformerEncoderLayer T 16, d 64, h 4, F 256, dropout 0.1, fp32. Eager (SDPA's math path)
    // keeps q scaled 4TE, k scaled 4TE, probabilities 4hT^2 = 4,096, their bool mask 1,024 and the
    // dropped copy 4,096 = 17,408 where the fused kernel keeps its output 4TE and a logsumexp
    // 4 x h x 32 = 512: 12,800 more. need_weights=true MultiheadAttention is eager either way.
    const Network tel = network({ 16, 64 },
        { layer(
            "TransformerEncoderLayer", { { "nhead", 4 }, { "dim_feedforward", 256 }, { "dropout", 0.1 } }) },
        Loss::None);
    const Analysis sdpa = analyze(tel, options(AttentionImplementation::Sdpa));
    const Analysis eager = analyze(tel, options(AttentionImplementation::Eager));
    QVERIFY(sdpa.valid() && eager.valid());
    QCOMPARE(eager.activationBytesPerSample - sdpa.activationBytesPerSample, std::uint64_t { 12'800 });

    const Network mha
        = network({ 16, 64 }, { layer("MultiheadAttention", { { "num_heads", 4 } }) }, Loss::None);
    QCOMPARE(analyze(mha, options(AttentionImplementation::Eager)).activationBytesPerSample,
        analyze(mha, options(AttentionImplementation::Sdpa)).activationBytesPerSample);
}

void TestHfConfig::sequenceLengthOverride()
{
    const auto llama = importHfConfigFile(dataPath("Llama-2-7b-hf.json"));
    QVERIFY(llama.ok());
    const auto shorter = withSequenceLength(llama.value(), 512);
    QVERIFY(shorter.ok());
    QCOMPARE(shorter->input.shape.dims, std::vector<std::int64_t> { 512 });
    const Analysis full = analyze(llama.value(), options(AttentionImplementation::Sdpa, Precision::AmpBf16));
    const Analysis cut = analyze(shorter.value(), options(AttentionImplementation::Sdpa, Precision::AmpBf16));
    QVERIFY(full.valid() && cut.valid());
    QCOMPARE(cut.totalParams, full.totalParams);
    QCOMPARE(cut.output.shape.dims, (std::vector<std::int64_t> { 512, 32000 }));
    // With SDPA nothing is quadratic in T: the activations scale exactly with T (4096 / 512 = 8);
    // eager's h x T x T probabilities do not.
    QCOMPARE(full.activationBytesPerSample, 8 * cut.activationBytesPerSample);
    const Analysis eagerFull
        = analyze(llama.value(), options(AttentionImplementation::Eager, Precision::AmpBf16));
    const Analysis eagerCut
        = analyze(shorter.value(), options(AttentionImplementation::Eager, Precision::AmpBf16));
    QVERIFY(eagerFull.activationBytesPerSample > 8 * eagerCut.activationBytesPerSample);

    // GPT-2's learned position table has 1024 rows: longer sequences are an error naming wpe.
    const auto gpt2 = importHfConfigFile(dataPath("gpt2.json"));
    QVERIFY(gpt2.ok());
    const auto longer = withSequenceLength(gpt2.value(), 2048);
    QVERIFY(longer.ok());
    const Analysis tooLong = analyze(longer.value(), Precision::Fp32);
    QVERIFY(!tooLong.valid());
    QVERIFY2(
        tooLong.error->message.find("transformer.wpe") != std::string::npos, tooLong.error->message.c_str());

    // Not a sequence model: an image input has no sequence axis.
    const Network image
        = network({ 3, 32, 32 }, { layer("Flatten"), layer("Linear", { { "out_features", 10 } }) });
    const auto refused = withSequenceLength(image, 128);
    QVERIFY(!refused.ok());
    QCOMPARE(refused.error().location, std::string("input.shape"));
    QVERIFY(!withSequenceLength(llama.value(), 0).ok());
}

void TestHfConfig::errors_data()
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
    row("syntax", "{\"model_type\": }", "line 1, column 16", "line 1, column 16",
        "config.json: line 1, column 16: ");
    row("trunc", "{\"model_type\": \"llama\", \"hidden_size\": 4096", "line 1, column 44", "cut short",
        "config.json: line 1, column 44: ");
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

void TestHfConfig::errors()
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

void TestHfConfig::acceptedVariants_data()
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

void TestHfConfig::acceptedVariants()
{
    QFETCH(QByteArray, config);
    QFETCH(qulonglong, params);
    const auto n = importHfConfig(config.toStdString(), "config.json");
    QVERIFY2(n.ok(), n.ok() ? "" : n.error().message.c_str());
    const Analysis a = analyze(n.value(), Precision::Fp32);
    QVERIFY2(a.valid(), a.valid() ? "" : a.error->message.c_str());
    QCOMPARE(a.totalParams, std::uint64_t { params });
}

void TestHfConfig::loadNetworkFileDispatches()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::string folder = dir.path().toStdString() + "/Qwen2-0.5B";
    QVERIFY(QDir().mkpath(QString::fromStdString(folder)));
    {
        std::ofstream out(folder + "/config.json", std::ios::binary);
        out << readFile(dataPath("Qwen2-0.5B.json"));
    }
    const auto byName = loadNetworkFile(folder + "/config.json");
    QVERIFY2(byName.ok(), byName.ok() ? "" : byName.error().message.c_str());
    QCOMPARE(byName->name, std::string("Qwen2-0.5B"));
    // Any other name: recognised by its model_type.
    const auto byContent = loadNetworkFile(dataPath("gpt2.json"));
    QVERIFY2(byContent.ok(), byContent.ok() ? "" : byContent.error().message.c_str());
    QCOMPARE(analyze(byContent.value(), Precision::Fp32).totalParams, std::uint64_t { 124'439'808 });
    // Headroom model files still load as before, and their errors are theirs.
    const auto preset = loadNetworkFile(HEADROOM_TEST_SOURCE_DIR "/resources/presets/gpt2_small.json");
    QVERIFY(preset.ok());
    {
        std::ofstream out(dir.path().toStdString() + "/broken.json", std::ios::binary);
        out << "{\"format\": \"headroom-model\", \"version\": 1}";
    }
    const auto broken = loadNetworkFile(dir.path().toStdString() + "/broken.json");
    QVERIFY(!broken.ok());
    QVERIFY2(broken.error().message.find("model_type") == std::string::npos, broken.error().message.c_str());
    // A config.json with a problem names the file and the key.
    {
        std::ofstream out(folder + "/config.json", std::ios::binary);
        out << "{\"model_type\": \"llama\", \"hidden_size\": 64}";
    }
    const auto bad = loadNetworkFile(folder + "/config.json");
    QVERIFY(!bad.ok());
    QVERIFY2(bad.error().message.find("config.json: num_hidden_layers is missing") != std::string::npos,
        bad.error().message.c_str());
}

void TestHfConfig::newFamiliesFollowHuggingFaceNames_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("name");
    QTest::addColumn<QString>("type");
    const auto row = [](const char* file, const char* name, const char* type) {
        QTest::newRow((std::string(file) + " " + name).c_str()) << file << name << type;
    };
    row("gemma-7b.json", "model.embed_tokens", "Embedding");
    row("gemma-7b.json", "model.layers.27.input_layernorm", "RMSNorm");
    row("gemma-2-9b.json", "model.layers.0.pre_feedforward_layernorm", "RMSNorm");
    row("gemma-2-9b.json", "model.layers.41.post_feedforward_layernorm", "RMSNorm");
    row("gemma-2-9b.json", "final_logit_softcapping", "LogitSoftcap");
    row("gemma-3-1b-it.json", "model.layers.0.self_attn.q_norm", "RMSNorm");
    row("gemma-3-4b-it.json", "model.language_model.layers.33.self_attn.k_norm", "RMSNorm");
    row("Phi-3-mini-4k-instruct.json", "model.layers.0.self_attn.qkv_proj", "Linear");
    row("Phi-3-mini-4k-instruct.json", "model.layers.31.mlp.gate_up_proj", "Linear");
    row("Phi-3-mini-4k-instruct.json", "model.layers.0.mlp.activation_fn", "GatedActivation");
    row("Qwen3-8B.json", "model.layers.35.self_attn.k_norm", "RMSNorm");
    row("pythia-160m.json", "gpt_neox.layers.11.attention.query_key_value", "Linear");
    row("pythia-160m.json", "gpt_neox.layers.0.mlp.dense_4h_to_h", "Linear");
    row("pythia-160m.json", "embed_out", "Linear");
    row("Mixtral-8x7B-v0.1.json", "model.layers.31.block_sparse_moe", "MixtureOfExperts");
    row("Qwen1.5-MoE-A2.7B.json", "model.layers.0.mlp", "MixtureOfExperts");
    row("Qwen1.5-MoE-A2.7B.json", "model.layers.0.mlp.shared_expert.down_proj", "Linear");
    row("Qwen1.5-MoE-A2.7B.json", "model.layers.0.mlp.shared_expert_gate", "Linear");
    row("Qwen3-30B-A3B.json", "model.layers.47.mlp", "MixtureOfExperts");
    // DeepSeek-V3's three dense layers and 58 MoE layers are two Repeat blocks named by the layers'
    // indices in Hugging Face's model.layers.
    row("DeepSeek-V3.json", "model.layers.0-2.2.mlp.down_proj", "Linear");
    row("DeepSeek-V3.json", "model.layers.3-60.0.self_attn", "MultiHeadLatentAttention");
    row("DeepSeek-V3.json", "model.layers.3-60.57.mlp", "MixtureOfExperts");
    row("DeepSeek-V3.json", "model.layers.3-60.0.mlp.shared_experts.gate_proj", "Linear");
}

void TestHfConfig::newFamiliesFollowHuggingFaceNames()
{
    QFETCH(QString, file);
    QFETCH(QString, name);
    QFETCH(QString, type);
    auto n = importHfConfigFile(dataPath(file.toStdString()));
    QVERIFY2(n.ok(), n.ok() ? "" : n.error().message.c_str());
    auto shorter = withSequenceLength(n.value(), 64);
    QVERIFY(shorter.ok());
    const Analysis a = analyze(shorter.value(), Precision::AmpBf16);
    QVERIFY2(a.valid(), a.valid() ? "" : a.error->message.c_str());
    const LayerRow* r = row(a, name.toStdString());
    QVERIFY2(r != nullptr, qPrintable(name));
    QCOMPARE(QString::fromStdString(r->type), type);
}

void TestHfConfig::newFamilyLayerByHand_data()
{
    QTest::addColumn<QByteArray>("config");
    QTest::addColumn<QString>("block");
    QTest::addColumn<bool>("eager");
    QTest::addColumn<qlonglong>("perSample");
    QTest::addColumn<qlonglong>("fixed");
    const auto row = [](const char* name, const std::string& config, const char* block, bool eager,
                         qlonglong perSample, qlonglong fixed) {
        QTest::newRow(name) << QByteArray::fromStdString(config) << block << eager << perSample << fixed;
    };
    // One float32 layer of the tiny sizes (T 16, E 64, h 4 of d 16, g 2, F 172), per sample, the layer's
    // input included; the Llama layer is 89,216 with SDPA (its math path: float32 with g < h) and eager
    // (sdpaLayerByHand, llamaLayerMatchesPyTorch).
    // Qwen3: q_norm keeps q_proj's output 4TE = 4,096, an rstd per position and head 4 x 16 x 4 = 256
    // and the normalised rows 4,096; k_norm k_proj's 4 T g d = 2,048, 128 and 2,048: + 12,672.
    row("qwen3 sdpa", tinyOf("qwen3"), "model.layers", false, 89'216 + 12'672, 0);
    row("qwen3 eager", tinyOf("qwen3"), "model.layers", true, 89'216 + 12'672, 0);
    // Phi-3: gate_up_proj's packed output 2 x 4TF (GatedActivation's input), the activation's output 4TF,
    // the product (down_proj's input) 4TF: the Llama MLP's four tensors. With g < h the math path copies
    // q, k and v as in Llama, so the layer is Llama's exactly.
    row("phi3 sdpa", tinyOf("phi3"), "model.layers", false, 89'216, 0);
    // With g = h SDPA keeps v as given, a view of qkv_proj's packed output: all of it, 4 T 3E = 12,288
    // where Llama's v_proj output is 4,096: + 8,192. Eager copies v and keeps only the copy.
    row("phi3 sdpa, g = h", tinyOf("phi3", { { "num_key_value_heads", 4 } }), "model.layers", false, 93'824,
        0);
    row("phi3 eager, g = h", tinyOf("phi3", { { "num_key_value_heads", 4 } }), "model.layers", true, 89'216,
        0);
    // Gemma: GemmaRMSNorm in float32 keeps what Llama's does (input, rstd, normalised rows) and 1 + w,
    // 64 float32 per norm, fixed; GELU keeps its input as SiLU does: Llama's figure, + 2 x 256 fixed.
    row("gemma sdpa", tinyOf("gemma"), "model.layers", false, 89'216, 512);
    // Gemma 2: post_attention_layernorm and post_feedforward_layernorm each keep their input 4TE, an rstd
    // 4T and the normalised rows 4TE: + 2 x 8,256 = 16,512; four norms' 1 + w, 1,024 fixed.
    row("gemma2 sdpa", tinyOf("gemma2"), "model.layers", false, 89'216 + 16'512, 1'024);
    // Eager soft-capping keeps tanh's output, h T T float32 = 4,096 more.
    row("gemma2 eager", tinyOf("gemma2"), "model.layers", true, 89'216 + 16'512 + 4'096, 1'024);
    // Gemma 3: Gemma 2's layer (no soft-capping) with Qwen3's q/k norms (+ 12,672) in Gemma's style
    // (1 + w: 2 x 16 x 4 = 128 fixed).
    row("gemma3 sdpa", tinyOf("gemma3_text"), "model.layers", false, 89'216 + 16'512 + 12'672, 1'152);
    // GPT-NeoX (hidden 64, 4 heads, MLP 256, parallel residual, SDPA): input_layernorm keeps the layer's
    // input 4,096, mean and rstd 128; its output (query_key_value's input) 4,096; SDPA keeps q and k after
    // rotary 2 x 4,096, v, a view of the packed 16 x 192 x 4 = 12,288, its output 4,096 and a logsumexp
    // 4 x 32 x 4 = 512; post_attention_layernorm reads the layer's input (kept already): mean and rstd
    // 128, output 4,096; dense_h_to_4h's output (GELU's input) 16,384 and GELU's output 16,384: 70,400.
    row("gpt_neox sdpa",
        json { { "model_type", "gpt_neox" }, { "hidden_size", 64 }, { "num_hidden_layers", 1 },
            { "num_attention_heads", 4 }, { "intermediate_size", 256 }, { "vocab_size", 100 },
            { "max_position_embeddings", 16 } }
            .dump(),
        "gpt_neox.layers", false, 70'400, 0);
}

void TestHfConfig::newFamilyLayerByHand()
{
    QFETCH(QByteArray, config);
    QFETCH(QString, block);
    QFETCH(bool, eager);
    QFETCH(qlonglong, perSample);
    QFETCH(qlonglong, fixed);
    const Network n = importOrDie(config.toStdString());
    const Analysis a
        = analyze(n, options(eager ? AttentionImplementation::Eager : AttentionImplementation::Sdpa));
    QVERIFY2(a.valid(), a.valid() ? "" : a.error->message.c_str());
    QCOMPARE(blockBytes(a, block.toStdString()), std::uint64_t(perSample));
    std::uint64_t fixedBytes = 0;
    for (const auto& r : a.rows) {
        if (r.name.rfind(block.toStdString() + ".0.", 0) == 0)
            fixedBytes += r.activationBytesFixed;
    }
    QCOMPARE(fixedBytes, std::uint64_t(fixed));
}

void TestHfConfig::gemma2SoftcapsScoresAndLogits()
{
    // final_logit_softcapping keeps tanh's output, as large as the logits: T x vocabulary, in the logits'
    // dtype (float32; bfloat16 under autocast, where lm_head computes in bfloat16).
    const Network n = importOrDie(tinyOf("gemma2"));
    const Analysis fp32 = analyze(n, options(AttentionImplementation::Sdpa));
    const Analysis amp = analyze(n, options(AttentionImplementation::Sdpa, Precision::AmpBf16));
    QVERIFY(fp32.valid() && amp.valid());
    QCOMPARE(row(fp32, "final_logit_softcapping")->activationBytesPerSample, std::uint64_t { 16 * 100 * 4 });
    QCOMPARE(row(amp, "final_logit_softcapping")->activationBytesPerSample, std::uint64_t { 16 * 100 * 2 });
    // Attention soft-capping is ignored by transformers' SDPA path: the analysis says so, once per layer
    // spec.
    QCOMPARE(fp32.warnings.size(), std::size_t { 1 });
    QCOMPARE(fp32.warnings.front().layer, std::string("model.layers.0.self_attn.attention"));
    QVERIFY2(fp32.warnings.front().message.find("attn_implementation=\"eager\"") != std::string::npos,
        fp32.warnings.front().message.c_str());
    QVERIFY(analyze(n, options(AttentionImplementation::Eager)).warnings.empty());
}

void TestHfConfig::loraTargetsPerFamily_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("targets"); // comma-separated
    QTest::addColumn<qulonglong>("adapters");
    // Rank 8: an adapter on an in x out projection has 8 (in + out) parameters.
    // Phi-3's fused projections: qkv_proj 8 x (3072 + 9216) = 98,304, x 32 layers.
    QTest::newRow("phi3 qkv_proj") << "Phi-3-mini-4k-instruct.json"
                                   << "qkv_proj" << qulonglong { 3'145'728 };
    // Mixtral's experts: w1, w3 8 x (4096 + 14336) = 147,456 each, w2 the same; x 8 experts x 32 layers.
    QTest::newRow("mixtral w1 w2 w3") << "Mixtral-8x7B-v0.1.json"
                                      << "w1,w2,w3" << qulonglong { 113'246'208 };
    // Every Linear but lm_head (PEFT's "all-linear"): q, o 8 x 8192 = 65,536 each, k, v 8 x 5120 =
    // 40,960 each, the router gate 8 x (4096 + 8) = 32,832 and the experts 3,538,944: 3,784,768 x 32.
    QTest::newRow("mixtral all") << "Mixtral-8x7B-v0.1.json"
                                 << "" << qulonglong { 121'112'576 };
    // Qwen-MoE's experts and shared expert: 60 x 3 x 8 x (2048 + 1408) = 4,976,640 and
    // 3 x 8 x (2048 + 5632) = 184,320 per layer, x 24.
    QTest::newRow("qwen2_moe gate/up/down_proj")
        << "Qwen1.5-MoE-A2.7B.json"
        << "gate_proj,up_proj,down_proj" << qulonglong { 123'863'040 };
    // DeepSeek-V3's latent attention: q_a_proj 8 x (7168 + 1536) = 69,632, q_b_proj 8 x (1536 + 24576) =
    // 208,896, kv_a_proj_with_mqa 8 x (7168 + 576) = 61,952, kv_b_proj 8 x (512 + 32768) = 266,240,
    // o_proj 8 x (16384 + 7168) = 188,416: 795,136 x 61.
    QTest::newRow("deepseek attention")
        << "DeepSeek-V3.json"
        << "q_a_proj,q_b_proj,kv_a_proj_with_mqa,kv_b_proj,o_proj" << qulonglong { 48'503'296 };
    // Gemma 2: q_proj 8 x (3584 + 4096) = 61,440, v_proj 8 x (3584 + 2048) = 45,056, x 42.
    QTest::newRow("gemma2 q v") << "gemma-2-9b.json"
                                << "q_proj,v_proj" << qulonglong { 4'472'832 };
    // GPT-NeoX: query_key_value 8 x (768 + 2304) = 24,576, x 12.
    QTest::newRow("gpt_neox query_key_value") << "pythia-160m.json"
                                              << "query_key_value" << qulonglong { 294'912 };
}

void TestHfConfig::loraTargetsPerFamily()
{
    QFETCH(QString, file);
    QFETCH(QString, targets);
    QFETCH(qulonglong, adapters);
    auto n = importHfConfigFile(dataPath(file.toStdString()));
    QVERIFY2(n.ok(), n.ok() ? "" : n.error().message.c_str());
    auto shorter = withSequenceLength(n.value(), 32);
    QVERIFY(shorter.ok());
    AnalysisOptions o = options(AttentionImplementation::Sdpa, Precision::AmpBf16);
    o.lora.rank = 8;
    for (const auto& t : targets.split(QLatin1Char(','), Qt::SkipEmptyParts))
        o.lora.targets.push_back(t.toStdString());
    const Analysis a = analyze(shorter.value(), o);
    QVERIFY2(a.valid(), a.valid() ? "" : a.error->message.c_str());
    QCOMPARE(a.loraParams, std::uint64_t { adapters });
    QCOMPARE(a.trainableParams, std::uint64_t { adapters });
}

void TestHfConfig::checkpointingPerDecoderLayer()
{
    // gradient_checkpointing_enable() checkpoints each decoder layer: per-block checkpointing does the
    // same in both of DeepSeek-V3's Repeat blocks (dense and MoE layers), and keeps one layer's
    // activations alive at a time.
    auto n = importHfConfigFile(dataPath("DeepSeek-V3.json"));
    QVERIFY(n.ok());
    auto shorter = withSequenceLength(n.value(), 64);
    QVERIFY(shorter.ok());
    AnalysisOptions o = options(AttentionImplementation::Sdpa, Precision::AmpBf16);
    const Analysis full = analyze(shorter.value(), o);
    o.checkpointing = Checkpointing::PerBlock;
    const Analysis checkpointed = analyze(shorter.value(), o);
    QVERIFY(full.valid() && checkpointed.valid());
    QVERIFY(row(checkpointed, "model.layers.0-2.1.self_attn")->checkpointed);
    QVERIFY(row(checkpointed, "model.layers.3-60.57.mlp")->checkpointed);
    QVERIFY(!row(checkpointed, "lm_head")->checkpointed);
    // Kept: what lies outside the decoder layers (the final norm, lm_head, the loss), every layer's input
    // (the embeddings' output and each layer's output, saved by torch.utils.checkpoint: 61 x T x H in
    // float32), and the largest layer's recomputed activations: an MoE layer's without its input.
    const std::uint64_t input = 64ULL * 7168 * 4;
    std::uint64_t layers = 0;
    for (const auto& r : full.rows) {
        if (r.name.rfind("model.layers.", 0) == 0)
            layers += r.activationBytesPerSample * r.count;
    }
    const std::uint64_t outside = full.activationBytesPerSample - layers;
    QCOMPARE(blockBytes(full, "model.layers.3-60", 57), blockBytes(full, "model.layers.3-60", 0));
    QVERIFY(blockBytes(full, "model.layers.3-60", 0) > blockBytes(full, "model.layers.0-2", 0));
    QCOMPARE(checkpointed.activationBytesPerSample,
        outside + 61 * input + blockBytes(full, "model.layers.3-60", 0) - input);
}

void TestHfConfig::mixtralFlopsFollowActiveParameters()
{
    // Each token runs 2 of the 8 experts. The matrices it multiplies by, per layer: q, k, v, o
    // 41,943,040, the router 32,768 and two experts 2 x 176,160,768; x 32 = 12,617,515,008; lm_head
    // 131,072,000 (the embedding is a lookup): 12,748,587,008 active of 46,702,792,704. Forward: 2 FLOPs
    // per active parameter and token, plus attention scores and element-wise work (under 1 % at 128
    // tokens).
    auto n = importHfConfigFile(dataPath("Mixtral-8x7B-v0.1.json"));
    QVERIFY(n.ok());
    auto shorter = withSequenceLength(n.value(), 128);
    QVERIFY(shorter.ok());
    const Analysis a = analyze(shorter.value(), options(AttentionImplementation::Sdpa, Precision::AmpBf16));
    QVERIFY(a.valid());
    const double active = 2.0 * 12'748'587'008.0 * 128;
    QVERIFY2(static_cast<double>(a.forwardFlopsPerSample) >= active,
        std::to_string(a.forwardFlopsPerSample).c_str());
    QVERIFY2(static_cast<double>(a.forwardFlopsPerSample) <= 1.01 * active,
        std::to_string(a.forwardFlopsPerSample).c_str());
}

void TestHfConfig::importedModelsSaveAndReopen_data()
{
    QTest::addColumn<QString>("file");
    for (const char* file : { "gemma-2-9b.json", "gemma-3-4b-it.json", "Phi-3-mini-4k-instruct.json",
             "pythia-160m.json", "Qwen1.5-MoE-A2.7B.json", "DeepSeek-V3.json" })
        QTest::newRow(file) << file;
}

void TestHfConfig::importedModelsSaveAndReopen()
{
    // The new layer kinds are ordinary model-file layers: an imported model saves as a Headroom model
    // file and reopens to the same network and the same analysis.
    QFETCH(QString, file);
    auto n = importHfConfigFile(dataPath(file.toStdString()));
    QVERIFY2(n.ok(), n.ok() ? "" : n.error().message.c_str());
    auto shorter = withSequenceLength(n.value(), 32);
    QVERIFY(shorter.ok());
    const auto reopened = parseModel(serializeModel(shorter.value()));
    QVERIFY2(reopened.ok(), reopened.ok() ? "" : reopened.error().message.c_str());
    QVERIFY(reopened.value() == shorter.value());
    const Analysis a = analyze(reopened.value(), options(AttentionImplementation::Sdpa, Precision::AmpBf16));
    const Analysis b = analyze(shorter.value(), options(AttentionImplementation::Sdpa, Precision::AmpBf16));
    QVERIFY(a.valid() && b.valid());
    QCOMPARE(a.activationBytesPerSample, b.activationBytesPerSample);
    QCOMPARE(a.totalParams, b.totalParams);
}

QTEST_APPLESS_MAIN(TestHfConfig)
#include "tst_hfconfig.moc"

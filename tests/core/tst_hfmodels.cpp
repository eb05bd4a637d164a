// Hugging Face config.json import (docs/hf-import.md): the model a config.json gives, its size, its names
// and its name, the families it reads, the projections LoRA targets in each, and the file it becomes.
//
// Parameter counts are the published model sizes, each worked out by hand below from the config.
#include "HfTestSupport.h"
#include "headroom/analysis/Analysis.h"
#include "headroom/importers/HfConfig.h"
#include "headroom/importers/NetworkFile.h"
#include "headroom/layers/LayerRegistry.h"
#include "headroom/model/ModelFile.h"
#include "headroom/support/Format.h"

#include <QFileInfo>
#include <QTemporaryDir>
#include <QTest>
#include <algorithm>
#include <fstream>

using namespace headroom;
using namespace headroom::test;
using nlohmann::json;

class TestHfModels : public QObject
{
    Q_OBJECT
private slots:
    void publishedParameterCounts_data();
    void publishedParameterCounts();
    void namesFollowHuggingFace();
    void modelName_data();
    void modelName();
    void modelNameFallbacks();
    void loadNetworkFileDispatches();
    void newFamiliesFollowHuggingFaceNames_data();
    void newFamiliesFollowHuggingFaceNames();
    void loraTargetsPerFamily_data();
    void loraTargetsPerFamily();
    void importedModelsSaveAndReopen_data();
    void importedModelsSaveAndReopen();
    void trainingLengthIsTheUsers();
};

void TestHfModels::publishedParameterCounts_data()
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
    // Qwen3-235B-A22B (qwen3_moe; 128 experts of 1536, top-8, 64 heads of 128, 4 key/value, q/k norms):
    // embed 151936 x 4096 = 622,329,856; per layer q, o 2 x 4096 x 8192 = 67,108,864 + k, v 2 x 4096 x 512
    // = 4,194,304 + q/k norms 256 + gate 4096 x 128 = 524,288 + experts 128 x 3 x 4096 x 1536 =
    // 2,415,919,104 + norms 8,192 = 2,487,755,008, x 94 = 233,848,970,752; norm 4,096; lm_head
    // 622,329,856. Total 235,093,634,560.
    QTest::newRow("Qwen3-235B-A22B") << "Qwen3-235B-A22B.json" << qulonglong { 235'093'634'560 }
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

void TestHfModels::publishedParameterCounts()
{
    QFETCH(QString, file);
    QFETCH(qulonglong, params);
    QFETCH(qlonglong, tokens);
    const auto n = importHfConfigFile(dataPath(file.toStdString()));
    QVERIFY2(n.ok(), n.ok() ? "" : n.error().message.c_str());
    // `tokens` is the config's context (max_position_embeddings, GPT-2's n_positions): the longest input;
    // the import starts at 1,024 tokens where that is longer (run_clm.py's and TRL's default), and says so.
    QCOMPARE(n->input.maxSequenceLength, std::optional<std::int64_t> { tokens });
    QCOMPARE(n->input.shape.dims, std::vector<std::int64_t> { std::min<qlonglong>(tokens, 1024) });
    const bool warned = std::ranges::any_of(n->warnings, [&](const std::string& w) {
        return w.starts_with("sequence length: 1,024 tokens")
            && w.find(formatCount(static_cast<std::uint64_t>(tokens))) != std::string::npos;
    });
    QCOMPARE(warned, tokens > 1024);
    QCOMPARE(n->input.dtype, DType::Int64);
    QCOMPARE(n->loss, Loss::CrossEntropy);
    const Analysis a = analyze(n.value(), Precision::Fp32);
    QVERIFY2(a.valid(), a.valid() ? "" : a.error->message.c_str());
    QCOMPARE(a.totalParams, std::uint64_t { params });
    QCOMPARE(a.trainableParams, std::uint64_t { params });
}

void TestHfModels::namesFollowHuggingFace()
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
    // [T, vocab] at the import's training length (1,024 tokens of the 4,096 the config allows).
    QCOMPARE(row(a, "lm_head")->output.shape.dims, (std::vector<std::int64_t> { 1024, 32000 }));

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

void TestHfModels::modelName_data()
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

void TestHfModels::modelName()
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

void TestHfModels::modelNameFallbacks()
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

void TestHfModels::loadNetworkFileDispatches()
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

void TestHfModels::newFamiliesFollowHuggingFaceNames_data()
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

void TestHfModels::newFamiliesFollowHuggingFaceNames()
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

void TestHfModels::loraTargetsPerFamily_data()
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

void TestHfModels::loraTargetsPerFamily()
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

void TestHfModels::importedModelsSaveAndReopen_data()
{
    QTest::addColumn<QString>("file");
    for (const char* file : { "gemma-2-9b.json", "gemma-3-4b-it.json", "Phi-3-mini-4k-instruct.json",
             "pythia-160m.json", "Qwen1.5-MoE-A2.7B.json", "DeepSeek-V3.json" })
        QTest::newRow(file) << file;
}

void TestHfModels::importedModelsSaveAndReopen()
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

// The length asked on import replaces the default, keeps the config's context as the longest, and drops
// the note that the import started at the default; a length the model cannot take is refused.
void TestHfModels::trainingLengthIsTheUsers()
{
    const auto n = importHfConfigFile(dataPath("Llama-2-7b-hf.json"));
    QVERIFY(n.ok());
    QCOMPARE(n->input.shape.dims, std::vector<std::int64_t> { 1024 });
    QCOMPARE(n->warnings.size(), std::size_t { 1 });
    const auto trained = atTrainingLength(n.value(), 2048);
    QVERIFY(trained.ok());
    QCOMPARE(trained->input.shape.dims, std::vector<std::int64_t> { 2048 });
    QCOMPARE(trained->input.maxSequenceLength, std::optional<std::int64_t> { 4096 });
    QVERIFY(trained->warnings.empty());
    const auto bad = atTrainingLength(n.value(), 0);
    QVERIFY(!bad.ok());
    QCOMPARE(bad.error().location, std::string { "sequence_length" });
    // Saved and reopened, the model keeps both lengths.
    QTemporaryDir dir;
    const std::string path = dir.filePath(QStringLiteral("llama.json")).toStdString();
    QVERIFY(saveModelFile(trained.value(), path).ok());
    const auto reopened = loadModelFile(path);
    QVERIFY2(reopened.ok(), reopened.ok() ? "" : reopened.error().message.c_str());
    QCOMPARE(reopened->input.shape.dims, std::vector<std::int64_t> { 2048 });
    QCOMPARE(reopened->input.maxSequenceLength, std::optional<std::int64_t> { 4096 });
}

QTEST_APPLESS_MAIN(TestHfModels)
#include "tst_hfmodels.moc"

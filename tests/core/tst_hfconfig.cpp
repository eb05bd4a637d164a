// Hugging Face config.json import (docs/hf-import.md) and the attention implementation switch.
//
// Parameter counts are the published model sizes, each worked out by hand below from the config.
// Activation figures for one decoder layer are measured with PyTorch (tests/data/hf/measure_layers.py,
// output in tests/data/hf/measured_layers.json, read here) and converted to PyTorch 2.x on CUDA by the
// adjustments stated next to each; the SDPA figures (which torch 1.13 cannot run) are worked out by
// hand from the saved tensors of the fused kernels. Per sample, T = sequence, E = hidden, F = MLP
// width, h = heads, g = key/value heads, d = head size.
#include "NetworkBuilder.h"
#include "headroom/Analysis.h"
#include "headroom/HfConfig.h"
#include "headroom/LayerRegistry.h"
#include "headroom/NetworkFile.h"

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

/// Activation bytes per sample of every row of repetition `index` of the block `block`.
std::uint64_t blockBytes(const Analysis& a, const std::string& block, int index = 0)
{
    const std::string prefix = block + "." + std::to_string(index) + ".";
    std::uint64_t sum = 0;
    for (const auto& row : a.rows) {
        if (row.name.rfind(prefix, 0) == 0)
            sum += row.activationBytesPerSample;
    }
    return sum;
}

const LayerRow* row(const Analysis& a, const std::string& name)
{
    const auto it = std::find_if(a.rows.begin(), a.rows.end(), [&](const auto& r) { return r.name == name; });
    return it == a.rows.end() ? nullptr : &*it;
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
    json c = {{"model_type", qwen2 ? "qwen2" : "llama"}, {"hidden_size", 64}, {"num_hidden_layers", 1},
        {"num_attention_heads", 4}, {"num_key_value_heads", kvHeads}, {"intermediate_size", 172},
        {"vocab_size", 100}, {"max_position_embeddings", 16}, {"rms_norm_eps", 1e-6}};
    return c.dump();
}

std::string tinyGpt2(double dropout)
{
    json c = {{"model_type", "gpt2"}, {"n_embd", 64}, {"n_layer", 1}, {"n_head", 4}, {"n_inner", 256},
        {"vocab_size", 100}, {"n_positions", 16}, {"attn_pdrop", dropout}, {"resid_pdrop", dropout},
        {"embd_pdrop", dropout}};
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

class TestHfConfig : public QObject {
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
    QTest::newRow("gpt2") << "gpt2.json" << qulonglong{124'439'808} << qlonglong{1024};
    // BertForMaskedLM (no pooler; decoder weight tied, its bias 30,522 separate): embeddings
    // 30522 x 768 = 23,440,896 + 512 x 768 = 393,216 + 2 x 768 = 1,536 + LayerNorm 1,536 = 23,837,184;
    // per layer 4 x (768 x 768 + 768) = 2,362,368 + LN 1,536 + 768 x 3072 + 3072 = 2,362,368
    // + 3072 x 768 + 768 = 2,360,064 + LN 1,536 = 7,087,872, x 12 = 85,054,464; MLM transform
    // 590,592 + 1,536; decoder bias 30,522. Total 109,514,298 (BertModel with its pooler instead:
    // 109,482,240).
    QTest::newRow("bert-base-uncased") << "bert-base-uncased.json" << qulonglong{109'514'298} << qlonglong{512};
    // Llama-2-7B: embed 32000 x 4096 = 131,072,000; per layer q, k, v, o 4 x 4096^2 = 67,108,864
    // + gate, up, down 3 x 4096 x 11008 = 135,266,304 + two RMSNorms 8,192 = 202,383,360, x 32 =
    // 6,476,267,520; norm 4,096; lm_head (untied) 131,072,000. Total 6,738,415,616.
    QTest::newRow("Llama-2-7b") << "Llama-2-7b-hf.json" << qulonglong{6'738'415'616} << qlonglong{4096};
    // Mistral-7B-v0.1 (8 key/value heads of 128): per layer q, o 2 x 4096^2 = 33,554,432 + k, v
    // 2 x 4096 x 1024 = 8,388,608 + MLP 3 x 4096 x 14336 = 176,160,768 + norms 8,192 = 218,112,000,
    // x 32 = 6,979,584,000; embed and lm_head 2 x 131,072,000; norm 4,096. Total 7,241,732,096.
    QTest::newRow("Mistral-7B") << "Mistral-7B-v0.1.json" << qulonglong{7'241'732'096} << qlonglong{32768};
    // Qwen2-0.5B (tied; q/k/v biases, 2 key/value heads of 64): embed 151936 x 896 = 136,134,656;
    // per layer q 896^2 + 896 = 803,712 + k, v 2 x (896 x 128 + 128) = 229,632 + o 802,816 + MLP
    // 3 x 896 x 4864 = 13,074,432 + norms 1,792 = 14,912,384, x 24 = 357,897,216; norm 896.
    // Total 494,032,768.
    QTest::newRow("Qwen2-0.5B") << "Qwen2-0.5B.json" << qulonglong{494'032'768} << qlonglong{131072};
    // TinyLlama-1.1B (4 key/value heads of 64): per layer q, o 2 x 2048^2 = 8,388,608 + k, v
    // 2 x 2048 x 256 = 1,048,576 + MLP 3 x 2048 x 5632 = 34,603,008 + norms 4,096 = 44,044,288,
    // x 22 = 968,974,336; embed and lm_head 2 x 65,536,000; norm 2,048. Total 1,100,048,384.
    QTest::newRow("TinyLlama-1.1B") << "TinyLlama-1.1B-Chat-v1.0.json" << qulonglong{1'100'048'384} << qlonglong{2048};
}

void TestHfConfig::publishedParameterCounts()
{
    QFETCH(QString, file);
    QFETCH(qulonglong, params);
    QFETCH(qlonglong, tokens);
    const auto n = importHfConfigFile(dataPath(file.toStdString()));
    QVERIFY2(n.ok(), n.ok() ? "" : n.error().message.c_str());
    QCOMPARE(n->input.shape.dims, std::vector<std::int64_t>{tokens});
    QCOMPARE(n->input.dtype, DType::Int64);
    QCOMPARE(n->loss, Loss::CrossEntropy);
    const Analysis a = analyze(n.value(), Precision::Fp32);
    QVERIFY2(a.valid(), a.valid() ? "" : a.error->message.c_str());
    QCOMPARE(a.totalParams, std::uint64_t{params});
    QCOMPARE(a.trainableParams, std::uint64_t{params});
}

void TestHfConfig::namesFollowHuggingFace()
{
    const auto llama = importHfConfigFile(dataPath("Llama-2-7b-hf.json"));
    QVERIFY(llama.ok());
    QCOMPARE(llama->name, std::string("meta-llama/Llama-2-7b-hf"));
    const auto block = std::find_if(llama->layers.begin(), llama->layers.end(), [](const auto& l) { return l.isRepeat(); });
    QVERIFY(block != llama->layers.end());
    QCOMPARE(block->name, std::string("model.layers"));
    QCOMPARE(block->times, std::int64_t{32});
    const Analysis a = analyze(llama.value(), Precision::AmpBf16);
    QVERIFY(a.valid());
    for (const char* name : {"model.embed_tokens", "model.layers.0.self_attn.q_proj", "model.layers.0.self_attn.k_proj",
             "model.layers.0.self_attn.v_proj", "model.layers.31.self_attn.o_proj", "model.layers.5.mlp.gate_proj",
             "model.layers.5.mlp.up_proj", "model.layers.5.mlp.down_proj", "model.norm", "lm_head"}) {
        QVERIFY2(row(a, name) != nullptr, name);
    }
    QCOMPARE(row(a, "model.layers.0.self_attn.q_proj")->type, std::string("Linear"));
    QCOMPARE(row(a, "model.layers.0.self_attn.q_proj")->params, std::uint64_t{4096} * 4096);
    QCOMPARE(row(a, "lm_head")->output.shape.dims, (std::vector<std::int64_t>{4096, 32000}));

    const auto gpt2 = importHfConfigFile(dataPath("gpt2.json"));
    QVERIFY(gpt2.ok());
    QCOMPARE(gpt2->name, std::string("gpt2")); // no _name_or_path: the file's name
    const Analysis g = analyze(gpt2.value(), Precision::Fp32);
    for (const char* name : {"transformer.h.0.attn.c_attn", "transformer.h.0.attn.c_proj", "transformer.h.11.mlp.c_fc",
             "transformer.h.11.mlp.c_proj", "lm_head"}) {
        QVERIFY2(row(g, name) != nullptr && row(g, name)->type == "Linear", name);
    }
    QCOMPARE(row(g, "lm_head")->params, std::uint64_t{0}); // tied to wte
}

void TestHfConfig::modelName_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("nameOrPath"); // "-": no _name_or_path key
    QTest::addColumn<QString>("name");
    QTest::newRow("_name_or_path") << "whatever/config.json" << "org/Some-Model" << "org/Some-Model";
    QTest::newRow("_name_or_path over the file's name") << "gpt2.json" << "openai-community/gpt2"
                                                        << "openai-community/gpt2";
    QTest::newRow("empty _name_or_path: the file's name") << "tiny.json" << "" << "tiny";
    QTest::newRow("the file's name") << "models/gpt2.json" << "-" << "gpt2";
    QTest::newRow("config.json: the folder's name") << "Llama-2-7b-hf/config.json" << "-" << "Llama-2-7b-hf";
    QTest::newRow("CONFIG.JSON: the folder's name") << "Some-Model/CONFIG.JSON" << "-" << "Some-Model";
    QTest::newRow("empty _name_or_path in config.json") << "Qwen2-0.5B/config.json" << "" << "Qwen2-0.5B";
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
    QCOMPARE(importHfConfigFile(dataPath("Llama-2-7b-hf.json"))->name, std::string("meta-llama/Llama-2-7b-hf"));
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
    QTest::newRow("llama, grouped-query (g 2)") << "llama_gqa" << 2 << false << qlonglong{93'312};
    QTest::newRow("llama, g = h") << "llama_mha" << 4 << false << qlonglong{93'312};
    QTest::newRow("qwen2 (q/k/v biases)") << "qwen2_bias" << 2 << true << qlonglong{93'312};
}

void TestHfConfig::llamaLayerMatchesPyTorch()
{
    QFETCH(QString, measurement);
    QFETCH(int, kvHeads);
    QFETCH(bool, qwen2);
    QFETCH(qlonglong, byHand);
    const std::int64_t pytorch113 = measured(measurement.toStdString());
    QCOMPARE(pytorch113, std::int64_t{byHand});
    constexpr std::int64_t te = 4 * 16 * 64;
    const std::int64_t pytorch2 = pytorch113 - 2 * te;
    const Analysis a = analyze(importOrDie(tinyLlama(kvHeads, qwen2)), options(AttentionImplementation::Eager));
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
    QTest::newRow("dropout 0") << 0.0 << qlonglong{114'944} << qlonglong{0};
    QTest::newRow("dropout 0.1") << 0.1 << qlonglong{131'328} << qlonglong{-9'216};
}

void TestHfConfig::gpt2LayerMatchesPyTorch()
{
    QFETCH(double, dropout);
    QFETCH(qlonglong, byHand);
    QFETCH(qlonglong, cudaAdjustment);
    const std::int64_t cpu = measured(dropout > 0 ? "gpt2" : "gpt2_nodropout");
    QCOMPARE(cpu, std::int64_t{byHand});
    constexpr std::int64_t te = 4 * 16 * 64;
    const Analysis a = analyze(importOrDie(tinyGpt2(dropout)), options(AttentionImplementation::Eager));
    QVERIFY2(a.valid(), a.valid() ? "" : a.error->message.c_str());
    // The block's input (the embedding dropout's output, or the embeddings' sum) is first kept by
    // ln_1: + 4TE.
    QCOMPARE(blockBytes(a, "transformer.h"), std::uint64_t(cpu + cudaAdjustment + te));
}

void TestHfConfig::sdpaLayerByHand()
{
    // The tiny Llama layer (g 2) with SDPA, fp32 (memory-efficient kernel), per sample:
    //   input 4TE (charged here), RMSNorm 1 rstd 4T + normalised 4TE + output 4TE, q after rotary 4TE,
    //   k and v repeated to 4 heads 2 x 4TE, the SDPA output 4TE (also o_proj's input), logsumexp
    //   4 x h x ceil(16 / 32) x 32 = 512, residual 4TE, RMSNorm 2 4T + 4TE + 4TE, MLP 4 x 4TF
    //   = 10 x 4096 + 128 + 512 + 44,032 = 85,632: 3,584 less than eager (89,216), whose probabilities
    //   (4hT^2 = 4,096) and separate heads-merged copy (4TE) outweigh the output and logsumexp.
    const Network n = importOrDie(tinyLlama(2, false));
    const Analysis sdpa = analyze(n, options(AttentionImplementation::Sdpa));
    QVERIFY(sdpa.valid());
    QCOMPARE(blockBytes(sdpa, "model.layers"), std::uint64_t{85'632});
    // bf16 autocast, flash: the rotary results are float32 (cos/sin follow the float32 hidden states),
    // so SDPA gets bfloat16 copies of q and of k repeated; v repeated is bfloat16 already. Float32
    // (4TE = 4,096 each): the input, RMSNorm 1's normalised rows, the residual sum, RMSNorm 2's
    // normalised rows (the RMSNorm outputs themselves are not kept: every Linear keeps its own bf16
    // cast of them). bf16 (2TE = 2,048 each): q_proj's, k_proj's, v_proj's input casts, SDPA's q, k,
    // v and output (o_proj keeps that same output), gate_proj's and up_proj's input casts: 9. Then
    // rstd 2 x 4T = 128, the flash logsumexp 4hT = 256, and the MLP's gate output (SiLU), SiLU output
    // and up output (Mul), product (down_proj) in bf16, 4 x 2TF = 22,016.
    //   = 16,384 + 18,432 + 128 + 256 + 22,016 = 57,216.
    const Analysis amp = analyze(n, options(AttentionImplementation::Sdpa, Precision::AmpBf16));
    QVERIFY(amp.valid());
    QCOMPARE(blockBytes(amp, "model.layers"), std::uint64_t{57'216});
}

void TestHfConfig::attentionScoresAreMarked()
{
    const LayerKind* kind = LayerRegistry::builtin().find("ScaledDotProductAttention");
    QVERIFY(kind != nullptr);
    const auto attrs = Attributes::validate(kind->attributes(), json{{"num_heads", 4}, {"dropout", 0.1}}, "layers[0]");
    QVERIFY(attrs.ok());
    const std::vector<TensorInfo> packed{TensorInfo{Shape{{16, 192}}, DType::Float32}};
    for (const auto impl : {AttentionImplementation::Eager, AttentionImplementation::Sdpa}) {
        const LayerContext ctx{attrs.value(), packed, Precision::Fp32, impl};
        const auto o = kind->infer(ctx);
        QVERIFY(o.ok());
        QCOMPARE(o->output.shape.dims, (std::vector<std::int64_t>{16, 64}));
        std::uint64_t scores = 0;
        for (const auto& s : o->saved) {
            if (s.attentionScores)
                scores += s.perSampleElements.value() * elementSize(s.dtype);
        }
        // Eager: probabilities 4hT^2 = 4,096, bool mask hT^2 = 1,024, dropped probabilities 4,096.
        QCOMPARE(scores, impl == AttentionImplementation::Eager ? std::uint64_t{9'216} : std::uint64_t{0});
    }
}

void TestHfConfig::transformerEncoderLayerEager()
{
    // TransformerEncoderLayer T 16, d 64, h 4, F 256, dropout 0.1, fp32. Eager (SDPA's math path)
    // keeps q scaled 4TE, k scaled 4TE, probabilities 4hT^2 = 4,096, their bool mask 1,024 and the
    // dropped copy 4,096 = 17,408 where the fused kernel keeps its output 4TE and a logsumexp
    // 4 x h x 32 = 512: 12,800 more. need_weights=true MultiheadAttention is eager either way.
    const Network tel = network({16, 64},
        {layer("TransformerEncoderLayer", {{"nhead", 4}, {"dim_feedforward", 256}, {"dropout", 0.1}})}, Loss::None);
    const Analysis sdpa = analyze(tel, options(AttentionImplementation::Sdpa));
    const Analysis eager = analyze(tel, options(AttentionImplementation::Eager));
    QVERIFY(sdpa.valid() && eager.valid());
    QCOMPARE(eager.activationBytesPerSample - sdpa.activationBytesPerSample, std::uint64_t{12'800});

    const Network mha = network({16, 64}, {layer("MultiheadAttention", {{"num_heads", 4}})}, Loss::None);
    QCOMPARE(analyze(mha, options(AttentionImplementation::Eager)).activationBytesPerSample,
        analyze(mha, options(AttentionImplementation::Sdpa)).activationBytesPerSample);
}

void TestHfConfig::sequenceLengthOverride()
{
    const auto llama = importHfConfigFile(dataPath("Llama-2-7b-hf.json"));
    QVERIFY(llama.ok());
    const auto shorter = withSequenceLength(llama.value(), 512);
    QVERIFY(shorter.ok());
    QCOMPARE(shorter->input.shape.dims, std::vector<std::int64_t>{512});
    const Analysis full = analyze(llama.value(), options(AttentionImplementation::Sdpa, Precision::AmpBf16));
    const Analysis cut = analyze(shorter.value(), options(AttentionImplementation::Sdpa, Precision::AmpBf16));
    QVERIFY(full.valid() && cut.valid());
    QCOMPARE(cut.totalParams, full.totalParams);
    QCOMPARE(cut.output.shape.dims, (std::vector<std::int64_t>{512, 32000}));
    // With SDPA nothing is quadratic in T: the activations scale exactly with T (4096 / 512 = 8);
    // eager's h x T x T probabilities do not.
    QCOMPARE(full.activationBytesPerSample, 8 * cut.activationBytesPerSample);
    const Analysis eagerFull = analyze(llama.value(), options(AttentionImplementation::Eager, Precision::AmpBf16));
    const Analysis eagerCut = analyze(shorter.value(), options(AttentionImplementation::Eager, Precision::AmpBf16));
    QVERIFY(eagerFull.activationBytesPerSample > 8 * eagerCut.activationBytesPerSample);

    // GPT-2's learned position table has 1024 rows: longer sequences are an error naming wpe.
    const auto gpt2 = importHfConfigFile(dataPath("gpt2.json"));
    QVERIFY(gpt2.ok());
    const auto longer = withSequenceLength(gpt2.value(), 2048);
    QVERIFY(longer.ok());
    const Analysis tooLong = analyze(longer.value(), Precision::Fp32);
    QVERIFY(!tooLong.valid());
    QVERIFY2(tooLong.error->message.find("transformer.wpe") != std::string::npos, tooLong.error->message.c_str());

    // Not a sequence model: an image input has no sequence axis.
    const Network image = network({3, 32, 32}, {layer("Flatten"), layer("Linear", {{"out_features", 10}})});
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
        QTest::newRow(name) << QByteArray::fromStdString(config) << QString::fromUtf8(key) << QString::fromUtf8(value)
                            << QString::fromStdString(message);
    };
    const json drop = json::value_t::discarded;
    const std::string supported = "; supported: bert, deepseek_v3, gemma, gemma2, gemma3, gemma3_text, gpt2, gpt_neox, "
                                  "llama, mistral, mixtral, phi3, qwen2, qwen2_moe, qwen3, qwen3_moe";

    // Not a JSON object.
    row("empty", "", "", "empty", "config.json: the file is empty (a config.json is a JSON object such as");
    row("blank", " \n\t\n", "", "empty", "config.json: the file is empty");
    row("binary (nul)", std::string("\0\0", 2), "", "0x00",
        "config.json: not a text file: byte 0 is 0x00, a control character JSON does not allow");
    row("binary (control)", "{\"model_type\": \x01}", "", "0x01", "config.json: not a text file: byte 15 is 0x01");
    row("UTF-16", std::string("\xFF\xFE{\0}\0", 6), "", "UTF-16",
        "config.json: the file is UTF-16 text; save it as UTF-8");
    row("array", "[1, 2]", "", "an array", "config.json: a Hugging Face config.json is a JSON object, not an array");
    row("syntax", "{\"model_type\": }", "line 1, column 16", "line 1, column 16", "config.json: line 1, column 16: ");
    row("trunc", "{\"model_type\": \"llama\", \"hidden_size\": 4096", "line 1, column 44", "cut short",
        "config.json: line 1, column 44: ");
    row("eps_nan", llamaWithRaw("rms_norm_eps", "NaN"), "rms_norm_eps", "NaN",
        "config.json: rms_norm_eps is NaN, which JSON does not allow (Python's json writes it for a non-finite "
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
    row("gpt2_noembd", "{\"model_type\": \"gpt2\", \"n_layer\": 2, \"n_head\": 2, \"vocab_size\": 10, "
                       "\"n_positions\": 8}",
        "n_embd", "missing", "config.json: n_embd (or hidden_size) is missing");
    row("null size", llamaWith("vocab_size", nullptr), "vocab_size", "null",
        "config.json: vocab_size must be a whole number from 1 to 2147483647, not null");
    row("negative", llamaWith("vocab_size", -3), "vocab_size", "-3",
        "config.json: vocab_size must be a whole number from 1 to 2147483647, not -3");
    row("zero_heads", llamaWith("num_attention_heads", 0), "num_attention_heads", "0",
        "config.json: num_attention_heads must be a whole number from 1 to 2147483647, not 0");
    row("headdim0", llamaWith("head_dim", 0), "head_dim", "0",
        "config.json: head_dim must be a whole number from 1 to 2147483647, not 0");
    row("hugehidden", llamaWith("hidden_size", std::int64_t{1} << 40), "hidden_size", "1099511627776",
        "config.json: hidden_size must be a whole number from 1 to 2147483647, not 1099511627776");
    row("hugevocab", llamaWith("vocab_size", std::int64_t{1} << 40), "vocab_size", "1099511627776",
        "config.json: vocab_size must be a whole number from 1 to 2147483647, not 1099511627776");
    row("maxpos_huge", llamaWith("max_position_embeddings", std::int64_t{1} << 40), "max_position_embeddings",
        "1099511627776",
        "config.json: max_position_embeddings must be a whole number from 1 to 2147483647, not 1099511627776");
    row("just over", llamaWith("intermediate_size", std::int64_t{2147483648}), "intermediate_size", "2147483648",
        "config.json: intermediate_size must be a whole number from 1 to 2147483647, not 2147483648");
    row("unsigned_big", llamaWith("hidden_size", std::numeric_limits<std::uint64_t>::max()), "hidden_size",
        "18446744073709551615",
        "config.json: hidden_size must be a whole number from 1 to 2147483647, not 18446744073709551615");
    row("bigint", llamaWithRaw("intermediate_size", "99999999999999999999999"), "intermediate_size",
        "9.999999999999999e+22",
        "config.json: intermediate_size must be a whole number from 1 to 2147483647, not 9.999999999999999e+22");
    row("float_hidden", llamaWithRaw("hidden_size", "4096.0"), "hidden_size", "4096.0",
        "config.json: hidden_size must be a whole number from 1 to 2147483647, not 4096.0 (a float: write 4096)");
    row("float_hidden2", llamaWith("hidden_size", 4096.5), "hidden_size", "4096.5",
        "config.json: hidden_size must be a whole number from 1 to 2147483647, not 4096.5");
    row("string_hidden", llamaWith("hidden_size", "4096"), "hidden_size", "\"4096\"",
        "config.json: hidden_size must be a whole number from 1 to 2147483647, not \"4096\"");
    row("bool_int", llamaWith("num_hidden_layers", true), "num_hidden_layers", "true",
        "config.json: num_hidden_layers must be a whole number from 1 to 10000, not true");
    row("hugelayers", llamaWith("num_hidden_layers", std::int64_t{1} << 40), "num_hidden_layers", "1099511627776",
        "config.json: num_hidden_layers must be a whole number from 1 to 10000, not 1099511627776");
    row("layers1e5", llamaWith("num_hidden_layers", 100000), "num_hidden_layers", "100000",
        "config.json: num_hidden_layers must be a whole number from 1 to 10000, not 100000");

    // Sizes together.
    row("heads", llamaWith("num_attention_heads", 30), "num_attention_heads", "30",
        "config.json: num_attention_heads (30) must divide hidden_size (4096)");
    row("gpt2 heads", gpt2With({{"n_head", 10}}), "n_head", "10", "config.json: n_head (10) must divide n_embd (768)");
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
        "config.json: num_attention_heads × head_dim (32 × 1073741824 = 34359738368) must be at most 2147483647");
    row("gpt2 c_attn", gpt2With({{"n_embd", 1'000'000'002}, {"n_head", 1}}), "n_embd", "1000000002",
        "config.json: n_embd (1000000002) must be at most 715827882: attn.c_attn is 3 × n_embd wide");
    row("gpt2 n_inner", gpt2With({{"n_embd", 600'000'000}, {"n_head", 1}}), "n_inner", "2400000000",
        "config.json: n_inner is not given, so it is 4 × n_embd = 2400000000, more than 2147483647; give n_inner");
    const json huge = {{"hidden_size", 2'147'483'646}, {"num_attention_heads", 1}, {"num_key_value_heads", 1}};
    json tooMany = json::parse(readFile(dataPath("Llama-2-7b-hf.json")));
    tooMany.update(huge);
    row("too many parameters", tooMany.dump(), "hidden_size", "2147483646",
        "config.json: hidden_size (2147483646), intermediate_size (11008), vocab_size (32000) and "
        "num_hidden_layers (32) make about 5.9e+20 parameters, more than the 2^50 Headroom counts");

    // Other values.
    row("act_null", llamaWith("hidden_act", nullptr), "hidden_act", "null",
        "config.json: hidden_act must be a string such as \"silu\", not null");
    row("activation", llamaWith("hidden_act", "mish"), "hidden_act", "mish",
        "config.json: hidden_act \"mish\" is not supported; supported: gelu, gelu_new, gelu_pytorch_tanh, relu, silu");
    row("gpt2 activation", gpt2With({{"activation_function", "quick_gelu"}}), "activation_function", "quick_gelu",
        "config.json: activation_function \"quick_gelu\" is not supported");
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
    row("rope_scaling (no memory)", llamaWith("rope_scaling", {{"type", "linear"}, {"factor", 4.0}}), llama2);
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
    row("GPT-2 hidden_size for n_embd", gpt2With({{"hidden_size", 768}, {"n_embd", nullptr}}), 124'439'808);
}

void TestHfConfig::acceptedVariants()
{
    QFETCH(QByteArray, config);
    QFETCH(qulonglong, params);
    const auto n = importHfConfig(config.toStdString(), "config.json");
    QVERIFY2(n.ok(), n.ok() ? "" : n.error().message.c_str());
    const Analysis a = analyze(n.value(), Precision::Fp32);
    QVERIFY2(a.valid(), a.valid() ? "" : a.error->message.c_str());
    QCOMPARE(a.totalParams, std::uint64_t{params});
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
    QCOMPARE(analyze(byContent.value(), Precision::Fp32).totalParams, std::uint64_t{124'439'808});
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

QTEST_APPLESS_MAIN(TestHfConfig)
#include "tst_hfconfig.moc"

// Frozen weights and what autograd keeps (issue 24, item 4): RMSNorm with a frozen or trained weight,
// PEFT's LoRA Linear, and a Qwen3 decoder layer with SDPA's math path (float32, grouped-query attention)
// trained in full and with LoRA on q_proj and v_proj. Every figure is measured with torch 1.13
// (tests/data/hf/measure_layers.py, its "parts", output in tests/data/hf/measured_layers.json) and
// converted to PyTorch 2.x by the adjustment stated next to it; the bfloat16 autocast layer of
// Qwen3-0.6B, which runs flash attention (not in torch 1.13), is worked out by hand from the rules.
// T = tokens, E = hidden, per sample.
#include "NetworkBuilder.h"
#include "headroom/analysis/Analysis.h"
#include "headroom/importers/HfConfig.h"

#include <QTest>
#include <fstream>
#include <sstream>

using namespace headroom;
using namespace headroom::test;
using nlohmann::json;

namespace {

const json& measuredPart(const std::string& name)
{
    static const json all = [] {
        std::ifstream in(HEADROOM_TEST_SOURCE_DIR "/tests/data/hf/measured_layers.json", std::ios::binary);
        std::stringstream s;
        s << in.rdbuf();
        return json::parse(s.str());
    }();
    for (const auto& p : all.at("parts")) {
        if (p.at("name") == name)
            return p;
    }
    qFatal("no measured part %s", name.c_str());
    return all;
}

Network importOrDie(const std::string& text)
{
    auto n = importHfConfig(text, "config.json");
    if (!n)
        qFatal("%s", n.error().message.c_str());
    return n.value();
}

/// measure_layers.py's Qwen3-style layer: hidden 64, 4 heads of 32, 2 key/value heads, MLP 96, T 16. Two
/// layers, so that with LoRA the second one's input requires grad (the embedding is frozen).
std::string tinyQwen3()
{
    return json {
        { "model_type", "qwen3" }, { "hidden_size", 64 }, { "num_hidden_layers", 2 },
        { "num_attention_heads", 4 }, { "num_key_value_heads", 2 }, { "head_dim", 32 },
        { "intermediate_size", 96 }, { "vocab_size", 100 }, { "max_position_embeddings", 16 }
    }.dump();
}

} // namespace

class TestFrozenWeights : public QObject
{
    Q_OBJECT
private slots:
    void rmsNormKeepsWhatItsGradientsNeed_data();
    void rmsNormKeepsWhatItsGradientsNeed();
    void loraLinearMatchesPeft_data();
    void loraLinearMatchesPeft();
    void qwen3LayerWithSdpaMath_data();
    void qwen3LayerWithSdpaMath();
    void qwen3SmallLoraLayerInBf16ByHand();
};

void TestFrozenWeights::rmsNormKeepsWhatItsGradientsNeed_data()
{
    QTest::addColumn<QString>("part");
    QTest::addColumn<bool>("bf16");
    QTest::addColumn<bool>("inputGrad");
    QTest::addColumn<bool>("weightGrad");
    QTest::addColumn<qlonglong>("byHand");
    // LlamaRMSNorm over [T 16, E 64]. torch 1.13 keeps, besides the tensors PyTorch 2.x keeps, the squared
    // rows x.pow(2) (its mean.dim keeps its input), 4TE = 4,096, whenever x requires grad. 2.x keeps: for
    // x's gradient the float32 input (x itself, or a float32 copy of a bfloat16 x: 4TE) and rstd 4T = 64;
    // for the weight's gradient the normalised rows in x's dtype (4TE, or 2TE in bfloat16).
    //   x and w: 1.13 measured squared 4,096 + rstd 64 + normalised 4,096 = 8,256 (x itself kept too)
    QTest::newRow("float32, x and w")
        << "rmsnorm_float32_x1_w1" << false << true << true << qlonglong { 8'256 };
    //   x only (frozen weight): squared + rstd = 4,160 (x kept); no normalised rows
    QTest::newRow("float32, frozen w")
        << "rmsnorm_float32_x1_w0" << false << true << false << qlonglong { 4'160 };
    //   w only: the normalised rows 4,096; x, rstd and the squares are not recorded
    QTest::newRow("float32, x no grad")
        << "rmsnorm_float32_x0_w1" << false << false << true << qlonglong { 4'096 };
    //   bfloat16 x: float32 copy 4,096 + squared 4,096 + rstd 64 + normalised (bf16) 2,048 = 10,304
    QTest::newRow("bf16 x, x and w") << "rmsnorm_bfloat16_x1_w1" << true << true << true
                                     << qlonglong { 10'304 };
    QTest::newRow("bf16 x, frozen w")
        << "rmsnorm_bfloat16_x1_w0" << true << true << false << qlonglong { 8'256 };
    QTest::newRow("bf16 x, x no grad")
        << "rmsnorm_bfloat16_x0_w1" << true << false << true << qlonglong { 2'048 };
}

void TestFrozenWeights::rmsNormKeepsWhatItsGradientsNeed()
{
    QFETCH(QString, part);
    QFETCH(bool, bf16);
    QFETCH(bool, inputGrad);
    QFETCH(bool, weightGrad);
    QFETCH(qlonglong, byHand);
    const json& m = measuredPart(part.toStdString());
    QCOMPARE(m.at("per_sample_bytes").get<qlonglong>(), byHand);
    QCOMPARE(m.at("fixed_bytes").get<qlonglong>(), qlonglong { 0 });
    // PyTorch 2.x: without the squared rows when x requires grad.
    const std::uint64_t pytorch2 = static_cast<std::uint64_t>(byHand) - (inputGrad ? 4'096U : 0U);
    // Headroom: proj (Linear 64 -> 64) makes x (under bf16 autocast its output is bfloat16, as q_proj's is
    // for Qwen3's q_norm); x requires grad when proj trains. The norm's row also counts x itself when it
    // is its first keeper (a float32 x kept for its own gradient): + 4TE.
    LayerSpec proj = layer("Linear", { { "out_features", 64 }, { "bias", false } }, "proj");
    proj.frozen = !inputGrad;
    LayerSpec norm = layer("RMSNorm", json::object(), "norm");
    norm.frozen = !weightGrad;
    const Network n = network({ 16, 64 }, { proj, norm }, Loss::None);
    const Analysis a = analyze(n, bf16 ? Precision::AmpBf16 : Precision::Fp32);
    QVERIFY2(a.valid(), a.valid() ? "" : a.error->message.c_str());
    const bool keepsX = inputGrad && !bf16;
    QCOMPARE(rowNamed(a, "norm").activationBytesPerSample, pytorch2 + (keepsX ? 4'096U : 0U));
    QCOMPARE(m.at("input_kept").get<bool>(), keepsX);
}

void TestFrozenWeights::loraLinearMatchesPeft_data()
{
    QTest::addColumn<QString>("part");
    QTest::addColumn<bool>("amp");
    QTest::addColumn<bool>("inputGrad");
    QTest::addColumn<qlonglong>("byHand");
    // PEFT's lora.Linear, rank 4, on a frozen Linear(64, 96), T 16. The base keeps nothing of x (its
    // weight is frozen); lora_A keeps its input for its weight gradient, x itself in float32 (the same
    // storage as the base layer's input: not new), and lora_B keeps A's output r per position: 16 x 4 x 4
    // = 256, whether or not x requires grad.
    QTest::newRow("float32, x requires grad") << "lora_linear_fp32_x1" << false << true << qlonglong { 256 };
    QTest::newRow("float32, x does not") << "lora_linear_fp32_x0" << false << false << qlonglong { 256 };
    // bf16 autocast: lora_A's own bfloat16 copy of x 2TE = 2,048 and A's output in bfloat16 128.
    QTest::newRow("bf16 autocast, x requires grad")
        << "lora_linear_amp_x1" << true << true << qlonglong { 2'176 };
    QTest::newRow("bf16 autocast, x does not")
        << "lora_linear_amp_x0" << true << false << qlonglong { 2'176 };
}

void TestFrozenWeights::loraLinearMatchesPeft()
{
    QFETCH(QString, part);
    QFETCH(bool, amp);
    QFETCH(bool, inputGrad);
    QFETCH(qlonglong, byHand);
    const json& m = measuredPart(part.toStdString());
    QCOMPARE(m.at("per_sample_bytes").get<qlonglong>(), byHand);
    // x requires grad when it comes out of an adapted projection (proj, itself on the network's input,
    // which needs no gradient); otherwise the target reads the network's input (not counted).
    std::vector<LayerSpec> layers;
    if (inputGrad)
        layers.push_back(layer("Linear", { { "out_features", 64 }, { "bias", false } }, "proj"));
    layers.push_back(layer("Linear", { { "out_features", 96 }, { "bias", false } }, "target"));
    AnalysisOptions o;
    o.precision = amp ? Precision::AmpBf16 : Precision::Fp32;
    o.lora.rank = 4;
    o.lora.targets
        = inputGrad ? std::vector<std::string> { "proj", "target" } : std::vector<std::string> { "target" };
    const Analysis a = analyze(network({ 16, 64 }, layers, Loss::None), o);
    QVERIFY2(a.valid(), a.valid() ? "" : a.error->message.c_str());
    // In float32 lora_A keeps proj's output itself, 4TE = 4,096, first kept by target's adapter; under
    // autocast x is bfloat16 already (proj's output), so lora_A keeps it without a copy: the measured
    // 2,048 bf16 copy is x here.
    const std::uint64_t x = inputGrad ? (amp ? 2'048U : 4'096U) : 0U;
    const std::uint64_t measuredNew = static_cast<std::uint64_t>(byHand) - (amp && inputGrad ? 2'048U : 0U);
    QCOMPARE(rowNamed(a, "target").activationBytesPerSample, measuredNew + x);
}

void TestFrozenWeights::qwen3LayerWithSdpaMath_data()
{
    QTest::addColumn<QString>("part");
    QTest::addColumn<bool>("lora");
    QTest::addColumn<qlonglong>("byHand");
    QTest::addColumn<qlonglong>("squares");
    // One float32 Qwen3 layer (E 64, h 4 of d 32, g 2, F 96, T 16) as transformers 5 runs it with SDPA:
    // k and v go in with their 2 heads and enable_gqa=True; CUDA runs the math path (float32 and g < h).
    // Trained in full, measured (torch 1.13):
    //   input_layernorm: squared 4TE = 4,096, normalised 4,096, rstd 64 (x itself excluded: the input);
    //   its output, kept by q_proj, k_proj, v_proj 4,096;
    //   q_norm: q_proj's output 4 T h d = 8,192, squared 8,192, rstd 4 T h = 256, normalised 8,192;
    //   k_norm: 4,096, 4,096, 128, 4,096;
    //   math attention: q scaled (copied by matmul's reshape) 8,192, k repeated and scaled 8,192, v repeated
    //   8,192, probabilities 4 h T^2 = 4,096; o_proj's input (the heads-merged copy) 8,192;
    //   post_attention_layernorm: the residual sum 4,096, squared 4,096, rstd 64, normalised 4,096; its
    //   output (the MLP's input) 4,096; the MLP: gate output, SiLU output, up output, product 4 x 6,144
    //   = 8,256 + 4,096 + 24,832 + 12,416 + 28,672 + 8,192 + 12,352 + 4,096 + 24,576 = 127,488.
    // PyTorch 2.x keeps no squares (4,096 + 8,192 + 4,096 + 4,096 = 20,480).
    QTest::newRow("full") << "qwen3_sdpa_math_full" << false << qlonglong { 127'488 } << qlonglong { 20'480 };
    // LoRA rank 4 on q_proj and v_proj, every other weight frozen, the layer's input requiring grad:
    //   input_layernorm squared 4,096 + rstd 64 (no normalised rows: its weight is frozen); the lora_A of
    //   q_proj and v_proj keep its output 4,096 (one storage) and their A outputs 2 x 256; q_norm its input
    //   8,192, squared 8,192, rstd 256; k_norm 4,096, 4,096, 128; math attention 28,672 (o_proj is frozen:
    //   no heads-merged copy kept); post_attention_layernorm residual 4,096, squared 4,096, rstd 64; the
    //   MLP's gate output, SiLU output and up output 3 x 6,144 (down_proj is frozen: no product)
    //   = 4,160 + 4,608 + 16,640 + 8,320 + 28,672 + 8,256 + 18,432 = 89,088.
    QTest::newRow("lora q_proj, v_proj")
        << "qwen3_sdpa_math_lora_qv" << true << qlonglong { 89'088 } << qlonglong { 20'480 };
}

void TestFrozenWeights::qwen3LayerWithSdpaMath()
{
    QFETCH(QString, part);
    QFETCH(bool, lora);
    QFETCH(qlonglong, byHand);
    QFETCH(qlonglong, squares);
    const json& m = measuredPart(part.toStdString());
    QCOMPARE(m.at("per_sample_bytes").get<qlonglong>(), byHand);
    QVERIFY(m.at("input_kept").get<bool>());
    AnalysisOptions o;
    o.attention = AttentionImplementation::Sdpa;
    if (lora) {
        o.lora.rank = 4;
        o.lora.targets = { "q_proj", "v_proj" };
    }
    const Analysis a = analyze(importOrDie(tinyQwen3()), o);
    QVERIFY2(a.valid(), a.valid() ? "" : a.error->message.c_str());
    // The second layer (its input requires grad in both set-ups); Headroom charges the layer's input, kept
    // by input_layernorm's pow, to that norm: + 4TE.
    QCOMPARE(blockBytes(a, "model.layers", 1), static_cast<std::uint64_t>(byHand - squares + 4'096));
}

void TestFrozenWeights::qwen3SmallLoraLayerInBf16ByHand()
{
    // Qwen3-0.6B (hidden 1,024, 16 heads of 128, 8 key/value heads, MLP 3,072) at T 512 under bf16 autocast
    // with LoRA rank 8 on q_proj and v_proj: one decoder layer after the first, per sample. The residual
    // stream is float32 (float32 embeddings, float32 + bfloat16 sums), so each RMSNorm's output is float32.
    //   input_layernorm: x 4TE = 2,097,152 and rstd 4T = 2,048 (frozen weight: no normalised rows)
    //   q_proj, v_proj: each lora_A's own bfloat16 copy of x 2TE = 1,048,576 and A's output 2 x T x 8 =
    //     8,192 (the frozen base keeps nothing)
    //   q_norm: a float32 copy of the bfloat16 q 4 x T x 2,048 = 4,194,304, rstd 4 x T x 16 = 32,768
    //   k_norm: 4 x T x 1,024 = 2,097,152, rstd 16,384
    //   flash attention (enable_gqa): bfloat16 copies of the float32 rotary results q 2 x T x 2,048 =
    //     2,097,152 and k 1,048,576, v (v_proj's bfloat16 output with the adapter's) 1,048,576, its output
    //     2,097,152 and a logsumexp 4 x 16 x T = 32,768 (o_proj is frozen: nothing more)
    //   post_attention_layernorm: the residual sum 2,097,152 and rstd 2,048
    //   the MLP (frozen): gate output, SiLU output, up output in bfloat16 3 x 2 x T x 3,072 = 9,437,184
    const std::uint64_t byHand = 2'097'152 + 2'048 + 2 * (1'048'576 + 8'192) + 4'194'304 + 32'768 + 2'097'152
        + 16'384 + 2'097'152 + 1'048'576 + 1'048'576 + 2'097'152 + 32'768 + 2'097'152 + 2'048 + 9'437'184;
    std::ifstream in(HEADROOM_TEST_SOURCE_DIR "/tests/data/hf/Qwen3-0.6B.json", std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    json config = json::parse(s.str());
    config["max_position_embeddings"] = 512;
    AnalysisOptions o;
    o.precision = Precision::AmpBf16;
    o.lora.rank = 8;
    o.lora.targets = { "q_proj", "v_proj" };
    const Analysis a = analyze(importOrDie(config.dump()), o);
    QVERIFY2(a.valid(), a.valid() ? "" : a.error->message.c_str());
    QCOMPARE(blockBytes(a, "model.layers", 1), byHand);
    QCOMPARE(blockBytes(a, "model.layers", 27), byHand);
}

QTEST_APPLESS_MAIN(TestFrozenWeights)
#include "tst_frozenweights.moc"

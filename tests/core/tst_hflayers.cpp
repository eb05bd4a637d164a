// Hugging Face config.json import (docs/hf-import.md): one decoder layer's activations, the attention
// implementation switch, and checkpointing per decoder layer.
//
// Activation figures for one decoder layer are measured with PyTorch (tests/data/hf/measure_layers.py,
// output in tests/data/hf/measured_layers.json, read here) and converted to PyTorch 2.x on CUDA by the
// adjustments stated next to each; the fused SDPA kernels' figures (which torch 1.13 cannot run) are
// worked out by hand from their saved tensors (SDPA's math path is measured: tst_frozenweights). Per sample,
// T = sequence, E = hidden, F = MLP width, h = heads, g = key/value heads, d = head size.
#include "HfTestSupport.h"
#include "headroom/analysis/Analysis.h"
#include "headroom/importers/HfConfig.h"
#include "headroom/importers/NetworkFile.h"
#include "headroom/layers/LayerRegistry.h"
#include "headroom/model/ModelFile.h"

#include <QTest>

using namespace headroom;
using namespace headroom::test;
using nlohmann::json;

class TestHfLayers : public QObject
{
    Q_OBJECT
private slots:
    void llamaLayerMatchesPyTorch_data();
    void llamaLayerMatchesPyTorch();
    void gpt2LayerMatchesPyTorch_data();
    void gpt2LayerMatchesPyTorch();
    void sdpaLayerByHand();
    void attentionScoresAreMarked();
    void transformerEncoderLayerEager();
    void sequenceLengthOverride();
    void newFamilyLayerByHand_data();
    void newFamilyLayerByHand();
    void gemma2SoftcapsScoresAndLogits();
    void checkpointingPerDecoderLayer();
    void mixtralFlopsFollowActiveParameters();
};

void TestHfLayers::llamaLayerMatchesPyTorch_data()
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

void TestHfLayers::llamaLayerMatchesPyTorch()
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

void TestHfLayers::gpt2LayerMatchesPyTorch_data()
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

void TestHfLayers::gpt2LayerMatchesPyTorch()
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

void TestHfLayers::sdpaLayerByHand()
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

void TestHfLayers::attentionScoresAreMarked()
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

void TestHfLayers::transformerEncoderLayerEager()
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

void TestHfLayers::sequenceLengthOverride()
{
    // The config's full 4,096 tokens (the import starts at 1,024) against 512.
    const auto imported = importHfConfigFile(dataPath("Llama-2-7b-hf.json"));
    QVERIFY(imported.ok());
    const auto llama = withSequenceLength(imported.value(), 4096);
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

void TestHfLayers::newFamilyLayerByHand_data()
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

void TestHfLayers::newFamilyLayerByHand()
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

void TestHfLayers::gemma2SoftcapsScoresAndLogits()
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

void TestHfLayers::checkpointingPerDecoderLayer()
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

void TestHfLayers::mixtralFlopsFollowActiveParameters()
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

QTEST_APPLESS_MAIN(TestHfLayers)
#include "tst_hflayers.moc"

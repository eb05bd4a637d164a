// Fine-tuning strategies in the analysis: frozen layers, LoRA and QLoRA. Every figure is worked out
// by hand from the rules in docs/finetuning.md (measured on PyTorch: addmm keeps its input only for
// the weight gradient; conv and the norms keep theirs whenever they are recorded; a layer that is
// not recorded keeps nothing) and, for QLoRA, from the paper's storage formula.
#include "NetworkBuilder.h"
#include "headroom/analysis/Analysis.h"
#include "headroom/estimate/Plan.h"
#include "headroom/setup/Freeze.h"

#include <QTest>

using namespace headroom;
using namespace headroom::test;

namespace {

LayerSpec frozen(LayerSpec spec)
{
    spec.frozen = true;
    return spec;
}

LayerSpec linear(std::int64_t out, std::string name = {}, bool bias = true)
{
    return layer("Linear", { { "out_features", out }, { "bias", bias } }, std::move(name));
}

AnalysisOptions loraOptions(Precision precision, std::int64_t rank, std::vector<std::string> targets = {})
{
    AnalysisOptions o;
    o.precision = precision;
    o.lora.rank = rank;
    o.lora.targets = std::move(targets);
    return o;
}

/// [4096] -> q: Linear(4096, 4096) -> v: Linear(4096, 4096) -> head: Linear(4096, 10), cross-entropy.
Network linearStack(bool bias = true)
{
    return network({ 4096 }, { linear(4096, "q", bias), linear(4096, "v", bias), linear(10, "head") });
}

} // namespace

class TestFinetuning : public QObject
{
    Q_OBJECT
private slots:
    void settingsKeepWhatAppliesToANewNetwork();
    void frozenMlpKeepsOnlyWhatTheHeadNeeds();
    void frozenLinearAfterTrainableLayerKeepsNoInput();
    void frozenCnnBackbone();
    void frozenRepeatIsInherited();
    void frozenWeightsAreNotCachedByAutocast();
    void freezeByName();
    void freezeByNameErrors_data();
    void freezeByNameErrors();
    void freezeHintListsDottedNames();
    void loraParameters();
    void loraActivationsAndFlops();
    void loraTargetsMatchNameEnds();
    void loraUnknownTargetIsALocatedError();
    void loraBadOptions();
    void loraDropoutKeepsDroppedCopyAndMask();
    void loraUnderAutocast();
    void qloraStoresBaseAsNf4();
};

void TestFinetuning::frozenMlpKeepsOnlyWhatTheHeadNeeds()
{
    // [784] -> fc1 Linear(784, 256) frozen -> ReLU -> fc2 Linear(256, 128) frozen -> ReLU -> head Linear(128,
    // 10).
    const auto build = [](bool freeze) {
        auto fc1 = linear(256, "fc1");
        auto fc2 = linear(128, "fc2");
        fc1.frozen = freeze;
        fc2.frozen = freeze;
        return network({ 784 }, { fc1, layer("ReLU"), fc2, layer("ReLU"), linear(10, "head") });
    };
    // Trained: relu1 keeps its output 256 x 4 = 1,024, relu2 128 x 4 = 512 (fc2 and head keep the same
    // storages), log_softmax 10 x 4 = 40: 1,576.
    const Analysis full = analyze(build(false), Precision::Fp32);
    QCOMPARE(full.activationBytesPerSample, std::uint64_t { 1576 });
    // Frozen: nothing before the head is recorded (the input does not require grad and no parameter
    // trains), so only the head's input (relu2's output, 512) and the loss (40) are kept.
    const Analysis a = analyze(build(true), Precision::Fp32);
    QVERIFY(a.valid());
    QCOMPARE(a.activationBytesPerSample, std::uint64_t { 552 });
    QCOMPARE(a.uncheckpointedActivationBytesPerSample, std::uint64_t { 552 });
    // fc1 784 x 256 + 256 = 200,960; fc2 256 x 128 + 128 = 32,896; head 128 x 10 + 10 = 1,290.
    QCOMPARE(a.totalParams, std::uint64_t { 235146 });
    QCOMPARE(a.trainableParams, std::uint64_t { 1290 });
    QCOMPARE(a.trainableParameterBytes, std::uint64_t { 1290 * 4 });
    QCOMPARE(a.trainableTensorElements, (std::vector<std::uint64_t> { 1280, 10 }));
    QVERIFY(a.rows[0].frozen);
    QVERIFY(!a.rows[1].frozen); // ReLU: no parameters
    QVERIFY(a.rows[2].frozen);
    QVERIFY(!a.rows[4].frozen);
    QCOMPARE(a.rows[0].trainableParams, std::uint64_t { 0 });
    // Backward: only the head's weight gradient (its input needs none): 2 x 128 x 10 = 2,560 FLOPs.
    QCOMPARE(a.backwardFlopsPerSample, std::uint64_t { 2560 });
    // Trained: fc1 weight only (the input needs no gradient) 2 x 784 x 256 = 401,408; relu1 256;
    // fc2 both 2 x (2 x 256 x 128) = 131,072; relu2 128; head both 2 x 2,560 = 5,120.
    QCOMPARE(full.backwardFlopsPerSample, std::uint64_t { 401408 + 256 + 131072 + 128 + 5120 });
    // The gradients alive in backward: only the head's output gradient (its input needs none), 40.
    QCOMPARE(a.transientBytesPerSample, std::uint64_t { 40 });
    QCOMPARE(a.recomputeFlopsPerSample, std::uint64_t { 0 });
}

void TestFinetuning::frozenLinearAfterTrainableLayerKeepsNoInput()
{
    // [784] -> fc1 Linear(784, 256) -> GELU -> head Linear(256, 10) frozen. The head's input requires
    // grad but its weight does not: mm keeps the weight (a parameter) and not the input. GELU keeps its
    // input (fc1's output, 1,024); the loss 40: 1,064 (trained head: + GELU's output 1,024 = 2,088).
    const Network n = network({ 784 }, { linear(256, "fc1"), layer("GELU"), frozen(linear(10, "head")) });
    const Analysis a = analyze(n, Precision::Fp32);
    QVERIFY(a.valid());
    QCOMPARE(a.activationBytesPerSample, std::uint64_t { 1064 });
    QCOMPARE(a.rows[2].activationBytesPerSample, std::uint64_t { 0 });
    QVERIFY(a.rows[2].frozen);
    // fc1 weight gradient 2 x 784 x 256 = 401,408; GELU input gradient 8 x 256 = 2,048; head input
    // gradient 2 x 256 x 10 = 5,120 (no weight gradient).
    QCOMPARE(a.backwardFlopsPerSample, std::uint64_t { 401408 + 2048 + 5120 });
    const Network trained = network({ 784 }, { linear(256, "fc1"), layer("GELU"), linear(10, "head") });
    QCOMPARE(analyze(trained, Precision::Fp32).activationBytesPerSample, std::uint64_t { 2088 });
}

void TestFinetuning::frozenCnnBackbone()
{
    // [3, 8, 8] -> Conv2d(3, 4, 3, padding 1) -> BatchNorm2d(4) -> ReLU -> Flatten -> Linear(256, 10).
    const auto build = [](bool freeze) {
        auto conv
            = layer("Conv2d", { { "out_channels", 4 }, { "kernel_size", 3 }, { "padding", 1 } }, "conv");
        auto bn = layer("BatchNorm2d", {}, "bn");
        conv.frozen = freeze;
        bn.frozen = freeze;
        return network({ 3, 8, 8 }, { conv, bn, layer("ReLU"), layer("Flatten"), linear(10, "fc") });
    };
    // Trained: conv keeps the network input (input, not activations); BN keeps conv's output
    // 4 x 8 x 8 x 4 = 1,024 plus save_mean/save_invstd 2 x 4 x 4 = 32 fixed; ReLU its output 1,024 (the
    // Linear keeps the same storage through Flatten's view); log_softmax 40: 2,088 + 32 fixed.
    const Analysis full = analyze(build(false), Precision::Fp32);
    QCOMPARE(full.activationBytesPerSample, std::uint64_t { 2088 });
    QCOMPARE(full.activationBytesFixed, std::uint64_t { 32 });
    // Frozen backbone: conv, BN and ReLU are not recorded (measured: BatchNorm keeps nothing, not even
    // its statistics); the Linear keeps ReLU's output 1,024; the loss 40.
    const Analysis a = analyze(build(true), Precision::Fp32);
    QCOMPARE(a.activationBytesPerSample, std::uint64_t { 1064 });
    QCOMPARE(a.activationBytesFixed, std::uint64_t { 0 });
    QCOMPARE(a.uncheckpointedActivationBytesFixed, std::uint64_t { 0 });
    // conv 3 x 4 x 9 + 4 = 112, BN 8, Linear 2,570; BN's buffers stay (4 + 4 + 1).
    QCOMPARE(a.totalParams, std::uint64_t { 2690 });
    QCOMPARE(a.trainableParams, std::uint64_t { 2570 });
    QCOMPARE(a.bufferElements, std::uint64_t { 9 });
    QVERIFY(a.rows[0].frozen && a.rows[1].frozen);
}

void TestFinetuning::frozenRepeatIsInherited()
{
    // The same backbone as a frozen Repeat of 2 x [Conv2d(4, 3, padding 1), ReLU]: every child is frozen.
    LayerSpec block = repeat("backbone", 2,
        { layer("Conv2d", { { "out_channels", 4 }, { "kernel_size", 3 }, { "padding", 1 } }, "conv"),
            layer("ReLU", {}, "relu") });
    block.frozen = true;
    const Analysis a
        = analyze(network({ 4, 8, 8 }, { block, layer("Flatten"), linear(10, "fc") }), Precision::Fp32);
    QVERIFY(a.valid());
    // rows: backbone, backbone.0.conv, backbone.0.relu, backbone.1.conv, backbone.1.relu, Flatten, fc, loss.
    QVERIFY(a.rows[0].frozen); // the block header: its layers have parameters, none trains
    QVERIFY(a.rows[1].frozen && a.rows[3].frozen);
    // conv 4 x 4 x 9 + 4 = 148 each; fc 256 x 10 + 10 = 2,570.
    QCOMPARE(a.totalParams, std::uint64_t { 2 * 148 + 2570 });
    QCOMPARE(a.trainableParams, std::uint64_t { 2570 });
    // fc keeps the last ReLU's output 4 x 8 x 8 x 4 = 1,024; the loss 40.
    QCOMPARE(a.activationBytesPerSample, std::uint64_t { 1064 });
}

void TestFinetuning::frozenWeightsAreNotCachedByAutocast()
{
    // Autocast caches a half copy only of weights that require grad (autocast_mode.cpp: can_try_cache
    // needs arg.requires_grad()); a frozen Linear whose input needs no gradient casts transiently.
    // [784] -> fc1 Linear(784, 256) frozen -> ReLU -> head Linear(256, 10): the head's 2,570 x 2 = 5,140.
    const Network n = network({ 784 }, { frozen(linear(256, "fc1")), layer("ReLU"), linear(10, "head") });
    QCOMPARE(analyze(n, Precision::AmpFp16).autocastWeightCopyBytes, std::uint64_t { 5140 });
    // A frozen head behind a trained layer: backward keeps its half weight (mm saves mat2 for the input
    // gradient), so it counts: fc1 200,960 x 2 + head 2,570 x 2 = 407,060.
    const Network m = network({ 784 }, { linear(256, "fc1"), layer("ReLU"), frozen(linear(10, "head")) });
    QCOMPARE(analyze(m, Precision::AmpFp16).autocastWeightCopyBytes, std::uint64_t { 407060 });
}

void TestFinetuning::freezeByName()
{
    // The frozenRepeatIsInherited network, frozen by name instead of in the file.
    Network n = network({ 4, 8, 8 },
        { repeat("backbone", 2,
              { layer("Conv2d", { { "out_channels", 4 }, { "kernel_size", 3 }, { "padding", 1 } }, "conv"),
                  layer("ReLU", {}, "relu") }),
            layer("Flatten"), linear(10, "fc") });
    const auto whole = freezeLayers(n, { "backbone" });
    QVERIFY(whole.ok());
    QCOMPARE(whole.value(), std::size_t { 1 });
    const Analysis a = analyze(n, Precision::Fp32);
    QCOMPARE(a.trainableParams, std::uint64_t { 2570 });
    QCOMPARE(a.activationBytesPerSample, std::uint64_t { 1064 });

    // A layer inside the block, in every iteration, and a top-level layer; a repeated name counts once.
    Network m = network({ 4, 8, 8 },
        { repeat("backbone", 2,
              { layer("Conv2d", { { "out_channels", 4 }, { "kernel_size", 3 }, { "padding", 1 } }, "conv"),
                  layer("ReLU", {}, "relu") }),
            layer("Flatten"), linear(10, "fc") });
    const auto some = freezeLayers(m, { "backbone.conv", "fc", "fc" });
    QVERIFY(some.ok());
    QCOMPARE(some.value(), std::size_t { 2 });
    QVERIFY(m.layers[0].children[0].frozen && !m.layers[0].frozen && m.layers[2].frozen);
    QCOMPARE(analyze(m, Precision::Fp32).trainableParams, std::uint64_t { 0 });
}

void TestFinetuning::freezeByNameErrors_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<QString>("message");
    QTest::newRow("unknown") << "encoder"
                             << R"(no layer is named "encoder" (top-level layers: backbone, fc))";
    QTest::newRow("one iteration")
        << "backbone.1.conv"
        << R"(cannot freeze "backbone.1.conv" alone: it is one iteration of a Repeat block, whose iterations share )"
           R"(one description; freeze "backbone.conv" (every iteration) or split the block)";
    QTest::newRow("one whole iteration") << "backbone.0"
                                         << R"(freeze "backbone" (every iteration))";
    QTest::newRow("empty") << ""
                           << R"(no layer is named "")";
}

void TestFinetuning::freezeByNameErrors()
{
    QFETCH(QString, name);
    QFETCH(QString, message);
    Network n = network({ 4, 8, 8 },
        { repeat("backbone", 2, { layer("Conv2d", { { "out_channels", 4 }, { "kernel_size", 3 } }, "conv") }),
            layer("Flatten"), linear(10, "fc") });
    const Network before = n;
    const auto result = freezeLayers(n, { "fc", name.toStdString() });
    QVERIFY(!result.ok());
    QVERIFY2(
        QString::fromStdString(result.error().message).contains(message), result.error().message.c_str());
    QCOMPARE(result.error().location, name.toStdString());
    QVERIFY2(n == before, "a failed freeze leaves the network as it was");
}

void TestFinetuning::freezeHintListsDottedNames()
{
    // Hugging Face imports name their top-level layers with dots ("model.embed_tokens"); the hint lists
    // them all, not only lm_head.
    Network n = network({ 8 },
        { layer("Embedding", { { "num_embeddings", 100 }, { "embedding_dim", 16 } }, "model.embed_tokens"),
            repeat("model.layers", 2, { layer("RMSNorm", {}, "input_layernorm") }),
            layer("RMSNorm", {}, "model.norm"), linear(100, "lm_head") },
        Loss::CrossEntropy, DType::Int64);
    const auto result = freezeLayers(n, { "model.embed" });
    QVERIFY(!result.ok());
    QCOMPARE(QString::fromStdString(result.error().message),
        QStringLiteral(
            R"(no layer is named "model.embed" (top-level layers: model.embed_tokens, model.layers, )"
            R"(model.norm, lm_head))"));
}

void TestFinetuning::loraParameters()
{
    // r = 8 on Linear(4096, 4096): A 8 x 4,096 + B 4,096 x 8 = 65,536 adapter parameters. Empty targets:
    // every Linear but the output head (the last Linear), so q and v: 131,072.
    const Analysis a = analyze(linearStack(), loraOptions(Precision::Fp32, 8));
    QVERIFY2(a.valid(), a.error ? a.error->message.c_str() : "");
    QCOMPARE(a.loraParams, std::uint64_t { 131072 });
    // Base: 2 x (4,096 x 4,096 + 4,096) + 4,096 x 10 + 10 = 33,603,594.
    QCOMPARE(a.totalParams, std::uint64_t { 33603594 + 131072 });
    QCOMPARE(a.trainableParams, std::uint64_t { 131072 });
    QCOMPARE(a.trainableParameterBytes, std::uint64_t { 131072 * 4 });
    QCOMPARE(a.trainableTensorElements, (std::vector<std::uint64_t> { 32768, 32768, 32768, 32768 }));
    QCOMPARE(a.parameterBytes, std::uint64_t { (33603594 + 131072) * 4 });
    QCOMPARE(a.rows[0].loraParams, std::uint64_t { 65536 });
    QCOMPARE(a.rows[0].trainableParams, std::uint64_t { 65536 });
    QCOMPARE(a.rows[0].params, std::uint64_t { 4096 * 4096 + 4096 + 65536 });
    QVERIFY(!a.rows[0].frozen);
    QCOMPARE(a.rows[2].loraParams, std::uint64_t { 0 });
    QVERIFY(a.rows[2].frozen); // PEFT freezes everything that is not an adapter
}

void TestFinetuning::loraActivationsAndFlops()
{
    // q: x is the network input (A keeps it: not activations); B keeps A's output 8 x 4 = 32.
    // v: its base weight is frozen, so the base keeps nothing; A keeps x = q's output 4,096 x 4 = 16,384;
    // B keeps A's output 32. head (frozen, input requires grad): nothing. Loss 40. Total 16,488.
    const Analysis a = analyze(linearStack(), loraOptions(Precision::Fp32, 8));
    QCOMPARE(a.activationBytesPerSample, std::uint64_t { 16488 });
    QCOMPARE(a.rows[0].activationBytesPerSample, std::uint64_t { 32 });
    QCOMPARE(a.rows[1].activationBytesPerSample, std::uint64_t { 16416 });
    // Forward: base 2 x 4,096 x 4,096 = 33,554,432 and adapters 2 x 8 x (4,096 + 4,096) = 131,072 per
    // adapted layer; head 2 x 4,096 x 10 = 81,920.
    QCOMPARE(a.forwardFlopsPerSample, std::uint64_t { 2 * (33554432 + 131072) + 81920 });
    // Backward: q (x needs no gradient): A and B weight gradients 65,536 each + B's input gradient
    // 65,536 = 196,608. v: base input gradient 33,554,432 + adapters 4 x 65,536 = 262,144. head:
    // input gradient 81,920.
    QCOMPARE(a.backwardFlopsPerSample, std::uint64_t { 196608 + 33554432 + 262144 + 81920 });
}

void TestFinetuning::loraTargetsMatchNameEnds()
{
    // PEFT: a target matches the full name or its end after a dot.
    const Network n = network({ 64 },
        { repeat("layers", 2, { linear(64, "q_proj"), linear(64, "v_proj") }), linear(10, "lm_head") });
    const Analysis a = analyze(n, loraOptions(Precision::Fp32, 4, { "q_proj" }));
    QVERIFY2(a.valid(), a.error ? a.error->message.c_str() : "");
    // 2 adapted layers x 4 x (64 + 64) = 1,024.
    QCOMPARE(a.loraParams, std::uint64_t { 1024 });
    const Analysis full = analyze(n, loraOptions(Precision::Fp32, 4, { "layers.1.v_proj", "lm_head" }));
    // v_proj of the second repetition 512 + lm_head 4 x (64 + 10) = 296.
    QCOMPARE(full.loraParams, std::uint64_t { 808 });
}

void TestFinetuning::loraUnknownTargetIsALocatedError()
{
    const Network n = network({ 64 }, { linear(64, "q_proj"), linear(10, "head") });
    const Analysis a = analyze(n, loraOptions(Precision::Fp32, 4, { "q_proj", "proj" }));
    QVERIFY(!a.valid());
    QCOMPARE(a.error->location, std::string("lora.targets[1]"));
    QVERIFY2(a.error->message.find("\"proj\" matches no Linear layer") != std::string::npos,
        a.error->message.c_str());
}

void TestFinetuning::loraBadOptions()
{
    const Network n = linearStack();
    auto o = loraOptions(Precision::Fp32, -1);
    QCOMPARE(analyze(n, o).error->location, std::string("lora.rank"));
    o = loraOptions(Precision::Fp32, 8);
    o.lora.dropout = 1.0;
    QCOMPARE(analyze(n, o).error->location, std::string("lora.dropout"));
    o.lora.dropout = 0.0;
    o.lora.targets = { "" };
    QCOMPARE(analyze(n, o).error->location, std::string("lora.targets[0]"));
}

void TestFinetuning::loraDropoutKeepsDroppedCopyAndMask()
{
    // lora_dropout 0.1: A keeps the dropped copy of x (4,096 x 4 = 16,384 per adapted layer); the bool
    // mask (4,096) only where x requires grad (v, not q, whose input is the network input).
    // q 16,384 + 32; v 4,096 + 16,384 + 32; loss 40: 36,968.
    auto o = loraOptions(Precision::Fp32, 8);
    o.lora.dropout = 0.1;
    QCOMPARE(analyze(linearStack(), o).activationBytesPerSample, std::uint64_t { 36968 });
}

void TestFinetuning::loraUnderAutocast()
{
    // amp-bf16: A computes in bf16. q: A keeps a bf16 copy of the float32 input 4,096 x 2 = 8,192 and
    // B its output 8 x 2 = 16; v: x is q's bf16 output (8,192, kept by A) and 16; loss 40: 16,456.
    const Analysis a = analyze(linearStack(), loraOptions(Precision::AmpBf16, 8));
    QCOMPARE(a.activationBytesPerSample, std::uint64_t { 16456 });
    // Cached half copies: the float32 adapters 131,072 x 2 = 262,144; v's and the head's frozen weights,
    // which backward keeps because their inputs require grad: (16,781,312 + 40,970) x 2 = 33,644,564;
    // q's base weight is cast transiently (its input needs no gradient).
    QCOMPARE(a.autocastWeightCopyBytes, std::uint64_t { 262144 + 33644564 });
}

void TestFinetuning::qloraStoresBaseAsNf4()
{
    // QLoRA on [4096] -> q: Linear(4096, 4096, bias=false) -> head: Linear(4096, 10), amp-bf16.
    // NF4 (Dettmers et al. 2023 section 3): 16,777,216 weights x 4 bits = 8,388,608 bytes; one 8-bit
    // absmax per 64 weights: 262,144 bytes; one float32 per 256 blocks: 1,024 x 4 = 4,096 bytes.
    // Total 8,654,848 = 16,777,216 x (4 + 8/64 + 32/16384) / 8.
    const Network n = network({ 4096 }, { linear(4096, "q", false), linear(10, "head") });
    auto o = loraOptions(Precision::AmpBf16, 8);
    o.lora.quantizeBase = true;
    const Analysis a = analyze(n, o);
    QVERIFY2(a.valid(), a.error ? a.error->message.c_str() : "");
    // Adapters 65,536 in bf16 = 131,072 bytes; the head keeps float32: 40,970 x 4 = 163,880.
    QCOMPARE(a.parameterBytes, std::uint64_t { 8654848 + 131072 + 163880 });
    QCOMPARE(a.trainableParameterBytes, std::uint64_t { 131072 });
    QCOMPARE(a.trainableParams, std::uint64_t { 65536 });
    QCOMPARE(a.totalParams, std::uint64_t { 16777216 + 65536 + 40970 });
    // No cached copies of NF4 weights or bf16 adapters; the frozen head behind q keeps its half copy
    // for the input gradient: 40,970 x 2 = 81,940.
    QCOMPARE(a.autocastWeightCopyBytes, std::uint64_t { 81940 });
    // amp-fp16: adapters in float16, still 2 bytes each.
    o.precision = Precision::AmpFp16;
    QCOMPARE(analyze(n, o).trainableParameterBytes, std::uint64_t { 131072 });
    // Pure fp32: adapters in bf16 (PEFT casts x to lora_A's dtype): A keeps a bf16 copy of x 8,192 and
    // B A's bf16 output 16; loss 40.
    o.precision = Precision::Fp32;
    const Analysis fp32 = analyze(n, o);
    QCOMPARE(fp32.trainableParameterBytes, std::uint64_t { 131072 });
    QCOMPARE(fp32.parameterBytes, std::uint64_t { 8654848 + 131072 + 163880 });
    QCOMPARE(fp32.activationBytesPerSample, std::uint64_t { 8192 + 16 + 40 });
}

void TestFinetuning::settingsKeepWhatAppliesToANewNetwork()
{
    // Issue 35: LoRA on a Llama's q_proj and v_proj, then a ViT-like model opened in the same window:
    // "LoRA target 1 "q_proj" matches no Linear layer" and no estimate. The set-up keeps the targets
    // that name a Linear layer of the new network (inside Repeat blocks too) and drops the others.
    const Network vit = network({ 16 },
        { repeat("blocks", 2,
              { layer("Linear", { { "out_features", 16 } }, "qkv"),
                  layer("Linear", { { "out_features", 16 } }, "proj"), layer("ReLU") }),
            layer("Linear", { { "out_features", 4 } }, "head") });
    PlanSettings s;
    s.lora.rank = 8;
    s.lora.targets = { "q_proj", "proj", "v_proj" };
    DroppedSettings dropped = keepWhatApplies(s, vit);
    QCOMPARE(dropped.loraTargets, (std::vector<std::string> { "q_proj", "v_proj" }));
    QCOMPARE(s.lora.targets, std::vector<std::string> { "proj" });
    QCOMPARE(s.lora.rank, std::int64_t { 8 });
    Plan plan;
    static_cast<PlanSettings&>(plan) = s;
    plan.network = vit;
    QVERIFY(!analyzePlan(plan, s.analysisOptions()).error);
    // None left: every Linear but the head (PEFT's all-linear); the set-up still estimates.
    s.lora.targets = { "q_proj", "v_proj" };
    dropped = keepWhatApplies(s, vit);
    QCOMPARE(dropped.loraTargets.size(), std::size_t { 2 });
    QVERIFY(s.lora.targets.empty());
    QVERIFY(s.lora.enabled());
    // Nothing to drop: targets that all apply, LoRA off, or no targets at all.
    s.lora.targets = { "qkv", "blocks.1.proj" };
    QVERIFY(keepWhatApplies(s, vit).empty());
    QCOMPARE(s.lora.targets.size(), std::size_t { 2 });
    s.lora.rank = 0;
    s.lora.targets = { "q_proj" };
    QVERIFY(keepWhatApplies(s, vit).empty());
    QCOMPARE(s.lora.targets, std::vector<std::string> { "q_proj" });
}

QTEST_APPLESS_MAIN(TestFinetuning)
#include "tst_finetuning.moc"

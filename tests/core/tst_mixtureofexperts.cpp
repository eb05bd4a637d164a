// Mixture of experts and latent attention as layer kinds (docs/hf-import.md, "Mixture of experts"):
// what they keep for backward, against small blocks written op for op after transformers' modeling code
// and measured with torch (tests/data/hf/measure_moe.py, output tests/data/hf/measured_moe.json); the
// routing imbalance; FLOPs of the active experts only; LoRA and QLoRA on the experts' projections.
// Every other figure is worked out by hand in the comments. T = tokens, H = hidden, F = an expert's
// width, E = experts, k = experts per token, A = k T assignments.
#include "NetworkBuilder.h"
#include "headroom/analysis/Analysis.h"

#include <QTest>
#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>

using namespace headroom;
using namespace headroom::test;
using nlohmann::json;

namespace {

json measurements()
{
    std::ifstream in(HEADROOM_TEST_SOURCE_DIR "/tests/data/hf/measured_moe.json", std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return json::parse(s.str());
}

const json& measuredBlock(const json& all, const std::string& name)
{
    for (const auto& block : all.at("blocks")) {
        if (block.at("name") == name)
            return block;
    }
    qFatal("no measured block %s", name.c_str());
    return all;
}

LayerSpec linear(std::int64_t out, std::string name, std::vector<std::string> inputs = {})
{
    return layer(
        "Linear", { { "out_features", out }, { "bias", false } }, std::move(name), std::move(inputs));
}

/// The shared expert of Qwen-MoE and DeepSeek as ordinary layers on the block input, as the importer
/// builds it: gate_proj, up_proj, SiLU, *, down_proj.
std::vector<LayerSpec> sharedExpert(const std::string& prefix, std::int64_t width)
{
    return { linear(width, prefix + "gate_proj", { "input" }), linear(width, prefix + "up_proj", { "input" }),
        layer("SiLU", {}, prefix + "act_fn", { prefix + "gate_proj" }),
        layer("Mul", {}, prefix + "act_fn_times_up", { prefix + "act_fn", prefix + "up_proj" }),
        linear(64, prefix + "down_proj") };
}

/// measure_moe.py's blocks: T 16, H 64, float32.
Network mixtralBlock()
{
    return network({ 16, 64 },
        { layer("MixtureOfExperts",
            { { "num_experts", 4 }, { "num_experts_per_tok", 2 }, { "intermediate_size", 96 },
                { "expert_names", "w1/w3/w2" } },
            "block_sparse_moe") },
        Loss::None);
}

Network qwen2MoeBlock()
{
    std::vector<LayerSpec> layers { layer("MixtureOfExperts",
        { { "num_experts", 8 }, { "num_experts_per_tok", 2 }, { "intermediate_size", 48 },
            { "norm_topk_prob", false } },
        "mlp") };
    for (auto& l : sharedExpert("mlp.shared_expert.", 128))
        layers.push_back(std::move(l));
    layers.push_back(linear(1, "mlp.shared_expert_gate", { "input" }));
    layers.push_back(layer("Sigmoid", {}, "mlp.shared_expert_gate_sigmoid"));
    layers.push_back(layer("Mul", {}, "mlp.shared_expert_gated",
        { "mlp.shared_expert_gate_sigmoid", "mlp.shared_expert.down_proj" }));
    layers.push_back(layer("Add", {}, "mlp.routed_plus_shared", { "mlp", "mlp.shared_expert_gated" }));
    return network({ 16, 64 }, std::move(layers), Loss::None);
}

Network deepseekBlock()
{
    std::vector<LayerSpec> layers { layer("MixtureOfExperts",
        { { "num_experts", 8 }, { "num_experts_per_tok", 2 }, { "intermediate_size", 32 },
            { "router", "sigmoid" } },
        "mlp") };
    for (auto& l : sharedExpert("mlp.shared_experts.", 32))
        layers.push_back(std::move(l));
    layers.push_back(layer("Add", {}, "mlp.routed_plus_shared", { "mlp", "mlp.shared_experts.down_proj" }));
    return network({ 16, 64 }, std::move(layers), Loss::None);
}

/// The Mixtral block behind a projection "proj", so that its input requires grad when proj trains, and
/// an "lm_head" after it (LoRA's default targets leave the last Linear alone).
Network projectedMixtralBlock()
{
    Network n = mixtralBlock();
    n.layers.insert(n.layers.begin(), linear(64, "proj"));
    n.layers.push_back(linear(64, "lm_head"));
    return n;
}

AnalysisOptions withImbalance(double imbalance, Precision precision = Precision::Fp32)
{
    AnalysisOptions o;
    o.precision = precision;
    o.moeImbalance = imbalance;
    return o;
}

AnalysisOptions lora(
    std::vector<std::string> targets, Precision precision = Precision::Fp32, bool quantize = false)
{
    AnalysisOptions o;
    o.precision = precision;
    o.lora.rank = 4;
    o.lora.targets = std::move(targets);
    o.lora.quantizeBase = quantize;
    return o;
}

} // namespace

class TestMixtureOfExperts : public QObject
{
    Q_OBJECT
private slots:
    void blockMatchesPyTorch_data();
    void blockMatchesPyTorch();
    void keptBytesDoNotDependOnRouting();
    void imbalanceScalesTheBusiestExpertsBackward();
    void imbalanceRange_data();
    void imbalanceRange();
    void routingWarningReachesTheAnalysis();
    void flopsCountActiveExpertsOnly();
    void autocastKeepsHalfCopiesPerProjection();
    void sigmoidRouterInPureHalf();
    void loraTargetsTheExperts();
    void loraAdaptsOneExpertByItsFullName();
    void qloraStoresExpertWeightsInFourBits();
    void groupedBlocksMatchPyTorch_data();
    void groupedBlocksMatchPyTorch();
    void groupedExpertsIgnoreRoutingAndAutocast();
    void badAttributes_data();
    void badAttributes();
    void latentAttentionByHand_data();
    void latentAttentionByHand();
};

void TestMixtureOfExperts::blockMatchesPyTorch_data()
{
    QTest::addColumn<QString>("block");
    QTest::addColumn<qlonglong>("byHand");
    // Mixtral-style, E 4, k 2, F 96, balanced routing (every expert 2 T / 4 of the tokens). Per
    // assignment (A = 32): the gathered token 4H = 256; w1's output (SiLU's input), SiLU's output and
    // w3's output (the mul's operands) and their product (w2's input) 4 x 4F = 1,536; w2's output
    // (kept by the mul with the routing weight) 4H = 256; the weighted output (index_add_'s source)
    // 4H = 256; the routing weight 4; the [n, 2] int64 slot and token indices 16: 2,324 x 32 = 74,368.
    // Per token: softmax 4E = 16, top-k indices 8k = 16, the renormalised weights 4k = 8 and their sum
    // 4: 44 x 16 = 704. Total 75,072.
    QTest::newRow("mixtral") << "mixtral" << qlonglong { 75'072 };
    // Qwen2-MoE-style, E 8, k 2, F 48, no renormalising, a shared expert of 128 behind a sigmoid gate.
    // Per assignment 256 + 4 x 4 x 48 + 256 + 256 + 4 + 16 = 1,556 x 32 = 49,792; per token softmax 32 +
    // indices 16 = 48 x 16 = 768; the shared expert's gate output, SiLU output, up output and product
    // 4 x 4 x 128 = 2,048 x 16 = 32,768, its output (kept by the gate's mul) 4H = 256 x 16 = 4,096, the
    // sigmoid's output 4 x 16 = 64. Total 87,488.
    QTest::newRow("qwen2_moe") << "qwen2_moe" << qlonglong { 87'488 };
    // DeepSeek-V3-style, E 8, k 2, F 32, sigmoid router, renormalised, a shared expert of 32. Per
    // assignment 256 + 4 x 4 x 32 + 256 + 256 + 4 + 16 = 1,300 x 32 = 41,600; per token sigmoid scores
    // 4E = 32, gather's indices 16, renormalised weights 8 and sum 4 = 60 x 16 = 960; the shared expert
    // 4 x 4 x 32 = 512 x 16 = 8,192. Total 50,752.
    QTest::newRow("deepseek_v3") << "deepseek_v3" << qlonglong { 50'752 };
}

void TestMixtureOfExperts::blockMatchesPyTorch()
{
    QFETCH(QString, block);
    QFETCH(qlonglong, byHand);
    const json all = measurements();
    const json& m = measuredBlock(all, block.toStdString());
    // Measured at batch 2 and 3: the difference is the per-sample part.
    QCOMPARE(m.at("per_sample_bytes").get<qlonglong>(), byHand);
    const std::string name = block.toStdString();
    const Network n = name == "mixtral" ? mixtralBlock()
        : name == "qwen2_moe"           ? qwen2MoeBlock()
                                        : deepseekBlock();
    const Analysis a = analyze(n, Precision::Fp32);
    QVERIFY2(a.valid(), a.valid() ? "" : a.error->message.c_str());
    // The issue asks for 3 %; the rules reproduce the measurement exactly.
    const double measuredBytes = static_cast<double>(byHand);
    QVERIFY(
        std::abs(static_cast<double>(a.activationBytesPerSample) - measuredBytes) <= 0.03 * measuredBytes);
    QCOMPARE(a.activationBytesPerSample, std::uint64_t(byHand));
    // torch 1.13 measured a batch-independent 8 bytes for DeepSeek's block: the 0-dim float64 scalar
    // mul(Tensor, Scalar) wraps routed_scaling_factor in. Not counted.
    QVERIFY(m.at("fixed_bytes").get<int>() <= 8);
    QCOMPARE(a.activationBytesFixed, std::uint64_t { 0 });
}

void TestMixtureOfExperts::keptBytesDoNotDependOnRouting()
{
    const json all = measurements();
    const json& balanced = measuredBlock(all, "mixtral");
    const json& skewed = measuredBlock(all, "mixtral_skewed");
    // Skewed: every token on experts 0 and 1 (the busiest gets T tokens, twice an even share).
    QVERIFY(skewed.at("assignments_per_expert_batch2") == (json { 32, 32, 0, 0 }));
    QVERIFY(balanced.at("assignments_per_expert_batch2") == (json { 16, 16, 16, 16 }));
    QCOMPARE(
        skewed.at("per_sample_bytes").get<qlonglong>(), balanced.at("per_sample_bytes").get<qlonglong>());
    const Analysis even = analyze(mixtralBlock(), withImbalance(1.0));
    const Analysis busiest = analyze(mixtralBlock(), withImbalance(2.0));
    QVERIFY(even.valid() && busiest.valid());
    QCOMPARE(busiest.activationBytesPerSample, even.activationBytesPerSample);
    QCOMPARE(busiest.forwardFlopsPerSample, even.forwardFlopsPerSample);
}

void TestMixtureOfExperts::imbalanceScalesTheBusiestExpertsBackward()
{
    // The backward transient of the Mixtral block (its input is the network's: no input gradient): the
    // output gradient 4 T H = 4,096, IndexBackward's zero tensor of the input's size 4,096, and the
    // busiest expert's gradients (3F + 2H) x 4 = 1,664 bytes per row. Balanced: f k T / E = 8 rows,
    // 13,312: 21,504. Imbalance 2 (every token on that expert): 16 rows, 26,624: 34,816. 1.5: 12 rows.
    QCOMPARE(analyze(mixtralBlock(), withImbalance(1.0)).transientBytesPerSample, std::uint64_t { 21'504 });
    QCOMPARE(analyze(mixtralBlock(), withImbalance(2.0)).transientBytesPerSample, std::uint64_t { 34'816 });
    QCOMPARE(analyze(mixtralBlock(), withImbalance(1.5)).transientBytesPerSample, std::uint64_t { 28'160 });
}

void TestMixtureOfExperts::imbalanceRange_data()
{
    QTest::addColumn<double>("imbalance");
    QTest::addColumn<QString>("location");
    QTest::addColumn<QString>("message");
    QTest::newRow("balanced") << 1.0 << ""
                              << "";
    QTest::newRow("every token on one expert (E / k)") << 2.0 << ""
                                                       << "";
    QTest::newRow("below 1") << 0.5 << "moe_imbalance"
                             << "moe_imbalance must be a number from 1 (balanced routing) to 1024, not 0.5";
    QTest::newRow("NaN") << std::numeric_limits<double>::quiet_NaN() << "moe_imbalance"
                         << "moe_imbalance must be a number from 1 (balanced routing) to 1024, not nan";
    QTest::newRow("beyond the layer")
        << 2.5 << "layers[0]"
        << "layers[0] (MixtureOfExperts \"block_sparse_moe\"): the MoE imbalance 2.5 is "
           "more than this layer allows: with 4 experts and top-2 the busiest expert gets "
           "at most every token, 2 x an even share";
}

void TestMixtureOfExperts::imbalanceRange()
{
    QFETCH(double, imbalance);
    QFETCH(QString, location);
    QFETCH(QString, message);
    const Analysis a = analyze(mixtralBlock(), withImbalance(imbalance));
    if (message.isEmpty()) {
        QVERIFY2(a.valid(), a.valid() ? "" : a.error->message.c_str());
        return;
    }
    QVERIFY(!a.valid());
    QCOMPARE(QString::fromStdString(a.error->message), message);
    QCOMPARE(QString::fromStdString(a.error->location), location);
}

void TestMixtureOfExperts::routingWarningReachesTheAnalysis()
{
    // One warning per MoE layer spec (a Repeat block's iterations share it), naming the layer.
    Network n = mixtralBlock();
    n.layers = { repeat("layers", 3, { n.layers.front() }) };
    const Analysis even = analyze(n, withImbalance(1.0));
    QVERIFY(even.valid());
    QCOMPARE(even.warnings.size(), std::size_t { 1 });
    QCOMPARE(even.warnings.front().layer, std::string("layers.0.block_sparse_moe"));
    QCOMPARE(even.warnings.front().message,
        std::string(
            "assumes balanced routing: each of the 4 experts gets 2 x T / 4 tokens (T tokens, top-2). The "
            "saved activations are the same for any routing; the busiest expert's backward buffers grow "
            "with the MoE imbalance setting."));
    const Analysis skewed = analyze(n, withImbalance(1.5));
    QCOMPARE(skewed.warnings.size(), std::size_t { 1 });
    QCOMPARE(skewed.warnings.front().message,
        std::string(
            "assumes the busiest of the 4 experts gets 1.5 x an even share (2 x T / 4 tokens): MoE imbalance "
            "1.5. The saved activations are the same for any routing; only that expert's backward buffers "
            "grow with the imbalance."));
}

void TestMixtureOfExperts::flopsCountActiveExpertsOnly()
{
    // Mixtral block: the router 2 T H E = 2 x 16 x 64 x 4 = 8,192; the k active experts' three
    // projections 6 A H F = 6 x 32 x 64 x 96 = 1,179,648; element-wise work 5 T E + A (2F + 3H) =
    // 320 + 32 x 384 = 12,608. Total 1,200,448.
    const Analysis four = analyze(mixtralBlock(), Precision::Fp32);
    QCOMPARE(four.forwardFlopsPerSample, std::uint64_t { 1'200'448 });
    // Twice the experts at the same top-k: only the router grows (+ 2 T H 4 + 5 T 4 = 8,512); the
    // parameters double.
    Network eight = mixtralBlock();
    eight.layers.front().attributes["num_experts"] = 8;
    const Analysis a = analyze(eight, Precision::Fp32);
    QCOMPARE(a.forwardFlopsPerSample, std::uint64_t { 1'200'448 + 8'512 });
    // gate 8 x 64 + 8 experts x 3 x 64 x 96 = 512 + 147,456.
    QCOMPARE(a.totalParams, std::uint64_t { 147'968 });
    // The network's input needs no gradient: backward is the weight gradients (the products once) and
    // the element-wise work once: 1,187,840 + 12,608.
    QCOMPARE(four.backwardFlopsPerSample, std::uint64_t { 1'200'448 });
}

void TestMixtureOfExperts::autocastKeepsHalfCopiesPerProjection()
{
    // bf16 autocast, float32 input. Per token: the gate's bfloat16 copy of x 2H = 128, softmax float32
    // 16, indices 16, renormalised weights 8 and sum 4: 172 x 16 = 2,752. Per assignment: w1's and w3's
    // own bfloat16 copies of the gathered token 2 x 2H = 256 (the float32 gathered copy is not kept);
    // w1 output, SiLU output, w3 output and product in bfloat16 4 x 2F = 768; w2's output 2H = 128; the
    // routing weight, float32 (routing_weights.to(x.dtype)), 4; the weighted output promoted to float32
    // 4H = 256; the indices 16: 1,428 x 32 = 45,696. Total 48,448.
    const Analysis a = analyze(mixtralBlock(), withImbalance(1.0, Precision::AmpBf16));
    QVERIFY(a.valid());
    QCOMPARE(a.activationBytesPerSample, std::uint64_t { 48'448 });
    QCOMPARE(rowNamed(a, "block_sparse_moe").output.dtype, DType::Float32);
    // Autocast caches a bfloat16 copy of the gate's and every expert's weights: (256 + 12 x 6,144) x 2.
    QCOMPARE(a.autocastWeightCopyBytes, std::uint64_t { 147'968 });
}

void TestMixtureOfExperts::sigmoidRouterInPureHalf()
{
    // DeepSeek's router under pure bf16: F.linear(x.type(float32), weight.type(float32)) keeps a float32
    // copy of the router weight for x's gradient, E H x 4 = 8 x 64 x 4 = 2,048 bytes fixed; and a
    // float32 copy of x (T H x 4 per sample) for the weight's gradient. The combine runs in float32
    // (the scores' dtype): weighted outputs 4H per assignment, and the result is cast back to bf16.
    // Per token: x in float32 256, sigmoid scores 4E = 32, indices 16, weights 8 and sum 4 = 316 x 16 =
    // 5,056. Per assignment: gathered token 2H = 128, 4 x 2F = 256, expert output 2H = 128, the weighted
    // output 4H = 256, the routing weight 4, indices 16 = 788 x 32 = 25,216. Total 30,272.
    const Network n = network({ 16, 64 },
        { layer("MixtureOfExperts",
            { { "num_experts", 8 }, { "num_experts_per_tok", 2 }, { "intermediate_size", 32 },
                { "router", "sigmoid" } },
            "mlp") },
        Loss::None);
    const Analysis a = analyze(n, Precision::Bf16);
    QVERIFY(a.valid());
    QCOMPARE(a.activationBytesFixed, std::uint64_t { 2'048 });
    QCOMPARE(a.activationBytesPerSample, std::uint64_t { 30'272 });
    QCOMPARE(a.output.dtype, DType::BFloat16);
    QCOMPARE(a.bufferElements, std::uint64_t { 8 }); // gate.e_score_correction_bias
}

void TestMixtureOfExperts::loraTargetsTheExperts()
{
    // LoRA rank 4 on "proj" and every expert's "w2" (PEFT matches block_sparse_moe.experts.N.w2).
    // Adapters: proj 4 x 64 + 64 x 4 = 512; w2 per expert 4 x 96 + 64 x 4 = 640, x 4 experts = 2,560.
    const Network n = projectedMixtralBlock();
    const Analysis a = analyze(n, lora({ "proj", "w2" }));
    QVERIFY2(a.valid(), a.valid() ? "" : a.error->message.c_str());
    QCOMPARE(a.loraParams, std::uint64_t { 3'072 });
    QCOMPARE(a.trainableParams, std::uint64_t { 3'072 });
    QCOMPARE(rowNamed(a, "block_sparse_moe").loraParams, std::uint64_t { 2'560 });
    // The MoE layer, every base weight frozen: the gate's input and the gathered tokens are kept only
    // for frozen weights' gradients (w1, w3, gate): dropped. Kept: per token softmax, indices, weights
    // and sum 44 x 16 = 704; per assignment the w1/w3 outputs, SiLU output, product (w2's adapter keeps
    // it) 4 x 4F = 1,536, w2's output 256, weighted output 256, routing weight 4, indices 16 = 2,068 x 32
    // = 66,176; w2's adapters' B inputs 32 rows x 4 x 4 = 512. proj: its adapter's B input 16 x 4 x 4 =
    // 256 (its A keeps the network's input). Total 67,648.
    QCOMPARE(a.activationBytesPerSample, std::uint64_t { 67'648 });
    // All three projections: the gathered tokens come back (w1's and w3's adapters keep them), 32 x 256,
    // and two more adapters' B inputs 2 x 512: 67,648 + 8,192 + 1,024 = 76,864.
    const Analysis all = analyze(n, lora({ "proj", "w1", "w2", "w3" }));
    QCOMPARE(all.activationBytesPerSample, std::uint64_t { 76'864 });
    QCOMPARE(all.loraParams, std::uint64_t { 512 + 3 * 2'560 });
    // Mixtral's router is an nn.Linear: "gate" adapts it, 4 x 64 + 4 x 4 = 272.
    const Analysis gate = analyze(n, lora({ "proj", "gate" }));
    QCOMPARE(gate.loraParams, std::uint64_t { 512 + 272 });
    // Qwen's and DeepSeek's names: gate_proj, up_proj, down_proj; "w2" matches nothing there.
    const Analysis qwen = analyze(qwen2MoeBlock(), lora({ "down_proj" }));
    QVERIFY(qwen.valid());
    // 8 experts x (4 x 48 + 64 x 4) = 3,584, and the shared expert's down_proj 4 x 128 + 64 x 4 = 768.
    QCOMPARE(qwen.loraParams, std::uint64_t { 3'584 + 768 });
    const Analysis none = analyze(qwen2MoeBlock(), lora({ "w2" }));
    QVERIFY(!none.valid());
    QVERIFY2(none.error->message.find("lora.targets[0] \"w2\" matches no Linear layer") == 0,
        none.error->message.c_str());
}

void TestMixtureOfExperts::loraAdaptsOneExpertByItsFullName()
{
    // "experts.0.w2": one expert. Its adapter sees its share of the rows, 32 / 4 = 8 (B input 8 x 4 x 4 =
    // 128 where all four experts' was 512), and the products are kept for its rows only (the other
    // experts' w2 is frozen): 8 x 4F = 3,072 of 12,288. 67,648 - 384 - 9,216 = 58,048.
    const Analysis one = analyze(projectedMixtralBlock(), lora({ "proj", "experts.0.w2" }));
    QVERIFY2(one.valid(), one.valid() ? "" : one.error->message.c_str());
    QCOMPARE(one.loraParams, std::uint64_t { 512 + 640 });
    QCOMPARE(one.activationBytesPerSample, std::uint64_t { 58'048 });
}

void TestMixtureOfExperts::qloraStoresExpertWeightsInFourBits()
{
    // QLoRA loads every Linear module in 4 bits but the head (here lm_head): NF4 is n / 2 bytes, one byte
    // per block of 64 and 4 per 256 blocks. proj 4,096 elements: 2,048 + 64 + 4 = 2,116; the gate 256
    // elements: 128 + 4 + 4 = 136; each expert projection 6,144 elements: 3,072 + 96 + 4 = 3,172, x 12 =
    // 38,064; lm_head in bf16 4,096 x 2 = 8,192; the adapters (proj 512, w2 2,560) in bf16 6,144.
    const Analysis a = analyze(projectedMixtralBlock(), lora({ "proj", "w2" }, Precision::Bf16, true));
    QVERIFY2(a.valid(), a.valid() ? "" : a.error->message.c_str());
    QCOMPARE(a.parameterBytes, std::uint64_t { 2'116 + 136 + 38'064 + 8'192 + 6'144 });
}

void TestMixtureOfExperts::groupedBlocksMatchPyTorch_data()
{
    QTest::addColumn<QString>("block");
    QTest::addColumn<bool>("frozen");
    QTest::addColumn<bool>("amp");
    QTest::addColumn<qlonglong>("byHand");
    // transformers 5's grouped_mm experts (measure_moe.py's "*_grouped" blocks, T 16, H 64, float32
    // experts), the block's input excluded. Qwen3-style, E 8, k 2, F 48, renormalised, frozen (every
    // weight of the block frozen, its input requiring grad). Per token: softmax 4E = 32, top-k indices 8k
    // = 16, the renormalised weights' clone 4k = 8 and their sum 4: 60 x 16 = 960. Per assignment (A = 32):
    // the gathered/routing/restore indices 3 x 8 = 24, the sentinel mask 1, gate_up_proj's output 4 x 2F =
    // 384 (SiLU keeps the gate half, the mul the up half), the activation 4F = 192, the expert output 4H =
    // 256 (kept by the mul with the routing weight), the sorted routing weight 4: 861 x 32 = 27,552.
    // Total 28,512.
    QTest::newRow("qwen3, frozen") << "qwen3_moe_grouped" << true << false << qlonglong { 28'512 };
    // Under bf16 autocast the same: grouped_mm runs in the float32 weights' dtype; the router's bf16 weight
    // copy (8 x 64 x 2 = 1,024, measured as fixed) is an autocast copy, not an activation.
    QTest::newRow("qwen3, frozen, bf16 autocast")
        << "qwen3_moe_grouped" << true << true << qlonglong { 28'512 };
    // Trained: the gathered tokens (gate_up_proj's weight gradient) 4H = 256 and the product (down_proj's)
    // 4F = 192 per assignment: + 448 x 32 = 14,336. 42,848.
    QTest::newRow("qwen3, trained") << "qwen3_moe_grouped" << false << false << qlonglong { 42'848 };
    // Mixtral-style, E 4, k 2, F 96: per token softmax 16 + indices 16 + clone 8 + sum 4 = 44 x 16 = 704;
    // per assignment 24 + 1 + 768 + 384 + 256 + 4 = 1,437 x 32 = 45,984: 46,688 frozen; trained + (256 +
    // 384) x 32 = 20,480: 67,168.
    QTest::newRow("mixtral, frozen") << "mixtral_grouped" << true << false << qlonglong { 46'688 };
    QTest::newRow("mixtral, trained") << "mixtral_grouped" << false << false << qlonglong { 67'168 };
    // DeepSeek-V3-style, E 8, k 2, F 32, sigmoid router, a shared expert of 32: per token sigmoid scores 32,
    // gather's indices 16, clone 8, denominator 4 = 60 x 16 = 960; per assignment 24 + 1 + 256 + 128 + 256 +
    // 4 = 669 x 32 = 21,408; the frozen shared expert's gate output, SiLU output and up output 3 x 4 x 32 x
    // 16 = 6,144. 28,512. Trained: + (256 + 128) x 32 = 12,288 and the shared expert's product 2,048: 42,848.
    QTest::newRow("deepseek, frozen") << "deepseek_v3_grouped" << true << false << qlonglong { 28'512 };
    QTest::newRow("deepseek, trained") << "deepseek_v3_grouped" << false << false << qlonglong { 42'848 };
}

void TestMixtureOfExperts::groupedBlocksMatchPyTorch()
{
    QFETCH(QString, block);
    QFETCH(bool, frozen);
    QFETCH(bool, amp);
    QFETCH(qlonglong, byHand);
    const json all = measurements();
    const std::string name = block.toStdString() + (frozen ? "_frozen" : "") + (amp ? "_amp" : "");
    const json& m = measuredBlock(all, name);
    QCOMPARE(m.at("per_sample_bytes").get<qlonglong>(), byHand);
    QCOMPARE(m.at("input_kept").get<bool>(), !frozen); // trained: the router keeps x for its weight
    // proj -> norm (an RMSNorm: its float32 output is the block's input, as in a decoder layer) -> the block.
    const bool deepseek = block == QStringLiteral("deepseek_v3_grouped");
    json attributes = { { "num_experts", block == QStringLiteral("mixtral_grouped") ? 4 : 8 },
        { "num_experts_per_tok", 2 },
        { "intermediate_size",
            block == QStringLiteral("mixtral_grouped") ? 96
                : deepseek                             ? 32
                                                       : 48 },
        { "experts_implementation", "grouped_mm" } };
    if (deepseek)
        attributes["router"] = "sigmoid";
    std::vector<LayerSpec> layers { linear(64, "proj"), layer("RMSNorm", {}, "norm"),
        layer("MixtureOfExperts", attributes, "mlp", { "norm" }) };
    if (deepseek) {
        for (auto& l : sharedExpert("mlp.shared_experts.", 32)) {
            if (l.inputs == std::vector<std::string> { "input" })
                l.inputs = { "norm" };
            layers.push_back(std::move(l));
        }
        layers.push_back(
            layer("Add", {}, "mlp.routed_plus_shared", { "mlp", "mlp.shared_experts.down_proj" }));
    }
    AnalysisOptions o = frozen ? lora({ "proj" }, amp ? Precision::AmpBf16 : Precision::Fp32)
                               : withImbalance(1.0, amp ? Precision::AmpBf16 : Precision::Fp32);
    const Analysis a = analyze(network({ 16, 64 }, layers, Loss::None), o);
    QVERIFY2(a.valid(), a.valid() ? "" : a.error->message.c_str());
    std::uint64_t blockBytes = 0;
    for (const auto& r : a.rows) {
        if (r.name.rfind("mlp", 0) == 0)
            blockBytes += r.activationBytesPerSample;
    }
    // Trained, the block is the first to keep its input (the router's weight gradient): + 4TH = 4,096.
    QCOMPARE(blockBytes, std::uint64_t(byHand) + (frozen ? 0U : 4'096U));
}

void TestMixtureOfExperts::groupedExpertsIgnoreRoutingAndAutocast()
{
    Network n = projectedMixtralBlock();
    n.layers[1].attributes["experts_implementation"] = "grouped_mm";
    const Analysis even = analyze(n, lora({ "proj" }, Precision::AmpBf16));
    Network eager = projectedMixtralBlock();
    const Analysis loop = analyze(eager, lora({ "proj" }, Precision::AmpBf16));
    QVERIFY(even.valid() && loop.valid());
    // grouped_mm is on no autocast list: the experts make no bfloat16 copies of their weights. Autocast
    // copies: proj's weight 64 x 64 x 2 = 8,192, its adapters (4 x 64 + 64 x 4) x 2 = 1,024, the router's
    // F.linear 4 x 64 x 2 = 512: 9,728. The eager loop's nn.Linear experts add 12 x 96 x 64 x 2 = 147,456.
    QCOMPARE(even.autocastWeightCopyBytes, std::uint64_t { 9'728 });
    QCOMPARE(loop.autocastWeightCopyBytes, std::uint64_t { 9'728 + 147'456 });
    // The routing changes nothing: the imbalance leaves the transient as it is.
    AnalysisOptions skewed = lora({ "proj" }, Precision::AmpBf16);
    skewed.moeImbalance = 2.0;
    const Analysis busy = analyze(n, skewed);
    QVERIFY(busy.valid());
    QCOMPARE(busy.transientBytesPerSample, even.transientBytesPerSample);
    QCOMPARE(busy.activationBytesPerSample, even.activationBytesPerSample);
    QCOMPARE(even.warnings.size(), std::size_t { 1 });
    QVERIFY2(even.warnings.front().message.find("assumes transformers 5's grouped_mm experts") == 0,
        even.warnings.front().message.c_str());
    // Beyond E / k the imbalance is still refused (it describes no possible routing).
    skewed.moeImbalance = 2.5;
    QVERIFY(!analyze(n, skewed).valid());
}

void TestMixtureOfExperts::badAttributes_data()
{
    QTest::addColumn<QString>("attribute");
    QTest::addColumn<int>("value");
    QTest::addColumn<QString>("message");
    QTest::newRow("top-k beyond the experts") << "num_experts_per_tok" << 5
                                              << "layers[0] (MixtureOfExperts \"block_sparse_moe\"): "
                                                 "num_experts_per_tok 5 is more than num_experts 4: a "
                                                 "token is routed to distinct experts";
    QTest::newRow("no experts") << "num_experts" << 0 << "layers[0].num_experts";
    QTest::newRow("no width") << "intermediate_size" << 0 << "layers[0].intermediate_size";
}

void TestMixtureOfExperts::badAttributes()
{
    QFETCH(QString, attribute);
    QFETCH(int, value);
    QFETCH(QString, message);
    Network n = mixtralBlock();
    n.layers.front().attributes[attribute.toStdString()] = value;
    const Analysis a = analyze(n, Precision::Fp32);
    QVERIFY(!a.valid());
    QVERIFY2(QString::fromStdString(a.error->message).startsWith(message), a.error->message.c_str());
}

void TestMixtureOfExperts::latentAttentionByHand_data()
{
    QTest::addColumn<bool>("eager");
    QTest::addColumn<qlonglong>("bytes");
    // T 8, H 32, h 2, q_lora_rank 16, kv_lora_rank 8, nope 8, rope 4 (q/k heads of 12), v 6, float32;
    // the input is the network's (not counted). Shared by both: q_a_proj's output (q_a_layernorm's
    // float32 input) 8 x 16 x 4 = 512, its rstd 32, normalised rows 512, its output (q_b_proj's input)
    // 512; kv_a_proj_with_mqa's output 8 x 12 x 4 = 384 (kv_a_layernorm normalises a view of it, so it
    // stays whole), its rstd 32, normalised rows 256, output (kv_b_proj's input) 256: 2,496.
    // SDPA (v's head 6 differs from q/k's 12: memory-efficient attention): query and key (the cat
    // results) 2 x 8 x 24 x 4 = 1,536, value a view of kv_b_proj's output 8 x 28 x 4 = 896, the output
    // (also o_proj's input) 8 x 12 x 4 = 384, logsumexp 2 x 32 x 4 = 256: 2,496 + 3,072 = 5,568.
    QTest::newRow("sdpa") << false << qlonglong { 5'568 };
    // Eager: query and key head-major already (kept as they are) 1,536, probabilities float32 2 x 8 x 8
    // x 4 = 512, v copied to head-major for the matmul 384, the heads-merged output 384: 2,496 + 2,816.
    QTest::newRow("eager") << true << qlonglong { 5'312 };
}

void TestMixtureOfExperts::latentAttentionByHand()
{
    QFETCH(bool, eager);
    QFETCH(qlonglong, bytes);
    const Network n = network({ 8, 32 },
        { layer("MultiHeadLatentAttention",
            { { "num_heads", 2 }, { "q_lora_rank", 16 }, { "kv_lora_rank", 8 }, { "qk_nope_head_dim", 8 },
                { "qk_rope_head_dim", 4 }, { "v_head_dim", 6 } },
            "self_attn") },
        Loss::None);
    AnalysisOptions o;
    o.attention = eager ? AttentionImplementation::Eager : AttentionImplementation::Sdpa;
    const Analysis a = analyze(n, o);
    QVERIFY2(a.valid(), a.valid() ? "" : a.error->message.c_str());
    QCOMPARE(a.activationBytesPerSample, std::uint64_t(bytes));
    // q_a_proj 32 x 16, q_a_layernorm 16, q_b_proj 16 x 24, kv_a_proj_with_mqa 32 x 12, kv_a_layernorm 8,
    // kv_b_proj 8 x 28, o_proj 12 x 32: 512 + 16 + 384 + 384 + 8 + 224 + 384 = 1,912.
    QCOMPARE(a.totalParams, std::uint64_t { 1'912 });
    // LoRA by the projections' names.
    AnalysisOptions l = o;
    l.lora.rank = 2;
    l.lora.targets = { "q_b_proj", "kv_b_proj" };
    const Analysis adapted = analyze(n, l);
    QVERIFY2(adapted.valid(), adapted.valid() ? "" : adapted.error->message.c_str());
    // q_b_proj 2 x 16 + 24 x 2 = 80; kv_b_proj 2 x 8 + 28 x 2 = 72.
    QCOMPARE(adapted.loraParams, std::uint64_t { 152 });
}

QTEST_APPLESS_MAIN(TestMixtureOfExperts)
#include "tst_mixtureofexperts.moc"

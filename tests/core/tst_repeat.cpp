// Identical iterations of a Repeat block are analysed once and multiplied (issue 17, item 6). Every
// test here compares a network with Repeat blocks against the same network written out layer by
// layer in the model file (expandRepeats below: an independent construction, not the analysis's own
// code path), so the two must give the same numbers: totals, the step's peak (bytes, phase, layer,
// breakdown), the first step's peak and the largest batch.

#include "NestedRepeatFile.h"
#include "NetworkBuilder.h"
#include "NumberedLayersFile.h"
#include "headroom/allocator/ReservedModel.h"
#include "headroom/analysis/Analysis.h"
#include "headroom/estimate/Estimate.h"
#include "headroom/model/ModelFile.h"

#include <QTest>
#include <algorithm>
#include <map>
#include <string>

using namespace headroom;
using namespace headroom::test;

namespace {

/// Names visible to a layer, as the model format defines them: local names of this iteration, then
/// the enclosing ones; `repeatInput` is the current iteration's input.
struct NameScope
{
    std::map<std::string, std::string> full; ///< local name -> the expanded layer's name
    std::string repeatInput;
    const NameScope* parent = nullptr;

    std::string resolve(const std::string& ref) const
    {
        for (const NameScope* s = this; s != nullptr; s = s->parent) {
            if (const auto it = s->full.find(ref); it != s->full.end())
                return it->second;
            if (ref == "repeat_input" && !s->repeatInput.empty())
                return s->repeatInput;
        }
        return ref; // "input", or already a full name
    }
};

/// `specs` with every Repeat written out: layer `r` of iteration t of block `b` becomes a top-level
/// layer named "b.t.r" whose inputs name their producers explicitly.
void writeOut(const std::vector<LayerSpec>& specs, const std::string& prefix, NameScope& scope,
    std::string& previous, bool frozen, std::vector<LayerSpec>& out)
{
    for (std::size_t i = 0; i < specs.size(); ++i) {
        const LayerSpec& spec = specs[i];
        const std::string full = prefix + (spec.name.empty() ? std::to_string(i) : spec.name);
        if (spec.isRepeat()) {
            for (std::int64_t t = 0; t < spec.times; ++t) {
                NameScope inner;
                inner.parent = &scope;
                inner.repeatInput = previous;
                writeOut(spec.children, full + "." + std::to_string(t) + ".", inner, previous,
                    frozen || spec.frozen, out);
            }
        } else {
            LayerSpec copy = spec;
            copy.name = full;
            copy.frozen = frozen || spec.frozen;
            copy.inputs.clear();
            if (spec.inputs.empty())
                copy.inputs.push_back(previous);
            for (const auto& ref : spec.inputs)
                copy.inputs.push_back(scope.resolve(ref));
            if (!spec.tiedTo.empty())
                copy.tiedTo = scope.resolve(spec.tiedTo);
            out.push_back(copy);
            previous = full;
        }
        if (!spec.name.empty())
            scope.full[spec.name] = previous;
    }
}

Network expandRepeats(const Network& n)
{
    Network out = n;
    out.layers.clear();
    NameScope top;
    std::string previous = "input";
    writeOut(n.layers, "", top, previous, false, out.layers);
    return out;
}

/// Per-block checkpointing needs the blocks: each top-level iteration becomes a Repeat of one
/// iteration named "b.t" (its layers are then "b.t.0.r"; sameLayer() maps the names back).
Network wrapIterations(const Network& n)
{
    Network out = n;
    out.layers.clear();
    for (std::size_t i = 0; i < n.layers.size(); ++i) {
        const LayerSpec& spec = n.layers[i];
        if (!spec.isRepeat()) {
            out.layers.push_back(spec);
            continue;
        }
        for (std::int64_t t = 0; t < spec.times; ++t) {
            LayerSpec one = spec;
            one.name = (spec.name.empty() ? std::to_string(i) : spec.name) + "." + std::to_string(t);
            one.times = 1;
            out.layers.push_back(one);
        }
    }
    return out;
}

/// "b.5.0.fc" (a wrapped iteration) is "b.5.fc".
std::string unwrapName(std::string name, bool wrapped)
{
    if (!wrapped)
        return name;
    for (std::size_t dot = name.find('.'); dot != std::string::npos; dot = name.find('.', dot + 1)) {
        const std::size_t next = name.find('.', dot + 1);
        if (next != std::string::npos && name.compare(next, 3, ".0.") == 0)
            return name.erase(next, 2);
    }
    return name;
}

Network preset(const char* id)
{
    auto n = loadModelFile(std::string(HEADROOM_TEST_SOURCE_DIR "/resources/presets/") + id + ".json");
    if (!n)
        qFatal("preset %s: %s", id, n.error().message.c_str());
    return n.value();
}

Network mlp()
{
    return network({ 64 },
        { layer("Linear", { { "out_features", 64 } }, "in"),
            repeat("b", 40, { layer("Linear", { { "out_features", 64 } }, "fc"), layer("ReLU", {}, "act") }),
            layer("Linear", { { "out_features", 10 } }, "head") });
}

/// ResNet basic blocks: the residual reads repeat_input.
Network residual()
{
    const auto conv = [](const char* name) {
        return layer("Conv2d",
            { { "out_channels", 16 }, { "kernel_size", 3 }, { "padding", 1 }, { "bias", false } }, name);
    };
    return network({ 16, 8, 8 },
        { repeat("layer", 12,
              { conv("conv1"), layer("BatchNorm2d", {}, "bn1"),
                  layer("ReLU", { { "inplace", true } }, "relu"), conv("conv2"),
                  layer("BatchNorm2d", {}, "bn2"), layer("Add", {}, "add", { "bn2", "repeat_input" }),
                  layer("ReLU", { { "inplace", true } }, "out") }),
            layer("AdaptiveAvgPool2d", { { "output_size", 1 } }), layer("Flatten"),
            layer("Linear", { { "out_features", 10 } }, "fc") });
}

/// A Repeat inside a Repeat, with a layer after the inner block and a name from outside.
Network nested()
{
    return network({ 8, 32 },
        { layer("Linear", { { "out_features", 32 } }, "stem"),
            repeat("outer", 9,
                { repeat("inner", 7,
                      { layer("Linear", { { "out_features", 32 } }, "fc"), layer("GELU", {}, "act") }),
                    layer("LayerNorm", {}, "norm"), layer("Add", {}, "skip", { "norm", "stem" }) }),
            layer("Linear", { { "out_features", 5 } }, "head") });
}

Network parsed(const std::string& text)
{
    auto n = parseModel(text);
    if (!n)
        qFatal("%s", n.error().message.c_str());
    return std::move(n).value();
}

struct Setup
{
    AnalysisOptions options;
    TrainingSetup training;
    std::uint64_t gpuMemoryBytes = 80ULL << 30;
};

Setup setupWith(Precision precision, Checkpointing checkpointing = Checkpointing::None)
{
    Setup s;
    s.options.precision = precision;
    s.options.checkpointing = checkpointing;
    return s;
}

} // namespace

class TestRepeat : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void compressedEqualsExpanded_data();
    void compressedEqualsExpanded();
    void traceEqualsWrittenOut_data() { compressedEqualsExpanded_data(); }
    void traceEqualsWrittenOut();
    void hundredThousandIterationsStayFew();
    void singledOutIterationsAreAnalysed();
    void outputsGroupIdenticalIterations();
    void limits();
    void nestingIsBounded();
    void layersAreNumberedAsTheTreeShowsThem();
    void messagesNameLayersByNumber();
};

void TestRepeat::compressedEqualsExpanded_data()
{
    QTest::addColumn<Network>("net");
    QTest::addColumn<int>("precision");
    QTest::addColumn<int>("checkpointing");
    QTest::addColumn<int>("accumulation");
    QTest::addColumn<int>("sharding");
    QTest::addColumn<int>("gpus");
    QTest::addColumn<int>("tensorParallel");
    QTest::addColumn<int>("loraRank");

    const auto fp32 = static_cast<int>(Precision::Fp32);
    const auto bf16 = static_cast<int>(Precision::AmpBf16);
    const auto none = static_cast<int>(Checkpointing::None);
    const auto perBlock = static_cast<int>(Checkpointing::PerBlock);
    const auto ddp = static_cast<int>(Sharding::None);
    const auto zero3 = static_cast<int>(Sharding::Zero3);
    const auto zero2 = static_cast<int>(Sharding::Zero2);
    QTest::newRow("MLP") << mlp() << fp32 << none << 1 << ddp << 1 << 1 << 0;
    QTest::newRow("MLP, autocast") << mlp() << bf16 << none << 1 << ddp << 1 << 1 << 0;
    QTest::newRow("MLP, accumulation") << mlp() << fp32 << none << 4 << ddp << 1 << 1 << 0;
    QTest::newRow("MLP, per block") << mlp() << fp32 << perBlock << 1 << ddp << 1 << 1 << 0;
    QTest::newRow("MLP, ZeRO-2 on 3 GPUs") << mlp() << fp32 << none << 1 << zero2 << 3 << 1 << 0;
    QTest::newRow("MLP, LoRA") << mlp() << fp32 << none << 1 << ddp << 1 << 1 << 4;
    QTest::newRow("residual") << residual() << fp32 << none << 1 << ddp << 1 << 1 << 0;
    QTest::newRow("residual, per block, autocast")
        << residual() << bf16 << perBlock << 1 << ddp << 1 << 1 << 0;
    QTest::newRow("residual, accumulation, autocast")
        << residual() << bf16 << none << 3 << ddp << 1 << 1 << 0;
    QTest::newRow("nested") << nested() << fp32 << none << 1 << ddp << 1 << 1 << 0;
    // Issue 26's amplification file, three levels deep: every iteration of every level is the first or
    // one of the last two, analysed on its own, and the totals and peak must be the written-out one's.
    QTest::newRow("three levels of two")
        << parsed(nestedRepeatFile(3, 2)) << fp32 << none << 1 << ddp << 1 << 1 << 0;
    QTest::newRow("three levels of two, per block, autocast")
        << parsed(nestedRepeatFile(3, 2)) << bf16 << perBlock << 1 << ddp << 1 << 1 << 0;
    QTest::newRow("nested, per block, accumulation")
        << nested() << fp32 << perBlock << 2 << ddp << 1 << 1 << 0;
    QTest::newRow("nested, ZeRO-3, autocast") << nested() << bf16 << none << 1 << zero3 << 8 << 1 << 0;
    QTest::newRow("GPT-2") << preset("gpt2_small") << fp32 << none << 1 << ddp << 1 << 1 << 0;
    QTest::newRow("GPT-2, per block, autocast")
        << preset("gpt2_small") << bf16 << perBlock << 1 << ddp << 1 << 1 << 0;
    QTest::newRow("GPT-2, ZeRO-3 on 8 GPUs, autocast")
        << preset("gpt2_small") << bf16 << none << 1 << zero3 << 8 << 1 << 0;
    QTest::newRow("GPT-2, accumulation, DDP")
        << preset("gpt2_small") << fp32 << none << 2 << ddp << 2 << 1 << 0;
    QTest::newRow("GPT-2, tensor parallel")
        << preset("gpt2_small") << bf16 << none << 1 << ddp << 2 << 2 << 0;
    QTest::newRow("BERT, LoRA, autocast") << preset("bert_base") << bf16 << none << 1 << ddp << 1 << 1 << 8;
    QTest::newRow("BERT, ZeRO-3, per block")
        << preset("bert_base") << fp32 << perBlock << 1 << zero3 << 4 << 1 << 0;
}

void TestRepeat::compressedEqualsExpanded()
{
    QFETCH(Network, net);
    QFETCH(int, precision);
    QFETCH(int, checkpointing);
    QFETCH(int, accumulation);
    QFETCH(int, sharding);
    QFETCH(int, gpus);
    QFETCH(int, tensorParallel);
    QFETCH(int, loraRank);
    Setup s = setupWith(static_cast<Precision>(precision), static_cast<Checkpointing>(checkpointing));
    s.options.lora.rank = loraRank;
    s.training.accumulationSteps = accumulation;
    s.training.parallel.sharding = static_cast<Sharding>(sharding);
    s.training.parallel.gpus = gpus;
    s.training.parallel.tensorParallel = tensorParallel;

    const bool wrapped = s.options.checkpointing == Checkpointing::PerBlock;
    const Network written = wrapped ? wrapIterations(net) : expandRepeats(net);
    const Analysis compressed = analyze(net, s.options);
    const Analysis expanded = analyze(written, s.options);
    QVERIFY2(compressed.valid(), compressed.error ? compressed.error->message.c_str() : "");
    QVERIFY2(expanded.valid(), expanded.error ? expanded.error->message.c_str() : "");
    // Blocks of 2 iterations hide none: both are the first or one of the last two, analysed on their own.
    const bool hides = !QByteArray(QTest::currentDataTag()).startsWith("three levels of two");
    QVERIFY2(compressed.rows.size() < expanded.rows.size() || !hides,
        "identical iterations were analysed one by one");

    QCOMPARE(compressed.totalParams, expanded.totalParams);
    QCOMPARE(compressed.trainableParams, expanded.trainableParams);
    QCOMPARE(compressed.loraParams, expanded.loraParams);
    QCOMPARE(compressed.parameterBytes, expanded.parameterBytes);
    QCOMPARE(compressed.bufferBytes, expanded.bufferBytes);
    QCOMPARE(compressed.autocastWeightCopyBytes, expanded.autocastWeightCopyBytes);
    QCOMPARE(compressed.activationBytesPerSample, expanded.activationBytesPerSample);
    QCOMPARE(compressed.activationBytesFixed, expanded.activationBytesFixed);
    QCOMPARE(
        compressed.uncheckpointedActivationBytesPerSample, expanded.uncheckpointedActivationBytesPerSample);
    QCOMPARE(compressed.transientBytesPerSample, expanded.transientBytesPerSample);
    QCOMPARE(compressed.forwardFlopsPerSample, expanded.forwardFlopsPerSample);
    QCOMPARE(compressed.backwardFlopsPerSample, expanded.backwardFlopsPerSample);
    QCOMPARE(compressed.recomputeFlopsPerSample, expanded.recomputeFlopsPerSample);
    QCOMPARE(compressed.expandedLayers, expanded.expandedLayers);
    // The rows, each counted as the layers it stands for, add up to the totals.
    std::uint64_t params = 0;
    for (const auto& row : compressed.rows)
        params += row.type == "Repeat" ? 0 : row.params * row.count;
    QCOMPARE(params, compressed.totalParams);

    const auto compressedModel = MemoryModel::build(compressed, s.training);
    const auto expandedModel = MemoryModel::build(expanded, s.training);
    QVERIFY(compressedModel && expandedModel);
    QVERIFY(compressedModel.value().timeline().moments().size()
            < expandedModel.value().timeline().moments().size()
        || !hides);
    for (const std::int64_t batch : { 1, 3, 16, 64, 1000 }) {
        s.training.batch = batch;
        const auto a = estimate(compressed, compressedModel.value(), s.training, s.gpuMemoryBytes);
        const auto b = estimate(expanded, expandedModel.value(), s.training, s.gpuMemoryBytes);
        QVERIFY(a && b);
        const std::string where = "batch " + std::to_string(batch);
        QVERIFY2(a.value().bytes == b.value().bytes, where.c_str());
        QCOMPARE(a.value().peakBytes(), b.value().peakBytes());
        QCOMPARE(static_cast<int>(a.value().peak.phase), static_cast<int>(b.value().peak.phase));
        QCOMPARE(a.value().peak.recomputing, b.value().peak.recomputing);
        QCOMPARE(a.value().peak.laterMicroBatch, b.value().peak.laterMicroBatch);
        QCOMPARE(a.value().peakLayer, unwrapName(b.value().peakLayer, wrapped));
        QCOMPARE(a.value().firstStepPeakBytes, b.value().firstStepPeakBytes);
        QCOMPARE(a.value().optimizerStepBytes, b.value().optimizerStepBytes);
        QCOMPARE(a.value().maxBatch, b.value().maxBatch);
    }
    for (const std::uint64_t capacity : { 1ULL << 30, 12ULL << 30, 100ULL << 30 })
        QCOMPARE(compressedModel.value().maxBatch(capacity), expandedModel.value().maxBatch(capacity));
}

void TestRepeat::traceEqualsWrittenOut()
{
    // The allocation trace writes the hidden iterations out (StepGraphExpansion): it must be the written-out
    // network's, allocation for allocation: kind, phase and bytes (only the layer rows differ).
    QFETCH(Network, net);
    QFETCH(int, precision);
    QFETCH(int, checkpointing);
    QFETCH(int, accumulation);
    QFETCH(int, sharding);
    QFETCH(int, gpus);
    QFETCH(int, tensorParallel);
    QFETCH(int, loraRank);
    Setup s = setupWith(static_cast<Precision>(precision), static_cast<Checkpointing>(checkpointing));
    s.options.lora.rank = loraRank;
    s.training.accumulationSteps = accumulation;
    s.training.parallel.sharding = static_cast<Sharding>(sharding);
    s.training.parallel.gpus = gpus;
    s.training.parallel.tensorParallel = tensorParallel;
    const bool wrapped = s.options.checkpointing == Checkpointing::PerBlock;
    const Network written = wrapped ? wrapIterations(net) : expandRepeats(net);
    const auto compressed = ReservedModel::build(analyze(net, s.options), s.training);
    const auto expanded = ReservedModel::build(analyze(written, s.options), s.training);
    QVERIFY2(compressed.ok(), compressed.ok() ? "" : compressed.error().message.c_str());
    QVERIFY2(expanded.ok(), expanded.ok() ? "" : expanded.error().message.c_str());
    const auto& a = compressed.value().trace().events();
    const auto& b = expanded.value().trace().events();
    QCOMPARE(a.size(), b.size());
    QCOMPARE(compressed.value().trace().blocks(), expanded.value().trace().blocks());
    for (std::size_t i = 0; i < a.size(); ++i) {
        const bool same = a[i].allocate == b[i].allocate && a[i].kind == b[i].kind && a[i].stage == b[i].stage
            && a[i].step == b[i].step && a[i].optional == b[i].optional && a[i].block == b[i].block
            && a[i].bytes == b[i].bytes;
        QVERIFY2(same, qPrintable(QStringLiteral("event %1 of %2 differs").arg(i).arg(a.size())));
    }
    QCOMPARE(compressed.value().reservedAt(7), expanded.value().reservedAt(7));
}

void TestRepeat::hundredThousandIterationsStayFew()
{
    // The issue's 689-byte file: 100,000 iterations of 5 x (Linear 16 -> 16, ReLU).
    std::vector<LayerSpec> block;
    for (int i = 0; i < 5; ++i) {
        block.push_back(layer("Linear", { { "out_features", 16 } }));
        block.push_back(layer("ReLU"));
    }
    const Network net = network({ 16 }, { repeat("b", 100'000, block) });
    const Analysis a = analyze(net, Precision::Fp32);
    QVERIFY(a.valid());
    // By hand: each Linear has 16 x 16 weights + 16 biases = 272; 5 per iteration, 100,000 iterations.
    QCOMPARE(a.totalParams, std::uint64_t { 136'000'000 });
    QCOMPARE(a.expandedLayers, std::uint64_t { 1'000'000 });
    // Iteration 0 reads the input batch (no gradient), iteration 1 iteration 0's output (which needs
    // one): from iteration 2 on each input equals the previous one. Analysed: 0, 1, 2 (standing for
    // 2..99,997), 99,998 and 99,999, 10 rows each, plus the block's and the loss's.
    QCOMPARE(a.rows.size(), std::size_t { 5 * 10 + 1 + 1 });
    QVERIFY(a.step.ops.size() < 100);
    // Forward FLOPs by hand: 2 x 16 x 16 per Linear, 16 per ReLU (one comparison), per sample.
    QCOMPARE(a.forwardFlopsPerSample, std::uint64_t { 100'000 } * 5 * (2 * 16 * 16 + 16));
    TrainingSetup setup;
    const auto model = MemoryModel::build(a, setup);
    QVERIFY(model);
    QVERIFY(model.value().timeline().moments().size() < 400);
    // Weights (fp32), gradients and Adam's two states: 16 bytes per parameter, all alive at the step.
    QCOMPARE(model.value().momentAt(model.value().optimizerStepMoment(), 1).weights,
        std::uint64_t { 4 * 136'000'000 });
}

void TestRepeat::singledOutIterationsAreAnalysed()
{
    // A LoRA target naming one iteration, and a later layer reading another by its full name.
    Network net = network({ 32 },
        { repeat("b", 50, { layer("Linear", { { "out_features", 32 } }, "fc"), layer("ReLU", {}, "act") }),
            layer("Add", {}, "mix", { "b", "b.20.act" }),
            layer("Linear", { { "out_features", 4 } }, "head") });
    AnalysisOptions options;
    options.lora.rank = 2;
    options.lora.targets = { "b.30.fc", "head" };
    const Analysis compressed = analyze(net, options);
    const Analysis expanded = analyze(expandRepeats(net), options);
    QVERIFY2(compressed.valid(), compressed.error ? compressed.error->message.c_str() : "");
    QVERIFY(expanded.valid());
    // Adapters on b.30.fc and head only: 2 x (32 + 32) + 2 x (32 + 4).
    QCOMPARE(compressed.loraParams, std::uint64_t { 2 * 64 + 2 * 36 });
    QCOMPARE(compressed.loraParams, expanded.loraParams);
    QCOMPARE(compressed.activationBytesPerSample, expanded.activationBytesPerSample);
    const auto named = [](const Analysis& a, const std::string& name) {
        return std::any_of(
            a.rows.begin(), a.rows.end(), [&](const LayerRow& r) { return r.name == name && r.count == 1; });
    };
    QVERIFY(named(compressed, "b.20.act"));
    QVERIFY(named(compressed, "b.30.fc"));
    TrainingSetup setup;
    for (const std::int64_t batch : { 1, 50, 5000 }) {
        setup.batch = batch;
        const auto a = estimate(compressed, setup, 8ULL << 30);
        const auto b = estimate(expanded, setup, 8ULL << 30);
        QVERIFY(a && b);
        QVERIFY(a.value().bytes == b.value().bytes);
        QCOMPARE(a.value().peakLayer, b.value().peakLayer);
        QCOMPARE(a.value().maxBatch, b.value().maxBatch);
    }
}

void TestRepeat::outputsGroupIdenticalIterations()
{
    // 10,000 iterations of (Linear, ReLU) after a first Linear 16 -> 8: iteration 0 reads the stem's
    // output, every later one the previous iteration's; the last one's ReLU output is kept by the loss.
    const Network net = network({ 16 },
        { layer("Linear", { { "out_features", 8 } }, "stem"),
            repeat("b", 10'000,
                { layer("Linear", { { "out_features", 8 } }, "fc"), layer("ReLU", {}, "act") }) },
        Loss::Mse);
    const Analysis a = analyze(net, Precision::Fp32);
    QVERIFY(a.valid());
    std::vector<std::string> names;
    std::uint64_t layers = 0;
    for (const auto& g : groupRows(a)) {
        if (a.rows[g.row].type == "Repeat")
            continue;
        names.push_back(g.name + " x" + std::to_string(g.count));
        layers += a.rows[g.row].specPath == "loss" ? 0 : g.count;
    }
    // Each fc keeps its input and each ReLU its output, and a storage is charged to its first keeper:
    // b.0.fc is charged the stem's output (32 bytes), every later fc nothing (the ReLU before it was
    // charged). So iteration 0 stands alone and iterations 1 to 9,999 are one group.
    const std::vector<std::string> expected { "stem x1", "b.0.fc x1", "b.0.act x1", "b.1\u20139999.fc x9999",
        "b.1\u20139999.act x9999", "loss x1" };
    QCOMPARE(QString::fromStdString(names.empty() ? "" : [&] { std::string all; for (const auto& n : names) all += n + "; "; return all; }()),
             QString::fromStdString([&] { std::string all; for (const auto& n : expected) all += n + "; "; return all; }()));
    QCOMPARE(layers, std::uint64_t { 20'001 });
}

void TestRepeat::limits()
{
    // A billion iterations of one layer analyse as quickly as ten.
    const Network big
        = network({ 4 }, { repeat("b", 1'000'000'000, { layer("Linear", { { "out_features", 4 } }) }) });
    const Analysis a = analyze(big, Precision::Fp32);
    QVERIFY2(a.valid(), a.error ? a.error->message.c_str() : "");
    QCOMPARE(a.totalParams, std::uint64_t { 1'000'000'000 } * 20);
    const Network tooMany = network({ 4 }, { repeat("b", 1'000'000'001, { layer("ReLU") }) });
    const Analysis b = analyze(tooMany, Precision::Fp32);
    QVERIFY(!b.valid());
    QVERIFY2(b.error->message.find("1 to 1000000000") != std::string::npos, b.error->message.c_str());
    // Nested blocks past 10^15 layers in all.
    const Network huge = network(
        { 4 }, { repeat("a", 1'000'000'000, { repeat("b", 1'000'000, { layer("ReLU"), layer("ReLU") }) }) });
    const Analysis c = analyze(huge, Precision::Fp32);
    QVERIFY(!c.valid());
    QVERIFY2(c.error->message.find("expands to more than 1,000,000,000,000,000 layers") != std::string::npos,
        c.error->message.c_str());
}

void TestRepeat::nestingIsBounded()
{
    // Each level of 2 iterations analyses both (the first and the last), so 12 levels analyse
    // 2^12 iterations of 2 layers = 8,192 layers: the bound for a file of few layers
    // (kAnalysedWithoutRatio), still analysed. Parameters: 4,096 Linear(16 -> 16) of 16 * 16 + 16.
    const Analysis twelve = analyze(parsed(nestedRepeatFile(12, 2)), Precision::Fp32);
    QVERIFY2(twelve.valid(), twelve.error ? twelve.error->message.c_str() : "");
    QCOMPARE(twelve.totalParams, std::uint64_t { 4'096 } * (16 * 16 + 16));
    QCOMPARE(twelve.expandedLayers, std::uint64_t { 8'192 });
    // Rows: the 8,192 layers and one header per block walked (1 + 2 + ... + 2^11 = 4,095).
    QVERIFY2(twelve.rows.size() <= 8'192 + 4'095, std::to_string(twelve.rows.size()).c_str());

    // One level more (the 1 KB file of 15 levels took 2.3 s and 46 s to plan) passes the bound after
    // 8,192 analysed layers, wherever the walk is: refused, naming the block, whatever the depth.
    for (const int levels : { 13, 15 }) {
        const Analysis a = analyze(parsed(nestedRepeatFile(levels, 2)), Precision::Fp32);
        QVERIFY(!a.valid());
        QVERIFY2(a.error->message.find("need more than 8,192 layers analysed one by one for the 2 layers "
                                       "the file describes")
                != std::string::npos,
            a.error->message.c_str());
        QVERIFY2(a.error->location.starts_with("layers[0].layers[0]"), a.error->location.c_str());
    }
    // A file of more layers may analyse 16 for each: 2 levels of 4 around 600 layers analyse all
    // 4 x 4 iterations (the first, the one after, the last two) = 9,600 layers, 16 x 600; a third
    // level would analyse 38,400.
    for (const int levels : { 2, 3 }) {
        std::string layers = R"([{"type":"Linear","out_features":16})";
        for (int i = 1; i < 600; ++i)
            layers += R"(,{"type":"ReLU"})";
        layers += "]";
        for (int level = 0; level < levels; ++level)
            layers = R"([{"type":"Repeat","times":4,"layers":)" + layers + "}]";
        const Analysis a = analyze(parsed(R"({"format":"headroom-model","version":1,"name":"w",)"
                                          R"("input":{"shape":[16]},"loss":"none","layers":)"
                                       + layers + "}"),
            Precision::Fp32);
        QCOMPARE(a.valid(), levels == 2);
        if (levels == 2)
            QCOMPARE(a.expandedLayers, std::uint64_t { 16 } * 600);
        else
            QVERIFY2(a.error->message.find("more than 9,600 layers analysed one by one for the 600 layers")
                    != std::string::npos,
                a.error->message.c_str());
    }
    // 30 and 60 levels: the model format's nesting limit, before any analysis.
    for (const int levels : { 30, 60 }) {
        const auto n = parseModel(nestedRepeatFile(levels, 2));
        QVERIFY(!n);
        QVERIFY2(n.error().message.find("nests Repeat blocks more than 16 deep") != std::string::npos,
            n.error().message.c_str());
    }
}

void TestRepeat::layersAreNumberedAsTheTreeShowsThem()
{
    // Issue 35, item 4: a layer's number is its position in the file counted from 1, a block's layers
    // after a dot, whatever the iteration (NumberedLayersFile.h lists them).
    QCOMPARE(layerNumber("layers[0]"), std::string("1"));
    QCOMPARE(layerNumber("layers[16].layers[2]"), std::string("17.3"));
    QCOMPARE(layerNumber("layers[9].layers[0].layers[11]"), std::string("10.1.12"));
    QCOMPARE(layerNumber("loss"), std::string());
    QCOMPARE(layerNumber("layers[3].kernel_size"), std::string()); // a key, not a layer
    QCOMPARE(layerNumber("layers[x]"), std::string());

    const Analysis a = analyze(parsed(numberedLayersFile(false)), Precision::Fp32);
    QVERIFY(a.valid());
    std::map<std::string, std::string> references; // by name
    for (const auto& row : a.rows)
        references[row.name] = layerReference(row, row.name);
    QCOMPARE(references["stem"], std::string("1 (stem)"));
    // Unnamed: its automatic name "1" is not its number 2; sentences give its type.
    QCOMPARE(references["1"], std::string("2 (ReLU)"));
    QCOMPARE(references["blk"], std::string("3 (blk)"));
    QCOMPARE(references["blk.0.inner"], std::string("3.1 (blk.0.inner)"));
    QCOMPARE(references["blk.0.1"], std::string("3.2 (ReLU)"));
    QCOMPARE(references["fc"], std::string("4 (fc)"));
    QCOMPARE(references["head"], std::string("5 (head)"));
    QCOMPARE(references["loss"], std::string("loss")); // not a layer of the file: no number

    // ResNet-50 (resources/presets/resnet50.json): conv1, bn1, relu, maxpool are 1-4, layer1.0's
    // twelve layers 5-16, the Repeat block "layer1.rest" 17, so layer2.0.conv1 is 18, as the GUI's
    // tree shows it (the tables once counted their lines and said 27: 16 + layer1.rest's 10 + 1).
    const Analysis resnet = analyze(preset("resnet50"), Precision::Fp32);
    const auto conv = std::find_if(
        resnet.rows.begin(), resnet.rows.end(), [](const LayerRow& r) { return r.name == "layer2.0.conv1"; });
    QVERIFY(conv != resnet.rows.end());
    QCOMPARE(layerNumber(conv->specPath), std::string("18"));
    QCOMPARE(layerReference(*conv, conv->name), std::string("18 (layer2.0.conv1)"));
}

void TestRepeat::messagesNameLayersByNumber()
{
    // The core's messages name a layer by its JSON path; the command line and the PDF add its number
    // and name (or type), keeping the path.
    const Analysis a = analyze(parsed(numberedLayersFile(true)), Precision::Fp32);
    QVERIFY(a.error);
    QCOMPARE(a.error->message, std::string("layers[3] (Linear \"fc\"): ") + kInvalidFcReason);
    QCOMPARE(withLayerNumbers(a.error->message), std::string("layer 4 (fc, layers[3]): ") + kInvalidFcReason);
    QCOMPARE(withLayerNumbers("layers[0] (Conv2d): its output overflows"),
        std::string("layer 1 (Conv2d, layers[0]): its output overflows"));
    QCOMPARE(withLayerNumbers("layers[1]: its name \"0\" is already the name of layers[0]"),
        std::string("layer 2 (layers[1]): its name \"0\" is already the name of layer 1 (layers[0])"));
    QCOMPARE(withLayerNumbers("layers[2].layers[0].inputs[1] must be a layer name"),
        std::string("layer 3.1 (layers[2].layers[0].inputs[1]) must be a layer name"));
    // A name of a megabyte (a hostile file) is copied, not matched recursively; text that only starts
    // like a type and name leaves the path alone.
    const std::string longName(std::size_t { 1 } << 20, 'n');
    QCOMPARE(withLayerNumbers("layers[0] (Linear \"" + longName + "\"): x"),
        "layer 1 (" + longName + ", layers[0]): x");
    QCOMPARE(withLayerNumbers("layers[0] (Linear \"open"), std::string("layer 1 (layers[0]) (Linear \"open"));
    QCOMPARE(withLayerNumbers("layers[0].kernel_size[1] and layers"),
        std::string("layer 1 (layers[0].kernel_size[1]) and layers"));
    // Once is enough, and paths inside other words or keys stay as they are.
    const std::string once = withLayerNumbers(a.error->message);
    QCOMPARE(withLayerNumbers(once), once);
    QCOMPARE(withLayerNumbers("num_hidden_layers[2] and x.layers[1]"),
        std::string("num_hidden_layers[2] and x.layers[1]"));
}

QTEST_APPLESS_MAIN(TestRepeat)
#include "tst_repeat.moc"

// Pipeline parallelism: the model cut into stages, the micro-batches each schedule keeps in flight, and
// each stage's GPU. Expected figures are worked out by hand in the comments, taken from the schedules'
// papers and Megatron-LM's code, or measured with PyTorch on gloo (tests/data/parallel/
// gloo_reference.json, written by tests/reference/record_parallel_gloo.py).
#include "headroom/estimate/Pipeline.h"
#include "headroom/estimate/Plan.h"
#include "headroom/importers/NetworkFile.h"
#include "headroom/model/ModelFile.h"
#include "headroom/model/PipelineSplit.h"
#include "headroom/step/PipelineSchedule.h"

#include <QFile>
#include <QTest>
#include <algorithm>
#include <nlohmann/json.hpp>

using namespace headroom;

namespace {

Network parsed(const std::string& text)
{
    auto n = parseModel(text);
    if (!n)
        qFatal("%s", n.error().message.c_str());
    return n.value();
}

Network gpt2()
{
    auto n = loadModelFile(HEADROOM_TEST_SOURCE_DIR "/resources/presets/gpt2_small.json");
    if (!n)
        qFatal("%s", n.error().message.c_str());
    return n.value();
}

/// The gloo layout's stage (tests/reference/record_parallel_gloo.py, run_pipeline): pre-LN residual
/// blocks x + fc2(GELU(fc1(LN(x)))) on [16, 32] float32 tokens, fc1 32 -> 128; `blocks` of them.
Network glooBlocks(int blocks)
{
    return parsed(R"({"format": "headroom-model", "version": 1, "name": "blocks",
        "input": {"shape": [16, 32], "dtype": "float32"}, "loss": "none",
        "layers": [{"type": "Repeat", "name": "blocks", "times": )"
        + std::to_string(blocks) + R"(, "layers": [
            {"type": "LayerNorm", "name": "ln"},
            {"type": "Linear", "name": "fc1", "out_features": 128},
            {"type": "GELU", "name": "gelu"},
            {"type": "Linear", "name": "fc2", "out_features": 32},
            {"type": "Add", "name": "residual", "inputs": ["fc2", "repeat_input"]}]}]})");
}

Plan pipelinePlan(Network network, std::int64_t p, std::int64_t m, PipelineSchedule schedule)
{
    Plan plan;
    plan.network = std::move(network);
    plan.reservedModel = false;
    plan.gpu.memoryBytes = 80ULL << 30;
    plan.setup.overheadBytes = 0;
    plan.setup.batch = 2;
    plan.setup.optimizer = Optimizer::Sgd;
    plan.setup.accumulationSteps = m;
    plan.setup.parallel.gpus = p;
    plan.setup.parallel.pipelineParallel = p;
    plan.setup.parallel.schedule = schedule;
    return plan;
}

nlohmann::json megatronCase(const std::string& name)
{
    QFile file(QStringLiteral(HEADROOM_TEST_SOURCE_DIR "/tests/data/parallel/megatron_reference.json"));
    if (!file.open(QIODevice::ReadOnly))
        qFatal("megatron_reference.json is missing");
    const auto all = nlohmann::json::parse(file.readAll().toStdString());
    for (const auto& c : all["cases"])
        if (c["name"] == name)
            return c;
    qFatal("no Megatron case %s", name.c_str());
}

nlohmann::json glooReference(const std::string& layout)
{
    QFile file(QStringLiteral(HEADROOM_TEST_SOURCE_DIR "/tests/data/parallel/gloo_reference.json"));
    if (!file.open(QIODevice::ReadOnly))
        qFatal("gloo_reference.json is missing");
    const auto all = nlohmann::json::parse(file.readAll().toStdString());
    for (const auto& e : all["entries"])
        if (e["layout"] == layout)
            return e;
    qFatal("no gloo layout %s", layout.c_str());
}

/// What a stage's micro-batches hold at the end of its forward pass, saved tensors and received input
/// together (autograd's saved tensors, as the gloo script counts them), at the plan's batch.
std::uint64_t savedAtEndOfForward(const PlanResult& r, std::int64_t batch)
{
    const MemoryModel& m = *r.memory;
    const MemoryBreakdown end = m.momentAt(m.endOfForwardMoment(), batch);
    return end.activations + end.input;
}

} // namespace

class TestPipeline : public QObject
{
    Q_OBJECT

private slots:
    void gpt2LayersGoToStagesAsMegatronPlacesThem()
    {
        // GPT-2 small: wte, wpe, drop, h (Repeat x 12), ln_f, lm_head (tied to wte): 12 pipeline layers.
        const Network n = gpt2();
        QCOMPARE(pipelineLayerCount(n), 12);
        auto slices = splitPipeline(n, 4, 1, {});
        QVERIFY(slices);
        const auto& s = slices.value();
        QCOMPARE(s.size(), std::size_t { 4 });
        // stage 1: the embeddings and dropout with h.0-2; stages 2, 3: three blocks; stage 4: h.9-11 and the
        // head
        QCOMPARE(s[0].iterations, (std::vector<std::int64_t> { 1, 1, 1, 3, 0, 0 }));
        QCOMPARE(s[1].iterations, (std::vector<std::int64_t> { 0, 0, 0, 3, 0, 0 }));
        QCOMPARE(s[3].iterations, (std::vector<std::int64_t> { 0, 0, 0, 3, 1, 1 }));
        QVERIFY(s[0].first() && !s[0].last());
        QVERIFY(s[3].last() && !s[3].first());
        QCOMPARE(*s[1].receivesFrom, std::size_t { 3 }); // the output of block h
        QCOMPARE(stageLayersText(n, s[0]), std::string { "wte, wpe, drop, h.0–2" });
        QCOMPARE(stageLayersText(n, s[2]), std::string { "h.6–8" });
        QCOMPARE(stageLayersText(n, s[3]), std::string { "h.9–11, ln_f, lm_head" });
    }

    void unevenSplitsGiveTheLastStagesTheExtraLayers()
    {
        // 12 layers over 5 stages: 2 each, and the 2 left over to the last two stages.
        auto slices = splitPipeline(gpt2(), 5, 1, {});
        QVERIFY(slices);
        std::vector<std::int64_t> counts;
        for (const auto& s : slices.value())
            counts.push_back(s.layerCount());
        QCOMPARE(counts, (std::vector<std::int64_t> { 2, 2, 2, 3, 3 }));
        // As the user sets them (Megatron's uneven stages).
        auto given = splitPipeline(gpt2(), 3, 1, { 2, 5, 5 });
        QVERIFY(given);
        QCOMPARE(given.value()[0].layerRanges.front(), (std::pair<std::int64_t, std::int64_t> { 0, 1 }));
        QCOMPARE(given.value()[2].layerRanges.front(), (std::pair<std::int64_t, std::int64_t> { 7, 11 }));
    }

    void interleavingGivesEachStageEveryPthChunk()
    {
        // 12 layers, p = 2, v = 3: six chunks of two; stage 1 holds chunks 0, 2, 4, stage 2 chunks 1, 3, 5.
        auto slices = splitPipeline(gpt2(), 2, 3, {});
        QVERIFY(slices);
        using R = std::vector<std::pair<std::int64_t, std::int64_t>>;
        QCOMPARE(slices.value()[0].layerRanges, (R { { 0, 1 }, { 4, 5 }, { 8, 9 } }));
        QCOMPARE(slices.value()[1].layerRanges, (R { { 2, 3 }, { 6, 7 }, { 10, 11 } }));
        QCOMPARE(stageLayersText(gpt2(), slices.value()[1]),
            std::string { "h.2–3, h.6–7, h.10–11, ln_f, lm_head" });
    }

    void impossibleCutsNameBothSettings()
    {
        auto tooMany = splitPipeline(gpt2(), 16, 1, {});
        QVERIFY(!tooMany);
        QCOMPARE(tooMany.error().location, std::string { "parallel.pipeline_parallel" });
        QVERIFY(tooMany.error().message.find("pipeline parallel 16") != std::string::npos);
        QVERIFY(tooMany.error().message.find("12 pipeline layers") != std::string::npos);
        auto interleaved = splitPipeline(gpt2(), 4, 4, {});
        QVERIFY(!interleaved);
        QCOMPARE(interleaved.error().location, std::string { "parallel.virtual_stages" });
        QVERIFY(interleaved.error().message.find("4 stages x 4 virtual stages needs at least 16 layers")
            != std::string::npos);
        auto sum = splitPipeline(gpt2(), 3, 1, { 4, 4, 5 });
        QVERIFY(!sum);
        QVERIFY(sum.error().message.find("(4 + 4 + 5 = 13) must add up to") != std::string::npos);
        auto chunks = splitPipeline(gpt2(), 2, 2, { 5, 7 });
        QVERIFY(!chunks);
        QCOMPARE(chunks.error().location, std::string { "parallel.stage_layers[0]" });
        // The same through the plan: the estimate's error.
        Plan plan = pipelinePlan(gpt2(), 16, 16, PipelineSchedule::OneFOneB);
        const PlanResult r = evaluate(plan);
        QVERIFY(r.error);
        QVERIFY(r.error->message.find("pipeline parallel 16") != std::string::npos);
    }

    void aSkipConnectionAcrossStagesIsRefused()
    {
        // "skip" on stage 2 takes "stem"'s output from stage 1 besides the boundary tensor.
        const Network n = parsed(R"({"format": "headroom-model", "version": 1, "name": "skip",
            "input": {"shape": [8], "dtype": "float32"}, "loss": "mse",
            "layers": [{"type": "Linear", "name": "stem", "out_features": 8},
                {"type": "Linear", "name": "a", "out_features": 8},
                {"type": "Linear", "name": "b", "out_features": 8},
                {"type": "Add", "name": "skip", "inputs": ["b", "stem"]}]})");
        auto slices = splitPipeline(n, 2, 1, {});
        QVERIFY(slices);
        auto stage
            = stageNetwork(n, slices.value()[1], InputSpec { Shape { { 8 } }, DType::Float32, std::nullopt });
        QVERIFY(!stage);
        QVERIFY(stage.error().message.find("layer 4 (skip)") != std::string::npos);
        QVERIFY(stage.error().message.find("layer 1 (stem)") != std::string::npos);
        QCOMPARE(stage.error().location, std::string { "layers[3].inputs[1]" });
    }

    void schedulesKeepTheirMicroBatchesInFlight()
    {
        Parallelism par;
        par.pipelineParallel = 4;
        // 1F1B (Narayanan et al. 2021): stage s keeps min(p - s, m) micro-batches.
        for (std::int64_t s = 0; s < 4; ++s)
            QCOMPARE(heldMicroBatches(par, 8, s).inFlight(), static_cast<double>(4 - s));
        QCOMPARE(heldMicroBatches(par, 2, 0).inFlight(), 2.0);
        par.schedule = PipelineSchedule::ZeroBubble; // ZB-H1: 1F1B's peak (Qi et al. 2023, table 1)
        QCOMPARE(heldMicroBatches(par, 8, 1).inFlight(), 3.0);
        par.schedule = PipelineSchedule::GPipe; // every forward first: all m
        QCOMPARE(heldMicroBatches(par, 8, 3).inFlight(), 8.0);
        // Interleaved, p = 4, v = 2: Megatron's factor p (1 + (p - 1) / (p v)) = 4 x 11/8 = 5.5 on the
        // first stage; on the last (p - s - 1 = 0): ((v - 1) p + 1) / v = 5 / 2.
        par.schedule = PipelineSchedule::Interleaved;
        par.virtualStages = 2;
        QCOMPARE(heldMicroBatches(par, 8, 0).inFlight(), 5.5);
        QCOMPARE(heldMicroBatches(par, 8, 3).inFlight(), 2.5);
        // One micro-batch: nothing else in flight.
        QCOMPARE(heldMicroBatches(par, 1, 0).inFlight(), 1.0);
    }

    void eachStageKeepsWhatGlooMeasured_data()
    {
        QTest::addColumn<QString>("layout");
        QTest::addColumn<int>("schedule");
        QTest::addColumn<int>("heaviest");
        // 1F1B's heaviest GPU is the first stage (4 in flight); under GPipe every stage holds 8 and the
        // last also their outputs (above).
        QTest::newRow("1f1b") << "pipeline_1f1b" << static_cast<int>(PipelineSchedule::OneFOneB) << 0;
        QTest::newRow("gpipe") << "pipeline_gpipe" << static_cast<int>(PipelineSchedule::GPipe) << 3;
    }

    void eachStageKeepsWhatGlooMeasured()
    {
        // PyTorch 1.13 on gloo, 4 processes with 2 blocks each, 8 micro-batches of 2: each micro-batch
        // keeps 82,432 bytes per stage (per block LN input 4,096 + mean and rstd 256 + LN output 4,096 +
        // fc1 output 16,384 + GELU output 16,384 = 41,216), and the stage's peak holds in_flight of them.
        QFETCH(QString, layout);
        QFETCH(int, schedule);
        QFETCH(int, heaviest);
        const nlohmann::json ref = glooReference(layout.toStdString());
        Plan plan = pipelinePlan(glooBlocks(8), 4, 8, static_cast<PipelineSchedule>(schedule));
        const PlanResult r = evaluate(plan);
        QVERIFY2(!r.error, r.error ? r.error->message.c_str() : "");
        QCOMPARE(r.stages.size(), std::size_t { 4 });
        for (const auto& rank : ref["ranks"]) {
            const auto s = rank["rank"].get<std::size_t>();
            const PipelineStageResult& stage = r.stages[s];
            const auto measured = rank["measured"];
            QCOMPARE(stage.result.analysis.totalParams, measured["params"].get<std::uint64_t>());
            QCOMPARE(stage.held.inFlight(), measured["in_flight"].get<double>());
            // The running micro-batch's saved tensors at the end of its forward, plus the held ones, plus
            // the running one's output, [2, 16, 32] float32 = 4,096 bytes, alive until it is sent (the
            // script counts saved tensors; a held micro-batch's output was freed once sent). The last
            // stage sends nothing: with no loss ("none") each of its held micro-batches keeps its output
            // for the backward that starts from it, where the script's out.mean() freed it.
            const std::uint64_t perMicroBatch = measured["saved_bytes_per_microbatch"].get<std::uint64_t>();
            const auto heldOutputs = static_cast<std::uint64_t>(s == 3 ? stage.held.chunkPasses : 0);
            QCOMPARE(savedAtEndOfForward(stage.result, 2),
                measured["saved_bytes"].get<std::uint64_t>() + 4'096 * (1 + heldOutputs));
            QCOMPARE(perMicroBatch, std::uint64_t { 82'432 });
            // The send and receive buffers: one [2, 16, 32] float32 tensor (4,096 bytes) from each neighbour.
            const MemoryBreakdown end
                = stage.result.memory->momentAt(stage.result.memory->endOfForwardMoment(), 2);
            const std::uint64_t neighbours = (s > 0 ? 1 : 0) + (s < 3 ? 1 : 0);
            QCOMPARE(end.communication, neighbours * 4'096);
        }
        QCOMPARE(r.heaviestStage, static_cast<std::size_t>(heaviest));
    }

    void megatronsFirstStageInItsOwnRegime()
    {
        // GPT-3 175B as Megatron-LM's theoretical_memory_usage.py counts it (tests/reference/
        // megatron_theoretical_memory.py re-implements it): TP 8, PP 16, DP 8, SP with selective
        // recomputation, micro-batch 1, 192 micro-batches, bf16.
        const auto ref = megatronCase("gpt3-175b tp8 pp16 dp8 sp+selective distopt=False vpp=None");
        auto network = loadModelFile(HEADROOM_TEST_SOURCE_DIR "/tests/data/parallel/gpt3_175b.json");
        QVERIFY(network);
        Plan plan = pipelinePlan(network.value(), 16, 192, PipelineSchedule::OneFOneB);
        plan.precision = Precision::Bf16;
        plan.checkpointing = Checkpointing::Selective;
        plan.setup.batch = 1;
        plan.setup.optimizer = Optimizer::Adam;
        plan.setup.parallel.gpus = 1024;
        plan.setup.parallel.tensorParallel = 8;
        plan.setup.parallel.sequenceParallel = true;
        const PlanResult r = evaluate(plan);
        QVERIFY2(!r.error, r.error ? r.error->message.c_str() : "");
        const PlanResult& first = r.stages[0].result;
        // Parameters per GPU on the first stage: Megatron's most loaded shard, plus what its formula leaves
        // out or counts otherwise (h = 12,288): the learned position embedding, 2,048 h / 8 = 3,145,728;
        // the 9h biases of each of the 6 layers, 6 x 9h / 8 = 82,944; Headroom divides the layers' 4h
        // LayerNorm weights by t (6 x 4h / 8 = 36,864) where Megatron replicates them and charges each
        // stage its share of all of them, (96 x 4h + 2h) / 16 = 296,448.
        const auto megatron = ref["weights"]["params_most_loaded_shard"].get<double>();
        QCOMPARE(megatron, 1'437'894'144.0);
        const std::uint64_t expected = 1'437'894'144 + 3'145'728 + 82'944 + 36'864 - 296'448;
        QCOMPARE(first.estimate->bytes.weights, expected * 2); // bf16
        // Adam in pure bf16: 2 (weight) + 2 (gradient) + 12 (float32 master, m, v) bytes per parameter,
        // Megatron's 18 with its float32 main_grad buffer; DDP's bucket (2 bytes) stands for that buffer.
        QCOMPARE(first.estimate->bytes.gradients, expected * 2);
        QCOMPARE(first.estimate->bytes.optimizerState, expected * 12);
        // Per layer and micro-batch, the activations Megatron counts with SP and selective recomputation,
        // sbh x 34 / t (Korthikanti et al. 2022, table 2), against nn.TransformerEncoderLayer's in
        // PyTorch: 4 sbh more for the dropout mask after the MLP's activation (4h x 1 byte, Megatron's MLP
        // has no dropout there), 2 sbh for SDPA's output and out_proj's input being two tensors, the
        // flash log-sum-exp (a x s float32) and the LayerNorms' mean and rstd (2 x 2 x s float32).
        const double sbh = 2048.0 * 12288.0;
        QCOMPARE(ref["activation_sp_selective"]["per_layer_bytes_per_rank"].get<double>() * 8, 34 * sbh);
        const auto layer = std::find_if(r.wholeModel().rows.begin(), r.wholeModel().rows.end(),
            [](const LayerRow& row) { return row.type == "TransformerEncoderLayer"; });
        QVERIFY(layer != r.wholeModel().rows.end());
        QCOMPARE(static_cast<double>(layer->activationBytesPerSample),
            (34 + 4 + 2) * sbh + 96 * 2048 * 4 + 2 * 2 * 2048 * 4);
        // 1F1B keeps 16 micro-batches in flight on the first stage, as Megatron's formula does.
        QCOMPARE(r.stages[0].held.inFlight(),
            ref["activation_sp_selective"]["in_flight_microbatches"].get<double>());
    }

    void aStageMayHoldNoExperts()
    {
        // DeepSeek-V3's first 3 layers are dense (first_k_dense_replace), the other 58 mixtures of 256
        // experts: over 16 stages the first holds 3 dense layers, and expert parallelism applies to the
        // stages that hold experts. A dense model with expert parallelism is still refused.
        auto network = loadNetworkFile(HEADROOM_TEST_SOURCE_DIR "/tests/data/hf/DeepSeek-V3.json");
        QVERIFY(network);
        Plan plan = pipelinePlan(network.value(), 16, 16, PipelineSchedule::OneFOneB);
        plan.sequenceLength = 512;
        plan.precision = Precision::Bf16;
        plan.setup.batch = 1;
        plan.setup.parallel.gpus = 1024;
        plan.setup.parallel.expertParallel = 64;
        const PlanResult r = evaluate(plan);
        QVERIFY2(!r.error, r.error ? r.error->message.c_str() : "");
        QCOMPARE(r.stages[0].slice.layerCount(), std::int64_t { 3 });
        plan.network = gpt2();
        plan.sequenceLength.reset();
        const PlanResult dense = evaluate(plan);
        QVERIFY(dense.error);
        QCOMPARE(dense.error->message,
            std::string { "expert parallel 64 splits the experts of mixture-of-experts layers, but the model "
                          "has none" });
    }

    void megatronsLlamaFirstStage()
    {
        // A Llama-3-70B-shaped model (80 layers, h = 8,192, 8 key/value heads, SwiGLU 28,672, vocabulary
        // 128,256, untied head) with TP 8, PP 4, SP and selective recomputation, as
        // megatron_reference.json has it. Parameters per GPU on the first stage: Megatron's most loaded
        // shard, less its vocabulary padding to 129,024 rows (768 x 8,192 / 8 = 786,432), with Headroom's
        // 20 RMSNorm pairs kept whole on each rank (20 x 2 x 8,192 = 327,680) in place of Megatron's share
        // of every norm, (80 x 2 x 8,192 + 8,192) / 4 = 329,728.
        const auto ref = megatronCase("llama-70b tp8 pp4 dp2 sp+selective=True distopt=False");
        auto network = loadNetworkFile(HEADROOM_TEST_SOURCE_DIR "/tests/data/hf/Llama-3-70B-like.json");
        QVERIFY(network);
        Plan plan = pipelinePlan(
            network.value(), 4, ref["num_microbatches"].get<std::int64_t>(), PipelineSchedule::OneFOneB);
        plan.sequenceLength = 4096;
        plan.precision = Precision::Bf16;
        plan.checkpointing = Checkpointing::Selective;
        plan.setup.batch = 1;
        plan.setup.parallel.gpus = 64;
        plan.setup.parallel.tensorParallel = 8;
        plan.setup.parallel.sequenceParallel = true;
        const PlanResult r = evaluate(plan);
        QVERIFY2(!r.error, r.error ? r.error->message.c_str() : "");
        const auto megatron = ref["weights"]["params_most_loaded_shard"].get<double>();
        QCOMPARE(megatron, 2'271'545'344.0);
        const std::uint64_t expected = 2'271'545'344 - 786'432 + 327'680 - 329'728;
        QCOMPARE(r.stages[0].result.estimate->bytes.weights, expected * 2); // bf16
        QCOMPARE(r.stages[0].held.inFlight(),
            ref["activation_sp_selective"]["in_flight_microbatches"].get<double>());
    }

    void theHeaviestStageIsThePlansAnswer()
    {
        // GPT-2 small over 4 stages, 1F1B, 8 micro-batches of 4 on an 80 GiB GPU. Stage 4 holds 3 blocks,
        // ln_f and its own copy of the head: 3 x 7,087,872 + 1,536 + 768 x 50,257 = 59,862,528
        // parameters; stage 1 the embeddings (38,597,376 + 786,432) and 3 blocks: 60,647,424.
        Plan plan = pipelinePlan(gpt2(), 4, 8, PipelineSchedule::OneFOneB);
        plan.setup.batch = 4;
        const PlanResult r = evaluate(plan);
        QVERIFY2(!r.error, r.error ? r.error->message.c_str() : "");
        QCOMPARE(r.stages[3].result.analysis.totalParams, std::uint64_t { 59'862'528 });
        QCOMPARE(r.stages[0].result.analysis.totalParams, std::uint64_t { 60'647'424 });
        QCOMPARE(r.wholeModel().totalParams, std::uint64_t { 124'439'808 });
        // The plan's figures are the heaviest stage's: the smallest max batch of them all.
        std::int64_t smallest = INT64_MAX;
        for (const auto& s : r.stages)
            smallest = std::min(smallest, s.result.estimate->maxBatch);
        QCOMPARE(r.estimate->maxBatch, smallest);
        QCOMPARE(r.estimate->maxBatch, r.stages[r.heaviestStage].result.estimate->maxBatch);
        // Each stage names its layers as the model does: stage 3's blocks are h.6-8, not h.0-2.
        const auto named = [&](std::size_t stage, const std::string& name) {
            const auto& rows = r.stages[stage].result.analysis.rows;
            return std::any_of(
                rows.begin(), rows.end(), [&](const LayerRow& row) { return rangeName(row) == name; });
        };
        QVERIFY(named(2, "h.6.block") && named(2, "h.8.block") && !named(2, "h.0.block"));
        QVERIFY(named(0, "h.0.block") && named(0, "h.2.block"));
        QVERIFY(named(3, "h.11.block") && !named(3, "h.2.block"));
        // A slider tick re-reads every stage.
        PlanResult again = r;
        plan.setup.batch = 8;
        reestimate(again, plan);
        QCOMPARE(again.estimate->batch, std::int64_t { 8 });
        QCOMPARE(again.stages[1].result.estimate->batch, std::int64_t { 8 });
        // Why stage 1 holds what it does, by 1F1B's rule: p - s = 4 in flight, 3 of them held.
        QVERIFY(stageExplanation(r.stages[0], 4)
                    .starts_with("Stage 1 of 4 keeps 4 micro-batches in flight (1F1B: p − s): besides the "
                                 "running one, 3 held micro-batches of "));
        QVERIFY(stageExplanation(r.stages[3], 4)
                    .starts_with("Stage 4 of 4 keeps 1 micro-batch in flight (1F1B: p − s); at batch 4"));
        // The bubble: (p - 1) / (v m) = 3 / 8 of the busiest stage's time (Narayanan et al. 2021).
        QCOMPARE(pipelineBubbleFraction(plan.setup.parallel, 8), 0.375);
        const auto json = planToJson(plan, r);
        QCOMPARE(json["pipeline"]["stages"].size(), std::size_t { 4 });
        QCOMPARE(json["params"]["total"].get<std::uint64_t>(), std::uint64_t { 124'439'808 });
    }
};

QTEST_APPLESS_MAIN(TestPipeline)
#include "tst_pipeline.moc"

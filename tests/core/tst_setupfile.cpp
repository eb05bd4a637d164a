// The training set-up saved in a model file ("training", docs/model-format.md "The saved set-up"): what is
// written reads back as the same settings, a key left out is Headroom's default, and every mistake is
// refused with a message that starts with its JSON path.
#include "CatalogueGpus.h"
#include "headroom/estimate/SetupFile.h"
#include "headroom/model/ModelFile.h"

#include <QTest>
#include <string>

Q_DECLARE_METATYPE(headroom::PlanSettings)

using namespace headroom;
using namespace headroom::test;

namespace {

/// A two-layer model with `training` (JSON text) as its saved set-up; none when empty.
std::string modelText(const std::string& training)
{
    return R"({ "format": "headroom-model", "version": 1, "name": "tiny",
        "input": { "shape": [16] },
        "layers": [ { "type": "Linear", "name": "fc", "out_features": 4 } ])"
        + (training.empty() ? std::string() : ",\n \"training\": " + training) + " }";
}

/// The settings a model file with `training` holds, or its error.
Result<PlanSettings> read(const std::string& training)
{
    auto document = parseModelDocument(modelText(training));
    if (!document)
        return document.error();
    return parseTrainingSetup(document->training, catalogue());
}

/// Settings in which every field differs from its default (so that a field the writer or the reader
/// forgets cannot pass unseen).
PlanSettings everythingSet()
{
    PlanSettings s;
    s.gpu = catalogueGpu("H100 SXM");
    s.precision = Precision::AmpBf16;
    s.checkpointing = Checkpointing::Selective;
    s.attention = AttentionImplementation::Eager;
    s.lora = { 16, { "q_proj", "v_proj" }, 0.05, true };
    s.sequenceLength = 4096;
    s.moeImbalance = 1.5;
    TrainingSetup& t = s.setup;
    t.optimizer = Optimizer::AdamW;
    t.optimizerImplementation = OptimizerImplementation::ForLoop;
    t.batch = 3;
    t.accumulationSteps = 8;
    t.eightBitOptimizer = true;
    t.overheadBytes = 700ULL << 20;
    t.expandableSegments = true;
    t.assumedUtilization = 0.55;
    t.calibration = { 100ULL << 20, 3ULL << 20, 4, "run.pickle" };
    t.gpusPerNode = 4;
    t.interNodeGBps = 12.5;
    Parallelism& p = t.parallel;
    p.gpus = 64;
    p.sharding = Sharding::Zero1;
    p.offloadOptimizer = true;
    p.tensorParallel = 2;
    p.sequenceParallel = true;
    p.pipelineParallel = 4;
    p.schedule = PipelineSchedule::Interleaved;
    p.virtualStages = 2;
    p.stageLayers = { 7, 9, 9, 7 };
    p.contextParallel = 2;
    p.contextKind = ContextParallelism::AllToAll;
    p.expertParallel = 4;
    p.expertTensorParallel = 2;
    p.activationOffload = ActivationOffload::Checkpoints;
    return s;
}

} // namespace

class TestSetupFile : public QObject
{
    Q_OBJECT
private slots:
    void roundTrip_data();
    void roundTrip();
    void keysLeftOutAreDefaults();
    void writtenInAFixedOrder();
    void jsonOutputsParallelObjectReads();
    void fileWithoutSetupHasNone();
    void badSetup_data();
    void badSetup();
    void customGpuObject();
    void customGpuObjectErrors_data();
    void customGpuObjectErrors();
};

void TestSetupFile::roundTrip_data()
{
    QTest::addColumn<PlanSettings>("settings");
    PlanSettings defaults;
    defaults.gpu = catalogueGpu("GTX 1080");
    QTest::newRow("defaults") << defaults;
    QTest::newRow("every setting changed") << everythingSet();
    PlanSettings custom = everythingSet();
    custom.gpu = Gpu { "My card", "Custom", "Custom", {}, 20ULL << 30, 900, 40, 160, 160, 0, 0, true };
    custom.setup.calibration = {};
    custom.sequenceLength.reset();
    custom.setup.parallel.stageLayers.clear();
    QTest::newRow("custom GPU, no calibration") << custom;
    PlanSettings bare = defaults;
    bare.gpu = Gpu { "Custom GPU", "Custom", "Custom", {}, 24ULL << 30, 0, 0, 0, 0, 0, 0, true };
    QTest::newRow("custom GPU without figures") << bare;
    // Its links too (Communication.cpp's intra-node bandwidth): NVLink's 450 GB/s each way, PCIe 5.
    PlanSettings linked = defaults;
    linked.gpu = Gpu { "Linked card", "Custom", "Custom", {}, 80ULL << 30, 3350, 67, 989, 989, 450, 5, true };
    linked.setup.parallel.gpus = 8;
    QTest::newRow("custom GPU with its links") << linked;
    PlanSettings pcieOnly = defaults;
    pcieOnly.gpu = Gpu { "PCIe card", "Custom", "Custom", {}, 24ULL << 30, 1008, 82.6, 165, 165, 0, 4, true };
    QTest::newRow("custom GPU with a PCIe generation only") << pcieOnly;
}

void TestSetupFile::roundTrip()
{
    QFETCH(PlanSettings, settings);
    Network network;
    network.name = "tiny";
    network.input.shape.dims = { 16 };
    network.layers.push_back(LayerSpec {});
    network.layers.back().type = "Linear";
    network.layers.back().attributes["out_features"] = 4;
    const std::string text = serializeModel(network, trainingSetupToJson(settings));
    auto document = parseModelDocument(text);
    QVERIFY2(document.ok(), document.ok() ? "" : document.error().message.c_str());
    QVERIFY(document->network == network);
    auto back = parseTrainingSetup(document->training, catalogue());
    QVERIFY2(back.ok(), back.ok() ? "" : back.error().message.c_str());
    QVERIFY2(back.value() == settings, text.c_str());
}

void TestSetupFile::keysLeftOutAreDefaults()
{
    // Only the batch: everything else as Headroom starts (PlanSettings{}), on the catalogue's default GPU
    // (GeForce GTX 1080) with its CUDA context as the overhead.
    auto s = read(R"({ "batch": 8 })");
    QVERIFY2(s.ok(), s.ok() ? "" : s.error().message.c_str());
    PlanSettings expected;
    expected.gpu = catalogueGpu("GeForce GTX 1080");
    expected.setup.overheadBytes = defaultOverheadBytes(expected.gpu);
    expected.setup.batch = 8;
    QVERIFY(s.value() == expected);
    // An empty object is the defaults, batch 32 among them.
    auto empty = read("{}");
    QVERIFY(empty.ok());
    QCOMPARE(empty->setup.batch, 32);
    QCOMPARE(empty->setup.parallel.gpus, 1);
    // A catalogue GPU by any name --gpu takes.
    auto h100 = read(R"({ "gpu": "h100 sxm" })");
    QVERIFY2(h100.ok(), h100.ok() ? "" : h100.error().message.c_str());
    QCOMPARE(h100->gpu.name, catalogueGpu("H100 SXM").name);
    QCOMPARE(h100->setup.overheadBytes, defaultOverheadBytes(h100->gpu));
    // The links: 8 GPUs per node, 50 GB/s per GPU between nodes unless the file says otherwise.
    QCOMPARE(empty->setup.gpusPerNode, 8);
    QCOMPARE(empty->setup.interNodeGBps, 50.0);
    auto links = read(R"({ "gpus_per_node": 2, "inter_node_gbps": 25 })");
    QVERIFY2(links.ok(), links.ok() ? "" : links.error().message.c_str());
    QCOMPARE(links->setup.gpusPerNode, 2);
    QCOMPARE(links->setup.interNodeGBps, 25.0);
}

void TestSetupFile::writtenInAFixedOrder()
{
    // docs/model-format.md's table lists the keys in this order.
    const auto j = trainingSetupToJson(everythingSet());
    QStringList keys;
    for (const auto& [key, value] : j.items())
        keys << QString::fromStdString(key);
    QCOMPARE(keys.join(QLatin1Char(' ')),
        QStringLiteral(
            "gpu precision optimizer optimizer_implementation eight_bit_optimizer batch "
            "accumulation_steps checkpointing attention sequence_length moe_imbalance lora parallel "
            "gpus_per_node inter_node_gbps overhead_bytes expandable_segments assumed_utilization "
            "calibration"));
    QStringList parallel;
    for (const auto& [key, value] : j["parallel"].items())
        parallel << QString::fromStdString(key);
    QCOMPARE(parallel.join(QLatin1Char(' ')),
        QStringLiteral(
            "gpus sharding tensor_parallel sequence_parallel pipeline_parallel schedule virtual_stages "
            "stage_layers context_parallel context_parallel_kind expert_parallel "
            "expert_tensor_parallel offload_optimizer offload_activations"));
    QCOMPARE(
        QString::fromStdString(j["parallel"]["schedule"].get<std::string>()), QStringLiteral("interleaved"));
    QCOMPARE(j["gpu"].get<std::string>(), catalogueGpu("H100 SXM").name);
    QCOMPARE(j["gpus_per_node"].get<int>(), 4);
    QCOMPARE(j["inter_node_gbps"].get<double>(), 12.5);
}

void TestSetupFile::jsonOutputsParallelObjectReads()
{
    // `headroom estimate --json`'s "parallel" object, pasted as it is: its data-parallel degrees agree.
    const Parallelism p = everythingSet().setup.parallel;
    nlohmann::json training;
    training["parallel"] = nlohmann::json::parse(parallelismToJson(p).dump());
    training["accumulation_steps"] = 8;
    training["parallel"]["offload_optimizer"] = false;
    training["parallel"]["sharding"] = "zero1";
    auto s = parseTrainingSetup(training, catalogue());
    QVERIFY2(s.ok(), s.ok() ? "" : s.error().message.c_str());
    Parallelism expected = p;
    expected.offloadOptimizer = false;
    QVERIFY(s->setup.parallel == expected);
    // 64 GPUs / (2 x 4 x 2) = 4 data-parallel ranks; 64 / (4 x 4 x 2) = 2 expert-data-parallel.
    QCOMPARE(training["parallel"]["data_parallel"].get<int>(), 4);
    QCOMPARE(training["parallel"]["expert_data_parallel"].get<int>(), 2);
}

void TestSetupFile::fileWithoutSetupHasNone()
{
    auto document = parseModelDocument(modelText(""));
    QVERIFY(document.ok());
    QVERIFY(document->training.is_null());
    Network network = document->network;
    QVERIFY(serializeModel(network).find("training") == std::string::npos);
}

void TestSetupFile::badSetup_data()
{
    QTest::addColumn<QString>("training");
    QTest::addColumn<QString>("location");
    QTest::addColumn<QString>("message"); // the start of the message
    const auto row = [](const char* name, const char* training, const char* location, const char* message) {
        QTest::newRow(name) << QString::fromUtf8(training) << QString::fromUtf8(location)
                            << QString::fromUtf8(message);
    };
    row("not an object", "[8]", "training",
        "training must be an object: the training set-up saved with the model");
    row("unknown key", R"({ "batchsize": 8 })", "training.batchsize",
        "training.batchsize is not a key of training (it takes gpu, precision");
    row("batch as text", R"({ "batch": "8" })", "training.batch",
        "training.batch must be an integer from 1 to 2147483648, not \"8\"");
    row("batch 0", R"({ "batch": 0 })", "training.batch",
        "training.batch must be an integer from 1 to 2147483648, not 0");
    row("fractional batch", R"({ "batch": 8.5 })", "training.batch", "training.batch must be an integer");
    row("batch too large", R"({ "batch": 18446744073709551615 })", "training.batch",
        "training.batch must be an integer");
    row("unknown precision", R"({ "precision": "fp8" })", "training.precision",
        "training.precision must be one of \"fp32\", \"amp-fp16\", \"amp-bf16\", \"fp16\" or \"bf16\", not "
        "\"fp8\"");
    row("unknown GPU", R"({ "gpu": "Voodoo 5" })", "training.gpu",
        "training.gpu names no GPU of the catalogue:");
    row("GPU as a number", R"({ "gpu": 5 })", "training.gpu",
        "training.gpu must be a GPU's name from the catalogue");
    row("custom GPU without memory", R"({ "gpu": { "name": "X" } })", "training.gpu",
        "training.gpu is a custom GPU: it needs \"name\" and \"memory_bytes\"");
    row("custom GPU too small", R"({ "gpu": { "name": "X", "memory_bytes": 1000 } })",
        "training.gpu.memory_bytes", "training.gpu.memory_bytes must be at least 268435456");
    row("custom GPU unknown figure", R"({ "gpu": { "name": "X", "memory_bytes": 8589934592, "tflops": 3 } })",
        "training.gpu.tflops", "training.gpu.tflops is not a key of training.gpu");
    row("custom GPU negative bandwidth",
        R"({ "gpu": { "name": "X", "memory_bytes": 8589934592, "bandwidth_gbps": -1 } })",
        "training.gpu.bandwidth_gbps", "training.gpu.bandwidth_gbps must be a number from 0");
    row("custom GPU negative link",
        R"({ "gpu": { "name": "X", "memory_bytes": 8589934592, "link_gbps": -450 } })",
        "training.gpu.link_gbps", "training.gpu.link_gbps must be a number from 0 to 1e+09, not -450");
    row("custom GPU link as text",
        R"({ "gpu": { "name": "X", "memory_bytes": 8589934592, "link_gbps": "nvlink" } })",
        "training.gpu.link_gbps", "training.gpu.link_gbps must be a number from 0 to 1e+09, not \"nvlink\"");
    row("custom GPU PCIe 7", R"({ "gpu": { "name": "X", "memory_bytes": 8589934592, "pcie_gen": 7 } })",
        "training.gpu.pcie_gen",
        "training.gpu.pcie_gen must be a PCIe generation from 0 (unknown) to 6, not 7");
    row("custom GPU PCIe -1", R"({ "gpu": { "name": "X", "memory_bytes": 8589934592, "pcie_gen": -1 } })",
        "training.gpu.pcie_gen",
        "training.gpu.pcie_gen must be a PCIe generation from 0 (unknown) to 6, not -1");
    row("custom GPU PCIe 4.5", R"({ "gpu": { "name": "X", "memory_bytes": 8589934592, "pcie_gen": 4.5 } })",
        "training.gpu.pcie_gen",
        "training.gpu.pcie_gen must be a PCIe generation from 0 (unknown) to 6, not 4.5");
    row("pipeline 0", R"({ "parallel": { "pipeline_parallel": 0 } })", "training.parallel.pipeline_parallel",
        "training.parallel.pipeline_parallel must be an integer from 1 to 65536, not 0");
    row("parallel key misspelt", R"({ "parallel": { "pipeline": 2 } })", "training.parallel.pipeline",
        "training.parallel.pipeline is not a key of training.parallel");
    row("parallel not an object", R"({ "parallel": 2 })", "training.parallel",
        "training.parallel must be an object, not an integer");
    row("negative stage layers", R"({ "parallel": { "stage_layers": [3, -1] } })",
        "training.parallel.stage_layers[1]",
        "training.parallel.stage_layers[1] must be an integer from 0 to 65536, not -1");
    row("stage layers as text", R"({ "parallel": { "stage_layers": "3,4" } })",
        "training.parallel.stage_layers",
        "training.parallel.stage_layers must be a list of layer counts per stage");
    row("unknown schedule", R"({ "parallel": { "schedule": "1F1B" } })", "training.parallel.schedule",
        "training.parallel.schedule must be one of \"gpipe\", \"1f1b\", \"interleaved\" or \"zero-bubble\", "
        "not \"1F1B\"");
    row("unknown offload", R"({ "parallel": { "offload_activations": "everything" } })",
        "training.parallel.offload_activations",
        "training.parallel.offload_activations must be one of \"none\", \"checkpoints\" or \"all\"");
    row("tensor parallel not dividing", R"({ "parallel": { "gpus": 8, "tensor_parallel": 3 } })",
        "training.parallel.tensor_parallel",
        "training.parallel.tensor_parallel: the tensor-parallel degree 3 must divide the GPU count 8");
    row("data parallel disagrees", R"({ "parallel": { "gpus": 8, "data_parallel": 4 } })",
        "training.parallel.data_parallel",
        "training.parallel.data_parallel is 4 but gpus / (tensor x pipeline x context parallel) is 8");
    row("offload without ZeRO", R"({ "parallel": { "offload_optimizer": true } })",
        "training.parallel.offload_optimizer",
        "training.parallel.offload_optimizer: offloading the optimizer to the CPU needs DeepSpeed ZeRO");
    row("QLoRA without rank", R"({ "lora": { "quantize_base": true } })", "training.lora.quantize_base",
        "training.lora.quantize_base needs training.lora.rank above 0");
    row("LoRA dropout 1", R"({ "lora": { "rank": 8, "dropout": 1 } })", "training.lora.dropout",
        "training.lora.dropout must be a number from 0 to below 1, not 1");
    row("LoRA target not a name", R"({ "lora": { "rank": 8, "targets": ["q_proj", 3] } })",
        "training.lora.targets[1]",
        "training.lora.targets[1] must be a Linear layer's name (a string), not 3");
    row("LoRA rank too large", R"({ "lora": { "rank": 70000 } })", "training.lora.rank",
        "training.lora.rank must be an integer from 0 to 65536, not 70000");
    row("balanced below 1", R"({ "moe_imbalance": 0.5 })", "training.moe_imbalance",
        "training.moe_imbalance must be a number from 1 to 1024, not 0.5");
    row("utilization 0", R"({ "assumed_utilization": 0 })", "training.assumed_utilization",
        "training.assumed_utilization must be a number from 0.01 to 1, not 0");
    row("sequence length 0", R"({ "sequence_length": 0 })", "training.sequence_length",
        "training.sequence_length must be an integer from 1 to 2147483648, not 0");
    row("negative overhead", R"({ "overhead_bytes": -1 })", "training.overhead_bytes",
        "training.overhead_bytes must be a number of bytes from 0 to 1099511627776");
    row("calibration key misspelt", R"({ "calibration": { "fixed_bytes": 1, "oops": 2 } })",
        "training.calibration.oops", "training.calibration.oops is not a key of training.calibration");
    row("flag as text", R"({ "eight_bit_optimizer": "yes" })", "training.eight_bit_optimizer",
        "training.eight_bit_optimizer must be true or false, not \"yes\"");
    row("8-bit SGD without state", R"({ "optimizer": "sgd", "eight_bit_optimizer": true })",
        "training.eight_bit_optimizer",
        "training.eight_bit_optimizer: 8-bit optimizer state needs an optimizer with state");
    row("no GPUs per node", R"({ "gpus_per_node": 0 })", "training.gpus_per_node",
        "training.gpus_per_node must be an integer from 1 to 1048576, not 0");
    row("GPUs per node as text", R"({ "gpus_per_node": "8" })", "training.gpus_per_node",
        "training.gpus_per_node must be an integer from 1 to 1048576, not \"8\"");
    row("no network", R"({ "inter_node_gbps": 0 })", "training.inter_node_gbps",
        "training.inter_node_gbps must be a bandwidth in GB/s per GPU above 0 and at most 10000, not 0");
    row("network too fast", R"({ "inter_node_gbps": 20000 })", "training.inter_node_gbps",
        "training.inter_node_gbps must be a bandwidth in GB/s per GPU above 0 and at most 10000, not 20000");
    row("network as text", R"({ "inter_node_gbps": "fast" })", "training.inter_node_gbps",
        "training.inter_node_gbps must be a bandwidth in GB/s per GPU above 0 and at most 10000, not "
        "\"fast\"");
    row("accumulation too large", R"({ "accumulation_steps": 2000000 })", "training.accumulation_steps",
        "training.accumulation_steps must be an integer from 1 to 1048576, not 2000000");
}

void TestSetupFile::badSetup()
{
    QFETCH(QString, training);
    QFETCH(QString, location);
    QFETCH(QString, message);
    const auto s = read(training.toStdString());
    QVERIFY2(!s.ok(), "accepted");
    const QString got = QString::fromStdString(s.error().message);
    QVERIFY2(got.startsWith(message), qPrintable(got));
    QCOMPARE(QString::fromStdString(s.error().location), location);
}

void TestSetupFile::customGpuObject()
{
    // The object alone, as the GUI remembers a custom GPU: the keys in a fixed order, a figure of 0 (not
    // known) left out, and read back as the same GPU. nlohmann::json writes a double with its ".0".
    const Gpu card { "Lab card", "Custom", "Custom", {}, 24ULL << 30, 1008, 82.58, 165.2, 0, 0, 4, true };
    const auto j = customGpuToJson(card);
    QCOMPARE(QString::fromStdString(j.dump()),
        QStringLiteral(R"({"name":"Lab card","memory_bytes":25769803776,"bandwidth_gbps":1008.0,)"
                       R"("fp32_tflops":82.58,"fp16_tflops":165.2,"pcie_gen":4})"));
    auto back = parseCustomGpu(nlohmann::json::parse(j.dump()), "customGpus[0]");
    QVERIFY2(back.ok(), back.ok() ? "" : back.error().message.c_str());
    QVERIFY(back.value() == card);
    const Gpu linked { "NVLink card", "Custom", "Custom", {}, 80ULL << 30, 3350, 67, 989.5, 989.5, 450, 5,
        true };
    back = parseCustomGpu(nlohmann::json::parse(customGpuToJson(linked).dump()), "customGpus[1]");
    QVERIFY2(back.ok(), back.ok() ? "" : back.error().message.c_str());
    QVERIFY(back.value() == linked);

    // A key this Headroom does not know (a later one's figure): refused in a model file, where it is
    // more likely a misspelling; ignored for the GUI's remembered GPUs, the rest still read.
    const auto later = nlohmann::json::parse(
        R"({ "name": "Later card", "memory_bytes": 8589934592, "fp32_tflops": 12.5, "fp8_tflops": 50 })");
    const auto refused = parseCustomGpu(later, "customGpus[2]");
    QVERIFY(!refused.ok());
    QCOMPARE(QString::fromStdString(refused.error().location), QStringLiteral("customGpus[2].fp8_tflops"));
    QVERIFY2(refused.error().message.starts_with("customGpus[2].fp8_tflops is not a key of customGpus[2]"),
        refused.error().message.c_str());
    const auto ignored = parseCustomGpu(later, "customGpus[2]", UnknownGpuKeys::Ignore);
    QVERIFY2(ignored.ok(), ignored.ok() ? "" : ignored.error().message.c_str());
    QCOMPARE(ignored->name, std::string("Later card"));
    QCOMPARE(ignored->memoryBytes, 8ULL << 30);
    QCOMPARE(ignored->fp32Tflops, 12.5);
    QVERIFY(ignored->custom);
}

void TestSetupFile::customGpuObjectErrors_data()
{
    QTest::addColumn<QString>("object");
    QTest::addColumn<QString>("location");
    QTest::addColumn<QString>("message");
    // Each error starts with the path the caller gives, whether or not unknown keys are ignored.
    QTest::newRow("not an object") << R"("Lab card")"
                                   << "customGpus[4]"
                                   << "customGpus[4] must be an object, not a string";
    QTest::newRow("no memory") << R"({ "name": "X" })"
                               << "customGpus[4]"
                               << R"(customGpus[4] is a custom GPU: it needs "name" and "memory_bytes")";
    QTest::newRow("empty name") << R"({ "name": "", "memory_bytes": 8589934592 })"
                                << "customGpus[4].name"
                                << "customGpus[4].name must be a name of 1 to 200 characters";
    // 0.25 GiB = 268,435,456 bytes is the least.
    QTest::newRow("too small") << R"({ "name": "X", "memory_bytes": 268435455 })"
                               << "customGpus[4].memory_bytes"
                               << "customGpus[4].memory_bytes must be at least 268435456";
    QTest::newRow("negative figure") << R"({ "name": "X", "memory_bytes": 8589934592, "fp16_tflops": -1 })"
                                     << "customGpus[4].fp16_tflops"
                                     << "customGpus[4].fp16_tflops must be a number from 0 to 1e+09, not -1";
    QTest::newRow("PCIe 7")
        << R"({ "name": "X", "memory_bytes": 8589934592, "pcie_gen": 7 })"
        << "customGpus[4].pcie_gen"
        << "customGpus[4].pcie_gen must be a PCIe generation from 0 (unknown) to 6, not 7";
}

void TestSetupFile::customGpuObjectErrors()
{
    QFETCH(QString, object);
    QFETCH(QString, location);
    QFETCH(QString, message);
    for (const auto unknown : { UnknownGpuKeys::Refuse, UnknownGpuKeys::Ignore }) {
        const auto gpu
            = parseCustomGpu(nlohmann::json::parse(object.toStdString()), "customGpus[4]", unknown);
        QVERIFY2(!gpu.ok(), "accepted");
        const QString got = QString::fromStdString(gpu.error().message);
        QVERIFY2(got.startsWith(message), qPrintable(got));
        QCOMPARE(QString::fromStdString(gpu.error().location), location);
    }
}

QTEST_APPLESS_MAIN(TestSetupFile)
#include "tst_setupfile.moc"

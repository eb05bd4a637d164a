// A set-up saved in the model file ("training", docs/cli.md "A set-up saved in the model file"): the
// commands start from it, each option given overrides its own setting, and a mistake in it is one line
// naming the file and the JSON path.
#include "CliTestSupport.h"
#include "headroom/estimate/SetupFile.h"
#include "headroom/model/ModelFile.h"
#include "headroom/setup/GpuCatalog.h"

using nlohmann::json;

class TestCliSetupFile : public QObject, CliFixture
{
    Q_OBJECT
private slots:
    void initTestCase();
    void theFileSetupIsTheStart();
    void optionsOverrideSettingBySetting();
    void sameAsTheOptions();
    void overheadFollowsTheGpu();
    void mistakesNameTheFileAndPath();
    void maxBatchAndPlanReadItToo();
    void plannedCommandsStartFromTheFile();
    void saveSetupWritesWhatWasPlanned();

private:
    /// kMlp with `training` (JSON text) as its saved set-up, written as `name`.
    QString withSetup(const QString& name, const char* training);
};

QString TestCliSetupFile::withSetup(const QString& name, const char* training)
{
    QByteArray text(kMlp);
    text.chop(1); // the closing brace
    text += QByteArray(",\n \"training\": ") + training + "}";
    QFile f(m_dir.filePath(name));
    if (!f.open(QIODevice::WriteOnly))
        qFatal("cannot write %s", qPrintable(f.fileName()));
    f.write(text);
    return f.fileName();
}

void TestCliSetupFile::initTestCase()
{
    writeInputFiles();
}

void TestCliSetupFile::theFileSetupIsTheStart()
{
    const QString file = withSetup(QStringLiteral("saved.json"),
        R"({ "gpu": "RTX 4090", "precision": "amp-bf16", "optimizer": "adamw", "batch": 8,
             "accumulation_steps": 2, "parallel": { "gpus": 4, "sharding": "zero2" } })");
    const json j = jsonOf({ file });
    QVERIFY(!j.is_null());
    QCOMPARE(j["batch"].get<int>(), 8);
    QCOMPARE(j["accumulation_steps"].get<int>(), 2);
    QCOMPARE(j["precision"].get<std::string>(), "amp-bf16");
    QCOMPARE(j["optimizer"].get<std::string>(), "adamw");
    QCOMPARE(j["parallel"]["gpus"].get<int>(), 4);
    QCOMPARE(j["parallel"]["sharding"].get<std::string>(), "zero2");
    QVERIFY2(QString::fromStdString(j["gpu"]["name"].get<std::string>()).contains(QStringLiteral("RTX 4090")),
        j["gpu"].dump().c_str());
    // The effective batch: 8 x 2 steps x 4 data-parallel GPUs.
    const Run r = runHeadroom({ QStringLiteral("estimate"), file });
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(r.out.contains(QStringLiteral("64")), qPrintable(r.out));
}

void TestCliSetupFile::optionsOverrideSettingBySetting()
{
    const QString file = withSetup(QStringLiteral("override.json"),
        R"({ "gpu": "RTX 4090", "batch": 8, "parallel": { "gpus": 4, "sharding": "zero2" } })");
    // The file says batch 8: --batch 16 wins, and the rest stays as the file says.
    json j = jsonOf({ file, QStringLiteral("--batch"), QStringLiteral("16") });
    QVERIFY(!j.is_null());
    QCOMPARE(j["batch"].get<int>(), 16);
    QCOMPARE(j["parallel"]["gpus"].get<int>(), 4);
    QCOMPARE(j["parallel"]["sharding"].get<std::string>(), "zero2");
    j = jsonOf({ file, QStringLiteral("--sharding"), QStringLiteral("ddp") });
    QVERIFY(!j.is_null());
    QCOMPARE(j["batch"].get<int>(), 8);
    QCOMPARE(j["parallel"]["sharding"].get<std::string>(), "ddp");
    // --tensor-parallel 2 divides the file's 4 GPUs (without the file it would need --gpus).
    j = jsonOf({ file, QStringLiteral("--tensor-parallel"), QStringLiteral("2") });
    QVERIFY(!j.is_null());
    QCOMPARE(j["parallel"]["tensor_parallel"].get<int>(), 2);
    QCOMPARE(j["parallel"]["data_parallel"].get<int>(), 2);
    // ... but 3 does not, and the error names the option.
    const Run bad = runHeadroom(
        { QStringLiteral("estimate"), file, QStringLiteral("--tensor-parallel"), QStringLiteral("3") });
    QCOMPARE(bad.exitCode, 2);
    QVERIFY2(
        bad.err.contains(QStringLiteral("--tensor-parallel 3 must divide --gpus 4")), qPrintable(bad.err));
    // The LoRA options need a rank: the file's counts.
    const QString lora = withSetup(QStringLiteral("lora.json"), R"({ "lora": { "rank": 8 } })");
    j = jsonOf({ lora, QStringLiteral("--lora-targets"), QStringLiteral("fc1") });
    QVERIFY(!j.is_null());
    QCOMPARE(j["lora"]["rank"].get<int>(), 8);
    QCOMPARE(j["lora"]["targets"], json::array({ "fc1" }));
    // The links between GPUs: the file's, each option overriding its own.
    const QString links = withSetup(QStringLiteral("links.json"),
        R"({ "gpu": "H100 SXM", "parallel": { "gpus": 16 }, "gpus_per_node": 2, "inter_node_gbps": 12.5 })");
    j = jsonOf({ links });
    QVERIFY(!j.is_null());
    QCOMPARE(j["gpus_per_node"].get<int>(), 2);
    QCOMPARE(j["inter_node_gbps"].get<double>(), 12.5);
    const double slow = j["throughput"]["step_seconds"].get<double>();
    j = jsonOf({ links, QStringLiteral("--inter-node-gbps"), QStringLiteral("25") });
    QVERIFY(!j.is_null());
    QCOMPARE(j["inter_node_gbps"].get<double>(), 25.0);
    QCOMPARE(j["gpus_per_node"].get<int>(), 2);
    // 16 GPUs over 8 nodes: the gradients' all-reduce goes over the network, faster at 25 GB/s.
    QVERIFY2(j["throughput"]["step_seconds"].get<double>() < slow, j["throughput"].dump().c_str());
    j = jsonOf({ links, QStringLiteral("--gpus-per-node"), QStringLiteral("8") });
    QVERIFY(!j.is_null());
    QCOMPARE(j["gpus_per_node"].get<int>(), 8);
    QCOMPARE(j["inter_node_gbps"].get<double>(), 12.5);
}

void TestCliSetupFile::sameAsTheOptions()
{
    // A file as the GUI writes it (serializeModel with trainingSetupToJson) gives the estimate of the
    // same set-up given as options on the file without it.
    auto catalog = headroom::GpuCatalog::fromFile(HEADROOM_TEST_SOURCE_DIR "/resources/gpus.json");
    QVERIFY(catalog.ok());
    headroom::PlanSettings s;
    s.gpu = catalog->find("A100 SXM4 80GB").value();
    s.precision = headroom::Precision::AmpFp16;
    s.checkpointing = headroom::Checkpointing::None;
    s.setup.optimizer = headroom::Optimizer::AdamW;
    s.setup.batch = 24;
    s.setup.accumulationSteps = 3;
    s.setup.parallel.gpus = 8;
    s.setup.parallel.tensorParallel = 2;
    s.setup.parallel.sharding = headroom::Sharding::Zero3;
    s.setup.overheadBytes = headroom::defaultOverheadBytes(s.gpu);
    auto network = headroom::parseModel(kMlp);
    QVERIFY(network.ok());
    const QString file = m_dir.filePath(QStringLiteral("as-saved.json"));
    QVERIFY(
        headroom::saveModelFile(network.value(), file.toStdString(), headroom::trainingSetupToJson(s)).ok());
    const json saved = jsonOf({ file });
    const json given = jsonOf({ m_mlp, QStringLiteral("--gpu"), QStringLiteral("A100 SXM4 80GB"),
        QStringLiteral("--precision"), QStringLiteral("amp-fp16"), QStringLiteral("--optimizer"),
        QStringLiteral("adamw"), QStringLiteral("--batch"), QStringLiteral("24"),
        QStringLiteral("--accumulation-steps"), QStringLiteral("3"), QStringLiteral("--gpus"),
        QStringLiteral("8"), QStringLiteral("--tensor-parallel"), QStringLiteral("2"),
        QStringLiteral("--sharding"), QStringLiteral("zero3") });
    QVERIFY(!saved.is_null() && !given.is_null());
    QCOMPARE(saved["peak_bytes"], given["peak_bytes"]);
    QCOMPARE(saved["max_batch"], given["max_batch"]);
    QCOMPARE(saved["reserved"], given["reserved"]);
    QCOMPARE(saved["parallel"], given["parallel"]);
    QCOMPARE(saved["bytes"], given["bytes"]);
}

void TestCliSetupFile::overheadFollowsTheGpu()
{
    // The file leaves the overhead at its GPU's CUDA context (GTX 1080, Pascal: 512 MiB); on an H100 it
    // is the H100's (768 MiB, docs/cli.md --overhead-mib). One the file sets stays on any GPU.
    const QString followed = withSetup(QStringLiteral("pascal.json"), R"({ "gpu": "GTX 1080", "batch": 4 })");
    json j = jsonOf({ followed, QStringLiteral("--gpu"), QStringLiteral("H100 SXM5 80GB") });
    QVERIFY(!j.is_null());
    QCOMPARE(j["reserved"]["overhead_bytes"].get<std::uint64_t>(), 768ULL << 20);
    j = jsonOf({ followed });
    QCOMPARE(j["reserved"]["overhead_bytes"].get<std::uint64_t>(), 512ULL << 20);
    const QString fixed = withSetup(
        QStringLiteral("fixed.json"), R"({ "gpu": "GTX 1080", "batch": 4, "overhead_bytes": 1073741824 })");
    j = jsonOf({ fixed, QStringLiteral("--gpu"), QStringLiteral("H100 SXM5 80GB") });
    QCOMPARE(j["reserved"]["overhead_bytes"].get<std::uint64_t>(), 1ULL << 30);
    j = jsonOf({ fixed, QStringLiteral("--overhead-mib"), QStringLiteral("100") });
    QCOMPARE(j["reserved"]["overhead_bytes"].get<std::uint64_t>(), 100ULL << 20);
}

void TestCliSetupFile::mistakesNameTheFileAndPath()
{
    const QString file
        = withSetup(QStringLiteral("bad.json"), R"({ "batch": 8, "parallel": { "pipeline_parallel": 0 } })");
    const Run r = runHeadroom({ QStringLiteral("estimate"), file });
    QCOMPARE(r.exitCode, 2);
    QCOMPARE(r.err.trimmed(),
        QStringLiteral("headroom: error: ") + file
            + QStringLiteral(
                ": training.parallel.pipeline_parallel must be an integer from 1 to 65536, not 0"));
    // An option does not mend the file: it is refused as written.
    const Run stillBad = runHeadroom(
        { QStringLiteral("estimate"), file, QStringLiteral("--pipeline-parallel"), QStringLiteral("1") });
    QCOMPARE(stillBad.exitCode, 2);
    const QString gpu = withSetup(QStringLiteral("gpu.json"), R"({ "gpu": "Voodoo 5" })");
    const Run unknown = runHeadroom({ QStringLiteral("max-batch"), gpu });
    QCOMPARE(unknown.exitCode, 2);
    QVERIFY2(unknown.err.contains(gpu + QStringLiteral(": training.gpu names no GPU of the catalogue")),
        qPrintable(unknown.err));
    const QString network = withSetup(QStringLiteral("network.json"), R"({ "inter_node_gbps": -5 })");
    const Run noNetwork = runHeadroom({ QStringLiteral("estimate"), network });
    QCOMPARE(noNetwork.exitCode, 2);
    QCOMPARE(noNetwork.err.trimmed(),
        QStringLiteral("headroom: error: ") + network
            + QStringLiteral(": training.inter_node_gbps must be a bandwidth in GB/s per GPU above 0 and at "
                             "most 10000, not -5"));
}

void TestCliSetupFile::maxBatchAndPlanReadItToo()
{
    // The same GPU and set-up from the file and from the options: the same max batch.
    const QString file = withSetup(QStringLiteral("maxbatch.json"),
        R"({ "gpu": "RTX 4090", "precision": "amp-bf16", "parallel": { "gpus": 2, "sharding": "zero1" } })");
    const Run saved = runHeadroom({ QStringLiteral("max-batch"), file });
    const Run given = runHeadroom(
        { QStringLiteral("max-batch"), m_mlp, QStringLiteral("--gpu"), QStringLiteral("RTX 4090"),
            QStringLiteral("--precision"), QStringLiteral("amp-bf16"), QStringLiteral("--gpus"),
            QStringLiteral("2"), QStringLiteral("--sharding"), QStringLiteral("zero1") });
    QCOMPARE(saved.exitCode, 0);
    QCOMPARE(saved.out, given.out);
    const Run plan = runHeadroom({ QStringLiteral("plan"), file });
    QCOMPARE(plan.exitCode, 0);
    QVERIFY2(plan.out.contains(QStringLiteral("RTX 4090")), qPrintable(plan.out));
}

void TestCliSetupFile::plannedCommandsStartFromTheFile()
{
    // The `headroom estimate` command plan prints for a set-up starts from the file's set-up too: run, it
    // gives that set-up (a sharding the planner left at DDP is written out, as the file says ZeRO-2).
    const QString file = withSetup(QStringLiteral("planned.json"),
        R"({ "gpu": "H100 SXM5 80GB", "precision": "amp-bf16", "accumulation_steps": 2,
             "parallel": { "gpus": 8, "sharding": "zero2" } })");
    const Run plan = runHeadroom({ QStringLiteral("plan"), file, QStringLiteral("--json") });
    QCOMPARE(plan.exitCode, 0);
    const json planned = json::parse(plan.out.toStdString());
    QVERIFY(!planned["setups"].empty());
    // Tensor parallel 8 on 8 GPUs leaves one data-parallel rank: nothing to shard, so the planner lists it
    // with DDP, which the file does not say.
    bool ddp = false;
    for (const auto& setup : planned["setups"])
        ddp = ddp || setup["settings"]["sharding"] == "ddp";
    QVERIFY(ddp);
    for (const auto& setup : planned["setups"]) {
        QStringList args;
        for (const auto& a : setup["estimate_arguments"])
            args << QString::fromStdString(a.get<std::string>());
        args.removeFirst(); // "estimate": jsonOf() adds it
        const json j = jsonOf(args);
        QVERIFY2(!j.is_null(), qPrintable(args.join(QLatin1Char(' '))));
        QCOMPARE(j["batch"], setup["micro_batch"]);
        QCOMPARE(j["accumulation_steps"], setup["accumulation_steps"]);
        QCOMPARE(j["precision"], setup["settings"]["precision"]);
        for (const char* key :
            { "gpus", "sharding", "tensor_parallel", "pipeline_parallel", "offload_optimizer" })
            QVERIFY2(j["parallel"][key] == setup["settings"][key],
                qPrintable(QString::fromLatin1(key) + QStringLiteral(": ") + args.join(QLatin1Char(' '))));
    }
}

void TestCliSetupFile::saveSetupWritesWhatWasPlanned()
{
    // estimate --save-setup: the model with the set-up the file and the options made, which plans the same
    // without any option.
    const QString file = withSetup(QStringLiteral("start.json"),
        R"({ "gpu": "RTX 4090", "batch": 8, "parallel": { "gpus": 4, "sharding": "zero2" } })");
    const QString out = m_dir.filePath(QStringLiteral("out.json"));
    const QStringList options { QStringLiteral("--batch"), QStringLiteral("12"),
        QStringLiteral("--precision"), QStringLiteral("bf16"), QStringLiteral("--tensor-parallel"),
        QStringLiteral("2"), QStringLiteral("--inter-node-gbps"), QStringLiteral("25") };
    const json planned
        = jsonOf(QStringList { file } + options + QStringList { QStringLiteral("--save-setup"), out });
    QVERIFY(!planned.is_null());
    QVERIFY(QFile::exists(out));
    const json again = jsonOf({ out });
    QVERIFY(!again.is_null());
    QCOMPARE(again["batch"].get<int>(), 12);
    QCOMPARE(again["precision"].get<std::string>(), "bf16");
    QCOMPARE(again["parallel"]["gpus"].get<int>(), 4);
    QCOMPARE(again["parallel"]["tensor_parallel"].get<int>(), 2);
    QCOMPARE(again["parallel"]["sharding"].get<std::string>(), "zero2");
    QCOMPARE(again["inter_node_gbps"].get<double>(), 25.0);
    QCOMPARE(again["gpus_per_node"].get<int>(), 8);
    QCOMPARE(again["peak_bytes"], planned["peak_bytes"]);
    QCOMPARE(again["reserved"], planned["reserved"]);
    // Only estimate takes it.
    const Run maxBatch
        = runHeadroom({ QStringLiteral("max-batch"), file, QStringLiteral("--save-setup"), out });
    QCOMPARE(maxBatch.exitCode, 2);
    QVERIFY2(maxBatch.err.contains(
                 QStringLiteral("--save-setup is an option of headroom estimate, not of max-batch")),
        qPrintable(maxBatch.err));
    // A folder that does not exist: refused, nothing written.
    const Run nowhere = runHeadroom({ QStringLiteral("estimate"), file, QStringLiteral("--save-setup"),
        m_dir.filePath(QStringLiteral("no/such/out.json")) });
    QCOMPARE(nowhere.exitCode, 2);
    QVERIFY2(nowhere.err.contains(QStringLiteral("--save-setup: ")), qPrintable(nowhere.err));
}

QTEST_GUILESS_MAIN(TestCliSetupFile)
#include "tst_clisetupfile.moc"

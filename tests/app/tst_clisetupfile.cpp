// A set-up saved in the model file ("training", docs/cli.md "A set-up saved in the model file"): the
// commands start from it, each option given overrides its own setting, and a mistake in it is one line
// naming the file and the JSON path.
#include "CliTestSupport.h"
#include "headroom/estimate/SetupFile.h"
#include "headroom/model/ModelFile.h"
#include "headroom/setup/GpuCatalog.h"

#include <QSet>

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
    void switchesTurnOffWhatTheFileTurnsOn_data();
    void switchesTurnOffWhatTheFileTurnsOn();
    void switchOffFormsAreChecked();
    void loraRankZeroTurnsLoraOff();
    void saveSetupWritesASwitchTurnedOff();
    void plannedCommandsTurnOffTheFileSwitches();
    void customGpuKeepsItsLinks();

private:
    /// kMlp with `training` (JSON text) as its saved set-up, written as `name`.
    QString withSetup(const QString& name, const char* training);
};

namespace {

/// `estimate --json` output without what names the file, so that two files planned alike compare equal.
json withoutFile(json j)
{
    for (const char* key : { "file", "model", "name" })
        j.erase(key);
    return j;
}

} // namespace

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

void TestCliSetupFile::switchesTurnOffWhatTheFileTurnsOn_data()
{
    // Each switch the training object can turn on, in a file that turns it on and in one that does not
    // (with whatever else it needs), and where --json shows it.
    QTest::addColumn<QString>("off"); // the --no- form
    QTest::addColumn<QString>("on"); // the switch
    QTest::addColumn<QString>("withIt"); // training with the switch on
    QTest::addColumn<QString>("without"); // the same training without it
    QTest::addColumn<QString>("shownAt"); // its JSON pointer in estimate --json
    const auto row = [](const char* name, const char* off, const char* withIt, const char* without,
                         const char* shownAt) {
        QTest::newRow(name) << QString::fromLatin1(off)
                            << QString::fromLatin1(off).replace(QStringLiteral("--no-"), QStringLiteral("--"))
                            << QString::fromLatin1(withIt) << QString::fromLatin1(without)
                            << QString::fromLatin1(shownAt);
    };
    row("qlora", "--no-qlora", R"({ "lora": { "rank": 8, "quantize_base": true } })",
        R"({ "lora": { "rank": 8 } })", "/lora/quantize_base");
    row("sequence parallel", "--no-sequence-parallel",
        R"({ "parallel": { "gpus": 2, "tensor_parallel": 2, "sequence_parallel": true } })",
        R"({ "parallel": { "gpus": 2, "tensor_parallel": 2 } })", "/parallel/sequence_parallel");
    row("offload optimizer", "--no-offload-optimizer",
        R"({ "parallel": { "gpus": 2, "sharding": "zero2", "offload_optimizer": true } })",
        R"({ "parallel": { "gpus": 2, "sharding": "zero2" } })", "/parallel/offload_optimizer");
    row("8-bit optimizer", "--no-8bit-optimizer", R"({ "eight_bit_optimizer": true })", R"({})",
        "/eight_bit_optimizer");
    row("expandable segments", "--no-expandable-segments", R"({ "expandable_segments": true })", R"({})",
        "/reserved/expandable_segments");
}

void TestCliSetupFile::switchesTurnOffWhatTheFileTurnsOn()
{
    // A file that turns a switch on, planned with the switch's --no- form, is planned exactly as the same
    // file without the switch: every figure of estimate --json the same. The switch on and off differ
    // (so that the comparison can fail), and the switch itself turns it back on over a file without it.
    QFETCH(QString, off);
    QFETCH(QString, on);
    QFETCH(QString, withIt);
    QFETCH(QString, without);
    QFETCH(QString, shownAt);
    const QString slug
        = QString::fromLatin1(QTest::currentDataTag()).replace(QLatin1Char(' '), QLatin1Char('-'));
    const QString onFile = withSetup(slug + QStringLiteral("-on.json"), withIt.toUtf8().constData());
    const QString offFile = withSetup(slug + QStringLiteral("-off.json"), without.toUtf8().constData());
    const json::json_pointer at(shownAt.toStdString());
    const json fileOn = jsonOf({ onFile });
    const json fileOff = jsonOf({ offFile });
    QVERIFY(!fileOn.is_null() && !fileOff.is_null());
    QCOMPARE(fileOn.at(at), json(true));
    QCOMPARE(fileOff.at(at), json(false));
    QVERIFY(withoutFile(fileOn) != withoutFile(fileOff));
    const json turnedOff = jsonOf({ onFile, off });
    QVERIFY(!turnedOff.is_null());
    QCOMPARE(turnedOff.at(at), json(false));
    QVERIFY2(withoutFile(turnedOff) == withoutFile(fileOff), turnedOff.dump().c_str());
    const json turnedOn = jsonOf({ offFile, on });
    QVERIFY(!turnedOn.is_null());
    QVERIFY2(withoutFile(turnedOn) == withoutFile(fileOn), turnedOn.dump().c_str());
    // max-batch too, and the --no- form over a file that has the switch off already changes nothing.
    const Run maxOff = runHeadroom({ QStringLiteral("max-batch"), onFile, off });
    const Run maxPlain = runHeadroom({ QStringLiteral("max-batch"), offFile });
    QCOMPARE(maxOff.exitCode, 0);
    QCOMPARE(maxOff.out, maxPlain.out);
    const json stillOff = jsonOf({ offFile, off });
    QVERIFY(withoutFile(stillOff) == withoutFile(fileOff));
}

void TestCliSetupFile::switchOffFormsAreChecked()
{
    // Turned on and off at once: one line naming both, exit code 2 (not "the last one wins").
    const Run both = runHeadroom({ QStringLiteral("estimate"), m_mlp, QStringLiteral("--lora-rank"),
        QStringLiteral("8"), QStringLiteral("--qlora"), QStringLiteral("--no-qlora") });
    QCOMPARE(both.exitCode, 2);
    QCOMPARE(both.err,
        QStringLiteral("headroom: error: --qlora and --no-qlora contradict each other: give one of them\n"));
    const Run reversed = runHeadroom({ QStringLiteral("max-batch"), m_mlp,
        QStringLiteral("--no-expandable-segments"), QStringLiteral("--expandable-segments") });
    QCOMPARE(reversed.exitCode, 2);
    QVERIFY2(reversed.err.contains(
                 QStringLiteral("--expandable-segments and --no-expandable-segments contradict each other")),
        qPrintable(reversed.err));
    // Options that are no switch have no --no- form.
    const Run noJson = runHeadroom({ QStringLiteral("estimate"), m_mlp, QStringLiteral("--no-json") });
    QCOMPARE(noJson.exitCode, 2);
    QVERIFY2(noJson.err.contains(QStringLiteral("unknown option \"--no-json\"")), qPrintable(noJson.err));
    const Run noBatch = runHeadroom({ QStringLiteral("estimate"), m_mlp, QStringLiteral("--no-batch") });
    QCOMPARE(noBatch.exitCode, 2);
    // A command that does not take the switch does not take its --no- form, and says so by that name.
    const Run gpus = runHeadroom({ QStringLiteral("gpus"), QStringLiteral("--no-qlora") });
    QCOMPARE(gpus.exitCode, 2);
    QVERIFY2(gpus.err.contains(QStringLiteral("--no-qlora is an option of headroom estimate")),
        qPrintable(gpus.err));
    // The cluster search chooses sequence parallelism itself: refused beside --global-batch, named as given.
    const Run cluster = runHeadroom({ QStringLiteral("plan"), m_mlp, QStringLiteral("--gpus"),
        QStringLiteral("8"), QStringLiteral("--global-batch"), QStringLiteral("64"),
        QStringLiteral("--no-sequence-parallel") });
    QCOMPARE(cluster.exitCode, 2);
    QVERIFY2(cluster.err.contains(QStringLiteral("--no-sequence-parallel is not taken with --global-batch")),
        qPrintable(cluster.err));
}

void TestCliSetupFile::loraRankZeroTurnsLoraOff()
{
    // --lora-rank 0 is the file's "rank": 0, LoRA off, and takes the file's QLoRA with it: the file then
    // plans as kMlp with no set-up at all (every other key left out is the default).
    const QString file = withSetup(QStringLiteral("qlora.json"),
        R"({ "lora": { "rank": 8, "targets": ["fc1"], "quantize_base": true } })");
    const json plain = jsonOf({ m_mlp });
    const json lora = jsonOf({ file });
    const json off = jsonOf({ file, QStringLiteral("--lora-rank"), QStringLiteral("0") });
    QVERIFY(!plain.is_null() && !lora.is_null() && !off.is_null());
    QCOMPARE(lora["lora"]["rank"].get<int>(), 8);
    QVERIFY(withoutFile(lora) != withoutFile(plain));
    QCOMPARE(off["lora"]["rank"].get<int>(), 0);
    QCOMPARE(off["peak_bytes"], plain["peak_bytes"]);
    QCOMPARE(off["bytes"], plain["bytes"]);
    QCOMPARE(off["max_batch"], plain["max_batch"]);
    QCOMPARE(off["reserved"], plain["reserved"]);
    // --qlora with it is a contradiction the checks already name.
    const Run qlora = runHeadroom({ QStringLiteral("estimate"), file, QStringLiteral("--lora-rank"),
        QStringLiteral("0"), QStringLiteral("--qlora") });
    QCOMPARE(qlora.exitCode, 2);
    QVERIFY2(qlora.err.contains(QStringLiteral("--qlora needs --lora-rank")), qPrintable(qlora.err));
}

void TestCliSetupFile::saveSetupWritesASwitchTurnedOff()
{
    // estimate --save-setup writes the switch as the command planned it: off, with the rest of the file's.
    const QString file = withSetup(QStringLiteral("switches.json"),
        R"({ "eight_bit_optimizer": true, "expandable_segments": true, "lora": { "rank": 4, "quantize_base": true },
             "parallel": { "gpus": 2, "tensor_parallel": 2, "sequence_parallel": true } })");
    const QString out = m_dir.filePath(QStringLiteral("switches-off.json"));
    const json planned = jsonOf({ file, QStringLiteral("--no-qlora"), QStringLiteral("--no-8bit-optimizer"),
        QStringLiteral("--no-sequence-parallel"), QStringLiteral("--save-setup"), out });
    QVERIFY(!planned.is_null());
    QFile saved(out);
    QVERIFY(saved.open(QIODevice::ReadOnly));
    const json training = json::parse(saved.readAll().toStdString())["training"];
    QCOMPARE(training["lora"]["quantize_base"], json(false));
    QCOMPARE(training["lora"]["rank"], json(4));
    QCOMPARE(training["eight_bit_optimizer"], json(false));
    QCOMPARE(training["parallel"]["sequence_parallel"], json(false));
    QCOMPARE(training["parallel"]["tensor_parallel"], json(2));
    QCOMPARE(training["expandable_segments"], json(true)); // not turned off: as the file says
    const json again = jsonOf({ out });
    QVERIFY(withoutFile(again) == withoutFile(planned));
}

void TestCliSetupFile::plannedCommandsTurnOffTheFileSwitches()
{
    // plan may turn off what the file turns on (LoRA and QLoRA with --allow lora, the optimizer's offload
    // wherever it is not needed): the estimate command it prints says so with the --no- form (LoRA with
    // --lora-rank 0), and run, it gives the set-up planned. A --no- form given to plan is repeated.
    const QString file = withSetup(QStringLiteral("planned-switches.json"),
        R"({ "gpu": "RTX 4090", "eight_bit_optimizer": true, "lora": { "rank": 8, "quantize_base": true },
             "expandable_segments": true,
             "parallel": { "gpus": 2, "sharding": "zero2", "offload_optimizer": true } })");
    const Run plan = runHeadroom(
        { QStringLiteral("plan"), file, QStringLiteral("--allow"), QStringLiteral("lora,8bit-optimizer"),
            QStringLiteral("--no-expandable-segments"), QStringLiteral("--all"), QStringLiteral("--json") });
    QCOMPARE(plan.exitCode, 0);
    const json planned = json::parse(plan.out.toStdString());
    QVERIFY(!planned["setups"].empty());
    QSet<QString> offForms;
    for (const auto& setup : planned["setups"]) {
        QStringList args;
        for (const auto& a : setup["estimate_arguments"])
            args << QString::fromStdString(a.get<std::string>());
        for (const QString& a : args)
            if (a.startsWith(QLatin1String("--no-")))
                offForms << a;
        args.removeFirst(); // "estimate": jsonOf() adds it
        const json j = jsonOf(args);
        const QString why
            = args.join(QLatin1Char(' ')) + QStringLiteral("\n") + QString::fromStdString(setup.dump());
        QVERIFY2(!j.is_null(), qPrintable(why));
        QVERIFY2(j["peak_bytes"] == setup["peak_bytes"], qPrintable(why));
        QVERIFY2(
            j["parallel"]["offload_optimizer"] == setup["settings"]["offload_optimizer"], qPrintable(why));
        QVERIFY2(j["lora"]["rank"] == setup["settings"]["lora"]["rank"], qPrintable(why));
        QVERIFY2(j["lora"]["quantize_base"] == setup["settings"]["lora"]["quantize_base"], qPrintable(why));
        QVERIFY2(j["eight_bit_optimizer"] == setup["settings"]["eight_bit_optimizer"], qPrintable(why));
        QVERIFY2(j["reserved"]["expandable_segments"] == json(false), qPrintable(why));
        if (setup["settings"]["lora"]["rank"] == 0) // no LoRA over the file's: --lora-rank 0
            QVERIFY2(args.join(QLatin1Char(' ')).contains(QLatin1String("--lora-rank 0")), qPrintable(why));
    }
    // (8-bit state is never turned off here: the planner lists no set-up that only costs memory.)
    for (const char* off : { "--no-qlora", "--no-offload-optimizer", "--no-expandable-segments" })
        QVERIFY2(offForms.contains(QLatin1String(off)), off);
}

void TestCliSetupFile::customGpuKeepsItsLinks()
{
    // A custom GPU's links (training.gpu.link_gbps, pcie_gen) are what the communication estimate uses,
    // and --save-setup writes them back. 2 GPUs in one node talk over the GPU's link: NVLink's 450 GB/s
    // as given; without it PCIe 3.0 x16's 15.75 GB/s (pcie_gen 3); with neither, PCIe 4.0's 31.5 assumed.
    const char* figures = R"("memory_bytes": 85899345920, "bandwidth_gbps": 3350, "fp32_tflops": 67,
                             "fp16_tflops": 989, "bf16_tflops": 989)";
    const auto setup = [&](const char* links) {
        return QByteArray(R"({ "parallel": { "gpus": 2 }, "gpu": { "name": "My card", )") + figures + links
            + " } }";
    };
    const QString nvlink
        = withSetup(QStringLiteral("nvlink.json"), setup(R"(, "link_gbps": 450)").constData());
    const QString pcie3 = withSetup(QStringLiteral("pcie3.json"), setup(R"(, "pcie_gen": 3)").constData());
    const QString unknown = withSetup(QStringLiteral("unknown-link.json"), setup("").constData());
    const json::json_pointer intra("/throughput/communication/intra_node_gbps");
    const json fast = jsonOf({ nvlink });
    QVERIFY(!fast.is_null());
    QCOMPARE(fast.at(intra).get<double>(), 450.0);
    QCOMPARE(jsonOf({ pcie3 }).at(intra).get<double>(), 15.75);
    const json assumed = jsonOf({ unknown });
    QCOMPARE(assumed.at(intra).get<double>(), 31.5);
    QVERIFY(fast["throughput"]["communication_seconds"].get<double>()
        < assumed["throughput"]["communication_seconds"].get<double>());
    // Saved and read back: the same link, the same step time.
    const QString out = m_dir.filePath(QStringLiteral("nvlink-saved.json"));
    QVERIFY(!jsonOf({ nvlink, QStringLiteral("--save-setup"), out }).is_null());
    QFile saved(out);
    QVERIFY(saved.open(QIODevice::ReadOnly));
    const json gpu = json::parse(saved.readAll().toStdString())["training"]["gpu"];
    QCOMPARE(gpu["link_gbps"], json(450));
    QVERIFY2(!gpu.contains("pcie_gen"), gpu.dump().c_str()); // 0, unknown: left out
    const json again = jsonOf({ out });
    QCOMPARE(again.at(intra).get<double>(), 450.0);
    QCOMPARE(again["throughput"], fast["throughput"]);
    // A bad link is one line naming the file and the key.
    const QString bad = withSetup(QStringLiteral("bad-link.json"), setup(R"(, "pcie_gen": 9)").constData());
    const Run r = runHeadroom({ QStringLiteral("estimate"), bad });
    QCOMPARE(r.exitCode, 2);
    QCOMPARE(r.err,
        QStringLiteral("headroom: error: ") + bad
            + QStringLiteral(
                ": training.gpu.pcie_gen must be a PCIe generation from 0 (unknown) to 6, not 9\n"));
}

QTEST_GUILESS_MAIN(TestCliSetupFile)
#include "tst_clisetupfile.moc"

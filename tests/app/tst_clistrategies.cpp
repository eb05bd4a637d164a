// The command line as scripts use it, the real `headroom` binary run as a process (CliTestSupport.h):
// training strategies and set-ups on the command line (issue #7): accumulation, parallelism,
// sharding, offload, LoRA, freezing, checkpointing, attention, the loss and mixture-of-experts imbalance.
#include "CliTestSupport.h"
#include "headroom/support/Format.h"

#include <QTest>
#include <nlohmann/json.hpp>

class TestCliStrategies : public QObject, private CliFixture
{
    Q_OBJECT
private slots:
    void initTestCase() { writeInputFiles(); }

    void strategiesInHelp();
    void accumulationMultipliesEffectiveBatch();
    void tensorParallelDividesReplicas();
    void sharding_data();
    void sharding();
    void offloadAndEightBitOptimizer();
    void lora();
    void freeze();
    void optimizerStepPeak();
    void checkpointingSavings();
    void attentionAndSequenceLength();
    void setupLinesOnlyWhenNotDefault();
    void lossOption_data();
    void lossOption();
    void moeImbalance();
};

void TestCliStrategies::strategiesInHelp()
{
    const Run h = runHeadroom({ QStringLiteral("--help") });
    for (const char* option : { "--checkpointing", "--attention", "--sequence-length", "--lora-rank",
             "--lora-targets", "--lora-dropout", "--[no-]qlora", "--accumulation-steps", "--gpus",
             "--sharding", "ddp|zero1|zero2|zero3|fsdp-shard-grad-op|fsdp-full-shard", "--tensor-parallel",
             "--[no-]offload-optimizer", "--[no-]8bit-optimizer", "--utilization", ".onnx", "config.json" })
        QVERIFY2(h.out.contains(QLatin1String(option)), option);
}

void TestCliStrategies::accumulationMultipliesEffectiveBatch()
{
    // tinyMlp with 8 micro-batches: later micro-batches run with every gradient (232 B) allocated, so
    // relu's backward holds 232 + 232 + 464 + 120 B: (8 GiB - 512 MiB - 928) / 120 = 67,108,856.3 per
    // micro-batch by the tensors alone; the reserved answer is below it (maxBatch() derives its
    // bounds), and the effective batch is it x 8 steps x 1 GPU.
    const Run r = runHeadroom({ QStringLiteral("max-batch"), m_tiny, QStringLiteral("--accumulation-steps"),
        QStringLiteral("8"), QStringLiteral("--json") });
    QCOMPARE(r.exitCode, 0);
    const auto j = nlohmann::json::parse(r.out.toStdString());
    const std::int64_t micro = j["max_batch"].get<std::int64_t>();
    QVERIFY2(micro <= 67'108'856 && micro >= 65'452'107, qPrintable(r.out));
    QCOMPARE(j["max_effective_batch"].get<std::int64_t>(), micro * 8);
    QCOMPARE(j["accumulation_steps"].get<std::int64_t>(), std::int64_t { 8 });
    const Run plain = runHeadroom(
        { QStringLiteral("max-batch"), m_tiny, QStringLiteral("--accumulation-steps"), QStringLiteral("8") });
    QCOMPARE(plain.out,
        QStringLiteral("%1 (micro-batch per GPU; effective batch %2 = %1 x 8 steps x 1 GPU)\n")
            .arg(micro)
            .arg(micro * 8));
    const Run table
        = runHeadroom({ QStringLiteral("estimate"), m_tiny, QStringLiteral("--accumulation-steps"),
            QStringLiteral("8"), QStringLiteral("--batch"), QStringLiteral("37") });
    QCOMPARE(table.exitCode, 0);
    QVERIFY2(table.out.contains(
                 QStringLiteral("Max micro-batch per GPU: %1 (effective batch %2 = %1 x 8 steps x 1 GPU)")
                     .arg(micro)
                     .arg(micro * 8)),
        qPrintable(table.out));
    for (const char* fragment : { "Effective batch  296 = 37 x 8 steps x 1 GPU",
             "8 micro-batches per optimizer step", "batch 37 per GPU", "in a micro-batch after the first" })
        QVERIFY2(table.out.contains(QLatin1String(fragment)),
            qPrintable(QLatin1String(fragment) + QLatin1Char('\n') + table.out));
    // With 4 data-parallel GPUs: max micro-batch x 8 x 4.
    const Run four
        = runHeadroom({ QStringLiteral("max-batch"), m_tiny, QStringLiteral("--accumulation-steps"),
            QStringLiteral("8"), QStringLiteral("--gpus"), QStringLiteral("4"), QStringLiteral("--json") });
    QCOMPARE(four.exitCode, 0);
    const auto k = nlohmann::json::parse(four.out.toStdString());
    QCOMPARE(k["max_effective_batch"].get<std::int64_t>(), k["max_batch"].get<std::int64_t>() * 32);
}

void TestCliStrategies::tensorParallelDividesReplicas()
{
    // 8 GPUs in tensor-parallel groups of 2: 4 data-parallel replicas.
    const Run r
        = runHeadroom({ QStringLiteral("max-batch"), m_lenet, QStringLiteral("--gpus"), QStringLiteral("8"),
            QStringLiteral("--tensor-parallel"), QStringLiteral("2"), QStringLiteral("--json") });
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const auto j = nlohmann::json::parse(r.out.toStdString());
    QCOMPARE(j["data_parallel_gpus"].get<std::int64_t>(), std::int64_t { 4 });
    QCOMPARE(j["max_effective_batch"].get<std::int64_t>(), 4 * j["max_batch"].get<std::int64_t>());
    const Run table = runHeadroom({ QStringLiteral("estimate"), m_lenet, QStringLiteral("--gpus"),
        QStringLiteral("8"), QStringLiteral("--tensor-parallel"), QStringLiteral("2"),
        QStringLiteral("--batch"), QStringLiteral("10") });
    QVERIFY2(table.out.contains(QStringLiteral("8 (4 data-parallel x 2 tensor-parallel), DDP (no sharding)")),
        qPrintable(table.out));
    QVERIFY2(table.out.contains(QStringLiteral("Effective batch  40 = 10 x 1 step x 4 replicas")),
        qPrintable(table.out));
}

void TestCliStrategies::sharding_data()
{
    // docs/memory-model.md (ZeRO, Rajbhandari et al. 2020): stage 1 divides the optimizer state by the
    // data-parallel degree N, stage 2 also the gradients, stage 3 also the weights; FSDP SHARD_GRAD_OP is
    // stage 2 and FULL_SHARD stage 3; DDP divides nothing. The MLP's tensors all divide by 8.
    QTest::addColumn<QString>("sharding");
    QTest::addColumn<int>("gpus");
    QTest::addColumn<int>("weightsDivisor");
    QTest::addColumn<int>("gradientsDivisor");
    QTest::addColumn<int>("optimizerDivisor");
    // Communication buffers: DDP's gradient buckets are a second copy of the gradients (18,720 bytes);
    // stage 3 gathers the largest layer (fc1, 4,160 float32 parameters) and prefetches the next:
    // 2 x 16,640 = 33,280 bytes; stages 1 and 2 add none.
    QTest::addColumn<qulonglong>("communication");
    QTest::newRow("ddp x4") << QStringLiteral("ddp") << 4 << 1 << 1 << 1 << qulonglong { 18720 };
    QTest::newRow("zero1 x4") << QStringLiteral("zero1") << 4 << 1 << 1 << 4 << qulonglong { 0 };
    QTest::newRow("zero2 x4") << QStringLiteral("zero2") << 4 << 1 << 4 << 4 << qulonglong { 0 };
    QTest::newRow("zero2 x8") << QStringLiteral("zero2") << 8 << 1 << 8 << 8 << qulonglong { 0 };
    QTest::newRow("zero3 x4") << QStringLiteral("zero3") << 4 << 4 << 4 << 4 << qulonglong { 33280 };
    QTest::newRow("fsdp shard-grad-op x2")
        << QStringLiteral("fsdp-shard-grad-op") << 2 << 1 << 2 << 2 << qulonglong { 0 };
    QTest::newRow("fsdp full-shard x8")
        << QStringLiteral("fsdp-full-shard") << 8 << 8 << 8 << 8 << qulonglong { 33280 };
}

void TestCliStrategies::sharding()
{
    QFETCH(QString, sharding);
    QFETCH(int, gpus);
    QFETCH(int, weightsDivisor);
    QFETCH(int, gradientsDivisor);
    QFETCH(int, optimizerDivisor);
    QFETCH(qulonglong, communication);
    // The model states as the optimizer step holds them; the buffers and activations when forward ends.
    const auto one = jsonOf({ m_mlp });
    const auto& oneStep = one["at_optimizer_step"];
    QCOMPARE(oneStep["weights"].get<std::uint64_t>(), std::uint64_t { 4 * 4680 });
    QCOMPARE(oneStep["gradients"].get<std::uint64_t>(), std::uint64_t { 4 * 4680 });
    QCOMPARE(oneStep["optimizer_state"].get<std::uint64_t>(), std::uint64_t { 8 * 4680 });
    const auto many = jsonOf(
        { m_mlp, QStringLiteral("--gpus"), QString::number(gpus), QStringLiteral("--sharding"), sharding });
    QVERIFY(!many.is_null());
    const auto& manyStep = many["at_optimizer_step"];
    QCOMPARE(manyStep["weights"].get<std::uint64_t>(),
        std::uint64_t { 4 * 4680 } / static_cast<std::uint64_t>(weightsDivisor));
    QCOMPARE(manyStep["gradients"].get<std::uint64_t>(),
        std::uint64_t { 4 * 4680 } / static_cast<std::uint64_t>(gradientsDivisor));
    QCOMPARE(manyStep["optimizer_state"].get<std::uint64_t>(),
        std::uint64_t { 8 * 4680 } / static_cast<std::uint64_t>(optimizerDivisor));
    // Activations and input follow the micro-batch on each GPU, as on one.
    for (const char* c : { "activations", "input" })
        QCOMPARE(many["at_end_of_forward"][c].get<std::uint64_t>(),
            one["at_end_of_forward"][c].get<std::uint64_t>());
    QCOMPARE(
        many["at_end_of_forward"]["communication"].get<std::uint64_t>(), std::uint64_t { communication });
    QCOMPARE(one["at_end_of_forward"]["communication"].get<std::uint64_t>(), std::uint64_t { 0 });

    const Run table = runHeadroom({ QStringLiteral("estimate"), m_mlp, QStringLiteral("--gpus"),
        QString::number(gpus), QStringLiteral("--sharding"), sharding });
    QCOMPARE(table.exitCode, 0);
    QVERIFY2(table.out.contains(QStringLiteral("Per GPU")), qPrintable(table.out));
    QVERIFY2(table.out.contains(QStringLiteral("Communication buffers")), qPrintable(table.out));
    QVERIFY2(table.out.contains(QStringLiteral("(each GPU)")), qPrintable(table.out));
}

void TestCliStrategies::offloadAndEightBitOptimizer()
{
    // ZeRO-Offload needs a ZeRO stage (DeepSpeed), also on one GPU.
    const auto one = jsonOf({ m_mlp, QStringLiteral("--sharding"), QStringLiteral("zero1") });
    const auto offload = jsonOf({ m_mlp, QStringLiteral("--sharding"), QStringLiteral("zero1"),
        QStringLiteral("--offload-optimizer") });
    QVERIFY(!one.is_null() && !offload.is_null());
    // The optimizer state lives in CPU memory: none of it on the GPU; weights and gradients stay.
    QCOMPARE(offload["at_optimizer_step"]["optimizer_state"].get<std::uint64_t>(), std::uint64_t { 0 });
    QCOMPARE(offload["at_optimizer_step"]["weights"].get<std::uint64_t>(),
        one["at_optimizer_step"]["weights"].get<std::uint64_t>());
    QCOMPARE(offload["at_optimizer_step"]["gradients"].get<std::uint64_t>(),
        one["at_optimizer_step"]["gradients"].get<std::uint64_t>());
    // 8-bit Adam (bitsandbytes, blockwise): fc1's 4,096-element weight gets two uint8 states
    // (8,192 bytes) and, per state, one float32 absmax per 2,048-element block (2 x 2 x 4 = 16
    // bytes); the tensors below min_8bit_size 4,096 (fc1's bias, fc2: 584 elements) keep two
    // float32 states, 2 x 4 x 584 = 4,672 bytes. 8,192 + 16 + 4,672 = 12,880.
    const auto eight = jsonOf({ m_mlp, QStringLiteral("--8bit-optimizer") });
    QVERIFY(!eight.is_null());
    QCOMPARE(eight["bytes"]["optimizer_state"].get<std::uint64_t>(), std::uint64_t { 12880 });
    const Run table = runHeadroom({ QStringLiteral("estimate"), m_mlp, QStringLiteral("--8bit-optimizer"),
        QStringLiteral("--sharding"), QStringLiteral("zero2"), QStringLiteral("--offload-optimizer") });
    QVERIFY2(table.out.contains(QStringLiteral("Optimizer state  8-bit")), qPrintable(table.out));
    QVERIFY2(table.out.contains(QStringLiteral("Offload          optimizer state in CPU memory")),
        qPrintable(table.out));
}

void TestCliStrategies::freeze()
{
    // fc1 (64 x 64 + 64 = 4,160) frozen: only fc2 (64 x 8 + 8 = 520) trains, so fp32 gradients are
    // 520 x 4 = 2,080 bytes and Adam's two states 520 x 8 = 4,160 bytes.
    const auto j = jsonOf({ m_mlp, QStringLiteral("--freeze"), QStringLiteral("fc1") });
    QVERIFY(!j.is_null());
    QCOMPARE(j["at_optimizer_step"]["gradients"].get<std::uint64_t>(), std::uint64_t { 2080 });
    QCOMPARE(j["at_optimizer_step"]["optimizer_state"].get<std::uint64_t>(), std::uint64_t { 4160 });
    const Run table = runHeadroom(
        { QStringLiteral("estimate"), m_mlp, QStringLiteral("--freeze"), QStringLiteral("fc1,fc2") });
    QCOMPARE(table.exitCode, 0);
    QVERIFY2(table.out.contains(QStringLiteral("4,680 parameters, 0 trainable")), qPrintable(table.out));
}

void TestCliStrategies::optimizerStepPeak()
{
    // Pure bf16 Adam under ZeRO-2 on one GPU, 4,680 parameters, no overhead. The step holds weights
    // 2 x 4,680 = 9,360, gradients 9,360, Adam state and float32 master weights 12 x 4,680 = 56,160,
    // DeepSpeed's float32 copy of the gradient partition 4 x 4,680 = 18,720 (no torch.optim temporaries:
    // DeepSpeed steps with its own fused optimizer), and at batch 1 the batch: 64 bf16 values and an
    // int64 target, 136 B. 93,736 bytes: the peak, far above anything forward or backward holds.
    const QStringList setup { m_mlp, QStringLiteral("--precision"), QStringLiteral("bf16"),
        QStringLiteral("--sharding"), QStringLiteral("zero2"), QStringLiteral("--batch"), QStringLiteral("1"),
        QStringLiteral("--overhead-mib"), QStringLiteral("0") };
    const auto j = jsonOf(setup);
    QVERIFY(!j.is_null());
    QCOMPARE(j["optimizer_step_bytes"].get<std::uint64_t>(), std::uint64_t { 93736 });
    QCOMPARE(j["bytes"]["total"].get<std::uint64_t>(), std::uint64_t { 93736 });
    QCOMPARE(j["peak"]["phase"].get<std::string>(), std::string("optimizer_step"));
    QVERIFY(j["peak"]["layer"].is_null());
    QCOMPARE(j["at_optimizer_step"]["transient"].get<std::uint64_t>(), std::uint64_t { 18720 });
    const Run text = runHeadroom(QStringList { QStringLiteral("estimate") } + setup);
    QVERIFY2(text.out.contains(QStringLiteral("The peak is the optimizer step")), qPrintable(text.out));
}

void TestCliStrategies::lora()
{
    const auto j = jsonOf({ m_projections, QStringLiteral("--lora-rank"), QStringLiteral("8"),
        QStringLiteral("--lora-targets"), QStringLiteral("q_proj,v_proj") });
    QVERIFY(!j.is_null());
    QCOMPARE(j["params"]["total"].get<std::uint64_t>(), std::uint64_t { 8970 + 2048 });
    QCOMPARE(j["params"]["trainable"].get<std::uint64_t>(), std::uint64_t { 2048 });
    // Gradients and Adam's two states for the adapters only.
    QCOMPARE(j["at_optimizer_step"]["gradients"].get<std::uint64_t>(), std::uint64_t { 4 * 2048 });
    QCOMPARE(j["at_optimizer_step"]["optimizer_state"].get<std::uint64_t>(), std::uint64_t { 8 * 2048 });
    const Run table = runHeadroom({ QStringLiteral("estimate"), m_projections, QStringLiteral("--lora-rank"),
        QStringLiteral("8"), QStringLiteral("--lora-targets"), QStringLiteral("q_proj,v_proj"),
        QStringLiteral("--lora-dropout"), QStringLiteral("0.05") });
    QCOMPARE(table.exitCode, 0);
    for (const char* fragment : { "LoRA             LoRA rank 8 on q_proj, v_proj, dropout 0.05",
             "LoRA adds 2,048 adapter parameters: 2,048 of 11,018 parameters train (18.6 %)",
             "11,018 parameters, 2,048 trainable" })
        QVERIFY2(table.out.contains(QLatin1String(fragment)),
            qPrintable(QLatin1String(fragment) + QLatin1Char('\n') + table.out));
    const Run qlora = runHeadroom({ QStringLiteral("estimate"), m_projections, QStringLiteral("--lora-rank"),
        QStringLiteral("8"), QStringLiteral("--qlora"), QStringLiteral("--precision"),
        QStringLiteral("amp-bf16"), QStringLiteral("--gpu"), QStringLiteral("RTX 4090") });
    QVERIFY2(qlora.exitCode == 0, qPrintable(qlora.err));
    QVERIFY2(qlora.out.contains(QStringLiteral(
                 "QLoRA rank 8 on every Linear layer but the output head; base weights 4-bit NF4")),
        qPrintable(qlora.out));
}

void TestCliStrategies::checkpointingSavings()
{
    const QStringList base { m_gpt2, QStringLiteral("--sequence-length"), QStringLiteral("128"),
        QStringLiteral("--batch"), QStringLiteral("4") };
    const auto none = jsonOf(base);
    const auto perBlock
        = jsonOf(base + QStringList { QStringLiteral("--checkpointing"), QStringLiteral("per-block") });
    QVERIFY(!none.is_null() && !perBlock.is_null());
    // What backward needs kept (per sample, x 4): every block's activations, or each block's input and
    // the one block recomputed at a time.
    const auto before = 4 * none["per_sample_bytes"]["activations"].get<std::uint64_t>();
    const auto after = 4 * perBlock["per_sample_bytes"]["activations"].get<std::uint64_t>();
    QVERIFY2(after < before, qPrintable(QStringLiteral("%1 -> %2").arg(before).arg(after)));
    // Recomputing the 12 blocks costs extra forward FLOPs.
    QVERIFY(perBlock["throughput"]["recompute_flops_per_sample"].get<double>() > 0);
    QCOMPARE(none["throughput"]["recompute_flops_per_sample"].get<double>(), 0.0);
    const Run table = runHeadroom(QStringList { QStringLiteral("estimate") } + base
        + QStringList { QStringLiteral("--checkpointing"), QStringLiteral("per-block") });
    QCOMPARE(table.exitCode, 0);
    QVERIFY2(table.out.contains(QStringLiteral("Checkpointing    Per block")), qPrintable(table.out));
    // The saving the line states is the difference of the two estimates.
    QVERIFY2(
        table.out.contains(QStringLiteral("Checkpointing (per-block) saves %1 of activations at batch 4 (")
                               .arg(QString::fromStdString(headroom::formatBytes(before - after)))),
        qPrintable(table.out));
    QVERIFY2(table.out.contains(QStringLiteral("forward compute")), qPrintable(table.out));
}

void TestCliStrategies::attentionAndSequenceLength()
{
    const QStringList base { m_gpt2, QStringLiteral("--batch"), QStringLiteral("1") };
    const auto t128
        = jsonOf(base + QStringList { QStringLiteral("--sequence-length"), QStringLiteral("128") });
    const auto t256
        = jsonOf(base + QStringList { QStringLiteral("--sequence-length"), QStringLiteral("256") });
    QVERIFY(!t128.is_null() && !t256.is_null());
    // Token ids and their labels, int64: 2 x 8 x T bytes per sample.
    QCOMPARE(t128["per_sample_bytes"]["input"].get<std::uint64_t>(), std::uint64_t { 2 * 8 * 128 });
    QCOMPARE(t256["per_sample_bytes"]["input"].get<std::uint64_t>(), std::uint64_t { 2 * 8 * 256 });
    QCOMPARE(t256["throughput"]["sequence_length"].get<std::int64_t>(), std::int64_t { 256 });
    // Eager attention keeps the heads x T x T probabilities SDPA does not.
    const auto eager = jsonOf(base
        + QStringList { QStringLiteral("--sequence-length"), QStringLiteral("128"),
            QStringLiteral("--attention"), QStringLiteral("eager") });
    QVERIFY(!eager.is_null());
    QVERIFY2(eager["at_end_of_forward"]["activations"].get<std::uint64_t>()
            >= t128["at_end_of_forward"]["activations"].get<std::uint64_t>() + 12ULL * 12 * 128 * 128 * 4,
        "eager attention does not add the 12 layers' 12 x 128 x 128 float32 probabilities");
    const Run table = runHeadroom(QStringList { QStringLiteral("estimate") } + base
        + QStringList { QStringLiteral("--sequence-length"), QStringLiteral("128"),
            QStringLiteral("--attention"), QStringLiteral("eager") });
    QVERIFY2(table.out.contains(QStringLiteral("Sequence length  128 tokens")), qPrintable(table.out));
    QVERIFY2(table.out.contains(QStringLiteral("Attention        Eager")), qPrintable(table.out));
}

void TestCliStrategies::setupLinesOnlyWhenNotDefault()
{
    const Run plain = runHeadroom({ QStringLiteral("estimate"), m_lenet });
    for (const char* absent : { "Checkpointing", "Attention", "LoRA", "GPUs", "Accumulation",
             "Effective batch", "Offload", "Communication buffers", "Per GPU", "Utilisation" })
        QVERIFY2(!plain.out.contains(QLatin1String(absent)), absent);
    const Run all = runHeadroom({ QStringLiteral("estimate"), m_lenet, QStringLiteral("--gpus"),
        QStringLiteral("2"), QStringLiteral("--sharding"), QStringLiteral("zero1"),
        QStringLiteral("--utilization"), QStringLiteral("0.55") });
    QVERIFY2(all.out.contains(QStringLiteral("GPUs             2, ZeRO stage 1")), qPrintable(all.out));
    QVERIFY2(all.out.contains(QStringLiteral("Utilisation      55 % of peak assumed")), qPrintable(all.out));
}

void TestCliStrategies::lossOption_data()
{
    // LeNet-5's output is [10] logits; its sample [1, 32, 32] float32 is 4,096 bytes. Cross-entropy keeps
    // the log-softmax (40 B) and reads one int64 label; L1 keeps input - target (40 B), BCE and MSE the
    // logits (the last Linear's output, kept by nothing else: 40 B); those three read a float32 target
    // of 10 values. 44,984 B of activations with cross-entropy (tests/core/tst_activations.cpp).
    QTest::addColumn<QString>("loss");
    QTest::addColumn<QString>("row");
    QTest::addColumn<qint64>("activations");
    QTest::addColumn<qint64>("input");
    QTest::newRow("default") << QString() << QStringLiteral("CrossEntropyLoss") << qint64 { 44984 }
                             << qint64 { 4096 + 8 };
    QTest::newRow("l1") << QStringLiteral("l1") << QStringLiteral("L1Loss") << qint64 { 44984 }
                        << qint64 { 4096 + 40 };
    QTest::newRow("bce") << QStringLiteral("bce") << QStringLiteral("BCELoss") << qint64 { 44984 }
                         << qint64 { 4096 + 40 };
    QTest::newRow("mse") << QStringLiteral("mse") << QStringLiteral("MSELoss") << qint64 { 44984 }
                         << qint64 { 4096 + 40 };
    QTest::newRow("none") << QStringLiteral("none") << QString() << qint64 { 44984 - 40 } << qint64 { 4096 };
}

void TestCliStrategies::lossOption()
{
    QFETCH(QString, loss);
    QFETCH(QString, row);
    QFETCH(qint64, activations);
    QFETCH(qint64, input);
    QStringList args { m_lenet };
    if (!loss.isEmpty())
        args << QStringLiteral("--loss") << loss;
    const auto j = jsonOf(args);
    QVERIFY(!j.is_null());
    QCOMPARE(j["per_sample_bytes"]["activations"].get<qint64>(), activations);
    QCOMPARE(j["per_sample_bytes"]["input"].get<qint64>(), input);
    const auto& last = j["layers"].back();
    if (row.isEmpty())
        QVERIFY(last["name"].get<std::string>() != "loss");
    else
        QCOMPARE(QString::fromStdString(last["type"].get<std::string>()), row);
    const Run bad = runHeadroom(
        { QStringLiteral("estimate"), m_lenet, QStringLiteral("--loss"), QStringLiteral("hinge") });
    QCOMPARE(bad.exitCode, 2);
    QVERIFY2(bad.err.contains(
                 QStringLiteral("--loss must be one of cross_entropy|mse|l1|bce|none, not \"hinge\"")),
        qPrintable(bad.err));
}

void TestCliStrategies::moeImbalance()
{
    const QString mixtral = QStringLiteral(HEADROOM_TEST_SOURCE_DIR "/tests/data/hf/Mixtral-8x7B-v0.1.json");
    const QStringList base { mixtral, QStringLiteral("--sequence-length"), QStringLiteral("128"),
        QStringLiteral("--batch"), QStringLiteral("1"), QStringLiteral("--precision"),
        QStringLiteral("bf16") };
    const auto balanced = jsonOf(base);
    const auto skewed = jsonOf(base + QStringList { QStringLiteral("--moe-imbalance"), QStringLiteral("2") });
    QVERIFY(!balanced.is_null() && !skewed.is_null());
    QCOMPARE(balanced["moe_imbalance"].get<double>(), 1.0);
    QCOMPARE(skewed["moe_imbalance"].get<double>(), 2.0);
    // The experts' assumption is a warning naming the layer (once for the 32 layers' Repeat block): the
    // import runs transformers 5's grouped_mm experts, whose memory the routing does not change.
    QCOMPARE(balanced["warnings"].size(), std::size_t { 1 });
    QCOMPARE(
        balanced["warnings"][0]["layer"].get<std::string>(), std::string("model.layers.0.block_sparse_moe"));
    QVERIFY(balanced["warnings"][0]["message"].get<std::string>().find("assumes transformers 5's grouped_mm")
        == 0);
    QCOMPARE(skewed["warnings"][0]["message"].get<std::string>(),
        balanced["warnings"][0]["message"].get<std::string>());
    QCOMPARE(skewed["per_sample_bytes"]["activations"].get<std::uint64_t>(),
        balanced["per_sample_bytes"]["activations"].get<std::uint64_t>());
    // The largest backward transient is an MoE layer's, all 2 x 128 = 256 assignments at once: chunk's
    // cat of the gate and up gradients beside them, 4 x 14336 bfloat16 per row (more than 2 x 4096
    // float32 weighted-output gradients or 2 x 14336 + 4096 bfloat16), 256 x 114,688 = 29,360,128, and
    // the layer's output and input gradients 2 x 128 x 4096 x 2 = 2,097,152: 31,457,280, the same at
    // imbalance 2 (lm_head's, the logits' gradient and its input's, is 9,240,576).
    QCOMPARE(balanced["per_sample_bytes"]["transient"].get<std::uint64_t>(), std::uint64_t { 31'457'280 });
    QCOMPARE(skewed["per_sample_bytes"]["transient"].get<std::uint64_t>(), std::uint64_t { 31'457'280 });
    const Run low = runHeadroom(QStringList { QStringLiteral("estimate") } + base
        + QStringList { QStringLiteral("--moe-imbalance"), QStringLiteral("0.5") });
    QCOMPARE(low.exitCode, 2);
    QVERIFY2(low.err.contains(QStringLiteral(
                 "--moe-imbalance must be a number from 1 (balanced routing) to 1024, not \"0.5\"")),
        qPrintable(low.err));
    // Mixtral routes each token to 2 of 8 experts: the busiest expert gets at most 4 x an even share.
    const Run high = runHeadroom(QStringList { QStringLiteral("estimate") } + base
        + QStringList { QStringLiteral("--moe-imbalance"), QStringLiteral("5") });
    QCOMPARE(high.exitCode, 2);
    QVERIFY2(high.err.contains(
                 QStringLiteral("the MoE imbalance 5 is more than this layer allows: with 8 experts and "
                                "top-2 the busiest expert gets at most every token, 4 x an even share")),
        qPrintable(high.err));
    QVERIFY(runHeadroom({ QStringLiteral("--help") }).out.contains(QStringLiteral("--moe-imbalance")));
}

QTEST_GUILESS_MAIN(TestCliStrategies)
#include "tst_clistrategies.moc"

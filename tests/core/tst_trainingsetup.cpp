// The training set-up's own rules: the optimizer implementation a user interface falls back to when
// another setting changes (normalized), worked out from which optimizers torch.optim 2.x builds with
// fused=True on CUDA and which steps torch.optim does not run at all; and the defaults a plan starts from.
#include "headroom/estimate/Plan.h"
#include "headroom/setup/GpuCatalog.h"
#include "headroom/setup/TrainingSetup.h"

#include <QTest>

using namespace headroom;

Q_DECLARE_METATYPE(headroom::Optimizer)
Q_DECLARE_METATYPE(headroom::OptimizerImplementation)
Q_DECLARE_METATYPE(headroom::Sharding)

class TestTrainingSetup : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void normalizedImplementation_data();
    void normalizedImplementation();
    void normalizedKeepsTheRest();
    void defaults();
    void defaultGpu();
};

void TestTrainingSetup::normalizedImplementation_data()
{
    QTest::addColumn<Optimizer>("optimizer");
    QTest::addColumn<bool>("eightBit");
    QTest::addColumn<Sharding>("sharding");
    QTest::addColumn<OptimizerImplementation>("chosen");
    QTest::addColumn<OptimizerImplementation>("expected");
    const auto fused = OptimizerImplementation::Fused;
    const auto foreach = OptimizerImplementation::Foreach;
    const auto forLoop = OptimizerImplementation::ForLoop;
    // torch.optim 2.x on CUDA: Adam and AdamW take fused=True since 2.0 (amsgrad included: _fused_adam
    // takes max_exp_avg_sqs), SGD since 2.3 with or without momentum and nesterov (_fused_sgd): kept.
    QTest::newRow("adam") << Optimizer::Adam << false << Sharding::None << fused << fused;
    QTest::newRow("adamw") << Optimizer::AdamW << false << Sharding::None << fused << fused;
    QTest::newRow("amsgrad") << Optimizer::AdamAmsgrad << false << Sharding::None << fused << fused;
    QTest::newRow("sgd") << Optimizer::Sgd << false << Sharding::None << fused << fused;
    QTest::newRow("momentum") << Optimizer::Momentum << false << Sharding::None << fused << fused;
    QTest::newRow("nesterov") << Optimizer::Nesterov << false << Sharding::None << fused << fused;
    // RMSprop, Adadelta and Adamax have no `fused` argument; Adagrad's fused kernel is CPU-only in the
    // 2.x releases (torch/optim/adagrad.py refuses fused=True for CUDA tensors): back to foreach, which
    // _default_to_fused_or_foreach picks for plain CUDA tensors.
    QTest::newRow("rmsprop") << Optimizer::RMSprop << false << Sharding::None << fused << foreach;
    QTest::newRow("rmsprop centered")
        << Optimizer::RMSpropCentered << false << Sharding::None << fused << foreach;
    QTest::newRow("adagrad") << Optimizer::Adagrad << false << Sharding::None << fused << foreach;
    QTest::newRow("adadelta") << Optimizer::Adadelta << false << Sharding::None << fused << foreach;
    QTest::newRow("adamax") << Optimizer::Adamax << false << Sharding::None << fused << foreach;
    // Steps torch.optim does not run keep the setting (it changes nothing there): bitsandbytes'
    // 8-bit optimizers bring their own kernels, and DeepSpeed ZeRO steps with its own optimizer.
    QTest::newRow("8-bit rmsprop") << Optimizer::RMSprop << true << Sharding::None << fused << fused;
    QTest::newRow("8-bit adagrad") << Optimizer::Adagrad << true << Sharding::None << fused << fused;
    QTest::newRow("rmsprop under zero-1") << Optimizer::RMSprop << false << Sharding::Zero1 << fused << fused;
    QTest::newRow("adagrad under zero-2") << Optimizer::Adagrad << false << Sharding::Zero2 << fused << fused;
    QTest::newRow("adamax under zero-3") << Optimizer::Adamax << false << Sharding::Zero3 << fused << fused;
    // FSDP wraps the model, not the optimizer: torch.optim still steps, and its rule holds.
    QTest::newRow("adadelta under fsdp")
        << Optimizer::Adadelta << false << Sharding::FsdpFullShard << fused << foreach;
    QTest::newRow("rmsprop under fsdp grad-op")
        << Optimizer::RMSprop << false << Sharding::FsdpShardGradOp << fused << foreach;
    // foreach and the for-loop exist for every optimizer: never changed.
    QTest::newRow("adamax for-loop") << Optimizer::Adamax << false << Sharding::None << forLoop << forLoop;
    QTest::newRow("rmsprop foreach") << Optimizer::RMSprop << false << Sharding::None << foreach << foreach;
    QTest::newRow("adam for-loop") << Optimizer::Adam << false << Sharding::None << forLoop << forLoop;
}

void TestTrainingSetup::normalizedImplementation()
{
    QFETCH(Optimizer, optimizer);
    QFETCH(bool, eightBit);
    QFETCH(Sharding, sharding);
    QFETCH(OptimizerImplementation, chosen);
    QFETCH(OptimizerImplementation, expected);
    TrainingSetup s;
    s.optimizer = optimizer;
    s.eightBitOptimizer = eightBit;
    s.parallel.gpus = 4;
    s.parallel.sharding = sharding;
    s.optimizerImplementation = chosen;
    const TrainingSetup n = normalized(s);
    QCOMPARE(n.optimizerImplementation, expected);
    if (chosen == OptimizerImplementation::Fused)
        QCOMPARE(fusedStepAvailable(s), expected == OptimizerImplementation::Fused);
    // One rule: what normalized() keeps, validateSetup() accepts, and what it changes, it refused.
    const auto problem = validateSetup(n);
    QVERIFY2(
        !problem || problem->location != "optimizer_implementation", problem ? problem->message.c_str() : "");
    const auto before = validateSetup(s);
    QCOMPARE(before && before->location == "optimizer_implementation", expected != chosen);
    QCOMPARE(normalized(n), n); // settled
}

void TestTrainingSetup::normalizedKeepsTheRest()
{
    TrainingSetup s;
    s.optimizer = Optimizer::RMSprop;
    s.optimizerImplementation = OptimizerImplementation::Fused;
    s.batch = 7;
    s.overheadBytes = 123;
    s.accumulationSteps = 3;
    s.parallel.gpus = 2;
    s.assumedUtilization = 0.25;
    TrainingSetup expected = s;
    expected.optimizerImplementation = OptimizerImplementation::Foreach;
    QCOMPARE(normalized(s), expected);
}

void TestTrainingSetup::defaults()
{
    // The documented defaults (docs/cli.md): batch 32, overhead 512 MiB = 536,870,912 bytes (the CUDA
    // context of the default GPU, defaultGpu() below), Adam with
    // PyTorch 2.x's foreach step, one GPU, 40 % utilisation.
    const TrainingSetup s;
    QCOMPARE(s.batch, std::int64_t { 32 });
    QCOMPARE(kDefaultBatch, std::int64_t { 32 });
    QCOMPARE(s.overheadBytes, std::uint64_t { 536'870'912 });
    QCOMPARE(s.optimizer, Optimizer::Adam);
    QCOMPARE(s.optimizerImplementation, OptimizerImplementation::Foreach);
    QCOMPARE(s.parallel.gpus, std::int64_t { 1 });
    QCOMPARE(s.assumedUtilization, 0.4);
    QVERIFY(!validateSetup(s));
    QCOMPARE(normalized(s), s);
}

void TestTrainingSetup::defaultGpu()
{
    // The shipped catalogue resolves the default by its exact name (`headroom gpus` lists it).
    auto catalog = GpuCatalog::fromFile(HEADROOM_TEST_SOURCE_DIR "/resources/gpus.json");
    QVERIFY2(catalog.ok(), catalog ? "" : catalog.error().message.c_str());
    const Gpu gpu = catalog->defaultGpu();
    QCOMPARE(gpu.name, std::string("GeForce GTX 1080"));
    QCOMPARE(gpu.memoryBytes, 8ULL << 30); // 8 GB of GDDR5X
    QVERIFY(!gpu.custom);
    // A set-up's default overhead is this GPU's CUDA context (Pascal, lazy loading: 512 MiB).
    QCOMPARE(defaultOverheadBytes(gpu), kDefaultOverheadBytes);
    // A catalogue without it starts on its first GPU; an empty one on an 8 GiB GPU of its own.
    Gpu other;
    other.name = "Other";
    other.memoryBytes = 1ULL << 30;
    QCOMPARE(GpuCatalog({ other }).defaultGpu(), other);
    const Gpu fallback = GpuCatalog {}.defaultGpu();
    QCOMPARE(fallback.memoryBytes, 8ULL << 30);
    QVERIFY(fallback.custom);
}

QTEST_APPLESS_MAIN(TestTrainingSetup)
#include "tst_trainingsetup.moc"

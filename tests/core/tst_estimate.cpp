// Memory components, totals and max batch: bytes per parameter for LeNet-5 (61,706 parameters) against
// the ZeRO paper's figures, and the step's peak for tinyMlp(), whose every moment tst_steptimeline
// works out by hand.
#include "NetworkBuilder.h"
#include "headroom/estimate/Estimate.h"
#include "headroom/estimate/Plan.h"

#include <QTest>

using namespace headroom;
using namespace headroom::test;

namespace {
constexpr std::uint64_t P = 61706;

/// The GPU memory the estimates below are on unless they name another.
constexpr std::uint64_t kGpuBytes = 8 * kGiB;

TrainingSetup setup(Optimizer o, std::int64_t batch, std::uint64_t overhead = 0)
{
    TrainingSetup s;
    s.optimizer = o;
    s.batch = batch;
    s.overheadBytes = overhead;
    return s;
}
} // namespace

class TestEstimate : public QObject
{
    Q_OBJECT
private slots:
    void tinyMlpAdamFp32();
    void optimizerState_data();
    void optimizerState();
    void bytesPerParameter_data();
    void bytesPerParameter();
    void maxBatchIsLargestThatFits();
    void maxBatchWhenNothingFits();
    void overheadCounts();
    void invalidNetworkIsRefusedWithTheLayer();
    void badBatch();
    void byteOverflowIsAnError();
    void sweepFollowsThePeak();
    void planJsonHasTheContractFields();
    void pipelineSpeedsAgree();
};

void TestEstimate::tinyMlpAdamFp32()
{
    // At batch 32 the peak is relu's backward (tst_steptimeline): weights 232, fc2's gradients 72, Adam
    // 464, relu's output 32 x 32 = 1,024 and the 4-byte loss (the training loop's `loss` holds it until
    // backward returns), the batch 24 x 32 = 768, the gradients of relu's and fc1's outputs 64 x 32 =
    // 2,048: 4,612 bytes.
    const auto e = estimate(analyze(tinyMlp(), Precision::Fp32), setup(Optimizer::Adam, 32), kGpuBytes);
    QVERIFY(e.ok());
    QCOMPARE(e->bytes.weights, std::uint64_t { 232 });
    QCOMPARE(e->bytes.gradients, std::uint64_t { 72 });
    QCOMPARE(e->bytes.optimizerState, std::uint64_t { 464 });
    QCOMPARE(e->bytes.activations, std::uint64_t { 1024 + 4 });
    QCOMPARE(e->bytes.input, std::uint64_t { 768 });
    QCOMPARE(e->bytes.transient, std::uint64_t { 2048 });
    QCOMPARE(e->total(), std::uint64_t { 4612 });
    QCOMPARE(e->peak.phase, StepPhase::Backward);
    QCOMPARE(e->peakLayer, std::string("relu"));
    QVERIFY(e->fits);
}

void TestEstimate::optimizerState_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<int>("buffers");
    // torch.optim state per parameter: see docs/memory-model.md
    QTest::newRow("sgd") << "sgd" << 0;
    QTest::newRow("momentum") << "momentum" << 1;
    QTest::newRow("nesterov") << "nesterov" << 1;
    QTest::newRow("adam") << "adam" << 2;
    QTest::newRow("adamw") << "adamw" << 2;
    QTest::newRow("amsgrad") << "adam-amsgrad" << 3;
    QTest::newRow("rmsprop") << "rmsprop" << 1;
    QTest::newRow("rmsprop momentum") << "rmsprop-momentum" << 2;
    QTest::newRow("rmsprop centered") << "rmsprop-centered" << 3;
    QTest::newRow("adagrad") << "adagrad" << 1;
    QTest::newRow("adadelta") << "adadelta" << 2;
    QTest::newRow("adamax") << "adamax" << 2;
}

void TestEstimate::optimizerState()
{
    QFETCH(QString, name);
    QFETCH(int, buffers);
    const auto o = parseOptimizer(name.toStdString());
    QVERIFY(o.has_value());
    QCOMPARE(optimizerName(*o), std::string_view(name.toStdString()));
    const auto e = estimate(analyze(lenet5(), Precision::Fp32), setup(*o, 1), kGpuBytes);
    QCOMPARE(e->bytes.optimizerState, static_cast<std::uint64_t>(buffers) * 4 * P);
}

void TestEstimate::bytesPerParameter_data()
{
    QTest::addColumn<QString>("precision");
    QTest::addColumn<int>("bytes");
    QTest::addColumn<int>("halfCopies");
    // Weights + gradients + Adam state per parameter during the optimizer step:
    // fp32: 4 + 4 + 8; pure half (ZeRO paper, mixed-precision Adam): 2 + 2 + (4 master + 8) = 16;
    // autocast: fp32 weights, gradients and state, 16. While forward and backward run, autocast also
    // holds a half copy of every conv/linear weight (2 more per parameter; all of LeNet's are such).
    QTest::newRow("fp32") << "fp32" << 16 << 0;
    QTest::newRow("fp16") << "fp16" << 16 << 0;
    QTest::newRow("bf16") << "bf16" << 16 << 0;
    QTest::newRow("amp-fp16") << "amp-fp16" << 16 << 2;
    QTest::newRow("amp-bf16") << "amp-bf16" << 16 << 2;
}

void TestEstimate::bytesPerParameter()
{
    QFETCH(QString, precision);
    QFETCH(int, bytes);
    QFETCH(int, halfCopies);
    const auto p = parsePrecision(precision.toStdString());
    QVERIFY(p.has_value());
    const auto model = MemoryModel::build(analyze(lenet5(), *p), setup(Optimizer::Adam, 1));
    QVERIFY(model.ok());
    const MemoryBreakdown step = model->momentAt(model->optimizerStepMoment(), 1);
    QCOMPARE(step.weights + step.gradients + step.optimizerState, static_cast<std::uint64_t>(bytes) * P);
    const MemoryBreakdown forward = model->momentAt(model->endOfForwardMoment(), 1);
    QCOMPARE(forward.weights - step.weights, static_cast<std::uint64_t>(halfCopies) * P);
}

void TestEstimate::maxBatchIsLargestThatFits()
{
    // tinyMlp with Adam: from batch 5 the peak is relu's backward, 696 + 24 B + 96 B + 72 + 4 (the loss)
    // bytes (tst_steptimeline). In 100,000 bytes: 120 B <= 99,228 -> B <= 826.9 -> 826.
    const Analysis a = analyze(tinyMlp(), Precision::Fp32);
    const auto e = estimate(a, setup(Optimizer::Adam, 1000), 100'000);
    QCOMPARE(e->maxBatch, std::int64_t { 826 });
    QVERIFY(!e->fits);
    QVERIFY(e->headroomBytes() < 0);
    QCOMPARE(estimate(a, setup(Optimizer::Adam, 826), 100'000)->total(), std::uint64_t { 772 + 826 * 120 });
    QVERIFY(estimate(a, setup(Optimizer::Adam, 826), 100'000)->fits);
    QVERIFY(!estimate(a, setup(Optimizer::Adam, 827), 100'000)->fits);
}

void TestEstimate::maxBatchWhenNothingFits()
{
    // tinyMlp needs 1,184 bytes at batch 1 (the optimizer step is the peak).
    const auto e = estimate(analyze(tinyMlp(), Precision::Fp32), setup(Optimizer::Adam, 1), 1183);
    QCOMPARE(e->maxBatch, std::int64_t { 0 });
    QVERIFY(!e->fits);
}

void TestEstimate::overheadCounts()
{
    const Analysis a = analyze(lenet5(), Precision::Fp32);
    const auto without = estimate(a, setup(Optimizer::Sgd, 8), kGpuBytes);
    const auto with = estimate(a, setup(Optimizer::Sgd, 8, 512 * kMiB), 8 * kGiB);
    QCOMPARE(with->total() - without->total(), 512 * kMiB);
    QCOMPARE(with->bytes.overhead, 512 * kMiB);
}

void TestEstimate::invalidNetworkIsRefusedWithTheLayer()
{
    const Network n = network({ 1, 4, 4 },
        { layer("ReLU"), layer("Conv2d", { { "out_channels", 4 }, { "kernel_size", 7 } }, "big") });
    const auto e = estimate(analyze(n, Precision::Fp32), setup(Optimizer::Adam, 1), kGpuBytes);
    QVERIFY(!e.ok());
    const QString message = QString::fromStdString(e.error().message);
    QVERIFY2(message.contains(QStringLiteral("layers[1]")) && message.contains(QStringLiteral("\"big\"")),
        qPrintable(message));
}

void TestEstimate::badBatch()
{
    const Analysis a = analyze(lenet5(), Precision::Fp32);
    QVERIFY(!estimate(a, setup(Optimizer::Adam, 0), kGpuBytes).ok());
    QVERIFY(!estimate(a, setup(Optimizer::Adam, -5), kGpuBytes).ok());
    QVERIFY(!estimate(a, setup(Optimizer::Adam, kMaxBatch + 1), kGpuBytes).ok());
}

void TestEstimate::byteOverflowIsAnError()
{
    // 2^40 floats per sample: fine per sample, but 2^31 samples need 2^73 bytes.
    const Analysis a = analyze(network({ 1LL << 40 }, { layer("ReLU") }, Loss::None), Precision::Fp32);
    QVERIFY(a.valid());
    const auto e = estimate(a, setup(Optimizer::Adam, kMaxBatch), kGpuBytes);
    QVERIFY(!e.ok());
    QVERIFY2(QString::fromStdString(e.error().message).contains(QStringLiteral("overflow")),
        e.error().message.c_str());
    QVERIFY(estimate(a, setup(Optimizer::Adam, 1), kGpuBytes).ok());
}

void TestEstimate::sweepFollowsThePeak()
{
    // tinyMlp: the optimizer step is the peak up to batch 4 (1,160 + 24 B), relu's backward from 5
    // (772 + 120 B): each point is the step's peak at that batch, not one straight line.
    const Analysis a = analyze(tinyMlp(), Precision::Fp32);
    const auto points = sweep(a, setup(Optimizer::Adam, 1), 1, 4096);
    QVERIFY(points.ok());
    QCOMPARE(points->size(), std::size_t { 4096 });
    QCOMPARE(points->at(0).total(), std::uint64_t { 1184 });
    QCOMPARE(points->at(3).total(), std::uint64_t { 1256 });
    QCOMPARE(points->at(4).total(), std::uint64_t { 1372 });
    QCOMPARE(points->at(31).total(), std::uint64_t { 4612 }); // batch 32, as above
    QCOMPARE(points->at(5).total() - points->at(4).total(), std::uint64_t { 120 });
    QVERIFY(!sweep(a, setup(Optimizer::Adam, 1), 5, 4).ok());
}

void TestEstimate::pipelineSpeedsAgree()
{
    // tinyMlp, Adam fp32, no overhead (tst_steptimeline works the figures out): 4,612 bytes at B = 32,
    // 1,184 at B = 1; on a GPU of 10,000 bytes the largest batch is 76 and B = 77 needs 10,012.
    Plan plan;
    plan.network = tinyMlp();
    plan.setup = setup(Optimizer::Adam, 32);
    plan.gpu.memoryBytes = 10'000;
    // The tensors' max batch: a budget of 10,000 bytes is far below the caching allocator's smallest
    // segment (2 MiB), where the reserved model rightly fits nothing (tst_cudareference and tst_cliestimate
    // check evaluate() with it).
    plan.reservedModel = false;
    PlanResult r = evaluate(plan);
    QVERIFY(r.estimate && r.memory);
    QCOMPARE(r.estimate->total(), std::uint64_t { 4612 });
    QCOMPARE(r.estimate->gpuMemoryBytes, std::uint64_t { 10'000 }); // the GPU's, never a copy in the set-up
    QCOMPARE(r.estimate->maxBatch, std::int64_t { 76 });
    // A GPU without figures has no throughput estimate, and says why.
    QVERIFY(!r.throughput && r.throughputError);
    // The slider path: the same step model read at another batch and on another GPU.
    const MemoryModel* model = r.memory.get();
    plan.setup.batch = 77;
    reestimate(r, plan);
    QCOMPARE(r.memory.get(), model);
    QCOMPARE(r.estimate->total(), std::uint64_t { 10'012 });
    QVERIFY(!r.estimate->fits);
    plan.setup.batch = 1;
    plan.gpu.memoryBytes = 8 * kGiB;
    plan.gpu.fp32Tflops = 10;
    plan.gpu.bandwidthGBps = 500;
    reestimate(r, plan);
    QCOMPARE(r.estimate->total(), std::uint64_t { 1184 });
    QVERIFY(r.estimate->fits);
    QCOMPARE(r.estimate->gpuMemoryBytes, 8 * kGiB);
    QVERIFY(r.throughput && !r.throughputError);
    // Each speed agrees with evaluating the plan from scratch.
    const PlanResult fresh = evaluate(plan);
    QCOMPARE(fresh.estimate->bytes, r.estimate->bytes);
    QCOMPARE(fresh.estimate->maxBatch, r.estimate->maxBatch);
    QCOMPARE(fresh.throughput->stepSeconds, r.throughput->stepSeconds);
    const PlanResult sameAnalysis = evaluate(plan, r.analysis);
    QCOMPARE(sameAnalysis.estimate->bytes, r.estimate->bytes);
    // A refused batch keeps the model (the next tick can use it) and says why.
    plan.setup.batch = 0;
    reestimate(r, plan);
    QVERIFY(!r.estimate && r.error && r.memory);
    QCOMPARE(r.error->location, std::string("batch"));
}

void TestEstimate::planJsonHasTheContractFields()
{
    Plan plan;
    plan.network = tinyMlp();
    plan.setup = setup(Optimizer::Adam, 32);
    plan.gpu.name = "GeForce GTX 1080";
    plan.gpu.memoryBytes = 8 * kGiB;
    const auto j = planToJson(plan, evaluate(plan));
    QCOMPARE(j["params"]["total"].get<std::uint64_t>(), std::uint64_t { 58 });
    QCOMPARE(j["params"]["trainable"].get<std::uint64_t>(), std::uint64_t { 58 });
    QCOMPARE(j["batch"].get<std::int64_t>(), std::int64_t { 32 });
    QCOMPARE(j["gpu"]["name"].get<std::string>(), std::string("GeForce GTX 1080"));
    QCOMPARE(j["gpu"]["memory_bytes"].get<std::uint64_t>(), 8 * kGiB);
    for (const char* key : { "weights", "gradients", "optimizer_state", "activations", "input", "transient",
             "overhead", "total" })
        QVERIFY2(j["bytes"].contains(key), key);
    QCOMPARE(j["bytes"]["total"].get<std::uint64_t>(), std::uint64_t { 4612 });
    QVERIFY(j["fits"].get<bool>());
    QVERIFY(j.contains("max_batch"));
    QCOMPARE(j["peak"]["bytes"].get<std::uint64_t>(), std::uint64_t { 4612 });
    QCOMPARE(j["peak"]["phase"].get<std::string>(), std::string("backward"));
    QCOMPARE(j["peak"]["layer"].get<std::string>(), std::string("relu"));
    QCOMPARE(j["peak"]["first_step_bytes"].get<std::uint64_t>(),
        std::uint64_t { 4148 }); // the steady peak less Adam's 464 bytes of state, made by the first step
    QCOMPARE(j["optimizer_implementation"].get<std::string>(), std::string("foreach"));
    std::uint64_t perSample = 0;
    for (const auto& l : j["layers"]) {
        for (const char* key : { "name", "type", "output_shape", "params", "activation_bytes_per_sample" })
            QVERIFY2(l.contains(key), key);
        perSample += l["activation_bytes_per_sample"].get<std::uint64_t>();
    }
    // Kept for backward: relu's output 32 B and log_softmax's 8 B per sample.
    QCOMPARE(perSample, std::uint64_t { 40 });
    // The timeline: five forward ops and the end of the forward pass, five backward ops, the step.
    QCOMPARE(j["timeline"].size(), std::size_t { 12 });
    const auto& end = j["timeline"][5];
    QCOMPARE(end["phase"].get<std::string>(), std::string("forward"));
    QVERIFY(end["end_of_forward"].get<bool>());
    QCOMPARE(end["bytes"]["activations"].get<std::uint64_t>(), 32 * perSample + 4); // + the scalar loss
    QCOMPARE(j["timeline"][11]["phase"].get<std::string>(), std::string("optimizer_step"));
    QVERIFY(j["timeline"][11]["layer"].is_null());
}

QTEST_APPLESS_MAIN(TestEstimate)
#include "tst_estimate.moc"

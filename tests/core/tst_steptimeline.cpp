// One training step simulated over time (issue 15): every moment of tinyMlp()'s step worked out by hand,
// a branch whose gradients meet (summed in place on PyTorch 2.x, into a new tensor on 1.13), gradient
// accumulation, the optimizer implementations' temporaries, and the upper envelope that answers the
// peak and max batch against a brute-force search.
#include "NetworkBuilder.h"
#include "headroom/estimate/Estimate.h"
#include "headroom/step/UpperEnvelope.h"

#include <QTest>
#include <random>

using namespace headroom;
using namespace headroom::test;

Q_DECLARE_METATYPE(headroom::Optimizer)
Q_DECLARE_METATYPE(headroom::OptimizerImplementation)

namespace {

TrainingSetup setup(Optimizer o = Optimizer::Adam, std::int64_t batch = 1)
{
    TrainingSetup s;
    s.optimizer = o;
    s.batch = batch;
    s.overheadBytes = 0;
    return s;
}

/// The GPU memory the estimates below are on: far above what they need, unless they name another.
constexpr std::uint64_t kGpuBytes = 1ULL << 40;

/// A moment's live activations and transient buffers: per sample and fixed.
struct Live
{
    std::uint64_t activations = 0, activationsFixed = 0, transient = 0, transientFixed = 0, gradients = 0;
    friend bool operator==(const Live&, const Live&) = default;
};

QString describe(const Live& l)
{
    return QStringLiteral("activations %1/sample + %2, transient %3/sample + %4, gradients %5")
        .arg(l.activations)
        .arg(l.activationsFixed)
        .arg(l.transient)
        .arg(l.transientFixed)
        .arg(l.gradients);
}

Live liveAt(const StepMoment& m)
{
    return Live { m.perSample.activations, m.fixed.activations, m.perSample.transient, m.fixed.transient,
        m.fixed.gradients };
}

} // namespace

class TestStepTimeline : public QObject
{
    Q_OBJECT
private slots:
    void tinyMlpMomentByMoment();
    void tinyMlpPeakMovesWithTheBatch();
    void mseLossHoldsAnInputSizedScalar();
    void firstStepLacksTheStateUntilItsStep();
    void branchGradientsSumInPlaceOnPyTorch2();
    void tiedWeightGradientsSumAsAutograd_data();
    void tiedWeightGradientsSumAsAutograd();
    void accumulationKeepsTheGradients();
    void optimizerTemporaries_data();
    void optimizerTemporaries();
    void envelopeMatchesBruteForce();
    void envelopeLargestBatch();
};

void TestStepTimeline::tinyMlpMomentByMoment()
{
    // tinyMlp(), per sample: fc1's output 32 B (8 floats), relu's output 32 B (kept: ReLU saves its
    // result; fc2 keeps it as its input too), fc2's output (the logits) 8 B, log_softmax's output 8 B
    // (kept), the loss a 4-byte scalar. fc1 keeps the network input (not an activation).
    // Forward, while each op runs (its output allocated):
    //   fc1 32 | relu 64 (fc1's output is freed after relu: nothing keeps it) | fc2 32 + 8 = 40 |
    //   log_softmax 40 + 8 = 48 (the logits are freed after it) | nll_loss 40 + the 4-byte scalar |
    //   end of forward: 40 + 4.
    // Backward (transient = activation gradients), from the scalar loss (its gradient is 1 element):
    //   nll_loss: a gradient of log_softmax's output, 8 -> act 40 + 4, transient 8. The scalar loss stays
    //   until backward returns (the caller's `loss` holds it).
    //   log_softmax: the logits' gradient, 8 (transient 16); then log_softmax's output is freed (act 32).
    //   fc2: relu output's gradient 32 (transient 8 + 32 = 40), fc2's weight and bias gradients 72 B.
    //   relu: fc1 output's gradient 32 (transient 32 + 32 = 64, gradients 72); then relu's output goes.
    //   fc1: its input needs no gradient; its weight and bias gradients: 72 + 160 = 232 B.
    const Analysis a = analyze(tinyMlp(), Precision::Fp32);
    QVERIFY2(a.valid(), a.error ? a.error->message.c_str() : "");
    QCOMPARE(a.totalParams, std::uint64_t { 58 });
    const auto model = MemoryModel::build(a, setup());
    QVERIFY2(model.ok(), model.ok() ? "" : model.error().message.c_str());
    const auto& m = model->timeline().moments();
    const std::vector<std::pair<StepPhase, Live>> expected {
        { StepPhase::Forward, { 32, 0, 0, 0, 0 } },
        { StepPhase::Forward, { 64, 0, 0, 0, 0 } },
        { StepPhase::Forward, { 40, 0, 0, 0, 0 } },
        { StepPhase::Forward, { 48, 0, 0, 0, 0 } },
        { StepPhase::Forward, { 40, 4, 0, 0, 0 } },
        { StepPhase::Forward, { 40, 4, 0, 0, 0 } },
        { StepPhase::Backward, { 40, 4, 8, 0, 0 } },
        { StepPhase::Backward, { 40, 4, 16, 0, 0 } },
        { StepPhase::Backward, { 32, 4, 40, 0, 72 } },
        { StepPhase::Backward, { 32, 4, 64, 0, 72 } },
        { StepPhase::Backward, { 0, 4, 32, 0, 232 } },
        { StepPhase::OptimizerStep, { 0, 0, 0, 232, 232 } },
    };
    QCOMPARE(m.size(), expected.size());
    for (std::size_t i = 0; i < m.size(); ++i) {
        QCOMPARE(m[i].phase, expected[i].first);
        QVERIFY2(liveAt(m[i]) == expected[i].second,
            qPrintable(QStringLiteral("moment %1: %2, expected %3")
                           .arg(i)
                           .arg(describe(liveAt(m[i])), describe(expected[i].second))));
    }
    QVERIFY(m[5].afterOp);
    QCOMPARE(model->endOfForwardMoment(), std::size_t { 5 });
    QCOMPARE(a.rows[m[9].row].name, std::string("relu"));
    // Constant through the step: weights 232 B, Adam's state 464 B, the batch 24 B per sample.
    for (const auto& moment : m) {
        QCOMPARE(moment.fixed.weights, std::uint64_t { 232 });
        QCOMPARE(moment.fixed.optimizerState, std::uint64_t { 464 });
        QCOMPARE(moment.perSample.input, std::uint64_t { 24 });
    }
}

void TestStepTimeline::mseLossHoldsAnInputSizedScalar()
{
    // [4] -> fc1 Linear(4 -> 8) -> relu -> fc2 Linear(8 -> 3) -> MSE. Per sample: fc1's output 32 B, relu's
    // 32 B (kept), fc2's 12 B (kept by mse_loss). mse_loss (a structured op) builds its output input-sized
    // and resizes it to the scalar loss: a 12-byte-per-sample storage the caller's `loss` holds until
    // backward returns; the squared errors (12 B) exist only while it runs.
    // Forward: fc1 32 | relu 64 | fc2 32 + 12 = 44 | mse_loss 44 + 12 = 56, scratch 12 | end 56.
    // Backward: mse_loss: fc2 output's gradient 12 (then fc2's output goes: 44) | fc2: relu output's
    // gradient 32 -> transient 44 | relu: fc1 output's gradient 32 -> 64 (then relu's output goes: 12) |
    // fc1: transient 32, the loss's 12 still held.
    const Analysis a
        = analyze(network({ 4 },
                      { layer("Linear", { { "out_features", 8 } }, "fc1"), layer("ReLU", {}, "relu"),
                          layer("Linear", { { "out_features", 3 } }, "fc2") },
                      Loss::Mse),
            Precision::Fp32);
    QVERIFY2(a.valid(), a.error ? a.error->message.c_str() : "");
    const auto model = MemoryModel::build(a, setup());
    QVERIFY2(model.ok(), model.ok() ? "" : model.error().message.c_str());
    const auto& m = model->timeline().moments();
    const std::vector<std::pair<std::uint64_t, std::uint64_t>> expected {
        { 32, 0 }, { 64, 0 }, { 44, 0 }, { 56, 12 }, { 56, 0 }, // forward
        { 56, 12 }, { 44, 44 }, { 44, 64 }, { 12, 32 }, // backward
    };
    QCOMPARE(m.size(), expected.size() + 1); // and the optimizer step
    for (std::size_t i = 0; i < expected.size(); ++i) {
        QCOMPARE(m[i].perSample.activations, expected[i].first);
        QCOMPARE(m[i].perSample.transient, expected[i].second);
    }
}

void TestStepTimeline::tinyMlpPeakMovesWithTheBatch()
{
    // Steady step total = 232 + 464 + 24 B + the largest moment: the optimizer step holds gradients 232 +
    // foreach Adam's list 232 = 464; relu's backward 96 B + 72 + the 4-byte loss. So the step is the peak
    // up to B = 4 (96 x 4 + 76 = 460 < 464) and relu's backward from B = 5.
    // B = 1: 696 + 24 + 464 = 1,184. B = 32: 696 + 768 + 3,148 = 4,612, of which activations
    // 32 x 32 = 1,024 + 4 and transient 64 x 32 = 2,048. The first step has no state before its optimizer
    // step: 232 + 768 + 3,148 = 4,148.
    const Analysis a = analyze(tinyMlp(), Precision::Fp32);
    const auto one = estimate(a, setup(Optimizer::Adam, 1), kGpuBytes);
    QVERIFY(one.ok());
    QCOMPARE(one->total(), std::uint64_t { 1184 });
    QCOMPARE(one->peak.phase, StepPhase::OptimizerStep);
    QCOMPARE(one->bytes.transient, std::uint64_t { 232 });
    QCOMPARE(one->firstStepPeakBytes, std::uint64_t { 1184 });
    const auto four = estimate(a, setup(Optimizer::Adam, 4), kGpuBytes);
    QCOMPARE(four->peak.phase, StepPhase::OptimizerStep);
    QCOMPARE(four->total(), std::uint64_t { 696 + 96 + 464 });
    const auto five = estimate(a, setup(Optimizer::Adam, 5), kGpuBytes);
    QCOMPARE(five->peak.phase, StepPhase::Backward);
    QCOMPARE(five->peakLayer, std::string("relu"));
    QCOMPARE(five->total(), std::uint64_t { 696 + 120 + 556 });
    const auto e = estimate(a, setup(Optimizer::Adam, 32), kGpuBytes);
    QCOMPARE(e->total(), std::uint64_t { 4612 }); // its components: tst_estimate's tinyMlpAdamFp32
    QCOMPARE(e->firstStepPeakBytes, std::uint64_t { 4148 });
    QCOMPARE(e->optimizerStepBytes, std::uint64_t { 232 + 232 + 464 + 232 + 768 });
    // Max batch in 10,000 bytes: 696 + 24 B + 96 B + 76 <= 10,000 -> B <= 76.9.
    const auto capped = estimate(a, setup(Optimizer::Adam, 77), 10'000);
    QCOMPARE(capped->maxBatch, std::int64_t { 76 });
    QVERIFY(!capped->fits);
    QCOMPARE(capped->total(), std::uint64_t { 10'012 });
}

void TestStepTimeline::firstStepLacksTheStateUntilItsStep()
{
    // tinyMlp() at B = 32 (moments as in tinyMlpMomentByMoment): relu's backward (moment 9) holds
    // weights 232 + activations 32 x 32 and the 4-byte loss + transient 64 x 32 + gradients 72 + the batch
    // 24 x 32 = 4,148 B in the first step, Adam's 464 B of state not yet created; the optimizer step (moment
    // 11) creates it: 232 + gradients 232 + state 464 + foreach's list 232 + the batch 768 = 1,928 B. So the
    // first step peaks at relu's backward, 4,148 B. At B = 1 relu's backward is 232 + 24 + 32 + 4 + 64 + 72 =
    // 428 B and the optimizer step, 1,184 B, is the first step's peak too.
    const Analysis a = analyze(tinyMlp(), Precision::Fp32);
    const auto model = MemoryModel::build(a, setup());
    QVERIFY(model.ok());
    const MemoryBreakdown relu = model->firstStepMomentAt(9, 32);
    QCOMPARE(relu.optimizerState, std::uint64_t { 0 });
    QCOMPARE(relu.total(), std::uint64_t { 4148 });
    QCOMPARE(model->momentAt(9, 32).total(), std::uint64_t { 4148 + 464 });
    QCOMPARE(model->firstStepMomentAt(11, 32), model->momentAt(11, 32));
    QCOMPARE(model->firstStepMomentAt(11, 32).total(), std::uint64_t { 1928 });
    const StepPeak first = model->firstStepPeakAt(32);
    QCOMPARE(first.phase, StepPhase::Backward);
    QCOMPARE(first.moment, std::size_t { 9 });
    QCOMPARE(a.rows[first.row].name, std::string("relu"));
    QCOMPARE(model->firstStepPeak(32), std::uint64_t { 4148 });
    QCOMPARE(model->firstStepPeakAt(1).phase, StepPhase::OptimizerStep);
    QCOMPARE(model->firstStepMomentAt(model->firstStepPeakAt(1).moment, 1).total(), std::uint64_t { 1184 });
    QCOMPARE(model->firstStepMomentAt(9, 1).total(), std::uint64_t { 428 });
}

void TestStepTimeline::branchGradientsSumInPlaceOnPyTorch2()
{
    // [8] -> a Linear(8) -> b1 ReLU(a), b2 Sigmoid(a) -> m Mul(b1, b2) -> head Linear(2), no loss: each
    // [8] tensor is 32 B per sample. Backward reaches a's output twice: Sigmoid's backward makes its
    // gradient (32), then ReLU's backward makes another (32), added into the first. On PyTorch 2.x the
    // sum is in place: during ReLU's backward the gradients of b1 (32) and a (32) and the incoming one
    // (32) are alive: 96 B. torch 1.13 sums into a new tensor: 128 B.
    const Network n = network({ 8 },
        { layer("Linear", { { "out_features", 8 } }, "a"), layer("ReLU", {}, "b1", { "a" }),
            layer("Sigmoid", {}, "b2", { "a" }), layer("Mul", {}, "m", { "b1", "b2" }),
            layer("Linear", { { "out_features", 2 } }, "head") },
        Loss::None);
    const Analysis a = analyze(n, Precision::Fp32);
    QVERIFY2(a.valid(), a.error ? a.error->message.c_str() : "");
    const auto reluBackward = [&](const RuntimeBehaviour& runtime) -> std::uint64_t {
        const auto model = MemoryModel::build(a, setup(), runtime);
        for (const auto& m : model->timeline().moments()) {
            if (m.phase == StepPhase::Backward && a.rows[m.row].name == "b1")
                return m.perSample.transient;
        }
        return 0;
    };
    QCOMPARE(reluBackward(RuntimeBehaviour {}), std::uint64_t { 96 });
    RuntimeBehaviour torch113;
    torch113.gradientSumsInPlace = false;
    QCOMPARE(reluBackward(torch113), std::uint64_t { 128 });
}

void TestStepTimeline::tiedWeightGradientsSumAsAutograd_data()
{
    QTest::addColumn<QString>("precision");
    QTest::addColumn<int>("accumulationSteps");
    QTest::addColumn<qint64>("atHead");
    QTest::addColumn<qint64>("atEmbedding");
    // The shared [100, 8] weight's gradient is 3,200 bytes (float32 in all three). The head's backward
    // runs first: its gradient waits in the weight's AccumulateGrad input buffer (the first micro-batch:
    // as .grad, counted in gradients; a later one: beside .grad, a transient). The embedding's backward
    // makes a second 3,200 (transient). fp32: the head's gradient is mm_mat2_backward's transposed
    // product seen through TBackward's .t(), a view whose base holds the storage, so input_buffer.cpp's
    // accumulate adds out of place, old_var + var: a third 3,200 while both live, 6,400 transient.
    // amp-bf16: ToCopyBackward hands over a fresh float32 gradient, added into in place: 3,200.
    QTest::newRow("fp32") << "fp32" << 1 << qint64 { 0 } << qint64 { 6400 };
    QTest::newRow("amp-bf16") << "amp-bf16" << 1 << qint64 { 0 } << qint64 { 3200 };
    // The later micro-batch: the held gradient is a transient beside .grad from the head's backward on
    // (3,200), then the embedding's (3,200) and the sum (3,200) join it: 9,600.
    QTest::newRow("fp32 later micro-batch") << "fp32" << 2 << qint64 { 3200 } << qint64 { 9600 };
}

void TestStepTimeline::tiedWeightGradientsSumAsAutograd()
{
    QFETCH(QString, precision);
    QFETCH(int, accumulationSteps);
    QFETCH(qint64, atHead);
    QFETCH(qint64, atEmbedding);
    LayerSpec tied = layer("Linear", { { "out_features", 100 }, { "bias", false } }, "head");
    tied.tiedTo = "emb";
    const Network n = network({ 4 },
        { layer("Embedding", { { "num_embeddings", 100 }, { "embedding_dim", 8 } }, "emb"), tied },
        Loss::None, DType::Int64);
    const Analysis a = analyze(n, *parsePrecision(precision.toStdString()));
    QVERIFY2(a.valid(), a.error ? a.error->message.c_str() : "");
    QCOMPARE(a.totalParams, std::uint64_t { 800 });
    auto s = setup();
    s.accumulationSteps = accumulationSteps;
    const auto model = MemoryModel::build(a, s);
    QVERIFY(model.ok());
    std::int64_t head = -1, embedding = -1, gradients = -1;
    for (const auto& m : model->timeline().moments()) {
        if (m.phase != StepPhase::Backward || m.laterMicroBatch != (accumulationSteps > 1))
            continue;
        if (a.rows[m.row].name == "head")
            head = static_cast<std::int64_t>(m.fixed.transient);
        if (a.rows[m.row].name == "emb") {
            embedding = static_cast<std::int64_t>(m.fixed.transient);
            gradients = static_cast<std::int64_t>(m.fixed.gradients);
        }
    }
    QCOMPARE(head, atHead);
    QCOMPARE(embedding, atEmbedding);
    QCOMPARE(gradients, qint64 { 3200 }); // one .grad for the shared weight
}

void TestStepTimeline::accumulationKeepsTheGradients()
{
    // Two micro-batches: the second's forward and backward run with every gradient (232 B) allocated,
    // and each layer's backward computes its parameters' gradients into a temporary that is added in
    // place (fc2: 72 B, fc1: 160 B). At B = 32 the peak is relu's backward in the later micro-batch:
    // 232 + 232 + 464 + 32 x 32 + 4 (the loss) + 768 + 2,048 = 4,772.
    const Analysis a = analyze(tinyMlp(), Precision::Fp32);
    auto s = setup(Optimizer::Adam, 32);
    s.accumulationSteps = 2;
    const auto e = estimate(a, s, kGpuBytes);
    QVERIFY(e.ok());
    QCOMPARE(e->total(), std::uint64_t { 4772 });
    QVERIFY(e->peak.laterMicroBatch);
    QCOMPARE(e->bytes.gradients, std::uint64_t { 232 });
    const auto model = MemoryModel::build(a, s);
    std::uint64_t fc1Temporary = 0;
    for (const auto& m : model->timeline().moments()) {
        if (m.laterMicroBatch && m.phase == StepPhase::Backward && a.rows[m.row].name == "fc1")
            fc1Temporary = m.fixed.transient;
    }
    QCOMPARE(fc1Temporary, std::uint64_t { 160 });
}

void TestStepTimeline::optimizerTemporaries_data()
{
    QTest::addColumn<Optimizer>("optimizer");
    QTest::addColumn<OptimizerImplementation>("implementation");
    QTest::addColumn<qulonglong>("temporaries");
    // tinyMlp's parameter tensors in order: fc1.weight 128 B, fc1.bias 32, fc2.weight 64, fc2.bias 8;
    // all 232 B. foreach: lists of all of them; for-loop: the largest of a P(i-1) + b P(i).
    using O = Optimizer;
    using I = OptimizerImplementation;
    QTest::newRow("adam foreach: one list") << O::Adam << I::Foreach << qulonglong { 232 };
    QTest::newRow("adam fused: none") << O::Adam << I::Fused << qulonglong { 0 };
    // 0 + 2 x 128 = 256; 128 + 2 x 32 = 192; 32 + 2 x 64 = 160; 64 + 2 x 8 = 80.
    QTest::newRow("adam for-loop: P(i-1) + 2 P(i)") << O::Adam << I::ForLoop << qulonglong { 256 };
    QTest::newRow("adagrad foreach: two lists") << O::Adagrad << I::Foreach << qulonglong { 464 };
    // 128; 128 + 32 = 160; 32 + 64 = 96; 64 + 8 = 72.
    QTest::newRow("adagrad for-loop: P(i-1) + P(i)") << O::Adagrad << I::ForLoop << qulonglong { 160 };
    // max(2 P(i-1) + P(i), P(i-1) + 2 P(i)): 256; max(288, 192); max(128, 160); max(136, 80) -> 288.
    QTest::newRow("adadelta for-loop") << O::Adadelta << I::ForLoop << qulonglong { 288 };
    QTest::newRow("sgd foreach") << O::Sgd << I::Foreach << qulonglong { 0 };
    QTest::newRow("momentum foreach") << O::Momentum << I::Foreach << qulonglong { 0 };
    QTest::newRow("nesterov foreach: in place") << O::Nesterov << I::Foreach << qulonglong { 0 };
    QTest::newRow("nesterov for-loop: P(i)") << O::Nesterov << I::ForLoop << qulonglong { 128 };
}

void TestStepTimeline::optimizerTemporaries()
{
    QFETCH(Optimizer, optimizer);
    QFETCH(OptimizerImplementation, implementation);
    QFETCH(qulonglong, temporaries);
    auto s = setup(optimizer, 1);
    s.optimizerImplementation = implementation;
    const auto model = MemoryModel::build(analyze(tinyMlp(), Precision::Fp32), s);
    QVERIFY(model.ok());
    const MemoryBreakdown step = model->momentAt(model->optimizerStepMoment(), 1);
    QCOMPARE(step.transient, std::uint64_t { temporaries });
    QCOMPARE(step.gradients, std::uint64_t { 232 });
}

void TestStepTimeline::envelopeMatchesBruteForce()
{
    std::mt19937_64 random { 20261124 };
    std::uniform_int_distribution<std::uint64_t> fixed { 0, 1'000'000'000 };
    std::uniform_int_distribution<std::uint64_t> slope { 0, 5'000'000 };
    for (int trial = 0; trial < 200; ++trial) {
        std::vector<UpperEnvelope::Line> lines;
        const int n = 1 + trial % 40;
        for (int i = 0; i < n; ++i)
            lines.push_back(
                UpperEnvelope::Line { fixed(random), slope(random), static_cast<std::size_t>(i) });
        const UpperEnvelope envelope { lines };
        QVERIFY(envelope.lines().size() <= lines.size());
        for (const std::int64_t b : { 1LL, 2LL, 3LL, 17LL, 200LL, 999LL, 65'536LL, 1LL << 31 }) {
            std::uint64_t best = 0;
            for (const auto& l : lines)
                best = std::max(best, l.fixed + l.perSample * static_cast<std::uint64_t>(b));
            QCOMPARE(envelope.valueAt(b), best);
            const auto& top = envelope.highestAt(b);
            QCOMPARE(top.fixed + top.perSample * static_cast<std::uint64_t>(b), best);
        }
    }
}

void TestStepTimeline::envelopeLargestBatch()
{
    // y = 100 + 10 B, y = 400 + 2 B, y = 1,000: capacity 1,000 -> 10 B <= 900 -> B <= 90, 2 B <= 600
    // -> 300, the flat line fits: 90. Capacity 999: the flat line never fits -> 0.
    const UpperEnvelope envelope { { { 100, 10, 0 }, { 400, 2, 1 }, { 1000, 0, 2 } } };
    QCOMPARE(envelope.largestBatchWithin(1000, 1LL << 31), std::int64_t { 90 });
    QCOMPARE(envelope.largestBatchWithin(999, 1LL << 31), std::int64_t { 0 });
    // Batch 1 must fit: 110 > 105.
    const UpperEnvelope steep { { { 100, 10, 0 } } };
    QCOMPARE(steep.largestBatchWithin(105, 1LL << 31), std::int64_t { 0 });
    // A flat envelope fits any batch up to the limit.
    const UpperEnvelope flat { { { 100, 0, 0 } } };
    QCOMPARE(flat.largestBatchWithin(105, 1000), std::int64_t { 1000 });
}

QTEST_APPLESS_MAIN(TestStepTimeline)
#include "tst_steptimeline.moc"

// Hugging Face training steps measured on an H100 (tests/data/torch2/measured.json, "hf": PyTorch 2.11,
// transformers 5.17, PEFT; sequence 512, AdamW with PyTorch's foreach step, two steps per batch) against
// the step Headroom simulates for the same config.json and set-up: Qwen3-0.6B with LoRA (r = 8 on
// q_proj and v_proj) under bf16 autocast, and trained in full in fp32 and under autocast; LoRA on three
// mixture-of-experts models with their published sizes and fewer layers (Qwen3-30B-A3B and
// Qwen1.5-MoE-A2.7B with 4, Mixtral-8x7B with 2), and the 4-layer Qwen3-30B-A3B trained in full in fp32.
// These are issue 24's set-ups that were 9-36 % off.
//
// Measured: the steady step's peak of torch.cuda.max_memory_allocated() less what was allocated before
// the step (the weights, the token batch, and what earlier runs in the process left). Headroom: the
// simulated peak less the float32 weights and buffers and one int64 token batch (the labels are the same
// tensor as the input ids there).
#include "headroom/estimate/Plan.h"
#include "headroom/importers/HfConfig.h"

#include <QTest>
#include <algorithm>
#include <cmath>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>

using namespace headroom;

namespace {

constexpr std::int64_t kSequence = 512;
constexpr double kTolerance = 0.01;
/// The first run in the process also allocated cuBLAS's workspaces during its step (later runs have them
/// in what was allocated before); Headroom counts those in the reserved memory, not in the peak.
constexpr double kFirstRunTolerance = 0.04;

nlohmann::json measurements()
{
    std::ifstream in(HEADROOM_TEST_SOURCE_DIR "/tests/data/torch2/measured.json", std::ios::binary);
    const std::string text { std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>() };
    return nlohmann::json::parse(text).at("hf");
}

} // namespace

class TestHfSteps : public QObject
{
    Q_OBJECT

private slots:
    void stepPeaksAsMeasured_data();
    void stepPeaksAsMeasured();
    void backwardPeaksAsMeasured_data() { stepPeaksAsMeasured_data(); }
    void backwardPeaksAsMeasured();
};

namespace {

/// The plan of a data row: the config, LoRA, precision and batch as measured, AdamW, no overhead.
PlanResult evaluated(const QString& config, bool lora, const QString& precision, qint64 batch)
{
    const auto network = importHfConfig(config.toStdString(), "config.json");
    if (!network.ok()) {
        PlanResult failed;
        failed.error = network.error();
        return failed;
    }
    Plan plan;
    plan.network = network.value();
    plan.precision = precision == QLatin1String("fp32") ? Precision::Fp32 : Precision::AmpBf16;
    plan.sequenceLength = kSequence;
    if (lora) {
        plan.lora.rank = 8;
        plan.lora.targets = { "q_proj", "v_proj" };
    }
    plan.setup.optimizer = Optimizer::AdamW;
    plan.setup.batch = batch;
    plan.setup.overheadBytes = 0;
    plan.gpu.name = "Custom GPU";
    plan.gpu.memoryBytes = 80ULL << 30;
    plan.gpu.custom = true;
    return evaluate(plan);
}

} // namespace

void TestHfSteps::stepPeaksAsMeasured_data()
{
    QTest::addColumn<QString>("config");
    QTest::addColumn<bool>("lora");
    QTest::addColumn<QString>("precision");
    QTest::addColumn<qint64>("batch");
    QTest::addColumn<qint64>("measured");
    QTest::addColumn<qint64>("measuredBackward");
    QTest::addColumn<double>("tolerance");
    int rows = 0;
    const auto cases = measurements();
    for (const auto& [id, c] : cases.items()) {
        for (const auto& run : c.at("runs")) {
            QCOMPARE(run.at("steps").size(), std::size_t { 2 });
            const auto peak = run.at("steps")[1].at("peak").get<qint64>();
            const auto before = run.at("allocated_at_start").get<qint64>();
            // measure_torch2.py's HF_CASES run in this order; this is the process's first training step.
            const bool first = id == "qwen3_0.6b_lora_bf16" && run.at("batch").get<int>() == 1;
            QTest::newRow((id + " batch " + std::to_string(run.at("batch").get<int>())).c_str())
                << QString::fromStdString(c.at("config").dump()) << c.at("lora").get<bool>()
                << QString::fromStdString(c.at("precision").get<std::string>())
                << run.at("batch").get<qint64>() << peak - before
                << run.at("steps")[1].at("backward").get<qint64>() - before
                << (first ? kFirstRunTolerance : kTolerance);
            ++rows;
        }
    }
    QCOMPARE(rows, 21); // 4 + 3 + 3 batches of Qwen3-0.6B, 3 of each MoE model with LoRA, 2 in full fp32
}

void TestHfSteps::stepPeaksAsMeasured()
{
    QFETCH(QString, config);
    QFETCH(bool, lora);
    QFETCH(QString, precision);
    QFETCH(qint64, batch);
    QFETCH(qint64, measured);
    QFETCH(double, tolerance);
    const auto network = importHfConfig(config.toStdString(), "config.json");
    QVERIFY2(network.ok(), network.ok() ? "" : network.error().message.c_str());
    Plan plan;
    plan.network = network.value();
    plan.precision = precision == QLatin1String("fp32") ? Precision::Fp32 : Precision::AmpBf16;
    plan.sequenceLength = kSequence;
    if (lora) {
        plan.lora.rank = 8;
        plan.lora.targets = { "q_proj", "v_proj" };
    }
    plan.setup.optimizer = Optimizer::AdamW;
    plan.setup.batch = batch;
    plan.setup.overheadBytes = 0;
    plan.gpu.name = "Custom GPU";
    plan.gpu.memoryBytes = 80ULL << 30;
    plan.gpu.custom = true;
    const PlanResult result = evaluate(plan);
    QVERIFY2(result.estimate.has_value(), result.error ? result.error->message.c_str() : "");
    const auto& a = result.analysis;
    const auto before = 4 * static_cast<qint64>(a.totalParams + a.bufferElements) + 8 * batch * kSequence;
    const auto simulated = static_cast<qint64>(result.estimate->peakBytes()) - before;
    const double off = static_cast<double>(simulated - measured) / static_cast<double>(measured);
    QVERIFY2(std::abs(off) <= tolerance,
        qPrintable(QStringLiteral("simulated %1 B, measured %2 B: %3 %")
                       .arg(simulated)
                       .arg(measured)
                       .arg(100.0 * off, 0, 'f', 2)));
}

void TestHfSteps::backwardPeaksAsMeasured()
{
    // The steady step's backward alone: torch.cuda.max_memory_allocated() over loss.backward(), against
    // the largest simulated backward moment. Qwen3-0.6B ties lm_head to embed_tokens; trained in full in
    // fp32 at batch 1 its backward peaks at the embedding's backward, where autograd holds three
    // 151,936 x 1,024 float32 gradients (622,329,856 bytes each): lm_head's (a view of mm's product,
    // waiting in the weight's input buffer), the embedding's, and their out-of-place sum
    // (torch/csrc/autograd/input_buffer.cpp). Counting two left it 4.0 % low (8,060,590,084 against
    // 8,399,881,216); under autocast lm_head's gradient is a fresh float32 copy, added into in place, and
    // a third would make the same moment 3.8 % high.
    QFETCH(QString, config);
    QFETCH(bool, lora);
    QFETCH(QString, precision);
    QFETCH(qint64, batch);
    QFETCH(qint64, measuredBackward);
    QFETCH(double, tolerance);
    const PlanResult result = evaluated(config, lora, precision, batch);
    QVERIFY2(result.memory != nullptr, result.error ? result.error->message.c_str() : "");
    const auto& a = result.analysis;
    const auto before = 4 * static_cast<qint64>(a.totalParams + a.bufferElements) + 8 * batch * kSequence;
    const auto& moments = result.memory->timeline().moments();
    qint64 simulated = 0;
    for (std::size_t i = 0; i < moments.size(); ++i) {
        if (moments[i].phase == StepPhase::Backward && !moments[i].laterMicroBatch)
            simulated = std::max(simulated, static_cast<qint64>(result.memory->momentAt(i, batch).total()));
    }
    simulated -= before;
    const double off
        = static_cast<double>(simulated - measuredBackward) / static_cast<double>(measuredBackward);
    QVERIFY2(std::abs(off) <= tolerance,
        qPrintable(QStringLiteral("simulated %1 B, measured %2 B: %3 %")
                       .arg(simulated)
                       .arg(measuredBackward)
                       .arg(100.0 * off, 0, 'f', 2)));
}

QTEST_GUILESS_MAIN(TestHfSteps)
#include "tst_hfsteps.moc"

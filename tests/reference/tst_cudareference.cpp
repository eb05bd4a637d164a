// Headroom's reserved-memory model against real training on a CUDA GPU (issue 23): one H100, PyTorch
// 2.11, cuDNN 9.19, measured in tests/reference/cuda/ (README.md there says how). Two claims:
// - the largest batch that trains two Adam steps in fp32 under an 8 GiB allocator cap
//   (set_per_process_memory_fraction; the CUDA context excluded): ReservedModel::maxBatch is never above
//   the measured one and within 3 % of it;
// - each phase's max_memory_allocated (forward with the loss, backward, optimizer step, of the first and a
//   steady step, at batch 8 and 32, fp32 and autocast bf16): the replayed allocator's allocated peak of that
//   phase, both counted above what was allocated before the first step, within 2 % (or 2 MiB, one
//   small-pool segment, for the tiny networks). The measured figures are above `alive_before_step1`,
//   which also held what earlier measurements of the same process left (README.md): the cuBLAS workspaces
//   among them, so the model is replayed without them, except the one the very first measured backward
//   made (vgg16 fp32, batch 8; derivation in cublasWorkspaceMadeBy()).
// The comparison goes to the log (qInfo); docs/accuracy.md's max-batch table is checked against it.
#include "headroom/allocator/ReservedModel.h"
#include "headroom/analysis/Analysis.h"
#include "headroom/estimate/Estimate.h"
#include "headroom/estimate/Plan.h"
#include "headroom/model/ModelFile.h"

#include <QFile>
#include <QTest>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>

using namespace headroom;
using nlohmann::json;

namespace {

constexpr double kMaxBatchTolerance = 0.03;
constexpr double kPhaseTolerance = 0.02;
constexpr double kPhaseFloorBytes = 2.0 * 1024 * 1024;
constexpr std::uint64_t kCapacity = 8ULL << 30;
/// How far LeNet-5's allocated step peak (workspaces included) may be from max_memory_allocated: the
/// phases' own tolerance. Measured: fp32 at batch 8 and 32 and amp-bf16 at batch 8 within 0.8 %;
/// amp-bf16 at batch 32 is 49 % low (an expected failure: cuDNN's bf16 workspace).
constexpr double kLenetAllocatedTolerance = kPhaseTolerance;

json measurements()
{
    QFile f(QStringLiteral(HEADROOM_TEST_SOURCE_DIR "/tests/reference/cuda/measurements.json"));
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return json::parse(f.readAll().toStdString(), nullptr, false);
}

/// The Headroom model files of the measured networks (presets, or tests/reference/models).
const std::map<std::string, std::string>& modelFiles()
{
    static const std::map<std::string, std::string> files {
        { "vgg16", "resources/presets/vgg16.json" },
        { "resnet50", "resources/presets/resnet50.json" },
        { "resnet18", "resources/presets/resnet18.json" },
        { "alexnet", "resources/presets/alexnet.json" },
        { "mobilenet_v2", "resources/presets/mobilenet_v2.json" },
        { "densenet121", "tests/reference/models/densenet121.json" },
        { "lenet5", "resources/presets/lenet5.json" },
    };
    return files;
}

Analysis analysisOf(const std::string& name, Precision precision)
{
    const auto net = loadModelFile(HEADROOM_TEST_SOURCE_DIR "/" + modelFiles().at(name));
    if (!net)
        qFatal("%s", net.error().message.c_str());
    AnalysisOptions o;
    o.precision = precision;
    return analyze(net.value(), o);
}

TrainingSetup setup()
{
    TrainingSetup s; // Adam, foreach (PyTorch's default on CUDA), one GPU
    s.overheadBytes = 0;
    return s;
}

Result<ReservedModel> modelOf(const std::string& name, Precision precision, const ReservedOptions& options)
{
    return ReservedModel::build(analysisOf(name, precision), setup(), options);
}

/// The backward-thread cuBLAS workspace the measured steps themselves made: only in the first run of the
/// process (vgg16 fp32 at batch 8), where `alive_before_step1` grows between batch 8 and batch 32 by 24
/// samples' batch (24 x 602,112 bytes) plus exactly 33,554,432 bytes (32 MiB, an H100's workspace):
/// 865,620,480 - 817,615,360 - 14,450,688. Made by step 1's backward, alive from then on.
std::uint64_t cublasWorkspaceMadeBy(
    const std::string& network, const std::string& precision, int batch, int step, TraceStage stage)
{
    const bool first = network == "vgg16" && precision == "fp32" && batch == 8;
    return first && (step == 2 || stage != TraceStage::Forward) ? 32ULL << 20 : 0;
}

/// One network's max-batch answers (docs/accuracy.md's table).
struct MaxBatchRow
{
    std::int64_t measured = 0;
    ReservedMaxBatch reserved;
    std::int64_t tensorsAlone = 0;
};

/// The row of the Markdown table in `text` whose header has `marker` and whose first cell is `first`;
/// empty when there is none.
QStringList markdownRow(const QString& text, const QString& marker, const QString& first)
{
    bool inTable = false;
    for (const QString& line : text.split(QLatin1Char('\n'))) {
        if (!line.startsWith(QLatin1Char('|'))) {
            inTable = false;
            continue;
        }
        QStringList cells = line.split(QLatin1Char('|'));
        cells = cells.mid(1, cells.size() - 2);
        for (QString& c : cells)
            c = c.trimmed();
        if (!inTable) {
            inTable = cells.contains(marker);
            continue;
        }
        if (!cells.isEmpty() && cells.first() == first)
            return cells;
    }
    return {};
}

const char* stageKey(TraceStage s)
{
    return s == TraceStage::Forward ? "forward" : s == TraceStage::Backward ? "backward" : "optimizer";
}

} // namespace

class TestCudaReference : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void maxBatchNeverAboveMeasured_data();
    void maxBatchNeverAboveMeasured();
    void phasePeaksWithinTolerance_data();
    void phasePeaksWithinTolerance();
    void accuracyDocumentMatches();
    void evaluatedPlanAnswersFromReserved_data();
    void evaluatedPlanAnswersFromReserved();
    void allocatedPeakCountsWorkspaces_data();
    void allocatedPeakCountsWorkspaces();

private:
    MaxBatchRow maxBatchRow(const std::string& name);

    json m_data;
    std::map<std::string, MaxBatchRow> m_maxBatch;
};

MaxBatchRow TestCudaReference::maxBatchRow(const std::string& name)
{
    if (const auto it = m_maxBatch.find(name); it != m_maxBatch.end())
        return it->second;
    MaxBatchRow row;
    row.measured = m_data["networks"][name]["max_batch_8GiB_fp32"]["max_batch"].get<std::int64_t>();
    ReservedOptions o; // H100 (9.0), PyTorch 2.11: its cuBLAS workspaces included (a fresh process)
    const auto model = modelOf(name, Precision::Fp32, o);
    if (!model)
        qFatal("%s", model.error().message.c_str());
    row.reserved = model.value().maxBatch(kCapacity);
    const auto allocated = MemoryModel::build(analysisOf(name, Precision::Fp32), setup());
    if (!allocated)
        qFatal("%s", allocated.error().message.c_str());
    row.tensorsAlone = allocated.value().maxBatch(kCapacity);
    return m_maxBatch[name] = row;
}

void TestCudaReference::initTestCase()
{
    m_data = measurements();
    QVERIFY2(
        m_data.is_object() && m_data.contains("networks"), "tests/reference/cuda/measurements.json missing");
    QCOMPARE(m_data["env"]["torch"].get<std::string>(), std::string { "2.11.0+cu130" });
}

void TestCudaReference::maxBatchNeverAboveMeasured_data()
{
    QTest::addColumn<QString>("network");
    const json all = measurements();
    for (const auto& [name, entry] : all["networks"].items()) {
        if (entry.contains("max_batch_8GiB_fp32"))
            QTest::newRow(name.c_str()) << QString::fromStdString(name);
    }
}

void TestCudaReference::maxBatchNeverAboveMeasured()
{
    QFETCH(QString, network);
    const std::string name = network.toStdString();
    const MaxBatchRow row = maxBatchRow(name);
    const std::int64_t measured = row.measured;
    const ReservedMaxBatch& answer = row.reserved;
    const double below = static_cast<double>(measured - answer.batch) / static_cast<double>(measured);
    qInfo("max batch | %s | measured %lld | Headroom %lld (%+.1f %%) | at the exact capacity %lld | "
          "tensors alone %lld | margin %.0f MiB",
        name.c_str(), static_cast<long long>(measured), static_cast<long long>(answer.batch), -100.0 * below,
        static_cast<long long>(answer.unguarded), static_cast<long long>(row.tensorsAlone),
        static_cast<double>(answer.marginBytes) / (1 << 20));
    QVERIFY2(answer.batch <= measured, "Headroom's max batch is above the batch that really trained");
    QVERIFY2(below <= kMaxBatchTolerance, "more than 3 % below the measured max batch");
}

void TestCudaReference::phasePeaksWithinTolerance_data()
{
    QTest::addColumn<QString>("network");
    QTest::addColumn<QString>("precision");
    QTest::addColumn<int>("batch");
    const json all = measurements();
    for (const auto& [name, entry] : all["networks"].items()) {
        for (const char* precision : { "fp32", "amp-bf16" }) {
            if (!entry.contains(precision))
                continue;
            for (const int batch : { 8, 32 })
                QTest::addRow("%s %s batch %d", name.c_str(), precision, batch)
                    << QString::fromStdString(name) << QString::fromLatin1(precision) << batch;
        }
    }
}

void TestCudaReference::phasePeaksWithinTolerance()
{
    QFETCH(QString, network);
    QFETCH(QString, precision);
    QFETCH(int, batch);
    const std::string name = network.toStdString();
    const std::string p = precision.toStdString();
    ReservedOptions o;
    o.cublasWorkspaces = false; // made by earlier measurements of the process: in alive_before_step1
    const auto model = modelOf(name, *parsePrecision(p), o);
    QVERIFY2(model.ok(), model.ok() ? "" : model.error().message.c_str());
    const ReservedRun run = model.value().run(batch);
    const auto& peaks = m_data["networks"][name][p]["peaks"][std::to_string(batch)];
    const double before = static_cast<double>(run.phases.front().allocated); // weights, buffers, the batch
    QStringList outside;
    for (std::size_t i = 1; i < run.phases.size(); ++i) {
        const PhasePeak& ph = run.phases[i];
        const auto measured = peaks["step" + std::to_string(ph.step)][stageKey(ph.stage)]
                                   ["max_allocated_above_alive_before_step1"]
                                       .get<double>();
        const double headroom = static_cast<double>(ph.allocated) - before
            + static_cast<double>(cublasWorkspaceMadeBy(name, p, batch, ph.step, ph.stage));
        const double diff = headroom - measured;
        qInfo("phase | %s | %s | %d | step %d %s | measured %.0f | Headroom %.0f | %+.2f %%", name.c_str(),
            p.c_str(), batch, ph.step, stageKey(ph.stage), measured, headroom, 100.0 * diff / measured);
        if (std::abs(diff) > std::max(kPhaseTolerance * measured, kPhaseFloorBytes))
            outside << QStringLiteral("step %1 %2: measured %3, Headroom %4 (%5 %)")
                           .arg(ph.step)
                           .arg(QLatin1String(stageKey(ph.stage)))
                           .arg(measured, 0, 'f', 0)
                           .arg(headroom, 0, 'f', 0)
                           .arg(100.0 * diff / measured, 0, 'f', 2);
    }
    // Known residuals (docs/accuracy.md, "Reserved memory on a GPU"): cuDNN's backward plans take workspaces
    // Headroom does not size (fp32: 10-20 MB more than the NHWC copies it counts; autocast: less).
    static const std::map<std::string, const char*> known {
        { "alexnet fp32 8", "cuDNN's fp32 backward workspaces: 19-20 MB more than modelled" },
        { "alexnet fp32 32", "cuDNN's fp32 backward workspaces: 10 MB more than modelled" },
        { "resnet18 fp32 8", "cuDNN's fp32 backward workspaces: 10-14 MB more than modelled" },
        { "resnet18 amp-bf16 8", "cuDNN's bf16 backward workspaces: 5-6 MB less than modelled" },
        { "resnet50 amp-bf16 8",
            "cuDNN's bf16 backward workspaces and the cache's unsplit remainders: 12-13 MB" },
        { "mobilenet_v2 amp-bf16 8", "cuDNN's bf16 backward workspaces: 9-10 MB more than modelled" },
        { "mobilenet_v2 amp-bf16 32", "cuDNN's bf16 backward workspaces: 42-45 MB more than modelled" },
    };
    if (const auto it = known.find(name + " " + p + " " + std::to_string(batch)); it != known.end())
        QEXPECT_FAIL("", it->second, Continue);
    QVERIFY2(outside.isEmpty(), qPrintable(outside.join(QStringLiteral("; "))));
}

void TestCudaReference::accuracyDocumentMatches()
{
    QFile f(QStringLiteral(HEADROOM_TEST_SOURCE_DIR "/docs/accuracy.md"));
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QString text = QString::fromUtf8(f.readAll());
    const QString marker = QStringLiteral("measured on the H100");
    QStringList problems;
    for (const auto& [name, entry] : m_data["networks"].items()) {
        if (!entry.contains("max_batch_8GiB_fp32"))
            continue;
        const MaxBatchRow row = maxBatchRow(name);
        const double below = 100.0 * static_cast<double>(row.measured - row.reserved.batch)
            / static_cast<double>(row.measured);
        const QStringList expected { QString::fromStdString(name), QString::number(row.measured),
            QString::number(row.reserved.batch), QStringLiteral("%1 %").arg(below, 0, 'f', 1),
            QString::number(row.reserved.unguarded), QString::number(row.tensorsAlone) };
        const QStringList actual = markdownRow(text, marker, QString::fromStdString(name));
        if (actual != expected)
            problems << QStringLiteral("docs/accuracy.md: '| %1 |' should be '| %2 |'")
                            .arg(actual.join(QStringLiteral(" | ")), expected.join(QStringLiteral(" | ")));
    }
    QVERIFY2(problems.isEmpty(), qPrintable(problems.join(QLatin1Char('\n'))));
}

void TestCudaReference::evaluatedPlanAnswersFromReserved_data()
{
    maxBatchNeverAboveMeasured_data();
}

void TestCudaReference::evaluatedPlanAnswersFromReserved()
{
    // What every view shows goes through evaluate(): the measured set-up as a plan (a GPU of 8 GiB,
    // --overhead-mib 0: the allocator capped at 8 GiB as set_per_process_memory_fraction did, the
    // context outside it). Its max batch must obey the same claims as the reserved model's: never above
    // the batch that really trained on the H100, within 3 % of it.
    QFETCH(QString, network);
    const std::string name = network.toStdString();
    const auto net = loadModelFile(HEADROOM_TEST_SOURCE_DIR "/" + modelFiles().at(name));
    QVERIFY(net.ok());
    Plan plan;
    plan.network = net.value();
    plan.setup = setup();
    plan.gpu.name = "Custom GPU"; // no family: Hopper's cuBLAS workspace, as on the H100
    plan.gpu.memoryBytes = kCapacity;
    plan.gpu.custom = true;
    const PlanResult result = evaluate(plan);
    QVERIFY(result.estimate.has_value());
    QVERIFY2(result.reservedFigures.has_value(),
        result.reservedError ? result.reservedError->message.c_str() : "");
    const std::int64_t measured
        = m_data["networks"][name]["max_batch_8GiB_fp32"]["max_batch"].get<std::int64_t>();
    const std::int64_t answer = result.estimate->maxBatch;
    QVERIFY2(answer <= measured, qPrintable(QStringLiteral("%1 > %2 measured").arg(answer).arg(measured)));
    QVERIFY2(static_cast<double>(measured - answer) / static_cast<double>(measured) <= kMaxBatchTolerance,
        qPrintable(QStringLiteral("%1 more than 3 % below %2 measured").arg(answer).arg(measured)));
    QCOMPARE(result.reservedFigures->capacityBytes, kCapacity); // no overhead
    QCOMPARE(
        result.reservedFigures->cublasWorkspaceBytes, std::uint64_t { 2 * (32ULL << 20) }); // 2 H100 handles
    // The plan's batch (32) fits: reserved at least the allocated peak, which holds at least the tensors'.
    QVERIFY(result.reservedFigures->fits && result.estimate->fits);
    QVERIFY(result.reservedFigures->peakReservedBytes >= result.reservedFigures->peakAllocatedBytes);
    const nlohmann::ordered_json j = planToJson(plan, result);
    QCOMPARE(j["max_batch"].get<std::int64_t>(), answer);
    QCOMPARE(j["reserved"]["max_batch"].get<std::int64_t>(), answer);
    QCOMPARE(j["reserved"]["overhead_bytes"].get<std::uint64_t>(), std::uint64_t { 0 });
    QCOMPARE(j["reserved"]["cuda_context"]["bytes"].get<std::uint64_t>(), std::uint64_t { 768ULL << 20 });
}

void TestCudaReference::allocatedPeakCountsWorkspaces_data()
{
    QTest::addColumn<QString>("precision");
    QTest::addColumn<int>("batch");
    for (const char* precision : { "fp32", "amp-bf16" }) {
        for (const int batch : { 8, 32 })
            QTest::addRow("lenet5 %s batch %d", precision, batch) << QString::fromLatin1(precision) << batch;
    }
}

void TestCudaReference::allocatedPeakCountsWorkspaces()
{
    // Issue 34, item 5: "allocated" is what torch.cuda.max_memory_allocated() says, and PyTorch makes the
    // cuDNN convolution workspaces (run_conv_plan) and the cuBLAS ones (getCUDABlasLtWorkspace) through
    // its caching allocator, so it counts them. On LeNet-5 they are most of the step: the step's peak is
    // a convolution's backward, its workspace beside a few hundred kilobytes of tensors. The measured
    // figure: the most max_memory_allocated of the six measured phases above alive_before_step1
    // (measurements.json, H100). Headroom's: the replay's allocated peak
    // (ReservedFigures::peakAllocatedBytes, the JSON's reserved.peak_allocated_bytes) above what the replay
    // held before step 1. The cuBLAS workspaces were made by the networks measured earlier in the same
    // process (alive_before_step1), so the replay leaves them out as phasePeaksWithinTolerance does; the
    // cuDNN ones live only inside each convolution and are in the measured phases.
    QFETCH(QString, precision);
    QFETCH(int, batch);
    const std::string p = precision.toStdString();
    ReservedOptions o;
    o.cublasWorkspaces = false;
    const auto model = modelOf("lenet5", *parsePrecision(p), o);
    QVERIFY(model.ok());
    const ReservedRun run = model.value().run(batch);
    const auto& peaks = m_data["networks"]["lenet5"][p]["peaks"][std::to_string(batch)];
    double measured = 0;
    for (const char* step : { "step1", "step2" }) {
        for (const char* stage : { "forward", "backward", "optimizer" })
            measured = std::max(
                measured, peaks[step][stage]["max_allocated_above_alive_before_step1"].get<double>());
    }
    const double before = static_cast<double>(run.phases.front().allocated);
    const double allocated = static_cast<double>(run.peakAllocated) - before;
    const double withoutWorkspaces = allocated - static_cast<double>(run.peakAllocatedWorkspaces);
    qInfo(
        "allocated | lenet5 | %s | %d | measured %.0f | Headroom %.0f (%+.1f %%), of which workspaces %llu | "
        "without them %.0f (%+.1f %%)",
        p.c_str(), batch, measured, allocated, 100.0 * (allocated - measured) / measured,
        static_cast<unsigned long long>(run.peakAllocatedWorkspaces), withoutWorkspaces,
        100.0 * (withoutWorkspaces - measured) / measured);
    QVERIFY(run.peakAllocatedWorkspaces <= run.peakAllocated);
    // Autocast at batch 32: cuDNN's bf16 backward plans take about 1.8 MB more workspace than the
    // input + output + weight Headroom sizes them at (docs/memory-model.md, "cuDNN convolutions"): the
    // workspace is counted as allocated, its size is not cuDNN's heuristics' choice.
    if (p == "amp-bf16" && batch == 32)
        QEXPECT_FAIL(
            "", "cuDNN's bf16 backward workspace at batch 32: about 1.8 MB more than modelled", Continue);
    QVERIFY2(std::abs(allocated - measured) <= kLenetAllocatedTolerance * measured,
        qPrintable(
            QStringLiteral("measured %1, Headroom %2").arg(measured, 0, 'f', 0).arg(allocated, 0, 'f', 0)));
}

QTEST_APPLESS_MAIN(TestCudaReference)
#include "tst_cudareference.moc"

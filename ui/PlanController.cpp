#include "PlanController.h"

#include "Document.h"
#include "QtText.h"

#include "headroom/HfConfig.h"

#include <algorithm>
#include <bit>

namespace headroom::ui {

namespace {
constexpr std::int64_t kMinChartRange = 16;
constexpr std::int64_t kMaxChartRangeFromMaxBatch = 1 << 20;
constexpr std::int64_t kChartSamples = 512;
} // namespace

PlanController::PlanController(Document* document, QObject* parent) : QObject(parent), m_document{document}
{
    connect(document, &Document::networkChanged, this, &PlanController::reanalyze);
    connect(document, &Document::precisionChanged, this, &PlanController::reanalyze);
    connect(document, &Document::strategyChanged, this, &PlanController::reanalyze);
    connect(document, &Document::setupChanged, this, &PlanController::rebuildModel);
    connect(document, &Document::batchChanged, this, &PlanController::updateBatch);
    reanalyze();
}

TrainingSetup PlanController::setup() const
{
    TrainingSetup s = m_document->plan().setup;
    s.gpuMemoryBytes = m_document->plan().gpu.memoryBytes;
    return s;
}

PlanResult PlanController::planResult() const
{
    PlanResult r;
    r.analysis = m_analysis;
    r.estimate = m_state.estimate;
    r.error = m_state.error;
    return r;
}

std::int64_t PlanController::chartRange(std::int64_t batch, std::int64_t maxBatch)
{
    const auto room = [](std::int64_t b) { return b + b / 4; };
    const std::int64_t wanted = std::max({kMinChartRange, room(batch), room(std::min(maxBatch, kMaxChartRangeFromMaxBatch))});
    return static_cast<std::int64_t>(std::bit_ceil(static_cast<std::uint64_t>(std::min(wanted, kMaxBatch))));
}

void PlanController::reanalyze()
{
    // As evaluate() does: the plan's analysis options, on the network at the plan's sequence length.
    const Plan& plan = m_document->plan();
    if (plan.sequenceLength) {
        auto resized = withSequenceLength(plan.network, *plan.sequenceLength);
        if (resized) {
            m_analysis = analyze(resized.value(), plan.analysisOptions());
        } else {
            m_analysis = Analysis{};
            m_analysis.precision = plan.precision;
            m_analysis.options = plan.analysisOptions();
            m_analysis.error = resized.error();
        }
    } else {
        m_analysis = analyze(plan.network, plan.analysisOptions());
    }
    ++m_analysisRuns;
    Q_EMIT analysisChanged(m_analysis);
    rebuildModel();
}

void PlanController::rebuildModel()
{
    auto model = MemoryModel::build(m_analysis, setup());
    if (model) {
        m_model = std::move(model).value();
        m_modelError.reset();
    } else {
        m_model.reset();
        m_modelError = model.error();
    }
    updateEstimate();
    rebuildChart();
}

void PlanController::updateBatch()
{
    updateEstimate();
    // The sweep depends on the batch only through its range: rebuild when the batch leaves it or
    // the range has become much too wide.
    const std::int64_t batch = m_document->plan().setup.batch;
    if (m_chart.valid && !m_chart.batches.empty()) {
        const std::int64_t range = m_chart.batches.back();
        const std::int64_t wanted = chartRange(batch, m_chart.maxBatch);
        if (batch > range || wanted < range / 2)
            rebuildChart();
    }
}

void PlanController::updateEstimate()
{
    const TrainingSetup s = setup();
    m_state = EstimateState{};
    m_state.capacityBytes = s.gpuMemoryBytes;
    m_state.gpuName = qs(m_document->plan().gpu.name);
    m_state.analysisValid = m_analysis.valid();
    m_state.accumulationSteps = s.accumulationSteps;
    m_state.parallel = s.parallel;
    // The model was built when the set-up last changed: a tick only reads its envelope.
    auto e = m_model ? estimate(m_analysis, *m_model, s) : Result<Estimate>{m_modelError.value_or(Error{})};
    if (e)
        m_state.estimate = e.value();
    else
        m_state.error = e.error();
    if (m_analysis.valid() && m_model) {
        auto t = estimateThroughput(m_analysis, s, m_document->plan().gpu, *m_model);
        if (t)
            m_state.throughput = std::move(t).value();
        else
            m_state.throughputError = t.error();
    }
    Q_EMIT estimateChanged(m_state);
}

void PlanController::rebuildChart()
{
    ++m_chartBuilds;
    const TrainingSetup s = setup();
    m_chart = ChartData{};
    m_chart.capacityBytes = s.gpuMemoryBytes;
    m_chart.gpuName = qs(m_document->plan().gpu.name);
    m_chart.gpus = s.parallel.gpus;
    m_chart.accumulationSteps = s.accumulationSteps;
    for (const auto& row : m_analysis.rows) {
        if (row.type != "Repeat" && row.activationBytesPerSample > 0)
            m_chart.layers.push_back({qs(row.name), qs(row.type), row.activationBytesPerSample});
    }
    if (!m_model) {
        m_chart.message = m_modelError ? qs(m_modelError->message) : QString();
        Q_EMIT chartDataChanged(m_chart);
        return;
    }
    m_chart.maxBatch = m_model->maxBatch(s.gpuMemoryBytes);
    const std::int64_t range = chartRange(s.batch, m_chart.maxBatch);
    const std::int64_t samples = std::min(range, kChartSamples);
    std::int64_t previous = 0;
    for (std::int64_t i = 0; i <= samples; ++i) {
        const std::int64_t b = std::max<std::int64_t>(1, (range * i + samples / 2) / samples);
        if (b == previous)
            continue;
        auto at = m_model->at(b);
        if (!at)
            break;
        m_chart.batches.push_back(b);
        m_chart.breakdowns.push_back(at.value());
        previous = b;
    }
    m_chart.valid = !m_chart.batches.empty();
    Q_EMIT chartDataChanged(m_chart);
}

} // namespace headroom::ui

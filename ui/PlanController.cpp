#include "PlanController.h"

#include "Document.h"
#include "ErrorText.h"
#include "QtText.h"

#include "headroom/HfConfig.h"

#include <algorithm>

namespace headroom::ui {

namespace {

/// The first blocking error's layer, as the table names it: "4 (conv2)"; empty if not a layer's.
QString blockingLayer(const Analysis& analysis)
{
    if (!analysis.error)
        return {};
    const std::string path = ErrorText::layerPathOf(*analysis.error);
    if (path.empty())
        return {};
    const QString position = ErrorText::position(path);
    const auto row = std::find_if(analysis.rows.begin(), analysis.rows.end(),
                                  [&](const LayerRow& r) { return r.specPath == path; });
    return row == analysis.rows.end() ? position : QStringLiteral("%1 (%2)").arg(position, qs(row->name));
}

bool hasLayers(const Network& network) { return !network.layers.empty(); }
} // namespace

bool PlanController::isSetupError(const Error& error, bool analysisValid)
{
    if (analysisValid)
        return true; // the network is fine: the estimate refused the set-up
    const std::string& at = error.location;
    for (const char* key : {"sequence_length", "lora", "checkpoint", "attention", "parallel", "setup",
                            "moe_imbalance"}) {
        if (at.rfind(key, 0) == 0)
            return true;
    }
    return false;
}

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

ChartSetup PlanController::chartSetup() const
{
    const TrainingSetup s = setup();
    return ChartSetup{s.gpuMemoryBytes, qs(m_document->plan().gpu.name), s.parallel.gpus, s.accumulationSteps};
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
    return report::MemorySweep::rangeFor(batch, maxBatch);
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
    m_layerNames.clear();
    m_layerNames.reserve(static_cast<qsizetype>(m_analysis.rows.size()));
    for (const auto& row : m_analysis.rows)
        m_layerNames.append(qs(row.name));
    Q_EMIT analysisChanged(m_analysis);
    rebuildModel();
}

void PlanController::rebuildModel()
{
    auto model = MemoryModel::build(m_analysis, setup());
    if (model) {
        m_model = std::make_shared<const MemoryModel>(std::move(model).value());
        m_modelError.reset();
    } else {
        m_model.reset();
        m_modelError = model.error();
    }
    updateEstimate();
    rebuildChart();
    updateStepChart();
}

void PlanController::updateBatch()
{
    updateEstimate();
    // The sweep depends on the batch only through its range, which follows the batch however it
    // is set: the same batch always shows the same range.
    if (m_chart.valid && chartRange(m_document->plan().setup.batch, m_chart.maxBatch) != m_chart.range)
        rebuildChart();
    updateStepChart();
}

void PlanController::updateEstimate()
{
    const TrainingSetup s = setup();
    m_state = EstimateState{};
    m_state.capacityBytes = s.gpuMemoryBytes;
    m_state.gpuName = qs(m_document->plan().gpu.name);
    m_state.analysisValid = m_analysis.valid();
    m_state.emptyNetwork = !hasLayers(m_document->network());
    m_state.accumulationSteps = s.accumulationSteps;
    m_state.parallel = s.parallel;
    // The model was built when the set-up last changed: a tick only reads its envelope.
    auto e = m_model ? estimate(m_analysis, *m_model, s) : Result<Estimate>{m_modelError.value_or(Error{})};
    if (e) {
        m_state.estimate = e.value();
    } else {
        // The analysis's own error rather than estimate()'s wrapper ("cannot estimate: ..."): the
        // reason, once.
        m_state.error = m_analysis.error ? *m_analysis.error : e.error();
        m_state.errorFromSetup = isSetupError(*m_state.error, m_analysis.valid());
    }
    if (m_analysis.valid() && m_model) {
        auto t = estimateThroughput(m_analysis, s, m_document->plan().gpu, *m_model);
        if (t)
            m_state.throughput = std::move(t).value();
        else
            m_state.throughputError = t.error();
    }
    Q_EMIT estimateChanged(m_state);
}

void PlanController::updateStepChart()
{
    const TrainingSetup s = setup();
    m_stepChart = StepChartData{};
    static_cast<ChartSetup&>(m_stepChart) = chartSetup();
    m_stepChart.layerNames = m_layerNames;
    if (m_model && m_state.estimate && !m_state.emptyNetwork) {
        // A tick hands the model on; the chart reads the step's moments from it only when shown.
        m_stepChart.valid = true;
        m_stepChart.model = m_model;
        m_stepChart.batch = s.batch;
    } else {
        // Where the estimate's error is (the memory chart's message), or the error itself.
        m_stepChart.message = !m_chart.message.isEmpty() ? m_chart.message
            : m_state.error                             ? qs(m_state.error->message)
                                                        : tr("No estimate");
    }
    Q_EMIT stepChartChanged(m_stepChart);
}

void PlanController::rebuildChart()
{
    ++m_chartBuilds;
    const TrainingSetup s = setup();
    m_chart = ChartData{};
    static_cast<ChartSetup&>(m_chart) = chartSetup();
    for (const auto& row : m_analysis.rows) {
        if (row.type != "Repeat" && row.activationBytesPerSample > 0)
            m_chart.layers.push_back({qs(row.name), qs(row.type), row.activationBytesPerSample});
    }
    if (!hasLayers(m_document->network())) {
        m_chart.message = tr("The network is empty: add layers to see how much memory training it takes.");
        Q_EMIT chartDataChanged(m_chart);
        return;
    }
    if (!m_model) {
        // The message itself is shown where it can be fixed; here, only where that is.
        const QString layer = blockingLayer(m_analysis);
        if (m_modelError && isSetupError(*m_modelError, m_analysis.valid()))
            m_chart.message = tr("No estimate: the training set-up cannot be used (the reason is under the set-up).");
        else if (!layer.isEmpty())
            m_chart.message = tr("No estimate until layer %1 is fixed.").arg(layer);
        else
            m_chart.message = tr("No estimate until the network is fixed (the reason is under the layer table).");
        Q_EMIT chartDataChanged(m_chart);
        return;
    }
    m_chart.maxBatch = m_model->maxBatch(s.gpuMemoryBytes);
    // Evenly spaced in log2(batch), as the chart's batch axis is (the report's chart samples alike).
    static_cast<report::MemorySweep&>(m_chart) = report::MemorySweep::sample(*m_model, chartRange(s.batch, m_chart.maxBatch));
    m_chart.valid = !m_chart.batches.empty();
    Q_EMIT chartDataChanged(m_chart);
}

} // namespace headroom::ui

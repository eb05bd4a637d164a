#include "PlanController.h"

#include "Document.h"
#include "ErrorText.h"
#include "PlanText.h" // report/
#include "QtText.h"

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
    const auto row = std::find_if(
        analysis.rows.begin(), analysis.rows.end(), [&](const LayerRow& r) { return r.specPath == path; });
    // "5 (MaxPool2d)", "18 (layer2.0.conv1)": the number and the name every view gives the layer.
    return row == analysis.rows.end() ? ErrorText::position(path) : qs(layerReference(*row, row->name));
}

bool hasLayers(const Network& network)
{
    return !network.layers.empty();
}
} // namespace

bool PlanController::isSetupError(const Error& error, bool analysisValid)
{
    if (analysisValid)
        return true; // the network is fine: the estimate refused the set-up
    const std::string& at = error.location;
    for (const char* key :
        { "sequence_length", "lora", "checkpoint", "attention", "parallel", "setup", "moe_imbalance" }) {
        if (at.rfind(key, 0) == 0)
            return true;
    }
    return false;
}

PlanController::PlanController(Document* document, QObject* parent)
    : QObject(parent)
    , m_document { document }
    , m_replayTimer { new QTimer(this) }
{
    m_replayTimer->setSingleShot(true);
    m_replayTimer->setInterval(kReplayDelayMs);
    connect(m_replayTimer, &QTimer::timeout, this, &PlanController::replayAtBatch);
    connect(document, &Document::networkChanged, this, &PlanController::reanalyze);
    connect(document, &Document::precisionChanged, this, &PlanController::reanalyze);
    connect(document, &Document::strategyChanged, this, &PlanController::reanalyze);
    connect(document, &Document::setupChanged, this, &PlanController::rebuildModel);
    connect(document, &Document::batchChanged, this, &PlanController::updateBatch);
    reanalyze();
}

void PlanController::updateLayerNames()
{
    m_layerNames.clear();
    const Analysis& analysis = chartedResult().analysis;
    m_layerNames.reserve(static_cast<qsizetype>(analysis.rows.size()));
    // The step chart names a moment's layer by number and name, as the sentences about the peak do.
    for (const auto& row : analysis.rows)
        m_layerNames.append(qs(layerReference(row, row.name)));
}

ChartSetup PlanController::chartSetup() const
{
    const Plan& plan = m_document->plan();
    return ChartSetup { plan.gpu.memoryBytes, qs(plan.gpu.name), plan.setup.parallel.gpus,
        plan.setup.accumulationSteps, chartedStageText(), reservedNote(chartedResult()) };
}

const PlanResult& PlanController::chartedResult() const noexcept
{
    if (m_shownStage && *m_shownStage < m_result.stages.size() && *m_shownStage != m_result.heaviestStage)
        return m_result.stages[*m_shownStage].result;
    return m_result;
}

QString PlanController::chartedStageText() const
{
    if (&chartedResult() == &m_result)
        return qs(report::plantext::heaviestStageText(m_result));
    return tr("Stage %1 of %2 (chosen)").arg(*m_shownStage + 1).arg(m_result.stages.size());
}

void PlanController::showStage(int stage)
{
    const std::optional<std::size_t> shown
        = stage >= 0 ? std::optional<std::size_t> { static_cast<std::size_t>(stage) } : std::nullopt;
    if (shown == m_shownStage)
        return;
    m_shownStage = shown;
    updateLayerNames();
    rebuildChart();
    updateStepChart();
}

QString PlanController::reservedNote(const PlanResult& result)
{
    if (!result.estimate || !result.reservedError)
        return {};
    return tr("Reserved by PyTorch's caching allocator: not simulated (%1). The max batch is from the "
              "tensors alone.")
        .arg(qs(result.reservedError->message));
}

std::int64_t PlanController::chartRange(std::int64_t batch, std::int64_t maxBatch)
{
    return report::MemorySweep::rangeFor(batch, maxBatch);
}

void PlanController::reanalyze()
{
    m_replayTimer->stop(); // evaluate() replays at the batch
    m_result = evaluate(m_document->plan());
    m_shownStage.reset(); // a new plan: its heaviest stage
    ++m_analysisRuns;
    updateLayerNames();
    Q_EMIT analysisChanged(m_result.wholeModel()); // with a pipeline, every stage's layers
    updateEstimate();
    rebuildChart();
    updateStepChart();
}

void PlanController::rebuildModel()
{
    m_replayTimer->stop(); // evaluate() replays at the batch
    // The same analysis: a new step model for the new set-up. With a pipeline, the whole model's (the
    // top-level analysis is then the heaviest stage's), which evaluate() cuts into stages again.
    Analysis whole = m_result.modelAnalysis ? *m_result.modelAnalysis : std::move(m_result.analysis);
    m_result = evaluate(m_document->plan(), std::move(whole));
    m_shownStage.reset(); // other stages: the heaviest again
    updateLayerNames(); // with a pipeline, the heaviest stage's layers
    updateEstimate();
    rebuildChart();
    updateStepChart();
}

void PlanController::updateBatch()
{
    // The model was built when the set-up last changed: a tick only reads its envelope.
    const std::size_t heaviest = m_result.heaviestStage;
    reestimateTick();
    updateEstimate();
    if (!m_result.stages.empty() && m_result.heaviestStage != heaviest) {
        if (m_shownStage == m_result.heaviestStage)
            m_shownStage.reset(); // the chosen stage became the heaviest: the plan's figures are its
        // Another stage is the heaviest at this batch: its step model and layers are the chart's now.
        updateLayerNames();
        rebuildChart();
        updateStepChart();
        return;
    }
    // The sweep depends on the batch only through its range, which follows the batch however it
    // is set: the same batch always shows the same range.
    if (m_chart.valid && chartRange(m_document->plan().setup.batch, m_chart.maxBatch) != m_chart.range)
        rebuildChart();
    updateStepChart();
}

void PlanController::reestimateTick()
{
    // The tensors' estimate at the new batch, and the reserved max batch searched when the set-up
    // changed (same capacity): a replay of the allocator at every batch would cost milliseconds on a
    // 1,000-layer network. The batch fits when it is not above that max batch; the reserved figures
    // at the batch are left out (peakAllocatedBytes 0) until the next set-up change.
    const Plan& plan = m_document->plan();
    if (!m_result.stages.empty()) {
        // Every stage read again at the batch, the heaviest chosen again (reestimatePipeline).
        reestimate(m_result, plan);
        return;
    }
    std::shared_ptr<const ReservedModel> reserved = std::move(m_result.reserved);
    std::optional<ReservedFigures> figures = std::move(m_result.reservedFigures);
    m_result.reserved.reset();
    reestimate(m_result, plan);
    m_result.reserved = std::move(reserved);
    if (!figures || !m_result.estimate)
        return;
    figures->batch = plan.setup.batch;
    figures->fits = figures->batch <= figures->maxBatch.batch;
    figures->peakReservedBytes = 0;
    figures->peakAllocatedBytes = 0;
    figures->peakAllocatedWorkspaceBytes = 0;
    figures->cudnnWorkspaceBytes = 0;
    applyReserved(*m_result.estimate, *figures, plan.setup); // FitBasis::MaxBatchOnly: no headroom yet
    m_result.reservedFigures = std::move(figures);
    m_replayTimer->start();
}

void PlanController::replayAtBatch()
{
    // One replay (the max batch is known for this capacity): the reserved figures at the batch, and the
    // headroom from what the GPU holds there.
    if (!m_result.reserved || !m_result.reservedFigures || m_result.reservedFigures->replayed())
        return;
    reestimate(m_result, m_document->plan());
    updateEstimate();
}

void PlanController::updateEstimate()
{
    const Plan& plan = m_document->plan();
    const Analysis& analysis = m_result.wholeModel();
    m_state = EstimateState {};
    m_state.capacityBytes = plan.gpu.memoryBytes;
    m_state.gpuName = qs(plan.gpu.name);
    m_state.analysisValid = analysis.valid();
    m_state.emptyNetwork = !hasLayers(m_document->network());
    m_state.accumulationSteps = plan.setup.accumulationSteps;
    m_state.parallel = plan.setup.parallel;
    m_state.stage = qs(report::plantext::heaviestStageText(m_result));
    m_state.estimate = m_result.estimate;
    if (!m_result.estimate) {
        // The analysis's own error rather than the estimate's wrapper ("cannot estimate: ..."): the
        // reason, once.
        m_state.error = analysis.error ? *analysis.error : m_result.error.value_or(Error {});
        m_state.errorFromSetup = isSetupError(*m_state.error, analysis.valid());
    }
    m_state.throughput = m_result.throughput;
    m_state.throughputError = m_result.throughputError;
    m_state.reserved = m_result.reservedFigures;
    m_state.reservedNote = reservedNote(m_result);
    Q_EMIT estimateChanged(m_state);
}

void PlanController::updateStepChart()
{
    m_stepChart = StepChartData {};
    static_cast<ChartSetup&>(m_stepChart) = chartSetup();
    m_stepChart.layerNames = m_layerNames;
    const PlanResult& charted = chartedResult();
    if (charted.memory && m_state.estimate && !m_state.emptyNetwork) {
        // A tick hands the model on; the chart reads the step's moments from it only when shown.
        m_stepChart.valid = true;
        m_stepChart.model = charted.memory;
        m_stepChart.batch = m_document->plan().setup.batch;
        m_stepChart.reserved = charted.reserved;
        if (charted.reservedFigures)
            m_stepChart.reservedCapacity = charted.reservedFigures->capacityBytes;
        m_stepChart.overheadBytes = m_document->plan().setup.overheadBytes;
    } else {
        // Where the estimate's error is (the memory chart's message), or the error itself.
        m_stepChart.message = !m_chart.message.isEmpty() ? m_chart.message
            : m_state.error                              ? qs(m_state.error->message)
                                                         : tr("No estimate");
    }
    Q_EMIT stepChartChanged(m_stepChart);
}

void PlanController::rebuildChart()
{
    ++m_chartBuilds;
    const Plan& plan = m_document->plan();
    const PlanResult& charted = chartedResult();
    const Analysis& analysis = charted.analysis;
    m_chart = ChartData {};
    static_cast<ChartSetup&>(m_chart) = chartSetup();
    for (const auto& row : analysis.rows) {
        if (row.type != "Repeat" && row.activationBytesPerSample > 0)
            m_chart.layers.push_back({ qs(row.name), qs(row.type), row.activationBytesPerSample });
    }
    if (!hasLayers(m_document->network())) {
        m_chart.message = tr("The network is empty: add layers to see how much memory training it takes.");
        Q_EMIT chartDataChanged(m_chart);
        return;
    }
    if (!charted.memory) {
        // The message itself is shown where it can be fixed; here, only where that is.
        const QString layer = blockingLayer(analysis);
        if (charted.error && isSetupError(*charted.error, analysis.valid()))
            m_chart.message
                = tr("No estimate: the training set-up cannot be used (the reason is under the set-up).");
        else if (!layer.isEmpty())
            m_chart.message = tr("No estimate until layer %1 is fixed.").arg(layer);
        else
            m_chart.message
                = tr("No estimate until the network is fixed (the reason is under the layer table).");
        Q_EMIT chartDataChanged(m_chart);
        return;
    }
    const MemoryModel& model = *charted.memory;
    m_chart.maxBatch = charted.estimate ? charted.estimate->maxBatch : model.maxBatch(plan.gpu.memoryBytes);
    // Evenly spaced in log2(batch), as the chart's batch axis is (the report's chart samples alike).
    static_cast<report::MemorySweep&>(m_chart)
        = report::MemorySweep::sample(model, chartRange(plan.setup.batch, m_chart.maxBatch));
    m_chart.valid = !m_chart.batches.empty();
    sampleReserved();
    Q_EMIT chartDataChanged(m_chart);
}

void PlanController::sampleReserved()
{
    const PlanResult& charted = chartedResult();
    if (charted.reserved && charted.reservedFigures)
        m_chart.sampleReserved(*charted.reserved, *charted.reservedFigures);
}

} // namespace headroom::ui

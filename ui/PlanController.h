#pragma once

#include "ChartData.h"
#include "headroom/estimate/Plan.h"
#include "headroom/estimate/Throughput.h"

#include <QObject>
#include <QTimer>
#include <optional>

namespace headroom::ui {

class Document;

/// What the summary shows: the core's estimate, or the error that blocks it (the analysis's own,
/// when the network or a strategy is what blocks it); the throughput estimate, or why there is none.
struct EstimateState final
{
    std::optional<Estimate> estimate;
    std::optional<Error> error;
    std::uint64_t capacityBytes = 0;
    QString gpuName;
    bool analysisValid = true; ///< false: the error comes from the analysis (a layer, or the sequence length)
    /// The error is the set-up's (the GPU count, LoRA, the sequence length...), not a layer's: the
    /// set-up panel shows it.
    bool errorFromSetup = false;
    /// The network has no layers: there is nothing to plan yet.
    bool emptyNetwork = false;
    std::int64_t accumulationSteps = 1;
    Parallelism parallel;
    /// With a pipeline, which stage the figures are: "Stage 2 of 4 (heaviest)"; empty otherwise.
    QString stage;
    std::optional<ThroughputEstimate> throughput;
    std::optional<Error> throughputError;
    /// What PyTorch's caching allocator reserves at the batch, and the max batch it leaves (the
    /// estimate's maxBatch and fits already follow it).
    std::optional<ReservedFigures> reserved;
    /// Where the allocator is not simulated: why, translated (ChartSetup::reservedNote).
    QString reservedNote;
};

/// Keeps the document's results current through the core's pipeline (Plan.h), at its speeds: a
/// network, precision or strategy edit evaluates the plan anew (evaluate(plan): analysis, step model,
/// estimate); a set-up change evaluates the same analysis again (a new step model and chart sweep); a
/// batch change (every slider tick) only re-estimates from the model (reestimate()) and re-reads its
/// step's moments at the new batch: it never re-analyses nor rebuilds the model.
class PlanController final : public QObject
{
    Q_OBJECT

public:
    explicit PlanController(Document* document, QObject* parent = nullptr);

    /// The whole model's analysis (with a pipeline, planResult().analysis is the heaviest stage's).
    [[nodiscard]] const Analysis& analysis() const noexcept { return m_result.wholeModel(); }
    [[nodiscard]] const EstimateState& estimateState() const noexcept { return m_state; }
    [[nodiscard]] const ChartData& chartData() const noexcept { return m_chart; }
    [[nodiscard]] const StepChartData& stepChartData() const noexcept { return m_stepChart; }
    /// The full result as the CLI and the report see it (same analysis, step model, estimate and throughput).
    [[nodiscard]] const PlanResult& planResult() const noexcept { return m_result; }

    /// How often each stage ran: the slider path must not re-analyse.
    [[nodiscard]] int analysisRuns() const noexcept { return m_analysisRuns; }
    [[nodiscard]] int chartBuilds() const noexcept { return m_chartBuilds; }

    /// The batch range a chart should span for a batch and a max batch: a power of two with room
    /// above both.
    [[nodiscard]] static std::int64_t chartRange(std::int64_t batch, std::int64_t maxBatch);
    /// Why the caching allocator is not simulated for `result`, as the GUI says it; empty where it is.
    [[nodiscard]] static QString reservedNote(const PlanResult& result);
    /// True when `error` is the training set-up's doing rather than a layer's (or the input's).
    [[nodiscard]] static bool isSetupError(const Error& error, bool analysisValid);

    /// The stage the charts show with a pipeline: the one chosen in the Pipeline stages tab, else the
    /// heaviest (planResult()'s figures).
    [[nodiscard]] const PlanResult& chartedResult() const noexcept;

public Q_SLOTS:
    void reanalyze();
    /// Chart pipeline stage `stage` (from 0; the heaviest, or one out of range, charts the heaviest).
    void showStage(int stage);
    void rebuildModel();
    void updateBatch();

Q_SIGNALS:
    void analysisChanged(const headroom::Analysis& analysis);
    void estimateChanged(const headroom::ui::EstimateState& state);
    void chartDataChanged(const headroom::ui::ChartData& data);
    /// Every tick (the step's moments at the new batch) and every rebuild.
    void stepChartChanged(const headroom::ui::StepChartData& data);

private:
    /// The chart's label for the stage shown: "Stage 2 of 4 (heaviest)", or the chosen one's.
    [[nodiscard]] QString chartedStageText() const;
    void rebuildChart();
    /// The chart's reserved line: the reserved model replayed at some of the chart's batches.
    void sampleReserved();
    /// A batch change: reestimate() without replaying the allocator (the max batch is kept).
    void reestimateTick();
    /// When the batch has stayed put for kReplayDelayMs: the allocator replayed once at it, so that the
    /// headroom is what the GPU holds there (FitBasis::Reserved), as after any other change.
    void replayAtBatch();
    void updateEstimate();
    void updateStepChart();
    /// The step chart's layer names, from the analysis its step model was built on.
    void updateLayerNames();
    ChartSetup chartSetup() const;

    Document* m_document;
    /// Restarted by every tick; replayAtBatch() when it runs out (a drag replays once, where it stops).
    QTimer* m_replayTimer;
    static constexpr int kReplayDelayMs = 150;
    /// The analysis, the step model (shared with the step chart's data, which reads it only when the
    /// chart is shown), the estimate and the throughput.
    PlanResult m_result;
    /// The pipeline stage the charts show when the user chose one other than the heaviest.
    std::optional<std::size_t> m_shownStage;
    EstimateState m_state;
    ChartData m_chart;
    StepChartData m_stepChart;
    QStringList m_layerNames; ///< the analysis's rows by number and name, kept between ticks
    int m_analysisRuns = 0;
    int m_chartBuilds = 0;
};

} // namespace headroom::ui

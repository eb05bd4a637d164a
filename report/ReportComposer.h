#pragma once

#include "ReportWriter.h"
#include "headroom/estimate/Estimate.h"
#include "headroom/estimate/Plan.h"
#include "headroom/estimate/Throughput.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QRectF>
#include <QString>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace headroom::report {

class ReportCanvas;

/// What the report says and in which order: title, set-up, summary, memory versus batch, memory during
/// one step, throughput, layer table, assumptions. It only lays out onto a ReportCanvas, so the same code
/// runs for the measuring pass and the painting pass. Every number comes from `result` (what the GUI and
/// `headroom estimate` show) and is formatted through headroom/Format.h.
class ReportComposer final
{
    Q_DECLARE_TR_FUNCTIONS(headroom::report::ReportComposer)

public:
    ReportComposer(
        const Plan& plan, const PlanResult& result, QDateTime generated, const ReportOptions& options = {});

    /// "Memory plan for VGG-16": the document title.
    [[nodiscard]] QString title() const;
    /// The running footer: version, model, date.
    [[nodiscard]] QString footerText() const;
    void compose(ReportCanvas& canvas) const;

private:
    void titleBlock(ReportCanvas& canvas) const;
    void setupSection(ReportCanvas& canvas) const;
    void summarySection(ReportCanvas& canvas) const;
    /// The summary's heading and its tinted box: fits or not, and why (kept with `keepWithHeight`).
    void verdictBox(ReportCanvas& canvas, double keepWithHeight) const;
    /// The box's sentences: what the batch needs, the max batch, the reserved memory.
    [[nodiscard]] QString verdictDetail() const;
    /// The breakdown's rows (communication only where there is some or several GPUs).
    [[nodiscard]] std::vector<Component> summaryComponents() const;
    /// Each component at the batch, its share and its growth per sample, and the total.
    void breakdownTable(
        ReportCanvas& canvas, const std::vector<Component>& components, double rowH, double tableH) const;
    /// The peak's moment, checkpointing's saving and LoRA's trainable share, a paragraph each.
    void strategyEffects(ReportCanvas& canvas) const;
    /// The summary's sentences on reserved and allocated memory.
    [[nodiscard]] QString reservedText(const ReservedFigures& r) const;
    void noEstimateSection(ReportCanvas& canvas) const;
    void chartSection(ReportCanvas& canvas) const;
    /// Live memory over one training step at the plan's batch (the peak marked).
    void stepSection(ReportCanvas& canvas) const;
    void throughputSection(ReportCanvas& canvas) const;
    /// Every pipeline stage: its layers, micro-batches in flight, peak, max batch; the heaviest in bold.
    void pipelineSection(ReportCanvas& canvas) const;
    /// The planner's set-ups (ReportOptions::planner), when asked for.
    void plannerSection(ReportCanvas& canvas) const;
    /// The goal and how to read the planner's table.
    [[nodiscard]] QString plannerGoalText() const;
    /// The planner table's cells: the fastest set-ups and the whole Pareto front.
    [[nodiscard]] std::vector<std::vector<QString>> plannerRows() const;
    void plannerTable(ReportCanvas& canvas, const std::vector<std::vector<QString>>& body) const;
    /// The cluster planner's layouts (ReportOptions::cluster), when asked for.
    void clusterSection(ReportCanvas& canvas) const;
    /// The "Plan and measured run" page (ReportOptions::measured), when asked for.
    void measuredSection(ReportCanvas& canvas) const;
    /// Its charts, one per aligned step (the steady one, then the first).
    void measuredCharts(ReportCanvas& canvas, const MeasuredRunReport& m) const;
    /// Its tables: per phase, per component.
    void measuredTables(ReportCanvas& canvas, const RunComparison& c) const;
    /// Its lists: the largest unattributed blocks, the set-up differences, the calibration, the notes.
    void measuredLists(ReportCanvas& canvas, const RunComparison& c) const;
    void layerSection(ReportCanvas& canvas) const;
    void methodSection(ReportCanvas& canvas) const;
    /// A bold lead-in and its paragraph in the method section.
    using Note = std::pair<QString, QString>;
    /// Every note of the method section, in order.
    [[nodiscard]] std::vector<Note> methodNotes() const;
    [[nodiscard]] QString overheadNote() const;
    /// The analysis's warnings, one note each.
    [[nodiscard]] std::vector<Note> warningNotes() const;
    [[nodiscard]] QString peakNote() const;
    [[nodiscard]] QString optimizerNote() const;
    /// Sharding, data and tensor parallelism and offload.
    [[nodiscard]] QString parallelismNote() const;
    /// The notes on the strategies the plan uses (accumulation, GPUs, 8-bit, checkpointing, LoRA).
    void strategyNotes(std::vector<Note>& items) const;
    void keyValue(ReportCanvas& canvas, const QString& key, const QString& value) const;
    /// A heading, a chart between heightPt.first and .second points tall painted by `paint` into the
    /// rectangle given, and its caption.
    void captionedChart(ReportCanvas& canvas, const QString& heading, const QString& caption,
        std::pair<double, double> heightPt, const std::function<void(const QRectF&)>& paint) const;
    [[nodiscard]] QString modelName() const;

    const Plan& m_plan;
    const PlanResult& m_result; ///< evaluate()'s: the step model and the throughput with the estimate
    QDateTime m_generated;
    const ReportOptions& m_options;
};

} // namespace headroom::report

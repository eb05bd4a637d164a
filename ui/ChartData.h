#pragma once

#include "MemorySweep.h" // report/
#include "StepChart.h" // report/
#include "headroom/estimate/Estimate.h"

#include <QString>
#include <QStringList>
#include <cstdint>
#include <memory>
#include <vector>

namespace headroom::ui {

/// What both memory charts say about the set-up: the GPU and what the memory is per.
struct ChartSetup
{
    std::uint64_t capacityBytes = 0;
    QString gpuName;
    std::int64_t gpus = 1; ///< memory is per GPU when > 1
    std::int64_t accumulationSteps = 1; ///< the batch is a micro-batch when > 1
    /// With a pipeline, which stage's GPU is drawn: "Stage 2 of 4 (heaviest)"; empty otherwise.
    QString stage;
    /// Why PyTorch's caching allocator is not simulated (the step is too large to replay), translated;
    /// empty where it is, or where there is no estimate at all.
    QString reservedNote;
};

/// What the memory chart draws, worked out by the PlanController from the core's MemoryModel: the
/// breakdown at sampled batch sizes over the batch range (report::MemorySweep, as the PDF report's
/// chart samples it), the GPU's capacity, and the per-layer activation bars.
struct ChartData final : ChartSetup, report::MemorySweep
{
    bool valid = false;
    /// Why there is nothing to draw: the network is empty, or which layer or setting blocks the
    /// estimate (the message itself is shown where it can be fixed).
    QString message;
    std::int64_t maxBatch = 0; ///< from the reserved peak where there is a reserved model
    // The reserved line: report::MemorySweep::reservedBatches / reservedBytes.

    struct LayerBar
    {
        QString name;
        QString type;
        std::uint64_t bytesPerSample = 0;
    };
    std::vector<LayerBar> layers; ///< layers keeping activations, in network order
};

/// What the "During one step" chart draws: the PlanController's cached MemoryModel and the batch, from
/// which the chart reads the moments of one training step (report::StepChart) when it is shown, so a
/// slider tick with the chart hidden costs nothing.
struct StepChartData final : ChartSetup
{
    bool valid = false;
    QString message; ///< why there is nothing to draw (as ChartData's)
    std::shared_ptr<const MemoryModel> model;
    /// The reserved model of the same analysis and set-up (none where the allocator is not simulated),
    /// the capacity its replay is capped at and the overhead added to its line.
    std::shared_ptr<const ReservedModel> reserved;
    std::uint64_t reservedCapacity = kNoLimit;
    std::uint64_t overheadBytes = 0;
    std::int64_t batch = 1;
    QStringList
        layerNames; ///< Analysis::rows by number and name (layerReference), by row (StepChartMoment::row)
};

} // namespace headroom::ui

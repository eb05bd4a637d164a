#pragma once

#include "headroom/Estimate.h"

#include <QString>

#include <cstdint>
#include <vector>

namespace headroom::ui {

/// What the memory chart draws, worked out by the PlanController from the core's MemoryModel: the
/// breakdown at sampled batch sizes, the GPU's capacity, and the per-layer activation bars.
struct ChartData final {
    bool valid = false;
    /// Why there is nothing to draw: the network is empty, or which layer or setting blocks the
    /// estimate (the message itself is shown where it can be fixed).
    QString message;
    std::vector<std::int64_t> batches;        ///< ascending sample points, first is 1, spaced evenly in log2
    std::vector<MemoryBreakdown> breakdowns;  ///< core's MemoryModel::at(batch) for each sample
    std::uint64_t capacityBytes = 0;
    QString gpuName;
    std::int64_t maxBatch = 0;
    std::int64_t gpus = 1;             ///< memory is per GPU when > 1
    std::int64_t accumulationSteps = 1; ///< the batch axis is the micro-batch when > 1 (or gpus > 1)

    struct LayerBar {
        QString name;
        QString type;
        std::uint64_t bytesPerSample = 0;
    };
    std::vector<LayerBar> layers; ///< layers keeping activations, in network order
};

} // namespace headroom::ui

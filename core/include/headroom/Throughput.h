#pragma once

// Step-time and throughput estimate: a roofline over the analysis's FLOPs and the bytes a step moves,
// at an assumed fraction of the GPU's peak (docs/memory-model.md, "Throughput").

#include "headroom/Analysis.h"
#include "headroom/Error.h"
#include "headroom/Estimate.h"
#include "headroom/GpuCatalog.h"

#include <cstdint>
#include <string>
#include <vector>

namespace headroom {

struct ThroughputEstimate final {
    double forwardFlopsPerSample = 0;
    double backwardFlopsPerSample = 0;
    double recomputeFlopsPerSample = 0;
    double flopsPerStep = 0;       ///< per GPU, all micro-batches of one optimizer step
    double peakTflops = 0;         ///< the GPU's peak for the precision's compute type
    double utilization = 0;        ///< the assumed fraction of peak
    double computeSeconds = 0;     ///< per optimizer step
    double memorySeconds = 0;      ///< per optimizer step: bytes moved / bandwidth
    double stepSeconds = 0;        ///< max(compute, memory) per optimizer step
    double samplesPerSecond = 0;   ///< across all data-parallel GPUs
    double tokensPerSecond = 0;    ///< samples/s x sequence length for sequence inputs, else 0
    bool memoryBound = false;
    /// Caveats to show with the figures ("GeForce 10 (Pascal) cards run fp16 at 1/64 of fp32").
    std::vector<std::string> notes;
};

/// Fails if the analysis has an error, the GPU has no peak figure for the precision, or the
/// utilisation is not in (0, 1].
[[nodiscard]] Result<ThroughputEstimate> estimateThroughput(const Analysis& analysis, const TrainingSetup& setup,
                                                            const Gpu& gpu);

} // namespace headroom

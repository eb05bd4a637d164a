#pragma once

// Step-time and throughput estimate: a roofline over the analysis's FLOPs and the bytes a step moves,
// at an assumed fraction of the GPU's peak. Formulas and sources: docs/throughput.md.

#include "headroom/analysis/Analysis.h"
#include "headroom/estimate/Communication.h"
#include "headroom/estimate/Estimate.h"
#include "headroom/setup/GpuCatalog.h"
#include "headroom/support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace headroom {

/// A sentence with %1, %2, ... placeholders and the values that fill them: what a user interface
/// translates before filling in (the command line prints text()).
struct TemplatedText final
{
    std::string format;
    std::vector<std::string> args;

    /// The format with %1.. replaced by the arguments.
    [[nodiscard]] std::string text() const;
    friend bool operator==(const TemplatedText&, const TemplatedText&) = default;
};

/// One optimizer step on one GPU. FLOPs are floating-point operations (a multiply-add is 2); times are
/// seconds; rates are per second.
struct ThroughputEstimate final
{
    double forwardFlopsPerSample = 0;
    /// The analysis's figure; 2 x forward when the analysis has none (it predates backward counting).
    double backwardFlopsPerSample = 0;
    double recomputeFlopsPerSample = 0;
    /// per GPU, all micro-batches of one optimizer step: (fwd + bwd + recompute) x micro-batch x
    /// accumulation steps / tensor-parallel degree
    double flopsPerStep = 0;
    /// per GPU and optimizer step, the least the step reads and writes: weights twice, gradients once,
    /// saved activations twice per micro-batch; optimizer state read and written once per step
    double bytesPerStep = 0;
    double peakTflops = 0; ///< the GPU's peak for the precision's compute type (1e12 FLOP/s)
    double utilization = 0; ///< the assumed fraction of peak
    double computeSeconds = 0; ///< per optimizer step
    double memorySeconds = 0; ///< per optimizer step: bytes moved / bandwidth
    /// max(compute, memory) + communicationSeconds per optimizer step (a pipeline's: with its bubble,
    /// applyPipelineBubble())
    double stepSeconds = 0;
    /// The communication the step waits for, per optimizer step: the terms' exposed seconds (0 on one GPU).
    double communicationSeconds = 0;
    /// Per kind of exchange: bytes, seconds and what compute hides of them (docs/throughput.md).
    std::vector<CommunicationTerm> communication;
    double intraNodeGBps = 0; ///< the GPU-to-GPU bandwidth within a node assumed, GB/s each way
    double interNodeGBps = 0; ///< per GPU between nodes, GB/s each way
    double samplesPerSecond = 0; ///< across all data-parallel GPUs
    double tokensPerSecond = 0; ///< samples/s x sequence length for sequence inputs, else 0
    /// Tokens per sample (T) when the input is a sequence (token ids [T] or features [T, E]), else 0.
    std::int64_t sequenceLength = 0;
    bool memoryBound = false;
    /// Caveats to show with the figures, most important first; always includes the utilisation
    /// assumed ("Assumes 40% of the bf16 peak ..."), and on GeForce 10 cards in fp16 "... runs fp16
    /// at 1/64 of its fp32 rate ...".
    std::vector<std::string> notes;
    /// notes[i] as a sentence template and its values (notes[i] == noteTemplates[i].text()), for a
    /// translated user interface.
    std::vector<TemplatedText> noteTemplates;
};

/// compute = flopsPerStep / (peak x utilisation), memory = bytesPerStep / bandwidth,
/// step = max(compute, memory) + the exposed communication, samples/s = micro-batch x accumulation x
/// data-parallel GPUs / step. Fails if the analysis has an error, the GPU has no peak figure for the
/// precision ("GeForce GTX 1080 has no bfloat16 support"), the utilisation is not in (0, 1], the batch or
/// accumulation steps are below 1, or the GPU count is not a multiple of the tensor-parallel degree.
[[nodiscard]] Result<ThroughputEstimate> estimateThroughput(
    const Analysis& analysis, const TrainingSetup& setup, const Gpu& gpu);
/// estimateThroughput() with the set-up's memory model already built (the slider path: no simulation).
[[nodiscard]] Result<ThroughputEstimate> estimateThroughput(
    const Analysis& analysis, const TrainingSetup& setup, const Gpu& gpu, const MemoryModel& memory);

/// The pipeline's bubble added to a stage's estimate (the slowest stage's): its compute, its memory-bound
/// time and its per-micro-batch communication take 1 + bubble as long; the data-parallel exchanges, done
/// once after the last backward, do not; the rates fall with the step.
void applyPipelineBubble(ThroughputEstimate& t, double bubble) noexcept;

} // namespace headroom

#include "headroom/estimate/Throughput.h"

#include "headroom/layers/LayerRegistry.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace headroom {

namespace {

constexpr double kTera = 1e12;
constexpr double kGiga = 1e9;

/// "40%", "37.5%": the utilisation as a person reads it.
std::string percentText(double fraction)
{
    const double percent = fraction * 100.0;
    char buffer[32];
    if (std::abs(percent - std::round(percent)) < 1e-9)
        std::snprintf(buffer, sizeof buffer, "%.0f%%", percent);
    else
        std::snprintf(buffer, sizeof buffer, "%.1f%%", percent);
    return buffer;
}

std::string rateName(Precision p)
{
    switch (halfType(p)) {
    case DType::Float16:
        return "fp16";
    case DType::BFloat16:
        return "bf16";
    default:
        return "fp32";
    }
}

struct Peak final
{
    double tflops = 0;
    std::string error; ///< set when the GPU has no figure for the precision
};

/// The peak that matches the precision's compute type: autocast and pure half training run their
/// matrix multiplications and convolutions in the half type (tensor cores where present).
Peak peakFor(const Gpu& gpu, Precision p)
{
    switch (halfType(p)) {
    case DType::Float16:
        if (gpu.fp16Tflops > 0)
            return { gpu.fp16Tflops, {} };
        return { 0, gpu.name + " has no float16 throughput figure in the GPU catalogue" };
    case DType::BFloat16:
        if (gpu.bf16Tflops > 0)
            return { gpu.bf16Tflops, {} };
        return { 0, gpu.name + " has no bfloat16 support" };
    default:
        if (gpu.fp32Tflops > 0)
            return { gpu.fp32Tflops, {} };
        return { 0, gpu.name + " has no fp32 throughput figure in the GPU catalogue" };
    }
}

/// Tokens per sample when the network input is a sequence, else 0. The analysis does not carry the
/// input tensor itself, so the rule reads the layers that consume it: token ids [T] reach an
/// embedding ([T] -> [T, E]); features [T, E] reach a recurrent or attention layer ([T, E] -> [T, H]).
/// Either way the consumer's output is [T, ...] (docs/throughput.md, "Tokens").
std::int64_t sequenceLength(const Analysis& analysis)
{
    const auto& registry = LayerRegistry::builtin();
    for (const auto& row : analysis.rows) {
        if (!row.valid() || std::find(row.inputs.begin(), row.inputs.end(), "input") == row.inputs.end())
            continue;
        const LayerKind* kind = registry.find(row.type);
        if (!kind)
            continue;
        const auto& dims = row.output.shape.dims;
        const LayerCategory c = kind->category();
        if (c == LayerCategory::Embedding && dims.size() >= 2)
            return dims[0];
        if ((c == LayerCategory::Recurrent || c == LayerCategory::Attention) && dims.size() == 2)
            return dims[0];
    }
    return 0;
}

bool hasConvolution(const Analysis& analysis)
{
    const auto& registry = LayerRegistry::builtin();
    return std::any_of(analysis.rows.begin(), analysis.rows.end(), [&](const LayerRow& row) {
        const LayerKind* kind = registry.find(row.type);
        return kind && kind->category() == LayerCategory::Convolution;
    });
}

double toDouble(std::uint64_t n)
{
    return static_cast<double>(n);
}

/// "450", "31.5", "15.75": a bandwidth in GB/s.
std::string gbpsText(double gbps)
{
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%g", gbps);
    return buffer;
}

/// "0 s", "12.3 ms", "1.25 s": a duration to three significant figures.
std::string secondsText(double seconds)
{
    char buffer[32];
    if (seconds <= 0)
        return "0 s";
    if (seconds < 1e-3)
        std::snprintf(buffer, sizeof buffer, "%.3g µs", seconds * 1e6);
    else if (seconds < 1.0)
        std::snprintf(buffer, sizeof buffer, "%.3g ms", seconds * 1e3);
    else
        std::snprintf(buffer, sizeof buffer, "%.3g s", seconds);
    return buffer;
}

} // namespace

std::string TemplatedText::text() const
{
    std::string out;
    for (std::size_t i = 0; i < format.size(); ++i) {
        const char c = format[i];
        if (c == '%' && i + 1 < format.size() && format[i + 1] >= '1' && format[i + 1] <= '9') {
            const auto n = static_cast<std::size_t>(format[i + 1] - '1');
            if (n < args.size()) {
                out += args[n];
                ++i;
                continue;
            }
        }
        out += c;
    }
    return out;
}

namespace {
/// Why no throughput can be estimated for this analysis, set-up and GPU, if anything.
std::optional<Error> throughputProblem(const Analysis& analysis, const TrainingSetup& setup, const Gpu& gpu);
} // namespace

Result<ThroughputEstimate> estimateThroughput(
    const Analysis& analysis, const TrainingSetup& setup, const Gpu& gpu)
{
    if (auto problem = throughputProblem(analysis, setup, gpu))
        return *problem;
    auto memory = MemoryModel::build(analysis, setup);
    if (!memory)
        return memory.error();
    return estimateThroughput(analysis, setup, gpu, memory.value());
}

namespace {
std::optional<Error> throughputProblem(const Analysis& analysis, const TrainingSetup& setup, const Gpu& gpu)
{
    if (analysis.error)
        return Error { "cannot estimate throughput: " + analysis.error->message, analysis.error->location };
    const double utilization = setup.assumedUtilization;
    if (!(utilization > 0.0 && utilization <= 1.0)) { // also rejects NaN
        char given[32];
        std::snprintf(given, sizeof given, "%g", utilization);
        return Error { std::string { "assumed utilisation must be a fraction of peak above 0 and at most 1 " }
                + "(0.4 for 40%), not " + given,
            "assumed_utilization" };
    }
    if (setup.batch < 1 || setup.batch > kMaxBatch)
        return Error { "batch size must be from 1 to " + std::to_string(kMaxBatch) + ", not "
                + std::to_string(setup.batch),
            "batch" };
    if (setup.accumulationSteps < 1)
        return Error { "gradient accumulation steps must be at least 1, not "
                + std::to_string(setup.accumulationSteps),
            "accumulation_steps" };
    const Parallelism& par = setup.parallel;
    if (par.gpus < 1 || par.tensorParallel < 1 || par.gpus % par.modelParallel() != 0)
        return Error { "the GPU count (" + std::to_string(par.gpus)
                + ") must be a positive multiple of tensor x pipeline x context parallel ("
                + std::to_string(par.modelParallel()) + ")",
            "parallel" };
    const Peak peak = peakFor(gpu, analysis.precision);
    if (!peak.error.empty())
        return Error { peak.error + " (precision " + std::string { precisionName(analysis.precision) } + ")",
            "precision" };
    return std::nullopt;
}

/// The step's FLOPs per sample: forward, backward and checkpoint recomputation.
void countFlops(ThroughputEstimate& t, const Analysis& analysis)
{
    t.forwardFlopsPerSample = toDouble(analysis.forwardFlopsPerSample);
    t.backwardFlopsPerSample = toDouble(analysis.backwardFlopsPerSample);
    // An analysis without a backward count (one made before backward FLOPs were counted): the
    // backward pass of a trained layer is twice its forward (Kaplan et al. 2020, 6N per token).
    if (t.backwardFlopsPerSample == 0 && analysis.trainableParams > 0)
        t.backwardFlopsPerSample = 2.0 * t.forwardFlopsPerSample;
    t.recomputeFlopsPerSample = toDouble(analysis.recomputeFlopsPerSample);
}

/// The least a step must move through memory, per GPU (docs/throughput.md, "Memory traffic"):
/// per micro-batch the weights are read in forward and again in backward, the gradients written,
/// the saved activations written in forward and read back in backward; per optimizer step the
/// optimizer state is read and written once.
double bytesPerStep(const Analysis& analysis, const TrainingSetup& setup, const MemoryBreakdown& afterForward)
{
    const double micro = static_cast<double>(setup.batch);
    const double steps = static_cast<double>(setup.accumulationSteps);
    const double tp = static_cast<double>(setup.parallel.tensorParallel);
    const double weights = toDouble(analysis.parameterBytes + analysis.bufferBytes) / tp;
    const std::uint64_t trainableBytes = analysis.trainableParameterBytes > 0
        ? analysis.trainableParameterBytes
        : analysis.trainableParams * elementSize(parameterType(analysis.precision));
    const double gradients = toDouble(trainableBytes) / tp;
    // (An analysis made by hand, without a step graph: its saved bytes per sample.)
    const double activations = analysis.step.ops.empty()
        ? toDouble(analysis.activationBytesPerSample) * micro + toDouble(analysis.activationBytesFixed)
        : toDouble(afterForward.activations);
    const double optimizerState = toDouble(afterForward.optimizerState);
    return steps * (2.0 * weights + gradients + 2.0 * activations) + 2.0 * optimizerState;
}

/// The estimate's caveats, most important first.
void addNotes(ThroughputEstimate& t, const Analysis& analysis, const TrainingSetup& setup, const Gpu& gpu)
{
    const Precision precision = analysis.precision;
    const double utilization = setup.assumedUtilization;
    const Parallelism& par = setup.parallel;
    const auto note = [&t](std::string format, std::vector<std::string> args) {
        TemplatedText n { std::move(format), std::move(args) };
        t.notes.push_back(n.text());
        t.noteTemplates.push_back(std::move(n));
    };
    const std::string rate = rateName(precision);
    if (halfType(precision) == DType::Float16 && gpu.fp16Tflops < gpu.fp32Tflops) {
        const double ratio = gpu.fp32Tflops / gpu.fp16Tflops;
        char fraction[32];
        std::snprintf(fraction, sizeof fraction, "1/%.0f", ratio);
        note("%1 runs fp16 at %2 of its fp32 rate; mixed precision will be slower than fp32 on this card",
            { gpu.name, fraction });
    }
    note("Assumes %1 of the %2 peak (model FLOPs utilisation); large transformer training typically reaches "
         "30-50%, "
         "small CNNs less",
        { percentText(utilization), rate });
    if (t.memoryBound)
        note("Memory-bound: moving the step's weights, gradients, optimizer state and activations at %1 GB/s "
             "takes "
             "longer than its arithmetic",
            { std::to_string(static_cast<long long>(std::lround(gpu.bandwidthGBps))) });
    if (gpu.bandwidthGBps <= 0)
        note("%1 has no memory bandwidth figure: the memory-bound check is skipped", { gpu.name });
    // NVIDIA cards with bf16 are Ampere or newer, the ones with TF32 tensor cores.
    if (precision == Precision::Fp32 && gpu.vendor == "NVIDIA" && gpu.bf16Tflops > 0
        && hasConvolution(analysis))
        note("fp32 uses the plain FP32 peak; PyTorch lets cuDNN use TF32 for convolutions by default on this "
             "card, so "
             "convolution-heavy fp32 training may run faster",
            {});
    if (par.gpus > 1) {
        const Interconnect links = interconnectOf(gpu, setup);
        if (links.intraAssumed)
            note("%1 has no GPU-to-GPU bandwidth figure: assumes PCIe %2 x16, %3 GB/s each way",
                { gpu.name, std::to_string(links.assumedPcieGeneration) + ".0",
                    gbpsText(links.intraNodeGBps) });
        const bool crosses = std::any_of(t.communication.begin(), t.communication.end(),
            [](const CommunicationTerm& c) { return c.crossesNodes; });
        double total = 0; // every exchange's time, hidden or not
        for (const CommunicationTerm& c : t.communication)
            total += c.seconds;
        if (crosses)
            note("Communication between GPUs: %1 a step, %2 of it not hidden by compute, at %3 GB/s between "
                 "the GPUs of a node and %4 GB/s per GPU between nodes (peak bandwidth: no congestion or "
                 "protocol overhead)",
                { secondsText(total), secondsText(t.communicationSeconds), gbpsText(links.intraNodeGBps),
                    gbpsText(links.interNodeGBps) });
        else
            note("Communication between GPUs: %1 a step, %2 of it not hidden by compute, at %3 GB/s between "
                 "GPUs (peak bandwidth: no congestion or protocol overhead)",
                { secondsText(total), secondsText(t.communicationSeconds), gbpsText(links.intraNodeGBps) });
    }
    if (t.stepSeconds <= 0)
        note("The network does no arithmetic and moves no memory: no throughput to estimate", {});
}

} // namespace

Result<ThroughputEstimate> estimateThroughput(
    const Analysis& analysis, const TrainingSetup& setup, const Gpu& gpu, const MemoryModel& memory)
{
    if (auto problem = throughputProblem(analysis, setup, gpu))
        return *problem;
    const Peak peak = peakFor(gpu, analysis.precision);
    const double utilization = setup.assumedUtilization;
    const Parallelism& par = setup.parallel;

    auto perGpu = memory.at(setup.batch);
    if (!perGpu)
        return perGpu.error();
    // What backward reads back: the activations alive when the forward pass ends.
    const MemoryBreakdown afterForward = memory.momentAt(memory.endOfForwardMoment(), setup.batch);

    ThroughputEstimate t;
    countFlops(t, analysis);
    const double micro = static_cast<double>(setup.batch);
    const double steps = static_cast<double>(setup.accumulationSteps);
    const double tp = static_cast<double>(par.tensorParallel);
    // Samples are split over the data-parallel ranks only: GPUs / (tensor x pipeline x context parallel).
    const double dataParallel = static_cast<double>(par.dataParallel());
    const double flopsPerSample
        = t.forwardFlopsPerSample + t.backwardFlopsPerSample + t.recomputeFlopsPerSample;
    t.flopsPerStep = flopsPerSample * micro * steps / tp;
    t.peakTflops = peak.tflops;
    t.utilization = utilization;
    t.computeSeconds = t.flopsPerStep / (peak.tflops * kTera * utilization);

    t.bytesPerStep = bytesPerStep(analysis, setup, afterForward);
    if (gpu.bandwidthGBps > 0)
        t.memorySeconds = t.bytesPerStep / (gpu.bandwidthGBps * kGiga);

    const double roofline = std::max(t.computeSeconds, t.memorySeconds);
    t.memoryBound = t.memorySeconds > t.computeSeconds;
    if (par.gpus > 1) {
        // The compute the exchanges can hide behind: one micro-batch's forward and backward share of the
        // roofline time, by their FLOPs.
        ComputeWindows windows;
        windows.secondsPerFlop = 1.0 / (peak.tflops * kTera * utilization);
        if (flopsPerSample > 0) {
            const double perMicroBatch = roofline / steps;
            windows.forwardSeconds = perMicroBatch * t.forwardFlopsPerSample / flopsPerSample;
            windows.backwardSeconds
                = perMicroBatch * (t.backwardFlopsPerSample + t.recomputeFlopsPerSample) / flopsPerSample;
        }
        const Interconnect links = interconnectOf(gpu, setup);
        t.intraNodeGBps = links.intraNodeGBps;
        t.interNodeGBps = links.interNodeGBps;
        t.communication = communicationTerms(analysis, setup, links, windows);
        t.communicationSeconds = exposedSeconds(t.communication);
    }
    t.stepSeconds = roofline + t.communicationSeconds;
    if (t.stepSeconds > 0) {
        t.samplesPerSecond = micro * steps * dataParallel / t.stepSeconds;
        // Context parallelism: the analysis is one rank's T / c tokens of each sample.
        t.sequenceLength = sequenceLength(analysis) * std::max<std::int64_t>(1, par.contextParallel);
        t.tokensPerSecond = t.samplesPerSecond * static_cast<double>(t.sequenceLength);
    }
    addNotes(t, analysis, setup, gpu);
    return t;
}

void applyPipelineBubble(ThroughputEstimate& t, double bubble) noexcept
{
    const double slower = 1.0 + bubble;
    const double before = t.stepSeconds;
    const double once = exposedSeconds(t.communication, false);
    t.stepSeconds = (before - once) * slower + once;
    t.computeSeconds *= slower;
    if (t.stepSeconds > 0 && before > 0) {
        t.samplesPerSecond *= before / t.stepSeconds;
        t.tokensPerSecond *= before / t.stepSeconds;
    }
}

} // namespace headroom

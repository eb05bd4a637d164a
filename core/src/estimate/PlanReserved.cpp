// A plan's reserved-memory figures: the CUDA context by GPU, the reserved model's max batch, and what
// the estimate takes from them (issue 23; docs/memory-model.md, "What the GPU reserves").
#include "headroom/estimate/Plan.h"

#include <algorithm>
#include <array>
#include <string_view>
#include <utility>

namespace headroom {

ComputeCapability computeCapabilityOf(const Gpu& gpu) noexcept
{
    // gpus.json names each family's architecture in parentheses: "GeForce 10 (Pascal)". The first
    // data-centre family mixes Pascal, Volta and Turing: Volta's 7.0 stands for it (the context and
    // the cuBLAS workspace are the same for all three).
    struct Architecture
    {
        std::string_view name;
        ComputeCapability capability;
    };
    static constexpr std::array<Architecture, 7> kArchitectures { { { "Pascal/Volta/Turing", { 7, 0 } },
        { "Pascal", { 6, 1 } }, { "Turing", { 7, 5 } }, { "Ampere", { 8, 0 } }, { "Ada", { 8, 9 } },
        { "Hopper", { 9, 0 } }, { "Blackwell", { 10, 0 } } } };
    if (gpu.vendor == "NVIDIA") {
        for (const Architecture& a : kArchitectures) {
            if (gpu.family.find("(" + std::string(a.name) + ")") != std::string::npos)
                return a.capability;
        }
    }
    return { 9, 0 };
}

std::uint64_t defaultOverheadBytes(const Gpu& gpu) noexcept
{
    return cudaContextBytes(computeCapabilityOf(gpu)).bytes;
}

void moveToGpu(PlanSettings& settings, const Gpu& gpu)
{
    if (settings.setup.overheadBytes == defaultOverheadBytes(settings.gpu))
        settings.setup.overheadBytes = defaultOverheadBytes(gpu);
    settings.gpu = gpu;
}

Result<std::shared_ptr<const ReservedModel>> buildReservedModel(
    const Analysis& analysis, const PlanSettings& settings)
{
    ReservedOptions options;
    options.gpu = computeCapabilityOf(settings.gpu);
    options.allocator.expandableSegments = settings.setup.expandableSegments;
    auto model = ReservedModel::build(analysis, settings.setup, options);
    if (!model)
        return model.error();
    return std::make_shared<const ReservedModel>(std::move(model).value());
}

namespace {

/// The largest cuDNN convolution workspace the trace allocates at `batch`.
std::uint64_t largestCudnnWorkspace(const AllocationTrace& trace, std::int64_t batch)
{
    const auto b = static_cast<std::uint64_t>(std::max<std::int64_t>(batch, 0));
    std::uint64_t largest = 0;
    for (const TraceEvent& e : trace.events()) {
        if (e.allocate && e.kind == TraceKind::CudnnWorkspace)
            largest = std::max(largest, e.bytes.fixed + e.bytes.perSample * b);
    }
    return largest;
}

} // namespace

ReservedFigures reservedFiguresOf(const ReservedModel& model, const PlanSettings& settings,
    const ReservedFigures* known, MaxBatchSearch what)
{
    ReservedFigures f;
    const CudaContextEstimate context = cudaContextBytes(computeCapabilityOf(settings.gpu));
    f.cudaContextBytes = context.bytes;
    f.cudaContextSource = std::string(context.source);
    f.overheadBytes = settings.setup.overheadBytes;
    f.expandableSegments = settings.setup.expandableSegments;
    f.capacityBytes = settings.gpu.memoryBytes - std::min(settings.gpu.memoryBytes, f.overheadBytes);
    const bool useKnown = known != nullptr && known->capacityBytes == f.capacityBytes
        && (what != MaxBatchSearch::WithUnguarded
            || known->maxBatch.unguarded != ReservedMaxBatch::kNotSearched);
    f.maxBatch = useKnown ? known->maxBatch : model.maxBatch(f.capacityBytes, what);
    f.cublasWorkspaceBytes = model.cublasWorkspaceBytes() * kCublasHandlesPerTrainingStep;
    f.batch = settings.setup.batch;
    if (what == MaxBatchSearch::MaxBatchOnly) {
        f.fits = f.batch <= f.maxBatch.batch; // not replayed at the batch: peaks 0, no headroom figure
        return f;
    }
    ReservedRun run = model.run(f.batch, f.capacityBytes);
    f.fits = run.fits;
    if (!run.fits)
        run = model.run(f.batch); // what the allocator would reserve with memory to spare
    f.peakReservedBytes = run.peakReserved;
    f.peakAllocatedBytes = run.peakAllocated;
    f.peakAllocatedWorkspaceBytes = run.peakAllocatedWorkspaces;
    f.cudnnWorkspaceBytes = largestCudnnWorkspace(model.trace(), f.batch);
    return f;
}

void applyReserved(Estimate& estimate, const ReservedFigures& reserved, const TrainingSetup& setup)
{
    estimate.maxBatch = std::min(estimate.maxBatch, reserved.maxBatch.batch);
    // A batch above the answer does not fit, even where the replay at exactly the capacity holds it:
    // the answer keeps the margin, and "fits" must agree with it.
    estimate.fits = estimate.fits && reserved.fits && estimate.batch <= estimate.maxBatch;
    // The GPU holds the allocator's segments and what is outside it, not the tensors' sum: the headroom
    // is judged on the same replay as the fit (issue 34).
    if (reserved.replayed()) {
        estimate.fitBasis = FitBasis::Reserved;
        estimate.heldBytes = reserved.peakWithOverheadBytes();
    } else {
        estimate.fitBasis = FitBasis::MaxBatchOnly;
    }
    const std::int64_t stepsTimesRanks = setup.accumulationSteps * setup.parallel.dataParallel();
    std::int64_t effective = 0;
    estimate.maxEffectiveBatch = __builtin_mul_overflow(estimate.maxBatch, stepsTimesRanks, &effective)
        ? std::numeric_limits<std::int64_t>::max()
        : effective;
}

} // namespace headroom

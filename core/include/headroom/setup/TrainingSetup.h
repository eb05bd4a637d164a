#pragma once

// The training set-up (optimizer, batch, overhead, accumulation, GPUs, 8-bit state, utilisation,
// the optimizer's implementation), its limits and defaults, and the rules that keep it consistent.

#include "headroom/setup/Optimizer.h"
#include "headroom/setup/Training.h"
#include "headroom/support/Error.h"

#include <cstdint>
#include <limits>
#include <optional>
#include <string>

namespace headroom {

/// The micro-batch a plan starts from: `headroom` without --batch, and the GUI's first model.
inline constexpr std::int64_t kDefaultBatch = 32;
/// Default framework overhead: CUDA context and kernel images, cuBLAS/cuDNN handles and workspace.
inline constexpr std::uint64_t kDefaultOverheadBytes = 512ULL * 1024ULL * 1024ULL;
inline constexpr std::int64_t kMaxBatch = 1LL << 31;
/// Limits of the set-up's counts (beyond any real cluster; they keep every product in 64 bits).
inline constexpr std::int64_t kMaxAccumulationSteps = 1LL << 20;
inline constexpr std::int64_t kMaxGpus = 1LL << 20;
/// GPUs per node when the set-up names none: an NVIDIA DGX or HGX server's 8.
inline constexpr std::int64_t kDefaultGpusPerNode = 8;
/// The network bandwidth between nodes per GPU, GB/s each way, when the set-up names none: one 400 Gb/s
/// NDR InfiniBand adapter per GPU, as NVIDIA's DGX H100 has (8 ConnectX-7 for 8 GPUs): 400 / 8 = 50.
inline constexpr double kDefaultInterNodeGBps = 50.0;
/// The most a set-up may state per GPU between nodes, GB/s: far above any network adapter made.
inline constexpr double kMaxInterNodeGBps = 10000.0;

/// The largest byte count a calibration term may have (1 PiB): far above any GPU, so a larger one is a
/// mistake in the file or the option it came from.
inline constexpr std::uint64_t kMaxCalibrationBytes = 1ULL << 50;
/// The largest per-sample calibration term: times any batch up to kMaxBatch it fits 64 bits (8 GiB - 1).
inline constexpr std::uint64_t kMaxCalibrationPerSampleBytes
    = std::numeric_limits<std::uint64_t>::max() / static_cast<std::uint64_t>(kMaxBatch);

/// What a measured run of the plan held beyond what the plan has tensors for (docs/memory-model.md,
/// "Calibration from a measured run"): a data loader's pinned batch on the GPU, a framework's buffers,
/// another library's pool, the run's own tensors Headroom does not model. Worked out from a run at one
/// micro-batch (measured/), it is applied as its own memory component (Component::Calibration), alive
/// for the whole run: fixedBytes + perSampleBytes x batch at every moment of the step, and one
/// allocation of that size in the allocation trace before the weights. Inactive (both terms 0) by
/// default.
struct RunCalibration final
{
    std::uint64_t fixedBytes = 0; ///< bytes the run held beyond the plan whatever the batch
    std::uint64_t perSampleBytes = 0; ///< bytes per sample of the run's peak above the plan's
    std::int64_t measuredBatch = 0; ///< the run's micro-batch the terms came from (0: not known)
    std::string source; ///< the measured file's name, for the views ("" when not known)

    /// Whether it changes anything: a term above 0.
    [[nodiscard]] bool active() const noexcept { return fixedBytes > 0 || perSampleBytes > 0; }
    friend bool operator==(const RunCalibration&, const RunCalibration&) = default;
};

/// The GPU of one pipeline stage (docs/multi-gpu.md, "Pipeline parallelism"): evaluate() sets it on the
/// plan of each stage it cuts the model into; a set-up without one is the whole model's.
struct PipelineStageRole final
{
    std::int64_t index = 0; ///< from 0, the first stage
    std::uint64_t receivedBytesPerSample = 0; ///< the boundary tensor from the stage before (0 on the first)
    std::uint64_t sentBytesPerSample = 0; ///< the boundary tensor to the stage after (0 on the last)
    friend bool operator==(const PipelineStageRole&, const PipelineStageRole&) = default;
};

/// A training set-up: everything an estimate needs besides the analysis (which carries the network,
/// the precision and the strategies) and the GPU (Plan::gpu; the estimate reads its memory from there).
struct TrainingSetup final
{
    Optimizer optimizer = Optimizer::Adam;
    std::int64_t batch = kDefaultBatch;
    std::uint64_t overheadBytes = kDefaultOverheadBytes;
    /// Gradient accumulation: `batch` is the micro-batch; each optimizer step sees batch x steps
    /// samples per data-parallel rank. Memory follows the micro-batch.
    std::int64_t accumulationSteps = 1;
    Parallelism parallel;
    /// bitsandbytes-style 8-bit optimizer state (block-wise quantised; tensors below 4096 elements stay
    /// 32-bit).
    bool eightBitOptimizer = false;
    /// The fraction of the GPU's peak FLOP rate a training step is assumed to reach (throughput estimate).
    double assumedUtilization = 0.4;
    /// How torch.optim runs the step: its temporaries (foreach is PyTorch 2.x's default on CUDA).
    OptimizerImplementation optimizerImplementation = OptimizerImplementation::Foreach;
    /// PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True: the caching allocator grows one segment per
    /// pool by mapping pages instead of cudaMalloc-ing new ones (ReservedModel; docs/memory-model.md).
    bool expandableSegments = false;
    /// What a measured run held beyond the plan (inactive unless set): its own component everywhere.
    RunCalibration calibration;
    /// GPUs per node: a group of GPUs within one node talks over the GPU's own link (NVLink, PCIe), one
    /// spanning nodes over the network (docs/throughput.md, "Communication").
    std::int64_t gpusPerNode = kDefaultGpusPerNode;
    /// The network bandwidth between nodes, per GPU, GB/s each way.
    double interNodeGBps = kDefaultInterNodeGBps;
    /// Which pipeline stage's GPU this set-up describes (set by evaluate(), never by the user).
    std::optional<PipelineStageRole> pipelineStage;
    friend bool operator==(const TrainingSetup&, const TrainingSetup&) = default;
};

/// DeepSpeed ZeRO stage 1, 2 or 3 (not FSDP, whose stages it resembles).
[[nodiscard]] bool isDeepSpeedZero(Sharding s) noexcept;

/// Whether torch.optim runs the optimizer step. Not with bitsandbytes' 8-bit optimizers
/// (bitsandbytes/optim/*.py: their own block-wise kernels) nor under DeepSpeed ZeRO, whose engine
/// steps with its own optimizer (DeepSpeed's FusedAdam / CPU Adam); FSDP keeps torch.optim.
[[nodiscard]] bool stepsWithTorchOptim(const TrainingSetup& setup) noexcept;

/// Whether `optimizerImplementation = Fused` is a set-up Headroom accepts: torch.optim has
/// `fused=True` for the optimizer (hasFusedImplementation), or torch.optim does not run the step
/// (stepsWithTorchOptim), so the setting changes nothing.
[[nodiscard]] bool fusedStepAvailable(const TrainingSetup& setup) noexcept;

/// The set-up as a user interface keeps it when another of its settings changed: a fused step where
/// none is available (fusedStepAvailable) goes back to foreach, torch.optim's default on CUDA
/// (torch/optim/optimizer.py, `_default_to_fused_or_foreach`). Everything else is kept as it is;
/// validateSetup() still reports what no fallback can mend.
[[nodiscard]] TrainingSetup normalized(TrainingSetup setup) noexcept;

/// The first problem with a set-up's strategy settings (accumulation steps, GPU count, tensor-parallel
/// degree, optimizer offload without ZeRO or FSDP, 8-bit optimizer, a fused step torch.optim does not
/// have, a calibration term above kMaxCalibrationBytes or whose per-sample bytes x kMaxBatch would not
/// fit 64 bits, a negative measured batch), as an Error naming the setting ("parallel.tensor_parallel",
/// "calibration.per_sample_bytes"); nullopt if they are consistent.
/// The batch itself is checked by MemoryModel::at().
[[nodiscard]] std::optional<Error> validateSetup(const TrainingSetup& setup);

} // namespace headroom

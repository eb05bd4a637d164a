#pragma once

#include "headroom/Analysis.h"
#include "headroom/Count.h"
#include "headroom/Error.h"
#include "headroom/Optimizer.h"
#include "headroom/Precision.h"
#include "headroom/Training.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace headroom {

/// The components of training memory, in bytes.
struct MemoryBreakdown final {
    std::uint64_t weights = 0;        ///< parameters + buffers (+ autocast's half weight copies)
    std::uint64_t gradients = 0;      ///< one per trainable parameter
    std::uint64_t optimizerState = 0; ///< optimizer buffers (+ fp32 master weights in pure half)
    std::uint64_t activations = 0;    ///< saved for backward, the loss's included, input excluded
    std::uint64_t input = 0;          ///< the input batch and its labels
    std::uint64_t transient = 0;      ///< activation gradients alive during backward
    std::uint64_t overhead = 0;       ///< CUDA context, kernels, allocator reserve (user-settable)
    /// Multi-GPU buffers: DDP gradient buckets, ZeRO-3 / FSDP all-gathered parameters
    std::uint64_t communication = 0;

    [[nodiscard]] std::uint64_t total() const noexcept;
    friend bool operator==(const MemoryBreakdown&, const MemoryBreakdown&) = default;
};

enum class Component { Weights, Gradients, OptimizerState, Activations, Input, Transient, Communication, Overhead };
constexpr std::array<Component, 8> kAllComponents{Component::Weights,     Component::Gradients,
                                                  Component::OptimizerState, Component::Activations,
                                                  Component::Input,       Component::Transient,
                                                  Component::Communication, Component::Overhead};
[[nodiscard]] std::string_view componentName(Component c) noexcept;  ///< "optimizer_state"
[[nodiscard]] std::string_view componentLabel(Component c) noexcept; ///< "Optimizer state"
[[nodiscard]] std::uint64_t componentBytes(const MemoryBreakdown& m, Component c) noexcept;

/// Default framework overhead: CUDA context and kernel images, cuBLAS/cuDNN handles and workspace.
constexpr std::uint64_t kDefaultOverheadBytes = 512ULL * 1024ULL * 1024ULL;
constexpr std::int64_t kMaxBatch = 1LL << 31;
/// Limits of the set-up's counts (beyond any real cluster; they keep every product in 64 bits).
constexpr std::int64_t kMaxAccumulationSteps = 1LL << 20;
constexpr std::int64_t kMaxGpus = 1LL << 20;
/// bitsandbytes' block-wise 8-bit optimizer state: one uint8 per element plus one float32 absmax per
/// block of 2048 elements; tensors below 4096 elements (min_8bit_size) keep float32 state
/// (bitsandbytes/optim/optimizer.py, Optimizer2State/Optimizer1State.init_state).
constexpr std::uint64_t kEightBitBlockElements = 2048;
constexpr std::uint64_t kEightBitMinTensorElements = 4096;
/// DeepSpeed ZeRO-3 steps the optimizer one sub-group of at most this many elements at a time
/// (zero_optimization.sub_group_size, default 1e9; deepspeed/runtime/zero/config.py).
constexpr std::uint64_t kDeepSpeedSubGroupElements = 1'000'000'000;

/// A training set-up: everything except the network and the precision (which the analysis carries).
struct TrainingSetup final {
    Optimizer optimizer = Optimizer::Adam;
    std::int64_t batch = 32;
    std::uint64_t gpuMemoryBytes = 8ULL * 1024ULL * 1024ULL * 1024ULL;
    std::uint64_t overheadBytes = kDefaultOverheadBytes;
    /// Gradient accumulation: `batch` is the micro-batch; each optimizer step sees batch x steps
    /// samples per data-parallel rank. Memory follows the micro-batch.
    std::int64_t accumulationSteps = 1;
    Parallelism parallel;
    /// bitsandbytes-style 8-bit optimizer state (block-wise quantised; tensors below 4096 elements stay 32-bit).
    bool eightBitOptimizer = false;
    /// The fraction of the GPU's peak FLOP rate a training step is assumed to reach (throughput estimate).
    double assumedUtilization = 0.4;
    friend bool operator==(const TrainingSetup&, const TrainingSetup&) = default;
};

/// The first problem with a set-up's strategy settings (accumulation steps, GPU count, tensor-parallel
/// degree, optimizer offload without ZeRO or FSDP, 8-bit optimizer), as an Error naming the setting
/// ("parallel.tensor_parallel"); nullopt if they are consistent. The batch itself is checked by
/// MemoryModel::at().
[[nodiscard]] std::optional<Error> validateSetup(const TrainingSetup& setup);

/// Memory as an affine function of the batch size: total(B) = fixed + perSample x B. Built once per
/// analysis and set-up; evaluating it is a handful of multiplications (the slider path). All bytes are
/// per GPU: docs/multi-gpu.md gives the data-parallel, sharding, tensor-parallel, offload and 8-bit
/// optimizer rules and their sources.
class MemoryModel final {
public:
    [[nodiscard]] static Result<MemoryModel> build(const Analysis& analysis, const TrainingSetup& setup);

    [[nodiscard]] const MemoryBreakdown& fixed() const noexcept { return m_fixed; }
    [[nodiscard]] const MemoryBreakdown& perSample() const noexcept { return m_perSample; }
    /// The breakdown at `batch`; an error if a byte count would not fit 64 bits.
    [[nodiscard]] Result<MemoryBreakdown> at(std::int64_t batch) const;
    /// The largest batch whose total fits `capacityBytes` (0 if even the fixed part, or the optimizer
    /// step, does not fit), capped at kMaxBatch.
    [[nodiscard]] std::int64_t maxBatch(std::uint64_t capacityBytes) const noexcept;
    /// Memory during the optimizer step, when activations, the batch and the gathered layers are gone:
    /// weights + gradients + optimizer state + overhead + stepGradientBytes(). Batch-independent.
    [[nodiscard]] std::uint64_t optimizerStepBytes() const noexcept { return m_optimizerStep; }
    /// DeepSpeed ZeRO's float32 copy of a rank's gradient partition, made for the optimizer step in
    /// mixed precision (4 bytes x ceil(trainable / N); stage 3: at most one sub-group); 0 otherwise.
    [[nodiscard]] std::uint64_t stepGradientBytes() const noexcept { return m_stepGradients; }

private:
    MemoryBreakdown m_fixed;
    MemoryBreakdown m_perSample;
    std::uint64_t m_stepGradients = 0;
    std::uint64_t m_optimizerStep = 0;
};

/// The answer the product gives: memory at one batch size on one GPU.
struct Estimate final {
    std::int64_t batch = 0;          ///< the micro-batch per GPU
    std::int64_t effectiveBatch = 0; ///< samples per optimizer step: batch x accumulation steps x data-parallel GPUs
    Precision precision = Precision::Fp32;
    Optimizer optimizer = Optimizer::Adam;
    /// Memory at the start of the backward pass (docs/memory-model.md), by component.
    MemoryBreakdown bytes;
    /// Memory during the optimizer step (MemoryModel::optimizerStepBytes()). Below total() except with
    /// DeepSpeed ZeRO in mixed precision, whose float32 gradient partition can make the step the peak.
    std::uint64_t optimizerStepBytes = 0;
    std::uint64_t gpuMemoryBytes = 0;
    bool fits = false; ///< peakBytes() <= gpuMemoryBytes
    std::int64_t maxBatch = 0;          ///< the largest micro-batch per GPU that fits
    std::int64_t maxEffectiveBatch = 0; ///< maxBatch x accumulation steps x data-parallel GPUs

    [[nodiscard]] std::uint64_t total() const noexcept { return bytes.total(); }
    /// The larger of total() and optimizerStepBytes: what the GPU must hold.
    [[nodiscard]] std::uint64_t peakBytes() const noexcept { return std::max(total(), optimizerStepBytes); }
    /// GPU memory left over at the peak (negative: the shortfall).
    [[nodiscard]] double headroomBytes() const noexcept
    {
        return static_cast<double>(gpuMemoryBytes) - static_cast<double>(peakBytes());
    }
};

/// Combines an analysis with a set-up. Fails if the analysis has an error (naming the blocking
/// layer), the batch is not in 1..kMaxBatch, or a byte count would overflow.
[[nodiscard]] Result<Estimate> estimate(const Analysis& analysis, const TrainingSetup& setup);

/// The breakdown for each batch in [first, last] (step 1), for charts. Empty on error.
[[nodiscard]] Result<std::vector<MemoryBreakdown>> sweep(const Analysis& analysis, const TrainingSetup& setup,
                                                         std::int64_t first, std::int64_t last);

} // namespace headroom

#pragma once

// The allocations and frees of a training run's first two steps, in order, tensor by tensor, as PyTorch
// makes them: what the caching allocator (CachingAllocator) is replayed over (docs/memory-model.md, "The
// allocation trace"). Sizes are affine in the batch: one trace serves every batch size.

#include "headroom/analysis/StepGraph.h"
#include "headroom/step/StepTimeline.h"

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string_view>
#include <vector>

namespace headroom {

/// What an allocation holds.
enum class TraceKind : std::uint8_t {
    Weights, ///< a parameter or buffer, made with the model
    Input, ///< the batch and its labels
    Activation, ///< an op's output or a tensor it saves for backward
    ActivationGradient, ///< the gradient of an activation, in backward
    Scratch, ///< what an op allocates only while it runs
    AutocastCopy, ///< autocast's half copy of a weight
    ParameterGradient, ///< a parameter's .grad (and, accumulating, the new gradient added into it)
    OptimizerState, ///< optimizer state, created by the first step()
    OptimizerTemporary, ///< the optimizer implementation's temporaries during step()
    CublasWorkspace, ///< a cuBLAS handle's workspace, kept for the process
    CudnnWorkspace, ///< a cuDNN convolution's workspace, while it runs
    Communication, ///< DDP's gradient buckets, ZeRO-3 / FSDP's gathered parameters
    /// A measured run's excess over the plan (TrainingSetup::calibration): one block made before the
    /// weights and never freed
    Calibration,
};
[[nodiscard]] std::string_view traceKindName(TraceKind k) noexcept; ///< "activation_gradient"
[[nodiscard]] std::string_view traceKindLabel(TraceKind k) noexcept; ///< "Activation gradient"

/// Where in the run an event happens.
enum class TraceStage : std::uint8_t {
    Setup, ///< before the first step: the model's weights, the batch
    Forward, ///< the forward pass and the loss
    Backward, ///< loss.backward()
    Optimizer ///< optimizer.step() and zero_grad(set_to_none=True)
};
[[nodiscard]] std::string_view traceStageName(TraceStage s) noexcept; ///< "setup", "forward", ...

inline constexpr std::uint32_t kNoTraceRow = std::numeric_limits<std::uint32_t>::max();

/// One allocation or free.
struct TraceEvent final
{
    bool allocate = true;
    /// An allocation the op can do without (a cuDNN workspace: try_configs falls back to a plan that needs
    /// none when it fails), so failing it is no out-of-memory error.
    bool optional = false;
    TraceKind kind = TraceKind::Activation;
    TraceStage stage = TraceStage::Setup;
    std::uint8_t step = 0; ///< 0 before the first step, then 1, 2
    std::uint32_t block = 0; ///< the tensor, numbered from 0 (a free names its allocation's block)
    std::uint32_t row = kNoTraceRow; ///< the Analysis::rows index of the layer (kNoTraceRow: none)
    AffineBytes bytes; ///< requested bytes: perSample x batch + fixed (allocations only)
};

/// A moment of the step (StepMoment) in the trace: the events before it have happened.
struct TraceMoment final
{
    std::size_t event = 0; ///< events()[0, event) have happened
    std::uint8_t step = 0; ///< the training step, from 1
    std::uint8_t microBatch = 0; ///< the micro-batch within the step, from 0
};

/// A run's allocations and frees, affine in the batch size.
class AllocationTrace final
{
public:
    AllocationTrace() = default;
    AllocationTrace(
        std::vector<TraceEvent> events, std::uint32_t blocks, std::vector<TraceMoment> moments = {})
        : m_events { std::move(events) }
        , m_blocks { blocks }
        , m_moments { std::move(moments) }
    {
    }

    [[nodiscard]] const std::vector<TraceEvent>& events() const noexcept { return m_events; }
    /// How many distinct tensors the trace allocates (block numbers are below it).
    [[nodiscard]] std::uint32_t blocks() const noexcept { return m_blocks; }
    /// An event's requested bytes at `batch`, saturating at UINT64_MAX.
    [[nodiscard]] static std::uint64_t bytesAt(const TraceEvent& e, std::int64_t batch) noexcept;
    /// Every moment of every micro-batch's forward and backward, in order, with repeated blocks written
    /// out: within a micro-batch the n-th is the one StepMoment::ordinal n stands for.
    [[nodiscard]] const std::vector<TraceMoment>& moments() const noexcept { return m_moments; }

private:
    std::vector<TraceEvent> m_events;
    std::uint32_t m_blocks = 0;
    std::vector<TraceMoment> m_moments;
};

} // namespace headroom

#pragma once

// "What would it take?": the set-ups of a plan that fit its GPU and reach a goal, ranked by estimated
// throughput, and every GPU of a list side by side for one set-up. Both plan with exactly what
// estimate() and estimateThroughput() answer for each set-up (docs/planner.md).

#include "headroom/estimate/Estimate.h"
#include "headroom/estimate/Plan.h"
#include "headroom/estimate/Throughput.h"
#include "headroom/setup/GpuCatalog.h"
#include "headroom/support/Error.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace headroom {

/// The changes the planner may make although they change what training computes. Without them it
/// keeps the plan's precision, LoRA and optimizer state as they are.
struct PlanAllowances final
{
    bool precision = false; ///< mixed (AMP fp16/bf16) or pure half precision, or fp32
    bool lora = false; ///< LoRA or QLoRA adapters instead of training every weight, or the reverse
    bool eightBitOptimizer = false; ///< bitsandbytes' 8-bit optimizer state
    friend bool operator==(const PlanAllowances&, const PlanAllowances&) = default;
};

/// What the planned set-ups must reach.
struct PlanGoal final
{
    /// Samples per optimizer step (micro-batch x accumulation steps x data-parallel GPUs). Empty: as
    /// large as possible, which is the largest micro-batch that fits without accumulation.
    std::optional<std::int64_t> targetBatch;
    /// The longest an optimizer step may take (estimated), in seconds. Empty: no limit.
    std::optional<double> maxStepSeconds;
};

/// A setting the planner chooses.
enum class SetupSetting {
    Precision,
    Lora,
    EightBitOptimizer,
    OptimizerImplementation,
    Checkpointing,
    Accumulation,
    Sharding,
    TensorParallel,
    Offload,
};
[[nodiscard]] std::string_view setupSettingName(
    SetupSetting s) noexcept; ///< "precision", "optimizer_implementation"

/// One way a planned set-up differs from the plan it started from.
struct SetupChange final
{
    SetupSetting setting = SetupSetting::Precision;
    std::string value; ///< the new value as `headroom estimate` names it: "amp-bf16", "per-block", "4"
    std::string
        text; ///< for people: "Mixed precision (bf16)", "Checkpointing per block", "4 accumulation steps"
    /// Whether training computes something different: precision, LoRA and 8-bit state always do;
    /// gradient accumulation does when the network has batch-norm layers (their statistics follow the
    /// micro-batch); checkpointing, the optimizer implementation, sharding, tensor parallelism and
    /// offload do not.
    bool changesTraining = false;
    friend bool operator==(const SetupChange&, const SetupChange&) = default;
};

/// One set-up the planner found.
struct PlanCandidate final
{
    /// The set-up's settings: what the planner chose (precision, checkpointing, LoRA, the training
    /// set-up with its micro-batch); the attention, sequence length, routing and GPU of the plan it
    /// started from. settings.appliedTo(plan) is the set-up as a plan.
    PlanSettings settings;
    std::vector<SetupChange> changes; ///< against the starting plan; empty for the plan itself
    Estimate estimate; ///< estimate() of this set-up at its micro-batch
    /// estimateThroughput() of this set-up; empty when the GPU has no figure for its precision (a
    /// custom GPU), in which case the ranking puts it after every set-up with one.
    std::optional<ThroughputEstimate> throughput;
    /// No other listed set-up needs less memory and is at least as fast (or the reverse; speeds to 3
    /// significant figures, as rankSetups() compares them).
    bool paretoOptimal = false;

    [[nodiscard]] bool changesTraining() const noexcept;
    /// Samples per second per GPU (0 without a throughput estimate).
    [[nodiscard]] double samplesPerSecondPerGpu() const noexcept;
    /// Tokens per second per GPU for sequence models (0 otherwise).
    [[nodiscard]] double tokensPerSecondPerGpu() const noexcept;
};

/// Why the closest set-up misses the goal.
struct PlanShortfall final
{
    enum class Kind {
        Memory, ///< even a micro-batch of 1 needs more than the GPU holds
        Batch, ///< the largest micro-batch x the most accumulation steps x replicas stays below the target
        StepTime, ///< every set-up that reaches the batch takes longer than the step-time limit
    };
    Kind kind = Kind::Memory;
    /// Memory: what the GPU would hold at batch 1 (the closest set-up's, as `estimate` judges it: the
    /// reserved peak plus the overhead where the allocator is simulated) minus the GPU's memory.
    std::uint64_t bytesOver = 0;
    std::int64_t batchShort = 0; ///< Batch: target minus the largest effective batch
    double secondsOver = 0; ///< StepTime: step time minus the limit
    [[nodiscard]] std::string text() const; ///< "needs 1.20 GiB more than the GPU holds at batch 1", ...
};

/// The planner's answer: every distinct set-up that fits and reaches the goal, fastest first.
struct PlannerResult final
{
    std::vector<PlanCandidate> candidates;
    /// When no set-up reaches the goal: the one that comes closest, and what it lacks.
    std::optional<PlanCandidate> closest;
    std::optional<PlanShortfall> shortfall;
    std::size_t setupsExamined = 0; ///< set-ups whose memory was worked out
    std::size_t analyses = 0; ///< distinct analyses the search needed
    /// What the search left out to bound its work, one sentence each (empty: nothing): analysis choices
    /// (precision, LoRA, checkpointing) past its budget of analysed rows; past its budget of written-out
    /// layers, the set-ups the caching allocator was not replayed for (issue 26: no input under 1 MB may
    /// cost over a second). Those are not listed: every listed max batch is the reserved one.
    std::vector<std::string> leftOut;
    std::size_t analysedRows = 0; ///< rows analysed over every analysis the search ran
};

/// Enumerates the set-ups Headroom models for `base`'s network on `base`'s GPU and GPU count: precision
/// (when allowed), LoRA / QLoRA (when allowed; the plan's rank, else 8), 8-bit optimizer state (when
/// allowed), optimizer implementation, checkpointing, accumulation steps, and with several GPUs
/// sharding and tensor parallelism; optimizer offload only where the set-up without it does not
/// reach the goal (its PCIe traffic is not in the throughput estimate). Keeps those that fit and reach
/// the goal, and ranks them with rankSetups(). Fails only if the plan itself cannot be analysed (naming
/// the layer).
[[nodiscard]] Result<PlannerResult> planSetups(
    const Plan& base, const PlanGoal& goal, const PlanAllowances& allow);

/// The planner's ranking (docs/planner.md, "Ranking"): a set-up with a throughput estimate before one
/// without; faster first (samples per second per GPU, to 3 significant figures as the tables show it:
/// a thousandth apart reads as equal); at equal speed, fewer changes to what training
/// computes, then less of the communication the estimate leaves out (no offload, then less tensor
/// parallelism, then no weight gathering: ZeRO-3, FSDP FULL_SHARD), then less memory held at the peak,
/// then the larger max batch; then fewer changes, then the order given. A set-up that a higher-ranked
/// one matches or beats on every one of these (as fast, no change to training the other does not make,
/// no more of each kind of communication, no more memory, at least as large a max batch) is dropped: no
/// listed set-up is matched or beaten on all of them by another, and since set-ups are compared with each
/// other, not with the plan, applying a listed set-up that keeps training as it is lists the same set-ups
/// again. Marks the memory/speed Pareto front.
[[nodiscard]] std::vector<PlanCandidate> rankSetups(std::vector<PlanCandidate> candidates);

/// One GPU of a comparison: `base`'s set-up on it.
struct GpuComparison final
{
    Gpu gpu;
    Estimate estimate; ///< at the set-up's batch; estimate.maxBatch as `headroom max-batch` gives it
    std::optional<ThroughputEstimate> throughput;
    std::string throughputError; ///< why there is no throughput estimate ("... has no bfloat16 support")
    std::optional<ReservedFigures>
        reserved; ///< what the allocator reserves on this GPU (its max batch is the estimate's)
    bool reachesTarget = false; ///< estimate.maxEffectiveBatch >= the target
    bool smallestReachingTarget = false; ///< the first row that reaches it: least memory, then fastest
};

/// `base`'s set-up on each GPU of `gpus`, sorted by memory (then fastest first, then name). The target
/// is a number of samples per optimizer step; empty: the set-up's own effective batch, so reaching it
/// means fitting. Fails if the plan cannot be analysed or its set-up is not valid.
/// What a comparison cost, counted rather than timed (tests and benchmarks): the reserved models built (a
/// trace each) and the allocator replays they ran, with the trace events those replayed.
struct CompareWork final
{
    std::size_t traces = 0;
    std::size_t replays = 0;
    std::uint64_t replayedEvents = 0;
};

[[nodiscard]] Result<std::vector<GpuComparison>> compareGpus(const Plan& base, std::span<const Gpu> gpus,
    std::optional<std::int64_t> targetBatch, CompareWork* work = nullptr);

} // namespace headroom

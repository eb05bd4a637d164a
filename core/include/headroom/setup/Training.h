#pragma once

// Training strategies beyond "one GPU, every weight trained": activation checkpointing, attention
// implementation, LoRA/QLoRA, data/tensor parallelism and sharding. docs/memory-model.md gives the
// formulas and their sources.

#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace headroom {

/// Activation checkpointing (torch.utils.checkpoint).
enum class Checkpointing {
    None,
    /// Every iteration of each checkpointed Repeat block keeps only its input; its activations are
    /// recomputed in backward, so one iteration's activations are alive at a time. Blocks marked
    /// `"checkpoint": true` in the model; when none is marked, every top-level Repeat block.
    PerBlock,
    /// Keep everything except the attention score matrices (probabilities and their dropout masks),
    /// which backward recomputes (Korthikanti et al. 2022, "selective activation recomputation").
    Selective,
};
[[nodiscard]] std::string_view checkpointingName(
    Checkpointing c) noexcept; ///< "none", "per-block", "selective"
[[nodiscard]] std::string_view checkpointingLabel(Checkpointing c) noexcept; ///< "Per block"
[[nodiscard]] std::optional<Checkpointing> parseCheckpointing(std::string_view name) noexcept;
[[nodiscard]] std::span<const Checkpointing> allCheckpointings() noexcept;

/// How attention is computed. Sdpa is what PyTorch 2.x modules do by default (flash / memory-efficient
/// kernels: no T x T matrix kept); Eager forces the explicit softmax path that keeps heads x T x T
/// probabilities (and, with dropout, their mask). nn.MultiheadAttention with need_weights=true is
/// always eager.
enum class AttentionImplementation { Sdpa, Eager };
[[nodiscard]] std::string_view attentionName(AttentionImplementation a) noexcept; ///< "sdpa", "eager"
[[nodiscard]] std::string_view attentionLabel(AttentionImplementation a) noexcept; ///< "Flash / SDPA"
[[nodiscard]] std::optional<AttentionImplementation> parseAttention(std::string_view name) noexcept;

/// The largest LoRA rank the command line and the GUI accept: far above any rank in use (8 to 256),
/// and above the width of every layer it could adapt.
inline constexpr std::int64_t kMaxLoraRank = 1LL << 16;
/// The smallest assumed fraction of peak FLOP rate (1 %): below it a step-time estimate says nothing.
inline constexpr double kMinUtilization = 0.01;

/// LoRA (Hu et al. 2021) as Hugging Face PEFT applies it: every targeted Linear layer's weight is
/// frozen and gets a trainable rank-r pair A (r x in) and B (out x r); every other parameter is frozen.
struct LoraOptions final
{
    std::int64_t rank = 0; ///< 0 = LoRA off
    /// Linear layers to adapt, matched against the end of the layer's name ("q_proj" matches
    /// "layers.3.self_attn.q_proj"); empty = every Linear layer except the output head.
    std::vector<std::string> targets;
    double dropout = 0.0; ///< lora_dropout: a dropped copy of the input per adapted layer when > 0
    /// QLoRA (Dettmers et al. 2023): the frozen base Linear weights stored as 4-bit NF4 with
    /// double-quantised constants; adapters in the half type (bf16 by default).
    bool quantizeBase = false;

    [[nodiscard]] bool enabled() const noexcept { return rank > 0; }
    friend bool operator==(const LoraOptions&, const LoraOptions&) = default;
};

/// How data-parallel training shards the model state across GPUs.
enum class Sharding {
    None, ///< DDP: every GPU holds everything (plus gradient buckets)
    Zero1, ///< DeepSpeed ZeRO stage 1: optimizer state / N
    Zero2, ///< stage 2: + gradients / N
    Zero3, ///< stage 3: + weights / N, plus all-gather buffers
    FsdpShardGradOp, ///< PyTorch FSDP SHARD_GRAD_OP (as ZeRO-2)
    FsdpFullShard, ///< PyTorch FSDP FULL_SHARD (as ZeRO-3)
};
[[nodiscard]] std::string_view shardingName(Sharding s) noexcept; ///< "ddp", "zero1", ..., "fsdp-full-shard"
[[nodiscard]] std::string_view shardingLabel(Sharding s) noexcept; ///< "ZeRO stage 2"
[[nodiscard]] std::optional<Sharding> parseSharding(std::string_view name) noexcept;
[[nodiscard]] std::span<const Sharding> allShardings() noexcept;
/// 0 for DDP, else the ZeRO stage a strategy corresponds to (FSDP SHARD_GRAD_OP ~ 2, FULL_SHARD ~ 3).
[[nodiscard]] int shardingStage(Sharding s) noexcept;

/// How a pipeline-parallel step orders its micro-batches' forward and backward passes on each stage,
/// which decides how many micro-batches' activations a stage holds at once (docs/multi-gpu.md,
/// "Pipeline parallelism").
enum class PipelineSchedule {
    /// GPipe (Huang et al. 2019): every micro-batch's forward, then every backward: m in flight.
    GPipe,
    /// 1F1B (PipeDream-Flush, Narayanan et al. 2021): stage s of p runs p - s forwards before its
    /// first backward, then alternates: at most min(p - s, m) in flight.
    OneFOneB,
    /// Interleaved 1F1B (Megatron-LM, Narayanan et al. 2021): each stage holds v model chunks; stage s
    /// warms up with (p - s - 1) x 2 + (v - 1) x p chunk passes (Megatron's schedules.py).
    Interleaved,
    /// Zero-bubble ZB-H1 (Qi et al. 2023): backward split into input and weight gradients, weight
    /// gradients deferred into the bubble; its peak activation memory is 1F1B's.
    ZeroBubble,
};
[[nodiscard]] std::string_view pipelineScheduleName(
    PipelineSchedule s) noexcept; ///< "gpipe", "1f1b", "interleaved", "zero-bubble"
[[nodiscard]] std::string_view pipelineScheduleLabel(PipelineSchedule s) noexcept; ///< "Interleaved 1F1B"
[[nodiscard]] std::optional<PipelineSchedule> parsePipelineSchedule(std::string_view name) noexcept;
[[nodiscard]] std::span<const PipelineSchedule> allPipelineSchedules() noexcept;

/// How context parallelism exchanges the sequence shards for attention.
enum class ContextParallelism {
    /// Ring attention (Liu et al. 2023; Megatron-Core, torchtitan): each rank keeps its queries and
    /// passes key/value blocks around the ring, double-buffered.
    Ring,
    /// DeepSpeed-Ulysses (Jacobs et al. 2023): all-to-all from sequence shards to head shards and back.
    AllToAll,
};
[[nodiscard]] std::string_view contextParallelismName(
    ContextParallelism c) noexcept; ///< "ring", "all-to-all"
[[nodiscard]] std::string_view contextParallelismLabel(ContextParallelism c) noexcept; ///< "Ring attention"
[[nodiscard]] std::optional<ContextParallelism> parseContextParallelism(std::string_view name) noexcept;

/// Activation offloading to CPU memory during forward, brought back for backward.
enum class ActivationOffload {
    None,
    /// The checkpointed blocks' inputs (what per-block checkpointing keeps) move to the CPU: DeepSpeed's
    /// activation_checkpointing.cpu_checkpointing, torchtitan's and Transformers' offloaded checkpoints.
    Checkpoints,
    /// Every saved activation moves to the CPU (torch.autograd.graph.save_on_cpu): the GPU keeps the layer
    /// running and the ones being prefetched.
    All,
};
[[nodiscard]] std::string_view activationOffloadName(ActivationOffload a) noexcept; ///< "checkpoints"
[[nodiscard]] std::string_view activationOffloadLabel(ActivationOffload a) noexcept; ///< "Checkpoints"
[[nodiscard]] std::optional<ActivationOffload> parseActivationOffload(std::string_view name) noexcept;
[[nodiscard]] std::span<const ActivationOffload> allActivationOffloads() noexcept;

/// The largest pipeline-parallel, context-parallel or expert-parallel degree and virtual-stage count.
inline constexpr std::int64_t kMaxParallelDegree = 1LL << 16;

/// The GPUs a step runs on, and how the model and the batch are split over them. Per-GPU memory is what
/// is charted against one GPU's VRAM; with a pipeline, the heaviest stage's. The GPUs are
/// data x tensor x pipeline x context parallel (Megatron-LM's order); expert parallelism splits the
/// experts over the data- and context-parallel ranks of one tensor-parallel group.
struct Parallelism final
{
    std::int64_t gpus = 1; ///< total GPUs
    Sharding sharding = Sharding::None;
    bool offloadOptimizer = false; ///< optimizer state (and fp32 master weights) kept in CPU memory
    std::int64_t tensorParallel = 1; ///< Megatron tensor-parallel degree for attention/MLP layers
    /// Sequence parallelism with tensor parallelism (Korthikanti et al. 2022): the norms, dropouts and
    /// residual adds between the tensor-parallel regions run on 1/t of the sequence.
    bool sequenceParallel = false;
    std::int64_t pipelineParallel = 1; ///< pipeline stages
    PipelineSchedule schedule = PipelineSchedule::OneFOneB;
    std::int64_t virtualStages = 1; ///< model chunks per stage (interleaved schedule only)
    /// Layers per pipeline stage, first to last (Megatron's uneven stages); empty = as even as possible.
    std::vector<std::int64_t> stageLayers;
    std::int64_t contextParallel = 1; ///< the sequence split over c ranks
    ContextParallelism contextKind = ContextParallelism::Ring;
    std::int64_t expertParallel = 1; ///< a mixture of experts' experts split over e ranks
    std::int64_t expertTensorParallel = 1; ///< each expert's matrices split over this many ranks
    ActivationOffload activationOffload = ActivationOffload::None;

    /// The GPUs one replica of the model spans: tensor x pipeline x context parallel.
    [[nodiscard]] std::int64_t modelParallel() const noexcept
    {
        return std::max<std::int64_t>(1, tensorParallel) * std::max<std::int64_t>(1, pipelineParallel)
            * std::max<std::int64_t>(1, contextParallel);
    }
    /// The data-parallel degree: GPUs / (tensor x pipeline x context parallel).
    [[nodiscard]] std::int64_t dataParallel() const noexcept
    {
        return modelParallel() > 0 ? gpus / modelParallel() : gpus;
    }
    /// The ranks an expert's weights are replicated over (Megatron-Core's expert data parallel):
    /// GPUs / (pipeline x expert x expert-tensor parallel).
    [[nodiscard]] std::int64_t expertDataParallel() const noexcept
    {
        const std::int64_t split = std::max<std::int64_t>(1, pipelineParallel)
            * std::max<std::int64_t>(1, expertParallel) * std::max<std::int64_t>(1, expertTensorParallel);
        return gpus / split;
    }
    friend bool operator==(const Parallelism&, const Parallelism&) = default;
};

} // namespace headroom

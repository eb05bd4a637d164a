#pragma once

// Training strategies beyond "one GPU, every weight trained": activation checkpointing, attention
// implementation, LoRA/QLoRA, data/tensor parallelism and sharding. docs/memory-model.md gives the
// formulas and their sources.

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

/// The GPUs a step runs on. Per-GPU memory is what is charted against one GPU's VRAM.
struct Parallelism final
{
    std::int64_t gpus = 1; ///< total GPUs (data-parallel x tensor-parallel)
    Sharding sharding = Sharding::None;
    bool offloadOptimizer = false; ///< optimizer state (and fp32 master weights) kept in CPU memory
    std::int64_t tensorParallel = 1; ///< Megatron tensor-parallel degree for attention/MLP layers

    [[nodiscard]] std::int64_t dataParallel() const noexcept
    {
        return tensorParallel > 0 ? gpus / tensorParallel : gpus;
    }
    friend bool operator==(const Parallelism&, const Parallelism&) = default;
};

} // namespace headroom

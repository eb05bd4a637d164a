#include "headroom/setup/Training.h"

#include <array>

namespace headroom {

namespace {

template <typename Enum, std::size_t N>
std::optional<Enum> parseByName(
    std::string_view name, const std::array<Enum, N>& all, std::string_view (*nameOf)(Enum) noexcept)
{
    for (const Enum e : all)
        if (nameOf(e) == name)
            return e;
    return std::nullopt;
}

constexpr std::array kCheckpointings { Checkpointing::None, Checkpointing::PerBlock,
    Checkpointing::Selective };
constexpr std::array kAttentions { AttentionImplementation::Sdpa, AttentionImplementation::Eager };
constexpr std::array kShardings { Sharding::None, Sharding::Zero1, Sharding::Zero2, Sharding::Zero3,
    Sharding::FsdpShardGradOp, Sharding::FsdpFullShard };
constexpr std::array kSchedules { PipelineSchedule::GPipe, PipelineSchedule::OneFOneB,
    PipelineSchedule::Interleaved, PipelineSchedule::ZeroBubble };
constexpr std::array kContextKinds { ContextParallelism::Ring, ContextParallelism::AllToAll };
constexpr std::array kActivationOffloads { ActivationOffload::None, ActivationOffload::Checkpoints,
    ActivationOffload::All };

} // namespace

std::string_view checkpointingName(Checkpointing c) noexcept
{
    switch (c) {
    case Checkpointing::None:
        return "none";
    case Checkpointing::PerBlock:
        return "per-block";
    case Checkpointing::Selective:
        return "selective";
    }
    return "";
}

std::string_view checkpointingLabel(Checkpointing c) noexcept
{
    switch (c) {
    case Checkpointing::None:
        return "None";
    case Checkpointing::PerBlock:
        return "Per block";
    case Checkpointing::Selective:
        return "Selective (attention scores)";
    }
    return "";
}

std::optional<Checkpointing> parseCheckpointing(std::string_view name) noexcept
{
    return parseByName(name, kCheckpointings, checkpointingName);
}

std::span<const Checkpointing> allCheckpointings() noexcept
{
    return kCheckpointings;
}

std::string_view attentionName(AttentionImplementation a) noexcept
{
    return a == AttentionImplementation::Eager ? "eager" : "sdpa";
}

std::string_view attentionLabel(AttentionImplementation a) noexcept
{
    return a == AttentionImplementation::Eager ? "Eager (keeps T x T scores)" : "Flash / SDPA";
}

std::optional<AttentionImplementation> parseAttention(std::string_view name) noexcept
{
    return parseByName(name, kAttentions, attentionName);
}

std::string_view shardingName(Sharding s) noexcept
{
    switch (s) {
    case Sharding::None:
        return "ddp";
    case Sharding::Zero1:
        return "zero1";
    case Sharding::Zero2:
        return "zero2";
    case Sharding::Zero3:
        return "zero3";
    case Sharding::FsdpShardGradOp:
        return "fsdp-shard-grad-op";
    case Sharding::FsdpFullShard:
        return "fsdp-full-shard";
    }
    return "";
}

std::string_view shardingLabel(Sharding s) noexcept
{
    switch (s) {
    case Sharding::None:
        return "DDP (no sharding)";
    case Sharding::Zero1:
        return "ZeRO stage 1";
    case Sharding::Zero2:
        return "ZeRO stage 2";
    case Sharding::Zero3:
        return "ZeRO stage 3";
    case Sharding::FsdpShardGradOp:
        return "FSDP shard grad/op";
    case Sharding::FsdpFullShard:
        return "FSDP full shard";
    }
    return "";
}

std::optional<Sharding> parseSharding(std::string_view name) noexcept
{
    return parseByName(name, kShardings, shardingName);
}

std::span<const Sharding> allShardings() noexcept
{
    return kShardings;
}

int shardingStage(Sharding s) noexcept
{
    switch (s) {
    case Sharding::None:
        return 0;
    case Sharding::Zero1:
        return 1;
    case Sharding::Zero2:
    case Sharding::FsdpShardGradOp:
        return 2;
    case Sharding::Zero3:
    case Sharding::FsdpFullShard:
        return 3;
    }
    return 0;
}

std::string_view pipelineScheduleName(PipelineSchedule s) noexcept
{
    switch (s) {
    case PipelineSchedule::GPipe:
        return "gpipe";
    case PipelineSchedule::OneFOneB:
        return "1f1b";
    case PipelineSchedule::Interleaved:
        return "interleaved";
    case PipelineSchedule::ZeroBubble:
        return "zero-bubble";
    }
    return "";
}

std::string_view pipelineScheduleLabel(PipelineSchedule s) noexcept
{
    switch (s) {
    case PipelineSchedule::GPipe:
        return "GPipe";
    case PipelineSchedule::OneFOneB:
        return "1F1B";
    case PipelineSchedule::Interleaved:
        return "Interleaved 1F1B";
    case PipelineSchedule::ZeroBubble:
        return "Zero bubble (ZB-H1)";
    }
    return "";
}

std::optional<PipelineSchedule> parsePipelineSchedule(std::string_view name) noexcept
{
    return parseByName(name, kSchedules, pipelineScheduleName);
}

std::span<const PipelineSchedule> allPipelineSchedules() noexcept
{
    return kSchedules;
}

std::string_view contextParallelismName(ContextParallelism c) noexcept
{
    return c == ContextParallelism::Ring ? "ring" : "all-to-all";
}

std::string_view contextParallelismLabel(ContextParallelism c) noexcept
{
    return c == ContextParallelism::Ring ? "Ring attention" : "All-to-all (Ulysses)";
}

std::optional<ContextParallelism> parseContextParallelism(std::string_view name) noexcept
{
    return parseByName(name, kContextKinds, contextParallelismName);
}

std::string_view activationOffloadName(ActivationOffload a) noexcept
{
    switch (a) {
    case ActivationOffload::None:
        return "none";
    case ActivationOffload::Checkpoints:
        return "checkpoints";
    case ActivationOffload::All:
        return "all";
    }
    return "";
}

std::string_view activationOffloadLabel(ActivationOffload a) noexcept
{
    switch (a) {
    case ActivationOffload::None:
        return "None";
    case ActivationOffload::Checkpoints:
        return "Checkpoints";
    case ActivationOffload::All:
        return "All saved activations";
    }
    return "";
}

std::optional<ActivationOffload> parseActivationOffload(std::string_view name) noexcept
{
    return parseByName(name, kActivationOffloads, activationOffloadName);
}

std::span<const ActivationOffload> allActivationOffloads() noexcept
{
    return kActivationOffloads;
}

} // namespace headroom

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

} // namespace headroom

#pragma once

// Megatron-LM's tensor parallelism as Headroom models it (docs/multi-gpu.md): which layers a degree t
// splits, and what one GPU keeps of a split byte count.

#include "headroom/analysis/Analysis.h"

#include <cstdint>

namespace headroom {

/// Megatron-LM (Shoeybi et al. 2019): attention, MLP (Linear) and embedding layers are split t ways;
/// normalisations, convolutions, recurrent layers and the loss are replicated.
[[nodiscard]] bool splitByTensorParallel(const LayerRow& row) noexcept;

/// Sequence parallelism (Korthikanti et al. 2022, section 4.2.2): the layers tensor parallelism leaves whole
/// run on 1/t of the sequence on each rank. Every row with a layer kind except convolutions, recurrent
/// layers and pooling (Megatron has no sequence-parallel form of them); Repeat headers and the loss keep
/// their bytes.
[[nodiscard]] bool splitBySequenceParallel(const LayerRow& row) noexcept;

/// What the other t - 1 ranks hold of x split t ways: x - ceil(x / t).
[[nodiscard]] inline std::uint64_t removedBySplit(std::uint64_t x, std::uint64_t t) noexcept
{
    return t <= 1 ? 0 : x - (x / t + (x % t != 0 ? 1 : 0));
}

} // namespace headroom

#pragma once

// The network's running sums while the walk goes on: every stage that counts adds to them (parameter
// counting, autocast copies, adapters, the layer's FLOPs, the loss's labels); the identical-iteration
// jump multiplies what an iteration added; the summary writes them into the Analysis at the end.

#include "headroom/support/Count.h"

#include <array>
#include <cstdint>

namespace headroom::analysis {

struct Totals final
{
    Count params; ///< trainable and frozen parameter elements (LoRA's included)
    Count buffers;
    Count paramBytes;
    Count bufferBytes;
    Count autocastCopies; ///< the half copies of weights autocast makes
    Count trainable;
    Count trainableBytes;
    Count lora;
    Count forward; ///< FLOPs per sample
    Count backward;
    Count recompute;
    Count attentionRecompute;
    Count droppedPerSample; ///< attention scores selective checkpointing drops
    Count droppedFixed;
    Count labelBytes; ///< per sample, the loss's targets
    std::uint64_t transient = 0; ///< the largest gradient pair one layer's backward holds, per sample
    bool overflow = false; ///< a figure overflowed 64 bits (the step recorder keeps its own flag)

    /// Every sum an iteration of a Repeat block adds to: what identical iterations multiply.
    [[nodiscard]] std::array<Count*, 14> perIteration() noexcept
    {
        return { &params, &buffers, &paramBytes, &bufferBytes, &autocastCopies, &trainable, &trainableBytes,
            &lora, &forward, &backward, &recompute, &attentionRecompute, &droppedPerSample, &droppedFixed };
    }
};

} // namespace headroom::analysis

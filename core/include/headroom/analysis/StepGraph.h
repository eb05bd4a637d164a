#pragma once

// What one training step does with memory, as the analysis records it: the operations of the forward
// pass in order, the storages (memory blocks) each allocates, which later operations read them, which
// operations keep them for backward, and the gradients backward creates. Batch-, optimizer- and
// GPU-independent; StepTimeline simulates a step from it (docs/memory-model.md, "One training step").

#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

namespace headroom {

/// Bytes that scale with the batch size (perSample x B) plus bytes that do not.
struct AffineBytes final
{
    std::uint64_t perSample = 0;
    std::uint64_t fixed = 0;
    friend bool operator==(const AffineBytes&, const AffineBytes&) = default;
};

inline constexpr std::size_t kNoStepOp = std::numeric_limits<std::size_t>::max();

/// One memory block of the step: a layer's output (shared by the in-place ops and views over it), a
/// buffer a layer saves (mask, indices, statistics, an autocast copy), or the input batch.
struct StepStorage final
{
    AffineBytes bytes;
    std::size_t producer = kNoStepOp; ///< the op that allocates it (kNoStepOp: the input batch)
    std::size_t lastForwardUse = kNoStepOp; ///< the last op that reads it (or creates it) in forward
    /// The op whose backward releases it: of the ops that keep it for backward, the first in forward
    /// order (its backward runs last). kNoStepOp: nothing keeps it.
    std::size_t releasedAfterBackwardOf = kNoStepOp;
    /// Created inside this checkpointed iteration (-1: none): the first forward frees it after its last
    /// use, and the iteration's backward recomputes it.
    std::ptrdiff_t segment = -1;
    /// Created and kept inside its checkpointed iteration: it exists again during that iteration's
    /// backward (recomputed), until the backward of releasedInSegmentAfterBackwardOf releases it.
    bool keptInSegment = false;
    std::size_t releasedInSegmentAfterBackwardOf = kNoStepOp;
    /// Kept by a layer outside its checkpointed iteration (or not in any): survives the forward pass.
    bool keptAcrossSegments = false;
    /// The analysis row its bytes are charged to (the first layer keeping it, else its producer): the
    /// row whose tensor-parallel split applies to it.
    std::size_t chargedRow = 0;
    bool isInputBatch = false;
};

/// A tensor flowing between ops: a view onto a storage, with the size its gradient has.
struct StepTensor final
{
    std::size_t storage = 0;
    AffineBytes gradientBytes; ///< its own elements x its dtype's size
    bool requiresGrad = false;
};

/// One input of an op.
struct StepInput final
{
    std::size_t tensor = 0;
    /// Backward hands this input the op's output gradient or a view of it (nothing is allocated).
    bool aliasedGradient = false;
};

/// A trainable parameter tensor's gradient (`.grad`), created by the first backward that reaches it.
struct StepParameter final
{
    std::uint64_t gradientBytes = 0;
    std::size_t row = 0; ///< the layer owning it (a tied layer's weight is its target's)
    /// The identical parameters it stands for: its own, and those of the identical iterations its
    /// iteration stands for (StepRepeat), whose gradients the step also holds.
    std::uint64_t copies = 1;
};

/// When an autocast half copy of a layer's weights is released.
enum class CopyRelease {
    AfterForwardOp, ///< not cached and not saved: freed when the layer returns
    AfterForward, ///< in autocast's cast cache (weights that require grad): freed when autocast exits
    AfterBackward, ///< saved for backward (the input gradient needs the weight): freed by the backward
};

/// One forward operation (a layer, or a part of the loss) and its backward.
struct StepOp final
{
    std::size_t row = 0; ///< its Analysis::rows index
    std::vector<StepInput> inputs;
    std::size_t output = 0; ///< a StepGraph::tensors index
    std::vector<std::size_t> allocates; ///< storages it creates in forward, in order
    AffineBytes forwardScratch; ///< held only while its forward runs
    AffineBytes backwardScratch; ///< held only while its backward runs
    std::vector<std::size_t> parameters; ///< StepGraph::parameters whose gradients its backward produces
    /// Its weight's gradient is a view whose base holds the storage too: a Linear's without an autocast
    /// cast (mm_mat2_backward's transposed product, then TBackward's .t()). Autograd cannot add a shared
    /// weight's later gradient into such a first one in place (StepSimulation::backwardOf).
    bool weightGradientIsView = false;
    std::uint64_t autocastCopyBytes = 0;
    CopyRelease copyRelease = CopyRelease::AfterForwardOp;
    bool recorded = false; ///< autograd records it: it has a backward
    std::ptrdiff_t segment = -1; ///< the checkpointed iteration it belongs to (-1: none)
};

/// Identical iterations of a Repeat block that have no ops of their own. The ops `first`..`last` are
/// an iteration just before them, `nextFirst`..`nextLast` the iteration just after, both like them:
/// each hidden iteration's forward changes live memory as the first one's does, its backward as the
/// second one's (docs/memory-model.md, "Repeated iterations").
struct StepRepeat final
{
    std::size_t first = 0;
    std::size_t last = 0;
    std::size_t nextFirst = 0;
    std::size_t nextLast = 0;
    std::uint64_t hidden = 0; ///< iterations between the two
    std::size_t level = 0; ///< the block's place in LayerRow::iterations of the rows inside it
    std::size_t headerRow = 0; ///< the block's Analysis::rows index
    std::int64_t firstHidden = 0; ///< the first hidden iteration's index
};

/// The analysis's record of one step. Empty for an analysis with an error.
struct StepGraph final
{
    std::vector<StepStorage> storages;
    std::vector<StepTensor> tensors;
    std::vector<StepOp> ops;
    std::vector<StepParameter> parameters;
    std::vector<StepRepeat> repeats;
    std::size_t segments = 0; ///< checkpointed iterations
};

} // namespace headroom

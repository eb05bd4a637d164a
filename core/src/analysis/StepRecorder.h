#pragma once

// Stage: storage keeping and the step graph. The other stages record into it as the walk goes: the
// storages (memory blocks) that layers allocate, the tensors flowing between them, the ops in forward
// order, which op keeps which storage for backward (each storage charged once, to the first layer
// keeping it), the parameters whose gradients backward makes, and the checkpointed iterations.
// Reads only what it is given; at the end keptActivations() sums what backward keeps and finish()
// resolves the record into the public StepGraph (docs/memory-model.md, "One training step").

#include "headroom/analysis/Analysis.h"
#include "headroom/analysis/StepGraph.h"
#include "headroom/support/Count.h"

#include <cstddef>
#include <optional>
#include <vector>

namespace headroom::analysis {

/// A memory block: one tensor's storage, possibly shared by several tensors (views, in-place ops).
struct Storage final
{
    Count bytesPerSample;
    Count bytesFixed;
    bool isNetworkInput = false;
    bool saved = false; ///< kept for backward by some layer (what counts without checkpointing)
    /// Kept from the forward pass to the backward pass under per-block checkpointing: saved by a layer
    /// outside every checkpointed iteration, saved by a checkpointed iteration that did not create
    /// it, or the input of a checkpointed iteration (torch.utils.checkpoint saves its inputs).
    bool kept = false;
    std::ptrdiff_t segment = -1; ///< the checkpointed iteration that created it (-1: none)
    /// Saved by a layer of the checkpointed iteration that created it: recomputation in backward
    /// materialises it again as a fresh storage (even when the original is kept, as a block's output
    /// that is the next block's input), so it counts in that iteration's recomputed activations.
    bool savedInSegment = false;
    std::size_t producerOp = kNoStepOp; ///< the step op that allocates it (kNoStepOp: the input batch)
    /// The identical storages it stands for (its iteration's, and the identical iterations' analysed
    /// with it), and of those the ones within its own checkpointed iteration.
    Count copies { 1 };
    Count copiesInSegment { 1 };
};

/// A tensor flowing between layers.
struct Tensor final
{
    TensorInfo info;
    std::size_t storage = 0;
    std::optional<std::size_t> producerRow; ///< nullopt for the network input
    bool valid = true;
    bool requiresGrad = false; ///< autograd records it (an upstream input or parameter needs a gradient)
    std::size_t producerOp = kNoStepOp; ///< the step op that computes it (kNoStepOp: the network input)
};

/// The activation bytes backward keeps, summed over the storages.
struct KeptActivations final
{
    /// With checkpointing: what stays kept, plus the checkpointed iteration whose recomputed activations
    /// are the largest (alive while backward runs through it).
    Count perSample;
    Count fixed;
    /// Without checkpointing: every saved storage (and what the caller started them with).
    Count fullPerSample;
    Count fullFixed;
    bool overflow = false; ///< a checkpointed iteration's sum overflowed
};

/// How far the record has come: what an iteration of a Repeat block adds from here.
struct StepSizes final
{
    std::size_t ops = 0;
    std::size_t storages = 0;
    std::size_t parameters = 0;
};

class StepRecorder final
{
public:
    /// The input batch: storage 0 and tensor 0. Returns its bytes per sample.
    Count addNetworkInput(const TensorInfo& info);
    std::size_t addTensor(const Tensor& tensor);
    [[nodiscard]] const Tensor& tensor(std::size_t index) const { return m_tensors[index]; }
    [[nodiscard]] std::size_t tensorCount() const noexcept { return m_tensors.size(); }

    /// A storage the op recorded next allocates (in the checkpointed iteration being walked, if any).
    std::size_t newStorage(Count perSample, Count fixed);
    [[nodiscard]] const Storage& storage(std::size_t index) const { return m_storages[index]; }
    /// Changes a storage's size (the loss's scalar that keeps an input-sized storage).
    void resize(std::size_t storage, Count perSample, Count fixed);
    /// Marks a storage as kept for backward by the op recorded next; the first layer to keep it is
    /// charged for it (inside a checkpointed block: what the layer keeps while backward recomputes the
    /// block). The network input is never charged.
    void keep(std::size_t storage, LayerRow& row);

    [[nodiscard]] std::size_t nextOp() const noexcept { return m_graph.ops.size(); }
    void addOp(StepOp op);
    [[nodiscard]] StepOp& lastOp() { return m_graph.ops.back(); }
    /// A trainable parameter tensor's gradient, produced by the backward of the layer of `row`.
    std::size_t addParameter(Count gradientBytes, std::size_t row);

    /// The checkpointed iteration being walked (-1: none).
    [[nodiscard]] std::ptrdiff_t segment() const noexcept { return m_segment; }
    /// Starts a checkpointed iteration reading `input`: checkpoint saves its input until the
    /// iteration's backward ends (its first op's).
    void beginSegment(std::size_t input);
    void endSegment() noexcept { m_segment = -1; }

    [[nodiscard]] StepSizes sizes() const noexcept;
    /// Makes the storages and parameters recorded since `before` stand for `times` identical ones each.
    /// `ownSegments`: their block is not inside a checkpointed iteration (its copies are not in one).
    void multiplySince(const StepSizes& before, Count times, bool ownSegments);
    std::size_t addRepeat(const StepRepeat& repeat);
    [[nodiscard]] StepRepeat& repeat(std::size_t index) { return m_graph.repeats[index]; }

    [[nodiscard]] bool overflowed() const noexcept { return m_overflow; }
    /// The kept activation bytes; the sums without checkpointing start from the given values.
    [[nodiscard]] KeptActivations keptActivations(Count fullPerSample, Count fullFixed) const;
    /// The step graph from what was recorded; the batch (storage 0) holds `batchBytesPerSample`.
    [[nodiscard]] StepGraph finish(std::uint64_t batchBytesPerSample);

private:
    /// One "op keeps storage for backward" fact, resolved into StepStorage release points at the end.
    struct Keep
    {
        std::size_t storage = 0;
        std::size_t op = 0;
        bool inSegment = false; ///< by an op of the checkpointed iteration that created the storage
    };

    [[nodiscard]] std::vector<bool> liveOps() const;
    void resolveStorages(const std::vector<bool>& live, std::uint64_t batchBytesPerSample);

    std::vector<Storage> m_storages;
    std::vector<Tensor> m_tensors;
    std::vector<Keep> m_keeps;
    StepGraph m_graph; ///< ops, parameters and repeats as recorded; storages and tensors at the end
    std::ptrdiff_t m_segment = -1; ///< the checkpointed iteration being walked
    std::size_t m_segmentCount = 0; ///< checkpointed iterations so far
    bool m_overflow = false;
};

} // namespace headroom::analysis

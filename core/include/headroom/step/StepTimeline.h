#pragma once

// One training step simulated over time, from the analysis's step graph and a set-up's per-GPU
// constants: forward in order, backward in reverse, then the optimizer step. Every moment's live memory
// is affine in the batch size, so the step's peak over batch sizes is the upper envelope of those lines
// (docs/memory-model.md, "One training step").

#include "headroom/analysis/Analysis.h"
#include "headroom/analysis/StepGraph.h"
#include "headroom/step/MemoryBreakdown.h"
#include "headroom/step/UpperEnvelope.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace headroom {

enum class StepPhase { Forward, Backward, OptimizerStep };
[[nodiscard]] std::string_view stepPhaseName(
    StepPhase p) noexcept; ///< "forward", "backward", "optimizer_step"
[[nodiscard]] std::string_view stepPhaseLabel(
    StepPhase p) noexcept; ///< "Forward", "Backward", "Optimizer step"

/// One moment of the step: what is alive while an op runs (its output, scratch and gradients
/// allocated), as fixed + perSample x B bytes per component.
struct StepMoment final
{
    StepPhase phase = StepPhase::Forward;
    std::size_t op = kNoStepOp; ///< the StepGraph op running (kNoStepOp: the optimizer step)
    std::size_t row = 0; ///< its Analysis::rows index (for names)
    bool recomputing = false; ///< a checkpointed iteration's forward, run again inside backward
    bool laterMicroBatch = false; ///< gradient accumulation: gradients of earlier micro-batches are alive
    /// After the op returned and what it no longer needs was freed (the end of the forward pass).
    bool afterOp = false;
    /// A moment of an iteration no op stands for (StepRepeat): `row`'s layer that many iterations
    /// later (LayerRow::iterations levels; instanceName() names it). Empty for the op's own layer.
    std::vector<std::int64_t> shift;
    /// Not a moment but the StepGraph::repeats entry whose hidden iterations ran here: what is alive
    /// after them. Never the peak (every moment inside them is at most the larger of the moments of
    /// the iterations on either side, or one of the moments simulated for them).
    std::size_t repeat = kNoStepOp;
    /// Where the moment is among its micro-batch's moments with every repeated block written out (the
    /// allocation trace's moments, AllocationTrace::moments()): [ordinal, ordinal + ordinals). One for a
    /// moment of an op, every hidden iteration's for a `repeat` marker, none for the optimizer step.
    std::size_t ordinal = 0;
    std::size_t ordinals = 1;
    MemoryBreakdown fixed;
    MemoryBreakdown perSample;
};

/// The layer a moment belongs to ("blocks.7.fc"), or for the hidden iterations of a Repeat block their
/// range ("blocks.2–9997"); "" for the optimizer step.
[[nodiscard]] std::string momentLayerName(const Analysis& analysis, const StepMoment& moment);
/// The same layer as a sentence names it, its number first (layerReference): "8.2 (blocks.7.fc)",
/// "5 (MaxPool2d)", for hidden iterations the block's number: "3 (blocks.2–9997)"; "" for the optimizer step.
[[nodiscard]] std::string momentLayerReference(const Analysis& analysis, const StepMoment& moment);

/// What a set-up contributes to every moment, per GPU (MemoryModel::build works these out).
struct StepConditions final
{
    std::uint64_t weights = 0; ///< parameters (sharded) + buffers, without autocast's copies
    std::uint64_t optimizerState = 0; ///< once the first step has created it
    /// Every gradient on this GPU before ZeRO's sharding: used when the step graph lists no parameters (a
    /// hand-made analysis of model states only); otherwise the graph's parameters are summed.
    std::uint64_t gradients = 0;
    std::uint64_t overhead = 0;
    std::uint64_t bucketBytes = 0; ///< DDP's gradient buckets: allocated for the whole run
    std::uint64_t gatheredBytes = 0; ///< ZeRO-3 / FSDP: the gathered layers, during forward and backward
    /// The optimizer step's own buffers: the implementation's temporaries and DeepSpeed's float32
    /// gradient partition.
    std::uint64_t stepTemporaries = 0;
    std::uint64_t tensorParallel
        = 1; ///< split layers hold ceil(bytes / t) of their activations and gradients
    /// Sequence parallelism (docs/multi-gpu.md): the rows tensor parallelism leaves whole hold
    /// ceil(bytes / t) of their activations and gradients too, convolutions, recurrent layers, pooling and
    /// the loss excepted (splitBySequenceParallel()).
    bool sequenceParallel = false;
    /// Sequence parallelism's all-gather buffer (Megatron's global memory buffer, kept once allocated):
    /// the largest full-sequence input of a column-parallel linear, alive at every moment.
    AffineBytes sequenceGather;
    /// Sequence and context parallelism: per Analysis::rows index, the communication buffers alive while
    /// that row's op runs forward (recomputation included) and backward. Empty or shorter: none.
    std::vector<AffineBytes> forwardCommunication, backwardCommunication;
    std::uint64_t gradientShards = 1; ///< ZeRO-2/3: a rank keeps ceil(gradients / N)
    bool gradientsOffloaded = false; ///< ZeRO-Offload with stage 2/3: reduced gradients leave the GPU
    /// Autocast copies of a fully sharded model exist only for the gathered layers: at most this much.
    std::uint64_t autocastCopyCap = UINT64_MAX;
    std::int64_t accumulationSteps = 1;
    /// When two gradients of one tensor meet, the second is added into the first (PyTorch >= 2.0,
    /// InputBuffer::accumulate); torch 1.13 sums them into a new tensor.
    bool gradientSumsInPlace = true;
    /// A measured run's excess over the plan (TrainingSetup::calibration): alive at every moment, and one
    /// allocation before the weights in the trace.
    std::uint64_t calibrationFixed = 0;
    std::uint64_t calibrationPerSample = 0;
    /// Pipeline parallelism (docs/multi-gpu.md, "Pipeline parallelism"): the forward passes a stage's
    /// schedule has run and not yet run backward for, besides the running micro-batch, each keeping
    /// heldActivationsPerPass (what it saved) and heldInputPerPass (what it received). Alive through
    /// forward and backward; the schedule has drained them all by the optimizer step.
    std::int64_t heldPasses = 0;
    AffineBytes heldActivationsPerPass;
    AffineBytes heldInputPerPass;
    /// The stage's point-to-point buffers in forward and backward: a boundary tensor arriving from each
    /// neighbouring stage (the next input, the output's gradient).
    AffineBytes pipelineBuffers;
    /// Expert parallelism (docs/multi-gpu.md, "Expert parallelism"): e, whose all-to-all dispatch buffers
    /// each mixture-of-experts layer holds while it runs (forward and backward), and e x expert tensor
    /// parallel, over which its routed experts (and their autocast copies) are split.
    std::uint64_t expertParallel = 1;
    std::uint64_t expertSplit = 1;
    /// Saved activations moved to CPU memory (docs/multi-gpu.md, "Activation offloading").
    ActivationOffload activationOffload = ActivationOffload::None;
};

/// The simulated step. Moments of the steady step (optimizer state allocated): the first micro-batch's
/// forward and backward, with accumulation a later micro-batch's as well, then the optimizer step.
class StepTimeline final
{
public:
    [[nodiscard]] static StepTimeline simulate(const Analysis& analysis, const StepConditions& conditions);

    [[nodiscard]] const std::vector<StepMoment>& moments() const noexcept { return m_moments; }
    /// The moments a chart of one step shows: the last micro-batch's forward and backward, then the step.
    [[nodiscard]] std::vector<std::size_t> oneStep() const;
    /// The peak over the steady step's moments (the first step's peak is never higher: it lacks the
    /// optimizer state until its optimizer step, which is the same as a steady one).
    [[nodiscard]] const UpperEnvelope& steady() const noexcept { return m_steady; }
    /// The peak over the first step's moments (no optimizer state before the step).
    [[nodiscard]] const UpperEnvelope& first() const noexcept { return m_first; }
    /// The optimizer state the first step's forward and backward lack.
    [[nodiscard]] std::uint64_t optimizerState() const noexcept { return m_optimizerState; }
    /// A byte count did not fit 64 bits somewhere in the step.
    [[nodiscard]] bool overflowed() const noexcept { return m_overflow; }
    /// The set-up's per-GPU constants the step was simulated under.
    [[nodiscard]] const StepConditions& conditions() const noexcept { return m_conditions; }

private:
    std::vector<StepMoment> m_moments;
    UpperEnvelope m_steady;
    UpperEnvelope m_first;
    std::uint64_t m_optimizerState = 0;
    bool m_overflow = false;
    StepConditions m_conditions;
};

} // namespace headroom

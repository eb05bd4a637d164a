#pragma once

// Communication between GPUs per optimizer step: the bytes each parallelism's collectives move, the time
// they take over the links a group spans at NCCL's bus-bandwidth conventions, and the part the step's
// compute does not hide (docs/throughput.md, "Communication").

#include "headroom/analysis/Analysis.h"
#include "headroom/setup/GpuCatalog.h"
#include "headroom/setup/TrainingSetup.h"

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace headroom {

/// What a communication term exchanges.
enum class CommunicationKind {
    DataParallel, ///< gradients (and, with ZeRO/FSDP, parameters) over the data x context parallel ranks
    ExpertDataParallel, ///< the experts' gradients over the ranks that hold the same experts
    TensorParallel, ///< Megatron's all-reduces (sequence parallel: all-gather + reduce-scatter)
    Pipeline, ///< the stage boundaries' activations and their gradients, sent and received
    ContextParallel, ///< ring attention's key/value blocks, or Ulysses' all-to-all
    ExpertParallel, ///< a mixture of experts' dispatch and combine all-to-all
};
[[nodiscard]] std::string_view communicationKindName(CommunicationKind k) noexcept; ///< "data parallel"
[[nodiscard]] std::string_view communicationKindKey(CommunicationKind k) noexcept; ///< "data_parallel"

/// The links a set-up's GPUs talk over.
struct Interconnect final
{
    double intraNodeGBps = 0; ///< GPU to GPU within a node, GB/s each way
    double interNodeGBps = 0; ///< per GPU between nodes, GB/s each way (the set-up's)
    std::int64_t gpusPerNode = 1;
    /// The GPU has no link figure: intraNodeGBps is its PCIe generation's x16 rate, or PCIe 4.0's.
    bool intraAssumed = false;
    int assumedPcieGeneration = 0; ///< the generation assumed when intraAssumed
};
/// The GPU's catalogue figure (Gpu::linkGBps) within a node, else its PCIe generation's x16 rate, else
/// PCIe 4.0's (31.5 GB/s); the set-up's figures between nodes and per node.
[[nodiscard]] Interconnect interconnectOf(const Gpu& gpu, const TrainingSetup& setup) noexcept;

/// One kind of exchange in one optimizer step of one GPU.
struct CommunicationTerm final
{
    CommunicationKind kind = CommunicationKind::DataParallel;
    std::string collective; ///< "all-reduce", "reduce-scatter + all-gather", "send/receive", ...
    std::int64_t ranks = 1; ///< the GPUs of the group
    bool crossesNodes = false; ///< some group of this kind spans nodes: its slowest link is the network
    /// The buffers the collectives run on (NCCL's "size"), summed over the step: bytes.
    double bytes = 0;
    /// What one GPU sends over its link for them: bytes x NCCL's bus factor (all-reduce 2(n-1)/n,
    /// all-gather, reduce-scatter and all-to-all (n-1)/n, send/receive 1).
    double busBytes = 0;
    double seconds = 0; ///< at the links' peak bandwidth
    double overlapSeconds = 0; ///< the compute it runs alongside (0: on the critical path)
    double exposedSeconds = 0; ///< max(0, seconds - overlapSeconds): what the step waits for
    /// Runs in every micro-batch's passes, so a pipeline's bubble stretches it with them; false for the
    /// data-parallel exchanges, done once the micro-batches' backward passes are.
    bool perMicroBatch = true;
};

/// The compute a step's exchanges can hide behind, per micro-batch.
struct ComputeWindows final
{
    double forwardSeconds = 0;
    double backwardSeconds = 0; ///< backward and checkpoint recomputation
    /// Seconds per FLOP at the assumed rate (1 / (peak x utilisation)): ring attention's key/value
    /// exchange hides behind the attention layers' arithmetic.
    double secondsPerFlop = 0;
};

/// What a network exchanges, independent of the set-up's degrees, batch and links: worked out once per
/// network (the cluster planner keeps them per stage network), turned into terms by communicationTerms().
struct CommunicationVolumes final
{
    bool valid = false; ///< false for an analysis with an error
    /// Tensor parallelism's all-reduce buffers per micro-batch: forward (g), backward (f), and the forward
    /// ones again for checkpointed layers.
    AffineBytes tensorForward, tensorBackward, tensorRecompute;
    /// The attention layers' local Q, K + V and output, summed over the layers, and their FLOPs per
    /// sample (forward + backward).
    AffineBytes attentionQ, attentionKv, attentionOut;
    double attentionFlopsPerSample = 0;
    /// The mixture-of-experts layers' dispatch and combine buffers per sample, forward, backward and
    /// recomputation together.
    double expertBuffersPerSample = 0;
    double trainableBytes = 0; ///< the trainable parameters' bytes (the gradients')
    double allBytes = 0; ///< every parameter's bytes
    double expertTrainableShare = 0; ///< of the trainable parameters, the routed experts' share
    double expertShare = 0; ///< of all parameters, the routed experts' share
};
[[nodiscard]] CommunicationVolumes communicationVolumes(const Analysis& analysis);

/// The exchanges of one GPU in one optimizer step of `setup` (docs/throughput.md, "Communication"): none
/// on one GPU. `analysis` is the GPU's network (a pipeline stage's with setup.pipelineStage set).
[[nodiscard]] std::vector<CommunicationTerm> communicationTerms(const Analysis& analysis,
    const TrainingSetup& setup, const Interconnect& links, const ComputeWindows& windows);
/// The same from the network's volumes (communicationVolumes() of the GPU's network).
[[nodiscard]] std::vector<CommunicationTerm> communicationTerms(const CommunicationVolumes& volumes,
    const TrainingSetup& setup, const Interconnect& links, const ComputeWindows& windows);

/// The sum of the terms' exposed seconds, all of them or (perMicroBatch) those of one kind of timing.
[[nodiscard]] double exposedSeconds(std::span<const CommunicationTerm> terms) noexcept;
[[nodiscard]] double exposedSeconds(std::span<const CommunicationTerm> terms, bool perMicroBatch) noexcept;

} // namespace headroom

#pragma once

// Planning a cluster (docs/planner.md, "Planning a cluster"): the layouts of G GPUs for one model and
// one global batch, tensor x pipeline x data x context x expert parallel with the schedule, micro-batch,
// recomputation and sharding, that fit every GPU with what PyTorch's caching allocator reserves, fastest
// first by the throughput model (its pipeline bubble included).

#include "headroom/estimate/Estimate.h"
#include "headroom/estimate/Plan.h"
#include "headroom/estimate/Throughput.h"
#include "headroom/support/Error.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace headroom {

/// What a cluster plan searches and for what.
struct ClusterRequest final
{
    std::int64_t gpus = 1; ///< G, every GPU of the plan's kind
    /// GPUs per node: tensor parallelism and expert x expert-tensor parallelism stay within one node
    /// (NVLink), as Megatron-LM lays them out.
    std::int64_t gpusPerNode = 8;
    std::int64_t globalBatch = 0; ///< samples per optimizer step: micro-batch x accumulation x data parallel
    /// The recomputation modes tried (activation checkpointing).
    std::vector<Checkpointing> recomputation { Checkpointing::None, Checkpointing::Selective,
        Checkpointing::PerBlock };
    /// The shardings tried over the data-parallel ranks (DDP and ZeRO stages; those invalid with a
    /// pipeline are skipped).
    std::vector<Sharding> shardings { Sharding::None, Sharding::Zero1, Sharding::Zero2, Sharding::Zero3 };
    bool offloadOptimizer = false; ///< also try ZeRO-Offload of the optimizer state (with a sharding)
    /// The micro-batches tried (each one where the global batch splits into whole accumulation steps).
    std::vector<std::int64_t> microBatches { 1, 2, 4, 8, 16 };
    std::size_t listed = 10; ///< how many layouts to find, fastest first
};

/// One layout that fits.
struct ClusterLayout final
{
    /// The plan's settings with the layout: setup.parallel, setup.batch (the micro-batch),
    /// setup.accumulationSteps (the micro-batches per step), checkpointing. settings.appliedTo(plan)
    /// is the layout as a plan: evaluate() of it gives these figures.
    PlanSettings settings;
    /// The heaviest stage's estimate at the micro-batch (the whole model's without a pipeline): its
    /// held memory, its max batch (the reserved one).
    Estimate estimate;
    ReservedFigures reserved; ///< the heaviest stage's replayed figures at the micro-batch
    std::int64_t heaviestStage = 0; ///< from 0; 0 without a pipeline
    std::string heaviestStageText; ///< "Embedding + layers 0–9" (stageLayersText), empty without a pipeline
    /// The slowest stage's throughput with the pipeline bubble (as evaluate() gives it).
    ThroughputEstimate throughput;
    double bubbleFraction = 0; ///< pipelineBubbleFraction() of the layout
};

/// The cluster planner's answer.
struct ClusterPlan final
{
    std::vector<ClusterLayout> layouts; ///< fastest first
    std::size_t layoutsEnumerated = 0; ///< valid layouts of the search space (every micro-batch counted)
    std::size_t layoutsInvalid = 0; ///< combinations the set-up rules refuse (ZeRO-2/3 with a pipeline, ...)
    std::size_t layoutsExamined = 0; ///< layouts whose memory was worked out
    std::size_t layoutsNotFitting = 0; ///< some stage's tensors do not fit (the pruned ones included)
    /// Of those, not worked out one by one: the most memory-saving layout of their tensor x pipeline x
    /// chunks x context x expert split needs over 10 % more than the GPU.
    std::size_t layoutsPruned = 0;
    std::size_t layoutsReplayRejected = 0; ///< fitting by the tensors, not with the allocator's reserve
    /// Layouts never worked out: even their lower bound on the step time is above the last one listed.
    std::size_t layoutsSlower = 0;
    std::size_t analyses = 0; ///< distinct networks analysed (whole model and pipeline stages)
    std::size_t memoryModels = 0; ///< distinct step models built
    std::size_t replays = 0; ///< stages whose caching allocator was replayed
    /// What the search leaves out, one sentence each.
    std::vector<std::string> leftOut;
    /// When no layout fits: what was tried and how close the closest layout came.
    std::string nothingFits;
};

/// The layouts of request.gpus GPUs of base.gpu for base's network, precision, optimizer, LoRA and
/// sequence length: tensor parallel (divisors of the GPUs per node dividing every attention layer's
/// heads and key/value heads), pipeline parallel (up to pipelineLayerCount()), 1F1B and interleaved
/// 1F1B with 2 or 4 model chunks, context parallel (powers of two, sequence models only), expert
/// parallel (divisors of the experts, within a node, mixture-of-experts models only), the data-parallel
/// degree they leave, each micro-batch whose accumulation m = global / (micro-batch x data parallel) is
/// whole (and at least the pipeline depth), each recomputation mode and sharding allowed. Sequence
/// parallelism is on wherever tensor parallelism is. Returns the `request.listed` fastest whose
/// heaviest GPU fits with the allocator's reserve. Errors: a request out of range, a global batch no
/// layout splits into whole steps, a model the base plan cannot analyse.
[[nodiscard]] Result<ClusterPlan> planCluster(const Plan& base, const ClusterRequest& request);

} // namespace headroom

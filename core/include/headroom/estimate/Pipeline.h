#pragma once

// A pipeline-parallel plan worked out stage by stage (docs/multi-gpu.md, "Pipeline parallelism"): the
// model cut into stages (model/PipelineSplit.h), each stage's GPU simulated with the micro-batches its
// schedule keeps in flight (step/PipelineSchedule.h), the heaviest stage the plan's answer.

#include "headroom/estimate/Plan.h"
#include "headroom/model/PipelineSplit.h"
#include "headroom/step/PipelineSchedule.h"

#include <cstddef>
#include <string>
#include <vector>

namespace headroom {

/// "Embedding + layers 0–7", "Layers 8–15", "Layers 24–31 + head": the layers a stage holds, by the
/// pipeline layers' numbers (from 0, as Megatron-LM numbers them) and what goes with them.
[[nodiscard]] std::string stageLayersText(const Network& network, const PipelineStageSlice& slice);

/// The pipeline bubble's share of a step: idle time over busy time, (p - 1) / (v m) for GPipe, 1F1B and
/// interleaved 1F1B (Narayanan et al. 2021), a third of 1F1B's for ZB-H1 (Qi et al. 2023). 0 without a
/// pipeline.
[[nodiscard]] double pipelineBubbleFraction(const Parallelism& par, std::int64_t microBatches) noexcept;

/// What the stages of a cut receive and send: each stage's input (the network's on the first, else the
/// output of the layer the stage before ends on, as `whole`, the whole model's analysis, has it) and
/// its role (index, boundary bytes per sample; with interleaving every stage both receives and sends,
/// the largest boundary tensor standing for its chunks' exchanges). One entry per slice, in order.
struct StageBoundaries final
{
    std::vector<InputSpec> received;
    std::vector<PipelineStageRole> roles;
};
[[nodiscard]] Result<StageBoundaries> stageBoundaries(const Network& network, const Analysis& whole,
    const std::vector<PipelineStageSlice>& slices, bool interleaved);

/// Why a stage's GPU holds what it does, for the stages table and the peak: "Stage 1 of 4 keeps 4
/// micro-batches in flight (1F1B: p − s): besides the running one, 3 held at 1.20 GiB each (saved
/// activations and received input); at batch 2 it holds 38.2 GiB of 80.0 GiB." Empty for a stage without
/// an estimate (its error says why).
[[nodiscard]] std::string stageExplanation(const PipelineStageResult& stage, std::int64_t stages);

/// The stages of `plan` (whose pipeline-parallel degree is above 1) cut from `analysis`, the whole
/// model's analysis at the plan's sequence length, and each worked out: a PlanResult whose top-level
/// members are the heaviest stage's (the one with the smallest max batch; at equal max batches the one
/// holding the most at the plan's batch), with every stage in `stages`. An impossible cut (more stages
/// than layers, layer counts that do not add up) is the result's error.
[[nodiscard]] PlanResult evaluatePipeline(const Plan& plan, Analysis analysis);

/// reestimate() of every stage of a pipeline plan at settings' batch, and the heaviest chosen again.
void reestimatePipeline(PlanResult& result, const PlanSettings& settings);

} // namespace headroom

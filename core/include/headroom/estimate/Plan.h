#pragma once

// A training plan (the network and its settings) and the one pipeline that turns it into figures:
// analysis -> step model -> estimate and throughput. docs/architecture.md draws it.

#include "headroom/allocator/ReservedModel.h" // ReservedMaxBatch is held by value; ReservedModel itself only by pointer
#include "headroom/analysis/Analysis.h"
#include "headroom/estimate/Estimate.h"
#include "headroom/estimate/Throughput.h"
#include "headroom/model/Network.h"
#include "headroom/model/PipelineSplit.h"
#include "headroom/setup/GpuCatalog.h"
#include "headroom/setup/Precision.h"
#include "headroom/setup/Training.h"
#include "headroom/setup/TrainingSetup.h"
#include "headroom/step/PipelineSchedule.h"
#include "headroom/support/Error.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace headroom {

struct Plan;

/// Everything a plan sets besides the network: the precision, the strategies, the training set-up
/// and the GPU. What the GUI's set-up panels edit (one undo step per change), what the planner
/// chooses for each set-up it lists, and what `headroom` reads from its options. The GPU's memory is
/// gpu.memoryBytes and nowhere else.
struct PlanSettings
{
    Precision precision = Precision::Fp32;
    Checkpointing checkpointing = Checkpointing::None;
    AttentionImplementation attention = AttentionImplementation::Sdpa;
    LoraOptions lora;
    /// Overrides the length of a sequence model's input (tokens [T] or features [T, E]); empty = as in the
    /// model.
    std::optional<std::int64_t> sequenceLength;
    /// Mixture-of-experts routing imbalance (AnalysisOptions::moeImbalance): 1 = balanced.
    double moeImbalance = 1.0;
    TrainingSetup setup; ///< setup.batch is the micro-batch per GPU
    Gpu gpu;
    /// The max batch from PyTorch's caching allocator's reserved memory (ReservedModel), as every view
    /// shows it. Off: from the tensors alone (MemoryModel::maxBatch), which the hand-worked tests of the
    /// planner's search on budgets of a few kilobytes use (no allocator segment is that small).
    bool reservedModel = true;

    /// What the analysis depends on: precision, checkpointing, attention, LoRA, routing.
    [[nodiscard]] AnalysisOptions analysisOptions() const;
    /// `plan`'s network with these settings (a set-up the planner found for it, say).
    [[nodiscard]] Plan appliedTo(Plan plan) const;
    friend bool operator==(const PlanSettings&, const PlanSettings&) = default;
};

/// A training plan: the network and its settings. The settings are a base rather than a member so
/// that a plan reads as one thing (plan.setup.batch, plan.gpu) and its settings are a slice of it
/// (`const PlanSettings& s = plan;`): the GUI's undo steps and the planner's set-ups copy the
/// settings alone, never the network.
struct Plan final : PlanSettings
{
    Network network;

    friend bool operator==(const Plan&, const Plan&) = default;
};

/// What PyTorch's caching allocator reserves for a plan (ReservedModel over the step's allocation
/// trace, docs/memory-model.md "What the GPU reserves") and the largest batch that leaves: the max
/// batch every view shows. Per GPU.
struct ReservedFigures final
{
    /// Outside the allocator: the set-up's overhead (by default the CUDA context of the GPU).
    std::uint64_t overheadBytes = 0;
    /// cudaContextBytes() for the plan's GPU: the overhead's default, and where the figure comes from.
    std::uint64_t cudaContextBytes = 0;
    std::string cudaContextSource;
    /// What the allocator may reserve: the GPU's memory less the overhead.
    std::uint64_t capacityBytes = 0;
    /// The largest micro-batch whose first two steps the allocator can hold in capacityBytes, with
    /// its margin (ReservedModel::maxBatch).
    ReservedMaxBatch maxBatch;
    /// cuBLAS workspaces, all handles together (kept for the process).
    std::uint64_t cublasWorkspaceBytes = 0;
    /// At the plan's batch: the first two steps replayed under capacityBytes.
    std::int64_t batch = 0;
    bool fits = false; ///< no allocation failed under capacityBytes
    /// max_memory_reserved over the two steps: under the cap when they fit, else with memory to spare
    /// (what the allocator would need).
    std::uint64_t peakReservedBytes = 0;
    /// max_memory_allocated over the same replay: the tensors in their rounded blocks and the cuBLAS and
    /// cuDNN workspaces PyTorch's caching allocator holds for them at that moment.
    std::uint64_t peakAllocatedBytes = 0;
    /// Of peakAllocatedBytes: the cuBLAS and cuDNN workspaces (ReservedRun::peakAllocatedWorkspaces).
    std::uint64_t peakAllocatedWorkspaceBytes = 0;
    std::uint64_t cudnnWorkspaceBytes = 0; ///< the largest cuDNN convolution workspace at the batch
    bool expandableSegments = false; ///< replayed with expandable_segments:True (TrainingSetup)

    /// What the GPU holds at the reserved peak: the reserved bytes plus the overhead.
    [[nodiscard]] std::uint64_t peakWithOverheadBytes() const noexcept
    {
        return peakReservedBytes + overheadBytes;
    }
    /// Of peakAllocatedBytes: the tensors' blocks, without the workspaces.
    [[nodiscard]] std::uint64_t peakAllocatedTensorBytes() const noexcept
    {
        return peakAllocatedBytes - std::min(peakAllocatedBytes, peakAllocatedWorkspaceBytes);
    }
    /// Whether the figures at the batch come from a replay there (not on the GUI's slider tick, which
    /// keeps only the max batch: a replay always reserves something, the weights at least).
    [[nodiscard]] bool replayed() const noexcept { return peakReservedBytes > 0; }
};

struct PipelineStageResult; // below: it holds a PlanResult

/// A plan worked out. The analysis always; the step model, the estimate and the throughput when the
/// network and the set-up can be estimated. With pipeline parallelism, the heaviest stage's
/// (estimate/Pipeline.h), with every stage in `stages`.
struct PlanResult final
{
    Analysis analysis;
    /// The step simulation behind the estimate (its moments feed the "during one step" views);
    /// shared, so that a view that draws it later and a copy of the result cost no simulation.
    std::shared_ptr<const MemoryModel> memory;
    std::optional<Estimate> estimate;
    std::optional<Error> error; ///< why there is no estimate
    /// The throughput estimate at the plan's batch on its GPU, whenever there is a step model.
    std::optional<ThroughputEstimate> throughput;
    std::optional<Error> throughputError; ///< why there is none (the GPU has no figure for the precision)
    /// The allocation trace replayed through the caching allocator (built with the step model).
    std::shared_ptr<const ReservedModel> reserved;
    /// Whether the max batch search also looks for the batch at exactly the capacity
    /// (ReservedMaxBatch::unguarded): evaluate()'s `what`, kept for reestimate().
    MaxBatchSearch maxBatchSearch = MaxBatchSearch::WithUnguarded;
    /// Its figures on the plan's GPU and at its batch, whenever there is an estimate and a reserved
    /// model; the estimate's maxBatch and fits already take them into account.
    std::optional<ReservedFigures> reservedFigures;
    std::optional<Error> reservedError; ///< why there is no reserved model (max batch from tensors alone)
    /// Pipeline parallelism: every stage worked out, first to last (empty without a pipeline). The members
    /// above are then the heaviest stage's: its own network's analysis, its step model and figures.
    std::vector<PipelineStageResult> stages;
    std::size_t heaviestStage = 0; ///< the stage the members above are, when `stages` is not empty
    /// The whole model's analysis when `stages` is not empty (its parameters, its layers).
    std::shared_ptr<const Analysis> modelAnalysis;

    /// The whole model's analysis: `analysis`, or with a pipeline `modelAnalysis`.
    [[nodiscard]] const Analysis& wholeModel() const noexcept
    {
        return modelAnalysis ? *modelAnalysis : analysis;
    }
};

/// One stage of a pipeline-parallel plan worked out: what its GPU holds (estimate/Pipeline.h).
struct PipelineStageResult final
{
    PipelineStageSlice slice;
    HeldMicroBatches held; ///< the micro-batches in flight besides the running one, at the stage's peak
    PlanSettings settings; ///< the plan's, with setup.pipelineStage this stage's role
    PlanResult result; ///< the stage's own network analysed, its step model, estimate and reserved figures
};

/// What one set-up gives at its batch on its GPU, read off a step model already built.
struct SetupFigures final
{
    Estimate estimate;
    std::optional<ThroughputEstimate> throughput;
    std::optional<Error> throughputError; ///< why there is no throughput estimate
    std::optional<ReservedFigures> reserved; ///< when a reserved model was given
};

/// What a plan's settings lose when they move to another network (the GUI keeps the set-up when a model
/// is opened): the LoRA targets that name no Linear layer of it.
struct DroppedSettings final
{
    std::vector<std::string> loraTargets;

    [[nodiscard]] bool empty() const noexcept { return loraTargets.empty(); }
};

/// `settings` made to apply to `network`: each LoRA target that matches no Linear layer of it is
/// dropped (with none left, LoRA adapts every Linear layer but the head, as PEFT's all-linear does).
/// What was dropped is returned, for the user to be told.
[[nodiscard]] DroppedSettings keepWhatApplies(PlanSettings& settings, const Network& network);

/// The GPU's compute capability as far as its catalogue entry tells (its family's architecture);
/// Hopper's where nothing does (AMD, custom GPUs): its context and cuBLAS workspace are the largest.
[[nodiscard]] ComputeCapability computeCapabilityOf(const Gpu& gpu) noexcept;

/// The overhead a plan on `gpu` gets unless the user sets one: the CUDA context (cudaContextBytes()).
[[nodiscard]] std::uint64_t defaultOverheadBytes(const Gpu& gpu) noexcept;

/// Puts `settings` on `gpu`; an overhead at the old GPU's default follows to the new GPU's.
void moveToGpu(PlanSettings& settings, const Gpu& gpu);

/// The reserved model of `settings` on `analysis` (the cuBLAS workspace of settings.gpu's generation).
[[nodiscard]] Result<std::shared_ptr<const ReservedModel>> buildReservedModel(
    const Analysis& analysis, const PlanSettings& settings);

/// The reserved figures of `settings` on `model`: the max batch search under the GPU's memory less the
/// overhead (skipped when `known` has it for the same capacity) and one replay at the batch. `what`:
/// whether maxBatch.unguarded is searched too (MaxBatchSearch::AnswerOnly leaves it kNotSearched), and
/// whether the batch is replayed (MaxBatchSearch::MaxBatchOnly does not: its peaks are 0).
[[nodiscard]] ReservedFigures reservedFiguresOf(const ReservedModel& model, const PlanSettings& settings,
    const ReservedFigures* known = nullptr, MaxBatchSearch what = MaxBatchSearch::WithUnguarded);

/// The estimate with the reserved answer, the one notion of fitting and headroom every view shows: its
/// max batch no larger than the reserved one; a batch above it (or one the allocator cannot hold) does
/// not fit; what the GPU holds at the peak is the reserved peak plus the overhead (FitBasis::Reserved),
/// or, where `reserved` was not replayed at the batch, unknown (FitBasis::MaxBatchOnly).
void applyReserved(Estimate& estimate, const ReservedFigures& reserved, const TrainingSetup& setup);

// The pipeline runs at three speeds (docs/architecture.md): a network, precision or strategy edit
// re-analyses (evaluate(plan)); a set-up change rebuilds the step model on the same analysis
// (evaluate(settings, analysis)); a batch change only reads the model again (reestimate()).

/// analyze() of the plan's network at its sequence length, under `options` (the planner varies them;
/// an error from the sequence length is the analysis's error, with no rows).
[[nodiscard]] Analysis analyzePlan(const Plan& plan, const AnalysisOptions& options);

/// Analysis, step model, estimate and throughput: what `headroom estimate`, the GUI and the report show.
/// With pipeline parallelism, per stage (evaluatePipeline, estimate/Pipeline.h).
/// `what`: MaxBatchSearch::AnswerOnly where nothing shows the batch at exactly the capacity (`headroom
/// compare`), which spares its search; MaxBatchOnly where nothing shows the figures at the plan's batch
/// either (`headroom max-batch`), which spares that replay too.
[[nodiscard]] PlanResult evaluate(const Plan& plan, MaxBatchSearch what = MaxBatchSearch::WithUnguarded);

/// evaluate() on `analysis`, the plan's network already analysed under plan.analysisOptions() (a set-up
/// change: with a pipeline the stages are cut again, each analysed on its own).
[[nodiscard]] PlanResult evaluate(
    const Plan& plan, Analysis analysis, MaxBatchSearch what = MaxBatchSearch::WithUnguarded);

/// The step model, estimate and throughput for `settings` on `analysis`, an analysis of the same
/// network under settings.analysisOptions() (the set-up changed, the analysis did not).
[[nodiscard]] PlanResult evaluate(
    const PlanSettings& settings, Analysis analysis, MaxBatchSearch what = MaxBatchSearch::WithUnguarded);

/// The estimate and throughput at settings.setup.batch, read off result.memory (built for this
/// analysis and set-up but for the batch): a few multiplications and the roofline, every slider
/// tick. The analysis and the step model stay as they are; without a step model only the error does.
void reestimate(PlanResult& result, const PlanSettings& settings);

/// The figures of `settings` on `model`, built for `analysis` and settings.setup (any batch): the
/// estimate on settings.gpu's memory and the throughput on its figures. Fails as estimate() does.
/// With `reserved` (built for the same analysis and set-up), the max batch is the reserved one (its
/// search skipped where `known` has it for the same capacity; `what` as reservedFiguresOf's).
[[nodiscard]] Result<SetupFigures> figuresOf(const Analysis& analysis, const MemoryModel& model,
    const PlanSettings& settings, const ReservedModel* reserved = nullptr,
    const ReservedFigures* known = nullptr, MaxBatchSearch what = MaxBatchSearch::WithUnguarded);

/// The set-up's "parallel" object of `headroom estimate --json` (docs/cli.md): every degree, the
/// schedule, the data-parallel degrees they leave.
[[nodiscard]] nlohmann::ordered_json parallelismToJson(const Parallelism& par);

/// The `headroom estimate --json` document (docs/cli.md describes every field).
[[nodiscard]] nlohmann::ordered_json planToJson(const Plan& plan, const PlanResult& result);

} // namespace headroom

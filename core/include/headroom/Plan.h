#pragma once

// A training plan (the network and its settings) and the one pipeline that turns it into figures:
// analysis -> step model -> estimate and throughput. docs/architecture.md draws it.

#include "headroom/Analysis.h"
#include "headroom/Error.h"
#include "headroom/Estimate.h"
#include "headroom/GpuCatalog.h"
#include "headroom/Network.h"
#include "headroom/Precision.h"
#include "headroom/Throughput.h"
#include "headroom/Training.h"
#include "headroom/TrainingSetup.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <memory>
#include <optional>

namespace headroom {

struct Plan;

/// Everything a plan sets besides the network: the precision, the strategies, the training set-up
/// and the GPU. What the GUI's set-up panels edit (one undo step per change), what the planner
/// chooses for each set-up it lists, and what `headroom` reads from its options. The GPU's memory is
/// gpu.memoryBytes and nowhere else.
struct PlanSettings {
    Precision precision = Precision::Fp32;
    Checkpointing checkpointing = Checkpointing::None;
    AttentionImplementation attention = AttentionImplementation::Sdpa;
    LoraOptions lora;
    /// Overrides the length of a sequence model's input (tokens [T] or features [T, E]); empty = as in the model.
    std::optional<std::int64_t> sequenceLength;
    /// Mixture-of-experts routing imbalance (AnalysisOptions::moeImbalance): 1 = balanced.
    double moeImbalance = 1.0;
    TrainingSetup setup; ///< setup.batch is the micro-batch per GPU
    Gpu gpu;

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
struct Plan final : PlanSettings {
    Network network;

    friend bool operator==(const Plan&, const Plan&) = default;
};

/// A plan worked out. The analysis always; the step model, the estimate and the throughput when the
/// network and the set-up can be estimated.
struct PlanResult final {
    Analysis analysis;
    /// The step simulation behind the estimate (its moments feed the "during one step" views);
    /// shared, so that a view that draws it later and a copy of the result cost no simulation.
    std::shared_ptr<const MemoryModel> memory;
    std::optional<Estimate> estimate;
    std::optional<Error> error; ///< why there is no estimate
    /// The throughput estimate at the plan's batch on its GPU, whenever there is a step model.
    std::optional<ThroughputEstimate> throughput;
    std::optional<Error> throughputError; ///< why there is none (the GPU has no figure for the precision)
};

/// What one set-up gives at its batch on its GPU, read off a step model already built.
struct SetupFigures final {
    Estimate estimate;
    std::optional<ThroughputEstimate> throughput;
    std::optional<Error> throughputError; ///< why there is no throughput estimate
};

// The pipeline runs at three speeds (docs/architecture.md): a network, precision or strategy edit
// re-analyses (evaluate(plan)); a set-up change rebuilds the step model on the same analysis
// (evaluate(settings, analysis)); a batch change only reads the model again (reestimate()).

/// analyze() of the plan's network at its sequence length, under `options` (the planner varies them;
/// an error from the sequence length is the analysis's error, with no rows).
[[nodiscard]] Analysis analyzePlan(const Plan& plan, const AnalysisOptions& options);

/// Analysis, step model, estimate and throughput: what `headroom estimate`, the GUI and the report show.
[[nodiscard]] PlanResult evaluate(const Plan& plan);

/// The step model, estimate and throughput for `settings` on `analysis`, an analysis of the same
/// network under settings.analysisOptions() (the set-up changed, the analysis did not).
[[nodiscard]] PlanResult evaluate(const PlanSettings& settings, Analysis analysis);

/// The estimate and throughput at settings.setup.batch, read off result.memory (built for this
/// analysis and set-up but for the batch): a few multiplications and the roofline, every slider
/// tick. The analysis and the step model stay as they are; without a step model only the error does.
void reestimate(PlanResult& result, const PlanSettings& settings);

/// The figures of `settings` on `model`, built for `analysis` and settings.setup (any batch): the
/// estimate on settings.gpu's memory and the throughput on its figures. Fails as estimate() does.
[[nodiscard]] Result<SetupFigures> figuresOf(const Analysis& analysis, const MemoryModel& model,
                                             const PlanSettings& settings);

/// The `headroom estimate --json` document (docs/cli.md describes every field).
[[nodiscard]] nlohmann::ordered_json planToJson(const Plan& plan, const PlanResult& result);

} // namespace headroom

#pragma once

#include "headroom/Analysis.h"
#include "headroom/Estimate.h"
#include "headroom/GpuCatalog.h"
#include "headroom/Network.h"
#include "headroom/Precision.h"

#include <nlohmann/json.hpp>

#include <optional>

namespace headroom {

/// Everything a memory plan is made of: the network, the precision and the training set-up on a GPU.
struct Plan final {
    Network network;
    Precision precision = Precision::Fp32;
    Checkpointing checkpointing = Checkpointing::None;
    AttentionImplementation attention = AttentionImplementation::Sdpa;
    LoraOptions lora;
    /// Overrides the length of a sequence model's input (tokens [T] or features [T, E]); empty = as in the model.
    std::optional<std::int64_t> sequenceLength;
    /// Mixture-of-experts routing imbalance (AnalysisOptions::moeImbalance): 1 = balanced.
    double moeImbalance = 1.0;
    TrainingSetup setup; ///< setup.gpuMemoryBytes is kept equal to gpu.memoryBytes
    Gpu gpu;

    [[nodiscard]] AnalysisOptions analysisOptions() const;
};

/// A plan worked out: the analysis always; the estimate when the network is valid.
struct PlanResult final {
    Analysis analysis;
    std::optional<Estimate> estimate;
    /// The step simulation behind the estimate (its moments feed the "during one step" views).
    std::optional<MemoryModel> memory;
    std::optional<Error> error; ///< why there is no estimate
};

/// analyze() of the plan's network at its sequence length, under `options` (the planner varies them; an
/// error from the sequence length is the analysis's error).
[[nodiscard]] Analysis analyzePlan(const Plan& plan, const AnalysisOptions& options);

/// analyze() + estimate(): what `headroom estimate`, the GUI and the report all show.
[[nodiscard]] PlanResult evaluate(const Plan& plan);

/// The `headroom estimate --json` document (docs/cli.md describes every field).
[[nodiscard]] nlohmann::ordered_json planToJson(const Plan& plan, const PlanResult& result);

} // namespace headroom

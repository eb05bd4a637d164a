#pragma once

// The training set-up saved in a model file: its optional top-level "training" object
// (docs/model-format.md, "The saved set-up"), read into PlanSettings and written from them.

#include "headroom/estimate/Plan.h"
#include "headroom/setup/GpuCatalog.h"
#include "headroom/support/Error.h"

#include <nlohmann/json.hpp>

namespace headroom {

/// The settings a model file's "training" object (ModelDocument::training) describes. A key left out
/// keeps Headroom's default (PlanSettings{}, the catalogue's default GPU, and as overhead that GPU's
/// CUDA context); a key that is not one of the set-up's, a value of the wrong type or out of range, a
/// GPU the catalogue does not know and a set-up validateSetup() refuses are errors whose message and
/// location start with the JSON path ("training.parallel.pipeline_parallel must be ...").
/// A "gpu" is a catalogue name (as `--gpu` takes it) or a custom GPU's object: its name and
/// memory_bytes, and optionally bandwidth_gbps, fp32_tflops, fp16_tflops, bf16_tflops and its links,
/// link_gbps and pcie_gen (Gpu::linkGBps and Gpu::pcieGeneration; 0 or left out: unknown).
[[nodiscard]] Result<PlanSettings> parseTrainingSetup(
    const nlohmann::json& training, const GpuCatalog& catalog);

/// The "training" object that parseTrainingSetup() reads back as `settings`: every key, in a fixed order
/// (the names of `headroom estimate --json`), defaults included, so that a file says the whole set-up.
/// Not written: what evaluate() sets (the pipeline stage's role) and PlanSettings::reservedModel.
[[nodiscard]] nlohmann::ordered_json trainingSetupToJson(const PlanSettings& settings);

} // namespace headroom

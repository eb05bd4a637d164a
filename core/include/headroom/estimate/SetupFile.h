#pragma once

// The training set-up saved in a model file: its optional top-level "training" object
// (docs/model-format.md, "The saved set-up"), read into PlanSettings and written from them.

#include "headroom/estimate/Plan.h"
#include "headroom/setup/GpuCatalog.h"
#include "headroom/support/Error.h"

#include <nlohmann/json.hpp>
#include <string>

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

/// What a custom GPU's object does with a key it does not know: a model file refuses it (a misspelt
/// figure must not pass unnoticed); the GUI's remembered GPUs ignore it, so that settings a later
/// Headroom wrote with a figure more still give this one the GPU and the figures it knows.
enum class UnknownGpuKeys { Refuse, Ignore };

/// A custom GPU's object, as a saved set-up's "gpu" holds it (above) and as the GUI remembers each of
/// the user's GPUs: "name" (1 to 200 characters) and "memory_bytes" (kMinCustomGpuGiB to
/// kMaxCustomGpuGiB) required; bandwidth_gbps, fp32_tflops, fp16_tflops, bf16_tflops and link_gbps from
/// 0 (unknown) to 1e9, pcie_gen from 0 (unknown) to 6, each 0 when left out. The Gpu is `custom`, its
/// vendor and family "Custom". Errors start with `path` ("customGpus[2].fp32_tflops must be ...").
[[nodiscard]] Result<Gpu> parseCustomGpu(
    const nlohmann::json& gpu, const std::string& path, UnknownGpuKeys unknown = UnknownGpuKeys::Refuse);

/// The object parseCustomGpu() reads back as `gpu`: its name and memory_bytes, then each figure above 0
/// (bandwidth_gbps, fp32_tflops, fp16_tflops, bf16_tflops, link_gbps, pcie_gen), in that order.
[[nodiscard]] nlohmann::ordered_json customGpuToJson(const Gpu& gpu);

/// The "training" object that parseTrainingSetup() reads back as `settings`: every key, in a fixed order
/// (the names of `headroom estimate --json`), defaults included, so that a file says the whole set-up.
/// Not written: what evaluate() sets (the pipeline stage's role) and PlanSettings::reservedModel.
[[nodiscard]] nlohmann::ordered_json trainingSetupToJson(const PlanSettings& settings);

} // namespace headroom

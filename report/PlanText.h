#pragma once

#include "headroom/estimate/Plan.h"
#include "headroom/estimate/Throughput.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace headroom::report {

/// Sentences and figures that `headroom estimate` and the PDF report both show for a plan's
/// training strategies, so the two say the same thing in the same words. Plain std::string in and
/// out, so the command line formats through them too; inside, the words go through
/// QCoreApplication::translate (Qt Core only), which gives English unless a language is installed
/// (the GUI installs the user's, the command line none).
namespace plantext {

/// The strategies that differ from the default (one GPU, no accumulation, checkpointing or LoRA,
/// SDPA attention, 32-bit optimizer state), as label/value rows in the order a reader needs them:
/// {"Accumulation", "8 steps"}, {"GPUs", "4 (2 data-parallel x 2 tensor-parallel), ZeRO stage 2"},
/// {"Checkpointing", "Per block"}, {"Calibration", calibrationText()}, ... Empty for a default plan.
[[nodiscard]] std::vector<std::pair<std::string, std::string>> strategyRows(const Plan& plan);

/// One pipeline stage as the stage tables of the GUI, `headroom estimate` and the PDF show it.
struct PipelineStageRow final
{
    std::string stage; ///< "1", from 1
    std::string layers; ///< stageLayersText(): "wte, wpe, drop, h.0–2"
    std::string params; ///< "38,597,376"
    std::string inFlight; ///< micro-batches in flight at the stage's peak: "4", "4.5"
    std::string peak; ///< the tensors' peak
    std::string held; ///< what the GPU holds at the peak (reserved peak + overhead); "–" where unknown
    std::string maxBatch;
    std::string fits; ///< "yes", "no"; "–" without an estimate
    bool heaviest = false; ///< the stage whose figures are the plan's
    std::string error; ///< why the stage has no estimate; empty otherwise
    /// Why the stage's GPU holds what it does (stageExplanation(): its schedule's micro-batches in flight,
    /// what each held one costs, its max batch); empty without an estimate.
    std::string explanation;
};
/// The stage tables' column titles, in PipelineStageRow's order.
[[nodiscard]] std::vector<std::string> pipelineStageHeaders();
/// Every stage of `result` (empty without a pipeline), first to last.
[[nodiscard]] std::vector<PipelineStageRow> pipelineStageRows(const Plan& plan, const PlanResult& result);
/// "Stage 2 of 4 (heaviest)": what the memory figures of a pipeline plan are; empty without one.
[[nodiscard]] std::string heaviestStageText(const PlanResult& result);
/// Micro-batches in flight: whole numbers as such, fractions (interleaving) with one decimal: "4", "4.5".
[[nodiscard]] std::string inFlightText(double inFlight);

/// "296 = 37 x 8 steps x 1 GPU": a micro-batch times the accumulation steps times the
/// data-parallel GPUs (replicas when tensor parallelism groups GPUs). `grouped`: thousands separated
/// ("224,768 = 7,024 x 8 steps x 4 GPUs"), for prose; plain integers for the command line.
[[nodiscard]] std::string effectiveBatchText(
    std::int64_t microBatch, const TrainingSetup& setup, bool grouped = false);
/// A calibration's terms and where they came from, for the "Calibration" row: "100 MiB fixed + 3.00 MiB per
/// sample (measured at batch 8 in run.pickle)".
[[nodiscard]] std::string calibrationText(const RunCalibration& calibration);
/// True when the effective batch differs from the micro-batch (accumulation or data parallelism).
[[nodiscard]] bool hasEffectiveBatch(const TrainingSetup& setup);

/// "Checkpointing (per block) saves 1.20 GiB of activations (63.0 %) for +33.3 % forward compute",
/// at `batch`; empty when checkpointing is off.
[[nodiscard]] std::optional<std::string> checkpointingSavingsText(
    const Plan& plan, const Analysis& analysis, std::int64_t batch);
/// "LoRA adds 294,912 adapter parameters: 294,912 of 124,734,720 parameters train (0.24 %)"; empty
/// when LoRA is off.
[[nodiscard]] std::optional<std::string> loraText(const Plan& plan, const Analysis& analysis);
/// "The optimizer step needs 17.9 GiB, more than the breakdown's 15.2 GiB: ..." when DeepSpeed ZeRO's
/// step (its float32 gradient partition) is the peak, which the fit and the max batch then use; empty
/// otherwise.
/// Where one training step peaks: "The peak is in the backward pass, at layer 29 (features.28)".
[[nodiscard]] std::string peakText(const Estimate& estimate);

/// `value` to `digits` significant digits, without trailing zeros after the point: every figure
/// the GUI, the report and the command line round ("0.598", "41.2", "412").
[[nodiscard]] std::string significant(double value, int digits);
/// "412 ms", "1.85 s", "3.2 min", "85 us".
[[nodiscard]] std::string formatSeconds(double seconds);
/// A rate or any positive figure to three significant digits with thousands separated: "1,234",
/// "56.7", "0.123".
[[nodiscard]] std::string formatRate(double perSecond);
/// Floating-point operations with a decimal prefix: "1.82 GFLOP", "3.12 TFLOP".
[[nodiscard]] std::string formatFlops(double flops);
/// "40 %", "37.5 %".
[[nodiscard]] std::string formatFraction(double fraction);
/// `part` as a share of `whole`, one decimal: "0.1 %", "63.0 %" (every share the GUI and the report
/// print: the trainable parameters, checkpointing's saving and its extra compute).
[[nodiscard]] std::string percentText(double part, double whole);

} // namespace plantext
} // namespace headroom::report

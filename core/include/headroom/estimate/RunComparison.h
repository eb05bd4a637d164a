#pragma once

// A plan beside a measured run (issue 36): the predicted and measured memory of one step on one x axis
// with the phases lined up, the peaks per phase and per component, the run's blocks attributed to the
// plan's components and layers by lifetime and size, the set-up differences, and what the run proposes
// to calibrate the plan with. docs/run-comparison.md.

#include "headroom/allocator/ReservedModel.h"
#include "headroom/estimate/Plan.h"
#include "headroom/measured/MeasuredRun.h"
#include "headroom/setup/Precision.h"
#include "headroom/step/AllocationTrace.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace headroom {

/// What the user says about the run: its micro-batch and precision where known (the file does not tell
/// them); the plan's are assumed otherwise, and the comparison says so.
struct RunContext final
{
    std::optional<std::int64_t> batch;
    std::optional<Precision> precision;
    /// The run's name for the calibration's source ("run.pickle"); empty: "the measured run".
    std::string source;
};

/// The parts a measured block is attributed to (the table's rows).
enum class RunComponent : std::uint8_t {
    Weights, ///< parameters and buffers (and DDP's buckets), alive from before the first step
    Gradients, ///< .grad, made in backward, kept into the optimizer step
    OptimizerState, ///< made by the first optimizer step and kept
    Activations, ///< made in forward and freed in backward, with the input batch and its labels
    Workspaces, ///< cuBLAS and cuDNN workspaces
    /// made and freed inside a step: scratch, activation gradients, optimizer temporaries, and the
    /// communication buffers operations make (ZeRO-3's gathered layers, the context-parallel ring, the
    /// expert dispatch)
    Temporaries,
    Unattributed, ///< no tensor of the plan has its lifetime and size
};
inline constexpr std::size_t kRunComponents = 7;
[[nodiscard]] std::string_view runComponentName(RunComponent c) noexcept; ///< "optimizer_state"
[[nodiscard]] std::string_view runComponentLabel(RunComponent c) noexcept; ///< "Optimizer state"
/// The component a trace tensor of `kind` counts under (`madeInStep`: made after set-up, inside a training
/// step). Communication buffers made before the first step (DDP's gradient buckets, a pipeline stage's
/// send/receive buffers) are kept with the model and count with the weights; those an operation makes inside
/// a step (the sequence-parallel all-gather, the context-parallel ring, the expert dispatch, ZeRO-3's
/// gathered parameters) are freed within it and count as temporaries.
[[nodiscard]] RunComponent runComponentOf(TraceKind kind, bool madeInStep = false) noexcept;

/// Bytes per component, indexed by RunComponent.
using ComponentBytes = std::array<std::uint64_t, kRunComponents>;

/// measured - predicted without overflow: its size and sign, and relative to the prediction.
struct ByteDifference final
{
    std::uint64_t bytes = 0; ///< |measured - predicted|
    bool measuredAbove = false; ///< measured > predicted
    double percent = 0.0; ///< signed, of predicted (0 where predicted is 0)
    [[nodiscard]] double signedBytes() const noexcept
    {
        return measuredAbove ? static_cast<double>(bytes) : -static_cast<double>(bytes);
    }
};
[[nodiscard]] ByteDifference byteDifference(std::uint64_t predicted, std::uint64_t measured) noexcept;

/// A point of a curve on the common x axis: forward spans [0, 1), backward [1, 2), the optimizer step
/// [2, 3); inside a phase a point sits at its event's fraction of the phase's events.
struct CurvePoint final
{
    double x = 0.0;
    std::uint64_t allocated = 0;
    std::uint64_t reserved = 0;
};

struct CurvePeak final
{
    bool found = false; ///< the curve has points
    std::uint64_t bytes = 0;
    double x = 0.0;
    RunPhase phase = RunPhase::Forward;
};

struct AlignedCurve final
{
    std::vector<CurvePoint> points;
    CurvePeak peakAllocated;
    CurvePeak peakReserved; ///< found only where the curve has reserved bytes
};

/// One training step, predicted and measured, on the common x axis.
struct AlignedStep final
{
    bool firstStep = false; ///< the run's first step (it creates the optimizer state), else a steady one
    std::size_t measuredStep = 0; ///< index in MeasuredRun::steps
    AlignedCurve predicted; ///< the reserved model's replay of the plan's trace at the run's batch
    AlignedCurve measured; ///< the run's samples over the step's phases
    bool measuredReserved = true; ///< the run tells reserved bytes (MeasuredRun::hasReserved)
};

/// One phase of the compared step: the peaks predicted and measured.
struct PhaseComparison final
{
    RunPhase phase = RunPhase::Forward;
    bool measuredFound = false; ///< the run's step has this phase
    std::uint64_t predictedAllocated = 0;
    std::uint64_t measuredAllocated = 0;
    ByteDifference allocatedDifference;
    std::uint64_t predictedReserved = 0;
    std::uint64_t measuredReserved = 0; ///< 0 where the run does not tell reserved bytes
    ByteDifference reservedDifference;
};

/// How a measured block lived, relative to the run's steps and phases.
enum class BlockLifetime : std::uint8_t {
    Persistent, ///< alive from before the first step (or the trace) and not freed inside a step
    OptimizerStateLike, ///< made in the first step's optimizer step and kept
    GradientLike, ///< made in backward, kept into the optimizer step (freed at zero_grad or later)
    ActivationLike, ///< made in forward, freed in the same step's backward
    WithinPhase, ///< made and freed inside one phase
    BetweenSteps, ///< made outside every found phase (the next batch, loaded between steps)
    Other, ///< any other lifetime (made in forward and kept past backward, ...)
};
[[nodiscard]] std::string_view blockLifetimeName(BlockLifetime l) noexcept; ///< "gradient_like"

/// A measured block and what it was attributed to.
struct AttributedBlock final
{
    std::size_t block = 0; ///< index in MeasuredRun::blocks
    std::uint64_t bytes = 0; ///< its size
    BlockLifetime lifetime = BlockLifetime::Other;
    RunComponent component = RunComponent::Unattributed;
    /// The plan's tensor it matched by size (its kind and layer); kNoTraceRow / "" where none or the
    /// tensor has no layer (the batch, a workspace).
    TraceKind planKind = TraceKind::Activation;
    std::uint32_t row = kNoTraceRow; ///< Analysis::rows index
    std::string layer;
};

/// How many of the unattributed blocks, the largest, get their frame and sentence (a run of a million
/// blocks may leave most of them unattributed; the views list the largest).
inline constexpr std::size_t kUnattributedDescribed = 1000;

/// A block no tensor of the plan accounts for, with where it was made and how long it lived.
struct UnattributedBlock final
{
    std::size_t block = 0; ///< index in MeasuredRun::blocks
    std::uint64_t bytes = 0;
    BlockLifetime lifetime = BlockLifetime::Other;
    /// The innermost frame of the user's code (empty filename where the run has none). Frame and sentence
    /// are filled for the largest kUnattributedDescribed blocks (and the calibration's), empty beyond.
    RunFrame frame;
    bool aliveAtPeak = false; ///< alive at the measured step's allocated peak
    /// "1.50 GiB allocated at model.py:123 in forward, kept until backward: no matching tensor in the plan"
    std::string sentence;
};

/// What the run proposes to add to the plan: what it could not know (fixed costs outside the model, the
/// run's excess per sample), as RunCalibration carries it.
struct CalibrationProposal final
{
    bool available = false; ///< the run had a steady step to read it from
    std::uint64_t fixedBytes = 0;
    std::uint64_t perSampleBytes = 0;
    std::int64_t measuredBatch = 0;
    std::string source;
    /// How the figures were read, with the numbers.
    std::string reasoning;
};

struct RunComparison final
{
    /// The set-up compared: the run's batch and precision, or the plan's where the context has none.
    std::int64_t batch = 0;
    bool batchAssumed = false; ///< the plan's batch, the run's unknown
    Precision precision = Precision::Fp32;
    bool precisionAssumed = false;

    /// The steady step (the plan's second) beside a steady measured one (the one with every phase found),
    /// and the first beside the run's first where it has both. A run with only its first step has it in
    /// `steady` (firstStep true, beside the plan's first); a run without steps has neither.
    std::optional<AlignedStep> steady;
    std::optional<AlignedStep> first;

    /// The compared step's phases: forward, backward, optimizer step (empty without a measured step).
    std::vector<PhaseComparison> phases;
    /// The compared step's peaks (allocated: max_memory_allocated; reserved).
    std::uint64_t predictedPeakAllocated = 0;
    std::uint64_t measuredPeakAllocated = 0;
    ByteDifference peakAllocatedDifference;
    std::uint64_t predictedPeakReserved = 0;
    std::uint64_t measuredPeakReserved = 0;
    ByteDifference peakReservedDifference;

    /// By component: the measured blocks alive at the measured allocated peak (measuredComponentsFound
    /// false where the run has no blocks or categories), the plan's blocks alive at its allocated peak as the
    /// replay holds them (a calibrated plan's calibration block under Unattributed).
    bool measuredComponentsFound = false;
    ComponentBytes measuredComponents {};
    ComponentBytes predictedComponents {};
    std::size_t measuredPeakSample = 0; ///< MeasuredRun::samples index of the measured peak compared

    /// Every block of the run (MeasuredRun::blocks order) with its attribution.
    std::vector<AttributedBlock> attribution;
    /// The unattributed ones, largest first.
    std::vector<UnattributedBlock> unattributed;

    /// Where the run's set-up differs from the plan's, a sentence each.
    std::vector<std::string> setupDifferences;
    CalibrationProposal calibration;
    /// What could not be compared and why.
    std::vector<std::string> notes;
};

/// The plan (evaluated into `result`) beside the run: at the run's batch (a replay of the plan's trace
/// there, under the plan's GPU memory less its overhead), in the run's precision (the plan evaluated again
/// where it differs) and with the allocator settings the snapshot records (expandable segments,
/// max_split_size_mb, ...: the reserved model built again where they differ). A run without steps or
/// absolute bytes compares what it can and says what it could not in `notes`.
[[nodiscard]] RunComparison compareRun(
    const MeasuredRun& run, const Plan& plan, const PlanResult& result, const RunContext& context);

/// `plan` with the proposal as its calibration (TrainingSetup::calibration), terms capped at what a
/// set-up accepts (kMaxCalibrationBytes, kMaxCalibrationPerSampleBytes). Undo: the plan before it.
[[nodiscard]] Plan calibratedPlan(const Plan& plan, const CalibrationProposal& proposal);

/// The calibrated plan worked out, and its max batch beside the plan's.
struct CalibratedMaxBatch final
{
    Plan plan; ///< calibratedPlan(plan, proposal)
    PlanResult result; ///< evaluated on the plan's analysis (a set-up change)
    std::int64_t before = 0; ///< the plan's max batch (result.estimate)
    std::int64_t after = 0; ///< the calibrated plan's
    std::string reasoning; ///< with the numbers
};
[[nodiscard]] CalibratedMaxBatch calibratedMaxBatch(
    const Plan& plan, const PlanResult& result, const CalibrationProposal& proposal);

/// The innermost frame of the user's code in `stack` (frames of PyTorch, the interpreter and C++ skipped,
/// as the unattributed blocks' frames are found); an empty filename where the run has none.
[[nodiscard]] RunFrame innermostUserFrame(const MeasuredRun& run, StackId stack);

/// The comparison as `headroom measured FILE --model MODEL --json` prints it (docs/run-comparison.md lists
/// the fields): the set-up compared, the peaks, the phases and components with their differences, the two
/// steps' peaks on the common axis (and their points with `withCurves`), the unattributed blocks, the set-up
/// differences, the calibration proposal and the notes.
[[nodiscard]] nlohmann::ordered_json runComparisonToJson(const RunComparison& c, bool withCurves = false);

} // namespace headroom

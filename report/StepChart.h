#pragma once

#include "headroom/allocator/ReservedModel.h"
#include "headroom/estimate/Estimate.h"

#include <QCoreApplication>
#include <QString>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace headroom::report {

/// Which training step a "during one step" chart shows.
enum class StepKind {
    Steady, ///< every step after the first: the optimizer state is alive throughout
    First, ///< the first step: no optimizer state until its optimizer step creates it
};

/// One moment of the step as the charts draw it: the core's StepMoment evaluated at the batch.
struct StepChartMoment final
{
    StepPhase phase = StepPhase::Forward;
    std::size_t row = 0; ///< Analysis::rows index of the layer running (not for the optimizer step)
    bool recomputing = false; ///< a checkpointed block's forward, run again inside backward
    bool endOfForward = false; ///< after the forward pass, before backward starts
    MemoryBreakdown bytes;
};

/// Where a step chart's reserved line comes from: the reserved model of the same analysis and set-up,
/// the capacity its replay is capped at, and the overhead outside the allocator (added to the line).
struct StepReservedSource final
{
    const ReservedModel* model = nullptr;
    std::uint64_t capacity = kNoLimit;
    std::uint64_t overhead = 0;
};

/// Live memory over one training step at one batch size, from the core's MemoryModel (the moments it
/// simulated, evaluated at the batch; nothing is worked out here): what the GUI's "During one step"
/// tab and the PDF report draw. With gradient accumulation it is the last micro-batch's forward and
/// backward (the accumulated gradients alive), then the optimizer step.
struct StepChart final
{
    Q_DECLARE_TR_FUNCTIONS(headroom::report::StepChart)

public:
    std::int64_t batch = 0;
    StepKind kind = StepKind::Steady;
    std::vector<StepChartMoment> moments; ///< the moments drawn, in the order they happen
    std::size_t peak = 0; ///< moments[] index of the core's peak
    std::size_t stepMoments = 0; ///< how many moments the step has (moments.size() unless thinned)
    /// What PyTorch's caching allocator holds reserved at each drawn moment (the most over the moments
    /// it stands for), plus the overhead: ReservedModel::reservedAtMoments. Empty where the allocator
    /// is not simulated.
    std::vector<std::uint64_t> reserved;
    /// The cuBLAS and cuDNN workspaces allocated at each drawn moment (the most over the moments it stands
    /// for), from the same replay: ReservedModel::workspacesAtMoments. PyTorch allocates them through its
    /// caching allocator, so torch.cuda.max_memory_allocated() counts them. Empty where `reserved` is.
    std::vector<std::uint64_t> workspaces;

    /// The allocated line at drawn moment k, on the stack's scale: the stack's total (the tensors and the
    /// overhead) plus the workspaces; without the overhead, what max_memory_allocated counts.
    [[nodiscard]] std::uint64_t allocatedAt(std::size_t k) const;
    /// The caption's sentence on the allocated line, naming the most the workspaces take; empty without it.
    [[nodiscard]] QString workspacesCaption() const;

    /// The step at `batch`. A step of more than `maxMoments` moments is thinned to the highest of each
    /// run of neighbours within one phase (only their totals are read), so every phase keeps its place
    /// and the peak is drawn at its height; a chart has no more pixels than that anyway.
    [[nodiscard]] static StepChart build(const MemoryModel& model, std::int64_t batch, StepKind kind,
        std::size_t maxMoments, const StepReservedSource& reserved = {});

    [[nodiscard]] bool empty() const noexcept { return moments.empty(); }
    [[nodiscard]] const StepChartMoment& peakMoment() const { return moments[peak]; }

    /// Where each moment's band starts on the x axis, and where the last ends: each moment one unit
    /// wide, the optimizer step (a single moment) a fifth of the axis, so it can be seen and labelled.
    [[nodiscard]] std::vector<double> bandStarts() const;
    /// A run of moments in one phase: moments[begin, end).
    struct PhaseRun
    {
        StepPhase phase = StepPhase::Forward;
        std::size_t begin = 0;
        std::size_t end = 0;
    };
    [[nodiscard]] std::vector<PhaseRun> phaseRuns() const;

    /// A phase's band label, translated: "Forward", "Backward", "Optimizer step".
    [[nodiscard]] static QString phaseName(StepPhase phase);
    /// Where a moment is, translated: "Backward, layer conv4_3 (recomputed)", "Optimizer step".
    [[nodiscard]] static QString momentName(const StepChartMoment& moment, const QString& layer);
    /// The peak's label: "Peak 5.62 GiB: backward, layer conv4_3".
    [[nodiscard]] QString peakText(const QString& layer) const;
    /// With gradient accumulation: which micro-batch the chart shows.
    [[nodiscard]] static QString accumulationNote(std::int64_t steps);
    /// One line for the report's caption: the batch, the peak's bytes, phase and layer.
    [[nodiscard]] QString caption(const QString& layer) const;
    /// The reserved line's sentence for the caption: its peak and why it is above the tensors; empty
    /// without it.
    [[nodiscard]] QString reservedCaption() const;

private:
    /// The moments of `step` drawn (each the highest of a run of neighbours in one phase, the peak's run
    /// as the peak): fills moments and peak, and each drawn moment's run [first, second) of `step`.
    std::vector<std::pair<std::size_t, std::size_t>> pick(
        const MemoryModel& model, const std::vector<std::size_t>& step, std::size_t maxMoments);
};

} // namespace headroom::report

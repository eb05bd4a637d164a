#pragma once

// Finding training steps and their phases in a measured run (MeasuredRun.h), shared by the readers of
// snapshots, memory timelines and Chrome traces. RunSteps.cpp documents the rules.

#include "headroom/measured/MeasuredRun.h"

#include <cstddef>
#include <functional>
#include <string_view>
#include <utility>
#include <vector>

namespace headroom::measured {

/// What an event says about the phase it ran in. None: it says nothing (a free, a segment event);
/// Untraced: an allocation without frames (autograd's device threads have no Python frames); Other:
/// Python frames outside the model, autograd and the optimizer (the data, the loss, the set-up).
/// StepStart: a Forward allocation where an annotation ("ProfilerStep#N") starts a step, which starts
/// one whatever came before (an optimizer that allocates nothing, plain SGD, leaves no optimizer phase
/// to end the step by).
enum class EventTag : std::uint8_t { None, Untraced, Other, Forward, Backward, Optimizer, StepStart };

/// The tag of an allocation made with this stack (innermost frame first, as PyTorch records it).
[[nodiscard]] EventTag tagOfStack(const std::vector<RunFrame>& stack);

inline constexpr std::size_t kNone = static_cast<std::size_t>(-1);

/// Steps from per-sample tags (frames or annotations): a step starts at a StepStart allocation, and at a
/// Forward (or Other) allocation after an optimizer phase, its backward at the first Backward allocation (or
/// the first untraced one after its last forward allocation, or after its allocated maximum), its optimizer
/// step at the first Optimizer allocation. Fills run.steps (without peaks); false when no step was found.
bool stepsFromTags(MeasuredRun& run, const std::vector<EventTag>& tags, PhaseSource source);

/// Where a step's backward and optimizer phases start, from what the reader knows beyond the curve (the
/// memory timeline's categories): kNone where it cannot tell.
struct PhaseHint
{
    std::size_t backward = kNone;
    std::size_t optimizer = kNone;
};
using PhaseHintFn = std::function<PhaseHint(std::size_t start, std::size_t end)>;

/// Steps from the allocated curve alone: cycles that rise to a peak and fall back (by at least half the
/// largest fall in the run); forward up to the step's maximum, backward after it, the optimizer from the
/// first rise after the lowest point that follows, or where `hint` tells. Fills run.steps (without
/// peaks).
void stepsFromPattern(MeasuredRun& run, const PhaseHintFn& hint);

/// record_function spans that tell phases ("ProfilerStep#N", "Optimizer.step#...",
/// "autograd::engine::evaluate_function: ..."), looked up by time in O(log n): a run can hold a span
/// per backward op.
class SpanIndex final
{
public:
    /// The tag a span of this name gives (Forward for a step span), or None.
    [[nodiscard]] static EventTag tagOfName(std::string_view name);
    void add(double begin, double end, EventTag tag);
    /// Sorts and merges; call once before the lookups.
    void finish();
    [[nodiscard]] bool tellsPhases() const noexcept { return !m_optimizer.empty() || !m_backward.empty(); }
    [[nodiscard]] bool hasSteps() const noexcept { return !m_steps.empty(); }
    /// Optimizer or Backward when `t` lies in such a span (the optimizer first), else None.
    [[nodiscard]] EventTag phaseAt(double t) const;
    /// The step span holding `t` (its index), or kNone.
    [[nodiscard]] std::size_t stepAt(double t) const;

private:
    using Interval = std::pair<double, double>;
    static void merge(std::vector<Interval>& v);
    static bool inside(const std::vector<Interval>& v, double t);
    std::vector<Interval> m_optimizer;
    std::vector<Interval> m_backward;
    std::vector<Interval> m_steps;
};

/// The run's peaks and fragmentation, and each step's and phase's peaks, from the samples.
void finishPeaks(MeasuredRun& run);

/// Marks step 0 first when its baseline grows by clearly more than the later steps' (the optimizer's
/// state created), where no better evidence marked it.
void markFirstByGrowth(MeasuredRun& run);

} // namespace headroom::measured

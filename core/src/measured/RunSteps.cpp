// Training steps and their phases found in a measured run.
//
// The rules, and where in PyTorch they come from:
// - Frames. The recorder keeps the stack of each allocation (torch/cuda/memory.py
//   _record_memory_history(context="all"|"alloc", stacks="python"|"all")), innermost frame first
//   (torch/cuda/_memory_viz.py prints frames[0] as the allocating call).
//   * optimizer step: a frame in torch/optim/ (Optimizer.step, _init_group creating exp_avg and
//     exp_avg_sq in the first step, the foreach/fused kernels' temporaries), another optimizer package
//     (apex/optimizers, bitsandbytes/optim, an ".../optim/..." path) or the AMP grad scaler
//     (torch/amp/grad_scaler.py: unscale_ and update run around optimizer.step).
//   * backward: torch/_tensor.py backward, torch/autograd/'s backward, grad and _engine_run_backward,
//     an autograd Function's or checkpoint's backward / unpack_hook / recompute_fn, and C++ frames of
//     torch::autograd::Engine (stacks="all"). Autograd runs a CUDA graph's backward on its device
//     worker thread (torch/csrc/autograd/engine.cpp, Engine::thread_main): those allocations have no
//     Python frames, so with stacks="python" an allocation without frames after the forward's last
//     allocation is taken as backward.
//     Not the rest of torch/autograd/: Function.apply (torch/autograd/function.py) runs every autograd
//     Function's *forward*, torch.compile's compiled forward included (torch/_functorch/_aot_autograd
//     wraps the graph in one), and grad_mode.py's decorate_context wraps any no_grad function.
//   * forward: a module called (torch/nn/modules/module.py Module._call_impl / _wrapped_call_impl) or
//     any function named forward (not other frames in torch/nn/modules/: model.cuda() allocates the
//     weights through Module._apply).
//   * other: Python frames elsewhere (the batch copied to the device, the loss, model set-up).
//   A step starts at the first forward allocation, and again at the first forward or other allocation
//   after an optimizer phase (or where a step annotation starts one, below); its backward starts at its first
//   backward allocation (else as above), its optimizer phase at its first optimizer allocation. Allocations
//   before the first step are BeforeSteps; a trace that starts inside a step skips to the next forward.
// - Annotations (record_function names: "ProfilerStep#N" spans from torch.profiler's schedule,
//   "Optimizer.step#Adam.step" from torch/optim/optimizer.py's profile_hook_step,
//   "autograd::engine::evaluate_function: ..." from the autograd engine) tag the events inside them the
//   same way; the first allocation in each ProfilerStep span starts a step even when no optimizer phase
//   ended the last one (plain SGD allocates nothing in its step). A snapshot's external_annotations hold only
//   USER_SCOPE record_functions (torch/csrc/cuda/memory_snapshot.cpp _initRecordAnnotations: {"name",
//   "stage": START/END}), so the step and optimizer spans but not the backward's; a Chrome trace has all
//   three.
// - Pattern, where neither is recorded: the allocated curve rises in the forward (activations kept for
//   backward) to the step's maximum and falls in the backward (activations freed as gradients are made),
//   the optimizer step adds only temporaries and, in the first step, its state. A step is a cycle from a
//   valley through a peak to the next valley, the rise and the fall each at least half the largest fall
//   in the run (peak detection with hysteresis, so that a layer's temporaries do not split a step); the
//   forward ends at the step's maximum (in a first step whose optimizer state makes the optimizer the
//   maximum, that is too late) and the optimizer starts at the first rise after the lowest
//   point between the maximum and the step's end (the backward has freed the activations; the
//   optimizer's temporaries, and in the first step its state, come next; zero_grad's frees end the
//   step). The memory timeline's categories tell better: backward from the first growth of GRADIENT,
//   the optimizer after its last growth.
#include "RunSteps.h"

#include <algorithm>
#include <iterator>
#include <limits>
#include <string>
#include <string_view>

namespace headroom::measured {

namespace run_steps {

bool contains(std::string_view s, std::string_view part)
{
    return s.find(part) != std::string_view::npos;
}

std::string normalised(std::string_view path)
{
    std::string p(path);
    std::replace(p.begin(), p.end(), '\\', '/');
    return p;
}

} // namespace run_steps

EventTag tagOfStack(const std::vector<RunFrame>& stack)
{
    using namespace run_steps;
    if (stack.empty())
        return EventTag::Untraced;
    bool optimizer = false;
    bool backward = false;
    bool forward = false;
    for (const RunFrame& f : stack) {
        const std::string file = normalised(f.filename);
        const std::string_view name = f.name;
        if (contains(file, "torch/optim/") || contains(file, "/optim/") || contains(file, "optimizers/")
            || contains(file, "grad_scaler.py"))
            optimizer = true;
        else if (name == "backward"
            || (contains(file, "torch/autograd/") && (name == "grad" || name == "_engine_run_backward"))
            || name == "unpack_hook" || name == "recompute_fn" || contains(name, "autograd::Engine")
            || contains(name, "evaluate_function"))
            backward = true;
        else if (name == "forward" || name == "_call_impl" || name == "_wrapped_call_impl")
            forward = true;
    }
    if (optimizer)
        return EventTag::Optimizer;
    if (backward)
        return EventTag::Backward;
    if (forward)
        return EventTag::Forward;
    return EventTag::Other;
}

namespace run_steps {

struct StepBounds
{
    std::size_t start = 0;
    std::size_t backward = kNone;
    std::size_t optimizer = kNone;
    std::size_t end = 0;
    PhaseSource backwardSource = PhaseSource::Frames;
};

std::size_t argmax(const std::vector<RunSample>& s, std::size_t from, std::size_t to)
{
    std::size_t best = from;
    for (std::size_t i = from; i < to; ++i) {
        if (s[i].allocated > s[best].allocated)
            best = i;
    }
    return best;
}
std::size_t argmin(const std::vector<RunSample>& s, std::size_t from, std::size_t to)
{
    std::size_t best = from;
    for (std::size_t i = from; i < to; ++i) {
        if (s[i].allocated < s[best].allocated)
            best = i;
    }
    return best;
}

void addPhases(MeasuredStep& step, const StepBounds& b, PhaseSource source)
{
    const std::size_t fwdEnd
        = b.backward != kNone ? b.backward : (b.optimizer != kNone ? b.optimizer : b.end);
    step.phases.push_back(MeasuredPhase { RunPhase::Forward, b.start, fwdEnd, 0, 0, source });
    if (b.backward != kNone) {
        const std::size_t bwdEnd = b.optimizer != kNone ? b.optimizer : b.end;
        if (bwdEnd > b.backward)
            step.phases.push_back(
                MeasuredPhase { RunPhase::Backward, b.backward, bwdEnd, 0, 0, b.backwardSource });
    }
    if (b.optimizer != kNone && b.end > b.optimizer)
        step.phases.push_back(MeasuredPhase { RunPhase::OptimizerStep, b.optimizer, b.end, 0, 0, source });
}

} // namespace run_steps

bool stepsFromTags(MeasuredRun& run, const std::vector<EventTag>& tags, PhaseSource source)
{
    using namespace run_steps;
    const auto& s = run.samples;
    std::vector<StepBounds> bounds;
    bool inStep = false;
    EventTag phase = EventTag::None;
    std::size_t lastForward = kNone; // the step's last forward (or other) allocation
    std::size_t firstUntracedAfterForward = kNone;
    auto close = [&](std::size_t end) {
        StepBounds& b = bounds.back();
        b.end = end;
        const std::size_t bwdLimit = b.optimizer != kNone ? b.optimizer : end;
        if (b.backward == kNone && firstUntracedAfterForward != kNone
            && firstUntracedAfterForward < bwdLimit) {
            b.backward = firstUntracedAfterForward;
        } else if (b.backward == kNone && (b.optimizer != kNone || source == PhaseSource::Annotations)) {
            // Nothing tells where backward began: after the allocated maximum before the optimizer (or,
            // in a step a ProfilerStep span delimits, before its end: an optimizer that allocates nothing,
            // in a trace without the autograd engine's spans, leaves no other mark).
            const std::size_t limit = b.optimizer != kNone ? b.optimizer : end;
            const std::size_t peak = limit > b.start ? argmax(s, b.start, limit) : limit;
            if (peak + 1 < limit) {
                b.backward = peak + 1;
                b.backwardSource = PhaseSource::Pattern;
            }
        }
    };
    for (std::size_t i = 0; i < tags.size() && i < s.size(); ++i) {
        const EventTag t = tags[i] == EventTag::StepStart && !inStep ? EventTag::Forward : tags[i];
        if (t == EventTag::None)
            continue;
        if (t == EventTag::StepStart) {
            close(i);
            bounds.push_back(StepBounds { i, kNone, kNone, s.size(), source });
            phase = EventTag::Forward;
            lastForward = i;
            firstUntracedAfterForward = kNone;
            continue;
        }
        if (!inStep) {
            if (t == EventTag::Forward) {
                bounds.push_back(StepBounds { i, kNone, kNone, s.size(), source });
                inStep = true;
                phase = EventTag::Forward;
                lastForward = i;
                firstUntracedAfterForward = kNone;
            }
            continue;
        }
        if (phase == EventTag::Optimizer && (t == EventTag::Forward || t == EventTag::Other)) {
            close(i);
            bounds.push_back(StepBounds { i, kNone, kNone, s.size(), source });
            phase = EventTag::Forward;
            lastForward = i;
            firstUntracedAfterForward = kNone;
            continue;
        }
        switch (t) {
        case EventTag::Forward:
        case EventTag::Other:
            if (phase == EventTag::Forward) {
                lastForward = i;
                firstUntracedAfterForward = kNone;
            }
            break;
        case EventTag::Untraced:
            if (phase == EventTag::Forward && firstUntracedAfterForward == kNone && lastForward != kNone)
                firstUntracedAfterForward = i;
            break;
        case EventTag::Backward:
            if (phase == EventTag::Forward) {
                bounds.back().backward = firstUntracedAfterForward != kNone ? firstUntracedAfterForward : i;
                phase = EventTag::Backward;
            }
            break;
        case EventTag::Optimizer:
            if (phase != EventTag::Optimizer) {
                bounds.back().optimizer = i;
                phase = EventTag::Optimizer;
            }
            break;
        case EventTag::None:
        case EventTag::StepStart:
            break;
        }
    }
    if (bounds.empty())
        return false;
    close(s.size());
    run.steps.clear();
    for (std::size_t k = 0; k < bounds.size(); ++k) {
        MeasuredStep step;
        step.index = k;
        step.firstSample = bounds[k].start;
        step.endSample = bounds[k].end;
        addPhases(step, bounds[k], source);
        run.steps.push_back(std::move(step));
    }
    return true;
}

void stepsFromPattern(MeasuredRun& run, const PhaseHintFn& hint)
{
    using namespace run_steps;
    const auto& s = run.samples;
    run.steps.clear();
    if (s.size() < 3)
        return;
    // Half the largest fall from a running maximum: the backward's, which frees the activations. (Not
    // the curve's range: the first step's optimizer state lifts the level that all later steps keep.)
    std::uint64_t largestFall = 0;
    std::uint64_t runningMax = 0;
    for (const RunSample& x : s) {
        runningMax = std::max(runningMax, x.allocated);
        largestFall = std::max(largestFall, runningMax - x.allocated);
    }
    if (largestFall == 0)
        return;
    const std::uint64_t delta = std::max<std::uint64_t>(largestFall / 2, 1);
    // Peak detection with hysteresis: a peak counts once the curve has fallen `delta` below it, a
    // valley once it has risen `delta` above it.
    std::vector<std::size_t> peaks;
    std::vector<std::size_t> valleys;
    // The last of equal minima: zero_grad(set_to_none=True) frees the gradients at the next step's
    // start, after the optimizer, which is where the step ends.
    auto lastArgmin = [&](std::size_t from, std::size_t to) {
        std::size_t best = from;
        for (std::size_t i = from; i < to; ++i) {
            if (s[i].allocated <= s[best].allocated)
                best = i;
        }
        return best;
    };
    std::size_t maxAt = 0;
    std::size_t minAt = 0;
    bool lookForMax = true;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (lookForMax) {
            if (s[i].allocated > s[maxAt].allocated)
                maxAt = i;
            if (s[i].allocated + delta <= s[maxAt].allocated) {
                if (peaks.empty())
                    valleys.push_back(lastArgmin(0, maxAt + 1));
                peaks.push_back(maxAt);
                minAt = i;
                lookForMax = false;
            }
        } else {
            if (s[i].allocated <= s[minAt].allocated)
                minAt = i;
            if (s[i].allocated >= s[minAt].allocated + delta) {
                valleys.push_back(minAt);
                maxAt = i;
                lookForMax = true;
            }
        }
    }
    if (peaks.empty())
        return;
    if (!lookForMax) // the curve fell after the last peak and stayed low
        valleys.push_back(lastArgmin(peaks.back(), s.size()));
    for (std::size_t k = 0; k < peaks.size() && k + 1 < valleys.size(); ++k) {
        StepBounds b;
        b.start = valleys[k] + 1;
        b.end = valleys[k + 1] + 1;
        const std::size_t peak = peaks[k];
        if (b.start >= b.end || peak < b.start)
            continue;
        b.backwardSource = PhaseSource::Pattern;
        const PhaseHint told = hint ? hint(b.start, b.end) : PhaseHint {};
        if (told.backward != kNone && told.backward > b.start && told.backward < b.end)
            b.backward = told.backward;
        else if (peak + 1 < b.end)
            b.backward = peak + 1;
        std::size_t opt = told.optimizer;
        if (opt == kNone && told.backward == kNone && peak + 2 < b.end) {
            // After the backward's last free the curve is at its lowest before the step's end; the
            // optimizer starts at the first rise after that (its temporaries, in the first step its
            // state).
            const std::size_t low = argmin(s, peak + 1, b.end - 1);
            for (std::size_t i = low + 1; i < b.end; ++i) {
                if (s[i].allocated > s[i - 1].allocated) {
                    opt = i;
                    break;
                }
            }
        }
        if (opt != kNone && opt > (b.backward != kNone ? b.backward : b.start) && opt < b.end)
            b.optimizer = opt;
        MeasuredStep step;
        step.index = run.steps.size();
        step.firstSample = b.start;
        step.endSample = b.end;
        addPhases(step, b, PhaseSource::Pattern);
        run.steps.push_back(std::move(step));
    }
}

EventTag SpanIndex::tagOfName(std::string_view name)
{
    if (name.starts_with("Optimizer.step#"))
        return EventTag::Optimizer;
    if (name.starts_with("autograd::engine::evaluate_function"))
        return EventTag::Backward;
    if (name.starts_with("ProfilerStep#"))
        return EventTag::Forward;
    return EventTag::None;
}

void SpanIndex::add(double begin, double end, EventTag tag)
{
    if (end < begin)
        return;
    if (tag == EventTag::Optimizer)
        m_optimizer.emplace_back(begin, end);
    else if (tag == EventTag::Backward)
        m_backward.emplace_back(begin, end);
    else if (tag == EventTag::Forward)
        m_steps.emplace_back(begin, end);
}

void SpanIndex::merge(std::vector<Interval>& v)
{
    std::sort(v.begin(), v.end());
    std::vector<Interval> merged;
    for (const Interval& i : v) {
        if (!merged.empty() && i.first <= merged.back().second)
            merged.back().second = std::max(merged.back().second, i.second);
        else
            merged.push_back(i);
    }
    v = std::move(merged);
}

void SpanIndex::finish()
{
    merge(m_optimizer);
    merge(m_backward);
    std::sort(m_steps.begin(), m_steps.end());
}

bool SpanIndex::inside(const std::vector<Interval>& v, double t)
{
    auto it = std::upper_bound(v.begin(), v.end(), Interval { t, std::numeric_limits<double>::infinity() });
    return it != v.begin() && t <= std::prev(it)->second;
}

EventTag SpanIndex::phaseAt(double t) const
{
    if (inside(m_optimizer, t))
        return EventTag::Optimizer;
    if (inside(m_backward, t))
        return EventTag::Backward;
    return EventTag::None;
}

std::size_t SpanIndex::stepAt(double t) const
{
    auto it = std::upper_bound(
        m_steps.begin(), m_steps.end(), Interval { t, std::numeric_limits<double>::infinity() });
    if (it == m_steps.begin() || t > std::prev(it)->second)
        return kNone;
    return static_cast<std::size_t>(std::prev(it) - m_steps.begin());
}

void finishPeaks(MeasuredRun& run)
{
    const auto& s = run.samples;
    run.peakAllocated = 0;
    run.peakReserved = 0;
    run.peakAllocatedSample = 0;
    run.peakReservedSample = 0;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i].allocated > run.peakAllocated) {
            run.peakAllocated = s[i].allocated;
            run.peakAllocatedSample = i;
        }
        if (s[i].reserved > run.peakReserved) {
            run.peakReserved = s[i].reserved;
            run.peakReservedSample = i;
        }
    }
    run.fragmentationAtPeak = 0.0;
    if (!s.empty() && run.hasReserved) {
        const RunSample& p = s[run.peakAllocatedSample];
        if (p.reserved > p.allocated)
            run.fragmentationAtPeak
                = static_cast<double>(p.reserved - p.allocated) / static_cast<double>(p.reserved);
    }
    auto peaksOver
        = [&](std::size_t from, std::size_t to, std::uint64_t& allocated, std::uint64_t& reserved) {
              allocated = 0;
              reserved = 0;
              for (std::size_t i = from; i < to && i < s.size(); ++i) {
                  allocated = std::max(allocated, s[i].allocated);
                  reserved = std::max(reserved, s[i].reserved);
              }
          };
    for (MeasuredStep& step : run.steps) {
        peaksOver(step.firstSample, step.endSample, step.peakAllocated, step.peakReserved);
        for (MeasuredPhase& phase : step.phases)
            peaksOver(phase.firstSample, phase.endSample, phase.peakAllocated, phase.peakReserved);
    }
}

void markFirstByGrowth(MeasuredRun& run)
{
    if (run.steps.size() < 2 || run.samples.empty())
        return;
    for (const MeasuredStep& step : run.steps) {
        if (step.first)
            return;
    }
    auto growth = [&](const MeasuredStep& step) {
        const auto before = step.firstSample > 0 ? run.samples[step.firstSample - 1].allocated
                                                 : run.samples.front().allocated;
        const auto after = run.samples[std::min(step.endSample, run.samples.size()) - 1].allocated;
        return static_cast<double>(after) - static_cast<double>(before);
    };
    double others = 0.0;
    for (std::size_t k = 1; k < run.steps.size(); ++k)
        others = std::max(others, growth(run.steps[k]));
    if (growth(run.steps[0]) > others + 0.02 * static_cast<double>(run.peakAllocated))
        run.steps[0].first = true;
}

} // namespace headroom::measured

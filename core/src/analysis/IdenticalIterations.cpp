// Stage: the identical-iteration jump (see IdenticalIterations.h).
#include "IdenticalIterations.h"

#include <algorithm>

namespace headroom::analysis {

namespace {

/// A count minus an earlier value of it (what was added since), overflow kept.
Count since(Count now, Count before)
{
    return now.isOverflow() || before.isOverflow() ? Count::overflowed()
                                                   : Count { now.value() - before.value() };
}

void addIterationNumbers(std::string_view text, std::set<std::int64_t>& out)
{
    std::size_t start = 0;
    while (start <= text.size()) {
        const std::size_t dot = std::min(text.find('.', start), text.size());
        const std::string_view part = text.substr(start, dot - start);
        if (!part.empty() && part.size() <= 18
            && std::all_of(part.begin(), part.end(), [](char c) { return c >= '0' && c <= '9'; }))
            out.insert(std::stoll(std::string(part)));
        start = dot + 1;
    }
}

void collectIterationNumbers(const std::vector<LayerSpec>& specs, std::set<std::int64_t>& out)
{
    for (const auto& spec : specs) {
        addIterationNumbers(spec.name, out);
        addIterationNumbers(spec.tiedTo, out);
        for (const auto& input : spec.inputs)
            addIterationNumbers(input, out);
        collectIterationNumbers(spec.children, out);
    }
}

} // namespace

Mark mark(AnalysisState& state)
{
    Mark m { state.result.rows.size(), state.step.sizes(), state.result.trainableTensorElements.size(), {} };
    const auto totals = state.totals.perIteration();
    for (std::size_t i = 0; i < totals.size(); ++i)
        m.totals[i] = *totals[i];
    return m;
}

std::set<std::int64_t> singledOutIterations(
    const std::vector<LayerSpec>& specs, const std::vector<std::string>& loraTargets)
{
    std::set<std::int64_t> out;
    collectIterationNumbers(specs, out);
    for (const auto& target : loraTargets)
        addIterationNumbers(target, out);
    return out;
}

// Iteration t's input equals the previous one's, so every later iteration is the same, except where
// something singles one out by its number: a name, a reference or a LoRA target ("b.7.fc"). Those,
// their neighbours and the last two iterations stay analysed, so that the iterations on either side
// of a hidden run behave as its members do (StepRepeat).
std::int64_t hiddenAfter(std::int64_t t, std::int64_t times, const std::optional<InputSignature>& previous,
    const InputSignature& input, const std::set<std::int64_t>& singledOut)
{
    const auto isSingledOut = [&](std::int64_t i) { return singledOut.contains(i); };
    if (t < 1 || previous != input || isSingledOut(t - 1) || isSingledOut(t) || isSingledOut(t + 1))
        return 0;
    std::int64_t next = times - 2; // the analysed iteration after the hidden ones
    if (const auto p = singledOut.upper_bound(t + 1); p != singledOut.end())
        next = std::min(next, *p - 1);
    return next > t + 1 ? next - t - 1 : 0;
}

void repeatSince(
    AnalysisState& state, const Mark& before, std::uint64_t hidden, std::size_t level, bool ownSegments)
{
    const Count times = Count { hidden } + Count { 1 };
    bool& overflow = state.totals.overflow;
    auto& rows = state.result.rows;
    for (std::size_t r = before.rows; r < rows.size(); ++r) {
        auto& row = rows[r];
        row.iterations[level].last += static_cast<std::int64_t>(hidden);
        const Count count = Count { row.count } * times;
        overflow = overflow || count.isOverflow();
        row.count = count.value();
    }
    state.step.multiplySince(before.step, times, ownSegments);
    auto& copies = state.result.trainableTensorCopies;
    for (std::size_t i = before.trainableTensors; i < copies.size(); ++i) {
        const Count c = Count { copies[i] } * times;
        overflow = overflow || c.isOverflow();
        copies[i] = c.value();
    }
    const auto now = state.totals.perIteration();
    for (std::size_t i = 0; i < now.size(); ++i)
        *now[i] += since(*now[i], before.totals[i]) * Count { hidden };
}

} // namespace headroom::analysis

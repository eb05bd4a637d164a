#include "planner/PlannerWork.h"

#include "analysis/Walk.h"
#include "headroom/support/Format.h"

#include <algorithm>
#include <climits>

namespace headroom {

std::string unconfirmedText(const PlannerWork& work, std::size_t confirmed, std::size_t fitting)
{
    const std::string layers = " (" + formatCount(work.writtenOutLayers)
        + " written-out layers a set-up; the plan replays " + formatCount(kPlannerReplayedLayers)
        + " layers)";
    if (fitting == 0)
        return "the caching allocator simulated only for the closest set-up" + layers;
    std::string text = "the caching allocator simulated for " + formatCount(confirmed) + " of the "
        + formatCount(fitting) + " set-ups the tensors' count lists, the ones it ranks first" + layers;
    const std::size_t rest = fitting - std::min(confirmed, fitting);
    if (rest > 0)
        text += "; the other " + formatCount(rest) + " " + (rest == 1 ? "is" : "are")
            + " not listed: a max batch from the tensors alone may be above what trains";
    return text;
}

PlannerWork boundPlannerWork(const Network& network, const Analysis& base, std::size_t choices,
    std::uint64_t setupsPerChoice, bool replay)
{
    PlannerWork work;
    const std::size_t described = analysis::describedLayers(network.layers);
    const std::size_t rows = std::max<std::size_t>(base.rows.size(), 1);
    // Each choice costs an analysis and its set-ups' step models, in proportion to the rows: in all at
    // most kPlannerRowsInAll rows, or the plan's own choice alone where one analysis has more. The search
    // then costs about what the analysis of the file does, and the analysis is bounded by the file's size
    // (analysis::kAnalysedPerDescribedLayer).
    const std::size_t allowedRows = kPlannerRowsInAll;
    work.choices = std::min(choices, std::max<std::size_t>(allowedRows / rows, 1));
    if (work.choices < choices)
        work.leftOut.push_back("only " + std::to_string(work.choices) + " of " + std::to_string(choices)
            + " precision, LoRA and checkpointing choices searched: each analysis has " + formatCount(rows)
            + " rows for the " + formatCount(described)
            + " layers the file describes, and the plan analyses at most "
            + formatCount(std::max(allowedRows, rows)) + " rows in all");
    // Layers once every block is written out, as StepTrace counts them (its bound refuses larger steps).
    std::uint64_t writtenOut = 0;
    for (const LayerRow& row : base.rows)
        writtenOut = std::min<std::uint64_t>(writtenOut + (row.type == "Repeat" ? 0 : row.count), UINT32_MAX);
    const std::uint64_t setups = static_cast<std::uint64_t>(work.choices) * setupsPerChoice;
    work.writtenOutLayers = writtenOut;
    work.replayAllocator = replay && writtenOut * setups <= kPlannerReplayedLayers;
    if (replay && !work.replayAllocator)
        work.confirmed = static_cast<std::size_t>(
            std::clamp<std::uint64_t>(kPlannerConfirmedLayers / std::max<std::uint64_t>(writtenOut, 1),
                kPlannerLeastConfirmed, kPlannerMostConfirmed));
    return work;
}

} // namespace headroom

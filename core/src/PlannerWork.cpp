#include "PlannerWork.h"

#include "analysis/Walk.h"
#include "headroom/Format.h"

#include <algorithm>
#include <climits>

namespace headroom {

PlannerWork boundPlannerWork(const Network& network, const Analysis& base, std::size_t choices,
    std::uint64_t setupsPerChoice, bool replay)
{
    PlannerWork work;
    const std::size_t described = analysis::describedLayers(network.layers);
    const std::size_t rows = std::max<std::size_t>(base.rows.size(), 1);
    const std::size_t allowedRows
        = std::max(kPlannerRowsWithoutRatio, choices * analysis::kAnalysedPerDescribedLayer * described);
    work.choices = std::min(choices, std::max<std::size_t>(allowedRows / rows, 1));
    if (work.choices < choices)
        work.leftOut.push_back("only " + std::to_string(work.choices) + " of " + std::to_string(choices)
            + " precision, LoRA and checkpointing choices searched: each analysis has " + formatCount(rows)
            + " rows for the " + formatCount(described)
            + " layers the file describes (nested Repeat blocks), and the plan analyses at most "
            + formatCount(allowedRows) + " rows in all");
    // Layers once every block is written out, as StepTrace counts them (its bound refuses larger steps).
    std::uint64_t writtenOut = 0;
    for (const LayerRow& row : base.rows)
        writtenOut = std::min<std::uint64_t>(writtenOut + (row.type == "Repeat" ? 0 : row.count), UINT32_MAX);
    const std::uint64_t setups = static_cast<std::uint64_t>(work.choices) * setupsPerChoice;
    work.replayAllocator = replay && writtenOut * setups <= kPlannerReplayedLayers;
    if (replay && !work.replayAllocator)
        work.leftOut.push_back("the caching allocator not simulated: " + formatCount(setups)
            + " set-ups or more of " + formatCount(writtenOut) + " written-out layers each pass the "
            + formatCount(kPlannerReplayedLayers)
            + " layers the plan replays; max batches count the tensors alone and may be a few percent "
              "above what trains");
    return work;
}

} // namespace headroom

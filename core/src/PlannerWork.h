#pragma once

// The planner's work, bounded (issue 26: no input under 1 MB may cost over a second; docs/planner.md,
// "Cost of the search"): how many analysis choices it searches and whether its set-ups replay the
// caching allocator.

#include "headroom/Analysis.h"
#include "headroom/Network.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace headroom {

/// Each analysis choice (precision, LoRA, checkpointing) analyses the network again, at about 35 µs a
/// row: the rows of all of them stay under this, or under the analysis's own bound per described
/// layer (analysis::kAnalysedPerDescribedLayer) for each choice, whichever is more, so only a network
/// whose nested Repeat blocks multiply its rows loses choices.
inline constexpr std::size_t kPlannerRowsWithoutRatio = 65'536;
/// Each set-up replays the caching allocator over the written-out step 5 to 20 times (7 to 50 µs a
/// written-out layer per set-up, measured on Llama-2-7B and on 12 nested blocks of 2): past this many
/// written-out layers times set-ups, the set-ups count the tensors alone, as `headroom estimate` does
/// past its own bound. GPT-2, BERT and Llama-2 plans stay below it.
inline constexpr std::uint64_t kPlannerReplayedLayers = 100'000;

/// What the search may do.
struct PlannerWork final
{
    std::size_t choices = 0; ///< the first this many analysis choices are searched
    bool replayAllocator = true; ///< the set-ups build the caching allocator's reserved model
    std::vector<std::string> leftOut; ///< what is left out, one sentence each (PlannerResult::leftOut)
};

/// The work for `choices` analysis choices of `network`, each like `base` (the plan's own analysis)
/// and each with about `setupsPerChoice` set-ups; `replay`: the plan asks for the reserved model.
[[nodiscard]] PlannerWork boundPlannerWork(const Network& network, const Analysis& base, std::size_t choices,
    std::uint64_t setupsPerChoice, bool replay);

} // namespace headroom

#pragma once

// The planner's work, bounded (issue 26: no input under 1 MB may cost over a second; docs/planner.md,
// "Cost of the search"): how many analysis choices it searches and whether its set-ups replay the
// caching allocator.

#include "headroom/analysis/Analysis.h"
#include "headroom/model/Network.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace headroom {

/// Each analysis choice (precision, LoRA, checkpointing) analyses the network again, at 3 to 35 µs a
/// row, and builds its set-ups' step models, in proportion to the rows: the rows of all of them stay
/// under this, or one analysis (the plan's own choice) where it has more. A network of up to 2,427 rows
/// (every preset, Hugging Face config and ONNX test model) keeps all 27 choices of a GTX 1080 with
/// everything allowed; a file of 25,000 layers or of 10,000 Repeat blocks keeps one or two (issue 38:
/// they took 7 to 58 s and up to 2.5 GB), and its plan costs about what its analysis does.
inline constexpr std::size_t kPlannerRowsInAll = 65'536;
/// Each set-up replays the caching allocator over the written-out step 5 to 20 times (7 to 50 µs a
/// written-out layer per set-up, measured on Llama-2-7B and on 12 nested blocks of 2): past this many
/// written-out layers times set-ups, the search counts the tensors alone and then replays the allocator
/// for the set-ups it ranks first (PlannerWork::confirmed). GPT-2, BERT and Llama-2 plans stay below it.
inline constexpr std::uint64_t kPlannerReplayedLayers = 100'000;

/// Past the replay budget the search ranks its set-ups by the tensors alone, then replays the caching
/// allocator for the set-ups it ranks first, so that every set-up it lists has the reserved-based max
/// batch `headroom max-batch` gives: this many written-out layers' worth of set-ups (about half a second
/// at 25 µs a layer per set-up, bench_planner), at least kPlannerLeastConfirmed and at most
/// kPlannerMostConfirmed (the ten set-ups `headroom plan` lists without --all).
inline constexpr std::uint64_t kPlannerConfirmedLayers = 20'000;
inline constexpr std::size_t kPlannerLeastConfirmed = 3;
inline constexpr std::size_t kPlannerMostConfirmed = 10;

/// What the search may do.
struct PlannerWork final
{
    std::size_t choices = 0; ///< the first this many analysis choices are searched
    bool replayAllocator = true; ///< every set-up searched builds the caching allocator's reserved model
    /// When the plan asks for the reserved model but replayAllocator is false: how many set-ups, in the
    /// order the tensors' search ranks them, replay the allocator afterwards (0 otherwise). Only those
    /// are listed.
    std::size_t confirmed = 0;
    std::uint64_t writtenOutLayers = 0; ///< of one set-up's step, every Repeat block written out
    std::vector<std::string> leftOut; ///< what is left out, one sentence each (PlannerResult::leftOut)
};

/// The work for `choices` analysis choices of `network`, each like `base` (the plan's own analysis)
/// and each with about `setupsPerChoice` set-ups; `replay`: the plan asks for the reserved model.
/// The Left out sentence of a search that replayed the allocator for `confirmed` of the `fitting` set-ups
/// the tensors' count lists (fit, reach the goal, not redundant; PlannerWork::confirmed).
[[nodiscard]] std::string unconfirmedText(
    const PlannerWork& work, std::size_t confirmed, std::size_t fitting);

[[nodiscard]] PlannerWork boundPlannerWork(const Network& network, const Analysis& base, std::size_t choices,
    std::uint64_t setupsPerChoice, bool replay);

} // namespace headroom

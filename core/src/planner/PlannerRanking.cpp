#include "planner/PlannerRanking.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace headroom {

namespace {

/// A speed as the tables show it, to 3 significant figures: the ranking's notion of "as fast". Set-ups
/// a thousandth apart (a larger micro-batch spreads the optimizer step over more samples) read the same
/// in every table and are well inside the estimate's accuracy: memory decides between them.
double shownSpeed(double samplesPerSecond)
{
    if (!(samplesPerSecond > 0) || !std::isfinite(samplesPerSecond))
        return 0;
    std::array<char, 32> text {};
    std::snprintf(text.data(), text.size(), "%.3g", samplesPerSecond);
    return std::strtod(text.data(), nullptr);
}

/// What the ranking weighs, each set-up's (docs/planner.md, "Ranking"): the estimate's speed, and at
/// equal speed what the estimate leaves out or does not price: changes to what training computes, the
/// communication the speed does not count, the memory held at the peak, the room left above the batch.
struct Criteria
{
    bool hasSpeed = false;
    double speed = 0; ///< samples per second per GPU, to 3 significant figures (shownSpeed())
    /// The changes to what training computes (precision, LoRA, 8-bit state, batch-norm statistics over
    /// micro-batches), sorted: the ranking counts them; a set-up that changes training in a way another
    /// does not is a choice of its own, never dropped for it.
    std::vector<std::pair<SetupSetting, std::string>> trainingChanges;
    /// At equal speed, the communication the estimate leaves out or prices only at peak bandwidth
    /// (Rajbhandari et al. 2020, §7; Ren et al. 2021): the optimizer state across PCIe every step (not
    /// timed), tensor parallelism's exchanges inside every layer and the 1.5 x volume of a stage that
    /// gathers the weights (ZeRO-3, FSDP FULL_SHARD), both in the step time (docs/throughput.md,
    /// "Communication").
    bool offload = false;
    std::int64_t tensorParallel = 1;
    bool gathersWeights = false;
    std::uint64_t heldBytes = 0; ///< what the GPU holds at the peak (the table's Memory)
    std::int64_t maxBatch = 0; ///< the largest micro-batch that fits (the table's Max batch)

    explicit Criteria(const PlanCandidate& c)
        : hasSpeed { c.throughput.has_value() }
        , speed { shownSpeed(c.samplesPerSecondPerGpu()) }
        , offload { c.settings.setup.parallel.offloadOptimizer }
        , tensorParallel { c.settings.setup.parallel.tensorParallel }
        , gathersWeights { shardingStage(c.settings.setup.parallel.sharding) >= 3 }
        , heldBytes { c.estimate.heldBytes }
        , maxBatch { c.estimate.maxBatch }
    {
        for (const SetupChange& x : c.changes) {
            if (x.changesTraining)
                trainingChanges.emplace_back(x.setting, x.value);
        }
        std::sort(trainingChanges.begin(), trainingChanges.end());
    }

    /// The ranking's key, compared in order: smaller ranks first.
    [[nodiscard]] auto key() const
    {
        return std::tuple { !hasSpeed, -speed, trainingChanges.size(), offload, tensorParallel,
            gathersWeights, heldBytes, -maxBatch };
    }

    /// Whether this set-up is at least as good as `o` in every respect the ranking weighs: then `o` is
    /// never ranked above it, and is not worth listing beside it.
    [[nodiscard]] bool noWorseThan(const Criteria& o) const
    {
        return (hasSpeed || !o.hasSpeed) && speed >= o.speed
            && std::includes(o.trainingChanges.begin(), o.trainingChanges.end(), trainingChanges.begin(),
                trainingChanges.end())
            && offload <= o.offload && tensorParallel <= o.tensorParallel
            && gathersWeights <= o.gathersWeights && heldBytes <= o.heldBytes && maxBatch >= o.maxBatch;
    }
};

void sortFastestFirst(std::vector<PlanCandidate>& candidates)
{
    // The key's order, then fewer changes, then the order of enumeration (the plan's own choices
    // first): between set-ups the key cannot tell apart, the one that changes less of the plan.
    std::stable_sort(
        candidates.begin(), candidates.end(), [](const PlanCandidate& a, const PlanCandidate& b) {
            const auto ka = Criteria(a).key();
            const auto kb = Criteria(b).key();
            if (ka != kb)
                return ka < kb;
            return a.changes.size() < b.changes.size();
        });
}

std::vector<PlanCandidate> withoutDominated(std::vector<PlanCandidate> candidates)
{
    // A set-up that a listed one matches or beats in every respect the ranking weighs is not listed
    // (fused where the optimizer step is never the peak; ZeRO-1 beside a ZeRO-2 that holds less; the same
    // figures under another name). This compares set-ups with each other, not with the plan they started
    // from, so applying a listed set-up lists the same ones again (issue 35).
    std::vector<PlanCandidate> kept;
    std::vector<Criteria> keptCriteria;
    for (auto& c : candidates) {
        const Criteria mine(c);
        const bool dominated = std::any_of(keptCriteria.begin(), keptCriteria.end(),
            [&](const Criteria& listed) { return listed.noWorseThan(mine); });
        if (!dominated) {
            keptCriteria.push_back(mine);
            kept.push_back(std::move(c));
        }
    }
    return kept;
}

void markParetoFront(std::vector<PlanCandidate>& candidates)
{
    // The Pareto front of memory against speed: no other listed set-up is at least as fast with less
    // memory, or faster with no more (speeds as the ranking compares them, to 3 significant figures).
    for (PlanCandidate& c : candidates) {
        const double mine = shownSpeed(c.samplesPerSecondPerGpu());
        c.paretoOptimal = std::none_of(candidates.begin(), candidates.end(), [&](const PlanCandidate& o) {
            const double speed = shownSpeed(o.samplesPerSecondPerGpu());
            const std::uint64_t peak = o.estimate.heldBytes;
            return speed >= mine && peak <= c.estimate.heldBytes
                && (speed > mine || peak < c.estimate.heldBytes);
        });
    }
}

} // namespace

bool closer(const PlanShortfall& a, const PlanShortfall& b)
{
    const auto distance = [](const PlanShortfall& s) {
        switch (s.kind) {
        case PlanShortfall::Kind::Memory:
            return static_cast<double>(s.bytesOver);
        case PlanShortfall::Kind::Batch:
            return static_cast<double>(s.batchShort);
        case PlanShortfall::Kind::StepTime:
            return s.secondsOver;
        }
        return 0.0;
    };
    return a.kind != b.kind ? a.kind > b.kind : distance(a) < distance(b);
}

std::vector<PlanCandidate> rankSetups(std::vector<PlanCandidate> candidates)
{
    sortFastestFirst(candidates);
    std::vector<PlanCandidate> kept = withoutDominated(std::move(candidates));
    markParetoFront(kept);
    return kept;
}

} // namespace headroom

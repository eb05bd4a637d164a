#include "planner/PlannerRanking.h"

#include "planner/SetupChanges.h"

#include <algorithm>
#include <tuple>

namespace headroom {

namespace {

void sortFastestFirst(std::vector<PlanCandidate>& candidates)
{
    // Fastest first; among equals fewer changes to training, then less of the communication the
    // estimate leaves out (no offload, less tensor parallelism, a lower ZeRO stage), fewer changes, less
    // memory, then the order of enumeration (the plan's own choices first).
    const auto trainingChanges = [](const PlanCandidate& c) {
        return std::count_if(
            c.changes.begin(), c.changes.end(), [](const SetupChange& x) { return x.changesTraining; });
    };
    const auto unmodelledTraffic = [](const PlanCandidate& c) {
        const Parallelism& p = c.settings.setup.parallel;
        return std::tuple { p.offloadOptimizer, p.tensorParallel, shardingStage(p.sharding) };
    };
    std::stable_sort(
        candidates.begin(), candidates.end(), [&](const PlanCandidate& a, const PlanCandidate& b) {
            if (a.throughput.has_value() != b.throughput.has_value())
                return a.throughput.has_value();
            if (a.samplesPerSecondPerGpu() != b.samplesPerSecondPerGpu())
                return a.samplesPerSecondPerGpu() > b.samplesPerSecondPerGpu();
            if (trainingChanges(a) != trainingChanges(b))
                return trainingChanges(a) < trainingChanges(b);
            if (unmodelledTraffic(a) != unmodelledTraffic(b))
                return unmodelledTraffic(a) < unmodelledTraffic(b);
            if (a.changes.size() != b.changes.size())
                return a.changes.size() < b.changes.size();
            return a.estimate.heldBytes < b.estimate.heldBytes;
        });
}

std::vector<PlanCandidate> withoutRedundant(std::vector<PlanCandidate> candidates)
{
    std::vector<PlanCandidate> kept;
    // A set-up whose extra changes buy neither memory nor speed over a listed one is not worth listing;
    // nor is one that only repeats a listed one's figures under another name (FSDP SHARD_GRAD_OP and ZeRO-2).
    const auto includes = [](const PlanCandidate& more, const PlanCandidate& fewer) {
        return std::all_of(fewer.changes.begin(), fewer.changes.end(), [&](const SetupChange& x) {
            return std::find(more.changes.begin(), more.changes.end(), x) != more.changes.end();
        });
    };
    for (auto& c : candidates) {
        const bool redundant = std::any_of(kept.begin(), kept.end(), [&](const PlanCandidate& listed) {
            const bool asFast = listed.samplesPerSecondPerGpu() >= c.samplesPerSecondPerGpu();
            const bool asSmall = listed.estimate.heldBytes <= c.estimate.heldBytes;
            if (!asFast || !asSmall)
                return false;
            if (includes(c, listed))
                return true;
            return listed.samplesPerSecondPerGpu() == c.samplesPerSecondPerGpu()
                && listed.estimate.heldBytes == c.estimate.heldBytes
                && listed.settings.precision == c.settings.precision
                && sameLora(listed.settings.lora, c.settings.lora)
                && listed.settings.setup.eightBitOptimizer == c.settings.setup.eightBitOptimizer
                && listed.settings.setup.batch == c.settings.setup.batch
                && listed.settings.setup.accumulationSteps == c.settings.setup.accumulationSteps
                && listed.changes.size() <= c.changes.size();
        });
        if (!redundant)
            kept.push_back(std::move(c));
    }
    return kept;
}

void markParetoFront(std::vector<PlanCandidate>& candidates)
{
    // The Pareto front of memory against speed: no other listed set-up is at least as fast with less
    // memory, or faster with no more.
    for (PlanCandidate& c : candidates) {
        c.paretoOptimal = std::none_of(candidates.begin(), candidates.end(), [&](const PlanCandidate& o) {
            const double speed = o.samplesPerSecondPerGpu();
            const std::uint64_t peak = o.estimate.heldBytes;
            return speed >= c.samplesPerSecondPerGpu() && peak <= c.estimate.heldBytes
                && (speed > c.samplesPerSecondPerGpu() || peak < c.estimate.heldBytes);
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

std::vector<PlanCandidate> rankCandidates(std::vector<PlanCandidate> candidates)
{
    sortFastestFirst(candidates);
    std::vector<PlanCandidate> kept = withoutRedundant(std::move(candidates));
    markParetoFront(kept);
    return kept;
}

} // namespace headroom

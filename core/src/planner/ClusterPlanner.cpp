#include "headroom/planner/ClusterPlanner.h"

#include "headroom/estimate/Pipeline.h"
#include "headroom/importers/HfConfig.h"
#include "headroom/model/DType.h"
#include "headroom/model/PipelineSplit.h"
#include "headroom/step/MemoryModel.h"
#include "headroom/step/PipelineSchedule.h"
#include "headroom/support/Count.h"
#include "headroom/support/Format.h"
#include "planner/PlannerWork.h"
#include "support/Parallel.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <numeric>
#include <optional>
#include <queue>
#include <tuple>
#include <utility>

namespace headroom {

namespace {
namespace cluster { // unity builds merge anonymous namespaces: these names stay apart from Planner.cpp's

/// Interleaved 1F1B's model chunks per stage tried (Megatron-LM's --num-layers-per-virtual-pipeline-stage
/// is usually set so that v is 2 to 4).
constexpr std::int64_t kVirtualStages[] = { 2, 4 };
/// The largest context-parallel degree tried (Megatron-Core and torchtitan run 2 to 16; beyond it the
/// ring's steps are too short to hide the key/value exchange).
constexpr std::int64_t kMaxContextParallel = 16;
/// A group of layouts (one tensor x pipeline x chunks x context x expert layout) whose most
/// memory-saving layout (the highest ZeRO stage searched, offload where allowed, per-block
/// recomputation, the smallest micro-batch) needs this much more than the GPU on some stage by the
/// tensors is not worked out layout by layout: its other layouts hold more.
constexpr double kGroupPruneFactor = 1.1;
/// The layouts whose step models are built together, in parallel, ahead of their examination.
constexpr std::size_t kChunk = 32;
/// Besides the stage whose tensors peak highest, the allocator is replayed for every other distinct
/// stage within this fraction of that peak: all of them. A stage's held micro-batches can reserve over
/// 5 % more than its tensors (Llama-2-7B's second stage of four with t = 2 reserves more than the first
/// with a tensors' peak 5 % lower: tst_clusterplanner), so no fraction is safe.
constexpr double kReplayWithin = 0.0;

/// What the network says about how it may be split.
struct ModelShape
{
    std::int64_t headsGcd = 0; ///< the gcd of every attention layer's heads and key/value heads (0: none)
    std::int64_t expertsGcd = 0; ///< the gcd of every mixture-of-experts layer's experts (0: none)
};

void readShape(const std::vector<LayerSpec>& layers, ModelShape& shape)
{
    const auto integer = [](const nlohmann::json& a, const char* key) -> std::optional<std::int64_t> {
        const auto it = a.find(key);
        if (it != a.end() && it->is_number_integer() && it->get<std::int64_t>() > 0)
            return it->get<std::int64_t>();
        return std::nullopt;
    };
    for (const LayerSpec& l : layers) {
        if (l.isRepeat()) {
            readShape(l.children, shape);
            continue;
        }
        if (!l.attributes.is_object())
            continue;
        if (const auto heads = integer(l.attributes, "num_heads")) {
            shape.headsGcd = std::gcd(shape.headsGcd, *heads);
            if (const auto kv = integer(l.attributes, "num_key_value_heads"))
                shape.headsGcd = std::gcd(shape.headsGcd, *kv);
        }
        if (l.type == "MixtureOfExperts") // num_experts defaults to 8 (MixtureOfExperts.cpp)
            shape.expertsGcd = std::gcd(shape.expertsGcd, integer(l.attributes, "num_experts").value_or(8));
    }
}

std::vector<std::int64_t> divisors(std::int64_t n)
{
    std::vector<std::int64_t> out;
    for (std::int64_t d = 1; d <= n; ++d)
        if (n % d == 0)
            out.push_back(d);
    return out;
}

/// A pipeline cut: the stages of (p, v) and the distinct stage networks among them.
struct Cut
{
    bool valid = false;
    std::vector<PipelineStageSlice> slices;
    std::vector<PipelineStageRole> roles; ///< per stage
    std::vector<std::size_t> network; ///< per stage: the index of its network in Search::m_nets
    /// The stages worked out: of the stages with the same network and the same boundary tensors, the
    /// first, which holds the most micro-batches in flight (1F1B: p - s - 1; interleaved: (p - s - 1) x 2
    /// + (v - 1) p chunk passes, both falling with s) and so the most memory, at the same step time.
    std::vector<std::size_t> representatives;
};

const std::vector<std::size_t>& stagesOf(const Cut* cut)
{
    static const std::vector<std::size_t> whole { 0 };
    return cut != nullptr ? cut->representatives : whole;
}

/// The i-th stage (a position in stagesOf()) of `stages` a split's most memory-saving layout checks: the
/// first stage (the most micro-batches in flight, the embedding), the last (the output head and the
/// loss), then the others.
std::size_t probeStage(std::size_t stages, std::size_t i)
{
    return i == 0 ? 0 : i == 1 ? stages - 1 : i - 1;
}

/// A stage network with its analyses per recomputation mode.
struct StageNet
{
    std::vector<std::int64_t> iterations;
    std::optional<std::size_t> receivesFrom;
    std::optional<std::size_t> sendsFrom;
    std::shared_ptr<const Network> network;
    std::map<Checkpointing, std::shared_ptr<const Analysis>> analyses;
};

/// One layout: the settings that need a step model of their own, and its micro-batch.
struct Layout
{
    Parallelism par;
    Checkpointing checkpointing = Checkpointing::None;
    std::int64_t microBatch = 1;
    std::int64_t accumulation = 1;
    double bound = 0; ///< lower bound on the step time
    std::size_t group = 0; ///< Search::m_groups index
};

/// The layouts of one tensor x pipeline x chunks x context x expert layout, and whether its most
/// memory-saving layout leaves them any chance.
struct Group
{
    std::optional<std::size_t> probe; ///< index into Search::m_probes: the most memory-saving layout
    int verdict = 0; ///< 0: not probed yet, 1: may fit, -1: pruned
    /// The order in which a layout's stages (positions in stagesOf()) are checked: the probe's heaviest
    /// by the tensors first, the stage most likely not to fit (empty: in stage order).
    std::vector<std::size_t> stageOrder;
};

/// A layout that does not fit by the tensors, as a candidate for the closest one (ClusterPlan::nothingFits):
/// how far over the GPU its heaviest stage is, known exactly or, where its stages were checked only up
/// to the first that does not fit, at least.
struct Unfit
{
    std::uint64_t over = 0;
    bool exact = false;
    std::string text; ///< parallelText() of the layout (exact ones)
    std::size_t layout = 0; ///< index into Search::m_layouts, or Search::m_probes (the others)
    bool probe = false; ///< a split's most memory-saving layout, its split pruned
};

/// Whether a layout's stages fit by the tensors.
enum class StagesFit { Fit, Unfit, Unknown };

/// A step model's identity: everything MemoryModel::build reads besides the analysis (it reads the
/// accumulation steps only through the held micro-batches and whether there are several).
struct ModelKey
{
    std::size_t net = 0;
    Checkpointing checkpointing = Checkpointing::None;
    std::int64_t tp = 1, pp = 1, v = 1, cp = 1, ep = 1, gpus = 1;
    int schedule = 0, sharding = 0;
    bool offload = false, sequenceParallel = false, accumulates = false;
    std::int64_t heldPasses = 0, chunks = 1;
    std::uint64_t received = 0, sent = 0;
    auto operator<=>(const ModelKey&) const = default;
};

/// A reserved model's identity: the step model's and the micro-batches its trace writes out (at most 3).
using ReservedKey = std::pair<ModelKey, std::int64_t>;

/// A reserved model and what is known of its max batch.
struct ReservedEntry
{
    std::shared_ptr<const ReservedModel> model; ///< null where it cannot be built
    ReservedFigures searched; ///< capacityBytes; maxBatch once searchedAll
    bool searchedAll = false;
    std::int64_t failsAt = kMaxBatch; ///< the smallest micro-batch known not to fit
    /// Finds whether `microBatch` can fit: a replay of the allocated bytes, then the max batch search.
    void search(std::int64_t microBatch);
    /// search(), then whether `microBatch` fits with the allocator.
    bool mayFit(std::int64_t microBatch)
    {
        search(microBatch);
        return model && searchedAll && searched.maxBatch.batch >= microBatch;
    }
};

struct Examined
{
    Layout layout;
    double stepSeconds = 0;
    ThroughputEstimate throughput; ///< the slowest stage's, with the bubble
    std::vector<std::pair<std::int64_t, ModelKey>> stages; ///< distinct stage models: (stage, key)
    std::vector<std::uint64_t> peaks; ///< per entry of `stages`: the tensors' peak at the micro-batch
    bool confirmed = false;
};

std::string parallelText(const Parallelism& par, Checkpointing c, std::int64_t mb, std::int64_t m)
{
    std::string t
        = "TP " + std::to_string(par.tensorParallel) + ", PP " + std::to_string(par.pipelineParallel);
    if (par.schedule == PipelineSchedule::Interleaved)
        t += " (interleaved x" + std::to_string(par.virtualStages) + ")";
    if (par.contextParallel > 1)
        t += ", CP " + std::to_string(par.contextParallel);
    if (par.expertParallel > 1)
        t += ", EP " + std::to_string(par.expertParallel);
    t += ", DP " + std::to_string(par.dataParallel()) + ", " + std::string(shardingLabel(par.sharding));
    if (par.offloadOptimizer)
        t += " with optimizer offload";
    t += ", recomputation " + std::string(checkpointingName(c)) + ", micro-batch " + std::to_string(mb)
        + " x " + std::to_string(m);
    return t;
}

std::string listText(const std::vector<std::int64_t>& values)
{
    std::string t;
    for (const std::int64_t v : values)
        t += (t.empty() ? "" : ", ") + std::to_string(v);
    return t.empty() ? "none" : t;
}

class Search final
{
public:
    Search(const Plan& base, const ClusterRequest& request)
        : m_base { base }
        , m_request { request }
    {
    }
    Result<ClusterPlan> run();

private:
    Result<bool> prepare();
    void enumerate();
    const Cut& cutFor(std::int64_t pp, std::int64_t v);
    const Analysis& analysisFor(std::size_t net, Checkpointing c);
    const MemoryModel* modelFor(const ModelKey& key, const TrainingSetup& setup, const Analysis& analysis);
    TrainingSetup setupOf(const Layout& l) const;
    /// Works out one layout's memory and step time by the tensors; false if some stage does not fit.
    bool examine(std::size_t index, Examined& out);
    /// Every stage of `l` in stage order as examine() works it out: Unfit with `over` the most a stage is
    /// over the GPU, Unknown where a stage cannot be modelled or timed.
    StagesFit workOutStages(const Layout& l, Examined& out, std::uint64_t& over);
    /// The stages of `l` in the group's order, up to the first that does not fit by the tensors (its
    /// excess over the GPU in `over`): the cheap answer for the many layouts that do not fit.
    StagesFit firstUnfitStage(const Layout& l, std::uint64_t& over);
    /// Whether stage position `k` (of stagesOf()) of `l` fits by the tensors (its model built if need be).
    StagesFit stageFits(const Layout& l, std::size_t k, std::uint64_t* over);
    /// The closest layout of m_unfit (the first of the least over the GPU, as found in order).
    [[nodiscard]] std::optional<std::pair<std::uint64_t, std::string>> closest();
    /// Builds, on the machine's cores, the step models that layouts [first, first + kChunk) and their
    /// splits' most memory-saving layouts need (once per chunk).
    void prebuildModels(std::size_t first);
    /// Works out whether the group's most memory-saving layout leaves its layouts a chance (once).
    void judge(Group& group);
    /// The most a stage of `l` holds by the tensors at its micro-batch (0 if it cannot be modelled).
    std::uint64_t heaviestPeak(const Layout& l);
    /// Whether the probe's stage i in probeStage() order holds over kGroupPruneFactor x the GPU by the
    /// tensors (its model built if need be; `peak` what it holds); nullopt where it cannot be modelled.
    std::optional<bool> probeStageOver(const Layout& probe, std::size_t i, std::uint64_t* peak);
    ModelKey keyOf(const Layout& l, const Cut* cut, std::size_t stage, TrainingSetup& stageSetup) const;
    double stageFlops(std::int64_t pp, std::int64_t v, Checkpointing c);
    /// The least communication any stage of `l` waits for in its micro-batches' passes (what compute never
    /// hides: tensor-parallel, pipeline, all-to-all exchanges, a ring's excess over the attention): with
    /// the slowest stage's compute, a lower bound on the step before the bubble.
    double communicationFloor(const Layout& l);
    /// The settings of stage `stage` of `l` (the whole model's without a pipeline).
    [[nodiscard]] PlanSettings stageSettings(const Layout& l, std::int64_t stage) const;
    /// The entries of e.stages whose allocator is replayed: one stage per stage network (the one holding
    /// the most), within kReplayWithin of the peak.
    [[nodiscard]] static std::vector<std::size_t> replayed(const Examined& e);
    /// The reserved models (and max batches) the candidates' replayed stages need, built in parallel.
    void buildReserved(const std::vector<const Examined*>& candidates);
    /// Replays the allocator for `e`'s heaviest stages; the layout with its figures when it fits.
    std::optional<ClusterLayout> confirm(const Examined& e);
    [[nodiscard]] std::string triedText() const;

    const Plan& m_base;
    ClusterRequest m_request;
    ClusterPlan m_result;
    Network m_network; ///< at the plan's sequence length
    std::map<Checkpointing, std::shared_ptr<const Analysis>> m_whole;
    std::map<Checkpointing, double> m_flopsPerSample; ///< forward + backward + recomputation
    double m_peakFlops = 0; ///< peak x utilisation, FLOP/s
    std::int64_t m_sequence = 0;
    ModelShape m_shape;
    std::int64_t m_pipelineLayers = 1;
    std::vector<Layout> m_layouts;
    std::vector<Checkpointing> m_sameAsNone; ///< recomputation modes that recompute nothing here
    std::vector<Group> m_groups;
    std::vector<Layout> m_probes;
    std::size_t m_pruned = 0; ///< layouts skipped for their group
    std::size_t m_prebuiltUpTo = 0; ///< prebuildModels() has run for the layouts before this one
    /// The most FLOPs per sample of any stage (forward + backward + recomputation), per cut and mode.
    std::map<std::tuple<std::int64_t, std::int64_t, Checkpointing>, double> m_stageFlops;
    /// The allocator's reserved model per step model and written-out micro-batches (at most 3), with its
    /// max batch on the GPU.
    std::map<ReservedKey, ReservedEntry> m_reserved;
    std::map<std::pair<std::int64_t, std::int64_t>, Cut> m_cuts;
    /// communicationVolumes() per stage network and recomputation mode.
    std::map<std::pair<std::size_t, Checkpointing>, CommunicationVolumes> m_volumes;
    std::vector<StageNet> m_nets; ///< 0: the whole model
    std::map<ModelKey, std::shared_ptr<const MemoryModel>> m_models;
    std::vector<std::int64_t> m_tp, m_pp, m_cp, m_ep;
    std::vector<Unfit> m_unfit; ///< in the order found
    std::uint64_t m_tensorCapacity = 0; ///< what a stage's tensors may hold (examine())
};

Result<bool> Search::prepare()
{
    m_network = m_base.network;
    if (m_base.sequenceLength) {
        auto resized = atTrainingLength(m_base.network, *m_base.sequenceLength);
        if (!resized)
            return resized.error();
        m_network = std::move(resized).value();
    }
    for (const Checkpointing c : m_request.recomputation) {
        if (m_whole.contains(c))
            continue;
        AnalysisOptions options = m_base.analysisOptions();
        options.checkpointing = c;
        auto analysis = std::make_shared<const Analysis>(analyzePlan(m_base, options));
        if (analysis->error)
            return *analysis->error;
        ++m_result.analyses;
        m_whole[c] = analysis;
        TrainingSetup one = m_base.setup;
        one.batch = 1;
        one.accumulationSteps = 1;
        one.parallel = Parallelism {};
        auto t = estimateThroughput(*analysis, one, m_base.gpu);
        if (!t)
            return t.error();
        m_flopsPerSample[c]
            = t->forwardFlopsPerSample + t->backwardFlopsPerSample + t->recomputeFlopsPerSample;
        m_peakFlops = t->peakTflops * 1e12 * t->utilization;
        m_sequence = t->sequenceLength;
    }
    // A mode that recomputes nothing (selective recomputation with flash attention, which keeps no
    // score matrices) gives the layouts of no recomputation again.
    const bool plain = m_whole.contains(Checkpointing::None);
    std::vector<Checkpointing> modes;
    for (const Checkpointing c : m_request.recomputation) {
        if (plain && c != Checkpointing::None && m_whole.at(c)->recomputeFlopsPerSample == 0) {
            m_sameAsNone.push_back(c);
            continue;
        }
        if (std::find(modes.begin(), modes.end(), c) == modes.end())
            modes.push_back(c);
    }
    m_request.recomputation = std::move(modes);
    StageNet whole;
    whole.network = std::make_shared<const Network>(m_network);
    whole.analyses = m_whole;
    m_nets.push_back(std::move(whole));
    readShape(m_network.layers, m_shape);
    m_pipelineLayers = std::max<std::int64_t>(1, pipelineLayerCount(m_network));
    // With the allocator's answer asked for, a micro-batch fits only under the GPU's memory less the
    // overhead and less the reserve's margin (ReservedModel::maxBatch), and what the allocator reserves is
    // at least what the tensors allocate: the tensors' check takes the margin off too, so that the replays
    // (the search's costliest step) go to layouts that can pass them.
    const std::uint64_t capacity = m_base.gpu.memoryBytes;
    const std::uint64_t overhead = std::min(capacity, m_base.setup.overheadBytes);
    m_tensorCapacity = m_base.reservedModel
        ? capacity - std::min(capacity - overhead, ReservedModel::marginBytes(capacity - overhead))
        : capacity;
    return true;
}

const Cut& Search::cutFor(std::int64_t pp, std::int64_t v)
{
    const auto found = m_cuts.find({ pp, v });
    if (found != m_cuts.end())
        return found->second;
    Cut& cut = m_cuts[{ pp, v }];
    auto slices = splitPipeline(m_network, pp, v, {});
    if (!slices)
        return cut;
    const Analysis& whole = *m_whole.begin()->second;
    const auto boundaries = stageBoundaries(m_network, whole, slices.value(), v > 1);
    if (!boundaries)
        return cut;
    for (const PipelineStageSlice& slice : slices.value()) {
        const auto at = static_cast<std::size_t>(slice.index);
        const InputSpec& received = boundaries.value().received[at];
        const PipelineStageRole& role = boundaries.value().roles[at];
        std::size_t index = m_nets.size();
        for (std::size_t n = 1; n < m_nets.size(); ++n)
            if (m_nets[n].iterations == slice.iterations && m_nets[n].receivesFrom == slice.receivesFrom
                && m_nets[n].sendsFrom == slice.sendsFrom)
                index = n;
        if (index == m_nets.size()) {
            auto net = stageNetwork(m_network, slice, received);
            if (!net)
                return cut;
            StageNet s;
            s.iterations = slice.iterations;
            s.receivesFrom = slice.receivesFrom;
            s.sendsFrom = slice.sendsFrom;
            s.network = std::make_shared<const Network>(std::move(net).value());
            m_nets.push_back(std::move(s));
        }
        cut.roles.push_back(role);
        cut.network.push_back(index);
    }
    for (std::size_t s = 0; s < cut.network.size(); ++s) {
        const bool seen
            = std::any_of(cut.representatives.begin(), cut.representatives.end(), [&](std::size_t r) {
                  return cut.network[r] == cut.network[s]
                      && cut.roles[r].receivedBytesPerSample == cut.roles[s].receivedBytesPerSample
                      && cut.roles[r].sentBytesPerSample == cut.roles[s].sentBytesPerSample;
              });
        if (!seen)
            cut.representatives.push_back(s);
    }
    cut.slices = std::move(slices).value();
    cut.valid = true;
    return cut;
}

const Analysis& Search::analysisFor(std::size_t net, Checkpointing c)
{
    auto& slot = m_nets[net].analyses[c];
    if (!slot) {
        Plan stage = static_cast<const PlanSettings&>(m_base).appliedTo(Plan {});
        stage.network = *m_nets[net].network;
        stage.sequenceLength.reset(); // the cut network is at the training length already
        AnalysisOptions options = m_base.analysisOptions();
        options.checkpointing = c;
        slot = std::make_shared<const Analysis>(analyzePlan(stage, options));
        ++m_result.analyses;
    }
    return *slot;
}

const MemoryModel* Search::modelFor(const ModelKey& key, const TrainingSetup& setup, const Analysis& analysis)
{
    const auto found = m_models.find(key);
    if (found != m_models.end())
        return found->second.get();
    auto built = MemoryModel::build(analysis, setup);
    ++m_result.memoryModels;
    auto& slot = m_models[key];
    if (built)
        slot = std::make_shared<const MemoryModel>(std::move(built).value());
    return slot.get();
}

TrainingSetup Search::setupOf(const Layout& l) const
{
    TrainingSetup setup = m_base.setup;
    setup.parallel = l.par;
    setup.batch = l.microBatch;
    setup.accumulationSteps = l.accumulation;
    setup.gpusPerNode = m_request.gpusPerNode;
    setup.pipelineStage.reset();
    return setup;
}

void Search::enumerate()
{
    const std::int64_t g = m_request.gpus;
    for (const std::int64_t t : divisors(std::min(g, m_request.gpusPerNode)))
        if (g % t == 0 && m_request.gpusPerNode % t == 0
            && (m_shape.headsGcd == 0 || m_shape.headsGcd % t == 0))
            m_tp.push_back(t);
    m_cp = { 1 };
    if (m_sequence > 0)
        for (std::int64_t c = 2; c <= kMaxContextParallel && m_sequence % (2 * c) == 0; c *= 2)
            m_cp.push_back(c);
    m_ep = { 1 };
    if (m_shape.expertsGcd > 0)
        for (const std::int64_t e : divisors(m_shape.expertsGcd))
            if (e > 1 && e <= m_request.gpusPerNode && m_request.gpusPerNode % e == 0)
                m_ep.push_back(e);
    for (const std::int64_t p : divisors(g))
        if (p <= m_pipelineLayers)
            m_pp.push_back(p);
    // The slowest stage computes at least its FLOPs per sample x mb x m / (TP x CP) at the assumed rate.
    const auto bubbleFree = [&](const Layout& l) {
        const Parallelism& p = l.par;
        return stageFlops(p.pipelineParallel, p.virtualStages, l.checkpointing)
            * static_cast<double>(l.microBatch * l.accumulation)
            / static_cast<double>(p.tensorParallel * p.contextParallel) / m_peakFlops;
    };
    // The group's most memory-saving layout: the highest sharding, offloaded, per-block, smallest
    // micro-batch.
    const auto saving = [](const Layout& l) {
        const int recompute = l.checkpointing == Checkpointing::PerBlock ? 2
            : l.checkpointing == Checkpointing::Selective                ? 1
                                                                         : 0;
        return std::tuple(shardingStage(l.par.sharding), l.par.offloadOptimizer, recompute, -l.microBatch);
    };
    const auto noteProbe = [&](const Layout& l) {
        Group& group = m_groups[l.group];
        if (!group.probe) {
            group.probe = m_probes.size();
            m_probes.push_back(l);
        } else if (saving(l) > saving(m_probes[*group.probe])) {
            m_probes[*group.probe] = l;
        }
    };
    for (const std::int64_t tp : m_tp)
        for (const std::int64_t pp : m_pp)
            for (const std::int64_t cp : m_cp) {
                if (g % (tp * pp * cp) != 0)
                    continue;
                const std::int64_t dp = g / (tp * pp * cp);
                std::vector<std::pair<PipelineSchedule, std::int64_t>> schedules {
                    { PipelineSchedule::OneFOneB, 1 }
                };
                if (pp > 1)
                    for (const std::int64_t v : kVirtualStages)
                        schedules.emplace_back(PipelineSchedule::Interleaved, v);
                for (const auto& [schedule, v] : schedules) {
                    if (pp > 1 && !cutFor(pp, v).valid)
                        continue;
                    for (const std::int64_t ep : m_ep) {
                        const std::size_t group = m_groups.size();
                        m_groups.emplace_back();
                        for (const Sharding sharding : m_request.shardings)
                            for (const bool offload : { false, true }) {
                                if (offload && (!m_request.offloadOptimizer || sharding == Sharding::None))
                                    continue;
                                if (dp == 1 && sharding != Sharding::None && !offload)
                                    continue; // sharding over one rank shards nothing
                                Layout l;
                                l.par.gpus = g;
                                l.par.tensorParallel = tp;
                                l.par.sequenceParallel = tp > 1;
                                l.par.pipelineParallel = pp;
                                l.par.schedule = schedule;
                                l.par.virtualStages = v;
                                l.par.contextParallel = cp;
                                l.par.expertParallel = ep;
                                l.par.sharding = sharding;
                                l.par.offloadOptimizer = offload;
                                for (const std::int64_t mb : m_request.microBatches) {
                                    if (m_request.globalBatch % (mb * dp) != 0)
                                        continue;
                                    l.microBatch = mb;
                                    l.accumulation = m_request.globalBatch / (mb * dp);
                                    if (pp > 1 && l.accumulation < pp)
                                        continue; // 1F1B needs at least p micro-batches to fill
                                    if (l.accumulation > kMaxAccumulationSteps)
                                        continue;
                                    if (validateSetup(setupOf(l))) {
                                        ++m_result.layoutsInvalid;
                                        continue;
                                    }
                                    for (const Checkpointing c : m_request.recomputation) {
                                        l.checkpointing = c;
                                        l.bound = (bubbleFree(l) + communicationFloor(l))
                                            * (1.0 + pipelineBubbleFraction(l.par, l.accumulation));
                                        l.group = group;
                                        m_layouts.push_back(l);
                                        noteProbe(l);
                                    }
                                }
                            }
                    }
                }
            }
    m_result.layoutsEnumerated = m_layouts.size();
    // Lower bound first; at equal bounds the less communication (model parallel, sharding) first.
    std::stable_sort(m_layouts.begin(), m_layouts.end(), [](const Layout& a, const Layout& b) {
        return std::tuple(a.bound, a.par.modelParallel(), shardingStage(a.par.sharding))
            < std::tuple(b.bound, b.par.modelParallel(), shardingStage(b.par.sharding));
    });
}

double Search::stageFlops(std::int64_t pp, std::int64_t v, Checkpointing c)
{
    const auto key = std::tuple(pp, v, c);
    const auto found = m_stageFlops.find(key);
    if (found != m_stageFlops.end())
        return found->second;
    double most = 0;
    const auto flops = [](const Analysis& a) {
        return static_cast<double>(a.forwardFlopsPerSample) + static_cast<double>(a.backwardFlopsPerSample)
            + static_cast<double>(a.recomputeFlopsPerSample);
    };
    if (pp == 1) {
        most = flops(analysisFor(0, c));
    } else {
        const Cut& cut = cutFor(pp, v);
        for (std::size_t s = 0; s < cut.network.size(); ++s)
            most = std::max(most, flops(analysisFor(cut.network[s], c)));
    }
    m_stageFlops[key] = most;
    return most;
}

double Search::communicationFloor(const Layout& l)
{
    const Cut* cut
        = l.par.pipelineParallel > 1 ? &cutFor(l.par.pipelineParallel, l.par.virtualStages) : nullptr;
    TrainingSetup setup = setupOf(l);
    const Interconnect links = interconnectOf(m_base.gpu, setup);
    ComputeWindows windows;
    windows.secondsPerFlop = m_peakFlops > 0 ? 1.0 / m_peakFlops : 0.0;
    double least = -1;
    for (const std::size_t s : stagesOf(cut)) {
        const std::size_t net = cut != nullptr ? cut->network[s] : 0;
        const auto key = std::pair(net, l.checkpointing);
        auto found = m_volumes.find(key);
        if (found == m_volumes.end())
            found = m_volumes.emplace(key, communicationVolumes(analysisFor(net, l.checkpointing))).first;
        if (cut != nullptr)
            setup.pipelineStage = cut->roles[s];
        const double here = exposedSeconds(communicationTerms(found->second, setup, links, windows), true);
        least = least < 0 ? here : std::min(least, here);
    }
    return std::max(0.0, least);
}

ModelKey Search::keyOf(const Layout& l, const Cut* cut, std::size_t s, TrainingSetup& stageSetup) const
{
    ModelKey key;
    key.net = cut != nullptr ? cut->network[s] : 0;
    key.checkpointing = l.checkpointing;
    key.tp = l.par.tensorParallel;
    key.pp = l.par.pipelineParallel;
    key.v = l.par.virtualStages;
    key.cp = l.par.contextParallel;
    key.ep = l.par.expertParallel;
    key.gpus = l.par.gpus;
    key.schedule = static_cast<int>(l.par.schedule);
    key.sharding = static_cast<int>(l.par.sharding);
    key.offload = l.par.offloadOptimizer;
    key.sequenceParallel = l.par.sequenceParallel;
    key.accumulates = l.accumulation > 1;
    stageSetup = setupOf(l);
    if (cut != nullptr) {
        const PipelineStageRole& role = cut->roles[s];
        const HeldMicroBatches held = heldMicroBatches(l.par, l.accumulation, role.index);
        key.heldPasses = held.chunkPasses;
        key.chunks = held.chunksPerStage;
        key.received = role.receivedBytesPerSample;
        key.sent = role.sentBytesPerSample;
        stageSetup.pipelineStage = role;
    }
    return key;
}

void Search::prebuildModels(std::size_t first)
{
    if (first < m_prebuiltUpTo)
        return;
    const std::size_t end = std::min(m_layouts.size(), first + kChunk);
    m_prebuiltUpTo = end;
    struct Job
    {
        ModelKey key;
        TrainingSetup setup;
        const Analysis* analysis = nullptr;
        std::shared_ptr<const MemoryModel> built;
    };
    std::vector<Job> jobs;
    const auto need = [&](const Layout& l, std::size_t k) {
        const Cut* cut
            = l.par.pipelineParallel > 1 ? &cutFor(l.par.pipelineParallel, l.par.virtualStages) : nullptr;
        Job job;
        job.key = keyOf(l, cut, stagesOf(cut)[k], job.setup);
        if (m_models.contains(job.key)
            || std::any_of(jobs.begin(), jobs.end(), [&](const Job& j) { return j.key == job.key; }))
            return;
        const Analysis& analysis = analysisFor(job.key.net, l.checkpointing);
        if (analysis.error)
            return;
        job.analysis = &analysis;
        jobs.push_back(std::move(job));
    };
    const auto stageCount = [&](const Layout& l) {
        return stagesOf(
            l.par.pipelineParallel > 1 ? &cutFor(l.par.pipelineParallel, l.par.virtualStages) : nullptr)
            .size();
    };
    const auto buildAll = [&] {
        forEachInParallel(jobs.size(), [&](std::size_t k) {
            auto built = MemoryModel::build(*jobs[k].analysis, jobs[k].setup);
            if (built)
                jobs[k].built = std::make_shared<const MemoryModel>(std::move(built).value());
        });
        for (Job& job : jobs) {
            ++m_result.memoryModels;
            m_models.emplace(job.key, std::move(job.built));
        }
        jobs.clear();
    };
    // First the splits' most memory-saving layouts, which decide whether the others are worked out: in
    // waves, stage by stage as judge() checks them, until one is over the limit (a split that is not
    // pruned has every stage worked out: judge() orders its stages by their peaks).
    std::vector<std::size_t> probes;
    for (std::size_t i = first; i < end; ++i) {
        const Group& group = m_groups[m_layouts[i].group];
        if (group.verdict == 0 && std::find(probes.begin(), probes.end(), *group.probe) == probes.end())
            probes.push_back(*group.probe);
    }
    for (std::size_t wave = 0; !probes.empty(); ++wave) {
        std::vector<std::size_t> next;
        for (const std::size_t p : probes)
            if (wave < stageCount(m_probes[p])) {
                need(m_probes[p], probeStage(stageCount(m_probes[p]), wave));
                next.push_back(p);
            }
        buildAll();
        probes.clear();
        for (const std::size_t p : next)
            if (probeStageOver(m_probes[p], wave, nullptr) == std::optional<bool> { false })
                probes.push_back(p);
    }
    buildAll();
    std::vector<std::size_t> alive;
    for (std::size_t i = first; i < end; ++i) {
        Group& group = m_groups[m_layouts[i].group];
        judge(group);
        if (group.verdict > 0)
            alive.push_back(i);
    }
    // Then the layouts' stages in waves, heaviest first as examine() checks them: a layout whose stage
    // does not fit by the tensors needs no model of its other stages.
    for (std::size_t wave = 0; !alive.empty(); ++wave) {
        std::vector<std::size_t> next;
        const auto position = [&](std::size_t i) {
            const std::vector<std::size_t>& order = m_groups[m_layouts[i].group].stageOrder;
            return order.size() == stageCount(m_layouts[i]) ? order[wave] : wave;
        };
        for (const std::size_t i : alive)
            if (wave < stageCount(m_layouts[i])) {
                need(m_layouts[i], position(i));
                next.push_back(i);
            }
        buildAll();
        alive.clear();
        for (const std::size_t i : next)
            if (stageFits(m_layouts[i], position(i), nullptr) == StagesFit::Fit)
                alive.push_back(i);
    }
}

std::uint64_t Search::heaviestPeak(const Layout& l)
{
    const Cut* cut
        = l.par.pipelineParallel > 1 ? &cutFor(l.par.pipelineParallel, l.par.virtualStages) : nullptr;
    std::uint64_t highest = 0;
    std::vector<ModelKey> seen;
    const std::vector<std::size_t>& stages = stagesOf(cut);
    std::vector<std::uint64_t> peaks(stages.size(), 0);
    for (std::size_t k = 0; k < stages.size(); ++k) {
        TrainingSetup stageSetup;
        const ModelKey key = keyOf(l, cut, stages[k], stageSetup);
        if (std::find(seen.begin(), seen.end(), key) != seen.end())
            continue;
        seen.push_back(key);
        const Analysis& analysis = analysisFor(key.net, l.checkpointing);
        const MemoryModel* model = analysis.error ? nullptr : modelFor(key, stageSetup, analysis);
        if (model == nullptr)
            return 0;
        const auto at = model->at(l.microBatch);
        if (!at)
            return 0;
        peaks[k] = at->total();
        highest = std::max(highest, at->total());
    }
    // The group's layouts check their stages heaviest first (by this layout's tensors).
    std::vector<std::size_t>& order = m_groups[l.group].stageOrder;
    order.resize(stages.size());
    std::iota(order.begin(), order.end(), std::size_t { 0 });
    std::stable_sort(
        order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return peaks[a] > peaks[b]; });
    return highest;
}

std::optional<bool> Search::probeStageOver(const Layout& probe, std::size_t i, std::uint64_t* peak)
{
    const Cut* cut = probe.par.pipelineParallel > 1
        ? &cutFor(probe.par.pipelineParallel, probe.par.virtualStages)
        : nullptr;
    const std::vector<std::size_t>& stages = stagesOf(cut);
    TrainingSetup stageSetup;
    const ModelKey key = keyOf(probe, cut, stages[probeStage(stages.size(), i)], stageSetup);
    const Analysis& analysis = analysisFor(key.net, probe.checkpointing);
    const MemoryModel* model = analysis.error ? nullptr : modelFor(key, stageSetup, analysis);
    const auto at = model != nullptr ? model->at(probe.microBatch) : Result<MemoryBreakdown> { Error {} };
    if (!at)
        return std::nullopt;
    if (peak != nullptr)
        *peak = at->total();
    return static_cast<double>(at->total()) > kGroupPruneFactor * static_cast<double>(m_base.gpu.memoryBytes);
}

void Search::judge(Group& group)
{
    if (group.verdict != 0)
        return;
    const std::uint64_t memory = m_base.gpu.memoryBytes;
    // A stage over the limit prunes the split without the others worked out (what the closest layout
    // needs is worked out at the end, if nothing fits).
    const Layout& probe = m_probes[*group.probe];
    const std::size_t stages = stagesOf(probe.par.pipelineParallel > 1
            ? &cutFor(probe.par.pipelineParallel, probe.par.virtualStages)
            : nullptr)
                                   .size();
    for (std::size_t i = 0; i < stages; ++i) {
        std::uint64_t over = 0;
        const std::optional<bool> isOver = probeStageOver(probe, i, &over);
        if (!isOver)
            break; // heaviestPeak() says what a stage that cannot be modelled means
        if (*isOver) {
            group.verdict = -1;
            m_unfit.push_back(Unfit { over - memory, false, {}, *group.probe, true });
            return;
        }
    }
    const std::uint64_t peak = heaviestPeak(m_probes[*group.probe]);
    group.verdict = static_cast<double>(peak) > kGroupPruneFactor * static_cast<double>(memory) ? -1 : 1;
    if (group.verdict < 0) {
        const Layout& p = m_probes[*group.probe];
        m_unfit.push_back(Unfit {
            peak - memory, true, parallelText(p.par, p.checkpointing, p.microBatch, p.accumulation) });
    }
}

StagesFit Search::stageFits(const Layout& l, std::size_t k, std::uint64_t* over)
{
    const Cut* cut
        = l.par.pipelineParallel > 1 ? &cutFor(l.par.pipelineParallel, l.par.virtualStages) : nullptr;
    TrainingSetup stageSetup;
    const ModelKey key = keyOf(l, cut, stagesOf(cut)[k], stageSetup);
    const Analysis& analysis = analysisFor(key.net, l.checkpointing);
    const MemoryModel* model = analysis.error ? nullptr : modelFor(key, stageSetup, analysis);
    if (model == nullptr)
        return StagesFit::Unknown;
    if (model->maxBatch(m_tensorCapacity) >= l.microBatch)
        return StagesFit::Fit;
    if (over != nullptr) {
        const auto at = model->at(l.microBatch);
        const std::uint64_t peak = at ? at->total() : ~std::uint64_t { 0 };
        *over = peak - std::min(peak, m_base.gpu.memoryBytes);
    }
    return StagesFit::Unfit;
}

StagesFit Search::firstUnfitStage(const Layout& l, std::uint64_t& over)
{
    const std::vector<std::size_t>& order = m_groups[l.group].stageOrder;
    const std::size_t stages = stagesOf(
        l.par.pipelineParallel > 1 ? &cutFor(l.par.pipelineParallel, l.par.virtualStages) : nullptr)
                                   .size();
    for (std::size_t i = 0; i < stages; ++i) {
        const StagesFit f = stageFits(l, order.size() == stages ? order[i] : i, &over);
        if (f != StagesFit::Fit)
            return f;
    }
    return StagesFit::Fit;
}

StagesFit Search::workOutStages(const Layout& l, Examined& out, std::uint64_t& over)
{
    const Cut* cut
        = l.par.pipelineParallel > 1 ? &cutFor(l.par.pipelineParallel, l.par.virtualStages) : nullptr;
    double slowest = -1;
    over = 0;
    bool fits = true;
    for (const std::size_t s : stagesOf(cut)) {
        TrainingSetup stageSetup;
        const ModelKey key = keyOf(l, cut, s, stageSetup);
        const bool seen = std::any_of(
            out.stages.begin(), out.stages.end(), [&](const auto& st) { return st.second == key; });
        if (seen)
            continue;
        const Analysis& analysis = analysisFor(key.net, l.checkpointing);
        const MemoryModel* model = analysis.error ? nullptr : modelFor(key, stageSetup, analysis);
        if (model == nullptr)
            return StagesFit::Unknown;
        const auto at = model->at(l.microBatch);
        const std::uint64_t peak = at ? at->total() : ~std::uint64_t { 0 };
        if (model->maxBatch(m_tensorCapacity) < l.microBatch) {
            fits = false;
            over = std::max(over, peak - std::min(peak, m_base.gpu.memoryBytes));
            continue;
        }
        if (!fits)
            continue;
        auto t = estimateThroughput(analysis, stageSetup, m_base.gpu, *model);
        if (!t)
            return StagesFit::Unknown;
        // The slowest stage sets the pace, every stage idle for the bubble (as evaluatePipeline shows it).
        applyPipelineBubble(t.value(), pipelineBubbleFraction(l.par, l.accumulation));
        if (t->stepSeconds > slowest) {
            slowest = t->stepSeconds;
            out.throughput = std::move(t).value();
        }
        out.stages.emplace_back(static_cast<std::int64_t>(s), key);
        out.peaks.push_back(peak);
    }
    return fits ? StagesFit::Fit : StagesFit::Unfit;
}

bool Search::examine(std::size_t index, Examined& out)
{
    const Layout& l = m_layouts[index];
    Group& group = m_groups[l.group];
    judge(group);
    if (group.verdict < 0) {
        ++m_pruned;
        return false;
    }
    ++m_result.layoutsExamined;
    out.layout = l;
    // Most layouts do not fit: their stages are checked heaviest first, up to the first that does not
    // (the others' step models are not built; what the closest layout needs is worked out at the end, if
    // nothing fits).
    std::uint64_t over = 0;
    StagesFit f = firstUnfitStage(l, over);
    if (f == StagesFit::Fit)
        f = workOutStages(l, out, over);
    if (f == StagesFit::Unfit) {
        m_unfit.push_back(Unfit { over, false, {}, index });
        return false;
    }
    if (f == StagesFit::Unknown)
        return false;
    ThroughputEstimate& t = out.throughput;
    // A later stage's input is the hidden state, not the tokens: the rates are the whole model's.
    if (m_sequence > 0) {
        t.sequenceLength = m_sequence;
        t.tokensPerSecond = t.samplesPerSecond * static_cast<double>(m_sequence);
    }
    out.stepSeconds = t.stepSeconds;
    return true;
}

std::optional<std::pair<std::uint64_t, std::string>> Search::closest()
{
    // The first of the least over the GPU in the order found, as if every layout's stages had all been
    // worked out: a layout known only at least `over` is worked out in full when it could still be the
    // one (best first: the least, then the earliest; one known exactly ends the search).
    using Entry = std::tuple<std::uint64_t, std::size_t>; // over, index into m_unfit
    std::priority_queue<Entry, std::vector<Entry>, std::greater<>> queue;
    for (std::size_t i = 0; i < m_unfit.size(); ++i)
        queue.emplace(m_unfit[i].over, i);
    while (!queue.empty()) {
        const auto [over, i] = queue.top();
        queue.pop();
        Unfit& u = m_unfit[i];
        if (u.exact)
            return std::pair { u.over, u.text };
        if (u.probe) {
            const Layout& p = m_probes[u.layout];
            const std::uint64_t peak = heaviestPeak(p);
            if (static_cast<double>(peak) <= kGroupPruneFactor * static_cast<double>(m_base.gpu.memoryBytes))
                continue; // as judge() found it, had it worked out every stage: not pruned
            u.over = peak - m_base.gpu.memoryBytes;
            u.exact = true;
            u.text = parallelText(p.par, p.checkpointing, p.microBatch, p.accumulation);
            queue.emplace(u.over, i);
            continue;
        }
        const Layout& l = m_layouts[u.layout];
        Examined scratch;
        std::uint64_t exact = 0;
        if (workOutStages(l, scratch, exact) != StagesFit::Unfit)
            continue; // as examine() found it, had it worked out every stage: no candidate
        u.over = exact;
        u.exact = true;
        u.text = parallelText(l.par, l.checkpointing, l.microBatch, l.accumulation);
        queue.emplace(u.over, i);
    }
    return std::nullopt;
}

PlanSettings Search::stageSettings(const Layout& l, std::int64_t stage) const
{
    PlanSettings settings = m_base;
    settings.checkpointing = l.checkpointing;
    settings.setup = setupOf(l);
    if (l.par.pipelineParallel > 1) {
        const Cut& cut = m_cuts.at({ l.par.pipelineParallel, l.par.virtualStages });
        settings.setup.pipelineStage = cut.roles[static_cast<std::size_t>(stage)];
        settings.sequenceLength.reset();
    }
    return settings;
}

std::vector<std::size_t> Search::replayed(const Examined& e)
{
    const std::uint64_t highest = *std::max_element(e.peaks.begin(), e.peaks.end());
    // Per stage network, the stage that holds the most (the most micro-batches in flight), where it comes
    // within kReplayWithin of the highest peak.
    std::vector<std::size_t> out;
    for (std::size_t i = 0; i < e.stages.size(); ++i) {
        if (static_cast<double>(e.peaks[i]) < kReplayWithin * static_cast<double>(highest))
            continue;
        const auto same = std::find_if(out.begin(), out.end(),
            [&](std::size_t j) { return e.stages[j].second.net == e.stages[i].second.net; });
        if (same == out.end())
            out.push_back(i);
        else if (e.peaks[i] > e.peaks[*same])
            *same = i;
    }
    return out;
}

void Search::buildReserved(const std::vector<const Examined*>& candidates)
{
    if (!m_base.reservedModel)
        return;
    struct Job
    {
        ReservedKey key;
        const Analysis* analysis = nullptr;
        PlanSettings settings;
        std::int64_t microBatch = 0; ///< the smallest any candidate needs
        ReservedEntry entry;
    };
    // Each candidate's replayed stages, the heaviest by the tensors first: in waves, a candidate whose
    // stage does not fit with the allocator needs no replay of its others (confirm() rejects it).
    std::vector<std::vector<std::size_t>> orders;
    std::vector<std::size_t> alive;
    for (const Examined* e : candidates) {
        std::vector<std::size_t> order = replayed(*e);
        std::stable_sort(order.begin(), order.end(),
            [&](std::size_t a, std::size_t b) { return e->peaks[a] > e->peaks[b]; });
        alive.push_back(orders.size());
        orders.push_back(std::move(order));
    }
    const auto slotOf = [&](std::size_t c, std::size_t wave) {
        const Examined& e = *candidates[c];
        return ReservedKey { e.stages[orders[c][wave]].second,
            std::min<std::int64_t>(e.layout.accumulation, 3) };
    };
    for (std::size_t wave = 0; !alive.empty(); ++wave) {
        std::vector<Job> jobs;
        std::vector<std::size_t> next;
        for (const std::size_t c : alive) {
            if (wave >= orders[c].size())
                continue;
            next.push_back(c);
            const Examined* e = candidates[c];
            const ReservedKey slot = slotOf(c, wave);
            if (m_reserved.contains(slot))
                continue;
            const auto job
                = std::find_if(jobs.begin(), jobs.end(), [&](const Job& j) { return j.key == slot; });
            if (job != jobs.end()) {
                job->microBatch = std::min(job->microBatch, e->layout.microBatch);
                continue;
            }
            Job& added = jobs.emplace_back();
            added.key = slot;
            added.analysis = m_nets[slot.first.net].analyses.at(e->layout.checkpointing).get();
            added.settings = stageSettings(e->layout, e->stages[orders[c][wave]].first);
            added.microBatch = e->layout.microBatch;
        }
        // Each job replays its own trace: the machine's cores share them.
        forEachInParallel(jobs.size(), [&](std::size_t k) {
            Job& job = jobs[k];
            auto built = buildReservedModel(*job.analysis, job.settings);
            if (!built)
                return;
            job.entry.model = std::move(built).value();
            const std::uint64_t overhead
                = std::min(job.settings.gpu.memoryBytes, job.settings.setup.overheadBytes);
            job.entry.searched.capacityBytes = job.settings.gpu.memoryBytes - overhead;
            job.entry.search(job.microBatch);
        });
        for (Job& job : jobs) {
            ++m_result.replays;
            m_reserved.emplace(job.key, std::move(job.entry));
        }
        alive.clear();
        for (const std::size_t c : next)
            if (m_reserved.at(slotOf(c, wave)).mayFit(candidates[c]->layout.microBatch))
                alive.push_back(c);
    }
}

/// The most the trace's tensors request at once at `batch`: at most what the allocator allocates for them
/// (each block it hands out holds at least the bytes requested; optional workspaces left out, as a
/// capped replay may refuse them), without a replay (a pass over the events).
std::uint64_t mostRequested(const AllocationTrace& trace, std::int64_t batch)
{
    std::vector<std::uint64_t> held(trace.blocks(), 0);
    std::uint64_t live = 0;
    std::uint64_t most = 0;
    for (const TraceEvent& e : trace.events()) {
        if (e.block >= held.size())
            continue;
        if (!e.allocate) {
            live -= held[e.block];
            held[e.block] = 0;
        } else if (!e.optional) {
            const std::uint64_t bytes = AllocationTrace::bytesAt(e, batch);
            held[e.block] = bytes;
            live = bytes > ~std::uint64_t { 0 } - live ? ~std::uint64_t { 0 } : live + bytes;
            most = std::max(most, live);
        }
    }
    return most;
}

void ReservedEntry::search(std::int64_t microBatch)
{
    if (!model || searchedAll || microBatch >= failsAt)
        return;
    // What the tensors allocate in the allocator's blocks (one replay, whatever the cap) must leave the
    // margin free (ReservedModel::maxBatch): where it does not, the micro-batch fails without the search,
    // and where even the bytes the tensors request at once do not, without the replay.
    const std::uint64_t capacity = searched.capacityBytes;
    const std::uint64_t allowed = capacity - std::min(capacity, ReservedModel::marginBytes(capacity));
    if (mostRequested(model->trace(), microBatch) > allowed || model->allocatedAt(microBatch) > allowed) {
        failsAt = microBatch;
        return;
    }
    searched.maxBatch = model->maxBatch(capacity);
    searchedAll = true;
}

std::optional<ClusterLayout> Search::confirm(const Examined& e)
{
    const Layout& l = e.layout;
    const Cut* cut
        = l.par.pipelineParallel > 1 ? &cutFor(l.par.pipelineParallel, l.par.virtualStages) : nullptr;
    buildReserved({ &e });
    // A stage that does not fit with the allocator rejects the layout (buildReserved() replays no more of
    // its stages).
    if (m_base.reservedModel)
        for (const std::size_t i : replayed(e)) {
            const auto found = m_reserved.find(
                ReservedKey { e.stages[i].second, std::min<std::int64_t>(l.accumulation, 3) });
            if (found != m_reserved.end() && !found->second.mayFit(l.microBatch))
                return std::nullopt;
        }
    std::optional<ClusterLayout> best;
    for (const std::size_t i : replayed(e)) {
        const auto& [stage, key] = e.stages[i];
        PlanSettings settings = stageSettings(l, stage);
        const Analysis& analysis = *m_nets[key.net].analyses.at(l.checkpointing);
        const MemoryModel& model = *m_models.at(key);
        // The plan may ask for the tensors alone (PlanSettings::reservedModel: the hand-worked tests).
        const ReservedFigures* known = nullptr;
        std::shared_ptr<const ReservedModel> reserved;
        if (m_base.reservedModel) {
            ReservedEntry& entry
                = m_reserved.at(ReservedKey { key, std::min<std::int64_t>(l.accumulation, 3) });
            entry.search(l.microBatch);
            if (!entry.model || !entry.searchedAll || entry.searched.maxBatch.batch < l.microBatch)
                return std::nullopt;
            reserved = entry.model;
            known = &entry.searched;
        }
        auto figures = figuresOf(analysis, model, settings, reserved.get(), known);
        if (!figures || (reserved && !figures->reserved) || !figures->estimate.fits)
            return std::nullopt;
        // The heaviest as evaluatePipeline() chooses it: the smallest max batch, then the most held.
        const auto weight = [](const Estimate& x) { return std::max(x.heldBytes, x.peakBytes()); };
        if (best
            && (figures->estimate.maxBatch > best->estimate.maxBatch
                || (figures->estimate.maxBatch == best->estimate.maxBatch
                    && weight(figures->estimate) <= weight(best->estimate))))
            continue;
        ClusterLayout out;
        out.settings = m_base;
        out.settings.checkpointing = l.checkpointing;
        out.settings.setup = setupOf(l);
        out.estimate = figures->estimate;
        if (figures->reserved)
            out.reserved = *figures->reserved;
        out.heaviestStage = stage;
        if (cut != nullptr)
            out.heaviestStageText = stageLayersText(m_network, cut->slices[static_cast<std::size_t>(stage)]);
        out.throughput = e.throughput;
        out.bubbleFraction = pipelineBubbleFraction(l.par, l.accumulation);
        best = std::move(out);
    }
    return best;
}

std::string Search::triedText() const
{
    std::string shardings;
    for (const Sharding s : m_request.shardings)
        shardings += (shardings.empty() ? "" : ", ") + std::string(shardingName(s));
    std::string recompute;
    for (const Checkpointing c : m_request.recomputation)
        recompute += (recompute.empty() ? "" : ", ") + std::string(checkpointingName(c));
    return "tensor parallel " + listText(m_tp) + "; pipeline parallel " + listText(m_pp)
        + " (1F1B, interleaved x2 and x4); context parallel " + listText(m_cp) + "; expert parallel "
        + listText(m_ep) + "; micro-batches " + listText(m_request.microBatches) + "; sharding " + shardings
        + "; recomputation " + recompute;
}

Result<ClusterPlan> Search::run()
{
    if (auto ready = prepare(); !ready)
        return ready.error();
    enumerate();
    if (m_layouts.empty())
        return Error { "the global batch " + std::to_string(m_request.globalBatch)
                + " splits into whole "
                  "micro-batches of no layout of "
                + std::to_string(m_request.gpus)
                + " GPUs (micro-batch x accumulation steps x data parallel must equal it; tried "
                + triedText() + ")",
            "global_batch" };
    std::vector<Examined> fitting; // by the tensors, not yet rejected by the allocator
    std::vector<ClusterLayout> confirmed;
    std::size_t next = 0;
    const std::size_t want = std::max<std::size_t>(1, m_request.listed);
    const auto byStep = [](const Examined& a, const Examined& b) { return a.stepSeconds < b.stepSeconds; };
    for (;;) {
        // Examine in order of the lower bound until `want` layouts are at least as fast as the next
        // bound: `fastest` keeps the `want` smallest step times, the slowest of them on top.
        std::priority_queue<double> fastest;
        const auto note = [&](double step) {
            fastest.push(step);
            if (fastest.size() > want)
                fastest.pop();
        };
        for (const Examined& e : fitting)
            note(e.stepSeconds);
        while (next < m_layouts.size()) {
            if (fastest.size() >= want && fastest.top() <= m_layouts[next].bound)
                break;
            prebuildModels(next);
            Examined e;
            if (examine(next, e)) {
                note(e.stepSeconds);
                fitting.push_back(std::move(e));
            } else {
                ++m_result.layoutsNotFitting;
            }
            ++next;
        }
        std::stable_sort(fitting.begin(), fitting.end(), byStep);
        std::vector<const Examined*> unconfirmed;
        for (std::size_t i = 0; i < fitting.size() && i < want; ++i)
            if (!fitting[i].confirmed)
                unconfirmed.push_back(&fitting[i]);
        buildReserved(unconfirmed);
        // Replay the allocator for the fastest ones not yet confirmed, in order, as far as the frontier:
        // a layout not yet examined takes at least the next lower bound, so one faster than that is
        // listed or rejected for good, and one slower waits until the examination has passed it (after a
        // rejection it could be beaten by a layout not yet examined: replaying it now could be wasted).
        const double frontier
            = next < m_layouts.size() ? m_layouts[next].bound : std::numeric_limits<double>::infinity();
        bool beyond = false;
        std::vector<Examined> kept;
        for (Examined& e : fitting) {
            if (kept.size() >= want || beyond) {
                kept.push_back(std::move(e));
                continue;
            }
            if (!e.confirmed) {
                if (e.stepSeconds > frontier) {
                    beyond = true;
                    kept.push_back(std::move(e));
                    continue;
                }
                auto layout = confirm(e);
                if (!layout) {
                    ++m_result.layoutsReplayRejected;
                    continue;
                }
                confirmed.push_back(std::move(*layout));
                e.confirmed = true;
            }
            kept.push_back(std::move(e));
        }
        const bool fewer = kept.size() < want;
        fitting = std::move(kept);
        // Done when the fastest `want` are confirmed; otherwise examine further (if anything is left).
        if ((!beyond && !fewer) || next >= m_layouts.size())
            break;
    }
    m_result.layoutsSlower = m_layouts.size() - next;
    m_result.layoutsPruned = m_pruned;
    std::stable_sort(confirmed.begin(), confirmed.end(), [](const ClusterLayout& a, const ClusterLayout& b) {
        if (a.throughput.stepSeconds != b.throughput.stepSeconds)
            return a.throughput.stepSeconds < b.throughput.stepSeconds;
        // Then (as rankSetups() orders set-ups) less model parallelism, no optimizer offload (its PCIe
        // traffic is not timed), no weight gathering (ZeRO-3), whose exchanges the step time prices only
        // at peak bandwidth; then less memory.
        const auto cost = [](const ClusterLayout& l) {
            const Parallelism& par = l.settings.setup.parallel;
            return std::tuple(par.modelParallel(), par.offloadOptimizer, shardingStage(par.sharding) >= 3,
                l.estimate.heldBytes);
        };
        return cost(a) < cost(b);
    });
    if (confirmed.size() > want)
        confirmed.resize(want);
    m_result.layouts = std::move(confirmed);
    if (m_result.layouts.empty()) {
        m_result.nothingFits = "no layout of " + std::to_string(m_request.gpus) + " " + m_base.gpu.name
            + " fits the global batch " + std::to_string(m_request.globalBatch) + " (tried " + triedText()
            + ")";
        if (const auto near = closest())
            m_result.nothingFits += "; the closest, " + near->second + ", needs " + formatBytes(near->first)
                + " more on its heaviest GPU";
    }
    auto& left = m_result.leftOut;
    left.push_back("tensor parallelism and expert x expert-tensor parallelism within one node of "
        + std::to_string(m_request.gpusPerNode) + " GPUs; expert tensor parallelism 1");
    left.push_back("the GPipe and zero-bubble schedules, uneven stage layers and virtual stages other "
                   "than 2 and 4");
    left.push_back("activation offload to CPU memory"
        + std::string(m_request.offloadOptimizer ? "" : " and optimizer offload"));
    left.push_back(
        "in the step times, communication beyond NCCL's peak bus bandwidth (congestion, protocol "
        "overheads, latency of small messages) and the optimizer offload's PCIe traffic; equal times rank "
        "less model parallelism first");
    for (const Checkpointing c : m_sameAsNone)
        left.push_back("recomputation " + std::string(checkpointingName(c))
            + ": it recomputes nothing on this model, the layouts of none again");
    if (m_pruned > 0)
        left.push_back(std::to_string(m_pruned)
            + " layouts not worked out one by one: the most memory-saving layout of the same tensor x "
              "pipeline x context x expert split (highest ZeRO stage, per-block recomputation, smallest "
              "micro-batch) needs over 10 % more than the GPU");
    if (m_result.layoutsSlower > 0)
        left.push_back(std::to_string(m_result.layoutsSlower)
            + " layouts whose lower bound on the step time is above the slowest one listed");
    return m_result;
}

} // namespace cluster
} // namespace

Result<ClusterPlan> planCluster(const Plan& base, const ClusterRequest& request)
{
    if (request.gpus < 1 || request.gpus > kMaxGpus)
        return Error { "the GPU count must be from 1 to " + std::to_string(kMaxGpus) + ", not "
                + std::to_string(request.gpus),
            "gpus" };
    if (request.gpusPerNode < 1 || request.gpusPerNode > kMaxGpus)
        return Error { "the GPUs per node must be at least 1, not " + std::to_string(request.gpusPerNode),
            "gpus_per_node" };
    if (request.globalBatch < 1 || request.globalBatch > kMaxBatch)
        return Error { "the global batch must be from 1 to " + std::to_string(kMaxBatch) + ", not "
                + std::to_string(request.globalBatch),
            "global_batch" };
    if (request.recomputation.empty() || request.shardings.empty() || request.microBatches.empty())
        return Error { "the cluster search needs at least one recomputation mode, sharding and micro-batch",
            "allow" };
    for (const std::int64_t mb : request.microBatches)
        if (mb < 1 || mb > kMaxBatch)
            return Error { "a micro-batch must be from 1 to " + std::to_string(kMaxBatch), "micro_batches" };
    cluster::Search search { base, request };
    return search.run();
}

} // namespace headroom

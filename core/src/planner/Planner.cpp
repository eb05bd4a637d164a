#include "headroom/planner/Planner.h"

#include "planner/PlannerRanking.h"
#include "planner/PlannerWork.h"
#include "planner/SetupChanges.h"
#include "support/Parallel.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <initializer_list>
#include <iterator>
#include <memory>
#include <tuple>
#include <utility>

namespace headroom {

namespace {

/// The rank LoRA gets when the plan has none: Hugging Face PEFT's default (LoraConfig.r = 8).
constexpr std::int64_t kDefaultLoraRank = 8;
/// Tensor-parallel degrees tried: Megatron-LM splits within one node (NVLink), at most 8 GPUs.
constexpr std::int64_t kMaxTensorParallel = 8;

template <typename T> void appendOnce(std::vector<T>& list, const T& value)
{
    if (std::find(list.begin(), list.end(), value) == list.end())
        list.push_back(value);
}

bool hasBatchNorm(const Analysis& analysis)
{
    return std::any_of(analysis.rows.begin(), analysis.rows.end(),
        [](const LayerRow& row) { return row.type.starts_with("BatchNorm"); });
}

std::int64_t ceilDiv(std::int64_t a, std::int64_t b)
{
    return a / b + (a % b != 0 ? 1 : 0);
}

/// The accumulation steps that split `need` samples per replica into micro-batches of at most
/// `maxMicro`: the fewest that divide `need` exactly (`divisors` lists its divisors, ascending),
/// otherwise the fewest at all (the last micro-batch rounded up). 0 if even the most steps do not.
std::int64_t accumulationStepsFor(
    std::int64_t need, std::int64_t maxMicro, const std::vector<std::int64_t>& divisors)
{
    if (maxMicro < 1)
        return 0;
    const std::int64_t fewest = ceilDiv(need, maxMicro);
    if (fewest > kMaxAccumulationSteps)
        return 0;
    const auto exact = std::lower_bound(divisors.begin(), divisors.end(), fewest);
    if (exact != divisors.end() && *exact <= kMaxAccumulationSteps)
        return *exact;
    return fewest;
}

/// The shardings tried: DDP and those of the framework the plan uses, PyTorch FSDP's when it shards
/// with FSDP, DeepSpeed ZeRO's stages otherwise (the frameworks' stages 2 and 3 are modelled alike).
const std::vector<Sharding>& shardingChoices(Sharding base)
{
    static const std::vector<Sharding> fsdp { Sharding::None, Sharding::FsdpShardGradOp,
        Sharding::FsdpFullShard };
    static const std::vector<Sharding> zero { Sharding::None, Sharding::Zero1, Sharding::Zero2,
        Sharding::Zero3 };
    return base == Sharding::FsdpShardGradOp || base == Sharding::FsdpFullShard ? fsdp : zero;
}

std::vector<std::int64_t> divisorsOf(std::int64_t n)
{
    std::vector<std::int64_t> low;
    std::vector<std::int64_t> high;
    for (std::int64_t d = 1; d * d <= n; ++d) {
        if (n % d == 0) {
            low.push_back(d);
            if (d != n / d)
                high.push_back(n / d);
        }
    }
    low.insert(low.end(), high.rbegin(), high.rend());
    return low;
}

struct Shortfall
{
    PlanShortfall what;
    PlanSettings settings;
    std::shared_ptr<const Analysis> analysis;
};

/// One analysis-affecting choice (precision, LoRA, checkpointing): its analysis and what its set-ups gave.
struct Unit
{
    Precision precision = Precision::Fp32;
    LoraOptions lora;
    Checkpointing checkpointing = Checkpointing::None;
    std::shared_ptr<const Analysis> analysis; ///< null when the choice does not apply to the network
    std::vector<PlanCandidate> candidates;
    std::optional<Shortfall> closest;
    std::vector<std::pair<std::int64_t, std::vector<std::int64_t>>> divisors;
    std::size_t examined = 0;
    /// Why the first set-up that could not be modelled could not (the step's byte counts overflow):
    /// when no set-up can, `plan` refuses the model with it, as every other command does.
    std::optional<Error> modelError;
};

/// The search over one plan: one unit per analysis-affecting choice, searched in parallel, merged in
/// the order of enumeration (so the result does not depend on the threads).
class Search final
{
public:
    Search(const Plan& base, const PlanGoal& goal, const PlanAllowances& allow)
        : m_base { base }
        , m_goal { goal }
        , m_allow { allow }
        , m_baseSettings { base }
    {
        m_replayWanted = m_baseSettings.reservedModel;
    }

    Result<PlannerResult> run();

private:
    struct Tried
    {
        bool reached = true; ///< false: short of memory or batch (so offloading may help)
        /// The optimizer step's memory is highest at some batch: its temporaries (the implementation)
        /// matter. When it is not, another implementation changes no figure.
        bool optimizerStepMatters = false;
    };

    [[nodiscard]] std::vector<Precision> precisions() const;
    [[nodiscard]] std::vector<LoraOptions> loraChoices() const;
    [[nodiscard]] std::vector<Parallelism> parallelChoices() const;
    /// Fixes the choices that need no analysis of their own (optimizer implementation, 8-bit state,
    /// parallelism) and returns one unit per analysis-affecting choice, the plan's own first.
    [[nodiscard]] std::vector<Unit> chooseUnits(const Analysis& baseAnalysis);
    /// Merges the searched units into `result` in the order of enumeration.
    void gatherUnits(std::vector<Unit>& units, PlannerResult& result) const;
    /// Past the replay budget (the units searched with the tensors alone): replays the caching allocator
    /// for the set-ups ranked first and lists only those, so every listed max batch is the reserved one.
    void confirmWithAllocator(
        const std::vector<Unit>& units, const PlannerWork& work, PlannerResult& result) const;
    /// The closest set-up as a candidate: its figures with the reserved model where the plan asks for it.
    [[nodiscard]] PlanCandidate closestCandidate(const Shortfall& closest) const;
    /// Analyses the unit's choice (unless it is the plan's own) and tries its set-ups.
    void search(Unit& unit, const Analysis& baseAnalysis) const;
    /// Tries one set-up, choosing its micro-batch and accumulation steps.
    Tried tryConfiguration(Unit& unit, PlanSettings settings) const;
    /// tryConfiguration() when `need` samples per replica do not fit one micro-batch: the fewest
    /// accumulation steps that reach them.
    Tried tryAccumulation(Unit& unit, PlanSettings settings, std::int64_t need, Tried tried) const;
    /// What the search already knows of a set-up's reserved model: the model and its max batch.
    struct Reserved
    {
        std::shared_ptr<const ReservedModel> model;
        ReservedFigures searched; ///< capacityBytes and maxBatch
        std::int64_t accumulationSteps = 1; ///< of the set-up it was built for
    };
    void keep(
        Unit& unit, const PlanSettings& settings, const MemoryModel& model, const Reserved& reserved) const;
    [[nodiscard]] PlanCandidate candidateFor(const Analysis& analysis, const PlanSettings& settings,
        const MemoryModel& model, const Reserved& reserved) const;
    /// The largest micro-batch of `settings` that fits: the reserved model's (the allocator's segments
    /// under the GPU's memory less the overhead) where it can be built, else the tensors'. `reserved`
    /// receives the model.
    [[nodiscard]] std::int64_t largestFitting(const Analysis& analysis, const PlanSettings& settings,
        const MemoryModel& model, Reserved& reserved) const;

    const Plan& m_base;
    bool m_replayWanted = false; ///< the plan asks for the reserved model (PlanSettings::reservedModel)
    PlanGoal m_goal;
    PlanAllowances m_allow;
    PlanSettings m_baseSettings;
    bool m_batchNorm = false;
    std::vector<OptimizerImplementation> m_implementations;
    std::vector<bool> m_eightBit;
    std::vector<Parallelism> m_parallel;
};

/// The closest set-up's shortfall as the front ends show it: a memory shortfall is what the GPU would
/// hold at micro-batch 1 beyond its memory, the closest candidate's own figure, so that it is the same
/// as its `headroom estimate` shortfall and the memory listed beside it (issue 34: one notion of
/// fitting). The search compares set-ups on the tensors' figure (no replay for a set-up that fits no
/// batch), which stays where the closest one has no replay (the allocator not simulated).
PlanShortfall shortfallOf(const Shortfall& closest, const PlanCandidate& candidate)
{
    PlanShortfall s = closest.what;
    const Estimate& e = candidate.estimate;
    if (s.kind == PlanShortfall::Kind::Memory && e.batch == 1 && e.hasHeadroom() && e.headroomBytes() < 0)
        s.bytesOver = static_cast<std::uint64_t>(-e.headroomBytes());
    return s;
}

void noteShortfall(Unit& unit, const PlanShortfall& what, const PlanSettings& settings)
{
    if (!unit.closest || closer(what, unit.closest->what))
        unit.closest = Shortfall { what, settings, unit.analysis };
}

const std::vector<std::int64_t>& divisorsFor(Unit& unit, std::int64_t need)
{
    for (const auto& [n, divisors] : unit.divisors) {
        if (n == need)
            return divisors;
    }
    unit.divisors.emplace_back(need, divisorsOf(need));
    return unit.divisors.back().second;
}

std::vector<Precision> Search::precisions() const
{
    std::vector<Precision> out { m_base.precision };
    if (!m_allow.precision)
        return out;
    const Gpu& gpu = m_base.gpu;
    for (const Precision p :
        { Precision::Fp32, Precision::AmpBf16, Precision::AmpFp16, Precision::Bf16, Precision::Fp16 }) {
        // A catalogue GPU without bfloat16 (before Ampere) cannot train in it; a custom GPU may.
        if (halfType(p) == DType::BFloat16 && !gpu.custom && gpu.bf16Tflops <= 0)
            continue;
        // Where bfloat16 runs as fast as float16, float16 only adds loss scaling and a narrower range for
        // the same memory and speed: bfloat16 is the one to propose.
        if (halfType(p) == DType::Float16 && !gpu.custom && gpu.bf16Tflops > 0
            && gpu.bf16Tflops >= gpu.fp16Tflops)
            continue;
        appendOnce(out, p);
    }
    return out;
}

std::vector<LoraOptions> Search::loraChoices() const
{
    std::vector<LoraOptions> out { m_base.lora };
    if (!m_allow.lora)
        return out;
    LoraOptions lora = m_base.lora;
    if (!lora.enabled())
        lora.rank = kDefaultLoraRank;
    lora.quantizeBase = false;
    appendOnce(out, lora);
    lora.quantizeBase = true;
    appendOnce(out, lora);
    if (m_base.lora.enabled())
        appendOnce(out, LoraOptions {});
    return out;
}

std::vector<Parallelism> Search::parallelChoices() const
{
    const Parallelism& base = m_base.setup.parallel;
    std::vector<Parallelism> out { base };
    std::vector<std::int64_t> degrees { base.tensorParallel };
    for (std::int64_t t = 1; t <= std::min(base.gpus, kMaxTensorParallel); t *= 2) {
        if (base.gpus % t == 0)
            appendOnce(degrees, t);
    }
    for (const std::int64_t t : degrees) {
        Parallelism p = base;
        p.tensorParallel = t;
        p.offloadOptimizer = false;
        // Sharding across one replica shards nothing: only offloading (tried where needed) uses it.
        if (base.gpus / t == 1) {
            p.sharding = Sharding::None;
            appendOnce(out, p);
            continue;
        }
        for (const Sharding s : shardingChoices(base.sharding)) {
            p.sharding = s;
            appendOnce(out, p);
        }
    }
    return out;
}

PlanCandidate Search::candidateFor(const Analysis& analysis, const PlanSettings& settings,
    const MemoryModel& model, const Reserved& reserved) const
{
    SetupFigures figures = figuresOf(
        analysis, model, settings, reserved.model.get(), reserved.model ? &reserved.searched : nullptr)
                               .value();
    PlanCandidate c;
    c.settings = settings;
    c.changes = changesBetween(m_baseSettings, settings, m_batchNorm);
    c.estimate = std::move(figures.estimate);
    c.throughput = std::move(figures.throughput);
    return c;
}

void Search::keep(
    Unit& unit, const PlanSettings& settings, const MemoryModel& model, const Reserved& reserved) const
{
    // The trace writes out up to three micro-batches: a set-up that chose another count (accumulation
    // searched with two) gets its own reserved model, so its figures are `headroom estimate`'s.
    const auto written = [](std::int64_t steps) { return std::min<std::int64_t>(steps, 3); };
    Reserved own;
    if (reserved.model && written(settings.setup.accumulationSteps) != written(reserved.accumulationSteps)) {
        if (auto built = buildReservedModel(*unit.analysis, settings))
            own.model = std::move(built).value();
        own.searched.capacityBytes = ~std::uint64_t { 0 }; // nothing searched: figuresOf() searches
    }
    PlanCandidate c = candidateFor(*unit.analysis, settings, model, own.model ? own : reserved);
    if (m_goal.maxStepSeconds) {
        const double limit = *m_goal.maxStepSeconds;
        if (!c.throughput || c.throughput->stepSeconds > limit) {
            PlanShortfall s;
            s.kind = PlanShortfall::Kind::StepTime;
            s.secondsOver = c.throughput ? c.throughput->stepSeconds - limit : HUGE_VAL;
            noteShortfall(unit, s, settings);
            return;
        }
    }
    unit.candidates.push_back(std::move(c));
}

/// Whether the optimizer step is the highest moment at one of these batches: only then does another
/// implementation (other temporaries) change the peak there.
bool optimizerStepPeaks(const MemoryModel& model, std::initializer_list<std::int64_t> batches)
{
    return std::any_of(batches.begin(), batches.end(), [&](std::int64_t b) {
        return model.peakAt(std::clamp<std::int64_t>(b, 1, kMaxBatch)).phase == StepPhase::OptimizerStep;
    });
}

std::int64_t Search::largestFitting(const Analysis& analysis, const PlanSettings& settings,
    const MemoryModel& model, Reserved& reserved) const
{
    const std::int64_t tensors = model.maxBatch(settings.gpu.memoryBytes);
    auto built = tensors >= 1 && settings.reservedModel
        ? buildReservedModel(analysis, settings)
        : Result<std::shared_ptr<const ReservedModel>> { nullptr };
    reserved.model = built ? std::move(built).value() : nullptr;
    reserved.accumulationSteps = settings.setup.accumulationSteps;
    if (!reserved.model)
        return tensors;
    const std::uint64_t overhead = std::min(settings.gpu.memoryBytes, settings.setup.overheadBytes);
    reserved.searched.capacityBytes = settings.gpu.memoryBytes - overhead;
    reserved.searched.maxBatch = reserved.model->maxBatch(reserved.searched.capacityBytes);
    return std::min(tensors, reserved.searched.maxBatch.batch);
}

Search::Tried Search::tryConfiguration(Unit& unit, PlanSettings settings) const
{
    const Analysis& analysis = *unit.analysis;
    TrainingSetup& setup = settings.setup;
    const std::uint64_t capacity = m_base.gpu.memoryBytes;
    const std::int64_t ranks = setup.parallel.dataParallel();
    if (!m_goal.targetBatch)
        setup.accumulationSteps = m_base.setup.accumulationSteps;
    else
        setup.accumulationSteps = 1;
    setup.batch = 1;
    auto model = MemoryModel::build(analysis, setup);
    ++unit.examined;
    if (!model) { // not a set-up Headroom can estimate (nothing offloading would change)
        if (!unit.modelError)
            unit.modelError = model.error();
        return {};
    }
    Reserved reserved;
    const std::int64_t largest = largestFitting(analysis, settings, model.value(), reserved);
    // What decides the figures: the peak at the largest micro-batch, and just above it.
    Tried tried { true, optimizerStepPeaks(model.value(), { largest, largest + 1 }) };
    if (largest < 1) {
        const auto atOne = model->at(1);
        PlanShortfall s;
        s.kind = PlanShortfall::Kind::Memory;
        s.bytesOver = atOne ? atOne->total() - std::min(atOne->total(), capacity) : UINT64_MAX;
        noteShortfall(unit, s, settings);
        tried.reached = false;
        return tried;
    }
    if (!m_goal.targetBatch) {
        setup.batch = largest;
        keep(unit, settings, model.value(), reserved);
        return tried;
    }
    const std::int64_t need = ceilDiv(*m_goal.targetBatch, ranks);
    if (need <= largest) {
        setup.batch = need;
        tried.optimizerStepMatters
            = tried.optimizerStepMatters || optimizerStepPeaks(model.value(), { need });
        keep(unit, settings, model.value(), reserved);
        return tried;
    }
    return tryAccumulation(unit, std::move(settings), need, tried);
}

Search::Tried Search::tryAccumulation(Unit& unit, PlanSettings settings, std::int64_t need, Tried tried) const
{
    // Accumulation keeps earlier micro-batches' gradients alive: one model for every count above 1
    // (StepTimeline only asks whether there are later micro-batches).
    TrainingSetup& setup = settings.setup;
    setup.accumulationSteps = 2;
    auto accumulating = MemoryModel::build(*unit.analysis, setup);
    ++unit.examined;
    if (!accumulating) {
        if (!unit.modelError)
            unit.modelError = accumulating.error();
        return tried;
    }
    Reserved reserved;
    const std::int64_t largestMicro
        = largestFitting(*unit.analysis, settings, accumulating.value(), reserved);
    tried.optimizerStepMatters = tried.optimizerStepMatters
        || optimizerStepPeaks(accumulating.value(), { largestMicro, largestMicro + 1 });
    const std::int64_t steps = accumulationStepsFor(need, largestMicro, divisorsFor(unit, need));
    if (steps == 0) {
        PlanShortfall s;
        s.kind = PlanShortfall::Kind::Batch;
        setup.batch = std::max<std::int64_t>(largestMicro, 1);
        setup.accumulationSteps = kMaxAccumulationSteps;
        const double most = static_cast<double>(largestMicro) * static_cast<double>(kMaxAccumulationSteps)
            * static_cast<double>(setup.parallel.dataParallel());
        s.batchShort = static_cast<std::int64_t>(static_cast<double>(*m_goal.targetBatch) - most);
        noteShortfall(unit, s, settings);
        tried.reached = false;
        return tried;
    }
    setup.accumulationSteps = steps;
    setup.batch = ceilDiv(need, steps);
    tried.optimizerStepMatters
        = tried.optimizerStepMatters || optimizerStepPeaks(accumulating.value(), { setup.batch });
    keep(unit, settings, accumulating.value(), reserved);
    return tried;
}

void Search::search(Unit& unit, const Analysis& baseAnalysis) const
{
    AnalysisOptions options = m_base.analysisOptions();
    options.precision = unit.precision;
    options.lora = unit.lora;
    options.checkpointing = unit.checkpointing;
    auto analysis = std::make_shared<const Analysis>(
        options == baseAnalysis.options ? baseAnalysis : analyzePlan(m_base, options));
    if (analysis->error)
        return; // this choice does not apply to the network (LoRA without Linear layers)
    // Checkpointing that recomputes nothing drops nothing: the same set-ups as without it.
    if (unit.checkpointing != Checkpointing::None && unit.checkpointing != m_base.checkpointing
        && analysis->recomputeFlopsPerSample == 0)
        return;
    unit.analysis = std::move(analysis);
    for (const Parallelism& par : m_parallel) {
        for (const bool eight : m_eightBit) {
            bool optimizerStepMatters = true;
            for (const OptimizerImplementation implementation : m_implementations) {
                // Another implementation only changes the optimizer step's temporaries.
                if (implementation != m_implementations.front() && !optimizerStepMatters)
                    continue;
                PlanSettings s = m_baseSettings;
                s.precision = unit.precision;
                s.lora = unit.lora;
                s.checkpointing = unit.checkpointing;
                s.setup.parallel = par;
                s.setup.optimizerImplementation = implementation;
                s.setup.eightBitOptimizer = eight;
                const Tried tried = tryConfiguration(unit, s);
                bool matters = tried.optimizerStepMatters;
                if (!tried.reached && !par.offloadOptimizer) {
                    // Offloading only where the set-up does not reach the goal without it.
                    std::vector<Sharding> shardings;
                    if (par.sharding != Sharding::None)
                        shardings.push_back(par.sharding);
                    else if (par.dataParallel() == 1)
                        shardings.assign(shardingChoices(m_base.setup.parallel.sharding).begin() + 1,
                            shardingChoices(m_base.setup.parallel.sharding).end());
                    for (const Sharding sharding : shardings) {
                        s.setup.parallel = par;
                        s.setup.parallel.sharding = sharding;
                        s.setup.parallel.offloadOptimizer = true;
                        matters = tryConfiguration(unit, s).optimizerStepMatters || matters;
                    }
                }
                if (implementation == m_implementations.front())
                    optimizerStepMatters = matters;
            }
        }
    }
}

std::vector<Unit> Search::chooseUnits(const Analysis& baseAnalysis)
{
    m_batchNorm = hasBatchNorm(baseAnalysis);
    const Optimizer optimizer = m_base.setup.optimizer;
    m_implementations = { m_base.setup.optimizerImplementation };
    for (const OptimizerImplementation i : allOptimizerImplementations()) {
        if (i != OptimizerImplementation::Fused || hasFusedImplementation(optimizer))
            appendOnce(m_implementations, i);
    }
    m_eightBit = { m_base.setup.eightBitOptimizer };
    if (m_allow.eightBitOptimizer && hasEightBitVariant(optimizer))
        appendOnce(m_eightBit, !m_base.setup.eightBitOptimizer);
    m_parallel = parallelChoices();
    std::vector<Checkpointing> checkpointings { m_base.checkpointing };
    for (const Checkpointing c : allCheckpointings())
        appendOnce(checkpointings, c);

    std::vector<Unit> units;
    for (const Precision precision : precisions()) {
        for (const LoraOptions& lora : loraChoices()) {
            for (const Checkpointing checkpointing : checkpointings) {
                Unit& unit = units.emplace_back();
                unit.precision = precision;
                unit.lora = lora;
                unit.checkpointing = checkpointing;
            }
        }
    }
    return units;
}

void Search::gatherUnits(std::vector<Unit>& units, PlannerResult& result) const
{
    std::vector<PlanCandidate> candidates;
    std::optional<Shortfall> closest;
    for (Unit& unit : units) {
        if (!unit.analysis)
            continue;
        ++result.analyses;
        result.analysedRows += unit.analysis->rows.size();
        result.setupsExamined += unit.examined;
        std::move(unit.candidates.begin(), unit.candidates.end(), std::back_inserter(candidates));
        if (unit.closest && (!closest || closer(unit.closest->what, closest->what)))
            closest = unit.closest;
    }
    result.candidates = rankSetups(std::move(candidates));
    if (result.candidates.empty() && closest) {
        result.closest = closestCandidate(*closest);
        result.shortfall = shortfallOf(*closest, *result.closest);
    }
}

PlanCandidate Search::closestCandidate(const Shortfall& closest) const
{
    const MemoryModel model = MemoryModel::build(*closest.analysis, closest.settings.setup).value();
    Reserved reserved;
    auto built = m_replayWanted ? buildReservedModel(*closest.analysis, closest.settings)
                                : Result<std::shared_ptr<const ReservedModel>> { nullptr };
    if (built)
        reserved.model = std::move(built).value();
    reserved.searched.capacityBytes = ~std::uint64_t { 0 }; // nothing searched: figuresOf() searches
    PlanCandidate c = candidateFor(*closest.analysis, closest.settings, model, reserved);
    c.settings.reservedModel = m_replayWanted;
    return c;
}

void Search::confirmWithAllocator(
    const std::vector<Unit>& units, const PlannerWork& work, PlannerResult& result) const
{
    const std::vector<PlanCandidate> ranked = std::move(result.candidates);
    const auto analysisOf = [&](const PlanSettings& s) {
        for (const Unit& unit : units) {
            if (unit.analysis && unit.precision == s.precision && unit.lora == s.lora
                && unit.checkpointing == s.checkpointing)
                return unit.analysis;
        }
        return std::shared_ptr<const Analysis> {};
    };
    // In rank order, in rounds, until enough set-ups still fit with the allocator (a set-up whose
    // reserved max batch misses the goal makes room for the next), at most twice the budget.
    std::vector<Unit> checks;
    std::size_t listed = 0;
    while (checks.size() < ranked.size() && listed < work.confirmed && checks.size() < 2 * work.confirmed) {
        const std::size_t first = checks.size();
        const std::size_t round = std::min(ranked.size() - first, work.confirmed - listed);
        checks.resize(first + round);
        forEachInParallel(round, [&](std::size_t k) {
            PlanSettings s = ranked[first + k].settings;
            s.reservedModel = true;
            checks[first + k].analysis = analysisOf(s);
            if (checks[first + k].analysis)
                tryConfiguration(checks[first + k], s);
        });
        for (std::size_t k = first; k < checks.size(); ++k)
            listed += checks[k].candidates.size();
    }
    std::vector<PlanCandidate> candidates;
    std::optional<Shortfall> closest;
    for (Unit& check : checks) {
        result.setupsExamined += check.examined;
        std::move(check.candidates.begin(), check.candidates.end(), std::back_inserter(candidates));
        if (check.closest && (!closest || closer(check.closest->what, closest->what)))
            closest = check.closest;
    }
    result.candidates = rankSetups(std::move(candidates));
    if (result.candidates.empty() && closest && !result.closest) {
        result.closest = closestCandidate(*closest);
        result.shortfall = shortfallOf(*closest, *result.closest);
    }
    result.leftOut.push_back(unconfirmedText(work, checks.size(), ranked.size()));
}

Result<PlannerResult> Search::run()
{
    const Analysis baseAnalysis = analyzePlan(m_base, m_base.analysisOptions());
    if (baseAnalysis.error)
        return *baseAnalysis.error; // the front ends say "cannot plan" in their own words
    std::vector<Unit> units = chooseUnits(baseAnalysis);
    PlannerResult result;
    const PlannerWork work = boundPlannerWork(m_base.network, baseAnalysis, units.size(),
        m_parallel.size() * m_eightBit.size() * 2, m_baseSettings.reservedModel);
    result.leftOut = work.leftOut;
    // The choices come in order, the plan's own first: the budget keeps the first ones.
    units.erase(units.begin() + static_cast<std::ptrdiff_t>(work.choices), units.end());
    m_baseSettings.reservedModel = work.replayAllocator;
    forEachInParallel(units.size(), [&](std::size_t i) { search(units[i], baseAnalysis); });
    gatherUnits(units, result);
    if (result.candidates.empty() && !result.closest) {
        // Nothing could even be modelled: the reason, not "nothing fits" (the first choice's first).
        for (const Unit& unit : units) {
            if (unit.modelError)
                return *unit.modelError;
        }
    }
    if (work.confirmed > 0)
        confirmWithAllocator(units, work, result);
    return result;
}

} // namespace

Result<PlannerResult> planSetups(const Plan& base, const PlanGoal& goal, const PlanAllowances& allow)
{
    if (goal.targetBatch && *goal.targetBatch < 1)
        return Error { "the target batch must be at least 1, not " + std::to_string(*goal.targetBatch),
            "target_batch" };
    if (goal.maxStepSeconds && !(*goal.maxStepSeconds > 0))
        return Error { "the step-time limit must be a positive number of seconds", "max_step_seconds" };
    if (auto problem = validateSetup(base.setup))
        return *problem;
    Search search { base, goal, allow };
    return search.run();
}

} // namespace headroom

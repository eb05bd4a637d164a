#include "headroom/allocator/ReservedModel.h"

#include "step/StepTrace.h"
#include "support/Parallel.h"

#include <algorithm>
#include <atomic>
#include <functional>
#include <map>
#include <mutex>
#include <optional>

namespace headroom {

/// What one replay needs, kept for the next.
struct ReservedModel::Scratch
{
    /// An allocator and room for the trace's handles; one per replay running at a time (threads of a
    /// `compare` replay one model at once), kept for the next.
    struct Replayer
    {
        /// Room for the trace's blocks up front: a table grown by doubling copies and touches it twice.
        explicit Replayer(std::size_t blocks)
            : allocator { AllocatorSettings {}, blocks }
        {
        }
        CachingAllocator allocator;
        std::vector<CachingAllocator::Handle> handles;
    };
    std::mutex mutex;
    std::vector<std::unique_ptr<Replayer>> idle;
    /// Replays with memory to spare, by batch: every GPU `compare` runs asks for the same ones.
    std::mutex runsMutex;
    std::map<std::int64_t, ReservedRun> uncapped;
    /// Max batch searches by capacity (GPUs of the same memory and overhead ask the same question), and
    /// what their replays showed (FitMemo::untouched holds under any capacity).
    std::map<std::uint64_t, ReservedMaxBatch> maxBatches;
    std::map<std::int64_t, std::uint64_t> untouched;
    std::atomic<std::size_t> replays { 0 }; ///< Work
    std::atomic<std::uint64_t> events { 0 };
    std::once_flag prefixMade;
    std::unique_ptr<ReplayPrefix> prefix; ///< null where it would save too little (kPrefixWorthEvents)
};

/// The allocator after the trace's first events, those before the first tensor whose size depends on the
/// batch (the weights, made before the first batch), replayed once with memory to spare: made at the first
/// max batch replay, and where the capacity cannot have changed them every such replay starts from it
/// rather than from the first event (ReservedModel::replayFit).
struct ReservedModel::ReplayPrefix
{
    explicit ReplayPrefix(std::size_t blocks)
        : allocator { AllocatorSettings {}, blocks }
    {
    }
    std::size_t end = 0; ///< events [0, end)
    CachingAllocator allocator;
    std::vector<CachingAllocator::Handle> handles;
};

namespace {
/// Fewer events before the first batch-dependent one than this are replayed rather than copied.
constexpr std::size_t kPrefixWorthEvents = 1024;
/// Replays of traces shorter than this run one by one: a thread takes tens of microseconds to start, a
/// replay of this many events about a millisecond (LeNet-5's 160-event replays side by side, thousands of
/// them in a ragged search, took four times as long).
constexpr std::size_t kSideBySideEvents = 16384;
} // namespace

std::size_t ReservedModel::sideBySide() const noexcept
{
    return m_trace.events().size() >= kSideBySideEvents ? parallelWidth() : 1;
}

Result<ReservedModel> ReservedModel::build(
    const Analysis& analysis, const TrainingSetup& setup, const ReservedOptions& options)
{
    TrainingSetup bare = setup;
    bare.overheadBytes = 0; // the context lives outside the allocator
    auto allocated = MemoryModel::build(analysis, bare);
    if (!allocated)
        return allocated.error();
    ReservedModel m;
    m.m_options = options;
    m.m_cublasWorkspace
        = options.cublasWorkspaces ? headroom::cublasWorkspaceBytes(options.gpu, options.torch) : 0;
    step::TraceSettings settings;
    settings.steps = std::max(1, options.steps);
    settings.microBatches = static_cast<int>(std::min<std::int64_t>(setup.accumulationSteps, 3));
    settings.cublasWorkspace = m.m_cublasWorkspace;
    settings.cublasLtWorkspace = options.cublasWorkspaces ? cublasLtWorkspaceBytes(options.torch) : 0;
    auto trace = step::buildTrace(analysis, setup, allocated.value().timeline().conditions(), settings);
    if (!trace)
        return trace.error();
    m.m_trace = std::move(trace).value();
    m.m_allocated = std::move(allocated).value();
    m.m_scratch = std::make_shared<Scratch>();
    return m;
}

namespace {
/// A cuBLAS handle's or a cuDNN call's workspace: allocated through the caching allocator, so in
/// max_memory_allocated, but in no tensor of the step model.
bool isWorkspace(TraceKind k)
{
    return k == TraceKind::CublasWorkspace || k == TraceKind::CudnnWorkspace;
}

/// The index of a (step, stage) phase in ReservedRun::phases.
std::size_t phaseIndex(const TraceEvent& e)
{
    return e.step == 0 ? 0 : 1 + (e.step - 1) * 3 + (static_cast<std::size_t>(e.stage) - 1);
}
} // namespace

void ReservedModel::withAllocator(const AllocatorSettings& settings,
    const std::function<void(CachingAllocator&, std::vector<CachingAllocator::Handle>&)>& use) const
{
    std::unique_ptr<Scratch::Replayer> r;
    if (m_scratch) {
        const std::lock_guard<std::mutex> lock { m_scratch->mutex };
        if (!m_scratch->idle.empty()) {
            r = std::move(m_scratch->idle.back());
            m_scratch->idle.pop_back();
        }
    }
    if (!r)
        r = std::make_unique<Scratch::Replayer>(m_trace.blocks());
    r->allocator.reset(settings);
    r->handles.assign(m_trace.blocks(), CachingAllocator::kFailed);
    use(r->allocator, r->handles);
    if (m_scratch) {
        const std::lock_guard<std::mutex> lock { m_scratch->mutex };
        m_scratch->idle.push_back(std::move(r));
    }
}

std::size_t ReservedModel::replayEvents(CachingAllocator& a, std::vector<CachingAllocator::Handle>& handles,
    std::int64_t batch, std::size_t end, const std::function<void(std::size_t)>& after,
    std::size_t begin) const
{
    const auto& events = m_trace.events();
    end = std::min(end, events.size());
    begin = std::min(begin, end);
    if (m_scratch) {
        ++m_scratch->replays;
        m_scratch->events += end - begin; // less what a failure leaves out, below
    }
    for (std::size_t i = begin; i < end; ++i) {
        const TraceEvent& e = events[i];
        if (e.allocate) {
            const std::uint64_t bytes = AllocationTrace::bytesAt(e, batch);
            if (bytes == 0)
                continue; // PyTorch does not call the allocator for an empty tensor
            const CachingAllocator::Handle h = a.allocate(bytes, e.block);
            if (h == CachingAllocator::kFailed) {
                if (e.optional)
                    continue; // cuDNN's try_configs: a plan without this workspace runs instead
                if (m_scratch)
                    m_scratch->events -= end - i - 1;
                return i;
            }
            handles[e.block] = h;
        } else if (handles[e.block] != CachingAllocator::kFailed) {
            a.free(handles[e.block]);
            handles[e.block] = CachingAllocator::kFailed;
        }
        if (after)
            after(i);
    }
    return ReservedRun::kNoEvent;
}

ReservedModel::FitReplay ReservedModel::replayFit(std::int64_t batch, std::uint64_t capacity) const
{
    AllocatorSettings settings = m_options.allocator;
    settings.capacity = capacity;
    FitReplay out;
    const ReplayPrefix* prefix = prefixUnder(settings);
    withAllocator(settings, [&](CachingAllocator& a, std::vector<CachingAllocator::Handle>& handles) {
        if (prefix != nullptr) {
            a.copyState(prefix->allocator, settings);
            handles = prefix->handles;
        }
        out.fits = replayEvents(a, handles, batch, m_trace.events().size(), {}, prefix ? prefix->end : 0)
            == ReservedRun::kNoEvent;
        // Without max_split_size every refused segment is retried after release_cached_blocks (counted);
        // garbage collection acts by a fraction of the capacity.
        out.untouched = out.fits && a.stats().allocRetries == 0 && a.stats().ooms == 0
            && settings.maxSplitSize == kNoLimit && settings.garbageCollectionThreshold <= 0.0;
        out.peakAllocated = a.stats().peakAllocated;
        out.peakReserved = a.stats().peakReserved;
    });
    return out;
}

const ReservedModel::ReplayPrefix* ReservedModel::prefixUnder(const AllocatorSettings& settings) const
{
    if (!m_scratch || settings.expandableSegments || settings.garbageCollectionThreshold > 0.0)
        return nullptr; // their choices depend on the capacity from the first segment on
    std::call_once(m_scratch->prefixMade, [&] {
        const auto& events = m_trace.events();
        std::size_t end = 0;
        while (end < events.size() && !(events[end].allocate && events[end].bytes.perSample != 0))
            ++end;
        if (end < kPrefixWorthEvents)
            return;
        auto prefix = std::make_unique<ReplayPrefix>(end);
        AllocatorSettings unlimited = m_options.allocator;
        unlimited.capacity = kNoLimit;
        unlimited.physicalCapacity = kNoLimit;
        prefix->allocator.reset(unlimited);
        prefix->handles.assign(m_trace.blocks(), CachingAllocator::kFailed);
        prefix->end = end;
        replayEvents(prefix->allocator, prefix->handles, 1, end, {});
        m_scratch->prefix = std::move(prefix);
    });
    const ReplayPrefix* prefix = m_scratch->prefix.get();
    // Under a capacity that never refused one of its segments the allocator made the same choices. (The
    // physical capacity defaults to the capacity: kNoLimit means the same.)
    const std::uint64_t reserved = prefix != nullptr ? prefix->allocator.stats().peakReserved : 0;
    const std::uint64_t physical
        = settings.physicalCapacity == kNoLimit ? settings.capacity : settings.physicalCapacity;
    if (prefix == nullptr || settings.capacity < reserved || physical < reserved)
        return nullptr;
    return prefix;
}

void ReservedModel::remember(
    FitMemo& memo, std::int64_t batch, std::uint64_t capacity, const FitReplay& replay) const
{
    memo.known.emplace(std::pair { batch, capacity }, replay.fits);
    if (replay.untouched) {
        auto [it, inserted] = memo.untouched.try_emplace(batch, capacity);
        it->second = std::min(it->second, capacity);
    }
}

std::optional<bool> ReservedModel::known(const FitMemo& memo, std::int64_t batch, std::uint64_t capacity)
{
    if (const auto it = memo.untouched.find(batch); it != memo.untouched.end() && it->second <= capacity)
        return true;
    if (const auto it = memo.known.find({ batch, capacity }); it != memo.known.end())
        return it->second;
    return std::nullopt;
}

bool ReservedModel::fits(std::int64_t batch, std::uint64_t capacity, FitMemo* memo) const
{
    if (memo == nullptr)
        return replayFit(batch, capacity).fits;
    ++memo->queries;
    if (const std::optional<bool> answer = known(*memo, batch, capacity))
        return *answer; // a replay is deterministic: the same batch and capacity, the same answer
    ++memo->replays;
    const FitReplay replay = replayFit(batch, capacity);
    remember(*memo, batch, capacity, replay);
    return replay.fits;
}

void ReservedModel::replayAhead(
    const std::vector<std::int64_t>& batches, std::uint64_t capacity, FitMemo* memo) const
{
    if (memo == nullptr || sideBySide() < 2)
        return;
    std::vector<std::int64_t> unknown;
    for (const std::int64_t b : batches) {
        if (b >= 1 && !known(*memo, b, capacity)
            && std::find(unknown.begin(), unknown.end(), b) == unknown.end())
            unknown.push_back(b);
    }
    if (unknown.size() < 2)
        return; // nothing to run side by side: the search's own question replays it
    std::vector<FitReplay> replays(unknown.size());
    forEachInParallel(unknown.size(), [&](std::size_t i) { replays[i] = replayFit(unknown[i], capacity); });
    for (std::size_t i = 0; i < unknown.size(); ++i)
        remember(*memo, unknown[i], capacity, replays[i]);
    memo->replays += unknown.size();
}

bool ReservedModel::replay(std::int64_t batch, std::uint64_t capacity, ReservedRun& out, std::size_t stopAt,
    CachingAllocator* keep) const
{
    AllocatorSettings settings = m_options.allocator;
    settings.capacity = capacity;
    if (keep == nullptr) {
        bool fits = false;
        withAllocator(settings, [&](CachingAllocator& a, std::vector<CachingAllocator::Handle>& handles) {
            fits = replayWith(a, handles, batch, capacity, out, stopAt);
        });
        return fits;
    }
    std::vector<CachingAllocator::Handle> handles(m_trace.blocks(), CachingAllocator::kFailed);
    return replayWith(*keep, handles, batch, capacity, out, stopAt);
}

bool ReservedModel::replayWith(CachingAllocator& a, std::vector<CachingAllocator::Handle>& handles,
    std::int64_t batch, std::uint64_t capacity, ReservedRun& out, std::size_t stopAt) const
{
    out.batch = batch;
    out.capacity = capacity;
    out.phases.assign(1 + 3 * static_cast<std::size_t>(std::max(1, m_options.steps)), PhasePeak {});
    for (std::size_t i = 0; i < out.phases.size(); ++i) {
        out.phases[i].step = static_cast<std::uint8_t>(i == 0 ? 0 : 1 + (i - 1) / 3);
        out.phases[i].stage = i == 0 ? TraceStage::Setup : static_cast<TraceStage>(1 + (i - 1) % 3);
    }
    const auto& events = m_trace.events();
    std::size_t phase = 0;
    std::uint64_t allocated = 0; // after the previous event
    std::uint64_t reserved = 0;
    std::uint64_t workspaces = 0; // the workspaces' blocks allocated after the previous event
    // After each event: the phase's peaks, which start from what was held as the phase began (the
    // measurements reset the peak statistics then), and where the reserved peak was first reached.
    out.outOfMemoryEvent = replayEvents(a, handles, batch, stopAt, [&](std::size_t i) {
        const std::size_t p = std::min(phaseIndex(events[i]), out.phases.size() - 1);
        if (p != phase) {
            phase = p;
            out.phases[p].allocated = std::max(out.phases[p].allocated, allocated);
            out.phases[p].reserved = std::max(out.phases[p].reserved, reserved);
        }
        // A block's allocated bytes are what the allocator counts for it (rounded, or the whole cached
        // block it took unsplit): the change in allocated bytes its event made.
        if (isWorkspace(events[i].kind))
            workspaces = workspaces + a.stats().allocated - allocated;
        if (a.stats().allocated > out.peakAllocated) {
            out.peakAllocated = a.stats().allocated;
            out.peakAllocatedWorkspaces = workspaces;
        }
        allocated = a.stats().allocated;
        reserved = a.stats().reserved;
        out.phases[p].allocated = std::max(out.phases[p].allocated, allocated);
        out.phases[p].reserved = std::max(out.phases[p].reserved, reserved);
        if (reserved > out.peakReserved) {
            out.peakReservedEvent = i;
            out.peakReserved = reserved;
        }
    });
    out.peakAllocated = a.stats().peakAllocated;
    out.peakReserved = std::max(out.peakReserved, a.stats().peakReserved);
    out.allocRetries = a.stats().allocRetries;
    out.fits = out.outOfMemoryEvent == ReservedRun::kNoEvent;
    return out.fits;
}

ReservedRun ReservedModel::uncappedRun(std::int64_t batch) const
{
    if (m_scratch) {
        const std::lock_guard<std::mutex> lock { m_scratch->runsMutex };
        if (const auto it = m_scratch->uncapped.find(batch); it != m_scratch->uncapped.end())
            return it->second;
    }
    ReservedRun out;
    replay(batch, kNoLimit, out, m_trace.events().size(), nullptr);
    if (m_scratch) {
        const std::lock_guard<std::mutex> lock { m_scratch->runsMutex };
        if (m_scratch->uncapped.size() >= 16)
            m_scratch->uncapped.clear();
        m_scratch->uncapped.emplace(batch, out);
    }
    return out;
}

ReservedRun ReservedModel::run(std::int64_t batch, std::uint64_t capacity, bool withFragmentation) const
{
    ReservedRun out;
    // Under a capacity no segment the replay with memory to spare makes ever reaches, the allocator makes
    // the same choices: nothing is refused, so nothing is released. Garbage collection acts by a fraction
    // of the capacity, and an expandable segment's address range follows the device's memory.
    const AllocatorSettings& options = m_options.allocator;
    const bool sameUnderAnyLarger = !options.expandableSegments && options.garbageCollectionThreshold <= 0.0
        && options.physicalCapacity == kNoLimit;
    if (capacity == kNoLimit || sameUnderAnyLarger) {
        out = uncappedRun(batch);
        if (capacity == kNoLimit || (out.fits && out.peakReserved <= capacity))
            out.capacity = capacity;
        else
            out = ReservedRun {};
    }
    if (out.phases.empty())
        replay(batch, capacity, out, m_trace.events().size(), nullptr);
    if (!withFragmentation || out.peakReservedEvent == ReservedRun::kNoEvent)
        return out;
    // Replay up to the reserved peak and read the free blocks there.
    AllocatorSettings settings = m_options.allocator;
    settings.capacity = capacity;
    CachingAllocator a { settings };
    ReservedRun again;
    replay(batch, capacity, again, out.peakReservedEvent + 1, &a);
    std::vector<TraceKind> kinds(m_trace.blocks(), TraceKind::Activation);
    std::vector<std::uint32_t> rows(m_trace.blocks(), kNoTraceRow);
    for (const TraceEvent& e : m_trace.events()) {
        if (e.allocate) {
            kinds[e.block] = e.kind;
            rows[e.block] = e.row;
        }
    }
    std::map<std::tuple<bool, TraceKind, std::uint32_t>, FragmentationSource> bySource;
    for (const FragmentationEntry& f : a.fragmentationNow()) {
        const TraceKind kind = f.tag < kinds.size() ? kinds[f.tag] : TraceKind::Activation;
        const std::uint32_t row = f.tag < rows.size() ? rows[f.tag] : kNoTraceRow;
        FragmentationSource& s = bySource[{ f.smallPool, kind, row }];
        s.kind = kind;
        s.row = row;
        s.smallPool = f.smallPool;
        s.bytes += f.bytes;
        s.blocks += f.blocks;
    }
    for (const auto& [key, s] : bySource)
        out.fragmentation.push_back(s);
    std::sort(out.fragmentation.begin(), out.fragmentation.end(),
        [](const auto& x, const auto& y) { return x.bytes > y.bytes; });
    return out;
}

ReservedModel::AfterEvents ReservedModel::afterEvents(std::int64_t batch, std::uint64_t capacity) const
{
    const std::size_t n = m_trace.events().size();
    AfterEvents after { std::vector<std::uint64_t>(n + 1, 0), std::vector<std::uint64_t>(n + 1, 0) };
    std::vector<bool> seen(n + 1, false);
    AllocatorSettings settings = m_options.allocator;
    settings.capacity = capacity;
    std::size_t failed = ReservedRun::kNoEvent;
    withAllocator(settings, [&](CachingAllocator& a, std::vector<CachingAllocator::Handle>& handles) {
        std::uint64_t allocated = 0;
        std::uint64_t workspaces = 0;
        failed = replayEvents(a, handles, batch, n, [&](std::size_t i) {
            if (isWorkspace(m_trace.events()[i].kind))
                workspaces = workspaces + a.stats().allocated - allocated;
            allocated = a.stats().allocated;
            after.reserved[i + 1] = a.stats().reserved;
            after.workspaces[i + 1] = workspaces;
            seen[i + 1] = true;
        });
    });
    if (failed != ReservedRun::kNoEvent && capacity != kNoLimit)
        return afterEvents(batch, kNoLimit);
    for (std::size_t i = 1; i <= n; ++i) {
        if (!seen[i]) { // an event the allocator did not see (an empty tensor) changes nothing
            after.reserved[i] = after.reserved[i - 1];
            after.workspaces[i] = after.workspaces[i - 1];
        }
    }
    return after;
}

std::vector<EventMemory> ReservedModel::eventMemory(
    std::int64_t batch, std::uint8_t step, std::uint64_t capacity) const
{
    const auto& events = m_trace.events();
    std::vector<EventMemory> out;
    AllocatorSettings settings = m_options.allocator;
    settings.capacity = capacity;
    std::size_t failed = ReservedRun::kNoEvent;
    withAllocator(settings, [&](CachingAllocator& a, std::vector<CachingAllocator::Handle>& handles) {
        std::uint64_t allocated = 0;
        std::uint64_t reserved = 0;
        std::size_t next = 0; // the first event not yet written out
        const auto upTo = [&](std::size_t end) { // events the allocator skipped change nothing
            for (; next < end; ++next) {
                if (step == 0 || events[next].step == step)
                    out.push_back(EventMemory { next, events[next].stage, allocated, reserved, 0 });
            }
        };
        failed = replayEvents(a, handles, batch, events.size(), [&](std::size_t i) {
            upTo(i);
            const std::uint64_t now = a.stats().allocated;
            const std::uint64_t change = now > allocated ? now - allocated : allocated - now;
            allocated = now;
            reserved = a.stats().reserved;
            if (step == 0 || events[i].step == step)
                out.push_back(EventMemory { i, events[i].stage, allocated, reserved, change });
            next = i + 1;
        });
        if (failed == ReservedRun::kNoEvent)
            upTo(events.size());
    });
    if (failed != ReservedRun::kNoEvent && capacity != kNoLimit)
        return eventMemory(batch, step, kNoLimit);
    return out;
}

std::vector<std::uint64_t> ReservedModel::reservedAtMoments(const StepTimeline& timeline,
    const std::vector<std::size_t>& moments, std::int64_t batch, bool firstStep, std::uint64_t capacity) const
{
    return atMoments(timeline, moments, firstStep, afterEvents(batch, capacity).reserved, false);
}

std::vector<std::uint64_t> ReservedModel::workspacesAtMoments(const StepTimeline& timeline,
    const std::vector<std::size_t>& moments, std::int64_t batch, bool firstStep, std::uint64_t capacity) const
{
    return atMoments(timeline, moments, firstStep, afterEvents(batch, capacity).workspaces, true);
}

std::vector<std::uint64_t> ReservedModel::atMoments(const StepTimeline& timeline,
    const std::vector<std::size_t>& moments, bool firstStep, const std::vector<std::uint64_t>& after,
    bool window) const
{
    const auto step = static_cast<std::uint8_t>(firstStep ? 1 : std::min(2, std::max(1, m_options.steps)));
    // The step's first micro-batch and its last (the timeline's later one), trace moment by ordinal.
    std::uint8_t lastMicroBatch = 0;
    for (const TraceMoment& m : m_trace.moments())
        lastMicroBatch = m.step == step ? std::max(lastMicroBatch, m.microBatch) : lastMicroBatch;
    // The value each trace moment reads: at its event, or the most since the previous moment's.
    std::vector<std::size_t> first, later;
    std::vector<std::uint64_t> firstAt, laterAt;
    std::size_t previous = 0;
    for (const TraceMoment& m : m_trace.moments()) {
        std::uint64_t value = after[m.event];
        if (window) {
            for (std::size_t j = previous + 1; j < m.event; ++j)
                value = std::max(value, after[j]);
        }
        previous = m.event;
        if (m.step == step && m.microBatch == 0) {
            first.push_back(m.event);
            firstAt.push_back(value);
        }
        if (m.step == step && m.microBatch == lastMicroBatch && lastMicroBatch > 0) {
            later.push_back(m.event);
            laterAt.push_back(value);
        }
    }
    // The timeline's micro-batches must have as many moments, written out, as the trace's.
    std::size_t firstCount = 0, laterCount = 0;
    for (const StepMoment& m : timeline.moments()) {
        std::size_t& count = m.laterMicroBatch ? laterCount : firstCount;
        if (m.phase != StepPhase::OptimizerStep)
            count = std::max(count, m.ordinal + m.ordinals);
    }
    if (firstCount != first.size() || laterCount != later.size())
        return {};
    // The optimizer step: the most from the last micro-batch's end to the step's end.
    const auto& events = m_trace.events();
    const std::vector<std::size_t>& last = later.empty() ? first : later;
    std::uint64_t optimizer = last.empty() ? 0 : after[last.back()];
    for (std::size_t i = 0; i < events.size(); ++i) {
        if (events[i].step == step && events[i].stage == TraceStage::Optimizer)
            optimizer = std::max(optimizer, after[i + 1]);
    }
    std::vector<std::uint64_t> out;
    out.reserve(moments.size());
    for (const std::size_t k : moments) {
        const StepMoment& m = timeline.moments().at(k);
        if (m.phase == StepPhase::OptimizerStep) {
            out.push_back(optimizer);
            continue;
        }
        const std::vector<std::uint64_t>& at = m.laterMicroBatch ? laterAt : firstAt;
        std::uint64_t most = 0;
        for (std::size_t o = m.ordinal; o < m.ordinal + m.ordinals; ++o)
            most = std::max(most, at[o]);
        out.push_back(most);
    }
    return out;
}

std::uint64_t ReservedModel::reservedAt(std::int64_t batch) const
{
    return run(batch).peakReserved;
}

std::uint64_t ReservedModel::allocatedAt(std::int64_t batch) const
{
    return run(batch).peakAllocated;
}

ReservedModel::Work ReservedModel::work() const noexcept
{
    return m_scratch ? Work { m_scratch->replays.load(), m_scratch->events.load() } : Work {};
}

std::uint64_t ReservedModel::marginBytes(std::uint64_t capacity) noexcept
{
    return static_cast<std::uint64_t>(static_cast<double>(capacity) * kReservedMarginFraction);
}

std::int64_t ReservedModel::largestFitting(
    std::uint64_t capacity, std::int64_t lo, std::int64_t hi, std::int64_t guess, FitMemo* memo) const
{
    // Gallop from the guess to a bracket (lo fits, hi does not), then bisect it. Where cores are free, the
    // questions the search will ask next if the answers go on as so far are replayed side by side first
    // (replayAhead): the same questions and answers in the same order, fewer rounds of replays.
    const std::size_t width = memo != nullptr ? sideBySide() : 1;
    const auto gallopAhead = [&](std::int64_t from, std::int64_t step, std::int64_t direction) {
        if (width < 2)
            return;
        std::vector<std::int64_t> next;
        for (std::int64_t x = from; next.size() < width && step <= (hi - lo); step *= 2) {
            x += direction * step;
            const std::optional<bool> answer = x <= lo || x >= hi ? std::nullopt : known(*memo, x, capacity);
            if (x <= lo || x >= hi || (answer && *answer == (direction < 0)))
                break; // the gallop stops there
            if (!answer)
                next.push_back(x);
        }
        replayAhead(next, capacity, memo);
    };
    if (hi - lo <= 1)
        return lo;
    const std::int64_t g = std::clamp(guess, lo + 1, hi - 1);
    if (width >= 3)
        replayAhead({ g, g + 1, g - 1 }, capacity, memo);
    if (fits(g, capacity, memo)) {
        lo = g;
        for (std::int64_t step = 1; lo + step < hi; step *= 2) {
            gallopAhead(lo, step, 1);
            if (!fits(lo + step, capacity, memo)) {
                hi = lo + step;
                break;
            }
            lo += step;
        }
    } else {
        hi = g;
        for (std::int64_t step = 1; hi - step > lo; step *= 2) {
            gallopAhead(hi, step, -1);
            if (fits(hi - step, capacity, memo)) {
                lo = hi - step;
                break;
            }
            hi -= step;
        }
    }
    while (hi - lo > 1) {
        const std::int64_t mid = lo + (hi - lo) / 2;
        if (width >= 3) // the middle and the next question's either way
            replayAhead({ mid, lo + (mid - lo) / 2, mid + (hi - mid) / 2 }, capacity, memo);
        (fits(mid, capacity, memo) ? lo : hi) = mid;
    }
    return lo;
}

std::int64_t ReservedModel::firstFailureBelow(
    std::uint64_t capacity, std::int64_t hi, std::int64_t guess, FitMemo* memo) const
{
    std::int64_t b = largestFitting(capacity, 0, hi, guess, memo);
    // Near the edge the cache's layout makes some batches fail above the first that does; a bisection can
    // land past it. Look below the answer (1, 2, 4, ... batches down, to about 3 % of it) and start again
    // below any failure found, within a budget (kMaxBatchEdgeRestarts, kMaxBatchSearchEvents): where
    // failures recur all the way down the walk would grow with the answer.
    const auto spent = [&](int restarts) {
        return restarts >= kMaxBatchEdgeRestarts
            && (memo == nullptr
                || static_cast<std::uint64_t>(memo->queries) * m_trace.events().size()
                    >= kMaxBatchSearchEvents);
    };
    const std::size_t width = memo != nullptr ? sideBySide() : 1;
    const auto walkAhead = [&](std::int64_t d) { // the walk's next questions, while every one fits
        if (width < 2)
            return;
        std::vector<std::int64_t> next;
        for (; next.size() < width && d <= std::max<std::int64_t>(1, b / 32) && b - d >= 1; d *= 2) {
            const std::optional<bool> answer = known(*memo, b - d, capacity);
            if (answer && !*answer)
                break; // the walk starts again there
            if (!answer)
                next.push_back(b - d);
        }
        replayAhead(next, capacity, memo);
    };
    int restarts = 0;
    for (std::int64_t d = 1; b > 1 && d <= std::max<std::int64_t>(1, b / 32);) {
        walkAhead(d);
        if (b - d >= 1 && !fits(b - d, capacity, memo)) {
            b = largestFitting(capacity, 0, b - d, b - d - 1, memo);
            if (spent(++restarts))
                break;
            d = 1;
            continue;
        }
        d *= 2;
    }
    return b;
}

ReservedMaxBatch ReservedModel::maxBatch(std::uint64_t capacity, MaxBatchSearch what) const
{
    const bool unguarded = what == MaxBatchSearch::WithUnguarded;
    FitMemo memo;
    std::optional<ReservedMaxBatch> known;
    if (m_scratch) {
        const std::lock_guard<std::mutex> lock { m_scratch->runsMutex };
        if (const auto it = m_scratch->maxBatches.find(capacity); it != m_scratch->maxBatches.end()) {
            if (!unguarded || it->second.unguarded != ReservedMaxBatch::kNotSearched)
                return it->second;
            known = it->second; // the answer is known, the batch at exactly the capacity is not
        }
        memo.untouched = m_scratch->untouched;
    }
    ReservedMaxBatch out = known ? *known : searchMaxBatch(capacity, memo);
    if (unguarded && out.unguarded == ReservedMaxBatch::kNotSearched) {
        const std::size_t before = memo.replays;
        out.unguarded = searchUnguarded(capacity, out, memo);
        out.replays += memo.replays - before;
    }
    if (m_scratch) {
        const std::lock_guard<std::mutex> lock { m_scratch->runsMutex };
        if (m_scratch->maxBatches.size() >= 64)
            m_scratch->maxBatches.clear();
        m_scratch->maxBatches.insert_or_assign(capacity, out);
        for (const auto& [batch, least] : memo.untouched) {
            auto [it, added] = m_scratch->untouched.try_emplace(batch, least);
            it->second = std::min(it->second, least);
        }
    }
    return out;
}

ReservedModel::SearchStart ReservedModel::searchStart(std::uint64_t capacity, FitMemo& memo) const
{
    SearchStart start;
    // Beyond the allocated-bytes answer the tensors alone exceed the capacity.
    start.upper = m_allocated.maxBatch(capacity);
    if (start.upper < 1)
        return start;
    // Searches start where the tensors' peak, scaled by what one replay allocates over it (rounding and
    // workspaces), meets the capacity: under a cap the allocator releases its cache and retries before it
    // fails, so the edge is near the allocated peak, not the uncapped reserved one.
    const auto tensors = m_allocated.at(start.upper);
    const double total = tensors.ok() ? static_cast<double>(tensors.value().total()) : 0.0;
    const auto ratioOf = [&](std::uint64_t peak) {
        return total > 0 ? std::max(1.0, static_cast<double>(peak) / total) : 1.0;
    };
    // Where a core is free, the search's first question is replayed beside this one, at the guess the
    // requests alone give (each rounded, none taking a cached block whole): the same guess where no
    // remainder moves the ratio, so the question is then answered; else the answer is kept all the same.
    const std::uint64_t firstBand = capacity - marginBytes(capacity) / 2 * 2;
    FitReplay probe;
    if (sideBySide() >= 2 && total > 0) {
        const std::int64_t early = firstGuess(firstBand, ratioOf(roundedRequestsPeak(start.upper)));
        FitReplay answer;
        forEachInParallel(2, [&](std::size_t i) {
            (i == 0 ? probe : answer)
                = replayFit(i == 0 ? start.upper : early, i == 0 ? kNoLimit : firstBand);
        });
        remember(memo, early, firstBand, answer);
        ++memo.replays;
    } else {
        probe = replayFit(start.upper, kNoLimit);
    }
    if (probe.untouched)
        memo.untouched[start.upper] = probe.peakReserved; // the same replay under any capacity at least that
    start.ratio = ratioOf(probe.peakAllocated);
    return start;
}

std::int64_t ReservedModel::firstGuess(std::uint64_t capacity, double ratio) const
{
    // largestFitting()'s first question below the allocated-bytes answer
    return std::clamp(m_allocated.maxBatch(static_cast<std::uint64_t>(static_cast<double>(capacity) / ratio)),
        std::int64_t { 1 }, std::max<std::int64_t>(1, m_allocated.maxBatch(capacity)));
}

std::uint64_t ReservedModel::roundedRequestsPeak(std::int64_t batch) const
{
    std::vector<std::uint64_t> held(m_trace.blocks(), 0);
    std::uint64_t now = 0;
    std::uint64_t peak = 0;
    for (const TraceEvent& e : m_trace.events()) {
        if (e.allocate) {
            const std::uint64_t bytes = AllocationTrace::bytesAt(e, batch);
            held[e.block] = bytes == 0 ? 0 : CachingAllocator::roundSize(bytes, m_options.allocator);
            now += held[e.block];
            peak = std::max(peak, now);
        } else {
            now -= held[e.block];
            held[e.block] = 0;
        }
    }
    return peak;
}

ReservedMaxBatch ReservedModel::searchMaxBatch(std::uint64_t capacity, FitMemo& memo) const
{
    ReservedMaxBatch out;
    out.marginBytes = marginBytes(capacity);
    out.unguarded = ReservedMaxBatch::kNotSearched;
    const SearchStart start = searchStart(capacity, memo);
    if (start.upper < 1) {
        out.unguarded = 0;
        return out;
    }
    const auto guess = [&](std::uint64_t c) {
        return m_allocated.maxBatch(static_cast<std::uint64_t>(static_cast<double>(c) / start.ratio));
    };
    // The answer fits the band below the capacity: found at its lowest capacity first, then checked at its
    // middle and top (the cache's layout at the edge changes with the capacity; an answer only one exact
    // capacity allows is luck).
    const auto band = [&](std::uint64_t halves) { return capacity - out.marginBytes / 2 * halves; };
    out.batch = firstFailureBelow(band(2), m_allocated.maxBatch(band(2)) + 1, guess(band(2)), &memo);
    for (const std::uint64_t halves : { 1, 0 }) {
        if (out.batch > 0 && !fits(out.batch, band(halves), &memo))
            out.batch = firstFailureBelow(band(halves), out.batch, guess(band(halves)), &memo);
    }
    out.replays = memo.replays + 1; // and the probe
    return out;
}

std::int64_t ReservedModel::searchUnguarded(
    std::uint64_t capacity, const ReservedMaxBatch& found, FitMemo& memo) const
{
    // Without the band: up from the answer at exactly the capacity.
    const std::int64_t upper = m_allocated.maxBatch(capacity);
    return largestFitting(capacity, found.batch, upper + 1, found.batch + 1, &memo);
}

} // namespace headroom

#include "headroom/ReservedModel.h"

#include "StepTrace.h"

#include <algorithm>
#include <map>

namespace headroom {

Result<ReservedModel> ReservedModel::build(const Analysis& analysis, const TrainingSetup& setup,
                                           const ReservedOptions& options)
{
    TrainingSetup bare = setup;
    bare.overheadBytes = 0; // the context lives outside the allocator
    auto allocated = MemoryModel::build(analysis, bare);
    if (!allocated)
        return allocated.error();
    ReservedModel m;
    m.m_options = options;
    m.m_cublasWorkspace = options.cublasWorkspaces ? headroom::cublasWorkspaceBytes(options.gpu, options.torch) : 0;
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
    return m;
}

namespace {
/// The index of a (step, stage) phase in ReservedRun::phases.
std::size_t phaseIndex(const TraceEvent& e) { return e.step == 0 ? 0 : 1 + (e.step - 1) * 3 + (static_cast<std::size_t>(e.stage) - 1); }
} // namespace

bool ReservedModel::replay(std::int64_t batch, std::uint64_t capacity, ReservedRun& out, std::size_t stopAt,
                           CachingAllocator* keep) const
{
    AllocatorSettings settings = m_options.allocator;
    settings.capacity = capacity;
    CachingAllocator local{settings};
    CachingAllocator& a = keep != nullptr ? *keep : local;
    out.batch = batch;
    out.capacity = capacity;
    out.phases.assign(1 + 3 * static_cast<std::size_t>(std::max(1, m_options.steps)), PhasePeak{});
    for (std::size_t i = 0; i < out.phases.size(); ++i) {
        out.phases[i].step = static_cast<std::uint8_t>(i == 0 ? 0 : 1 + (i - 1) / 3);
        out.phases[i].stage = i == 0 ? TraceStage::Setup : static_cast<TraceStage>(1 + (i - 1) % 3);
    }
    std::vector<CachingAllocator::Handle> handles(m_trace.blocks(), CachingAllocator::kFailed);
    const auto& events = m_trace.events();
    std::size_t phase = 0;
    const std::size_t end = std::min(stopAt, events.size());
    for (std::size_t i = 0; i < end; ++i) {
        const TraceEvent& e = events[i];
        const std::size_t p = std::min(phaseIndex(e), out.phases.size() - 1);
        if (p != phase) { // the peak statistics are reset as a phase starts
            phase = p;
            out.phases[p].allocated = std::max(out.phases[p].allocated, a.stats().allocated);
            out.phases[p].reserved = std::max(out.phases[p].reserved, a.stats().reserved);
        }
        if (e.allocate) {
            const std::uint64_t bytes = AllocationTrace::bytesAt(e, batch);
            if (bytes == 0)
                continue; // PyTorch does not call the allocator for an empty tensor
            const CachingAllocator::Handle h = a.allocate(bytes, e.block);
            if (h == CachingAllocator::kFailed) {
                if (e.optional)
                    continue; // cuDNN's try_configs: a plan without this workspace runs instead
                out.outOfMemoryEvent = i;
                break;
            }
            handles[e.block] = h;
        } else if (handles[e.block] != CachingAllocator::kFailed) {
            a.free(handles[e.block]);
            handles[e.block] = CachingAllocator::kFailed;
        }
        out.phases[p].allocated = std::max(out.phases[p].allocated, a.stats().allocated);
        out.phases[p].reserved = std::max(out.phases[p].reserved, a.stats().reserved);
        if (a.stats().reserved > out.peakReserved || out.peakReservedEvent == ReservedRun::kNoEvent) {
            if (a.stats().reserved > out.peakReserved)
                out.peakReservedEvent = i;
            out.peakReserved = std::max(out.peakReserved, a.stats().reserved);
        }
    }
    out.peakAllocated = a.stats().peakAllocated;
    out.peakReserved = std::max(out.peakReserved, a.stats().peakReserved);
    out.allocRetries = a.stats().allocRetries;
    out.fits = out.outOfMemoryEvent == ReservedRun::kNoEvent;
    return out.fits;
}

ReservedRun ReservedModel::run(std::int64_t batch, std::uint64_t capacity, bool withFragmentation) const
{
    ReservedRun out;
    replay(batch, capacity, out, m_trace.events().size(), nullptr);
    if (!withFragmentation || out.peakReservedEvent == ReservedRun::kNoEvent)
        return out;
    // Replay up to the reserved peak and read the free blocks there.
    AllocatorSettings settings = m_options.allocator;
    settings.capacity = capacity;
    CachingAllocator a{settings};
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
        FragmentationSource& s = bySource[{f.smallPool, kind, row}];
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

std::uint64_t ReservedModel::reservedAt(std::int64_t batch) const { return run(batch).peakReserved; }

std::uint64_t ReservedModel::allocatedAt(std::int64_t batch) const { return run(batch).peakAllocated; }

std::uint64_t ReservedModel::marginBytes(std::uint64_t capacity) noexcept
{
    return static_cast<std::uint64_t>(static_cast<double>(capacity) * kReservedMarginFraction);
}

bool ReservedModel::fits(std::int64_t batch, std::uint64_t capacity) const
{
    ReservedRun r;
    return replay(batch, capacity, r, m_trace.events().size(), nullptr);
}

ReservedModel::Line ReservedModel::lineBelow(std::int64_t upper) const
{
    Line line;
    upper = std::max<std::int64_t>(2, upper);
    line.batch = std::max<std::int64_t>(1, upper / 2);
    line.reserved = static_cast<double>(reservedAt(line.batch));
    line.slope = (static_cast<double>(reservedAt(upper)) - line.reserved) / static_cast<double>(upper - line.batch);
    return line;
}

std::int64_t ReservedModel::largestFitting(std::uint64_t capacity, std::int64_t below, const Line& line) const
{
    if (below <= 1)
        return 0;
    // First probe: where the reserved peak's line meets the capacity.
    double guess = static_cast<double>(below - 1);
    if (line.slope > 0)
        guess = static_cast<double>(line.batch) + (static_cast<double>(capacity) - line.reserved) / line.slope;
    const auto g = static_cast<std::int64_t>(std::clamp(guess, 1.0, static_cast<double>(below - 1)));
    // Gallop from the guess to a bracket, then bisect it.
    std::int64_t lo = 0;     // fits (0: nothing known to)
    std::int64_t hi = below; // does not fit
    if (fits(g, capacity)) {
        lo = g;
        for (std::int64_t step = 1; lo + step < hi; step *= 2) {
            if (!fits(lo + step, capacity)) {
                hi = lo + step;
                break;
            }
            lo += step;
        }
    } else {
        hi = g;
        for (std::int64_t step = 1; hi - step > 0; step *= 2) {
            if (fits(hi - step, capacity)) {
                lo = hi - step;
                break;
            }
            hi -= step;
        }
    }
    while (hi - lo > 1) {
        const std::int64_t mid = lo + (hi - lo) / 2;
        (fits(mid, capacity) ? lo : hi) = mid;
    }
    return lo;
}

ReservedMaxBatch ReservedModel::maxBatch(std::uint64_t capacity) const
{
    ReservedMaxBatch out;
    out.marginBytes = marginBytes(capacity);
    // Beyond the allocated-bytes answer the tensors alone exceed the capacity.
    const std::int64_t upper = m_allocated.maxBatch(capacity);
    const Line line = lineBelow(upper);
    out.unguarded = largestFitting(capacity, upper + 1, line);
    // The answer must fit a little less memory too: each quarter of the band below the capacity, found
    // the same way (the cache's layout at the edge changes with the capacity; an answer only one exact
    // capacity allows is luck).
    out.batch = out.unguarded;
    constexpr int kSteps = 4;
    for (int k = 1; k <= kSteps && out.batch > 0; ++k) {
        const std::uint64_t c = capacity - out.marginBytes / kSteps * static_cast<std::uint64_t>(k);
        out.batch = std::min(out.batch, largestFitting(c, std::min(out.batch, m_allocated.maxBatch(c)) + 1, line));
    }
    return out;
}

} // namespace headroom

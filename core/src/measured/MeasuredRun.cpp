// What a memory snapshot measured: the chosen device's trace walked back from the segments to absolute
// allocated and reserved bytes, every block with its lifetime, the steps and phases, the peaks.
//
// Absolute bytes. At the snapshot's moment torch.cuda.memory_allocated() is the sum of the sizes of the
// blocks in state active_allocated (allocated_bytes grows by block->size in malloc and shrinks by it in
// free(), that is when the free is *requested*: a block in active_pending_free waits only for other
// streams' events and is no longer counted), and memory_reserved() the sum of the device's segments'
// total_size (an expandable segment's mapped ranges). Walking the trace backwards undoes each event:
// alloc +size, free_requested -size, segment_alloc / segment_map +size, segment_free / segment_unmap
// -size (c10/cuda/CUDACachingAllocator.cpp: reserved_bytes changes in alloc_block, release_block,
// map_block and unmap_block by exactly the size they record). So the state before the trace's first
// entry is known even when the ring buffer dropped the run's start.
//
// Block sizes. alloc and free_requested entries carry the *requested* size (record_trace(ALLOC, ...,
// orig_size) and (FREE_REQUESTED, ..., block->requested_size)), while allocated bytes count the block
// (round_size of the request, or more when the allocator hands out a cached block without splitting its
// remainder: under 512 bytes in the small pool, 1 MiB or less in the large pool, or an oversize block
// up to max_non_split_rounding_size). A block still allocated at the snapshot has its exact size in the
// segments; a block cut from a segment made for it just before (segment_alloc at its address) is the
// whole segment where should_split would keep the remainder; the others get CachingAllocator::roundSize
// of the request under the recorded settings. The
// error of that guess stays inside the block's lifetime (its alloc and free cancel outside it), except
// for blocks allocated before the trace and freed in it, whose guess shifts the curve before their free.
#include "headroom/measured/MeasuredRun.h"

#include "RunSteps.h"

#include <algorithm>
#include <string>
#include <unordered_map>

namespace headroom {

std::string_view runFileKindLabel(RunFileKind k) noexcept
{
    switch (k) {
    case RunFileKind::SnapshotPickle:
        return "memory snapshot (pickle)";
    case RunFileKind::SnapshotJson:
        return "memory snapshot (JSON)";
    case RunFileKind::SnapshotHtml:
        return "memory snapshot (memory_viz page)";
    case RunFileKind::MemoryTimeline:
        return "profiler memory timeline";
    case RunFileKind::ChromeTrace:
        return "profiler Chrome trace";
    }
    return "memory snapshot (pickle)";
}

std::string_view profilerCategoryName(ProfilerCategory c) noexcept
{
    switch (c) {
    case ProfilerCategory::Parameter:
        return "PARAMETER";
    case ProfilerCategory::OptimizerState:
        return "OPTIMIZER_STATE";
    case ProfilerCategory::Input:
        return "INPUT";
    case ProfilerCategory::Temporary:
        return "TEMPORARY";
    case ProfilerCategory::Activation:
        return "ACTIVATION";
    case ProfilerCategory::Gradient:
        return "GRADIENT";
    case ProfilerCategory::AutogradDetail:
        return "AUTOGRAD_DETAIL";
    case ProfilerCategory::Unknown:
        return "unknown";
    }
    return "unknown";
}

std::string_view runPhaseName(RunPhase p) noexcept
{
    switch (p) {
    case RunPhase::BeforeSteps:
        return "before_steps";
    case RunPhase::Forward:
        return "forward";
    case RunPhase::Backward:
        return "backward";
    case RunPhase::OptimizerStep:
        return "optimizer_step";
    }
    return "forward";
}

namespace snapshot_measuring {

using measured::EventTag;
using measured::kNone;

std::string mib(std::uint64_t bytes)
{
    const auto tenths = (bytes * 10 + (1U << 19)) >> 20U;
    return std::to_string(tenths / 10) + "." + std::to_string(tenths % 10) + " MiB";
}

/// Tags of the events from the snapshot's external annotations (record_function spans on this
/// device), or empty when they say nothing about phases.
std::vector<EventTag> tagsFromAnnotations(const MemorySnapshot& snap,
    const std::vector<SnapshotTraceEntry>& trace, std::int64_t device, const std::vector<EventTag>& frameTags)
{
    measured::SpanIndex spans;
    std::unordered_map<std::string, std::vector<std::int64_t>> open; // nested spans of one name
    for (const SnapshotAnnotation& a : snap.externalAnnotations) {
        if (a.device != device || a.timeUs == SnapshotTraceEntry::kNoTime)
            continue;
        const EventTag tag = measured::SpanIndex::tagOfName(a.name);
        if (tag == EventTag::None)
            continue;
        auto& starts = open[a.name];
        if (a.start) {
            starts.push_back(a.timeUs);
        } else if (!starts.empty()) {
            spans.add(static_cast<double>(starts.back()), static_cast<double>(a.timeUs), tag);
            starts.pop_back();
        }
    }
    spans.finish();
    if (!spans.tellsPhases())
        return {};
    std::vector<EventTag> tags = frameTags;
    std::size_t stepSeen = kNone;
    for (std::size_t i = 0; i < trace.size(); ++i) {
        const SnapshotTraceEntry& e = trace[i];
        if (e.action != RunAction::Alloc || e.timeUs == SnapshotTraceEntry::kNoTime)
            continue;
        const auto t = static_cast<double>(e.timeUs);
        EventTag tag = spans.phaseAt(t);
        if (tag == EventTag::None) {
            tag = tags[i] == EventTag::Untraced ? EventTag::Forward : tags[i];
            // The first allocation of each ProfilerStep span starts a step.
            if (const std::size_t step = spans.stepAt(t); step != kNone && step != stepSeen) {
                stepSeen = step;
                tag = EventTag::StepStart;
            }
        }
        tags[i] = tag;
    }
    return tags;
}

} // namespace snapshot_measuring

MeasuredRun measureSnapshot(MemorySnapshot snapshot, RunFileKind kind)
{
    using namespace snapshot_measuring;
    MeasuredRun run;
    run.kind = kind;
    run.hasReserved = true;
    run.notes = snapshot.notes;

    // The device whose trace has most entries (the one the run trained on).
    std::size_t device = 0;
    for (std::size_t d = 0; d < snapshot.deviceTraces.size(); ++d) {
        if (snapshot.deviceTraces[d].size() > snapshot.deviceTraces[device].size())
            device = d;
    }
    const bool hasTrace = !snapshot.deviceTraces.empty() && !snapshot.deviceTraces[device].empty();
    if (!hasTrace && !snapshot.segments.empty()) {
        std::unordered_map<std::int64_t, std::uint64_t> bytes;
        for (const auto& seg : snapshot.segments)
            bytes[seg.device] += seg.totalSize;
        device = static_cast<std::size_t>(
            std::max_element(bytes.begin(), bytes.end(), [](const auto& a, const auto& b) {
                return a.second < b.second || (a.second == b.second && a.first > b.first);
            })->first);
    }
    run.device = static_cast<std::int64_t>(device);
    static const std::vector<SnapshotTraceEntry> kEmpty;
    const auto& trace = hasTrace ? snapshot.deviceTraces[device] : kEmpty;
    const AllocatorSettings& settings = snapshot.allocatorSettings.settings;

    // The state at the snapshot's moment.
    std::uint64_t endAllocated = 0;
    std::uint64_t endReserved = 0;
    std::unordered_map<std::uint64_t, const SnapshotBlock*> liveAtEnd;
    for (const auto& seg : snapshot.segments) {
        if (seg.device != run.device)
            continue;
        endReserved += seg.totalSize;
        for (const auto& b : seg.blocks) {
            if (b.state == BlockState::ActiveAllocated) {
                endAllocated += b.size;
                liveAtEnd.emplace(b.address, &b);
            }
        }
    }

    // Forward: every block's lifetime, by address.
    const std::size_t n = trace.size();
    std::vector<std::size_t> eventBlock(n, kNone);
    std::vector<std::int64_t> reservedDelta(n, 0);
    // Address -> the block allocated there and not yet freed, or kFreed once its free was seen.
    constexpr std::size_t kFreed = kNone - 1;
    std::unordered_map<std::uint64_t, std::size_t> open;
    open.reserve(n / 2 + 16);
    std::size_t unknownFrees = 0;
    std::size_t reusedWhileAllocated = 0;
    auto timeOf = [&](std::size_t i) {
        return trace[i].timeUs != SnapshotTraceEntry::kNoTime ? trace[i].timeUs
                                                              : static_cast<std::int64_t>(i);
    };
    for (std::size_t i = 0; i < n; ++i) {
        const SnapshotTraceEntry& e = trace[i];
        switch (e.action) {
        case RunAction::Alloc: {
            auto [it, inserted] = open.try_emplace(e.address, run.blocks.size());
            if (!inserted) {
                if (it->second != kFreed)
                    ++reusedWhileAllocated; // its free was not recorded (skip_actions, or another device's)
                it->second = run.blocks.size();
            }
            MeasuredBlock block;
            block.address = e.address;
            block.requestedSize = e.size;
            block.size = CachingAllocator::roundSize(e.size, settings);
            // A block cut from the segment just made for it (segment_alloc at its address right before):
            // the allocator keeps the remainder in the block when it is too small to split
            // (should_split: small pool, less than 512 bytes left; large pool, 1 MiB or less left, or before
            // PyTorch 2.10 a block of max_split_size or more), so the block is the whole segment.
            if (i > 0 && trace[i - 1].action == RunAction::SegmentAlloc && trace[i - 1].address == e.address
                && trace[i - 1].size >= block.size && !settings.expandableSegments) {
                const std::uint64_t segmentSize = trace[i - 1].size;
                const std::uint64_t left = segmentSize - block.size;
                const bool small = block.size <= kSmallSize;
                const bool split = small ? left >= kMinBlockSize
                                         : (block.size < settings.maxSplitSize && left > kSmallSize);
                if (!split)
                    block.size = segmentSize;
            }
            block.allocatedUs = timeOf(i);
            block.allocSample = i;
            block.stack = e.stack;
            eventBlock[i] = run.blocks.size();
            run.blocks.push_back(block);
            break;
        }
        case RunAction::FreeRequested: {
            auto [it, inserted] = open.try_emplace(e.address, kFreed);
            if (!inserted && it->second != kFreed) {
                MeasuredBlock& block = run.blocks[it->second];
                block.freeSample = i;
                block.freedUs = timeOf(i);
                eventBlock[i] = it->second;
                it->second = kFreed;
            } else if (!inserted) {
                ++unknownFrees; // freed twice: ignored
            } else {
                // Allocated before the trace's first entry.
                MeasuredBlock block;
                block.address = e.address;
                block.requestedSize = e.size;
                block.size = CachingAllocator::roundSize(e.size, settings);
                block.allocatedUs = MeasuredBlock::kUnknownTime;
                block.freeSample = i;
                block.freedUs = timeOf(i);
                block.stack = e.stack;
                eventBlock[i] = run.blocks.size();
                run.blocks.push_back(block);
            }
            break;
        }
        case RunAction::SegmentAlloc:
        case RunAction::SegmentMap:
            reservedDelta[i] = static_cast<std::int64_t>(e.size);
            break;
        case RunAction::SegmentFree:
        case RunAction::SegmentUnmap:
            reservedDelta[i] = -static_cast<std::int64_t>(e.size);
            break;
        case RunAction::Oom:
            ++run.outOfMemoryEvents;
            run.notes.push_back("out of memory at entry " + std::to_string(i) + ": " + mib(e.size)
                + " requested with " + mib(e.deviceFree) + " free on the device");
            break;
        default:
            break;
        }
    }
    if (reusedWhileAllocated > 0)
        run.notes.push_back(std::to_string(reusedWhileAllocated)
            + " allocations at an address still allocated in the trace (a free was not recorded)");
    std::size_t freedFromBefore = 0;
    std::uint64_t freedFromBeforeBytes = 0;
    for (const MeasuredBlock& b : run.blocks) {
        if (b.allocSample == MeasuredBlock::kNoSample) {
            ++freedFromBefore;
            freedFromBeforeBytes += b.size;
        }
    }
    if (freedFromBefore > 0)
        run.notes.push_back(std::to_string(freedFromBefore) + " blocks (" + mib(freedFromBeforeBytes)
            + ") freed in the trace were allocated before it began (before the recording started, or "
              "dropped from its ring buffer)");
    if (unknownFrees > 0)
        run.notes.push_back(std::to_string(unknownFrees) + " frees of an address already freed: ignored");

    // Blocks still allocated at the snapshot take their exact size from the segments; those the trace
    // never allocated were allocated before it.
    std::size_t missingFromSegments = 0;
    for (const auto& [address, index] : open) {
        if (index == kFreed)
            continue;
        if (const auto it = liveAtEnd.find(address); it != liveAtEnd.end()) {
            run.blocks[index].size = it->second->size;
            if (run.blocks[index].stack == kNoStack)
                run.blocks[index].stack = it->second->stack;
            liveAtEnd.erase(it);
        } else if (snapshot.segmentsRecorded) {
            ++missingFromSegments;
        }
    }
    if (missingFromSegments > 0)
        run.notes.push_back(std::to_string(missingFromSegments)
            + " blocks allocated in the trace and never freed are not in the snapshot's segments");
    std::vector<const SnapshotBlock*> before;
    for (const auto& [address, block] : liveAtEnd)
        before.push_back(block);
    std::sort(before.begin(), before.end(),
        [](const SnapshotBlock* a, const SnapshotBlock* b) { return a->address < b->address; });
    for (const SnapshotBlock* b : before) {
        MeasuredBlock block;
        block.address = b->address;
        block.size = b->size;
        block.requestedSize = b->requestedSize;
        block.allocatedUs = MeasuredBlock::kUnknownTime;
        block.stack = b->stack;
        run.blocks.push_back(block);
    }

    // Allocated and reserved after each event, from the deltas, anchored at the snapshot.
    std::vector<std::int64_t> allocatedAfter(n, 0);
    std::vector<std::int64_t> reservedAfter(n, 0);
    std::int64_t a = 0;
    std::int64_t r = 0;
    std::int64_t minA = 0;
    std::int64_t minR = 0;
    for (std::size_t i = 0; i < n; ++i) {
        if (eventBlock[i] != kNone) {
            const auto size = static_cast<std::int64_t>(run.blocks[eventBlock[i]].size);
            a += trace[i].action == RunAction::Alloc ? size : -size;
        }
        r += reservedDelta[i];
        allocatedAfter[i] = a;
        reservedAfter[i] = r;
        minA = std::min(minA, a);
        minR = std::min(minR, r);
    }
    // Anchored at the snapshot (a device without segments had nothing reserved there), unless the
    // file has no segments or the walk back goes below zero (the trace and the segments disagree: a
    // trace of another process, or entries skipped with skip_actions).
    std::int64_t baseA = static_cast<std::int64_t>(endAllocated) - a;
    std::int64_t baseR = static_cast<std::int64_t>(endReserved) - r;
    if (!snapshot.segmentsRecorded) {
        run.absolute = false;
        run.whyNotAbsolute
            = "the snapshot has no segments (the allocator's state at its moment): the trace's "
              "changes are counted from their lowest point";
    } else if (baseA + minA < 0 || baseR + minR < 0) {
        run.absolute = false;
        run.whyNotAbsolute = "the trace and the segments of device " + std::to_string(device)
            + " disagree (walked back from the snapshot, the bytes would go below zero): the trace's changes "
              "are "
              "counted from their lowest point";
    }
    if (!run.absolute) {
        baseA = -minA;
        baseR = -minR;
    } else {
        std::uint64_t beforeBytes = 0;
        for (const MeasuredBlock& b : run.blocks) {
            if (b.allocSample == MeasuredBlock::kNoSample)
                beforeBytes += b.size;
        }
        if (static_cast<std::uint64_t>(baseA) != beforeBytes)
            run.notes.push_back("the blocks alive before the trace add up to " + mib(beforeBytes)
                + ", the walk back to " + mib(static_cast<std::uint64_t>(baseA))
                + " (blocks handed out unsplit are larger than their rounded request)");
    }
    run.samples.reserve(std::max<std::size_t>(n, 1));
    for (std::size_t i = 0; i < n; ++i) {
        RunSample s;
        s.timeUs = timeOf(i);
        s.allocated = static_cast<std::uint64_t>(std::max<std::int64_t>(0, baseA + allocatedAfter[i]));
        s.reserved = static_cast<std::uint64_t>(std::max<std::int64_t>(0, baseR + reservedAfter[i]));
        s.event = static_cast<std::uint32_t>(i);
        run.samples.push_back(s);
    }
    if (!hasTrace) {
        run.notes.push_back(
            "no trace for any device: only the state at the snapshot's moment is known (record with "
            "torch.cuda.memory._record_memory_history() before the steps)");
        if (!snapshot.segments.empty())
            run.samples.push_back(RunSample { 0, endAllocated, endReserved, 0 });
    }

    // Blocks in allocation order, those from before the trace first.
    std::stable_sort(
        run.blocks.begin(), run.blocks.end(), [](const MeasuredBlock& x, const MeasuredBlock& y) {
            const auto kx = x.allocSample == MeasuredBlock::kNoSample ? 0 : x.allocSample + 1;
            const auto ky = y.allocSample == MeasuredBlock::kNoSample ? 0 : y.allocSample + 1;
            return kx < ky;
        });

    // Steps and phases: annotations, else frames, else the pattern.
    std::vector<EventTag> tags(n, EventTag::None);
    std::vector<EventTag> stackTags(snapshot.stacks.size(), EventTag::None); // each stack's tag, once
    bool framed = false;
    for (std::size_t i = 0; i < n; ++i) {
        const SnapshotTraceEntry& e = trace[i];
        if (e.action != RunAction::Alloc)
            continue;
        const StackId stack = e.stack < snapshot.stacks.size() ? e.stack : kNoStack;
        if (stackTags[stack] == EventTag::None)
            stackTags[stack] = measured::tagOfStack(snapshot.stacks[stack]);
        tags[i] = stackTags[stack];
        framed = framed || e.stack != kNoStack;
    }
    bool found = false;
    if (const auto annotated = tagsFromAnnotations(snapshot, trace, run.device, tags); !annotated.empty())
        found = measured::stepsFromTags(run, annotated, PhaseSource::Annotations);
    if (!found && framed)
        found = measured::stepsFromTags(run, tags, PhaseSource::Frames);
    if (!found) {
        measured::stepsFromPattern(run, {});
        if (framed && !run.steps.empty())
            run.notes.push_back("the frames did not show the steps: found by the allocation pattern");
    }
    // The first step: its optimizer phase creates blocks that outlive the step (the optimizer's state)
    // and mostly adds them. An optimizer that writes its state out of place (exp_avg = beta1 * exp_avg
    // + ..., as hand-written ones do) also keeps new blocks in every steady step, but frees the state of
    // the step before, made before this step began: what it replaced is taken off what it kept.
    if (!run.steps.empty()) {
        MeasuredStep& step = run.steps.front();
        for (const MeasuredPhase& phase : step.phases) {
            if (phase.phase != RunPhase::OptimizerStep)
                continue;
            auto inPhase = [&](std::size_t sample) {
                return sample != MeasuredBlock::kNoSample && sample >= phase.firstSample
                    && sample < phase.endSample;
            };
            std::uint64_t kept = 0;
            std::uint64_t replaced = 0;
            for (const MeasuredBlock& b : run.blocks) {
                if (inPhase(b.allocSample)
                    && (b.freeSample == MeasuredBlock::kNoSample || b.freeSample >= step.endSample))
                    kept += b.size;
                if (inPhase(b.freeSample)
                    && (b.allocSample == MeasuredBlock::kNoSample || b.allocSample < step.firstSample))
                    replaced += b.size;
            }
            step.first = kept > 0 && kept - std::min(kept, replaced) > kept / 2;
        }
    }
    measured::finishPeaks(run);
    measured::markFirstByGrowth(run);

    // The blocks alive at the allocated peak, largest first.
    const std::size_t p = run.peakAllocatedSample;
    for (std::size_t i = 0; i < run.blocks.size() && !run.samples.empty(); ++i) {
        const MeasuredBlock& b = run.blocks[i];
        const bool allocated = b.allocSample == MeasuredBlock::kNoSample || b.allocSample <= p;
        const bool notFreed = b.freeSample == MeasuredBlock::kNoSample || b.freeSample > p;
        if (allocated && notFreed)
            run.peakBlocks.push_back(i);
    }
    std::stable_sort(run.peakBlocks.begin(), run.peakBlocks.end(),
        [&](std::size_t x, std::size_t y) { return run.blocks[x].size > run.blocks[y].size; });
    run.snapshot = std::move(snapshot);
    return run;
}

} // namespace headroom

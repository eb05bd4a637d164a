#pragma once

// What a recorded training run measured, from any of the files PyTorch writes about its memory: a memory
// snapshot (pickle, JSON or memory_viz HTML), the profiler's memory timeline export, or a Chrome trace's
// [memory] events. Allocated and reserved bytes over time (absolute where the file lets them be
// reconstructed), the training steps found in it with their phases, the peaks, fragmentation at the peak
// and the largest blocks alive there. docs/measured-runs.md.

#include "headroom/measured/MemorySnapshot.h"
#include "headroom/support/Error.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace headroom {

enum class RunFileKind : std::uint8_t {
    SnapshotPickle, ///< _dump_snapshot()'s .pickle
    SnapshotJson, ///< the same dictionary as JSON
    SnapshotHtml, ///< memory_viz's HTML page with the pickle embedded
    MemoryTimeline, ///< profiler export_memory_timeline .json / .json.gz (per category)
    ChromeTrace, ///< profiler export_chrome_trace with [memory] events
};
[[nodiscard]] std::string_view runFileKindLabel(RunFileKind k) noexcept; ///< "memory snapshot (pickle)"

/// The profiler's memory categories (torch/profiler/_memory_profiler.py, Category), in its order, and
/// one for bytes it could not categorise.
enum class ProfilerCategory : std::uint8_t {
    Parameter,
    OptimizerState,
    Input,
    Temporary,
    Activation,
    Gradient,
    AutogradDetail,
    Unknown,
};
inline constexpr std::size_t kProfilerCategories = 8;
[[nodiscard]] std::string_view profilerCategoryName(ProfilerCategory c) noexcept; ///< "OPTIMIZER_STATE"

/// One point of the run's memory over time: after the event at `timeUs`.
struct RunSample final
{
    std::int64_t timeUs = 0; ///< from the file (or the event's index where it has no times)
    std::uint64_t allocated = 0; ///< torch.cuda.memory_allocated() after the event
    std::uint64_t reserved = 0; ///< torch.cuda.memory_reserved() (0 where the file does not tell)
    std::uint32_t event = 0; ///< index in the device's trace / the file's events
};

enum class RunPhase : std::uint8_t { BeforeSteps, Forward, Backward, OptimizerStep };
[[nodiscard]] std::string_view runPhaseName(RunPhase p) noexcept; ///< "forward", "optimizer_step", ...

/// How a phase boundary was found.
enum class PhaseSource : std::uint8_t { Frames, Annotations, Pattern };

struct MeasuredPhase final
{
    RunPhase phase = RunPhase::Forward;
    std::size_t firstSample = 0; ///< [firstSample, endSample) in MeasuredRun::samples
    std::size_t endSample = 0;
    std::uint64_t peakAllocated = 0;
    std::uint64_t peakReserved = 0;
    PhaseSource source = PhaseSource::Pattern;
};

struct MeasuredStep final
{
    std::size_t index = 0; ///< 0: the first step found in the file
    /// The run's first step: it creates the optimizer state (and cuDNN/cuBLAS workspaces); its peak is
    /// apart from the steady steps'. False when the file starts mid-run.
    bool first = false;
    std::size_t firstSample = 0;
    std::size_t endSample = 0;
    std::uint64_t peakAllocated = 0;
    std::uint64_t peakReserved = 0;
    std::vector<MeasuredPhase> phases; ///< forward, backward, optimizer step, as found
};

/// A block the run allocated, with its lifetime (MeasuredRun::blocks).
struct MeasuredBlock final
{
    std::uint64_t address = 0;
    std::uint64_t size = 0; ///< the block's bytes (rounded)
    std::uint64_t requestedSize = 0; ///< 0 where unknown
    std::int64_t allocatedUs
        = 0; ///< when it was allocated (RunSample::timeUs; kUnknownTime: before the trace)
    std::int64_t freedUs
        = kUnknownTime; ///< when its free was requested (kUnknownTime: still alive at the end)
    std::size_t allocSample = kNoSample; ///< its alloc's index in samples (kNoSample: before the trace)
    std::size_t freeSample = kNoSample;
    StackId stack = kNoStack; ///< where it was allocated
    static constexpr std::int64_t kUnknownTime = SnapshotTraceEntry::kNoTime;
    static constexpr std::size_t kNoSample = static_cast<std::size_t>(-1);
};

struct MeasuredRun final
{
    RunFileKind kind = RunFileKind::SnapshotPickle;
    std::int64_t device = 0; ///< the device whose trace was read (the one with most events)
    std::vector<RunSample> samples;
    /// Allocated and reserved are absolute (what memory_allocated() returned); false when the file holds
    /// only changes and nothing anchors them (a snapshot without segments for the traced device): then
    /// they count from the trace's lowest point (0 there), and whyNotAbsolute says why.
    bool absolute = true;
    std::string whyNotAbsolute;
    bool hasReserved = true; ///< the file tells reserved bytes (not a memory timeline)
    std::uint64_t peakAllocated = 0;
    std::uint64_t peakReserved = 0;
    std::size_t peakAllocatedSample = 0;
    std::size_t peakReservedSample = 0;
    /// Reserved but not allocated at the allocated peak, over reserved (0..1).
    double fragmentationAtPeak = 0.0;
    /// Every block the file shows (snapshot kinds): allocated in the trace, or alive before its first
    /// entry (freed in the trace, or still in the segments at the snapshot), with lifetimes: those from
    /// before the trace first, then in allocation order. A block still allocated at the snapshot has
    /// its size from the segments; the others round_size of the requested size the trace records. The
    /// comparison attributes them to the plan's components by lifetime, size and frames.
    std::vector<MeasuredBlock> blocks;
    /// Indices into `blocks` of those alive at the allocated peak (peakAllocatedSample), largest first.
    std::vector<std::size_t> peakBlocks;
    std::vector<MeasuredStep> steps;
    /// Memory timeline: per sample the bytes in each category (empty for other kinds).
    std::vector<std::array<std::uint64_t, kProfilerCategories>> categories;
    std::uint32_t outOfMemoryEvents = 0; ///< oom entries seen
    std::vector<std::string> notes; ///< what could not be worked out and why, for the user
    /// The decoded snapshot (snapshot kinds only): the allocator check and the attribution read it.
    std::optional<MemorySnapshot> snapshot;
};

/// Reads any of the files above, recognised by content (pickle opcode, HTML, gzip, JSON shape), never by
/// name alone. Errors name the file and the place in it.
[[nodiscard]] Result<MeasuredRun> readMeasuredRun(
    std::string_view bytes, std::string_view fileName, const PlainLimits& limits = {});
[[nodiscard]] Result<MeasuredRun> readMeasuredRun(
    const std::filesystem::path& path, const PlainLimits& limits = {});

/// What a snapshot measured: the device's trace walked back from the segments to absolute bytes, the steps
/// and phases, peaks and blocks (readMeasuredRun calls it; tests call it on hand-made snapshots).
[[nodiscard]] MeasuredRun measureSnapshot(MemorySnapshot snapshot, RunFileKind kind);

} // namespace headroom

#pragma once

// A PyTorch CUDA memory snapshot (torch.cuda.memory._snapshot(), what _dump_snapshot() pickles and
// memory_viz opens), decoded from its plain data: the segments at the snapshot's moment and the trace of
// allocator actions before it (a ring buffer: it may start mid-run). Keys and meanings follow
// torch/csrc/cuda/memory_snapshot.cpp and c10/cuda/CUDACachingAllocator.h (TraceEntry), PyTorch 2.1 to
// 2.11; older files lack some keys (docs/measured-runs.md).

#include "headroom/allocator/CachingAllocator.h"
#include "headroom/measured/PlainData.h"
#include "headroom/support/Error.h"

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace headroom {

/// One frame of a recorded stack ("model.py", 123, "forward").
struct RunFrame final
{
    std::string filename;
    std::int64_t line = 0;
    std::string name;
    friend bool operator==(const RunFrame&, const RunFrame&) = default;
};

/// Stacks are stored once and referred to by index; index 0 is the empty stack.
using StackId = std::uint32_t;
inline constexpr StackId kNoStack = 0;

enum class BlockState : std::uint8_t { ActiveAllocated, ActivePendingFree, Inactive };

struct SnapshotBlock final
{
    std::uint64_t address = 0;
    std::uint64_t size = 0; ///< the block (rounded; what allocated_bytes counts)
    std::uint64_t requestedSize = 0;
    BlockState state = BlockState::Inactive;
    StackId stack = kNoStack;
};

struct SnapshotSegment final
{
    std::int64_t device = 0;
    std::uint64_t address = 0;
    std::uint64_t totalSize = 0; ///< reserved by the segment (expandable: mapped so far)
    std::uint64_t allocatedSize = 0;
    std::uint64_t activeSize = 0;
    std::uint64_t requestedSize = 0;
    std::int64_t stream = 0;
    bool large = true; ///< segment_type "large" (false: "small")
    std::int64_t poolId = 0; ///< segment_pool_id's first id (0: the default pool; CUDA graphs use others)
    bool expandable = false;
    StackId stack = kNoStack;
    std::vector<SnapshotBlock> blocks;
};

enum class RunAction : std::uint8_t {
    Alloc,
    FreeRequested,
    FreeCompleted,
    SegmentAlloc,
    SegmentFree,
    SegmentMap,
    SegmentUnmap,
    Snapshot,
    Oom,
    Annotate,
};
[[nodiscard]] std::string_view runActionName(RunAction a) noexcept; ///< PyTorch's spelling: "free_requested"

struct SnapshotTraceEntry final
{
    RunAction action = RunAction::Alloc;
    std::uint64_t address = 0; ///< addr (0 for oom: see deviceFree)
    std::uint64_t size = 0;
    std::int64_t stream = 0;
    std::int64_t timeUs = kNoTime; ///< time_us (kNoTime in files before PyTorch 2.1)
    std::uint64_t deviceFree = 0; ///< oom: device_free
    StackId stack = kNoStack;
    /// annotate: the annotation's index in MemorySnapshot::annotations; compile_context / user_metadata
    /// are kept there too when present (kNoAnnotation: none).
    std::uint32_t annotation = kNoAnnotation;
    static constexpr std::int64_t kNoTime = std::numeric_limits<std::int64_t>::min();
    static constexpr std::uint32_t kNoAnnotation = std::numeric_limits<std::uint32_t>::max();
};

/// The allocator's settings as the snapshot records them (allocator_settings).
struct RecordedAllocatorSettings final
{
    bool present = false; ///< the file has allocator_settings
    std::string allocConf; ///< PYTORCH_CUDA_ALLOC_CONF as set
    AllocatorSettings settings; ///< what Headroom's CachingAllocator replays with (capacity unlimited)
    /// Settings the snapshot records that the simulation does not model (pinned host, graph pools...).
    std::vector<std::string> unmodelled;
};

/// One record_function boundary the recorder kept (external_annotations: _record_memory_history(...,
/// global_record_annotations=True), PyTorch 2.6 and later): {"name", "stage": "START"/"END", "device",
/// "time_us"}.
struct SnapshotAnnotation final
{
    std::int64_t device = 0;
    std::int64_t timeUs = SnapshotTraceEntry::kNoTime;
    bool start = true; ///< stage "START" (false: "END")
    std::string name; ///< the record_function's name ("Optimizer.step#AdamW.step", "ProfilerStep#3")
};

struct MemorySnapshot final
{
    std::vector<SnapshotSegment> segments; ///< every device's, at the snapshot's moment
    std::vector<std::vector<SnapshotTraceEntry>> deviceTraces; ///< per device, oldest first
    RecordedAllocatorSettings allocatorSettings;
    /// Stack table: stacks[0] is empty.
    std::vector<std::vector<RunFrame>> stacks { {} };
    /// Texts of annotate entries, external_annotations, compile_context and user_metadata.
    std::vector<std::string> annotations;
    /// external_annotations, in the file's order (empty in files without them).
    std::vector<SnapshotAnnotation> externalAnnotations;
    /// What the file lacked or what was skipped, for the user ("no time_us: PyTorch before 2.1").
    std::vector<std::string> notes;
};

/// Decodes a snapshot's plain data. Errors name the path in the data ("device_traces[0][412].size must be
/// a non-negative integer, not str").
[[nodiscard]] Result<MemorySnapshot> decodeSnapshot(const PlainValue& root);

} // namespace headroom

#pragma once

// PyTorch's CUDA caching allocator, simulated: it knows nothing but request sizes and their order.
// Follows c10/cuda/CUDACachingAllocator.cpp (DeviceCachingAllocator) and, for PyTorch 2.10 and later,
// c10/core/CachingDeviceAllocator.h (CachingDeviceAllocatorImpl), which implement the same rules:
// docs/memory-model.md, "The caching allocator", cites each function.

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <memory_resource>
#include <set>
#include <span>
#include <vector>

namespace headroom {

/// The allocator's size constants (CUDACachingAllocator.cpp / CachingDeviceAllocator.h).
inline constexpr std::uint64_t kMinBlockSize = 512; ///< every block is a multiple of 512 bytes
inline constexpr std::uint64_t kSmallSize = 1ULL << 20; ///< requests up to 1 MiB use the small pool
inline constexpr std::uint64_t kSmallBuffer = 2ULL << 20; ///< small requests share 2 MiB segments
inline constexpr std::uint64_t kMinLargeAlloc = 10ULL << 20; ///< 1..10 MiB requests share 20 MiB segments
inline constexpr std::uint64_t kLargeBuffer = 20ULL << 20; ///< the shared large segment
inline constexpr std::uint64_t kRoundLarge = 2ULL << 20; ///< larger requests round up to 2 MiB
inline constexpr std::uint64_t kNoLimit = std::numeric_limits<std::uint64_t>::max();

/// The PYTORCH_CUDA_ALLOC_CONF options the simulation honours, and the memory it may take.
struct AllocatorSettings final
{
    /// What the allocator may reserve: allowed_memory_maximum of torch.cuda.set_per_process_memory_fraction,
    /// checked before each new segment (alloc_block: total_allocated_memory + size > allowed_memory_maximum).
    std::uint64_t capacity = kNoLimit;
    /// What cudaMalloc / cuMemCreate can still get from the device (its memory less the CUDA context and
    /// other processes). Defaults to `capacity`; larger when a memory fraction caps the allocator below the
    /// device (then expandable segments may map past the cap by part of one 20 MiB page, as PyTorch does).
    std::uint64_t physicalCapacity = kNoLimit;
    bool expandableSegments = false; ///< expandable_segments:True
    std::uint64_t maxSplitSize = kNoLimit; ///< max_split_size_mb (default: no limit)
    std::uint64_t maxNonSplitRoundingSize = kLargeBuffer; ///< max_non_split_rounding_mb (default 20 MiB)
    /// roundup_power2_divisions per power-of-two interval from 1 MiB (index 0: below 2 MiB ... 15: 32 GiB
    /// and up); 0 or 1: plain 512-byte rounding (the default).
    std::array<std::uint32_t, 16> roundupPower2Divisions {};
    /// garbage_collection_threshold (0: off); acts only with a capacity, as set_fraction does in PyTorch.
    double garbageCollectionThreshold = 0.0;
    friend bool operator==(const AllocatorSettings&, const AllocatorSettings&) = default;
};

/// The allocator's counters (torch.cuda.memory_stats), bytes.
struct AllocatorStats final
{
    std::uint64_t allocated = 0; ///< allocated_bytes.all.current (block sizes, rounding included)
    std::uint64_t reserved = 0; ///< reserved_bytes.all.current (segments, mapped pages)
    std::uint64_t requested = 0; ///< requested_bytes.all.current (what was asked for)
    std::uint64_t peakAllocated = 0; ///< max_memory_allocated
    std::uint64_t peakReserved = 0; ///< max_memory_reserved
    std::uint64_t segments = 0; ///< segment.all.current (expandable: mapped ranges are not counted)
    std::uint64_t allocRetries = 0; ///< num_alloc_retries: the cache was released and the allocation retried
    std::uint64_t ooms = 0; ///< num_ooms
    std::uint64_t deviceAllocs = 0; ///< num_device_alloc (cudaMalloc and page mappings)
    std::uint64_t deviceFrees = 0; ///< num_device_free
};

/// What the allocator did to device memory (PyTorch's trace actions segment_alloc, segment_free,
/// segment_map, segment_unmap: alloc_block, release_block, map_block, unmap_block).
enum class SegmentEventKind : std::uint8_t { Alloc, Free, Map, Unmap };

/// One segment event: a cudaMalloc / cudaFree of a whole segment, or pages of an expandable segment mapped
/// or unmapped, with the bytes as PyTorch's trace records them (the segment's or the range's size).
struct SegmentEvent final
{
    SegmentEventKind kind = SegmentEventKind::Alloc;
    bool small = false; ///< the small pool's
    std::uint64_t address = 0; ///< the segment's or the range's first byte, in the simulation's addresses
    std::uint64_t bytes = 0;
    std::uint64_t reservedAfter = 0; ///< reserved bytes once it happened
};

/// One block of a segment put into the cache as it stands (CachingAllocator::adoptSegment).
struct AdoptedBlock final
{
    std::uint64_t size = 0;
    bool allocated = false;
    std::uint64_t requested = 0; ///< allocated blocks: what was asked for (0: the size)
};

/// Free bytes inside reserved memory, by pool and by what last occupied them.
struct FragmentationEntry final
{
    std::uint32_t tag = 0; ///< the caller's tag of the allocation that last held (or split off) these bytes
    bool smallPool = false;
    std::uint64_t bytes = 0;
    std::uint64_t blocks = 0;
};

/// PyTorch's caching allocator over a single stream. Each allocate() is malloc(): round_size, best fit in
/// the small or large pool (get_free_block), or a new segment (alloc_block) once the cache offers nothing;
/// at the capacity the cached segments are released and the allocation retried (malloc's
/// release_available_cached_blocks / release_cached_blocks), then it fails (OutOfMemoryError).
class CachingAllocator final
{
public:
    using Handle = std::uint32_t;
    static constexpr Handle kFailed = std::numeric_limits<Handle>::max();

    /// `expectedBlocks`: room for that many blocks up front (a replay knows its allocations).
    explicit CachingAllocator(const AllocatorSettings& settings = {}, std::size_t expectedBlocks = 0);
    // The pools refer to this object's memory resource: it stays where it was made.
    CachingAllocator(const CachingAllocator&) = delete;
    CachingAllocator& operator=(const CachingAllocator&) = delete;

    /// malloc(size): a handle to the block, or kFailed when even a released cache cannot make room (the
    /// cache has then been released, as PyTorch's failed malloc leaves it). `tag` names the allocation for
    /// fragmentationNow(). size 0 takes a 512-byte block, as round_size does.
    [[nodiscard]] Handle allocate(std::uint64_t size, std::uint32_t tag = 0);
    /// free(): the block returns to its pool and merges with free neighbours (free_block).
    void free(Handle block);
    /// torch.cuda.empty_cache(): every cached segment that holds no allocation is released.
    void emptyCache();
    /// A fresh allocator with these settings, keeping the memory this one has grown (for repeated replays).
    void reset(const AllocatorSettings& settings);
    /// This allocator in `other`'s state (its blocks, cache, counters and peaks) under `settings`, keeping
    /// the memory this one has grown: a replay that starts where another stopped. The segment log stays.
    void copyState(const CachingAllocator& other, const AllocatorSettings& settings);

    /// Appends every segment event from now on to `log` (nullptr: none, the default; one test per segment
    /// event, never per allocation). The log must outlive its use; reset() keeps it.
    void setSegmentLog(std::vector<SegmentEvent>* log) noexcept { m_segmentLog = log; }
    /// Puts a segment that already exists into the cache, its blocks in address order (adjacent free ones
    /// merge), as a recorded run had it before the first event replayed: reserved grows by their sum, no
    /// segment event is logged. `expandable`: the blocks are the mapped start of a new expandable segment of
    /// the pool (their sum a whole number of its pages). Returns per block its handle, kFailed for the free.
    [[nodiscard]] std::vector<Handle> adoptSegment(
        std::span<const AdoptedBlock> blocks, bool small, bool expandable = false);

    [[nodiscard]] const AllocatorStats& stats() const noexcept { return m_stats; }
    /// The block's size (round_size of the request, plus an unsplit remainder).
    [[nodiscard]] std::uint64_t blockSize(Handle block) const;
    /// Clears the peaks (torch.cuda.reset_peak_memory_stats).
    void resetPeaks() noexcept;
    /// Free bytes inside reserved segments now, grouped by pool and tag, largest first.
    [[nodiscard]] std::vector<FragmentationEntry> fragmentationNow() const;

    /// round_size(): 512-byte multiples, or roundup_power2_divisions where configured.
    [[nodiscard]] static std::uint64_t roundSize(
        std::uint64_t size, const AllocatorSettings& settings) noexcept;
    /// get_allocation_size(): the segment cudaMalloc gets for a rounded request.
    [[nodiscard]] static std::uint64_t allocationSize(std::uint64_t roundedSize) noexcept;

private:
    struct Block
    {
        std::uint64_t address = 0;
        std::uint64_t base = 0; ///< its segment's first address (expandable segments map pages from it)
        std::uint64_t size = 0;
        std::uint64_t requested = 0;
        std::int64_t gcBase = 0; ///< the pool's get_free_block count when it was cached (garbage collection)
        std::uint32_t prev = kNone;
        std::uint32_t next = kNone;
        std::uint32_t tag = 0;
        bool allocated = false;
        bool small = false;
        bool mapped = true; ///< expandable segments: backed by physical pages
        bool expandable = false;
        bool live = false; ///< the slot holds a block (slots are reused)
        std::uint32_t wholeAt = kNone; ///< its place in Pool::whole while it is there
    };
    static constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();

    /// A cached block in its pool's best-fit order (BlockComparatorSize: size, then address).
    struct FreeKey
    {
        std::uint64_t size = 0;
        std::uint64_t address = 0;
        std::uint32_t block = kNone;
    };
    /// A pool's cached blocks, for best fit: by size, and among equal sizes by address (a min-heap per size,
    /// each block's place in it kept, so a block leaves at once and a size with no block left leaves its
    /// bucket). Ordered like PyTorch's std::set<Block*, BlockComparatorSize>, cheaper to update.
    class FreeIndex
    {
    public:
        /// Room for block slots below `blocks` up front.
        void reserve(std::size_t blocks);
        void insert(const FreeKey& key);
        /// Takes the block out, if it is in the index.
        void erase(std::uint32_t block);
        /// The smallest (size, address) of at least `size` bytes; block kNone if none.
        [[nodiscard]] FreeKey lowerBound(std::uint64_t size) const;
        /// The cached block after `key` in (size, address) order; block kNone if none.
        [[nodiscard]] FreeKey successor(const FreeKey& key) const;
        /// Every cached block in (size, address) order (whole-pool walks: release, reports).
        [[nodiscard]] std::vector<FreeKey> ordered() const;
        void clear();

    private:
        struct Entry
        {
            std::uint64_t address;
            std::uint32_t block;
        };
        /// Where a block is: its heap (kNone: not in the index) and its index in that heap.
        struct Place
        {
            std::uint32_t heap = kNone;
            std::uint32_t at = 0;
        };
        /// Sizes up to a small segment (2 MiB) in 512-byte classes with a bitmap of the classes in use
        /// (and a summary word of its non-zero words, so a search skips empty words at once); larger
        /// sizes in buckets of 256 per power of two (LargeBuckets). Heap ids: a small class's is the
        /// class, a large size's kSmallClasses plus its index in m_heaps.
        static constexpr std::size_t kSmallClasses = kSmallBuffer / kMinBlockSize;
        /// The heap for `size` (made if the size has none), by id.
        std::uint32_t heapOf(std::uint64_t size);
        std::vector<Entry>& heapById(std::uint32_t id)
        {
            return id < kSmallClasses ? m_small[id] : m_heaps[id - kSmallClasses];
        }
        void siftUp(std::vector<Entry>& heap, std::size_t i, Entry e);
        void siftDown(std::vector<Entry>& heap, std::size_t i, Entry e);
        /// The size of the emptied heap `id` leaves the index.
        void dropEmpty(std::uint32_t id);
        /// Calls `f(c)` for every small class whose bit is set, in ascending order (a class's bit is set
        /// while its heap holds a block).
        template <typename F> void forEachUsedClass(F&& f) const
        {
            for (std::uint64_t words = m_usedWords; words != 0; words &= words - 1) {
                const auto w = static_cast<std::size_t>(std::countr_zero(words));
                for (std::uint64_t bits = m_used[w]; bits != 0; bits &= bits - 1)
                    f(w * 64 + static_cast<std::size_t>(std::countr_zero(bits)));
            }
        }
        /// Larger sizes (and any size not a 512-byte multiple): a bucket per 1/256 of a power of two, in
        /// size order, each a short list of its sizes in use, in order, with their heaps; a bitmap of the
        /// buckets in use (and a summary word per 64 of its words) finds the next bucket. A new size costs
        /// no allocation once the buckets and heaps have grown (issue 38: the map of sizes it replaced
        /// allocated and rebalanced a node per new size, half a replay's time where every tensor has a
        /// size of its own).
        struct SizeHeap
        {
            std::uint64_t size;
            std::uint32_t heap; ///< index into m_heaps
        };
        static constexpr std::size_t kBuckets = 64 * 256;
        [[nodiscard]] static std::size_t bucketOf(std::uint64_t size) noexcept;
        /// The first bucket at or after `b` whose bit is set; kBuckets if none.
        [[nodiscard]] std::size_t nextBucket(std::size_t b) const noexcept;
        template <typename F> void forEachUsedBucket(F&& f) const
        {
            for (std::size_t w = 0; w < m_bucketWords.size(); ++w) {
                for (std::uint64_t words = m_bucketWords[w]; words != 0; words &= words - 1) {
                    const std::size_t word = w * 64 + static_cast<std::size_t>(std::countr_zero(words));
                    for (std::uint64_t bits = m_bucketBits[word]; bits != 0; bits &= bits - 1)
                        f(word * 64 + static_cast<std::size_t>(std::countr_zero(bits)));
                }
            }
        }
        /// The heaps of the large sizes met last, by a hash of the size (a size's heap stays its own while
        /// the size is in its bucket): a replay frees and caches many blocks of one size in a row (one
        /// weight shape per expert and layer), each of which would scan its bucket.
        struct RecentSize
        {
            std::uint64_t size = 0; ///< 0: none
            std::uint32_t heap = 0;
        };
        static constexpr std::size_t kRecentSizes = 256;
        [[nodiscard]] static std::size_t recentSlot(std::uint64_t size) noexcept
        {
            return static_cast<std::size_t>((size * 0x9E3779B97F4A7C15ULL) >> 56);
        }
        std::array<RecentSize, kRecentSizes> m_recent {};
        std::vector<std::vector<SizeHeap>> m_buckets; ///< grown to the largest bucket used
        std::array<std::uint64_t, kBuckets / 64> m_bucketBits {};
        std::array<std::uint64_t, kBuckets / 64 / 64> m_bucketWords {}; ///< bit: m_bucketBits word not 0
        std::vector<std::vector<Entry>> m_heaps; ///< the large sizes' heaps, their buffers kept
        std::vector<std::uint64_t> m_heapSizes; ///< per large heap: the size it holds
        std::vector<std::uint32_t> m_freeHeaps; ///< heaps of m_heaps no size holds

        std::vector<std::vector<Entry>> m_small; ///< grown to the largest class used
        std::array<std::uint64_t, kSmallClasses / 64> m_used {};
        std::uint64_t m_usedWords = 0; ///< bit w: m_used[w] is not 0
        static_assert(kSmallClasses / 64 <= 64, "one summary word covers the bitmap");
        std::vector<Place> m_places; ///< per block slot
    };
    /// An expandable segment's unmapped range, by address (BlockComparatorAddress).
    struct AddressKey
    {
        std::uint64_t address = 0;
        std::uint32_t block = kNone;
        friend bool operator<(const AddressKey& a, const AddressKey& b) { return a.address < b.address; }
    };
    struct Pool
    {
        Pool(bool isSmall, std::pmr::memory_resource* memory)
            : unmapped(memory)
            , small(isSmall)
        {
        }
        FreeIndex blocks; ///< cached free blocks
        std::pmr::set<AddressKey> unmapped; ///< expandable segments' unmapped ranges
        bool small = false;
        std::int64_t freeBlockCalls = 0; ///< get_free_blocks_call_count
        std::uint32_t expandableSegments = 0; ///< live expandable segments of this pool
        /// The cached blocks that are whole cudaMalloc segments (not split, not expandable): what
        /// release_cached_blocks frees. A cached block stays whole or split while it is cached, so the
        /// list is kept as blocks enter and leave the cache, and a release need not walk every cached
        /// block of every size (issue 38: thousands of sizes, walked at every refused segment).
        std::vector<std::uint32_t> whole;
    };
    AddressKey addressOf(std::uint32_t b) const { return AddressKey { m_blocks[b].address, b }; }

    std::uint32_t newBlock(const Block& b);
    void deleteBlock(std::uint32_t b);
    Pool& poolOf(const Block& b) { return b.small ? m_small : m_large; }
    void insertFree(std::uint32_t b);
    /// Takes a cached block out of its pool's index (and Pool::whole).
    void eraseFree(Pool& pool, std::uint32_t b);

    bool getFreeBlock(Pool& pool, std::uint64_t size, std::uint32_t& found);
    bool allocBlock(
        Pool& pool, std::uint64_t size, std::uint64_t allocSize, std::uint32_t tag, std::uint32_t& found);
    bool releaseAvailableCachedBlocks(Pool& pool, std::uint64_t size);
    void releaseCachedBlocks();
    void releaseBlocks(Pool& pool);
    void releaseBlock(std::uint32_t b);
    void garbageCollect();
    bool shouldSplit(const Block& b, std::uint64_t size) const;
    Handle allocFoundBlock(std::uint32_t b, std::uint64_t size, std::uint64_t requested, std::uint32_t tag);
    void freeBlock(std::uint32_t b);
    std::uint64_t tryMerge(std::uint32_t dst, std::uint32_t src);

    // Expandable segments (CachingAllocatorExpandable.cpp).
    std::uint64_t pageSize(const Pool& pool) const { return pool.small ? kSmallBuffer : kLargeBuffer; }
    std::uint32_t findExpandableBlock(Pool& pool, std::uint64_t size);
    bool mapBlock(std::uint32_t b, std::uint64_t size);
    std::uint32_t tryAllocateExpandable(Pool& pool, std::uint64_t size, std::uint32_t tag);
    void unmapBlock(std::uint32_t b);
    std::uint64_t expandableSize(std::uint32_t b) const;

    void addReserved(std::uint64_t bytes);
    void logSegment(SegmentEventKind kind, bool small, std::uint64_t address, std::uint64_t bytes)
    {
        if (m_segmentLog != nullptr)
            m_segmentLog->push_back(SegmentEvent { kind, small, address, bytes, m_stats.reserved });
    }

    AllocatorSettings m_settings;
    std::vector<Block> m_blocks;
    std::vector<std::uint32_t> m_freeSlots;
    std::pmr::unsynchronized_pool_resource m_memory; ///< the pools' set nodes (before the pools)
    Pool m_small;
    Pool m_large;
    std::uint64_t m_nextAddress = 1ULL << 32;
    AllocatorStats m_stats;
    std::vector<SegmentEvent>* m_segmentLog = nullptr;
};

} // namespace headroom

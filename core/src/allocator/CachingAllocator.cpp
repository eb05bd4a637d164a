#include "headroom/allocator/CachingAllocator.h"

#include <algorithm>
#include <bit>
#include <map>
#include <utility>

// Each function below follows the PyTorch function of the same name in c10/cuda/CUDACachingAllocator.cpp
// (DeviceCachingAllocator) and c10/core/CachingDeviceAllocator.h (CachingDeviceAllocatorImpl, PyTorch 2.10
// and later); docs/memory-model.md, "The caching allocator", lists them. One stream, no CUDA graphs, no
// events (the training step runs on the default stream), so the stream and event checks drop out.

namespace headroom {

CachingAllocator::CachingAllocator(const AllocatorSettings& settings, std::size_t expectedBlocks)
    : m_settings { settings }
    , m_small { true, &m_memory }
    , m_large { false, &m_memory }
{
    m_blocks.reserve(expectedBlocks);
    m_small.blocks.reserve(expectedBlocks);
    m_large.blocks.reserve(expectedBlocks);
    if (m_settings.physicalCapacity == kNoLimit)
        m_settings.physicalCapacity = m_settings.capacity;
}

void CachingAllocator::reset(const AllocatorSettings& settings)
{
    m_settings = settings;
    if (m_settings.physicalCapacity == kNoLimit)
        m_settings.physicalCapacity = m_settings.capacity;
    m_blocks.clear();
    m_freeSlots.clear();
    for (Pool* pool : { &m_small, &m_large }) {
        pool->blocks.clear();
        pool->whole.clear();
        pool->unmapped.clear();
        pool->freeBlockCalls = 0;
        pool->expandableSegments = 0;
    }
    m_nextAddress = 1ULL << 32;
    m_stats = AllocatorStats {};
}

void CachingAllocator::copyState(const CachingAllocator& other, const AllocatorSettings& settings)
{
    m_settings = settings;
    if (m_settings.physicalCapacity == kNoLimit)
        m_settings.physicalCapacity = m_settings.capacity;
    m_blocks = other.m_blocks;
    m_freeSlots = other.m_freeSlots;
    for (const auto& [to, from] :
        { std::pair { &m_small, &other.m_small }, std::pair { &m_large, &other.m_large } }) {
        to->blocks = from->blocks;
        to->blocks.reserve(m_blocks.capacity()); // room for the slots this allocator expects
        to->whole = from->whole;
        to->unmapped = from->unmapped; // copied into this pool's own memory resource
        to->freeBlockCalls = from->freeBlockCalls;
        to->expandableSegments = from->expandableSegments;
    }
    m_nextAddress = other.m_nextAddress;
    m_stats = other.m_stats;
}

std::uint64_t CachingAllocator::roundSize(std::uint64_t size, const AllocatorSettings& settings) noexcept
{
    if (size < kMinBlockSize)
        return kMinBlockSize;
    // CUDAAllocatorConfig::roundup_power2_divisions(size): the interval of the power of two at or below
    // size, counted from 1 MiB (sizes below 2 MiB use the first), at most the sixteenth.
    const int log = std::bit_width(size) - 1;
    const std::size_t index = log > 20 ? std::min<std::size_t>(static_cast<std::size_t>(log - 20), 15) : 0;
    const std::uint64_t divisions = settings.roundupPower2Divisions[index];
    if (divisions > 1 && size > kMinBlockSize * divisions) {
        // roundup_power2_next_division: the next of `divisions` equal steps between the powers of two.
        if (std::has_single_bit(size))
            return size;
        const std::uint64_t floor = std::bit_floor(size);
        const std::uint64_t step = floor >> (std::bit_width(divisions) - 1);
        if (step == 0)
            return floor << 1;
        const std::uint64_t below = size & ~(step - 1);
        return below == size ? size : below + step;
    }
    if (size > kNoLimit - kMinBlockSize)
        return kNoLimit;
    return kMinBlockSize * ((size + kMinBlockSize - 1) / kMinBlockSize);
}

std::uint64_t CachingAllocator::allocationSize(std::uint64_t size) noexcept
{
    if (size <= kSmallSize)
        return kSmallBuffer;
    if (size < kMinLargeAlloc)
        return kLargeBuffer;
    if (size > kNoLimit - kRoundLarge)
        return kNoLimit;
    return kRoundLarge * ((size + kRoundLarge - 1) / kRoundLarge);
}

std::uint32_t CachingAllocator::newBlock(const Block& b)
{
    if (!m_freeSlots.empty()) {
        const std::uint32_t i = m_freeSlots.back();
        m_freeSlots.pop_back();
        m_blocks[i] = b;
        m_blocks[i].live = true;
        m_blocks[i].wholeAt = kNone;
        return i;
    }
    m_blocks.push_back(b);
    m_blocks.back().live = true;
    m_blocks.back().wholeAt = kNone;
    return static_cast<std::uint32_t>(m_blocks.size() - 1);
}

void CachingAllocator::deleteBlock(std::uint32_t b)
{
    m_blocks[b].live = false;
    m_freeSlots.push_back(b);
}

void CachingAllocator::insertFree(std::uint32_t b)
{
    Pool& pool = poolOf(m_blocks[b]);
    m_blocks[b].gcBase = pool.freeBlockCalls; // insert_into_blocks
    pool.blocks.insert(FreeKey { m_blocks[b].size, m_blocks[b].address, b });
    Block& block = m_blocks[b];
    if (block.prev == kNone && block.next == kNone && !block.expandable && block.wholeAt == kNone) {
        block.wholeAt = static_cast<std::uint32_t>(pool.whole.size());
        pool.whole.push_back(b);
    }
}

void CachingAllocator::eraseFree(Pool& pool, std::uint32_t b)
{
    pool.blocks.erase(b);
    const std::uint32_t at = m_blocks[b].wholeAt;
    if (at == kNone)
        return;
    const std::uint32_t last = pool.whole.back();
    pool.whole[at] = last;
    m_blocks[last].wholeAt = at;
    pool.whole.pop_back();
    m_blocks[b].wholeAt = kNone;
}

void CachingAllocator::addReserved(std::uint64_t bytes)
{
    m_stats.reserved += bytes;
    m_stats.peakReserved = std::max(m_stats.peakReserved, m_stats.reserved);
}

void CachingAllocator::resetPeaks() noexcept
{
    m_stats.peakAllocated = m_stats.allocated;
    m_stats.peakReserved = m_stats.reserved;
}

std::uint64_t CachingAllocator::blockSize(Handle block) const
{
    return block < m_blocks.size() && m_blocks[block].live ? m_blocks[block].size : 0;
}

CachingAllocator::Handle CachingAllocator::allocate(std::uint64_t requested, std::uint32_t tag)
{
    const std::uint64_t size = roundSize(requested, m_settings);
    Pool& pool = size <= kSmallSize ? m_small : m_large;
    const std::uint64_t allocSize = allocationSize(size);
    std::uint32_t block = kNone;
    bool found = getFreeBlock(pool, size, block);
    if (!found) {
        if (m_settings.capacity != kNoLimit && m_settings.garbageCollectionThreshold > 0.0)
            garbageCollect();
        found = allocBlock(pool, size, allocSize, tag, block)
            || (releaseAvailableCachedBlocks(pool, size) && allocBlock(pool, size, allocSize, tag, block));
        if (!found) {
            releaseCachedBlocks(); // free all non-split cached blocks and retry
            ++m_stats.allocRetries;
            found = allocBlock(pool, size, allocSize, tag, block);
        }
    }
    if (!found) {
        ++m_stats.ooms;
        return kFailed;
    }
    return allocFoundBlock(block, size, requested, tag);
}

bool CachingAllocator::getFreeBlock(Pool& pool, std::uint64_t size, std::uint32_t& found)
{
    if (m_settings.capacity != kNoLimit && m_settings.garbageCollectionThreshold > 0.0)
        ++pool.freeBlockCalls;
    FreeKey it = pool.blocks.lowerBound(size);
    if (it.block == kNone)
        return false;
    if (m_blocks[it.block].expandable) {
        if (m_settings.expandableSegments) {
            // A block at the end of the mapped range counts with the unmapped space after it: among
            // blocks large enough, prefer one that would not grow the segment.
            // Only a block with unmapped space after it can be passed over: any later block in (size,
            // address) order is at least as large as one without.
            while (m_blocks[it.block].expandable && expandableSize(it.block) > it.size) {
                const FreeKey next = pool.blocks.successor(it);
                if (next.block == kNone || expandableSize(next.block) >= expandableSize(it.block))
                    break;
                it = next;
            }
        } else {
            do {
                it = pool.blocks.successor(it);
            } while (it.block != kNone && m_blocks[it.block].expandable);
            if (it.block == kNone)
                return false;
        }
    }
    const std::uint64_t maxSplit = m_settings.maxSplitSize;
    // Do not return an oversized block for a large request; an oversize request takes a cached oversize
    // block only within max_non_split_rounding_size of its size.
    if (size < maxSplit && it.size >= maxSplit)
        return false;
    if (size >= maxSplit && it.size >= size + m_settings.maxNonSplitRoundingSize)
        return false;
    found = it.block;
    eraseFree(pool, found);
    return true;
}

bool CachingAllocator::allocBlock(
    Pool& pool, std::uint64_t size, std::uint64_t allocSize, std::uint32_t tag, std::uint32_t& found)
{
    if (m_settings.capacity != kNoLimit
        && (allocSize > m_settings.capacity || m_stats.reserved > m_settings.capacity - allocSize))
        return false; // set_fraction: total_allocated_memory + size > allowed_memory_maximum
    if (m_settings.expandableSegments) {
        found = tryAllocateExpandable(pool, size, tag);
        return found != kNone;
    }
    if (allocSize > m_settings.physicalCapacity || m_stats.reserved > m_settings.physicalCapacity - allocSize)
        return false; // cudaMalloc: cudaErrorMemoryAllocation
    Block b;
    b.address = m_nextAddress;
    b.base = b.address;
    b.size = allocSize;
    b.small = pool.small;
    b.tag = tag;
    m_nextAddress += allocSize + kRoundLarge; // segments never touch: they cannot merge
    found = newBlock(b);
    addReserved(allocSize);
    ++m_stats.segments;
    ++m_stats.deviceAllocs;
    logSegment(SegmentEventKind::Alloc, pool.small, b.address, allocSize);
    return true;
}

bool CachingAllocator::shouldSplit(const Block& b, std::uint64_t size) const
{
    const std::uint64_t remaining = b.size - size;
    if (b.small || m_settings.expandableSegments)
        return remaining >= kMinBlockSize;
    return size < m_settings.maxSplitSize && remaining > kSmallSize;
}

CachingAllocator::Handle CachingAllocator::allocFoundBlock(
    std::uint32_t b, std::uint64_t size, std::uint64_t requested, std::uint32_t tag)
{
    if (shouldSplit(m_blocks[b], size)) {
        // The request takes the front of the block; the rest stays cached (alloc_found_block).
        Block front = m_blocks[b];
        front.size = size;
        front.prev = m_blocks[b].prev;
        front.next = b;
        const std::uint32_t f = newBlock(front);
        Block& rest = m_blocks[b];
        if (rest.prev != kNone)
            m_blocks[rest.prev].next = f;
        rest.prev = f;
        rest.address += size;
        rest.size -= size;
        rest.tag = tag;
        insertFree(b);
        b = f;
    }
    Block& block = m_blocks[b];
    block.allocated = true;
    block.requested = requested;
    block.tag = tag;
    m_stats.allocated += block.size;
    m_stats.requested += requested;
    m_stats.peakAllocated = std::max(m_stats.peakAllocated, m_stats.allocated);
    return b;
}

void CachingAllocator::free(Handle handle)
{
    if (handle >= m_blocks.size() || !m_blocks[handle].live || !m_blocks[handle].allocated)
        return;
    Block& b = m_blocks[handle];
    b.allocated = false;
    m_stats.allocated -= b.size;
    m_stats.requested -= b.requested;
    freeBlock(handle);
}

void CachingAllocator::freeBlock(std::uint32_t b)
{
    tryMerge(b, m_blocks[b].prev);
    tryMerge(b, m_blocks[b].next);
    insertFree(b);
}

std::uint64_t CachingAllocator::tryMerge(std::uint32_t dst, std::uint32_t src)
{
    if (src == kNone || m_blocks[src].allocated || m_blocks[dst].mapped != m_blocks[src].mapped)
        return 0;
    Pool& pool = poolOf(m_blocks[src]);
    if (m_blocks[src].mapped)
        eraseFree(pool, src);
    else
        pool.unmapped.erase(addressOf(src));
    Block& d = m_blocks[dst];
    const Block& s = m_blocks[src];
    if (d.prev == src) { // [src dst]
        d.address = s.address;
        d.prev = s.prev;
        if (d.prev != kNone)
            m_blocks[d.prev].next = dst;
    } else { // [dst src]
        d.next = s.next;
        if (d.next != kNone)
            m_blocks[d.next].prev = dst;
    }
    const std::uint64_t subsumed = s.size;
    d.size += subsumed;
    deleteBlock(src);
    return subsumed;
}

void CachingAllocator::releaseBlock(std::uint32_t b)
{
    eraseFree(poolOf(m_blocks[b]), b);
    Block& block = m_blocks[b];
    m_stats.reserved -= block.size;
    --m_stats.segments;
    ++m_stats.deviceFrees;
    logSegment(SegmentEventKind::Free, block.small, block.address, block.size);
    deleteBlock(b);
}

void CachingAllocator::releaseBlocks(Pool& pool)
{
    if (!m_settings.expandableSegments) {
        // No expandable segment to unmap: the whole segments cached, in the pool's (size, address) order.
        std::vector<std::uint32_t> toRelease = pool.whole;
        std::sort(toRelease.begin(), toRelease.end(), [&](std::uint32_t a, std::uint32_t b) {
            return m_blocks[a].size != m_blocks[b].size ? m_blocks[a].size < m_blocks[b].size
                                                        : m_blocks[a].address < m_blocks[b].address;
        });
        for (const std::uint32_t b : toRelease)
            releaseBlock(b);
        return;
    }
    std::vector<std::uint32_t> toUnmap;
    std::vector<std::uint32_t> toRelease;
    for (const FreeKey& k : pool.blocks.ordered()) {
        const std::uint32_t b = k.block;
        if (m_blocks[b].expandable)
            toUnmap.push_back(b);
        else if (m_blocks[b].prev == kNone && m_blocks[b].next == kNone)
            toRelease.push_back(b);
    }
    for (const std::uint32_t b : toRelease)
        releaseBlock(b);
    for (const std::uint32_t b : toUnmap) {
        if (!m_blocks[b].live || !m_blocks[b].mapped || m_blocks[b].allocated)
            continue;
        unmapBlock(b);
        if (m_blocks[b].live && !m_blocks[b].mapped && m_blocks[b].prev == kNone
            && m_blocks[b].next == kNone) {
            // release_expandable_segment: the whole segment is unmapped
            pool.unmapped.erase(addressOf(b));
            deleteBlock(b);
            --pool.expandableSegments;
        }
    }
}

void CachingAllocator::releaseCachedBlocks()
{
    releaseBlocks(m_large);
    releaseBlocks(m_small);
}

void CachingAllocator::emptyCache()
{
    releaseCachedBlocks();
}

bool CachingAllocator::releaseAvailableCachedBlocks(Pool& pool, std::uint64_t size)
{
    const std::uint64_t maxSplit = m_settings.maxSplitSize;
    if (maxSplit == kNoLimit)
        return false;
    const std::uint64_t key = std::max(size, maxSplit);
    const std::vector<FreeKey> cached = pool.blocks.ordered();
    auto it = std::lower_bound(cached.begin(), cached.end(), key,
        [](const FreeKey& k, std::uint64_t size) { return k.size < size; });
    if (it == cached.end() || m_blocks[it->block].expandable) {
        // No single block is large enough: release oversize blocks, largest first, until enough.
        if (it == cached.begin())
            return false;
        std::uint64_t released = 0;
        --it;
        std::vector<std::uint32_t> victims;
        while (released < key && it->size >= maxSplit) {
            if (!m_blocks[it->block].expandable) {
                victims.push_back(it->block);
                released += it->size;
            }
            if (it == cached.begin())
                break;
            --it;
        }
        for (const std::uint32_t b : victims) {
            if (m_blocks[b].prev == kNone && m_blocks[b].next == kNone)
                releaseBlock(b);
        }
        return released >= key;
    }
    if (m_blocks[it->block].prev != kNone || m_blocks[it->block].next != kNone)
        return false; // cudaFree of a split block is impossible; PyTorch asserts it never happens
    releaseBlock(it->block);
    return true;
}

void CachingAllocator::garbageCollect()
{
    // garbage_collect_cached_blocks: release unsplit large blocks older than the average, until the
    // reserved bytes are below garbage_collection_threshold x capacity.
    const auto threshold = static_cast<std::uint64_t>(
        m_settings.garbageCollectionThreshold * static_cast<double>(m_settings.capacity));
    if (m_stats.reserved <= threshold)
        return;
    const std::uint64_t target = m_stats.reserved - threshold;
    const auto age = [&](std::uint32_t b) { return m_large.freeBlockCalls - m_blocks[b].gcBase; };
    std::int64_t totalAge = 0;
    std::int64_t freeable = 0;
    for (const FreeKey& k : m_large.blocks.ordered()) {
        const std::uint32_t b = k.block;
        if (m_blocks[b].prev == kNone && m_blocks[b].next == kNone && !m_blocks[b].expandable) {
            totalAge += age(b);
            ++freeable;
        }
    }
    std::uint64_t reclaimed = 0;
    bool freed = true;
    while (reclaimed < target && freed && freeable > 0) {
        const double averageAge = static_cast<double>(totalAge) / static_cast<double>(freeable);
        freed = false;
        std::vector<std::uint32_t> victims;
        for (const FreeKey& k : m_large.blocks.ordered()) {
            const std::uint32_t b = k.block;
            if (m_blocks[b].prev == kNone && m_blocks[b].next == kNone && !m_blocks[b].expandable
                && static_cast<double>(age(b)) >= averageAge)
                victims.push_back(b);
        }
        for (const std::uint32_t b : victims) {
            freed = true;
            reclaimed += m_blocks[b].size;
            totalAge -= age(b);
            --freeable;
            releaseBlock(b);
        }
    }
}

std::vector<CachingAllocator::Handle> CachingAllocator::adoptSegment(
    std::span<const AdoptedBlock> blocks, bool small, bool expandable)
{
    std::vector<Handle> handles(blocks.size(), kFailed);
    std::uint64_t total = 0;
    for (const AdoptedBlock& b : blocks) {
        if (b.size > kNoLimit - total)
            return handles;
        total += b.size;
    }
    if (total == 0)
        return handles;
    Pool& pool = small ? m_small : m_large;
    const std::uint64_t page = pageSize(pool);
    if (expandable && total % page != 0)
        return handles;
    Block segment;
    segment.small = small;
    segment.expandable = expandable;
    std::uint64_t span = total;
    if (expandable) {
        // the address space an expandable segment reserves (findExpandableBlock), mapped from its start
        const std::uint64_t device = std::min<std::uint64_t>(m_settings.physicalCapacity, 1ULL << 46);
        const std::uint64_t room = (device + device / 8 + page - 1) / page * page;
        span = std::max(room, total);
        segment.address = (m_nextAddress + (1ULL << 30) - 1) / (1ULL << 30) * (1ULL << 30);
        m_nextAddress = segment.address + span + (1ULL << 30);
    } else {
        segment.address = m_nextAddress;
        m_nextAddress += total + kRoundLarge;
    }
    segment.base = segment.address;
    std::uint32_t prev = kNone;
    std::vector<std::uint32_t> cached;
    std::uint64_t address = segment.address;
    for (std::size_t i = 0; i < blocks.size(); ++i) {
        if (blocks[i].size == 0)
            continue;
        if (!blocks[i].allocated && prev != kNone && !m_blocks[prev].allocated) {
            m_blocks[prev].size += blocks[i].size; // adjacent free blocks are one
            address += blocks[i].size;
            continue;
        }
        Block b = segment;
        b.address = address;
        b.size = blocks[i].size;
        b.prev = prev;
        b.allocated = blocks[i].allocated;
        b.requested = blocks[i].requested != 0 ? blocks[i].requested : blocks[i].size;
        const std::uint32_t at = newBlock(b);
        if (prev != kNone)
            m_blocks[prev].next = at;
        prev = at;
        address += blocks[i].size;
        if (b.allocated) {
            handles[i] = at;
            m_stats.allocated += b.size;
            m_stats.requested += b.requested;
        } else {
            cached.push_back(at);
        }
    }
    if (expandable && span > total) { // the unmapped rest of the address space
        Block rest = segment;
        rest.address = segment.address + total;
        rest.size = span - total;
        rest.mapped = false;
        rest.prev = prev;
        const std::uint32_t at = newBlock(rest);
        m_blocks[prev].next = at;
        pool.unmapped.insert(addressOf(at));
    }
    if (expandable)
        ++pool.expandableSegments;
    else
        ++m_stats.segments;
    for (const std::uint32_t b : cached)
        insertFree(b);
    addReserved(total);
    m_stats.peakAllocated = std::max(m_stats.peakAllocated, m_stats.allocated);
    return handles;
}

std::vector<FragmentationEntry> CachingAllocator::fragmentationNow() const
{
    std::map<std::pair<bool, std::uint32_t>, FragmentationEntry> byTag;
    for (const Pool* pool : { &m_small, &m_large }) {
        for (const FreeKey& k : pool->blocks.ordered()) {
            const std::uint32_t b = k.block;
            FragmentationEntry& e = byTag[{ pool->small, m_blocks[b].tag }];
            e.tag = m_blocks[b].tag;
            e.smallPool = pool->small;
            e.bytes += m_blocks[b].size;
            ++e.blocks;
        }
    }
    std::vector<FragmentationEntry> out;
    out.reserve(byTag.size());
    for (const auto& [key, e] : byTag)
        out.push_back(e);
    std::sort(out.begin(), out.end(),
        [](const auto& a, const auto& b) { return a.bytes != b.bytes ? a.bytes > b.bytes : a.tag < b.tag; });
    return out;
}

} // namespace headroom

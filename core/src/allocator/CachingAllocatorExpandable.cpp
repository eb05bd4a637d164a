#include "headroom/allocator/CachingAllocator.h"

#include <algorithm>

// expandable_segments:True (c10/cuda/CUDACachingAllocator.cpp, Note [Expandable Segments]; the functions
// find_expandable_block, try_allocate_expandable_block, map_block and unmap_block): one segment per pool
// reserves address space for more than the whole device and maps physical pages into it on demand, 2 MiB
// pages for the small pool and 20 MiB pages for the large one, at the lowest address that fits. Releasing
// the cache unmaps every page no allocation touches.

namespace headroom {

namespace {
std::uint64_t roundUp(std::uint64_t x, std::uint64_t step)
{
    return (x + step - 1) / step * step;
}
} // namespace

std::uint64_t CachingAllocator::expandableSize(std::uint32_t b) const
{
    const Block& block = m_blocks[b];
    const bool unmappedNext = block.next != kNone && !m_blocks[block.next].mapped;
    return block.size + (unmappedNext ? m_blocks[block.next].size : 0);
}

std::uint32_t CachingAllocator::findExpandableBlock(Pool& pool, std::uint64_t size)
{
    const auto allocatable = [&](std::uint32_t b) { return b != kNone && !m_blocks[b].allocated; };
    const auto hasRoom = [&](std::uint32_t b) {
        std::uint64_t bytes = 0;
        while (bytes < size && allocatable(b)) {
            bytes += m_blocks[b].size;
            b = m_blocks[b].next;
        }
        return bytes >= size;
    };
    for (const AddressKey& k : pool.unmapped) {
        const std::uint32_t u = k.block;
        // the lowest unmapped range, joined with a free mapped block just before it
        const std::uint32_t c = allocatable(m_blocks[u].prev) ? m_blocks[u].prev : u;
        if (hasRoom(c))
            return c;
    }
    // A new segment: address space for 1 1/8 of the device (ExpandableSegment's constructor).
    const std::uint64_t page = pageSize(pool);
    const std::uint64_t device = std::min<std::uint64_t>(m_settings.physicalCapacity, 1ULL << 46);
    const std::uint64_t span = std::max(roundUp(device + device / 8, page), roundUp(size, page));
    Block b;
    b.address = roundUp(m_nextAddress, 1ULL << 30);
    b.base = b.address;
    b.size = span;
    b.small = pool.small;
    b.mapped = false;
    b.expandable = true;
    m_nextAddress = b.address + span + (1ULL << 30);
    const std::uint32_t i = newBlock(b);
    pool.unmapped.insert(addressOf(i));
    ++pool.expandableSegments;
    return i;
}

bool CachingAllocator::mapBlock(std::uint32_t b, std::uint64_t size)
{
    Pool& pool = poolOf(m_blocks[b]);
    const std::uint64_t page = pageSize(pool);
    const std::uint64_t begin = m_blocks[b].address;
    const std::uint64_t end = m_blocks[b].base + roundUp(begin + size - m_blocks[b].base, page);
    const std::uint64_t mapped = end - begin;
    if (mapped > m_settings.physicalCapacity || m_stats.reserved > m_settings.physicalCapacity - mapped)
        return false; // cuMemCreate: CUDA_ERROR_OUT_OF_MEMORY
    pool.unmapped.erase(addressOf(b));
    m_blocks[b].mapped = true;
    if (mapped < m_blocks[b].size) { // the rest of the range stays unmapped
        Block rest = m_blocks[b];
        rest.address = end;
        rest.size = m_blocks[b].size - mapped;
        rest.mapped = false;
        rest.prev = b;
        rest.next = m_blocks[b].next;
        const std::uint32_t r = newBlock(rest);
        if (m_blocks[r].next != kNone)
            m_blocks[m_blocks[r].next].prev = r;
        m_blocks[b].next = r;
        m_blocks[b].size = mapped;
        pool.unmapped.insert(addressOf(r));
    }
    tryMerge(b, m_blocks[b].prev);
    tryMerge(b, m_blocks[b].next);
    insertFree(b);
    addReserved(mapped);
    ++m_stats.deviceAllocs;
    logSegment(SegmentEventKind::Map, pool.small, begin, mapped);
    return true;
}

std::uint32_t CachingAllocator::tryAllocateExpandable(Pool& pool, std::uint64_t size, std::uint32_t tag)
{
    std::uint32_t candidate = findExpandableBlock(pool, size);
    if (!m_blocks[candidate].mapped && !mapBlock(candidate, std::min(m_blocks[candidate].size, size)))
        return kNone;
    while (m_blocks[candidate].size < size) {
        // free -> unmapped -> ...: map part of the unmapped range, which merges with the free block
        const std::uint32_t next = m_blocks[candidate].next;
        const std::uint64_t remaining = size - m_blocks[candidate].size;
        if (!mapBlock(next, std::min(remaining, m_blocks[next].size)))
            return kNone;
        candidate = next;
    }
    eraseFree(pool, candidate);
    m_blocks[candidate].tag = tag;
    return candidate;
}

void CachingAllocator::unmapBlock(std::uint32_t b)
{
    Pool& pool = poolOf(m_blocks[b]);
    const std::uint64_t page = pageSize(pool);
    const Block block = m_blocks[b];
    const std::uint64_t begin = block.base + roundUp(block.address - block.base, page);
    const std::uint64_t end = block.base + (block.address + block.size - block.base) / page * page;
    if (begin >= end)
        return; // no whole page is free
    eraseFree(pool, b);
    if (begin > block.address) { // prev -> before -> b
        Block before = block;
        before.size = begin - block.address;
        before.next = b;
        const std::uint32_t f = newBlock(before);
        if (before.prev != kNone)
            m_blocks[before.prev].next = f;
        m_blocks[b].prev = f;
        insertFree(f);
    }
    if (end < block.address + block.size) { // b -> after -> next
        Block after = block;
        after.address = end;
        after.size = block.address + block.size - end;
        after.prev = b;
        const std::uint32_t a = newBlock(after);
        if (after.next != kNone)
            m_blocks[after.next].prev = a;
        m_blocks[b].next = a;
        insertFree(a);
    }
    m_blocks[b].address = begin;
    m_blocks[b].size = end - begin;
    m_blocks[b].mapped = false;
    tryMerge(b, m_blocks[b].prev);
    tryMerge(b, m_blocks[b].next);
    pool.unmapped.insert(addressOf(b));
    m_stats.reserved -= end - begin;
    ++m_stats.deviceFrees;
    logSegment(SegmentEventKind::Unmap, pool.small, begin, end - begin);
}

} // namespace headroom

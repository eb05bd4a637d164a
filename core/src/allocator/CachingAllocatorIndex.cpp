#include "headroom/allocator/CachingAllocator.h"

#include <algorithm>
#include <bit>

// The pools' cached blocks in best-fit order (CachingAllocator::FreeIndex): a min-heap by address for each
// block size, sizes up to 2 MiB in 512-byte classes found through a bitmap, larger ones in a map. A block
// leaves by a change of its stamp; its stale entries are dropped when they reach the top of their heap.

namespace headroom {

namespace {
constexpr std::uint32_t kNoBlock = std::numeric_limits<std::uint32_t>::max();
} // namespace

/// Heap order: the lowest address on top.
static bool laterAddress(const std::uint64_t a, const std::uint64_t b)
{
    return a > b;
}

std::vector<CachingAllocator::FreeIndex::Entry>* CachingAllocator::FreeIndex::heapOf(std::uint64_t size)
{
    if (size <= kSmallBuffer && size % kMinBlockSize == 0 && size > 0) {
        const std::size_t c = size / kMinBlockSize - 1;
        if (c >= m_small.size())
            m_small.resize(c + 1);
        m_used[c / 64] |= 1ULL << (c % 64);
        m_usedWords |= 1ULL << (c / 64);
        return &m_small[c];
    }
    const auto [it, added] = m_classes.try_emplace(size);
    if (added && !m_spare.empty()) { // a heap's buffer from an earlier size: no allocation per new size
        it->second = std::move(m_spare.back());
        m_spare.pop_back();
    }
    return &it->second;
}

void CachingAllocator::FreeIndex::insert(const FreeKey& key)
{
    if (key.block >= m_stamp.size())
        m_stamp.resize(std::max<std::size_t>(key.block + 1, m_stamp.size() * 2), 0);
    const std::uint32_t stamp = ++m_stamp[key.block] | 1U; // odd: in the index
    m_stamp[key.block] = stamp;
    auto& heap = *heapOf(key.size);
    heap.push_back(Entry { key.address, key.block, stamp });
    std::push_heap(heap.begin(), heap.end(),
        [](const Entry& a, const Entry& b) { return laterAddress(a.address, b.address); });
}

void CachingAllocator::FreeIndex::erase(std::uint32_t block)
{
    if (block < m_stamp.size() && (m_stamp[block] & 1U) != 0)
        ++m_stamp[block]; // even: out of the index
}

/// Drops the stale entries on top; whether a cached block is left.
bool CachingAllocator::FreeIndex::clean(std::vector<Entry>& heap)
{
    while (!heap.empty() && m_stamp[heap.front().block] != heap.front().stamp) {
        std::pop_heap(heap.begin(), heap.end(),
            [](const Entry& a, const Entry& b) { return laterAddress(a.address, b.address); });
        heap.pop_back();
    }
    return !heap.empty();
}

CachingAllocator::FreeKey CachingAllocator::FreeIndex::lowerBound(std::uint64_t size)
{
    if (size <= kSmallBuffer) {
        std::size_t c = size <= kMinBlockSize ? 0 : (size + kMinBlockSize - 1) / kMinBlockSize - 1;
        while (c < m_small.size()) {
            const std::size_t word = c / 64;
            const std::uint64_t bits = m_used[word] & (~0ULL << (c % 64));
            if (bits == 0) {
                // the next word with a class in use, through the summary word
                const std::uint64_t words = word + 1 < 64 ? m_usedWords & (~0ULL << (word + 1)) : 0;
                if (words == 0)
                    break;
                c = static_cast<std::size_t>(std::countr_zero(words)) * 64;
                continue;
            }
            c = word * 64 + static_cast<std::size_t>(std::countr_zero(bits));
            if (clean(m_small[c]))
                return FreeKey { (c + 1) * kMinBlockSize, m_small[c].front().address,
                    m_small[c].front().block };
            m_used[word] &= ~(1ULL << (c % 64));
            if (m_used[word] == 0)
                m_usedWords &= ~(1ULL << word);
            ++c;
        }
    }
    for (auto it = m_classes.lower_bound(size); it != m_classes.end();) {
        if (clean(it->second))
            return FreeKey { it->first, it->second.front().address, it->second.front().block };
        m_spare.push_back(std::move(it->second));
        it = m_classes.erase(it);
    }
    return FreeKey { 0, 0, kNoBlock };
}

CachingAllocator::FreeKey CachingAllocator::FreeIndex::successor(const FreeKey& key)
{
    // A later address among blocks of the same size, else the first of the next size.
    const std::vector<Entry>* heap = nullptr;
    if (key.size <= kSmallBuffer && key.size % kMinBlockSize == 0 && key.size > 0) {
        if (key.size / kMinBlockSize - 1 < m_small.size())
            heap = &m_small[key.size / kMinBlockSize - 1];
    } else if (const auto it = m_classes.find(key.size); it != m_classes.end()) {
        heap = &it->second;
    }
    if (heap != nullptr) {
        FreeKey best { 0, 0, kNoBlock };
        for (const Entry& e : *heap) {
            if (m_stamp[e.block] == e.stamp && e.address > key.address
                && (best.block == kNoBlock || e.address < best.address))
                best = FreeKey { key.size, e.address, e.block };
        }
        if (best.block != kNoBlock)
            return best;
    }
    return key.size == std::numeric_limits<std::uint64_t>::max() ? FreeKey { 0, 0, kNoBlock }
                                                                 : lowerBound(key.size + 1);
}

void CachingAllocator::FreeIndex::clear()
{
    for (auto& [size, heap] : m_classes) {
        heap.clear();
        m_spare.push_back(std::move(heap));
    }
    m_classes.clear();
    // Only the classes in use can hold entries (a class leaves the bitmap once its heap is empty): a
    // replay that used a few small sizes clears a few heaps, not all 4,096.
    forEachUsedClass([&](std::size_t c) { m_small[c].clear(); });
    m_used.fill(0);
    m_usedWords = 0;
    std::fill(m_stamp.begin(), m_stamp.end(), 0U);
}

std::vector<CachingAllocator::FreeKey> CachingAllocator::FreeIndex::ordered() const
{
    std::vector<FreeKey> out;
    const auto add = [&](std::uint64_t size, const std::vector<Entry>& heap) {
        const std::size_t first = out.size();
        for (const Entry& e : heap) {
            if (m_stamp[e.block] == e.stamp)
                out.push_back(FreeKey { size, e.address, e.block });
        }
        std::sort(out.begin() + static_cast<std::ptrdiff_t>(first), out.end(),
            [](const FreeKey& a, const FreeKey& b) { return a.address < b.address; });
    };
    forEachUsedClass([&](std::size_t c) { add((c + 1) * kMinBlockSize, m_small[c]); });
    for (const auto& [size, heap] : m_classes)
        add(size, heap);
    return out;
}

} // namespace headroom

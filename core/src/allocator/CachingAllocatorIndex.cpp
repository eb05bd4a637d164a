#include "headroom/allocator/CachingAllocator.h"

#include <algorithm>
#include <bit>

// The pools' cached blocks in best-fit order (CachingAllocator::FreeIndex): a min-heap by address for each
// block size, sizes up to 2 MiB in 512-byte classes found through a bitmap, larger ones in buckets of 256 per
// power of two, each a short ordered list of sizes, found through another bitmap. A block leaves by a change
// of its stamp; its stale entries are dropped when they reach the top of their heap.

namespace headroom {

namespace {
constexpr std::uint32_t kNoBlock = std::numeric_limits<std::uint32_t>::max();
} // namespace

/// Heap order: the lowest address on top.
static bool laterAddress(const std::uint64_t a, const std::uint64_t b)
{
    return a > b;
}

std::size_t CachingAllocator::FreeIndex::bucketOf(std::uint64_t size) noexcept
{
    // Below 256 bytes a bucket per size; from there, per power of two 2^o, 256 buckets: the 8 bits after
    // the leading one. Buckets follow sizes in order.
    if (size < 256)
        return static_cast<std::size_t>(size);
    const int o = std::bit_width(size) - 1;
    return static_cast<std::size_t>(o) * 256 + static_cast<std::size_t>((size >> (o - 8)) & 255U);
}

std::size_t CachingAllocator::FreeIndex::nextBucket(std::size_t b) const noexcept
{
    if (b >= kBuckets)
        return kBuckets;
    std::size_t word = b / 64;
    std::uint64_t bits = m_bucketBits[word] & (~0ULL << (b % 64));
    if (bits != 0)
        return word * 64 + static_cast<std::size_t>(std::countr_zero(bits));
    // the next word with a bucket in use, through the summary words
    for (std::size_t w = (word + 1) / 64; w < m_bucketWords.size(); ++w) {
        const std::size_t from = w == (word + 1) / 64 ? (word + 1) % 64 : 0;
        const std::uint64_t words = from == 0 ? m_bucketWords[w] : m_bucketWords[w] & (~0ULL << from);
        if (words != 0) {
            word = w * 64 + static_cast<std::size_t>(std::countr_zero(words));
            return word * 64 + static_cast<std::size_t>(std::countr_zero(m_bucketBits[word]));
        }
    }
    return kBuckets;
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
    RecentSize& recent = m_recent[recentSlot(size)];
    if (recent.size == size)
        return &m_heaps[recent.heap];
    const std::size_t b = bucketOf(size);
    if (b >= m_buckets.size())
        m_buckets.resize(b + 1);
    std::vector<SizeHeap>& bucket = m_buckets[b];
    auto it = bucket.begin();
    while (it != bucket.end() && it->size < size)
        ++it;
    if (it != bucket.end() && it->size == size) {
        recent = RecentSize { size, it->heap };
        return &m_heaps[it->heap];
    }
    std::uint32_t heap = 0;
    if (!m_freeHeaps.empty()) { // a heap's buffer from an earlier size: no allocation per new size
        heap = m_freeHeaps.back();
        m_freeHeaps.pop_back();
    } else {
        heap = static_cast<std::uint32_t>(m_heaps.size());
        m_heaps.emplace_back();
    }
    bucket.insert(it, SizeHeap { size, heap });
    recent = RecentSize { size, heap };
    m_bucketBits[b / 64] |= 1ULL << (b % 64);
    m_bucketWords[b / 4096] |= 1ULL << ((b / 64) % 64);
    return &m_heaps[heap];
}

const CachingAllocator::FreeIndex::SizeHeap* CachingAllocator::FreeIndex::firstInBucket(
    std::size_t b, std::uint64_t size)
{
    std::vector<SizeHeap>& bucket = m_buckets[b];
    std::size_t i = 0;
    while (i < bucket.size() && bucket[i].size < size)
        ++i;
    while (i < bucket.size()) {
        if (clean(m_heaps[bucket[i].heap]))
            return &bucket[i];
        m_freeHeaps.push_back(bucket[i].heap); // emptied: the size leaves, its buffer is kept
        if (RecentSize& recent = m_recent[recentSlot(bucket[i].size)]; recent.size == bucket[i].size)
            recent = RecentSize {};
        bucket.erase(bucket.begin() + static_cast<std::ptrdiff_t>(i));
    }
    if (bucket.empty()) {
        m_bucketBits[b / 64] &= ~(1ULL << (b % 64));
        if (m_bucketBits[b / 64] == 0)
            m_bucketWords[b / 4096] &= ~(1ULL << ((b / 64) % 64));
    }
    return nullptr;
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
    for (std::size_t b = nextBucket(bucketOf(size)); b < kBuckets; b = nextBucket(b + 1)) {
        if (const SizeHeap* found = firstInBucket(b, size)) {
            const Entry& top = m_heaps[found->heap].front();
            return FreeKey { found->size, top.address, top.block };
        }
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
    } else if (const std::size_t b = bucketOf(key.size); b < m_buckets.size()) {
        for (const SizeHeap& h : m_buckets[b]) {
            if (h.size == key.size)
                heap = &m_heaps[h.heap];
        }
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
    forEachUsedBucket([&](std::size_t b) {
        for (const SizeHeap& h : m_buckets[b]) {
            m_heaps[h.heap].clear();
            m_freeHeaps.push_back(h.heap);
        }
        m_buckets[b].clear();
    });
    m_bucketBits.fill(0);
    m_bucketWords.fill(0);
    m_recent.fill(RecentSize {});
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
    forEachUsedBucket([&](std::size_t b) {
        for (const SizeHeap& h : m_buckets[b])
            add(h.size, m_heaps[h.heap]);
    });
    return out;
}

} // namespace headroom

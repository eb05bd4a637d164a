#include "step/StepGraphExpansion.h"

#include <algorithm>
#include <numeric>
#include <string>
#include <unordered_map>

namespace headroom::step {

namespace {

constexpr std::size_t kNone = kNoStepOp;

/// Writes out one Repeat block's hidden iterations. A = ops first..last (the iteration before them),
/// C = nextFirst..nextLast (the one after, which StepRepeat guarantees follows A directly and is made
/// like it, op for op and input for input); the H copies go between them.
class OneExpansion
{
public:
    OneExpansion(StepGraph& g, std::vector<std::size_t>& origin, const StepRepeat& r)
        : m_g { g }
        , m_origin { origin }
        , m_f { r.first }
        , m_l { r.last }
        , m_nf { r.nextFirst }
        , m_h { r.hidden }
        , m_len { r.last - r.first + 1 }
    {
    }

    void run()
    {
        classify();
        buildParameters();
        buildStoragesAndTensors();
        buildOps();
    }

    /// Where op j of the graph before this expansion ends up.
    [[nodiscard]] std::size_t shifted(std::size_t j) const
    {
        return j == kNone || j <= m_l ? j : j + m_h * m_len;
    }

private:
    [[nodiscard]] bool inA(std::size_t j) const { return j != kNone && j >= m_f && j <= m_l; }
    [[nodiscard]] bool inC(std::size_t j) const { return j != kNone && j >= m_nf && j < m_nf + m_len; }
    /// Op j of A in copy k (0 is A itself, H + 1 is C).
    [[nodiscard]] std::size_t copyOp(std::size_t j, std::uint64_t k) const
    {
        if (k == 0)
            return j;
        if (k == m_h + 1)
            return shifted(j - m_f + m_nf);
        return m_l + 1 + static_cast<std::size_t>(k - 1) * m_len + (j - m_f);
    }
    /// An op reference held by something of copy k: A's ops become copy k's, C's the next copy's.
    [[nodiscard]] std::size_t opFor(std::size_t j, std::uint64_t k) const
    {
        if (inA(j))
            return copyOp(j, k);
        if (inC(j))
            return copyOp(j - m_nf + m_f, k + 1);
        return shifted(j);
    }

    void classify()
    {
        const std::size_t storages = m_g.storages.size();
        m_localStorage.assign(storages, kNone);
        for (std::size_t s = 0; s < storages; ++s) {
            if (inA(m_g.storages[s].producer)) {
                m_localStorage[s] = m_localStorages.size();
                m_localStorages.push_back(s);
            }
        }
        m_localTensor.assign(m_g.tensors.size(), kNone);
        for (std::size_t j = m_f; j <= m_l; ++j) {
            const std::size_t t = m_g.ops[j].output;
            if (m_localTensor[t] == kNone) {
                m_localTensor[t] = m_localTensors.size();
                m_localTensors.push_back(t);
            }
        }
        // What A reads from the iteration before it and C reads from A in the same place: the carried value.
        for (std::size_t i = 0; i < m_len; ++i) {
            const auto& a = m_g.ops[m_f + i].inputs;
            const auto& c = m_g.ops[m_nf + i].inputs;
            for (std::size_t m = 0; m < std::min(a.size(), c.size()); ++m) {
                const std::size_t ta = a[m].tensor;
                const std::size_t tc = c[m].tensor;
                if (ta == tc || m_localTensor[tc] == kNone || m_localTensor[ta] != kNone)
                    continue;
                m_carriedTensor.emplace(ta, tc);
                const std::size_t sa = m_g.tensors[ta].storage;
                const std::size_t sc = m_g.tensors[tc].storage;
                if (m_localStorage[sa] == kNone && m_localStorage[sc] != kNone)
                    m_carriedStorage.emplace(sa, sc);
            }
        }
        // A checkpointed iteration is a segment of its own: each copy gets a new one.
        const std::ptrdiff_t segment = m_g.ops[m_f].segment;
        m_ownSegment = segment >= 0;
        for (std::size_t j = 0; j < m_g.ops.size() && m_ownSegment; ++j)
            m_ownSegment = (m_g.ops[j].segment == segment) == inA(j);
        m_segmentBase = m_g.segments;
        if (m_ownSegment)
            m_g.segments += static_cast<std::size_t>(m_h);
    }

    [[nodiscard]] std::ptrdiff_t segmentFor(std::ptrdiff_t segment, std::uint64_t k) const
    {
        if (k == 0 || !m_ownSegment || segment != m_g.ops[m_f].segment)
            return segment;
        return static_cast<std::ptrdiff_t>(m_segmentBase + static_cast<std::size_t>(k - 1));
    }

    /// The storage copy k uses where A uses s.
    [[nodiscard]] std::size_t storageFor(std::size_t s, std::uint64_t k) const
    {
        if (k == 0)
            return s;
        if (m_localStorage[s] != kNone)
            return m_storageBase + static_cast<std::size_t>(k - 1) * m_localStorages.size()
                + m_localStorage[s];
        if (const auto it = m_carriedStorage.find(s); it != m_carriedStorage.end())
            return storageFor(it->second, k - 1);
        return s;
    }
    /// The tensor copy k reads where A reads t.
    [[nodiscard]] std::size_t tensorFor(std::size_t t, std::uint64_t k) const
    {
        if (k == 0)
            return t;
        if (m_localTensor[t] != kNone)
            return m_tensorBase + static_cast<std::size_t>(k - 1) * m_localTensors.size() + m_localTensor[t];
        if (const auto it = m_carriedTensor.find(t); it != m_carriedTensor.end())
            return tensorFor(it->second, k - 1);
        return t;
    }

    /// A's own trainable parameters are written out once per copy, after A's; shared ones stay shared.
    void buildParameters()
    {
        const std::size_t n = m_g.parameters.size();
        std::vector<bool> outside(n, false);
        std::vector<bool> inside(n, false);
        for (std::size_t j = 0; j < m_g.ops.size(); ++j)
            for (const std::size_t p : m_g.ops[j].parameters)
                (inA(j) ? inside : outside)[p] = true;
        std::vector<std::size_t> local;
        for (std::size_t p = 0; p < n; ++p) {
            if (inside[p] && !outside[p] && m_g.parameters[p].copies % (m_h + 1) == 0)
                local.push_back(p);
        }
        m_parameterMap.resize(n);
        std::iota(m_parameterMap.begin(), m_parameterMap.end(), std::size_t { 0 });
        m_localParameter.assign(n, kNone);
        if (local.empty())
            return;
        const std::size_t last = local.back();
        for (std::size_t i = 0; i < local.size(); ++i) {
            m_localParameter[local[i]] = i;
            m_g.parameters[local[i]].copies /= m_h + 1;
        }
        std::vector<StepParameter> parameters(
            m_g.parameters.begin(), m_g.parameters.begin() + static_cast<std::ptrdiff_t>(last + 1));
        std::vector<std::size_t> origin(
            m_origin.begin(), m_origin.begin() + static_cast<std::ptrdiff_t>(last + 1));
        m_copyParameterBase = last + 1;
        m_localParameters = local.size();
        for (std::uint64_t k = 1; k <= m_h; ++k) {
            for (const std::size_t p : local) {
                parameters.push_back(m_g.parameters[p]);
                origin.push_back(m_origin[p]);
            }
        }
        const std::size_t added = parameters.size() - (last + 1);
        for (std::size_t p = last + 1; p < n; ++p) {
            parameters.push_back(m_g.parameters[p]);
            origin.push_back(m_origin[p]);
            m_parameterMap[p] = p + added;
        }
        m_g.parameters = std::move(parameters);
        m_origin = std::move(origin);
    }

    [[nodiscard]] std::size_t parameterFor(std::size_t p, std::uint64_t k) const
    {
        if (k == 0 || m_localParameter[p] == kNone)
            return m_parameterMap[p];
        return m_copyParameterBase + static_cast<std::size_t>(k - 1) * m_localParameters
            + m_localParameter[p];
    }

    void buildStoragesAndTensors()
    {
        // The copies are made from A's storages as they were; then A's references to C mean copy 1.
        std::vector<StepStorage> copies;
        copies.reserve(static_cast<std::size_t>(m_h) * m_localStorages.size());
        for (std::uint64_t k = 1; k <= m_h; ++k) {
            for (const std::size_t s : m_localStorages) {
                StepStorage copy = m_g.storages[s];
                remapStorage(m_g.storages[s], copy, k);
                copies.push_back(copy);
            }
        }
        for (std::size_t s = 0; s < m_g.storages.size(); ++s) {
            if (m_localStorage[s] != kNone)
                remapStorage(m_g.storages[s], m_g.storages[s], 0);
            else
                shiftStorage(m_g.storages[s]);
        }
        m_storageBase = m_g.storages.size();
        m_g.storages.insert(m_g.storages.end(), copies.begin(), copies.end());
        m_tensorBase = m_g.tensors.size();
        for (std::uint64_t k = 1; k <= m_h; ++k) {
            for (const std::size_t t : m_localTensors) {
                StepTensor copy = m_g.tensors[t];
                copy.storage = storageFor(m_g.tensors[t].storage, k);
                m_g.tensors.push_back(copy);
            }
        }
    }

    /// `to` is copy k of A's storage `from`, whose op references are still A's own (or C's) numbers.
    void remapStorage(const StepStorage& from, StepStorage& to, std::uint64_t k) const
    {
        // Copy 0's references to A stay; to C they mean copy 1. Read `from` before writing `to` (may alias).
        const std::size_t producer = opFor(from.producer, k);
        const std::size_t lastUse = opFor(from.lastForwardUse, k);
        const std::size_t released = opFor(from.releasedAfterBackwardOf, k);
        const std::size_t releasedInSegment = opFor(from.releasedInSegmentAfterBackwardOf, k);
        const std::ptrdiff_t segment = segmentFor(from.segment, k);
        to.producer = producer;
        to.lastForwardUse = lastUse;
        to.releasedAfterBackwardOf = released;
        to.releasedInSegmentAfterBackwardOf = releasedInSegment;
        to.segment = segment;
    }

    void shiftStorage(StepStorage& st) const
    {
        st.producer = shifted(st.producer);
        st.lastForwardUse = shifted(st.lastForwardUse);
        st.releasedAfterBackwardOf = shifted(st.releasedAfterBackwardOf);
        st.releasedInSegmentAfterBackwardOf = shifted(st.releasedInSegmentAfterBackwardOf);
    }

    void buildOps()
    {
        std::vector<StepOp> ops;
        ops.reserve(m_g.ops.size() + static_cast<std::size_t>(m_h) * m_len);
        const auto mapParameters = [&](StepOp& op, std::uint64_t k) {
            for (auto& p : op.parameters)
                p = parameterFor(p, k);
        };
        for (std::size_t j = 0; j <= m_l; ++j) {
            ops.push_back(m_g.ops[j]);
            mapParameters(ops.back(), 0);
        }
        for (std::uint64_t k = 1; k <= m_h; ++k) {
            for (std::size_t j = m_f; j <= m_l; ++j) {
                StepOp op = m_g.ops[j];
                for (auto& in : op.inputs)
                    in.tensor = tensorFor(in.tensor, k);
                op.output = tensorFor(op.output, k);
                for (auto& s : op.allocates)
                    s = storageFor(s, k);
                op.segment = segmentFor(op.segment, k);
                mapParameters(op, k);
                ops.push_back(std::move(op));
            }
        }
        for (std::size_t j = m_l + 1; j < m_g.ops.size(); ++j) {
            StepOp op = m_g.ops[j];
            for (auto& in : op.inputs) { // C reads the last copy's output where it read A's
                if (m_localTensor[in.tensor] != kNone)
                    in.tensor = tensorFor(in.tensor, m_h);
            }
            mapParameters(op, 0);
            ops.push_back(std::move(op));
        }
        m_g.ops = std::move(ops);
    }

    StepGraph& m_g;
    std::vector<std::size_t>& m_origin;
    std::size_t m_f, m_l, m_nf;
    std::uint64_t m_h;
    std::size_t m_len;
    std::vector<std::size_t> m_localStorage, m_localStorages, m_localTensor, m_localTensors;
    std::unordered_map<std::size_t, std::size_t> m_carriedTensor, m_carriedStorage;
    bool m_ownSegment = false;
    std::size_t m_segmentBase = 0;
    std::size_t m_storageBase = 0, m_tensorBase = 0;
    std::vector<std::size_t> m_parameterMap, m_localParameter;
    std::size_t m_copyParameterBase = 0, m_localParameters = 0;
};

} // namespace

Result<ExpandedGraph> expandRepeats(const StepGraph& graph, std::size_t maxOps)
{
    ExpandedGraph out { graph, {} };
    out.parameterOrigin.resize(graph.parameters.size());
    std::iota(out.parameterOrigin.begin(), out.parameterOrigin.end(), std::size_t { 0 });
    std::vector<StepRepeat> repeats;
    std::size_t ops = graph.ops.size();
    for (const StepRepeat& r : graph.repeats) {
        const bool valid = r.hidden > 0 && r.first <= r.last && r.last + 1 == r.nextFirst
            && r.nextLast - r.nextFirst == r.last - r.first && r.nextLast < graph.ops.size();
        if (!valid)
            continue;
        const std::uint64_t added = r.hidden * (r.last - r.first + 1);
        if (added > maxOps || ops + added > maxOps)
            return Error { "the step has more than " + std::to_string(maxOps)
                    + " operations once its repeated blocks are written out: too many to simulate "
                      "the caching allocator tensor by tensor",
                "layers" };
        ops += static_cast<std::size_t>(added);
        repeats.push_back(r);
    }
    out.graph.repeats.clear();
    // Innermost first: a block nested in an iteration is written out before that iteration is copied.
    std::sort(repeats.begin(), repeats.end(),
        [](const auto& a, const auto& b) { return a.nextLast - a.first < b.nextLast - b.first; });
    for (std::size_t i = 0; i < repeats.size(); ++i) {
        const StepRepeat& r = repeats[i];
        if (r.last + 1 != r.nextFirst || r.nextLast - r.nextFirst != r.last - r.first
            || r.nextLast >= out.graph.ops.size())
            return Error {
                "a repeated block's iterations on either side of its identical ones differ; the caching "
                "allocator cannot be simulated tensor by tensor",
                "layers"
            };
        OneExpansion e { out.graph, out.parameterOrigin, r };
        e.run();
        for (std::size_t j = i + 1; j < repeats.size(); ++j) {
            StepRepeat& r = repeats[j];
            r.first = e.shifted(r.first);
            r.last = e.shifted(r.last);
            r.nextFirst = e.shifted(r.nextFirst);
            r.nextLast = e.shifted(r.nextLast);
        }
    }
    return out;
}

} // namespace headroom::step

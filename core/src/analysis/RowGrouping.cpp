// Stage: row grouping (after the analysis, for display). Reads Analysis::rows; writes nothing back:
// groupRows() shows consecutive iterations of a Repeat block whose layers are alike once, and
// instanceName() / rangeName() write one layer's name or a row's iteration ranges.
#include "headroom/analysis/Analysis.h"

#include <algorithm>
#include <iterator>
#include <string>
#include <vector>

namespace headroom {

namespace {

/// `name` with the index of each iteration level shifted or written as a range.
std::string nameWith(std::string name, const std::vector<RowIterations>& written,
    const std::vector<RowIterations>& first, bool range)
{
    // From the innermost block out, so that earlier offsets stay valid.
    for (std::size_t level = std::min(written.size(), first.size()); level-- > 0;) {
        const RowIterations& it = written[level];
        const std::size_t digits = std::to_string(first[level].first).size();
        if (it.offset + digits > name.size())
            continue;
        const std::string index = range && it.first != it.last
            ? std::to_string(it.first) + "\u2013" + std::to_string(it.last) // an en dash
            : std::to_string(range ? it.first : it.last);
        name.replace(it.offset, digits, index);
    }
    return name;
}

bool sameFigures(const LayerRow& a, const LayerRow& b)
{
    const auto message = [](const LayerRow& r) { return r.error ? r.error->message : std::string(); };
    return a.type == b.type && a.depth == b.depth && a.specPath == b.specPath && a.output == b.output
        && a.params == b.params && a.trainableParams == b.trainableParams
        && a.bufferElements == b.bufferElements && a.activationBytesPerSample == b.activationBytesPerSample
        && a.activationBytesFixed == b.activationBytesFixed
        && a.forwardFlopsPerSample == b.forwardFlopsPerSample
        && a.backwardFlopsPerSample == b.backwardFlopsPerSample && a.error.has_value() == b.error.has_value()
        && message(a) == message(b) && a.blockedByEarlierError == b.blockedByEarlierError
        && a.frozen == b.frozen && a.checkpointed == b.checkpointed && a.loraParams == b.loraParams;
}

class RowGrouper
{
public:
    explicit RowGrouper(const Analysis& a)
        : m_rows { a.rows }
    {
    }

    std::vector<RowGroup> run()
    {
        std::size_t i = 0;
        std::vector<RowGroup> out;
        while (i < m_rows.size()) {
            auto part = collect(i, m_rows[i].depth, kNone, 0);
            out.insert(out.end(), std::make_move_iterator(part.begin()), std::make_move_iterator(part.end()));
        }
        for (auto& g : out) {
            const LayerRow& row = m_rows[g.row];
            Count count { 1 };
            for (const auto& it : g.iterations)
                count *= Count { static_cast<std::uint64_t>(it.last - it.first + 1) };
            g.count = count.value();
            g.name = nameWith(row.name, g.iterations, row.iterations, true);
            g.firstName = row.name;
            g.lastName = nameWith(row.name, g.iterations, row.iterations, false);
        }
        return out;
    }

private:
    static constexpr std::size_t kNone = static_cast<std::size_t>(-1);

    /// The rows from `i` at `depth` and deeper (one block's iteration when `level` is set: while its
    /// index at that level is `iteration`), with the iterations of every block inside grouped.
    std::vector<RowGroup> collect(std::size_t& i, int depth, std::size_t level, std::int64_t iteration)
    {
        std::vector<RowGroup> out;
        while (i < m_rows.size() && m_rows[i].depth >= depth) {
            const LayerRow& row = m_rows[i];
            if (level != kNone
                && (row.iterations.size() <= level || row.iterations[level].first != iteration))
                break;
            out.push_back(RowGroup { i, row.iterations, 1, {}, {}, {} });
            ++i;
            if (row.type != "Repeat")
                continue;
            const std::size_t inner = row.iterations.size();
            std::vector<std::vector<RowGroup>> iterations;
            while (i < m_rows.size() && m_rows[i].depth > row.depth && m_rows[i].iterations.size() > inner) {
                const std::int64_t first = m_rows[i].iterations[inner].first;
                auto next = collect(i, row.depth + 1, inner, first);
                if (!iterations.empty() && alike(iterations.back(), next, inner)) {
                    for (std::size_t k = 0; k < next.size(); ++k)
                        iterations.back()[k].iterations[inner].last = next[k].iterations[inner].last;
                } else {
                    iterations.push_back(std::move(next));
                }
            }
            for (auto& it : iterations)
                out.insert(out.end(), std::make_move_iterator(it.begin()), std::make_move_iterator(it.end()));
        }
        return out;
    }

    /// `b` continues `a` at `level`: the next iterations, alike layer by layer.
    bool alike(const std::vector<RowGroup>& a, const std::vector<RowGroup>& b, std::size_t level) const
    {
        if (a.size() != b.size() || a.empty())
            return false;
        for (std::size_t k = 0; k < a.size(); ++k) {
            const auto& x = a[k].iterations;
            const auto& y = b[k].iterations;
            if (x.size() != y.size() || x.size() <= level || y[level].first != x[level].last + 1
                || !sameFigures(m_rows[a[k].row], m_rows[b[k].row]))
                return false;
            for (std::size_t l = 0; l < x.size(); ++l) {
                if (l != level && (x[l].first != y[l].first || x[l].last != y[l].last))
                    return false;
            }
        }
        return true;
    }

    const std::vector<LayerRow>& m_rows;
};

} // namespace

std::string instanceName(const LayerRow& row, const std::vector<std::int64_t>& shift)
{
    std::vector<RowIterations> shifted = row.iterations;
    for (std::size_t level = 0; level < std::min(shift.size(), shifted.size()); ++level)
        shifted[level].last = shifted[level].first + shift[level];
    return nameWith(row.name, shifted, row.iterations, false);
}

std::string rangeName(const LayerRow& row)
{
    return nameWith(row.name, row.iterations, row.iterations, true);
}

std::vector<RowGroup> groupRows(const Analysis& analysis)
{
    return RowGrouper { analysis }.run();
}

} // namespace headroom

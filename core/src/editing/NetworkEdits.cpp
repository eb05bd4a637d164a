#include "headroom/editing/NetworkEdits.h"

#include <algorithm>
#include <iterator>
#include <set>
#include <utility>

namespace headroom {

namespace {

/// Whether `path` lies under `parent` (strictly deeper and starting with it).
bool isUnder(const SpecPath& path, const SpecPath& parent)
{
    return path.size() > parent.size() && std::equal(parent.begin(), parent.end(), path.begin());
}

/// Where `path` is after `count` siblings starting at `row` under `parent` were removed.
SpecPath pathAfterRemoval(SpecPath path, const SpecPath& parent, int row, int count)
{
    if (isUnder(path, parent) && path[parent.size()] >= row + count)
        path[parent.size()] -= count;
    return path;
}

bool isWithin(const SpecPath& path, const SpecPath& parent, int row, int count)
{
    return isUnder(path, parent) && path[parent.size()] >= row && path[parent.size()] < row + count;
}

bool hasRange(const std::vector<LayerSpec>* list, int row, int count)
{
    return list != nullptr && count > 0 && row >= 0
        && static_cast<std::size_t>(row) + static_cast<std::size_t>(count) <= list->size();
}

std::vector<LayerSpec> range(const std::vector<LayerSpec>& list, int row, int count)
{
    return { list.begin() + row, list.begin() + row + count };
}

SpecPath child(SpecPath parent, int row)
{
    parent.push_back(row);
    return parent;
}

/// Where `ref`, used by a layer somewhere in `specs` (or inside their blocks), resolves to a name
/// of the enclosing scope: collects each such use. Inside a block, names defined earlier in the same
/// repetition shadow the outer ones, as in the analysis.
void collectOuterUses(const std::vector<LayerSpec>& specs, const std::set<std::string>& names,
    std::vector<std::pair<const LayerSpec*, std::string>>& uses, bool topLevel)
{
    std::set<std::string> local;
    for (const auto& spec : specs) {
        const auto outer = [&](const std::string& ref) {
            return names.contains(ref) && (topLevel || !local.contains(ref));
        };
        for (const auto& ref : spec.inputs) {
            if (outer(ref))
                uses.emplace_back(&spec, ref);
        }
        if (!spec.tiedTo.empty() && outer(spec.tiedTo))
            uses.emplace_back(&spec, spec.tiedTo);
        if (spec.isRepeat()) {
            std::set<std::string> visible;
            for (const auto& n : names) {
                if (topLevel || !local.contains(n))
                    visible.insert(n);
            }
            collectOuterUses(spec.children, visible, uses, false);
        }
        if (!spec.name.empty() && !topLevel)
            local.insert(spec.name);
    }
}

/// Renames uses of `from` (as collected above) to `to` in `specs`.
void renameOuterUses(
    std::vector<LayerSpec>& specs, const std::string& from, const std::string& to, bool topLevel)
{
    for (auto& spec : specs) {
        for (auto& ref : spec.inputs) {
            if (ref == from)
                ref = to;
        }
        if (spec.tiedTo == from)
            spec.tiedTo = to;
        if (spec.isRepeat())
            renameOuterUses(spec.children, from, to, false);
        if (!topLevel && spec.name == from)
            break; // shadowed from here on
    }
}

/// Why the Add that closes a residual block over [row, row + count) is refused: the shapes it
/// would add, as the analysis of the network before the edit has them.
EditRefusal residualRefusal(
    const Network& network, const AnalysisOptions& options, const SpecPath& parent, int row, int count)
{
    const Analysis before = analyze(network, options);
    const auto rowAt = [&](const SpecPath& path) {
        const std::string at = specPathText(path);
        return std::find_if(
            before.rows.begin(), before.rows.end(), [&](const LayerRow& r) { return r.specPath == at; });
    };
    const auto first = rowAt(child(parent, row));
    const auto last = rowAt(child(parent, row + count - 1));
    std::string from = network.input.shape.toBatchedString();
    if (first != before.rows.end() && !first->inputs.empty()) {
        const auto producer = std::find_if(before.rows.begin(), before.rows.end(),
            [&](const LayerRow& r) { return r.name == first->inputs.front(); });
        if (producer != before.rows.end())
            from = producer->output.shape.toBatchedString(producer->output.batchAxis);
    }
    if (last != before.rows.end() && last->valid())
        return { EditRefusal::Reason::ChangesShape, from,
            last->output.shape.toBatchedString(last->output.batchAxis) };
    return { EditRefusal::Reason::NotAddable, {}, {} };
}

} // namespace

const std::vector<LayerSpec>* childrenAt(const Network& network, const SpecPath& parent)
{
    return childrenAt(const_cast<Network&>(network), parent);
}

std::vector<LayerSpec>* childrenAt(Network& network, const SpecPath& parent)
{
    if (parent.empty())
        return &network.layers;
    LayerSpec* s = specAt(network, parent);
    return s != nullptr && s->isRepeat() ? &s->children : nullptr;
}

const LayerSpec* specAt(const Network& network, const SpecPath& path)
{
    return specAt(const_cast<Network&>(network), path);
}

LayerSpec* specAt(Network& network, const SpecPath& path)
{
    std::vector<LayerSpec>* list = &network.layers;
    LayerSpec* s = nullptr;
    for (const int i : path) {
        if (list == nullptr || i < 0 || static_cast<std::size_t>(i) >= list->size())
            return nullptr;
        s = &(*list)[static_cast<std::size_t>(i)];
        list = s->isRepeat() ? &s->children : nullptr;
    }
    return s;
}

std::string specPathText(const SpecPath& path)
{
    std::string out = "layers";
    for (std::size_t i = 0; i < path.size(); ++i) {
        if (i > 0)
            out += ".layers";
        out += "[" + std::to_string(path[i]) + "]";
    }
    return out;
}

std::string uniqueName(const std::vector<LayerSpec>& siblings, const std::string& stem)
{
    std::set<std::string> used;
    for (const auto& s : siblings)
        used.insert(s.name);
    if (!used.contains(stem))
        return stem;
    for (int n = 2;; ++n) {
        std::string candidate = stem + "_" + std::to_string(n);
        if (!used.contains(candidate))
            return candidate;
    }
}

Splice inverse(Splice edit)
{
    std::swap(edit.removed, edit.inserted);
    return edit;
}

LayerMove inverse(const LayerMove& move)
{
    return { move.to, move.toRow, move.count, move.from, move.row };
}

std::vector<LayerSpec> takeLayers(Network& network, const SpecPath& parent, int row, int count)
{
    auto* list = childrenAt(network, parent);
    if (!hasRange(list, row, count))
        return {};
    std::vector<LayerSpec> taken(
        std::make_move_iterator(list->begin() + row), std::make_move_iterator(list->begin() + row + count));
    list->erase(list->begin() + row, list->begin() + row + count);
    return taken;
}

void putLayers(Network& network, const SpecPath& parent, int row, const std::vector<LayerSpec>& specs)
{
    auto* list = childrenAt(network, parent);
    if (list == nullptr)
        return;
    row = std::clamp(row, 0, static_cast<int>(list->size()));
    list->insert(list->begin() + row, specs.begin(), specs.end());
}

void apply(Network& network, const Splice& edit)
{
    (void)takeLayers(network, edit.parent, edit.row, static_cast<int>(edit.removed.size()));
    putLayers(network, edit.parent, edit.row, edit.inserted);
}

void apply(Network& network, const LayerMove& move)
{
    putLayers(network, move.to, move.toRow, takeLayers(network, move.from, move.row, move.count));
}

std::optional<Splice> insertEdit(
    const Network& network, const SpecPath& parent, int row, std::vector<LayerSpec> specs)
{
    const auto* list = childrenAt(network, parent);
    if (list == nullptr || specs.empty())
        return std::nullopt;
    return Splice { parent, std::clamp(row, 0, static_cast<int>(list->size())), {}, std::move(specs) };
}

std::optional<Splice> removeEdit(const Network& network, const SpecPath& parent, int row, int count)
{
    const auto* list = childrenAt(network, parent);
    if (!hasRange(list, row, count))
        return std::nullopt;
    return Splice { parent, row, range(*list, row, count), {} };
}

std::optional<Splice> duplicateEdit(const Network& network, const SpecPath& parent, int row, int count)
{
    const auto* list = childrenAt(network, parent);
    if (!hasRange(list, row, count))
        return std::nullopt;
    std::vector<LayerSpec> copies = range(*list, row, count);
    for (auto& c : copies) {
        if (!c.name.empty())
            c.name = uniqueName(*list, c.name + "_copy");
    }
    return Splice { parent, row + count, {}, std::move(copies) };
}

std::optional<LayerMove> moveEdit(
    const Network& network, const SpecPath& parent, int row, int count, const SpecPath& newParent, int newRow)
{
    const auto* list = childrenAt(network, parent);
    const auto* target = childrenAt(network, newParent);
    if (!hasRange(list, row, count) || target == nullptr)
        return std::nullopt;
    if (isWithin(newParent, parent, row, count))
        return std::nullopt; // a block cannot move into itself
    newRow = std::clamp(newRow, 0, static_cast<int>(target->size()));
    if (newParent == parent && newRow >= row && newRow <= row + count)
        return std::nullopt; // lands where it is
    const int insertAt = newParent == parent && newRow > row ? newRow - count : newRow;
    return LayerMove { parent, row, count, pathAfterRemoval(newParent, parent, row, count), insertAt };
}

std::variant<Splice, EditRefusal> residualEdit(
    const Network& network, const AnalysisOptions& options, const SpecPath& parent, int row, int count)
{
    const auto* list = childrenAt(network, parent);
    if (!hasRange(list, row, count))
        return EditRefusal {};
    LayerSpec block;
    block.type = "Repeat";
    block.name = uniqueName(*list, "residual");
    block.times = 1;
    block.children = range(*list, row, count);
    LayerSpec& last = block.children.back();
    if (last.name.empty())
        last.name = uniqueName(block.children, "out");
    LayerSpec add;
    add.type = "Add";
    add.name = uniqueName(block.children, "sum");
    add.inputs = { "repeat_input", last.name };
    block.children.push_back(add);
    Splice edit { parent, row, range(*list, row, count), { block } };

    // Refused now, with the reason, rather than leaving an invalid Add behind: the layers' output
    // must broadcast against their input (PyTorch's x + f(x)).
    Network candidate = network;
    apply(candidate, edit);
    const std::string addPath = specPathText(child(parent, row)) + ".layers[" + std::to_string(count) + "]";
    const Analysis after = analyze(candidate, options);
    const auto added = std::find_if(
        after.rows.begin(), after.rows.end(), [&](const LayerRow& r) { return r.specPath == addPath; });
    if (added != after.rows.end() && added->error && !added->blockedByEarlierError)
        return residualRefusal(network, options, parent, row, count);
    return edit;
}

std::variant<CheckpointEdit, EditRefusal> checkpointEdit(
    const Network& network, const SpecPath& parent, int row, int count)
{
    const auto* list = childrenAt(network, parent);
    if (!hasRange(list, row, count))
        return EditRefusal {};
    if (!parent.empty())
        return EditRefusal { EditRefusal::Reason::NotTopLevel, {}, {} };
    if (count == 1 && (*list)[static_cast<std::size_t>(row)].isRepeat())
        return CheckpointEdit { std::nullopt, SpecPath { row } };

    // Layers after the block see only its name: a use of the last wrapped layer becomes a use of
    // the block (the same tensor); a use of any other wrapped layer cannot be kept.
    const std::vector<LayerSpec> wrapped = range(*list, row, count);
    std::set<std::string> inside;
    for (const auto& spec : wrapped) {
        if (!spec.name.empty())
            inside.insert(spec.name);
    }
    const std::string lastName = wrapped.back().name;
    const std::vector<LayerSpec> later(list->begin() + row + count, list->end());
    std::vector<std::pair<const LayerSpec*, std::string>> uses;
    collectOuterUses(later, inside, uses, true);
    for (const auto& [user, ref] : uses) {
        if (ref != lastName)
            return EditRefusal { EditRefusal::Reason::UsedInside,
                user->name.empty() ? user->type : user->name, ref };
    }

    LayerSpec block;
    block.type = "Repeat";
    block.name = uniqueName(*list, "checkpoint");
    block.times = 1;
    block.checkpoint = true;
    block.children = wrapped;
    std::vector<LayerSpec> rest = later;
    if (!uses.empty())
        renameOuterUses(rest, lastName, block.name, true);
    // Replace the later layers too, up to the last one that changed.
    std::size_t changed = 0;
    for (std::size_t i = 0; i < rest.size(); ++i) {
        if (!(rest[i] == later[i]))
            changed = i + 1;
    }
    Splice edit { parent, row, range(*list, row, count + static_cast<int>(changed)), { block } };
    edit.inserted.insert(
        edit.inserted.end(), rest.begin(), rest.begin() + static_cast<std::ptrdiff_t>(changed));
    return CheckpointEdit { std::move(edit), std::nullopt };
}

Checkpointing checkpointingForMarkedBlocks(Checkpointing current) noexcept
{
    return current == Checkpointing::None ? Checkpointing::PerBlock : current;
}

} // namespace headroom

#include "Document.h"

#include "EditCommand.h"

#include <QFileInfo>
#include <QUndoStack>

#include <algorithm>
#include <set>

namespace headroom::ui {

namespace {

// Settings changed in a row through one control (dragging the slider) merge into one undo step.
enum MergeId {
    BatchMerge = 1,
    OverheadMerge,
    AccumulationMerge,
    GpusMerge,
    TensorParallelMerge,
    UtilizationMerge,
    SequenceLengthMerge,
    LoraRankMerge,
    LoraDropoutMerge,
    MoeImbalanceMerge,
};

/// Where `path` is after `count` siblings starting at `row` under `parent` were removed.
LayerPath pathAfterRemoval(LayerPath path, const LayerPath& parent, int row, int count)
{
    const auto depth = parent.size();
    if (path.size() > depth && path.mid(0, depth) == parent && path[depth] >= row + count)
        path[depth] -= count;
    return path;
}

bool isWithin(const LayerPath& path, const LayerPath& parent, int row, int count)
{
    const auto depth = parent.size();
    return path.size() > depth && path.mid(0, depth) == parent && path[depth] >= row && path[depth] < row + count;
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

/// Where `ref`, used by a layer somewhere in `specs` (or inside their blocks), resolves to a name
/// of the enclosing scope: collects each such use. Inside a block, names defined earlier in the same
/// repetition shadow the outer ones, as in the analysis.
void collectOuterUses(const std::vector<LayerSpec>& specs, const std::set<std::string>& names,
                      std::vector<std::pair<const LayerSpec*, std::string>>& uses, bool topLevel)
{
    std::set<std::string> local;
    for (const auto& spec : specs) {
        const auto outer = [&](const std::string& ref) { return names.contains(ref) && (topLevel || !local.contains(ref)); };
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
void renameOuterUses(std::vector<LayerSpec>& specs, const std::string& from, const std::string& to, bool topLevel)
{
    bool shadowed = false;
    for (auto& spec : specs) {
        if (shadowed)
            break;
        for (auto& ref : spec.inputs) {
            if (ref == from)
                ref = to;
        }
        if (spec.tiedTo == from)
            spec.tiedTo = to;
        if (spec.isRepeat())
            renameOuterUses(spec.children, from, to, false);
        if (!topLevel && spec.name == from)
            shadowed = true;
    }
}

} // namespace

/// The plan without its network: what the set-up panels edit.
struct Document::Settings {
    Precision precision = Precision::Fp32;
    Checkpointing checkpointing = Checkpointing::None;
    AttentionImplementation attention = AttentionImplementation::Sdpa;
    LoraOptions lora;
    std::optional<std::int64_t> sequenceLength;
    TrainingSetup setup;
    Gpu gpu;
    double moeImbalance = 1.0;

    static Settings of(const Plan& plan)
    {
        return {plan.precision, plan.checkpointing, plan.attention, plan.lora, plan.sequenceLength, plan.setup, plan.gpu,
            plan.moeImbalance};
    }
    friend bool operator==(const Settings&, const Settings&) = default;
};

Document::Document(QObject* parent) : QObject(parent), m_undoStack{new QUndoStack(this)}
{
    m_undoStack->setObjectName(QStringLiteral("documentUndoStack"));
    m_plan.setup.gpuMemoryBytes = m_plan.gpu.memoryBytes;
}

Document::~Document() = default;

QString Document::displayName() const
{
    if (!m_filePath.isEmpty())
        return QFileInfo(m_filePath).fileName();
    if (!m_plan.network.name.empty())
        return QString::fromStdString(m_plan.network.name);
    if (!m_importedFrom.isEmpty())
        return QFileInfo(m_importedFrom).fileName();
    return tr("Untitled");
}

void Document::resetNetwork(Network network, const QString& filePath, const QString& importedFrom)
{
    Q_EMIT networkAboutToBeReset();
    m_plan.network = std::move(network);
    m_plan.sequenceLength.reset(); // the new model's own length
    m_plan.moeImbalance = 1.0;     // its own routing: balanced until said otherwise
    m_savedNetwork = m_plan.network;
    m_undoStack->clear();
    const bool pathChanged = filePath != m_filePath || importedFrom != m_importedFrom;
    m_filePath = filePath;
    m_importedFrom = importedFrom;
    Q_EMIT networkReset();
    Q_EMIT headerChanged();
    Q_EMIT networkChanged();
    if (pathChanged)
        Q_EMIT filePathChanged(m_filePath);
    updateModified();
}

void Document::resetSetup(Precision precision, const TrainingSetup& setup, const Gpu& gpu)
{
    m_plan.precision = precision;
    m_plan.setup = setup;
    m_plan.setup.batch = std::clamp<std::int64_t>(setup.batch, 1, kMaxBatch);
    m_plan.gpu = gpu;
    m_plan.setup.gpuMemoryBytes = gpu.memoryBytes;
    m_undoStack->clear();
    Q_EMIT precisionChanged(m_plan.precision);
    Q_EMIT setupChanged();
    Q_EMIT batchChanged(m_plan.setup.batch);
}

void Document::resetBatch(std::int64_t batch)
{
    batch = std::clamp<std::int64_t>(batch, 1, kMaxBatch);
    if (batch == m_plan.setup.batch)
        return;
    m_plan.setup.batch = batch;
    Q_EMIT batchChanged(batch);
}

void Document::markSaved(const QString& filePath)
{
    m_savedNetwork = m_plan.network;
    if (filePath != m_filePath || !m_importedFrom.isEmpty()) {
        m_filePath = filePath;
        m_importedFrom.clear();
        Q_EMIT filePathChanged(m_filePath);
    }
    updateModified();
}

const std::vector<LayerSpec>* Document::children(const LayerPath& parent) const
{
    return const_cast<Document*>(this)->mutableChildren(parent);
}

const LayerSpec* Document::spec(const LayerPath& path) const { return const_cast<Document*>(this)->mutableSpec(path); }

std::vector<LayerSpec>* Document::mutableChildren(const LayerPath& parent)
{
    if (parent.isEmpty())
        return &m_plan.network.layers;
    LayerSpec* s = mutableSpec(parent);
    return s != nullptr && s->isRepeat() ? &s->children : nullptr;
}

LayerSpec* Document::mutableSpec(const LayerPath& path)
{
    if (path.isEmpty())
        return nullptr;
    std::vector<LayerSpec>* list = &m_plan.network.layers;
    LayerSpec* s = nullptr;
    for (const int i : path) {
        if (list == nullptr || i < 0 || static_cast<std::size_t>(i) >= list->size())
            return nullptr;
        s = &(*list)[static_cast<std::size_t>(i)];
        list = s->isRepeat() ? &s->children : nullptr;
    }
    return s;
}

std::string Document::specPath(const LayerPath& path)
{
    std::string out = "layers";
    for (qsizetype i = 0; i < path.size(); ++i) {
        if (i > 0)
            out += ".layers";
        out += "[" + std::to_string(path[i]) + "]";
    }
    return out;
}

void Document::push(const QString& text, std::function<void()> redo, std::function<void()> undo, int mergeId)
{
    m_undoStack->push(new EditCommand(text, std::move(redo), std::move(undo), mergeId));
}

void Document::doInsert(const LayerPath& parent, int row, const std::vector<LayerSpec>& specs)
{
    auto* list = mutableChildren(parent);
    if (list == nullptr || specs.empty())
        return;
    row = std::clamp(row, 0, static_cast<int>(list->size()));
    const int last = row + static_cast<int>(specs.size()) - 1;
    Q_EMIT layersAboutToBeInserted(parent, row, last);
    list->insert(list->begin() + row, specs.begin(), specs.end());
    Q_EMIT layersInserted(parent, row, last);
    networkEdited();
}

std::vector<LayerSpec> Document::doRemove(const LayerPath& parent, int row, int count)
{
    auto* list = mutableChildren(parent);
    if (list == nullptr || count <= 0 || row < 0 || static_cast<std::size_t>(row + count) > list->size())
        return {};
    Q_EMIT layersAboutToBeRemoved(parent, row, row + count - 1);
    std::vector<LayerSpec> removed(std::make_move_iterator(list->begin() + row),
                                   std::make_move_iterator(list->begin() + row + count));
    list->erase(list->begin() + row, list->begin() + row + count);
    Q_EMIT layersRemoved(parent, row, row + count - 1);
    networkEdited();
    return removed;
}

void Document::doReplace(const LayerPath& path, const LayerSpec& spec)
{
    LayerSpec* target = mutableSpec(path);
    if (target == nullptr)
        return;
    auto children = std::move(target->children);
    *target = spec;
    target->children = std::move(children);
    Q_EMIT layerChanged(path);
    networkEdited();
}

void Document::networkEdited()
{
    Q_EMIT networkChanged();
    updateModified();
}

void Document::updateModified()
{
    const bool modified = !(m_plan.network == m_savedNetwork);
    if (modified != m_modified) {
        m_modified = modified;
        Q_EMIT modifiedChanged(m_modified);
    }
}

void Document::insertLayers(const LayerPath& parent, int row, std::vector<LayerSpec> specs, const QString& text)
{
    const auto* list = children(parent);
    if (list == nullptr || specs.empty())
        return;
    row = std::clamp(row, 0, static_cast<int>(list->size()));
    const int count = static_cast<int>(specs.size());
    push(
        text, [this, parent, row, specs] { doInsert(parent, row, specs); },
        [this, parent, row, count] { doRemove(parent, row, count); });
}

void Document::removeLayers(const LayerPath& parent, int row, int count)
{
    const auto* list = children(parent);
    if (list == nullptr || count <= 0 || row < 0 || static_cast<std::size_t>(row + count) > list->size())
        return;
    const std::vector<LayerSpec> removed(list->begin() + row, list->begin() + row + count);
    push(
        count == 1 ? tr("Remove layer") : tr("Remove %n layers", nullptr, count),
        [this, parent, row, count] { doRemove(parent, row, count); },
        [this, parent, row, removed] { doInsert(parent, row, removed); });
}

bool Document::moveLayers(const LayerPath& parent, int row, int count, const LayerPath& newParent, int newRow)
{
    const auto* list = children(parent);
    const auto* target = children(newParent);
    if (list == nullptr || target == nullptr || count <= 0 || row < 0
        || static_cast<std::size_t>(row + count) > list->size())
        return false;
    if (isWithin(newParent, parent, row, count))
        return false; // a block cannot move into itself
    newRow = std::clamp(newRow, 0, static_cast<int>(target->size()));
    if (newParent == parent && newRow >= row && newRow <= row + count)
        return false; // lands where it is
    const LayerPath adjustedParent = pathAfterRemoval(newParent, parent, row, count);
    const int insertAt = newParent == parent && newRow > row ? newRow - count : newRow;
    push(
        count == 1 ? tr("Move layer") : tr("Move %n layers", nullptr, count),
        [this, parent, row, count, adjustedParent, insertAt] {
            doInsert(adjustedParent, insertAt, doRemove(parent, row, count));
        },
        [this, parent, row, count, adjustedParent, insertAt] {
            doInsert(parent, row, doRemove(adjustedParent, insertAt, count));
        });
    return true;
}

void Document::duplicateLayers(const LayerPath& parent, int row, int count)
{
    const auto* list = children(parent);
    if (list == nullptr || count <= 0 || row < 0 || static_cast<std::size_t>(row + count) > list->size())
        return;
    std::vector<LayerSpec> copies(list->begin() + row, list->begin() + row + count);
    for (auto& c : copies) {
        if (!c.name.empty())
            c.name = uniqueName(*list, c.name + "_copy");
    }
    insertLayers(parent, row + count, std::move(copies),
                 count == 1 ? tr("Duplicate layer") : tr("Duplicate %n layers", nullptr, count));
}

QString Document::wrapInResidual(const LayerPath& parent, int row, int count)
{
    const auto* list = children(parent);
    if (list == nullptr || count <= 0 || row < 0 || static_cast<std::size_t>(row + count) > list->size())
        return tr("Select the layers to wrap.");
    LayerSpec block;
    block.type = "Repeat";
    block.name = uniqueName(*list, "residual");
    block.times = 1;
    block.children.assign(list->begin() + row, list->begin() + row + count);
    LayerSpec& last = block.children.back();
    if (last.name.empty()) {
        last.name = uniqueName(block.children, "out");
    }
    LayerSpec add;
    add.type = "Add";
    add.name = uniqueName(block.children, "sum");
    add.inputs = {"repeat_input", last.name};
    block.children.push_back(add);

    // Refused now, with the reason, rather than leaving an invalid Add behind: the layers' output
    // must broadcast against their input (PyTorch's x + f(x)).
    Network candidate = m_plan.network;
    std::vector<LayerSpec>* siblings = &candidate.layers;
    for (const int i : parent)
        siblings = &(*siblings)[static_cast<std::size_t>(i)].children;
    siblings->erase(siblings->begin() + row, siblings->begin() + row + count);
    siblings->insert(siblings->begin() + row, block);
    const std::string addPath = specPath(LayerPath(parent) << row) + ".layers[" + std::to_string(count) + "]";
    const Analysis after = analyze(candidate, m_plan.analysisOptions());
    const auto added = std::find_if(after.rows.begin(), after.rows.end(), [&](const LayerRow& r) { return r.specPath == addPath; });
    if (added != after.rows.end() && added->error && !added->blockedByEarlierError) {
        const Analysis before = analyze(m_plan.network, m_plan.analysisOptions());
        const auto rowAt = [&](const LayerPath& path) {
            const std::string at = specPath(path);
            return std::find_if(before.rows.begin(), before.rows.end(), [&](const LayerRow& r) { return r.specPath == at; });
        };
        const auto first = rowAt(LayerPath(parent) << row);
        const auto lastRow = rowAt(LayerPath(parent) << row + count - 1);
        QString from = QString::fromStdString(m_plan.network.input.shape.toBatchedString());
        if (first != before.rows.end() && !first->inputs.empty()) {
            const auto producer = std::find_if(before.rows.begin(), before.rows.end(),
                                               [&](const LayerRow& r) { return r.name == first->inputs.front(); });
            if (producer != before.rows.end())
                from = QString::fromStdString(producer->output.shape.toBatchedString());
        }
        if (lastRow != before.rows.end() && lastRow->valid())
            return tr("Cannot wrap these layers in a residual block: they change the shape from %1 to %2, and a residual "
                      "connection adds the block's input to its output.")
                .arg(from, QString::fromStdString(lastRow->output.shape.toBatchedString()));
        return tr("Cannot wrap these layers in a residual block: their output cannot be added to their input.");
    }

    const std::vector<LayerSpec> original(list->begin() + row, list->begin() + row + count);
    push(
        tr("Wrap in residual block"),
        [this, parent, row, count, block] {
            doRemove(parent, row, count);
            doInsert(parent, row, {block});
        },
        [this, parent, row, original] {
            doRemove(parent, row, 1);
            doInsert(parent, row, original);
        });
    return {};
}

void Document::editLayer(const LayerPath& path, const QString& text, const std::function<void(LayerSpec&)>& change)
{
    const LayerSpec* current = spec(path);
    if (current == nullptr)
        return;
    LayerSpec before = *current;
    before.children.clear(); // doReplace keeps the children
    LayerSpec after = before;
    change(after);
    if (after == before)
        return;
    push(
        text, [this, path, after] { doReplace(path, after); }, [this, path, before] { doReplace(path, before); });
}

void Document::setLayerAttribute(const LayerPath& path, const std::string& name, const nlohmann::json& value)
{
    editLayer(path, tr("Change %1").arg(QString::fromStdString(name)), [&](LayerSpec& s) {
        if (value.is_null())
            s.attributes.erase(name);
        else
            s.attributes[name] = value;
    });
}

void Document::setLayerName(const LayerPath& path, const std::string& name)
{
    editLayer(path, tr("Rename layer"), [&](LayerSpec& s) { s.name = name; });
}

void Document::setLayerInputs(const LayerPath& path, const std::vector<std::string>& inputs)
{
    editLayer(path, tr("Change inputs"), [&](LayerSpec& s) { s.inputs = inputs; });
}

void Document::setRepeatTimes(const LayerPath& path, std::int64_t times)
{
    editLayer(path, tr("Change repeat count"), [&](LayerSpec& s) { s.times = times; });
}

void Document::setLayerFrozen(const LayerPath& path, bool frozen)
{
    editLayer(path, frozen ? tr("Freeze layer") : tr("Unfreeze layer"), [&](LayerSpec& s) { s.frozen = frozen; });
}

void Document::setLayerCheckpoint(const LayerPath& path, bool checkpoint)
{
    const LayerSpec* current = spec(path);
    if (current == nullptr || !current->isRepeat() || current->checkpoint == checkpoint)
        return;
    LayerSpec before = *current;
    before.children.clear();
    LayerSpec after = before;
    after.checkpoint = checkpoint;
    const Settings settingsBefore = Settings::of(m_plan);
    Settings settingsAfter = settingsBefore;
    if (checkpoint && settingsAfter.checkpointing == Checkpointing::None)
        settingsAfter.checkpointing = Checkpointing::PerBlock;
    push(
        checkpoint ? tr("Checkpoint block") : tr("Stop checkpointing block"),
        [this, path, after, settingsAfter] {
            doReplace(path, after);
            applySettings(settingsAfter);
        },
        [this, path, before, settingsBefore] {
            doReplace(path, before);
            applySettings(settingsBefore);
        });
}

QString Document::checkpointLayers(const LayerPath& parent, int row, int count)
{
    const auto* list = children(parent);
    if (list == nullptr || count <= 0 || row < 0 || static_cast<std::size_t>(row + count) > list->size())
        return tr("Select the layers to checkpoint.");
    if (!parent.isEmpty())
        return tr("Only top-level layers can be checkpointed as a block.");
    const auto first = static_cast<std::size_t>(row);
    const auto end = static_cast<std::size_t>(row + count);
    if (count == 1 && (*list)[first].isRepeat()) {
        setLayerCheckpoint(LayerPath{row}, true);
        return {};
    }

    // Layers after the block see only its name: a use of the last wrapped layer becomes a use of
    // the block (the same tensor); a use of any other wrapped layer cannot be kept.
    std::set<std::string> inside;
    for (std::size_t i = first; i < end; ++i) {
        if (!(*list)[i].name.empty())
            inside.insert((*list)[i].name);
    }
    const std::string lastName = (*list)[end - 1].name;
    const std::vector<LayerSpec> later(list->begin() + row + count, list->end());
    std::vector<std::pair<const LayerSpec*, std::string>> uses;
    collectOuterUses(later, inside, uses, true);
    for (const auto& [user, ref] : uses) {
        if (ref != lastName) {
            return tr("Cannot checkpoint these layers as one block: \"%1\" after them uses \"%2\" inside it.")
                .arg(QString::fromStdString(user->name.empty() ? user->type : user->name), QString::fromStdString(ref));
        }
    }

    LayerSpec block;
    block.type = "Repeat";
    block.name = uniqueName(*list, "checkpoint");
    block.times = 1;
    block.checkpoint = true;
    block.children.assign(list->begin() + row, list->begin() + row + count);
    std::vector<LayerSpec> replacement{block};
    std::vector<LayerSpec> rest = later;
    if (!uses.empty())
        renameOuterUses(rest, lastName, block.name, true);
    // Replace the later layers too, up to the last one that changed.
    std::size_t changed = 0;
    for (std::size_t i = 0; i < rest.size(); ++i) {
        if (!(rest[i] == later[i]))
            changed = i + 1;
    }
    replacement.insert(replacement.end(), rest.begin(), rest.begin() + static_cast<std::ptrdiff_t>(changed));
    const std::vector<LayerSpec> original(list->begin() + row,
                                          list->begin() + row + count + static_cast<std::ptrdiff_t>(changed));
    const int removed = static_cast<int>(original.size());
    const int inserted = static_cast<int>(replacement.size());

    const Settings settingsBefore = Settings::of(m_plan);
    Settings settingsAfter = settingsBefore;
    if (settingsAfter.checkpointing == Checkpointing::None)
        settingsAfter.checkpointing = Checkpointing::PerBlock;
    push(
        tr("Checkpoint selection"),
        [this, parent, row, removed, replacement, settingsAfter] {
            doRemove(parent, row, removed);
            doInsert(parent, row, replacement);
            applySettings(settingsAfter);
        },
        [this, parent, row, inserted, original, settingsBefore] {
            doRemove(parent, row, inserted);
            doInsert(parent, row, original);
            applySettings(settingsBefore);
        });
    return {};
}

void Document::editHeader(const QString& text, const std::function<void(Network&)>& change)
{
    Network before;
    before.name = m_plan.network.name;
    before.description = m_plan.network.description;
    before.input = m_plan.network.input;
    before.loss = m_plan.network.loss;
    Network after = before;
    change(after);
    if (after == before)
        return;
    const auto apply = [this](const Network& h) {
        m_plan.network.name = h.name;
        m_plan.network.description = h.description;
        m_plan.network.input = h.input;
        m_plan.network.loss = h.loss;
        Q_EMIT headerChanged();
        networkEdited();
    };
    push(
        text, [apply, after] { apply(after); }, [apply, before] { apply(before); });
}

void Document::setNetworkName(const std::string& name)
{
    editHeader(tr("Rename network"), [&](Network& n) { n.name = name; });
}

void Document::setInput(const InputSpec& input)
{
    editHeader(tr("Change input"), [&](Network& n) { n.input = input; });
}

void Document::setLoss(Loss loss)
{
    editHeader(tr("Change loss"), [&](Network& n) { n.loss = loss; });
}

void Document::setPrecision(Precision precision)
{
    const Precision before = m_plan.precision;
    if (before == precision)
        return;
    const auto apply = [this](Precision p) {
        m_plan.precision = p;
        Q_EMIT precisionChanged(p);
    };
    push(
        tr("Change precision"), [apply, precision] { apply(precision); }, [apply, before] { apply(before); });
}

void Document::setBatch(std::int64_t batch)
{
    batch = std::clamp<std::int64_t>(batch, 1, kMaxBatch);
    const std::int64_t before = m_plan.setup.batch;
    if (before == batch)
        return;
    const auto apply = [this](std::int64_t b) {
        m_plan.setup.batch = b;
        Q_EMIT batchChanged(b);
    };
    push(
        tr("Change batch size"), [apply, batch] { apply(batch); }, [apply, before] { apply(before); }, BatchMerge);
}

void Document::setOptimizer(Optimizer optimizer)
{
    editSettings(tr("Change optimizer"), [&](Settings& s) { s.setup.optimizer = optimizer; });
}

void Document::setOptimizerImplementation(OptimizerImplementation implementation)
{
    editSettings(tr("Change optimizer implementation"),
                 [&](Settings& s) { s.setup.optimizerImplementation = implementation; });
}

void Document::setGpu(const Gpu& gpu)
{
    const Gpu before = m_plan.gpu;
    if (before == gpu)
        return;
    const auto apply = [this](const Gpu& g) {
        m_plan.gpu = g;
        m_plan.setup.gpuMemoryBytes = g.memoryBytes;
        Q_EMIT setupChanged();
    };
    push(
        tr("Change GPU"), [apply, gpu] { apply(gpu); }, [apply, before] { apply(before); });
}

void Document::setOverheadBytes(std::uint64_t bytes)
{
    const std::uint64_t before = m_plan.setup.overheadBytes;
    if (before == bytes)
        return;
    const auto apply = [this](std::uint64_t b) {
        m_plan.setup.overheadBytes = b;
        Q_EMIT setupChanged();
    };
    push(
        tr("Change overhead"), [apply, bytes] { apply(bytes); }, [apply, before] { apply(before); }, OverheadMerge);
}

void Document::applyPlanSettings(const PlanSettings& settings, const QString& text)
{
    editSettings(text, [&](Settings& s) {
        s.precision = settings.precision;
        s.checkpointing = settings.checkpointing;
        s.lora = settings.lora;
        s.setup = settings.setup;
        s.setup.gpuMemoryBytes = s.gpu.memoryBytes;
    });
}

void Document::editSettings(const QString& text, const std::function<void(Settings&)>& change, int mergeId)
{
    const Settings before = Settings::of(m_plan);
    Settings after = before;
    change(after);
    // An optimizer implementation the new settings cannot run falls back in the same step
    // (normalized(): a fused step that torch.optim does not have goes back to foreach).
    after.setup = normalized(after.setup);
    if (after == before)
        return;
    push(
        text, [this, after] { applySettings(after); }, [this, before] { applySettings(before); }, mergeId);
}

void Document::applySettings(const Settings& s)
{
    const Settings old = Settings::of(m_plan);
    if (old == s)
        return;
    m_plan.precision = s.precision;
    m_plan.checkpointing = s.checkpointing;
    m_plan.attention = s.attention;
    m_plan.lora = s.lora;
    m_plan.sequenceLength = s.sequenceLength;
    m_plan.moeImbalance = s.moeImbalance;
    m_plan.setup = s.setup;
    m_plan.gpu = s.gpu;
    m_plan.setup.gpuMemoryBytes = m_plan.gpu.memoryBytes;
    TrainingSetup oldSetup = old.setup;
    oldSetup.batch = s.setup.batch;
    const bool strategy = old.checkpointing != s.checkpointing || old.attention != s.attention || !(old.lora == s.lora)
        || old.sequenceLength != s.sequenceLength || old.moeImbalance != s.moeImbalance;
    if (old.precision != s.precision)
        Q_EMIT precisionChanged(s.precision);
    if (strategy)
        Q_EMIT strategyChanged();
    if (!(oldSetup == s.setup) || !(old.gpu == s.gpu))
        Q_EMIT setupChanged();
    if (old.setup.batch != s.setup.batch)
        Q_EMIT batchChanged(s.setup.batch);
}

void Document::setAccumulationSteps(std::int64_t steps)
{
    editSettings(tr("Change accumulation steps"), [&](Settings& s) { s.setup.accumulationSteps = steps; }, AccumulationMerge);
}

void Document::setParallelism(const Parallelism& parallel)
{
    const Parallelism& old = m_plan.setup.parallel;
    int merge = -1;
    QString text = tr("Change parallelism");
    if (parallel.gpus != old.gpus) {
        text = tr("Change GPU count");
        merge = GpusMerge;
    } else if (parallel.tensorParallel != old.tensorParallel) {
        text = tr("Change tensor parallelism");
        merge = TensorParallelMerge;
    } else if (parallel.sharding != old.sharding) {
        text = tr("Change sharding");
    } else if (parallel.offloadOptimizer != old.offloadOptimizer) {
        text = parallel.offloadOptimizer ? tr("Offload optimizer state") : tr("Keep optimizer state on the GPU");
    }
    editSettings(text, [&](Settings& s) { s.setup.parallel = parallel; }, merge);
}

void Document::setEightBitOptimizer(bool eightBit)
{
    editSettings(eightBit ? tr("Use an 8-bit optimizer") : tr("Use a 32-bit optimizer"),
                 [&](Settings& s) { s.setup.eightBitOptimizer = eightBit; });
}

void Document::setAssumedUtilization(double utilization)
{
    editSettings(tr("Change assumed utilisation"), [&](Settings& s) { s.setup.assumedUtilization = utilization; },
                 UtilizationMerge);
}

void Document::setCheckpointing(Checkpointing checkpointing)
{
    editSettings(tr("Change checkpointing"), [&](Settings& s) { s.checkpointing = checkpointing; });
}

void Document::setAttention(AttentionImplementation attention)
{
    editSettings(tr("Change attention implementation"), [&](Settings& s) { s.attention = attention; });
}

void Document::setLora(const LoraOptions& lora)
{
    const LoraOptions& old = m_plan.lora;
    int merge = -1;
    if (lora.rank != old.rank)
        merge = LoraRankMerge;
    else if (lora.dropout != old.dropout)
        merge = LoraDropoutMerge;
    editSettings(tr("Change LoRA"), [&](Settings& s) { s.lora = lora; }, merge);
}

void Document::setSequenceLength(std::optional<std::int64_t> length)
{
    editSettings(tr("Change sequence length"), [&](Settings& s) { s.sequenceLength = length; }, SequenceLengthMerge);
}

void Document::setMoeImbalance(double imbalance)
{
    editSettings(tr("Change MoE imbalance"), [&](Settings& s) { s.moeImbalance = imbalance; }, MoeImbalanceMerge);
}

} // namespace headroom::ui

#include "Document.h"

#include "EditCommand.h"

#include <QFileInfo>
#include <QUndoStack>

#include <algorithm>
#include <set>

namespace headroom::ui {

namespace {

// Settings changed in a row through one control (dragging the slider) merge into one undo step.
enum MergeId { BatchMerge = 1, OverheadMerge };

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

} // namespace

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
    return tr("Untitled");
}

void Document::resetNetwork(Network network, const QString& filePath)
{
    Q_EMIT networkAboutToBeReset();
    m_plan.network = std::move(network);
    m_savedNetwork = m_plan.network;
    m_undoStack->clear();
    const bool pathChanged = filePath != m_filePath;
    m_filePath = filePath;
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

void Document::markSaved(const QString& filePath)
{
    m_savedNetwork = m_plan.network;
    if (filePath != m_filePath) {
        m_filePath = filePath;
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

void Document::wrapInResidual(const LayerPath& parent, int row, int count)
{
    const auto* list = children(parent);
    if (list == nullptr || count <= 0 || row < 0 || static_cast<std::size_t>(row + count) > list->size())
        return;
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
    const Optimizer before = m_plan.setup.optimizer;
    if (before == optimizer)
        return;
    const auto apply = [this](Optimizer o) {
        m_plan.setup.optimizer = o;
        Q_EMIT setupChanged();
    };
    push(
        tr("Change optimizer"), [apply, optimizer] { apply(optimizer); }, [apply, before] { apply(before); });
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

} // namespace headroom::ui

#include "LayerTableModel.h"

#include "ErrorText.h"
#include "QtText.h"
#include "UiText.h"

#include <QDataStream>
#include <QIODevice>
#include <QMimeData>
#include <algorithm>
#include <regex>

namespace headroom::ui {

namespace {

const QString kMimeType = QStringLiteral("application/x-headroom-layer-rows");

/// The spec path a location such as "layers[3].layers[0].kernel_size" is about.
std::string specPathOfLocation(const std::string& location)
{
    static const std::regex pattern { R"(^layers\[\d+\](\.layers\[\d+\])*)" };
    std::smatch m;
    return std::regex_search(location, m, pattern) ? m.str() : std::string();
}

} // namespace

LayerTableModel::LayerTableModel(Document* document, QObject* parent)
    : QAbstractItemModel(parent)
    , m_document { document }
{
    build(&m_root, document->network().layers);

    connect(document, &Document::layersAboutToBeInserted, this,
        [this](
            const LayerPath& parent, int first, int last) { beginInsertRows(indexOf(parent), first, last); });
    connect(document, &Document::layersInserted, this, [this](const LayerPath& parent, int first, int last) {
        Node* node = nodeAt(parent);
        const auto* specs = m_document->children(parent);
        if (node != nullptr && specs != nullptr) {
            for (int i = first; i <= last; ++i) {
                auto child = std::make_unique<Node>();
                child->parent = node;
                build(child.get(), (*specs)[static_cast<std::size_t>(i)].children);
                node->children.insert(node->children.begin() + i, std::move(child));
            }
            renumber(node);
        }
        endInsertRows();
    });
    connect(document, &Document::layersAboutToBeRemoved, this,
        [this](
            const LayerPath& parent, int first, int last) { beginRemoveRows(indexOf(parent), first, last); });
    connect(document, &Document::layersRemoved, this, [this](const LayerPath& parent, int first, int last) {
        if (Node* node = nodeAt(parent)) {
            node->children.erase(node->children.begin() + first, node->children.begin() + last + 1);
            renumber(node);
        }
        endRemoveRows();
    });
    connect(document, &Document::layerChanged, this, [this](const LayerPath& path) {
        const QModelIndex first = indexOf(path, 0);
        if (first.isValid())
            Q_EMIT dataChanged(first, first.siblingAtColumn(ColumnCount - 1));
    });
    connect(document, &Document::networkAboutToBeReset, this, [this] { beginResetModel(); });
    connect(document, &Document::networkReset, this, [this] {
        m_root.children.clear();
        build(&m_root, m_document->network().layers);
        endResetModel();
    });
}

LayerTableModel::~LayerTableModel() = default;

void LayerTableModel::build(Node* node, const std::vector<LayerSpec>& specs)
{
    node->children.clear();
    for (const auto& spec : specs) {
        auto child = std::make_unique<Node>();
        child->parent = node;
        build(child.get(), spec.children);
        node->children.push_back(std::move(child));
    }
    renumber(node);
}

void LayerTableModel::renumber(Node* node)
{
    for (std::size_t i = 0; i < node->children.size(); ++i)
        node->children[i]->row = static_cast<int>(i);
}

LayerTableModel::Node* LayerTableModel::nodeAt(const LayerPath& path)
{
    Node* node = &m_root;
    for (const int i : path) {
        if (i < 0 || static_cast<std::size_t>(i) >= node->children.size())
            return nullptr;
        node = node->children[static_cast<std::size_t>(i)].get();
    }
    return node;
}

const LayerTableModel::Node* LayerTableModel::nodeOf(const QModelIndex& index) const
{
    return index.isValid() ? static_cast<const Node*>(index.internalPointer()) : &m_root;
}

QModelIndex LayerTableModel::index(int row, int column, const QModelIndex& parent) const
{
    if (!hasIndex(row, column, parent))
        return {};
    const Node* node = nodeOf(parent);
    return createIndex(row, column, node->children[static_cast<std::size_t>(row)].get());
}

QModelIndex LayerTableModel::parent(const QModelIndex& child) const
{
    if (!child.isValid())
        return {};
    const Node* node = nodeOf(child);
    if (node->parent == nullptr || node->parent == &m_root)
        return {};
    return createIndex(node->parent->row, 0, node->parent);
}

int LayerTableModel::rowCount(const QModelIndex& parent) const
{
    if (parent.isValid() && parent.column() != 0)
        return 0;
    return static_cast<int>(nodeOf(parent)->children.size());
}

int LayerTableModel::columnCount(const QModelIndex&) const
{
    return ColumnCount;
}

LayerPath LayerTableModel::pathOf(const QModelIndex& index) const
{
    LayerPath path;
    for (const Node* node = index.isValid() ? nodeOf(index) : nullptr; node != nullptr && node != &m_root;
         node = node->parent)
        path.prepend(node->row);
    return path;
}

QModelIndex LayerTableModel::indexOf(const LayerPath& path, int column) const
{
    QModelIndex current;
    for (qsizetype i = 0; i < path.size(); ++i) {
        current = index(path[i], i + 1 == path.size() ? column : 0, current);
        if (!current.isValid())
            return {};
    }
    return current;
}

const LayerTableModel::RowInfo* LayerTableModel::infoOf(const QModelIndex& index) const
{
    const auto it = m_info.find(Document::specPath(pathOf(index)));
    return it == m_info.end() ? nullptr : &it->second;
}

const LayerRow* LayerTableModel::analysisRow(const QModelIndex& index) const
{
    const RowInfo* info = infoOf(index);
    if (info == nullptr || info->analysisRow < 0
        || static_cast<std::size_t>(info->analysisRow) >= m_analysis.rows.size())
        return nullptr;
    return &m_analysis.rows[static_cast<std::size_t>(info->analysisRow)];
}

QVariant LayerTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal)
        return {};
    if (role == Qt::DisplayRole) {
        switch (section) {
        case IndexColumn:
            return tr("#");
        case NameColumn:
            return tr("Name");
        case TypeColumn:
            return tr("Type");
        // Two lines where the words are long, so every column fits beside the others.
        case OutputColumn:
            return tr("Output shape");
        case ParametersColumn:
            return tr("Parameters");
        case ActivationColumn:
            return tr("Activations\nper sample");
        case FlopsColumn:
            return tr("FLOPs\nper sample");
        case TrainingColumn:
            return tr("Training");
        case InputsColumn:
            return tr("Inputs");
        default:
            return {};
        }
    }
    if (role == Qt::ToolTipRole && section == ActivationColumn)
        return tr("Memory kept for the backward pass per sample (a Repeat block: all its repetitions)");
    if (role == Qt::ToolTipRole && section == FlopsColumn)
        return tr(
            "Forward + backward floating-point operations per sample (a Repeat block: all its repetitions); "
            "checkpoint recomputation is in the summary");
    if (role == Qt::ToolTipRole && section == TrainingColumn)
        return tr(
            "Frozen layers, layers recomputed by activation checkpointing, and LoRA adapter parameters");
    return {};
}

Qt::ItemFlags LayerTableModel::flags(const QModelIndex& index) const
{
    if (!index.isValid())
        return Qt::ItemIsDropEnabled;
    if (!checkIndex(index, CheckIndexOption::IndexIsValid))
        return Qt::NoItemFlags;
    Qt::ItemFlags f = Qt::ItemIsEnabled | Qt::ItemIsSelectable | Qt::ItemIsDragEnabled;
    if (index.column() == NameColumn)
        f |= Qt::ItemIsEditable;
    if (index.data(IsRepeatRole).toBool())
        f |= Qt::ItemIsDropEnabled;
    return f;
}

bool LayerTableModel::setData(const QModelIndex& index, const QVariant& value, int role)
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid) || role != Qt::EditRole
        || index.column() != NameColumn)
        return false;
    m_document->setLayerName(pathOf(index), ss(value.toString().trimmed()));
    return true;
}

Qt::DropActions LayerTableModel::supportedDropActions() const
{
    return Qt::MoveAction;
}

QStringList LayerTableModel::mimeTypes() const
{
    return { kMimeType };
}

QMimeData* LayerTableModel::mimeData(const QModelIndexList& indexes) const
{
    // A drag carries one run of siblings: parent path, first row, count.
    QList<int> rows;
    QModelIndex parentIndex;
    bool first = true;
    for (const auto& i : indexes) {
        if (!i.isValid())
            continue;
        if (first) {
            parentIndex = i.parent();
            first = false;
        } else if (i.parent() != parentIndex) {
            return nullptr;
        }
        if (!rows.contains(i.row()))
            rows << i.row();
    }
    if (rows.isEmpty())
        return nullptr;
    std::sort(rows.begin(), rows.end());
    if (rows.back() - rows.front() + 1 != rows.size())
        return nullptr;
    QByteArray bytes;
    QDataStream out(&bytes, QIODevice::WriteOnly);
    out << pathOf(parentIndex) << rows.front() << static_cast<int>(rows.size());
    auto* mime = new QMimeData;
    mime->setData(kMimeType, bytes);
    return mime;
}

bool LayerTableModel::dropMimeData(
    const QMimeData* data, Qt::DropAction action, int row, int, const QModelIndex& parent)
{
    if (data == nullptr || action != Qt::MoveAction || !data->hasFormat(kMimeType))
        return false;
    QDataStream in(data->data(kMimeType));
    LayerPath sourceParent;
    int first = 0;
    int count = 0;
    in >> sourceParent >> first >> count;
    if (in.status() != QDataStream::Ok)
        return false;
    LayerPath targetParent = pathOf(parent);
    int targetRow = row;
    if (row < 0) {
        if (!parent.isValid()) {
            targetRow = rowCount();
        } else if (parent.data(IsRepeatRole).toBool()) {
            targetRow = rowCount(parent.siblingAtColumn(0)); // onto a block: append to it
        } else {
            targetParent = pathOf(parent.parent()); // onto a layer: after it
            targetRow = parent.row() + 1;
        }
    }
    // The Document does the move; the rows are not removed by the view afterwards because this
    // model does not implement removeRows().
    return m_document->moveLayers(sourceParent, first, count, targetParent, targetRow);
}

void LayerTableModel::addToBlock(RowInfo& block, const LayerRow& row, std::uint64_t trained)
{
    // A row stands for row.count identical layers.
    block.params += row.params * row.count;
    block.activationBytes += row.activationBytesPerSample * row.count;
    block.forwardFlops += row.forwardFlopsPerSample * row.count;
    block.backwardFlops += row.backwardFlopsPerSample * row.count;
    block.loraParams += row.loraParams * row.count;
    block.trainedParams += row.frozen ? 0 : trained * row.count;
    block.checkpointed = block.checkpointed || row.checkpointed;
}

void LayerTableModel::collectRowInfo()
{
    m_info.clear();
    // Each spec's first repetition (or its first invalid one); blocks sum all repetitions.
    std::vector<std::string> blocks; // open Repeat headers by depth
    for (std::size_t i = 0; i < m_analysis.rows.size(); ++i) {
        const auto& row = m_analysis.rows[i];
        if (row.specPath.rfind("layers", 0) != 0)
            continue; // the loss
        blocks.resize(static_cast<std::size_t>(std::max(0, row.depth)));
        auto [it, inserted] = m_info.try_emplace(row.specPath);
        RowInfo& info = it->second;
        if (inserted || (!info.error && row.error)) {
            info.analysisRow = static_cast<int>(i);
            info.error = row.error;
            info.blocked = row.blockedByEarlierError;
        }
        if (row.type == "Repeat") {
            blocks.push_back(row.specPath);
            continue;
        }
        const std::uint64_t trained = row.trainableParams - std::min(row.trainableParams, row.loraParams);
        if (inserted) {
            info.params = row.params;
            info.activationBytes = row.activationBytesPerSample;
            info.forwardFlops = row.forwardFlopsPerSample;
            info.backwardFlops = row.backwardFlopsPerSample;
            info.loraParams = row.loraParams;
            info.trainedParams = row.frozen ? 0 : trained;
            info.checkpointed = row.checkpointed;
        }
        for (const auto& block : blocks)
            addToBlock(m_info[block], row, trained);
    }
}

void LayerTableModel::noteStructuralError()
{
    // Structural errors (a duplicate name, a bad repeat count) stop the walk without a row.
    m_errorPath.clear();
    if (m_analysis.error) {
        const std::string at = specPathOfLocation(m_analysis.error->location);
        if (!at.empty() && !m_info[at].error)
            m_info[at].error = *m_analysis.error;
        static const std::regex index { R"(\[(\d+)\])" };
        for (auto it = std::sregex_iterator(at.begin(), at.end(), index); it != std::sregex_iterator(); ++it)
            m_errorPath << std::stoi((*it)[1].str());
    }
}

QString LayerTableModel::statusOfAnalysis() const
{
    if (emptyNetwork())
        return tr("The network is empty: add layers (Add Layer, or Layer > Add Layer) to see how much memory "
                  "training it takes.");
    if (m_analysis.error)
        return ErrorText::forUser(
            *m_analysis.error, [this](const std::string& path) { return nameAt(path); });
    std::uint64_t layers = 0;
    for (const auto& row : m_analysis.rows)
        layers += row.type != "Repeat" && row.specPath != "loss" ? row.count : 0;
    return tr("Layers: %1 · Parameters: %2 · Activations per sample: %3")
        .arg(UiText::count(layers), UiText::count(m_analysis.totalParams),
            UiText::bytes(m_analysis.activationBytesPerSample));
}

void LayerTableModel::setAnalysis(const Analysis& analysis)
{
    m_analysis = analysis;
    collectRowInfo();
    noteStructuralError();
    m_status = statusOfAnalysis();
    emitAllDataChanged({});
    Q_EMIT statusTextChanged(m_status);
}

std::optional<Error> LayerTableModel::errorOf(const QModelIndex& index) const
{
    const RowInfo* info = index.isValid() ? infoOf(index) : nullptr;
    return info != nullptr ? info->error : std::nullopt;
}

QString LayerTableModel::nameAt(const std::string& specPath) const
{
    const auto it = m_info.find(specPath);
    if (it == m_info.end() || it->second.analysisRow < 0
        || static_cast<std::size_t>(it->second.analysisRow) >= m_analysis.rows.size())
        return {};
    // As layerReference() names it beside its number: an automatic name counts from 0 ("4" in row 5)
    // and would read as another row's number, so such a layer goes by its type.
    const LayerRow& row = m_analysis.rows[static_cast<std::size_t>(it->second.analysisRow)];
    return qs(row.automaticName ? row.type : row.name);
}

void LayerTableModel::emitAllDataChanged(const QModelIndex& parent)
{
    const int rows = rowCount(parent);
    if (rows == 0)
        return;
    Q_EMIT dataChanged(index(0, 0, parent), index(rows - 1, ColumnCount - 1, parent));
    const Node* node = nodeOf(parent);
    for (int r = 0; r < rows; ++r) {
        if (!node->children[static_cast<std::size_t>(r)]->children.empty())
            emitAllDataChanged(index(r, 0, parent));
    }
}

} // namespace headroom::ui

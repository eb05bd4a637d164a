#include "LayerEditor.h"

#include "CoreText.h"
#include "LayerDefaults.h"
#include "LayerTableModel.h"
#include "QtText.h"
#include "UiText.h"
#include "headroom/layers/LayerRegistry.h"

#include <QAction>
#include <QHeaderView>
#include <QLabel>
#include <QMenu>
#include <QSignalBlocker>
#include <QStyle>
#include <QStyledItemDelegate>
#include <QToolButton>
#include <QTreeView>
#include <QUndoStack>
#include <QVBoxLayout>
#include <algorithm>
#include <array>
#include <map>

namespace headroom::ui {

namespace {

/// Paints a row's number ("3", "3.2" inside a block) in the index column: the number the command
/// line, the PDF and the messages give the layer (layerNumber()).
class PositionDelegate final : public QStyledItemDelegate
{
public:
    using QStyledItemDelegate::QStyledItemDelegate;

protected:
    void initStyleOption(QStyleOptionViewItem* option, const QModelIndex& index) const override
    {
        QStyledItemDelegate::initStyleOption(option, index);
        option->text = index.data(LayerTableModel::NumberRole).toString();
        option->features |= QStyleOptionViewItem::HasDisplay;
        option->displayAlignment = Qt::AlignRight | Qt::AlignVCenter;
    }
};

} // namespace

LayerEditor::LayerEditor(Document* document, QWidget* parent)
    : QWidget(parent)
    , m_document { document }
    , m_model { new LayerTableModel(document, this) }
{
    m_model->setObjectName(QStringLiteral("layerTableModel"));
    createAddMenu();
    createEditActions();
    QHBoxLayout* toolbar = createToolbar();
    createView();
    createContextMenu();

    m_status = new QLabel(this);
    m_status->setObjectName(QStringLiteral("layerStatusLabel"));
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(toolbar);
    layout->addWidget(m_view, 1);
    layout->addWidget(m_status);
    connectView();
    m_view->expandAll();
    updateActions();
}

void LayerEditor::connectView()
{
    connect(m_model, &LayerTableModel::statusTextChanged, this, [this] {
        m_refusal.clear();
        updateStatus();
        fitColumns(m_fitOnNextAnalysis);
        m_fitOnNextAnalysis = false;
    });
    connect(m_model, &QAbstractItemModel::modelReset, this, [this] {
        m_view->expandAll();
        updateActions();
        m_fitOnNextAnalysis = true;
    });
    connect(m_view->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
        [this](const QModelIndex& current) {
            updateActions();
            updateStatus();
            Q_EMIT currentIndexChanged(current);
        });
    connect(
        m_view->selectionModel(), &QItemSelectionModel::selectionChanged, this, &LayerEditor::updateActions);
    // Freeze shows whether the current layer is frozen, however that changed (the panel, undo).
    connect(m_document, &Document::layerChanged, this, [this] { updateActions(); });
}

void LayerEditor::createAddMenu()
{
    m_addMenu = new QMenu(tr("&Add Layer"), this);
    m_addMenu->setObjectName(QStringLiteral("addLayerMenu"));
    std::map<LayerCategory, QMenu*> categories;
    for (const LayerKind* kind : LayerRegistry::builtin().kinds()) {
        QMenu*& sub = categories[kind->category()];
        if (sub == nullptr)
            sub = new QMenu(UiText::category(kind->category()), m_addMenu);
        (void)sub;
    }
    for (auto& [category, sub] : categories) {
        sub->setObjectName(qs(categoryName(category)) + QStringLiteral("Menu"));
        m_addMenu->addMenu(sub);
        for (const LayerKind* kind : LayerRegistry::builtin().kinds()) {
            if (kind->category() != category)
                continue;
            const QString type = qs(kind->type());
            QAction* action = sub->addAction(type);
            action->setObjectName(QStringLiteral("add") + type + QStringLiteral("Action"));
            action->setToolTip(CoreText::translate(kind->summary()));
            action->setStatusTip(CoreText::translate(kind->summary()));
            connect(action, &QAction::triggered, this, [this, type] { addLayer(type); });
        }
    }
    m_addMenu->addSeparator();
    QAction* repeat = m_addMenu->addAction(tr("Repeat Block"));
    repeat->setObjectName(QStringLiteral("addRepeatAction"));
    repeat->setStatusTip(tr("A block of layers repeated several times"));
    connect(repeat, &QAction::triggered, this, [this] { addLayer(QStringLiteral("Repeat")); });
    m_addMenu->setToolTipsVisible(true);
}

void LayerEditor::createEditActions()
{
    // Keys a text field needs for itself (Delete; Alt+Up and Alt+Down, which open a combo box) act
    // only where the layer table has the focus; the others, as the Layer menu shows them, from
    // anywhere in the window (WindowShortcuts keeps them from the fields).
    const auto makeAction
        = [this](const QString& text, const QString& name, const QKeySequence& key, auto slot) {
              auto* a = new QAction(text, this);
              a->setObjectName(name);
              a->setShortcut(key);
              a->setShortcutContext(key[0].keyboardModifiers() & Qt::ControlModifier
                      ? Qt::WindowShortcut
                      : Qt::WidgetWithChildrenShortcut);
              connect(a, &QAction::triggered, this, slot);
              addAction(a);
              return a;
          };
    m_remove = makeAction(tr("&Remove Layer"), QStringLiteral("removeLayerAction"), QKeySequence::Delete,
        &LayerEditor::removeSelected);
    m_duplicate = makeAction(tr("D&uplicate Layer"), QStringLiteral("duplicateLayerAction"),
        QKeySequence(Qt::CTRL | Qt::Key_D), &LayerEditor::duplicateSelected);
    m_moveUp = makeAction(tr("Move &Up"), QStringLiteral("moveLayerUpAction"),
        QKeySequence(Qt::ALT | Qt::Key_Up), [this] { moveSelected(-1); });
    m_moveDown = makeAction(tr("Move Do&wn"), QStringLiteral("moveLayerDownAction"),
        QKeySequence(Qt::ALT | Qt::Key_Down), [this] { moveSelected(1); });
    m_wrap = makeAction(tr("Wrap in Residual &Block"), QStringLiteral("wrapResidualAction"),
        QKeySequence(Qt::CTRL | Qt::Key_R), &LayerEditor::wrapSelected);
    m_wrap->setStatusTip(tr("Puts the selected layers in a block whose input is added to its output"));
    m_checkpoint = makeAction(tr("&Checkpoint Selection"), QStringLiteral("checkpointSelectionAction"),
        QKeySequence(Qt::CTRL | Qt::Key_K), &LayerEditor::checkpointSelected);
    m_checkpoint->setStatusTip(
        tr("Puts the selected top-level layers in a checkpointed block: backward recomputes "
           "their activations instead of keeping them"));
    m_freeze = makeAction(tr("&Freeze"), QStringLiteral("freezeLayerAction"), QKeySequence(),
        [this](bool on) { freezeSelected(on); });
    m_freeze->setCheckable(true);
    m_freeze->setStatusTip(tr("No gradients or optimizer state for the selected layers' parameters"));
}

void LayerEditor::createContextMenu()
{
    m_contextMenu = new QMenu(this);
    m_contextMenu->setObjectName(QStringLiteral("layerContextMenu"));
    m_contextMenu->addMenu(m_addMenu);
    m_contextMenu->addSeparator();
    m_contextMenu->addAction(m_remove);
    m_contextMenu->addAction(m_duplicate);
    m_contextMenu->addSeparator();
    m_contextMenu->addAction(m_checkpoint);
    m_contextMenu->addAction(m_freeze);
    m_view->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(m_view, &QWidget::customContextMenuRequested, this, &LayerEditor::showContextMenu);
}

void LayerEditor::showContextMenu(const QPoint& position)
{
    // A right-click acts on the row under the pointer: selected with it, or alone if it was not;
    // below the rows, nothing is selected and Add Layer appends.
    const QModelIndex index = m_view->indexAt(position);
    if (!index.isValid()) {
        m_view->selectionModel()->clear();
    } else if (!m_view->selectionModel()->isRowSelected(index.row(), index.parent())) {
        m_view->selectionModel()->setCurrentIndex(
            index, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    } else if (index.siblingAtColumn(0) != m_view->currentIndex().siblingAtColumn(0)) {
        m_view->selectionModel()->setCurrentIndex(index, QItemSelectionModel::NoUpdate);
    }
    updateActions();
    m_contextMenu->popup(m_view->viewport()->mapToGlobal(position));
}

QHBoxLayout* LayerEditor::createToolbar()
{
    auto* toolbar = new QHBoxLayout;
    toolbar->setContentsMargins(0, 0, 0, 0);
    m_addButton = new QToolButton(this);
    m_addButton->setObjectName(QStringLiteral("addLayerButton"));
    m_addButton->setText(tr("Add Layer"));
    m_addButton->setMenu(m_addMenu);
    m_addButton->setPopupMode(QToolButton::InstantPopup);
    m_addButton->setToolButtonStyle(Qt::ToolButtonTextOnly);
    toolbar->addWidget(m_addButton);
    const auto button = [this, toolbar](QAction* action, const QString& name, const QString& text) {
        auto* b = new QToolButton(this);
        b->setObjectName(name);
        // The button shows the action's icon text: short, so the toolbar fits the editor's width
        // (a button's own text would be replaced by the action's on every change).
        action->setIconText(text);
        action->setToolTip(action->text().remove(QLatin1Char('&')) + QStringLiteral(" (")
            + action->shortcut().toString(QKeySequence::NativeText) + QLatin1Char(')'));
        b->setDefaultAction(action);
        toolbar->addWidget(b);
    };
    button(m_remove, QStringLiteral("removeLayerButton"), tr("Remove"));
    button(m_duplicate, QStringLiteral("duplicateLayerButton"), tr("Duplicate"));
    button(m_moveUp, QStringLiteral("moveLayerUpButton"), tr("Up"));
    button(m_moveDown, QStringLiteral("moveLayerDownButton"), tr("Down"));
    button(m_wrap, QStringLiteral("wrapResidualButton"), tr("Residual"));
    button(m_checkpoint, QStringLiteral("checkpointSelectionButton"), tr("Checkpoint"));
    toolbar->addStretch(1);
    return toolbar;
}

void LayerEditor::createView()
{
    m_view = new QTreeView(this);
    m_view->setObjectName(QStringLiteral("layerTreeView"));
    m_view->setModel(m_model);
    m_view->setItemDelegateForColumn(LayerTableModel::IndexColumn, new PositionDelegate(m_view));
    m_view->setUniformRowHeights(true);
    m_view->setAlternatingRowColors(true);
    m_view->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setDragDropMode(QAbstractItemView::InternalMove);
    m_view->setDefaultDropAction(Qt::MoveAction);
    m_view->setDragEnabled(true);
    m_view->setAcceptDrops(true);
    m_view->setDropIndicatorShown(true);
    m_view->setEditTriggers(QAbstractItemView::DoubleClicked | QAbstractItemView::EditKeyPressed);
    m_view->setAllColumnsShowFocus(true);
    m_view->setTextElideMode(Qt::ElideMiddle); // "layer2.0.…downsample.1" keeps both ends
    auto* header = m_view->header();
    header->setStretchLastSection(true);
    header->setSectionResizeMode(QHeaderView::Interactive);
    header->setMinimumSectionSize(m_view->fontMetrics().horizontalAdvance(QStringLiteral("000")));
    fitColumns(true);
}

QList<QAction*> LayerEditor::editActions() const
{
    return { m_remove, m_duplicate, m_moveUp, m_moveDown, m_wrap, m_checkpoint, m_freeze };
}

LayerPath LayerEditor::currentPath() const
{
    return m_model->pathOf(m_view->currentIndex());
}

void LayerEditor::selectPath(const LayerPath& path)
{
    const QModelIndex index = m_model->indexOf(path);
    if (!index.isValid())
        return;
    m_view->scrollTo(index);
    m_view->selectionModel()->setCurrentIndex(
        index, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
}

bool LayerEditor::selectedRun(LayerPath& parent, int& first, int& count) const
{
    const QModelIndex current = m_view->currentIndex();
    if (!current.isValid())
        return false;
    const QModelIndex parentIndex = current.parent();
    int lo = current.row();
    int hi = current.row();
    const auto selected = m_view->selectionModel()->selectedRows();
    // Grow the run from the current row through adjacent selected siblings.
    const auto isSelected = [&](int row) {
        return std::any_of(selected.begin(), selected.end(),
            [&](const QModelIndex& i) { return i.row() == row && i.parent() == parentIndex; });
    };
    while (lo > 0 && isSelected(lo - 1))
        --lo;
    while (hi + 1 < m_model->rowCount(parentIndex) && isSelected(hi + 1))
        ++hi;
    parent = m_model->pathOf(parentIndex);
    first = lo;
    count = hi - lo + 1;
    return true;
}

void LayerEditor::addLayer(const QString& type)
{
    const QModelIndex current = m_view->currentIndex().siblingAtColumn(0);
    LayerPath parent;
    int row = m_model->rowCount();
    if (current.isValid()) {
        parent = m_model->pathOf(current.parent());
        row = current.row() + 1;
    }
    LayerSpec spec;
    if (type == QStringLiteral("Repeat")) {
        spec = newRepeatSpec();
    } else {
        const LayerKind* kind = LayerRegistry::builtin().find(ss(type));
        if (kind == nullptr)
            return;
        const LayerRow* previous = current.isValid() ? m_model->analysisRow(current) : nullptr;
        std::vector<std::string> recent;
        if (current.isValid()) {
            if (const LayerRow* before = m_model->analysisRow(current.sibling(current.row() - 1, 0)))
                recent.push_back(before->name);
            if (previous != nullptr)
                recent.push_back(previous->name);
        }
        TensorInfo input { m_document->network().input.shape, m_document->network().input.dtype };
        spec = newLayerSpec(
            *kind, previous != nullptr && previous->valid() ? &previous->output : &input, recent);
    }
    m_document->insertLayers(parent, row, { spec }, tr("Add %1").arg(type));
    selectPath(LayerPath(parent) << row);
    if (spec.isRepeat())
        m_view->expand(m_model->indexOf(LayerPath(parent) << row));
}

void LayerEditor::removeSelected()
{
    LayerPath parent;
    int first = 0;
    int count = 0;
    if (!selectedRun(parent, first, count))
        return;
    m_document->removeLayers(parent, first, count);
    const auto* siblings = m_document->children(parent);
    if (siblings != nullptr && !siblings->empty())
        selectPath(LayerPath(parent) << std::min(first, static_cast<int>(siblings->size()) - 1));
    else if (!parent.isEmpty())
        selectPath(parent);
}

void LayerEditor::duplicateSelected()
{
    LayerPath parent;
    int first = 0;
    int count = 0;
    if (!selectedRun(parent, first, count))
        return;
    m_document->duplicateLayers(parent, first, count);
    selectPath(LayerPath(parent) << first + count);
}

void LayerEditor::moveSelected(int delta)
{
    LayerPath parent;
    int first = 0;
    int count = 0;
    if (!selectedRun(parent, first, count))
        return;
    const int target = delta < 0 ? first - 1 : first + count + 1;
    if (m_document->moveLayers(parent, first, count, parent, target)) {
        const int newFirst = first + (delta < 0 ? -1 : 1);
        selectPath(LayerPath(parent) << newFirst);
        for (int r = newFirst + 1; r < newFirst + count; ++r)
            m_view->selectionModel()->select(m_model->indexOf(LayerPath(parent) << r),
                QItemSelectionModel::Select | QItemSelectionModel::Rows);
    }
}

void LayerEditor::wrapSelected()
{
    LayerPath parent;
    int first = 0;
    int count = 0;
    if (!selectedRun(parent, first, count))
        return;
    if (const QString refused = m_document->wrapInResidual(parent, first, count); !refused.isEmpty()) {
        showRefusal(refused);
        return;
    }
    const LayerPath block = LayerPath(parent) << first;
    m_view->expand(m_model->indexOf(block));
    selectPath(block);
}

void LayerEditor::checkpointSelected()
{
    LayerPath parent;
    int first = 0;
    int count = 0;
    if (!selectedRun(parent, first, count))
        return;
    if (const QString refused = m_document->checkpointLayers(parent, first, count); !refused.isEmpty()) {
        showRefusal(refused);
        return;
    }
    const LayerPath block = LayerPath(parent) << first;
    m_view->expand(m_model->indexOf(block));
    selectPath(block);
}

void LayerEditor::freezeSelected(bool frozen)
{
    QList<LayerPath> paths;
    for (const QModelIndex& row : m_view->selectionModel()->selectedRows())
        paths << m_model->pathOf(row);
    if (paths.isEmpty() && m_view->currentIndex().isValid())
        paths << currentPath();
    std::sort(paths.begin(), paths.end());
    // A layer inside a chosen block is frozen with it: only the outermost paths change.
    QList<LayerPath> outermost;
    for (const LayerPath& p : paths) {
        const bool inside = std::any_of(outermost.begin(), outermost.end(),
            [&](const LayerPath& o) { return p.size() > o.size() && p.mid(0, o.size()) == o; });
        const LayerSpec* spec = m_document->spec(p);
        if (!inside && spec != nullptr && spec->frozen != frozen)
            outermost << p;
    }
    if (outermost.isEmpty())
        return;
    QUndoStack* stack = m_document->undoStack();
    stack->beginMacro(frozen ? tr("Freeze layers") : tr("Unfreeze layers"));
    for (const LayerPath& p : outermost)
        m_document->setLayerFrozen(p, frozen);
    stack->endMacro();
}

void LayerEditor::showRefusal(const QString& reason)
{
    m_refusal = reason;
    updateStatus();
}

void LayerEditor::updateStatus()
{
    QString text = m_model->statusText();
    const bool error = m_model->hasError() || !m_refusal.isEmpty();
    const LayerPath at = m_model->errorPath();
    if (!m_refusal.isEmpty()) {
        text = m_refusal;
    } else if (m_model->hasError() && !at.isEmpty() && at == currentPath()) {
        // The property panel below shows this layer's error: say where, not the same words again.
        QStringList position;
        for (const int i : at)
            position << QString::number(i + 1);
        const QString name = m_model->nameAt(Document::specPath(at));
        text = name.isEmpty()
            ? tr("Layer %1 is invalid: see its properties below.").arg(position.join(QLatin1Char('.')))
            : tr("Layer %1 (%2) is invalid: see its properties below.")
                  .arg(position.join(QLatin1Char('.')), name);
    }
    m_status->setText(text);
    m_status->setStyleSheet(error ? QStringLiteral("color: #c01010;") : QString());
}

struct LayerEditor::ColumnMeasure
{
    QFontMetrics fm;
    QFontMetrics boldFm;
    int padding = 0;
    std::array<int, LayerTableModel::ColumnCount> widths {};
    int rows = 0; ///< measured so far
    int deepest = 0;
    int longestPosition = 0;
};

void LayerEditor::measureRows(const QModelIndex& parent, ColumnMeasure& m) const
{
    constexpr int kMaxMeasuredRows = 3000; // beyond that, the columns are wide enough already
    for (int r = 0; r < m_model->rowCount(parent) && m.rows < kMaxMeasuredRows; ++r, ++m.rows) {
        for (int c = LayerTableModel::NameColumn; c < LayerTableModel::ColumnCount; ++c) {
            const QModelIndex i = m_model->index(r, c, parent);
            const QString text = i.data().toString();
            const bool isBold = i.data(Qt::FontRole).value<QFont>().bold();
            const int icon = c == LayerTableModel::NameColumn && !i.data(Qt::DecorationRole).isNull()
                ? m_view->style()->pixelMetric(QStyle::PM_SmallIconSize, nullptr, m_view) + 12
                : 0;
            m.widths[static_cast<std::size_t>(c)] = std::max(m.widths[static_cast<std::size_t>(c)],
                (isBold ? m.boldFm : m.fm).horizontalAdvance(text) + m.padding + icon);
        }
        const QModelIndex child = m_model->index(r, 0, parent);
        int depth = 0;
        QString position = QString::number(r + 1);
        for (QModelIndex up = parent; up.isValid(); up = up.parent(), ++depth)
            position.prepend(QString::number(up.row() + 1) + QLatin1Char('.'));
        m.deepest = std::max(m.deepest, depth);
        m.longestPosition = std::max(m.longestPosition, m.fm.horizontalAdvance(position));
        if (m_model->rowCount(child) > 0)
            measureRows(child, m);
    }
}

bool LayerEditor::anyTrainingText(const QModelIndex& parent) const
{
    for (int r = 0; r < m_model->rowCount(parent); ++r) {
        if (!m_model->index(r, LayerTableModel::TrainingColumn, parent).data().toString().isEmpty())
            return true;
        if (anyTrainingText(m_model->index(r, 0, parent)))
            return true;
    }
    return false;
}

LayerEditor::ColumnMeasure LayerEditor::measureColumns() const
{
    QFont bold = m_view->font();
    bold.setBold(true);
    // The style's text margins in a cell, and a little air.
    const int padding
        = 2 * (m_view->style()->pixelMetric(QStyle::PM_FocusFrameHMargin, nullptr, m_view) + 1) + 6;
    ColumnMeasure m { m_view->fontMetrics(), QFontMetrics(bold), padding };
    for (int c = 0; c < LayerTableModel::ColumnCount; ++c) {
        int header = 0;
        for (const QString& line : m_model->headerData(c, Qt::Horizontal).toString().split(QLatin1Char('\n')))
            header = std::max(header, m.fm.horizontalAdvance(line));
        m.widths[static_cast<std::size_t>(c)] = header + padding + 4;
    }
    // The index column shows positions ("12", "3.4"), painted by the delegate, indented by depth.
    measureRows({}, m);
    return m;
}

void LayerEditor::fitColumns(bool shrink)
{
    auto* header = m_view->header();
    ColumnMeasure m = measureColumns();
    std::array<int, LayerTableModel::ColumnCount>& widths = m.widths;
    // Expand arrows only when there are blocks to expand; room for the deepest row's indentation.
    const bool blocks = m.deepest > 0
        || std::any_of(m_document->network().layers.begin(), m_document->network().layers.end(),
            [](const LayerSpec& l) { return l.isRepeat(); });
    m_view->setRootIsDecorated(blocks);
    widths[LayerTableModel::IndexColumn] = std::max(widths[LayerTableModel::IndexColumn],
        m.longestPosition + m.padding + (blocks ? (m.deepest + 1) * m_view->indentation() : 0));
    // Long names are elided in the middle rather than pushing the numbers out of sight.
    const int maxName = std::max(
        m.fm.horizontalAdvance(QStringLiteral("layer4.1.downsample.0")), m_view->viewport()->width() / 5);
    widths[LayerTableModel::NameColumn] = std::min(widths[LayerTableModel::NameColumn], maxName);
    widths[LayerTableModel::InputsColumn] = std::min(widths[LayerTableModel::InputsColumn], maxName);
    for (int c = 0; c < LayerTableModel::ColumnCount; ++c) {
        const int w = widths[static_cast<std::size_t>(c)];
        if (shrink || w > header->sectionSize(c))
            header->resizeSection(c, w);
    }
    // The Training column appears once a layer is frozen, checkpointed or adapted: empty, it would
    // only push the other columns out of view.
    m_view->setColumnHidden(LayerTableModel::TrainingColumn, !anyTrainingText({}));
}

void LayerEditor::updateActions()
{
    const QModelIndex current = m_view->currentIndex();
    const bool any = current.isValid();
    m_remove->setEnabled(any);
    m_duplicate->setEnabled(any);
    m_wrap->setEnabled(any);
    LayerPath parent;
    int first = 0;
    int count = 0;
    const bool run = selectedRun(parent, first, count);
    m_moveUp->setEnabled(run && first > 0);
    m_moveDown->setEnabled(run && first + count < m_model->rowCount(current.parent()));
    m_checkpoint->setEnabled(run && parent.isEmpty());
    m_freeze->setEnabled(any);
    const LayerSpec* spec = any ? m_document->spec(currentPath()) : nullptr;
    const QSignalBlocker block(m_freeze);
    m_freeze->setChecked(spec != nullptr && spec->frozen);
}

} // namespace headroom::ui

#pragma once

#include "Document.h"

#include <QWidget>

class QAction;
class QHBoxLayout;
class QLabel;
class QMenu;
class QModelIndex;
class QToolButton;
class QTreeView;

namespace headroom::ui {

class LayerTableModel;

/// The layer table (a tree for Repeat blocks) with its editing actions: add from a categorised
/// menu built from the layer registry, remove, duplicate, move up and down (or drag), and wrap the
/// selection in a residual block; plus a status line about the whole network.
class LayerEditor final : public QWidget
{
    Q_OBJECT

public:
    explicit LayerEditor(Document* document, QWidget* parent = nullptr);

    [[nodiscard]] LayerTableModel* model() const noexcept { return m_model; }
    [[nodiscard]] QTreeView* view() const noexcept { return m_view; }
    [[nodiscard]] QMenu* addLayerMenu() const noexcept { return m_addMenu; }
    /// Remove, duplicate, move up, move down, wrap in residual block, checkpoint selection, freeze.
    [[nodiscard]] QList<QAction*> editActions() const;
    /// What a right-click in the table offers: Add Layer (inserted after the row clicked), Remove,
    /// Duplicate, Checkpoint Selection and Freeze, the same actions as the Layer menu (one undo step each).
    [[nodiscard]] QMenu* contextMenu() const noexcept { return m_contextMenu; }

    /// Inserts a new layer of `type` ("Repeat" for a block) after the current one and selects it.
    void addLayer(const QString& type);
    void selectPath(const LayerPath& path);
    [[nodiscard]] LayerPath currentPath() const;

Q_SIGNALS:
    void currentIndexChanged(const QModelIndex& index);

private:
    /// The Add Layer menu: a submenu per category, then Repeat Block.
    void createAddMenu();
    /// Remove, Duplicate, Move Up/Down, Wrap and Checkpoint, with their shortcuts.
    void createEditActions();
    /// The table's context menu (contextMenu()), shown at a right-click on a row or below the rows.
    void createContextMenu();
    void showContextMenu(const QPoint& position);
    /// Add Layer and a button per edit action.
    [[nodiscard]] QHBoxLayout* createToolbar();
    void createView();
    /// The model's and the selection's changes to the status, the actions and the columns.
    void connectView();
    /// What fitColumns() measures: each column's widest text, and the positions' depth and width.
    struct ColumnMeasure;
    [[nodiscard]] ColumnMeasure measureColumns() const;
    void measureRows(const QModelIndex& parent, ColumnMeasure& m) const;
    /// Whether a row under `parent` shows anything in the Training column.
    [[nodiscard]] bool anyTrainingText(const QModelIndex& parent) const;
    /// The selected run of siblings (those sharing the current row's parent); false if none.
    bool selectedRun(LayerPath& parent, int& first, int& count) const;
    void removeSelected();
    void duplicateSelected();
    void moveSelected(int delta);
    void wrapSelected();
    void checkpointSelected();
    /// Freezes the selected layers (or, when the current one is frozen, unfreezes them): one undo step.
    void freezeSelected(bool frozen);
    void updateActions();
    void updateStatus();
    /// Shows why an edit was refused in the status line until the next change.
    void showRefusal(const QString& reason);
    /// Sizes the columns to their content (header included); `shrink`: also narrower than now (a new
    /// network), else only wider (an edit made a value longer; a column the user resized stays).
    void fitColumns(bool shrink);

    Document* m_document;
    LayerTableModel* m_model;
    QTreeView* m_view;
    QLabel* m_status;
    QMenu* m_addMenu;
    QToolButton* m_addButton;
    QAction* m_remove;
    QAction* m_duplicate;
    QAction* m_moveUp;
    QAction* m_moveDown;
    QAction* m_wrap;
    QAction* m_checkpoint;
    QAction* m_freeze;
    QMenu* m_contextMenu = nullptr;
    bool m_fitOnNextAnalysis = true;
    QString m_refusal;
};

} // namespace headroom::ui

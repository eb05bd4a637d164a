#pragma once

#include "headroom/planner/Planner.h"

#include <QWidget>
#include <vector>

class QAction;
class QLabel;
class QMenu;
class QPoint;
class QSpinBox;
class QTableView;

namespace headroom::ui {

class Document;
class GpuComparisonModel;

/// The comparison with its target: the set-up's own effective batch, or one the user types.
class GpuCompareView final : public QWidget
{
    Q_OBJECT

public:
    GpuCompareView(Document* document, std::vector<Gpu> gpus, QWidget* parent = nullptr);

    [[nodiscard]] GpuComparisonModel* model() const noexcept { return m_model; }
    /// The GPUs compared (the catalogue and the user's own).
    void setGpus(std::vector<Gpu> gpus);
    /// Compares now.
    void refresh();
    [[nodiscard]] QTableView* table() const noexcept { return m_table; }
    /// A right-click on a row offers Use This GPU (as does a double-click on the row).
    [[nodiscard]] QMenu* contextMenu() const noexcept { return m_menu; }
    /// Sets the plan's GPU to the one compared in `row` (one undo step).
    void useGpu(int row);

protected:
    void showEvent(QShowEvent* event) override;

private:
    void planChanged();
    void showContextMenu(const QPoint& position);

    Document* m_document;
    std::vector<Gpu> m_gpus;
    GpuComparisonModel* m_model;
    QSpinBox* m_target;
    QTableView* m_table;
    QLabel* m_status;
    QMenu* m_menu;
    QAction* m_useGpu;
    bool m_stale = true;
};

} // namespace headroom::ui

#pragma once

#include "headroom/planner/Planner.h"

#include <QWidget>
#include <vector>

class QLabel;
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

protected:
    void showEvent(QShowEvent* event) override;

private:
    void planChanged();

    Document* m_document;
    std::vector<Gpu> m_gpus;
    GpuComparisonModel* m_model;
    QSpinBox* m_target;
    QTableView* m_table;
    QLabel* m_status;
    bool m_stale = true;
};

} // namespace headroom::ui

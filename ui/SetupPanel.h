#pragma once

#include "headroom/GpuCatalog.h"

#include <QWidget>

class QComboBox;
class QSpinBox;

namespace headroom::ui {

class Document;
class GpuSelector;

/// The training set-up: GPU (searchable, grouped, or a custom size), optimizer, precision and the
/// framework overhead. Edits become undo commands on the Document.
class SetupPanel final : public QWidget {
    Q_OBJECT

public:
    explicit SetupPanel(Document* document, QWidget* parent = nullptr);

    void setCatalog(const GpuCatalog& catalog);
    [[nodiscard]] const GpuCatalog& catalog() const;
    /// Adds a user-defined GPU to the catalogue and selects it.
    void addCustomGpu(const Gpu& gpu);
    [[nodiscard]] GpuSelector* gpuSelector() const noexcept { return m_gpu; }

Q_SIGNALS:
    void customGpuRequested();

private:
    void refresh();

    Document* m_document;
    GpuSelector* m_gpu;
    QComboBox* m_optimizer;
    QComboBox* m_precision;
    QSpinBox* m_overhead;
};

} // namespace headroom::ui

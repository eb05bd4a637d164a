#pragma once

#include "headroom/setup/GpuCatalog.h"

#include <QComboBox>

class QStandardItemModel;
class QStringListModel;

namespace headroom::ui {

/// A searchable GPU combo box over the catalogue: GPUs grouped under vendor / family headings,
/// type-to-filter (any part of the name or an alias), and a last "Custom..." entry.
class GpuSelector final : public QComboBox
{
    Q_OBJECT

public:
    enum Role { GpuIndexRole = Qt::UserRole + 1, KindRole };
    enum Kind { GpuItem, HeaderItem, CustomItem };

    explicit GpuSelector(QWidget* parent = nullptr);

    void setCatalog(const GpuCatalog& catalog);
    [[nodiscard]] const GpuCatalog& catalog() const noexcept { return m_catalog; }
    /// Shows `gpu` as the current one (without emitting gpuSelected).
    void setCurrentGpu(const Gpu& gpu);
    /// Selects the GPU the core's catalogue finds for `query` ("GTX 1080", "4090"); false if none.
    bool selectByQuery(const QString& query);
    [[nodiscard]] static QString itemText(const Gpu& gpu);

Q_SIGNALS:
    void gpuSelected(const headroom::Gpu& gpu);
    void customRequested();
    /// Typed text that names no GPU was put back to the current one.
    void notFound(const QString& query);

private:
    void onActivated(int index);
    void revert();
    [[nodiscard]] int rowOf(const std::string& name) const;

    GpuCatalog m_catalog;
    QStandardItemModel* m_items;
    QStringListModel* m_names;
    Gpu m_current;
};

} // namespace headroom::ui

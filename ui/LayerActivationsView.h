#pragma once

#include "ChartData.h"

#include <QList>
#include <QStringList>
#include <QWidget>
#include <cstdint>
#include <vector>

class QLabel;
class QTreeWidget;

namespace headroom::ui {

/// "Activations per layer": every layer that keeps activations for the backward pass, in network
/// order, as a scrolling list with a bar per layer; names elided in the middle so both ends read,
/// full details in each row's tooltip, the heaviest layers highlighted and a legend saying so. A
/// header click sorts by any column.
class LayerActivationsView final : public QWidget
{
    Q_OBJECT

public:
    static constexpr int kHighlighted = 3; ///< the heaviest layers drawn in the highlight colour

    explicit LayerActivationsView(QWidget* parent = nullptr);

    void setLayers(const std::vector<ChartData::LayerBar>& layers);

    // What is shown, in network order (for tests).
    [[nodiscard]] QStringList names() const;
    [[nodiscard]] QList<std::uint64_t> bytes() const;
    /// The names of the highlighted (heaviest) layers.
    [[nodiscard]] QStringList highlighted() const;
    [[nodiscard]] QTreeWidget* list() const noexcept { return m_list; }
    [[nodiscard]] QString legendText() const;

private:
    QLabel* m_legend;
    QTreeWidget* m_list;
};

} // namespace headroom::ui

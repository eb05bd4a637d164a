#include "LayerActivationsView.h"

#include "ComponentColors.h"
#include "PlanText.h" // report/
#include "QtText.h"
#include "UiText.h"

#include <QHeaderView>
#include <QLabel>
#include <QPainter>
#include <QStyledItemDelegate>
#include <QTreeWidget>
#include <QVBoxLayout>
#include <algorithm>
#include <numeric>

namespace headroom::ui {

namespace {

enum Column { NameColumn, TypeColumn, BytesColumn, BarColumn, ColumnCount };
constexpr int kBytesRole = Qt::UserRole; ///< qulonglong bytes per sample
constexpr int kOrderRole = Qt::UserRole + 1; ///< position in the network
constexpr int kHighlightRole = Qt::UserRole + 2; ///< one of the heaviest
constexpr int kFractionRole = Qt::UserRole + 3; ///< of the heaviest layer's bytes

QColor heavyColor()
{
    return { 0xe1, 0x57, 0x59 };
}
QColor barColor()
{
    return ComponentColors::color(Component::Activations);
}

/// Sorts by the clicked column: numbers by value, names and types by text, ties in network order.
class LayerItem final : public QTreeWidgetItem
{
public:
    using QTreeWidgetItem::QTreeWidgetItem;
    bool operator<(const QTreeWidgetItem& other) const override
    {
        const int column = treeWidget() != nullptr ? treeWidget()->sortColumn() : BytesColumn;
        const auto order = [](const QTreeWidgetItem& i) { return i.data(0, kOrderRole).toInt(); };
        if (column == BytesColumn || column == BarColumn) {
            const auto a = data(0, kBytesRole).toULongLong();
            const auto b = other.data(0, kBytesRole).toULongLong();
            return a != b ? a < b : order(*this) > order(other);
        }
        const int byText = text(column).localeAwareCompare(other.text(column));
        return byText != 0 ? byText < 0 : order(*this) < order(other);
    }
};

/// The bar column: a bar as long as the layer's share of the heaviest layer.
class BarDelegate final : public QStyledItemDelegate
{
public:
    using QStyledItemDelegate::QStyledItemDelegate;

    void paint(QPainter* painter, const QStyleOptionViewItem& option, const QModelIndex& index) const override
    {
        QStyledItemDelegate::paint(painter, option, index); // the background: selection, alternate rows
        const double fraction = std::clamp(index.siblingAtColumn(0).data(kFractionRole).toDouble(), 0.0, 1.0);
        const QRect area = option.rect.adjusted(3, 3, -3, -3);
        QColor colour = index.siblingAtColumn(0).data(kHighlightRole).toBool() ? heavyColor() : barColor();
        colour.setAlpha(200);
        painter->fillRect(QRectF(area.left(), area.top(), area.width() * fraction, area.height()), colour);
    }
};

QString swatch(const QColor& c)
{
    return QStringLiteral("<span style=\"color:%1\">■</span>").arg(c.name());
}

} // namespace

LayerActivationsView::LayerActivationsView(QWidget* parent)
    : QWidget(parent)
{
    m_legend = new QLabel(this);
    m_legend->setObjectName(QStringLiteral("layerActivationsLegendLabel"));
    m_legend->setWordWrap(true);
    m_legend->setTextFormat(Qt::RichText);

    m_list = new QTreeWidget(this);
    m_list->setObjectName(QStringLiteral("layerActivationsTreeWidget"));
    m_list->setColumnCount(ColumnCount);
    m_list->setHeaderLabels({ tr("Layer"), tr("Type"), tr("Activations / sample"), QString() });
    m_list->setRootIsDecorated(false);
    m_list->setUniformRowHeights(true);
    m_list->setAlternatingRowColors(true);
    m_list->setTextElideMode(Qt::ElideMiddle);
    m_list->setSortingEnabled(true);
    m_list->sortByColumn(-1, Qt::AscendingOrder); // network order until a header is clicked
    m_list->setItemDelegateForColumn(BarColumn, new BarDelegate(m_list));
    m_list->setSelectionMode(QAbstractItemView::SingleSelection);
    auto* header = m_list->header();
    header->setStretchLastSection(true);
    header->setSectionResizeMode(NameColumn, QHeaderView::Interactive);
    header->setSectionResizeMode(TypeColumn, QHeaderView::ResizeToContents);
    header->setSectionResizeMode(BytesColumn, QHeaderView::ResizeToContents);
    header->setToolTip(tr("Click a column to sort by it"));

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->setSpacing(4);
    layout->addWidget(m_legend);
    layout->addWidget(m_list, 1);
    setLayers({});
}

QString LayerActivationsView::legendText() const
{
    return m_legend->text();
}

void LayerActivationsView::setLayers(const std::vector<ChartData::LayerBar>& layers)
{
    std::vector<std::size_t> heaviest(layers.size());
    std::iota(heaviest.begin(), heaviest.end(), 0);
    std::stable_sort(heaviest.begin(), heaviest.end(),
        [&](auto a, auto b) { return layers[a].bytesPerSample > layers[b].bytesPerSample; });
    heaviest.resize(std::min<std::size_t>(heaviest.size(), kHighlighted));
    const std::uint64_t top = heaviest.empty() ? 0 : layers[heaviest.front()].bytesPerSample;
    const std::uint64_t total = std::accumulate(layers.begin(), layers.end(), std::uint64_t { 0 },
        [](std::uint64_t sum, const auto& l) { return sum + l.bytesPerSample; });

    const int sortColumn = m_list->sortColumn();
    const Qt::SortOrder sortOrder = m_list->header()->sortIndicatorOrder();
    m_list->setSortingEnabled(false);
    m_list->clear();
    QList<QTreeWidgetItem*> items;
    for (std::size_t i = 0; i < layers.size(); ++i) {
        const auto& layer = layers[i];
        auto* item = new LayerItem;
        const bool heavy = std::find(heaviest.begin(), heaviest.end(), i) != heaviest.end();
        item->setText(NameColumn, layer.name);
        item->setText(TypeColumn, layer.type);
        item->setText(BytesColumn, UiText::bytes(layer.bytesPerSample));
        item->setData(0, kBytesRole, QVariant::fromValue<qulonglong>(layer.bytesPerSample));
        item->setData(0, kOrderRole, static_cast<int>(i));
        item->setData(0, kHighlightRole, heavy);
        item->setData(0, kFractionRole,
            top > 0 ? static_cast<double>(layer.bytesPerSample) / static_cast<double>(top) : 0.0);
        item->setTextAlignment(BytesColumn, Qt::AlignRight | Qt::AlignVCenter);
        const QString tip
            = tr("%1 (%2): keeps %3 per sample for the backward pass, %4 of all activations")
                  .arg(layer.name, layer.type, UiText::bytes(layer.bytesPerSample),
                      qs(report::plantext::percentText(
                          static_cast<double>(layer.bytesPerSample), static_cast<double>(total))));
        for (int c = 0; c < ColumnCount; ++c)
            item->setToolTip(c, tip);
        items << item;
    }
    m_list->addTopLevelItems(items);
    m_list->setSortingEnabled(true);
    m_list->sortByColumn(sortColumn, sortOrder);
    if (m_list->header()->sectionSize(NameColumn) < 40 || layers.empty())
        m_list->header()->resizeSection(NameColumn,
            m_list->fontMetrics().horizontalAdvance(QStringLiteral("layer4.2.downsample.0")) + 16);

    if (layers.empty()) {
        m_legend->setText(tr("No layer keeps activations for the backward pass."));
        return;
    }
    const int shown = static_cast<int>(heaviest.size());
    m_legend->setText(
        tr("Memory each of the %1 layers keeps per sample for the backward pass (%2 in all). %3 the %n "
           "heaviest  %4 the others. Click a column to sort.",
            nullptr, shown)
            .arg(layers.size())
            .arg(UiText::bytes(total), swatch(heavyColor()), swatch(barColor())));
}

QStringList LayerActivationsView::names() const
{
    QStringList out(m_list->topLevelItemCount());
    for (int i = 0; i < m_list->topLevelItemCount(); ++i) {
        const auto* item = m_list->topLevelItem(i);
        out[item->data(0, kOrderRole).toInt()] = item->text(NameColumn);
    }
    return out;
}

QList<std::uint64_t> LayerActivationsView::bytes() const
{
    QList<std::uint64_t> out(m_list->topLevelItemCount());
    for (int i = 0; i < m_list->topLevelItemCount(); ++i) {
        const auto* item = m_list->topLevelItem(i);
        out[item->data(0, kOrderRole).toInt()] = item->data(0, kBytesRole).toULongLong();
    }
    return out;
}

QStringList LayerActivationsView::highlighted() const
{
    QStringList out;
    for (int i = 0; i < m_list->topLevelItemCount(); ++i) {
        if (m_list->topLevelItem(i)->data(0, kHighlightRole).toBool())
            out << m_list->topLevelItem(i)->text(NameColumn);
    }
    return out;
}

} // namespace headroom::ui

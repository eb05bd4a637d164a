#include "FlowLayout.h"

#include <QWidget>
#include <algorithm>

namespace headroom::ui {

namespace {
/// A widget's own size hint (a layout item may still hold one from before its text changed).
QSize hintOf(const QLayoutItem* item)
{
    return item->widget() != nullptr ? item->widget()->sizeHint() : item->sizeHint();
}
} // namespace

FlowLayout::FlowLayout(QWidget* parent, int horizontalSpacing, int verticalSpacing)
    : QLayout(parent)
    , m_horizontalSpacing { horizontalSpacing }
    , m_verticalSpacing { verticalSpacing }
{
    setContentsMargins(0, 0, 0, 0);
}

FlowLayout::~FlowLayout()
{
    while (QLayoutItem* item = takeAt(0))
        delete item;
}

void FlowLayout::addItem(QLayoutItem* item)
{
    m_items.append(item);
}

int FlowLayout::count() const
{
    return static_cast<int>(m_items.size());
}

QLayoutItem* FlowLayout::itemAt(int index) const
{
    return index >= 0 && index < m_items.size() ? m_items[index] : nullptr;
}

QLayoutItem* FlowLayout::takeAt(int index)
{
    return index >= 0 && index < m_items.size() ? m_items.takeAt(index) : nullptr;
}

Qt::Orientations FlowLayout::expandingDirections() const
{
    return {};
}

bool FlowLayout::hasHeightForWidth() const
{
    return true;
}

int FlowLayout::heightForWidth(int width) const
{
    return arrange(QRect(0, 0, width, 0), false);
}

void FlowLayout::setGeometry(const QRect& rect)
{
    QLayout::setGeometry(rect);
    arrange(rect, true);
}

QSize FlowLayout::sizeHint() const
{
    // Everything on one line.
    int width = 0;
    int height = 0;
    int shown = 0;
    for (const QLayoutItem* item : m_items) {
        if (item->isEmpty())
            continue;
        width += hintOf(item).width() + (shown++ > 0 ? m_horizontalSpacing : 0);
        height = std::max(height, hintOf(item).height());
    }
    const QMargins m = contentsMargins();
    return QSize(width + m.left() + m.right(), height + m.top() + m.bottom());
}

QSize FlowLayout::minimumSize() const
{
    // The widest single item: narrower than that, something would be cut.
    QSize size;
    for (const QLayoutItem* item : m_items) {
        if (!item->isEmpty())
            size = size.expandedTo(item->minimumSize());
    }
    const QMargins m = contentsMargins();
    return size + QSize(m.left() + m.right(), m.top() + m.bottom());
}

int FlowLayout::arrange(const QRect& rect, bool place) const
{
    const QMargins m = contentsMargins();
    const QRect area = rect.adjusted(m.left(), m.top(), -m.right(), -m.bottom());
    int x = area.x();
    int y = area.y();
    int lineHeight = 0;
    // Items of one line share a baseline: each is centred on the line's height.
    QList<QPair<QLayoutItem*, QPoint>> line;
    const auto finishLine = [&] {
        for (const auto& [item, at] : line) {
            const QSize hint = hintOf(item);
            if (place)
                item->setGeometry(QRect(QPoint(at.x(), at.y() + (lineHeight - hint.height()) / 2), hint));
        }
        line.clear();
    };
    for (QLayoutItem* item : m_items) {
        if (item->isEmpty())
            continue;
        const QSize hint = hintOf(item);
        if (!line.isEmpty() && x + hint.width() > area.right() + 1) {
            finishLine();
            x = area.x();
            y += lineHeight + m_verticalSpacing;
            lineHeight = 0;
        }
        line.append({ item, QPoint(x, y) });
        x += hint.width() + m_horizontalSpacing;
        lineHeight = std::max(lineHeight, hint.height());
    }
    finishLine();
    return y + lineHeight - rect.y() + m.bottom();
}

} // namespace headroom::ui

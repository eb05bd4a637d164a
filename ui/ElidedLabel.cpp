#include "ElidedLabel.h"

#include <QMouseEvent>
#include <QResizeEvent>

namespace headroom::ui {

ElidedLabel::ElidedLabel(QWidget* parent)
    : QLabel(parent)
{
    setWordWrap(false);
    setTextFormat(Qt::PlainText);
}

void ElidedLabel::setFullText(const QString& text)
{
    m_full = text;
    elide();
    updateGeometry();
}

void ElidedLabel::setExpanded(bool expanded)
{
    if (expanded == m_expanded)
        return;
    m_expanded = expanded;
    setWordWrap(expanded);
    elide();
    updateGeometry();
}

QSize ElidedLabel::minimumSizeHint() const
{
    if (m_expanded)
        return QLabel::minimumSizeHint();
    // As narrow as a few characters: the text elides instead of widening the window.
    const int lines = static_cast<int>(m_full.count(QLatin1Char('\n'))) + 1;
    return { fontMetrics().horizontalAdvance(QStringLiteral("Abc…")), lines * fontMetrics().lineSpacing() };
}

QSize ElidedLabel::sizeHint() const
{
    if (m_expanded)
        return QLabel::sizeHint();
    int width = 0;
    for (const QString& line : m_full.split(QLatin1Char('\n')))
        width = std::max(width, fontMetrics().horizontalAdvance(line));
    return { width, minimumSizeHint().height() };
}

void ElidedLabel::resizeEvent(QResizeEvent* event)
{
    QLabel::resizeEvent(event);
    if (!m_expanded)
        elide();
}

void ElidedLabel::mouseReleaseEvent(QMouseEvent* event)
{
    QLabel::mouseReleaseEvent(event);
    if (event->button() == Qt::LeftButton && (m_elided || m_expanded))
        setExpanded(!m_expanded);
}

void ElidedLabel::elide()
{
    if (m_expanded) {
        m_elided = false;
        setText(m_full);
        setToolTip(tr("Click to show one line each"));
        setCursor(Qt::PointingHandCursor);
        return;
    }
    QStringList lines;
    m_elided = false;
    for (const QString& line : m_full.split(QLatin1Char('\n'))) {
        const QString shown = fontMetrics().elidedText(line, Qt::ElideRight, contentsRect().width());
        m_elided = m_elided || shown != line;
        lines << shown;
    }
    setText(lines.join(QLatin1Char('\n')));
    setToolTip(m_elided ? m_full + QStringLiteral("\n\n") + tr("Click to show in full") : QString());
    if (m_elided)
        setCursor(Qt::PointingHandCursor);
    else
        unsetCursor();
}

} // namespace headroom::ui

#include "ElidedLabel.h"

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

QSize ElidedLabel::minimumSizeHint() const
{
    // As narrow as a few characters: the text elides instead of widening the window.
    const int lines = static_cast<int>(m_full.count(QLatin1Char('\n'))) + 1;
    return { fontMetrics().horizontalAdvance(QStringLiteral("Abc…")), lines * fontMetrics().lineSpacing() };
}

QSize ElidedLabel::sizeHint() const
{
    int width = 0;
    for (const QString& line : m_full.split(QLatin1Char('\n')))
        width = std::max(width, fontMetrics().horizontalAdvance(line));
    return { width, minimumSizeHint().height() };
}

void ElidedLabel::resizeEvent(QResizeEvent* event)
{
    QLabel::resizeEvent(event);
    elide();
}

void ElidedLabel::elide()
{
    QStringList lines;
    m_elided = false;
    for (const QString& line : m_full.split(QLatin1Char('\n'))) {
        const QString shown = fontMetrics().elidedText(line, Qt::ElideRight, contentsRect().width());
        m_elided = m_elided || shown != line;
        lines << shown;
    }
    setText(lines.join(QLatin1Char('\n')));
    setToolTip(m_elided ? m_full : QString());
}

} // namespace headroom::ui

#include "ReportCanvas.h"

#include <QPagedPaintDevice>
#include <QPainter>
#include <QPen>
#include <QTextLayout>
#include <algorithm>
#include <utility>

namespace headroom::report {

using style::FontRole;

namespace {

constexpr double kLineSpacingFactor = 1.18;

void layoutParagraph(QTextLayout& layout, double width, qsizetype boldPrefix)
{
    QTextOption option;
    option.setWrapMode(QTextOption::WrapAtWordBoundaryOrAnywhere);
    layout.setTextOption(option);
    if (boldPrefix > 0) {
        QTextLayout::FormatRange bold;
        bold.start = 0;
        bold.length = static_cast<int>(boldPrefix);
        bold.format.setFontWeight(QFont::Bold);
        layout.setFormats({ bold });
    }
    layout.beginLayout();
    for (QTextLine line = layout.createLine(); line.isValid(); line = layout.createLine()) {
        line.setLineWidth(width);
        line.setPosition(QPointF { 0, 0 }); // each line is drawn at its own place, possibly on another page
    }
    layout.endLayout();
}

} // namespace

ReportCanvas::ReportCanvas(QPagedPaintDevice& device, QPainter* painter, int pageCount, QString footerText)
    : m_device { device }
    , m_painter { painter }
    , m_pageCount { pageCount }
    , m_footerText { std::move(footerText) }
    , m_unit { device.logicalDpiY() / 72.0 }
    , m_width { static_cast<double>(device.width()) }
{
    m_footerTop = device.height() - pt(style::kFooterHeightPt);
    m_bottom = m_footerTop - pt(6);
}

void ReportCanvas::ensureSpace(double height)
{
    if (height > remaining() && !atPageTop())
        newPage();
}

void ReportCanvas::newPage()
{
    drawFooter();
    if (m_painter && !m_device.newPage())
        m_pageRefused = true;
    ++m_page;
    m_y = 0;
}

bool ReportCanvas::finish()
{
    drawFooter();
    return !m_pageRefused;
}

QFontMetricsF ReportCanvas::metrics(FontRole role) const
{
    return QFontMetricsF { style::font(role), &m_device };
}

void ReportCanvas::text(const QRectF& rect, int alignment, const QString& text, FontRole role,
    const QColor& color, bool shrinkToFit, Qt::TextElideMode elide) const
{
    if (!m_painter)
        return;
    QFont font = style::font(role);
    if (shrinkToFit) {
        const double needed = QFontMetricsF { font, &m_device }.horizontalAdvance(text);
        if (needed > rect.width())
            font.setPointSizeF(font.pointSizeF()
                * std::max(0.8, 0.97 * rect.width() / needed)); // sizes are not exactly linear
    }
    const QString shown = QFontMetricsF { font, &m_device }.elidedText(text, elide, rect.width());
    m_painter->setFont(font);
    m_painter->setPen(color);
    m_painter->drawText(rect, alignment | Qt::TextSingleLine, shown);
}

void ReportCanvas::fillRect(const QRectF& rect, const QColor& color) const
{
    if (m_painter)
        m_painter->fillRect(rect, color);
}

void ReportCanvas::line(const QPointF& from, const QPointF& to, const QPen& pen) const
{
    if (!m_painter)
        return;
    m_painter->setPen(pen);
    m_painter->drawLine(from, to);
}

double ReportCanvas::paragraphHeight(
    const QString& text, FontRole role, double width, qsizetype boldPrefix) const
{
    QTextLayout layout { text, style::font(role), &m_device };
    layoutParagraph(layout, width, boldPrefix);
    double height = 0;
    for (int i = 0; i < layout.lineCount(); ++i)
        height += lineStep(layout.lineAt(i), role);
    return height;
}

double ReportCanvas::lineHeight(FontRole role) const
{
    return metrics(role).lineSpacing() * kLineSpacingFactor;
}

double ReportCanvas::lineStep(const QTextLine& line, FontRole role) const
{
    // A fallback font (CJK, say) may reach deeper than the report's font: make room below.
    return lineHeight(role) + std::max(0.0, line.descent() - metrics(role).descent());
}

void ReportCanvas::paragraph(
    const QString& text, FontRole role, const QColor& color, double indent, qsizetype boldPrefix)
{
    QTextLayout layout { text, style::font(role), &m_device };
    layoutParagraph(layout, m_width - indent, boldPrefix);
    const double ascent = metrics(role).ascent();
    for (int i = 0; i < layout.lineCount(); ++i) {
        const QTextLine line = layout.lineAt(i);
        const double step = lineStep(line, role);
        ensureSpace(step);
        if (m_painter) {
            m_painter->setPen(color);
            // Baselines sit where the report's font puts them, whatever fallback font a line uses, so a
            // value lines up with its key.
            line.draw(m_painter, QPointF { indent, m_y + ascent - line.ascent() });
        }
        m_y += step;
    }
}

void ReportCanvas::heading(const QString& text, double keepWithNext)
{
    const double height = metrics(FontRole::Heading).height();
    ensureSpace(pt(10) + height + pt(6) + keepWithNext);
    if (!atPageTop())
        m_y += pt(10);
    this->text(QRectF { 0, m_y, m_width, height }, Qt::AlignLeft | Qt::AlignVCenter, text, FontRole::Heading,
        style::kText);
    m_y += height + pt(2);
    line(QPointF { 0, m_y }, QPointF { m_width, m_y }, QPen { style::kRule, pt(0.6) });
    m_y += pt(6);
}

void ReportCanvas::drawFooter() const
{
    if (!m_painter)
        return;
    const double ruleY = m_footerTop + pt(4);
    line(QPointF { 0, ruleY }, QPointF { m_width, ruleY }, QPen { style::kRule, pt(0.5) });
    const double height = metrics(FontRole::Small).height();
    const QString pageText = tr("Page %1 of %2").arg(m_page).arg(m_pageCount);
    const double pageWidth = metrics(FontRole::Small).horizontalAdvance(pageText) + pt(2);
    const QRectF band { 0, ruleY + pt(4), m_width, height };
    text(band.adjusted(0, 0, -pageWidth - pt(12), 0), Qt::AlignLeft | Qt::AlignVCenter, m_footerText,
        FontRole::Small, style::kMuted);
    text(band, Qt::AlignRight | Qt::AlignVCenter, pageText, FontRole::Small, style::kMuted);
}

} // namespace headroom::report

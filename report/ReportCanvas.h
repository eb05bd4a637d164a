#pragma once

#include "ReportStyle.h"

#include <QColor>
#include <QCoreApplication>
#include <QFont>
#include <QFontMetricsF>
#include <QRectF>
#include <QString>

class QPagedPaintDevice;
class QPainter;
class QPen;
class QTextLine;

namespace headroom::report {

/// A flowing page layout over a QPdfWriter: a vertical cursor on the current page, page breaks,
/// wrapped paragraphs and the "Page N of M" footer. The report is laid out twice through the same
/// code: first without a painter (a measuring pass that only counts pages), then with one, knowing
/// the page count. Drawing calls do nothing in the measuring pass; measuring calls work in both.
///
/// Coordinates are the device's (origin at the top-left of the printable area, inside the margins);
/// pt() converts typographic points to them.
class ReportCanvas final
{
    Q_DECLARE_TR_FUNCTIONS(headroom::report::ReportCanvas)

public:
    /// `painter` null: measuring pass. `pageCount`: the total for the footer (ignored when measuring).
    ReportCanvas(QPagedPaintDevice& device, QPainter* painter, int pageCount, QString footerText);

    [[nodiscard]] double pt(double points) const noexcept { return points * m_unit; }
    [[nodiscard]] double width() const noexcept { return m_width; }
    /// The cursor: where the next block starts on the current page.
    [[nodiscard]] double y() const noexcept { return m_y; }
    void advance(double dy) noexcept { m_y += dy; }
    /// Height left above the footer on the current page.
    [[nodiscard]] double remaining() const noexcept { return m_bottom - m_y; }
    [[nodiscard]] bool atPageTop() const noexcept { return m_y <= 0; }
    /// Starts a new page unless `height` fits below the cursor (or the page is still empty).
    void ensureSpace(double height);
    void newPage();
    /// Closes the last page (draws its footer). Returns false if the device refused a page.
    [[nodiscard]] bool finish();
    /// 1-based number of the current page; after finish(), the page count.
    [[nodiscard]] int page() const noexcept { return m_page; }

    [[nodiscard]] bool measuring() const noexcept { return m_painter == nullptr; }
    /// The painter, or null in the measuring pass.
    [[nodiscard]] QPainter* painter() const noexcept { return m_painter; }
    [[nodiscard]] QFontMetricsF metrics(style::FontRole role) const;
    /// The distance between the baselines of a paragraph's lines.
    [[nodiscard]] double lineHeight(style::FontRole role) const;

    /// Single-line text in `rect`. Text that does not fit is set up to a fifth smaller when
    /// `shrinkToFit` (a table cell), and elided (`elide`: on the right unless said) if it still does not.
    void text(const QRectF& rect, int alignment, const QString& text, style::FontRole role,
        const QColor& color, bool shrinkToFit = false, Qt::TextElideMode elide = Qt::ElideRight) const;
    void fillRect(const QRectF& rect, const QColor& color) const;
    void line(const QPointF& from, const QPointF& to, const QPen& pen) const;

    /// Height of `text` wrapped to `width` (words first, anywhere for a word longer than a line).
    [[nodiscard]] double paragraphHeight(
        const QString& text, style::FontRole role, double width, qsizetype boldPrefix = 0) const;
    /// A wrapped paragraph at the cursor, `indent` from the left; breaks between lines across pages
    /// and advances the cursor past it. The first `boldPrefix` characters are set in bold.
    void paragraph(const QString& text, style::FontRole role, const QColor& color, double indent = 0,
        qsizetype boldPrefix = 0);
    /// A section heading kept on the same page as the next `keepWithNext` height.
    void heading(const QString& text, double keepWithNext);

private:
    void drawFooter() const;
    [[nodiscard]] double lineStep(const QTextLine& line, style::FontRole role) const;

    QPagedPaintDevice& m_device;
    QPainter* m_painter;
    int m_pageCount;
    QString m_footerText;
    double m_unit = 1;
    double m_width = 0;
    double m_bottom = 0; ///< content bottom: the printable height minus the footer band
    double m_footerTop = 0;
    double m_y = 0;
    int m_page = 1;
    bool m_pageRefused = false;
};

} // namespace headroom::report

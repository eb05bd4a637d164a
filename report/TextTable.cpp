#include "TextTable.h"

#include "ReportCanvas.h"

#include <algorithm>

namespace headroom::report {

using style::FontRole;

double TextTable::rowHeight(const ReportCanvas& canvas)
{
    return canvas.lineHeight(FontRole::Small) * 1.35;
}

std::vector<double> TextTable::naturalWidths(const ReportCanvas& canvas, FontRole bodyRole) const
{
    const QFontMetricsF cellFont = canvas.metrics(bodyRole);
    const QFontMetricsF bold = canvas.metrics(FontRole::SmallBold);
    const double padding = canvas.pt(2);
    std::vector<double> widths(header.size());
    for (std::size_t i = 0; i < header.size(); ++i) {
        widths[i] = bold.horizontalAdvance(header[i]);
        for (const auto& cells : body)
            widths[i] = std::max(widths[i], cellFont.horizontalAdvance(cells[i]));
        widths[i] += 2 * padding + canvas.pt(1);
    }
    return widths;
}

double TextTable::fillRest(std::vector<double>& widths, std::size_t column, double total, double least)
{
    double others = 0;
    for (std::size_t i = 0; i < widths.size(); ++i)
        if (i != column)
            others += widths[i];
    widths[column] = std::max(total - others, least);
    return others;
}

void TextTable::paint(ReportCanvas& canvas, const std::vector<double>& widths) const
{
    const double padding = canvas.pt(2);
    const double rowH = rowHeight(canvas);
    const auto row = [&](const std::vector<QString>& cells, FontRole role, const QColor* background) {
        canvas.ensureSpace(rowH);
        if (background)
            canvas.fillRect(QRectF { 0, canvas.y(), canvas.width(), rowH }, *background);
        double x = 0;
        for (std::size_t i = 0; i < header.size(); ++i) {
            canvas.text(QRectF { x + padding, canvas.y(), widths[i] - 2 * padding, rowH },
                alignments[i] | Qt::AlignVCenter, cells[i], role, style::kText, true);
            x += widths[i];
        }
        canvas.advance(rowH);
    };
    row(header, FontRole::SmallBold, &style::kTableHeader);
    for (std::size_t i = 0; i < body.size(); ++i)
        row(body[i], i < boldRows.size() && boldRows[i] ? FontRole::SmallBold : FontRole::Small,
            i % 2 == 1 ? &style::kStripe : nullptr);
}

} // namespace headroom::report

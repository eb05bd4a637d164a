#pragma once

#include "ReportStyle.h"

#include <QString>
#include <cstddef>
#include <vector>

namespace headroom::report {

class ReportCanvas;

/// The report's tables of text (the planner's set-ups, the pipeline stages, the cluster's layouts, the
/// measured run's phases and components): the header in bold on its colour, then the body, every other
/// row striped. A cell is one line inside a padding; text too wide for it is set up to a fifth smaller,
/// then elided (ReportCanvas::text). How wide each column is, each table decides from naturalWidths().
struct TextTable final
{
    std::vector<QString> header;
    std::vector<std::vector<QString>> body; ///< each row's cells, one per column
    std::vector<int> alignments; ///< each column's: Qt::AlignLeft, Qt::AlignRight or Qt::AlignCenter
    std::vector<bool> boldRows; ///< the body rows set in bold (none when shorter than the body)

    /// The height of one row.
    [[nodiscard]] static double rowHeight(const ReportCanvas& canvas);
    /// Each column as wide as its widest text plus the padding: the header measured in bold, the body in
    /// `bodyRole`.
    [[nodiscard]] std::vector<double> naturalWidths(
        const ReportCanvas& canvas, style::FontRole bodyRole = style::FontRole::Small) const;
    /// Widens or narrows `column` to what the other columns leave of `total`, but to no less than `least`.
    /// Returns the other columns' width.
    static double fillRest(std::vector<double>& widths, std::size_t column, double total, double least);
    /// Paints the table at the cursor, rows of `widths` (from the left), each row kept whole on a page,
    /// and advances the cursor past it.
    void paint(ReportCanvas& canvas, const std::vector<double>& widths) const;
};

} // namespace headroom::report

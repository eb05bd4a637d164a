#pragma once

#include "headroom/analysis/Analysis.h"

#include <QColor>
#include <QCoreApplication>
#include <QString>
#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace headroom::report {

class ReportCanvas;

/// The per-layer table: index, name, type, output shape, parameters and activation memory per
/// sample, one row per layer (Repeat blocks are expanded; their header rows are left out, as in
/// `headroom estimate`), then the loss and the totals. It flows across pages from the canvas's
/// cursor, repeating the column header at the top of every page; invalid layers show their error
/// instead of numbers.
class LayerTablePainter final
{
    Q_DECLARE_TR_FUNCTIONS(headroom::report::LayerTablePainter)

public:
    explicit LayerTablePainter(const Analysis& analysis);

    /// The layers the table numbers (neither Repeat headers nor the loss), as the GUI counts them.
    [[nodiscard]] static std::uint64_t layerCount(const Analysis& analysis);
    /// The height of the column header plus `rows` rows: what a heading keeps with it.
    [[nodiscard]] double headerHeight(const ReportCanvas& canvas) const;
    [[nodiscard]] double rowHeight(const ReportCanvas& canvas) const;
    /// Paints the table at the cursor, breaking pages as needed, and advances the cursor past it.
    void paint(ReportCanvas& canvas) const;

private:
    static constexpr std::size_t kColumnCount = 7;
    /// Left edges and widths of the columns, with padding inside each cell.
    struct Cells final
    {
        std::array<double, kColumnCount> left {};
        std::array<double, kColumnCount> width {};
        double padding = 0;
    };
    /// Each column's widest text (header, rows and totals), before padding.
    [[nodiscard]] std::array<double, kColumnCount> neededWidths(const ReportCanvas& canvas) const;
    [[nodiscard]] Cells cells(const ReportCanvas& canvas) const;
    void paintHeader(ReportCanvas& canvas, const Cells& cells) const;
    /// One cell's text in the row at the cursor (bold: the totals' font).
    static void paintCell(ReportCanvas& canvas, const Cells& c, double rowH, int column, const QString& text,
        bool bold, const QColor& color);
    /// Starts a new page, captioned and with the header, unless `height` fits on this one.
    void reserve(ReportCanvas& canvas, const Cells& c, double height) const;
    /// The last layer's group and the height that must stay on its page (the loss, the totals).
    struct Tail final
    {
        std::size_t lastLayer = 0;
        double height = 0;
    };
    [[nodiscard]] Tail tailOf(
        const std::vector<RowGroup>& groups, double rowH, const ReportCanvas& canvas) const;
    /// One group's row (and an invalid layer's error under it); `index` counts the layers, for the stripes.
    void paintRow(
        ReportCanvas& canvas, const Cells& c, const RowGroup& group, int& index, double keepWith) const;
    void paintTotals(ReportCanvas& canvas, const Cells& c) const;

    const Analysis& m_analysis;
};

} // namespace headroom::report

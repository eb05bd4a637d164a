#pragma once

#include "headroom/Analysis.h"

#include <QCoreApplication>
#include <QString>
#include <array>
#include <cstdint>

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
    /// Left edges and widths of the columns, with padding inside each cell.
    struct Cells final
    {
        std::array<double, 7> left {};
        std::array<double, 7> width {};
        double padding = 0;
    };
    [[nodiscard]] Cells cells(const ReportCanvas& canvas) const;
    void paintHeader(ReportCanvas& canvas, const Cells& cells) const;

    const Analysis& m_analysis;
};

} // namespace headroom::report

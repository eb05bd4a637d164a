#include "LayerTablePainter.h"

#include "PlanText.h"
#include "ReportCanvas.h"
#include "ReportFormatting.h"
#include "ReportStyle.h"
#include "headroom/support/Format.h"

#include <QFontMetricsF>
#include <QPen>
#include <algorithm>
#include <array>

namespace headroom::report {

using detail::qs;

using style::FontRole;

namespace {

/// A layer's name as wide as `width` allows, at the table's size: whole, or its last dotted parts after
/// "…" with the count kept ("…self_attn.q_proj × 28"), or the end of its last part ("…_layernorm × 28"):
/// a deep model's names differ at their ends, and one cut on the right ("model.layers.0.self…") or in the
/// middle ("model.la…roj") tells no row apart.
QString fittedName(const QString& name, const QString& times, const QFontMetricsF& metrics, double width)
{
    const QString whole = name + times;
    if (metrics.horizontalAdvance(whole) <= width)
        return whole;
    for (qsizetype dot = name.indexOf(QLatin1Char('.')); dot >= 0;
         dot = name.indexOf(QLatin1Char('.'), dot + 1)) {
        const QString tail = QStringLiteral("\u2026") + name.mid(dot + 1) + times;
        if (metrics.horizontalAdvance(tail) <= width)
            return tail;
    }
    // Not even the last part fits: its end, cut on the left, then the count.
    const QString last = name.mid(name.lastIndexOf(QLatin1Char('.')) + 1);
    return metrics.elidedText(last, Qt::ElideLeft, width - metrics.horizontalAdvance(times)) + times;
}

enum Column {
    IndexColumn,
    NameColumn,
    TypeColumn,
    ShapeColumn,
    ParamsColumn,
    ActivationsColumn,
    FlopsColumn,
    ColumnCount
};

struct ColumnSpec final
{
    const char* title; ///< '\n' splits a two-line header
    Qt::Alignment alignment;
};

constexpr std::array<ColumnSpec, ColumnCount> kColumns { {
    { "#", Qt::AlignRight },
    { QT_TRANSLATE_NOOP("headroom::report::LayerTablePainter", "Layer"), Qt::AlignLeft },
    { QT_TRANSLATE_NOOP("headroom::report::LayerTablePainter", "Type"), Qt::AlignLeft },
    { QT_TRANSLATE_NOOP("headroom::report::LayerTablePainter", "Output shape"), Qt::AlignLeft },
    { QT_TRANSLATE_NOOP("headroom::report::LayerTablePainter", "Parameters"), Qt::AlignRight },
    { QT_TRANSLATE_NOOP("headroom::report::LayerTablePainter", "Activations\nper sample"), Qt::AlignRight },
    { QT_TRANSLATE_NOOP("headroom::report::LayerTablePainter", "FLOPs\nper sample"), Qt::AlignRight },
} };
/// The layer names take what the other columns leave, but at least this share of the width.
constexpr double kMinNameShare = 0.16;

QString title(int column)
{
    return QCoreApplication::translate(
        "headroom::report::LayerTablePainter", kColumns[static_cast<std::size_t>(column)].title);
}

/// Forward + backward FLOPs of one sample, as the GUI's FLOPs column shows them.
std::string flopsText(std::uint64_t forward, std::uint64_t backward)
{
    return plantext::formatFlops(static_cast<double>(forward) + static_cast<double>(backward));
}

const QString kDash = QStringLiteral("\u2014");

bool isLoss(const LayerRow& row)
{
    return row.specPath == "loss";
}
bool isLayer(const LayerRow& row)
{
    return row.type != "Repeat" && !isLoss(row);
}

/// As the GUI's layer table shows it: "B x 64 x 112 x 112", with the dtype unless float32.
QString shapeText(const TensorInfo& info)
{
    QString s = qs(info.shape.toBatchedString(info.batchAxis));
    if (info.dtype != DType::Float32)
        s += QStringLiteral(" (%1)").arg(qs(std::string(dtypeName(info.dtype))));
    return s;
}

static_assert(ColumnCount == 7, "LayerTablePainter::kColumnCount");

} // namespace

std::array<double, LayerTablePainter::kColumnCount> LayerTablePainter::neededWidths(
    const ReportCanvas& canvas) const
{
    const QFontMetricsF small = canvas.metrics(FontRole::Small);
    const QFontMetricsF bold = canvas.metrics(FontRole::SmallBold);
    std::array<double, ColumnCount> needed {};
    for (int i = 0; i < ColumnCount; ++i) {
        for (const QString& line : title(i).split(QLatin1Char('\n')))
            needed[i] = std::max(needed[i], bold.horizontalAdvance(line));
    }
    for (const auto& row : m_analysis.rows) {
        if (row.type == "Repeat")
            continue;
        needed[IndexColumn]
            = std::max(needed[IndexColumn], small.horizontalAdvance(qs(layerNumber(row.specPath))));
        needed[TypeColumn] = std::max(needed[TypeColumn], small.horizontalAdvance(qs(row.type)));
        if (row.error)
            continue;
        needed[ShapeColumn] = std::max(needed[ShapeColumn], small.horizontalAdvance(shapeText(row.output)));
        needed[ParamsColumn]
            = std::max(needed[ParamsColumn], small.horizontalAdvance(qs(formatCount(row.params))));
        needed[ActivationsColumn] = std::max(needed[ActivationsColumn],
            small.horizontalAdvance(qs(formatBytes(row.activationBytesPerSample))));
        needed[FlopsColumn] = std::max(needed[FlopsColumn],
            small.horizontalAdvance(qs(flopsText(row.forwardFlopsPerSample, row.backwardFlopsPerSample))));
    }
    if (m_analysis.valid()) { // the totals, in bold
        needed[ParamsColumn]
            = std::max(needed[ParamsColumn], bold.horizontalAdvance(qs(formatCount(m_analysis.totalParams))));
        needed[ActivationsColumn] = std::max(needed[ActivationsColumn],
            bold.horizontalAdvance(qs(formatBytes(m_analysis.activationBytesPerSample))));
        needed[FlopsColumn] = std::max(needed[FlopsColumn],
            bold.horizontalAdvance(
                qs(flopsText(m_analysis.forwardFlopsPerSample, m_analysis.backwardFlopsPerSample))));
    }
    return needed;
}

LayerTablePainter::Cells LayerTablePainter::cells(const ReportCanvas& canvas) const
{
    // Every column as wide as its widest text (header included), so no type or number is set
    // smaller or cut; the layer names take the rest (and are elided if a name is longer still).
    Cells c;
    c.padding = canvas.pt(3);
    const std::array<double, ColumnCount> needed = neededWidths(canvas);
    double fixed = 0;
    for (int i = 0; i < ColumnCount; ++i) {
        c.width[i] = needed[i] + 2 * c.padding + canvas.pt(1);
        if (i != NameColumn)
            fixed += c.width[i];
    }
    // What is left goes to the names; if that is too little, the other columns give up space in
    // proportion (their text is then set up to a fifth smaller, as ReportCanvas::text does).
    const double nameMin = kMinNameShare * canvas.width();
    if (fixed + nameMin > canvas.width()) {
        const double scale = (canvas.width() - nameMin) / fixed;
        for (int i = 0; i < ColumnCount; ++i) {
            if (i != NameColumn)
                c.width[i] *= scale;
        }
        fixed = canvas.width() - nameMin;
    }
    c.width[NameColumn] = canvas.width() - fixed;
    double x = 0;
    for (int i = 0; i < ColumnCount; ++i) {
        c.left[i] = x;
        x += c.width[i];
    }
    return c;
}

LayerTablePainter::LayerTablePainter(const Analysis& analysis)
    : m_analysis { analysis }
{
}

std::uint64_t LayerTablePainter::layerCount(const Analysis& analysis)
{
    std::uint64_t n = 0;
    for (const auto& row : analysis.rows)
        n += isLayer(row) ? row.count : 0;
    return n;
}

double LayerTablePainter::headerHeight(const ReportCanvas& canvas) const
{
    return 2 * canvas.metrics(FontRole::SmallBold).lineSpacing() + canvas.pt(6);
}

double LayerTablePainter::rowHeight(const ReportCanvas& canvas) const
{
    return canvas.metrics(FontRole::Small).height() + canvas.pt(4.5);
}

void LayerTablePainter::paintHeader(ReportCanvas& canvas, const Cells& c) const
{
    const double h = headerHeight(canvas);
    const double line = canvas.metrics(FontRole::SmallBold).lineSpacing();
    canvas.fillRect(QRectF { 0, canvas.y(), canvas.width(), h }, style::kTableHeader);
    for (int i = 0; i < ColumnCount; ++i) {
        const QStringList lines = title(i).split(QLatin1Char('\n'));
        // Bottom-aligned, so one-line titles sit on the same baseline as the second line of two.
        double y = canvas.y() + h - canvas.pt(3) - line * static_cast<double>(lines.size());
        for (const QString& text : lines) {
            // A narrowed column's title is set smaller before it is cut ("Activatio... per sam...").
            canvas.text(QRectF { c.left[i] + c.padding, y, c.width[i] - 2 * c.padding, line },
                kColumns[i].alignment | Qt::AlignVCenter, text, FontRole::SmallBold, style::kText, true);
            y += line;
        }
    }
    canvas.advance(h);
    canvas.line(QPointF { 0, canvas.y() }, QPointF { canvas.width(), canvas.y() },
        QPen { style::kMuted, canvas.pt(0.6) });
}

void LayerTablePainter::paintCell(ReportCanvas& canvas, const Cells& c, double rowH, int column,
    const QString& text, bool bold, const QColor& color)
{
    canvas.text(QRectF { c.left[column] + c.padding, canvas.y(), c.width[column] - 2 * c.padding, rowH },
        kColumns[column].alignment | Qt::AlignVCenter, text, bold ? FontRole::SmallBold : FontRole::Small,
        color, true);
}

void LayerTablePainter::reserve(ReportCanvas& canvas, const Cells& c, double height) const
{
    // A row that does not fit starts a new page, which opens with a "continued" caption and the header.
    if (height <= canvas.remaining())
        return;
    canvas.newPage();
    const double captionH = canvas.metrics(FontRole::SmallBold).height() + canvas.pt(4);
    canvas.text(QRectF { 0, canvas.y(), canvas.width(), captionH }, Qt::AlignLeft | Qt::AlignTop,
        tr("Layers (continued)"), FontRole::SmallBold, style::kMuted);
    canvas.advance(captionH);
    paintHeader(canvas, c);
}

LayerTablePainter::Tail LayerTablePainter::tailOf(
    const std::vector<RowGroup>& groups, double rowH, const ReportCanvas& canvas) const
{
    // The totals stay with the last layer (and the loss after it): no page holds them without a
    // numbered row.
    Tail tail { groups.size(), m_analysis.valid() ? rowH + canvas.pt(3) : 0 };
    for (std::size_t g = 0; g < groups.size(); ++g) {
        if (isLayer(m_analysis.rows[groups[g].row]))
            tail.lastLayer = g;
    }
    for (std::size_t g = tail.lastLayer + 1; g < groups.size(); ++g) {
        if (m_analysis.rows[groups[g].row].type != "Repeat")
            tail.height += rowH;
    }
    return tail;
}

void LayerTablePainter::paintRow(
    ReportCanvas& canvas, const Cells& c, const RowGroup& group, int& index, double keepWith) const
{
    const double rowH = rowHeight(canvas);
    const LayerRow& row = m_analysis.rows[group.row];
    const bool loss = isLoss(row);
    const QColor ink = loss ? style::kMuted : style::kText;
    // Nested (repeated) layers are indented under their block, as in `headroom estimate`.
    const double indent = canvas.pt(6) * std::clamp(row.depth, 0, 8);
    // An invalid layer's error is wrapped under its row, in full.
    // The message names layers by number and JSON path ("layer 7 (fc, layers[6])"), as the command line does.
    const QString error
        = row.error ? tr("Error: %1").arg(qs(withLayerNumbers(row.error->message))) : QString();
    const double errorLeft = c.left[NameColumn] + c.padding + indent;
    const double errorH = row.error
        ? canvas.paragraphHeight(error, FontRole::Small, canvas.width() - errorLeft) + canvas.pt(2)
        : 0;
    reserve(canvas, c, rowH + errorH + keepWith);
    if (!loss && ++index % 2 == 0)
        canvas.fillRect(QRectF { 0, canvas.y(), canvas.width(), rowH + errorH }, style::kStripe);
    // Numbered as the GUI's tree and `headroom estimate` number it ("17.3": the third layer of the block in
    // row 17). The loss is not a layer: it is listed for its saved tensors, unnumbered.
    if (!loss)
        paintCell(canvas, c, rowH, IndexColumn, qs(layerNumber(row.specPath)), false, style::kMuted);
    const std::string times = group.count > 1 ? " \u00d7 " + formatCount(group.count) : std::string();
    const double nameWidth = c.width[NameColumn] - 2 * c.padding - indent;
    canvas.text(QRectF { c.left[NameColumn] + c.padding + indent, canvas.y(), nameWidth, rowH },
        Qt::AlignLeft | Qt::AlignVCenter,
        fittedName(qs(group.name), qs(times), canvas.metrics(FontRole::Small), nameWidth), FontRole::Small,
        ink, false, Qt::ElideMiddle);
    paintCell(canvas, c, rowH, TypeColumn, qs(row.type), false, ink);
    if (row.error) {
        // No sizes for an invalid layer (or one fed by it): they would be meaningless.
        for (const int column : { ShapeColumn, ParamsColumn, ActivationsColumn, FlopsColumn })
            paintCell(canvas, c, rowH, column, kDash, false, style::kMuted);
        canvas.advance(rowH);
        canvas.paragraph(
            error, FontRole::Small, row.blockedByEarlierError ? style::kMuted : style::kFails, errorLeft);
        canvas.advance(canvas.pt(2));
        return;
    }
    paintCell(canvas, c, rowH, ShapeColumn, loss ? kDash : shapeText(row.output), false, ink);
    paintCell(canvas, c, rowH, ParamsColumn, qs(formatCount(row.params)), false, ink);
    paintCell(canvas, c, rowH, ActivationsColumn, qs(formatBytes(row.activationBytesPerSample)), false, ink);
    paintCell(canvas, c, rowH, FlopsColumn,
        qs(flopsText(row.forwardFlopsPerSample, row.backwardFlopsPerSample)), false, ink);
    canvas.advance(rowH);
}

void LayerTablePainter::paintTotals(ReportCanvas& canvas, const Cells& c) const
{
    const double rowH = rowHeight(canvas);
    reserve(canvas, c, rowH + canvas.pt(3));
    canvas.line(QPointF { 0, canvas.y() }, QPointF { canvas.width(), canvas.y() },
        QPen { style::kMuted, canvas.pt(0.6) });
    canvas.advance(canvas.pt(1));
    paintCell(canvas, c, rowH, NameColumn, tr("Total"), true, style::kText);
    paintCell(canvas, c, rowH, ParamsColumn, qs(formatCount(m_analysis.totalParams)), true, style::kText);
    paintCell(canvas, c, rowH, ActivationsColumn, qs(formatBytes(m_analysis.activationBytesPerSample)), true,
        style::kText);
    paintCell(canvas, c, rowH, FlopsColumn,
        qs(flopsText(m_analysis.forwardFlopsPerSample, m_analysis.backwardFlopsPerSample)), true,
        style::kText);
    canvas.advance(rowH);
}

void LayerTablePainter::paint(ReportCanvas& canvas) const
{
    const Cells c = cells(canvas);
    // Identical iterations of a Repeat block share a line ("b.1–9998.fc × 9,998").
    const std::vector<RowGroup> groups = groupRows(m_analysis);
    const Tail tail = tailOf(groups, rowHeight(canvas), canvas);
    paintHeader(canvas, c);
    int index = 0;
    for (std::size_t g = 0; g < groups.size(); ++g) {
        if (m_analysis.rows[groups[g].row].type == "Repeat")
            continue;
        paintRow(canvas, c, groups[g], index, g == tail.lastLayer ? tail.height : 0);
    }
    if (!m_analysis.valid())
        return; // partial sums of an invalid network would be garbage
    paintTotals(canvas, c);
}

} // namespace headroom::report

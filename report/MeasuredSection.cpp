// ReportComposer's "Plan and measured run" page (ReportOptions::measured): the plan beside a recorded
// run, as `headroom measured RUN --model MODEL` prints it (docs/run-comparison.md).
#include "ComponentColors.h"
#include "CoreText.h" // text/
#include "MeasuredChartPainter.h"
#include "ReportCanvas.h"
#include "ReportComposer.h"
#include "ReportFormatting.h"
#include "ReportStyle.h"
#include "TextTable.h"
#include "headroom/setup/Precision.h"
#include "headroom/support/Format.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace headroom::report {

using namespace detail;
using style::FontRole;

namespace {

/// The unattributed blocks the page lists.
constexpr std::size_t kListedBlocks = 8;

/// "+1.50 MiB (+12.5 %)": measured - predicted.
QString difference(const ByteDifference& d)
{
    if (d.bytes == 0)
        return QStringLiteral("0");
    QString text = qs(formatSignedBytes(d.signedBytes())).replace(QLatin1Char(' '), QChar { 0x00a0 });
    if (d.percent != 0.0)
        text += QStringLiteral(" (%1%2\u00a0%)")
                    .arg(d.percent > 0 ? QStringLiteral("+") : QString())
                    .arg(QString::number(d.percent, 'f', 1));
    return text;
}

/// A table whose first column takes what the others (as wide as their widest cell) leave.
void table(
    ReportCanvas& canvas, const std::vector<QString>& header, const std::vector<std::vector<QString>>& body)
{
    TextTable table { header, body, std::vector<int>(header.size(), Qt::AlignRight), {} };
    table.alignments[0] = Qt::AlignLeft;
    std::vector<double> widths = table.naturalWidths(canvas);
    const double figures = TextTable::fillRest(widths, 0, canvas.width(), widths[0]);
    // Wider than the page: every column narrowed alike (cells then set up to a fifth smaller).
    const double total = widths[0] + figures;
    if (total > canvas.width()) {
        for (auto& w : widths)
            w *= canvas.width() / total;
    }
    table.paint(canvas, widths);
}

/// A list of sentences, one bullet each.
void bullets(ReportCanvas& canvas, const std::vector<QString>& items)
{
    for (const auto& item : items) {
        canvas.ensureSpace(canvas.lineHeight(FontRole::Small));
        canvas.paragraph(QStringLiteral("\u2022 ") + item, FontRole::Small, style::kText, canvas.pt(6));
        canvas.advance(canvas.pt(1));
    }
}

} // namespace

void ReportComposer::measuredSection(ReportCanvas& canvas) const
{
    const MeasuredRunReport& m = *m_options.measured;
    const RunComparison& c = m.comparison;
    if (!canvas.atPageTop()) // a page of its own
        canvas.newPage();
    QString setup
        = tr("The plan beside the run recorded in %1 (%2): compared at batch %3%4, %5%6.")
              .arg(qs(m.source), m.run ? label(runFileKindLabel(m.run->kind)) : QString(), count(c.batch),
                  c.batchAssumed ? tr(" (the plan's: the run's batch was not given)") : QString(),
                  label(precisionLabel(c.precision)),
                  c.precisionAssumed ? tr(" (the plan's: the run's precision was not given)") : QString());
    setup += QLatin1Char(' ')
        + tr("Peak allocated: predicted %1, measured %2, %3. Peak reserved: predicted %4, measured %5, %6. "
             "Differences are measured minus predicted.")
              .arg(bytes(c.predictedPeakAllocated), bytes(c.measuredPeakAllocated),
                  difference(c.peakAllocatedDifference), bytes(c.predictedPeakReserved),
                  bytes(c.measuredPeakReserved), difference(c.peakReservedDifference));
    canvas.heading(
        tr("Plan and measured run"), canvas.paragraphHeight(setup, FontRole::Body, canvas.width()));
    canvas.paragraph(setup, FontRole::Body, style::kText);
    canvas.advance(canvas.pt(6));
    measuredCharts(canvas, m);
    measuredTables(canvas, c);
    measuredLists(canvas, c);
}

void ReportComposer::measuredCharts(ReportCanvas& canvas, const MeasuredRunReport& m) const
{
    const RunComparison& c = m.comparison;
    for (const auto* step : { c.steady ? &*c.steady : nullptr, c.first ? &*c.first : nullptr }) {
        if (step == nullptr)
            continue;
        const MeasuredChartPainter chart { *step };
        const QString heading
            = step->firstStep ? tr("The first step (it creates the optimizer state)") : tr("A steady step");
        const QString caption = tr(
            "Memory over the step's phases, each phase as wide as the other whatever its length: the plan's "
            "replay at batch %1 and the run's step %2. Solid: allocated; dashed: reserved.")
                                    .arg(count(c.batch))
                                    .arg(step->measuredStep + 1);
        captionedChart(
            canvas, heading, caption, { 150, 190 }, [&](const QRectF& rect) { chart.paint(canvas, rect); });
        canvas.advance(canvas.pt(6));
    }
}

void ReportComposer::measuredTables(ReportCanvas& canvas, const RunComparison& c) const
{
    const double rowH = TextTable::rowHeight(canvas);
    if (!c.phases.empty()) {
        std::vector<std::vector<QString>> body;
        for (const auto& p : c.phases) {
            const QString none = tr("not found");
            body.push_back({ MeasuredChartPainter::phaseName(p.phase), bytes(p.predictedAllocated),
                p.measuredFound ? bytes(p.measuredAllocated) : none,
                p.measuredFound ? difference(p.allocatedDifference) : QString(), bytes(p.predictedReserved),
                p.measuredFound ? bytes(p.measuredReserved) : none,
                p.measuredFound ? difference(p.reservedDifference) : QString() });
        }
        canvas.heading(tr("Per phase"), 5 * rowH);
        table(canvas,
            { tr("Phase"), tr("Allocated, predicted"), tr("measured"), tr("difference"),
                tr("Reserved, predicted"), tr("measured"), tr("difference") },
            body);
        canvas.advance(canvas.pt(8));
    }
    std::vector<std::vector<QString>> body;
    for (std::size_t k = 0; k < kRunComponents; ++k) {
        const std::uint64_t predicted = c.predictedComponents[k];
        const std::uint64_t measured = c.measuredComponents[k];
        if (predicted == 0 && (!c.measuredComponentsFound || measured == 0))
            continue;
        body.push_back({ label(runComponentLabel(static_cast<RunComponent>(k))), bytes(predicted),
            c.measuredComponentsFound ? bytes(measured) : QStringLiteral("\u2013"),
            c.measuredComponentsFound ? difference(byteDifference(predicted, measured)) : QString() });
    }
    if (!body.empty()) {
        canvas.heading(tr("Per component, alive at the allocated peak"), 4 * rowH);
        table(canvas, { tr("Component"), tr("Predicted"), tr("Measured"), tr("Difference") }, body);
        canvas.advance(canvas.pt(8));
    }
}

void ReportComposer::measuredLists(ReportCanvas& canvas, const RunComparison& c) const
{
    const double lineH = canvas.lineHeight(FontRole::Small);
    if (!c.unattributed.empty()) {
        std::vector<QString> items;
        for (std::size_t k = 0; k < c.unattributed.size() && k < kListedBlocks; ++k) {
            const auto& u = c.unattributed[k];
            items.push_back(u.sentence.empty() ? bytes(u.bytes) : qs(u.sentence));
        }
        if (c.unattributed.size() > kListedBlocks)
            items.push_back(
                tr("and %1 more blocks")
                    .arg(count(static_cast<std::int64_t>(c.unattributed.size() - kListedBlocks))));
        canvas.heading(tr("Not attributed to the plan (largest first)"), 3 * lineH);
        bullets(canvas, items);
        canvas.advance(canvas.pt(6));
    }
    if (!c.setupDifferences.empty()) {
        std::vector<QString> items;
        for (const auto& d : c.setupDifferences)
            items.push_back(qs(d));
        canvas.heading(tr("Set-up differences"), 3 * lineH);
        bullets(canvas, items);
        canvas.advance(canvas.pt(6));
    }
    const bool proposed
        = c.calibration.available && (c.calibration.fixedBytes > 0 || c.calibration.perSampleBytes > 0);
    const QString calibration = proposed
        ? tr("Fixed %1 and %2 per sample (from the run's batch %3), applied with --calibration-fixed and "
             "--calibration-per-sample or the GUI's calibration. %4")
              .arg(bytes(c.calibration.fixedBytes), bytes(c.calibration.perSampleBytes),
                  count(c.calibration.measuredBatch), qs(c.calibration.reasoning))
        : tr("None: %1").arg(label(c.calibration.reasoning));
    canvas.heading(
        tr("Calibration proposal"), canvas.paragraphHeight(calibration, FontRole::Small, canvas.width()));
    canvas.paragraph(calibration, FontRole::Small, style::kText);
    if (!c.notes.empty()) {
        canvas.advance(canvas.pt(6));
        std::vector<QString> items;
        for (const auto& n : c.notes)
            items.push_back(label(n)); // translated where it holds no figures (text/CoreText.cpp)
        canvas.heading(tr("What could not be compared"), 3 * lineH);
        bullets(canvas, items);
    }
}

} // namespace headroom::report

#include "MeasuredRunPanel.h"

#include "CoreText.h"
#include "Document.h"
#include "RunController.h"
#include "UiText.h"
#include "headroom/estimate/RunComparison.h"

#include <QDir>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QPushButton>
#include <QScrollArea>
#include <QTreeWidget>
#include <QTreeWidgetItemIterator>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <optional>

namespace headroom::ui {

namespace {

QString runKindText(RunFileKind kind)
{
    switch (kind) {
    case RunFileKind::SnapshotPickle:
        return MeasuredRunPanel::tr("memory snapshot (pickle)");
    case RunFileKind::SnapshotJson:
        return MeasuredRunPanel::tr("memory snapshot (JSON)");
    case RunFileKind::SnapshotHtml:
        return MeasuredRunPanel::tr("memory snapshot (memory_viz page)");
    case RunFileKind::MemoryTimeline:
        return MeasuredRunPanel::tr("profiler memory timeline");
    case RunFileKind::ChromeTrace:
        return MeasuredRunPanel::tr("profiler Chrome trace");
    }
    return {};
}

QString runPhaseText(RunPhase phase)
{
    switch (phase) {
    case RunPhase::BeforeSteps:
        return MeasuredRunPanel::tr("Before the steps");
    case RunPhase::Forward:
        return MeasuredRunPanel::tr("Forward");
    case RunPhase::Backward:
        return MeasuredRunPanel::tr("Backward");
    case RunPhase::OptimizerStep:
        return MeasuredRunPanel::tr("Optimizer step");
    }
    return {};
}

QString runComponentText(RunComponent component)
{
    switch (component) {
    case RunComponent::Weights:
        return MeasuredRunPanel::tr("Weights");
    case RunComponent::Gradients:
        return MeasuredRunPanel::tr("Gradients");
    case RunComponent::OptimizerState:
        return MeasuredRunPanel::tr("Optimizer state");
    case RunComponent::Activations:
        return MeasuredRunPanel::tr("Activations");
    case RunComponent::Workspaces:
        return MeasuredRunPanel::tr("Workspaces");
    case RunComponent::Temporaries:
        return MeasuredRunPanel::tr("Temporaries");
    case RunComponent::Unattributed:
        return MeasuredRunPanel::tr("Unattributed");
    }
    return {};
}

/// "+2.00 MiB (+10.5 %)", "-1.00 MiB (-4.8 %)", "0".
QString differenceText(const ByteDifference& d, std::uint64_t predicted)
{
    if (d.bytes == 0)
        return QStringLiteral("0");
    const QString size
        = (d.measuredAbove ? QStringLiteral("+") : QStringLiteral("−")) + UiText::bytes(d.bytes);
    if (predicted == 0)
        return size;
    const QString percent = (d.measuredAbove ? QStringLiteral("+") : QStringLiteral("−"))
        + QLocale().toString(std::abs(d.percent), 'f', 1);
    return MeasuredRunPanel::tr("%1 (%2 %)").arg(size, percent);
}

/// A row of the table: what, predicted, measured (or why there is no figure) and the difference; the bytes
/// themselves under Qt::UserRole (columns 1 and 2) for whoever reads the table (the tests).
QTreeWidgetItem* row(QTreeWidgetItem* parent, const QString& what, std::uint64_t predicted,
    std::optional<std::uint64_t> measured, const ByteDifference& difference, const QString& missing)
{
    auto* item = new QTreeWidgetItem(parent,
        QStringList { what, UiText::bytes(predicted), measured ? UiText::bytes(*measured) : missing,
            measured ? differenceText(difference, predicted) : QString() });
    item->setData(1, Qt::UserRole, QVariant::fromValue<quint64>(predicted));
    if (measured)
        item->setData(2, Qt::UserRole, QVariant::fromValue<quint64>(*measured));
    for (int c = 1; c < 4; ++c)
        item->setTextAlignment(c, Qt::AlignRight | Qt::AlignVCenter);
    return item;
}

QLabel* wrapped(QWidget* parent, const char* name)
{
    auto* label = new QLabel(parent);
    label->setObjectName(QString::fromLatin1(name));
    label->setWordWrap(true);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    return label;
}

} // namespace

MeasuredRunPanel::MeasuredRunPanel(RunController* runs, Document* document, QWidget* parent)
    : QWidget(parent)
    , m_runs { runs }
    , m_document { document }
{
    auto* content = new QWidget;
    auto* layout = new QVBoxLayout(content);
    layout->setContentsMargins(6, 6, 6, 6);
    auto* top = new QHBoxLayout;
    m_header = wrapped(content, "measuredRunHeaderLabel");
    top->addWidget(m_header, 1);
    auto* close = new QPushButton(tr("Close Run"), content);
    close->setObjectName(QStringLiteral("closeMeasuredRunButton"));
    connect(close, &QPushButton::clicked, this, &MeasuredRunPanel::closeRequested);
    top->addWidget(close, 0, Qt::AlignTop);
    layout->addLayout(top);
    m_differences = wrapped(content, "measuredRunDifferencesLabel");
    m_differences->setStyleSheet(
        QStringLiteral("background: #fff3cd; color: #664d03; border: 1px solid #e0c060; padding: 4px;"));
    layout->addWidget(m_differences);

    // What the run proposes, and the button that applies it, before the figures it comes from.
    m_proposal = wrapped(content, "calibrationProposalLabel");
    layout->addWidget(m_proposal);
    auto* calibrateRow = new QHBoxLayout;
    m_calibrate = new QPushButton(tr("Calibrate Plan"), content);
    m_calibrate->setObjectName(QStringLiteral("calibratePlanButton"));
    m_calibrate->setToolTip(
        tr("Adds what the run held beyond the plan to the plan (Edit > Undo takes it back)"));
    connect(m_calibrate, &QPushButton::clicked, this, [this] { m_runs->calibrate(); });
    calibrateRow->addWidget(m_calibrate, 0, Qt::AlignTop);
    m_calibrationState = wrapped(content, "calibrationStateLabel");
    m_calibrationState->setStyleSheet(QStringLiteral("color: #8a3a00; font-weight: bold;"));
    calibrateRow->addWidget(m_calibrationState, 1);
    layout->addLayout(calibrateRow);

    // The table and the list are as tall as their rows: the tab scrolls, not they.
    m_table = new QTreeWidget(content);
    m_table->setObjectName(QStringLiteral("measuredRunTable"));
    m_table->setHeaderLabels({ tr("Peak"), tr("Predicted"), tr("Measured"), tr("Difference") });
    m_table->setRootIsDecorated(false);
    m_table->setUniformRowHeights(true);
    m_table->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_table->header()->setStretchLastSection(false);
    m_table->header()->setSectionResizeMode(0, QHeaderView::Stretch);
    for (int c = 1; c < 4; ++c)
        m_table->header()->setSectionResizeMode(c, QHeaderView::ResizeToContents);
    layout->addWidget(m_table);

    layout->addWidget(new QLabel(tr("<b>Not in the plan</b> (largest first)"), content));
    m_unattributed = new QTreeWidget(content);
    m_unattributed->setObjectName(QStringLiteral("unattributedList"));
    m_unattributed->setHeaderHidden(true);
    m_unattributed->setColumnCount(1);
    m_unattributed->setRootIsDecorated(false);
    m_unattributed->setWordWrap(true);
    m_unattributed->setTextElideMode(Qt::ElideNone);
    m_unattributed->setVerticalScrollBarPolicy(Qt::ScrollBarAsNeeded);
    layout->addWidget(m_unattributed);

    m_notes = wrapped(content, "measuredRunNotesLabel");
    layout->addWidget(m_notes);
    layout->addStretch(1);

    auto* scroll = new QScrollArea(this);
    scroll->setObjectName(QStringLiteral("measuredRunScrollArea"));
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setWidget(content);
    auto* outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    outer->addWidget(scroll);

    connect(m_runs, &RunController::comparisonChanged, this, &MeasuredRunPanel::refresh);
    connect(m_document, &Document::setupChanged, this, &MeasuredRunPanel::refreshCalibrationState);
    refresh();
}

void MeasuredRunPanel::refresh()
{
    m_table->clear();
    m_unattributed->clear();
    const auto comparison = m_runs->comparison();
    const MeasuredRun* run = m_runs->run();
    refreshCalibrationState();
    if (!comparison || run == nullptr) {
        m_header->setText(tr("No measured run is open (File > Open Measured Run...)."));
        m_differences->hide();
        m_notes->clear();
        m_proposal->clear();
        m_calibrate->setEnabled(false);
        return;
    }
    const RunComparison& c = *comparison;
    std::size_t steady = 0;
    for (const MeasuredStep& s : run->steps)
        steady += s.first ? 0 : 1;
    const QString steps = run->steps.empty()
        ? tr("no training step found")
        : (run->steps.front().first ? tr("training steps found: %1 (the first, and %2 steady)")
                                          .arg(UiText::count(run->steps.size()), UiText::count(steady))
                                    : tr("training steps found: %1").arg(UiText::count(run->steps.size())));
    const QString batch
        = c.batchAssumed ? tr("batch %1 (the plan's, assumed: not given)") : tr("batch %1 (given)");
    const QString precision
        = c.precisionAssumed ? tr("%1 (the plan's, assumed: not given)") : tr("%1 (given)");
    m_header->setText(
        tr("<b>%1</b> — %2, %3.<br>Compared at %4, %5.")
            .arg(QDir::toNativeSeparators(m_runs->path()).toHtmlEscaped(), runKindText(run->kind), steps,
                batch.arg(UiText::count(static_cast<std::uint64_t>(c.batch))),
                precision.arg(UiText::precision(c.precision))));
    m_header->setToolTip(QDir::toNativeSeparators(m_runs->path()));

    QStringList differences;
    for (const std::string& d : c.setupDifferences)
        differences << CoreText::translate(d).toHtmlEscaped();
    if (c.batchAssumed || c.precisionAssumed)
        differences << tr("The run's set-up was not given: the plan's is assumed, so a difference may be the "
                          "set-up's rather than the model's.");
    m_differences->setText(differences.isEmpty()
            ? QString()
            : tr("<b>The plan's set-up differs from the run's.</b>") + QStringLiteral("<br>")
                + differences.join(QStringLiteral("<br>"))
                      .replace(QLatin1Char('\n'), QStringLiteral("<br>")));
    m_differences->setVisible(!differences.isEmpty());

    // The table: the whole step's peaks, per phase, per component at the peak.
    const auto ifReserved = [&](std::uint64_t bytes) {
        return run->hasReserved ? std::optional<std::uint64_t> { bytes } : std::nullopt;
    };
    auto* peaks = new QTreeWidgetItem(m_table, QStringList { tr("The step's peaks") });
    row(peaks, tr("Allocated (max_memory_allocated)"), c.predictedPeakAllocated, c.measuredPeakAllocated,
        c.peakAllocatedDifference, {});
    row(peaks, tr("Reserved (max_memory_reserved)"), c.predictedPeakReserved,
        ifReserved(c.measuredPeakReserved), c.peakReservedDifference, tr("not recorded"));
    auto* phases = new QTreeWidgetItem(m_table, QStringList { tr("By phase") });
    for (const PhaseComparison& p : c.phases) {
        const QString name = runPhaseText(p.phase);
        const auto found
            = [&](std::optional<std::uint64_t> bytes) { return p.measuredFound ? bytes : std::nullopt; };
        row(phases, tr("%1, allocated").arg(name), p.predictedAllocated, found(p.measuredAllocated),
            p.allocatedDifference, tr("not found"));
        row(phases, tr("%1, reserved").arg(name), p.predictedReserved, found(ifReserved(p.measuredReserved)),
            p.reservedDifference, p.measuredFound ? tr("not recorded") : tr("not found"));
    }
    auto* components = new QTreeWidgetItem(m_table, QStringList { tr("By component at the allocated peak") });
    for (std::size_t k = 0; k < kRunComponents; ++k) {
        const std::uint64_t predicted = c.predictedComponents[k];
        const std::uint64_t measured = c.measuredComponents[k];
        row(components, runComponentText(static_cast<RunComponent>(k)), predicted,
            c.measuredComponentsFound ? std::optional<std::uint64_t> { measured } : std::nullopt,
            byteDifference(predicted, measured), tr("not known"));
    }
    m_table->expandAll();
    for (QTreeWidgetItem* group : { peaks, phases, components }) {
        QFont bold = group->font(0);
        bold.setBold(true);
        group->setFont(0, bold);
        group->setFirstColumnSpanned(true);
    }

    const std::size_t listed = std::min<std::size_t>(c.unattributed.size(), kListedBlocks);
    for (std::size_t i = 0; i < listed; ++i) {
        const UnattributedBlock& u = c.unattributed[i];
        const QString text = u.sentence.empty()
            ? tr("%1 (a smaller block, not described)").arg(UiText::bytes(u.bytes))
            : CoreText::translate(u.sentence);
        auto* item = new QTreeWidgetItem(m_unattributed, QStringList { text });
        item->setData(0, Qt::UserRole, QVariant::fromValue<quint64>(u.bytes));
        item->setToolTip(0, text);
    }
    if (c.unattributed.size() > listed)
        new QTreeWidgetItem(m_unattributed,
            QStringList {
                tr("... and %1 smaller blocks").arg(UiText::count(c.unattributed.size() - listed)) });
    if (c.unattributed.empty())
        new QTreeWidgetItem(m_unattributed, QStringList { tr("Every block matched a tensor of the plan.") });
    // As tall as the rows (the tab scrolls), the list at most a dozen rows before it scrolls itself.
    const auto rowsHeight = [](QTreeWidget* tree, int most) {
        int h = tree->isHeaderHidden() ? 0 : tree->header()->sizeHint().height();
        int rows = 0;
        for (QTreeWidgetItemIterator it(tree); *it != nullptr && rows < most; ++it, ++rows)
            h += tree->visualItemRect(*it).height() > 0 ? tree->visualItemRect(*it).height()
                                                        : tree->sizeHintForRow(0);
        return h + 2 * tree->frameWidth() + 2;
    };
    m_table->setFixedHeight(rowsHeight(m_table, 1000));
    m_unattributed->setFixedHeight(std::max(60, rowsHeight(m_unattributed, 12)));

    QStringList notes;
    for (const std::string& n : c.notes)
        notes << CoreText::translate(n).toHtmlEscaped();
    for (const std::string& n : run->notes)
        notes << CoreText::translate(n).toHtmlEscaped();
    m_notes->setText(
        notes.isEmpty() ? QString() : tr("<b>Notes</b><br>") + notes.join(QStringLiteral("<br>")));
    m_notes->setVisible(!notes.isEmpty());

    const CalibrationProposal& p = c.calibration;
    QString proposal = tr("<b>Calibration the run proposes</b>") + QStringLiteral("<br>");
    if (p.available) {
        proposal += tr("%1 fixed + %2 per sample, read at batch %3.")
                        .arg(UiText::bytes(p.fixedBytes), UiText::bytes(p.perSampleBytes),
                            UiText::count(static_cast<std::uint64_t>(p.measuredBatch)));
        if (const auto& cal = m_runs->calibrated(); cal && m_runs->canCalibrate())
            proposal += QLatin1Char(' ')
                + tr("The largest batch would be %1 (now %2).")
                      .arg(UiText::count(static_cast<std::uint64_t>(cal->after)),
                          UiText::count(static_cast<std::uint64_t>(cal->before)));
        proposal += QStringLiteral("<br>");
    }
    proposal += CoreText::translate(p.reasoning).toHtmlEscaped();
    if (const auto& cal = m_runs->calibrated(); cal && !cal->reasoning.empty() && m_runs->canCalibrate())
        proposal += QStringLiteral("<br>") + CoreText::translate(cal->reasoning).toHtmlEscaped();
    m_proposal->setText(proposal);
    m_calibrate->setEnabled(m_runs->canCalibrate());
}

void MeasuredRunPanel::refreshCalibrationState()
{
    m_calibrate->setEnabled(m_runs->canCalibrate());
    const RunCalibration& cal = m_document->plan().setup.calibration;
    if (!cal.active()) {
        m_calibrationState->setText(tr("The plan is not calibrated."));
        return;
    }
    const QString source = cal.source.empty() ? tr("a measured run") : QString::fromStdString(cal.source);
    m_calibrationState->setText(
        tr("Calibrated from %1: +%2 fixed, +%3 per sample")
            .arg(source, UiText::bytes(cal.fixedBytes), UiText::bytes(cal.perSampleBytes)));
}

QString MeasuredRunPanel::headerText() const
{
    return m_header->text();
}

QString MeasuredRunPanel::differencesText() const
{
    return m_differences->isHidden() ? QString() : m_differences->text();
}

QString MeasuredRunPanel::proposalText() const
{
    return m_proposal->text();
}

QString MeasuredRunPanel::calibrationStateText() const
{
    return m_calibrationState->text();
}

} // namespace headroom::ui

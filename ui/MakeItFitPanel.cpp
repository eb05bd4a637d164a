#include "MakeItFitPanel.h"

#include "ClusterPlanView.h"
#include "Document.h"
#include "FormRows.h"
#include "PlanCandidateModel.h"
#include "PlannerText.h" // report/
#include "QtText.h"
#include "ResultsTable.h"

#include <QCheckBox>
#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QPushButton>
#include <QSpinBox>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>
#include <limits>

namespace headroom::ui {

namespace {

/// The largest effective batch the spin box takes (the command line's --target-batch goes to 2^31).
constexpr int kMaxTarget = std::numeric_limits<int>::max();

} // namespace

MakeItFitPanel::MakeItFitPanel(Document* document, QWidget* parent)
    : QWidget(parent)
    , m_document { document }
    , m_model { new PlanCandidateModel(this) }
    , m_tabs { new QTabWidget(this) }
    , m_cluster { new ClusterPlanView(document, m_tabs) }
{
    QHBoxLayout* goal = createGoalRow();
    createTable();
    QHBoxLayout* buttons = createButtonRow();
    m_leftOut = new QLabel(this);
    m_leftOut->setObjectName(QStringLiteral("leftOutLabel"));
    m_leftOut->setWordWrap(true);
    m_leftOut->hide();
    // The ranking's rule, as rankSetups() applies it (docs/planner.md, "Ranking").
    m_rule
        = new QLabel(tr("Order: fastest first; at equal speed, training unchanged first, then less traffic "
                        "between GPUs (not in the speed: offload, tensor parallelism, ZeRO-3), less "
                        "memory, a larger max batch. A set-up another matches or beats on all of these "
                        "is not listed."),
            this);
    m_rule->setObjectName(QStringLiteral("rankingRuleLabel"));
    m_rule->setWordWrap(true);
    // The set-ups of the GPU on one tab, the cluster's layouts on the other: the dock keeps its height.
    auto* setups = new QWidget(m_tabs);
    setups->setObjectName(QStringLiteral("setupsPage"));
    auto* layout = new QVBoxLayout(setups);
    layout->addLayout(goal);
    layout->addWidget(m_table, 1);
    layout->addWidget(m_rule);
    layout->addWidget(m_leftOut);
    layout->addLayout(buttons);
    m_tabs->setObjectName(QStringLiteral("makeItFitTabWidget"));
    m_tabs->setDocumentMode(true);
    m_tabs->addTab(setups, tr("&Set-ups of This GPU"));
    m_cluster->setObjectName(QStringLiteral("clusterPlanView"));
    m_tabs->addTab(m_cluster, tr("&Cluster Layouts"));
    auto* outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    outer->addWidget(m_tabs);
    connectSignals();
}

MakeItFitPanel::~MakeItFitPanel()
{
    // A search still running finds itself stale and its result goes nowhere (its watcher goes with
    // the panel); one not started yet skips its work.
    m_search.next();
}

// The goal on one line, so the table keeps the panel's height.
QHBoxLayout* MakeItFitPanel::createGoalRow()
{
    m_target = new QSpinBox(this);
    m_target->setObjectName(QStringLiteral("targetBatchSpinBox"));
    m_target->setRange(0, kMaxTarget);
    m_target->setSpecialValueText(tr("As large as fits"));
    m_target->setToolTip(
        tr("Samples per optimizer step: micro-batch × accumulation steps × data-parallel GPUs"));
    m_maxStep = new QDoubleSpinBox(this);
    m_maxStep->setObjectName(QStringLiteral("maxStepSecondsSpinBox"));
    m_maxStep->setRange(0, 7 * 24 * 3600.0);
    m_maxStep->setDecimals(2);
    m_maxStep->setSuffix(tr(" s"));
    m_maxStep->setSpecialValueText(tr("No limit"));
    m_allowPrecision = new QCheckBox(tr("Precision"), this);
    m_allowPrecision->setObjectName(QStringLiteral("allowPrecisionCheckBox"));
    m_allowLora = new QCheckBox(tr("LoRA / QLoRA"), this);
    m_allowLora->setObjectName(QStringLiteral("allowLoraCheckBox"));
    m_allowEightBit = new QCheckBox(tr("8-bit optimizer state"), this);
    m_allowEightBit->setObjectName(QStringLiteral("allowEightBitCheckBox"));
    for (QCheckBox* box : { m_allowPrecision, m_allowLora, m_allowEightBit })
        box->setToolTip(tr("Changes what training computes: only proposed when ticked"));

    auto* goalRow = new QHBoxLayout;
    addLabelledField(*goalRow, tr("&Effective batch:"), m_target);
    addLabelledField(*goalRow, tr("&Longest step:"), m_maxStep);
    goalRow->addWidget(new QLabel(tr("May also change:"), this));
    goalRow->addWidget(m_allowPrecision);
    goalRow->addWidget(m_allowLora);
    goalRow->addWidget(m_allowEightBit);
    goalRow->addStretch(1);
    return goalRow;
}

void MakeItFitPanel::createTable()
{
    m_table = ResultsTable::table(m_model, QStringLiteral("setupsTableView"), this);
    m_table->horizontalHeader()->setSectionResizeMode(
        PlanCandidateModel::ChangesColumn, QHeaderView::Stretch);
}

QHBoxLayout* MakeItFitPanel::createButtonRow()
{
    const ResultsTable::ApplyRow buttons = ResultsTable::applyRow(this, QStringLiteral("planStatusLabel"),
        tr("&Apply"), QStringLiteral("applySetupButton"),
        tr("Set this set-up in the plan (Edit > Undo takes it back)"));
    m_status = buttons.status;
    m_apply = buttons.apply;
    return buttons.layout;
}

void MakeItFitPanel::connectSignals()
{
    connect(m_target, &QSpinBox::valueChanged, this, &MakeItFitPanel::findSetups);
    connect(m_maxStep, &QDoubleSpinBox::valueChanged, this, &MakeItFitPanel::findSetups);
    for (QCheckBox* box : { m_allowPrecision, m_allowLora, m_allowEightBit })
        connect(box, &QCheckBox::toggled, this, &MakeItFitPanel::findSetups);
    connect(m_apply, &QPushButton::clicked, this, &MakeItFitPanel::applySelected);
    connect(m_table, &QTableView::doubleClicked, this, &MakeItFitPanel::applySelected);
    connect(m_document, &Document::networkChanged, this, &MakeItFitPanel::planChanged);
    connect(m_document, &Document::networkReset, this, &MakeItFitPanel::planChanged);
    connect(m_document, &Document::strategyChanged, this, &MakeItFitPanel::planChanged);
    connect(m_document, &Document::precisionChanged, this, &MakeItFitPanel::planChanged);
    connect(m_document, &Document::setupChanged, this, &MakeItFitPanel::planChanged);
}

PlanGoal MakeItFitPanel::goal() const
{
    PlanGoal g;
    if (m_target->value() > 0)
        g.targetBatch = m_target->value();
    if (m_maxStep->value() > 0)
        g.maxStepSeconds = m_maxStep->value();
    return g;
}

PlanAllowances MakeItFitPanel::allowances() const
{
    return { m_allowPrecision->isChecked(), m_allowLora->isChecked(), m_allowEightBit->isChecked() };
}

void MakeItFitPanel::showEvent(QShowEvent* event)
{
    QWidget::showEvent(event);
    if (m_stale)
        findSetups();
}

void MakeItFitPanel::planChanged()
{
    m_stale = true;
    if (isVisible())
        findSetups();
}

void MakeItFitPanel::findSetups()
{
    m_stale = false;
    const int generation = m_search.next();
    if (m_document->network().layers.empty()) {
        // Set-ups of nothing would list the input batch alone ("batch 256, 807 MiB, 0.00 us").
        m_searching = false;
        m_table->setEnabled(true);
        m_result = PlannerResult {};
        m_model->setCandidates({});
        m_status->setText(tr("The network is empty: add layers to find the set-ups that fit."));
        m_apply->setEnabled(false);
        updateLeftOut();
        Q_EMIT searchFinished();
        return;
    }
    // The search has its own copy of the plan: the document may change while it runs. The rows shown
    // stay, greyed, until its result replaces them; Apply waits for it.
    m_searching = true;
    m_status->setText(tr("Searching…"));
    m_apply->setEnabled(false);
    m_table->setEnabled(false);
    m_search.start(
        this, generation,
        [planner = m_planner, plan = m_document->plan(), goal = goal(), allow = allowances()] {
            return planner(plan, goal, allow);
        },
        [this](const LatestSearch<PlannerResult>::Outcome& outcome) { searchDone(*outcome); });
}

void MakeItFitPanel::searchDone(const Result<PlannerResult>& outcome)
{
    m_searching = false;
    m_table->setEnabled(true);
    if (!outcome.ok()) {
        showCannotPlan(tr("Cannot plan: %1").arg(qs(outcome.error().message)));
        Q_EMIT searchFinished();
        return;
    }
    m_result = outcome.value();
    m_model->setCandidates(m_result.candidates);
    if (m_model->rowCount() > 0)
        m_table->selectRow(0);
    m_apply->setEnabled(m_model->rowCount() > 0);
    updateStatus();
    Q_EMIT searchFinished();
}

void MakeItFitPanel::showCannotPlan(const QString& status)
{
    m_result = PlannerResult {};
    m_model->setCandidates({});
    m_status->setText(status);
    m_apply->setEnabled(false);
    updateLeftOut();
}

void MakeItFitPanel::updateLeftOut()
{
    m_leftOut->setVisible(!m_result.leftOut.empty());
    if (m_result.leftOut.empty()) {
        m_leftOut->clear();
        m_leftOut->setToolTip(QString());
        return;
    }
    m_leftOut->setText(tr("To stay quick, the search left part of its work out (hover here for what); the "
                          "set-ups listed are estimated in full."));
    QString details = tr("Left out:");
    for (const std::string& what : m_result.leftOut)
        details += QStringLiteral("\n• ") + qs(what);
    m_leftOut->setToolTip(details);
}

void MakeItFitPanel::updateStatus()
{
    updateLeftOut();
    if (!m_result.candidates.empty()) {
        // Which batch the rows run: the goal's, not the set-up's.
        const PlanGoal g = goal();
        const QString runs = g.targetBatch
            ? tr("each at the batch that reaches an effective batch of %1").arg(*g.targetBatch)
            : tr("each at the largest batch that fits");
        m_status->setText(
            tr("Set-ups that fit: %1, fastest first, %2. ★ marks the Pareto front: no other set-up is as "
               "fast with less memory.")
                .arg(m_result.candidates.size())
                .arg(runs));
        return;
    }
    if (m_result.closest && m_result.shortfall) {
        m_status->setText(tr("Nothing fits. Closest: %1 (%2), but %3.")
                              .arg(report::PlannerText::changes(*m_result.closest),
                                  report::PlannerText::batch(m_result.closest->settings.setup),
                                  report::PlannerText::shortfall(*m_result.shortfall)));
        return;
    }
    m_status->setText(tr("Nothing fits."));
}

void MakeItFitPanel::applySelected()
{
    if (m_searching)
        return; // the rows are the previous plan's
    const QModelIndexList rows = m_table->selectionModel()->selectedRows();
    const PlanCandidate* c = m_model->candidate(rows.isEmpty() ? 0 : rows.front().row());
    if (!c)
        return;
    m_document->applyPlanSettings(c->settings, tr("Apply set-up: %1").arg(report::PlannerText::changes(*c)));
}

} // namespace headroom::ui

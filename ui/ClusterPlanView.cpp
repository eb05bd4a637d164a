#include "ClusterPlanView.h"

#include "ClusterLayoutModel.h"
#include "ClusterText.h" // report/
#include "Document.h"
#include "ElidedLabel.h"
#include "FieldCommit.h"
#include "FormRows.h"
#include "QtText.h"
#include "ResultsTable.h"

#include <QHBoxLayout>
#include <QItemSelectionModel>
#include <QLabel>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>
#include <algorithm>
#include <limits>

namespace headroom::ui {

namespace {

constexpr int kMaxField = std::numeric_limits<int>::max();

/// The settings a cluster search depends on: all but what it chooses itself (the layout, the
/// micro-batch, the accumulation steps, the recomputation), so a batch slider's tick or an applied
/// layout leaves the rows current.
PlanSettings searched(PlanSettings s)
{
    s.checkpointing = Checkpointing::None;
    s.setup.parallel = Parallelism {};
    s.setup.batch = 1;
    s.setup.accumulationSteps = 1;
    s.setup.pipelineStage.reset();
    return s;
}

bool sameRequest(const ClusterRequest& a, const ClusterRequest& b)
{
    return a.gpus == b.gpus && a.gpusPerNode == b.gpusPerNode && a.globalBatch == b.globalBatch
        && a.offloadOptimizer == b.offloadOptimizer;
}

int clampedField(std::int64_t value)
{
    return static_cast<int>(std::clamp<std::int64_t>(value, 1, kMaxField));
}

/// "TP 2 × PP 2 × DP 2, micro-batch 4 × 8": a layout in an undo step's text.
QString layoutText(const ClusterLayout& l)
{
    const Parallelism& p = l.settings.setup.parallel;
    QString degrees = ClusterPlanView::tr("TP %1 × PP %2").arg(p.tensorParallel).arg(p.pipelineParallel);
    if (p.contextParallel > 1)
        degrees += ClusterPlanView::tr(" × CP %1").arg(p.contextParallel);
    if (p.expertParallel > 1)
        degrees += ClusterPlanView::tr(" × EP %1").arg(p.expertParallel);
    degrees += ClusterPlanView::tr(" × DP %1").arg(p.dataParallel());
    return ClusterPlanView::tr("%1, micro-batch %2 × %3")
        .arg(degrees)
        .arg(l.settings.setup.batch)
        .arg(l.settings.setup.accumulationSteps);
}

} // namespace

ClusterPlanView::ClusterPlanView(Document* document, QWidget* parent)
    : QWidget(parent)
    , m_document { document }
    , m_model { new ClusterLayoutModel(this) }
    , m_searchSoon { new QTimer(this) }
{
    m_searchSoon->setSingleShot(true);
    m_searchSoon->setInterval(300);
    auto* layout = new QVBoxLayout(this);
    createFields();
    createTable();
    auto* fields = new QHBoxLayout;
    addLabelledField(*fields, tr("GP&Us:"), m_gpus);
    addLabelledField(*fields, tr("GPUs per &node:"), m_gpusPerNode);
    addLabelledField(*fields, tr("&Global batch:"), m_globalBatch);
    fields->addWidget(m_find);
    fields->addStretch(1);
    // One line however much was left out (the table keeps the dock's height): the whole in its tooltip,
    // and unfolded by a click.
    m_leftOut = new ElidedLabel(this);
    m_leftOut->setObjectName(QStringLiteral("clusterLeftOutLabel"));
    m_leftOut->hide();
    const ResultsTable::ApplyRow buttons = ResultsTable::applyRow(this, QStringLiteral("clusterStatusLabel"),
        tr("&Apply Layout"), QStringLiteral("applyLayoutButton"),
        tr("Set this layout in the plan (Edit > Undo takes it back)"));
    m_status = buttons.status;
    m_apply = buttons.apply;
    layout->addLayout(fields);
    layout->addWidget(m_table, 1);
    layout->addWidget(m_leftOut);
    layout->addLayout(buttons.layout);
    connectSignals();
    setupChanged();
}

ClusterPlanView::~ClusterPlanView()
{
    // A search still running finds itself stale and its result goes nowhere; one not started skips.
    m_search.next();
}

void ClusterPlanView::createFields()
{
    const auto spinBox = [this](const char* name, const QString& tip) {
        auto* box = new QSpinBox(this);
        box->setObjectName(QString::fromLatin1(name));
        box->setRange(1, kMaxField);
        box->setGroupSeparatorShown(true);
        box->setKeyboardTracking(false); // a number typed is one change, not one per digit
        box->setToolTip(tip);
        return box;
    };
    m_gpus = spinBox("clusterGpusSpinBox", tr("Every GPU of the cluster, of the set-up's kind"));
    m_gpus->setMaximum(static_cast<int>(kMaxGpus));
    // The set-up's own figure (TrainingSetup::gpusPerNode, also on the set-up's Multi-GPU tab): the
    // layouts found set it, so the field shows it and an edit here changes it (setupChanged(),
    // connectSignals()).
    m_gpusPerNode = spinBox("gpusPerNodeSpinBox",
        tr("GPUs per node, as in the set-up (Multi-GPU tab): tensor and expert parallelism stay within one "
           "node (NVLink), as Megatron-LM places them"));
    m_gpusPerNode->setMaximum(static_cast<int>(kMaxGpus));
    m_globalBatch = spinBox("globalBatchSpinBox",
        tr("Samples per optimizer step over all GPUs: micro-batch × accumulation steps × data parallel"));
    m_find = new QPushButton(tr("Find La&youts"), this);
    m_find->setObjectName(QStringLiteral("findLayoutsButton"));
    m_find->setToolTip(tr("Search the layouts of these GPUs that fit, fastest first (takes a few seconds "
                          "for a large model; the rest of the window stays usable)"));
}

void ClusterPlanView::createTable()
{
    m_table = ResultsTable::table(m_model, QStringLiteral("clusterLayoutsTableView"), this);
}

void ClusterPlanView::connectSignals()
{
    for (QSpinBox* box : { m_gpus, m_globalBatch })
        connect(box, &QSpinBox::valueChanged, this, &ClusterPlanView::fieldEdited);
    // One undo step, as from the set-up panel (typing waits for its pause, FieldCommit).
    FieldCommit::attach(m_gpusPerNode, [this] { gpusPerNodeEdited(); });
    connect(m_find, &QPushButton::clicked, this, &ClusterPlanView::findLayouts);
    connect(m_searchSoon, &QTimer::timeout, this, &ClusterPlanView::findLayouts);
    connect(m_apply, &QPushButton::clicked, this, &ClusterPlanView::applySelected);
    connect(m_table, &QTableView::doubleClicked, this, &ClusterPlanView::applySelected);
    const auto networkChanged = [this] {
        ++m_networkGeneration;
        setupChanged();
    };
    connect(m_document, &Document::networkChanged, this, networkChanged);
    connect(m_document, &Document::networkReset, this, networkChanged);
    connect(m_document, &Document::strategyChanged, this, &ClusterPlanView::setupChanged);
    connect(m_document, &Document::precisionChanged, this, &ClusterPlanView::setupChanged);
    connect(m_document, &Document::setupChanged, this, &ClusterPlanView::setupChanged);
    connect(m_document, &Document::batchChanged, this, &ClusterPlanView::setupChanged);
}

ClusterRequest ClusterPlanView::request() const
{
    ClusterRequest r;
    r.gpus = m_gpus->value();
    r.gpusPerNode = m_document->plan().setup.gpusPerNode;
    r.globalBatch = m_globalBatch->value();
    r.offloadOptimizer = m_document->plan().setup.parallel.offloadOptimizer;
    return r;
}

bool ClusterPlanView::resultIsCurrent() const
{
    return m_shown && m_shown->networkGeneration == m_networkGeneration
        && m_shown->settings == searched(m_document->plan()) && sameRequest(m_shown->request, request());
}

std::optional<report::ClusterReport> ClusterPlanView::reportable() const
{
    if (!resultIsCurrent() || !m_error.isEmpty())
        return std::nullopt;
    return report::ClusterReport { m_shown->request, m_result };
}

void ClusterPlanView::setupChanged()
{
    if (m_followSetup) {
        // Cheap on every slider tick: two fields set, no search.
        const TrainingSetup& s = m_document->plan().setup;
        const QSignalBlocker gpus(m_gpus);
        const QSignalBlocker batch(m_globalBatch);
        m_gpus->setValue(clampedField(s.parallel.gpus));
        const double global = static_cast<double>(s.batch) * static_cast<double>(s.accumulationSteps)
            * static_cast<double>(s.parallel.dataParallel());
        m_globalBatch->setValue(
            global >= kMaxField ? kMaxField : clampedField(static_cast<std::int64_t>(global)));
    }
    // The set-up's GPUs per node, always (but not over what the user is typing there).
    if (const FieldCommit* typing = FieldCommit::of(m_gpusPerNode);
        typing == nullptr || !typing->isPending()) {
        const QSignalBlocker perNode(m_gpusPerNode);
        m_gpusPerNode->setValue(clampedField(m_document->plan().setup.gpusPerNode));
    }
    updateState();
}

void ClusterPlanView::gpusPerNodeEdited()
{
    m_document->setGpusPerNode(m_gpusPerNode->value()); // the set-up's: setupChanged() follows
    if (m_requested)
        m_searchSoon->start(); // as for the other fields: search again once the edits pause
}

void ClusterPlanView::fieldEdited()
{
    m_followSetup = false;
    if (m_requested)
        m_searchSoon->start(); // a few arrow clicks in a row: one search, after the last
    updateState();
}

bool ClusterPlanView::searchScheduled() const
{
    return m_searchSoon->isActive();
}

void ClusterPlanView::findLayouts()
{
    if (FieldCommit* typing = FieldCommit::of(m_gpusPerNode))
        typing->flush(); // a GPUs per node still being typed is part of the request
    m_searchSoon->stop();
    m_requested = true;
    m_followSetup = false; // the fields are the request now: a batch slider's tick leaves them alone
    const int generation = m_search.next();
    m_pending = Basis { searched(m_document->plan()), m_networkGeneration, request() };
    m_searching = true;
    m_search.start(
        this, generation,
        [planner = m_planner, plan = m_document->plan(), request = m_pending->request,
            empty = ss(tr("the network is empty: add layers to find the layouts that fit"))] {
            return plan.network.layers.empty() ? Result<ClusterPlan> { Error { empty, "layers" } }
                                               : planner(plan, request);
        },
        [this](const LatestSearch<ClusterPlan>::Outcome& outcome) { searchDone(*outcome); });
    updateState();
}

void ClusterPlanView::searchDone(const Result<ClusterPlan>& outcome)
{
    m_searching = false;
    m_shown = m_pending;
    if (outcome.ok()) {
        m_error.clear();
        m_result = outcome.value();
    } else {
        m_error = qs(outcome.error().message);
        m_result = ClusterPlan {};
    }
    m_model->setLayouts(m_result.layouts);
    if (m_model->rowCount() > 0)
        m_table->selectRow(0);
    updateLeftOut();
    updateState();
    Q_EMIT searchFinished();
}

void ClusterPlanView::updateLeftOut()
{
    m_leftOut->setVisible(!m_result.leftOut.empty());
    QStringList lines;
    for (const std::string& what : m_result.leftOut)
        lines << qs(what);
    m_leftOut->setFullText(
        lines.isEmpty() ? QString() : tr("Left out: %1.").arg(lines.join(QStringLiteral("; "))));
}

QString ClusterPlanView::statusText() const
{
    if (m_searching)
        return tr("Searching the layouts…");
    if (!m_shown)
        return tr("Find Layouts searches tensor × pipeline × data × context × expert parallelism, the "
                  "micro-batch, recomputation and ZeRO stage for these GPUs and this global batch.");
    if (!resultIsCurrent())
        return tr("The set-up or the request changed since these layouts were found: Find Layouts to "
                  "search again.");
    if (!m_error.isEmpty())
        return tr("Cannot plan the cluster: %1").arg(m_error);
    if (m_result.layouts.empty())
        return tr("Nothing fits: %1.").arg(qs(m_result.nothingFits));
    const QString fit = m_result.layouts.size() == 1
        ? tr("1 layout fits")
        : tr("%1 layouts fit").arg(static_cast<qulonglong>(m_result.layouts.size()));
    return tr("%1, fastest first (%2). Double-click one or Apply Layout to set it.")
        .arg(fit, qs(report::plantext::clusterSearchedText(m_result)));
}

void ClusterPlanView::updateState()
{
    const bool current = resultIsCurrent();
    m_table->setEnabled(!m_searching && current);
    m_apply->setEnabled(!m_searching && current && m_model->rowCount() > 0);
    m_status->setText(statusText());
}

void ClusterPlanView::applySelected()
{
    if (m_searching || !resultIsCurrent())
        return; // the rows answer another plan or request
    const QModelIndexList rows = m_table->selectionModel()->selectedRows();
    const ClusterLayout* l = m_model->layout(rows.isEmpty() ? 0 : rows.front().row());
    if (!l)
        return;
    m_document->applyPlanSettings(l->settings, tr("Apply layout: %1").arg(layoutText(*l)));
}

} // namespace headroom::ui

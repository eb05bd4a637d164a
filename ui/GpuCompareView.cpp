#include "GpuCompareView.h"

#include "Document.h"
#include "GpuComparisonModel.h"
#include "QtText.h"

#include <QAction>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMenu>
#include <QSpinBox>
#include <QTableView>
#include <QVBoxLayout>
#include <algorithm>
#include <limits>

namespace headroom::ui {

GpuCompareView::GpuCompareView(Document* document, std::vector<Gpu> gpus, QWidget* parent)
    : QWidget(parent)
    , m_document { document }
    , m_gpus { std::move(gpus) }
    , m_model { new GpuComparisonModel(this) }
{
    m_target = new QSpinBox(this);
    m_target->setObjectName(QStringLiteral("compareTargetSpinBox"));
    m_target->setRange(0, std::numeric_limits<int>::max());
    m_target->setSpecialValueText(tr("Same as the set-up"));
    m_target->setToolTip(tr("Samples per optimizer step the GPU must reach"));
    auto* targetRow = new QHBoxLayout;
    auto* label = new QLabel(tr("&Target effective batch:"), this);
    label->setBuddy(m_target);
    targetRow->addWidget(label);
    targetRow->addWidget(m_target);
    targetRow->addStretch(1);
    m_table = new QTableView(this);
    m_table->setObjectName(QStringLiteral("compareTableView"));
    m_table->setModel(m_model);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->verticalHeader()->hide();
    m_table->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 6);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setSectionResizeMode(GpuComparisonModel::GpuColumn, QHeaderView::Stretch);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_useGpu = new QAction(tr("&Use This GPU"), this);
    m_useGpu->setObjectName(QStringLiteral("useGpuAction"));
    connect(m_useGpu, &QAction::triggered, this, [this] { useGpu(m_table->currentIndex().row()); });
    m_menu = new QMenu(this);
    m_menu->setObjectName(QStringLiteral("compareContextMenu"));
    m_menu->addAction(m_useGpu);
    m_table->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(m_table, &QWidget::customContextMenuRequested, this, &GpuCompareView::showContextMenu);
    connect(m_table, &QAbstractItemView::doubleClicked, this,
        [this](const QModelIndex& index) { useGpu(index.row()); });
    m_status = new QLabel(this);
    m_status->setObjectName(QStringLiteral("compareStatusLabel"));
    m_status->setWordWrap(true);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(targetRow);
    layout->addWidget(m_table, 1);
    layout->addWidget(m_status);

    connect(m_target, &QSpinBox::valueChanged, this, &GpuCompareView::refresh);
    connect(m_document, &Document::networkChanged, this, &GpuCompareView::planChanged);
    connect(m_document, &Document::networkReset, this, &GpuCompareView::planChanged);
    connect(m_document, &Document::strategyChanged, this, &GpuCompareView::planChanged);
    connect(m_document, &Document::precisionChanged, this, &GpuCompareView::planChanged);
    connect(m_document, &Document::setupChanged, this, &GpuCompareView::planChanged);
    connect(m_document, &Document::batchChanged, this, &GpuCompareView::planChanged);
}

void GpuCompareView::showContextMenu(const QPoint& position)
{
    const QModelIndex index = m_table->indexAt(position);
    if (!index.isValid())
        return;
    m_table->selectionModel()->setCurrentIndex(
        index, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    const auto row = static_cast<std::size_t>(index.row());
    if (row >= m_model->rows().size())
        return;
    const Gpu& gpu = m_model->rows()[row].gpu;
    m_useGpu->setText(tr("&Use %1").arg(qs(gpu.name)));
    m_useGpu->setEnabled(!(gpu == m_document->plan().gpu)); // already the plan's
    m_menu->popup(m_table->viewport()->mapToGlobal(position));
}

void GpuCompareView::useGpu(int row)
{
    const auto& rows = m_model->rows();
    if (row < 0 || static_cast<std::size_t>(row) >= rows.size())
        return;
    m_document->setGpu(rows[static_cast<std::size_t>(row)].gpu);
}

void GpuCompareView::setGpus(std::vector<Gpu> gpus)
{
    m_gpus = std::move(gpus);
    planChanged();
}

void GpuCompareView::showEvent(QShowEvent* event)
{
    QWidget::showEvent(event);
    if (m_stale)
        refresh();
}

void GpuCompareView::planChanged()
{
    m_stale = true;
    if (isVisible())
        refresh();
}

void GpuCompareView::refresh()
{
    m_stale = false;
    std::optional<std::int64_t> target;
    if (m_target->value() > 0)
        target = m_target->value();
    const std::int64_t batch = m_document->plan().setup.batch;
    if (m_document->network().layers.empty()) {
        m_model->setRows({}, batch);
        m_status->setText(tr("The network is empty: add layers to compare GPUs for it."));
        return;
    }
    auto rows = compareGpus(m_document->plan(), m_gpus, target);
    if (!rows) {
        m_model->setRows({}, batch);
        m_status->setText(tr("Cannot compare: %1").arg(qs(rows.error().message)));
        return;
    }
    m_model->setRows(std::move(rows).value(), batch);
    const auto& r = m_model->rows();
    const auto smallest
        = std::find_if(r.begin(), r.end(), [](const GpuComparison& g) { return g.smallestReachingTarget; });
    if (smallest == r.end()) {
        m_status->setText(
            tr("No GPU listed reaches the target with this set-up: Make it fit finds set-ups that do."));
    } else {
        m_status->setText(tr("The smallest GPU that reaches the target: %1.").arg(qs(smallest->gpu.name)));
        // Once the table is laid out (it may have just been shown).
        const int row = static_cast<int>(smallest - r.begin());
        QMetaObject::invokeMethod(
            this,
            [this, row] { m_table->scrollTo(m_model->index(row, 0), QAbstractItemView::PositionAtCenter); },
            Qt::QueuedConnection);
    }
}

} // namespace headroom::ui

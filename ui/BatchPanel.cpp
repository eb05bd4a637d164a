#include "BatchPanel.h"

#include "BatchScale.h"
#include "Document.h"
#include "PlanController.h"
#include "QtText.h"
#include "UiText.h"

#include <QGridLayout>
#include <QLabel>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSlider>
#include <QSpinBox>

#include <limits>

namespace headroom::ui {

BatchPanel::BatchPanel(Document* document, QWidget* parent) : QWidget(parent), m_document{document}
{
    m_slider = new QSlider(Qt::Horizontal, this);
    m_slider->setObjectName(QStringLiteral("batchSlider"));
    m_slider->setRange(0, BatchScale::kMaxPosition);
    m_slider->setSingleStep(10);
    m_slider->setPageStep(BatchScale::kStepsPerDoubling);
    m_slider->setTickInterval(BatchScale::kStepsPerDoubling);
    m_slider->setTickPosition(QSlider::TicksBelow);
    m_slider->setToolTip(tr("Batch size, 1 to 4096 on a logarithmic scale (each tick doubles it)"));

    m_spin = new QSpinBox(this);
    m_spin->setObjectName(QStringLiteral("batchSpinBox"));
    m_spin->setRange(1, std::numeric_limits<int>::max());
    m_spin->setAccelerated(true);
    m_spin->setMinimumWidth(m_spin->fontMetrics().horizontalAdvance(QStringLiteral("00000000")) + 30);

    m_setMax = new QPushButton(tr("Set to Max"), this);
    m_setMax->setObjectName(QStringLiteral("setMaxBatchButton"));
    m_setMax->setToolTip(tr("Sets the batch size to the largest that fits the GPU"));

    m_maxBatch = new QLabel(this);
    m_maxBatch->setObjectName(QStringLiteral("maxBatchLabel"));
    QFont big = m_maxBatch->font();
    big.setPointSizeF(big.pointSizeF() * 1.6);
    big.setBold(true);
    m_maxBatch->setFont(big);
    m_total = new QLabel(this);
    m_total->setObjectName(QStringLiteral("totalLabel"));
    m_headroom = new QLabel(this);
    m_headroom->setObjectName(QStringLiteral("headroomLabel"));
    QFont bold = m_headroom->font();
    bold.setBold(true);
    m_headroom->setFont(bold);
    m_blocked = new QLabel(this);
    m_blocked->setObjectName(QStringLiteral("blockedLabel"));
    m_blocked->setWordWrap(true);
    m_blocked->setStyleSheet(QStringLiteral("color: #c01010;"));
    m_blocked->hide();

    auto* grid = new QGridLayout(this);
    grid->setContentsMargins(0, 0, 0, 0);
    auto* batchLabel = new QLabel(tr("Batch size:"), this);
    batchLabel->setBuddy(m_spin);
    grid->addWidget(batchLabel, 0, 0);
    grid->addWidget(m_slider, 0, 1);
    grid->addWidget(m_spin, 0, 2);
    grid->addWidget(m_setMax, 0, 3);
    auto* figures = new QHBoxLayout;
    figures->addWidget(m_maxBatch);
    figures->addSpacing(24);
    figures->addWidget(m_total);
    figures->addSpacing(24);
    figures->addWidget(m_headroom);
    figures->addStretch(1);
    grid->addLayout(figures, 1, 0, 1, 4);
    grid->addWidget(m_blocked, 2, 0, 1, 4);
    grid->setColumnStretch(1, 1);

    connect(m_slider, &QSlider::valueChanged, this,
            [this](int position) { m_document->setBatch(BatchScale::batchAt(position)); });
    connect(m_spin, &QSpinBox::valueChanged, this, [this](int batch) { m_document->setBatch(batch); });
    connect(m_setMax, &QPushButton::clicked, this, [this] {
        if (m_maxBatchValue > 0)
            m_document->setBatch(m_maxBatchValue);
    });
    connect(document, &Document::batchChanged, this, &BatchPanel::showBatch);
    showBatch(document->plan().setup.batch);
}

void BatchPanel::showBatch(std::int64_t batch)
{
    {
        const QSignalBlocker block(m_spin);
        m_spin->setValue(static_cast<int>(std::min<std::int64_t>(batch, std::numeric_limits<int>::max())));
    }
    // While the user drags, the slider stays where the mouse is (several positions round to one
    // batch); otherwise it follows the batch.
    if (!m_slider->isSliderDown() && BatchScale::batchAt(m_slider->value()) != batch) {
        const QSignalBlocker block(m_slider);
        m_slider->setValue(BatchScale::positionOf(batch));
    }
}

void BatchPanel::setEstimate(const EstimateState& state)
{
    if (state.estimate) {
        const Estimate& e = *state.estimate;
        showBatch(e.batch);
        m_maxBatchValue = e.maxBatch;
        m_maxBatch->setText(e.maxBatch > 0 ? tr("Max batch: %1").arg(UiText::count(static_cast<std::uint64_t>(e.maxBatch)))
                                           : tr("Does not fit, even at batch 1"));
        m_maxBatch->setStyleSheet(e.maxBatch > 0 ? QString() : QStringLiteral("color: #c01010;"));
        m_total->setText(tr("Total: %1 of %2").arg(UiText::bytes(e.total()), UiText::bytes(e.gpuMemoryBytes)));
        const double headroom = e.headroomBytes();
        if (headroom >= 0) {
            m_headroom->setText(tr("Headroom: %1").arg(UiText::bytes(static_cast<std::uint64_t>(headroom))));
            m_headroom->setStyleSheet(QStringLiteral("color: #1a7f37;"));
        } else {
            m_headroom->setText(tr("Shortfall: %1").arg(UiText::bytes(static_cast<std::uint64_t>(-headroom))));
            m_headroom->setStyleSheet(QStringLiteral("color: #c01010;"));
        }
        m_setMax->setEnabled(e.maxBatch > 0 && e.maxBatch != e.batch);
        m_blocked->hide();
    } else {
        m_maxBatchValue = 0;
        m_maxBatch->setText(tr("Max batch: —"));
        m_maxBatch->setStyleSheet(QString());
        m_total->setText(tr("Total: —"));
        m_headroom->clear();
        m_setMax->setEnabled(false);
        m_blocked->setText(state.error ? tr("No estimate: %1").arg(qs(state.error->message)) : QString());
        m_blocked->setVisible(state.error.has_value());
    }
}

} // namespace headroom::ui

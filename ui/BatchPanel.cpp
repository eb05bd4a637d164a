#include "BatchPanel.h"

#include "BatchScale.h"
#include "CoreText.h"
#include "Document.h"
#include "ElidedLabel.h"
#include "EntryNote.h"
#include "FieldCommit.h"
#include "FlowLayout.h"
#include "PlanController.h"
#include "PlanText.h" // report/
#include "QtText.h"
#include "UiText.h"
#include "headroom/analysis/Analysis.h"

#include <QGridLayout>
#include <QLabel>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSlider>
#include <QSpinBox>
#include <limits>

namespace headroom::ui {

BatchPanel::BatchPanel(Document* document, QWidget* parent)
    : QWidget(parent)
    , m_document { document }
{
    createBatchControls();
    createFigureLabels();
    // Under the batch size: why a typed batch was refused or put back.
    m_entryLabel = new QLabel(this);
    m_entryLabel->setObjectName(QStringLiteral("batchNoteLabel"));
    m_entryLabel->setWordWrap(true);
    m_entryLabel->hide();
    auto* entry = new EntryNote(m_spin, tr("the batch size"), tr("whole numbers from %1 up").arg(1));
    connect(entry, &EntryNote::changed, this,
        [this, entry] { EntryNote::show(m_entryLabel, entry->text(), entry->isProblem()); });
    connect(m_document, &Document::batchChanged, entry, &EntryNote::clear);

    layOut();
    // A drag is one undo step; every value typed in the box (committed after a pause, on Enter or
    // when the focus leaves) is one of its own.
    connect(m_slider, &QSlider::sliderPressed, this, [this] { m_dragStarted = true; });
    connect(m_slider, &QSlider::valueChanged, this, [this](int position) {
        const std::int64_t batch = BatchScale::batchAt(position);
        const bool continues = m_slider->isSliderDown() && !m_dragStarted;
        if (batch != m_document->plan().setup.batch)
            m_dragStarted = false;
        m_document->setBatch(batch, continues);
    });
    FieldCommit::attach(m_spin, [this] { m_document->setBatch(m_spin->value()); });
    connect(m_setMax, &QPushButton::clicked, this, [this] {
        if (m_maxBatchValue > 0)
            m_document->setBatch(m_maxBatchValue);
    });
    connect(m_document, &Document::batchChanged, this, &BatchPanel::showBatch);
    showBatch(document->plan().setup.batch);
}

void BatchPanel::createBatchControls()
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
}

void BatchPanel::createFigureLabels()
{
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

    const auto detailLabel = [this](const char* name) {
        auto* label = new QLabel(this);
        label->setObjectName(QString::fromLatin1(name));
        label->setWordWrap(true);
        label->setTextInteractionFlags(Qt::TextSelectableByMouse);
        label->hide();
        return label;
    };
    m_effective = detailLabel("effectiveBatchLabel");
    m_checkpointing = detailLabel("checkpointingLabel");
    m_trainable = detailLabel("trainableLabel");
    m_throughput = detailLabel("throughputLabel");
    // The caveats stay one line each (elided, in full on hover): they must not squeeze the chart.
    m_notes = new ElidedLabel(this);
    m_notes->setObjectName(QStringLiteral("throughputNotesLabel"));
    m_notes->hide();
    QFont small = m_notes->font();
    small.setPointSizeF(small.pointSizeF() * 0.9);
    m_notes->setFont(small);
    m_notes->setStyleSheet(QStringLiteral("color: palette(placeholder-text);"));
}

void BatchPanel::layOut()
{
    auto* grid = new QGridLayout(this);
    grid->setContentsMargins(0, 0, 0, 0);
    auto* batchLabel = new QLabel(tr("Batch size:"), this);
    batchLabel->setBuddy(m_spin);
    grid->addWidget(batchLabel, 0, 0);
    grid->addWidget(m_slider, 0, 1);
    grid->addWidget(m_spin, 0, 2);
    grid->addWidget(m_setMax, 0, 3);
    // The figures wrap onto a second line in a narrow window rather than widening it.
    auto* figures = new FlowLayout;
    figures->addWidget(m_maxBatch);
    figures->addWidget(m_total);
    figures->addWidget(m_headroom);
    grid->addWidget(m_entryLabel, 1, 1, 1, 3);
    grid->addLayout(figures, 2, 0, 1, 4);
    grid->addWidget(m_effective, 3, 0, 1, 4);
    grid->addWidget(m_checkpointing, 4, 0, 1, 4);
    grid->addWidget(m_trainable, 5, 0, 1, 4);
    grid->addWidget(m_throughput, 6, 0, 1, 4);
    grid->addWidget(m_notes, 7, 0, 1, 4);
    grid->setVerticalSpacing(3);
    grid->setColumnStretch(1, 1);
}

void BatchPanel::showBatch(std::int64_t batch)
{
    // Not over a value being typed (it is committed after a pause; an estimate may arrive meanwhile).
    if (const FieldCommit* typing = FieldCommit::of(m_spin); typing == nullptr || !typing->isPending()) {
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

void BatchPanel::showMaxBatch(const EstimateState& state, bool micro)
{
    const Estimate& e = *state.estimate;
    m_maxBatchValue = e.maxBatch;
    const QString max = UiText::count(static_cast<std::uint64_t>(e.maxBatch));
    if (e.maxBatch <= 0)
        m_maxBatch->setText(tr("Does not fit, even at batch 1"));
    else
        m_maxBatch->setText(
            micro ? tr("Max micro-batch per GPU: %1").arg(max) : tr("Max batch: %1").arg(max));
    if (!state.stage.isEmpty())
        m_maxBatch->setText(tr("%1 · %2").arg(m_maxBatch->text(), state.stage));
    m_maxBatch->setStyleSheet(e.maxBatch > 0 ? QString() : QStringLiteral("color: #c01010;"));
    m_maxBatch->setToolTip(state.reserved
            ? tr("From the reserved peak: the largest batch whose first two steps PyTorch's caching "
                 "allocator "
                 "can hold in %1 (the GPU's memory less the overhead), keeping %2 spare; %3 at "
                 "exactly %1.")
                  .arg(UiText::bytes(state.reserved->capacityBytes),
                      UiText::bytes(state.reserved->maxBatch.marginBytes),
                      UiText::count(static_cast<std::uint64_t>(state.reserved->maxBatch.unguarded)))
            : state.reservedNote);
}

bool BatchPanel::showTotal(const EstimateState& state, bool perGpu)
{
    // The tensors' sum, so labelled: what the GPU holds is the headroom's figure.
    const Estimate& e = *state.estimate;
    m_total->setText((perGpu ? tr("Tensors per GPU: %1 of %2") : tr("Tensors: %1 of %2"))
                         .arg(UiText::bytes(e.total()), UiText::bytes(e.gpuMemoryBytes)));
    QString totalTip = qs(report::plantext::peakText(e));
    const bool replayed = state.reserved && state.reserved->replayed(); // not on a slider tick
    if (replayed)
        totalTip += QLatin1Char('\n')
            + tr("Reserved by PyTorch's caching allocator: %1, plus %2 outside it")
                  .arg(UiText::bytes(state.reserved->peakReservedBytes),
                      UiText::bytes(state.reserved->overheadBytes))
            + QLatin1Char('\n')
            + tr("Allocated at its peak: %1 (tensors %2, cuBLAS and cuDNN workspaces %3)")
                  .arg(UiText::bytes(state.reserved->peakAllocatedBytes),
                      UiText::bytes(state.reserved->peakAllocatedTensorBytes()),
                      UiText::bytes(state.reserved->peakAllocatedWorkspaceBytes));
    if (!state.reservedNote.isEmpty())
        totalTip += QLatin1Char('\n') + state.reservedNote;
    m_total->setToolTip(totalTip);
    return replayed;
}

void BatchPanel::showHeadroom(const EstimateState& state, bool replayed)
{
    // One notion of fitting and headroom (applyReserved): what the GPU holds at the peak.
    const Estimate& e = *state.estimate;
    const QString red = QStringLiteral("color: #c01010;");
    const QString green = QStringLiteral("color: #1a7f37;");
    if (!e.hasHeadroom()) {
        // A slider tick: the max batch says whether it fits; the replay at the batch follows when it stops.
        m_headroom->setText(e.fits ? tr("Headroom: %1").arg(QStringLiteral("\u2026"))
                                   : tr("Above the max batch of PyTorch's reserved memory"));
        m_headroom->setStyleSheet(e.fits ? green : red);
        m_headroom->setToolTip(QString());
        return;
    }
    const double headroom = e.headroomBytes();
    if (e.withinMargin()) {
        m_headroom->setText(
            tr("Above the max batch: PyTorch's allocator would reserve %1").arg(UiText::bytes(e.heldBytes)));
        m_headroom->setStyleSheet(red);
    } else if (headroom >= 0) {
        m_headroom->setText(tr("Headroom: %1").arg(UiText::bytes(static_cast<std::uint64_t>(headroom))));
        m_headroom->setStyleSheet(green);
    } else {
        m_headroom->setText(tr("Shortfall: %1").arg(UiText::bytes(static_cast<std::uint64_t>(-headroom))));
        m_headroom->setStyleSheet(red);
    }
    m_headroom->setToolTip(replayed
            ? tr("The GPU's %1 less what it holds at the peak, %2: what PyTorch's caching allocator reserves "
                 "plus the overhead")
                  .arg(UiText::bytes(e.gpuMemoryBytes), UiText::bytes(e.heldBytes))
            : tr("The GPU's %1 less the tensors' peak, %2: PyTorch's caching allocator is not simulated")
                  .arg(UiText::bytes(e.gpuMemoryBytes), UiText::bytes(e.heldBytes)));
}

void BatchPanel::showEffectiveBatch(const EstimateState& state)
{
    const Estimate& e = *state.estimate;
    QStringList factors { UiText::count(static_cast<std::uint64_t>(e.batch)) };
    if (state.accumulationSteps > 1)
        factors << tr("%1 steps").arg(state.accumulationSteps);
    if (state.parallel.dataParallel() > 1)
        factors << tr("%1 GPUs").arg(state.parallel.dataParallel());
    m_effective->setText(tr("Effective batch: %1 (%2); at most %3")
                             .arg(UiText::count(static_cast<std::uint64_t>(e.effectiveBatch)),
                                 factors.join(QStringLiteral(" × ")),
                                 UiText::count(static_cast<std::uint64_t>(e.maxEffectiveBatch))));
    m_effective->setToolTip(tr("Samples per optimizer step: micro-batch × accumulation steps × data-parallel "
                               "GPUs"));
}

void BatchPanel::showNoFigures(const QString& maxBatch, const QString& total)
{
    m_maxBatchValue = 0;
    m_maxBatch->setText(maxBatch);
    m_maxBatch->setStyleSheet(QString());
    m_total->setText(total);
    m_total->setToolTip(QString());
    m_headroom->clear();
    m_setMax->setEnabled(false);
    m_effective->hide();
}

void BatchPanel::setEstimate(const EstimateState& state)
{
    // With several GPUs or accumulation the batch is a micro-batch per GPU: say so.
    const bool perGpu = state.parallel.gpus > 1;
    const bool micro = perGpu || state.accumulationSteps > 1;
    if (state.emptyNetwork) {
        // Only the input and the overhead: a max batch would be a number about nothing.
        showNoFigures(tr("The network is empty"), tr("Add layers to see how much memory training it takes."));
    } else if (state.estimate) {
        const Estimate& e = *state.estimate;
        showBatch(e.batch);
        showMaxBatch(state, micro);
        const bool replayed = showTotal(state, perGpu);
        showHeadroom(state, replayed);
        m_setMax->setEnabled(e.maxBatch > 0 && e.maxBatch != e.batch);
        if (micro)
            showEffectiveBatch(state);
        m_effective->setVisible(micro);
    } else {
        showNoFigures(micro ? tr("Max micro-batch per GPU: —") : tr("Max batch: —"),
            perGpu ? tr("Per GPU: —") : tr("Total: —"));
    }
    showThroughput(state);
}

void BatchPanel::showThroughput(const EstimateState& state)
{
    if (state.throughput) {
        const ThroughputEstimate& t = *state.throughput;
        QString text = tr("Step: %1 · %2 samples/s")
                           .arg(UiText::seconds(t.stepSeconds), UiText::rate(t.samplesPerSecond));
        if (t.tokensPerSecond > 0)
            text += tr(" · %1 tokens/s").arg(UiText::rate(t.tokensPerSecond));
        text += tr(" (at %1 of %2 TFLOPS%3)")
                    .arg(qs(report::plantext::formatFraction(t.utilization)),
                        qs(report::plantext::formatRate(t.peakTflops)),
                        t.memoryBound ? tr(", memory-bound") : QString());
        m_throughput->setText(text);
        m_throughput->setToolTip(
            tr("Per optimizer step and GPU: %1 (forward %2, backward %3, recomputation %4 per sample); "
               "compute %5, "
               "memory traffic %6")
                .arg(UiText::flops(t.flopsPerStep), UiText::flops(t.forwardFlopsPerSample),
                    UiText::flops(t.backwardFlopsPerSample), UiText::flops(t.recomputeFlopsPerSample),
                    UiText::seconds(t.computeSeconds), UiText::seconds(t.memorySeconds)));
        m_throughput->show();
        QStringList notes;
        for (const auto& n : t.noteTemplates)
            notes << CoreText::format(n);
        m_notes->setFullText(notes.join(QLatin1Char('\n')));
        m_notes->setVisible(!notes.isEmpty());
    } else if (state.throughputError) {
        m_throughput->setText(tr("Throughput: — (%1)").arg(qs(state.throughputError->message)));
        m_throughput->setToolTip(QString());
        m_throughput->show();
        m_notes->hide();
    } else {
        m_throughput->hide();
        m_notes->hide();
    }
}

void BatchPanel::setAnalysis(const Analysis& a)
{
    const bool checkpointing = a.options.checkpointing != Checkpointing::None && a.valid();
    if (checkpointing) {
        const std::uint64_t kept = a.activationBytesPerSample;
        const std::uint64_t full = a.uncheckpointedActivationBytesPerSample;
        // Checkpointing a single cheap layer can cost memory: its recomputed output is alive next
        // to the kept input during backward. Say so rather than "−0%".
        // Shares as the report and the command line print them (plantext::percentText: "63.0 %").
        const QString percent = qs(report::plantext::percentText(
            std::abs(static_cast<double>(kept) - static_cast<double>(full)), static_cast<double>(full)));
        QString effect;
        if (kept < full)
            effect = tr("−%1").arg(percent);
        else if (kept > full)
            effect = tr("+%1: checkpointing these layers costs memory").arg(percent);
        else
            effect = tr("no saving");
        m_checkpointing->setText(
            tr("Checkpointing: activations %1 instead of %2 per sample (%3), recomputing %4 "
               "per sample (+%5 forward compute)")
                .arg(UiText::bytes(kept), UiText::bytes(full), effect,
                    UiText::flops(static_cast<double>(a.recomputeFlopsPerSample)),
                    qs(report::plantext::percentText(static_cast<double>(a.recomputeFlopsPerSample),
                        static_cast<double>(a.forwardFlopsPerSample)))));
        m_checkpointing->setStyleSheet(kept > full ? QStringLiteral("color: #b35900;") : QString());
    }
    m_checkpointing->setVisible(checkpointing);

    const bool partial = a.valid() && a.trainableParams != a.totalParams;
    if (partial) {
        QString text = tr("Trainable: %1 of %2 parameters (%3)")
                           .arg(UiText::count(a.trainableParams), UiText::count(a.totalParams),
                               qs(report::plantext::percentText(static_cast<double>(a.trainableParams),
                                   static_cast<double>(a.totalParams))));
        if (a.loraParams > 0)
            text += tr("; LoRA adapters: %1").arg(UiText::count(a.loraParams));
        m_trainable->setText(text);
    }
    m_trainable->setVisible(partial);
}

} // namespace headroom::ui

#pragma once

#include "headroom/setup/Training.h"

#include <QWidget>
#include <cstdint>

namespace headroom {
struct Analysis;
}

class QLabel;
class QPushButton;
class QSlider;
class QSpinBox;

namespace headroom::ui {

class Document;
struct EstimateState;

/// The batch size (a logarithmic slider and a spin box) and what it costs: the total (per GPU), the
/// headroom or shortfall, and the largest (micro-)batch that fits, with a button to jump to it; then
/// what the strategies do: the effective batch, checkpointing's savings (or cost) and extra
/// compute, the trainable parameters, and the estimated step time and throughput with its caveats.
/// Without an estimate it says only that there is none: why is shown where it can be fixed.
class BatchPanel final : public QWidget
{
    Q_OBJECT

public:
    explicit BatchPanel(Document* document, QWidget* parent = nullptr);

public Q_SLOTS:
    void setEstimate(const headroom::ui::EstimateState& state);
    void setAnalysis(const headroom::Analysis& analysis);

private:
    /// The slider, the spin box and Set to Max.
    void createBatchControls();
    /// The max batch, total and headroom figures and the detail lines under them.
    void createFigureLabels();
    void layOut();
    void showBatch(std::int64_t batch);
    /// setEstimate()'s parts for an estimate: the max batch, the total (true when its tooltip has the
    /// allocator's replay), the headroom or shortfall, the effective batch.
    void showMaxBatch(const headroom::ui::EstimateState& state, bool micro);
    bool showTotal(const headroom::ui::EstimateState& state, bool perGpu);
    void showHeadroom(const headroom::ui::EstimateState& state, bool replayed);
    void showEffectiveBatch(const headroom::ui::EstimateState& state);
    /// No figures (an empty network, or no estimate): what the two lines say instead.
    void showNoFigures(const QString& maxBatch, const QString& total);
    void showThroughput(const headroom::ui::EstimateState& state);

    Document* m_document;
    QSlider* m_slider;
    QSpinBox* m_spin;
    QPushButton* m_setMax;
    QLabel* m_entryLabel;
    QLabel* m_total;
    QLabel* m_headroom;
    QLabel* m_maxBatch;
    QLabel* m_effective;
    QLabel* m_checkpointing;
    QLabel* m_trainable;
    QLabel* m_throughput;
    class ElidedLabel* m_notes;
    std::int64_t m_maxBatchValue = 0;
    bool m_dragStarted = false; ///< the slider was pressed and has not yet changed the batch
};

} // namespace headroom::ui

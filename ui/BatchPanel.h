#pragma once

#include <QWidget>

#include <cstdint>

class QLabel;
class QPushButton;
class QSlider;
class QSpinBox;

namespace headroom::ui {

class Document;
struct EstimateState;

/// The batch size (a logarithmic slider and a spin box) and what it costs: the total, the
/// headroom or shortfall, and the largest batch that fits, with a button to jump to it.
class BatchPanel final : public QWidget {
    Q_OBJECT

public:
    explicit BatchPanel(Document* document, QWidget* parent = nullptr);

public Q_SLOTS:
    void setEstimate(const headroom::ui::EstimateState& state);

private:
    void showBatch(std::int64_t batch);

    Document* m_document;
    QSlider* m_slider;
    QSpinBox* m_spin;
    QPushButton* m_setMax;
    QLabel* m_total;
    QLabel* m_headroom;
    QLabel* m_maxBatch;
    QLabel* m_blocked;
    std::int64_t m_maxBatchValue = 0;
};

} // namespace headroom::ui

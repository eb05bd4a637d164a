#pragma once

#include "headroom/planner/Planner.h"

#include <QWidget>

class QCheckBox;
class QDoubleSpinBox;
class QHBoxLayout;
class QLabel;
class QPushButton;
class QSpinBox;
class QTableView;

namespace headroom::ui {

class Document;
class PlanCandidateModel;

/// "Make it fit": the planner (planSetups()) on the open plan. The user states the goal (an effective
/// batch, or the largest micro-batch; optionally a step-time limit) and what may change training
/// (precision, LoRA, 8-bit optimizer state); the panel lists the set-ups that fit, fastest first, and
/// Apply sets the chosen one in the document as one undoable step, so the chart shows it at once.
class MakeItFitPanel final : public QWidget
{
    Q_OBJECT

public:
    explicit MakeItFitPanel(Document* document, QWidget* parent = nullptr);

    [[nodiscard]] PlanCandidateModel* model() const noexcept { return m_model; }
    /// The goal as the controls state it.
    [[nodiscard]] PlanGoal goal() const;
    [[nodiscard]] PlanAllowances allowances() const;
    /// What the last search found (empty before the first).
    [[nodiscard]] const PlannerResult& result() const noexcept { return m_result; }

    /// Runs the planner on the document's plan now.
    void findSetups();
    /// Sets the selected set-up (the first when none is selected) in the document: one undo step.
    void applySelected();

protected:
    void showEvent(QShowEvent* event) override;

private:
    QHBoxLayout* createGoalRow();
    void createTable();
    QHBoxLayout* createButtonRow();
    void connectSignals();
    /// The plan changed: search again now if the panel is shown, else when it next is.
    void planChanged();
    void updateStatus();
    /// The note under the results on what the search left out (PlannerResult::leftOut), hidden when
    /// nothing was; the full sentences in its tooltip.
    void updateLeftOut();

    Document* m_document;
    PlanCandidateModel* m_model;
    QSpinBox* m_target;
    QDoubleSpinBox* m_maxStep;
    QCheckBox* m_allowPrecision;
    QCheckBox* m_allowLora;
    QCheckBox* m_allowEightBit;
    QTableView* m_table;
    QLabel* m_status;
    QLabel* m_leftOut;
    QPushButton* m_apply;
    PlannerResult m_result;
    bool m_stale = true;
};

} // namespace headroom::ui

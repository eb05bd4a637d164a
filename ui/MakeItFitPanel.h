#pragma once

#include "LatestSearch.h"
#include "headroom/planner/Planner.h"

#include <QWidget>
#include <functional>

class QCheckBox;
class QDoubleSpinBox;
class QHBoxLayout;
class QLabel;
class QPushButton;
class QSpinBox;
class QTableView;
class QTabWidget;

namespace headroom::ui {

class ClusterPlanView;
class Document;
class PlanCandidateModel;

/// "Make it fit": the planner (planSetups()) on the open plan; on its second tab the cluster planner
/// (ClusterPlanView: which layouts of G GPUs fit a global batch). The user states the goal (an effective
/// batch, or the largest micro-batch; optionally a step-time limit) and what may change training
/// (precision, LoRA, 8-bit optimizer state); the panel lists the set-ups that fit, fastest first, and
/// Apply sets the chosen one in the document as one undoable step, so the chart shows it at once.
///
/// The search runs off the GUI thread (issue 35: an edit with the panel open took seconds): each plan
/// or goal change starts one on a copy of the plan, the panel says "Searching…" meanwhile, and only the
/// latest search's result is shown; one that a newer search overtook is dropped when it arrives.
class MakeItFitPanel final : public QWidget
{
    Q_OBJECT

public:
    explicit MakeItFitPanel(Document* document, QWidget* parent = nullptr);
    ~MakeItFitPanel() override;

    [[nodiscard]] PlanCandidateModel* model() const noexcept { return m_model; }
    /// The "Cluster layouts" tab.
    [[nodiscard]] ClusterPlanView* clusterView() const noexcept { return m_cluster; }
    /// The tabs: set-ups of the GPU (SetupsTab), cluster layouts (ClusterTab).
    enum Tab { SetupsTab, ClusterTab };
    [[nodiscard]] QTabWidget* tabs() const noexcept { return m_tabs; }
    /// The goal as the controls state it.
    [[nodiscard]] PlanGoal goal() const;
    [[nodiscard]] PlanAllowances allowances() const;
    /// What the last search found (empty before the first).
    [[nodiscard]] const PlannerResult& result() const noexcept { return m_result; }

    /// Starts the planner on the document's plan (on another thread); the result shows when it is done.
    void findSetups();
    /// True from findSetups() until the latest search's result is shown.
    [[nodiscard]] bool searching() const noexcept { return m_searching; }
    /// Results that arrived after a newer search had started, and were dropped.
    [[nodiscard]] int staleResultsDropped() const noexcept { return m_search.dropped(); }
    /// Searches started whose result (or end, for one overtaken before it ran) has not arrived yet.
    [[nodiscard]] int searchesUnfinished() const noexcept { return m_search.unfinished(); }
    /// Searches that ran (the others were overtaken before they started).
    [[nodiscard]] int searchesRun() const noexcept { return m_search.run(); }
    /// What a search runs, on another thread: planSetups() unless a test sets another.
    using Planner = std::function<Result<PlannerResult>(const Plan&, const PlanGoal&, const PlanAllowances&)>;
    void setPlanner(Planner planner) { m_planner = std::move(planner); }
    /// Sets the selected set-up (the first when none is selected) in the document: one undo step.
    void applySelected();

Q_SIGNALS:
    /// The latest search's result is shown.
    void searchFinished();

protected:
    void showEvent(QShowEvent* event) override;

private:
    QHBoxLayout* createGoalRow();
    void createTable();
    QHBoxLayout* createButtonRow();
    void connectSignals();
    /// The plan changed: search again now if the panel is shown, else when it next is.
    void planChanged();
    /// On the GUI thread: the latest search's outcome.
    void searchDone(const Result<PlannerResult>& outcome);
    void showCannotPlan(const QString& status);
    void updateStatus();
    /// The note under the results on what the search left out (PlannerResult::leftOut), hidden when
    /// nothing was; the full sentences in its tooltip.
    void updateLeftOut();

    Document* m_document;
    PlanCandidateModel* m_model;
    QTabWidget* m_tabs;
    ClusterPlanView* m_cluster;
    QSpinBox* m_target;
    QDoubleSpinBox* m_maxStep;
    QCheckBox* m_allowPrecision;
    QCheckBox* m_allowLora;
    QCheckBox* m_allowEightBit;
    QTableView* m_table;
    QLabel* m_status;
    QLabel* m_leftOut;
    QPushButton* m_apply;
    QLabel* m_rule;
    PlannerResult m_result;
    bool m_stale = true;
    bool m_searching = false;
    LatestSearch<PlannerResult> m_search;
    Planner m_planner = planSetups;
};

} // namespace headroom::ui

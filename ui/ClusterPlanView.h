#pragma once

#include "LatestSearch.h"
#include "ReportWriter.h" // report/
#include "headroom/planner/ClusterPlanner.h"

#include <QWidget>
#include <functional>
#include <optional>

class QLabel;
class QPushButton;
class QSpinBox;
class QTableView;
class QTimer;

namespace headroom::ui {

class ClusterLayoutModel;
class Document;
class ElidedLabel;

/// Make It Fit's cluster half: the layouts of G GPUs for the open plan's model and a global batch
/// (planCluster(), docs/planner.md "Planning a cluster"), fastest first, with what the search left out
/// or why nothing fits; Apply sets the chosen layout in the document as one undo step.
///
/// The fields start from the set-up (its GPUs; its batch × accumulation × data parallel) and follow it
/// until the user edits one or searches. GPUs per node is the set-up's own (TrainingSetup::gpusPerNode,
/// which the layouts found keep): the field always shows it, and an edit there is a set-up edit, one undo
/// step, that the set-up panel shows too. The search takes seconds for a large model, so it runs only on
/// request (Find layouts) or when the user changes a field after a first search, always off the GUI thread,
/// and only the latest search's result is shown. A set-up change the search depends on (not the batch, the
/// layout, the micro-batches or the recomputation it chooses itself) leaves the rows shown but marks
/// them out of date, with Apply off, until the user searches again: an edit never waits for a search.
class ClusterPlanView final : public QWidget
{
    Q_OBJECT

public:
    explicit ClusterPlanView(Document* document, QWidget* parent = nullptr);
    ~ClusterPlanView() override;

    [[nodiscard]] ClusterLayoutModel* model() const noexcept { return m_model; }
    /// What the fields ask for (the GPUs, global batch; GPUs per node and optimizer offload as set up).
    [[nodiscard]] ClusterRequest request() const;
    /// What the last search found (empty before the first).
    [[nodiscard]] const ClusterPlan& result() const noexcept { return m_result; }
    /// True when layouts are shown and they answer the open plan and the fields as they are now.
    [[nodiscard]] bool resultIsCurrent() const;
    /// The layouts shown, for a report of the open plan; empty unless resultIsCurrent().
    [[nodiscard]] std::optional<report::ClusterReport> reportable() const;

    /// Starts planCluster() on the document's plan and the fields (on another thread).
    void findLayouts();
    /// True from findLayouts() until the latest search's result is shown.
    [[nodiscard]] bool searching() const noexcept { return m_searching; }
    /// True while a search waits to start, once the edits of a field pause.
    [[nodiscard]] bool searchScheduled() const;
    /// Results that arrived after a newer search had started, and were dropped.
    [[nodiscard]] int staleResultsDropped() const noexcept { return m_search.dropped(); }
    /// Searches that ran (the others were overtaken before they started).
    [[nodiscard]] int searchesRun() const noexcept { return m_search.run(); }
    /// What a search runs, on another thread: planCluster() unless a test sets another.
    using Planner = std::function<Result<ClusterPlan>(const Plan&, const ClusterRequest&)>;
    void setPlanner(Planner planner) { m_planner = std::move(planner); }
    /// Sets the selected layout (the first when none is selected) in the document: one undo step.
    void applySelected();

Q_SIGNALS:
    /// The latest search's result is shown.
    void searchFinished();

private:
    void createFields();
    void createTable();
    void connectSignals();
    /// The set-up changed: the fields follow it (until edited), the rows may be out of date.
    void setupChanged();
    /// A field was edited by the user: it no longer follows the set-up; search again if asked before.
    void fieldEdited();
    /// GPUs per node was edited here: the set-up's changes; search again if asked before.
    void gpusPerNodeEdited();
    /// On the GUI thread: the latest search's outcome.
    void searchDone(const Result<ClusterPlan>& outcome);
    void updateState();
    [[nodiscard]] QString statusText() const;
    void updateLeftOut();

    Document* m_document;
    ClusterLayoutModel* m_model;
    QSpinBox* m_gpus = nullptr;
    QSpinBox* m_gpusPerNode = nullptr;
    QSpinBox* m_globalBatch = nullptr;
    QPushButton* m_find = nullptr;
    QTableView* m_table = nullptr;
    QLabel* m_status = nullptr;
    ElidedLabel* m_leftOut = nullptr;
    QPushButton* m_apply = nullptr;
    ClusterPlan m_result;
    QString m_error; ///< why the latest search could not plan; empty otherwise
    /// What the rows shown answer: the plan's settings and network (by its change count) and the request.
    struct Basis
    {
        PlanSettings settings;
        int networkGeneration = 0;
        ClusterRequest request;
    };
    std::optional<Basis> m_shown;
    std::optional<Basis> m_pending; ///< the latest search's
    int m_networkGeneration = 0;
    bool m_followSetup = true;
    bool m_requested = false; ///< the user has searched once: field changes search again
    bool m_searching = false;
    LatestSearch<ClusterPlan> m_search;
    QTimer* m_searchSoon; ///< a field edited after a first search: search again once the edits pause
    Planner m_planner = planCluster;
};

} // namespace headroom::ui

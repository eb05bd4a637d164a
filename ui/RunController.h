#pragma once

#include "headroom/estimate/RunComparison.h"
#include "headroom/measured/MeasuredRun.h"
#include "headroom/support/Error.h"

#include <QObject>
#include <QString>
#include <QTimer>
#include <memory>
#include <optional>

namespace headroom::ui {

class Document;
class PlanController;

/// The measured run open beside the plan (issue 36): the run as the core read it, what the user said
/// about its set-up, and the core's comparison of it with the PlanController's result, worked out again
/// (compareRun: one replay of the plan's trace) when the plan changes. It computes nothing itself: the
/// figures are compareRun's and calibratedMaxBatch's; the views read them from here.
class RunController final : public QObject
{
    Q_OBJECT

public:
    RunController(Document* document, PlanController* controller, QObject* parent = nullptr);

    /// Reads a run file on a worker thread while the GUI keeps painting (user input held back, a busy
    /// cursor): a 100 MB snapshot takes about a second. Errors as readMeasuredRun words them.
    [[nodiscard]] static Result<MeasuredRun> readOffThread(const QString& path);

    /// Opens `run`, read from `path`, beside the plan, and compares them at once.
    void open(MeasuredRun run, const QString& path, RunContext context);
    void close();
    [[nodiscard]] bool isOpen() const noexcept { return m_run != nullptr; }
    [[nodiscard]] const MeasuredRun* run() const noexcept { return m_run.get(); }
    [[nodiscard]] std::shared_ptr<const MeasuredRun> sharedRun() const noexcept { return m_run; }
    [[nodiscard]] QString path() const { return m_path; }
    [[nodiscard]] QString fileName() const;
    [[nodiscard]] const RunContext& context() const noexcept { return m_context; }
    /// The latest comparison (null while no run is open).
    [[nodiscard]] std::shared_ptr<const RunComparison> comparison() const noexcept { return m_comparison; }
    /// The calibrated max batch the proposal would give, worked out with the comparison (none where the
    /// run proposes nothing).
    [[nodiscard]] const std::optional<CalibratedMaxBatch>& calibrated() const noexcept
    {
        return m_calibrated;
    }
    /// How many times the comparison was worked out (tests: a plan change compares once, not per tick).
    [[nodiscard]] int comparisons() const noexcept { return m_comparisons; }

    /// Compares the run with the current result now (the plan's changes do it after a short pause).
    void recompare();
    /// The run proposes a term above 0 that the plan does not carry already.
    [[nodiscard]] bool canCalibrate() const;
    /// Applies the run's proposal to the plan (calibratedPlan's settings): one undo step. False where the
    /// run proposes nothing.
    bool calibrate();

Q_SIGNALS:
    /// A run was opened or closed, or the comparison was worked out again.
    void comparisonChanged();

private:
    Document* m_document;
    PlanController* m_controller;
    /// Restarted by each change of the plan's result: a slider drag compares once, where it stops.
    QTimer* m_timer;
    static constexpr int kRecompareDelayMs = 120;
    std::shared_ptr<const MeasuredRun> m_run;
    QString m_path;
    RunContext m_context;
    std::shared_ptr<const RunComparison> m_comparison;
    std::optional<CalibratedMaxBatch> m_calibrated;
    std::optional<Plan> m_calibratedKey; ///< the calibrated plan m_calibrated is for, its batch 0
    int m_comparisons = 0;
};

} // namespace headroom::ui

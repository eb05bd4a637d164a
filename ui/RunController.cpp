#include "RunController.h"

#include "Document.h"
#include "PlanController.h"

#include <QApplication>
#include <QEventLoop>
#include <QFileInfo>
#include <QMetaObject>
#include <filesystem>
#include <thread>
#include <utility>

namespace headroom::ui {

RunController::RunController(Document* document, PlanController* controller, QObject* parent)
    : QObject(parent)
    , m_document { document }
    , m_controller { controller }
    , m_timer { new QTimer(this) }
{
    m_timer->setSingleShot(true);
    m_timer->setInterval(kRecompareDelayMs);
    connect(m_timer, &QTimer::timeout, this, &RunController::recompare);
    // Every change of the plan's result (an edit, a set-up change, a slider tick) ends in a new estimate.
    connect(m_controller, &PlanController::estimateChanged, this, [this] {
        if (isOpen())
            m_timer->start();
    });
}

Result<MeasuredRun> RunController::readOffThread(const QString& path)
{
    std::optional<Result<MeasuredRun>> result;
    QEventLoop loop;
    QApplication::setOverrideCursor(Qt::WaitCursor);
    std::thread worker([&result, &loop, file = std::filesystem::path(path.toStdU16String())] {
        result.emplace(readMeasuredRun(file));
        // Queued: quits the loop once it runs (also when the read ends before exec() starts).
        QMetaObject::invokeMethod(&loop, &QEventLoop::quit, Qt::QueuedConnection);
    });
    loop.exec(QEventLoop::ExcludeUserInputEvents);
    worker.join();
    QApplication::restoreOverrideCursor();
    return std::move(*result);
}

void RunController::open(MeasuredRun run, const QString& path, RunContext context)
{
    m_run = std::make_shared<const MeasuredRun>(std::move(run));
    m_path = path;
    m_context = std::move(context);
    if (m_context.source.empty())
        m_context.source = QFileInfo(path).fileName().toStdString();
    recompare();
}

void RunController::close()
{
    m_timer->stop();
    m_run.reset();
    m_path.clear();
    m_context = {};
    m_comparison.reset();
    m_calibrated.reset();
    m_calibratedKey.reset();
    emit comparisonChanged();
}

QString RunController::fileName() const
{
    return QFileInfo(m_path).fileName();
}

void RunController::recompare()
{
    m_timer->stop();
    if (!m_run)
        return;
    const Plan& plan = m_document->plan();
    const PlanResult& result = m_controller->planResult();
    auto comparison = std::make_shared<RunComparison>(compareRun(*m_run, plan, result, m_context));
    // The calibrated max batch evaluates the calibrated plan (a set-up change): only when the plan or the
    // proposal changed, not when only the batch did (the max batch does not depend on it).
    const CalibrationProposal& proposal = comparison->calibration;
    if (proposal.available && (proposal.fixedBytes > 0 || proposal.perSampleBytes > 0) && result.estimate) {
        Plan key = calibratedPlan(plan, comparison->calibration);
        key.setup.batch = 0;
        if (!m_calibrated || !m_calibratedKey || !(*m_calibratedKey == key)) {
            m_calibrated = calibratedMaxBatch(plan, result, comparison->calibration);
            m_calibratedKey = std::move(key);
        }
    } else {
        m_calibrated.reset();
        m_calibratedKey.reset();
    }
    m_comparison = std::move(comparison);
    ++m_comparisons;
    emit comparisonChanged();
}

bool RunController::canCalibrate() const
{
    if (!m_comparison)
        return false;
    const CalibrationProposal& p = m_comparison->calibration;
    return p.available && (p.fixedBytes > 0 || p.perSampleBytes > 0)
        && !(calibratedPlan(m_document->plan(), p) == m_document->plan());
}

bool RunController::calibrate()
{
    if (!canCalibrate())
        return false;
    const Plan calibrated = calibratedPlan(m_document->plan(), m_comparison->calibration);
    m_document->applyPlanSettings(calibrated, tr("Calibrate from %1").arg(fileName()));
    return true;
}

} // namespace headroom::ui

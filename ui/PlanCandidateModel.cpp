#include "PlanCandidateModel.h"

#include "PlannerText.h" // report/
#include "UiText.h"

#include <QFont>
#include <algorithm>

namespace headroom::ui {

PlanCandidateModel::PlanCandidateModel(QObject* parent)
    : RowTableModel(ColumnCount, parent)
{
}

void PlanCandidateModel::rowsReset()
{
    m_tokens = std::any_of(
        rows().begin(), rows().end(), [](const PlanCandidate& c) { return c.tokensPerSecondPerGpu() > 0; });
}

QVariant PlanCandidateModel::alignment(int column)
{
    switch (column) {
    case RankColumn:
    case MemoryColumn:
    case MaxBatchColumn:
    case StepColumn:
    case SpeedColumn:
        return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
    case ParetoColumn:
        return QVariant::fromValue(Qt::AlignCenter);
    default:
        return QVariant::fromValue(Qt::AlignLeft | Qt::AlignVCenter);
    }
}

QVariant PlanCandidateModel::toolTip(const PlanCandidate& c, int column)
{
    if (column == TrainingColumn || column == ChangesColumn) {
        return c.changesTraining() ? tr("This set-up computes something different from the one you have: "
                                        "the model it trains can differ.")
                                   : tr("The same training as the set-up you have, run differently.");
    }
    if (column == ParetoColumn && c.paretoOptimal)
        return tr("On the Pareto front: no other set-up is as fast with less memory.");
    return {};
}

QVariant PlanCandidateModel::displayText(const PlanCandidate& c, const QModelIndex& index) const
{
    switch (static_cast<Column>(index.column())) {
    case RankColumn:
        return index.row() + 1;
    case ChangesColumn:
        return report::PlannerText::changes(c);
    case TrainingColumn:
        return report::PlannerText::training(c);
    case BatchColumn:
        return report::PlannerText::batch(c.settings.setup);
    case MemoryColumn:
        return UiText::bytes(c.estimate.heldBytes);
    case MaxBatchColumn:
        return UiText::count(static_cast<std::uint64_t>(std::max<std::int64_t>(c.estimate.maxBatch, 0)));
    case StepColumn:
        return c.throughput ? UiText::seconds(c.throughput->stepSeconds) : tr("–");
    case SpeedColumn:
        if (!c.throughput)
            return tr("–");
        return m_tokens ? UiText::rate(c.tokensPerSecondPerGpu()) : UiText::rate(c.samplesPerSecondPerGpu());
    case ParetoColumn:
        return c.paretoOptimal ? QStringLiteral("★") : QString();
    case ColumnCount:
        break;
    }
    return {};
}

QVariant PlanCandidateModel::cell(const PlanCandidate& c, const QModelIndex& index, int role) const
{
    switch (role) {
    case ParetoRole:
        return c.paretoOptimal;
    case ChangesTrainingRole:
        return c.changesTraining();
    case Qt::TextAlignmentRole:
        return alignment(index.column());
    case Qt::FontRole:
        if (c.paretoOptimal) {
            QFont bold;
            bold.setBold(true);
            return bold;
        }
        return {};
    case Qt::ToolTipRole:
        return toolTip(c, index.column());
    case Qt::DisplayRole:
        return displayText(c, index);
    default:
        return {};
    }
}

// Each header says what its column answers; the tooltip says it in full.
QVariant PlanCandidateModel::header(int column, bool tip) const
{
    switch (static_cast<Column>(column)) {
    case RankColumn:
        return tip ? tr("Fastest first") : tr("#");
    case ChangesColumn:
        return tip ? tr("What the set-up changes in yours (“As set up”: nothing)") : tr("What changes");
    case TrainingColumn:
        return tip ? tr("Whether that changes what training computes") : tr("Training");
    case BatchColumn:
        return tip
            ? tr(
                "The micro-batch (× accumulation steps × GPUs) the set-up runs to reach the goal: the target "
                "effective batch, or the largest that fits. Not your set-up's batch.")
            : tr("Planned batch");
    case MemoryColumn:
        return tip ? tr("What each GPU holds at the peak at the planned batch: what PyTorch's caching "
                        "allocator reserves, "
                        "plus the overhead")
                   : tr("Memory");
    case MaxBatchColumn:
        return tip ? tr("The largest micro-batch that fits with this set-up") : tr("Max batch");
    case StepColumn:
        return tip ? tr("One optimizer step at the planned batch") : tr("Step time");
    case SpeedColumn:
        if (tip)
            return tr("At the planned batch");
        return m_tokens ? tr("Tokens/s per GPU") : tr("Samples/s per GPU");
    case ParetoColumn:
        return tip ? tr("On the Pareto front: no other set-up is as fast with less memory.") : tr("Pareto");
    case ColumnCount:
        break;
    }
    return {};
}

} // namespace headroom::ui

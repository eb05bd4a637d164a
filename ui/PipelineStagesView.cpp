#include "PipelineStagesView.h"

#include "CoreText.h" // text/
#include "PlanText.h" // report/
#include "QtText.h"
#include "headroom/estimate/Pipeline.h"

#include <QHeaderView>
#include <QLabel>
#include <QSignalBlocker>
#include <QTableWidget>
#include <QVBoxLayout>

namespace headroom::ui {

PipelineStagesView::PipelineStagesView(QWidget* parent)
    : QWidget(parent)
{
    m_summary = new QLabel(this);
    m_summary->setObjectName(QStringLiteral("pipelineSummaryLabel"));
    m_summary->setWordWrap(true);
    m_table = new QTableWidget(this);
    m_table->setObjectName(QStringLiteral("pipelineStagesTable"));
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    connect(m_table, &QTableWidget::currentCellChanged, this, [this](int row, int, int, int) {
        if (row >= 0)
            Q_EMIT stageChosen(row);
    });
    m_table->verticalHeader()->hide();
    m_table->setWordWrap(false);
    m_errors = new QLabel(this);
    m_errors->setObjectName(QStringLiteral("pipelineErrorsLabel"));
    m_errors->setWordWrap(true);
    m_errors->setStyleSheet(QStringLiteral("color: #c01010;"));
    m_errors->hide();
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(m_summary);
    layout->addWidget(m_table, 1);
    layout->addWidget(m_errors);
}

void PipelineStagesView::setResult(const Plan& plan, const PlanResult& result, std::size_t charted)
{
    const QSignalBlocker quiet(m_table); // a rebuilt table is no choice of the user's
    using namespace report::plantext;
    const auto rows = pipelineStageRows(plan, result);
    QStringList headers;
    for (const auto& h : pipelineStageHeaders())
        headers << qs(h);
    m_table->clear();
    m_table->setColumnCount(static_cast<int>(headers.size()));
    m_table->setHorizontalHeaderLabels(headers);
    m_table->setRowCount(static_cast<int>(rows.size()));
    m_heaviestRow = -1;
    QStringList errors;
    for (int r = 0; r < static_cast<int>(rows.size()); ++r) {
        const PipelineStageRow& row = rows[static_cast<std::size_t>(r)];
        const std::array cells { row.stage, row.layers, row.params, row.inFlight, row.peak, row.held,
            row.maxBatch, row.fits };
        for (int c = 0; c < static_cast<int>(cells.size()); ++c) {
            auto* item = new QTableWidgetItem(qs(cells[static_cast<std::size_t>(c)]));
            item->setTextAlignment(Qt::AlignVCenter | (c <= 1 ? Qt::AlignLeft : Qt::AlignRight));
            if (row.heaviest) {
                QFont font = item->font();
                font.setBold(true);
                item->setFont(font);
            }
            // Why the stage holds what it does: its schedule's micro-batches in flight and their cost.
            item->setToolTip(row.explanation.empty() ? item->text() : qs(row.explanation));
            m_table->setItem(r, c, item);
        }
        if (row.heaviest)
            m_heaviestRow = r;
        if (!row.error.empty())
            errors << tr("Stage %1: %2").arg(qs(row.stage), qs(row.error));
    }
    m_table->resizeColumnsToContents();
    if (charted < rows.size())
        m_table->selectRow(static_cast<int>(charted));
    const Parallelism& par = plan.setup.parallel;
    const std::int64_t m = plan.setup.accumulationSteps;
    m_summary->setText(rows.empty()
            ? QString()
            : tr("%1 stages, %2, %3 micro-batches (the accumulation steps), bubble %4. The charts show %5; "
                 "choose a stage to chart it.")
                  .arg(par.pipelineParallel)
                  .arg(CoreText::translate(pipelineScheduleLabel(par.schedule)))
                  .arg(m)
                  .arg(qs(formatFraction(pipelineBubbleFraction(par, m))), qs(heaviestStageText(result))));
    m_errors->setText(errors.join(QLatin1Char('\n')));
    m_errors->setVisible(!errors.isEmpty());
}

} // namespace headroom::ui

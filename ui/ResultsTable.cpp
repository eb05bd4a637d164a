#include "ResultsTable.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTableView>

namespace headroom::ui {

QTableView* ResultsTable::table(QAbstractItemModel* model, const QString& objectName, QWidget* parent)
{
    auto* table = new QTableView(parent);
    table->setObjectName(objectName);
    table->setModel(model);
    table->setSelectionBehavior(QAbstractItemView::SelectRows);
    table->setSelectionMode(QAbstractItemView::SingleSelection);
    table->verticalHeader()->hide();
    table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    table->setWordWrap(false);
    table->verticalHeader()->setDefaultSectionSize(parent->fontMetrics().height() + 6);
    return table;
}

ResultsTable::ApplyRow ResultsTable::applyRow(QWidget* parent, const QString& statusName,
    const QString& applyText, const QString& applyName, const QString& applyTip)
{
    auto* status = new QLabel(parent);
    status->setObjectName(statusName);
    status->setWordWrap(true);
    auto* apply = new QPushButton(applyText, parent);
    apply->setObjectName(applyName);
    apply->setToolTip(applyTip);
    apply->setEnabled(false);
    auto* layout = new QHBoxLayout;
    layout->addWidget(status, 1);
    layout->addWidget(apply);
    return { status, apply, layout };
}

} // namespace headroom::ui

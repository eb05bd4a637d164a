#include "FormRows.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QString>
#include <QWidget>

namespace headroom::ui {

QLabel* buddyLabel(const QString& text, QWidget* buddy)
{
    auto* label = new QLabel(text, buddy->parentWidget());
    label->setBuddy(buddy);
    return label;
}

void addLabelledField(QHBoxLayout& row, const QString& text, QWidget* field)
{
    row.addWidget(buddyLabel(text, field));
    row.addWidget(field);
    row.addSpacing(12);
}

} // namespace headroom::ui

#pragma once

class QHBoxLayout;
class QLabel;
class QString;
class QWidget;

namespace headroom::ui {

/// A label that names `buddy` (its mnemonic focuses it), a child of the buddy's parent.
[[nodiscard]] QLabel* buddyLabel(const QString& text, QWidget* buddy);

/// Adds "label field" to a row of fields (Make It Fit's goal, the cluster's request): the label names
/// the field, and 12 px part the pair from what follows.
void addLabelledField(QHBoxLayout& row, const QString& text, QWidget* field);

} // namespace headroom::ui

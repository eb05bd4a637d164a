#pragma once

class QAbstractItemModel;
class QHBoxLayout;
class QLabel;
class QPushButton;
class QString;
class QTableView;
class QWidget;

namespace headroom::ui {

/// The parts Make It Fit's two tabs (the set-ups of the GPU, the cluster's layouts) build alike: a
/// table of what a search found, and under it the search's status beside the button that applies the
/// selected row.
struct ResultsTable final
{
    /// Whole rows selected one at a time, no row numbers, each column as wide as its text, one line
    /// a row.
    [[nodiscard]] static QTableView* table(
        QAbstractItemModel* model, const QString& objectName, QWidget* parent);

    /// The status (wrapped, taking the width) and the apply button (off until there is a row to apply).
    struct ApplyRow
    {
        QLabel* status;
        QPushButton* apply;
        QHBoxLayout* layout;
    };
    [[nodiscard]] static ApplyRow applyRow(QWidget* parent, const QString& statusName,
        const QString& applyText, const QString& applyName, const QString& applyTip);
};

} // namespace headroom::ui

#pragma once

#include <QWidget>

class QLabel;
class QPushButton;
class QTreeWidget;

namespace headroom::ui {

class Document;
class RunController;

/// The "Measured run" tab (issue 36): the run open beside the plan as the core compared them: the file,
/// its kind and steps, the set-up compared (given or assumed), the peaks per phase and per component
/// predicted and measured with their differences, the blocks nothing in the plan accounts for (largest
/// first, with where they were made), the set-up differences and notes, and the calibration the run
/// proposes, applied with one button (one undo step). It shows RunController's figures; it computes none.
class MeasuredRunPanel final : public QWidget
{
    Q_OBJECT

public:
    MeasuredRunPanel(RunController* runs, Document* document, QWidget* parent = nullptr);

    /// Rows of the table: top-level groups ("Peaks", "By phase", "By component at the peak"), each with
    /// rows of [what, predicted, measured, difference].
    [[nodiscard]] QTreeWidget* table() const noexcept { return m_table; }
    /// The unattributed blocks' sentences, largest first (at most kListedBlocks).
    [[nodiscard]] QTreeWidget* unattributedList() const noexcept { return m_unattributed; }
    [[nodiscard]] QPushButton* calibrateButton() const noexcept { return m_calibrate; }
    [[nodiscard]] QString headerText() const;
    [[nodiscard]] QString differencesText() const;
    [[nodiscard]] QString proposalText() const;
    [[nodiscard]] QString calibrationStateText() const;

    static constexpr int kListedBlocks = 200;

Q_SIGNALS:
    void closeRequested();

private:
    void refresh();
    void refreshCalibrationState();

    RunController* m_runs;
    Document* m_document;
    QLabel* m_header;
    QLabel* m_differences; ///< the set-up differences, prominent
    QTreeWidget* m_table;
    QTreeWidget* m_unattributed;
    QLabel* m_notes;
    QLabel* m_proposal;
    QPushButton* m_calibrate;
    QLabel* m_calibrationState;
};

} // namespace headroom::ui

#pragma once

#include "headroom/analysis/Analysis.h"

#include <QFrame>

class QLabel;
class QToolButton;

namespace headroom::ui {

/// A banner above the editor that lists every assumption behind the numbers (Analysis::warnings: an
/// operator modelled generically, an eval-mode export, balanced expert routing), each with the layer
/// it concerns. A long list shows its first lines and a button that shows the rest. Hidden while
/// there are none.
class WarningBanner final : public QFrame
{
    Q_OBJECT

public:
    explicit WarningBanner(QWidget* parent = nullptr);

    /// The warnings, one line each ("layer: message").
    [[nodiscard]] QStringList lines() const { return m_lines; }

public Q_SLOTS:
    void setAnalysis(const headroom::Analysis& analysis);

private:
    void showLines();

    QLabel* m_title;
    QLabel* m_list;
    QToolButton* m_more;
    QStringList m_lines;
    bool m_expanded = false;
};

} // namespace headroom::ui

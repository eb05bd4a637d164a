#pragma once

#include <QLabel>

namespace headroom::ui {

/// A label whose lines each stay on one line, elided at the right when the label is narrower than
/// they are, with the full text in its tooltip: small print (the throughput caveats) that must not
/// push the window taller or wider. Cut, it reads in full on hover, and a click unfolds it (every line
/// wrapped, whole) until the next click folds it again.
class ElidedLabel final : public QLabel
{
    Q_OBJECT

public:
    explicit ElidedLabel(QWidget* parent = nullptr);

    void setFullText(const QString& text);
    [[nodiscard]] QString fullText() const { return m_full; }
    /// True when a line is cut (folded, and narrower than the text).
    [[nodiscard]] bool isElided() const noexcept { return m_elided; }
    /// True while unfolded: every line whole, wrapped to the label's width.
    [[nodiscard]] bool isExpanded() const noexcept { return m_expanded; }
    void setExpanded(bool expanded);
    [[nodiscard]] QSize minimumSizeHint() const override;
    [[nodiscard]] QSize sizeHint() const override;

protected:
    void resizeEvent(QResizeEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;

private:
    void elide();

    QString m_full;
    bool m_elided = false;
    bool m_expanded = false;
};

} // namespace headroom::ui

#pragma once

#include <QLabel>

namespace headroom::ui {

/// A label whose lines each stay on one line, elided at the right when the label is narrower than
/// they are, with the full text in its tooltip: small print (the throughput caveats) that must not
/// push the window taller or wider, and stays readable in full on hover.
class ElidedLabel final : public QLabel
{
    Q_OBJECT

public:
    explicit ElidedLabel(QWidget* parent = nullptr);

    void setFullText(const QString& text);
    [[nodiscard]] QString fullText() const { return m_full; }
    [[nodiscard]] bool isElided() const noexcept { return m_elided; }
    [[nodiscard]] QSize minimumSizeHint() const override;
    [[nodiscard]] QSize sizeHint() const override;

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    void elide();

    QString m_full;
    bool m_elided = false;
};

} // namespace headroom::ui

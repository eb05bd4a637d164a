#pragma once

#include <QScrollArea>

namespace headroom::ui {

/// The main window's central area: its content at the content's minimum size wherever the screen
/// has room, scrolled where it has not. The area asks for the content's minimum height bounded by
/// the room the screen leaves once the rest of the window (menu bar, docked panels, status bar,
/// frame) has its minimum, so neither a docked panel nor a figure that grows makes the window taller
/// than the screen: a top-level window grows to its layout's minimum, whatever the screen holds. And
/// should the window still grow past the screen (QMainWindow makes room for a panel it shows), it is
/// brought back within it.
class ScreenBoundArea final : public QScrollArea
{
    Q_OBJECT

public:
    /// Shows `content`, and watches `window`'s layout to keep the bound current.
    ScreenBoundArea(QWidget* content, QWidget* window);

    [[nodiscard]] QSize minimumSizeHint() const override;
    [[nodiscard]] QSize sizeHint() const override;
    /// The most height the area asks for (-1 until the window is on a screen).
    [[nodiscard]] int heightBound() const noexcept { return m_bound; }

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void updateBound();
    void keepOnScreen();

    QWidget* m_window;
    int m_bound = -1;
};

} // namespace headroom::ui

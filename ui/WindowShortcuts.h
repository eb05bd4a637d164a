#pragma once

#include <QObject>

class QKeyEvent;
class QWidget;

namespace headroom::ui {

/// Keeps a window's shortcuts the window's. A text field claims some keys for its own editing
/// before any shortcut sees them (QLineEdit accepts the ShortcutOverride of Ctrl+E, "end of line",
/// and Ctrl+K, "delete to end of line", on X11, and of Ctrl+Z for its text history): a key that one
/// of the window's actions has as a window-wide shortcut (File > Export Report's Ctrl+E, Layer >
/// Checkpoint Selection's Ctrl+K, Edit > Undo's Ctrl+Z) goes to that action from every widget of
/// the window, and never to the field, even when the action is disabled. Keys of actions that only
/// act where their widget has the focus (the layer table's Delete) are left to the fields.
class WindowShortcuts final : public QObject
{
public:
    explicit WindowShortcuts(QWidget* window);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    [[nodiscard]] bool isWindowKey(const QKeyEvent& key) const;

    QWidget* m_window;
};

} // namespace headroom::ui

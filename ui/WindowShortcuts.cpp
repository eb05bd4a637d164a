#include "WindowShortcuts.h"

#include <QAction>
#include <QApplication>
#include <QKeyEvent>
#include <QWidget>

namespace headroom::ui {

WindowShortcuts::WindowShortcuts(QWidget* window)
    : QObject(window)
    , m_window { window }
{
    setObjectName(QStringLiteral("windowShortcuts"));
    qApp->installEventFilter(this);
}

bool WindowShortcuts::isWindowKey(const QKeyEvent& key) const
{
    const QKeySequence pressed(key.keyCombination());
    for (const QAction* action : m_window->findChildren<QAction*>()) {
        const Qt::ShortcutContext context = action->shortcutContext();
        if (context != Qt::WindowShortcut && context != Qt::ApplicationShortcut)
            continue;
        for (const QKeySequence& shortcut : action->shortcuts()) {
            if (shortcut == pressed)
                return true;
        }
    }
    return false;
}

bool WindowShortcuts::eventFilter(QObject* watched, QEvent* event)
{
    const QEvent::Type type = event->type();
    if ((type != QEvent::ShortcutOverride && type != QEvent::KeyPress) || !watched->isWidgetType()
        || static_cast<QWidget*>(watched)->window() != m_window)
        return false;
    auto* key = static_cast<QKeyEvent*>(event);
    if (!isWindowKey(*key))
        return false;
    if (type == QEvent::ShortcutOverride) {
        key->ignore(); // not the field's: the window's action takes it
        return true;
    }
    // A key press arrives only when no shortcut took the key (its action is disabled): the field
    // must not act on it either.
    return true;
}

} // namespace headroom::ui

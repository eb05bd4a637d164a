#include "ScreenBoundArea.h"

#include <QEvent>
#include <QLayout>
#include <QScreen>
#include <algorithm>

namespace headroom::ui {

ScreenBoundArea::ScreenBoundArea(QWidget* content, QWidget* window)
    : QScrollArea(window)
    , m_window { window }
{
    setObjectName(QStringLiteral("centralScrollArea"));
    setFrameShape(QFrame::NoFrame);
    setWidgetResizable(true);
    setWidget(content);
    // A change of the content's minimum (a figure wraps, a label appears) reaches the window's
    // layout through this area, which a scroll area does not pass on by itself.
    content->installEventFilter(this);
    window->installEventFilter(this);
}

QSize ScreenBoundArea::minimumSizeHint() const
{
    QSize size = widget()->minimumSizeHint().expandedTo(widget()->minimumSize());
    if (m_bound >= 0 && size.height() > m_bound)
        size.setHeight(m_bound); // scrolled: a scroll bar takes the room of the cut
    return size;
}

QSize ScreenBoundArea::sizeHint() const
{
    return widget()->sizeHint().expandedTo(minimumSizeHint());
}

bool ScreenBoundArea::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == widget() && event->type() == QEvent::LayoutRequest)
        updateGeometry();
    if (watched != m_window)
        return false;
    const QEvent::Type type = event->type();
    if (type == QEvent::LayoutRequest || type == QEvent::Show || type == QEvent::ScreenChangeInternal)
        updateBound();
    // Once the window has applied its new minimum (after this event).
    if (type == QEvent::LayoutRequest || type == QEvent::Resize)
        QMetaObject::invokeMethod(this, &ScreenBoundArea::keepOnScreen, Qt::QueuedConnection);
    return false;
}

void ScreenBoundArea::keepOnScreen()
{
    // QMainWindow grows the window to give a panel shown on it its preferred height (before the
    // bound above applies): take back what the screen does not hold, and keep the bottom (where
    // Make It Fit's Apply is) on the screen.
    const QScreen* screen = m_window->screen();
    if (screen == nullptr || (m_window->windowState() & (Qt::WindowMaximized | Qt::WindowFullScreen)))
        return;
    const QRect available = screen->availableGeometry();
    const int frame = m_window->frameGeometry().height() - m_window->height();
    if (m_window->height() + frame > available.height()
        && m_window->minimumHeight() + frame <= available.height())
        m_window->resize(m_window->width(), available.height() - frame);
    const QRect outer = m_window->frameGeometry();
    if (outer.bottom() > available.bottom())
        m_window->move(outer.left(), std::max(available.top(), available.bottom() - outer.height() + 1));
}

void ScreenBoundArea::updateBound()
{
    const QScreen* screen = m_window->screen();
    if (screen == nullptr || m_window->layout() == nullptr)
        return;
    // What the rest of the window needs at least (menu bar included): its minimum less this area's.
    const int others = m_window->minimumSizeHint().height() - minimumSizeHint().height();
    // The frame as the window system reports it, or room for a title bar until it does.
    constexpr int kTitleBar = 30;
    const int frame = std::max(m_window->frameGeometry().height() - m_window->height(), kTitleBar);
    const int bound = std::max(0, screen->availableGeometry().height() - frame - others);
    if (bound != m_bound) {
        m_bound = bound;
        updateGeometry();
    }
}

} // namespace headroom::ui

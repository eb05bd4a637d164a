#include "EntryNote.h"

#include <QAbstractSpinBox>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>

namespace headroom::ui {

EntryNote::EntryNote(QAbstractSpinBox* field, QString subject, QString rule)
    : QObject(field)
    , m_field { field }
    , m_subject { std::move(subject) }
    , m_rule { std::move(rule) }
{
    setObjectName(QStringLiteral("entryNote"));
    field->installEventFilter(this);
    auto* edit = field->findChild<QLineEdit*>();
    connect(edit, &QLineEdit::textEdited, this, &EntryNote::textEdited);
    connect(field, &QAbstractSpinBox::editingFinished, this, &EntryNote::editingFinished);
    // A new value (typed, the arrows, the wheel, set from outside) is a valid one: whatever was
    // refused before it no longer applies. (A spin box also signals its value unchanged, on Enter.)
    m_value = value();
    const auto newValue = [this] {
        const QVariant now = value();
        if (now == m_value)
            return;
        m_value = now;
        clear();
    };
    if (auto* spin = qobject_cast<QSpinBox*>(field))
        connect(spin, &QSpinBox::valueChanged, this, newValue);
    else if (auto* spin = qobject_cast<QDoubleSpinBox*>(field))
        connect(spin, &QDoubleSpinBox::valueChanged, this, newValue);
}

QVariant EntryNote::value() const
{
    if (const auto* spin = qobject_cast<const QSpinBox*>(m_field))
        return spin->value();
    if (const auto* spin = qobject_cast<const QDoubleSpinBox*>(m_field))
        return spin->value();
    return {};
}

QString EntryNote::text() const
{
    if (!m_refused.isEmpty() && !m_invalid.isEmpty())
        return tr("“%1” cannot be typed here, and “%2” is not allowed: %3 takes %4.")
            .arg(m_refused, m_invalid, m_subject, m_rule);
    if (!m_refused.isEmpty())
        return tr("“%1” cannot be typed here: %2 takes %3.").arg(m_refused, m_subject, m_rule);
    if (!m_invalid.isEmpty())
        return tr("“%1” is not allowed: %2 takes %3.").arg(m_invalid, m_subject, m_rule);
    return m_putBack;
}

void EntryNote::clear()
{
    const QString before = text();
    m_refused.clear();
    m_invalid.clear();
    m_putBack.clear();
    if (!before.isEmpty())
        Q_EMIT changed();
}

void EntryNote::show(QLabel* label, const QString& text, bool problem)
{
    label->setText(text);
    label->setStyleSheet(
        problem ? QStringLiteral("color: #c01010;") : QStringLiteral("color: palette(placeholder-text);"));
    label->setVisible(!text.isEmpty());
}

bool EntryNote::eventFilter(QObject* watched, QEvent* event)
{
    if (watched != m_field)
        return false;
    if (event->type() == QEvent::FocusIn) {
        m_value = value(); // set while its signals were blocked, perhaps
        return false;
    }
    // The arrows (keys, buttons) and the wheel on a number the field cannot take put its value back
    // rather than step (QAbstractSpinBox::stepBy): see whether they did, once they are done.
    if ((event->type() == QEvent::Wheel || event->type() == QEvent::MouseButtonRelease)
        && !m_invalid.isEmpty())
        QMetaObject::invokeMethod(this, &EntryNote::notePutBack, Qt::QueuedConnection);
    if (event->type() != QEvent::KeyPress)
        return false;
    auto* key = static_cast<QKeyEvent*>(event);
    const QString typed = key->text();
    const bool steps = key->key() == Qt::Key_Up || key->key() == Qt::Key_Down || key->key() == Qt::Key_PageUp
        || key->key() == Qt::Key_PageDown;
    if (steps && !m_invalid.isEmpty()) {
        static_cast<QObject*>(m_field)->event(event);
        notePutBack();
        return true;
    }
    if (typed.isEmpty() || !typed.front().isPrint()
        || (key->modifiers() & (Qt::ControlModifier | Qt::AltModifier | Qt::MetaModifier)))
        return false;
    // Let the field take the key now, then see whether it did: a number refuses letters silently.
    const QLineEdit* edit = m_field->findChild<QLineEdit*>();
    const QString before = edit->text();
    static_cast<QObject*>(m_field)->event(event);
    if (edit->text() == before) {
        m_refused += typed;
        m_putBack.clear();
        Q_EMIT changed();
    }
    return true;
}

void EntryNote::textEdited(const QString& text)
{
    m_refused.clear();
    m_putBack.clear();
    // Still being typed ("", "-") is no problem yet; a number the field cannot take is.
    const QString t = text.trimmed();
    bool number = false;
    QLocale().toDouble(t, &number);
    m_invalid = number && !m_field->hasAcceptableInput() ? t : QString();
    Q_EMIT changed();
}

void EntryNote::editingFinished()
{
    if (m_invalid.isEmpty() || !m_field->hasAcceptableInput()) {
        if (!m_refused.isEmpty()) {
            m_refused.clear();
            Q_EMIT changed();
        }
        return;
    }
    notePutBack();
}

void EntryNote::notePutBack()
{
    // The field has put its value back (QAbstractSpinBox corrects to the previous value): say so,
    // and the problem is gone with the number.
    if (m_invalid.isEmpty() || !m_field->hasAcceptableInput())
        return;
    m_putBack = tr("“%1” is not allowed, so %2 stays %3.").arg(m_invalid, m_subject, m_field->text());
    m_invalid.clear();
    m_refused.clear();
    Q_EMIT changed();
}

} // namespace headroom::ui

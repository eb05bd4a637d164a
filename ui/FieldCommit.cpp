#include "FieldCommit.h"

#include <QDoubleSpinBox>
#include <QLineEdit>
#include <QSpinBox>

namespace headroom::ui {

FieldCommit::FieldCommit(QObject* field, std::function<void()> commit)
    : QObject(field)
    , m_commit { std::move(commit) }
{
    setObjectName(QStringLiteral("fieldCommit"));
    m_pause.setSingleShot(true);
    m_pause.setInterval(kPauseMs);
    connect(&m_pause, &QTimer::timeout, this, &FieldCommit::commit);
}

template <typename SpinBox>
FieldCommit* FieldCommit::attachSpinBox(SpinBox* spin, std::function<void()> commit)
{
    auto* c = new FieldCommit(spin, std::move(commit));
    spin->setKeyboardTracking(true);
    connect(spin->template findChild<QLineEdit*>(), &QLineEdit::textEdited, c, &FieldCommit::typed);
    connect(spin, &SpinBox::valueChanged, c, &FieldCommit::changed);
    connect(spin, &SpinBox::editingFinished, c, &FieldCommit::flush);
    return c;
}

FieldCommit* FieldCommit::attach(QSpinBox* spin, std::function<void()> commit)
{
    return attachSpinBox(spin, std::move(commit));
}

FieldCommit* FieldCommit::attach(QDoubleSpinBox* spin, std::function<void()> commit)
{
    return attachSpinBox(spin, std::move(commit));
}

FieldCommit* FieldCommit::attach(QLineEdit* edit, std::function<void()> commit)
{
    auto* c = new FieldCommit(edit, std::move(commit));
    connect(edit, &QLineEdit::textEdited, c, &FieldCommit::typed);
    connect(edit, &QLineEdit::editingFinished, c, &FieldCommit::flush);
    return c;
}

FieldCommit* FieldCommit::of(const QObject* field)
{
    return field == nullptr
        ? nullptr
        : field->findChild<FieldCommit*>(QStringLiteral("fieldCommit"), Qt::FindDirectChildrenOnly);
}

void FieldCommit::flushAll(const QObject* root)
{
    for (FieldCommit* c : root->findChildren<FieldCommit*>(QStringLiteral("fieldCommit")))
        c->flush();
}

void FieldCommit::typed()
{
    m_typed = true;
    m_pause.start();
}

void FieldCommit::changed()
{
    if (m_typed)
        m_pause.start(); // the value follows the text: wait for the pause
    else
        commit();
}

void FieldCommit::flush()
{
    if (m_typed)
        commit();
}

void FieldCommit::commit()
{
    m_pause.stop();
    m_typed = false;
    m_commit();
}

} // namespace headroom::ui

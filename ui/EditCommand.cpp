#include "EditCommand.h"

namespace headroom::ui {

EditCommand::EditCommand(
    const QString& text, std::function<void()> redo, std::function<void()> undo, int mergeId, bool startsStep)
    : QUndoCommand(text)
    , m_redo { std::move(redo) }
    , m_undo { std::move(undo) }
    , m_mergeId { mergeId }
    , m_startsStep { startsStep }
{
}

void EditCommand::redo()
{
    m_redo();
}

void EditCommand::undo()
{
    m_undo();
}

bool EditCommand::mergeWith(const QUndoCommand* other)
{
    const auto* next = dynamic_cast<const EditCommand*>(other);
    if (next == nullptr || m_mergeId < 0 || next->m_mergeId != m_mergeId || next->m_startsStep)
        return false;
    // Keep our undo (the state before the first edit) and take the newest redo.
    m_redo = next->m_redo;
    return true;
}

} // namespace headroom::ui

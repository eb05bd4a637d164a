#pragma once

#include <QUndoCommand>
#include <functional>

namespace headroom::ui {

/// One undoable edit of a Document: a pair of actions that take the document from the state before
/// the edit to the state after it and back. Edits of the same setting made in a row (dragging the
/// batch slider) merge into one step when they carry the same non-negative merge id, unless the later
/// one starts a step of its own (`startsStep`: a value typed and committed, or a new drag).
class EditCommand final : public QUndoCommand
{
public:
    EditCommand(const QString& text, std::function<void()> redo, std::function<void()> undo, int mergeId = -1,
        bool startsStep = false);

    void redo() override;
    void undo() override;
    [[nodiscard]] int id() const override { return m_mergeId; }
    bool mergeWith(const QUndoCommand* other) override;

private:
    std::function<void()> m_redo;
    std::function<void()> m_undo;
    int m_mergeId;
    bool m_startsStep;
};

} // namespace headroom::ui

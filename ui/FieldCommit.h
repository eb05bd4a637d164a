#pragma once

#include <QObject>
#include <QTimer>
#include <functional>

class QDoubleSpinBox;
class QLineEdit;
class QSpinBox;

namespace headroom::ui {

/// Makes a field's edits reach the document as the user types: a typed value is committed after a
/// short pause (so typing "128" makes one change, not three), at once on Enter or when the focus
/// leaves, and at once for a change that was not typed (arrows, mouse wheel). Enter commits even a
/// value the field already shows, so a field that shows what an invalid file holds accepts the fix.
/// Undo, save and export first commit what is pending (flushAll), so nothing typed is lost.
class FieldCommit final : public QObject
{
    Q_OBJECT

public:
    static constexpr int kPauseMs = 350;

    static FieldCommit* attach(QSpinBox* spin, std::function<void()> commit);
    static FieldCommit* attach(QDoubleSpinBox* spin, std::function<void()> commit);
    static FieldCommit* attach(QLineEdit* edit, std::function<void()> commit);
    /// Commits every pending edit of the fields under `root`.
    static void flushAll(const QObject* root);

    /// True while typed text waits for its pause.
    [[nodiscard]] bool isPending() const noexcept { return m_typed; }
    /// The FieldCommit attached to `field`, or null.
    [[nodiscard]] static FieldCommit* of(const QObject* field);
    void flush();

private:
    FieldCommit(QObject* field, std::function<void()> commit);
    template <typename SpinBox>
    static FieldCommit* attachSpinBox(SpinBox* spin, std::function<void()> commit);
    void typed();
    void changed();
    void commit();

    QTimer m_pause;
    std::function<void()> m_commit;
    bool m_typed = false;
};

} // namespace headroom::ui

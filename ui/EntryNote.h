#pragma once

#include <QObject>
#include <QString>
#include <QVariant>

class QAbstractSpinBox;
class QLabel;

namespace headroom::ui {

/// Says why a number field refuses what is typed into it, once, and takes the message away with
/// the problem. Three cases, one sentence each, every one naming the rule:
///  - keys a number cannot contain: "“abc” cannot be typed here: out_channels takes whole numbers
///    from 1 up." (the refused keys since the text last changed, together);
///  - a number outside the range: "“-5” is not allowed: ..." (both at once in one sentence);
///  - the field putting its value back when the focus leaves or Enter is pressed on such a number:
///    "“-5” is not allowed, so out_channels stays 64." (an entry, no longer a problem: shown muted
///    until the next edit); the same when an arrow key, an arrow button or the wheel puts the value
///    back instead of stepping from a number the field cannot take.
/// Every note goes once the field holds a new value, however it got there (typed, the arrows, the
/// wheel, set from outside): a refusal must not stay next to a field that has since been fixed.
class EntryNote final : public QObject
{
    Q_OBJECT

public:
    /// `subject`: what the field holds ("out_channels", "the batch size"); `rule`: what it takes
    /// ("whole numbers from 1 up"). The note is a child of `field`.
    EntryNote(QAbstractSpinBox* field, QString subject, QString rule);

    /// The note, or empty.
    [[nodiscard]] QString text() const;
    /// True while the field holds or was just refused something; false for a value put back.
    [[nodiscard]] bool isProblem() const noexcept { return !m_refused.isEmpty() || !m_invalid.isEmpty(); }
    /// Forgets everything (a new value was set from outside).
    void clear();
    /// Shows `text` in `label`, red for a problem and muted otherwise, and hides it when empty.
    static void show(QLabel* label, const QString& text, bool problem);

Q_SIGNALS:
    void changed();

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void textEdited(const QString& text);
    void editingFinished();
    /// The field shows an acceptable value again where a number it cannot take was: the put-back note.
    void notePutBack();
    /// The field's value (an int or a double).
    [[nodiscard]] QVariant value() const;

    QAbstractSpinBox* m_field;
    QString m_subject;
    QString m_rule;
    QString m_refused; ///< keys refused since the text last changed
    QString m_invalid; ///< the typed text, when it is not a value the field takes
    QString m_putBack; ///< the note about an entry the field put back
    QVariant m_value; ///< the value the field held last
};

} // namespace headroom::ui

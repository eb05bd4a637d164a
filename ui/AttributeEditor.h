#pragma once

#include "headroom/model/AttributeSpec.h"

#include <QList>
#include <QWidget>
#include <nlohmann/json.hpp>

class QAbstractSpinBox;
class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QHBoxLayout;
class QLabel;
class QLineEdit;
class QSpinBox;

namespace headroom::ui {

class EntryNote;

/// The editor of one layer attribute, generated from its AttributeSpec: a spin box with the valid
/// range for an Int; spin boxes with a "same for all" toggle (and the allowed words, such as
/// "same") for an IntTuple; a list field for an IntList; a double spin box for a Float; a check
/// box for a Bool; a combo box for a Choice; a line edit for a Text; and an "inferred" toggle for an optional
/// size.
///
/// It shows what the model file holds, even a value the spec does not allow (out_channels: 0 reads
/// "0", not the spin box's minimum), so the user sees the problem and can type the fix. The valid
/// range is in the tooltip, and a typed value outside it is explained under the field instead of
/// silently snapping back.
class AttributeEditor final : public QWidget
{
    Q_OBJECT

public:
    explicit AttributeEditor(AttributeSpec spec, QWidget* parent = nullptr);

    [[nodiscard]] const AttributeSpec& spec() const noexcept { return m_spec; }
    /// Shows the attribute as the model file holds it (null: not given, so its default or inferred).
    void setValue(const nlohmann::json& value);
    /// The value to store; null means "leave it out" (inferred).
    [[nodiscard]] nlohmann::json value() const;
    /// Shows the core's complaint about this attribute under the field (empty: none).
    void setError(const QString& message);
    /// What is shown under the field: a typed value's problem, else the core's error.
    [[nodiscard]] QString note() const;
    /// "1 or more", "0 to 1": the values the spec allows, as the tooltip and the notes say them.
    [[nodiscard]] static QString rangeText(const AttributeSpec& spec);

Q_SIGNALS:
    void edited(const nlohmann::json& value);

private:
    void emitEdited();
    void updateEnabled();
    void updateNote();
    void showTypingProblem(const QString& problem);
    /// The value's field(s) for m_spec.type, into `layout`.
    void addFields(QHBoxLayout* layout);
    /// The mode box (a size or one of the words), the spin boxes and "same for all".
    void addTupleFields(QHBoxLayout* layout);
    void addFloatField(QHBoxLayout* layout);
    /// The check box that leaves an optional attribute out.
    void addInferredBox(QHBoxLayout* layout);
    QSpinBox* addSpinBox(const QString& objectName);
    /// A field whose typed number waits for its pause (FieldCommit) before it counts.
    [[nodiscard]] static bool isTyping(QWidget* field);
    /// setValue()'s steps per type: each shows the value, or the raw text of one it cannot hold.
    static void showInt(QSpinBox* spinBox, const nlohmann::json& v);
    void showTupleMode(const nlohmann::json& value);
    void showTuple(const nlohmann::json& value);
    void showList(const nlohmann::json& value);
    void showFloat(const nlohmann::json& value);
    void showChoice(const nlohmann::json& value);
    /// Explains what a number field refuses (EntryNote), under the field.
    void watchEntries(QAbstractSpinBox* field);
    void checkTypedList(const QString& text);

    AttributeSpec m_spec;
    bool m_updating = false;
    QWidget* m_row = nullptr;
    QLabel* m_note = nullptr;
    QString m_typingProblem;
    QString m_error;
    QList<EntryNote*> m_entryNotes;
    QCheckBox* m_auto = nullptr;
    QComboBox* m_mode = nullptr;
    QCheckBox* m_same = nullptr;
    QList<QSpinBox*> m_spins;
    QDoubleSpinBox* m_double = nullptr;
    QCheckBox* m_check = nullptr;
    QComboBox* m_choice = nullptr;
    QLineEdit* m_list = nullptr;
    QLineEdit* m_text = nullptr;
};

} // namespace headroom::ui

#pragma once

#include "headroom/AttributeSpec.h"

#include <QList>
#include <QWidget>

#include <nlohmann/json.hpp>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLineEdit;
class QSpinBox;

namespace headroom::ui {

/// The editor of one layer attribute, generated from its AttributeSpec: a spin box with the valid
/// range for an Int; spin boxes with a "same for all" toggle (and the allowed words, such as
/// "same") for an IntTuple; a list field for an IntList; a double spin box for a Float; a check
/// box for a Bool; a combo box for a Choice; a line edit for a Text; and an "inferred" toggle for an optional size.
class AttributeEditor final : public QWidget {
    Q_OBJECT

public:
    explicit AttributeEditor(AttributeSpec spec, QWidget* parent = nullptr);

    [[nodiscard]] const AttributeSpec& spec() const noexcept { return m_spec; }
    /// Shows the attribute as the model file holds it (null: not given, so its default or inferred).
    void setValue(const nlohmann::json& value);
    /// The value to store; null means "leave it out" (inferred).
    [[nodiscard]] nlohmann::json value() const;

Q_SIGNALS:
    void edited(const nlohmann::json& value);

private:
    void emitEdited();
    void updateEnabled();
    QSpinBox* addSpinBox(const QString& objectName);

    AttributeSpec m_spec;
    bool m_updating = false;
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

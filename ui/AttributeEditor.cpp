#include "AttributeEditor.h"

#include "QtText.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QLineEdit>
#include <QRegularExpressionValidator>
#include <QSignalBlocker>
#include <QSpinBox>

#include <algorithm>
#include <cmath>
#include <limits>

namespace headroom::ui {

namespace {

constexpr double kFloatLimit = 1e9;

int toInt(std::int64_t v)
{
    return static_cast<int>(std::clamp<std::int64_t>(v, std::numeric_limits<int>::min(), std::numeric_limits<int>::max()));
}

std::int64_t jsonInt(const nlohmann::json& j, std::int64_t fallback)
{
    return j.is_number_integer() || j.is_number_unsigned() ? j.get<std::int64_t>() : fallback;
}

} // namespace

AttributeEditor::AttributeEditor(AttributeSpec spec, QWidget* parent) : QWidget(parent), m_spec{std::move(spec)}
{
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    setToolTip(qs(m_spec.help));

    switch (m_spec.type) {
    case AttributeType::Int: addSpinBox(QStringLiteral("valueSpinBox")); break;
    case AttributeType::IntTuple:
        if (!m_spec.choices.empty()) {
            m_mode = new QComboBox(this);
            m_mode->setObjectName(QStringLiteral("modeComboBox"));
            m_mode->addItem(tr("sizes"));
            for (const auto& c : m_spec.choices)
                m_mode->addItem(qs(c));
            layout->addWidget(m_mode);
            connect(m_mode, &QComboBox::currentIndexChanged, this, [this] {
                updateEnabled();
                emitEdited();
            });
        }
        for (int i = 0; i < std::max(1, m_spec.arity); ++i)
            addSpinBox(i == 0 ? QStringLiteral("valueSpinBox") : QStringLiteral("valueSpinBox%1").arg(i + 1));
        if (m_spec.arity > 1) {
            m_same = new QCheckBox(tr("same for all"), this);
            m_same->setObjectName(QStringLiteral("sameCheckBox"));
            m_same->setChecked(true);
            layout->addWidget(m_same);
            connect(m_same, &QCheckBox::toggled, this, [this] {
                updateEnabled();
                emitEdited();
            });
        }
        break;
    case AttributeType::IntList:
        m_list = new QLineEdit(this);
        m_list->setObjectName(QStringLiteral("listLineEdit"));
        m_list->setPlaceholderText(tr("e.g. 768 or 16, 16"));
        m_list->setValidator(new QRegularExpressionValidator(QRegularExpression(QStringLiteral(R"(\s*\d+(\s*,\s*\d+)*\s*)")), m_list));
        layout->addWidget(m_list);
        connect(m_list, &QLineEdit::editingFinished, this, &AttributeEditor::emitEdited);
        break;
    case AttributeType::Float: {
        m_double = new QDoubleSpinBox(this);
        m_double->setObjectName(QStringLiteral("valueDoubleSpinBox"));
        m_double->setDecimals(6);
        m_double->setKeyboardTracking(false);
        const double lo = std::isfinite(m_spec.minFloat) ? m_spec.minFloat : -kFloatLimit;
        const double hi = std::isfinite(m_spec.maxFloat) ? m_spec.maxFloat : kFloatLimit;
        m_double->setRange(m_spec.minFloatExclusive ? lo + 1e-6 : lo, hi);
        m_double->setSingleStep(hi - lo <= 1.0 ? 0.01 : 1.0);
        layout->addWidget(m_double);
        connect(m_double, &QDoubleSpinBox::valueChanged, this, &AttributeEditor::emitEdited);
        break;
    }
    case AttributeType::Bool:
        m_check = new QCheckBox(this);
        m_check->setObjectName(QStringLiteral("valueCheckBox"));
        layout->addWidget(m_check);
        connect(m_check, &QCheckBox::toggled, this, &AttributeEditor::emitEdited);
        break;
    case AttributeType::Text:
        m_text = new QLineEdit(this);
        m_text->setObjectName(QStringLiteral("textLineEdit"));
        m_text->setMaxLength(static_cast<int>(kMaxAttributeTextLength));
        layout->addWidget(m_text);
        connect(m_text, &QLineEdit::editingFinished, this, &AttributeEditor::emitEdited);
        break;
    case AttributeType::Choice:
        m_choice = new QComboBox(this);
        m_choice->setObjectName(QStringLiteral("valueComboBox"));
        for (const auto& c : m_spec.choices)
            m_choice->addItem(qs(c));
        layout->addWidget(m_choice);
        connect(m_choice, &QComboBox::currentIndexChanged, this, &AttributeEditor::emitEdited);
        break;
    }
    if (m_spec.optional) {
        // Says what is used instead, so no made-up number stands in the hidden field.
        const QString omitted = m_spec.whenOmitted.empty() ? tr("inferred") : qs(m_spec.whenOmitted);
        m_auto = new QCheckBox(omitted, this);
        m_auto->setObjectName(QStringLiteral("inferredCheckBox"));
        m_auto->setToolTip(tr("Leave %1 out of the model file: Headroom uses %2").arg(qs(m_spec.name), omitted));
        layout->addWidget(m_auto);
        connect(m_auto, &QCheckBox::toggled, this, [this] {
            updateEnabled();
            emitEdited();
        });
    }
    layout->addStretch(1);
    setValue(nullptr);
}

QSpinBox* AttributeEditor::addSpinBox(const QString& objectName)
{
    auto* spin = new QSpinBox(this);
    spin->setObjectName(objectName);
    spin->setRange(toInt(m_spec.minInt), toInt(m_spec.maxInt));
    spin->setKeyboardTracking(false);
    spin->setMinimumWidth(spin->fontMetrics().horizontalAdvance(QStringLiteral("0000000")) + 24);
    layout()->addWidget(spin);
    m_spins << spin;
    connect(spin, &QSpinBox::valueChanged, this, [this, spin](int v) {
        if (m_same != nullptr && m_same->isChecked() && spin == m_spins.front()) {
            for (auto* other : m_spins.mid(1)) {
                const QSignalBlocker block(other);
                other->setValue(v);
            }
        }
        emitEdited();
    });
    return spin;
}

void AttributeEditor::updateEnabled()
{
    const bool inferred = m_auto != nullptr && m_auto->isChecked();
    const bool sizes = m_mode == nullptr || m_mode->currentIndex() == 0;
    if (m_mode != nullptr) {
        m_mode->setEnabled(!inferred);
        m_mode->setHidden(inferred);
    }
    if (m_same != nullptr) {
        m_same->setEnabled(!inferred && sizes);
        m_same->setHidden(inferred);
    }
    for (qsizetype i = 0; i < m_spins.size(); ++i) {
        const bool shown = i == 0 || m_same == nullptr || !m_same->isChecked();
        m_spins[i]->setVisible(shown && !inferred);
        m_spins[i]->setEnabled(!inferred && sizes);
    }
    for (QWidget* w : std::initializer_list<QWidget*>{m_double, m_check, m_choice, m_list, m_text}) {
        if (w != nullptr) {
            w->setEnabled(!inferred);
            w->setHidden(inferred);
        }
    }
}

void AttributeEditor::setValue(const nlohmann::json& given)
{
    m_updating = true;
    const nlohmann::json value = given.is_null() ? m_spec.defaultValue : given;
    if (m_auto != nullptr)
        m_auto->setChecked(given.is_null() && m_spec.defaultValue.is_null());
    switch (m_spec.type) {
    case AttributeType::Int: m_spins.front()->setValue(toInt(jsonInt(value, m_spec.minInt))); break;
    case AttributeType::IntTuple: {
        if (m_mode != nullptr) {
            int mode = 0;
            if (value.is_string()) {
                const auto it = std::find(m_spec.choices.begin(), m_spec.choices.end(), value.get<std::string>());
                mode = it == m_spec.choices.end() ? 0 : static_cast<int>(it - m_spec.choices.begin()) + 1;
            }
            m_mode->setCurrentIndex(mode);
        }
        std::vector<std::int64_t> sizes(m_spins.size(), std::max<std::int64_t>(m_spec.minInt, 1));
        bool same = true;
        if (value.is_array()) {
            for (std::size_t i = 0; i < sizes.size() && i < value.size(); ++i)
                sizes[i] = jsonInt(value[i], sizes[i]);
            same = std::all_of(sizes.begin(), sizes.end(), [&](auto s) { return s == sizes.front(); });
        } else if (!value.is_string()) {
            std::fill(sizes.begin(), sizes.end(), jsonInt(value, sizes.front()));
        }
        for (qsizetype i = 0; i < m_spins.size(); ++i)
            m_spins[i]->setValue(toInt(sizes[static_cast<std::size_t>(i)]));
        if (m_same != nullptr)
            m_same->setChecked(same);
        break;
    }
    case AttributeType::IntList: {
        QStringList parts;
        if (value.is_array()) {
            for (const auto& v : value)
                parts << QString::number(jsonInt(v, 0));
        } else if (!value.is_null()) {
            parts << QString::number(jsonInt(value, 0));
        }
        m_list->setText(parts.join(QStringLiteral(", ")));
        break;
    }
    case AttributeType::Float: m_double->setValue(value.is_number() ? value.get<double>() : 0.0); break;
    case AttributeType::Bool: m_check->setChecked(value.is_boolean() && value.get<bool>()); break;
    case AttributeType::Text: m_text->setText(value.is_string() ? qs(value.get<std::string>()) : QString()); break;
    case AttributeType::Choice: {
        const auto it = value.is_string() ? std::find(m_spec.choices.begin(), m_spec.choices.end(), value.get<std::string>())
                                          : m_spec.choices.end();
        m_choice->setCurrentIndex(it == m_spec.choices.end() ? 0 : static_cast<int>(it - m_spec.choices.begin()));
        break;
    }
    }
    updateEnabled();
    m_updating = false;
}

nlohmann::json AttributeEditor::value() const
{
    if (m_auto != nullptr && m_auto->isChecked())
        return nullptr;
    switch (m_spec.type) {
    case AttributeType::Int: return m_spins.front()->value();
    case AttributeType::IntTuple: {
        if (m_mode != nullptr && m_mode->currentIndex() > 0)
            return m_spec.choices[static_cast<std::size_t>(m_mode->currentIndex() - 1)];
        if (m_same == nullptr || m_same->isChecked())
            return m_spins.front()->value();
        auto list = nlohmann::json::array();
        for (const auto* s : m_spins)
            list.push_back(s->value());
        return list;
    }
    case AttributeType::IntList: {
        auto list = nlohmann::json::array();
        for (const auto& part : m_list->text().split(QLatin1Char(','), Qt::SkipEmptyParts)) {
            bool ok = false;
            const qlonglong v = part.trimmed().toLongLong(&ok);
            if (ok)
                list.push_back(v);
        }
        if (list.empty())
            return nullptr;
        return list.size() == 1 ? list.front() : list;
    }
    case AttributeType::Float: return m_double->value();
    case AttributeType::Bool: return m_check->isChecked();
    case AttributeType::Choice: return ss(m_choice->currentText());
    case AttributeType::Text: return m_text->text().trimmed().isEmpty() ? nlohmann::json() : nlohmann::json(ss(m_text->text()));
    }
    return nullptr;
}

void AttributeEditor::emitEdited()
{
    if (!m_updating)
        Q_EMIT edited(value());
}

} // namespace headroom::ui

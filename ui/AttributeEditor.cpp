#include "AttributeEditor.h"

#include "CoreText.h"
#include "EntryNote.h"
#include "FieldCommit.h"
#include "QtText.h"
#include "UiText.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QRegularExpression>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <limits>

namespace headroom::ui {

namespace {

constexpr double kFloatLimit = 1e9;
constexpr int kRawItemRole
    = Qt::UserRole + 1; ///< a combo box item standing for an invalid value from the file

int toInt(std::int64_t v)
{
    return static_cast<int>(
        std::clamp<std::int64_t>(v, std::numeric_limits<int>::min(), std::numeric_limits<int>::max()));
}

bool isInteger(const nlohmann::json& j)
{
    return j.is_number_integer() || j.is_number_unsigned();
}

std::int64_t jsonInt(const nlohmann::json& j, std::int64_t fallback)
{
    return isInteger(j) ? j.get<std::int64_t>() : fallback;
}

/// How a value the file holds is written in it: 0, "abc", [3, 3, 3].
QString rawText(const nlohmann::json& j)
{
    return qs(j.dump());
}

/// A spin box that can show a value outside its range as the model file holds it ("0", "\"abc\"")
/// instead of its minimum, and lets a typed number outside the range stand until Enter puts the
/// value back (so the editor's EntryNote can say why).
template <typename Base, typename Value> class FileValueSpinBox final : public Base
{
public:
    explicit FileValueSpinBox(QWidget* parent)
        : Base(parent)
    {
        // Typing something else ends the file's value: from then on the box holds a number.
        QObject::connect(this->lineEdit(), &QLineEdit::textEdited, this, [this](const QString& text) {
            if (text != m_raw)
                m_raw.clear();
        });
    }
    /// Shows `raw` in place of the value (empty: the value). Signals are blocked meanwhile.
    void showRaw(const QString& raw)
    {
        m_raw = raw;
        const QSignalBlocker block(this);
        // setValue only redraws on a change: step away and back so the text is redone.
        Base::setValue(this->maximum());
        Base::setValue(this->minimum());
    }
    [[nodiscard]] bool showsRaw() const { return !m_raw.isEmpty(); }

protected:
    QString textFromValue(Value v) const override
    {
        return !m_raw.isEmpty() && v == this->minimum() ? m_raw : Base::textFromValue(v);
    }
    QValidator::State validate(QString& text, int& pos) const override
    {
        if (!m_raw.isEmpty() && text == m_raw)
            return QValidator::Intermediate; // not a value: Enter must not turn it into the minimum
        const QValidator::State state = Base::validate(text, pos);
        if (state != QValidator::Invalid)
            return state;
        static const QRegularExpression numberish { QStringLiteral(R"(^\s*[+-]?[0-9]*[.,]?[0-9]*\s*$)") };
        return numberish.match(text).hasMatch() ? QValidator::Intermediate : QValidator::Invalid;
    }

private:
    QString m_raw;
};

using IntSpinBox = FileValueSpinBox<QSpinBox, int>;
using RealSpinBox = FileValueSpinBox<QDoubleSpinBox, double>;

/// Shows `raw` as an extra first item of `combo` (or removes that item for an empty `raw`).
void showRawItem(QComboBox* combo, const QString& raw)
{
    if (combo->count() > 0 && combo->itemData(0, kRawItemRole).toBool())
        combo->removeItem(0);
    if (raw.isEmpty())
        return;
    combo->insertItem(0, raw);
    combo->setItemData(0, true, kRawItemRole);
    combo->setItemData(0, QColor(0xc0, 0x10, 0x10), Qt::ForegroundRole);
    combo->setCurrentIndex(0);
}

bool showsRawItem(const QComboBox* combo)
{
    return combo->currentIndex() >= 0 && combo->itemData(combo->currentIndex(), kRawItemRole).toBool();
}

/// The first index of a real (not raw) item.
int firstItem(const QComboBox* combo)
{
    return combo->count() > 0 && combo->itemData(0, kRawItemRole).toBool() ? 1 : 0;
}

} // namespace

AttributeEditor::AttributeEditor(AttributeSpec spec, QWidget* parent)
    : QWidget(parent)
    , m_spec { std::move(spec) }
{
    auto* outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    outer->setSpacing(2);
    m_row = new QWidget(this);
    auto* layout = new QHBoxLayout(m_row);
    layout->setContentsMargins(0, 0, 0, 0);
    outer->addWidget(m_row);
    m_note = new QLabel(this);
    m_note->setObjectName(QStringLiteral("noteLabel"));
    m_note->setWordWrap(true);
    m_note->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_note->setStyleSheet(QStringLiteral("color: #c01010;"));
    m_note->hide();
    outer->addWidget(m_note);
    const QString help = CoreText::translate(m_spec.help);
    setToolTip(
        (help.isEmpty() ? QString() : help + QLatin1Char('\n')) + tr("Allowed: %1.").arg(rangeText(m_spec)));

    addFields(layout);
    if (m_spec.optional)
        addInferredBox(layout);
    layout->addStretch(1);
    for (QWidget* w : m_row->findChildren<QWidget*>())
        w->setToolTip(w == m_auto ? w->toolTip() : toolTip());
    setValue(nullptr);
}

void AttributeEditor::addFields(QHBoxLayout* layout)
{
    switch (m_spec.type) {
    case AttributeType::Int:
        addSpinBox(QStringLiteral("valueSpinBox"));
        break;
    case AttributeType::IntTuple:
        addTupleFields(layout);
        break;
    case AttributeType::IntList:
        m_list = new QLineEdit(m_row);
        m_list->setObjectName(QStringLiteral("listLineEdit"));
        m_list->setPlaceholderText(tr("e.g. 768 or 16, 16"));
        layout->addWidget(m_list);
        connect(m_list, &QLineEdit::textEdited, this, &AttributeEditor::checkTypedList);
        FieldCommit::attach(m_list, [this] {
            if (m_typingProblem.isEmpty())
                emitEdited();
        });
        break;
    case AttributeType::Float:
        addFloatField(layout);
        break;
    case AttributeType::Bool:
        m_check = new QCheckBox(m_row);
        m_check->setObjectName(QStringLiteral("valueCheckBox"));
        layout->addWidget(m_check);
        connect(m_check, &QCheckBox::toggled, this, &AttributeEditor::emitEdited);
        break;
    case AttributeType::Text:
        m_text = new QLineEdit(m_row);
        m_text->setObjectName(QStringLiteral("textLineEdit"));
        m_text->setMaxLength(static_cast<int>(kMaxAttributeTextLength));
        layout->addWidget(m_text);
        connect(m_text, &QLineEdit::editingFinished, this, &AttributeEditor::emitEdited);
        break;
    case AttributeType::Choice:
        m_choice = new QComboBox(m_row);
        m_choice->setObjectName(QStringLiteral("valueComboBox"));
        for (const auto& c : m_spec.choices)
            m_choice->addItem(qs(c));
        layout->addWidget(m_choice);
        connect(m_choice, &QComboBox::currentIndexChanged, this, &AttributeEditor::emitEdited);
        break;
    }
}

void AttributeEditor::addTupleFields(QHBoxLayout* layout)
{
    if (!m_spec.choices.empty()) {
        m_mode = new QComboBox(m_row);
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
        m_same = new QCheckBox(tr("same for all"), m_row);
        m_same->setObjectName(QStringLiteral("sameCheckBox"));
        m_same->setChecked(true);
        layout->addWidget(m_same);
        connect(m_same, &QCheckBox::toggled, this, [this] {
            updateEnabled();
            emitEdited();
        });
    }
}

void AttributeEditor::addFloatField(QHBoxLayout* layout)
{
    auto* spin = new RealSpinBox(m_row);
    m_double = spin;
    m_double->setObjectName(QStringLiteral("valueDoubleSpinBox"));
    m_double->setDecimals(6);
    const double lo = std::isfinite(m_spec.minFloat) ? m_spec.minFloat : -kFloatLimit;
    const double hi = std::isfinite(m_spec.maxFloat) ? m_spec.maxFloat : kFloatLimit;
    m_double->setRange(m_spec.minFloatExclusive ? lo + 1e-6 : lo, hi);
    m_double->setSingleStep(hi - lo <= 1.0 ? 0.01 : 1.0);
    layout->addWidget(m_double);
    watchEntries(m_double);
    FieldCommit::attach(m_double, [this] {
        if (m_double->hasAcceptableInput()) // not the file's invalid value, as it still reads
            emitEdited();
    });
}

void AttributeEditor::addInferredBox(QHBoxLayout* layout)
{
    // Says what is used instead, so no made-up number stands in the hidden field.
    const QString omitted
        = m_spec.whenOmitted.empty() ? tr("inferred") : CoreText::translate(m_spec.whenOmitted);
    m_auto = new QCheckBox(omitted, m_row);
    m_auto->setObjectName(QStringLiteral("inferredCheckBox"));
    m_auto->setToolTip(tr("Leave %1 out of the model file: Headroom uses %2").arg(qs(m_spec.name), omitted));
    layout->addWidget(m_auto);
    connect(m_auto, &QCheckBox::toggled, this, [this] {
        updateEnabled();
        emitEdited();
    });
}

QSpinBox* AttributeEditor::addSpinBox(const QString& objectName)
{
    auto* spin = new IntSpinBox(m_row);
    spin->setObjectName(objectName);
    spin->setRange(toInt(m_spec.minInt), toInt(m_spec.maxInt));
    spin->setMinimumWidth(spin->fontMetrics().horizontalAdvance(QStringLiteral("0000000")) + 24);
    m_row->layout()->addWidget(spin);
    m_spins << spin;
    connect(spin, &QSpinBox::valueChanged, this, [this, spin](int v) {
        if (m_same != nullptr && m_same->isChecked() && spin == m_spins.front()) {
            for (auto* other : m_spins.mid(1)) {
                const QSignalBlocker block(other);
                other->setValue(v);
            }
        }
    });
    watchEntries(spin);
    FieldCommit::attach(spin, [this, spin] {
        if (spin->hasAcceptableInput()) // not the file's invalid value, as it still reads
            emitEdited();
    });
    return spin;
}

void AttributeEditor::watchEntries(QAbstractSpinBox* field)
{
    auto* note = new EntryNote(field, qs(m_spec.name), rangeText(m_spec));
    m_entryNotes << note;
    connect(note, &EntryNote::changed, this, &AttributeEditor::updateNote);
}

void AttributeEditor::checkTypedList(const QString& text)
{
    const QStringList parts = text.split(QRegularExpression(QStringLiteral(R"([,\s]+)")), Qt::SkipEmptyParts);
    QString problem;
    if (parts.isEmpty() && m_spec.required())
        problem = tr("%1 needs at least one size.").arg(qs(m_spec.name));
    for (const auto& part : parts) {
        bool ok = false;
        const qlonglong v = part.toLongLong(&ok);
        if (!ok || v < m_spec.minInt || v > m_spec.maxInt) {
            problem = tr("“%1” is not allowed: %2 takes %3, separated by commas.")
                          .arg(part, qs(m_spec.name), rangeText(m_spec));
            break;
        }
    }
    showTypingProblem(problem);
}

void AttributeEditor::showTypingProblem(const QString& problem)
{
    m_typingProblem = problem;
    updateNote();
}

void AttributeEditor::setError(const QString& message)
{
    m_error = message;
    updateNote();
}

QString AttributeEditor::note() const
{
    // What is wrong with what is typed, then what is wrong with the value, then what was put back.
    if (!m_typingProblem.isEmpty())
        return m_typingProblem;
    for (const EntryNote* n : m_entryNotes) {
        if (n->isProblem())
            return n->text();
    }
    if (!m_error.isEmpty())
        return m_error;
    for (const EntryNote* n : m_entryNotes) {
        if (!n->text().isEmpty())
            return n->text();
    }
    return {};
}

void AttributeEditor::updateNote()
{
    const bool problem = !m_typingProblem.isEmpty() || !m_error.isEmpty()
        || std::any_of(
            m_entryNotes.begin(), m_entryNotes.end(), [](const EntryNote* n) { return n->isProblem(); });
    EntryNote::show(m_note, note(), problem);
}

void AttributeEditor::updateEnabled()
{
    const bool inferred = m_auto != nullptr && m_auto->isChecked();
    const bool sizes
        = m_mode == nullptr || (m_mode->currentIndex() == firstItem(m_mode) && !showsRawItem(m_mode));
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
    for (QWidget* w : std::initializer_list<QWidget*> { m_double, m_check, m_choice, m_list, m_text }) {
        if (w != nullptr) {
            w->setEnabled(!inferred);
            w->setHidden(inferred);
        }
    }
}

bool AttributeEditor::isTyping(QWidget* field)
{
    // A number being typed stays as typed until its pause is over.
    const FieldCommit* c = FieldCommit::of(field);
    return c != nullptr && c->isPending();
}

void AttributeEditor::showInt(QSpinBox* spinBox, const nlohmann::json& v)
{
    if (isTyping(spinBox))
        return;
    auto* spin = static_cast<IntSpinBox*>(spinBox);
    const bool valid = isInteger(v) && jsonInt(v, 0) >= spin->minimum() && jsonInt(v, 0) <= spin->maximum();
    spin->showRaw(valid ? QString() : rawText(v));
    if (valid)
        spin->setValue(toInt(jsonInt(v, 0)));
}

void AttributeEditor::showTupleMode(const nlohmann::json& value)
{
    int mode = 0;
    QString raw;
    if (value.is_string()) {
        const auto it = std::find(m_spec.choices.begin(), m_spec.choices.end(), value.get<std::string>());
        if (it == m_spec.choices.end())
            raw = rawText(value);
        else
            mode = static_cast<int>(it - m_spec.choices.begin()) + 1;
    }
    showRawItem(m_mode, raw);
    if (raw.isEmpty())
        m_mode->setCurrentIndex(mode);
}

void AttributeEditor::showTuple(const nlohmann::json& value)
{
    const bool word = value.is_string();
    if (m_mode != nullptr)
        showTupleMode(value);
    const nlohmann::json fallback = std::max<std::int64_t>(m_spec.minInt, 1);
    if (value.is_array() && static_cast<int>(value.size()) == static_cast<int>(m_spins.size())) {
        for (qsizetype i = 0; i < m_spins.size(); ++i)
            showInt(m_spins[i], value[static_cast<std::size_t>(i)]);
        if (m_same != nullptr)
            m_same->setChecked(
                std::all_of(value.begin(), value.end(), [&](const auto& s) { return s == value.front(); }));
    } else if (value.is_array() || (word && m_mode == nullptr)
        || (!word && !isInteger(value) && !value.is_null())) {
        // Not a size the editor can spread over its boxes: show it whole in the first.
        showInt(m_spins.front(), value);
        for (auto* s : m_spins.mid(1))
            showInt(s, fallback);
        if (m_same != nullptr)
            m_same->setChecked(true);
    } else {
        for (auto* s : m_spins)
            showInt(s, word || value.is_null() ? fallback : value);
        if (m_same != nullptr)
            m_same->setChecked(true);
    }
}

void AttributeEditor::showList(const nlohmann::json& value)
{
    if (isTyping(m_list))
        return;
    QStringList parts;
    if (value.is_array()) {
        for (const auto& v : value)
            parts << (isInteger(v) ? QString::number(jsonInt(v, 0)) : rawText(v));
    } else if (!value.is_null()) {
        parts << (isInteger(value) ? QString::number(jsonInt(value, 0)) : rawText(value));
    }
    m_list->setText(parts.join(QStringLiteral(", ")));
}

void AttributeEditor::showFloat(const nlohmann::json& value)
{
    if (isTyping(m_double))
        return;
    auto* spin = static_cast<RealSpinBox*>(m_double);
    const double v = value.is_number() ? value.get<double>() : 0.0;
    const bool valid = value.is_null() || (value.is_number() && v >= spin->minimum() && v <= spin->maximum());
    spin->showRaw(valid ? QString() : rawText(value));
    if (valid)
        spin->setValue(v);
}

void AttributeEditor::showChoice(const nlohmann::json& value)
{
    const auto it = value.is_string()
        ? std::find(m_spec.choices.begin(), m_spec.choices.end(), value.get<std::string>())
        : m_spec.choices.end();
    const bool valid = it != m_spec.choices.end() || value.is_null();
    showRawItem(m_choice, valid ? QString() : rawText(value));
    if (valid)
        m_choice->setCurrentIndex(
            it == m_spec.choices.end() ? 0 : static_cast<int>(it - m_spec.choices.begin()));
}

void AttributeEditor::setValue(const nlohmann::json& given)
{
    m_updating = true;
    const nlohmann::json value = given.is_null() ? m_spec.defaultValue : given;
    if (m_auto != nullptr)
        m_auto->setChecked(given.is_null() && m_spec.defaultValue.is_null());
    switch (m_spec.type) {
    case AttributeType::Int:
        showInt(m_spins.front(),
            value.is_null() ? nlohmann::json(std::max<std::int64_t>(m_spec.minInt, 1)) : value);
        break;
    case AttributeType::IntTuple:
        showTuple(value);
        break;
    case AttributeType::IntList:
        showList(value);
        break;
    case AttributeType::Float:
        showFloat(value);
        break;
    case AttributeType::Bool:
        m_check->setChecked(value.is_boolean() && value.get<bool>());
        break;
    case AttributeType::Text:
        m_text->setText(value.is_string() ? qs(value.get<std::string>()) : QString());
        break;
    case AttributeType::Choice:
        showChoice(value);
        break;
    }
    m_typingProblem.clear();
    for (EntryNote* n : m_entryNotes)
        n->clear();
    updateNote();
    updateEnabled();
    m_updating = false;
}

nlohmann::json AttributeEditor::value() const
{
    if (m_auto != nullptr && m_auto->isChecked())
        return nullptr;
    switch (m_spec.type) {
    case AttributeType::Int:
        return m_spins.front()->value();
    case AttributeType::IntTuple: {
        if (m_mode != nullptr && m_mode->currentIndex() >= firstItem(m_mode) + 1)
            return m_spec.choices[static_cast<std::size_t>(m_mode->currentIndex() - firstItem(m_mode) - 1)];
        if (m_same == nullptr || m_same->isChecked())
            return m_spins.front()->value();
        auto list = nlohmann::json::array();
        for (const auto* s : m_spins)
            list.push_back(s->value());
        return list;
    }
    case AttributeType::IntList: {
        auto list = nlohmann::json::array();
        for (const auto& part :
            m_list->text().split(QRegularExpression(QStringLiteral(R"([,\s]+)")), Qt::SkipEmptyParts)) {
            bool ok = false;
            const qlonglong v = part.toLongLong(&ok);
            if (ok)
                list.push_back(v);
        }
        if (list.empty())
            return nullptr;
        return list.size() == 1 ? list.front() : list;
    }
    case AttributeType::Float:
        return m_double->value();
    case AttributeType::Bool:
        return m_check->isChecked();
    case AttributeType::Choice:
        if (showsRawItem(m_choice))
            return nlohmann::json::parse(ss(m_choice->currentText()), nullptr, false);
        return ss(m_choice->currentText());
    case AttributeType::Text:
        return m_text->text().trimmed().isEmpty() ? nlohmann::json() : nlohmann::json(ss(m_text->text()));
    }
    return nullptr;
}

void AttributeEditor::emitEdited()
{
    if (!m_updating)
        Q_EMIT edited(value());
}

} // namespace headroom::ui

#include "PropertyPanel.h"

#include "AttributeEditor.h"
#include "CoreText.h"
#include "Document.h"
#include "ErrorText.h"
#include "FieldCommit.h"
#include "LayerTableModel.h"
#include "QtText.h"
#include "UiText.h"
#include "headroom/layers/LayerRegistry.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QRegularExpression>
#include <QScrollArea>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QVBoxLayout>
#include <functional>

namespace headroom::ui {

namespace {

constexpr std::array kDTypes { DType::Float32, DType::Float16, DType::BFloat16, DType::Float64, DType::Int64,
    DType::Int32, DType::UInt8, DType::Bool };
constexpr std::array kLosses { Loss::CrossEntropy, Loss::Mse, Loss::L1, Loss::Bce, Loss::None };

QString joined(const std::vector<std::string>& names)
{
    QStringList parts;
    for (const auto& n : names)
        parts << qs(n);
    return parts.join(QStringLiteral(", "));
}

/// Shows the document's value in a field, unless the field already says the same (`same`), or the
/// user is typing there and has not paused yet.
void showInField(QLineEdit* edit, const QString& text,
    const std::function<bool(const QString&, const QString&)>& same = {})
{
    const bool equal = same ? same(edit->text(), text) : edit->text().trimmed() == text;
    const FieldCommit* typing = FieldCommit::of(edit);
    if (equal || (typing != nullptr && typing->isPending()))
        return;
    edit->setText(text);
}

/// A red line under a field saying why what was typed cannot be used (hidden when empty).
QLabel* noteLabel(const QString& name, QWidget* parent)
{
    auto* note = new QLabel(parent);
    note->setObjectName(name);
    note->setWordWrap(true);
    note->setTextInteractionFlags(Qt::TextSelectableByMouse);
    note->setStyleSheet(QStringLiteral("color: #c01010;"));
    note->hide();
    return note;
}

void setNote(QLabel* note, const QString& text)
{
    note->setText(text);
    note->setVisible(!text.isEmpty());
}

/// A field with its note under it, as one form row.
QWidget* withNote(QWidget* field, QLabel* note, QWidget* parent)
{
    auto* box = new QWidget(parent);
    auto* layout = new QVBoxLayout(box);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    layout->addWidget(field);
    layout->addWidget(note);
    return box;
}

/// The layer name rule of the model format (docs/model-format.md): letters, digits, '_', '.', '-'.
bool validLayerName(const QString& name)
{
    static const QRegularExpression allowed { QStringLiteral(R"(^[A-Za-z0-9_.\-]*$)") };
    return name.size() <= 200 && allowed.match(name).hasMatch();
}

} // namespace

PropertyPanel::PropertyPanel(Document* document, const LayerTableModel* model, QWidget* parent)
    : QWidget(parent)
    , m_document { document }
    , m_model { model }
{
    // The widgets are created in the order the Tab key visits them.
    auto* outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    outer->addWidget(createNetworkGroup());
    createLayerGroup();
    auto* scroll = new QScrollArea(this);
    scroll->setObjectName(QStringLiteral("propertyScrollArea"));
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setWidget(m_layerGroup);
    outer->addWidget(scroll, 1);

    connectNetworkFields();
    connectLayerFields();
    connectModel();
    refreshHeader();
    setCurrentIndex({});
}

QGroupBox* PropertyPanel::createNetworkGroup()
{
    auto* networkGroup = new QGroupBox(tr("Network"), this);
    networkGroup->setObjectName(QStringLiteral("networkGroupBox"));
    auto* networkForm = new QFormLayout(networkGroup);
    m_networkName = new QLineEdit(networkGroup);
    m_networkName->setObjectName(QStringLiteral("networkNameLineEdit"));
    m_inputShape = new QLineEdit(networkGroup);
    m_inputShape->setObjectName(QStringLiteral("inputShapeLineEdit"));
    m_inputShape->setToolTip(tr("One sample's shape without the batch axis, e.g. 3, 224, 224"));
    m_inputShapeNote = noteLabel(QStringLiteral("inputShapeNoteLabel"), networkGroup);
    m_inputDType = new QComboBox(networkGroup);
    m_inputDType->setObjectName(QStringLiteral("inputDTypeComboBox"));
    for (const DType t : kDTypes)
        m_inputDType->addItem(qs(dtypeName(t)));
    m_loss = new QComboBox(networkGroup);
    m_loss->setObjectName(QStringLiteral("lossComboBox"));
    for (const Loss l : kLosses)
        m_loss->addItem(UiText::loss(l));
    auto* inputRow = new QHBoxLayout;
    inputRow->addWidget(m_inputShape, 1);
    inputRow->addWidget(m_inputDType);
    networkForm->addRow(tr("Name:"), m_networkName);
    auto* inputBox = new QWidget(networkGroup);
    auto* inputColumn = new QVBoxLayout(inputBox);
    inputColumn->setContentsMargins(0, 0, 0, 0);
    inputColumn->setSpacing(2);
    inputColumn->addLayout(inputRow);
    inputColumn->addWidget(m_inputShapeNote);
    // The length the plan trains at, where Strategy's sequence length overrides the model's own.
    m_trainedLengthNote = new QLabel(networkGroup);
    m_trainedLengthNote->setObjectName(QStringLiteral("trainedLengthNoteLabel"));
    m_trainedLengthNote->setWordWrap(true);
    m_trainedLengthNote->setVisible(false);
    inputColumn->addWidget(m_trainedLengthNote);
    networkForm->addRow(tr("Input shape:"), inputBox);
    networkForm->addRow(tr("Loss:"), m_loss);
    return networkGroup;
}

void PropertyPanel::createLayerGroup()
{
    m_layerGroup = new QGroupBox(tr("Layer"), this);
    m_layerGroup->setObjectName(QStringLiteral("layerGroupBox"));
    auto* layerLayout = new QVBoxLayout(m_layerGroup);
    m_summary = new QLabel(m_layerGroup);
    m_summary->setObjectName(QStringLiteral("layerSummaryLabel"));
    m_summary->setWordWrap(true);
    m_status = new QLabel(m_layerGroup);
    m_status->setObjectName(QStringLiteral("layerErrorLabel"));
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_status->setStyleSheet(QStringLiteral("color: #c01010;"));
    QFormLayout* fixedForm = createLayerFields();
    layerLayout->addWidget(m_summary);
    layerLayout->addWidget(m_status);
    layerLayout->addLayout(fixedForm);
    m_attributesHost = new QWidget(m_layerGroup);
    m_attributesForm = new QFormLayout(m_attributesHost);
    m_attributesForm->setContentsMargins(0, 0, 0, 0);
    layerLayout->addWidget(m_attributesHost);
    layerLayout->addStretch(1);
}

QFormLayout* PropertyPanel::createLayerFields()
{
    auto* fixedForm = new QFormLayout;
    m_layerName = new QLineEdit(m_layerGroup);
    m_layerName->setObjectName(QStringLiteral("layerNameLineEdit"));
    m_layerName->setPlaceholderText(tr("(unnamed)"));
    m_layerName->setToolTip(tr("Letters, digits, “_”, “.” and “-”; other layers use it in their inputs"));
    m_layerNameNote = noteLabel(QStringLiteral("layerNameNoteLabel"), m_layerGroup);
    m_inputsLabel = new QLabel(tr("Inputs:"), m_layerGroup);
    m_inputs = new QLineEdit(m_layerGroup);
    m_inputs->setObjectName(QStringLiteral("layerInputsLineEdit"));
    m_inputs->setPlaceholderText(tr("the previous layer"));
    m_inputs->setToolTip(
        tr("Names of the layers feeding this one, separated by commas (\"input\" is the network's input, "
           "\"repeat_input\" a block's)"));
    m_inputsNote = noteLabel(QStringLiteral("layerInputsNoteLabel"), m_layerGroup);
    m_timesLabel = new QLabel(tr("Repeat:"), m_layerGroup);
    m_times = new QSpinBox(m_layerGroup);
    m_times->setObjectName(QStringLiteral("repeatTimesSpinBox"));
    m_times->setRange(1, 100000);
    // "3×", never "1 times": a suffix cannot follow the count's number in English.
    m_times->setSuffix(tr("×", "after a Repeat block's count: 3x"));
    m_timesNote = noteLabel(QStringLiteral("repeatTimesNoteLabel"), m_layerGroup);
    QHBoxLayout* trainingRow = createTrainingFields();
    m_inputsField = withNote(m_inputs, m_inputsNote, m_layerGroup);
    m_timesField = withNote(m_times, m_timesNote, m_layerGroup);
    fixedForm->addRow(tr("Name:"), withNote(m_layerName, m_layerNameNote, m_layerGroup));
    fixedForm->addRow(m_inputsLabel, m_inputsField);
    fixedForm->addRow(m_timesLabel, m_timesField);
    fixedForm->addRow(m_trainingLabel, trainingRow);
    fixedForm->addRow(QString(), m_checkpointHint);
    return fixedForm;
}

QHBoxLayout* PropertyPanel::createTrainingFields()
{
    m_trainingLabel = new QLabel(tr("Training:"), m_layerGroup);
    m_frozen = new QCheckBox(tr("Frozen"), m_layerGroup);
    m_frozen->setObjectName(QStringLiteral("frozenCheckBox"));
    m_frozen->setToolTip(
        tr("Not trained: no gradients or optimizer state for its parameters (on a block: every layer "
           "inside)"));
    m_checkpoint = new QCheckBox(tr("Checkpoint"), m_layerGroup);
    m_checkpoint->setObjectName(QStringLiteral("checkpointCheckBox"));
    m_checkpoint->setToolTip(
        tr("Each repetition keeps only its input; backward recomputes the rest (activation "
           "checkpointing per block)"));
    m_checkpointHint = new QLabel(m_layerGroup);
    m_checkpointHint->setObjectName(QStringLiteral("checkpointHintLabel"));
    m_checkpointHint->setWordWrap(true);
    m_checkpointHint->hide();
    auto* trainingRow = new QHBoxLayout;
    trainingRow->addWidget(m_frozen);
    trainingRow->addWidget(m_checkpoint);
    trainingRow->addStretch(1);
    return trainingRow;
}

void PropertyPanel::connectNetworkFields()
{
    FieldCommit::attach(
        m_networkName, [this] { m_document->setNetworkName(ss(m_networkName->text().trimmed())); });
    connect(m_inputShape, &QLineEdit::textEdited, this, &PropertyPanel::checkInputShape);
    FieldCommit::attach(m_inputShape, [this] {
        QString problem;
        const auto dims = parseShape(m_inputShape->text(), &problem);
        if (!problem.isEmpty())
            return; // stays as typed, with the reason under it
        InputSpec input = m_document->network().input;
        input.shape.dims = dims;
        m_document->setInput(input);
    });
    connect(m_inputDType, &QComboBox::currentIndexChanged, this, [this](int i) {
        InputSpec input = m_document->network().input;
        input.dtype
            = kDTypes[static_cast<std::size_t>(std::clamp(i, 0, static_cast<int>(kDTypes.size()) - 1))];
        m_document->setInput(input);
    });
    connect(m_loss, &QComboBox::currentIndexChanged, this, [this](int i) {
        m_document->setLoss(
            kLosses[static_cast<std::size_t>(std::clamp(i, 0, static_cast<int>(kLosses.size()) - 1))]);
    });
}

void PropertyPanel::connectLayerFields()
{
    connect(m_layerName, &QLineEdit::textEdited, this, &PropertyPanel::checkLayerName);
    FieldCommit::attach(m_layerName, [this] {
        if (m_current.isValid() && layerNameProblem(m_layerName->text()).isEmpty())
            m_document->setLayerName(m_model->pathOf(m_current), ss(m_layerName->text().trimmed()));
    });
    FieldCommit::attach(m_inputs, [this] {
        if (!m_current.isValid())
            return;
        std::vector<std::string> names;
        for (const auto& part : m_inputs->text().split(QLatin1Char(','), Qt::SkipEmptyParts)) {
            if (!part.trimmed().isEmpty())
                names.push_back(ss(part.trimmed()));
        }
        m_document->setLayerInputs(m_model->pathOf(m_current), names);
    });
    FieldCommit::attach(m_times, [this] {
        if (m_current.isValid())
            m_document->setRepeatTimes(m_model->pathOf(m_current), m_times->value());
    });

    connect(m_frozen, &QCheckBox::toggled, this, [this](bool on) {
        if (m_current.isValid())
            m_document->setLayerFrozen(m_model->pathOf(m_current), on);
    });
    connect(m_checkpoint, &QCheckBox::toggled, this, [this](bool on) {
        if (m_current.isValid())
            m_document->setLayerCheckpoint(m_model->pathOf(m_current), on);
    });
}

void PropertyPanel::connectModel()
{
    connect(m_document, &Document::strategyChanged, this, &PropertyPanel::refreshLayerValues);

    connect(m_document, &Document::headerChanged, this, &PropertyPanel::refreshHeader);
    connect(m_document, &Document::strategyChanged, this, &PropertyPanel::refreshTrainedLength);
    connect(m_document, &Document::networkReset, this, &PropertyPanel::refreshTrainedLength);
    connect(m_document, &Document::layerChanged, this, [this](const LayerPath& path) {
        if (m_current.isValid() && m_model->pathOf(m_current) == path)
            refreshLayerValues();
    });
    connect(m_model, &LayerTableModel::statusTextChanged, this, &PropertyPanel::refreshLayerStatus);
    connect(m_model, &QAbstractItemModel::modelReset, this, [this] { setCurrentIndex({}); });
    connect(m_model, &QAbstractItemModel::rowsRemoved, this, [this] {
        if (!m_current.isValid())
            setCurrentIndex({});
        else
            refreshTitle();
    });
    // The layer shown keeps its place in the table (a persistent index): its number follows it when
    // rows come back before it (Ctrl+Z of a Delete) or move.
    connect(m_model, &QAbstractItemModel::rowsInserted, this, &PropertyPanel::refreshTitle);
    connect(m_model, &QAbstractItemModel::rowsMoved, this, &PropertyPanel::refreshTitle);
}

void PropertyPanel::refreshHeader()
{
    const Network& n = m_document->network();
    showInField(m_networkName, qs(n.name));
    QStringList dims;
    for (const auto d : n.input.shape.dims)
        dims << QString::number(d);
    const auto sameShape = [](const QString& shown, const QString& value) {
        QString problem;
        return parseShape(shown, &problem) == parseShape(value, nullptr) && problem.isEmpty();
    };
    const QString before = m_inputShape->text();
    showInField(m_inputShape, dims.join(QStringLiteral(", ")), sameShape);
    if (m_inputShape->text() != before)
        setNote(m_inputShapeNote, QString());
    const QSignalBlocker b1(m_inputDType);
    const QSignalBlocker b2(m_loss);
    m_inputDType->setCurrentIndex(
        static_cast<int>(std::find(kDTypes.begin(), kDTypes.end(), n.input.dtype) - kDTypes.begin()));
    m_loss->setCurrentIndex(
        static_cast<int>(std::find(kLosses.begin(), kLosses.end(), n.loss) - kLosses.begin()));
    refreshTrainedLength();
}

void PropertyPanel::refreshTrainedLength()
{
    const Plan& plan = m_document->plan();
    const auto& dims = plan.network.input.shape.dims;
    const bool overridden = plan.sequenceLength && !dims.empty() && *plan.sequenceLength != dims[0];
    if (overridden) {
        const QLocale locale;
        m_trainedLengthNote->setText(
            tr("Trained at %1 tokens (Strategy: Sequence length); the model's own input "
               "is %2.")
                .arg(locale.toString(static_cast<qlonglong>(*plan.sequenceLength)),
                    locale.toString(static_cast<qlonglong>(dims[0]))));
    }
    m_trainedLengthNote->setVisible(overridden);
}

void PropertyPanel::setCurrentIndex(const QModelIndex& index)
{
    FieldCommit::flushAll(this); // what was typed belongs to the layer shown so far
    m_current = index.isValid() ? index.siblingAtColumn(0) : QModelIndex();
    rebuildLayerForm();
}

AttributeEditor* PropertyPanel::attributeEditor(const QString& name) const
{
    for (auto* e : m_editors) {
        if (qs(e->spec().name) == name)
            return e;
    }
    return nullptr;
}

void PropertyPanel::rebuildLayerForm()
{
    const LayerSpec* spec = m_current.isValid() ? m_document->spec(m_model->pathOf(m_current)) : nullptr;
    m_layerGroup->setEnabled(spec != nullptr);
    const QString type = spec != nullptr ? qs(spec->type) : QString();
    if (type != m_formType) {
        m_formType = type;
        qDeleteAll(m_editors);
        m_editors.clear();
        while (m_attributesForm->rowCount() > 0)
            m_attributesForm->removeRow(0);
        const LayerKind* kind = spec != nullptr ? LayerRegistry::builtin().find(spec->type) : nullptr;
        if (kind != nullptr) {
            for (const auto& attr : kind->attributes()) {
                auto* editor = new AttributeEditor(attr, m_attributesHost);
                editor->setObjectName(qs(attr.name) + QStringLiteral("AttributeEditor"));
                const std::string name = attr.name;
                connect(editor, &AttributeEditor::edited, this, [this, name](const nlohmann::json& value) {
                    if (m_current.isValid())
                        m_document->setLayerAttribute(m_model->pathOf(m_current), name, value);
                });
                auto* label = new QLabel(qs(attr.name) + QLatin1Char(':'), m_attributesHost);
                label->setToolTip(editor->toolTip());
                m_attributesForm->addRow(label, editor);
                m_editors << editor;
            }
        }
        const bool repeat = spec != nullptr && spec->isRepeat();
        const bool branches = kind != nullptr && kind->maxInputs() > 1;
        m_timesLabel->setVisible(repeat);
        m_timesField->setVisible(repeat);
        m_checkpoint->setVisible(repeat);
        m_inputsLabel->setVisible(!repeat);
        m_inputsField->setVisible(!repeat);
        m_inputs->setPlaceholderText(branches ? tr("two or more layer names") : tr("the previous layer"));
        if (spec == nullptr)
            m_layerGroup->setTitle(tr("Layer"));
        else if (repeat)
            m_summary->setText(tr("Repeats the layers inside it; \"repeat_input\" names the block's input."));
        else
            m_summary->setText(
                kind != nullptr ? CoreText::translate(kind->summary()) : tr("Unknown layer type"));
        if (spec == nullptr)
            m_summary->setText(tr("Select a layer to edit it."));
    }
    refreshLayerValues();
}

void PropertyPanel::refreshTitle()
{
    const LayerSpec* spec = m_current.isValid() ? m_document->spec(m_model->pathOf(m_current)) : nullptr;
    if (spec == nullptr)
        return;
    QStringList position;
    for (const int i : m_model->pathOf(m_current))
        position << QString::number(i + 1);
    m_layerGroup->setTitle(tr("Layer %1: %2").arg(position.join(QLatin1Char('.')), qs(spec->type)));
}

void PropertyPanel::refreshLayerValues()
{
    const LayerSpec* spec = m_current.isValid() ? m_document->spec(m_model->pathOf(m_current)) : nullptr;
    if (spec == nullptr) {
        m_layerName->clear();
        m_inputs->clear();
        m_status->clear();
        m_status->hide();
        m_checkpointHint->hide();
        return;
    }
    refreshTitle();
    const QString shownName = m_layerName->text();
    showInField(m_layerName, qs(spec->name));
    if (m_layerName->text() != shownName)
        setNote(m_layerNameNote, QString());
    showInField(m_inputs, joined(spec->inputs), [](const QString& shown, const QString& value) {
        const auto names = [](const QString& t) {
            QStringList out;
            for (const auto& part : t.split(QLatin1Char(','), Qt::SkipEmptyParts))
                if (!part.trimmed().isEmpty())
                    out << part.trimmed();
            return out;
        };
        return names(shown) == names(value);
    });
    if (const FieldCommit* typing = FieldCommit::of(m_times); typing == nullptr || !typing->isPending()) {
        const QSignalBlocker block(m_times);
        m_times->setValue(
            static_cast<int>(std::clamp<std::int64_t>(spec->times, m_times->minimum(), m_times->maximum())));
    }
    {
        const QSignalBlocker b1(m_frozen);
        const QSignalBlocker b2(m_checkpoint);
        m_frozen->setChecked(spec->frozen);
        m_checkpoint->setChecked(spec->checkpoint);
    }
    // A mark alone changes nothing unless checkpointing is per block.
    const Checkpointing mode = m_document->plan().checkpointing;
    const bool hint = spec->isRepeat() && spec->checkpoint && mode != Checkpointing::PerBlock;
    m_checkpointHint->setText(hint
            ? tr("Takes effect when the set-up's checkpointing is \"%1\" (now \"%2\").")
                  .arg(UiText::checkpointing(Checkpointing::PerBlock), UiText::checkpointing(mode))
            : QString());
    m_checkpointHint->setVisible(hint);
    for (auto* editor : m_editors) {
        const auto it = spec->attributes.find(editor->spec().name);
        editor->setValue(it == spec->attributes.end() ? nlohmann::json() : *it);
    }
    refreshLayerStatus();
}

void PropertyPanel::refreshLayerStatus()
{
    // The selected layer's error, once, at the field it is about: an attribute, the name, the
    // inputs or the repeat count; anything else above the fields.
    const std::optional<Error> error = m_current.isValid() ? m_model->errorOf(m_current) : std::nullopt;
    QString field;
    if (error) {
        const std::string path = Document::specPath(m_model->pathOf(m_current)) + ".";
        if (error->location.rfind(path, 0) == 0) {
            const std::string rest = error->location.substr(path.size());
            field = qs(rest.substr(0, rest.find_first_of(".[")));
        }
    }
    const QString text = error ? ErrorText::withoutLayer(*error) : QString();
    QLabel* fieldNote = field == QStringLiteral("name") ? m_layerNameNote
        : field == QStringLiteral("inputs")             ? m_inputsNote
        : field == QStringLiteral("times")              ? m_timesNote
                                                        : nullptr;
    AttributeEditor* editor = fieldNote == nullptr && !field.isEmpty() ? attributeEditor(field) : nullptr;
    for (auto* e : m_editors)
        e->setError(e == editor ? text : QString());
    for (QLabel* note : { m_inputsNote, m_timesNote })
        setNote(note, note == fieldNote ? text : QString());
    const QString typedProblem = layerNameProblem(m_layerName->text());
    setNote(m_layerNameNote,
        !typedProblem.isEmpty()            ? typedProblem
            : fieldNote == m_layerNameNote ? text
                                           : QString());
    const bool elsewhere = fieldNote != nullptr || editor != nullptr;
    m_status->setText(elsewhere ? QString() : text);
    m_status->setVisible(!elsewhere && !text.isEmpty());
}

std::vector<std::int64_t> PropertyPanel::parseShape(const QString& text, QString* problem)
{
    static const QRegularExpression separators { QStringLiteral(R"([\s,x×*]+)") };
    QString cleaned = text.trimmed();
    if (cleaned.startsWith(QLatin1Char('[')) || cleaned.startsWith(QLatin1Char('(')))
        cleaned.remove(0, 1);
    if (cleaned.endsWith(QLatin1Char(']')) || cleaned.endsWith(QLatin1Char(')')))
        cleaned.chop(1);
    std::vector<std::int64_t> dims;
    const QStringList parts = cleaned.split(separators, Qt::SkipEmptyParts);
    QString why;
    if (parts.isEmpty())
        why = tr("Type one sample's shape without the batch axis, for example 3, 224, 224.");
    for (const auto& part : parts) {
        bool ok = false;
        const qlonglong d = part.toLongLong(&ok);
        if (!ok || d < 1) {
            why = tr("“%1” is not a size: each dimension is a whole number of at least 1 (for example 3, "
                     "224, 224).")
                      .arg(part);
            break;
        }
        dims.push_back(d);
    }
    if (problem != nullptr)
        *problem = why;
    return why.isEmpty() ? dims : std::vector<std::int64_t> {};
}

void PropertyPanel::checkInputShape()
{
    QString problem;
    (void)parseShape(m_inputShape->text(), &problem);
    setNote(m_inputShapeNote, problem);
}

QString PropertyPanel::layerNameProblem(const QString& text)
{
    const QString name = text.trimmed();
    if (!validLayerName(name))
        return tr("A name has letters, digits, “_”, “.” and “-” only (at most 200).");
    if (name == QStringLiteral("input") || name == QStringLiteral("repeat_input"))
        return tr("“%1” is reserved for the network's input.").arg(name);
    return {};
}

void PropertyPanel::checkLayerName()
{
    setNote(m_layerNameNote, layerNameProblem(m_layerName->text()));
}

} // namespace headroom::ui

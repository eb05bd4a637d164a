#include "PropertyPanel.h"

#include "AttributeEditor.h"
#include "Document.h"
#include "LayerTableModel.h"
#include "QtText.h"
#include "UiText.h"

#include "headroom/LayerRegistry.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QLabel>
#include <QLineEdit>
#include <QRegularExpressionValidator>
#include <QScrollArea>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QVBoxLayout>

namespace headroom::ui {

namespace {

constexpr std::array kDTypes{DType::Float32, DType::Float16, DType::BFloat16, DType::Float64,
                             DType::Int64,   DType::Int32,   DType::UInt8,    DType::Bool};
constexpr std::array kLosses{Loss::CrossEntropy, Loss::Mse, Loss::L1, Loss::Bce, Loss::None};

QString joined(const std::vector<std::string>& names)
{
    QStringList parts;
    for (const auto& n : names)
        parts << qs(n);
    return parts.join(QStringLiteral(", "));
}

void setTextUnlessEditing(QLineEdit* edit, const QString& text)
{
    if (!edit->hasFocus() || !edit->isModified())
        edit->setText(text);
}

} // namespace

PropertyPanel::PropertyPanel(Document* document, const LayerTableModel* model, QWidget* parent)
    : QWidget(parent), m_document{document}, m_model{model}
{
    auto* outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);

    auto* networkGroup = new QGroupBox(tr("Network"), this);
    networkGroup->setObjectName(QStringLiteral("networkGroupBox"));
    auto* networkForm = new QFormLayout(networkGroup);
    m_networkName = new QLineEdit(networkGroup);
    m_networkName->setObjectName(QStringLiteral("networkNameLineEdit"));
    m_inputShape = new QLineEdit(networkGroup);
    m_inputShape->setObjectName(QStringLiteral("inputShapeLineEdit"));
    m_inputShape->setToolTip(tr("One sample's shape without the batch axis, e.g. 3, 224, 224"));
    m_inputShape->setValidator(
        new QRegularExpressionValidator(QRegularExpression(QStringLiteral(R"(\s*[1-9]\d*(\s*,\s*[1-9]\d*)*\s*)")), m_inputShape));
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
    networkForm->addRow(tr("Input shape:"), inputRow);
    networkForm->addRow(tr("Loss:"), m_loss);
    outer->addWidget(networkGroup);

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
    auto* fixedForm = new QFormLayout;
    m_layerName = new QLineEdit(m_layerGroup);
    m_layerName->setObjectName(QStringLiteral("layerNameLineEdit"));
    m_layerName->setPlaceholderText(tr("(unnamed)"));
    m_layerName->setValidator(
        new QRegularExpressionValidator(QRegularExpression(QStringLiteral(R"([A-Za-z0-9_.\-]*)")), m_layerName));
    m_inputsLabel = new QLabel(tr("Inputs:"), m_layerGroup);
    m_inputs = new QLineEdit(m_layerGroup);
    m_inputs->setObjectName(QStringLiteral("layerInputsLineEdit"));
    m_inputs->setPlaceholderText(tr("the previous layer"));
    m_inputs->setToolTip(tr("Names of the layers feeding this one, separated by commas (\"input\" is the network's input, "
                            "\"repeat_input\" a block's)"));
    m_timesLabel = new QLabel(tr("Repeat:"), m_layerGroup);
    m_times = new QSpinBox(m_layerGroup);
    m_times->setObjectName(QStringLiteral("repeatTimesSpinBox"));
    m_times->setRange(1, 100000);
    m_times->setSuffix(tr(" times"));
    m_times->setKeyboardTracking(false);
    m_trainingLabel = new QLabel(tr("Training:"), m_layerGroup);
    m_frozen = new QCheckBox(tr("Frozen"), m_layerGroup);
    m_frozen->setObjectName(QStringLiteral("frozenCheckBox"));
    m_frozen->setToolTip(tr("Not trained: no gradients or optimizer state for its parameters (on a block: every layer "
                            "inside)"));
    m_checkpoint = new QCheckBox(tr("Checkpoint"), m_layerGroup);
    m_checkpoint->setObjectName(QStringLiteral("checkpointCheckBox"));
    m_checkpoint->setToolTip(tr("Each repetition keeps only its input; backward recomputes the rest (activation "
                                "checkpointing per block)"));
    m_checkpointHint = new QLabel(m_layerGroup);
    m_checkpointHint->setObjectName(QStringLiteral("checkpointHintLabel"));
    m_checkpointHint->setWordWrap(true);
    m_checkpointHint->hide();
    auto* trainingRow = new QHBoxLayout;
    trainingRow->addWidget(m_frozen);
    trainingRow->addWidget(m_checkpoint);
    trainingRow->addStretch(1);
    fixedForm->addRow(tr("Name:"), m_layerName);
    fixedForm->addRow(m_inputsLabel, m_inputs);
    fixedForm->addRow(m_timesLabel, m_times);
    fixedForm->addRow(m_trainingLabel, trainingRow);
    fixedForm->addRow(QString(), m_checkpointHint);
    layerLayout->addWidget(m_summary);
    layerLayout->addWidget(m_status);
    layerLayout->addLayout(fixedForm);
    m_attributesHost = new QWidget(m_layerGroup);
    m_attributesForm = new QFormLayout(m_attributesHost);
    m_attributesForm->setContentsMargins(0, 0, 0, 0);
    layerLayout->addWidget(m_attributesHost);
    layerLayout->addStretch(1);

    auto* scroll = new QScrollArea(this);
    scroll->setObjectName(QStringLiteral("propertyScrollArea"));
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setWidget(m_layerGroup);
    outer->addWidget(scroll, 1);

    connect(m_networkName, &QLineEdit::editingFinished, this,
            [this] { m_document->setNetworkName(ss(m_networkName->text().trimmed())); });
    connect(m_inputShape, &QLineEdit::editingFinished, this, [this] {
        InputSpec input = m_document->network().input;
        input.shape.dims.clear();
        for (const auto& part : m_inputShape->text().split(QLatin1Char(','), Qt::SkipEmptyParts))
            input.shape.dims.push_back(part.trimmed().toLongLong());
        if (!input.shape.dims.empty())
            m_document->setInput(input);
    });
    connect(m_inputDType, &QComboBox::currentIndexChanged, this, [this](int i) {
        InputSpec input = m_document->network().input;
        input.dtype = kDTypes[static_cast<std::size_t>(std::clamp(i, 0, static_cast<int>(kDTypes.size()) - 1))];
        m_document->setInput(input);
    });
    connect(m_loss, &QComboBox::currentIndexChanged, this, [this](int i) {
        m_document->setLoss(kLosses[static_cast<std::size_t>(std::clamp(i, 0, static_cast<int>(kLosses.size()) - 1))]);
    });
    connect(m_layerName, &QLineEdit::editingFinished, this, [this] {
        if (m_current.isValid())
            m_document->setLayerName(m_model->pathOf(m_current), ss(m_layerName->text().trimmed()));
    });
    connect(m_inputs, &QLineEdit::editingFinished, this, [this] {
        if (!m_current.isValid())
            return;
        std::vector<std::string> names;
        for (const auto& part : m_inputs->text().split(QLatin1Char(','), Qt::SkipEmptyParts)) {
            if (!part.trimmed().isEmpty())
                names.push_back(ss(part.trimmed()));
        }
        m_document->setLayerInputs(m_model->pathOf(m_current), names);
    });
    connect(m_times, &QSpinBox::valueChanged, this, [this](int times) {
        if (m_current.isValid())
            m_document->setRepeatTimes(m_model->pathOf(m_current), times);
    });

    connect(m_frozen, &QCheckBox::toggled, this, [this](bool on) {
        if (m_current.isValid())
            m_document->setLayerFrozen(m_model->pathOf(m_current), on);
    });
    connect(m_checkpoint, &QCheckBox::toggled, this, [this](bool on) {
        if (m_current.isValid())
            m_document->setLayerCheckpoint(m_model->pathOf(m_current), on);
    });
    connect(document, &Document::strategyChanged, this, &PropertyPanel::refreshLayerValues);

    connect(document, &Document::headerChanged, this, &PropertyPanel::refreshHeader);
    connect(document, &Document::layerChanged, this, [this](const LayerPath& path) {
        if (m_current.isValid() && m_model->pathOf(m_current) == path)
            refreshLayerValues();
    });
    connect(model, &LayerTableModel::statusTextChanged, this, &PropertyPanel::refreshLayerStatus);
    connect(model, &QAbstractItemModel::modelReset, this, [this] { setCurrentIndex({}); });
    connect(model, &QAbstractItemModel::rowsRemoved, this, [this] {
        if (!m_current.isValid())
            setCurrentIndex({});
    });
    refreshHeader();
    setCurrentIndex({});
}

void PropertyPanel::refreshHeader()
{
    const Network& n = m_document->network();
    setTextUnlessEditing(m_networkName, qs(n.name));
    QStringList dims;
    for (const auto d : n.input.shape.dims)
        dims << QString::number(d);
    setTextUnlessEditing(m_inputShape, dims.join(QStringLiteral(", ")));
    const QSignalBlocker b1(m_inputDType);
    const QSignalBlocker b2(m_loss);
    m_inputDType->setCurrentIndex(static_cast<int>(std::find(kDTypes.begin(), kDTypes.end(), n.input.dtype) - kDTypes.begin()));
    m_loss->setCurrentIndex(static_cast<int>(std::find(kLosses.begin(), kLosses.end(), n.loss) - kLosses.begin()));
}

void PropertyPanel::setCurrentIndex(const QModelIndex& index)
{
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
                label->setToolTip(qs(attr.help));
                m_attributesForm->addRow(label, editor);
                m_editors << editor;
            }
        }
        const bool repeat = spec != nullptr && spec->isRepeat();
        const bool branches = kind != nullptr && kind->maxInputs() > 1;
        m_timesLabel->setVisible(repeat);
        m_times->setVisible(repeat);
        m_checkpoint->setVisible(repeat);
        m_inputsLabel->setVisible(!repeat);
        m_inputs->setVisible(!repeat);
        m_inputs->setPlaceholderText(branches ? tr("two or more layer names") : tr("the previous layer"));
        if (spec == nullptr)
            m_layerGroup->setTitle(tr("Layer"));
        else if (repeat)
            m_summary->setText(tr("Repeats the layers inside it; \"repeat_input\" names the block's input."));
        else
            m_summary->setText(kind != nullptr ? qs(kind->summary()) : tr("Unknown layer type"));
        if (spec == nullptr)
            m_summary->setText(tr("Select a layer to edit it."));
    }
    refreshLayerValues();
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
    QStringList position;
    for (const int i : m_model->pathOf(m_current))
        position << QString::number(i + 1);
    m_layerGroup->setTitle(tr("Layer %1: %2").arg(position.join(QLatin1Char('.')), qs(spec->type)));
    setTextUnlessEditing(m_layerName, qs(spec->name));
    setTextUnlessEditing(m_inputs, joined(spec->inputs));
    {
        const QSignalBlocker block(m_times);
        m_times->setValue(static_cast<int>(spec->times));
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
    m_checkpointHint->setText(hint ? tr("Takes effect when the set-up's checkpointing is \"%1\" (now \"%2\").")
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
    const QString error = m_current.isValid() ? m_current.data(LayerTableModel::ErrorRole).toString() : QString();
    m_status->setText(error);
    m_status->setVisible(!error.isEmpty());
}

} // namespace headroom::ui

#pragma once

#include <QPersistentModelIndex>
#include <QWidget>
#include <cstdint>
#include <vector>

class QCheckBox;
class QComboBox;
class QFormLayout;
class QGroupBox;
class QHBoxLayout;
class QLabel;
class QLineEdit;
class QSpinBox;

namespace headroom::ui {

class AttributeEditor;
class Document;
class LayerTableModel;

/// Edits the network's input and loss, and the selected layer: its name, its inputs (for layers
/// that take several), a Repeat block's count, whether it is frozen (and a block checkpointed), and
/// its attributes through editors generated from the layer kind's AttributeSpecs. Every change
/// becomes an undo command on the Document, as the user types (FieldCommit). Text that cannot be
/// used (a shape "3, 0, 32", a name with a space) stays as typed with the reason under the field,
/// and the selected layer's error is shown at the field it is about.
class PropertyPanel final : public QWidget
{
    Q_OBJECT

public:
    PropertyPanel(Document* document, const LayerTableModel* model, QWidget* parent = nullptr);

    /// Shows the layer at `index` of the layer model (invalid: no layer).
    void setCurrentIndex(const QModelIndex& index);
    [[nodiscard]] AttributeEditor* attributeEditor(const QString& name) const;
    /// Parses an input shape as typed ("3, 224, 224", "3x224x224", "[3, 224, 224]"); the reason it
    /// cannot be used in `problem` otherwise.
    [[nodiscard]] static std::vector<std::int64_t> parseShape(const QString& text, QString* problem);
    /// Why `text` cannot be a layer's name (the model format's rule), or empty.
    [[nodiscard]] static QString layerNameProblem(const QString& text);

private:
    /// The network's name, input shape and dtype, and loss.
    [[nodiscard]] QGroupBox* createNetworkGroup();
    /// m_layerGroup: the layer's summary, status, fixed fields and attribute form.
    void createLayerGroup();
    /// Name, inputs, repeat count and training fields, each with its note.
    [[nodiscard]] QFormLayout* createLayerFields();
    /// The Frozen and Checkpoint boxes (and the hint under them).
    [[nodiscard]] QHBoxLayout* createTrainingFields();
    /// Each field's edit to the Document.
    void connectNetworkFields();
    void connectLayerFields();
    /// The Document's and the model's changes to the fields.
    void connectModel();
    void refreshHeader();
    /// The note under the input shape naming the length Strategy trains at, where it overrides it.
    void refreshTrainedLength();
    void rebuildLayerForm();
    void refreshLayerValues();
    /// "Layer 3: Linear": the shown layer's place in the table and its type.
    void refreshTitle();
    void refreshLayerStatus();
    void checkInputShape();
    void checkLayerName();

    Document* m_document;
    const LayerTableModel* m_model;
    QPersistentModelIndex m_current;
    QString m_formType;

    QLineEdit* m_networkName;
    QLineEdit* m_inputShape;
    QLabel* m_inputShapeNote;
    QLabel* m_trainedLengthNote = nullptr;
    QComboBox* m_inputDType;
    QComboBox* m_loss;

    QGroupBox* m_layerGroup;
    QLabel* m_summary;
    QLabel* m_status;
    QLineEdit* m_layerName;
    QLabel* m_layerNameNote;
    QLabel* m_inputsLabel;
    QWidget* m_inputsField;
    QLineEdit* m_inputs;
    QLabel* m_inputsNote;
    QLabel* m_timesLabel;
    QWidget* m_timesField;
    QSpinBox* m_times;
    QLabel* m_timesNote;
    QLabel* m_trainingLabel;
    QCheckBox* m_frozen;
    QCheckBox* m_checkpoint;
    QLabel* m_checkpointHint;
    QWidget* m_attributesHost;
    QFormLayout* m_attributesForm;
    QList<AttributeEditor*> m_editors;
};

} // namespace headroom::ui

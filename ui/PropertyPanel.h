#pragma once

#include <QPersistentModelIndex>
#include <QWidget>

class QCheckBox;
class QComboBox;
class QFormLayout;
class QGroupBox;
class QLabel;
class QLineEdit;
class QSpinBox;

namespace headroom::ui {

class AttributeEditor;
class Document;
class LayerTableModel;

/// Edits the network's input and loss, and the selected layer: its name, its inputs (for layers
/// that take several), a Repeat block's count, whether it is frozen (and a block checkpointed), and its attributes through editors generated from
/// the layer kind's AttributeSpecs. Every change becomes an undo command on the Document.
class PropertyPanel final : public QWidget {
    Q_OBJECT

public:
    PropertyPanel(Document* document, const LayerTableModel* model, QWidget* parent = nullptr);

    /// Shows the layer at `index` of the layer model (invalid: no layer).
    void setCurrentIndex(const QModelIndex& index);
    [[nodiscard]] AttributeEditor* attributeEditor(const QString& name) const;

private:
    void refreshHeader();
    void rebuildLayerForm();
    void refreshLayerValues();
    void refreshLayerStatus();

    Document* m_document;
    const LayerTableModel* m_model;
    QPersistentModelIndex m_current;
    QString m_formType;

    QLineEdit* m_networkName;
    QLineEdit* m_inputShape;
    QComboBox* m_inputDType;
    QComboBox* m_loss;

    QGroupBox* m_layerGroup;
    QLabel* m_summary;
    QLabel* m_status;
    QLineEdit* m_layerName;
    QLabel* m_inputsLabel;
    QLineEdit* m_inputs;
    QLabel* m_timesLabel;
    QSpinBox* m_times;
    QLabel* m_trainingLabel;
    QCheckBox* m_frozen;
    QCheckBox* m_checkpoint;
    QLabel* m_checkpointHint;
    QWidget* m_attributesHost;
    QFormLayout* m_attributesForm;
    QList<AttributeEditor*> m_editors;
};

} // namespace headroom::ui

#pragma once

#include "headroom/setup/GpuCatalog.h"

#include <QWidget>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QSpinBox;
class QTabWidget;

namespace headroom {
struct Plan;
}

namespace headroom::ui {

class Document;
class GpuSelector;
struct EstimateState;

/// The training set-up in three tabs, so it stays compact: the GPU (searchable, grouped, or a custom
/// size), optimizer (and 8-bit state), precision, framework overhead and assumed utilisation; the
/// strategy (activation checkpointing, attention implementation, sequence length, gradient
/// accumulation, LoRA / QLoRA); and multi-GPU training (GPU count, sharding, tensor parallelism,
/// optimizer offload, and with more than one GPU the GPUs per node and the network's bandwidth). Edits become
/// undo commands on the Document; a set-up the core refuses shows the core's reason under the tabs.
class SetupPanel final : public QWidget
{
    Q_OBJECT

public:
    enum Tab { GpuTab, StrategyTab, MultiGpuTab };

    explicit SetupPanel(Document* document, QWidget* parent = nullptr);

    void setCatalog(const GpuCatalog& catalog);
    [[nodiscard]] const GpuCatalog& catalog() const;
    /// Adds a user-defined GPU to the catalogue and selects it.
    void addCustomGpu(const Gpu& gpu);
    [[nodiscard]] GpuSelector* gpuSelector() const noexcept { return m_gpu; }
    [[nodiscard]] QTabWidget* tabs() const noexcept { return m_tabs; }

public Q_SLOTS:
    /// Shows the estimate's error here when the set-up (not a layer) causes it.
    void setEstimate(const headroom::ui::EstimateState& state);

Q_SIGNALS:
    void customGpuRequested();

private:
    QWidget* createGpuTab();
    void createGpuFields(QWidget* page);
    void connectGpuTab();
    QWidget* createStrategyTab();
    void createStrategyFields(QWidget* page);
    void createLoraFields(QWidget* page);
    void connectStrategyTab();
    QWidget* createMultiGpuTab();
    /// Shows the document's plan (with the fields' own signals blocked).
    void refresh();
    void refreshGpuTab(const Plan& plan);
    void refreshStrategyTab(const Plan& plan);
    void refreshLora(const Plan& plan);
    void refreshMultiGpuTab(const Plan& plan);
    void editLora();
    void editParallelism();
    void createPipelineFields(QWidget* page);
    void createOtherParallelFields(QWidget* page);
    void createNodeFields(QWidget* page);

    Document* m_document;
    QTabWidget* m_tabs;
    GpuSelector* m_gpu;
    QLabel* m_gpuNote; ///< why typed text matched no GPU (hidden otherwise)
    QComboBox* m_optimizer;
    QCheckBox* m_eightBit;
    QComboBox* m_implementation;
    QComboBox* m_precision;
    QSpinBox* m_overhead;
    QSpinBox* m_utilization;
    QCheckBox* m_expandable; ///< PyTorch's allocator with expandable_segments:True

    QComboBox* m_checkpointing;
    QComboBox* m_attention;
    QSpinBox* m_sequenceLength;
    QSpinBox* m_accumulation;
    QSpinBox* m_loraRank;
    QLineEdit* m_loraTargets;
    QDoubleSpinBox* m_loraDropout;
    QCheckBox* m_qlora;
    QLabel* m_moeImbalanceLabel;
    QDoubleSpinBox* m_moeImbalance;

    QSpinBox* m_gpus;
    QComboBox* m_sharding;
    QSpinBox* m_tensorParallel;
    QCheckBox* m_offload;
    QCheckBox* m_sequenceParallel;
    QSpinBox* m_pipelineParallel;
    QComboBox* m_schedule;
    QSpinBox* m_virtualStages;
    QLineEdit* m_stageLayers; ///< "7,9,9,7"; empty: as even as possible
    QLabel* m_stageLayersNote; ///< why typed layer counts were not taken (hidden otherwise)
    QSpinBox* m_contextParallel;
    QComboBox* m_contextKind;
    QSpinBox* m_expertParallel;
    QSpinBox* m_expertTensorParallel;
    QComboBox* m_activationOffload;
    /// The links between the GPUs (TrainingSetup::gpusPerNode, interNodeGBps): shown with more than one GPU.
    QSpinBox* m_gpusPerNode;
    QLabel* m_gpusPerNodeLabel;
    QDoubleSpinBox* m_interNodeGBps;
    QLabel* m_interNodeLabel;

    QLabel* m_error;
};

} // namespace headroom::ui

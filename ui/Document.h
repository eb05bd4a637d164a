#pragma once

#include "headroom/editing/NetworkEdits.h"
#include "headroom/estimate/Plan.h"

#include <QList>
#include <QObject>
#include <QString>
#include <QStringList>
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

class QUndoStack;

namespace headroom::ui {

/// Where a layer spec sits in the network's spec tree (the core's SpecPath, as Qt's models pass
/// it): indices from the top-level list down through Repeat blocks. Empty means the top level itself.
using LayerPath = QList<int>;

/// The open plan: the network as the model file holds it, the precision and the training set-up,
/// and the undo stack through which every edit goes (like Tiled's Document). Views edit through
/// the methods below and react to the typed change signals; nothing else mutates the plan.
class Document final : public QObject
{
    Q_OBJECT

public:
    explicit Document(QObject* parent = nullptr);
    ~Document() override;

    [[nodiscard]] const Plan& plan() const noexcept { return m_plan; }
    [[nodiscard]] const Network& network() const noexcept { return m_plan.network; }
    [[nodiscard]] QUndoStack* undoStack() const noexcept { return m_undoStack; }

    /// The file the network was loaded from or saved to; empty for a new network or a preset.
    [[nodiscard]] QString filePath() const { return m_filePath; }
    /// The ONNX model or Hugging Face config the network was imported from (filePath() is then
    /// empty: Save asks for a new .json file); empty once saved, or for a Headroom model file.
    [[nodiscard]] QString importedFrom() const { return m_importedFrom; }
    /// The LoRA targets the set-up lost when the current network replaced the last one (they name no
    /// Linear layer of it: keepWhatApplies()); empty when everything applied.
    [[nodiscard]] QStringList droppedLoraTargets() const { return m_droppedLoraTargets; }
    /// What the title bar shows: the file name, else the network's name, else the imported file's
    /// name, else "Untitled".
    [[nodiscard]] QString displayName() const;
    /// True when the network differs from the one last loaded or saved, or, once the file holds a
    /// set-up (opened with one, or saved: Save writes it, docs/model-format.md "The saved set-up"), the
    /// settings differ from it.
    [[nodiscard]] bool isModified() const noexcept { return m_modified; }

    /// Replaces the network (New, Open, Open Preset, Import): not undoable, clears the undo stack. With
    /// `saved` (a model file's saved set-up) the settings become those, as part of the open; without,
    /// the set-up stays, less what does not apply to the new network (keepWhatApplies()).
    void resetNetwork(Network network, const QString& filePath, const QString& importedFrom = QString(),
        const std::optional<PlanSettings>& saved = std::nullopt);
    /// Replaces the whole set-up (start-up, remembered settings): not undoable, clears the undo stack.
    void resetSetup(Precision precision, const TrainingSetup& setup, const Gpu& gpu);
    /// Sets the batch for a newly opened model: not an edit of the user's, so not undoable.
    void resetBatch(std::int64_t batch);
    /// Records that the current network and settings are what `filePath` now holds.
    void markSaved(const QString& filePath);

    // --- Queries ---
    [[nodiscard]] const LayerSpec* spec(const LayerPath& path) const;
    /// The children of a Repeat block, or the top-level layers for an empty path; null if invalid.
    [[nodiscard]] const std::vector<LayerSpec>* children(const LayerPath& parent) const;
    /// "layers[4].layers[1]": the spec path the analysis reports for `path`.
    [[nodiscard]] static std::string specPath(const LayerPath& path);

    // --- Undoable network edits ---
    void insertLayers(const LayerPath& parent, int row, std::vector<LayerSpec> specs, const QString& text);
    void removeLayers(const LayerPath& parent, int row, int count);
    /// Moves `count` siblings to `newRow` of `newParent` (`newRow` counted before the move, like
    /// QAbstractItemModel::beginMoveRows). Returns false if the move is impossible or a no-op.
    bool moveLayers(const LayerPath& parent, int row, int count, const LayerPath& newParent, int newRow);
    void duplicateLayers(const LayerPath& parent, int row, int count);
    /// Wraps siblings in a Repeat block (times 1) ending in an Add of the block's input and its last
    /// layer: a residual connection. Returns an empty string, or why not (the layers change the
    /// shape, so their output cannot be added to their input); nothing changes then.
    QString wrapInResidual(const LayerPath& parent, int row, int count);
    /// Sets (or, for a null value, removes) one attribute.
    void setLayerAttribute(const LayerPath& path, const std::string& name, const nlohmann::json& value);
    void setLayerName(const LayerPath& path, const std::string& name);
    void setLayerInputs(const LayerPath& path, const std::vector<std::string>& inputs);
    void setRepeatTimes(const LayerPath& path, std::int64_t times);
    /// "frozen" on a layer or a block: none of its parameters train.
    void setLayerFrozen(const LayerPath& path, bool frozen);
    /// "checkpoint" on a Repeat block. Marking a block while checkpointing is off also switches it
    /// to per block, in the same undo step (a mark alone would change nothing).
    void setLayerCheckpoint(const LayerPath& path, bool checkpoint);
    /// Wraps `count` consecutive top-level layers from `row` in a checkpointed Repeat block (times 1)
    /// as one undo step, switching checkpointing to per block if it is off; one selected block is
    /// marked instead. Later layers that use the last wrapped layer by name are pointed at the block.
    /// Returns an empty string, or why the layers cannot be wrapped (a later layer uses one inside).
    QString checkpointLayers(const LayerPath& parent, int row, int count);
    void setNetworkName(const std::string& name);
    void setInput(const InputSpec& input);
    void setLoss(Loss loss);

    // --- Undoable set-up edits ---
    void setPrecision(Precision precision);
    /// A new undo step, or with `continuesDrag` (the slider moving on in one drag) merged into the
    /// batch step before it: typing 32, 48, then 40 undoes to 48, then 32.
    void setBatch(std::int64_t batch, bool continuesDrag = false);
    /// Also goes back to the foreach implementation when the new optimizer has no fused one.
    void setOptimizer(Optimizer optimizer);
    void setOptimizerImplementation(OptimizerImplementation implementation);
    void setGpu(const Gpu& gpu);
    void setOverheadBytes(std::uint64_t bytes);
    void setAccumulationSteps(std::int64_t steps);
    void setParallelism(const Parallelism& parallel);
    void setEightBitOptimizer(bool eightBit);
    /// PyTorch's caching allocator with expandable_segments:True (one undo step).
    void setExpandableSegments(bool on);
    void setAssumedUtilization(double utilization);
    /// TrainingSetup::gpusPerNode and interNodeGBps: the links a multi-GPU step's exchanges go over
    /// (the throughput and the planner's ranking; not memory). One undo step each.
    void setGpusPerNode(std::int64_t gpus);
    void setInterNodeGBps(double gbps);
    /// Applies a measured run's calibration (TrainingSetup::calibration) or, given an inactive one,
    /// removes it: one undo step either way.
    void setCalibration(const RunCalibration& calibration);

    // --- Undoable strategy edits (re-analyse; saved with the set-up, in the file's "training") ---
    void setCheckpointing(Checkpointing checkpointing);
    void setAttention(AttentionImplementation attention);
    void setLora(const LoraOptions& lora);
    /// Overrides a sequence model's input length; nullopt follows the model. Cleared when another
    /// network is loaded.
    void setSequenceLength(std::optional<std::int64_t> length);
    /// Mixture-of-experts routing imbalance (Plan::moeImbalance); back to 1 when another network is loaded.
    void setMoeImbalance(double imbalance);
    /// Sets the settings of a set-up the planner found for this plan (precision, checkpointing, LoRA
    /// and the training set-up with its batch; its GPU, attention, sequence length and routing are this
    /// plan's) as one undo step named `text`; the network stays.
    void applyPlanSettings(const PlanSettings& settings, const QString& text);

Q_SIGNALS:
    void layersAboutToBeInserted(const headroom::ui::LayerPath& parent, int first, int last);
    void layersInserted(const headroom::ui::LayerPath& parent, int first, int last);
    void layersAboutToBeRemoved(const headroom::ui::LayerPath& parent, int first, int last);
    void layersRemoved(const headroom::ui::LayerPath& parent, int first, int last);
    void layerChanged(const headroom::ui::LayerPath& path);
    void networkAboutToBeReset();
    void networkReset();
    /// After any change of the network (structure, a layer, the input, the loss): re-analyse.
    void networkChanged();
    void headerChanged(); ///< name, input or loss
    void precisionChanged(headroom::Precision precision);
    /// The optimizer, GPU or overhead changed: the memory model must be rebuilt (no re-analysis).
    void setupChanged();
    /// Checkpointing, attention, LoRA or the sequence length changed: re-analyse.
    void strategyChanged();
    /// Only the batch changed: the cheap per-slider-tick path.
    void batchChanged(std::int64_t batch);
    void modifiedChanged(bool modified);
    void filePathChanged(const QString& filePath);

private:
    /// Pushes an edit of the plan's settings (everything but the network); applying it emits what
    /// changed: strategyChanged / precisionChanged (re-analyse), setupChanged or batchChanged.
    void editSettings(
        const QString& text, const std::function<void(PlanSettings&)>& change, int mergeId = -1);
    void applySettings(const PlanSettings& settings);
    void push(const QString& text, std::function<void()> redo, std::function<void()> undo, int mergeId = -1,
        bool startsStep = false);
    /// Pushes one structural edit (the core's NetworkEdits) as one undo step; with `settings`, the
    /// plan's settings change with it (checkpointing a selection switches checkpointing on).
    void pushSplice(
        const QString& text, const Splice& edit, const std::optional<PlanSettings>& settings = {});
    /// Why a structural edit was refused, in the user's words; `noLayers` when there was nothing to edit.
    [[nodiscard]] static QString refusalText(const EditRefusal& refusal, const QString& noLayers);
    void doInsert(const LayerPath& parent, int row, const std::vector<LayerSpec>& specs);
    std::vector<LayerSpec> doRemove(const LayerPath& parent, int row, int count);
    void doSplice(const Splice& edit);
    void doMove(const LayerMove& move);
    /// Replaces a spec's own fields, keeping its children.
    void doReplace(const LayerPath& path, const LayerSpec& spec);
    void editLayer(const LayerPath& path, const QString& text, const std::function<void(LayerSpec&)>& change);
    void editHeader(const QString& text, const std::function<void(Network&)>& change);
    void networkEdited();
    void updateModified();

    Plan m_plan;
    Network m_savedNetwork;
    /// The settings the file holds, once it holds some (isModified()).
    std::optional<PlanSettings> m_savedSettings;
    QString m_filePath;
    QString m_importedFrom;
    QStringList m_droppedLoraTargets;
    QUndoStack* m_undoStack;
    bool m_modified = false;
};

} // namespace headroom::ui

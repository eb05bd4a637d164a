#include "Document.h"

#include "EditCommand.h"

#include <QFileInfo>
#include <QUndoStack>
#include <algorithm>
#include <utility>

namespace headroom::ui {

namespace {

// Settings changed in a row through one control (dragging the slider) merge into one undo step.
enum MergeId {
    BatchMerge = 1,
    OverheadMerge,
    AccumulationMerge,
    GpusMerge,
    TensorParallelMerge,
    UtilizationMerge,
    SequenceLengthMerge,
    LoraRankMerge,
    LoraDropoutMerge,
    MoeImbalanceMerge,
    GpusPerNodeMerge,
    InterNodeMerge,
};

SpecPath specPathOf(const LayerPath& path)
{
    return { path.begin(), path.end() };
}
LayerPath layerPathOf(const SpecPath& path)
{
    return { path.begin(), path.end() };
}

} // namespace

Document::Document(QObject* parent)
    : QObject(parent)
    , m_undoStack { new QUndoStack(this) }
{
    m_undoStack->setObjectName(QStringLiteral("documentUndoStack"));
}

Document::~Document() = default;

QString Document::displayName() const
{
    if (!m_filePath.isEmpty())
        return QFileInfo(m_filePath).fileName();
    if (!m_plan.network.name.empty())
        return QString::fromStdString(m_plan.network.name);
    if (!m_importedFrom.isEmpty())
        return QFileInfo(m_importedFrom).fileName();
    return tr("Untitled");
}

void Document::resetNetwork(Network network, const QString& filePath, const QString& importedFrom,
    const std::optional<PlanSettings>& saved)
{
    Q_EMIT networkAboutToBeReset();
    const PlanSettings before = m_plan;
    m_plan.network = std::move(network);
    if (saved) {
        static_cast<PlanSettings&>(m_plan) = *saved; // as the file was saved
        m_plan.setup = normalized(m_plan.setup);
        m_plan.setup.batch = std::clamp<std::int64_t>(m_plan.setup.batch, 1, kMaxBatch);
    } else {
        m_plan.sequenceLength.reset(); // the new model's own length
        m_plan.moeImbalance = 1.0; // its own routing: balanced until said otherwise
    }
    // The set-up (kept, or the saved one) less what names layers this network does not have (a Llama's
    // q_proj on a ViT).
    m_droppedLoraTargets.clear();
    for (const auto& target : keepWhatApplies(m_plan, m_plan.network).loraTargets)
        m_droppedLoraTargets << QString::fromStdString(target);
    m_savedNetwork = m_plan.network;
    m_savedSettings.reset();
    if (saved)
        m_savedSettings = static_cast<const PlanSettings&>(m_plan);
    m_undoStack->clear();
    const bool pathChanged = filePath != m_filePath || importedFrom != m_importedFrom;
    m_filePath = filePath;
    m_importedFrom = importedFrom;
    Q_EMIT networkReset();
    Q_EMIT headerChanged();
    Q_EMIT networkChanged(); // re-analysed with the settings as they are now, the saved ones included
    if (saved) {
        // What follows the settings besides the analysis: the batch's views, and a calibration's
        // (which rebuilds the step model: only when it changed).
        if (!(before.setup.calibration == m_plan.setup.calibration))
            Q_EMIT setupChanged();
        Q_EMIT batchChanged(m_plan.setup.batch);
    }
    if (pathChanged)
        Q_EMIT filePathChanged(m_filePath);
    updateModified();
}

void Document::resetSetup(Precision precision, const TrainingSetup& setup, const Gpu& gpu)
{
    m_plan.precision = precision;
    m_plan.setup = setup;
    m_plan.setup.batch = std::clamp<std::int64_t>(setup.batch, 1, kMaxBatch);
    m_plan.gpu = gpu;
    m_undoStack->clear();
    Q_EMIT precisionChanged(m_plan.precision);
    Q_EMIT setupChanged();
    Q_EMIT batchChanged(m_plan.setup.batch);
    updateModified();
}

void Document::resetBatch(std::int64_t batch)
{
    batch = std::clamp<std::int64_t>(batch, 1, kMaxBatch);
    if (batch == m_plan.setup.batch)
        return;
    m_plan.setup.batch = batch;
    Q_EMIT batchChanged(batch);
    updateModified();
}

void Document::markSaved(const QString& filePath)
{
    m_savedNetwork = m_plan.network;
    m_savedSettings = static_cast<const PlanSettings&>(m_plan); // Save writes the set-up too
    if (filePath != m_filePath || !m_importedFrom.isEmpty()) {
        m_filePath = filePath;
        m_importedFrom.clear();
        Q_EMIT filePathChanged(m_filePath);
    }
    updateModified();
}

const std::vector<LayerSpec>* Document::children(const LayerPath& parent) const
{
    return childrenAt(m_plan.network, specPathOf(parent));
}

const LayerSpec* Document::spec(const LayerPath& path) const
{
    return path.isEmpty() ? nullptr : specAt(m_plan.network, specPathOf(path));
}

std::string Document::specPath(const LayerPath& path)
{
    return specPathText(specPathOf(path));
}

void Document::push(
    const QString& text, std::function<void()> redo, std::function<void()> undo, int mergeId, bool startsStep)
{
    m_undoStack->push(new EditCommand(text, std::move(redo), std::move(undo), mergeId, startsStep));
}

void Document::doInsert(const LayerPath& parent, int row, const std::vector<LayerSpec>& specs)
{
    const auto* list = children(parent);
    if (list == nullptr || specs.empty())
        return;
    row = std::clamp(row, 0, static_cast<int>(list->size()));
    const int last = row + static_cast<int>(specs.size()) - 1;
    Q_EMIT layersAboutToBeInserted(parent, row, last);
    putLayers(m_plan.network, specPathOf(parent), row, specs);
    Q_EMIT layersInserted(parent, row, last);
    networkEdited();
}

std::vector<LayerSpec> Document::doRemove(const LayerPath& parent, int row, int count)
{
    const auto* list = children(parent);
    if (list == nullptr || count <= 0 || row < 0 || static_cast<std::size_t>(row + count) > list->size())
        return {};
    Q_EMIT layersAboutToBeRemoved(parent, row, row + count - 1);
    std::vector<LayerSpec> removed = takeLayers(m_plan.network, specPathOf(parent), row, count);
    Q_EMIT layersRemoved(parent, row, row + count - 1);
    networkEdited();
    return removed;
}

void Document::doSplice(const Splice& edit)
{
    const LayerPath parent = layerPathOf(edit.parent);
    if (!edit.removed.empty())
        doRemove(parent, edit.row, static_cast<int>(edit.removed.size()));
    if (!edit.inserted.empty())
        doInsert(parent, edit.row, edit.inserted);
}

void Document::doMove(const LayerMove& move)
{
    doInsert(layerPathOf(move.to), move.toRow, doRemove(layerPathOf(move.from), move.row, move.count));
}

void Document::pushSplice(
    const QString& text, const Splice& edit, const std::optional<PlanSettings>& settings)
{
    const PlanSettings before = m_plan;
    push(
        text,
        [this, edit, settings] {
            doSplice(edit);
            if (settings)
                applySettings(*settings);
        },
        [this, undo = inverse(edit), before, settings] {
            doSplice(undo);
            if (settings)
                applySettings(before);
        });
}

void Document::doReplace(const LayerPath& path, const LayerSpec& spec)
{
    LayerSpec* target = path.isEmpty() ? nullptr : specAt(m_plan.network, specPathOf(path));
    if (target == nullptr)
        return;
    auto children = std::move(target->children);
    *target = spec;
    target->children = std::move(children);
    Q_EMIT layerChanged(path);
    networkEdited();
}

void Document::networkEdited()
{
    Q_EMIT networkChanged();
    updateModified();
}

void Document::updateModified()
{
    const bool modified = !(m_plan.network == m_savedNetwork)
        || (m_savedSettings && !(static_cast<const PlanSettings&>(m_plan) == *m_savedSettings));
    if (modified != m_modified) {
        m_modified = modified;
        Q_EMIT modifiedChanged(m_modified);
    }
}

void Document::insertLayers(
    const LayerPath& parent, int row, std::vector<LayerSpec> specs, const QString& text)
{
    if (auto edit = insertEdit(m_plan.network, specPathOf(parent), row, std::move(specs)))
        pushSplice(text, *edit);
}

void Document::removeLayers(const LayerPath& parent, int row, int count)
{
    if (auto edit = removeEdit(m_plan.network, specPathOf(parent), row, count))
        pushSplice(count == 1 ? tr("Remove layer") : tr("Remove %n layers", nullptr, count), *edit);
}

bool Document::moveLayers(const LayerPath& parent, int row, int count, const LayerPath& newParent, int newRow)
{
    const auto move = moveEdit(m_plan.network, specPathOf(parent), row, count, specPathOf(newParent), newRow);
    if (!move)
        return false;
    push(
        count == 1 ? tr("Move layer") : tr("Move %n layers", nullptr, count),
        [this, m = *move] { doMove(m); }, [this, back = inverse(*move)] { doMove(back); });
    return true;
}

void Document::duplicateLayers(const LayerPath& parent, int row, int count)
{
    if (auto edit = duplicateEdit(m_plan.network, specPathOf(parent), row, count))
        pushSplice(count == 1 ? tr("Duplicate layer") : tr("Duplicate %n layers", nullptr, count), *edit);
}

QString Document::refusalText(const EditRefusal& refusal, const QString& noLayers)
{
    const auto q = [](const std::string& s) { return QString::fromStdString(s); };
    switch (refusal.reason) {
    case EditRefusal::Reason::NoLayers:
        return noLayers;
    case EditRefusal::Reason::NotTopLevel:
        return tr("Only top-level layers can be checkpointed as a block.");
    case EditRefusal::Reason::ChangesShape:
        return tr("Cannot wrap these layers in a residual block: they change the shape from %1 to %2, and a "
                  "residual "
                  "connection adds the block's input to its output.")
            .arg(q(refusal.first), q(refusal.second));
    case EditRefusal::Reason::NotAddable:
        return tr(
            "Cannot wrap these layers in a residual block: their output cannot be added to their input.");
    case EditRefusal::Reason::UsedInside:
        return tr("Cannot checkpoint these layers as one block: \"%1\" after them uses \"%2\" inside it.")
            .arg(q(refusal.first), q(refusal.second));
    }
    return noLayers;
}

QString Document::wrapInResidual(const LayerPath& parent, int row, int count)
{
    auto edit = residualEdit(m_plan.network, m_plan.analysisOptions(), specPathOf(parent), row, count);
    if (const auto* refusal = std::get_if<EditRefusal>(&edit))
        return refusalText(*refusal, tr("Select the layers to wrap."));
    pushSplice(tr("Wrap in residual block"), std::get<Splice>(edit));
    return {};
}

void Document::editLayer(
    const LayerPath& path, const QString& text, const std::function<void(LayerSpec&)>& change)
{
    const LayerSpec* current = spec(path);
    if (current == nullptr)
        return;
    LayerSpec before = *current;
    before.children.clear(); // doReplace keeps the children
    LayerSpec after = before;
    change(after);
    if (after == before)
        return;
    push(
        text, [this, path, after] { doReplace(path, after); },
        [this, path, before] { doReplace(path, before); });
}

void Document::setLayerAttribute(const LayerPath& path, const std::string& name, const nlohmann::json& value)
{
    editLayer(path, tr("Change %1").arg(QString::fromStdString(name)), [&](LayerSpec& s) {
        if (value.is_null())
            s.attributes.erase(name);
        else
            s.attributes[name] = value;
    });
}

void Document::setLayerName(const LayerPath& path, const std::string& name)
{
    editLayer(path, tr("Rename layer"), [&](LayerSpec& s) { s.name = name; });
}

void Document::setLayerInputs(const LayerPath& path, const std::vector<std::string>& inputs)
{
    editLayer(path, tr("Change inputs"), [&](LayerSpec& s) { s.inputs = inputs; });
}

void Document::setRepeatTimes(const LayerPath& path, std::int64_t times)
{
    editLayer(path, tr("Change repeat count"), [&](LayerSpec& s) { s.times = times; });
}

void Document::setLayerFrozen(const LayerPath& path, bool frozen)
{
    editLayer(
        path, frozen ? tr("Freeze layer") : tr("Unfreeze layer"), [&](LayerSpec& s) { s.frozen = frozen; });
}

void Document::setLayerCheckpoint(const LayerPath& path, bool checkpoint)
{
    const LayerSpec* current = spec(path);
    if (current == nullptr || !current->isRepeat() || current->checkpoint == checkpoint)
        return;
    LayerSpec before = *current;
    before.children.clear();
    LayerSpec after = before;
    after.checkpoint = checkpoint;
    const PlanSettings settingsBefore = m_plan;
    PlanSettings settingsAfter = settingsBefore;
    if (checkpoint)
        settingsAfter.checkpointing = checkpointingForMarkedBlocks(settingsAfter.checkpointing);
    push(
        checkpoint ? tr("Checkpoint block") : tr("Stop checkpointing block"),
        [this, path, after, settingsAfter] {
            doReplace(path, after);
            applySettings(settingsAfter);
        },
        [this, path, before, settingsBefore] {
            doReplace(path, before);
            applySettings(settingsBefore);
        });
}

QString Document::checkpointLayers(const LayerPath& parent, int row, int count)
{
    auto edit = checkpointEdit(m_plan.network, specPathOf(parent), row, count);
    if (const auto* refusal = std::get_if<EditRefusal>(&edit))
        return refusalText(*refusal, tr("Select the layers to checkpoint."));
    const CheckpointEdit& checkpoint = std::get<CheckpointEdit>(edit);
    if (checkpoint.markBlock) {
        setLayerCheckpoint(layerPathOf(*checkpoint.markBlock), true);
        return {};
    }
    PlanSettings settings = m_plan;
    settings.checkpointing = checkpointingForMarkedBlocks(settings.checkpointing);
    pushSplice(tr("Checkpoint selection"), *checkpoint.wrap, settings);
    return {};
}

void Document::editHeader(const QString& text, const std::function<void(Network&)>& change)
{
    Network before;
    before.name = m_plan.network.name;
    before.description = m_plan.network.description;
    before.input = m_plan.network.input;
    before.loss = m_plan.network.loss;
    Network after = before;
    change(after);
    if (after == before)
        return;
    const auto apply = [this](const Network& h) {
        m_plan.network.name = h.name;
        m_plan.network.description = h.description;
        m_plan.network.input = h.input;
        m_plan.network.loss = h.loss;
        Q_EMIT headerChanged();
        networkEdited();
    };
    push(
        text, [apply, after] { apply(after); }, [apply, before] { apply(before); });
}

void Document::setNetworkName(const std::string& name)
{
    editHeader(tr("Rename network"), [&](Network& n) { n.name = name; });
}

void Document::setInput(const InputSpec& input)
{
    editHeader(tr("Change input"), [&](Network& n) { n.input = input; });
}

void Document::setLoss(Loss loss)
{
    editHeader(tr("Change loss"), [&](Network& n) { n.loss = loss; });
}

void Document::setPrecision(Precision precision)
{
    const Precision before = m_plan.precision;
    if (before == precision)
        return;
    const auto apply = [this](Precision p) {
        m_plan.precision = p;
        Q_EMIT precisionChanged(p);
    };
    push(
        tr("Change precision"), [apply, precision] { apply(precision); }, [apply, before] { apply(before); });
}

void Document::setBatch(std::int64_t batch, bool continuesDrag)
{
    batch = std::clamp<std::int64_t>(batch, 1, kMaxBatch);
    const std::int64_t before = m_plan.setup.batch;
    if (before == batch)
        return;
    const auto apply = [this](std::int64_t b) {
        m_plan.setup.batch = b;
        Q_EMIT batchChanged(b);
    };
    push(
        tr("Change batch size"), [apply, batch] { apply(batch); }, [apply, before] { apply(before); },
        BatchMerge, !continuesDrag);
}

void Document::setOptimizer(Optimizer optimizer)
{
    editSettings(tr("Change optimizer"), [&](PlanSettings& s) { s.setup.optimizer = optimizer; });
}

void Document::setOptimizerImplementation(OptimizerImplementation implementation)
{
    editSettings(tr("Change optimizer implementation"),
        [&](PlanSettings& s) { s.setup.optimizerImplementation = implementation; });
}

void Document::setGpu(const Gpu& gpu)
{
    const Gpu before = m_plan.gpu;
    if (before == gpu)
        return;
    // An overhead left at the CUDA context follows the new GPU's context.
    const std::uint64_t overheadBefore = m_plan.setup.overheadBytes;
    PlanSettings moved = m_plan;
    moveToGpu(moved, gpu);
    const std::uint64_t overheadAfter = moved.setup.overheadBytes;
    const auto apply = [this](const Gpu& g, std::uint64_t overhead) {
        m_plan.gpu = g;
        m_plan.setup.overheadBytes = overhead;
        Q_EMIT setupChanged();
    };
    push(
        tr("Change GPU"), [apply, gpu, overheadAfter] { apply(gpu, overheadAfter); },
        [apply, before, overheadBefore] { apply(before, overheadBefore); });
}

void Document::setOverheadBytes(std::uint64_t bytes)
{
    const std::uint64_t before = m_plan.setup.overheadBytes;
    if (before == bytes)
        return;
    const auto apply = [this](std::uint64_t b) {
        m_plan.setup.overheadBytes = b;
        Q_EMIT setupChanged();
    };
    push(
        tr("Change overhead"), [apply, bytes] { apply(bytes); }, [apply, before] { apply(before); },
        OverheadMerge);
}

void Document::setCalibration(const RunCalibration& calibration)
{
    const RunCalibration next = calibration.active() ? calibration : RunCalibration {};
    editSettings(next.active() ? tr("Apply calibration") : tr("Remove calibration"),
        [&](PlanSettings& s) { s.setup.calibration = next; });
}

void Document::applyPlanSettings(const PlanSettings& settings, const QString& text)
{
    editSettings(text, [&](PlanSettings& s) { s = settings; });
}

void Document::editSettings(
    const QString& text, const std::function<void(PlanSettings&)>& change, int mergeId)
{
    const PlanSettings before = m_plan;
    PlanSettings after = before;
    change(after);
    // An optimizer implementation the new settings cannot run falls back in the same step
    // (normalized(): a fused step that torch.optim does not have goes back to foreach).
    after.setup = normalized(after.setup);
    if (after == before)
        return;
    push(
        text, [this, after] { applySettings(after); }, [this, before] { applySettings(before); }, mergeId);
}

void Document::applySettings(const PlanSettings& s)
{
    const PlanSettings old = m_plan;
    if (old == s)
        return;
    static_cast<PlanSettings&>(m_plan) = s;
    TrainingSetup oldSetup = old.setup;
    oldSetup.batch = s.setup.batch;
    const bool strategy = old.checkpointing != s.checkpointing || old.attention != s.attention
        || !(old.lora == s.lora) || old.sequenceLength != s.sequenceLength
        || old.moeImbalance != s.moeImbalance;
    if (old.precision != s.precision)
        Q_EMIT precisionChanged(s.precision);
    if (strategy)
        Q_EMIT strategyChanged();
    if (!(oldSetup == s.setup) || !(old.gpu == s.gpu))
        Q_EMIT setupChanged();
    if (old.setup.batch != s.setup.batch)
        Q_EMIT batchChanged(s.setup.batch);
    updateModified(); // a file that holds a set-up differs from it now
}

void Document::setAccumulationSteps(std::int64_t steps)
{
    editSettings(
        tr("Change accumulation steps"), [&](PlanSettings& s) { s.setup.accumulationSteps = steps; },
        AccumulationMerge);
}

void Document::setParallelism(const Parallelism& parallel)
{
    const Parallelism& old = m_plan.setup.parallel;
    int merge = -1;
    QString text = tr("Change parallelism");
    if (parallel.gpus != old.gpus) {
        text = tr("Change GPU count");
        merge = GpusMerge;
    } else if (parallel.tensorParallel != old.tensorParallel) {
        text = tr("Change tensor parallelism");
        merge = TensorParallelMerge;
    } else if (parallel.sharding != old.sharding) {
        text = tr("Change sharding");
    } else if (parallel.offloadOptimizer != old.offloadOptimizer) {
        text = parallel.offloadOptimizer ? tr("Offload optimizer state")
                                         : tr("Keep optimizer state on the GPU");
    } else if (parallel.sequenceParallel != old.sequenceParallel) {
        text = parallel.sequenceParallel ? tr("Use sequence parallelism") : tr("Stop sequence parallelism");
    } else if (parallel.pipelineParallel != old.pipelineParallel) {
        text = tr("Change pipeline stages");
    } else if (parallel.schedule != old.schedule) {
        text = tr("Change pipeline schedule");
    } else if (parallel.virtualStages != old.virtualStages) {
        text = tr("Change virtual stages");
    } else if (parallel.stageLayers != old.stageLayers) {
        text = tr("Change layers per stage");
    } else if (parallel.contextParallel != old.contextParallel || parallel.contextKind != old.contextKind) {
        text = tr("Change context parallelism");
    } else if (parallel.expertParallel != old.expertParallel
        || parallel.expertTensorParallel != old.expertTensorParallel) {
        text = tr("Change expert parallelism");
    } else if (parallel.activationOffload != old.activationOffload) {
        text = tr("Change activation offload");
    }
    editSettings(
        text, [&](PlanSettings& s) { s.setup.parallel = parallel; }, merge);
}

void Document::setEightBitOptimizer(bool eightBit)
{
    editSettings(eightBit ? tr("Use an 8-bit optimizer") : tr("Use a 32-bit optimizer"),
        [&](PlanSettings& s) { s.setup.eightBitOptimizer = eightBit; });
}

void Document::setExpandableSegments(bool on)
{
    editSettings(on ? tr("Use expandable segments") : tr("Use fixed segments"),
        [&](PlanSettings& s) { s.setup.expandableSegments = on; });
}

void Document::setAssumedUtilization(double utilization)
{
    editSettings(
        tr("Change assumed utilisation"), [&](PlanSettings& s) { s.setup.assumedUtilization = utilization; },
        UtilizationMerge);
}

void Document::setGpusPerNode(std::int64_t gpus)
{
    editSettings(
        tr("Change GPUs per node"), [&](PlanSettings& s) { s.setup.gpusPerNode = gpus; }, GpusPerNodeMerge);
}

void Document::setInterNodeGBps(double gbps)
{
    editSettings(
        tr("Change bandwidth between nodes"), [&](PlanSettings& s) { s.setup.interNodeGBps = gbps; },
        InterNodeMerge);
}

void Document::setCheckpointing(Checkpointing checkpointing)
{
    editSettings(tr("Change checkpointing"), [&](PlanSettings& s) { s.checkpointing = checkpointing; });
}

void Document::setAttention(AttentionImplementation attention)
{
    editSettings(tr("Change attention implementation"), [&](PlanSettings& s) { s.attention = attention; });
}

void Document::setLora(const LoraOptions& lora)
{
    const LoraOptions& old = m_plan.lora;
    int merge = -1;
    if (lora.rank != old.rank)
        merge = LoraRankMerge;
    else if (lora.dropout != old.dropout)
        merge = LoraDropoutMerge;
    editSettings(
        tr("Change LoRA"), [&](PlanSettings& s) { s.lora = lora; }, merge);
}

void Document::setSequenceLength(std::optional<std::int64_t> length)
{
    editSettings(
        tr("Change sequence length"), [&](PlanSettings& s) { s.sequenceLength = length; },
        SequenceLengthMerge);
}

void Document::setMoeImbalance(double imbalance)
{
    editSettings(
        tr("Change MoE imbalance"), [&](PlanSettings& s) { s.moeImbalance = imbalance; }, MoeImbalanceMerge);
}

} // namespace headroom::ui

#include "SetupPanel.h"

#include "CoreText.h" // text/
#include "Document.h"
#include "EntryNote.h"
#include "ErrorText.h"
#include "FieldCommit.h"
#include "FormRows.h"
#include "GpuSelector.h"
#include "PlanController.h"
#include "QtText.h"
#include "UiText.h"
#include "headroom/estimate/Estimate.h"
#include "headroom/importers/HfConfig.h"
#include "headroom/setup/Training.h"
#include "headroom/support/Count.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGridLayout>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QRegularExpression>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QStringList>
#include <QTabWidget>
#include <QVBoxLayout>
#include <cmath>
#include <initializer_list>
#include <limits>

namespace headroom::ui {

namespace {

constexpr std::array kPrecisions { Precision::Fp32, Precision::AmpFp16, Precision::AmpBf16, Precision::Fp16,
    Precision::Bf16 };
constexpr std::array kAttentions { AttentionImplementation::Sdpa, AttentionImplementation::Eager };

/// The length of the model's sequence axis, if its input is a sequence (what the core's
/// withSequenceLength accepts).
std::optional<std::int64_t> modelSequenceLength(const Network& network)
{
    const auto& dims = network.input.shape.dims;
    if (dims.empty() || !withSequenceLength(network, dims.front()))
        return std::nullopt;
    return dims.front();
}

/// The largest routing imbalance every mixture-of-experts layer allows (num_experts / num_experts_per_tok,
/// the kind's defaults where not given), or nothing when the network has no such layer.
std::optional<double> moeImbalanceLimit(const std::vector<LayerSpec>& specs)
{
    std::optional<double> limit;
    for (const auto& spec : specs) {
        std::optional<double> here;
        if (spec.isRepeat()) {
            here = moeImbalanceLimit(spec.children);
        } else if (spec.type == "MixtureOfExperts") {
            const auto integer = [&](const char* key, std::int64_t fallback) {
                const auto it = spec.attributes.find(key);
                return it != spec.attributes.end() && it->is_number_integer() && it->get<std::int64_t>() > 0
                    ? it->get<std::int64_t>()
                    : fallback;
            };
            here = static_cast<double>(integer("num_experts", 8))
                / static_cast<double>(integer("num_experts_per_tok", 2));
        }
        if (here)
            limit = limit ? std::min(*limit, *here) : *here;
    }
    return limit;
}

} // namespace

SetupPanel::SetupPanel(Document* document, QWidget* parent)
    : QWidget(parent)
    , m_document { document }
{
    m_tabs = new QTabWidget(this);
    m_tabs->setObjectName(QStringLiteral("setupTabWidget"));
    m_tabs->setDocumentMode(true);
    m_tabs->addTab(createGpuTab(), tr("GPU && optimizer"));
    m_tabs->addTab(createStrategyTab(), tr("Strategy"));
    m_tabs->setTabToolTip(StrategyTab,
        tr("Activation checkpointing, attention, sequence length, gradient accumulation, "
           "LoRA and QLoRA"));
    m_tabs->addTab(createMultiGpuTab(), tr("Multi-GPU"));
    m_tabs->setTabToolTip(MultiGpuTab,
        tr("Data parallelism (DDP, ZeRO, FSDP), tensor, sequence, pipeline, context and expert parallelism, "
           "optimizer and activation offload"));

    m_error = new QLabel(this);
    m_error->setObjectName(QStringLiteral("setupErrorLabel"));
    m_error->setWordWrap(true);
    m_error->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_error->setStyleSheet(QStringLiteral("color: #c01010;"));
    m_error->hide();

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(4);
    layout->addWidget(m_tabs);
    layout->addWidget(m_error);

    connect(document, &Document::setupChanged, this, &SetupPanel::refresh);
    connect(document, &Document::precisionChanged, this, &SetupPanel::refresh);
    connect(document, &Document::strategyChanged, this, &SetupPanel::refresh);
    connect(document, &Document::networkChanged, this,
        &SetupPanel::refresh); // the sequence length follows the model
    refresh();
}

QWidget* SetupPanel::createGpuTab()
{
    auto* page = new QWidget(this);
    page->setObjectName(QStringLiteral("gpuSetupPage"));
    createGpuFields(page);
    auto* optimizerRow = new QHBoxLayout;
    optimizerRow->addWidget(m_optimizer, 1);
    optimizerRow->addWidget(m_eightBit);
    auto* overheadRow = new QHBoxLayout;
    overheadRow->addWidget(m_overhead, 1);
    overheadRow->addSpacing(12);
    overheadRow->addWidget(buddyLabel(tr("Utilisation:"), m_utilization));
    overheadRow->addWidget(m_utilization, 1);

    auto* form = new QFormLayout(page);
    form->setContentsMargins(0, 6, 0, 0);
    // Under the GPU: why typed text was not taken (hidden, taking no room, otherwise).
    m_gpuNote = new QLabel(page);
    m_gpuNote->setObjectName(QStringLiteral("gpuNoteLabel"));
    m_gpuNote->setWordWrap(true);
    m_gpuNote->hide();
    auto* gpuColumn = new QVBoxLayout;
    gpuColumn->setSpacing(2);
    gpuColumn->addWidget(m_gpu);
    gpuColumn->addWidget(m_gpuNote);
    form->addRow(tr("GPU:"), gpuColumn);
    form->addRow(tr("Optimizer:"), optimizerRow);
    form->addRow(tr("Implementation:"), m_implementation);
    form->addRow(tr("Precision:"), m_precision);
    form->addRow(tr("Overhead:"), overheadRow);
    auto* allocatorRow = new QHBoxLayout;
    allocatorRow->addWidget(m_expandable);
    allocatorRow->addStretch(1);
    form->addRow(tr("Allocator:"), allocatorRow);

    connectGpuTab();
    return page;
}

void SetupPanel::createGpuFields(QWidget* page)
{
    m_gpu = new GpuSelector(page);
    m_optimizer = new QComboBox(page);
    m_optimizer->setObjectName(QStringLiteral("optimizerComboBox"));
    for (const Optimizer o : allOptimizers())
        m_optimizer->addItem(UiText::optimizer(o), static_cast<int>(o));
    m_eightBit = new QCheckBox(tr("8-bit state"), page);
    m_eightBit->setObjectName(QStringLiteral("eightBitOptimizerCheckBox"));
    m_eightBit->setToolTip(
        tr("bitsandbytes-style 8-bit optimizer state (block-wise quantised; tensors below 4096 "
           "elements stay 32-bit)"));
    m_implementation = new QComboBox(page);
    m_implementation->setObjectName(QStringLiteral("optimizerImplementationComboBox"));
    for (const OptimizerImplementation i : allOptimizerImplementations())
        m_implementation->addItem(UiText::optimizerImplementation(i), static_cast<int>(i));
    m_implementation->setToolTip(
        tr("How torch.optim runs the optimizer step, and the temporaries it holds then: foreach (the "
           "default on CUDA) lists as large as all the parameters, fused=True none, foreach=False "
           "(for-loop) those of one parameter at a time"));
    m_precision = new QComboBox(page);
    m_precision->setObjectName(QStringLiteral("precisionComboBox"));
    for (const Precision p : kPrecisions)
        m_precision->addItem(UiText::precision(p), static_cast<int>(p));
    m_overhead = new QSpinBox(page);
    m_overhead->setObjectName(QStringLiteral("overheadSpinBox"));
    m_overhead->setRange(0, 64 * 1024);
    m_overhead->setSingleStep(64);
    m_overhead->setSuffix(tr(" MiB"));
    m_overhead->setToolTip(
        tr("Memory outside PyTorch's caching allocator: the CUDA context (its default follows the GPU). "
           "0 leaves all of the GPU's memory to the allocator."));
    m_expandable = new QCheckBox(tr("Expandable segments"), page);
    m_expandable->setObjectName(QStringLiteral("expandableSegmentsCheckBox"));
    m_expandable->setToolTip(
        tr("PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True: PyTorch's caching allocator grows one "
           "segment by mapping pages rather than reserving new segments, which wastes less memory"));
    m_utilization = new QSpinBox(page);
    m_utilization->setObjectName(QStringLiteral("utilizationSpinBox"));
    m_utilization->setRange(static_cast<int>(std::lround(kMinUtilization * 100.0)), 100);
    m_utilization->setSuffix(tr(" %"));
    m_utilization->setToolTip(
        tr("The fraction of the GPU's peak FLOP rate a training step is assumed to reach (for the "
           "step time and throughput)"));
}

void SetupPanel::connectGpuTab()
{
    connect(m_gpu, &GpuSelector::gpuSelected, this, [this](const Gpu& gpu) {
        m_gpuNote->hide();
        m_document->setGpu(gpu);
    });
    connect(m_gpu, &GpuSelector::notFound, this, [this](const QString& query) {
        EntryNote::show(m_gpuNote,
            tr("No GPU matches “%1”, so the GPU stays %2. Type part of a name or an alias (“4090”, "
               "“A100 80GB”), or choose Custom... at the end of the list for your own.")
                .arg(query, qs(m_document->plan().gpu.name)),
            false);
    });
    connect(m_gpu->lineEdit(), &QLineEdit::textEdited, m_gpuNote, &QWidget::hide);
    connect(m_gpu, &GpuSelector::customRequested, this, &SetupPanel::customGpuRequested);
    connect(m_optimizer, &QComboBox::currentIndexChanged, this,
        [this] { m_document->setOptimizer(static_cast<Optimizer>(m_optimizer->currentData().toInt())); });
    connect(m_eightBit, &QCheckBox::toggled, this, [this](bool on) { m_document->setEightBitOptimizer(on); });
    connect(
        m_expandable, &QCheckBox::toggled, this, [this](bool on) { m_document->setExpandableSegments(on); });
    connect(m_implementation, &QComboBox::currentIndexChanged, this, [this] {
        m_document->setOptimizerImplementation(
            static_cast<OptimizerImplementation>(m_implementation->currentData().toInt()));
    });
    connect(m_precision, &QComboBox::currentIndexChanged, this,
        [this] { m_document->setPrecision(static_cast<Precision>(m_precision->currentData().toInt())); });
    FieldCommit::attach(m_overhead,
        [this] { m_document->setOverheadBytes(static_cast<std::uint64_t>(m_overhead->value()) * kMiB); });
    FieldCommit::attach(
        m_utilization, [this] { m_document->setAssumedUtilization(m_utilization->value() / 100.0); });
}

QWidget* SetupPanel::createStrategyTab()
{
    auto* page = new QWidget(this);
    page->setObjectName(QStringLiteral("strategySetupPage"));
    createStrategyFields(page);
    createLoraFields(page);
    auto* grid = new QGridLayout(page);
    grid->setContentsMargins(0, 6, 0, 0);
    grid->setHorizontalSpacing(8);
    grid->addWidget(buddyLabel(tr("Checkpointing:"), m_checkpointing), 0, 0);
    grid->addWidget(m_checkpointing, 0, 1);
    grid->addWidget(buddyLabel(tr("Attention:"), m_attention), 0, 2);
    grid->addWidget(m_attention, 0, 3);
    grid->addWidget(buddyLabel(tr("Sequence length:"), m_sequenceLength), 1, 0);
    grid->addWidget(m_sequenceLength, 1, 1);
    grid->addWidget(buddyLabel(tr("Accumulation:"), m_accumulation), 1, 2);
    grid->addWidget(m_accumulation, 1, 3);
    grid->addWidget(buddyLabel(tr("LoRA rank:"), m_loraRank), 2, 0);
    grid->addWidget(m_loraRank, 2, 1);
    grid->addWidget(buddyLabel(tr("Targets:"), m_loraTargets), 2, 2);
    grid->addWidget(m_loraTargets, 2, 3);
    grid->addWidget(buddyLabel(tr("LoRA dropout:"), m_loraDropout), 3, 0);
    grid->addWidget(m_loraDropout, 3, 1);
    grid->addWidget(m_qlora, 3, 2, 1, 2);
    grid->addWidget(m_moeImbalanceLabel, 4, 0);
    grid->addWidget(m_moeImbalance, 4, 1);
    grid->setColumnStretch(1, 1);
    grid->setColumnStretch(3, 1);
    grid->setRowStretch(5, 1);

    connectStrategyTab();
    return page;
}

void SetupPanel::createStrategyFields(QWidget* page)
{
    m_checkpointing = new QComboBox(page);
    m_checkpointing->setObjectName(QStringLiteral("checkpointingComboBox"));
    for (const Checkpointing c : allCheckpointings())
        m_checkpointing->addItem(UiText::checkpointing(c), static_cast<int>(c));
    m_checkpointing->setToolTip(tr("Activation checkpointing: per block keeps only each checkpointed block's "
                                   "input and recomputes the rest in "
                                   "backward (mark blocks in the layer editor; with none marked, every "
                                   "top-level Repeat block); selective "
                                   "recomputes only the attention score matrices"));
    m_attention = new QComboBox(page);
    m_attention->setObjectName(QStringLiteral("attentionComboBox"));
    for (const AttentionImplementation a : kAttentions)
        m_attention->addItem(UiText::attention(a), static_cast<int>(a));
    // Their longest entries need not set the tab's width: the window stays usable on a small
    // screen (the list shows the entries in full).
    for (QComboBox* combo : { m_checkpointing, m_attention }) {
        combo->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
        combo->setMinimumContentsLength(12);
    }
    m_attention->setToolTip(
        tr("Flash / SDPA kernels keep no T × T matrix; eager attention keeps heads × T × T "
           "probabilities (and their dropout mask)"));
    m_sequenceLength = new QSpinBox(page);
    m_sequenceLength->setObjectName(QStringLiteral("sequenceLengthSpinBox"));
    m_sequenceLength->setRange(1, std::numeric_limits<int>::max());
    m_sequenceLength->setSuffix(tr(" tokens"));
    m_accumulation = new QSpinBox(page);
    m_accumulation->setObjectName(QStringLiteral("accumulationStepsSpinBox"));
    m_accumulation->setRange(1, static_cast<int>(kMaxAccumulationSteps));
    m_accumulation->setSuffix(tr(" steps"));
    m_accumulation->setSpecialValueText(tr("none"));
    m_accumulation->setToolTip(
        tr("Gradient accumulation: each optimizer step sees micro-batch × steps samples per "
           "data-parallel GPU; memory follows the micro-batch"));
}

/// LoRA's fields, and the mixture-of-experts routing's.
void SetupPanel::createLoraFields(QWidget* page)
{
    m_loraRank = new QSpinBox(page);
    m_loraRank->setObjectName(QStringLiteral("loraRankSpinBox"));
    m_loraRank->setRange(0, static_cast<int>(kMaxLoraRank));
    m_loraRank->setSpecialValueText(tr("Off"));
    m_loraRank->setToolTip(
        tr("LoRA rank r: targeted Linear layers are frozen and get trainable r × in and out × r "
           "adapters; every other parameter is frozen. 0 turns LoRA off"));
    m_loraTargets = new QLineEdit(page);
    m_loraTargets->setObjectName(QStringLiteral("loraTargetsLineEdit"));
    m_loraTargets->setPlaceholderText(tr("every Linear but the head"));
    m_loraTargets->setToolTip(
        tr("Linear layers to adapt, matched against the end of their names, separated by commas "
           "(q_proj, v_proj)"));
    m_loraDropout = new QDoubleSpinBox(page);
    m_loraDropout->setObjectName(QStringLiteral("loraDropoutSpinBox"));
    m_loraDropout->setRange(0.0, 0.95);
    m_loraDropout->setSingleStep(0.05);
    m_loraDropout->setDecimals(2);
    m_loraDropout->setToolTip(
        tr("lora_dropout: above 0, each adapted layer keeps a dropped copy of its input"));
    m_qlora = new QCheckBox(tr("QLoRA (4-bit base)"), page);
    m_qlora->setObjectName(QStringLiteral("qloraCheckBox"));
    m_qlora->setToolTip(tr("QLoRA: the frozen base Linear weights stored as 4-bit NF4 with double-quantised "
                           "constants; adapters in the half type"));
    m_moeImbalance = new QDoubleSpinBox(page);
    m_moeImbalance->setObjectName(QStringLiteral("moeImbalanceSpinBox"));
    m_moeImbalance->setRange(1.0, kMaxMoeImbalance);
    m_moeImbalance->setSingleStep(0.25);
    m_moeImbalance->setDecimals(2);
    m_moeImbalance->setKeyboardTracking(false);
    m_moeImbalance->setSuffix(tr(" × even share"));
    m_moeImbalance->setToolTip(
        tr("Mixture of experts: the tokens the busiest expert of a layer receives, over an even share "
           "(1: balanced routing, the estimate's assumption). The experts keep the same activations for any "
           "routing; the busiest expert's backward buffers grow with this. At most experts ÷ experts per "
           "token, where one expert receives every token"));
    m_moeImbalanceLabel = buddyLabel(tr("MoE imbalance:"), m_moeImbalance);
}

void SetupPanel::connectStrategyTab()
{
    connect(m_checkpointing, &QComboBox::currentIndexChanged, this, [this] {
        m_document->setCheckpointing(static_cast<Checkpointing>(m_checkpointing->currentData().toInt()));
    });
    connect(m_attention, &QComboBox::currentIndexChanged, this, [this] {
        m_document->setAttention(static_cast<AttentionImplementation>(m_attention->currentData().toInt()));
    });
    FieldCommit::attach(m_sequenceLength, [this] {
        const auto own = modelSequenceLength(m_document->network());
        if (!own)
            return;
        const std::int64_t length = m_sequenceLength->value();
        m_document->setSequenceLength(length == *own ? std::nullopt : std::optional<std::int64_t>(length));
    });
    FieldCommit::attach(
        m_accumulation, [this] { m_document->setAccumulationSteps(m_accumulation->value()); });
    FieldCommit::attach(m_loraRank, [this] { editLora(); });
    FieldCommit::attach(m_loraTargets, [this] { editLora(); });
    FieldCommit::attach(m_loraDropout, [this] { editLora(); });
    connect(m_qlora, &QCheckBox::toggled, this, &SetupPanel::editLora);
    connect(m_moeImbalance, &QDoubleSpinBox::valueChanged, this,
        [this](double imbalance) { m_document->setMoeImbalance(imbalance); });
}

QWidget* SetupPanel::createMultiGpuTab()
{
    auto* page = new QWidget(this);
    page->setObjectName(QStringLiteral("multiGpuSetupPage"));
    m_gpus = new QSpinBox(page);
    m_gpus->setObjectName(QStringLiteral("gpuCountSpinBox"));
    m_gpus->setRange(1, static_cast<int>(kMaxGpus));
    m_gpus->setToolTip(tr("GPUs in all (data × tensor × pipeline × context parallel); the chart shows one "
                          "GPU's memory, with a pipeline the heaviest stage's"));
    m_sharding = new QComboBox(page);
    m_sharding->setObjectName(QStringLiteral("shardingComboBox"));
    for (const Sharding s : allShardings())
        m_sharding->addItem(UiText::sharding(s), static_cast<int>(s));
    m_sharding->setToolTip(
        tr("How data parallelism shares the model state: DDP keeps everything on every GPU; ZeRO 1 "
           "shards optimizer state, 2 also gradients, 3 also weights (FSDP: shard-grad-op as ZeRO "
           "2, full shard as ZeRO 3)"));
    m_tensorParallel = new QSpinBox(page);
    m_tensorParallel->setObjectName(QStringLiteral("tensorParallelSpinBox"));
    m_tensorParallel->setRange(1, static_cast<int>(kMaxGpus));
    m_tensorParallel->setToolTip(tr("Megatron tensor-parallel degree for attention and MLP layers"));
    m_offload = new QCheckBox(tr("Offload optimizer state to the CPU"), page);
    m_offload->setObjectName(QStringLiteral("offloadOptimizerCheckBox"));
    m_offload->setToolTip(tr("Optimizer state (and FP32 master weights) kept in CPU memory (ZeRO-Offload); "
                             "needs a ZeRO stage or FSDP sharding"));
    createPipelineFields(page);
    createOtherParallelFields(page);
    createNodeFields(page);

    // As compact as the other tabs, which share its height: the note under the grid takes room only when
    // shown.
    auto* grid = new QGridLayout;
    grid->setContentsMargins(0, 0, 0, 0);
    grid->setHorizontalSpacing(8);
    grid->setVerticalSpacing(2);
    grid->addWidget(buddyLabel(tr("GPUs:"), m_gpus), 0, 0);
    grid->addWidget(m_gpus, 0, 1);
    grid->addWidget(buddyLabel(tr("Sharding:"), m_sharding), 0, 2);
    grid->addWidget(m_sharding, 0, 3);
    grid->addWidget(buddyLabel(tr("Tensor parallel:"), m_tensorParallel), 1, 0);
    grid->addWidget(m_tensorParallel, 1, 1);
    grid->addWidget(m_sequenceParallel, 1, 2, 1, 2);
    grid->addWidget(buddyLabel(tr("Pipeline stages:"), m_pipelineParallel), 2, 0);
    grid->addWidget(m_pipelineParallel, 2, 1);
    auto* scheduleRow = new QHBoxLayout;
    scheduleRow->addWidget(m_schedule, 1);
    scheduleRow->addWidget(m_virtualStages);
    grid->addWidget(buddyLabel(tr("Schedule:"), m_schedule), 2, 2);
    grid->addLayout(scheduleRow, 2, 3);
    grid->addWidget(buddyLabel(tr("Layers/stage:"), m_stageLayers), 3, 0);
    grid->addWidget(m_stageLayers, 3, 1);
    auto* contextRow = new QHBoxLayout;
    contextRow->addWidget(m_contextParallel);
    contextRow->addWidget(m_contextKind, 1);
    grid->addWidget(buddyLabel(tr("Context:"), m_contextParallel), 3, 2);
    grid->addLayout(contextRow, 3, 3);
    grid->addWidget(buddyLabel(tr("Expert parallel:"), m_expertParallel), 4, 0);
    grid->addWidget(m_expertParallel, 4, 1);
    grid->addWidget(buddyLabel(tr("Expert TP:"), m_expertTensorParallel), 4, 2);
    grid->addWidget(m_expertTensorParallel, 4, 3);
    grid->addWidget(buddyLabel(tr("Activations:"), m_activationOffload), 5, 0);
    grid->addWidget(m_activationOffload, 5, 1);
    grid->addWidget(m_offload, 5, 2, 1, 2);
    grid->addWidget(m_gpusPerNodeLabel, 6, 0);
    grid->addWidget(m_gpusPerNode, 6, 1);
    grid->addWidget(m_interNodeLabel, 6, 2);
    grid->addWidget(m_interNodeGBps, 6, 3);
    grid->setColumnStretch(1, 1);
    grid->setColumnStretch(3, 2);
    auto* layout = new QVBoxLayout(page);
    layout->setContentsMargins(0, 3, 0, 0);
    layout->setSpacing(2);
    layout->addLayout(grid);
    layout->addWidget(m_stageLayersNote);
    layout->addStretch(1);

    for (QSpinBox* spin : { m_gpus, m_tensorParallel, m_pipelineParallel, m_virtualStages, m_contextParallel,
             m_expertParallel, m_expertTensorParallel })
        FieldCommit::attach(spin, [this] { editParallelism(); });
    for (QComboBox* combo : { m_sharding, m_schedule, m_contextKind, m_activationOffload })
        connect(combo, &QComboBox::currentIndexChanged, this, &SetupPanel::editParallelism);
    for (QCheckBox* check : { m_offload, m_sequenceParallel })
        connect(check, &QCheckBox::toggled, this, &SetupPanel::editParallelism);
    FieldCommit::attach(m_stageLayers, [this] { editParallelism(); });
    FieldCommit::attach(m_gpusPerNode, [this] { m_document->setGpusPerNode(m_gpusPerNode->value()); });
    FieldCommit::attach(m_interNodeGBps, [this] { m_document->setInterNodeGBps(m_interNodeGBps->value()); });
    connect(m_stageLayers, &QLineEdit::textEdited, m_stageLayersNote, &QWidget::hide);
    return page;
}

namespace {
/// "7,9,9,7" (spaces allowed) as layer counts; empty text: none (as even as possible); nothing when the
/// text is not a list of whole numbers from 1 up.
std::optional<std::vector<std::int64_t>> parseStageLayers(const QString& text)
{
    std::vector<std::int64_t> counts;
    if (text.trimmed().isEmpty())
        return counts;
    if (text.count(QLatin1Char(',')) == text.size())
        return std::nullopt; // commas alone
    // Empty parts are skipped: "7,9," while the next count is typed.
    for (const QString& part : text.split(QLatin1Char(','), Qt::SkipEmptyParts)) {
        bool ok = false;
        const qlonglong n = part.trimmed().toLongLong(&ok);
        if (!ok || n < 1)
            return std::nullopt;
        counts.push_back(n);
    }
    return counts;
}

/// The activation offload combo's entries: where the saved activations go.
QString activationOffloadText(ActivationOffload a)
{
    switch (a) {
    case ActivationOffload::None:
        return SetupPanel::tr("On the GPU");
    case ActivationOffload::Checkpoints:
        return SetupPanel::tr("Checkpoints to the CPU");
    case ActivationOffload::All:
        return SetupPanel::tr("All to the CPU");
    }
    return {};
}

QString stageLayersText(const std::vector<std::int64_t>& counts)
{
    QStringList parts;
    for (const std::int64_t n : counts)
        parts << QString::number(n);
    return parts.join(QLatin1Char(','));
}
} // namespace

/// Pipeline parallelism's fields: the stages, the schedule, its virtual stages and the layers per stage.
void SetupPanel::createPipelineFields(QWidget* page)
{
    m_sequenceParallel = new QCheckBox(tr("Sequence parallel"), page);
    m_sequenceParallel->setObjectName(QStringLiteral("sequenceParallelCheckBox"));
    m_sequenceParallel->setToolTip(
        tr("Sequence parallelism (Megatron-LM): the norms, dropouts and residual adds between the "
           "tensor-parallel regions run on 1/t of the sequence; needs tensor parallelism"));
    m_pipelineParallel = new QSpinBox(page);
    m_pipelineParallel->setObjectName(QStringLiteral("pipelineParallelSpinBox"));
    m_pipelineParallel->setRange(1, static_cast<int>(kMaxParallelDegree));
    m_pipelineParallel->setSpecialValueText(tr("none"));
    m_pipelineParallel->setToolTip(
        tr("Pipeline-parallel stages: the model's layers cut into this many stages, one GPU each. The "
           "micro-batches of the pipeline are the accumulation steps (Strategy tab); the chart shows the "
           "heaviest stage's GPU"));
    m_schedule = new QComboBox(page);
    m_schedule->setObjectName(QStringLiteral("pipelineScheduleComboBox"));
    for (const PipelineSchedule s : allPipelineSchedules())
        m_schedule->addItem(CoreText::translate(pipelineScheduleLabel(s)), static_cast<int>(s));
    m_schedule->setToolTip(
        tr("How each stage orders its micro-batches (the accumulation steps): GPipe keeps every "
           "micro-batch's activations until the backward passes; 1F1B and zero bubble at most as many as "
           "there are stages after this one, plus one; interleaved 1F1B runs several model chunks per stage "
           "for a smaller bubble"));
    m_virtualStages = new QSpinBox(page);
    m_virtualStages->setObjectName(QStringLiteral("virtualStagesSpinBox"));
    m_virtualStages->setRange(1, static_cast<int>(kMaxParallelDegree));
    m_virtualStages->setSuffix(tr(" virtual"));
    m_virtualStages->setToolTip(
        tr("Virtual stages: model chunks per stage with the interleaved 1F1B schedule (Megatron-LM's "
           "virtual pipeline stages)"));
    m_stageLayers = new QLineEdit(page);
    m_stageLayers->setObjectName(QStringLiteral("stageLayersLineEdit"));
    m_stageLayers->setPlaceholderText(tr("even"));
    m_stageLayers->setToolTip(
        tr("Layers per pipeline stage, first to last, separated by commas (7,9,9,7): the embedding goes "
           "with the first stage, the output head with the last. Empty: as even as possible"));
    m_stageLayersNote = new QLabel(page);
    m_stageLayersNote->setObjectName(QStringLiteral("stageLayersNoteLabel"));
    m_stageLayersNote->setWordWrap(true);
    m_stageLayersNote->hide();
}

/// Context and expert parallelism's fields, and activation offloading's.
void SetupPanel::createOtherParallelFields(QWidget* page)
{
    m_contextParallel = new QSpinBox(page);
    m_contextParallel->setObjectName(QStringLiteral("contextParallelSpinBox"));
    m_contextParallel->setRange(1, static_cast<int>(kMaxParallelDegree));
    m_contextParallel->setSpecialValueText(tr("none"));
    m_contextParallel->setToolTip(
        tr("Context parallelism: each sample's sequence split over this many GPUs"));
    m_contextKind = new QComboBox(page);
    m_contextKind->setObjectName(QStringLiteral("contextKindComboBox"));
    for (const ContextParallelism c : { ContextParallelism::Ring, ContextParallelism::AllToAll })
        m_contextKind->addItem(CoreText::translate(contextParallelismLabel(c)), static_cast<int>(c));
    m_contextKind->setToolTip(tr("How context parallelism exchanges the sequence: ring attention passes "
                                 "key/value blocks around the ring; all-to-all (DeepSpeed-Ulysses) "
                                 "exchanges sequence shards for head shards"));
    m_expertParallel = new QSpinBox(page);
    m_expertParallel->setObjectName(QStringLiteral("expertParallelSpinBox"));
    m_expertParallel->setRange(1, static_cast<int>(kMaxParallelDegree));
    m_expertParallel->setSpecialValueText(tr("none"));
    m_expertParallel->setToolTip(tr("Expert parallelism: a mixture of experts' experts split over this many "
                                    "GPUs"));
    m_expertTensorParallel = new QSpinBox(page);
    m_expertTensorParallel->setObjectName(QStringLiteral("expertTensorParallelSpinBox"));
    m_expertTensorParallel->setRange(1, static_cast<int>(kMaxParallelDegree));
    m_expertTensorParallel->setSpecialValueText(tr("none"));
    m_expertTensorParallel->setToolTip(
        tr("Expert tensor parallelism: each expert's matrices split over this many GPUs"));
    m_activationOffload = new QComboBox(page);
    m_activationOffload->setObjectName(QStringLiteral("activationOffloadComboBox"));
    for (const ActivationOffload a : allActivationOffloads())
        m_activationOffload->addItem(activationOffloadText(a), static_cast<int>(a));
    m_activationOffload->setToolTip(
        tr("Saved activations moved to CPU memory during the forward pass and brought back for the backward: "
           "the checkpointed blocks' inputs, or every saved activation"));
    // Short minimums: the Multi-GPU tab must not widen the window (the lists show the entries in full).
    for (QComboBox* combo : { m_schedule, m_contextKind, m_activationOffload }) {
        combo->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
        combo->setMinimumContentsLength(7);
    }
}

/// The links between the GPUs: how many share a node (and its GPU-to-GPU link), and the network's
/// bandwidth between nodes. They change the step time and the planner's ranking, never memory.
void SetupPanel::createNodeFields(QWidget* page)
{
    m_gpusPerNode = new QSpinBox(page);
    m_gpusPerNode->setObjectName(QStringLiteral("gpusPerNodeSpinBox"));
    m_gpusPerNode->setRange(1, static_cast<int>(kMaxGpus));
    m_gpusPerNode->setToolTip(
        tr("GPUs per node: a group of GPUs within one node talks over the GPU's own link (NVLink, PCIe), "
           "one spanning nodes over the network. Changes the step time and the planner's ranking, not "
           "memory"));
    m_gpusPerNodeLabel = buddyLabel(tr("GPUs per node:"), m_gpusPerNode);
    m_interNodeGBps = new QDoubleSpinBox(page);
    m_interNodeGBps->setObjectName(QStringLiteral("interNodeGBpsSpinBox"));
    m_interNodeGBps->setDecimals(1);
    m_interNodeGBps->setRange(0.1, kMaxInterNodeGBps);
    m_interNodeGBps->setSuffix(tr(" GB/s"));
    m_interNodeGBps->setToolTip(
        tr("The network's bandwidth between nodes per GPU, GB/s each way (50: one 400 Gb/s InfiniBand "
           "adapter per GPU). Changes the step time and the planner's ranking, not memory"));
    m_interNodeLabel = buddyLabel(tr("Between nodes:"), m_interNodeGBps);
}

void SetupPanel::editLora()
{
    LoraOptions lora;
    lora.rank = m_loraRank->value();
    for (const auto& part :
        m_loraTargets->text().split(QRegularExpression(QStringLiteral("[,\\s]+")), Qt::SkipEmptyParts))
        lora.targets.push_back(ss(part));
    lora.dropout = m_loraDropout->value();
    lora.quantizeBase = m_qlora->isChecked();
    m_document->setLora(lora);
}

void SetupPanel::editParallelism()
{
    // The fields this panel does not show are kept as they are.
    Parallelism p = m_document->plan().setup.parallel;
    p.gpus = m_gpus->value();
    p.sharding = static_cast<Sharding>(m_sharding->currentData().toInt());
    p.tensorParallel = m_tensorParallel->value();
    p.offloadOptimizer = m_offload->isChecked();
    p.sequenceParallel = m_sequenceParallel->isChecked();
    p.pipelineParallel = m_pipelineParallel->value();
    p.schedule = static_cast<PipelineSchedule>(m_schedule->currentData().toInt());
    p.virtualStages = m_virtualStages->value();
    if (const auto counts = parseStageLayers(m_stageLayers->text())) {
        p.stageLayers = *counts;
        m_stageLayersNote->hide();
    } else {
        EntryNote::show(m_stageLayersNote,
            tr("“%1” is not a list of layer counts, so the layers per stage stay %2. Type whole numbers from "
               "1 "
               "up separated by commas, one per stage (7,9,9,7), or nothing for an even split.")
                .arg(m_stageLayers->text(),
                    p.stageLayers.empty() ? tr("even") : stageLayersText(p.stageLayers)),
            true);
    }
    p.contextParallel = m_contextParallel->value();
    p.contextKind = static_cast<ContextParallelism>(m_contextKind->currentData().toInt());
    p.expertParallel = m_expertParallel->value();
    p.expertTensorParallel = m_expertTensorParallel->value();
    p.activationOffload = static_cast<ActivationOffload>(m_activationOffload->currentData().toInt());
    m_document->setParallelism(p);
}

void SetupPanel::setCatalog(const GpuCatalog& catalog)
{
    m_gpu->setCatalog(catalog);
    refresh();
}

const GpuCatalog& SetupPanel::catalog() const
{
    return m_gpu->catalog();
}

void SetupPanel::addCustomGpu(const Gpu& gpu)
{
    GpuCatalog catalog = m_gpu->catalog();
    catalog.addCustom(gpu);
    m_gpu->setCatalog(catalog);
    Gpu custom = gpu;
    custom.custom = true;
    m_document->setGpu(custom);
    refresh();
}

void SetupPanel::setEstimate(const EstimateState& state)
{
    // The estimate refuses an analysis with an error too; only the set-up's own errors belong here.
    const bool show = state.error && state.errorFromSetup;
    m_error->setText(
        show ? tr("Cannot use this set-up: %1").arg(ErrorText::forUser(*state.error)) : QString());
    m_error->setVisible(show);
}

void SetupPanel::refresh()
{
    const Plan& plan = m_document->plan();
    m_gpu->setCurrentGpu(plan.gpu);
    const QSignalBlocker blockers[] { QSignalBlocker(m_optimizer), QSignalBlocker(m_precision),
        QSignalBlocker(m_overhead), QSignalBlocker(m_eightBit), QSignalBlocker(m_utilization),
        QSignalBlocker(m_expandable), QSignalBlocker(m_implementation), QSignalBlocker(m_checkpointing),
        QSignalBlocker(m_attention), QSignalBlocker(m_sequenceLength), QSignalBlocker(m_accumulation),
        QSignalBlocker(m_loraRank), QSignalBlocker(m_loraDropout), QSignalBlocker(m_qlora),
        QSignalBlocker(m_gpus), QSignalBlocker(m_sharding), QSignalBlocker(m_tensorParallel),
        QSignalBlocker(m_offload), QSignalBlocker(m_moeImbalance), QSignalBlocker(m_sequenceParallel),
        QSignalBlocker(m_pipelineParallel), QSignalBlocker(m_schedule), QSignalBlocker(m_virtualStages),
        QSignalBlocker(m_contextParallel), QSignalBlocker(m_contextKind), QSignalBlocker(m_expertParallel),
        QSignalBlocker(m_expertTensorParallel), QSignalBlocker(m_activationOffload),
        QSignalBlocker(m_gpusPerNode), QSignalBlocker(m_interNodeGBps) };
    (void)blockers;
    refreshGpuTab(plan);
    refreshStrategyTab(plan);
    refreshLora(plan);
    refreshMultiGpuTab(plan);
}

void SetupPanel::refreshGpuTab(const Plan& plan)
{
    m_optimizer->setCurrentIndex(m_optimizer->findData(static_cast<int>(plan.setup.optimizer)));
    m_eightBit->setChecked(plan.setup.eightBitOptimizer);
    m_implementation->setCurrentIndex(
        m_implementation->findData(static_cast<int>(plan.setup.optimizerImplementation)));
    // Fused only where the set-up can run it (fusedStepAvailable(); the document falls back from it).
    auto* implementations = qobject_cast<QStandardItemModel*>(m_implementation->model());
    const int fused = m_implementation->findData(static_cast<int>(OptimizerImplementation::Fused));
    if (implementations && fused >= 0) {
        QStandardItem* item = implementations->item(fused);
        const bool available = fusedStepAvailable(plan.setup);
        item->setEnabled(available);
        item->setToolTip(available ? QString()
                                   : tr("%1 has no fused implementation in torch.optim")
                                         .arg(UiText::optimizer(plan.setup.optimizer)));
    }
    m_precision->setCurrentIndex(m_precision->findData(static_cast<int>(plan.precision)));
    m_overhead->setValue(static_cast<int>(plan.setup.overheadBytes / kMiB));
    m_expandable->setChecked(plan.setup.expandableSegments);
    m_utilization->setValue(static_cast<int>(std::lround(plan.setup.assumedUtilization * 100.0)));
}

void SetupPanel::refreshStrategyTab(const Plan& plan)
{
    m_checkpointing->setCurrentIndex(m_checkpointing->findData(static_cast<int>(plan.checkpointing)));
    m_attention->setCurrentIndex(m_attention->findData(static_cast<int>(plan.attention)));
    const auto own = modelSequenceLength(plan.network);
    m_sequenceLength->setEnabled(own.has_value());
    if (own) {
        const std::int64_t length = plan.sequenceLength.value_or(*own);
        m_sequenceLength->setValue(
            static_cast<int>(std::min<std::int64_t>(length, std::numeric_limits<int>::max())));
        const auto longest = plan.network.input.maxSequenceLength;
        m_sequenceLength->setToolTip(longest
                ? tr("Tokens per sample; the model's own is %1, and it takes up to %2")
                      .arg(QLocale().toString(static_cast<qlonglong>(*own)),
                          QLocale().toString(static_cast<qlonglong>(*longest)))
                : tr("Tokens per sample; the model's own is %1").arg(*own));
        m_sequenceLength->setSpecialValueText(QString());
    } else {
        m_sequenceLength->setToolTip(
            tr("Only for models whose input is a sequence (token ids [T] or features [T, E])"));
        m_sequenceLength->setSpecialValueText(tr("n/a"));
        m_sequenceLength->setValue(m_sequenceLength->minimum());
    }
    m_accumulation->setValue(static_cast<int>(
        std::clamp<std::int64_t>(plan.setup.accumulationSteps, 1, m_accumulation->maximum())));
}

/// LoRA's fields, and the mixture-of-experts routing's.
void SetupPanel::refreshLora(const Plan& plan)
{
    m_loraRank->setValue(
        static_cast<int>(std::clamp<std::int64_t>(plan.lora.rank, 0, m_loraRank->maximum())));
    QStringList targets;
    for (const auto& t : plan.lora.targets)
        targets << qs(t);
    // As typed while the user types; the document's list otherwise (after an undo, say).
    const FieldCommit* typing = FieldCommit::of(m_loraTargets);
    const QStringList shown
        = m_loraTargets->text().split(QRegularExpression(QStringLiteral("[,\\s]+")), Qt::SkipEmptyParts);
    if ((typing == nullptr || !typing->isPending()) && shown != targets)
        m_loraTargets->setText(targets.join(QStringLiteral(", ")));
    m_loraDropout->setValue(plan.lora.dropout);
    m_qlora->setChecked(plan.lora.quantizeBase);
    const bool lora = plan.lora.enabled();
    m_loraTargets->setEnabled(lora);
    m_loraDropout->setEnabled(lora);
    // Keeps its tick for when a rank returns, but greyed: without adapters the core ignores it.
    m_qlora->setEnabled(lora);

    // Only a network with mixture-of-experts layers has a routing to be imbalanced.
    const auto limit = moeImbalanceLimit(plan.network.layers);
    m_moeImbalance->setVisible(limit.has_value());
    m_moeImbalanceLabel->setVisible(limit.has_value());
    m_moeImbalance->setMaximum(std::max(limit.value_or(kMaxMoeImbalance), plan.moeImbalance));
    m_moeImbalance->setValue(plan.moeImbalance);
}

void SetupPanel::refreshMultiGpuTab(const Plan& plan)
{
    const Parallelism& par = plan.setup.parallel;
    m_gpus->setValue(static_cast<int>(std::clamp<std::int64_t>(par.gpus, 1, kMaxGpus)));
    m_sharding->setCurrentIndex(m_sharding->findData(static_cast<int>(par.sharding)));
    m_tensorParallel->setValue(static_cast<int>(std::clamp<std::int64_t>(par.tensorParallel, 1, kMaxGpus)));
    m_offload->setChecked(par.offloadOptimizer);
    // ZeRO-Offload needs a ZeRO stage or FSDP; a tick left from one stays enabled so it can be cleared
    // (the core's message says why the plan is invalid meanwhile).
    m_offload->setEnabled(par.sharding != Sharding::None || par.offloadOptimizer);
    const auto degree
        = [](std::int64_t n) { return static_cast<int>(std::clamp<std::int64_t>(n, 1, kMaxParallelDegree)); };
    m_sequenceParallel->setChecked(par.sequenceParallel);
    // A tick left without tensor parallelism stays enabled so it can be cleared (the core says why).
    m_sequenceParallel->setEnabled(par.tensorParallel > 1 || par.sequenceParallel);
    m_pipelineParallel->setValue(degree(par.pipelineParallel));
    m_schedule->setCurrentIndex(m_schedule->findData(static_cast<int>(par.schedule)));
    m_virtualStages->setValue(degree(par.virtualStages));
    const bool pipeline = par.pipelineParallel > 1;
    m_schedule->setEnabled(pipeline);
    m_virtualStages->setEnabled(pipeline && par.schedule == PipelineSchedule::Interleaved);
    m_stageLayers->setEnabled(pipeline || !par.stageLayers.empty());
    // As typed while the user types; otherwise the document's, and a refused text's note goes with the
    // next change (editParallelism() shows it when the document does not change).
    const FieldCommit* typing = FieldCommit::of(m_stageLayers);
    if (typing == nullptr || !typing->isPending()) {
        const auto shown = parseStageLayers(m_stageLayers->text());
        if (!shown || *shown != par.stageLayers)
            m_stageLayers->setText(stageLayersText(par.stageLayers));
        m_stageLayersNote->hide();
    }
    m_contextParallel->setValue(degree(par.contextParallel));
    m_contextKind->setCurrentIndex(m_contextKind->findData(static_cast<int>(par.contextKind)));
    m_contextKind->setEnabled(par.contextParallel > 1);
    m_expertParallel->setValue(degree(par.expertParallel));
    m_expertTensorParallel->setValue(degree(par.expertTensorParallel));
    m_activationOffload->setCurrentIndex(
        m_activationOffload->findData(static_cast<int>(par.activationOffload)));
    // The links matter only between GPUs.
    m_gpusPerNode->setValue(static_cast<int>(std::clamp<std::int64_t>(plan.setup.gpusPerNode, 1, kMaxGpus)));
    m_interNodeGBps->setValue(plan.setup.interNodeGBps);
    const bool several = par.gpus > 1;
    for (QWidget* w : std::initializer_list<QWidget*> {
             m_gpusPerNode, m_gpusPerNodeLabel, m_interNodeGBps, m_interNodeLabel })
        w->setVisible(several);
}

} // namespace headroom::ui

#include "Document.h"
#include "GpuSelector.h"
#include "PlanController.h"
#include "SetupPanel.h"
#include "TestSupport.h"
#include "headroom/estimate/Communication.h"
#include "headroom/estimate/Plan.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QLineEdit>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QTabWidget>
#include <QTest>
#include <QUndoStack>
#include <algorithm>
#include <functional>

using namespace headroom;
using headroom::ui::Document;
using headroom::ui::PlanController;
using headroom::ui::SetupPanel;

class TestSetupPanel : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void everyControlEditsThePlanUndoably();
    void offloadNeedsSharding();
    void strategyReachesTheAnalysis();
    void sequenceLengthOnlyForSequenceModels();
    void invalidSettingShowsTheCoreErrorInline();
    void controlsFollowUndo();
    void fitsWithinTheWindow();
    void moeImbalanceOnlyForMixtureOfExperts();
    void optimizerImplementationChangesTheStep();
    void expandableSegmentsReachTheAllocator();
    void nodeLinksChangeTheStepTime();
};

namespace {

struct Fixture
{
    Document doc;
    PlanController controller { &doc };
    SetupPanel panel { &doc };
    explicit Fixture(const Network& network = test::tinyNetwork())
    {
        QObject::connect(&controller, &PlanController::estimateChanged, &panel, &SetupPanel::setEstimate);
        const GpuCatalog catalog = test::testCatalog();
        panel.setCatalog(catalog);
        doc.resetNetwork(network, QString());
        doc.resetSetup(Precision::Fp32, TrainingSetup {}, catalog.gpus()[0]);
        panel.setEstimate(controller.estimateState());
        panel.show();
    }
    template <typename T> T* child(const char* name) const
    {
        T* found = panel.findChild<T*>(QString::fromLatin1(name));
        if (found == nullptr)
            qWarning("missing child %s", name);
        return found;
    }
};

/// A sequence model: token ids [16] -> Embedding(100, 8) -> Linear(8 -> 8) -> Linear(8 -> 100).
Network tokenNetwork()
{
    Network n;
    n.name = "Tokens";
    n.input.shape.dims = { 16 };
    n.input.dtype = DType::Int64;
    LayerSpec embed;
    embed.type = "Embedding";
    embed.name = "embed";
    embed.attributes = { { "num_embeddings", 100 }, { "embedding_dim", 8 } };
    LayerSpec proj;
    proj.type = "Linear";
    proj.name = "proj";
    proj.attributes = { { "out_features", 8 } };
    LayerSpec head;
    head.type = "Linear";
    head.name = "head";
    head.attributes = { { "out_features", 100 } };
    n.layers = { embed, proj, head };
    return n;
}

/// tokenNetwork with a mixture of experts between proj and head: 4 experts of 256, top-2.
Network moeNetwork()
{
    Network n = tokenNetwork();
    LayerSpec moe;
    moe.type = "MixtureOfExperts";
    moe.name = "moe";
    moe.attributes = { { "num_experts", 4 }, { "num_experts_per_tok", 2 }, { "intermediate_size", 256 } };
    n.layers.insert(n.layers.begin() + 2, moe);
    return n;
}

/// The plan's settings (everything the set-up panel edits), comparable.
struct Settings
{
    Precision precision;
    Checkpointing checkpointing;
    AttentionImplementation attention;
    LoraOptions lora;
    std::optional<std::int64_t> sequenceLength;
    TrainingSetup setup;
    std::string gpu;
    explicit Settings(const Plan& p)
        : precision { p.precision }
        , checkpointing { p.checkpointing }
        , attention { p.attention }
        , lora { p.lora }
        , sequenceLength { p.sequenceLength }
        , setup { p.setup }
        , gpu { p.gpu.name }
    {
    }
    friend bool operator==(const Settings&, const Settings&) = default;
};

} // namespace

void TestSetupPanel::initTestCase()
{
    test::isolateSettings();
}

void TestSetupPanel::everyControlEditsThePlanUndoably()
{
    Fixture f(tokenNetwork());
    // Optimizer offload needs a ZeRO stage: start from ZeRO-1 so its box is live.
    Parallelism zero1;
    zero1.sharding = Sharding::Zero1;
    f.doc.setParallelism(zero1);
    struct Case
    {
        const char* control;
        std::function<void()> edit;
        std::function<bool(const Plan&)> changed;
    };
    const auto combo = [&f](const char* name, int index) {
        return [&f, name, index] { f.child<QComboBox>(name)->setCurrentIndex(index); };
    };
    const auto spin = [&f](const char* name, int value) {
        return [&f, name, value] { f.child<QSpinBox>(name)->setValue(value); };
    };
    const auto check = [&f](const char* name) {
        return [&f, name] { QTest::mouseClick(f.child<QCheckBox>(name), Qt::LeftButton); };
    };
    const std::vector<Case> cases {
        { "checkpointingComboBox", combo("checkpointingComboBox", 1),
            [](const Plan& p) { return p.checkpointing == Checkpointing::PerBlock; } },
        { "attentionComboBox", combo("attentionComboBox", 1),
            [](const Plan& p) { return p.attention == AttentionImplementation::Eager; } },
        { "sequenceLengthSpinBox", spin("sequenceLengthSpinBox", 8),
            [](const Plan& p) { return p.sequenceLength == std::optional<std::int64_t>(8); } },
        { "accumulationStepsSpinBox", spin("accumulationStepsSpinBox", 4),
            [](const Plan& p) { return p.setup.accumulationSteps == 4; } },
        { "loraRankSpinBox", spin("loraRankSpinBox", 16), [](const Plan& p) { return p.lora.rank == 16; } },
        { "gpuCountSpinBox", spin("gpuCountSpinBox", 4),
            [](const Plan& p) { return p.setup.parallel.gpus == 4; } },
        { "shardingComboBox", combo("shardingComboBox", 2),
            [](const Plan& p) { return p.setup.parallel.sharding == allShardings()[2]; } },
        { "tensorParallelSpinBox", spin("tensorParallelSpinBox", 2),
            [](const Plan& p) { return p.setup.parallel.tensorParallel == 2; } },
        { "offloadOptimizerCheckBox", check("offloadOptimizerCheckBox"),
            [](const Plan& p) { return p.setup.parallel.offloadOptimizer; } },
        { "eightBitOptimizerCheckBox", check("eightBitOptimizerCheckBox"),
            [](const Plan& p) { return p.setup.eightBitOptimizer; } },
        { "expandableSegmentsCheckBox", check("expandableSegmentsCheckBox"),
            [](const Plan& p) { return p.setup.expandableSegments; } },
        { "optimizerImplementationComboBox", combo("optimizerImplementationComboBox", 2),
            [](const Plan& p) {
                return p.setup.optimizerImplementation == OptimizerImplementation::ForLoop;
            } },
        { "utilizationSpinBox", spin("utilizationSpinBox", 55),
            [](const Plan& p) { return std::abs(p.setup.assumedUtilization - 0.55) < 1e-9; } },
        { "gpusPerNodeSpinBox", spin("gpusPerNodeSpinBox", 4),
            [](const Plan& p) { return p.setup.gpusPerNode == 4; } },
        { "interNodeGBpsSpinBox", [&f] { f.child<QDoubleSpinBox>("interNodeGBpsSpinBox")->setValue(12.5); },
            [](const Plan& p) { return p.setup.interNodeGBps == 12.5; } },
    };
    for (const auto& c : cases) {
        const Settings before(f.doc.plan());
        const int steps = f.doc.undoStack()->count();
        c.edit();
        QVERIFY2(c.changed(f.doc.plan()), c.control);
        QVERIFY2(f.doc.undoStack()->count() == steps + 1, c.control);
        f.doc.undoStack()->undo();
        QVERIFY2(Settings(f.doc.plan()) == before, c.control);
        f.doc.undoStack()->redo();
        QVERIFY2(c.changed(f.doc.plan()), c.control);
    }

    // LoRA's other settings need a rank; they are off until then.
    f.doc.undoStack()->setIndex(0);
    auto* targets = f.child<QLineEdit>("loraTargetsLineEdit");
    auto* dropout = f.child<QDoubleSpinBox>("loraDropoutSpinBox");
    auto* qlora = f.child<QCheckBox>("qloraCheckBox");
    QVERIFY(!targets->isEnabled() && !dropout->isEnabled() && !qlora->isEnabled());
    f.child<QSpinBox>("loraRankSpinBox")->setValue(8);
    QVERIFY(targets->isEnabled() && dropout->isEnabled() && qlora->isEnabled());
    targets->setFocus();
    QTest::keyClicks(targets, QStringLiteral("proj, head"));
    QTest::keyClick(targets, Qt::Key_Return);
    QCOMPARE(f.doc.plan().lora.targets, (std::vector<std::string> { "proj", "head" }));
    dropout->setValue(0.1);
    QCOMPARE(f.doc.plan().lora.dropout, 0.1);
    QTest::mouseClick(qlora, Qt::LeftButton);
    QVERIFY(f.doc.plan().lora.quantizeBase);
    QCOMPARE(f.doc.plan().lora.rank, std::int64_t { 8 });
    // Rank back to Off: QLoRA keeps its tick for later but greys out, as the core ignores it.
    f.child<QSpinBox>("loraRankSpinBox")->setValue(0);
    QVERIFY(qlora->isChecked());
    QVERIFY2(!qlora->isEnabled(), "a QLoRA box that has no effect must not look active");
    f.doc.undoStack()->undo();
    QVERIFY(qlora->isEnabled());
    f.doc.undoStack()->undo();
    QVERIFY(!f.doc.plan().lora.quantizeBase);
    f.doc.undoStack()->undo();
    QCOMPARE(f.doc.plan().lora.dropout, 0.0);
    f.doc.undoStack()->undo();
    QVERIFY(f.doc.plan().lora.targets.empty());
}

void TestSetupPanel::offloadNeedsSharding()
{
    Fixture f(tokenNetwork());
    auto* offload = f.child<QCheckBox>("offloadOptimizerCheckBox");
    QVERIFY2(!offload->isEnabled(), "plain DDP keeps the optimizer on the GPU");
    f.child<QComboBox>("shardingComboBox")->setCurrentIndex(2);
    QVERIFY(offload->isEnabled());
    QTest::mouseClick(offload, Qt::LeftButton);
    QVERIFY(f.doc.plan().setup.parallel.offloadOptimizer);
    // Back to DDP with the tick left: it stays enabled so it can be cleared.
    f.child<QComboBox>("shardingComboBox")->setCurrentIndex(0);
    QVERIFY(offload->isEnabled() && offload->isChecked());
    QTest::mouseClick(offload, Qt::LeftButton);
    QVERIFY(!f.doc.plan().setup.parallel.offloadOptimizer);
    QVERIFY(!offload->isEnabled());
}

void TestSetupPanel::strategyReachesTheAnalysis()
{
    Fixture f(tokenNetwork());
    const int runs = f.controller.analysisRuns();
    f.child<QComboBox>("checkpointingComboBox")->setCurrentIndex(2);
    QCOMPARE(f.controller.analysisRuns(), runs + 1);
    QCOMPARE(f.controller.analysis().options.checkpointing, Checkpointing::Selective);
    f.child<QComboBox>("attentionComboBox")->setCurrentIndex(1);
    QCOMPARE(f.controller.analysis().options.attention, AttentionImplementation::Eager);
    f.child<QSpinBox>("loraRankSpinBox")->setValue(4);
    QCOMPARE(f.controller.analysis().options.lora.rank, std::int64_t { 4 });
    // What the GUI shows is what evaluate() (the CLI, the report) computes for the same plan.
    const PlanResult expected = evaluate(f.doc.plan());
    QCOMPARE(f.controller.analysis().totalParams, expected.analysis.totalParams);
    QCOMPARE(f.controller.analysis().trainableParams, expected.analysis.trainableParams);
    QCOMPARE(f.controller.analysis().activationBytesPerSample, expected.analysis.activationBytesPerSample);
    // Set-up changes rebuild the memory model but do not re-analyse.
    const int before = f.controller.analysisRuns();
    f.child<QSpinBox>("gpuCountSpinBox")->setValue(2);
    f.child<QSpinBox>("accumulationStepsSpinBox")->setValue(3);
    QCOMPARE(f.controller.analysisRuns(), before);
    QVERIFY(f.controller.estimateState().estimate);
    QCOMPARE(f.controller.estimateState().estimate->effectiveBatch,
        evaluate(f.doc.plan()).estimate->effectiveBatch);
}

void TestSetupPanel::sequenceLengthOnlyForSequenceModels()
{
    Fixture f(tokenNetwork());
    auto* length = f.child<QSpinBox>("sequenceLengthSpinBox");
    QVERIFY(length->isEnabled());
    QCOMPARE(length->value(), 16); // the model's own
    const std::uint64_t full = f.controller.analysis().activationBytesPerSample;
    length->setValue(8);
    QCOMPARE(f.doc.plan().sequenceLength, std::optional<std::int64_t>(8));
    QCOMPARE(f.controller.analysis().rows.front().output.shape.dims.front(), std::int64_t { 8 });
    QVERIFY2(
        f.controller.analysis().activationBytesPerSample < full, "half the tokens keep fewer activations");
    length->setValue(16); // back to the model's: follows the model again
    QVERIFY(!f.doc.plan().sequenceLength);

    f.doc.resetNetwork(test::tinyNetwork(), QString()); // an image model
    QVERIFY(!length->isEnabled());
    QVERIFY(!f.doc.plan().sequenceLength);
}

void TestSetupPanel::invalidSettingShowsTheCoreErrorInline()
{
    Fixture f;
    auto* error = f.child<QLabel>("setupErrorLabel");
    QVERIFY(error->isHidden());
    // Three GPUs cannot be split two ways for tensor parallelism.
    f.panel.tabs()->setCurrentIndex(SetupPanel::MultiGpuTab);
    f.child<QSpinBox>("gpuCountSpinBox")->setValue(3);
    f.child<QSpinBox>("tensorParallelSpinBox")->setValue(2);
    const PlanResult expected = evaluate(f.doc.plan());
    QVERIFY2(expected.error, "the core refuses 3 GPUs with tensor-parallel degree 2");
    QVERIFY(error->isVisible());
    QVERIFY2(
        error->text().contains(QString::fromStdString(expected.error->message)), qPrintable(error->text()));
    f.doc.undoStack()->undo();
    QVERIFY(error->isHidden());

    // 8-bit state with an optimizer that keeps none.
    f.panel.tabs()->setCurrentIndex(SetupPanel::GpuTab);
    f.child<QComboBox>("optimizerComboBox")
        ->setCurrentIndex(
            f.child<QComboBox>("optimizerComboBox")->findData(static_cast<int>(Optimizer::Sgd)));
    QTest::mouseClick(f.child<QCheckBox>("eightBitOptimizerCheckBox"), Qt::LeftButton);
    const PlanResult eightBit = evaluate(f.doc.plan());
    QVERIFY2(eightBit.error, "the core refuses 8-bit state for plain SGD");
    QVERIFY(error->isVisible());
    QVERIFY2(
        error->text().contains(QString::fromStdString(eightBit.error->message)), qPrintable(error->text()));

    // A strategy the analysis refuses (a LoRA target no layer has): its reason once, in the user's
    // numbering, without estimate()'s "cannot estimate:" in front.
    f.doc.undoStack()->undo();
    LoraOptions lora;
    lora.rank = 8;
    lora.targets = { "no_such_layer" };
    f.doc.setLora(lora);
    QVERIFY(!f.controller.analysis().valid());
    QVERIFY(error->isVisible());
    QVERIFY2(error->text().startsWith(QStringLiteral("Cannot use this set-up: LoRA target 1 ")),
        qPrintable(error->text()));
    QVERIFY2(!error->text().contains(QStringLiteral("cannot estimate")), qPrintable(error->text()));
    QVERIFY2(!error->text().contains(QStringLiteral("lora.targets[")), qPrintable(error->text()));

    // A layer's error is the layer editor's to show, not the set-up's.
    f.doc.undoStack()->undo();
    f.doc.setLayerAttribute({ 0 }, "kernel_size", 99);
    QVERIFY(f.controller.estimateState().error);
    QVERIFY(error->isHidden());
}

void TestSetupPanel::controlsFollowUndo()
{
    Fixture f(tokenNetwork());
    LoraOptions lora;
    lora.rank = 32;
    lora.targets = { "proj" };
    f.doc.setLora(lora);
    Parallelism p;
    p.gpus = 8;
    p.sharding = Sharding::Zero2;
    f.doc.setParallelism(p);
    QCOMPARE(f.child<QSpinBox>("loraRankSpinBox")->value(), 32);
    QCOMPARE(f.child<QLineEdit>("loraTargetsLineEdit")->text(), QStringLiteral("proj"));
    QCOMPARE(f.child<QSpinBox>("gpuCountSpinBox")->value(), 8);
    QCOMPARE(
        f.child<QComboBox>("shardingComboBox")->currentData().toInt(), static_cast<int>(Sharding::Zero2));
    f.doc.undoStack()->undo();
    f.doc.undoStack()->undo();
    QCOMPARE(f.child<QSpinBox>("loraRankSpinBox")->value(), 0);
    QCOMPARE(f.child<QSpinBox>("loraRankSpinBox")->text(), QStringLiteral("Off"));
    QCOMPARE(f.child<QSpinBox>("gpuCountSpinBox")->value(), 1);
    QCOMPARE(f.doc.undoStack()->count(), 2);
}

void TestSetupPanel::fitsWithinTheWindow()
{
    // Three short tabs instead of one long form: the panel stays about as tall as the old one.
    Fixture f(tokenNetwork());
    f.panel.resize(620, f.panel.sizeHint().height());
    QVERIFY2(f.panel.sizeHint().height() < 230, qPrintable(QString::number(f.panel.sizeHint().height())));
    for (int tab = 0; tab < f.panel.tabs()->count(); ++tab) {
        f.panel.tabs()->setCurrentIndex(tab);
        QWidget* page = f.panel.tabs()->currentWidget();
        for (QWidget* w : page->findChildren<QWidget*>()) {
            if (!w->isVisible())
                continue;
            const QRect r(w->mapTo(page, QPoint(0, 0)), w->size());
            QVERIFY2(page->rect().contains(r), qPrintable(w->objectName() + QStringLiteral(" is clipped")));
        }
    }
}

void TestSetupPanel::moeImbalanceOnlyForMixtureOfExperts()
{
    {
        Fixture dense(tokenNetwork());
        dense.panel.tabs()->setCurrentIndex(SetupPanel::StrategyTab);
        auto* box = dense.child<QDoubleSpinBox>("moeImbalanceSpinBox");
        QVERIFY(box != nullptr);
        QVERIFY2(!box->isVisible(), "a network without experts has no routing to imbalance");
    }
    Fixture f(moeNetwork());
    f.panel.tabs()->setCurrentIndex(SetupPanel::StrategyTab);
    auto* box = f.child<QDoubleSpinBox>("moeImbalanceSpinBox");
    QVERIFY(box != nullptr);
    QTRY_VERIFY(box->isVisible());
    QCOMPARE(box->value(), 1.0);
    // 4 experts, 2 per token: the busiest expert gets at most every token, 2 x an even share.
    QCOMPARE(box->maximum(), 2.0);
    const auto warning = [&f] {
        const auto& warnings = f.controller.analysis().warnings;
        return warnings.empty() ? std::string() : warnings.front().message;
    };
    QVERIFY2(warning().find("assumes balanced routing") == 0, warning().c_str());
    const std::uint64_t transient = f.controller.analysis().transientBytesPerSample;
    const int steps = f.doc.undoStack()->count();
    box->setValue(1.5);
    QCOMPARE(f.doc.plan().moeImbalance, 1.5);
    QCOMPARE(f.doc.undoStack()->count(), steps + 1);
    // The analysis follows: the warning says the imbalance, the busiest expert's backward grows.
    QTRY_VERIFY2(warning().find("1.5 x an even share") != std::string::npos, warning().c_str());
    QVERIFY(f.controller.analysis().transientBytesPerSample > transient);
    f.doc.undoStack()->undo();
    QCOMPARE(f.doc.plan().moeImbalance, 1.0);
    QCOMPARE(box->value(), 1.0);
    // Another network starts balanced again.
    box->setValue(2.0);
    f.doc.resetNetwork(moeNetwork(), QString());
    QCOMPARE(f.doc.plan().moeImbalance, 1.0);
    QCOMPARE(box->value(), 1.0);
}

void TestSetupPanel::optimizerImplementationChangesTheStep()
{
    // tinyNetwork() has 2,682 parameters: foreach Adam holds one parameter-sized list during its step,
    // 2,682 x 4 = 10,728 B, that the fused step does not.
    Fixture f;
    auto* box = f.child<QComboBox>("optimizerImplementationComboBox");
    QCOMPARE(box->currentData().toInt(), int(OptimizerImplementation::Foreach));
    QCOMPARE(box->currentText(), QStringLiteral("Foreach (PyTorch default)"));
    const std::uint64_t foreachStep = f.controller.estimateState().estimate->optimizerStepBytes;
    box->setCurrentIndex(box->findData(int(OptimizerImplementation::Fused)));
    QCOMPARE(f.doc.plan().setup.optimizerImplementation, OptimizerImplementation::Fused);
    QCOMPARE(f.doc.undoStack()->undoText(), QStringLiteral("Change optimizer implementation"));
    QCOMPARE(
        foreachStep - f.controller.estimateState().estimate->optimizerStepBytes, std::uint64_t { 10'728 });

    // RMSprop has no fused kernel in torch.optim: choosing it goes back to foreach in the same step,
    // and the fused entry greys out.
    auto* optimizer = f.child<QComboBox>("optimizerComboBox");
    const int steps = f.doc.undoStack()->count();
    optimizer->setCurrentIndex(optimizer->findData(int(Optimizer::RMSprop)));
    QCOMPARE(f.doc.undoStack()->count(), steps + 1);
    QCOMPARE(f.doc.plan().setup.optimizerImplementation, OptimizerImplementation::Foreach);
    QCOMPARE(box->currentData().toInt(), int(OptimizerImplementation::Foreach));
    const auto* items = qobject_cast<const QStandardItemModel*>(box->model());
    QVERIFY(items);
    QVERIFY(!items->item(box->findData(int(OptimizerImplementation::Fused)))->isEnabled());
    f.doc.undoStack()->undo();
    QCOMPARE(f.doc.plan().setup.optimizer, Optimizer::Adam);
    QCOMPARE(f.doc.plan().setup.optimizerImplementation, OptimizerImplementation::Fused);
    QCOMPARE(box->currentData().toInt(), int(OptimizerImplementation::Fused));
    QVERIFY(items->item(box->findData(int(OptimizerImplementation::Fused)))->isEnabled());
    f.doc.undoStack()->undo();
    QCOMPARE(f.doc.plan().setup.optimizerImplementation, OptimizerImplementation::Foreach);
    QCOMPARE(f.controller.estimateState().estimate->optimizerStepBytes, foreachStep);
}

void TestSetupPanel::expandableSegmentsReachTheAllocator()
{
    // The check box is PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True for the reserved model: the
    // figures say which allocator they replayed, and undo brings the default back.
    Fixture f;
    auto* box = f.child<QCheckBox>("expandableSegmentsCheckBox");
    QVERIFY(!box->isChecked());
    QVERIFY(f.controller.estimateState().reserved);
    QVERIFY(!f.controller.estimateState().reserved->expandableSegments);
    QTest::mouseClick(box, Qt::LeftButton);
    QVERIFY(f.doc.plan().setup.expandableSegments);
    QCOMPARE(f.doc.undoStack()->undoText(), QStringLiteral("Use expandable segments"));
    QVERIFY(f.controller.estimateState().reserved);
    QVERIFY(f.controller.estimateState().reserved->expandableSegments);
    f.doc.undoStack()->undo();
    QVERIFY(!box->isChecked());
    QVERIFY(!f.controller.estimateState().reserved->expandableSegments);
}

void TestSetupPanel::nodeLinksChangeTheStepTime()
{
    // The GPUs per node and the network's bandwidth: only with more than one GPU, one undo step each,
    // and they move the step time's communication (docs/throughput.md, "Communication"), not memory.
    Fixture f;
    Gpu gpu = test::testCatalog().gpus()[0];
    // Every figure the step time needs, the arithmetic and memory so fast that the backward pass hides
    // next to nothing of the gradients' all-reduce (its overlap is the same at both bandwidths anyway).
    gpu.fp32Tflops = 1e6;
    gpu.bandwidthGBps = 1e7;
    gpu.linkGBps = 450;
    f.doc.resetSetup(Precision::Fp32, TrainingSetup {}, gpu);
    f.panel.tabs()->setCurrentIndex(SetupPanel::MultiGpuTab);
    auto* perNode = f.child<QSpinBox>("gpusPerNodeSpinBox");
    auto* network = f.child<QDoubleSpinBox>("interNodeGBpsSpinBox");
    QVERIFY(perNode && network);
    QVERIFY2(perNode->isHidden() && network->isHidden(), "one GPU has no links to set");
    QVERIFY(perNode->toolTip().contains(QStringLiteral("not memory")));
    QVERIFY(network->toolTip().contains(QStringLiteral("not memory")));
    f.child<QSpinBox>("gpuCountSpinBox")->setValue(16); // DDP over 16 GPUs: 2 nodes of 8
    QVERIFY(!perNode->isHidden() && !network->isHidden());
    QCOMPARE(perNode->value(), 8);
    QCOMPARE(network->value(), 50.0);
    // Shown, the row fits in the panel's height as the other fields do (fitsWithinTheWindow).
    f.panel.resize(620, f.panel.sizeHint().height());
    QVERIFY2(f.panel.sizeHint().height() < 230, qPrintable(QString::number(f.panel.sizeHint().height())));
    QWidget* page = f.panel.tabs()->currentWidget();
    for (QWidget* w : { static_cast<QWidget*>(perNode), static_cast<QWidget*>(network) }) {
        QTRY_VERIFY(w->isVisible());
        const QRect r(w->mapTo(page, QPoint(0, 0)), w->size());
        QVERIFY2(page->rect().contains(r), qPrintable(w->objectName() + QStringLiteral(" is clipped")));
    }

    const auto dataParallel = [&f]() -> CommunicationTerm {
        const auto& t = f.controller.estimateState().throughput;
        if (!t)
            return {};
        for (const auto& c : t->communication)
            if (c.kind == CommunicationKind::DataParallel)
                return c;
        return {};
    };
    const auto step = [&f] { return f.controller.estimateState().throughput->stepSeconds; };
    const auto near = [](double a, double b) { return std::abs(a - b) <= 1e-9 * std::abs(b); };
    QVERIFY(f.controller.estimateState().throughput);
    const std::uint64_t peak = f.controller.estimateState().estimate->peakBytes();
    // DDP all-reduces tinyNetwork's 2,682 fp32 gradients, 10,728 B: each GPU sends 2 x 15/16 x 10,728 =
    // 20,115 B. The ring spans the 2 nodes with 8 GPUs on each: min(450, 8 x 50) = 400 GB/s.
    CommunicationTerm ddp = dataParallel();
    QCOMPARE(ddp.ranks, std::int64_t { 16 });
    QVERIFY(ddp.crossesNodes);
    QCOMPARE(ddp.busBytes, 20'115.0);
    QVERIFY2(near(ddp.seconds, 20'115.0 / 400e9), qPrintable(QString::number(ddp.seconds)));
    QVERIFY(ddp.exposedSeconds > 0);
    const double at50 = step();

    // Half the network: 8 x 25 = 200 GB/s, twice the time; all of the extra 20,115 / 400e9 s is waited
    // for (the overlap is the same compute).
    const int steps = f.doc.undoStack()->count();
    network->setValue(25);
    QCOMPARE(f.doc.plan().setup.interNodeGBps, 25.0);
    QCOMPARE(f.doc.undoStack()->count(), steps + 1);
    QCOMPARE(f.doc.undoStack()->undoText(), QStringLiteral("Change bandwidth between nodes"));
    ddp = dataParallel();
    QVERIFY2(near(ddp.seconds, 20'115.0 / 200e9), qPrintable(QString::number(ddp.seconds)));
    QVERIFY2(step() > at50, "a slower network must make the step longer");
    QVERIFY2(near(step() - at50, 20'115.0 / 400e9), qPrintable(QString::number(step() - at50)));
    const auto& notes = f.controller.estimateState().throughput->notes;
    QVERIFY(std::any_of(notes.begin(), notes.end(), [](const std::string& n) {
        return n.find("450 GB/s between the GPUs of a node and 25 GB/s per GPU between nodes")
            != std::string::npos;
    }));
    QCOMPARE(f.controller.estimateState().estimate->peakBytes(), peak);

    // 16 GPUs to a node: no network, the ring at the GPU's own 450 GB/s.
    perNode->setValue(16);
    QCOMPARE(f.doc.plan().setup.gpusPerNode, std::int64_t { 16 });
    QCOMPARE(f.doc.undoStack()->count(), steps + 2);
    ddp = dataParallel();
    QVERIFY(!ddp.crossesNodes);
    QVERIFY2(near(ddp.seconds, 20'115.0 / 450e9), qPrintable(QString::number(ddp.seconds)));
    QCOMPARE(f.controller.estimateState().estimate->peakBytes(), peak);

    // Undo takes each back, the fields with it.
    f.doc.undoStack()->undo();
    QCOMPARE(f.doc.plan().setup.gpusPerNode, std::int64_t { 8 });
    QCOMPARE(perNode->value(), 8);
    f.doc.undoStack()->undo();
    QCOMPARE(f.doc.plan().setup.interNodeGBps, 50.0);
    QCOMPARE(network->value(), 50.0);
    QVERIFY(near(step(), at50));
    f.doc.undoStack()->undo();
    QVERIFY(perNode->isHidden() && network->isHidden());
}

QTEST_MAIN(TestSetupPanel)
#include "tst_setuppanel.moc"

#include "Document.h"
#include "TestSupport.h"
#include "headroom/analysis/Analysis.h"

#include <QSignalSpy>
#include <QTest>
#include <QUndoStack>

using namespace headroom;
using headroom::ui::Document;
using headroom::ui::LayerPath;

class TestDocument : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void insertUndoRedo();
    void removeRestoresSpec();
    void moveWithinAndIntoBlock_data();
    void moveWithinAndIntoBlock();
    void moveIntoItselfRefused();
    void wrapInResidualAddsInput();
    void attributeEditMarksModifiedUntilUndone();
    void batchEditsMergeIntoOneStep();
    void gpuChangeIsUndoable();
    void specPathMatchesAnalysis();
    void strategyEditsAreUndoable();
    void settingEditsSignalTheirSpeed();
    void spinEditsMergeIntoOneStep();
    void fusedStepFallsBackInTheSameStep();
    void frozenAndCheckpointFlagsAreNetworkEdits();
    void checkpointSelectionIsOneUndoableEdit();
    void checkpointSelectionRepointsLaterUses();
    void checkpointSelectionRefusesInnerUses();
    void importedNetworkHasNoFilePath();
    void newNetworkKeepsTheSetupThatApplies();
};

namespace {
std::vector<std::string> types(const std::vector<LayerSpec>& specs)
{
    std::vector<std::string> out;
    for (const auto& s : specs)
        out.push_back(s.type);
    return out;
}
} // namespace

void TestDocument::insertUndoRedo()
{
    Document doc;
    doc.resetNetwork(test::tinyNetwork(), QString());
    QSignalSpy inserted(&doc, &Document::layersInserted);
    QSignalSpy changed(&doc, &Document::networkChanged);
    LayerSpec dropout;
    dropout.type = "Dropout";
    doc.insertLayers({}, 2, { dropout }, QStringLiteral("Add Dropout"));
    QCOMPARE(inserted.count(), 1);
    QCOMPARE(inserted.at(0).at(1).toInt(), 2);
    QCOMPARE(changed.count(), 1);
    QCOMPARE(types(doc.network().layers),
        (std::vector<std::string> { "Conv2d", "ReLU", "Dropout", "Flatten", "Linear" }));
    QVERIFY(doc.isModified());
    doc.undoStack()->undo();
    QCOMPARE(
        types(doc.network().layers), (std::vector<std::string> { "Conv2d", "ReLU", "Flatten", "Linear" }));
    QVERIFY2(!doc.isModified(), "undoing back to the loaded network clears the modified mark");
    doc.undoStack()->redo();
    QCOMPARE(doc.network().layers[2].type, std::string("Dropout"));
}

void TestDocument::removeRestoresSpec()
{
    Document doc;
    doc.resetNetwork(test::tinyNetwork(), QString());
    const Network original = doc.network();
    doc.removeLayers({}, 0, 2);
    QCOMPARE(doc.network().layers.size(), std::size_t { 2 });
    doc.undoStack()->undo();
    QVERIFY(doc.network() == original);
}

void TestDocument::moveWithinAndIntoBlock_data()
{
    QTest::addColumn<LayerPath>("parent");
    QTest::addColumn<int>("row");
    QTest::addColumn<int>("count");
    QTest::addColumn<LayerPath>("newParent");
    QTest::addColumn<int>("newRow");
    QTest::addColumn<QString>("expected"); // top-level types, a block as "[...]"

    QTest::newRow("down one") << LayerPath {} << 0 << 1 << LayerPath {} << 2
                              << "ReLU Conv2d Flatten Linear [Identity]";
    QTest::newRow("up two") << LayerPath {} << 3 << 1 << LayerPath {} << 1
                            << "Conv2d Linear ReLU Flatten [Identity]";
    QTest::newRow("two to end") << LayerPath {} << 0 << 2 << LayerPath {} << 5
                                << "Flatten Linear [Identity] Conv2d ReLU";
    QTest::newRow("into block") << LayerPath {} << 1 << 1 << LayerPath { 4 } << 1
                                << "Conv2d Flatten Linear [Identity ReLU]";
    QTest::newRow("out of block") << LayerPath { 4 } << 0 << 1 << LayerPath {} << 0
                                  << "Identity Conv2d ReLU Flatten Linear []";
}

void TestDocument::moveWithinAndIntoBlock()
{
    QFETCH(LayerPath, parent);
    QFETCH(int, row);
    QFETCH(int, count);
    QFETCH(LayerPath, newParent);
    QFETCH(int, newRow);
    QFETCH(QString, expected);

    Network net = test::tinyNetwork();
    LayerSpec block;
    block.type = "Repeat";
    block.times = 2;
    LayerSpec identity;
    identity.type = "Identity";
    block.children = { identity };
    net.layers.push_back(block);
    Document doc;
    doc.resetNetwork(net, QString());

    const auto describe = [&] {
        QStringList parts;
        for (const auto& s : doc.network().layers) {
            if (s.isRepeat()) {
                QStringList inner;
                for (const auto& c : s.children)
                    inner << QString::fromStdString(c.type);
                parts << QLatin1Char('[') + inner.join(QLatin1Char(' ')) + QLatin1Char(']');
            } else {
                parts << QString::fromStdString(s.type);
            }
        }
        return parts.join(QLatin1Char(' '));
    };
    QVERIFY(doc.moveLayers(parent, row, count, newParent, newRow));
    QCOMPARE(describe(), expected);
    doc.undoStack()->undo();
    QVERIFY2(doc.network() == net, qPrintable(describe()));
    doc.undoStack()->redo();
    QCOMPARE(describe(), expected);
}

void TestDocument::moveIntoItselfRefused()
{
    Network net = test::tinyNetwork();
    LayerSpec block;
    block.type = "Repeat";
    LayerSpec identity;
    identity.type = "Identity";
    block.children = { identity };
    net.layers.push_back(block);
    Document doc;
    doc.resetNetwork(net, QString());
    QVERIFY(!doc.moveLayers({}, 4, 1, { 4 }, 0));
    QVERIFY(!doc.moveLayers({}, 1, 1, {}, 1));
    QCOMPARE(doc.undoStack()->count(), 0);
}

void TestDocument::wrapInResidualAddsInput()
{
    Document doc;
    doc.resetNetwork(test::tinyNetwork(), QString());
    // ReLU keeps the shape: wrapping it makes a valid residual connection.
    doc.wrapInResidual({}, 1, 1);
    const auto& block = doc.network().layers[1];
    QVERIFY(block.isRepeat());
    QCOMPARE(block.times, std::int64_t { 1 });
    QCOMPARE(types(block.children), (std::vector<std::string> { "ReLU", "Add" }));
    QCOMPARE(block.children[1].inputs, (std::vector<std::string> { "repeat_input", block.children[0].name }));
    const Analysis a = analyze(doc.network(), Precision::Fp32);
    QVERIFY2(a.valid(), a.error ? a.error->message.c_str() : "");
    QCOMPARE(a.totalParams, test::kTinyParams);
    doc.undoStack()->undo();
    QVERIFY(doc.network() == test::tinyNetwork());
}

void TestDocument::attributeEditMarksModifiedUntilUndone()
{
    Document doc;
    doc.resetNetwork(test::tinyNetwork(), QStringLiteral("/tmp/tiny.json"));
    QSignalSpy modified(&doc, &Document::modifiedChanged);
    QSignalSpy layerChanged(&doc, &Document::layerChanged);
    doc.setLayerAttribute({ 0 }, "out_channels", 8);
    QCOMPARE(doc.network().layers[0].attributes["out_channels"].get<int>(), 8);
    QCOMPARE(layerChanged.count(), 1);
    QCOMPARE(layerChanged.at(0).at(0).value<LayerPath>(), LayerPath { 0 });
    QVERIFY(doc.isModified());
    QCOMPARE(doc.displayName(), QStringLiteral("tiny.json"));
    doc.undoStack()->undo();
    QVERIFY(!doc.isModified());
    QCOMPARE(modified.count(), 2);
    // A null value removes the attribute.
    doc.setLayerAttribute({ 0 }, "padding", nullptr);
    QVERIFY(!doc.network().layers[0].attributes.contains("padding"));
}

void TestDocument::batchEditsMergeIntoOneStep()
{
    Document doc;
    QSignalSpy batch(&doc, &Document::batchChanged);
    QSignalSpy setup(&doc, &Document::setupChanged);
    // One slider drag: its first value starts the step, the rest continue it.
    doc.setBatch(40);
    for (const int b : { 50, 64, 128 })
        doc.setBatch(b, true);
    QCOMPARE(batch.count(), 4);
    QCOMPARE(setup.count(), 0); // the slider path does not rebuild the memory model
    QCOMPARE(doc.undoStack()->count(), 1);
    doc.undoStack()->undo();
    QCOMPARE(doc.plan().setup.batch, std::int64_t { 32 });
    // Values committed one by one (typed in the box): a step each, never merged.
    doc.undoStack()->clear();
    for (const int b : { 48, 40 })
        doc.setBatch(b);
    QCOMPARE(doc.undoStack()->count(), 2);
    doc.undoStack()->undo();
    QCOMPARE(doc.plan().setup.batch, std::int64_t { 48 });
    doc.undoStack()->undo();
    QCOMPARE(doc.plan().setup.batch, std::int64_t { 32 });
    QVERIFY2(!doc.isModified(), "no file holds a set-up yet: changing it is no unsaved change");
}

void TestDocument::gpuChangeIsUndoable()
{
    Document doc;
    const auto catalog = test::testCatalog();
    doc.resetSetup(Precision::Fp32, TrainingSetup {}, catalog.gpus()[0]);
    doc.setGpu(catalog.gpus()[1]);
    doc.setGpu(catalog.gpus()[2]);
    QCOMPARE(doc.plan().gpu.memoryBytes, catalog.gpus()[2].memoryBytes);
    doc.undoStack()->undo();
    QCOMPARE(doc.plan().gpu.name, catalog.gpus()[1].name);
    QCOMPARE(doc.plan().gpu.memoryBytes, catalog.gpus()[1].memoryBytes);
    doc.undoStack()->undo();
    QCOMPARE(doc.plan().gpu.name, catalog.gpus()[0].name);
}

void TestDocument::specPathMatchesAnalysis()
{
    QCOMPARE(Document::specPath({ 3 }), std::string("layers[3]"));
    QCOMPARE(Document::specPath({ 3, 1 }), std::string("layers[3].layers[1]"));
}

void TestDocument::strategyEditsAreUndoable()
{
    Document doc;
    doc.resetNetwork(test::tinyNetwork(), QString());
    const Plan original = doc.plan();
    LoraOptions lora;
    lora.rank = 8;
    lora.targets = { "fc" };
    lora.dropout = 0.1;
    lora.quantizeBase = true;
    Parallelism parallel;
    parallel.gpus = 8;
    parallel.sharding = Sharding::Zero3;
    parallel.tensorParallel = 2;
    parallel.offloadOptimizer = true;
    doc.setCheckpointing(Checkpointing::Selective);
    doc.setAttention(AttentionImplementation::Eager);
    doc.setLora(lora);
    doc.setSequenceLength(128);
    doc.setAccumulationSteps(4);
    doc.setParallelism(parallel);
    doc.setEightBitOptimizer(true);
    doc.setAssumedUtilization(0.55);
    const Plan& p = doc.plan();
    QCOMPARE(p.checkpointing, Checkpointing::Selective);
    QCOMPARE(p.attention, AttentionImplementation::Eager);
    QVERIFY(p.lora == lora);
    QCOMPARE(p.sequenceLength, std::optional<std::int64_t>(128));
    QCOMPARE(p.setup.accumulationSteps, std::int64_t { 4 });
    QVERIFY(p.setup.parallel == parallel);
    QVERIFY(p.setup.eightBitOptimizer);
    QCOMPARE(p.setup.assumedUtilization, 0.55);
    QCOMPARE(doc.undoStack()->count(), 8);
    QVERIFY2(!doc.isModified(), "no file holds a set-up yet: changing it is no unsaved change");
    while (doc.undoStack()->canUndo())
        doc.undoStack()->undo();
    QVERIFY2(p.checkpointing == original.checkpointing && p.attention == original.attention
            && p.lora == original.lora && p.sequenceLength == original.sequenceLength
            && p.setup == original.setup,
        "undo restores every strategy setting");
    doc.undoStack()->redo();
    QCOMPARE(p.checkpointing, Checkpointing::Selective);
}

void TestDocument::settingEditsSignalTheirSpeed()
{
    Document doc;
    doc.resetNetwork(test::tinyNetwork(), QString());
    QSignalSpy strategy(&doc, &Document::strategyChanged);
    QSignalSpy setup(&doc, &Document::setupChanged);
    QSignalSpy batch(&doc, &Document::batchChanged);
    doc.setCheckpointing(Checkpointing::PerBlock); // re-analyse
    QCOMPARE(strategy.count(), 1);
    QCOMPARE(setup.count(), 0);
    doc.setAccumulationSteps(2); // rebuild the memory model only
    QCOMPARE(strategy.count(), 1);
    QCOMPARE(setup.count(), 1);
    QCOMPARE(batch.count(), 0);
    doc.undoStack()->undo();
    QCOMPARE(setup.count(), 2);
    doc.undoStack()->undo();
    QCOMPARE(strategy.count(), 2);
    doc.setCheckpointing(Checkpointing::None); // no change: no edit
    QCOMPARE(doc.undoStack()->index(), 0);
}

void TestDocument::spinEditsMergeIntoOneStep()
{
    Document doc;
    for (const std::int64_t gpus : { 2, 3, 4 }) {
        Parallelism p = doc.plan().setup.parallel;
        p.gpus = gpus;
        doc.setParallelism(p);
    }
    for (const std::int64_t steps : { 2, 3 })
        doc.setAccumulationSteps(steps);
    QCOMPARE(doc.undoStack()->count(), 2);
    doc.undoStack()->undo();
    QCOMPARE(doc.plan().setup.accumulationSteps, std::int64_t { 1 });
    doc.undoStack()->undo();
    QCOMPARE(doc.plan().setup.parallel.gpus, std::int64_t { 1 });
}

void TestDocument::fusedStepFallsBackInTheSameStep()
{
    // Under DeepSpeed ZeRO-2 the engine steps with its own optimizer, so Adagrad keeps the fused
    // setting (torch.optim's CPU-only fused Adagrad does not matter there); back on DDP torch.optim
    // steps again, and the edit that got there also goes back to foreach, in one undo step.
    Document doc;
    Parallelism zero;
    zero.gpus = 2;
    zero.sharding = Sharding::Zero2;
    doc.setParallelism(zero);
    doc.setOptimizerImplementation(OptimizerImplementation::Fused);
    doc.setOptimizer(Optimizer::Adagrad);
    QCOMPARE(doc.plan().setup.optimizerImplementation, OptimizerImplementation::Fused);
    const int steps = doc.undoStack()->count();
    Parallelism ddp = zero;
    ddp.sharding = Sharding::None;
    doc.setParallelism(ddp);
    QCOMPARE(doc.undoStack()->count(), steps + 1);
    QCOMPARE(doc.plan().setup.optimizerImplementation, OptimizerImplementation::Foreach);
    QVERIFY(!validateSetup(doc.plan().setup));
    doc.undoStack()->undo();
    QCOMPARE(doc.plan().setup.parallel.sharding, Sharding::Zero2);
    QCOMPARE(doc.plan().setup.optimizerImplementation, OptimizerImplementation::Fused);
    // 8-bit state likewise: bitsandbytes' kernels, not torch.optim's.
    doc.setParallelism(Parallelism {});
    QCOMPARE(doc.plan().setup.optimizerImplementation, OptimizerImplementation::Foreach);
    doc.undoStack()->undo();
    doc.setEightBitOptimizer(true);
    doc.setParallelism(Parallelism {});
    QCOMPARE(doc.plan().setup.optimizerImplementation, OptimizerImplementation::Fused);
}

void TestDocument::frozenAndCheckpointFlagsAreNetworkEdits()
{
    Document doc;
    Network n = test::tinyNetwork();
    LayerSpec block;
    block.type = "Repeat";
    block.name = "block";
    block.times = 2;
    LayerSpec relu;
    relu.type = "ReLU";
    block.children = { relu };
    n.layers.insert(n.layers.begin() + 2, block);
    doc.resetNetwork(n, QString());
    QSignalSpy changed(&doc, &Document::networkChanged);
    doc.setLayerFrozen({ 0 }, true);
    QVERIFY(doc.network().layers[0].frozen);
    QVERIFY2(doc.isModified(), "frozen is saved in the model file");
    QCOMPARE(changed.count(), 1);
    doc.setLayerCheckpoint({ 0 }, true); // not a block: ignored
    QVERIFY(!doc.network().layers[0].checkpoint);
    doc.setLayerCheckpoint({ 2 }, true);
    QVERIFY(doc.network().layers[2].checkpoint);
    QCOMPARE(doc.network().layers[2].children.size(), std::size_t { 1 });
    QCOMPARE(doc.plan().checkpointing, Checkpointing::PerBlock); // a mark alone would do nothing
    doc.undoStack()->undo();
    QVERIFY(!doc.network().layers[2].checkpoint);
    QCOMPARE(doc.plan().checkpointing, Checkpointing::None);
    doc.undoStack()->undo();
    QVERIFY(!doc.network().layers[0].frozen);
    QVERIFY(!doc.isModified());
}

void TestDocument::checkpointSelectionIsOneUndoableEdit()
{
    Document doc;
    doc.resetNetwork(test::tinyNetwork(), QString());
    const Network original = doc.network();
    QCOMPARE(doc.checkpointLayers({}, 0, 2), QString());
    QCOMPARE(doc.undoStack()->count(), 1);
    const auto& layers = doc.network().layers;
    QCOMPARE(types(layers), (std::vector<std::string> { "Repeat", "Flatten", "Linear" }));
    QCOMPARE(layers[0].times, std::int64_t { 1 });
    QVERIFY(layers[0].checkpoint);
    QCOMPARE(types(layers[0].children), (std::vector<std::string> { "Conv2d", "ReLU" }));
    QCOMPARE(doc.plan().checkpointing, Checkpointing::PerBlock);
    // The same network, so the same parameters; the analysis accepts it.
    const Analysis a = analyze(doc.network(), doc.plan().analysisOptions());
    QVERIFY2(a.valid(), a.error ? a.error->message.c_str() : "");
    QCOMPARE(a.totalParams, test::kTinyParams);
    doc.undoStack()->undo();
    QVERIFY(doc.network() == original);
    QCOMPARE(doc.plan().checkpointing, Checkpointing::None);
    // One selected block is marked rather than wrapped again.
    QCOMPARE(doc.checkpointLayers({}, 1, 1), QString()); // a ReLU: wrapped
    QCOMPARE(doc.network().layers[1].type, std::string("Repeat"));
    QCOMPARE(doc.checkpointLayers({}, 1, 1), QString()); // now that block: marked, not wrapped
    QCOMPARE(doc.network().layers[1].children.front().type, std::string("ReLU"));
    QVERIFY(!doc.checkpointLayers({ 0 }, 0, 1).isEmpty()); // not top level
}

void TestDocument::checkpointSelectionRepointsLaterUses()
{
    Document doc;
    Network n = test::tinyNetwork();
    n.layers[1].name = "act";
    n.layers[2].inputs = { "act" };
    doc.resetNetwork(n, QString());
    QCOMPARE(doc.checkpointLayers({}, 0, 2), QString());
    const auto& layers = doc.network().layers;
    QCOMPARE(layers[0].name, std::string("checkpoint"));
    QCOMPARE(layers[1].inputs, (std::vector<std::string> { "checkpoint" }));
    QVERIFY(analyze(doc.network(), Precision::Fp32).valid());
    doc.undoStack()->undo();
    QVERIFY(doc.network() == n);
}

void TestDocument::checkpointSelectionRefusesInnerUses()
{
    Document doc;
    Network n = test::tinyNetwork();
    n.layers[1].name = "act";
    LayerSpec add;
    add.type = "Add";
    add.name = "sum";
    add.inputs = { "conv", "act" }; // uses the first layer, which would be hidden inside the block
    n.layers.insert(n.layers.begin() + 2, add);
    doc.resetNetwork(n, QString());
    const QString error = doc.checkpointLayers({}, 0, 2);
    QVERIFY2(error.contains(QStringLiteral("\"conv\"")), qPrintable(error));
    QVERIFY(doc.network() == n);
    QCOMPARE(doc.undoStack()->count(), 0);
}

void TestDocument::importedNetworkHasNoFilePath()
{
    Document doc;
    Network n = test::tinyNetwork();
    doc.resetNetwork(n, QString(), QStringLiteral("/models/tiny.onnx"));
    QCOMPARE(doc.filePath(), QString());
    QCOMPARE(doc.importedFrom(), QStringLiteral("/models/tiny.onnx"));
    QCOMPARE(doc.displayName(), QStringLiteral("Tiny"));
    doc.setSequenceLength(7);
    doc.resetNetwork(n, QString());
    QVERIFY2(!doc.plan().sequenceLength, "another network brings its own sequence length");
    doc.resetNetwork(n, QString(), QStringLiteral("/models/tiny.onnx"));
    doc.markSaved(QStringLiteral("/models/tiny.json"));
    QCOMPARE(doc.importedFrom(), QString());
    QCOMPARE(doc.filePath(), QStringLiteral("/models/tiny.json"));
}

void TestDocument::newNetworkKeepsTheSetupThatApplies()
{
    // Issue 35: the set-up of the last model stays, less the LoRA targets that name no Linear layer
    // of the new one, which the document lists for the window to say.
    Document doc;
    doc.resetNetwork(test::tinyNetwork(), QString());
    LoraOptions lora;
    lora.rank = 8;
    lora.targets = { "fc", "q_proj" };
    doc.setLora(lora);
    // An edit is the user's word: not pruned (the analysis says what is wrong with it).
    QCOMPARE(doc.plan().lora.targets, (std::vector<std::string> { "fc", "q_proj" }));
    doc.setLora(LoraOptions { 8, { "q_proj", "v_proj" }, 0.0, true });
    Network other = test::tinyNetwork();
    other.name = "Other";
    doc.resetNetwork(other, QString());
    QCOMPARE(doc.droppedLoraTargets(), (QStringList { QStringLiteral("q_proj"), QStringLiteral("v_proj") }));
    QVERIFY(doc.plan().lora.targets.empty());
    QVERIFY(doc.plan().lora.quantizeBase);
    QCOMPARE(doc.plan().lora.rank, std::int64_t { 8 });
    doc.resetNetwork(test::tinyNetwork(), QString());
    QVERIFY(doc.droppedLoraTargets().isEmpty());
}

QTEST_MAIN(TestDocument)
#include "tst_document.moc"

#include "Document.h"
#include "TestSupport.h"

#include "headroom/Analysis.h"

#include <QSignalSpy>
#include <QTest>
#include <QUndoStack>

using namespace headroom;
using headroom::ui::Document;
using headroom::ui::LayerPath;

class TestDocument : public QObject {
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
    doc.insertLayers({}, 2, {dropout}, QStringLiteral("Add Dropout"));
    QCOMPARE(inserted.count(), 1);
    QCOMPARE(inserted.at(0).at(1).toInt(), 2);
    QCOMPARE(changed.count(), 1);
    QCOMPARE(types(doc.network().layers), (std::vector<std::string>{"Conv2d", "ReLU", "Dropout", "Flatten", "Linear"}));
    QVERIFY(doc.isModified());
    doc.undoStack()->undo();
    QCOMPARE(types(doc.network().layers), (std::vector<std::string>{"Conv2d", "ReLU", "Flatten", "Linear"}));
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
    QCOMPARE(doc.network().layers.size(), std::size_t{2});
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

    QTest::newRow("down one") << LayerPath{} << 0 << 1 << LayerPath{} << 2 << "ReLU Conv2d Flatten Linear [Identity]";
    QTest::newRow("up two") << LayerPath{} << 3 << 1 << LayerPath{} << 1 << "Conv2d Linear ReLU Flatten [Identity]";
    QTest::newRow("two to end") << LayerPath{} << 0 << 2 << LayerPath{} << 5 << "Flatten Linear [Identity] Conv2d ReLU";
    QTest::newRow("into block") << LayerPath{} << 1 << 1 << LayerPath{4} << 1 << "Conv2d Flatten Linear [Identity ReLU]";
    QTest::newRow("out of block") << LayerPath{4} << 0 << 1 << LayerPath{} << 0 << "Identity Conv2d ReLU Flatten Linear []";
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
    block.children = {identity};
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
    block.children = {identity};
    net.layers.push_back(block);
    Document doc;
    doc.resetNetwork(net, QString());
    QVERIFY(!doc.moveLayers({}, 4, 1, {4}, 0));
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
    QCOMPARE(block.times, std::int64_t{1});
    QCOMPARE(types(block.children), (std::vector<std::string>{"ReLU", "Add"}));
    QCOMPARE(block.children[1].inputs, (std::vector<std::string>{"repeat_input", block.children[0].name}));
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
    doc.setLayerAttribute({0}, "out_channels", 8);
    QCOMPARE(doc.network().layers[0].attributes["out_channels"].get<int>(), 8);
    QCOMPARE(layerChanged.count(), 1);
    QCOMPARE(layerChanged.at(0).at(0).value<LayerPath>(), LayerPath{0});
    QVERIFY(doc.isModified());
    QCOMPARE(doc.displayName(), QStringLiteral("tiny.json"));
    doc.undoStack()->undo();
    QVERIFY(!doc.isModified());
    QCOMPARE(modified.count(), 2);
    // A null value removes the attribute.
    doc.setLayerAttribute({0}, "padding", nullptr);
    QVERIFY(!doc.network().layers[0].attributes.contains("padding"));
}

void TestDocument::batchEditsMergeIntoOneStep()
{
    Document doc;
    QSignalSpy batch(&doc, &Document::batchChanged);
    QSignalSpy setup(&doc, &Document::setupChanged);
    for (const int b : {40, 50, 64, 128})
        doc.setBatch(b);
    QCOMPARE(batch.count(), 4);
    QCOMPARE(setup.count(), 0); // the slider path does not rebuild the memory model
    QCOMPARE(doc.undoStack()->count(), 1);
    doc.undoStack()->undo();
    QCOMPARE(doc.plan().setup.batch, std::int64_t{32});
    QVERIFY2(!doc.isModified(), "the set-up is not saved in the model file");
}

void TestDocument::gpuChangeIsUndoable()
{
    Document doc;
    const auto catalog = test::testCatalog();
    doc.resetSetup(Precision::Fp32, TrainingSetup{}, catalog.gpus()[0]);
    doc.setGpu(catalog.gpus()[1]);
    doc.setGpu(catalog.gpus()[2]);
    QCOMPARE(doc.plan().setup.gpuMemoryBytes, catalog.gpus()[2].memoryBytes);
    doc.undoStack()->undo();
    QCOMPARE(doc.plan().gpu.name, catalog.gpus()[1].name);
    QCOMPARE(doc.plan().setup.gpuMemoryBytes, catalog.gpus()[1].memoryBytes);
    doc.undoStack()->undo();
    QCOMPARE(doc.plan().gpu.name, catalog.gpus()[0].name);
}

void TestDocument::specPathMatchesAnalysis()
{
    QCOMPARE(Document::specPath({3}), std::string("layers[3]"));
    QCOMPARE(Document::specPath({3, 1}), std::string("layers[3].layers[1]"));
}

QTEST_MAIN(TestDocument)
#include "tst_document.moc"

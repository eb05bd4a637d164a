#include "AttributeEditor.h"
#include "Document.h"
#include "FieldCommit.h"
#include "LayerTableModel.h"
#include "PlanController.h"
#include "PropertyPanel.h"
#include "TestSupport.h"

#include <QLabel>
#include <QLineEdit>
#include <QSpinBox>
#include <QTest>
#include <QUndoStack>

using namespace headroom;
using namespace headroom::ui;

class TestPropertyPanel : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void parseShape_data();
    void parseShape();
    void invalidShapeIsExplainedNotChanged_data();
    void invalidShapeIsExplainedNotChanged();
    void shapeFollowsTyping();
    void layerNameRuleIsExplained();
    void attributeEditorsShowForEachType();
};

namespace {
struct Fixture
{
    Document doc;
    PlanController controller { &doc };
    LayerTableModel model { &doc };
    PropertyPanel panel { &doc, &model };
    Fixture()
    {
        QObject::connect(
            &controller, &PlanController::analysisChanged, &model, &LayerTableModel::setAnalysis);
        doc.resetNetwork(test::tinyNetwork(), QString());
        model.setAnalysis(controller.analysis());
        panel.show();
    }
    QLineEdit* shape() const { return panel.findChild<QLineEdit*>(QStringLiteral("inputShapeLineEdit")); }
    QLabel* shapeNote() const { return panel.findChild<QLabel*>(QStringLiteral("inputShapeNoteLabel")); }
};
} // namespace

void TestPropertyPanel::parseShape_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QList<qlonglong>>("dims"); // empty: refused
    QTest::newRow("commas") << "3, 224, 224" << QList<qlonglong> { 3, 224, 224 };
    QTest::newRow("no spaces") << "3,224,224" << QList<qlonglong> { 3, 224, 224 };
    QTest::newRow("times") << "3x224x224" << QList<qlonglong> { 3, 224, 224 };
    QTest::newRow("brackets") << "[3, 32, 32]" << QList<qlonglong> { 3, 32, 32 };
    QTest::newRow("one axis") << "128" << QList<qlonglong> { 128 };
    QTest::newRow("a zero") << "3, 0, 32" << QList<qlonglong> {};
    QTest::newRow("letters") << "3, abc" << QList<qlonglong> {};
    QTest::newRow("negative") << "3, -32, 32" << QList<qlonglong> {};
    QTest::newRow("empty") << "" << QList<qlonglong> {};
}

void TestPropertyPanel::parseShape()
{
    QFETCH(QString, text);
    QFETCH(QList<qlonglong>, dims);
    QString problem;
    const auto parsed = PropertyPanel::parseShape(text, &problem);
    QCOMPARE(QList<qlonglong>(parsed.begin(), parsed.end()), dims);
    QCOMPARE(problem.isEmpty(), !dims.isEmpty());
}

void TestPropertyPanel::invalidShapeIsExplainedNotChanged_data()
{
    QTest::addColumn<QString>("typed");
    QTest::addColumn<QString>("culprit");
    QTest::newRow("a zero") << "3, 0, 32"
                            << "“0”";
    QTest::newRow("letters") << "3, abc"
                             << "“abc”";
}

void TestPropertyPanel::invalidShapeIsExplainedNotChanged()
{
    // Every keystroke stays in the field; what cannot be a shape is explained under it, and the
    // network keeps its shape (never a different, shorter one).
    QFETCH(QString, typed);
    QFETCH(QString, culprit);
    Fixture f;
    const auto before = f.doc.network().input.shape.dims;
    f.shape()->setFocus();
    f.shape()->selectAll();
    QTest::keyClicks(f.shape(), typed);
    QCOMPARE(f.shape()->text(), typed);
    QVERIFY(f.shapeNote()->isVisible());
    QVERIFY2(f.shapeNote()->text().contains(culprit), qPrintable(f.shapeNote()->text()));
    QTest::keyClick(f.shape(), Qt::Key_Return);
    QTest::qWait(FieldCommit::kPauseMs + 100); // a pause that would commit a valid shape
    QCOMPARE(f.doc.network().input.shape.dims, before);
    QCOMPARE(f.shape()->text(), typed);
    QVERIFY(f.shapeNote()->isVisible());
}

void TestPropertyPanel::shapeFollowsTyping()
{
    Fixture f;
    f.shape()->setFocus();
    f.shape()->selectAll();
    QTest::keyClicks(f.shape(), QStringLiteral("3, 16, 16"));
    QVERIFY(f.shapeNote()->isHidden());
    QTRY_COMPARE(f.doc.network().input.shape.dims, (std::vector<std::int64_t> { 3, 16, 16 }));
    QCOMPARE(f.doc.undoStack()->count(), 1);
    // The conv keeps 16x16 (padding 1): 4 x 16 x 16 = 1,024 features into the Linear(10).
    QCOMPARE(f.controller.analysis().rows[3].params, std::uint64_t { 1024 * 10 + 10 });
}

void TestPropertyPanel::layerNameRuleIsExplained()
{
    Fixture f;
    const QModelIndex conv = f.model.index(0, 0);
    f.panel.setCurrentIndex(conv);
    auto* name = f.panel.findChild<QLineEdit*>(QStringLiteral("layerNameLineEdit"));
    auto* note = f.panel.findChild<QLabel*>(QStringLiteral("layerNameNoteLabel"));
    name->setFocus();
    name->selectAll();
    QTest::keyClicks(name, QStringLiteral("first conv"));
    QCOMPARE(name->text(), QStringLiteral("first conv"));
    QVERIFY(note->isVisible());
    QTest::keyClick(name, Qt::Key_Return);
    QCOMPARE(f.doc.network().layers[0].name, std::string("conv")); // a space is not allowed in a name
    name->selectAll();
    QTest::keyClicks(name, QStringLiteral("first_conv"));
    QVERIFY(note->isHidden());
    QTest::keyClick(name, Qt::Key_Return);
    QCOMPARE(f.doc.network().layers[0].name, std::string("first_conv"));
}

void TestPropertyPanel::attributeEditorsShowForEachType()
{
    // Selecting layers of different types rebuilds the form: the new type's fields are shown.
    Fixture f;
    f.panel.setCurrentIndex(f.model.index(0, 0)); // Conv2d
    QTRY_VERIFY(f.panel.attributeEditor(QStringLiteral("kernel_size"))
        && f.panel.attributeEditor(QStringLiteral("kernel_size"))->isVisible());
    f.panel.setCurrentIndex(f.model.index(3, 0)); // Linear
    QVERIFY(!f.panel.attributeEditor(QStringLiteral("kernel_size")));
    QTRY_VERIFY(f.panel.attributeEditor(QStringLiteral("out_features"))
        && f.panel.attributeEditor(QStringLiteral("out_features"))->isVisible());
    QTRY_VERIFY(f.panel.attributeEditor(QStringLiteral("out_features"))
                    ->findChild<QSpinBox*>(QStringLiteral("valueSpinBox"))
                    ->isVisible());
}

QTEST_MAIN(TestPropertyPanel)
#include "tst_propertypanel.moc"

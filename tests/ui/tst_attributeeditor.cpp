#include "AttributeEditor.h"

#include "headroom/LayerRegistry.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLineEdit>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTest>

using namespace headroom;
using headroom::ui::AttributeEditor;

class TestAttributeEditor : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void widgetForEachType_data();
    void widgetForEachType();
    void intRangeFromSpec();
    void tupleSameForAllToggle();
    void tupleChoiceWord();
    void optionalInferredSize();
    void omittedPaddingIndexReadsNone();
    void choiceAndFloat();
    void everyRegisteredAttributeRoundTrips();
    void textEditsALine();
};

// QCOMPARE has no overload for JSON values.
#define COMPARE_JSON(actual, expected) \
    QVERIFY2((actual) == (expected), (nlohmann::json(actual).dump() + " != " + nlohmann::json(expected).dump()).c_str())

namespace {
const AttributeSpec& specOf(std::string_view type, const std::string& name)
{
    const LayerKind* kind = LayerRegistry::builtin().find(type);
    for (const auto& a : kind->attributes()) {
        if (a.name == name)
            return a;
    }
    qFatal("no attribute %s", name.c_str());
}
} // namespace

void TestAttributeEditor::widgetForEachType_data()
{
    QTest::addColumn<QString>("type");
    QTest::addColumn<QString>("attribute");
    QTest::addColumn<QString>("widget");
    QTest::newRow("Int") << "Linear" << "out_features" << "valueSpinBox";
    QTest::newRow("IntTuple") << "Conv2d" << "kernel_size" << "sameCheckBox";
    QTest::newRow("Float") << "Dropout" << "p" << "valueDoubleSpinBox";
    QTest::newRow("Bool") << "Linear" << "bias" << "valueCheckBox";
    QTest::newRow("Choice") << "GELU" << "approximate" << "valueComboBox";
    QTest::newRow("IntList") << "LayerNorm" << "normalized_shape" << "listLineEdit";
    QTest::newRow("optional") << "Linear" << "in_features" << "inferredCheckBox";
    QTest::newRow("Text") << "GenericOp" << "op" << "textLineEdit";
}

void TestAttributeEditor::widgetForEachType()
{
    QFETCH(QString, type);
    QFETCH(QString, attribute);
    QFETCH(QString, widget);
    AttributeEditor editor(specOf(type.toStdString(), attribute.toStdString()));
    QVERIFY2(editor.findChild<QWidget*>(widget) != nullptr, qPrintable(widget));
}

void TestAttributeEditor::intRangeFromSpec()
{
    const AttributeSpec& spec = specOf("Linear", "out_features");
    AttributeEditor editor(spec);
    auto* spin = editor.findChild<QSpinBox*>(QStringLiteral("valueSpinBox"));
    QCOMPARE(spin->minimum(), static_cast<int>(spec.minInt));
    QCOMPARE(spin->maximum(), static_cast<int>(spec.maxInt));
    QSignalSpy edited(&editor, &AttributeEditor::edited);
    editor.setValue(128);
    COMPARE_JSON(spin->value(), 128);
    QCOMPARE(edited.count(), 0); // showing a value is not an edit
    spin->setValue(256);
    QCOMPARE(edited.count(), 1);
    COMPARE_JSON(editor.value(), nlohmann::json(256));
}

void TestAttributeEditor::tupleSameForAllToggle()
{
    AttributeEditor editor(specOf("Conv2d", "stride"));
    editor.show();
    auto* same = editor.findChild<QCheckBox*>(QStringLiteral("sameCheckBox"));
    auto* first = editor.findChild<QSpinBox*>(QStringLiteral("valueSpinBox"));
    auto* second = editor.findChild<QSpinBox*>(QStringLiteral("valueSpinBox2"));
    QVERIFY(same && first && second);
    editor.setValue(nlohmann::json::array({2, 1}));
    QVERIFY(!same->isChecked());
    QVERIFY(second->isVisible());
    COMPARE_JSON(editor.value(), nlohmann::json::array({2, 1}));
    editor.setValue(nullptr); // the default, 1
    QVERIFY(same->isChecked());
    QVERIFY(!second->isVisible());
    COMPARE_JSON(editor.value(), nlohmann::json(1));
    QSignalSpy edited(&editor, &AttributeEditor::edited);
    same->setChecked(false);
    second->setValue(3);
    COMPARE_JSON(edited.last().at(0).value<nlohmann::json>(), nlohmann::json::array({1, 3}));
}

void TestAttributeEditor::tupleChoiceWord()
{
    AttributeEditor editor(specOf("Conv2d", "padding"));
    auto* mode = editor.findChild<QComboBox*>(QStringLiteral("modeComboBox"));
    QVERIFY(mode);
    QCOMPARE(mode->count(), 3); // sizes, valid, same
    editor.setValue("same");
    QCOMPARE(mode->currentText(), QStringLiteral("same"));
    QVERIFY(!editor.findChild<QSpinBox*>(QStringLiteral("valueSpinBox"))->isEnabled());
    mode->setCurrentIndex(0);
    COMPARE_JSON(editor.value(), editor.findChild<QSpinBox*>(QStringLiteral("valueSpinBox"))->value());
}

void TestAttributeEditor::optionalInferredSize()
{
    AttributeEditor editor(specOf("Conv2d", "in_channels"));
    auto* inferred = editor.findChild<QCheckBox*>(QStringLiteral("inferredCheckBox"));
    auto* spin = editor.findChild<QSpinBox*>(QStringLiteral("valueSpinBox"));
    editor.setValue(nullptr);
    QVERIFY(inferred->isChecked());
    QCOMPARE(inferred->text(), QStringLiteral("from the input"));
    QVERIFY2(spin->isHidden(), "an inferred size must not show a number that is not the inferred one");
    QVERIFY(!spin->isEnabled());
    QVERIFY(editor.value().is_null());
    editor.setValue(3);
    QVERIFY(!spin->isHidden());
    QCOMPARE(spin->value(), 3);
    QVERIFY(!inferred->isChecked());
    COMPARE_JSON(editor.value(), nlohmann::json(3));
    QSignalSpy edited(&editor, &AttributeEditor::edited);
    inferred->setChecked(true);
    QCOMPARE(edited.count(), 1);
    QVERIFY(edited.last().at(0).value<nlohmann::json>().is_null());
}

void TestAttributeEditor::omittedPaddingIndexReadsNone()
{
    AttributeEditor editor(specOf("Embedding", "padding_idx"));
    editor.setValue(nullptr);
    auto* omitted = editor.findChild<QCheckBox*>(QStringLiteral("inferredCheckBox"));
    QVERIFY(omitted->isChecked());
    QCOMPARE(omitted->text(), QStringLiteral("none"));
    QVERIFY(editor.findChild<QSpinBox*>(QStringLiteral("valueSpinBox"))->isHidden());
    omitted->setChecked(false);
    QVERIFY(!editor.findChild<QSpinBox*>(QStringLiteral("valueSpinBox"))->isHidden());
}

void TestAttributeEditor::choiceAndFloat()
{
    const AttributeSpec& p = specOf("Dropout", "p");
    AttributeEditor dropout(p);
    auto* spin = dropout.findChild<QDoubleSpinBox*>(QStringLiteral("valueDoubleSpinBox"));
    QCOMPARE(spin->minimum(), p.minFloat);
    QCOMPARE(spin->maximum(), p.maxFloat);
    COMPARE_JSON(spin->value(), 0.5);
    AttributeEditor gelu(specOf("GELU", "approximate"));
    auto* combo = gelu.findChild<QComboBox*>(QStringLiteral("valueComboBox"));
    QCOMPARE(combo->count(), 2);
    combo->setCurrentIndex(1);
    COMPARE_JSON(gelu.value(), nlohmann::json("tanh"));
}

void TestAttributeEditor::everyRegisteredAttributeRoundTrips()
{
    // Every attribute of every kind gets an editor, and showing its default gives back a value the
    // core's validation accepts.
    for (const LayerKind* kind : LayerRegistry::builtin().kinds()) {
        nlohmann::json given = nlohmann::json::object();
        for (const auto& spec : kind->attributes()) {
            AttributeEditor editor(spec);
            editor.setValue(spec.defaultValue);
            const nlohmann::json v = editor.value();
            if (!v.is_null())
                given[spec.name] = v;
            else if (spec.required())
                given[spec.name] = spec.type == AttributeType::Int || spec.type == AttributeType::IntTuple
                        || spec.type == AttributeType::IntList
                    ? nlohmann::json(3)
                    : nlohmann::json();
        }
        const auto validated = Attributes::validate(kind->attributes(), given, "layers[0]");
        QVERIFY2(validated.ok(), validated.ok() ? "" : validated.error().message.c_str());
    }
}

void TestAttributeEditor::textEditsALine()
{
    AttributeEditor editor(specOf("GenericOp", "op"));
    auto* line = editor.findChild<QLineEdit*>(QStringLiteral("textLineEdit"));
    QVERIFY(line);
    COMPARE_JSON(editor.value(), nlohmann::json("custom")); // the default
    editor.setValue("com.example::Fancy");
    QCOMPARE(line->text(), QStringLiteral("com.example::Fancy"));
    QCOMPARE(line->maxLength(), static_cast<int>(kMaxAttributeTextLength));
    QSignalSpy edited(&editor, &AttributeEditor::edited);
    line->clear();
    QTest::keyClicks(line, QStringLiteral("HardSwish"));
    QTest::keyClick(line, Qt::Key_Return);
    QCOMPARE(edited.count(), 1);
    COMPARE_JSON(editor.value(), nlohmann::json("HardSwish"));
    line->setText(QStringLiteral("   "));
    QVERIFY(editor.value().is_null()); // nothing typed: left out, so the default applies
    // The optional reason starts out omitted.
    AttributeEditor reason(specOf("GenericOp", "reason"));
    QVERIFY(reason.value().is_null());
}

QTEST_MAIN(TestAttributeEditor)
#include "tst_attributeeditor.moc"

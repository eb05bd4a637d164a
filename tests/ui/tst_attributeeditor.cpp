#include "AttributeEditor.h"
#include "headroom/layers/LayerRegistry.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QLineEdit>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTest>

using namespace headroom;
using headroom::ui::AttributeEditor;

class TestAttributeEditor : public QObject
{
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
    void showsWhatTheFileHolds_data();
    void showsWhatTheFileHolds();
    void typedFixIsAccepted();
    void rangeInTooltip_data();
    void rangeInTooltip();
    void rejectedTypingIsExplained();
    void textEditsALine();
};

// QCOMPARE has no overload for JSON values.
#define COMPARE_JSON(actual, expected)                                                                       \
    QVERIFY2((actual) == (expected),                                                                         \
        (nlohmann::json(actual).dump() + " != " + nlohmann::json(expected).dump()).c_str())

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
    QTest::newRow("Int") << "Linear"
                         << "out_features"
                         << "valueSpinBox";
    QTest::newRow("IntTuple") << "Conv2d"
                              << "kernel_size"
                              << "sameCheckBox";
    QTest::newRow("Float") << "Dropout"
                           << "p"
                           << "valueDoubleSpinBox";
    QTest::newRow("Bool") << "Linear"
                          << "bias"
                          << "valueCheckBox";
    QTest::newRow("Choice") << "GELU"
                            << "approximate"
                            << "valueComboBox";
    QTest::newRow("IntList") << "LayerNorm"
                             << "normalized_shape"
                             << "listLineEdit";
    QTest::newRow("optional") << "Linear"
                              << "in_features"
                              << "inferredCheckBox";
    QTest::newRow("Text") << "GenericOp"
                          << "op"
                          << "textLineEdit";
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
    editor.setValue(nlohmann::json::array({ 2, 1 }));
    QVERIFY(!same->isChecked());
    QVERIFY(second->isVisible());
    COMPARE_JSON(editor.value(), nlohmann::json::array({ 2, 1 }));
    editor.setValue(nullptr); // the default, 1
    QVERIFY(same->isChecked());
    QVERIFY(!second->isVisible());
    COMPARE_JSON(editor.value(), nlohmann::json(1));
    QSignalSpy edited(&editor, &AttributeEditor::edited);
    same->setChecked(false);
    second->setValue(3);
    COMPARE_JSON(edited.last().at(0).value<nlohmann::json>(), nlohmann::json::array({ 1, 3 }));
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

void TestAttributeEditor::showsWhatTheFileHolds_data()
{
    QTest::addColumn<QString>("type");
    QTest::addColumn<QString>("attribute");
    QTest::addColumn<QString>("json");
    QTest::addColumn<QString>("widget");
    QTest::addColumn<QString>("shown");
    QTest::newRow("Int below its minimum") << "Conv2d"
                                           << "out_channels"
                                           << "0"
                                           << "valueSpinBox"
                                           << "0";
    QTest::newRow("Int as a string") << "Linear"
                                     << "out_features"
                                     << "\"ten\""
                                     << "valueSpinBox"
                                     << "\"ten\"";
    QTest::newRow("negative size") << "Conv2d"
                                   << "kernel_size"
                                   << "-3"
                                   << "valueSpinBox"
                                   << "-3";
    QTest::newRow("Float above its maximum") << "Dropout"
                                             << "p"
                                             << "1.5"
                                             << "valueDoubleSpinBox"
                                             << "1.5";
    QTest::newRow("unknown choice") << "GELU"
                                    << "approximate"
                                    << "\"fast\""
                                    << "valueComboBox"
                                    << "\"fast\"";
    QTest::newRow("unknown word") << "Conv2d"
                                  << "padding"
                                  << "\"full\""
                                  << "modeComboBox"
                                  << "\"full\"";
}

void TestAttributeEditor::showsWhatTheFileHolds()
{
    // A file the core rejects is shown as it is, not as the nearest value the widget allows: the
    // user sees the problem (and editing it is not mistaken for a change already made).
    QFETCH(QString, type);
    QFETCH(QString, attribute);
    QFETCH(QString, json);
    QFETCH(QString, widget);
    QFETCH(QString, shown);
    AttributeEditor editor(specOf(type.toStdString(), attribute.toStdString()));
    QSignalSpy edited(&editor, &AttributeEditor::edited);
    editor.setValue(nlohmann::json::parse(json.toStdString()));
    QWidget* w = editor.findChild<QWidget*>(widget);
    QVERIFY(w);
    if (auto* spin = qobject_cast<QAbstractSpinBox*>(w))
        QCOMPARE(spin->text(), shown);
    else
        QCOMPARE(qobject_cast<QComboBox*>(w)->currentText(), shown);
    QCOMPARE(edited.count(), 0);
    // A valid value afterwards shows normally.
    const auto& spec = specOf(type.toStdString(), attribute.toStdString());
    if (!spec.defaultValue.is_null()) {
        editor.setValue(spec.defaultValue);
        if (auto* spin = qobject_cast<QAbstractSpinBox*>(w))
            QVERIFY2(spin->text() != shown, qPrintable(spin->text()));
        else
            QVERIFY(qobject_cast<QComboBox*>(w)->currentText() != shown);
    }
}

void TestAttributeEditor::typedFixIsAccepted()
{
    // out_channels: 0 in the file. Typing 1 (the spin box's own minimum) and Enter is an edit.
    AttributeEditor editor(specOf("Conv2d", "out_channels"));
    editor.show();
    editor.setValue(0);
    auto* spin = editor.findChild<QSpinBox*>(QStringLiteral("valueSpinBox"));
    QCOMPARE(spin->text(), QStringLiteral("0"));
    QSignalSpy edited(&editor, &AttributeEditor::edited);
    spin->setFocus();
    spin->selectAll();
    QTest::keyClicks(spin, QStringLiteral("1"));
    QTest::keyClick(spin, Qt::Key_Return);
    QCOMPARE(edited.count(), 1);
    COMPARE_JSON(edited.last().at(0).value<nlohmann::json>(), nlohmann::json(1));
    // Enter on the file's own invalid text changes nothing (it is not turned into the minimum).
    editor.setValue(0);
    spin->selectAll();
    QTest::keyClicks(spin, QStringLiteral("0"));
    QTest::keyClick(spin, Qt::Key_Return);
    QCOMPARE(edited.count(), 1);
    QCOMPARE(spin->text(), QStringLiteral("0"));
}

void TestAttributeEditor::rangeInTooltip_data()
{
    QTest::addColumn<QString>("type");
    QTest::addColumn<QString>("attribute");
    QTest::addColumn<QString>("range");
    QTest::newRow("positive") << "Conv2d"
                              << "out_channels"
                              << "whole numbers from 1 up";
    QTest::newRow("non-negative") << "Conv2d"
                                  << "padding"
                                  << "whole numbers from 0 up, or “valid”, “same”";
    QTest::newRow("probability") << "Dropout"
                                 << "p"
                                 << "numbers from 0 to 1";
    QTest::newRow("choice") << "GELU"
                            << "approximate"
                            << "one of “none”, “tanh”";
}

void TestAttributeEditor::rangeInTooltip()
{
    QFETCH(QString, type);
    QFETCH(QString, attribute);
    QFETCH(QString, range);
    const AttributeSpec& spec = specOf(type.toStdString(), attribute.toStdString());
    QCOMPARE(AttributeEditor::rangeText(spec), range);
    AttributeEditor editor(spec);
    QVERIFY2(editor.toolTip().startsWith(QString::fromStdString(spec.help)), qPrintable(editor.toolTip()));
    QVERIFY2(
        editor.toolTip().endsWith(QStringLiteral("Allowed: %1.").arg(range)), qPrintable(editor.toolTip()));
    for (QWidget* field : editor.findChildren<QWidget*>()) {
        if (qobject_cast<QAbstractSpinBox*>(field) != nullptr || qobject_cast<QComboBox*>(field) != nullptr)
            QCOMPARE(field->toolTip(), editor.toolTip());
    }
}

void TestAttributeEditor::rejectedTypingIsExplained()
{
    AttributeEditor editor(specOf("Conv2d", "out_channels"));
    editor.show();
    editor.setValue(64);
    auto* spin = editor.findChild<QSpinBox*>(QStringLiteral("valueSpinBox"));
    auto* note = editor.findChild<QLabel*>(QStringLiteral("noteLabel"));
    QVERIFY(note && note->isHidden());
    QSignalSpy edited(&editor, &AttributeEditor::edited);
    spin->setFocus();
    spin->selectAll();
    QTest::keyClicks(spin, QStringLiteral("0"));
    QVERIFY(note->isVisible());
    QCOMPARE(note->text(), QStringLiteral("“0” is not allowed: out_channels takes whole numbers from 1 up."));
    QTest::keyClick(spin, Qt::Key_Return);
    QCOMPARE(spin->value(), 64); // kept, and the note says so (issue 25 item 7)
    QVERIFY(note->isVisible());
    QCOMPARE(note->text(), QStringLiteral("“0” is not allowed, so out_channels stays 64."));
    // A key a number cannot contain is explained too, instead of being dropped silently.
    spin->selectAll();
    QTest::keyClicks(spin, QStringLiteral("x"));
    QCOMPARE(note->text(),
        QStringLiteral("“x” cannot be typed here: out_channels takes whole numbers from 1 up."));
    // A valid number clears it.
    spin->selectAll();
    QTest::keyClicks(spin, QStringLiteral("32"));
    QVERIFY(note->isHidden());
    QTest::keyClick(spin, Qt::Key_Return);
    COMPARE_JSON(edited.last().at(0).value<nlohmann::json>(), nlohmann::json(32));
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

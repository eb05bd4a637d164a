// Issue 25 item 7: every rejected entry says why, once, and the message leaves with the problem:
// a layer attribute (out_channels), the batch size and the GPU field, typed into as the newcomer
// did.
#include "AttributeEditor.h"
#include "BatchPanel.h"
#include "Document.h"
#include "EntryNote.h"
#include "SetupPanel.h"
#include "TestSupport.h"
#include "headroom/layers/LayerRegistry.h"

#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QSpinBox>
#include <QTest>
#include <QVBoxLayout>

using namespace headroom;
using namespace headroom::ui;

class TestEntryNote : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void attributeSaysWhyOnceAndLetsGo();
    void batchBoxSaysWhy();
    void gpuFieldSaysWhy();
};

namespace {

const AttributeSpec& specOf(std::string_view type, const std::string& name)
{
    for (const auto& a : LayerRegistry::builtin().find(type)->attributes()) {
        if (a.name == name)
            return a;
    }
    qFatal("no attribute %s", name.c_str());
}

bool isRed(const QLabel* label)
{
    return label->styleSheet().contains(QStringLiteral("#c01010"));
}

} // namespace

void TestEntryNote::attributeSaysWhyOnceAndLetsGo()
{
    QWidget window;
    auto* editor = new AttributeEditor(specOf("Conv2d", "out_channels"), &window);
    auto* other = new QLineEdit(&window); // somewhere for Tab to go
    auto* layout = new QVBoxLayout(&window);
    layout->addWidget(editor);
    layout->addWidget(other);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    editor->setValue(64);
    auto* spin = editor->findChild<QSpinBox*>(QStringLiteral("valueSpinBox"));
    auto* note = editor->findChild<QLabel*>(QStringLiteral("noteLabel"));
    spin->setFocus();
    spin->selectAll();
    // The sequence: "-5", then "abc". Before: "“c” cannot be typed here", the -5 forgotten.
    QTest::keyClicks(spin, QStringLiteral("-5"));
    QCOMPARE(
        note->text(), QStringLiteral("“-5” is not allowed: out_channels takes whole numbers from 1 up."));
    QTest::keyClicks(spin, QStringLiteral("abc"));
    QCOMPARE(spin->text(), QStringLiteral("-5"));
    QCOMPARE(note->text(),
        QStringLiteral("“abc” cannot be typed here, and “-5” is not allowed: out_channels takes "
                       "whole numbers from 1 up."));
    QVERIFY(note->isVisible() && isRed(note));
    // Tab: the field puts 64 back. Before: silently, with the red message left standing.
    QTest::keyClick(spin, Qt::Key_Tab);
    QTRY_VERIFY(!spin->hasFocus());
    QCOMPARE(spin->value(), 64);
    QCOMPARE(spin->text(), QStringLiteral("64"));
    QCOMPARE(note->text(), QStringLiteral("“-5” is not allowed, so out_channels stays 64."));
    QVERIFY(note->isVisible() && !isRed(note));
    // The next edit takes the note away; a valid number leaves nothing to say.
    spin->setFocus();
    spin->selectAll();
    QTest::keyClicks(spin, QStringLiteral("32"));
    QVERIFY(note->isHidden());
}

void TestEntryNote::batchBoxSaysWhy()
{
    Document doc;
    doc.resetNetwork(test::tinyNetwork(), QString());
    BatchPanel panel(&doc);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    doc.setBatch(32);
    auto* spin = panel.findChild<QSpinBox*>(QStringLiteral("batchSpinBox"));
    auto* note = panel.findChild<QLabel*>(QStringLiteral("batchNoteLabel"));
    QVERIFY(spin != nullptr && note != nullptr);
    QVERIFY(note->isHidden());
    spin->setFocus();
    spin->selectAll();
    // Letters were ignored without a word.
    QTest::keyClicks(spin, QStringLiteral("ab"));
    QCOMPARE(note->text(),
        QStringLiteral("“ab” cannot be typed here: the batch size takes whole numbers from 1 up."));
    QVERIFY(note->isVisible() && isRed(note));
    // 0 snapped back to 32 without a word.
    spin->selectAll();
    QTest::keyClicks(spin, QStringLiteral("0"));
    QCOMPARE(
        note->text(), QStringLiteral("“0” is not allowed: the batch size takes whole numbers from 1 up."));
    QTest::keyClick(spin, Qt::Key_Return);
    QCOMPARE(doc.plan().setup.batch, std::int64_t { 32 });
    QCOMPARE(spin->text(), QStringLiteral("32"));
    QCOMPARE(note->text(), QStringLiteral("“0” is not allowed, so the batch size stays 32."));
    QVERIFY(!isRed(note));
    // A batch set another way (the slider, Set to Max) ends the note.
    doc.setBatch(16);
    QVERIFY(note->isHidden());
}

void TestEntryNote::gpuFieldSaysWhy()
{
    Document doc;
    doc.resetNetwork(test::tinyNetwork(), QString());
    SetupPanel panel(&doc);
    const GpuCatalog catalog = test::testCatalog();
    panel.setCatalog(catalog);
    doc.resetSetup(Precision::Fp32, TrainingSetup {}, catalog.gpus()[0]);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    auto* combo = panel.findChild<QComboBox*>(QStringLiteral("gpuComboBox"));
    auto* note = panel.findChild<QLabel*>(QStringLiteral("gpuNoteLabel"));
    QVERIFY(combo != nullptr && note != nullptr);
    QVERIFY(note->isHidden());
    combo->setFocus();
    combo->lineEdit()->selectAll();
    QTest::keyClicks(combo->lineEdit(), QStringLiteral("foo"));
    QTest::keyClick(combo->lineEdit(), Qt::Key_Return);
    // Put back, as before, but no longer silently.
    QCOMPARE(doc.plan().gpu.name, std::string("Test GPU 8"));
    QTRY_VERIFY(note->isVisible());
    QCOMPARE(note->text(),
        QStringLiteral("No GPU matches “foo”, so the GPU stays Test GPU 8. Type part of a name or an "
                       "alias (“4090”, “A100 80GB”), or choose Custom... at the end of the list for "
                       "your own."));
    // A GPU found by its alias takes the note away.
    combo->lineEdit()->selectAll();
    QTest::keyClicks(combo->lineEdit(), QStringLiteral("TG24"));
    QVERIFY(note->isHidden());
    QTest::keyClick(combo->lineEdit(), Qt::Key_Return);
    QCOMPARE(doc.plan().gpu.name, std::string("Test GPU 24"));
    QVERIFY(note->isHidden());
}

QTEST_MAIN(TestEntryNote)
#include "tst_entrynote.moc"

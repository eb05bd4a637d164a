// The user's own GPUs: the dialog that makes or edits one (every figure the step time uses, not only
// the memory), and the settings that bring it back in the next session with every figure, old
// settings (name and memory only) included, an entry that cannot be read skipped.
#include "CustomGpuDialog.h"
#include "Document.h"
#include "GpuSelector.h"
#include "MainWindow.h"
#include "MainWindowFixture.h"
#include "SetupPanel.h"
#include "TestSupport.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QPushButton>
#include <QSettings>
#include <QSpinBox>
#include <QStatusBar>
#include <QTest>
#include <QTimer>
#include <functional>
#include <memory>

using namespace headroom;
using namespace headroom::ui;
using namespace headroom::test;

namespace {

/// Replaces what `field` holds by `text`, typed as a user types it.
void typeInto(QAbstractSpinBox* field, const QString& text)
{
    field->selectAll();
    QTest::keyClicks(field, text);
    field->interpretText();
}

void typeInto(QLineEdit* field, const QString& text)
{
    field->selectAll();
    QTest::keyClicks(field, text);
}

/// Answers the custom GPU dialog `window` opens next (a modal loop) with `fill`, then OK. Rejected
/// after 5 s if it never shows, so a broken test fails instead of hanging.
void answerCustomGpuDialog(QWidget* window, std::function<void(CustomGpuDialog*)> fill)
{
    auto* timer = new QTimer(window);
    timer->setInterval(10);
    auto waited = std::make_shared<int>(0);
    QObject::connect(timer, &QTimer::timeout, window, [window, timer, waited, fill] {
        auto* dialog = window->findChild<CustomGpuDialog*>(QStringLiteral("customGpuDialog"));
        if (dialog == nullptr || !dialog->isVisible()) {
            if (++*waited > 500) {
                timer->stop();
                timer->deleteLater();
            }
            return;
        }
        timer->stop();
        timer->deleteLater();
        fill(dialog);
        QTest::mouseClick(
            dialog->findChild<QDialogButtonBox*>()->button(QDialogButtonBox::Ok), Qt::LeftButton);
    });
    timer->start();
}

/// The lab card every test makes: each figure distinct, so one read into another's place shows.
void fillLabCard(CustomGpuDialog* dialog)
{
    typeInto(child<QLineEdit>(*dialog, "customGpuNameLineEdit"), QStringLiteral("Lab card 48"));
    typeInto(child<QDoubleSpinBox>(*dialog, "customGpuMemorySpinBox"), QStringLiteral("48"));
    typeInto(child<QDoubleSpinBox>(*dialog, "customGpuBandwidthSpinBox"), QStringLiteral("960"));
    typeInto(child<QDoubleSpinBox>(*dialog, "customGpuFp32SpinBox"), QStringLiteral("91.06"));
    typeInto(child<QDoubleSpinBox>(*dialog, "customGpuFp16SpinBox"), QStringLiteral("364.2"));
    typeInto(child<QDoubleSpinBox>(*dialog, "customGpuBf16SpinBox"), QStringLiteral("362.5"));
    typeInto(child<QDoubleSpinBox>(*dialog, "customGpuLinkSpinBox"), QStringLiteral("112.5"));
    auto* pcie = child<QComboBox>(*dialog, "customGpuPcieComboBox");
    pcie->setCurrentIndex(pcie->findData(5));
}

/// What fillLabCard() typed, as a Gpu: 48 GiB = 48 x 1,073,741,824 = 51,539,607,552 bytes.
Gpu labCard()
{
    return Gpu { "Lab card 48", "Custom", "Custom", {}, 51'539'607'552ULL, 960, 91.06, 364.2, 362.5, 112.5, 5,
        true };
}

} // namespace

class TestCustomGpu : public QObject, private MainWindowFixture
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        test::isolateSettings();
        QLocale::setDefault(QLocale(QLocale::English, QLocale::UnitedStates)); // the typed "91.06"
    }
    void init() { QSettings().clear(); }
    void dialogTakesEveryFigure();
    void dialogEditKeepsUntouchedDigits();
    void everyFigureComesBackNextSession();
    void olderSettingsLoadAndBadEntriesAreSkipped();
};

void TestCustomGpu::dialogTakesEveryFigure()
{
    CustomGpuDialog dialog(std::nullopt);
    // A new GPU: a name and 16 GiB to start with, every figure not known.
    QCOMPARE(child<QLineEdit>(dialog, "customGpuNameLineEdit")->text(), QStringLiteral("My GPU"));
    QCOMPARE(child<QDoubleSpinBox>(dialog, "customGpuMemorySpinBox")->value(), 16.0);
    for (const char* name : { "customGpuBandwidthSpinBox", "customGpuFp32SpinBox", "customGpuFp16SpinBox",
             "customGpuBf16SpinBox", "customGpuLinkSpinBox" }) {
        auto* field = child<QDoubleSpinBox>(dialog, name);
        QVERIFY2(field, name);
        QCOMPARE(field->value(), 0.0);
        QVERIFY2(field->text().startsWith(QStringLiteral("Not known")), qPrintable(field->text()));
        QVERIFY2(!field->toolTip().isEmpty(), name);
    }
    QCOMPARE(child<QComboBox>(dialog, "customGpuPcieComboBox")->currentData().toInt(), 0);
    const Gpu fresh = dialog.gpu();
    QCOMPARE(fresh.memoryBytes, 16ULL << 30);
    QCOMPARE(fresh.fp32Tflops, 0.0);
    QCOMPARE(fresh.pcieGeneration, 0);

    fillLabCard(&dialog);
    Gpu typed = dialog.gpu();
    typed.vendor = typed.family = "Custom"; // the main window's words
    QVERIFY(typed == labCard());
    // Figures read without trailing zeros, in the field's unit.
    QCOMPARE(child<QDoubleSpinBox>(dialog, "customGpuFp16SpinBox")->text(), QStringLiteral("364.2 TFLOPS"));
    QCOMPARE(child<QDoubleSpinBox>(dialog, "customGpuBandwidthSpinBox")->text(), QStringLiteral("960 GB/s"));
    // PCIe 5.0's x16 rate, 63 GB/s each way, is in its item.
    QVERIFY2(child<QComboBox>(dialog, "customGpuPcieComboBox")->currentText().contains(QStringLiteral("63")),
        qPrintable(child<QComboBox>(dialog, "customGpuPcieComboBox")->currentText()));
    // No name, no GPU.
    auto* ok = dialog.findChild<QDialogButtonBox*>()->button(QDialogButtonBox::Ok);
    QVERIFY(ok->isEnabled());
    typeInto(child<QLineEdit>(dialog, "customGpuNameLineEdit"), QStringLiteral("  "));
    QVERIFY(!ok->isEnabled());
}

void TestCustomGpu::dialogEditKeepsUntouchedDigits()
{
    // The GTX 1050 Ti's FP16 rate has more digits than the field shows (0.03341: 0.033), and 94 GiB + 1
    // byte is not a whole number of hundredths of a GiB: untouched, both stay exact.
    const Gpu start { "Odd card", "Custom", "Custom", {}, (94ULL << 30) + 1, 112, 2.138, 0.03341, 0, 15.75, 3,
        true };
    CustomGpuDialog dialog(start);
    QCOMPARE(child<QLineEdit>(dialog, "customGpuNameLineEdit")->text(), QStringLiteral("Odd card"));
    QCOMPARE(child<QDoubleSpinBox>(dialog, "customGpuFp16SpinBox")->text(), QStringLiteral("0.033 TFLOPS"));
    QCOMPARE(child<QComboBox>(dialog, "customGpuPcieComboBox")->currentData().toInt(), 3);
    QVERIFY(dialog.gpu() == start);
    typeInto(child<QDoubleSpinBox>(dialog, "customGpuFp32SpinBox"), QStringLiteral("2.5"));
    Gpu expected = start;
    expected.fp32Tflops = 2.5;
    QVERIFY(dialog.gpu() == expected);
    // A figure the user changes is what the field says: 0.05 TFLOPS.
    typeInto(child<QDoubleSpinBox>(dialog, "customGpuFp16SpinBox"), QStringLiteral("0.05"));
    QCOMPARE(dialog.gpu().fp16Tflops, 0.05);
}

void TestCustomGpu::everyFigureComesBackNextSession()
{
    Gpu saved;
    QString throughput;
    {
        auto w = makeWindow();
        w->dialogs->realCustomGpuDialog = true;
        answerCustomGpuDialog(&w->window, fillLabCard);
        auto* combo = child<GpuSelector>(w->window, "gpuComboBox");
        Q_EMIT combo->activated(combo->count() - 1); // "Custom..."
        saved = w->window.document()->plan().gpu;
        QVERIFY(saved == labCard());
        // Two GPUs, so the link between them counts too.
        child<QSpinBox>(w->window, "gpuCountSpinBox")->setValue(2);
        throughput = child<QLabel>(w->window, "throughputLabel")->text();
        QVERIFY2(throughput.startsWith(QStringLiteral("Step: ")), qPrintable(throughput));
        w->dialogs->saveChoices.push_back(DialogProvider::SaveChoice::Discard);
        QVERIFY(w->window.close());
    }
    MainWindow again;
    // In the list with every figure, and the plan's GPU again (the remembered GPU is looked up by name).
    auto found = again.setupPanel()->catalog().find("Lab card 48");
    QVERIFY2(found.ok(), found.ok() ? "" : found.error().message.c_str());
    QVERIFY(found.value() == saved);
    QVERIFY(again.document()->plan().gpu == saved);
    // The same network and GPU count: the same step time.
    again.document()->resetNetwork(test::tinyNetwork(), QString());
    child<QSpinBox>(again, "gpuCountSpinBox")->setValue(2);
    QCOMPARE(child<QLabel>(again, "throughputLabel")->text(), throughput);
}

void TestCustomGpu::olderSettingsLoadAndBadEntriesAreSkipped()
{
    // Written by hand: an entry of an older Headroom (name TAB bytes: 12 GiB), one of a later Headroom
    // with a figure this one does not know, and four it cannot read.
    QSettings().setValue(QStringLiteral("customGpus"),
        QStringList { QStringLiteral("Old card\t12884901888"),
            QStringLiteral(R"({"name":"Negative","memory_bytes":8589934592,"fp32_tflops":-1})"),
            QStringLiteral(R"({"name":"Later card","memory_bytes":8589934592,"fp8_tflops":50,"pcie_gen":4})"),
            QStringLiteral(R"({"name":"Cut short","memory_by)"), QStringLiteral("no tab here"),
            QStringLiteral("Tiny\t1000") });
    {
        MainWindow window;
        const GpuCatalog& catalog = window.setupPanel()->catalog();
        auto old = catalog.find("Old card");
        QVERIFY2(old.ok(), old.ok() ? "" : old.error().message.c_str());
        QCOMPARE(old->memoryBytes, 12ULL << 30);
        QVERIFY(old->custom);
        QCOMPARE(old->bandwidthGBps, 0.0);
        auto later = catalog.find("Later card");
        QVERIFY2(later.ok(), later.ok() ? "" : later.error().message.c_str());
        QCOMPARE(later->pcieGeneration, 4);
        int custom = 0;
        for (const Gpu& g : catalog.gpus())
            custom += g.custom ? 1 : 0;
        QCOMPARE(custom, 2);
        // Skipped, and said where.
        const QString message = window.statusBar()->currentMessage();
        QVERIFY2(message.startsWith(QStringLiteral("Skipped 4 custom GPUs the settings hold: ")),
            qPrintable(message));
        for (const char* where :
            { "customGpus[1].fp32_tflops must be a number from 0", "customGpus[3] is not JSON",
                "customGpus[4] is neither", "customGpus[5].memory_bytes must be at least" })
            QVERIFY2(message.contains(QString::fromLatin1(where)), where);
        auto dialogs = std::make_unique<ScriptedDialogs>();
        dialogs->saveChoices.push_back(DialogProvider::SaveChoice::Discard);
        window.setDialogProvider(std::move(dialogs));
        QVERIFY(window.close());
    }
    // Saved again in the JSON form; what could not be read is gone.
    QCOMPARE(QSettings().value(QStringLiteral("customGpus")).toStringList(),
        (QStringList { QStringLiteral(R"({"name":"Old card","memory_bytes":12884901888})"),
            QStringLiteral(R"({"name":"Later card","memory_bytes":8589934592,"pcie_gen":4})") }));
}

QTEST_MAIN(TestCustomGpu)
#include "tst_customgpu.moc"

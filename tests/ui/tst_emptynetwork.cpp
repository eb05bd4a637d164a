// Issue 25 item 1: File > New gave "Step: 0.00 us · 1280 G samples/s (memory-bound)", and Make It
// Fit (target 256) listed "batch 256, 807 MiB, max batch 6657, 0.00 us, 10240 G samples/s": the
// input batch and the overhead taken for a training step. An empty network says it is empty in
// every view (summary, layer list, planner, compare, the exported report), in English and Korean.
#include "DialogProvider.h"
#include "Document.h"
#include "GpuCompareView.h"
#include "Language.h"
#include "MainWindow.h"
#include "MakeItFitPanel.h"
#include "SetupPanel.h"
#include "TestSupport.h"

#include <QAbstractItemModel>
#include <QAction>
#include <QLabel>
#include <QProcess>
#include <QPushButton>
#include <QSettings>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

using namespace headroom;
using namespace headroom::ui;

namespace {

template <typename T> T* child(const QObject& parent, const char* name)
{
    T* found = parent.findChild<T*>(QString::fromLatin1(name));
    if (found == nullptr)
        qWarning("missing child %s", name);
    return found;
}

/// What a figure of a training step looks like in any of the three languages' texts: a duration
/// ("0.00 us", "85 µs") or a rate ("1280 G samples/s", "샘플/초").
bool showsAStepFigure(const QString& text)
{
    for (const char* unit : { " us", "µs", "samples/s", "샘플/초", "样本/秒", " G " }) {
        if (text.contains(QString::fromUtf8(unit)))
            return true;
    }
    return false;
}

} // namespace

class TestEmptyNetwork : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { test::isolateSettings(); }
    void cleanupTestCase()
    {
        Language::choose(QString());
        Language::install(*QCoreApplication::instance());
    }
    void everyViewSaysItIsEmpty_data();
    void everyViewSaysItIsEmpty();
};

void TestEmptyNetwork::everyViewSaysItIsEmpty_data()
{
    QTest::addColumn<QString>("language");
    QTest::newRow("English") << QStringLiteral("en");
    QTest::newRow("Korean") << QStringLiteral("ko");
}

void TestEmptyNetwork::everyViewSaysItIsEmpty()
{
    QFETCH(QString, language);
    QSettings().clear();
    Language::choose(language);
    Language::install(*QCoreApplication::instance());
    const bool english = language == QStringLiteral("en");

    MainWindow window;
    auto dialogs = std::make_unique<test::ScriptedDialogs>();
    test::ScriptedDialogs* scripted = dialogs.get();
    window.setDialogProvider(std::move(dialogs));
    const GpuCatalog catalog = test::testCatalog();
    window.setupPanel()->setCatalog(catalog);
    window.document()->resetSetup(Precision::Fp32, TrainingSetup {}, catalog.gpus()[0]);
    window.document()->resetNetwork(test::tinyNetwork(), QString());
    window.resize(1400, 900);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));

    // File > New, as the walk did.
    scripted->saveChoices.push_back(DialogProvider::SaveChoice::Discard);
    child<QAction>(window, "newAction")->trigger();
    QVERIFY(window.document()->network().layers.empty());

    // The summary: no max batch, no step time, no rate.
    const QString maxBatch = child<QLabel>(window, "maxBatchLabel")->text();
    QCOMPARE(maxBatch == QStringLiteral("The network is empty"), english);
    QVERIFY2(!child<QLabel>(window, "throughputLabel")->isVisible(),
        qPrintable(child<QLabel>(window, "throughputLabel")->text()));
    // The layer list says what to do, not an error in red.
    auto* layerStatus = child<QLabel>(window, "layerStatusLabel");
    QVERIFY2(!layerStatus->styleSheet().contains(QStringLiteral("#c01010")),
        qPrintable(layerStatus->styleSheet()));
    if (english)
        QVERIFY2(layerStatus->text().startsWith(QStringLiteral("The network is empty: add layers")),
            qPrintable(layerStatus->text()));
    QVERIFY(!layerStatus->text().contains(
        QStringLiteral("the network is empty"))); // the core's English, untranslated

    // Make It Fit, at the target of 256: no set-ups of nothing.
    child<QAction>(window, "makeItFitAction")->trigger();
    QTRY_VERIFY(window.findChild<MakeItFitPanel*>()->isVisible());
    child<QSpinBox>(window, "targetBatchSpinBox")->setValue(256);
    QCOMPARE(child<QTableView>(window, "setupsTableView")->model()->rowCount(), 0);
    QVERIFY(!child<QPushButton>(window, "applySetupButton")->isEnabled());
    const QString plan = child<QLabel>(window, "planStatusLabel")->text();
    QVERIFY2(!showsAStepFigure(plan) && !plan.contains(QStringLiteral("Cannot plan")), qPrintable(plan));
    if (english)
        QCOMPARE(plan, QStringLiteral("The network is empty: add layers to find the set-ups that fit."));

    // Compare GPUs: no rows either.
    child<QAction>(window, "compareGpusAction")->trigger();
    QTRY_VERIFY(window.findChild<GpuCompareView*>()->isVisible());
    QCOMPARE(child<QTableView>(window, "compareTableView")->model()->rowCount(), 0);
    const QString compare = child<QLabel>(window, "compareStatusLabel")->text();
    QVERIFY2(!showsAStepFigure(compare), qPrintable(compare));
    if (english)
        QCOMPARE(compare, QStringLiteral("The network is empty: add layers to compare GPUs for it."));

    // The exported report: one page that says the network is empty, no figures.
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString pdf = dir.filePath(QStringLiteral("empty.pdf"));
    scripted->saveNames.push_back(pdf);
    child<QAction>(window, "exportReportAction")->trigger();
    QVERIFY2(scripted->errors.isEmpty(), qPrintable(scripted->errors.join(QLatin1Char('\n'))));
    QVERIFY(QFileInfo::exists(pdf));
    if (QStandardPaths::findExecutable(QStringLiteral("pdftotext")).isEmpty())
        QSKIP("pdftotext (poppler-utils) is not installed: the report's text cannot be checked");
    QProcess p;
    p.start(QStringLiteral("pdftotext"),
        { QStringLiteral("-enc"), QStringLiteral("UTF-8"), pdf, QStringLiteral("-") });
    QVERIFY(p.waitForFinished(30000));
    const QString text = QString::fromUtf8(p.readAllStandardOutput()).simplified();
    // Up to the method section (its prose is the same for every report).
    const QString figures = text.left(
        text.indexOf(english ? QStringLiteral("Assumptions and method") : QStringLiteral("가정과 방법")));
    QVERIFY2(!showsAStepFigure(figures), qPrintable(figures));
    QVERIFY2(figures.size() < text.size(), qPrintable(text));
    QVERIFY2(!text.contains(QStringLiteral("Layers (0)")), qPrintable(text));
    if (english) {
        QVERIFY2(text.contains(
                     QStringLiteral("The network is empty It has no layers, so there is no training step to "
                                    "estimate.")),
            qPrintable(text));
    }
}

QTEST_MAIN(TestEmptyNetwork)
#include "tst_emptynetwork.moc"

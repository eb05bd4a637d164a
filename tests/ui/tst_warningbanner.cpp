// The warning banner: every assumption behind the numbers (Analysis::warnings) is on screen, each
// naming its layer, in the real main window; hidden when there is none.
#include "Document.h"
#include "MainWindow.h"
#include "SetupPanel.h"
#include "TestSupport.h"
#include "WarningBanner.h"

#include <QLabel>
#include <QSettings>
#include <QTest>
#include <QToolButton>
#include <algorithm>

using namespace headroom;
using namespace headroom::ui;

namespace {

LayerSpec genericOp(const std::string& name, const std::string& op, std::vector<std::int64_t> shape)
{
    LayerSpec l;
    l.type = "GenericOp";
    l.name = name;
    l.attributes = { { "op", op }, { "output_shape", shape } };
    return l;
}

struct Window
{
    std::unique_ptr<MainWindow> window;
    test::ScriptedDialogs* dialogs = nullptr;
    WarningBanner* banner = nullptr;
};

Window makeWindow(const Network& network)
{
    Window w;
    w.window = std::make_unique<MainWindow>();
    auto dialogs = std::make_unique<test::ScriptedDialogs>();
    w.dialogs = dialogs.get();
    w.window->setDialogProvider(std::move(dialogs));
    const GpuCatalog catalog = test::testCatalog();
    w.window->setupPanel()->setCatalog(catalog);
    w.window->document()->resetSetup(Precision::Fp32, TrainingSetup {}, catalog.gpus()[0]);
    w.window->document()->resetNetwork(network, QString());
    w.window->resize(1400, 900);
    w.window->show();
    w.banner = w.window->findChild<WarningBanner*>(QStringLiteral("warningBanner"));
    return w;
}

} // namespace

class TestWarningBanner : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase() { test::isolateSettings(); }
    void init() { QSettings().clear(); }
    void hiddenWithoutWarnings();
    void namesEveryWarning_data();
    void namesEveryWarning();
    void importedOnnxModelShowsItsGenericOperators();
    void evalModeExportIsFlaggedOnScreen_data();
    void evalModeExportIsFlaggedOnScreen();
    void followsEdits();
};

void TestWarningBanner::hiddenWithoutWarnings()
{
    auto w = makeWindow(test::tinyNetwork());
    QVERIFY2(w.banner, "warningBanner missing");
    QVERIFY(w.banner->isHidden());
    QVERIFY(w.banner->lines().isEmpty());
}

void TestWarningBanner::namesEveryWarning_data()
{
    QTest::addColumn<int>("generic"); // GenericOp layers added after the tiny network's Flatten
    QTest::addColumn<bool>("networkWarning"); // a warning from the importer (Network::warnings)
    QTest::newRow("one generic operator") << 1 << false;
    QTest::newRow("three generic operators") << 3 << false;
    QTest::newRow("five generic operators, more than the banner shows at first") << 5 << false;
    QTest::newRow("an import warning") << 0 << true;
    QTest::newRow("both") << 2 << true;
}

void TestWarningBanner::namesEveryWarning()
{
    QFETCH(int, generic);
    QFETCH(bool, networkWarning);
    Network n = test::tinyNetwork();
    auto flatten = n.layers.begin() + 3; // conv, relu, flatten | fc
    for (int k = 0; k < generic; ++k)
        flatten = n.layers.insert(
                      flatten, genericOp("mystery" + std::to_string(k), "Op" + std::to_string(k), { 256 }))
            + 1;
    if (networkWarning)
        n.warnings.push_back("the ONNX file was exported in inference (eval) mode");
    auto w = makeWindow(n);
    QVERIFY(w.banner);
    QTRY_VERIFY(w.banner->isVisible());
    const QStringList lines = w.banner->lines();
    QCOMPARE(lines.size(), generic + (networkWarning ? 1 : 0));
    int at = 0;
    if (networkWarning)
        QCOMPARE(lines[at++], QStringLiteral("the ONNX file was exported in inference (eval) mode"));
    for (int k = 0; k < generic; ++k, ++at) {
        const QString expected = QStringLiteral("mystery%1: operator 'Op%1' has no Headroom layer").arg(k);
        QVERIFY2(lines[at].startsWith(expected), qPrintable(lines[at]));
    }
    const auto* title = w.banner->findChild<QLabel*>(QStringLiteral("warningTitleLabel"));
    QVERIFY(title);
    QVERIFY2(title->text().contains(
                 lines.size() == 1 ? QStringLiteral("an assumption") : QString::number(lines.size())),
        qPrintable(title->text()));
    // A long list shows its first three lines; "Show all" shows every one.
    const auto* list = w.banner->findChild<QLabel*>(QStringLiteral("warningListLabel"));
    auto* more = w.banner->findChild<QToolButton*>(QStringLiteral("showAllWarningsButton"));
    QVERIFY(list && more);
    QCOMPARE(more->isVisible(), lines.size() > 3);
    if (more->isVisible())
        QTest::mouseClick(more, Qt::LeftButton);
    for (int k = 0; k < generic; ++k)
        QVERIFY2(list->text().contains(QStringLiteral("mystery%1").arg(k)), qPrintable(list->text()));
}

void TestWarningBanner::importedOnnxModelShowsItsGenericOperators()
{
    // A Conv with asymmetric padding has no exact layer: it is imported as a GenericOp, and named.
    auto w = makeWindow(test::tinyNetwork());
    QVERIFY(
        w.window->openFile(QStringLiteral(HEADROOM_TEST_SOURCE_DIR "/tests/data/onnx/asymmetric_pads.onnx")));
    QVERIFY2(w.dialogs->errors.isEmpty(), qPrintable(w.dialogs->errors.join(QLatin1Char('\n'))));
    QTRY_VERIFY(w.banner->isVisible());
    QCOMPARE(w.banner->lines().size(), 1);
    QVERIFY2(w.banner->lines().front().startsWith(
                 QStringLiteral("conv_asym: operator 'Conv' (asymmetric padding")),
        qPrintable(w.banner->lines().front()));
}

void TestWarningBanner::evalModeExportIsFlaggedOnScreen_data()
{
    // Issue 35, item 8: an export made in eval mode plans less than training keeps (no Dropout masks, the
    // BatchNorms folded away or in inference mode); the importer's warning must reach the window, not only
    // the command line's stderr. Real exports: torch 1.13's TorchScript exporter (Conv + BatchNorm folded
    // into one Conv with "onnx::Conv_*" weights, a BatchNorm1d left in inference mode) and PyTorch 2.11's
    // dynamo exporter (every BatchNorm's metadata names aten._native_batch_norm_legit_no_training).
    QTest::addColumn<QString>("path");
    QTest::newRow("torch 1.13, TorchScript exporter")
        << QStringLiteral(HEADROOM_TEST_SOURCE_DIR "/tests/data/onnx/eval_mode.onnx");
    QTest::newRow("PyTorch 2.11, dynamo exporter, ResNet-18")
        << QStringLiteral(HEADROOM_TORCH2_EXPORTS "/dynamo-eval/resnet18.onnx");
}

void TestWarningBanner::evalModeExportIsFlaggedOnScreen()
{
    QFETCH(QString, path);
    auto w = makeWindow(test::tinyNetwork());
    QVERIFY(w.banner->isHidden());
    QVERIFY2(w.window->openFile(path), qPrintable(path));
    QVERIFY2(w.dialogs->errors.isEmpty(), qPrintable(w.dialogs->errors.join(QLatin1Char('\n'))));
    QTRY_VERIFY(w.banner->isVisible());
    const QStringList lines = w.banner->lines();
    const auto evalLine = std::find_if(lines.begin(), lines.end(), [](const QString& line) {
        return line.contains(QStringLiteral("exported in inference (eval) mode"));
    });
    QVERIFY2(evalLine != lines.end(), qPrintable(lines.join(QLatin1Char('\n'))));
    // The line tells the user what is missing and how to export for training (each exporter its way).
    QVERIFY2(evalLine->contains(QStringLiteral("Dropout")), qPrintable(*evalLine));
    QVERIFY2(evalLine->contains(QStringLiteral("TrainingMode.TRAINING"))
            || evalLine->contains(QStringLiteral("model.train()")),
        qPrintable(*evalLine));
    // It is on screen: the banner's list shows it without "Show all" (it is the network's first warning).
    const auto* list = w.banner->findChild<QLabel*>(QStringLiteral("warningListLabel"));
    QVERIFY(list && list->isVisible());
    QVERIFY2(list->text().contains(QStringLiteral("eval")), qPrintable(list->text()));
}

void TestWarningBanner::followsEdits()
{
    Network n = test::tinyNetwork();
    n.layers.insert(n.layers.begin() + 3, genericOp("mystery", "Foo", { 256 }));
    auto w = makeWindow(n);
    QTRY_VERIFY(w.banner->isVisible());
    w.window->document()->resetNetwork(test::tinyNetwork(), QString());
    QTRY_VERIFY(w.banner->isHidden());
}

QTEST_MAIN(TestWarningBanner)
#include "tst_warningbanner.moc"

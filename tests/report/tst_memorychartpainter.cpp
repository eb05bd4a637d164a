// Issue 25 item 6: the report's memory chart is the GUI's: a logarithmic batch axis labelled at
// powers of two over the same range (report::MemorySweep), and the region above the GPU's memory
// shaded as over budget.
#include "ComponentColors.h"
#include "MemorySweep.h"
#include "ReportWriter.h"
#include "headroom/estimate/Plan.h"
#include "headroom/model/ModelFile.h"
#include "headroom/setup/GpuCatalog.h"

#include <QImage>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

using namespace headroom;

namespace {

/// Page 2 of `pdf` rendered by pdftoppm at `dpi` (a null image if it failed).
QImage renderPage2(const QString& pdf, const QTemporaryDir& dir, int dpi)
{
    const QString stem = dir.filePath(QStringLiteral("page%1").arg(dpi));
    QProcess render;
    render.start(QStringLiteral("pdftoppm"),
        { QStringLiteral("-png"), QStringLiteral("-r"), QString::number(dpi), QStringLiteral("-f"),
            QStringLiteral("2"), QStringLiteral("-l"), QStringLiteral("2"), QStringLiteral("-singlefile"),
            pdf, stem });
    if (!render.waitForFinished(60000))
        return {};
    return QImage(stem + QStringLiteral(".png"));
}

/// The pixels of `image` within `tolerance` of `colour` in each channel.
int pixelsNear(const QImage& image, const QColor& colour, int tolerance)
{
    int n = 0;
    for (int y = 0; y < image.height(); ++y) {
        for (int x = 0; x < image.width(); ++x) {
            const QColor c = image.pixelColor(x, y);
            if (std::abs(c.red() - colour.red()) <= tolerance
                && std::abs(c.green() - colour.green()) <= tolerance
                && std::abs(c.blue() - colour.blue()) <= tolerance)
                ++n;
        }
    }
    return n;
}

} // namespace

class TestMemoryChartPainter : public QObject
{
    Q_OBJECT
private slots:
    void rangeIsAPowerOfTwoWithRoom_data();
    void rangeIsAPowerOfTwoWithRoom();
    void reportChartIsLogScaleAndShaded();
};

void TestMemoryChartPainter::rangeIsAPowerOfTwoWithRoom_data()
{
    QTest::addColumn<qint64>("batch");
    QTest::addColumn<qint64>("maxBatch");
    QTest::addColumn<qint64>("range");
    // The next power of two at or above batch + batch/4 and maxBatch + maxBatch/4, at least 16.
    QTest::newRow("VGG-16 on a GTX 1080") << qint64 { 32 } << qint64 { 79 } << qint64 { 128 }; // 79 + 19 = 98
    QTest::newRow("batch 218 over it") << qint64 { 218 } << qint64 { 79 } << qint64 { 512 }; // 218 + 54 = 272
    QTest::newRow("small") << qint64 { 1 } << qint64 { 0 } << qint64 { 16 };
    QTest::newRow("on a power of two") << qint64 { 32 } << qint64 { 51 } << qint64 { 64 }; // 51 + 12 = 63
}

void TestMemoryChartPainter::rangeIsAPowerOfTwoWithRoom()
{
    QFETCH(qint64, batch);
    QFETCH(qint64, maxBatch);
    QFETCH(qint64, range);
    QCOMPARE(report::MemorySweep::rangeFor(batch, maxBatch), range);
}

void TestMemoryChartPainter::reportChartIsLogScaleAndShaded()
{
    for (const char* tool : { "pdftotext", "pdftoppm" }) {
        if (QStandardPaths::findExecutable(QString::fromLatin1(tool)).isEmpty())
            QSKIP("poppler-utils is not installed");
    }
    // The plan: VGG-16 on a GTX 1080 at batch 32, Adam, FP32; its max batch is 71 from the
    // caching allocator's reserved peak (79 by the tensors alone; docs/user-guide.md), so the axis runs
    // from 1 to 128 (above) either way.
    const auto network = loadModelFile(HEADROOM_TEST_SOURCE_DIR "/resources/presets/vgg16.json");
    QVERIFY(network);
    Plan plan;
    plan.network = network.value();
    plan.setup.batch = 32;
    const auto catalog = GpuCatalog::fromFile(HEADROOM_TEST_SOURCE_DIR "/resources/gpus.json");
    QVERIFY(catalog);
    const auto gpu = catalog.value().find("GTX 1080");
    QVERIFY(gpu);
    plan.gpu = gpu.value();
    plan.setup.overheadBytes = defaultOverheadBytes(plan.gpu);
    const PlanResult result = evaluate(plan);
    QVERIFY(result.estimate);
    QCOMPARE(result.estimate->maxBatch, std::int64_t { 71 });
    QTemporaryDir dir;
    const QString pdf = dir.filePath(QStringLiteral("vgg16.pdf"));
    QVERIFY(report::writePdfReport(plan, result, pdf).ok());

    // The chart is on page 2: page 1's summary says why the reserved peak differs from the tensors'.
    QProcess text;
    text.start(QStringLiteral("pdftotext"),
        { QStringLiteral("-layout"), QStringLiteral("-f"), QStringLiteral("2"), QStringLiteral("-l"),
            QStringLiteral("2"), pdf, QStringLiteral("-") });
    QVERIFY(text.waitForFinished(60000));
    const QString page = QString::fromUtf8(text.readAllStandardOutput());
    QVERIFY2(page.contains(QStringLiteral("Batch size (log scale)")), qPrintable(page));
    // Every power of two from 1 to 128, in order on one line (the linear axis read 1, 20, 40, ...).
    QVERIFY2(QRegularExpression(QStringLiteral("(?m)^\\s*1\\s+2\\s+4\\s+8\\s+16\\s+32\\s+64\\s+128\\s*$"))
                 .match(page)
                 .hasMatch(),
        qPrintable(page));

    // The shading: translucent red over white, as the GUI draws it, covers a good part of the plot
    // above the 8 GiB line (the axis reaches 9.6 GiB and more: a band at least 1.6/10 of the plot).
    const QImage image = renderPage2(pdf, dir, 50);
    QVERIFY(!image.isNull());
    const QColor shade = ui::ComponentColors::overBudget();
    const double a = shade.alphaF();
    const auto blend = [a](int c) { return static_cast<int>(std::lround(255 * (1 - a) + c * a)); };
    const int shaded
        = pixelsNear(image, QColor(blend(shade.red()), blend(shade.green()), blend(shade.blue())), 3);
    // At 50 dpi the plot is about 330 x 90 pixels; a sixth of it is about 5,000.
    QVERIFY2(shaded > 2000, qPrintable(QString::number(shaded)));

    // The reserved line (issue 23), as in the GUI: in the legend, and drawn across the plot in its
    // colour. At 150 dpi the 1.2-point dash-dot line is about 2.5 pixels thick and some 1,000 pixels
    // long, more than half of it inked; the legend's 16-point stroke is under 100 pixels of it.
    QVERIFY2(page.contains(QStringLiteral("Reserved (PyTorch's cache + overhead)")), qPrintable(page));
    const QImage fine = renderPage2(pdf, dir, 150);
    QVERIFY(!fine.isNull());
    const int inked = pixelsNear(fine, ui::ComponentColors::reserved(), 20);
    QVERIFY2(inked > 400, qPrintable(QString::number(inked)));
}

QTEST_MAIN(TestMemoryChartPainter)
#include "tst_memorychartpainter.moc"

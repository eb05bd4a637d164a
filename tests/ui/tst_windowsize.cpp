// The first window on a 1600x1000 screen, at QT_SCALE_FACTOR 1 and 1.5 (tests/ui/CMakeLists.txt runs
// this suite under both, on the offscreen platform configured as that screen): it fits, the chart
// is on screen, and at the smallest size the window allows every label still reads in full.
#include "MainWindow.h"
#include "MemoryChartView.h"
#include "TestSupport.h"

#include <QAbstractButton>
#include <QCheckBox>
#include <QGroupBox>
#include <QLabel>
#include <QScreen>
#include <QSettings>
#include <QTabBar>
#include <QTest>

using namespace headroom;
using namespace headroom::ui;

class TestWindowSize : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void firstWindowSize_data();
    void firstWindowSize();
    void firstWindowFitsTheScreen();
    void labelsReadAtTheMinimumSize();
};

namespace {

/// The visible texts that do not fit their widget: "Add Laye", "heckpoin", a number cut off.
QStringList clippedTexts(const QWidget& window)
{
    QStringList clipped;
    for (const QLabel* label : window.findChildren<QLabel*>()) {
        if (!label->isVisible() || label->wordWrap() || label->text().isEmpty() || label->textFormat() == Qt::RichText
            || label->text().contains(QLatin1Char('<')))
            continue;
        const int needed = label->fontMetrics().horizontalAdvance(label->text());
        if (needed > label->contentsRect().width())
            clipped << QStringLiteral("%1 \"%2\" (%3 < %4)").arg(label->objectName(), label->text()).arg(label->contentsRect().width()).arg(needed);
    }
    for (const QAbstractButton* button : window.findChildren<QAbstractButton*>()) {
        if (!button->isVisible() || button->text().isEmpty())
            continue;
        QString text = button->text();
        text.remove(QLatin1Char('&'));
        const int indicator = qobject_cast<const QCheckBox*>(button) != nullptr ? 22 : 8;
        const int needed = button->fontMetrics().horizontalAdvance(text) + indicator;
        if (needed > button->width())
            clipped << QStringLiteral("%1 \"%2\" (%3 < %4)").arg(button->objectName(), text).arg(button->width()).arg(needed);
    }
    for (const QTabBar* tabs : window.findChildren<QTabBar*>()) {
        for (int i = 0; tabs->isVisible() && i < tabs->count(); ++i) {
            if (tabs->fontMetrics().horizontalAdvance(tabs->tabText(i).remove(QLatin1Char('&'))) > tabs->tabRect(i).width())
                clipped << QStringLiteral("tab \"%1\"").arg(tabs->tabText(i));
        }
    }
    return clipped;
}

} // namespace

void TestWindowSize::initTestCase()
{
    test::isolateSettings();
    QSettings().clear();
}

void TestWindowSize::firstWindowSize_data()
{
    QTest::addColumn<QSize>("available");
    QTest::addColumn<QSize>("expected");
    // The preferred 1480 x 920 where it fits with room for the frame (95 % x 92 % of the screen).
    QTest::newRow("1920x1080") << QSize(1920, 1040) << QSize(1480, 920);
    QTest::newRow("1600x1000") << QSize(1600, 1000) << QSize(1480, 920);
    // 1600 x 1000 at QT_SCALE_FACTOR 1.5 is 1066 x 666 device-independent pixels.
    QTest::newRow("1600x1000 at 1.5") << QSize(1066, 666) << QSize(1012, 612);
    // Smaller than the minimum: the minimum (the screen is too small for a readable window).
    QTest::newRow("800x600") << QSize(800, 600) << QSize(1000, 600);
}

void TestWindowSize::firstWindowSize()
{
    QFETCH(QSize, available);
    QFETCH(QSize, expected);
    QCOMPARE(MainWindow::firstWindowSize(available, QSize(1000, 600)), expected);
}

void TestWindowSize::firstWindowFitsTheScreen()
{
    QSettings().clear(); // a first start: no remembered geometry
    MainWindow window;
    window.show();
    window.loadDefault();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    const QRect available = window.screen()->availableGeometry();
    QVERIFY2(available.contains(window.frameGeometry()),
             qPrintable(QStringLiteral("%1,%2 %3x%4 outside %5x%6")
                            .arg(window.frameGeometry().x())
                            .arg(window.frameGeometry().y())
                            .arg(window.frameGeometry().width())
                            .arg(window.frameGeometry().height())
                            .arg(available.width())
                            .arg(available.height())));
    QVERIFY(window.minimumSize().width() <= available.width() && window.minimumSize().height() <= available.height());
    // The chart is on screen, with room to read it.
    QWidget* chart = window.chartView();
    const QRect onScreen(chart->mapToGlobal(QPoint(0, 0)), chart->size());
    QVERIFY(available.contains(onScreen));
    QVERIFY2(chart->height() >= 220 && chart->width() >= 300, qPrintable(QStringLiteral("%1x%2").arg(chart->width()).arg(chart->height())));
}

void TestWindowSize::labelsReadAtTheMinimumSize()
{
    QSettings().clear();
    MainWindow window;
    window.show();
    window.loadDefault();
    window.resize(window.minimumSize());
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QTRY_COMPARE(window.size(), window.minimumSize());
    const QStringList clipped = clippedTexts(window);
    QVERIFY2(clipped.isEmpty(), qPrintable(clipped.join(QStringLiteral("; "))));
    // Below the minimum the window does not go.
    window.resize(800, 560);
    QTRY_COMPARE(window.size(), window.minimumSize());
}

QTEST_MAIN(TestWindowSize)
#include "tst_windowsize.moc"

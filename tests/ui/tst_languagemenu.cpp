// Issue 25 items 10 and 11: View > Language picks the GUI's language (kept in the settings, in effect
// from the next start), and the chosen language reaches Qt's own dialogs too (qtbase_*.qm).
#include "Language.h"
#include "LanguageMenu.h"
#include "MainWindow.h"
#include "TestSupport.h"

#include <QAction>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QPushButton>
#include <QSettings>
#include <QStatusBar>
#include <QTest>

using namespace headroom;
using namespace headroom::ui;

class TestLanguageMenu : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void cleanup();
    void choiceIsRememberedAndAnnounced();
    void qtDialogsSpeakTheChosenLanguage_data();
    void qtDialogsSpeakTheChosenLanguage();
};

void TestLanguageMenu::initTestCase()
{
    test::isolateSettings();
}

void TestLanguageMenu::init()
{
    QSettings().clear();
}

void TestLanguageMenu::cleanup()
{
    Language::choose(QString());
    QSettings().clear();
    Language::install(*QCoreApplication::instance());
}

void TestLanguageMenu::choiceIsRememberedAndAnnounced()
{
    {
        MainWindow window;
        window.show();
        auto* view = window.findChild<QMenu*>(QStringLiteral("viewMenu"));
        QVERIFY2(view != nullptr, "no View menu");
        QVERIFY(window.menuBar()->actions().contains(view->menuAction()));
        auto* menu = window.findChild<LanguageMenu*>(QStringLiteral("languageMenu"));
        QVERIFY(menu != nullptr);
        QVERIFY(view->actions().contains(menu->menuAction()));
        // Every language named in its own, the system's checked while nothing is chosen.
        QStringList names;
        for (const QAction* a : menu->actions()) {
            if (!a->isSeparator())
                names << a->text();
        }
        QCOMPARE(names,
            (QStringList { QStringLiteral("System Language"), QStringLiteral("English"),
                QStringLiteral("简体中文"), QStringLiteral("한국어") }));
        auto* system = window.findChild<QAction*>(QStringLiteral("language_systemAction"));
        QVERIFY(system != nullptr && system->isChecked());

        auto* korean = window.findChild<QAction*>(QStringLiteral("language_koAction"));
        QVERIFY(korean != nullptr);
        korean->trigger();
        QCOMPARE(QSettings().value(QStringLiteral("ui/language")).toString(), QStringLiteral("ko"));
        QVERIFY(korean->isChecked() && !system->isChecked());
        // Said in Korean, the language the user just picked (the translation in headroom_ko.ts).
        QCOMPARE(window.statusBar()->currentMessage(),
            QStringLiteral("다음 시작부터 Headroom이 한국어로 표시됩니다."));
    }
    {
        // The next window (the next start) shows the choice.
        MainWindow window;
        auto* korean = window.findChild<QAction*>(QStringLiteral("language_koAction"));
        QVERIFY(korean != nullptr && korean->isChecked());
        QCOMPARE(Language::locale().name(), QStringLiteral("ko_KR"));
        // Back to the system's: the setting goes, the note is in the system's language (English
        // here, where the tests run with LANG unset or C).
        window.findChild<QAction*>(QStringLiteral("language_systemAction"))->trigger();
        QVERIFY(!QSettings().contains(QStringLiteral("ui/language")));
    }
}

void TestLanguageMenu::qtDialogsSpeakTheChosenLanguage_data()
{
    QTest::addColumn<QString>("language");
    QTest::addColumn<QString>("file"); ///< headroom_*.ts: "&File"
    QTest::addColumn<QString>("lookIn"); ///< qtbase_*.qm: QFileDialog's "Look in:"
    QTest::addColumn<QString>("fileName"); ///< qtbase_*.qm: "File &name:"
    QTest::newRow("Simplified Chinese") << "zh_CN"
                                        << "文件(&F)"
                                        << "查找范围："
                                        << "文件名称(&N)：";
    QTest::newRow("Korean") << "ko"
                            << "파일(&F)"
                            << "다음에서 찾기:"
                            << "파일 이름(&N):";
}

void TestLanguageMenu::qtDialogsSpeakTheChosenLanguage()
{
    QFETCH(QString, language);
    QFETCH(QString, file);
    QFETCH(QString, lookIn);
    QFETCH(QString, fileName);
    Language::choose(language);
    QVERIFY2(Language::install(*QCoreApplication::instance()),
        "Qt's translations are missing: install qt6-translations-l10n (.ci/install-deps does)");
    // Headroom's own menus...
    MainWindow window;
    QCOMPARE(window.findChild<QMenu*>(QStringLiteral("fileMenu"))->title(), file);
    // ...and Qt's file dialog, as Open shows it (Qt's own widgets on this platform).
    QFileDialog dialog(&window);
    dialog.setOption(QFileDialog::DontUseNativeDialog);
    QCOMPARE(dialog.findChild<QLabel*>(QStringLiteral("lookInLabel"))->text(), lookIn);
    QCOMPARE(dialog.findChild<QLabel*>(QStringLiteral("fileNameLabel"))->text(), fileName);
    const auto* buttons = dialog.findChild<QDialogButtonBox*>(QStringLiteral("buttonBox"));
    QVERIFY(buttons != nullptr);
    QVERIFY2(!buttons->button(QDialogButtonBox::Cancel)->text().contains(QStringLiteral("Cancel")),
        qPrintable(buttons->button(QDialogButtonBox::Cancel)->text()));
}

QTEST_MAIN(TestLanguageMenu)
#include "tst_languagemenu.moc"

#include "GuiApp.h"

#include "MainWindow.h"

#include <QApplication>
#include <QIcon>
#include <QLibraryInfo>
#include <QLocale>
#include <QTranslator>

namespace headroom::ui {

int runGuiApp(int argc, char** argv, const QString& fileToOpen)
{
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("Headroom"));
    QApplication::setApplicationName(QStringLiteral("Headroom"));
    QApplication::setApplicationDisplayName(QStringLiteral("Headroom"));
    QApplication::setApplicationVersion(QStringLiteral(HEADROOM_VERSION));
    QGuiApplication::setDesktopFileName(QStringLiteral(HEADROOM_APP_ID));

    QIcon icon(QStringLiteral(":/icons/headroom.svg"));
    for (const int size : {16, 22, 24, 32, 48, 64, 128, 256})
        icon.addFile(QStringLiteral(":/icons/headroom-%1.png").arg(size), QSize(size, size));
    QApplication::setWindowIcon(icon);

    // Qt's own strings (standard buttons, file dialogs), then ours, for the system locale.
    QTranslator qtTranslator;
    if (qtTranslator.load(QLocale(), QStringLiteral("qtbase"), QStringLiteral("_"),
                          QLibraryInfo::path(QLibraryInfo::TranslationsPath)))
        QApplication::installTranslator(&qtTranslator);
    QTranslator translator;
    if (translator.load(QLocale(), QStringLiteral("headroom"), QStringLiteral("_"), QStringLiteral(":/i18n")))
        QApplication::installTranslator(&translator);

    MainWindow window;
    window.show();
    if (fileToOpen.isEmpty() || !window.openFile(fileToOpen))
        window.loadDefault();
    return QApplication::exec();
}

} // namespace headroom::ui

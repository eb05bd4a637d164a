#include "GuiApp.h"

#include "Language.h"
#include "MainWindow.h"

#include <QApplication>
#include <QIcon>

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
    for (const int size : { 16, 22, 24, 32, 48, 64, 128, 256 })
        icon.addFile(QStringLiteral(":/icons/headroom-%1.png").arg(size), QSize(size, size));
    QApplication::setWindowIcon(icon);

    // Qt's own strings (standard buttons, file dialogs), then ours, in the language chosen in
    // View > Language or the system's.
    if (!Language::install(app))
        qWarning("Qt's own translations are missing (qtbase_*.qm, package qt6-translations-l10n): Qt's "
                 "dialogs stay in English");

    MainWindow window;
    window.show();
    if (fileToOpen.isEmpty() || !window.openFile(fileToOpen))
        window.loadDefault();
    return QApplication::exec();
}

} // namespace headroom::ui

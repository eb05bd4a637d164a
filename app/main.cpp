// Headroom's entry point: the command line for subcommands, the GUI otherwise (when built with it).
#include "CommandLine.h"
#ifdef HEADROOM_WITH_GUI
#include "GuiApp.h"
#endif

#include <QGuiApplication>
#include <QString>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

namespace {

/// The command line prints its own messages; Qt's informational warnings (a missing
/// XDG_RUNTIME_DIR, font fallbacks) would only clutter a script's stderr.
void quietQtMessages(QtMsgType type, const QMessageLogContext&, const QString& message)
{
    if (type == QtCriticalMsg || type == QtFatalMsg)
        std::cerr << "headroom: " << message.toStdString() << '\n';
}

} // namespace

int main(int argc, char** argv)
{
    const std::vector<std::string> args(argv + 1, argv + argc);
    const auto set = [](const char* name) {
        const char* value = std::getenv(name);
        return value != nullptr && *value != '\0';
    };
    const bool display = set("DISPLAY") || set("WAYLAND_DISPLAY");
#ifdef HEADROOM_WITH_GUI
    const bool displayAvailable = display;
#else
    const bool displayAvailable = false;
#endif
    if (!headroom::cli::isCommandLineInvocation(args, displayAvailable)) {
#ifdef HEADROOM_WITH_GUI
        const QString file = args.empty() ? QString() : QString::fromLocal8Bit(args.front().c_str());
        return headroom::ui::runGuiApp(argc, argv, file);
#else
        std::cerr
            << "headroom: error: this headroom is built without the GUI (HEADROOM_BUILD_GUI=OFF); use a "
               "command: "
            << headroom::cli::commandListText() << " (see headroom --help)\n";
        return headroom::cli::kExitError;
#endif
    }
    std::unique_ptr<QGuiApplication> app;
    const auto startGui = [&] {
        // The report needs no display: without one it draws on the offscreen platform.
        if (!display && std::getenv("QT_QPA_PLATFORM") == nullptr)
            setenv("QT_QPA_PLATFORM", "offscreen", 1);
        qInstallMessageHandler(quietQtMessages);
        app = std::make_unique<QGuiApplication>(argc, argv);
    };
    return headroom::cli::run(args, argv[0], std::cout, std::cerr, startGui);
}

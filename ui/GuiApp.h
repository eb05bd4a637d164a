#pragma once

#include <QString>

namespace headroom::ui {

/// Runs the desktop application: creates the QApplication (names, desktop file name, icon, the
/// translation for the system locale), shows the main window on `fileToOpen` (a model file) or,
/// if empty, on the default preset, and runs the event loop. Returns the exit code.
int runGuiApp(int argc, char** argv, const QString& fileToOpen);

} // namespace headroom::ui

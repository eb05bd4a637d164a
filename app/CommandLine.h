#pragma once

#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

namespace headroom::cli {

/// Exit codes of the command line.
constexpr int kExitOk = 0;
constexpr int kExitDoesNotFit = 1; ///< `plan` when no set-up reaches the goal
/// `report` when the plan cannot be estimated: the PDF is written and says why (a result, not an error).
constexpr int kExitNoEstimate = 1;
constexpr int kExitError = 2;

/// True if `args` (argv without the program name) is for the command line rather than the GUI:
/// anything but nothing or a file to open. A subcommand, an option, a folder, and a mistyped command,
/// which run() reports as an error. A model's path that does not exist (a name ending in .json or
/// .onnx, or a path with a folder) opens the GUI when `displayAvailable`, which says the file is not
/// there and shows the default model, as a file manager's "Open with" expects; without a display it
/// is an error on the command line, where a window would wait forever.
[[nodiscard]] bool isCommandLineInvocation(const std::vector<std::string>& args, bool displayAvailable);

/// Runs `headroom <args>`; output to `out`, one-line errors to `err`. `executablePath` locates
/// the resources. The `report` command draws with QPainter: it calls `startGui` (which must create
/// a QGuiApplication) once its arguments and model have been checked.
int run(const std::vector<std::string>& args, const std::string& executablePath, std::ostream& out,
    std::ostream& err, const std::function<void()>& startGui = {});

/// The commands as a sentence: "estimate, max-batch, plan, compare, report or gpus".
[[nodiscard]] std::string commandListText();
/// The --help text.
[[nodiscard]] std::string helpText();
/// `headroom COMMAND --help`: the command's usage and the options it takes.
[[nodiscard]] std::string commandHelpText(const std::string& command);

} // namespace headroom::cli

#pragma once

#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

namespace headroom::cli {

/// Exit codes of the command line.
constexpr int kExitOk = 0;
constexpr int kExitDoesNotFit = 1; ///< `estimate` when the plan does not fit (only with --fail-if-over)
constexpr int kExitError = 2;

/// True if `args` (argv without the program name) asks for a command-line action rather than the
/// GUI: a subcommand, --help or --version.
[[nodiscard]] bool isCommandLineInvocation(const std::vector<std::string>& args);

/// Runs `headroom <args>`; output to `out`, one-line errors to `err`. `executablePath` locates
/// the resources. The `report` command draws with QPainter: it calls `startGui` (which must create
/// a QGuiApplication) once its arguments and model have been checked.
int run(const std::vector<std::string>& args, const std::string& executablePath, std::ostream& out, std::ostream& err,
        const std::function<void()>& startGui = {});

/// The --help text.
[[nodiscard]] std::string helpText();

} // namespace headroom::cli

// `headroom COMMAND ...`: finds the command (Command.h; each in a file of its own), reads its options
// (Options.h) and runs it; `headroom --help` is put together from the commands and the options.
#include "CommandLine.h"

#include "Command.h"
#include "TerminalStream.h"
#include "headroom/analysis/Analysis.h"
#include "headroom/support/Format.h"

#include <algorithm>
#include <filesystem>
#include <new>
#include <ostream>

namespace headroom::cli {

namespace {

/// Where `headroom --help` starts a command's summary.
constexpr std::size_t kSummaryColumn = 34;

/// `headroom help COMMAND` is no command of its own but takes the place of one.
std::vector<std::string> commandNames()
{
    std::vector<std::string> names;
    for (const Command* command : commands())
        names.emplace_back(command->name);
    names.emplace_back("help");
    return names;
}

bool isHelpOption(const std::string& arg)
{
    return arg == "--help" || arg == "-h";
}

bool isCommand(const std::string& arg)
{
    const auto names = commandNames();
    return std::find(names.begin(), names.end(), arg) != names.end();
}

/// "  headroom plan FILE ...", its continuation lines, and the summary beside its last line or under it.
std::string usageEntry(const Command& command)
{
    const std::string prefix = "  headroom " + std::string(command.name) + " ";
    const auto usage = textLines(command.usage);
    std::string text;
    for (std::size_t i = 0; i < usage.size(); ++i) {
        const std::string line = (i == 0 ? prefix : std::string(prefix.size(), ' ')) + usage[i];
        if (i + 1 < usage.size())
            text += line + '\n';
        else if (line.size() < kSummaryColumn)
            text += line + std::string(kSummaryColumn - line.size(), ' ');
        else
            text += line + '\n' + std::string(kSummaryColumn, ' ');
    }
    const auto summary = textLines(command.summary);
    for (std::size_t i = 0; i < summary.size(); ++i)
        text += (i == 0 ? std::string() : std::string(kSummaryColumn, ' ')) + summary[i] + '\n';
    return text;
}

/// Every option, under the headings of their groups.
std::string allOptionsHelp()
{
    std::string text;
    for (const auto group :
        { OptionGroup::General, OptionGroup::Strategy, OptionGroup::Planning, OptionGroup::Measured }) {
        text += group == OptionGroup::Planning
            ? "\nPlanning (plan and compare; the options above are the set-up plan starts from):\n"
            : "\n" + std::string(groupHeading(group)) + "\n";
        for (const auto& spec : allOptions()) {
            if (spec.group == group)
                text += optionHelpLines(spec, spec.help);
        }
    }
    return text;
}

/// Why `first` (neither a command nor an option) does not start anything: a typo of a command, a
/// folder, or a file that does not exist.
std::string notACommand(const std::string& first)
{
    std::string commands;
    for (const auto& c : commandNames())
        commands += (commands.empty() ? "" : ", ") + c;
    std::error_code ec;
    if (std::filesystem::is_directory(first, ec))
        return quoteForMessage(first) + " is a folder; give a model file to open, or a command (" + commands
            + ")";
    std::string message
        = quoteForMessage(first) + " is neither a command nor an existing file; the commands are " + commands;
    if (first.size() < 64) {
        for (const auto& c : commandNames()) {
            if (editDistance(first, c) <= 2)
                return message + " (did you mean " + c + "?)";
        }
    }
    return message + " (see headroom --help)";
}

/// One line on a terminal, whatever the message holds: bytes that are not UTF-8 and control
/// characters (a newline in a file name) escaped.
std::string printableLine(const std::string& message)
{
    std::string line;
    for (const char c : escapeInvalidUtf8(message)) {
        if (static_cast<unsigned char>(c) < 0x20) {
            static constexpr char kDigits[] = "0123456789abcdef";
            line += std::string { '\\', 'x', kDigits[(c >> 4) & 0xF], kDigits[c & 0xF] };
        } else {
            line += c;
        }
    }
    return line;
}

/// The help and version requests, and `headroom help COMMAND`; false for anything else.
bool printHelpOrVersion(const std::vector<std::string>& args, std::ostream& out)
{
    if (args.empty() || isHelpOption(args.front())) {
        out << helpText();
        return true;
    }
    if (args.front() == "help") {
        if (args.size() > 1 && !isCommand(args[1]))
            throw UsageError { "help: " + notACommand(args[1]) };
        out << (args.size() > 1 ? commandHelpText(args[1]) : helpText());
        return true;
    }
    if (args.front() == "--version") {
        out << "headroom " HEADROOM_VERSION "\n";
        return true;
    }
    return false;
}

} // namespace

std::string commandListText()
{
    std::string text;
    const auto& all = commands();
    for (std::size_t i = 0; i < all.size(); ++i)
        text += (i == 0 ? "" : i + 1 == all.size() ? " or " : ", ") + std::string(all[i]->name);
    return text;
}

std::string helpText()
{
    std::string text = "Headroom " HEADROOM_VERSION " - GPU memory planner for deep-learning training\n"
                       "\n"
                       "Usage:\n"
                       "  headroom [FILE]                 open the GUI (on FILE, or on the VGG-16 preset)\n";
    for (const Command* command : commands())
        text += usageEntry(*command);
    text += "  headroom --help | --version\n"
            "  headroom COMMAND --help         a command's usage and options\n";
    return text + allOptionsHelp() + "\n" + kFileParagraph;
}

std::string commandHelpText(const std::string& command)
{
    const Command* found = findCommand(command);
    return found != nullptr ? found->help() : helpText();
}

namespace {

/// A name that means a model file: its extension, or a folder in the path.
bool looksLikeModelPath(const std::string& arg)
{
    const std::filesystem::path path(arg);
    std::string ext = path.extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(),
        [](unsigned char c) { return static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c); });
    return ext == ".json" || ext == ".onnx" || arg.find('/') != std::string::npos;
}

} // namespace

bool isCommandLineInvocation(const std::vector<std::string>& args, bool displayAvailable)
{
    if (args.empty())
        return false;
    const std::string& first = args.front();
    if (first.starts_with("-") || isCommand(first))
        return true;
    std::error_code ec;
    if (std::filesystem::exists(first, ec))
        return std::filesystem::is_directory(first, ec);
    // Not there: a model's path is for the GUI to say so, where there is a screen to say it on; a bare
    // word is more likely a mistyped command.
    return !(displayAvailable && args.size() == 1 && looksLikeModelPath(first));
}

namespace {

int runCommand(const std::vector<std::string>& args, const std::string& executablePath, std::ostream& out,
    std::ostream& err, const std::function<void()>& startGui)
{
    const auto fail = [&](const std::string& message) {
        err << "headroom: error: " << printableLine(message) << '\n';
        return kExitError;
    };
    try {
        if (printHelpOrVersion(args, out))
            return kExitOk;
        const Command* command = findCommand(args.front());
        if (command == nullptr) {
            if (args.front().starts_with("-"))
                throw UsageError { "unknown option " + quoteForMessage(args.front())
                    + " (see headroom --help)" };
            throw UsageError { notACommand(args.front()) };
        }
        if (std::any_of(args.begin() + 1, args.end(), isHelpOption)) {
            out << command->help();
            return kExitOk;
        }
        const Options options = parseOptions(args, *command);
        return command->run(options, CommandContext { executablePath, out, err, startGui });
    } catch (const UsageError& e) {
        // The core names a layer by its JSON path in the file; the number every view shows goes with it.
        return fail(withLayerNumbers(e.message));
    } catch (const std::bad_alloc&) {
        return fail("out of memory");
    } catch (const std::exception& e) {
        // A bug, not the user's input: still one line and exit code 2, never an abort.
        return fail(std::string("internal error: ") + e.what());
    } catch (...) {
        return fail("internal error");
    }
}

} // namespace

int run(const std::vector<std::string>& args, const std::string& executablePath, std::ostream& out,
    std::ostream& err, const std::function<void()>& startGui)
{
    // Names come from files: a control character in one is shown escaped, never sent to the terminal.
    TerminalSafeStream safeOut(out);
    TerminalSafeStream safeErr(err);
    return runCommand(args, executablePath, safeOut, safeErr, startGui);
}

} // namespace headroom::cli

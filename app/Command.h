#pragma once

#include "CommandLine.h"
#include "Options.h"

#include <functional>
#include <initializer_list>
#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

namespace headroom::cli {

/// What a command runs with besides its options.
struct CommandContext final
{
    const std::string& executablePath; ///< locates the resources
    std::ostream& out;
    std::ostream& err;
    /// Creates the QGuiApplication that `report` draws with, once its arguments have been checked.
    const std::function<void()>& startGui;
};

/// One option a command takes, with the command's own help for it where the shared one
/// (allOptions()) speaks of other commands.
struct CommandOption final
{
    std::string_view name;
    std::string help = {}; ///< empty: the option's shared help
};

/// An option a command refuses for a reason of its own (`plan --batch`: plan chooses the batch).
struct RefusedOption final
{
    std::string_view name;
    std::string_view reason;
};

/// One subcommand of `headroom`, as KeePassXC's cli/ has one: its name, its help, the options it
/// takes and what it runs. Each lives in a file of its own (EstimateCommand.cpp, ...).
struct Command final
{
    std::string_view name;
    /// The arguments after `headroom NAME`; each line after the first continues the usage.
    std::string_view usage;
    /// What `headroom --help` says of it, under its usage (lines of at most 44 characters).
    std::string_view summary;
    /// The paragraph `headroom NAME --help` prints under its usage.
    std::string_view description;
    bool takesFile = true;
    /// Every option the command takes; any other is an error naming the command.
    std::vector<CommandOption> options;
    std::vector<RefusedOption> refused = {};
    /// Checks between its options that only this command has (run after the shared checks), or null.
    void (*check)(const Options& o) = nullptr;
    int (*run)(const Options& o, const CommandContext& context) = nullptr;

    [[nodiscard]] bool takes(std::string_view option) const;
    /// The `headroom NAME --help` text: usage, description, and exactly the options it takes.
    [[nodiscard]] std::string help() const;
};

/// The commands, in the order `headroom --help` lists them.
[[nodiscard]] const std::vector<const Command*>& commands();
/// The command named `name`, or null.
[[nodiscard]] const Command* findCommand(std::string_view name);

/// The options that describe the set-up (the model's training, the GPU), which every command over a
/// model takes, less `except`, followed by `extra`.
[[nodiscard]] std::vector<CommandOption> setupOptions(
    std::initializer_list<std::string_view> except, std::vector<CommandOption> extra);

/// "a\nb" -> {"a", "b"}.
[[nodiscard]] std::vector<std::string> textLines(std::string_view text);
/// The section headings of an option list, and the help's paragraph about FILE.
[[nodiscard]] std::string_view groupHeading(OptionGroup group);
extern const char* const kFileParagraph;
/// "  --gpu NAME            a unique part ...": one option's help lines.
[[nodiscard]] std::string optionHelpLines(const OptionSpec& spec, const std::string& help);

// The commands, each defined in its own file.
[[nodiscard]] const Command& estimateCommand();
[[nodiscard]] const Command& maxBatchCommand();
[[nodiscard]] const Command& planCommand();
[[nodiscard]] const Command& compareCommand();
[[nodiscard]] const Command& reportCommand();
[[nodiscard]] const Command& measuredCommand();
[[nodiscard]] const Command& gpusCommand();

} // namespace headroom::cli

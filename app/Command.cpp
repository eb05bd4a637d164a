#include "Command.h"

#include <algorithm>

namespace headroom::cli {

namespace {

/// Where an option's help starts: two spaces, then its synopsis in a column this wide.
constexpr std::size_t kOptionColumn = 22;

/// `text`'s lines, each after the first indented by `indent` spaces, each ending in a newline.
std::string continued(std::string_view text, std::size_t indent)
{
    std::string result;
    for (const auto& line : textLines(text))
        result += (result.empty() ? std::string() : std::string(indent, ' ')) + line + '\n';
    return result;
}

} // namespace

const char* const kFileParagraph
    = "FILE is a Headroom model file (docs/model-format.md), an ONNX model (.onnx) or a Hugging Face\n"
      "config.json. A set-up saved in a model file is where the options start from; a switch listed as\n"
      "--[no-]X turns the file's setting on with --X and off with --no-X. Memory is per GPU. Errors go\n"
      "to stderr as one line, with exit code 2; warnings (assumptions behind the numbers, such as an\n"
      "ONNX operator Headroom models generically) go to stderr too.\n";

std::vector<std::string> textLines(std::string_view text)
{
    std::vector<std::string> lines;
    std::size_t start = 0;
    while (true) {
        const std::size_t end = text.find('\n', start);
        lines.emplace_back(
            text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
        if (end == std::string_view::npos)
            return lines;
        start = end + 1;
    }
}

std::string_view groupHeading(OptionGroup group)
{
    switch (group) {
    case OptionGroup::General:
        return "Options (defaults in brackets):";
    case OptionGroup::Strategy:
        return "Training strategies:";
    case OptionGroup::Planning:
        return "Planning:";
    case OptionGroup::Measured:
        return "Measured run:";
    }
    return {};
}

std::string optionHelpLines(const OptionSpec& spec, const std::string& help)
{
    std::string first = "  " + spec.synopsis();
    const std::size_t width = 2 + kOptionColumn;
    first += std::string(first.size() + 2 <= width ? width - first.size() : 2, ' '); // two spaces at least
    return first + continued(help, width);
}

bool Command::takes(std::string_view option) const
{
    const OptionSpec* spec = findOption(option);
    return spec != nullptr && std::any_of(options.begin(), options.end(), [&](const CommandOption& o) {
        return o.name == spec->name;
    });
}

std::string Command::help() const
{
    const std::string prefix = "Usage: headroom " + std::string(name) + " ";
    std::string text = prefix + continued(usage, prefix.size()) + "\n" + std::string(description);
    for (const auto group :
        { OptionGroup::General, OptionGroup::Strategy, OptionGroup::Planning, OptionGroup::Measured }) {
        std::string lines;
        for (const auto& spec : allOptions()) {
            const auto own = std::find_if(
                options.begin(), options.end(), [&](const CommandOption& o) { return o.name == spec.name; });
            if (spec.group == group && own != options.end())
                lines += optionHelpLines(spec, own->help.empty() ? spec.help : own->help);
        }
        if (!lines.empty())
            text += "\n" + std::string(groupHeading(group)) + "\n" + lines;
    }
    if (takesFile)
        text += std::string("\n") + kFileParagraph;
    return text;
}

const std::vector<const Command*>& commands()
{
    static const std::vector<const Command*> all { &estimateCommand(), &maxBatchCommand(), &planCommand(),
        &compareCommand(), &reportCommand(), &measuredCommand(), &gpusCommand() };
    return all;
}

const Command* findCommand(std::string_view name)
{
    for (const Command* command : commands()) {
        if (command->name == name)
            return command;
    }
    return nullptr;
}

std::vector<CommandOption> setupOptions(
    std::initializer_list<std::string_view> except, std::vector<CommandOption> extra)
{
    std::vector<CommandOption> options;
    for (const auto& spec : allOptions()) {
        const bool setup = spec.group == OptionGroup::Strategy
            || (spec.group == OptionGroup::General && spec.name != "--json" && spec.name != "--output"
                && spec.name != "--save-setup");
        if (setup && std::find(except.begin(), except.end(), spec.name) == except.end())
            options.push_back({ spec.name });
    }
    options.insert(
        options.end(), std::make_move_iterator(extra.begin()), std::make_move_iterator(extra.end()));
    return options;
}

} // namespace headroom::cli

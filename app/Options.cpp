#include "Options.h"

#include "Command.h"
#include "headroom/support/Format.h"

#include <algorithm>
#include <utility>

namespace headroom::cli {

namespace {

/// Keeps the effective batch (micro-batch x steps x GPUs, each within the core's limits) in 64 bits.
constexpr std::int64_t kMaxStepsTimesGpus = 1LL << 31;

/// "plan, compare and report": the commands that take `option`, in the help's order.
std::string ownersOf(std::string_view option)
{
    std::vector<std::string_view> owners;
    for (const Command* command : commands()) {
        if (command->takes(option))
            owners.push_back(command->name);
    }
    std::string text;
    for (std::size_t i = 0; i < owners.size(); ++i)
        text += (i == 0 ? "" : i + 1 == owners.size() ? " and " : ", ") + std::string(owners[i]);
    return text;
}

/// An option the command does not take is an error that names the command (and, when it has one,
/// its reason).
void checkCommandOptions(const Options& o, const Command& command)
{
    for (const auto& option : o.given) {
        if (command.takes(option))
            continue;
        const OptionSpec* spec = findOption(option);
        for (const auto& [name, reason] : command.refused) {
            if (spec != nullptr && spec->name == name)
                throw UsageError { std::string(reason) };
        }
        throw UsageError { option + " is an option of headroom " + ownersOf(option) + ", not of "
            + o.command };
    }
    if (command.check)
        command.check(o);
}

/// The parallel layout's own rules (validateSetup's), as a usage error naming the option.
void checkParallelism(const Options& o)
{
    TrainingSetup setup;
    setup.parallel = o.parallel;
    setup.parallel.offloadOptimizer = false; // checked with the rest of the set-up, once the model is read
    setup.accumulationSteps = o.accumulationSteps;
    if (auto problem = validateSetup(setup))
        throw UsageError { optionOfSetting(problem->location) + ": " + problem->message };
}

} // namespace

void checkOptionCombinations(const Options& o)
{
    // plan may add LoRA: --lora-targets and --lora-dropout then say how.
    if (!o.lora.enabled() && !(o.command == "plan" && o.allow.lora)) {
        if (o.lora.quantizeBase)
            throw UsageError { "--qlora needs --lora-rank (the adapters' rank)" };
        if (o.loraTargetsGiven)
            throw UsageError { "--lora-targets needs --lora-rank" };
        if (o.loraDropoutGiven)
            throw UsageError { "--lora-dropout needs --lora-rank" };
    }
    if (o.parallel.tensorParallel > o.parallel.gpus || o.parallel.gpus % o.parallel.tensorParallel != 0)
        throw UsageError { "--tensor-parallel " + std::to_string(o.parallel.tensorParallel)
            + " must divide --gpus " + std::to_string(o.parallel.gpus) };
    checkParallelism(o);
    if (o.accumulationSteps * o.parallel.gpus > kMaxStepsTimesGpus)
        throw UsageError { "--accumulation-steps x --gpus must be at most "
            + std::to_string(kMaxStepsTimesGpus) };
}

namespace {

/// Options `plan` never changes: each planned set-up's `headroom estimate` repeats them as given.
bool isKept(std::string_view option)
{
    static constexpr std::string_view kKept[] = { "--optimizer", "--overhead-mib", "--gpu-memory-gib",
        "--attention", "--sequence-length", "--moe-imbalance", "--freeze", "--utilization", "--gpus-per-node",
        "--inter-node-gbps", "--calibration-fixed", "--calibration-per-sample" };
    return std::find(std::begin(kKept), std::end(kKept), option) != std::end(kKept);
}

} // namespace

/// The option a set-up's setting comes from ("parallel.pipeline_parallel": --pipeline-parallel).
std::string optionOfSetting(const std::string& location)
{
    static constexpr std::pair<std::string_view, std::string_view> kOptions[]
        = { { "parallel.pipeline_parallel", "--pipeline-parallel" }, { "parallel.schedule", "--schedule" },
              { "parallel.virtual_stages", "--virtual-stages" },
              { "parallel.stage_layers", "--stage-layers" },
              { "parallel.context_parallel", "--context-parallel" },
              { "parallel.sequence_parallel", "--sequence-parallel" },
              { "parallel.expert_parallel", "--expert-parallel" },
              { "parallel.expert_tensor_parallel", "--expert-tensor-parallel" },
              { "parallel.sharding", "--sharding" }, { "accumulation_steps", "--accumulation-steps" },
              { "parallel.tensor_parallel", "--tensor-parallel" },
              { "parallel.activation_offload", "--offload-activations" },
              { "parallel.context_parallel_kind", "--context-parallel-kind" } };
    for (const auto& [setting, option] : kOptions)
        if (location.starts_with(setting))
            return std::string { option };
    return location;
}

bool wasGiven(const Options& o, std::string_view option)
{
    const OptionSpec* spec = findOption(option);
    const std::string off = spec != nullptr ? spec->offName() : std::string();
    return std::any_of(o.given.begin(), o.given.end(),
        [&](const std::string& given) { return given == option || (!off.empty() && given == off); });
}

namespace {

/// `--qlora --no-qlora`: a switch both turned on and off is a mistake, not "the last one wins".
void checkSwitchesAgree(const Options& o)
{
    for (const auto& spec : allOptions()) {
        if (spec.turnOff == nullptr)
            continue;
        const std::string off = spec.offName();
        const auto typed = [&](std::string_view name) {
            return std::find(o.given.begin(), o.given.end(), name) != o.given.end();
        };
        if (typed(spec.name) && typed(off))
            throw UsageError { std::string(spec.name) + " and " + off
                + " contradict each other: give one of them" };
    }
}

} // namespace

Options parseOptions(const std::vector<std::string>& args, const Command& command)
{
    Options o;
    o.command = args.at(0);
    std::vector<std::string> positional;
    for (std::size_t i = 1; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a.starts_with("-"))
            o.given.push_back(a);
        // What the planner keeps as given (checked below like every option).
        if (i + 1 < args.size() && isKept(a))
            o.kept.insert(o.kept.end(), { a, args[i + 1] });
        if (a == "--expandable-segments" || a == "--no-expandable-segments") // kept too, without a value
            o.kept.push_back(a);
        if (i + 1 < args.size() && (a == "--lora-targets" || a == "--lora-dropout"))
            o.keptLora.insert(o.keptLora.end(), { a, args[i + 1] });
        const OptionSpec* spec = findOption(a);
        if (spec != nullptr) {
            if (spec->takesValue() && i + 1 >= args.size())
                throw UsageError { a + " needs a value" };
            if (spec->turnOff != nullptr && a == spec->offName())
                spec->turnOff(o);
            else
                spec->apply(o, a, spec->takesValue() ? args[++i] : std::string());
        } else if (a.starts_with("-")) {
            throw UsageError { "unknown option " + quoteForMessage(a) + " (see headroom " + o.command
                + " --help)" };
        } else {
            positional.push_back(a);
        }
    }
    if (command.takesFile && positional.empty())
        throw UsageError { o.command
            + (o.command == "measured" ? " needs a recorded run's file (see headroom measured --help)"
                                       : " needs a model file (see headroom --help)") };
    if (positional.size() > (command.takesFile ? 1U : 0U))
        throw UsageError { "unexpected argument " + quoteForMessage(positional.back()) };
    if (command.takesFile)
        o.file = positional.front();
    if (o.command == "report" && o.output.empty())
        throw UsageError { "report needs -o OUT.pdf" };
    if (o.gpuGiven && o.customMemoryBytes)
        throw UsageError { "--gpu and --gpu-memory-gib both choose the GPU: give one of them" };
    checkCommandOptions(o, command);
    checkSwitchesAgree(o);
    // A plan of a model file is checked once the set-up saved in the file is known (makePlan).
    const bool plansModelFile = (command.takesFile && o.command != "measured") || !o.model.empty();
    if (!plansModelFile)
        checkOptionCombinations(o);
    return o;
}

} // namespace headroom::cli

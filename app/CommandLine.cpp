#include "CommandLine.h"

#include "PlanText.h"     // ui/report
#include "TextTable.h"
#include "ReportWriter.h" // ui/report
#include "headroom/Format.h"
#include "headroom/Freeze.h"
#include "headroom/GpuCatalog.h"
#include "headroom/NetworkFile.h"
#include "headroom/Plan.h"
#include "headroom/Planner.h"
#include "headroom/Resources.h"
#include "headroom/Throughput.h"
#include "headroom/Training.h"

#include <QString>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <iomanip>
#include <map>
#include <new>
#include <optional>
#include <ostream>
#include <span>
#include <sstream>

namespace headroom::cli {

namespace {

/// A catalogue figure as the stream prints it: 320, 8.873.
std::string shortNumber(double value)
{
    std::ostringstream text;
    text << value;
    return text.str();
}

/// Keeps the effective batch (micro-batch x steps x GPUs, each within the core's limits) in 64 bits.
constexpr std::int64_t kMaxStepsTimesGpus = 1LL << 31;

struct Options {
    std::string command;
    std::string file;
    std::string gpu{kDefaultGpuName};
    bool gpuGiven = false;
    Optimizer optimizer = Optimizer::Adam;
    OptimizerImplementation optimizerImplementation = OptimizerImplementation::Foreach;
    Precision precision = Precision::Fp32;
    std::int64_t batch = kDefaultBatch;
    std::uint64_t overheadBytes = kDefaultOverheadBytes;
    std::optional<std::uint64_t> customMemoryBytes;
    std::string output;
    bool json = false;
    // Training strategies (issue #7); defaults as in Plan and TrainingSetup.
    Checkpointing checkpointing = Checkpointing::None;
    std::optional<Loss> loss; ///< the model's own loss when not given
    AttentionImplementation attention = AttentionImplementation::Sdpa;
    std::optional<std::int64_t> sequenceLength;
    double moeImbalance = 1.0;
    std::vector<std::string> freeze;
    LoraOptions lora;
    bool loraTargetsGiven = false;
    bool loraDropoutGiven = false;
    std::int64_t accumulationSteps = 1;
    Parallelism parallel;
    bool eightBitOptimizer = false;
    double utilization = TrainingSetup{}.assumedUtilization;
    // plan and compare (issue #18).
    std::optional<std::int64_t> targetBatch;
    std::optional<double> maxStepSeconds;
    PlanAllowances allow;
    bool listAll = false;
    bool includePlan = false; ///< report: add the planner's table
    std::vector<std::string> gpuList;
    /// Options `plan` never changes, as given: each planned set-up's `headroom estimate` repeats them.
    std::vector<std::string> kept;
    std::vector<std::string> keptLora; ///< --lora-targets and --lora-dropout: repeated where LoRA is on
    std::vector<std::string> given;    ///< every option named, for the per-command checks
};

/// A command-line error: printed as one line, exit code 2.
struct UsageError {
    std::string message;
};

std::string optimizerChoices()
{
    std::string s;
    for (const auto o : allOptimizers())
        s += (s.empty() ? "" : "|") + std::string(optimizerName(o));
    return s;
}

std::optional<std::int64_t> parseInteger(const std::string& text)
{
    std::int64_t value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc{} || end != text.data() + text.size())
        return std::nullopt;
    return value;
}

/// A finite decimal number ("0.25", "1e-3"); nan, inf and text with anything after the number are not.
/// A value too small for a double ("1e-400") is 0, as it is for every option's purpose.
std::optional<double> parseNumber(const std::string& text)
{
    const char* first = text.data();
    const char* last = text.data() + text.size();
    double value = 0;
    const auto [end, ec] = std::from_chars(first, last, value);
    if (end != last || (ec != std::errc{} && ec != std::errc::result_out_of_range))
        return std::nullopt;
    if (ec == std::errc::result_out_of_range)
        value = std::strtod(text.c_str(), nullptr); // 0 on underflow, infinite on overflow
    if (!std::isfinite(value))
        return std::nullopt;
    return value;
}

template <typename Enum>
std::string choices(std::span<const Enum> all, std::string_view (*nameOf)(Enum) noexcept)
{
    std::string s;
    for (const Enum e : all)
        s += (s.empty() ? "" : "|") + std::string(nameOf(e));
    return s;
}

std::int64_t integerOption(const std::string& option, const std::string& text, std::int64_t min, std::int64_t max)
{
    const auto parsed = parseInteger(text);
    if (!parsed || *parsed < min || *parsed > max)
        throw UsageError{option + " must be an integer from " + std::to_string(min) + " to " + std::to_string(max)
                         + ", not " + quoteForMessage(text)};
    return *parsed;
}

/// "q_proj,v_proj" -> {"q_proj", "v_proj"}; an empty entry is an error.
std::vector<std::string> listOption(const std::string& option, const std::string& text)
{
    std::vector<std::string> items;
    std::size_t start = 0;
    while (true) {
        const std::size_t comma = text.find(',', start);
        std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        const auto first = item.find_first_not_of(" \t");
        const auto last = item.find_last_not_of(" \t");
        item = first == std::string::npos ? std::string{} : item.substr(first, last - first + 1);
        if (item.empty())
            throw UsageError{option + " must be a comma-separated list of layer names, not "
                             + quoteForMessage(text)};
        items.push_back(std::move(item));
        if (comma == std::string::npos)
            break;
        start = comma + 1;
    }
    return items;
}

/// The longest step time --max-step-seconds takes: a week.
constexpr double kMaxStepSeconds = 7 * 24 * 3600.0;

bool wasGiven(const Options& o, std::string_view option)
{
    return std::find(o.given.begin(), o.given.end(), option) != o.given.end();
}

/// Options that belong to one command are an error on another.
void checkCommandOptions(const Options& o)
{
    struct OwnedOption {
        std::string_view option;
        std::vector<std::string_view> commands;
    };
    static const std::vector<OwnedOption> owned{{"--target-batch", {"plan", "compare", "report"}},
                                                {"--max-step-seconds", {"plan", "report"}},
                                                {"--allow", {"plan", "report"}},
                                                {"--all", {"plan"}},
                                                {"--gpus-list", {"compare"}},
                                                {"--include-plan", {"report"}}};
    for (const auto& [option, commands] : owned) {
        if (wasGiven(o, option) && std::find(commands.begin(), commands.end(), o.command) == commands.end()) {
            std::string owners;
            for (std::size_t i = 0; i < commands.size(); ++i)
                owners += (i == 0 ? "" : i + 1 == commands.size() ? " and " : ", ") + std::string(commands[i]);
            throw UsageError{std::string(option) + " is an option of headroom " + owners + ", not of " + o.command};
        }
    }
    if (o.command == "report" && !o.includePlan) {
        for (const char* option : {"--target-batch", "--max-step-seconds", "--allow"}) {
            if (wasGiven(o, option))
                throw UsageError{std::string(option) + " on report is the goal of the planner's table: it needs --include-plan"};
        }
    }
    if (o.command == "plan" && wasGiven(o, "--batch"))
        throw UsageError{"plan chooses the micro-batch: give the goal with --target-batch instead of --batch"};
    if (o.command == "compare" && (wasGiven(o, "--gpu") || wasGiven(o, "--gpu-memory-gib")))
        throw UsageError{"compare runs the set-up on every GPU of the catalogue: choose some with --gpus-list, not "
                         + std::string(wasGiven(o, "--gpu") ? "--gpu" : "--gpu-memory-gib")};
}

Options parseOptions(const std::vector<std::string>& args)
{
    Options o;
    o.command = args.at(0);
    std::vector<std::string> positional;
    for (std::size_t i = 1; i < args.size(); ++i) {
        const std::string& a = args[i];
        const auto value = [&]() -> const std::string& {
            if (i + 1 >= args.size())
                throw UsageError{a + " needs a value"};
            return args[++i];
        };
        if (a.starts_with("-"))
            o.given.push_back(a);
        // What the planner keeps as given (checked below like every option).
        static const std::vector<std::string> keptOptions{"--optimizer", "--overhead-mib", "--gpu-memory-gib",
            "--attention", "--sequence-length", "--moe-imbalance", "--freeze", "--utilization"};
        if (i + 1 < args.size() && std::find(keptOptions.begin(), keptOptions.end(), a) != keptOptions.end())
            o.kept.insert(o.kept.end(), {a, args[i + 1]});
        if (i + 1 < args.size() && (a == "--lora-targets" || a == "--lora-dropout"))
            o.keptLora.insert(o.keptLora.end(), {a, args[i + 1]});
        if (a == "--json") {
            o.json = true;
        } else if (a == "--gpu") {
            o.gpu = value();
            o.gpuGiven = true;
        } else if (a == "--optimizer") {
            const auto parsed = parseOptimizer(value());
            if (!parsed)
                throw UsageError{"--optimizer must be one of " + optimizerChoices() + ", not "
                                 + quoteForMessage(args[i])};
            o.optimizer = *parsed;
        } else if (a == "--optimizer-impl") {
            const auto parsed = parseOptimizerImplementation(value());
            if (!parsed)
                throw UsageError{"--optimizer-impl must be one of foreach|fused|for-loop, not \"" + args[i] + "\""};
            o.optimizerImplementation = *parsed;
        } else if (a == "--precision") {
            const auto parsed = parsePrecision(value());
            if (!parsed)
                throw UsageError{"--precision must be one of fp32|amp-fp16|amp-bf16|fp16|bf16, not "
                                 + quoteForMessage(args[i])};
            o.precision = *parsed;
        } else if (a == "--batch") {
            const auto parsed = parseInteger(value());
            if (!parsed || *parsed < 1 || *parsed > kMaxBatch)
                throw UsageError{"--batch must be an integer from 1 to " + std::to_string(kMaxBatch) + ", not "
                                 + quoteForMessage(args[i])};
            o.batch = *parsed;
        } else if (a == "--overhead-mib") {
            const auto parsed = parseNumber(value());
            if (!parsed || *parsed < 0 || *parsed > 1024.0 * 1024.0)
                throw UsageError{"--overhead-mib must be a number of MiB from 0 to 1048576, not "
                                 + quoteForMessage(args[i])};
            o.overheadBytes = static_cast<std::uint64_t>(*parsed * static_cast<double>(kMiB));
        } else if (a == "--gpu-memory-gib") {
            const auto parsed = parseNumber(value());
            if (!parsed || !(*parsed >= kMinCustomGpuGiB && *parsed <= kMaxCustomGpuGiB))
                throw UsageError{"--gpu-memory-gib must be a number of GiB from " + shortNumber(kMinCustomGpuGiB) + " to "
                                 + shortNumber(kMaxCustomGpuGiB) + ", not " + quoteForMessage(args[i])};
            o.customMemoryBytes = static_cast<std::uint64_t>(*parsed * static_cast<double>(kGiB));
        } else if (a == "-o" || a == "--output") {
            o.output = value();
        } else if (a == "--checkpointing") {
            const auto parsed = parseCheckpointing(value());
            if (!parsed)
                throw UsageError{"--checkpointing must be one of " + choices(allCheckpointings(), checkpointingName)
                                 + ", not " + quoteForMessage(args[i])};
            o.checkpointing = *parsed;
        } else if (a == "--loss") {
            const auto parsed = parseLoss(value());
            if (!parsed)
                throw UsageError{"--loss must be one of " + choices(allLosses(), lossName) + ", not \"" + args[i] + "\""};
            o.loss = *parsed;
        } else if (a == "--attention") {
            const auto parsed = parseAttention(value());
            if (!parsed)
                throw UsageError{"--attention must be sdpa or eager, not " + quoteForMessage(args[i])};
            o.attention = *parsed;
        } else if (a == "--sequence-length") {
            o.sequenceLength = integerOption(a, value(), 1, kMaxBatch);
        } else if (a == "--moe-imbalance") {
            const auto parsed = parseNumber(value());
            if (!parsed || !(*parsed >= 1 && *parsed <= kMaxMoeImbalance))
                throw UsageError{"--moe-imbalance must be a number from 1 (balanced routing) to "
                                 + shortNumber(kMaxMoeImbalance) + ", not \"" + args[i] + "\""};
            o.moeImbalance = *parsed;
        } else if (a == "--lora-rank") {
            o.lora.rank = integerOption(a, value(), 1, kMaxLoraRank);
        } else if (a == "--freeze") {
            const auto names = listOption(a, value());
            o.freeze.insert(o.freeze.end(), names.begin(), names.end());
        } else if (a == "--lora-targets") {
            o.lora.targets = listOption(a, value());
            o.loraTargetsGiven = true;
        } else if (a == "--lora-dropout") {
            const auto parsed = parseNumber(value());
            if (!parsed || !(*parsed >= 0 && *parsed < 1))
                throw UsageError{"--lora-dropout must be a probability from 0 to below 1, not "
                                 + quoteForMessage(args[i])};
            o.lora.dropout = *parsed;
            o.loraDropoutGiven = true;
        } else if (a == "--qlora") {
            o.lora.quantizeBase = true;
        } else if (a == "--accumulation-steps") {
            o.accumulationSteps = integerOption(a, value(), 1, kMaxAccumulationSteps);
        } else if (a == "--gpus") {
            o.parallel.gpus = integerOption(a, value(), 1, kMaxGpus);
        } else if (a == "--sharding") {
            const auto parsed = parseSharding(value());
            if (!parsed)
                throw UsageError{"--sharding must be one of " + choices(allShardings(), shardingName) + ", not "
                                 + quoteForMessage(args[i])};
            o.parallel.sharding = *parsed;
        } else if (a == "--tensor-parallel") {
            o.parallel.tensorParallel = integerOption(a, value(), 1, kMaxGpus);
        } else if (a == "--offload-optimizer") {
            o.parallel.offloadOptimizer = true;
        } else if (a == "--8bit-optimizer") {
            o.eightBitOptimizer = true;
        } else if (a == "--utilization") {
            const auto parsed = parseNumber(value());
            if (!parsed || !(*parsed >= kMinUtilization && *parsed <= 1))
                throw UsageError{"--utilization must be a fraction of peak from " + shortNumber(kMinUtilization)
                                 + " to 1, not " + quoteForMessage(args[i])};
            o.utilization = *parsed;
        } else if (a == "--target-batch") {
            o.targetBatch = integerOption(a, value(), 1, kMaxBatch);
        } else if (a == "--max-step-seconds") {
            const auto parsed = parseNumber(value());
            if (!parsed || !(*parsed > 0 && *parsed <= kMaxStepSeconds))
                throw UsageError{"--max-step-seconds must be a number of seconds above 0 and at most "
                                 + shortNumber(kMaxStepSeconds) + ", not " + quoteForMessage(args[i])};
            o.maxStepSeconds = *parsed;
        } else if (a == "--allow") {
            for (const auto& item : listOption(a, value())) {
                if (item == "precision")
                    o.allow.precision = true;
                else if (item == "lora")
                    o.allow.lora = true;
                else if (item == "8bit-optimizer")
                    o.allow.eightBitOptimizer = true;
                else
                    throw UsageError{"--allow: " + quoteForMessage(item)
                                     + " is not something plan may change; give precision, lora or 8bit-optimizer"};
            }
        } else if (a == "--all") {
            o.listAll = true;
        } else if (a == "--include-plan") {
            o.includePlan = true;
        } else if (a == "--gpus-list") {
            const auto names = listOption(a, value());
            o.gpuList.insert(o.gpuList.end(), names.begin(), names.end());
        } else if (a.starts_with("-")) {
            throw UsageError{"unknown option " + quoteForMessage(a) + " (see headroom " + o.command + " --help)"};
        } else {
            positional.push_back(a);
        }
    }
    const bool needsFile = o.command != "gpus";
    if (needsFile && positional.empty())
        throw UsageError{o.command + " needs a model file (see headroom --help)"};
    if (positional.size() > (needsFile ? 1U : 0U))
        throw UsageError{"unexpected argument " + quoteForMessage(positional.back())};
    if (needsFile)
        o.file = positional.front();
    if (o.command == "report" && o.output.empty())
        throw UsageError{"report needs -o OUT.pdf"};
    if (o.gpuGiven && o.customMemoryBytes)
        throw UsageError{"--gpu and --gpu-memory-gib both choose the GPU: give one of them"};
    checkCommandOptions(o);
    // plan may add LoRA: --lora-targets and --lora-dropout then say how.
    if (!o.lora.enabled() && !(o.command == "plan" && o.allow.lora)) {
        if (o.lora.quantizeBase)
            throw UsageError{"--qlora needs --lora-rank (the adapters' rank)"};
        if (o.loraTargetsGiven)
            throw UsageError{"--lora-targets needs --lora-rank"};
        if (o.loraDropoutGiven)
            throw UsageError{"--lora-dropout needs --lora-rank"};
    }
    if (o.parallel.tensorParallel > o.parallel.gpus || o.parallel.gpus % o.parallel.tensorParallel != 0)
        throw UsageError{"--tensor-parallel " + std::to_string(o.parallel.tensorParallel) + " must divide --gpus "
                         + std::to_string(o.parallel.gpus)};
    if (o.accumulationSteps * o.parallel.gpus > kMaxStepsTimesGpus)
        throw UsageError{"--accumulation-steps x --gpus must be at most " + std::to_string(kMaxStepsTimesGpus)};
    return o;
}

std::string resourceDirOrThrow(const std::string& executablePath)
{
    const auto dir = findResourceDir(executablePath);
    if (!dir)
        throw UsageError{"cannot find Headroom's data folder (gpus.json); set HEADROOM_RESOURCES"};
    return *dir;
}

GpuCatalog loadCatalog(const std::string& executablePath)
{
    auto catalog = GpuCatalog::fromFile(resourceDirOrThrow(executablePath) + "/gpus.json");
    if (!catalog)
        throw UsageError{catalog.error().message};
    return std::move(catalog).value();
}

Plan makePlan(const Options& o, const std::string& executablePath)
{
    auto network = loadNetworkFile(o.file);
    if (!network)
        throw UsageError{network.error().message};
    Plan plan;
    plan.network = std::move(network).value();
    if (o.loss)
        plan.network.loss = *o.loss;
    if (const auto frozen = freezeLayers(plan.network, o.freeze); !frozen)
        throw UsageError{"--freeze: " + frozen.error().message};
    plan.precision = o.precision;
    plan.setup.optimizer = o.optimizer;
    plan.setup.optimizerImplementation = o.optimizerImplementation;
    plan.setup.batch = o.batch;
    plan.setup.overheadBytes = o.overheadBytes;
    plan.setup.accumulationSteps = o.accumulationSteps;
    plan.setup.parallel = o.parallel;
    plan.setup.eightBitOptimizer = o.eightBitOptimizer;
    plan.setup.assumedUtilization = o.utilization;
    plan.checkpointing = o.checkpointing;
    plan.attention = o.attention;
    plan.lora = o.lora;
    plan.sequenceLength = o.sequenceLength;
    plan.moeImbalance = o.moeImbalance;
    if (o.customMemoryBytes) {
        plan.gpu.name = "Custom GPU";
        plan.gpu.vendor = "Custom";
        plan.gpu.memoryBytes = *o.customMemoryBytes;
        plan.gpu.custom = true;
    } else {
        auto gpu = loadCatalog(executablePath).find(o.gpu);
        if (!gpu)
            throw UsageError{gpu.error().message};
        plan.gpu = gpu.value();
    }
    return plan;
}

/// evaluate(), with every assumption behind the numbers (Analysis::warnings) printed to `err`.
PlanResult evaluateWithWarnings(const Plan& plan, std::ostream& err)
{
    PlanResult result = evaluate(plan);
    for (const auto& w : result.analysis.warnings)
        err << "headroom: warning: " << (w.layer.empty() ? std::string() : "layer '" + w.layer + "': ") << w.message
            << '\n';
    return result;
}

std::string percent(std::uint64_t part, std::uint64_t whole)
{
    std::ostringstream s;
    s << std::fixed << std::setprecision(1) << (whole == 0 ? 0.0 : 100.0 * static_cast<double>(part) / static_cast<double>(whole))
      << " %";
    return s.str();
}

constexpr int kKeyWidth = 17;

void keyLine(std::ostream& out, const std::string& key, const std::string& value)
{
    out << std::left << std::setw(kKeyWidth) << key << value << '\n';
}

std::string plural(std::int64_t n, const char* one, const char* many)
{
    return std::to_string(n) + ' ' + (n == 1 ? one : many);
}

/// The throughput estimate evaluate() made, or why there is none (a GPU without figures for the precision).
Result<ThroughputEstimate> throughputOf(const PlanResult& result)
{
    if (result.throughput)
        return *result.throughput;
    return result.throughputError.value_or(Error{"no throughput estimate", "throughput"});
}

void printThroughput(const Plan& plan, const PlanResult& result, std::ostream& out)
{
    using namespace report::plantext;
    const auto t = throughputOf(result);
    out << "Throughput (estimated)\n";
    if (!t) {
        keyLine(out, "  Not estimated", t.error().message);
        return;
    }
    const ThroughputEstimate& e = *t;
    keyLine(out, "  Step time", formatSeconds(e.stepSeconds) + " per optimizer step ("
                                    + (e.memoryBound ? "memory-bound" : "compute-bound") + ")");
    const std::int64_t gpus = plan.setup.parallel.gpus;
    keyLine(out, "  Samples/s", formatRate(e.samplesPerSecond) + (gpus > 1 ? " across " + plural(gpus, "GPU", "GPUs") : ""));
    if (e.tokensPerSecond > 0)
        keyLine(out, "  Tokens/s", formatRate(e.tokensPerSecond) + " (" + formatCount(static_cast<std::uint64_t>(e.sequenceLength))
                                       + " tokens per sample)");
    std::string flops = formatFlops(e.forwardFlopsPerSample) + " forward + " + formatFlops(e.backwardFlopsPerSample)
        + " backward";
    if (e.recomputeFlopsPerSample > 0)
        flops += " + " + formatFlops(e.recomputeFlopsPerSample) + " recomputed";
    keyLine(out, "  FLOPs/sample", flops);
    keyLine(out, "  Peak", formatRate(e.peakTflops) + " TFLOP/s, " + formatFraction(e.utilization) + " assumed");
    for (const auto& note : e.notes)
        out << "  - " << note << '\n';
}

void printTable(const Plan& plan, const PlanResult& result, std::ostream& out)
{
    using namespace report::plantext;
    const Analysis& a = result.analysis;
    const Estimate& e = *result.estimate;
    const TrainingSetup& s = plan.setup;
    std::string params = formatCount(a.totalParams) + " parameters";
    if (a.trainableParams != a.totalParams)
        params += ", " + formatCount(a.trainableParams) + " trainable";
    keyLine(out, "Model", plan.network.name + " (" + params + ")");
    keyLine(out, "GPU", plan.gpu.name + " (" + formatBytes(plan.gpu.memoryBytes) + ")");
    keyLine(out, "Set-up", std::string(optimizerLabel(s.optimizer)) + ", " + std::string(precisionLabel(plan.precision))
                               + ", batch " + std::to_string(s.batch) + (hasEffectiveBatch(s) ? " per GPU" : "")
                               + ", overhead " + formatBytes(s.overheadBytes));
    for (const auto& [key, value] : strategyRows(plan))
        keyLine(out, key, value);
    if (hasEffectiveBatch(s))
        keyLine(out, "Effective batch", effectiveBatchText(s.batch, s));
    out << '\n';

    const bool multiGpu = s.parallel.gpus > 1;
    out << std::left << std::setw(22) << "Component" << std::right << std::setw(14) << (multiGpu ? "Per GPU" : "Memory")
        << std::setw(10) << "Share" << '\n';
    for (const auto c : kAllComponents) {
        const auto bytes = componentBytes(e.bytes, c);
        if (c == Component::Communication && bytes == 0 && !multiGpu)
            continue; // no multi-GPU buffers on one GPU: not worth a row
        out << std::left << std::setw(22) << componentLabel(c) << std::right << std::setw(14) << formatBytes(bytes)
            << std::setw(10) << percent(bytes, e.total()) << '\n';
    }
    out << std::left << std::setw(22) << "Total" << std::right << std::setw(14) << formatBytes(e.total()) << "\n\n";
    out << peakText(e) << ".\n";
    out << (e.fits ? "Fits" : "Does not fit") << " on the " << plan.gpu.name << (multiGpu ? " (each GPU)" : "") << ": "
        << (e.fits ? "headroom " : "short by ") << formatBytes(static_cast<std::uint64_t>(std::abs(e.headroomBytes())))
        << '\n';
    if (hasEffectiveBatch(s))
        out << "Max micro-batch per GPU: " << e.maxBatch << " (effective batch " << effectiveBatchText(e.maxBatch, s)
            << ")\n";
    else
        out << "Max batch: " << e.maxBatch << '\n';
    if (const auto saved = checkpointingSavingsText(plan, a, s.batch))
        out << *saved << '\n';
    if (const auto lora = loraText(plan, a))
        out << *lora << '\n';
    out << '\n';
    printThroughput(plan, result, out);
    out << '\n';

    using Align = TextTable::Align;
    TextTable table({{"#"}, {"Layer"}, {"Type"}, {"Output"}, {"Parameters", Align::Right}, {"Act./sample", Align::Right},
        {"FLOPs/sample", Align::Right}});
    // Identical iterations of a Repeat block share one line ("b.1–9998.fc × 9,998").
    int index = 0;
    for (const auto& group : groupRows(a)) {
        const LayerRow& row = a.rows[group.row];
        if (row.type == "Repeat")
            continue;
        const std::string indent(static_cast<std::size_t>(row.depth) * 2, ' ');
        const std::string times = group.count > 1 ? " \u00d7 " + formatCount(group.count) : std::string();
        table.addRow({std::to_string(index++), indent + group.name + times, row.type, row.output.shape.toString(),
            formatCount(row.params), formatBytes(row.activationBytesPerSample),
            formatFlops(static_cast<double>(row.forwardFlopsPerSample) + static_cast<double>(row.backwardFlopsPerSample))});
    }
    table.print(out);
}

/// Every string value made valid UTF-8 (a model named after a file "llama\xff.json"), so dump() cannot throw.
void escapeInvalidStrings(nlohmann::ordered_json& j)
{
    if (j.is_string()) {
        auto& text = j.get_ref<std::string&>();
        text = escapeInvalidUtf8(text);
    } else if (j.is_structured()) {
        for (auto& element : j)
            escapeInvalidStrings(element);
    }
}

void writeJson(std::ostream& out, nlohmann::ordered_json j, int indent)
{
    escapeInvalidStrings(j);
    out << j.dump(indent) << '\n';
}

nlohmann::ordered_json throughputJson(const PlanResult& result)
{
    const auto t = throughputOf(result);
    if (!t)
        return {{"error", t.error().message}};
    const ThroughputEstimate& e = *t;
    return {{"step_seconds", e.stepSeconds},
            {"compute_seconds", e.computeSeconds},
            {"memory_seconds", e.memorySeconds},
            {"memory_bound", e.memoryBound},
            {"samples_per_second", e.samplesPerSecond},
            {"tokens_per_second", e.tokensPerSecond},
            {"sequence_length", e.sequenceLength},
            {"forward_flops_per_sample", e.forwardFlopsPerSample},
            {"backward_flops_per_sample", e.backwardFlopsPerSample},
            {"recompute_flops_per_sample", e.recomputeFlopsPerSample},
            {"flops_per_step", e.flopsPerStep},
            {"bytes_per_step", e.bytesPerStep},
            {"peak_tflops", e.peakTflops},
            {"utilization", e.utilization},
            {"notes", e.notes}};
}

int runEstimate(const Options& o, const std::string& exe, std::ostream& out, std::ostream& err)
{
    const Plan plan = makePlan(o, exe);
    const PlanResult result = evaluateWithWarnings(plan, err);
    if (!result.estimate)
        throw UsageError{result.error->message};
    if (o.json) {
        auto j = planToJson(plan, result);
        // planToJson carries the memory plan; the throughput estimate is the command line's addition.
        if (!j.contains("throughput"))
            j["throughput"] = throughputJson(result);
        writeJson(out, std::move(j), 2);
    } else {
        printTable(plan, result, out);
    }
    return kExitOk;
}

int runMaxBatch(const Options& o, const std::string& exe, std::ostream& out, std::ostream& err)
{
    const Plan plan = makePlan(o, exe);
    const PlanResult result = evaluateWithWarnings(plan, err);
    if (!result.estimate)
        throw UsageError{result.error->message};
    const Estimate& e = *result.estimate;
    if (o.json) {
        writeJson(out,
                  {{"max_batch", e.maxBatch},
                   {"max_effective_batch", e.maxEffectiveBatch},
                   {"accumulation_steps", plan.setup.accumulationSteps},
                   {"data_parallel_gpus", plan.setup.parallel.dataParallel()},
                   {"gpu", plan.gpu.name}},
                  -1);
    } else if (report::plantext::hasEffectiveBatch(plan.setup)) {
        out << e.maxBatch << " (micro-batch per GPU; effective batch "
            << report::plantext::effectiveBatchText(e.maxBatch, plan.setup) << ")\n";
    } else {
        out << e.maxBatch << '\n';
    }
    return kExitOk;
}

/// An argument as a POSIX shell reads it back: bare when it is safe, otherwise single-quoted.
std::string shellQuoted(const std::string& arg)
{
    const bool safe = !arg.empty() && std::all_of(arg.begin(), arg.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || std::string_view("_./,:=+-@%").find(c) != std::string_view::npos;
    });
    if (safe)
        return arg;
    std::string quoted = "'";
    for (const char c : arg)
        quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return quoted + "'";
}

/// The `headroom estimate` arguments that reproduce a planned set-up: the plan's own options as given,
/// then the settings the planner chose (each only where it is not the default).
std::vector<std::string> estimateArguments(const Options& o, const Plan& plan, const PlanSettings& s)
{
    std::vector<std::string> args{"estimate", o.file};
    if (!plan.gpu.custom)
        args.insert(args.end(), {"--gpu", plan.gpu.name});
    args.insert(args.end(), o.kept.begin(), o.kept.end());
    const auto add = [&](std::string option, std::string value) {
        args.push_back(std::move(option));
        if (!value.empty())
            args.push_back(std::move(value));
    };
    const TrainingSetup& t = s.setup;
    if (s.precision != Precision::Fp32)
        add("--precision", std::string(precisionName(s.precision)));
    add("--batch", std::to_string(t.batch));
    if (t.accumulationSteps != 1)
        add("--accumulation-steps", std::to_string(t.accumulationSteps));
    if (s.checkpointing != Checkpointing::None)
        add("--checkpointing", std::string(checkpointingName(s.checkpointing)));
    if (t.optimizerImplementation != OptimizerImplementation::Foreach)
        add("--optimizer-impl", std::string(optimizerImplementationName(t.optimizerImplementation)));
    if (t.eightBitOptimizer)
        add("--8bit-optimizer", {});
    if (s.lora.enabled()) {
        add("--lora-rank", std::to_string(s.lora.rank));
        args.insert(args.end(), o.keptLora.begin(), o.keptLora.end());
        if (s.lora.quantizeBase)
            add("--qlora", {});
    }
    if (t.parallel.gpus != 1)
        add("--gpus", std::to_string(t.parallel.gpus));
    if (t.parallel.sharding != Sharding::None)
        add("--sharding", std::string(shardingName(t.parallel.sharding)));
    if (t.parallel.tensorParallel != 1)
        add("--tensor-parallel", std::to_string(t.parallel.tensorParallel));
    if (t.parallel.offloadOptimizer)
        add("--offload-optimizer", {});
    return args;
}

std::string commandText(const std::vector<std::string>& args)
{
    std::string line = "headroom";
    for (const auto& a : args)
        line += ' ' + shellQuoted(a);
    return line;
}

std::string changesText(const PlanCandidate& c)
{
    if (c.changes.empty())
        return "As given";
    std::string text;
    for (const auto& change : c.changes)
        text += (text.empty() ? "" : ", ") + change.text;
    return text;
}

/// "64 x 4 x 2 GPUs": micro-batch, accumulation steps, data-parallel GPUs.
std::string batchText(const TrainingSetup& s)
{
    std::string text = std::to_string(s.batch);
    if (s.accumulationSteps > 1)
        text += " x " + std::to_string(s.accumulationSteps);
    if (s.parallel.dataParallel() > 1)
        text += " x " + std::to_string(s.parallel.dataParallel()) + " GPUs";
    return text;
}

nlohmann::ordered_json candidateJson(const Options& o, const Plan& plan, const PlanCandidate& c)
{
    using nlohmann::ordered_json;
    auto changes = ordered_json::array();
    for (const auto& change : c.changes)
        changes.push_back({{"setting", setupSettingName(change.setting)},
                           {"value", change.value},
                           {"text", change.text},
                           {"changes_training", change.changesTraining}});
    const TrainingSetup& t = c.settings.setup;
    const Estimate& e = c.estimate;
    const auto args = estimateArguments(o, plan, c.settings);
    ordered_json j;
    j["changes"] = changes;
    j["changes_training"] = c.changesTraining();
    j["settings"] = {{"precision", precisionName(c.settings.precision)},
                     {"checkpointing", checkpointingName(c.settings.checkpointing)},
                     {"lora", {{"rank", c.settings.lora.rank}, {"quantize_base", c.settings.lora.quantizeBase}}},
                     {"optimizer_implementation", optimizerImplementationName(t.optimizerImplementation)},
                     {"eight_bit_optimizer", t.eightBitOptimizer},
                     {"gpus", t.parallel.gpus},
                     {"sharding", shardingName(t.parallel.sharding)},
                     {"tensor_parallel", t.parallel.tensorParallel},
                     {"offload_optimizer", t.parallel.offloadOptimizer}};
    j["micro_batch"] = t.batch;
    j["accumulation_steps"] = t.accumulationSteps;
    j["effective_batch"] = e.effectiveBatch;
    j["peak_bytes"] = e.peakBytes();
    j["gpu_memory_bytes"] = e.gpuMemoryBytes;
    j["fits"] = e.fits;
    j["max_batch"] = e.maxBatch;
    j["max_effective_batch"] = e.maxEffectiveBatch;
    if (c.throughput) {
        j["step_seconds"] = c.throughput->stepSeconds;
        j["samples_per_second"] = c.throughput->samplesPerSecond;
        j["samples_per_second_per_gpu"] = c.samplesPerSecondPerGpu();
        j["tokens_per_second_per_gpu"] = c.tokensPerSecondPerGpu();
    } else {
        j["step_seconds"] = nullptr;
        j["samples_per_second"] = nullptr;
        j["samples_per_second_per_gpu"] = nullptr;
        j["tokens_per_second_per_gpu"] = nullptr;
    }
    j["pareto"] = c.paretoOptimal;
    j["estimate_arguments"] = args;
    j["command"] = commandText(args);
    return j;
}

std::string goalText(const PlanGoal& goal)
{
    std::string text = goal.targetBatch ? "effective batch " + std::to_string(*goal.targetBatch)
                                        : std::string("the largest micro-batch that fits");
    if (goal.maxStepSeconds)
        text += ", optimizer steps of at most " + report::plantext::formatSeconds(*goal.maxStepSeconds);
    return text;
}

std::string allowedText(const PlanAllowances& allow)
{
    std::string text = "checkpointing, accumulation, optimizer step";
    if (allow.precision)
        text += ", precision";
    if (allow.lora)
        text += ", LoRA";
    if (allow.eightBitOptimizer)
        text += ", 8-bit optimizer state";
    return text;
}

/// How many set-ups `plan` lists without --all (the Pareto front is always listed in full).
constexpr std::size_t kListedSetups = 10;

int runPlan(const Options& o, const std::string& exe, std::ostream& out)
{
    using namespace report::plantext;
    const Plan plan = makePlan(o, exe);
    const PlanGoal goal{o.targetBatch, o.maxStepSeconds};
    const auto planned = planSetups(plan, goal, o.allow);
    if (!planned)
        throw UsageError{planned.error().message};
    const PlannerResult& r = planned.value();
    if (o.json) {
        using nlohmann::ordered_json;
        ordered_json j;
        j["model"] = plan.network.name;
        j["gpu"] = {{"name", plan.gpu.name}, {"memory_bytes", plan.gpu.memoryBytes}};
        j["gpus"] = plan.setup.parallel.gpus;
        j["goal"] = {{"target_batch", goal.targetBatch ? ordered_json(*goal.targetBatch) : ordered_json(nullptr)},
                     {"max_step_seconds", goal.maxStepSeconds ? ordered_json(*goal.maxStepSeconds) : ordered_json(nullptr)}};
        j["allowed"] = {{"precision", o.allow.precision}, {"lora", o.allow.lora},
                        {"eight_bit_optimizer", o.allow.eightBitOptimizer}};
        j["setups_examined"] = r.setupsExamined;
        j["analyses"] = r.analyses;
        auto list = ordered_json::array();
        for (const auto& c : r.candidates)
            list.push_back(candidateJson(o, plan, c));
        j["setups"] = list;
        if (r.closest && r.shortfall) {
            const PlanShortfall& s = *r.shortfall;
            static constexpr const char* kKinds[] = {"memory", "batch", "step_time"};
            j["nothing_fits"] = {{"reason", kKinds[static_cast<int>(s.kind)]},
                                 {"text", s.text()},
                                 {"bytes_over", s.bytesOver},
                                 {"batch_short", s.batchShort},
                                 {"seconds_over", std::isfinite(s.secondsOver) ? ordered_json(s.secondsOver) : ordered_json(nullptr)},
                                 {"closest", candidateJson(o, plan, *r.closest)}};
        } else {
            j["nothing_fits"] = nullptr;
        }
        writeJson(out, std::move(j), 2);
        return r.candidates.empty() ? kExitDoesNotFit : kExitOk;
    }
    keyLine(out, "Model", plan.network.name);
    keyLine(out, "Starting from", std::string(optimizerLabel(plan.setup.optimizer)) + ", "
                                      + std::string(precisionLabel(plan.precision)));
    for (const auto& [key, value] : strategyRows(plan))
        keyLine(out, key, value);
    keyLine(out, "GPU", plan.gpu.name + " (" + formatBytes(plan.gpu.memoryBytes) + ")"
                            + (plan.setup.parallel.gpus > 1 ? " x " + std::to_string(plan.setup.parallel.gpus) : ""));
    keyLine(out, "Goal", goalText(goal));
    keyLine(out, "May change", allowedText(o.allow) + (plan.setup.parallel.gpus > 1 ? ", sharding, tensor parallelism" : "")
                                   + ", offload where needed");
    keyLine(out, "Searched", formatCount(r.setupsExamined) + " set-ups over " + plural(static_cast<std::int64_t>(r.analyses), "analysis", "analyses"));
    out << '\n';
    if (r.candidates.empty()) {
        out << "Nothing fits: no set-up reaches " << goalText(goal) << " on the " << plan.gpu.name << ".\n";
        if (r.closest && r.shortfall) {
            const PlanCandidate& c = *r.closest;
            out << "Closest: " << changesText(c) << " (micro-batch " << batchText(c.settings.setup) << ", "
                << formatBytes(c.estimate.peakBytes()) << ") " << r.shortfall->text() << ".\n";
            out << "  " << commandText(estimateArguments(o, plan, c.settings)) << '\n';
        }
        return kExitDoesNotFit;
    }
    const bool tokens = std::any_of(r.candidates.begin(), r.candidates.end(),
                                    [](const PlanCandidate& c) { return c.tokensPerSecondPerGpu() > 0; });
    using Align = TextTable::Align;
    std::vector<TextTable::Column> columns{{"#", Align::Right}, {"Set-up"}, {"Training"}, {"Batch"},
        {"Memory", Align::Right}, {"Max batch", Align::Right}, {"Step", Align::Right}, {"Samples/s/GPU", Align::Right}};
    if (tokens)
        columns.push_back({"Tokens/s/GPU", Align::Right});
    columns.push_back({"Pareto"});
    TextTable table(columns);
    std::vector<std::size_t> listed;
    for (std::size_t i = 0; i < r.candidates.size(); ++i) {
        const PlanCandidate& c = r.candidates[i];
        if (!o.listAll && i >= kListedSetups && !c.paretoOptimal)
            continue;
        listed.push_back(i);
        std::vector<std::string> row{std::to_string(i + 1), changesText(c), c.changesTraining() ? "changed" : "same",
            batchText(c.settings.setup), formatBytes(c.estimate.peakBytes()), std::to_string(c.estimate.maxBatch),
            c.throughput ? formatSeconds(c.throughput->stepSeconds) : "-",
            c.throughput ? formatRate(c.samplesPerSecondPerGpu()) : "-"};
        if (tokens)
            row.push_back(c.throughput ? formatRate(c.tokensPerSecondPerGpu()) : "-");
        row.push_back(c.paretoOptimal ? "*" : "");
        table.addRow(std::move(row));
    }
    table.print(out);
    if (listed.size() < r.candidates.size())
        out << plural(static_cast<std::int64_t>(r.candidates.size() - listed.size()), "more set-up fits", "more set-ups fit")
            << " (--all lists every one).\n";
    out << "\nTraining \"changed\": the set-up computes something different (precision, LoRA, 8-bit state, or\n"
           "batch-norm statistics over smaller micro-batches). Pareto *: no other set-up is faster with as\n"
           "little memory. Memory is the peak per GPU; Max batch the largest micro-batch that fits.\n\n"
           "Each with headroom estimate:\n";
    for (const std::size_t i : listed)
        out << std::right << std::setw(3) << i + 1 << "  " << std::left
            << commandText(estimateArguments(o, plan, r.candidates[i].settings)) << '\n';
    return kExitOk;
}

/// --gpus-list resolved in the catalogue (each an error if unknown or ambiguous), or the whole catalogue.
std::vector<Gpu> gpusToCompare(const Options& o, const GpuCatalog& catalog)
{
    if (o.gpuList.empty())
        return catalog.gpus();
    std::vector<Gpu> gpus;
    for (const auto& name : o.gpuList) {
        auto gpu = catalog.find(name);
        if (!gpu)
            throw UsageError{"--gpus-list: " + gpu.error().message};
        if (std::none_of(gpus.begin(), gpus.end(), [&](const Gpu& g) { return g.name == gpu->name; }))
            gpus.push_back(gpu.value());
    }
    return gpus;
}

int runCompare(const Options& o, const std::string& exe, std::ostream& out)
{
    using namespace report::plantext;
    const GpuCatalog catalog = loadCatalog(exe);
    const std::vector<Gpu> gpus = gpusToCompare(o, catalog);
    Plan plan = makePlan(o, exe);
    const auto compared = compareGpus(plan, gpus, o.targetBatch);
    if (!compared)
        throw UsageError{compared.error().message};
    const auto& rows = compared.value();
    const TrainingSetup& s = plan.setup;
    const std::int64_t target = o.targetBatch.value_or(rows.empty() ? s.batch : rows.front().estimate.effectiveBatch);
    if (o.json) {
        using nlohmann::ordered_json;
        auto list = ordered_json::array();
        for (const auto& r : rows) {
            ordered_json j;
            j["gpu"] = r.gpu.name;
            j["memory_bytes"] = r.gpu.memoryBytes;
            j["peak_bytes"] = r.estimate.peakBytes();
            j["fits"] = r.estimate.fits;
            j["max_batch"] = r.estimate.maxBatch;
            j["max_effective_batch"] = r.estimate.maxEffectiveBatch;
            if (r.throughput) {
                j["step_seconds"] = r.throughput->stepSeconds;
                j["samples_per_second"] = r.throughput->samplesPerSecond;
                j["tokens_per_second"] = r.throughput->tokensPerSecond;
            } else {
                j["step_seconds"] = nullptr;
                j["samples_per_second"] = nullptr;
                j["tokens_per_second"] = nullptr;
                j["throughput_error"] = r.throughputError;
            }
            j["reaches_target"] = r.reachesTarget;
            j["smallest_reaching_target"] = r.smallestReachingTarget;
            list.push_back(j);
        }
        writeJson(out, {{"model", plan.network.name}, {"batch", s.batch}, {"target_batch", target}, {"gpus", list}}, 2);
        return kExitOk;
    }
    keyLine(out, "Model", plan.network.name);
    keyLine(out, "Set-up", std::string(optimizerLabel(s.optimizer)) + ", " + std::string(precisionLabel(plan.precision))
                               + ", batch " + std::to_string(s.batch) + (hasEffectiveBatch(s) ? " per GPU" : ""));
    for (const auto& [key, value] : strategyRows(plan))
        keyLine(out, key, value);
    keyLine(out, "Target", "effective batch " + std::to_string(target));
    out << '\n';
    using Align = TextTable::Align;
    const bool effective = hasEffectiveBatch(s);
    std::vector<TextTable::Column> columns{{"GPU"}, {"Memory", Align::Right}, {"Peak", Align::Right}, {"Fits"},
        {"Max batch", Align::Right}};
    if (effective)
        columns.push_back({"Max effective", Align::Right});
    columns.insert(columns.end(), {{"Step", Align::Right}, {"Samples/s", Align::Right}, {""}});
    TextTable table(columns);
    for (const auto& r : rows) {
        const bool runs = r.estimate.fits && r.throughput;
        std::vector<std::string> row{r.gpu.name, formatBytes(r.gpu.memoryBytes), formatBytes(r.estimate.peakBytes()),
            r.estimate.fits ? "yes" : "no", std::to_string(r.estimate.maxBatch)};
        if (effective)
            row.push_back(std::to_string(r.estimate.maxEffectiveBatch));
        row.push_back(runs ? formatSeconds(r.throughput->stepSeconds) : "-");
        row.push_back(runs ? formatRate(r.throughput->samplesPerSecond) : "-");
        row.push_back(r.smallestReachingTarget ? "<- smallest that reaches the target" : "");
        table.addRow(std::move(row));
    }
    table.print(out);
    if (std::none_of(rows.begin(), rows.end(), [](const GpuComparison& r) { return r.reachesTarget; }))
        out << "\nNo GPU listed reaches an effective batch of " << target << " with this set-up (headroom plan finds"
            << " set-ups that do).\n";
    return kExitOk;
}

int runReport(const Options& o, const std::string& exe, std::ostream& out, std::ostream& err,
              const std::function<void()>& startGui)
{
    const Plan plan = makePlan(o, exe);
    const PlanResult result = evaluateWithWarnings(plan, err);
    // As `estimate`: a network that cannot be estimated is an error, not a report that says so.
    if (!result.estimate)
        throw UsageError{result.error->message};
    if (startGui)
        startGui();
    report::ReportOptions options;
    if (o.includePlan) {
        options.plannerGoal = PlanGoal{o.targetBatch, o.maxStepSeconds};
        auto planned = planSetups(plan, options.plannerGoal, o.allow);
        if (!planned)
            throw UsageError{planned.error().message};
        options.planner = std::move(planned).value();
    }
    auto written = report::writePdfReport(plan, result, QString::fromStdString(o.output), options);
    if (!written)
        throw UsageError{written.error().message};
    out << "Wrote " << o.output << '\n';
    return kExitOk;
}

int runGpus(const Options& o, const std::string& exe, std::ostream& out)
{
    const GpuCatalog catalog = loadCatalog(exe);
    if (o.json) {
        auto list = nlohmann::ordered_json::array();
        for (const auto& g : catalog.gpus()) {
            list.push_back({{"name", g.name},
                            {"vendor", g.vendor},
                            {"family", g.family},
                            {"memory_bytes", g.memoryBytes},
                            {"bandwidth_gbps", g.bandwidthGBps},
                            {"fp32_tflops", g.fp32Tflops},
                            {"fp16_tflops", g.fp16Tflops},
                            {"bf16_tflops", g.bf16Tflops}});
        }
        writeJson(out, std::move(list), 2);
        return kExitOk;
    }
    using Align = TextTable::Align;
    TextTable table({{"GPU"}, {"Vendor"}, {"Memory", Align::Right}, {"GB/s", Align::Right}, {"FP32 TF", Align::Right}});
    for (const auto& g : catalog.gpus()) {
        table.addRow({g.name, g.vendor, formatBytes(g.memoryBytes), shortNumber(g.bandwidthGBps), shortNumber(g.fp32Tflops)});
    }
    table.print(out);
    return kExitOk;
}

} // namespace

std::string helpText()
{
    return "Headroom " HEADROOM_VERSION " - GPU memory planner for deep-learning training\n"
           "\n"
           "Usage:\n"
           "  headroom [FILE]                 open the GUI (on FILE, or on the VGG-16 preset)\n"
           "  headroom estimate FILE [options] [--json]\n"
           "                                  memory breakdown, fit and max batch\n"
           "  headroom max-batch FILE [options]\n"
           "                                  the largest micro-batch that fits (an integer, then the\n"
           "                                  effective batch when accumulating or on several GPUs)\n"
           "  headroom report FILE -o OUT.pdf [options]\n"
           "                                  a PDF report of the plan (no display needed)\n"
           "  headroom plan FILE --gpu NAME [--gpus N] [--target-batch N] [--max-step-seconds S]\n"
           "                [--allow LIST] [options] [--json]\n"
           "                                  the set-ups that fit and reach the goal, fastest first,\n"
           "                                  each with the estimate options that reproduce it\n"
           "  headroom compare FILE [options] [--gpus-list LIST] [--json]\n"
           "                                  the set-up on every GPU: fits, max batch, speed\n"
           "  headroom gpus [--json]          the GPU catalogue\n"
           "  headroom --help | --version\n"
           "  headroom COMMAND --help         a command's usage and options\n"
           "\n"
           "Options (defaults in brackets):\n"
           "  --gpu NAME            a unique part of a GPU's name [GeForce GTX 1080]\n"
           "  --gpu-memory-gib X    a custom GPU with X GiB instead of --gpu\n"
           "  --optimizer NAME      " + optimizerChoices() + " [adam]\n"
           "  --optimizer-impl NAME how torch.optim runs the step: foreach|fused|for-loop [foreach]\n"
           "  --precision NAME      fp32|amp-fp16|amp-bf16|fp16|bf16 [fp32]\n"
           "  --batch N             (micro-)batch size per GPU [32]\n"
           "  --overhead-mib X      CUDA context and framework overhead in MiB [512]\n"
           "  --loss NAME           " + choices(allLosses(), lossName) + " [as in the model]\n"
           "  --json                machine-readable output\n"
           "  -o, --output FILE     the report's PDF file\n"
           "\n"
           "Training strategies:\n"
           "  --checkpointing MODE  none|per-block|selective activation checkpointing [none]\n"
           "  --attention IMPL      sdpa|eager (eager keeps the T x T attention scores) [sdpa]\n"
           "  --sequence-length T   tokens per sample, for sequence models [as in the model]\n"
           "  --moe-imbalance F     mixture of experts: the busiest expert's tokens over an even\n"
           "                        share, 1 to experts / top-k [1: balanced routing]\n"
           "  --freeze LIST         comma-separated layers to freeze (no gradients or optimizer state):\n"
           "                        top-level names, or block.layer inside a Repeat (every iteration)\n"
           "  --lora-rank R         LoRA adapters of rank R; every other weight frozen [off]\n"
           "  --lora-targets LIST   comma-separated Linear layer names to adapt, e.g. q_proj,v_proj\n"
           "                        [every Linear layer but the output head]\n"
           "  --lora-dropout P      LoRA dropout probability [0]\n"
           "  --qlora               4-bit NF4 base weights (needs --lora-rank)\n"
           "  --accumulation-steps K  micro-batches per optimizer step [1]\n"
           "  --gpus N              GPUs in total (data x tensor parallel) [1]\n"
           "  --sharding MODE       " + choices(allShardings(), shardingName) + " [ddp]\n"
           "  --tensor-parallel T   tensor-parallel degree; must divide --gpus [1]\n"
           "  --offload-optimizer   keep the optimizer state in CPU memory\n"
           "  --8bit-optimizer      8-bit optimizer state (bitsandbytes)\n"
           "  --utilization U       assumed fraction of the GPU's peak FLOP rate, 0 < U <= 1 [0.4]\n"
           "\n"
           "Planning (plan and compare; the options above are the set-up plan starts from):\n"
           "  --target-batch N      samples per optimizer step to reach [plan: the largest micro-batch;\n"
           "                        compare: the set-up's effective batch]\n"
           "  --max-step-seconds S  plan: the longest an optimizer step may take [no limit]\n"
           "  --allow LIST          plan may also change what training computes: precision, lora,\n"
           "                        8bit-optimizer, comma-separated [none]\n"
           "  --all                 plan: list every set-up [the 10 fastest and the Pareto front]\n"
           "  --gpus-list LIST      compare: comma-separated GPUs [the whole catalogue]\n"
           "  --include-plan        report: add plan's table (for --target-batch, --max-step-seconds\n"
           "                        and --allow as plan takes them)\n"
           "\n"
           "FILE is a Headroom model file (docs/model-format.md), an ONNX model (.onnx) or a Hugging Face\n"
           "config.json. Memory is per GPU. Errors go to stderr as one line, with exit code 2; warnings\n"
           "(assumptions behind the numbers, such as an ONNX operator Headroom models generically) go to\n"
           "stderr too.\n";
}

namespace {

const std::vector<std::string>& commandNames()
{
    static const std::vector<std::string> names{"estimate", "max-batch", "report", "plan", "compare", "gpus", "help"};
    return names;
}

bool isHelpOption(const std::string& arg) { return arg == "--help" || arg == "-h"; }

bool isCommand(const std::string& arg)
{
    return std::find(commandNames().begin(), commandNames().end(), arg) != commandNames().end();
}

/// Edits (insertions, deletions, substitutions) that turn `a` into `b`.
std::size_t editDistance(const std::string& a, const std::string& b)
{
    std::vector<std::size_t> row(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j)
        row[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        std::size_t diagonal = row[0];
        row[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const std::size_t above = row[j];
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
            diagonal = above;
        }
    }
    return row[b.size()];
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
        return quoteForMessage(first) + " is a folder; give a model file to open, or a command (" + commands + ")";
    std::string message = quoteForMessage(first) + " is neither a command nor an existing file; the commands are "
        + commands;
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
            line += std::string{'\\', 'x', kDigits[(c >> 4) & 0xF], kDigits[c & 0xF]};
        } else {
            line += c;
        }
    }
    return line;
}

} // namespace

std::string commandHelpText(const std::string& command)
{
    if (command == "gpus")
        return "Usage: headroom gpus [--json]\n"
               "\n"
               "Lists the GPU catalogue: name, vendor, memory, memory bandwidth and fp32 peak, as a table or,\n"
               "with --json, as a JSON array (also the fp16 and bf16 peaks). --gpu takes any of these names.\n";
    std::string usage;
    if (command == "estimate")
        usage = "Usage: headroom estimate FILE [options] [--json]\n"
                "\n"
                "The memory one training step takes on the GPU, by component, whether it fits, the largest\n"
                "batch that does, the throughput estimate and the per-layer table.\n";
    else if (command == "max-batch")
        usage = "Usage: headroom max-batch FILE [options] [--json]\n"
                "\n"
                "The largest micro-batch per GPU that fits, as an integer (then the effective batch when\n"
                "accumulating or on several GPUs).\n";
    else if (command == "plan")
        usage = "Usage: headroom plan FILE --gpu NAME [--gpus N] [--target-batch N] [--max-step-seconds S]\n"
                "                     [--allow precision,lora,8bit-optimizer] [--all] [options] [--json]\n"
                "\n"
                "The set-ups that fit the GPU and reach the goal (an effective batch, or the largest micro-batch),\n"
                "fastest first (estimated samples per second per GPU), with what each changes, whether that\n"
                "changes what training computes, its memory, max batch and step time, the memory/speed Pareto\n"
                "front, and the `headroom estimate` options that reproduce each. Checkpointing, accumulation,\n"
                "the optimizer step's implementation and, on several GPUs, sharding and tensor parallelism always\n"
                "vary; precision, LoRA and 8-bit optimizer state only with --allow. When nothing fits: the\n"
                "closest set-up and what it lacks, with exit code 1.\n";
    else if (command == "compare")
        usage = "Usage: headroom compare FILE [options] [--target-batch N] [--gpus-list LIST] [--json]\n"
                "\n"
                "The set-up on every GPU of the catalogue (or of --gpus-list), smallest memory first: its peak,\n"
                "whether it fits, the largest micro-batch, step time and samples per second, with the smallest\n"
                "GPU that reaches the target effective batch marked.\n";
    else if (command == "report")
        usage = "Usage: headroom report FILE -o OUT.pdf [options]\n"
                "\n"
                "Writes the plan as a PDF report (no display needed). OUT.pdf must be a new path or a regular\n"
                "file that is not read-only; it is replaced only once the report is complete.\n";
    else
        return helpText();
    // The options are those of every planning command: the --help text from "Options" on.
    const std::string all = helpText();
    const auto options = all.find("Options (defaults in brackets):");
    return usage + "\n" + (options == std::string::npos ? all : all.substr(options));
}

bool isCommandLineInvocation(const std::vector<std::string>& args)
{
    if (args.empty())
        return false;
    const std::string& first = args.front();
    if (first.starts_with("-") || isCommand(first))
        return true;
    // The GUI only for a file it can open; anything else (a typo of a command, a missing file, a
    // folder) is an error on the command line rather than a window, which without a display would
    // wait forever.
    std::error_code ec;
    return !std::filesystem::exists(first, ec) || std::filesystem::is_directory(first, ec);
}

int run(const std::vector<std::string>& args, const std::string& executablePath, std::ostream& out, std::ostream& err,
        const std::function<void()>& startGui)
{
    const auto fail = [&](const std::string& message) {
        err << "headroom: error: " << printableLine(message) << '\n';
        return kExitError;
    };
    try {
        if (args.empty() || isHelpOption(args.front())) {
            out << helpText();
            return kExitOk;
        }
        if (args.front() == "help") {
            if (args.size() > 1 && !isCommand(args[1]))
                throw UsageError{"help: " + notACommand(args[1])};
            out << (args.size() > 1 ? commandHelpText(args[1]) : helpText());
            return kExitOk;
        }
        if (args.front() == "--version") {
            out << "headroom " HEADROOM_VERSION "\n";
            return kExitOk;
        }
        if (!isCommand(args.front())) {
            if (args.front().starts_with("-"))
                throw UsageError{"unknown option " + quoteForMessage(args.front()) + " (see headroom --help)"};
            throw UsageError{notACommand(args.front())};
        }
        if (std::any_of(args.begin() + 1, args.end(), isHelpOption)) {
            out << commandHelpText(args.front());
            return kExitOk;
        }
        const Options o = parseOptions(args);
        if (o.command == "estimate")
            return runEstimate(o, executablePath, out, err);
        if (o.command == "max-batch")
            return runMaxBatch(o, executablePath, out, err);
        if (o.command == "report")
            return runReport(o, executablePath, out, err, startGui);
        if (o.command == "plan")
            return runPlan(o, executablePath, out);
        if (o.command == "compare")
            return runCompare(o, executablePath, out);
        return runGpus(o, executablePath, out);
    } catch (const UsageError& e) {
        return fail(e.message);
    } catch (const std::bad_alloc&) {
        return fail("out of memory");
    } catch (const std::exception& e) {
        // A bug, not the user's input: still one line and exit code 2, never an abort.
        return fail(std::string("internal error: ") + e.what());
    } catch (...) {
        return fail("internal error");
    }
}

} // namespace headroom::cli

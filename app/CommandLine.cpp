#include "CommandLine.h"

#include "PlanText.h"     // ui/report
#include "TextTable.h"
#include "ReportWriter.h" // ui/report
#include "headroom/Format.h"
#include "headroom/Freeze.h"
#include "headroom/GpuCatalog.h"
#include "headroom/NetworkFile.h"
#include "headroom/Plan.h"
#include "headroom/Resources.h"
#include "headroom/Throughput.h"
#include "headroom/Training.h"

#include <QString>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <iomanip>
#include <map>
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

constexpr const char* kDefaultGpu = "GeForce GTX 1080";
constexpr std::int64_t kDefaultBatch = 32;
/// Keeps the effective batch (micro-batch x steps x GPUs, each within the core's limits) in 64 bits.
constexpr std::int64_t kMaxStepsTimesGpus = 1LL << 31;

struct Options {
    std::string command;
    std::string file;
    std::string gpu = kDefaultGpu;
    Optimizer optimizer = Optimizer::Adam;
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
    std::vector<std::string> freeze;
    LoraOptions lora;
    bool loraTargetsGiven = false;
    bool loraDropoutGiven = false;
    std::int64_t accumulationSteps = 1;
    Parallelism parallel;
    bool eightBitOptimizer = false;
    double utilization = TrainingSetup{}.assumedUtilization;
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

std::optional<double> parseNumber(const std::string& text)
{
    try {
        std::size_t used = 0;
        const double v = std::stod(text, &used);
        if (used != text.size())
            return std::nullopt;
        return v;
    } catch (...) {
        return std::nullopt;
    }
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
                         + ", not \"" + text + "\""};
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
            throw UsageError{option + " must be a comma-separated list of layer names, not \"" + text + "\""};
        items.push_back(std::move(item));
        if (comma == std::string::npos)
            break;
        start = comma + 1;
    }
    return items;
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
        if (a == "--json") {
            o.json = true;
        } else if (a == "--gpu") {
            o.gpu = value();
        } else if (a == "--optimizer") {
            const auto parsed = parseOptimizer(value());
            if (!parsed)
                throw UsageError{"--optimizer must be one of " + optimizerChoices() + ", not \"" + args[i] + "\""};
            o.optimizer = *parsed;
        } else if (a == "--precision") {
            const auto parsed = parsePrecision(value());
            if (!parsed)
                throw UsageError{"--precision must be one of fp32|amp-fp16|amp-bf16|fp16|bf16, not \"" + args[i] + "\""};
            o.precision = *parsed;
        } else if (a == "--batch") {
            const auto parsed = parseInteger(value());
            if (!parsed || *parsed < 1 || *parsed > kMaxBatch)
                throw UsageError{"--batch must be an integer from 1 to " + std::to_string(kMaxBatch) + ", not \""
                                 + args[i] + "\""};
            o.batch = *parsed;
        } else if (a == "--overhead-mib") {
            const auto parsed = parseNumber(value());
            if (!parsed || *parsed < 0 || *parsed > 1024.0 * 1024.0)
                throw UsageError{"--overhead-mib must be a number of MiB from 0 to 1048576, not \"" + args[i] + "\""};
            o.overheadBytes = static_cast<std::uint64_t>(*parsed * static_cast<double>(kMiB));
        } else if (a == "--gpu-memory-gib") {
            const auto parsed = parseNumber(value());
            if (!parsed || !(*parsed >= kMinCustomGpuGiB && *parsed <= kMaxCustomGpuGiB))
                throw UsageError{"--gpu-memory-gib must be a number of GiB from " + shortNumber(kMinCustomGpuGiB) + " to "
                                 + shortNumber(kMaxCustomGpuGiB) + ", not \"" + args[i] + "\""};
            o.customMemoryBytes = static_cast<std::uint64_t>(*parsed * static_cast<double>(kGiB));
        } else if (a == "-o" || a == "--output") {
            o.output = value();
        } else if (a == "--checkpointing") {
            const auto parsed = parseCheckpointing(value());
            if (!parsed)
                throw UsageError{"--checkpointing must be one of " + choices(allCheckpointings(), checkpointingName)
                                 + ", not \"" + args[i] + "\""};
            o.checkpointing = *parsed;
        } else if (a == "--loss") {
            const auto parsed = parseLoss(value());
            if (!parsed)
                throw UsageError{"--loss must be one of " + choices(allLosses(), lossName) + ", not \"" + args[i] + "\""};
            o.loss = *parsed;
        } else if (a == "--attention") {
            const auto parsed = parseAttention(value());
            if (!parsed)
                throw UsageError{"--attention must be sdpa or eager, not \"" + args[i] + "\""};
            o.attention = *parsed;
        } else if (a == "--sequence-length") {
            o.sequenceLength = integerOption(a, value(), 1, kMaxBatch);
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
                throw UsageError{"--lora-dropout must be a probability from 0 to below 1, not \"" + args[i] + "\""};
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
                throw UsageError{"--sharding must be one of " + choices(allShardings(), shardingName) + ", not \""
                                 + args[i] + "\""};
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
                                 + " to 1, not \"" + args[i] + "\""};
            o.utilization = *parsed;
        } else if (a.starts_with("-")) {
            throw UsageError{"unknown option " + a + " (see headroom --help)"};
        } else {
            positional.push_back(a);
        }
    }
    const bool needsFile = o.command != "gpus";
    if (needsFile && positional.empty())
        throw UsageError{o.command + " needs a model file (see headroom --help)"};
    if (positional.size() > (needsFile ? 1U : 0U))
        throw UsageError{"unexpected argument \"" + positional.back() + "\""};
    if (needsFile)
        o.file = positional.front();
    if (o.command == "report" && o.output.empty())
        throw UsageError{"report needs -o OUT.pdf"};
    if (!o.lora.enabled()) {
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
    plan.setup.gpuMemoryBytes = plan.gpu.memoryBytes;
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

/// The throughput estimate, or why there is none (a GPU without figures for the precision).
Result<ThroughputEstimate> throughputOf(const Plan& plan, const PlanResult& result)
{
    TrainingSetup setup = plan.setup;
    setup.gpuMemoryBytes = plan.gpu.memoryBytes;
    return estimateThroughput(result.analysis, setup, plan.gpu);
}

void printThroughput(const Plan& plan, const PlanResult& result, std::ostream& out)
{
    using namespace report::plantext;
    const auto t = throughputOf(plan, result);
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
    if (const auto step = optimizerStepText(e))
        out << *step << ".\n";
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
    int index = 0;
    for (const auto& row : a.rows) {
        if (row.type == "Repeat")
            continue;
        const std::string indent(static_cast<std::size_t>(row.depth) * 2, ' ');
        table.addRow({std::to_string(index++), indent + row.name, row.type, row.output.shape.toString(),
            formatCount(row.params), formatBytes(row.activationBytesPerSample),
            formatFlops(static_cast<double>(row.forwardFlopsPerSample) + static_cast<double>(row.backwardFlopsPerSample))});
    }
    table.print(out);
}

nlohmann::ordered_json throughputJson(const Plan& plan, const PlanResult& result)
{
    const auto t = throughputOf(plan, result);
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
            j["throughput"] = throughputJson(plan, result);
        out << j.dump(2) << '\n';
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
        out << nlohmann::ordered_json{{"max_batch", e.maxBatch},
                                      {"max_effective_batch", e.maxEffectiveBatch},
                                      {"accumulation_steps", plan.setup.accumulationSteps},
                                      {"data_parallel_gpus", plan.setup.parallel.dataParallel()},
                                      {"gpu", plan.gpu.name}}
                   .dump()
            << '\n';
    } else if (report::plantext::hasEffectiveBatch(plan.setup)) {
        out << e.maxBatch << " (micro-batch per GPU; effective batch "
            << report::plantext::effectiveBatchText(e.maxBatch, plan.setup) << ")\n";
    } else {
        out << e.maxBatch << '\n';
    }
    return kExitOk;
}

int runReport(const Options& o, const std::string& exe, std::ostream& out, std::ostream& err,
              const std::function<void()>& startGui)
{
    const Plan plan = makePlan(o, exe);
    const PlanResult result = evaluateWithWarnings(plan, err);
    if (startGui)
        startGui();
    auto written = report::writePdfReport(plan, result, QString::fromStdString(o.output));
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
        out << list.dump(2) << '\n';
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
           "  headroom gpus [--json]          the GPU catalogue\n"
           "  headroom --help | --version\n"
           "\n"
           "Options (defaults in brackets):\n"
           "  --gpu NAME            a unique part of a GPU's name [GeForce GTX 1080]\n"
           "  --gpu-memory-gib X    a custom GPU with X GiB instead of --gpu\n"
           "  --optimizer NAME      " + optimizerChoices() + " [adam]\n"
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
           "FILE is a Headroom model file (docs/model-format.md), an ONNX model (.onnx) or a Hugging Face\n"
           "config.json. Memory is per GPU. Errors go to stderr with exit code 2; warnings (assumptions\n"
           "behind the numbers, such as an ONNX operator Headroom models generically) go to stderr too.\n";
}

bool isCommandLineInvocation(const std::vector<std::string>& args)
{
    if (args.empty())
        return false;
    static const std::vector<std::string> commands{"estimate", "max-batch", "report", "gpus",
                                                   "--help",   "-h",        "--version", "help"};
    return std::find(commands.begin(), commands.end(), args.front()) != commands.end();
}

int run(const std::vector<std::string>& args, const std::string& executablePath, std::ostream& out, std::ostream& err,
        const std::function<void()>& startGui)
{
    try {
        if (args.empty() || args.front() == "--help" || args.front() == "-h" || args.front() == "help") {
            out << helpText();
            return kExitOk;
        }
        if (args.front() == "--version") {
            out << "headroom " HEADROOM_VERSION "\n";
            return kExitOk;
        }
        const Options o = parseOptions(args);
        if (o.command == "estimate")
            return runEstimate(o, executablePath, out, err);
        if (o.command == "max-batch")
            return runMaxBatch(o, executablePath, out, err);
        if (o.command == "report")
            return runReport(o, executablePath, out, err, startGui);
        if (o.command == "gpus")
            return runGpus(o, executablePath, out);
        throw UsageError{"unknown command \"" + o.command + "\" (see headroom --help)"};
    } catch (const UsageError& e) {
        err << "headroom: error: " << e.message << '\n';
        return kExitError;
    }
}

} // namespace headroom::cli

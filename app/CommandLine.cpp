#include "CommandLine.h"

#include "ReportWriter.h" // ui/report
#include "headroom/Format.h"
#include "headroom/GpuCatalog.h"
#include "headroom/ModelFile.h"
#include "headroom/Plan.h"
#include "headroom/Resources.h"

#include <QString>

#include <algorithm>
#include <charconv>
#include <iomanip>
#include <map>
#include <optional>
#include <ostream>
#include <sstream>

namespace headroom::cli {

namespace {

constexpr const char* kDefaultGpu = "GeForce GTX 1080";
constexpr std::int64_t kDefaultBatch = 32;

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
            if (!parsed || *parsed <= 0 || *parsed > 1024.0 * 1024.0)
                throw UsageError{"--gpu-memory-gib must be a positive number of GiB, not \"" + args[i] + "\""};
            o.customMemoryBytes = static_cast<std::uint64_t>(*parsed * static_cast<double>(kGiB));
        } else if (a == "-o" || a == "--output") {
            o.output = value();
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
    auto network = loadModelFile(o.file);
    if (!network)
        throw UsageError{network.error().message};
    Plan plan;
    plan.network = std::move(network).value();
    plan.precision = o.precision;
    plan.setup.optimizer = o.optimizer;
    plan.setup.batch = o.batch;
    plan.setup.overheadBytes = o.overheadBytes;
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

std::string percent(std::uint64_t part, std::uint64_t whole)
{
    std::ostringstream s;
    s << std::fixed << std::setprecision(1) << (whole == 0 ? 0.0 : 100.0 * static_cast<double>(part) / static_cast<double>(whole))
      << " %";
    return s.str();
}

void printTable(const Plan& plan, const PlanResult& result, std::ostream& out)
{
    const Analysis& a = result.analysis;
    const Estimate& e = *result.estimate;
    out << "Model       " << plan.network.name << " (" << formatCount(a.totalParams) << " parameters)\n"
        << "GPU         " << plan.gpu.name << " (" << formatBytes(plan.gpu.memoryBytes) << ")\n"
        << "Set-up      " << optimizerLabel(plan.setup.optimizer) << ", " << precisionLabel(plan.precision)
        << ", batch " << plan.setup.batch << ", overhead " << formatBytes(plan.setup.overheadBytes) << "\n\n";
    out << std::left << std::setw(22) << "Component" << std::right << std::setw(14) << "Memory" << std::setw(10)
        << "Share" << '\n';
    for (const auto c : kAllComponents) {
        const auto bytes = componentBytes(e.bytes, c);
        out << std::left << std::setw(22) << componentLabel(c) << std::right << std::setw(14) << formatBytes(bytes)
            << std::setw(10) << percent(bytes, e.total()) << '\n';
    }
    out << std::left << std::setw(22) << "Total" << std::right << std::setw(14) << formatBytes(e.total()) << "\n\n";
    out << (e.fits ? "Fits" : "Does not fit") << " on the " << plan.gpu.name << ": "
        << (e.fits ? "headroom " : "short by ") << formatBytes(static_cast<std::uint64_t>(std::abs(e.headroomBytes())))
        << "\nMax batch   " << e.maxBatch << "\n\n";

    out << std::left << std::setw(5) << "#" << std::setw(28) << "Layer" << std::setw(22) << "Type" << std::setw(22)
        << "Output" << std::right << std::setw(14) << "Parameters" << std::setw(16) << "Act./sample" << '\n';
    int index = 0;
    for (const auto& row : a.rows) {
        if (row.type == "Repeat")
            continue;
        const std::string indent(static_cast<std::size_t>(row.depth) * 2, ' ');
        out << std::left << std::setw(5) << index++ << std::setw(28) << (indent + row.name) << std::setw(22) << row.type
            << std::setw(22) << row.output.shape.toString() << std::right << std::setw(14) << formatCount(row.params)
            << std::setw(16) << formatBytes(row.activationBytesPerSample) << '\n';
    }
}

int runEstimate(const Options& o, const std::string& exe, std::ostream& out)
{
    const Plan plan = makePlan(o, exe);
    const PlanResult result = evaluate(plan);
    if (!result.estimate)
        throw UsageError{result.error->message};
    if (o.json)
        out << planToJson(plan, result).dump(2) << '\n';
    else
        printTable(plan, result, out);
    return kExitOk;
}

int runMaxBatch(const Options& o, const std::string& exe, std::ostream& out)
{
    const Plan plan = makePlan(o, exe);
    const PlanResult result = evaluate(plan);
    if (!result.estimate)
        throw UsageError{result.error->message};
    if (o.json)
        out << nlohmann::ordered_json{{"max_batch", result.estimate->maxBatch}, {"gpu", plan.gpu.name}}.dump() << '\n';
    else
        out << result.estimate->maxBatch << '\n';
    return kExitOk;
}

int runReport(const Options& o, const std::string& exe, std::ostream& out, const std::function<void()>& startGui)
{
    const Plan plan = makePlan(o, exe);
    const PlanResult result = evaluate(plan);
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
    out << std::left << std::setw(30) << "GPU" << std::setw(8) << "Vendor" << std::right << std::setw(12) << "Memory"
        << std::setw(12) << "GB/s" << std::setw(12) << "FP32 TF" << '\n';
    for (const auto& g : catalog.gpus()) {
        out << std::left << std::setw(30) << g.name << std::setw(8) << g.vendor << std::right << std::setw(12)
            << formatBytes(g.memoryBytes) << std::setw(12) << g.bandwidthGBps << std::setw(12) << g.fp32Tflops << '\n';
    }
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
           "                                  the largest batch that fits (an integer)\n"
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
           "  --batch N             batch size [32]\n"
           "  --overhead-mib X      CUDA context and framework overhead in MiB [512]\n"
           "  --json                machine-readable output\n"
           "  -o, --output FILE     the report's PDF file\n"
           "\n"
           "FILE is a Headroom model file (docs/model-format.md). Errors go to stderr with exit code 2.\n";
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
            return runEstimate(o, executablePath, out);
        if (o.command == "max-batch")
            return runMaxBatch(o, executablePath, out);
        if (o.command == "report")
            return runReport(o, executablePath, out, startGui);
        if (o.command == "gpus")
            return runGpus(o, executablePath, out);
        throw UsageError{"unknown command \"" + o.command + "\" (see headroom --help)"};
    } catch (const UsageError& e) {
        err << "headroom: error: " << e.message << '\n';
        return kExitError;
    }
}

} // namespace headroom::cli

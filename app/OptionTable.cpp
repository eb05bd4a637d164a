// Every option of the command line: its names, help and the checks on its value. Which commands
// take an option is each command's business (its file lists them); an option means the same on all.
#include "Options.h"
#include "Output.h"
#include "headroom/setup/GpuCatalog.h"
#include "headroom/support/Format.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <span>
#include <string_view>
#include <utility>

namespace headroom::cli {

namespace {

std::optional<std::int64_t> parseInteger(const std::string& text)
{
    std::int64_t value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc {} || end != text.data() + text.size())
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
    if (end != last || (ec != std::errc {} && ec != std::errc::result_out_of_range))
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

std::int64_t integerOption(
    const std::string& option, const std::string& text, std::int64_t min, std::int64_t max)
{
    const auto parsed = parseInteger(text);
    if (!parsed || *parsed < min || *parsed > max)
        throw UsageError { option + " must be an integer from " + std::to_string(min) + " to "
            + std::to_string(max) + ", not " + quoteForMessage(text) };
    return *parsed;
}

/// A byte count: an integer ("104857600") or a number with a binary unit ("100MiB", "1.5 GiB", "512KiB",
/// "B" too), from 0 to `max`; a fraction of a byte is dropped.
std::uint64_t byteSizeOption(const std::string& option, const std::string& text, std::uint64_t max)
{
    static constexpr std::pair<std::string_view, std::uint64_t> kUnits[] = { { "TiB", 1ULL << 40 },
        { "GiB", 1ULL << 30 }, { "MiB", 1ULL << 20 }, { "KiB", 1ULL << 10 }, { "B", 1 } };
    const auto fail = [&] {
        return UsageError { option + " must be a number of bytes from 0 to " + std::to_string(max) + " ("
            + formatBytes(max) + "), with or without a unit (KiB, MiB, GiB, TiB), not "
            + quoteForMessage(text) };
    };
    std::string number = text;
    std::uint64_t unit = 1;
    for (const auto& [suffix, size] : kUnits) {
        if (number.size() > suffix.size() && number.ends_with(suffix)) {
            number.resize(number.size() - suffix.size());
            unit = size;
            break;
        }
    }
    while (!number.empty() && number.back() == ' ')
        number.pop_back();
    if (const auto whole = parseInteger(number)) {
        if (*whole < 0 || static_cast<std::uint64_t>(*whole) > max / unit)
            throw fail();
        return static_cast<std::uint64_t>(*whole) * unit;
    }
    const auto parsed = parseNumber(number);
    if (!parsed || *parsed < 0 || *parsed * static_cast<double>(unit) > static_cast<double>(max))
        throw fail();
    return static_cast<std::uint64_t>(*parsed * static_cast<double>(unit));
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
        item = first == std::string::npos ? std::string {} : item.substr(first, last - first + 1);
        if (item.empty())
            throw UsageError { option + " must be a comma-separated list of layer names, not "
                + quoteForMessage(text) };
        items.push_back(std::move(item));
        if (comma == std::string::npos)
            break;
        start = comma + 1;
    }
    return items;
}

/// The longest step time --max-step-seconds takes: a week.
constexpr double kMaxStepSeconds = 7 * 24 * 3600.0;

using G = OptionGroup;

/// The GPU and the optimizer (the help's "Options" section).
void addGpuAndOptimizerOptions(std::vector<OptionSpec>& all)
{
    all.push_back({ "--gpu", {}, "NAME", G::General,
        "a unique part of a GPU's name [" + std::string(kDefaultGpuName) + "]",
        [](Options& o, const std::string&, const std::string& v) {
            o.gpu = v;
            o.gpuGiven = true;
        } });
    all.push_back({ "--gpu-memory-gib", {}, "X", G::General, "a custom GPU with X GiB instead of --gpu",
        [](Options& o, const std::string&, const std::string& v) {
            const auto parsed = parseNumber(v);
            if (!parsed || !(*parsed >= kMinCustomGpuGiB && *parsed <= kMaxCustomGpuGiB))
                throw UsageError { "--gpu-memory-gib must be a number of GiB from "
                    + shortNumber(kMinCustomGpuGiB) + " to " + shortNumber(kMaxCustomGpuGiB) + ", not "
                    + quoteForMessage(v) };
            o.customMemoryBytes = static_cast<std::uint64_t>(*parsed * static_cast<double>(kGiB));
        } });
    all.push_back({ "--optimizer", {}, "NAME", G::General, optimizerChoices() + " [adam]",
        [](Options& o, const std::string&, const std::string& v) {
            const auto parsed = parseOptimizer(v);
            if (!parsed)
                throw UsageError { "--optimizer must be one of " + optimizerChoices() + ", not "
                    + quoteForMessage(v) };
            o.optimizer = *parsed;
        } });
    all.push_back({ "--optimizer-impl", {}, "NAME", G::General,
        "how torch.optim runs the step: foreach|fused|for-loop [foreach]",
        [](Options& o, const std::string&, const std::string& v) {
            const auto parsed = parseOptimizerImplementation(v);
            if (!parsed)
                throw UsageError { "--optimizer-impl must be one of foreach|fused|for-loop, not "
                    + quoteForMessage(v) };
            o.optimizerImplementation = *parsed;
        } });
}

/// The rest of the set-up, and the output (also the help's "Options").
void addSetupOptions(std::vector<OptionSpec>& all)
{
    all.push_back({ "--precision", {}, "NAME", G::General, "fp32|amp-fp16|amp-bf16|fp16|bf16 [fp32]",
        [](Options& o, const std::string&, const std::string& v) {
            const auto parsed = parsePrecision(v);
            if (!parsed)
                throw UsageError { "--precision must be one of fp32|amp-fp16|amp-bf16|fp16|bf16, not "
                    + quoteForMessage(v) };
            o.precision = *parsed;
        } });
    all.push_back({ "--batch", {}, "N", G::General,
        "(micro-)batch size per GPU [" + std::to_string(kDefaultBatch) + "]",
        [](Options& o, const std::string&, const std::string& v) {
            const auto parsed = parseInteger(v);
            if (!parsed || *parsed < 1 || *parsed > kMaxBatch)
                throw UsageError { "--batch must be an integer from 1 to " + std::to_string(kMaxBatch)
                    + ", not " + quoteForMessage(v) };
            o.batch = *parsed;
        } });
    all.push_back(
        { "--overhead-mib", {}, "X", G::General, "MiB outside PyTorch's allocator [the GPU's CUDA context]",
            [](Options& o, const std::string&, const std::string& v) {
                const auto parsed = parseNumber(v);
                if (!parsed || *parsed < 0 || *parsed > 1024.0 * 1024.0)
                    throw UsageError { "--overhead-mib must be a number of MiB from 0 to 1048576, not "
                        + quoteForMessage(v) };
                o.overheadBytes = static_cast<std::uint64_t>(*parsed * static_cast<double>(kMiB));
            } });
    all.push_back({ "--calibration-fixed", {}, "BYTES", G::General,
        "a measured run's bytes beyond the plan at any batch (e.g. 100MiB),\n"
        "shown as the calibration component [0]",
        [](Options& o, const std::string& a, const std::string& v) {
            o.calibration.fixedBytes = byteSizeOption(a, v, kMaxCalibrationBytes);
        } });
    all.push_back({ "--calibration-per-sample", {}, "BYTES", G::General,
        "a measured run's bytes per sample beyond the plan (e.g. 3MiB) [0]",
        [](Options& o, const std::string& a, const std::string& v) {
            o.calibration.perSampleBytes = byteSizeOption(a, v, kMaxCalibrationPerSampleBytes);
        } });
    all.push_back({ "--expandable-segments", {}, {}, G::General,
        "simulate PyTorch's allocator with PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True",
        [](Options& o, const std::string&, const std::string&) { o.expandableSegments = true; },
        [](Options& o) { o.expandableSegments = false; } });
    all.push_back({ "--loss", {}, "NAME", G::General, choices(allLosses(), lossName) + " [as in the model]",
        [](Options& o, const std::string&, const std::string& v) {
            const auto parsed = parseLoss(v);
            if (!parsed)
                throw UsageError { "--loss must be one of " + choices(allLosses(), lossName) + ", not "
                    + quoteForMessage(v) };
            o.loss = *parsed;
        } });
    all.push_back({ "--json", {}, {}, G::General, "machine-readable output",
        [](Options& o, const std::string&, const std::string&) { o.json = true; } });
    all.push_back({ "--output", "-o", "FILE", G::General, "the report's PDF file",
        [](Options& o, const std::string&, const std::string& v) { o.output = v; } });
    all.push_back({ "--save-setup", {}, "FILE", G::General,
        "estimate: also write the model with this set-up saved in it\n"
        "(its \"training\", docs/model-format.md) to FILE",
        [](Options& o, const std::string& a, const std::string& v) {
            if (v.empty())
                throw UsageError { a + " needs a file name" };
            o.saveSetup = v;
        } });
}

/// What the model keeps and how the memory is spread: the help's "Training strategies".
void addStrategyOptions(std::vector<OptionSpec>& all)
{
    all.push_back({ "--checkpointing", {}, "MODE", G::Strategy,
        "none|per-block|selective activation checkpointing [none]",
        [](Options& o, const std::string&, const std::string& v) {
            const auto parsed = parseCheckpointing(v);
            if (!parsed)
                throw UsageError { "--checkpointing must be one of "
                    + choices(allCheckpointings(), checkpointingName) + ", not " + quoteForMessage(v) };
            o.checkpointing = *parsed;
        } });
    all.push_back({ "--attention", {}, "IMPL", G::Strategy,
        "sdpa|eager (eager keeps the T x T attention scores) [sdpa]",
        [](Options& o, const std::string&, const std::string& v) {
            const auto parsed = parseAttention(v);
            if (!parsed)
                throw UsageError { "--attention must be sdpa or eager, not " + quoteForMessage(v) };
            o.attention = *parsed;
        } });
    all.push_back({ "--sequence-length", {}, "T", G::Strategy,
        "tokens per sample, for sequence models [as in the model]",
        [](Options& o, const std::string& a, const std::string& v) {
            o.sequenceLength = integerOption(a, v, 1, kMaxBatch);
        } });
    all.push_back({ "--moe-imbalance", {}, "F", G::Strategy,
        "mixture of experts: the busiest expert's tokens over an even\n"
        "share, 1 to experts / top-k [1: balanced routing]",
        [](Options& o, const std::string&, const std::string& v) {
            const auto parsed = parseNumber(v);
            if (!parsed || !(*parsed >= 1 && *parsed <= kMaxMoeImbalance))
                throw UsageError { "--moe-imbalance must be a number from 1 (balanced routing) to "
                    + shortNumber(kMaxMoeImbalance) + ", not " + quoteForMessage(v) };
            o.moeImbalance = *parsed;
        } });
    all.push_back({ "--freeze", {}, "LIST", G::Strategy,
        "comma-separated layers to freeze (no gradients or optimizer state):\n"
        "top-level names, or block.layer inside a Repeat (every iteration)",
        [](Options& o, const std::string& a, const std::string& v) {
            const auto names = listOption(a, v);
            o.freeze.insert(o.freeze.end(), names.begin(), names.end());
        } });
}

/// LoRA and QLoRA (also "Training strategies").
void addLoraOptions(std::vector<OptionSpec>& all)
{
    all.push_back({ "--lora-rank", {}, "R", G::Strategy,
        "LoRA adapters of rank R; every other weight frozen (0: no LoRA) [off]",
        [](Options& o, const std::string& a, const std::string& v) {
            o.lora.rank = integerOption(a, v, 0, kMaxLoraRank);
        } });
    all.push_back({ "--lora-targets", {}, "LIST", G::Strategy,
        "comma-separated Linear layer names to adapt, e.g. q_proj,v_proj\n"
        "[every Linear layer but the output head]",
        [](Options& o, const std::string& a, const std::string& v) {
            o.lora.targets = listOption(a, v);
            o.loraTargetsGiven = true;
        } });
    all.push_back({ "--lora-dropout", {}, "P", G::Strategy, "LoRA dropout probability [0]",
        [](Options& o, const std::string&, const std::string& v) {
            const auto parsed = parseNumber(v);
            if (!parsed || !(*parsed >= 0 && *parsed < 1))
                throw UsageError { "--lora-dropout must be a probability from 0 to below 1, not "
                    + quoteForMessage(v) };
            o.lora.dropout = *parsed;
            o.loraDropoutGiven = true;
        } });
    all.push_back({ "--qlora", {}, {}, G::Strategy, "4-bit NF4 base weights (needs --lora-rank)",
        [](Options& o, const std::string&, const std::string&) { o.lora.quantizeBase = true; },
        [](Options& o) { o.lora.quantizeBase = false; } });
}

/// Pipeline parallelism: the stages, the schedule and its virtual stages, the layers of each stage.
void addPipelineOptions(std::vector<OptionSpec>& all)
{
    all.push_back({ "--pipeline-parallel", {}, "P", G::Strategy,
        "pipeline stages; micro-batches per step are --accumulation-steps [1]",
        [](Options& o, const std::string& a, const std::string& v) {
            o.parallel.pipelineParallel = integerOption(a, v, 1, kMaxParallelDegree);
        } });
    all.push_back({ "--schedule", {}, "NAME", G::Strategy,
        choices(allPipelineSchedules(), pipelineScheduleName) + " pipeline schedule [1f1b]",
        [](Options& o, const std::string&, const std::string& v) {
            const auto parsed = parsePipelineSchedule(v);
            if (!parsed)
                throw UsageError { "--schedule must be one of "
                    + choices(allPipelineSchedules(), pipelineScheduleName) + ", not " + quoteForMessage(v) };
            o.parallel.schedule = *parsed;
        } });
    all.push_back({ "--virtual-stages", {}, "V", G::Strategy,
        "model chunks per stage for the interleaved schedule (sets --schedule interleaved) [1]",
        [](Options& o, const std::string& a, const std::string& v) {
            o.parallel.virtualStages = integerOption(a, v, 1, kMaxParallelDegree);
            if (o.parallel.virtualStages > 1)
                o.parallel.schedule = PipelineSchedule::Interleaved;
        } });
    all.push_back({ "--stage-layers", {}, "LIST", G::Strategy,
        "comma-separated layers per pipeline stage, first to last, e.g. 7,9,9,7 [even]",
        [](Options& o, const std::string& a, const std::string& v) {
            o.parallel.stageLayers.clear();
            for (const auto& item : listOption(a, v))
                o.parallel.stageLayers.push_back(integerOption(a, item, 0, kMaxParallelDegree));
        } });
}

/// Accumulation, several GPUs, the optimizer state's form and the speed assumed (also "Training strategies").
void addParallelOptions(std::vector<OptionSpec>& all)
{
    all.push_back({ "--accumulation-steps", {}, "K", G::Strategy, "micro-batches per optimizer step [1]",
        [](Options& o, const std::string& a, const std::string& v) {
            o.accumulationSteps = integerOption(a, v, 1, kMaxAccumulationSteps);
        } });
    all.push_back(
        { "--gpus", {}, "N", G::Strategy, "GPUs in total (data x tensor x pipeline x context parallel) [1]",
            [](Options& o, const std::string& a, const std::string& v) {
                o.parallel.gpus = integerOption(a, v, 1, kMaxGpus);
            } });
    all.push_back({ "--sharding", {}, "MODE", G::Strategy, choices(allShardings(), shardingName) + " [ddp]",
        [](Options& o, const std::string&, const std::string& v) {
            const auto parsed = parseSharding(v);
            if (!parsed)
                throw UsageError { "--sharding must be one of " + choices(allShardings(), shardingName)
                    + ", not " + quoteForMessage(v) };
            o.parallel.sharding = *parsed;
        } });
    all.push_back(
        { "--tensor-parallel", {}, "T", G::Strategy, "tensor-parallel degree; must divide --gpus [1]",
            [](Options& o, const std::string& a, const std::string& v) {
                o.parallel.tensorParallel = integerOption(a, v, 1, kMaxGpus);
            } });
    all.push_back({ "--sequence-parallel", {}, {}, G::Strategy,
        "sequence parallelism over the tensor-parallel ranks (needs --tensor-parallel)",
        [](Options& o, const std::string&, const std::string&) { o.parallel.sequenceParallel = true; },
        [](Options& o) { o.parallel.sequenceParallel = false; } });
    addPipelineOptions(all);
    all.push_back({ "--context-parallel", {}, "C", G::Strategy,
        "context-parallel degree: the sequence split over C ranks [1]",
        [](Options& o, const std::string& a, const std::string& v) {
            o.parallel.contextParallel = integerOption(a, v, 1, kMaxParallelDegree);
        } });
    all.push_back({ "--context-parallel-kind", {}, "KIND", G::Strategy, "ring|all-to-all (Ulysses) [ring]",
        [](Options& o, const std::string&, const std::string& v) {
            const auto parsed = parseContextParallelism(v);
            if (!parsed)
                throw UsageError { "--context-parallel-kind must be ring or all-to-all, not "
                    + quoteForMessage(v) };
            o.parallel.contextKind = *parsed;
        } });
    all.push_back({ "--expert-parallel", {}, "E", G::Strategy,
        "expert-parallel degree: a mixture of experts' experts split over E ranks [1]",
        [](Options& o, const std::string& a, const std::string& v) {
            o.parallel.expertParallel = integerOption(a, v, 1, kMaxParallelDegree);
        } });
    all.push_back(
        { "--expert-tensor-parallel", {}, "T", G::Strategy, "each expert's matrices split over T ranks [1]",
            [](Options& o, const std::string& a, const std::string& v) {
                o.parallel.expertTensorParallel = integerOption(a, v, 1, kMaxParallelDegree);
            } });
    all.push_back({ "--offload-activations", {}, "WHAT", G::Strategy,
        choices(allActivationOffloads(), activationOffloadName)
            + " saved activations kept in CPU memory [none]",
        [](Options& o, const std::string&, const std::string& v) {
            const auto parsed = parseActivationOffload(v);
            if (!parsed)
                throw UsageError { "--offload-activations must be one of "
                    + choices(allActivationOffloads(), activationOffloadName) + ", not "
                    + quoteForMessage(v) };
            o.parallel.activationOffload = *parsed;
        } });
    all.push_back({ "--offload-optimizer", {}, {}, G::Strategy, "keep the optimizer state in CPU memory",
        [](Options& o, const std::string&, const std::string&) { o.parallel.offloadOptimizer = true; },
        [](Options& o) { o.parallel.offloadOptimizer = false; } });
    all.push_back({ "--8bit-optimizer", {}, {}, G::Strategy, "8-bit optimizer state (bitsandbytes)",
        [](Options& o, const std::string&, const std::string&) { o.eightBitOptimizer = true; },
        [](Options& o) { o.eightBitOptimizer = false; } });
    all.push_back({ "--utilization", {}, "U", G::Strategy,
        "assumed fraction of the GPU's peak FLOP rate, 0 < U <= 1 [0.4]",
        [](Options& o, const std::string&, const std::string& v) {
            const auto parsed = parseNumber(v);
            if (!parsed || !(*parsed >= kMinUtilization && *parsed <= 1))
                throw UsageError { "--utilization must be a fraction of peak from "
                    + shortNumber(kMinUtilization) + " to 1, not " + quoteForMessage(v) };
            o.utilization = *parsed;
        } });
    all.push_back({ "--gpus-per-node", {}, "K", G::Strategy,
        "GPUs per node: groups within one talk over the GPU's link, the\n"
        "rest over the network; plan --global-batch keeps tensor and\n"
        "expert parallelism within one [8]",
        [](Options& o, const std::string& a, const std::string& v) {
            o.gpusPerNode = integerOption(a, v, 1, kMaxGpus);
        } });
    all.push_back({ "--inter-node-gbps", {}, "B", G::Strategy,
        "network bandwidth between nodes per GPU, GB/s each way [50: one\n"
        "400 Gb/s InfiniBand adapter per GPU]",
        [](Options& o, const std::string&, const std::string& v) {
            const auto parsed = parseNumber(v);
            if (!parsed || !(*parsed > 0 && *parsed <= kMaxInterNodeGBps))
                throw UsageError {
                    "--inter-node-gbps must be a bandwidth in GB/s per GPU above 0 and at most "
                    + shortNumber(kMaxInterNodeGBps) + ", not " + quoteForMessage(v)
                };
            o.interNodeGBps = *parsed;
        } });
}

/// The goal of plan and compare, and what plan may change (the help's "Planning").
void addPlanningOptions(std::vector<OptionSpec>& all)
{
    all.push_back({ "--target-batch", {}, "N", G::Planning,
        "samples per optimizer step to reach [plan: the largest micro-batch;\n"
        "compare: the set-up's effective batch]",
        [](Options& o, const std::string& a, const std::string& v) {
            o.targetBatch = integerOption(a, v, 1, kMaxBatch);
        } });
    all.push_back({ "--global-batch", {}, "N", G::Planning,
        "plan: samples per optimizer step over all --gpus; searches the\n"
        "cluster's layouts (tensor x pipeline x data x context x expert\n"
        "parallel, schedule, micro-batch, recomputation, ZeRO)",
        [](Options& o, const std::string& a, const std::string& v) {
            o.globalBatch = integerOption(a, v, 1, kMaxBatch);
        } });
    all.push_back({ "--max-step-seconds", {}, "S", G::Planning,
        "plan: the longest an optimizer step may take [no limit]",
        [](Options& o, const std::string&, const std::string& v) {
            const auto parsed = parseNumber(v);
            if (!parsed || !(*parsed > 0 && *parsed <= kMaxStepSeconds))
                throw UsageError { "--max-step-seconds must be a number of seconds above 0 and at most "
                    + shortNumber(kMaxStepSeconds) + ", not " + quoteForMessage(v) };
            o.maxStepSeconds = *parsed;
        } });
    all.push_back({ "--allow", {}, "LIST", G::Planning,
        "plan may also change what training computes: precision, lora,\n"
        "8bit-optimizer, comma-separated [none]",
        [](Options& o, const std::string& a, const std::string& v) {
            for (const auto& item : listOption(a, v)) {
                if (item == "precision")
                    o.allow.precision = true;
                else if (item == "lora")
                    o.allow.lora = true;
                else if (item == "8bit-optimizer")
                    o.allow.eightBitOptimizer = true;
                else
                    throw UsageError { "--allow: " + quoteForMessage(item)
                        + " is not something plan may change; give precision, lora or 8bit-optimizer" };
            }
        } });
    all.push_back(
        { "--all", {}, {}, G::Planning, "plan: list every set-up [the 10 fastest and the Pareto front]",
            [](Options& o, const std::string&, const std::string&) { o.listAll = true; } });
    all.push_back(
        { "--gpus-list", {}, "LIST", G::Planning, "compare: comma-separated GPUs [the whole catalogue]",
            [](Options& o, const std::string& a, const std::string& v) {
                const auto names = listOption(a, v);
                o.gpuList.insert(o.gpuList.end(), names.begin(), names.end());
            } });
    all.push_back({ "--include-plan", {}, {}, G::Planning,
        "report: add plan's table (for --target-batch, --max-step-seconds\n"
        "and --allow as plan takes them)",
        [](Options& o, const std::string&, const std::string&) { o.includePlan = true; } });
}

/// A recorded run beside the plan (issue 36): the help's "Measured run".
void addMeasuredOptions(std::vector<OptionSpec>& all)
{
    all.push_back({ "--model", {}, "FILE", G::Measured,
        "measured: compare the run with this model's plan (set up by the\n"
        "options above)",
        [](Options& o, const std::string&, const std::string& v) { o.model = v; } });
    all.push_back({ "--measured", {}, "RUN", G::Measured,
        "report: add a page comparing the plan with this recorded run (a\n"
        "memory snapshot, memory timeline or Chrome trace)",
        [](Options& o, const std::string&, const std::string& v) { o.measured = v; } });
    all.push_back(
        { "--run-batch", {}, "N", G::Measured, "the recorded run's micro-batch [the plan's --batch]",
            [](Options& o, const std::string& a, const std::string& v) {
                o.runBatch = integerOption(a, v, 1, kMaxBatch);
            } });
    all.push_back({ "--run-precision", {}, "NAME", G::Measured,
        "the recorded run's precision, as --precision [the plan's]",
        [](Options& o, const std::string&, const std::string& v) {
            const auto parsed = parsePrecision(v);
            if (!parsed)
                throw UsageError { "--run-precision must be one of fp32|amp-fp16|amp-bf16|fp16|bf16, not "
                    + quoteForMessage(v) };
            o.runPrecision = *parsed;
        } });
    all.push_back(
        { "--calibrate", {}, {}, G::Measured, "measured: the plan calibrated from the run, and its max batch",
            [](Options& o, const std::string&, const std::string&) { o.calibrate = true; } });
}

} // namespace

std::string optimizerChoices()
{
    std::string s;
    for (const auto o : allOptimizers())
        s += (s.empty() ? "" : "|") + std::string(optimizerName(o));
    return s;
}

std::string OptionSpec::offName() const
{
    return turnOff != nullptr ? "--no-" + std::string(name.substr(2)) : std::string();
}

std::string OptionSpec::synopsis() const
{
    // A switch with a --no- form is listed once, as git lists its own: "--[no-]qlora".
    const std::string longName
        = turnOff != nullptr ? "--[no-]" + std::string(name.substr(2)) : std::string(name);
    std::string text = shortName.empty() ? longName : std::string(shortName) + ", " + longName;
    if (takesValue())
        text += " " + std::string(valueName);
    return text;
}

const std::vector<OptionSpec>& allOptions()
{
    static const std::vector<OptionSpec> all = [] {
        std::vector<OptionSpec> options;
        addGpuAndOptimizerOptions(options);
        addSetupOptions(options);
        addStrategyOptions(options);
        addLoraOptions(options);
        addParallelOptions(options);
        addPlanningOptions(options);
        addMeasuredOptions(options);
        return options;
    }();
    return all;
}

const OptionSpec* findOption(std::string_view name)
{
    for (const auto& option : allOptions()) {
        if (option.name == name || (!option.shortName.empty() && option.shortName == name)
            || (option.turnOff != nullptr && name == option.offName()))
            return &option;
    }
    return nullptr;
}

} // namespace headroom::cli

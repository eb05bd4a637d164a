// headroom plan: the set-ups that fit the GPU and reach the goal, each with the `headroom estimate`
// arguments that reproduce it.
#include "Command.h"
#include "Output.h"
#include "PlanFromOptions.h"
#include "PlanText.h" // report/
#include "TextTable.h"
#include "headroom/planner/ClusterPlanner.h"
#include "headroom/planner/Planner.h"
#include "headroom/support/Format.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <ostream>

namespace headroom::cli {

namespace {

/// Under the table: what its columns mean.
constexpr const char* kLegend
    = "\nTraining \"changed\": the set-up computes something different (precision, LoRA, 8-bit state, or\n"
      "batch-norm statistics over smaller micro-batches). Pareto *: no other set-up is faster with as\n"
      "little memory. Planned batch: the micro-batch (x accumulation steps x GPUs) each set-up runs to\n"
      "reach the goal, not the batch given; Memory what each GPU holds at the peak (reserved by PyTorch\n"
      "plus the overhead); Max batch the largest micro-batch that fits.\n\n"
      "Each with headroom estimate:\n";

/// How many set-ups `plan` lists without --all (the Pareto front is always listed in full).
constexpr std::size_t kListedSetups = 10;

/// An argument as a POSIX shell reads it back: bare when it is safe, otherwise single-quoted.
std::string shellQuoted(const std::string& arg)
{
    const bool safe = !arg.empty() && std::all_of(arg.begin(), arg.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c))
            || std::string_view("_./,:=+-@%").find(c) != std::string_view::npos;
    });
    if (safe)
        return arg;
    std::string quoted = "'";
    for (const char c : arg)
        quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return quoted + "'";
}

/// The options of the model-parallel layout (each only where it is not what `headroom estimate` starts
/// from: the default, or the model file's saved set-up `base`).
template <typename Add>
void addParallelArguments(const Add& add, const Parallelism& par, const Parallelism& base)
{
    if (par.sequenceParallel)
        add("--sequence-parallel", {});
    else if (base.sequenceParallel)
        add("--no-sequence-parallel", {});
    if (par.pipelineParallel != base.pipelineParallel)
        add("--pipeline-parallel", std::to_string(par.pipelineParallel));
    if (par.schedule != base.schedule)
        add("--schedule", std::string(pipelineScheduleName(par.schedule)));
    if (par.virtualStages != base.virtualStages)
        add("--virtual-stages", std::to_string(par.virtualStages));
    if (!par.stageLayers.empty() && par.stageLayers != base.stageLayers) {
        std::string list;
        for (const std::int64_t n : par.stageLayers)
            list += (list.empty() ? "" : ",") + std::to_string(n);
        add("--stage-layers", list);
    }
    if (par.contextParallel != base.contextParallel)
        add("--context-parallel", std::to_string(par.contextParallel));
    if (par.contextKind != base.contextKind)
        add("--context-parallel-kind", std::string(contextParallelismName(par.contextKind)));
    if (par.expertParallel != base.expertParallel)
        add("--expert-parallel", std::to_string(par.expertParallel));
    if (par.expertTensorParallel != base.expertTensorParallel)
        add("--expert-tensor-parallel", std::to_string(par.expertTensorParallel));
    if (par.activationOffload != base.activationOffload)
        add("--offload-activations", std::string(activationOffloadName(par.activationOffload)));
}

/// The `headroom estimate` arguments that reproduce a planned set-up: the plan's own options as given,
/// then the settings the planner chose (each only where it is not the default, or with a set-up saved in
/// the model file, where it is not the file's: the command starts from it, docs/cli.md).
std::vector<std::string> estimateArguments(const Options& o, const Plan& plan, const PlanSettings& s)
{
    std::vector<std::string> args { "estimate", o.file };
    if (!plan.gpu.custom)
        args.insert(args.end(), { "--gpu", plan.gpu.name });
    args.insert(args.end(), o.kept.begin(), o.kept.end());
    const auto add = [&](std::string option, std::string value) {
        args.push_back(std::move(option));
        if (!value.empty())
            args.push_back(std::move(value));
    };
    const TrainingSetup& t = s.setup;
    const PlanSettings base = o.savedSetup.value_or(PlanSettings {});
    if (s.precision != base.precision)
        add("--precision", std::string(precisionName(s.precision)));
    add("--batch", std::to_string(t.batch));
    if (t.accumulationSteps != base.setup.accumulationSteps)
        add("--accumulation-steps", std::to_string(t.accumulationSteps));
    if (s.checkpointing != base.checkpointing)
        add("--checkpointing", std::string(checkpointingName(s.checkpointing)));
    if (t.optimizerImplementation != base.setup.optimizerImplementation)
        add("--optimizer-impl", std::string(optimizerImplementationName(t.optimizerImplementation)));
    // A switch the file turns on and the set-up has off is turned off (docs/cli.md).
    if (t.eightBitOptimizer)
        add("--8bit-optimizer", {});
    else if (base.setup.eightBitOptimizer)
        add("--no-8bit-optimizer", {});
    if (s.lora.enabled()) {
        add("--lora-rank", std::to_string(s.lora.rank));
        args.insert(args.end(), o.keptLora.begin(), o.keptLora.end());
        if (s.lora.quantizeBase)
            add("--qlora", {});
        else if (base.lora.quantizeBase)
            add("--no-qlora", {});
    } else if (base.lora.enabled()) {
        add("--lora-rank", "0");
    }
    if (t.parallel.gpus != base.setup.parallel.gpus)
        add("--gpus", std::to_string(t.parallel.gpus));
    if (t.parallel.sharding != base.setup.parallel.sharding)
        add("--sharding", std::string(shardingName(t.parallel.sharding)));
    if (t.parallel.tensorParallel != base.setup.parallel.tensorParallel)
        add("--tensor-parallel", std::to_string(t.parallel.tensorParallel));
    if (t.parallel.offloadOptimizer)
        add("--offload-optimizer", {});
    else if (base.setup.parallel.offloadOptimizer)
        add("--no-offload-optimizer", {});
    addParallelArguments(add, t.parallel, base.setup.parallel);
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
        return "As set up"; // the GUI's and the report's words (report::PlannerText::changes)
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
        changes.push_back({ { "setting", setupSettingName(change.setting) }, { "value", change.value },
            { "text", change.text }, { "changes_training", change.changesTraining } });
    const TrainingSetup& t = c.settings.setup;
    const Estimate& e = c.estimate;
    const auto args = estimateArguments(o, plan, c.settings);
    ordered_json j;
    j["changes"] = changes;
    j["changes_training"] = c.changesTraining();
    j["settings"] = { { "precision", precisionName(c.settings.precision) },
        { "checkpointing", checkpointingName(c.settings.checkpointing) },
        { "lora", { { "rank", c.settings.lora.rank }, { "quantize_base", c.settings.lora.quantizeBase } } },
        { "optimizer_implementation", optimizerImplementationName(t.optimizerImplementation) },
        { "eight_bit_optimizer", t.eightBitOptimizer } };
    const ordered_json parallel = parallelismToJson(t.parallel);
    for (auto it = parallel.begin(); it != parallel.end(); ++it)
        j["settings"][it.key()] = it.value();
    j["micro_batch"] = t.batch;
    j["accumulation_steps"] = t.accumulationSteps;
    j["effective_batch"] = e.effectiveBatch;
    j["peak_bytes"] = e.peakBytes(); // the tensors'
    j["held_at_peak_bytes"] = e.heldBytes; // what the GPU holds: the ranking's memory
    j["headroom_bytes"] = e.headroomBytes();
    j["gpu_memory_bytes"] = e.gpuMemoryBytes;
    j["fits"] = e.fits;
    j["max_batch"] = e.maxBatch;
    j["max_effective_batch"] = e.maxEffectiveBatch;
    const bool timed = c.throughput.has_value();
    j["step_seconds"] = timed ? ordered_json(c.throughput->stepSeconds) : ordered_json(nullptr);
    j["samples_per_second"] = timed ? ordered_json(c.throughput->samplesPerSecond) : ordered_json(nullptr);
    j["samples_per_second_per_gpu"]
        = timed ? ordered_json(c.samplesPerSecondPerGpu()) : ordered_json(nullptr);
    j["tokens_per_second_per_gpu"] = timed ? ordered_json(c.tokensPerSecondPerGpu()) : ordered_json(nullptr);
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

void printPlanJson(
    const Options& o, const Plan& plan, const PlanGoal& goal, const PlannerResult& r, std::ostream& out)
{
    using nlohmann::ordered_json;
    ordered_json j;
    j["model"] = plan.network.name;
    j["gpu"] = { { "name", plan.gpu.name }, { "memory_bytes", plan.gpu.memoryBytes } };
    j["gpus"] = plan.setup.parallel.gpus;
    j["goal"]
        = { { "target_batch", goal.targetBatch ? ordered_json(*goal.targetBatch) : ordered_json(nullptr) },
              { "max_step_seconds",
                  goal.maxStepSeconds ? ordered_json(*goal.maxStepSeconds) : ordered_json(nullptr) } };
    j["allowed"] = { { "precision", o.allow.precision }, { "lora", o.allow.lora },
        { "eight_bit_optimizer", o.allow.eightBitOptimizer } };
    j["setups_examined"] = r.setupsExamined;
    j["analyses"] = r.analyses;
    j["left_out"] = r.leftOut;
    auto list = ordered_json::array();
    for (const auto& c : r.candidates)
        list.push_back(candidateJson(o, plan, c));
    j["setups"] = list;
    if (r.closest && r.shortfall) {
        const PlanShortfall& s = *r.shortfall;
        static constexpr const char* kKinds[] = { "memory", "batch", "step_time" };
        j["nothing_fits"] = { { "reason", kKinds[static_cast<int>(s.kind)] }, { "text", s.text() },
            { "bytes_over", s.bytesOver }, { "batch_short", s.batchShort },
            { "seconds_over",
                std::isfinite(s.secondsOver) ? ordered_json(s.secondsOver) : ordered_json(nullptr) },
            { "closest", candidateJson(o, plan, *r.closest) } };
    } else {
        j["nothing_fits"] = nullptr;
    }
    writeJson(out, std::move(j), 2);
}

/// Where the plan starts from, its goal and what the search covered.
void printPlanHeader(
    const Options& o, const Plan& plan, const PlanGoal& goal, const PlannerResult& r, std::ostream& out)
{
    using namespace report::plantext;
    const std::int64_t gpus = plan.setup.parallel.gpus;
    keyLine(out, "Model", plan.network.name);
    keyLine(out, "Starting from",
        std::string(optimizerLabel(plan.setup.optimizer)) + ", "
            + std::string(precisionLabel(plan.precision)));
    for (const auto& [key, value] : strategyRows(plan))
        keyLine(out, key, value);
    keyLine(out, "GPU",
        plan.gpu.name + " (" + formatBytes(plan.gpu.memoryBytes) + ")"
            + (gpus > 1 ? " x " + std::to_string(gpus) : ""));
    keyLine(out, "Goal", goalText(goal));
    keyLine(out, "May change",
        allowedText(o.allow) + (gpus > 1 ? ", sharding, tensor parallelism" : "") + ", offload where needed");
    keyLine(out, "Searched",
        plural(static_cast<std::int64_t>(r.setupsExamined), "set-up", "set-ups") + " over "
            + plural(static_cast<std::int64_t>(r.analyses), "analysis", "analyses"));
    for (const std::string& what : r.leftOut)
        keyLine(out, "Left out", what);
    out << '\n';
}

/// The table of set-ups; returns the indices it listed.
std::vector<std::size_t> printSetupTable(const Options& o, const PlannerResult& r, std::ostream& out)
{
    using namespace report::plantext;
    const bool tokens = std::any_of(r.candidates.begin(), r.candidates.end(),
        [](const PlanCandidate& c) { return c.tokensPerSecondPerGpu() > 0; });
    using Align = TextTable::Align;
    std::vector<TextTable::Column> columns { { "#", Align::Right }, { "What changes" }, { "Training" },
        { "Planned batch" }, { "Memory", Align::Right }, { "Max batch", Align::Right },
        { "Step", Align::Right }, { "Samples/s/GPU", Align::Right } };
    if (tokens)
        columns.push_back({ "Tokens/s/GPU", Align::Right });
    columns.push_back({ "Pareto" });
    TextTable table(columns);
    std::vector<std::size_t> listed;
    for (std::size_t i = 0; i < r.candidates.size(); ++i) {
        const PlanCandidate& c = r.candidates[i];
        if (!o.listAll && i >= kListedSetups && !c.paretoOptimal)
            continue;
        listed.push_back(i);
        std::vector<std::string> row { std::to_string(i + 1), changesText(c),
            c.changesTraining() ? "changed" : "same", batchText(c.settings.setup),
            formatBytes(c.estimate.heldBytes), std::to_string(c.estimate.maxBatch),
            c.throughput ? formatSeconds(c.throughput->stepSeconds) : "-",
            c.throughput ? formatRate(c.samplesPerSecondPerGpu()) : "-" };
        if (tokens)
            row.push_back(c.throughput ? formatRate(c.tokensPerSecondPerGpu()) : "-");
        row.push_back(c.paretoOptimal ? "*" : "");
        table.addRow(std::move(row));
    }
    table.print(out);
    return listed;
}

int printPlanText(
    const Options& o, const Plan& plan, const PlanGoal& goal, const PlannerResult& r, std::ostream& out)
{
    using namespace report::plantext;
    printPlanHeader(o, plan, goal, r, out);
    if (r.candidates.empty()) {
        out << "Nothing fits: no set-up reaches " << goalText(goal) << " on the " << plan.gpu.name << ".\n";
        if (r.closest && r.shortfall) {
            const PlanCandidate& c = *r.closest;
            out << "Closest: " << changesText(c) << " (micro-batch " << batchText(c.settings.setup) << ", "
                << formatBytes(c.estimate.heldBytes) << ") " << r.shortfall->text() << ".\n";
            out << "  " << commandText(estimateArguments(o, plan, c.settings)) << '\n';
        }
        return kExitDoesNotFit;
    }
    const std::vector<std::size_t> listed = printSetupTable(o, r, out);
    if (listed.size() < r.candidates.size())
        out << plural(static_cast<std::int64_t>(r.candidates.size() - listed.size()), "more set-up fits",
            "more set-ups fit")
            << " (--all lists every one).\n";
    out << kLegend;
    for (const std::size_t i : listed)
        out << std::right << std::setw(3) << i + 1 << "  " << std::left
            << commandText(estimateArguments(o, plan, r.candidates[i].settings)) << '\n';
    return kExitOk;
}

// --- The cluster search (--global-batch) ---

/// How many layouts `plan --global-batch` lists, and with --all.
constexpr std::size_t kListedLayouts = 10;
constexpr std::size_t kListedLayoutsAll = 100;

/// The options the cluster search chooses itself, refused beside --global-batch.
constexpr const char* kClusterChosen[] = { "--tensor-parallel", "--pipeline-parallel", "--schedule",
    "--virtual-stages", "--stage-layers", "--context-parallel", "--expert-parallel",
    "--expert-tensor-parallel", "--sequence-parallel", "--context-parallel-kind", "--offload-activations",
    "--accumulation-steps", "--target-batch", "--max-step-seconds", "--allow" };

ClusterRequest clusterRequest(const Options& o, const Plan& plan)
{
    for (const std::string& typed : o.given) {
        const OptionSpec* spec = findOption(typed);
        const bool chosen = spec != nullptr
            && std::any_of(std::begin(kClusterChosen), std::end(kClusterChosen),
                [&](const char* option) { return spec->name == option; });
        if (chosen)
            throw UsageError {
                typed
                + " is not taken with --global-batch: the cluster search chooses the layout, the "
                  "micro-batch and the accumulation steps, and keeps precision, LoRA and optimizer as given"
            };
    }
    ClusterRequest r;
    r.gpus = plan.setup.parallel.gpus; // as given, or as the model file's set-up says
    r.gpusPerNode = o.gpusPerNode;
    r.globalBatch = *o.globalBatch;
    if (wasGiven(o, "--checkpointing"))
        r.recomputation = { o.checkpointing };
    if (wasGiven(o, "--sharding"))
        r.shardings = { o.parallel.sharding };
    r.offloadOptimizer = plan.setup.parallel.offloadOptimizer;
    r.listed = o.listAll ? kListedLayoutsAll : kListedLayouts;
    return r;
}

/// "1F1B", "interleaved x2".
std::string scheduleText(const Parallelism& p)
{
    if (p.pipelineParallel == 1)
        return "-";
    if (p.schedule == PipelineSchedule::Interleaved)
        return "interleaved x" + std::to_string(p.virtualStages);
    return std::string(pipelineScheduleName(p.schedule));
}

nlohmann::ordered_json layoutJson(const Options& o, const Plan& plan, const ClusterLayout& l)
{
    using nlohmann::ordered_json;
    const TrainingSetup& t = l.settings.setup;
    const auto args = estimateArguments(o, plan, l.settings);
    ordered_json j;
    j["settings"] = parallelismToJson(t.parallel);
    j["settings"]["checkpointing"] = checkpointingName(l.settings.checkpointing);
    j["micro_batch"] = t.batch;
    j["accumulation_steps"] = t.accumulationSteps;
    j["heaviest_stage"] = l.heaviestStage;
    j["heaviest_stage_layers"] = l.heaviestStageText;
    j["peak_bytes"] = l.estimate.peakBytes(); // the tensors'
    j["held_at_peak_bytes"] = l.estimate.heldBytes; // what the GPU holds: the reserved peak + overhead
    j["reserved_peak_bytes"]
        = l.reserved.replayed() ? ordered_json(l.reserved.peakReservedBytes) : ordered_json(nullptr);
    j["gpu_memory_bytes"] = l.estimate.gpuMemoryBytes;
    j["max_batch"] = l.estimate.maxBatch;
    j["step_seconds"] = l.throughput.stepSeconds;
    j["bubble_fraction"] = l.bubbleFraction;
    j["samples_per_second"] = l.throughput.samplesPerSecond;
    j["tokens_per_second_per_gpu"] = l.throughput.tokensPerSecond / static_cast<double>(t.parallel.gpus);
    j["estimate_arguments"] = args;
    j["command"] = commandText(args);
    return j;
}

int runClusterPlan(const Options& o, const Plan& plan, const CommandContext& c)
{
    using namespace report::plantext;
    const ClusterRequest request = clusterRequest(o, plan);
    const auto planned = planCluster(plan, request);
    if (!planned)
        throw UsageError { "cannot plan the cluster: " + planned.error().message };
    const ClusterPlan& r = planned.value();
    if (o.json) {
        using nlohmann::ordered_json;
        ordered_json j;
        j["model"] = plan.network.name;
        j["gpu"] = { { "name", plan.gpu.name }, { "memory_bytes", plan.gpu.memoryBytes } };
        j["gpus"] = request.gpus;
        j["gpus_per_node"] = request.gpusPerNode;
        j["global_batch"] = request.globalBatch;
        j["layouts_enumerated"] = r.layoutsEnumerated;
        j["layouts_examined"] = r.layoutsExamined;
        j["layouts_not_fitting"] = r.layoutsNotFitting;
        j["layouts_rejected_by_allocator"] = r.layoutsReplayRejected;
        j["layouts_slower"] = r.layoutsSlower;
        j["analyses"] = r.analyses;
        j["step_models"] = r.memoryModels;
        j["allocator_replays"] = r.replays;
        j["left_out"] = r.leftOut;
        auto list = ordered_json::array();
        for (const ClusterLayout& l : r.layouts)
            list.push_back(layoutJson(o, plan, l));
        j["layouts"] = list;
        j["nothing_fits"] = r.nothingFits.empty() ? ordered_json(nullptr) : ordered_json(r.nothingFits);
        writeJson(c.out, std::move(j), 2);
        return r.layouts.empty() ? kExitDoesNotFit : kExitOk;
    }
    std::ostream& out = c.out;
    keyLine(out, "Model", plan.network.name);
    keyLine(out, "Training",
        std::string(optimizerLabel(plan.setup.optimizer)) + ", "
            + std::string(precisionLabel(plan.precision)));
    keyLine(out, "GPUs",
        formatCount(static_cast<std::uint64_t>(request.gpus)) + " x " + plan.gpu.name + " ("
            + formatBytes(plan.gpu.memoryBytes) + "), " + std::to_string(request.gpusPerNode) + " per node");
    keyLine(out, "Goal",
        "global batch " + std::to_string(request.globalBatch)
            + " (micro-batch x accumulation steps x data parallel)");
    keyLine(out, "Searched",
        plural(static_cast<std::int64_t>(r.layoutsEnumerated), "layout", "layouts") + ", "
            + formatCount(r.layoutsExamined) + " worked out ("
            + plural(static_cast<std::int64_t>(r.analyses), "analysis", "analyses") + ", "
            + plural(static_cast<std::int64_t>(r.memoryModels), "step model", "step models") + ", "
            + plural(static_cast<std::int64_t>(r.replays), "allocator replay", "allocator replays") + ")");
    for (const std::string& what : r.leftOut)
        keyLine(out, "Left out", what);
    out << '\n';
    if (r.layouts.empty()) {
        out << "Nothing fits: " << r.nothingFits << ".\n";
        return kExitDoesNotFit;
    }
    using Align = TextTable::Align;
    TextTable table({ { "#", Align::Right }, { "TP", Align::Right }, { "PP", Align::Right }, { "Schedule" },
        { "CP", Align::Right }, { "EP", Align::Right }, { "DP", Align::Right }, { "Sharding" },
        { "Recompute" }, { "Batch" }, { "Tensors", Align::Right }, { "Reserved", Align::Right },
        { "Step", Align::Right }, { "Bubble", Align::Right }, { "Tokens/s/GPU", Align::Right } });
    for (std::size_t i = 0; i < r.layouts.size(); ++i) {
        const ClusterLayout& l = r.layouts[i];
        const TrainingSetup& t = l.settings.setup;
        const Parallelism& p = t.parallel;
        const double perGpu
            = l.throughput.tokensPerSecond > 0 ? l.throughput.tokensPerSecond : l.throughput.samplesPerSecond;
        table.addRow({ std::to_string(i + 1), std::to_string(p.tensorParallel),
            std::to_string(p.pipelineParallel), scheduleText(p), std::to_string(p.contextParallel),
            std::to_string(p.expertParallel), std::to_string(p.dataParallel()),
            std::string(shardingName(p.sharding)) + (p.offloadOptimizer ? "+offload" : ""),
            std::string(checkpointingName(l.settings.checkpointing)),
            std::to_string(t.batch) + " x " + std::to_string(t.accumulationSteps),
            formatBytes(l.estimate.peakBytes()),
            l.reserved.replayed() ? formatBytes(l.reserved.peakWithOverheadBytes()) : "-",
            formatSeconds(l.throughput.stepSeconds),
            std::to_string(static_cast<int>(l.bubbleFraction * 100.0 + 0.5)) + " %",
            formatRate(perGpu / static_cast<double>(p.gpus)) });
    }
    table.print(out);
    out << "\nTP tensor (with sequence) parallel, PP pipeline stages, CP context parallel, EP expert "
           "parallel,\n"
           "DP data parallel; Batch the micro-batch x micro-batches per step on each data-parallel rank;\n"
           "Tensors the heaviest pipeline stage's GPU's peak by the tensors, Reserved what PyTorch's\n"
           "caching allocator reserves there at its peak plus the overhead; Step the slowest stage's step\n"
           "with the communication compute does not hide and the pipeline bubble; Tokens/s/GPU (samples\n"
           "for other models).\n\n"
           "Each with headroom estimate:\n";
    for (std::size_t i = 0; i < r.layouts.size(); ++i)
        out << std::right << std::setw(3) << i + 1 << "  " << std::left
            << commandText(estimateArguments(o, plan, r.layouts[i].settings)) << '\n';
    return kExitOk;
}

int runPlan(const Options& given, const CommandContext& c)
{
    Options o = given;
    const Plan plan = makePlan(given, c.executablePath, &o.savedSetup);
    if (o.globalBatch)
        return runClusterPlan(o, plan, c);
    const PlanGoal goal { o.targetBatch, o.maxStepSeconds };
    const auto planned = planSetups(plan, goal, o.allow);
    if (!planned)
        throw UsageError { "cannot plan: " + planned.error().message };
    const PlannerResult& r = planned.value();
    if (o.json) {
        printPlanJson(o, plan, goal, r, c.out);
        return r.candidates.empty() ? kExitDoesNotFit : kExitOk;
    }
    return printPlanText(o, plan, goal, r, c.out);
}

} // namespace

ClusterRequest clusterRequestFromOptions(const Options& o, const Plan& plan)
{
    return clusterRequest(o, plan);
}

constexpr const char* kDescription
    = "The set-ups that fit the GPU and reach the goal (an effective batch, or the largest micro-batch),\n"
      "fastest first (estimated samples per second per GPU), with what each changes, whether that\n"
      "changes what training computes, its memory, max batch and step time, the memory/speed Pareto\n"
      "front, and the `headroom estimate` options that reproduce each. Checkpointing, accumulation,\n"
      "the optimizer step's implementation and, on several GPUs, sharding and tensor parallelism always\n"
      "vary; precision, LoRA and 8-bit optimizer state only with --allow. When nothing fits: the\n"
      "closest set-up and what it lacks, with exit code 1.\n"
      "With --global-batch: the layouts of the --gpus GPUs (tensor x pipeline x data x context x expert\n"
      "parallel, the schedule, micro-batch, recomputation and ZeRO stage) whose heaviest GPU fits with\n"
      "what the allocator reserves, fastest first (the 10 fastest; --all: 100), with what the search left\n"
      "out; --checkpointing and --sharding, when given, fix those.\n";

const Command& planCommand()
{
    static const Command command {
        .name = "plan",
        .usage = "FILE [--gpu NAME] [--gpus N] [--target-batch N] [--max-step-seconds S]\n"
                 "[--allow LIST] [--all] [options] [--json]\n"
                 "FILE --gpus N --global-batch N [--gpus-per-node K] [options] [--json]",
        .summary = "the set-ups that fit and reach the goal, fastest first,\n"
                   "each with the estimate options that reproduce it",
        .description = kDescription,
        .options = setupOptions({ "--batch" },
            { { "--json" },
                { "--target-batch",
                    "samples per optimizer step to reach [the largest micro-batch that fits]" },
                { "--max-step-seconds", "the longest an optimizer step may take [no limit]" }, { "--allow" },
                { "--global-batch" },
                { "--all", "list every set-up [the 10 fastest and the Pareto front]" } }),
        .refused = { { "--batch",
            "plan chooses the micro-batch: give the goal with --target-batch instead of --batch" } },
        .run = runPlan,
    };
    return command;
}

} // namespace headroom::cli

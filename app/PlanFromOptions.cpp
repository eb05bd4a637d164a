#include "PlanFromOptions.h"

#include "headroom/estimate/SetupFile.h"
#include "headroom/importers/NetworkFile.h"
#include "headroom/setup/Freeze.h"
#include "headroom/support/Format.h"
#include "headroom/support/Resources.h"

#include <optional>
#include <ostream>
#include <string_view>

namespace headroom::cli {

namespace {

/// Warnings printed before the result; the rest are counted in one more line.
constexpr std::size_t kMaxWarningLines = 20;

std::string resourceDirOrThrow(const std::string& executablePath)
{
    const auto dir = findResourceDir(executablePath);
    if (!dir)
        throw UsageError { "cannot find Headroom's data folder (gpus.json); set HEADROOM_RESOURCES" };
    return *dir;
}

/// `o` with each set-up setting that no option gave taken from the model file's saved set-up (the GPU and
/// the overhead are makePlan's): the options override the file setting by setting (docs/cli.md).
Options withSavedSetup(Options o, const PlanSettings& file)
{
    const auto given = [&](std::string_view option) { return wasGiven(o, option); };
    const TrainingSetup& t = file.setup;
    if (!given("--precision"))
        o.precision = file.precision;
    if (!given("--optimizer"))
        o.optimizer = t.optimizer;
    if (!given("--optimizer-impl"))
        o.optimizerImplementation = t.optimizerImplementation;
    if (!given("--8bit-optimizer"))
        o.eightBitOptimizer = t.eightBitOptimizer;
    if (!given("--batch"))
        o.batch = t.batch;
    if (!given("--accumulation-steps"))
        o.accumulationSteps = t.accumulationSteps;
    if (!given("--expandable-segments"))
        o.expandableSegments = t.expandableSegments;
    if (!given("--utilization"))
        o.utilization = t.assumedUtilization;
    if (!given("--gpus-per-node"))
        o.gpusPerNode = t.gpusPerNode;
    if (!given("--inter-node-gbps"))
        o.interNodeGBps = t.interNodeGBps;
    if (!given("--calibration-fixed") && !given("--calibration-per-sample"))
        o.calibration = t.calibration;
    else if (!given("--calibration-fixed"))
        o.calibration.fixedBytes = t.calibration.fixedBytes;
    else if (!given("--calibration-per-sample"))
        o.calibration.perSampleBytes = t.calibration.perSampleBytes;
    if (!given("--checkpointing"))
        o.checkpointing = file.checkpointing;
    if (!given("--attention"))
        o.attention = file.attention;
    if (!given("--sequence-length"))
        o.sequenceLength = file.sequenceLength;
    if (!given("--moe-imbalance"))
        o.moeImbalance = file.moeImbalance;
    if (!given("--lora-rank"))
        o.lora.rank = file.lora.rank;
    if (!o.loraTargetsGiven)
        o.lora.targets = file.lora.targets;
    if (!o.loraDropoutGiven)
        o.lora.dropout = file.lora.dropout;
    // The file's QLoRA goes with its LoRA: --lora-rank 0 turns both off.
    if (!given("--qlora"))
        o.lora.quantizeBase = file.lora.quantizeBase && o.lora.enabled();
    Parallelism& par = o.parallel;
    const Parallelism& saved = t.parallel;
    if (!given("--gpus"))
        par.gpus = saved.gpus;
    if (!given("--sharding"))
        par.sharding = saved.sharding;
    if (!given("--offload-optimizer"))
        par.offloadOptimizer = saved.offloadOptimizer;
    if (!given("--tensor-parallel"))
        par.tensorParallel = saved.tensorParallel;
    if (!given("--sequence-parallel"))
        par.sequenceParallel = saved.sequenceParallel;
    if (!given("--pipeline-parallel"))
        par.pipelineParallel = saved.pipelineParallel;
    // --virtual-stages above 1 chooses the interleaved schedule as --schedule would.
    if (!given("--schedule") && !(given("--virtual-stages") && par.virtualStages > 1))
        par.schedule = saved.schedule;
    if (!given("--virtual-stages"))
        par.virtualStages = saved.virtualStages;
    if (!given("--stage-layers"))
        par.stageLayers = saved.stageLayers;
    if (!given("--context-parallel"))
        par.contextParallel = saved.contextParallel;
    if (!given("--context-parallel-kind"))
        par.contextKind = saved.contextKind;
    if (!given("--expert-parallel"))
        par.expertParallel = saved.expertParallel;
    if (!given("--expert-tensor-parallel"))
        par.expertTensorParallel = saved.expertTensorParallel;
    if (!given("--offload-activations"))
        par.activationOffload = saved.activationOffload;
    return o;
}

} // namespace

GpuCatalog loadCatalog(const std::string& executablePath)
{
    auto catalog = GpuCatalog::fromFile(resourceDirOrThrow(executablePath) + "/gpus.json");
    if (!catalog)
        throw UsageError { catalog.error().message };
    return std::move(catalog).value();
}

Plan makePlan(
    const Options& given, const std::string& executablePath, std::optional<PlanSettings>* savedSetup)
{
    auto document = loadNetworkDocument(given.file);
    if (!document)
        throw UsageError { document.error().message };
    const GpuCatalog catalog = loadCatalog(executablePath);
    // A set-up saved in the model file is where the options start from (docs/cli.md).
    std::optional<PlanSettings> saved;
    if (!document->training.is_null()) {
        auto read = parseTrainingSetup(document->training, catalog);
        if (!read)
            throw UsageError { given.file + ": " + read.error().message };
        saved = std::move(read).value();
    }
    if (savedSetup != nullptr)
        *savedSetup = saved;
    const Options o = saved ? withSavedSetup(given, *saved) : given;
    checkOptionCombinations(o);
    Plan plan;
    plan.network = std::move(document).value().network;
    if (o.loss)
        plan.network.loss = *o.loss;
    if (const auto frozen = freezeLayers(plan.network, o.freeze); !frozen)
        throw UsageError { "--freeze: " + frozen.error().message };
    plan.precision = o.precision;
    plan.setup.optimizer = o.optimizer;
    plan.setup.optimizerImplementation = o.optimizerImplementation;
    plan.setup.batch = o.batch;
    plan.setup.accumulationSteps = o.accumulationSteps;
    plan.setup.parallel = o.parallel;
    plan.setup.eightBitOptimizer = o.eightBitOptimizer;
    plan.setup.expandableSegments = o.expandableSegments;
    plan.setup.calibration = o.calibration;
    plan.setup.assumedUtilization = o.utilization;
    plan.setup.gpusPerNode = o.gpusPerNode;
    plan.setup.interNodeGBps = o.interNodeGBps;
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
    } else if (saved && !o.gpuGiven) {
        plan.gpu = saved->gpu;
    } else {
        auto gpu = catalog.find(o.gpu);
        if (!gpu)
            throw UsageError { gpu.error().message };
        plan.gpu = gpu.value();
    }
    if (o.overheadBytes) {
        plan.setup.overheadBytes = *o.overheadBytes;
    } else if (saved) {
        // The file's overhead; one at its GPU's default follows another GPU to that GPU's (moveToGpu).
        PlanSettings moved = *saved;
        moveToGpu(moved, plan.gpu);
        plan.setup.overheadBytes = moved.setup.overheadBytes;
    } else {
        plan.setup.overheadBytes = defaultOverheadBytes(plan.gpu);
    }
    return plan;
}

PlanResult evaluateOrRefuse(const Plan& plan, MaxBatchSearch what)
{
    PlanResult result = evaluate(plan, what);
    if (!result.estimate) {
        // A layout the network refuses (a pipeline cut, a context split) names the option that set it.
        const std::string& where = result.error->location;
        const std::string option = optionOfSetting(where);
        throw UsageError { (option != where && option.starts_with("--") ? option + ": " : std::string {})
            + result.error->message };
    }
    return result;
}

void printWarnings(const PlanResult& result, std::ostream& err)
{
    // At most kMaxWarningLines: a file of thousands of unmapped operators would bury the result.
    const auto& warnings = result.wholeModel().warnings;
    for (std::size_t k = 0; k < warnings.size() && k < kMaxWarningLines; ++k)
        err << "headroom: warning: "
            << (warnings[k].layer.empty() ? std::string() : "layer '" + warnings[k].layer + "': ")
            << warnings[k].message << '\n';
    if (warnings.size() > kMaxWarningLines)
        err << "headroom: warning: and " << formatCount(warnings.size() - kMaxWarningLines)
            << " more warnings (--json lists every one)\n";
}

} // namespace headroom::cli

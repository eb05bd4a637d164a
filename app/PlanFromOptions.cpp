#include "PlanFromOptions.h"

#include "headroom/importers/NetworkFile.h"
#include "headroom/setup/Freeze.h"
#include "headroom/support/Format.h"
#include "headroom/support/Resources.h"

#include <ostream>

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

} // namespace

GpuCatalog loadCatalog(const std::string& executablePath)
{
    auto catalog = GpuCatalog::fromFile(resourceDirOrThrow(executablePath) + "/gpus.json");
    if (!catalog)
        throw UsageError { catalog.error().message };
    return std::move(catalog).value();
}

Plan makePlan(const Options& o, const std::string& executablePath)
{
    auto network = loadNetworkFile(o.file);
    if (!network)
        throw UsageError { network.error().message };
    Plan plan;
    plan.network = std::move(network).value();
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
    } else {
        auto gpu = loadCatalog(executablePath).find(o.gpu);
        if (!gpu)
            throw UsageError { gpu.error().message };
        plan.gpu = gpu.value();
    }
    plan.setup.overheadBytes = o.overheadBytes.value_or(defaultOverheadBytes(plan.gpu));
    return plan;
}

PlanResult evaluateOrRefuse(const Plan& plan)
{
    PlanResult result = evaluate(plan);
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

#include "PlanFromOptions.h"

#include "headroom/Freeze.h"
#include "headroom/NetworkFile.h"
#include "headroom/Resources.h"

#include <ostream>

namespace headroom::cli {

namespace {

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
            throw UsageError { gpu.error().message };
        plan.gpu = gpu.value();
    }
    return plan;
}

PlanResult evaluateWithWarnings(const Plan& plan, std::ostream& err)
{
    PlanResult result = evaluate(plan);
    for (const auto& w : result.analysis.warnings)
        err << "headroom: warning: " << (w.layer.empty() ? std::string() : "layer '" + w.layer + "': ")
            << w.message << '\n';
    return result;
}

} // namespace headroom::cli

// headroom max-batch: the largest micro-batch that fits, as an integer a script can read.
#include "Command.h"
#include "Output.h"
#include "PlanFromOptions.h"
#include "PlanText.h" // report/

#include <ostream>

namespace headroom::cli {

namespace {

int runMaxBatch(const Options& o, const CommandContext& c)
{
    const Plan plan = makePlan(o, c.executablePath);
    // Neither the batch that fits at exactly the capacity nor the figures at the plan's batch are
    // printed: that search and that replay are spared.
    const PlanResult result = evaluateOrRefuse(plan, MaxBatchSearch::MaxBatchOnly);
    printWarnings(result, c.err);
    const Estimate& e = *result.estimate;
    if (o.json) {
        writeJson(c.out,
            { { "max_batch", e.maxBatch }, { "max_effective_batch", e.maxEffectiveBatch },
                { "accumulation_steps", plan.setup.accumulationSteps },
                { "data_parallel_gpus", plan.setup.parallel.dataParallel() }, { "gpu", plan.gpu.name } },
            -1);
    } else if (report::plantext::hasEffectiveBatch(plan.setup)) {
        c.out << e.maxBatch << " (micro-batch per GPU; effective batch "
              << report::plantext::effectiveBatchText(e.maxBatch, plan.setup) << ")\n";
    } else {
        c.out << e.maxBatch << '\n';
    }
    return kExitOk;
}

} // namespace

const Command& maxBatchCommand()
{
    static const Command command {
        .name = "max-batch",
        .usage = "FILE [options] [--json]",
        .summary = "the largest micro-batch that fits (an integer, then the\n"
                   "effective batch when accumulating or on several GPUs)",
        .description
        = "The largest micro-batch per GPU that fits, as an integer (then the effective batch when\n"
          "accumulating or on several GPUs).\n",
        .options = setupOptions({}, { { "--json" } }),
        .run = runMaxBatch,
    };
    return command;
}

} // namespace headroom::cli

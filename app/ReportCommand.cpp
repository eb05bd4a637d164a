// headroom report: the plan as a PDF, optionally with the planner's table.
#include "Command.h"
#include "PlanFromOptions.h"
#include "ReportWriter.h" // report/
#include "headroom/estimate/RunComparison.h"
#include "headroom/measured/MeasuredRun.h"
#include "headroom/planner/ClusterPlanner.h"
#include "headroom/planner/Planner.h"

#include <QString>
#include <filesystem>
#include <memory>
#include <ostream>

namespace headroom::cli {

namespace {

/// The planner's goal on report is the goal of its table: without --include-plan it has none.
void checkReportOptions(const Options& o)
{
    if (o.output == "-") // not standard output: a PDF is not for a terminal, and scripts name a file
        throw UsageError { "-o -: the report is a PDF written to a file, not to standard output; give a file "
                           "name (./- for a file named \"-\")" };
    if (o.measured.empty()) {
        for (const char* option : { "--run-batch", "--run-precision" }) {
            if (wasGiven(o, option))
                throw UsageError { std::string(option)
                    + " on report describes the run of --measured RUN: it needs --measured" };
        }
    }
    if (o.includePlan)
        return;
    if (wasGiven(o, "--global-batch"))
        throw UsageError {
            "--global-batch on report asks for the cluster layouts' table: it needs --include-plan"
        };
    for (const char* option : { "--target-batch", "--max-step-seconds", "--allow" }) {
        if (wasGiven(o, option))
            throw UsageError { std::string(option)
                + " on report is the goal of the planner's table: it needs --include-plan" };
    }
}

/// The recorded run of --measured beside the plan, when given (an unreadable file is an error naming it).
std::optional<report::MeasuredRunReport> measuredRun(
    const Options& o, const Plan& plan, const PlanResult& result)
{
    if (o.measured.empty())
        return std::nullopt;
    auto read = readMeasuredRun(std::filesystem::path(o.measured));
    if (!read)
        throw UsageError { "--measured: " + read.error().message };
    if (!result.estimate) // the report says why there is no estimate; there is nothing to compare
        return std::nullopt;
    report::MeasuredRunReport m;
    m.run = std::make_shared<const MeasuredRun>(std::move(read).value());
    m.source = std::filesystem::path(o.measured).filename().string();
    RunContext context;
    context.batch = o.runBatch;
    context.precision = o.runPrecision;
    context.source = m.source;
    m.comparison = compareRun(*m.run, plan, result, context);
    return m;
}

int runReport(const Options& o, const CommandContext& c)
{
    const Plan plan = makePlan(o, c.executablePath);
    // Not refused when it cannot be estimated: the report then says why (below).
    const PlanResult result = evaluate(plan);
    auto measured = measuredRun(o, plan, result);
    if (c.startGui)
        c.startGui();
    report::ReportOptions options;
    options.sources = { o.file };
    if (!o.measured.empty())
        options.sources.push_back(o.measured);
    options.measured = std::move(measured);
    // A plan that cannot be estimated is still reported, as the GUI's Export does: its first page says
    // why, and there is no planner table to start from it.
    if (o.includePlan && result.estimate && o.globalBatch) {
        // The cluster's layouts instead of the set-ups of one GPU, as `plan --global-batch` lists them.
        report::ClusterReport cluster;
        cluster.request = clusterRequestFromOptions(o, plan);
        auto planned = planCluster(plan, cluster.request);
        if (!planned)
            throw UsageError { "cannot plan the cluster: " + planned.error().message };
        cluster.plan = std::move(planned).value();
        options.cluster = std::move(cluster);
    } else if (o.includePlan && result.estimate) {
        options.plannerGoal = PlanGoal { o.targetBatch, o.maxStepSeconds };
        auto planned = planSetups(plan, options.plannerGoal, o.allow);
        if (!planned)
            throw UsageError { planned.error().message };
        options.planner = std::move(planned).value();
    }
    auto written = report::writePdfReport(plan, result, QString::fromStdString(o.output), options);
    if (!written)
        throw UsageError { written.error().message };
    printWarnings(result, c.err); // only with the answer: a report that failed prints its error alone
    c.out << "Wrote " << o.output << '\n';
    if (!result.estimate) {
        // The layer by number and JSON path, as `estimate`'s error and the PDF name it.
        c.err << "headroom: warning: the report has no estimate: " << withLayerNumbers(result.error->message)
              << " (its first page says so)\n";
        return kExitNoEstimate;
    }
    return kExitOk;
}

} // namespace

const Command& reportCommand()
{
    static const Command command {
        .name = "report",
        .usage = "FILE -o OUT.pdf [options]\n"
                 "[--measured RUN [--run-batch N] [--run-precision NAME]]",
        .summary = "a PDF report of the plan (no display needed)",
        .description
        = "Writes the plan as a PDF report (no display needed). OUT.pdf must be a new path or a regular\n"
          "file that is not read-only; it is replaced only once the report is complete. A plan that\n"
          "cannot be estimated (an invalid layer, say) is reported too, with the reason on its first\n"
          "page, and exit code 1. --measured adds a page with the plan beside a recorded run (as\n"
          "headroom measured RUN --model FILE prints it). --include-plan adds plan's table of set-ups;\n"
          "with --global-batch (and --gpus, --gpus-per-node) the cluster's layouts instead, as\n"
          "headroom plan --global-batch lists them.\n",
        .options = setupOptions({},
            { { "--output" }, { "--include-plan", "add plan's table of set-ups after the throughput" },
                { "--target-batch",
                    "with --include-plan: the effective batch the table's set-ups reach\n"
                    "[the largest micro-batch]" },
                { "--max-step-seconds",
                    "with --include-plan: the longest an optimizer step may take\n"
                    "[no limit]" },
                { "--allow",
                    "with --include-plan: what plan may also change: precision, lora,\n"
                    "8bit-optimizer, comma-separated [none]" },
                { "--global-batch",
                    "with --include-plan and --gpus: the cluster's layouts for this\n"
                    "global batch instead of the set-ups (as plan --global-batch)" },
                { "--measured" }, { "--run-batch" }, { "--run-precision" } }),
        .check = checkReportOptions,
        .run = runReport,
    };
    return command;
}

} // namespace headroom::cli

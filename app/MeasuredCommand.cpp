// headroom measured: what a recorded PyTorch run measured (a memory snapshot, the profiler's memory
// timeline or a Chrome trace; docs/measured-runs.md), its allocator checked, and with --model the plan
// beside it (docs/run-comparison.md), calibrated on request.
#include "Command.h"
#include "Output.h"
#include "PlanFromOptions.h"
#include "TextTable.h"
#include "headroom/estimate/RunComparison.h"
#include "headroom/measured/AllocatorCheck.h"
#include "headroom/measured/MeasuredRun.h"
#include "headroom/support/Format.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iomanip>
#include <ostream>
#include <sstream>

namespace headroom::cli {

namespace {

using nlohmann::ordered_json;
using Align = TextTable::Align;

/// The largest blocks alive at the peak that the output lists.
constexpr std::size_t kListedBlocks = 10;
/// The unattributed blocks the text lists (the JSON has runComparisonToJson's).
constexpr std::size_t kListedUnattributed = 10;

std::string_view phaseSourceName(PhaseSource s)
{
    switch (s) {
    case PhaseSource::Frames:
        return "frames";
    case PhaseSource::Annotations:
        return "annotations";
    case PhaseSource::Pattern:
        return "pattern";
    }
    return "pattern";
}

/// How a phase boundary was found, for the text.
std::string_view phaseSourceText(PhaseSource s)
{
    switch (s) {
    case PhaseSource::Frames:
        return "from the recorded frames";
    case PhaseSource::Annotations:
        return "from the profiler's annotations";
    case PhaseSource::Pattern:
        return "from the allocation pattern";
    }
    return "";
}

std::string phaseText(RunPhase p)
{
    std::string name(runPhaseName(p));
    std::replace(name.begin(), name.end(), '_', ' ');
    return name;
}

std::string oneDecimal(double value)
{
    std::ostringstream s;
    s << std::fixed << std::setprecision(1) << value;
    return s.str();
}

/// "+1.50 MiB (+12.5 %)", "-512 KiB (-3.1 %)", "0 B": measured - predicted.
std::string differenceText(const ByteDifference& d)
{
    if (d.bytes == 0)
        return "0 B";
    std::string text = formatSignedBytes(d.signedBytes());
    if (d.percent != 0.0)
        text += " (" + std::string(d.percent > 0 ? "+" : "") + oneDecimal(d.percent) + " %)";
    return text;
}

/// The step and phase a sample lies in, or null.
struct Moment
{
    const MeasuredStep* step = nullptr;
    const MeasuredPhase* phase = nullptr;
};
Moment momentOf(const MeasuredRun& run, std::size_t sample)
{
    for (const auto& step : run.steps) {
        if (sample < step.firstSample || sample >= step.endSample)
            continue;
        for (const auto& phase : step.phases) {
            if (sample >= phase.firstSample && sample < phase.endSample)
                return { &step, &phase };
        }
        return { &step, nullptr };
    }
    return {};
}

/// "sample 15 (1,150 us), step 2 (steady), forward".
std::string momentText(const MeasuredRun& run, std::size_t sample)
{
    std::string text = "event " + formatCount(sample);
    if (sample < run.samples.size())
        text += " (t = "
            + formatCount(static_cast<std::uint64_t>(std::max<std::int64_t>(run.samples[sample].timeUs, 0)))
            + " us)";
    const Moment m = momentOf(run, sample);
    if (m.step == nullptr)
        return text + ", outside the steps found";
    text += ", step " + std::to_string(m.step->index + 1) + (m.step->first ? " (first)" : " (steady)");
    if (m.phase != nullptr)
        text += ", " + phaseText(m.phase->phase);
    return text;
}

std::string frameText(const RunFrame& f)
{
    if (f.filename.empty())
        return "";
    return f.filename + ":" + std::to_string(f.line) + (f.name.empty() ? "" : " in " + f.name);
}

/// The phases' sources, once each: "frames", "frames and pattern".
std::string phaseSources(const MeasuredRun& run)
{
    std::vector<PhaseSource> found;
    for (const auto& step : run.steps) {
        for (const auto& phase : step.phases) {
            if (std::find(found.begin(), found.end(), phase.source) == found.end())
                found.push_back(phase.source);
        }
    }
    std::string text;
    for (std::size_t i = 0; i < found.size(); ++i)
        text += (i == 0                         ? ""
                        : i + 1 == found.size() ? " and "
                                                : ", ")
            + std::string(phaseSourceText(found[i]));
    return text;
}

// ---- JSON -------------------------------------------------------------------------------------------

ordered_json optionalBytes(bool known, std::uint64_t bytes)
{
    return known ? ordered_json(bytes) : ordered_json(nullptr);
}

ordered_json stepsJson(const MeasuredRun& run)
{
    auto steps = ordered_json::array();
    for (const auto& step : run.steps) {
        auto phases = ordered_json::array();
        for (const auto& phase : step.phases)
            phases.push_back({ { "phase", runPhaseName(phase.phase) }, { "first_sample", phase.firstSample },
                { "end_sample", phase.endSample }, { "peak_allocated_bytes", phase.peakAllocated },
                { "peak_reserved_bytes", optionalBytes(run.hasReserved, phase.peakReserved) },
                { "source", phaseSourceName(phase.source) } });
        steps.push_back(
            { { "index", step.index }, { "first", step.first }, { "first_sample", step.firstSample },
                { "end_sample", step.endSample }, { "peak_allocated_bytes", step.peakAllocated },
                { "peak_reserved_bytes", optionalBytes(run.hasReserved, step.peakReserved) },
                { "phases", phases } });
    }
    return steps;
}

ordered_json blocksJson(const MeasuredRun& run)
{
    auto blocks = ordered_json::array();
    for (std::size_t k = 0; k < run.peakBlocks.size() && k < kListedBlocks; ++k) {
        const MeasuredBlock& b = run.blocks[run.peakBlocks[k]];
        const RunFrame frame = innermostUserFrame(run, b.stack);
        blocks.push_back({ { "address", b.address }, { "bytes", b.size },
            { "requested_bytes",
                b.requestedSize == 0 ? ordered_json(nullptr) : ordered_json(b.requestedSize) },
            { "allocated_before_trace", b.allocSample == MeasuredBlock::kNoSample },
            { "allocated_us",
                b.allocatedUs == MeasuredBlock::kUnknownTime ? ordered_json(nullptr)
                                                             : ordered_json(b.allocatedUs) },
            { "file", frame.filename.empty() ? ordered_json(nullptr) : ordered_json(frame.filename) },
            { "line", frame.filename.empty() ? ordered_json(nullptr) : ordered_json(frame.line) },
            { "function", frame.filename.empty() ? ordered_json(nullptr) : ordered_json(frame.name) } });
    }
    return blocks;
}

ordered_json allocatorCheckJson(const AllocatorCheck& c)
{
    ordered_json j;
    j["checked"] = c.checked;
    j["why"] = c.why;
    j["allocations"] = c.allocations;
    j["frees"] = c.frees;
    j["recorded_segment_events"] = c.recordedSegmentEvents;
    j["simulated_segment_events"] = c.simulatedSegmentEvents;
    j["matching_segment_events"] = c.matchingSegmentEvents;
    j["recorded_peak_reserved_bytes"] = c.recordedPeakReserved;
    j["simulated_peak_reserved_bytes"] = c.simulatedPeakReserved;
    j["largest_reserved_gap_bytes"] = c.largestReservedGap;
    j["largest_reserved_gap_event"] = c.largestReservedGapEvent;
    j["starts_mid_run"] = c.startsMidRun;
    j["streams"] = c.streams;
    j["graph_pool_allocations"] = c.graphPoolAllocations;
    j["cache_releases_followed"] = c.cacheReleasesFollowed;
    j["divergence_count"] = c.divergenceCount;
    auto divergences = ordered_json::array();
    for (const auto& d : c.divergences)
        divergences.push_back({ { "event", d.event }, { "allocation", d.allocation },
            { "recorded_reserved_bytes", d.recordedReserved },
            { "simulated_reserved_bytes", d.simulatedReserved }, { "what", d.what } });
    j["divergences"] = divergences;
    j["notes"] = c.notes;
    return j;
}

ordered_json measuredJson(const MeasuredRun& run, const AllocatorCheck& check, const std::string& file)
{
    ordered_json j;
    j["file"] = file;
    j["kind"] = runFileKindLabel(run.kind);
    j["device"] = run.device;
    j["absolute"] = run.absolute;
    j["why_not_absolute"] = run.absolute ? ordered_json(nullptr) : ordered_json(run.whyNotAbsolute);
    j["samples"] = run.samples.size();
    j["peak_allocated_bytes"] = run.peakAllocated;
    j["peak_allocated_sample"] = run.peakAllocatedSample;
    j["peak_reserved_bytes"] = optionalBytes(run.hasReserved, run.peakReserved);
    j["peak_reserved_sample"]
        = run.hasReserved ? ordered_json(run.peakReservedSample) : ordered_json(nullptr);
    j["fragmentation_at_peak"]
        = run.hasReserved ? ordered_json(run.fragmentationAtPeak) : ordered_json(nullptr);
    j["out_of_memory_events"] = run.outOfMemoryEvents;
    j["steps"] = stepsJson(run);
    j["blocks_at_peak"] = blocksJson(run);
    j["blocks_alive_at_peak"] = run.peakBlocks.size();
    j["allocator_check"] = allocatorCheckJson(check);
    j["notes"] = run.notes;
    return j;
}

// ---- Text -------------------------------------------------------------------------------------------

void printRunText(const MeasuredRun& run, const std::string& file, std::ostream& out)
{
    keyLine(out, "Run",
        file + ": " + std::string(runFileKindLabel(run.kind)) + ", device " + std::to_string(run.device)
            + ", " + formatCount(run.samples.size()) + " events");
    keyLine(out, "Bytes",
        run.absolute ? std::string("absolute (what memory_allocated() and memory_reserved() returned)")
                     : "relative to the trace's lowest point: " + run.whyNotAbsolute);
    keyLine(out, "Peak allocated",
        formatBytes(run.peakAllocated) + " at " + momentText(run, run.peakAllocatedSample));
    if (run.hasReserved) {
        keyLine(out, "Peak reserved",
            formatBytes(run.peakReserved) + " at " + momentText(run, run.peakReservedSample));
        keyLine(out, "Fragmentation",
            oneDecimal(100.0 * run.fragmentationAtPeak)
                + " % of reserved not allocated at the allocated peak");
    } else {
        keyLine(out, "Peak reserved", "not in this file (it has allocated bytes only)");
    }
    keyLine(out, "Out of memory",
        run.outOfMemoryEvents == 0 ? std::string("no OOM event")
                                   : plural(run.outOfMemoryEvents, "OOM event", "OOM events"));
    out << '\n';
    if (run.steps.empty()) {
        out << "No training step found.\n";
    } else {
        out << "Steps: " << run.steps.size() << " found, phases " << phaseSources(run) << "\n";
        TextTable table({ { "Step" }, { "Phase" }, { "Events", Align::Right },
            { "Peak allocated", Align::Right }, { "Peak reserved", Align::Right }, { "Found from" } });
        for (const auto& step : run.steps) {
            const auto reserved = [&](std::uint64_t b) { return run.hasReserved ? formatBytes(b) : "-"; };
            table.addRow({ std::to_string(step.index + 1) + (step.first ? " (first)" : " (steady)"),
                "whole step", formatCount(step.endSample - step.firstSample), formatBytes(step.peakAllocated),
                reserved(step.peakReserved), "" });
            for (const auto& phase : step.phases)
                table.addRow({ "", phaseText(phase.phase), formatCount(phase.endSample - phase.firstSample),
                    formatBytes(phase.peakAllocated), reserved(phase.peakReserved),
                    std::string(phaseSourceName(phase.source)) });
        }
        table.print(out);
    }
    if (!run.peakBlocks.empty()) {
        out << "\nLargest blocks alive at the allocated peak (" << formatCount(run.peakBlocks.size())
            << " in all):\n";
        TextTable table({ { "Size", Align::Right }, { "Allocated" }, { "Where (innermost user frame)" } });
        for (std::size_t k = 0; k < run.peakBlocks.size() && k < kListedBlocks; ++k) {
            const MeasuredBlock& b = run.blocks[run.peakBlocks[k]];
            const std::string frame = frameText(innermostUserFrame(run, b.stack));
            table.addRow({ formatBytes(b.size),
                b.allocSample == MeasuredBlock::kNoSample ? "before the trace"
                                                          : momentText(run, b.allocSample),
                frame.empty() ? "-" : frame });
        }
        table.print(out);
    }
}

void printCheckText(const AllocatorCheck& c, std::ostream& out)
{
    out << "\nAllocator check (the run's allocations replayed through Headroom's caching allocator):\n";
    if (!c.checked) {
        out << "  not checked: " << c.why << '\n';
        return;
    }
    out << "  Replayed         " << formatCount(c.allocations) << " allocations, " << formatCount(c.frees)
        << " frees\n";
    out << "  Segment events   " << formatCount(c.matchingSegmentEvents) << " of "
        << formatCount(c.recordedSegmentEvents) << " recorded matched (the replay made "
        << formatCount(c.simulatedSegmentEvents) << ")\n";
    out << "  Peak reserved    recorded " << formatBytes(c.recordedPeakReserved) << ", simulated "
        << formatBytes(c.simulatedPeakReserved) << '\n';
    out << "  Largest gap      " << formatBytes(c.largestReservedGap) << " after event "
        << formatCount(c.largestReservedGapEvent) << '\n';
    if (!c.why.empty())
        out << "  Limits           " << c.why << '\n';
    if (c.divergenceCount == 0) {
        out << "  The replay reserved the segments the run did, event for event.\n";
        return;
    }
    out << "  Parts in " << plural(static_cast<std::int64_t>(c.divergenceCount), "place", "places")
        << "; the first:\n";
    for (std::size_t k = 0; k < c.divergences.size() && k < 5; ++k)
        out << "    event " << formatCount(c.divergences[k].event) << ": " << c.divergences[k].what << '\n';
}

void printNotes(const std::vector<std::string>& notes, const char* heading, std::ostream& out)
{
    if (notes.empty())
        return;
    out << '\n' << heading << ":\n";
    for (const auto& n : notes)
        out << "  - " << n << '\n';
}

void printComparisonText(const Plan& plan, const RunComparison& c, std::ostream& out)
{
    out << "\nPlan beside the run\n";
    keyLine(out, "Model", plan.network.name);
    keyLine(out, "Compared at",
        "batch " + std::to_string(c.batch)
            + (c.batchAssumed ? " (the plan's; the run's was not given: --run-batch)" : " (the run's)") + ", "
            + std::string(precisionLabel(c.precision))
            + (c.precisionAssumed ? " (the plan's; the run's was not given: --run-precision)"
                                  : " (the run's)"));
    keyLine(out, "Peak allocated",
        "predicted " + formatBytes(c.predictedPeakAllocated) + ", measured "
            + formatBytes(c.measuredPeakAllocated) + ": " + differenceText(c.peakAllocatedDifference));
    keyLine(out, "Peak reserved",
        "predicted " + formatBytes(c.predictedPeakReserved) + ", measured "
            + formatBytes(c.measuredPeakReserved) + ": " + differenceText(c.peakReservedDifference));
    if (!c.phases.empty()) {
        out << "\nPer phase (the steady step's peaks; difference = measured - predicted):\n";
        TextTable table({ { "Phase" }, { "Allocated: predicted", Align::Right }, { "measured", Align::Right },
            { "difference", Align::Right }, { "Reserved: predicted", Align::Right },
            { "measured", Align::Right }, { "difference", Align::Right } });
        for (const auto& p : c.phases) {
            if (!p.measuredFound) {
                table.addRow({ phaseText(p.phase), formatBytes(p.predictedAllocated), "not found", "",
                    formatBytes(p.predictedReserved), "not found", "" });
                continue;
            }
            table.addRow(
                { phaseText(p.phase), formatBytes(p.predictedAllocated), formatBytes(p.measuredAllocated),
                    differenceText(p.allocatedDifference), formatBytes(p.predictedReserved),
                    formatBytes(p.measuredReserved), differenceText(p.reservedDifference) });
        }
        table.print(out);
    }
    out << "\nPer component (alive at each side's allocated peak):\n";
    TextTable components({ { "Component" }, { "Predicted", Align::Right }, { "Measured", Align::Right },
        { "Difference", Align::Right } });
    for (std::size_t k = 0; k < kRunComponents; ++k) {
        const auto component = static_cast<RunComponent>(k);
        const std::uint64_t predicted = c.predictedComponents[k];
        const std::uint64_t measured = c.measuredComponents[k];
        if (predicted == 0 && (!c.measuredComponentsFound || measured == 0))
            continue;
        components.addRow({ std::string(runComponentLabel(component)), formatBytes(predicted),
            c.measuredComponentsFound ? formatBytes(measured) : "-",
            c.measuredComponentsFound ? differenceText(byteDifference(predicted, measured)) : "" });
    }
    components.print(out);
    if (!c.unattributed.empty()) {
        out << "\nUnattributed blocks (" << formatCount(c.unattributed.size()) << ", largest first):\n";
        for (std::size_t k = 0; k < c.unattributed.size() && k < kListedUnattributed; ++k) {
            const auto& u = c.unattributed[k];
            out << "  " << (u.sentence.empty() ? formatBytes(u.bytes) : u.sentence) << '\n';
        }
        if (c.unattributed.size() > kListedUnattributed)
            out << "  and " << formatCount(c.unattributed.size() - kListedUnattributed)
                << " more (--json lists "
                << "them)\n";
    }
    printNotes(c.setupDifferences, "Set-up differences", out);
    out << "\nCalibration proposal:\n";
    if (!c.calibration.available || (c.calibration.fixedBytes == 0 && c.calibration.perSampleBytes == 0)) {
        out << "  none: " << c.calibration.reasoning << '\n';
    } else {
        out << "  fixed " << formatBytes(c.calibration.fixedBytes) << ", per sample "
            << formatBytes(c.calibration.perSampleBytes) << " (from batch " << c.calibration.measuredBatch
            << ")\n  " << c.calibration.reasoning << '\n';
        out << "  (headroom estimate ... --calibration-fixed " << c.calibration.fixedBytes
            << " --calibration-per-sample " << c.calibration.perSampleBytes << " applies it)\n";
    }
    printNotes(c.notes, "Comparison notes", out);
}

ordered_json calibratedJson(const CalibratedMaxBatch& m)
{
    return { { "max_batch_before", m.before }, { "max_batch_after", m.after },
        { "fixed_bytes", m.plan.setup.calibration.fixedBytes },
        { "per_sample_bytes", m.plan.setup.calibration.perSampleBytes }, { "reasoning", m.reasoning } };
}

void printCalibratedText(const CalibratedMaxBatch& m, std::ostream& out)
{
    out << "\nCalibrated max batch: " << m.after << " (the plan's: " << m.before << ")\n  " << m.reasoning
        << '\n';
}

// ---- The command ------------------------------------------------------------------------------------

/// Options that need another: the set-up, --run-batch, --run-precision and --calibrate describe the plan
/// the run is compared with.
void checkMeasuredOptions(const Options& o)
{
    if (!o.model.empty())
        return;
    for (const auto& given : o.given) {
        if (given != "--json")
            throw UsageError { given
                + " on measured describes the plan the run is compared with: it needs "
                  "--model MODEL" };
    }
}

int runMeasured(const Options& o, const CommandContext& c)
{
    auto read = readMeasuredRun(std::filesystem::path(o.file));
    if (!read)
        throw UsageError { read.error().message };
    const MeasuredRun run = std::move(read).value();
    const AllocatorCheck check = checkAllocator(run);
    const std::string name = std::filesystem::path(o.file).filename().string();
    if (o.model.empty()) {
        if (o.json) {
            writeJson(c.out, measuredJson(run, check, o.file), 2);
        } else {
            printRunText(run, o.file, c.out);
            printCheckText(check, c.out);
            printNotes(run.notes, "Notes", c.out);
        }
        return kExitOk;
    }
    Options planOptions = o;
    planOptions.file = o.model;
    const Plan plan = makePlan(planOptions, c.executablePath);
    const PlanResult result = evaluateOrRefuse(plan);
    RunContext context;
    context.batch = o.runBatch;
    context.precision = o.runPrecision;
    context.source = name;
    const RunComparison comparison = compareRun(run, plan, result, context);
    std::optional<CalibratedMaxBatch> calibrated;
    if (o.calibrate && comparison.calibration.available)
        calibrated = calibratedMaxBatch(plan, result, comparison.calibration);
    printWarnings(result, c.err);
    if (o.json) {
        ordered_json j = measuredJson(run, check, o.file);
        j["model"] = plan.network.name;
        j["comparison"] = runComparisonToJson(comparison);
        if (o.calibrate)
            j["calibrated"] = calibrated ? calibratedJson(*calibrated) : ordered_json(nullptr);
        writeJson(c.out, j, 2);
        return kExitOk;
    }
    printRunText(run, o.file, c.out);
    printCheckText(check, c.out);
    printNotes(run.notes, "Notes", c.out);
    printComparisonText(plan, comparison, c.out);
    if (o.calibrate) {
        if (calibrated)
            printCalibratedText(*calibrated, c.out);
        else
            c.out << "\nCalibrated max batch: none, the run proposes no calibration ("
                  << comparison.calibration.reasoning << ")\n";
    }
    return kExitOk;
}

} // namespace

const Command& measuredCommand()
{
    static const Command command {
        .name = "measured",
        .usage = "RUN [--json]\n"
                 "RUN --model FILE [options] [--run-batch N] [--run-precision NAME]\n"
                 "[--calibrate] [--json]",
        .summary = "what a recorded PyTorch run measured;\n"
                   "with --model, the plan beside it",
        .description
        = "What a recorded training run measured: RUN is a memory snapshot from\n"
          "torch.cuda.memory._dump_snapshot() (its pickle, the same as JSON, or memory_viz's HTML page),\n"
          "the profiler's export_memory_timeline (.json, .json.gz) or a Chrome trace with [memory]\n"
          "events (docs/measured-runs.md). It prints the peaks, the steps and their phases, the largest\n"
          "blocks alive at the peak and the run's allocations replayed through Headroom's caching\n"
          "allocator. With --model, the plan for that model file (set up by the options below) beside\n"
          "the run: per phase and per component, predicted and measured, what could not be attributed,\n"
          "and the calibration the run proposes (docs/run-comparison.md); --calibrate adds the max batch\n"
          "of the calibrated plan. The run's batch and precision are the plan's unless --run-batch and\n"
          "--run-precision say otherwise.\n",
        .options = setupOptions(
            {}, { { "--json" }, { "--model" }, { "--run-batch" }, { "--run-precision" }, { "--calibrate" } }),
        .check = checkMeasuredOptions,
        .run = runMeasured,
    };
    return command;
}

} // namespace headroom::cli

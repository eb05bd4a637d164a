// The profiler's exports about memory.
//
// Memory timeline (torch/profiler/_memory_profiler.py, MemoryProfileTimeline.export_memory_timeline,
// reached through torch/profiler/profiler.py _KinetoProfile.export_memory_timeline with a ".json" or
// ".json.gz" path): json.dump([times, sizes]). _coalesce_timeline appends a time and a copy of the last
// row whenever the time changes, and each row has 1 + len(_CATEGORY_TO_INDEX) = 9 slots: slot 0 unused
// (0), slot i + 1 the bytes of category i in Category's order (PARAMETER, OPTIMIZER_STATE, INPUT,
// TEMPORARY, ACTIVATION, GRADIENT, AUTOGRAD_DETAIL) and the last for tensors it could not categorise
// (None). Sizes may be written as floats (rows start as [0.0] * 9 in some versions). Times are
// microseconds (the profiler's nanoseconds divided by 1000; versions before that wrote nanoseconds).
// The raw export (export_memory_timeline_raw, ".raw.json.gz") is a list of (time, action, bytes, category)
// events instead: added up into the same samples and categories (coalesceRawTimeline). The timeline is for
// one device and knows nothing of the allocator: no reserved
// bytes, and allocated is the sum of the categories (tensors the profiler saw, not block rounding).
//
// Chrome trace (torch/csrc/profiler/kineto_shim / profiler_kineto.cpp, reportMemoryUsage → kineto's
// memory events): instant events {"ph": "i", "name": "[memory]", "ts": µs, "args": {"Device Type",
// "Device Id", "Addr", "Bytes", "Total Allocated", "Total Reserved"}}; Device Type is c10::DeviceType
// (0 CPU, 1 CUDA). Steps: "ProfilerStep#N" spans (torch.profiler.profile.step()); phases: the
// "Optimizer.step#<Class>.step" span (torch/optim/optimizer.py profile_hook_step) and the autograd
// engine's "autograd::engine::evaluate_function: ..." spans.
#include "ProfilerExports.h"

#include "RunSteps.h"

#include <algorithm>
#include <map>
#include <string_view>
#include <utility>

namespace headroom::measured {

namespace profiler_exports {

Error badValue(const std::string& fileName, const std::string& path, const std::string& what)
{
    return Error { fileName + ": " + path + " " + what, path };
}

std::string typeName(const nlohmann::json& v)
{
    switch (v.type()) {
    case nlohmann::json::value_t::null:
        return "null";
    case nlohmann::json::value_t::boolean:
        return "bool";
    case nlohmann::json::value_t::string:
        return "string";
    case nlohmann::json::value_t::array:
        return "array";
    case nlohmann::json::value_t::object:
        return "object";
    default:
        return "number";
    }
}

/// A non-negative number as bytes (floats rounded), or nothing.
std::optional<std::uint64_t> bytesOf(const nlohmann::json& v)
{
    if (v.is_number_unsigned())
        return v.get<std::uint64_t>();
    if (v.is_number_integer())
        return v.get<std::int64_t>() >= 0
            ? std::optional<std::uint64_t>(static_cast<std::uint64_t>(v.get<std::int64_t>()))
            : std::nullopt;
    if (v.is_number_float()) {
        const double d = v.get<double>();
        if (d >= 0.0 && d < 1.8e19)
            return static_cast<std::uint64_t>(d + 0.5);
    }
    return std::nullopt;
}

/// Steps, phases and peaks of a memory timeline whose samples and categories are filled (below).
MeasuredRun finishTimeline(MeasuredRun run);

/// export_memory_timeline_raw's rows (time in ns or -1 for tensors that existed before, action, signed
/// bytes, category index) added up as _coalesce_timeline does (and HolisticTraceAnalysis's
/// MemoryAnalysis._process_raw_events): a row of sizes per distinct time carrying the last one's forward,
/// each event's bytes added to its category, the -1 times replaced by the first positive one, then times
/// in microseconds. The raw rows already carry the signs (DESTROY negative, INCREMENT_VERSION as -n on the
/// old version's category and +n on the new one's). Fills run.samples and run.categories.
std::optional<Error> coalesceRawTimeline(
    const nlohmann::json& root, const std::string& fileName, MeasuredRun& run)
{
    std::array<std::int64_t, kProfilerCategories> sums {};
    std::vector<std::int64_t> times; // ns, -1 before the profile
    std::int64_t firstTime = -1;
    for (std::size_t i = 0; i < root.size(); ++i) {
        const auto& row = root[i];
        const std::string path = "[" + std::to_string(i) + "]";
        if (!row.is_array() || row.size() != 4)
            return badValue(fileName, path,
                "must be a raw timeline event [time, action, bytes, category], not " + typeName(row));
        for (std::size_t k = 0; k < 4; ++k) {
            if (!row[k].is_number_integer())
                return badValue(fileName, path + "[" + std::to_string(k) + "]",
                    "must be an integer, not "
                        + (row[k].is_number() ? std::string("a fraction") : typeName(row[k])));
        }
        const std::int64_t t = row[0].get<std::int64_t>();
        const std::int64_t action = row[1].get<std::int64_t>();
        const std::int64_t bytes = row[2].get<std::int64_t>();
        const std::int64_t category = row[3].get<std::int64_t>();
        if (t < -1)
            return badValue(fileName, path + "[0]", "must be a time in nanoseconds or -1");
        if (action < 1 || action > 4)
            return badValue(fileName, path + "[1]",
                "must be an action: 1 pre-existing, 2 create, 3 increment version, 4 destroy");
        if (category < 0 || category >= static_cast<std::int64_t>(kProfilerCategories))
            return badValue(fileName, path + "[3]",
                "must be a category index from 0 to " + std::to_string(kProfilerCategories - 1));
        if (bytes < -(std::int64_t { 1 } << 50) || bytes > (std::int64_t { 1 } << 50))
            return badValue(fileName, path + "[2]", "is not a tensor's size in bytes");
        if (firstTime == -1 || (t < firstTime && t > 0))
            firstTime = t;
        if (times.empty() || t != times.back()) {
            times.push_back(t);
            run.categories.emplace_back();
        }
        auto& sum = sums[static_cast<std::size_t>(category)];
        sum += bytes;
        if (sum < 0)
            return badValue(fileName, path + "[2]",
                "takes its category below zero bytes (a tensor destroyed that the timeline never made)");
        for (std::size_t c = 0; c < kProfilerCategories; ++c)
            run.categories.back()[c] = static_cast<std::uint64_t>(sums[c]);
    }
    run.samples.reserve(times.size());
    for (std::size_t i = 0; i < times.size(); ++i) {
        RunSample x;
        x.timeUs = (times[i] < 0 ? firstTime : times[i]) / 1000;
        for (const std::uint64_t b : run.categories[i])
            x.allocated += b;
        x.event = static_cast<std::uint32_t>(i);
        run.samples.push_back(x);
    }
    return std::nullopt;
}

} // namespace profiler_exports

Result<MeasuredRun> readMemoryTimeline(const nlohmann::json& root, const std::string& fileName)
{
    using namespace profiler_exports;
    // The raw export: a list of (time, action, bytes, category) rows of numbers.
    const bool raw = root.is_array() && !root.empty() && root[0].is_array() && root[0].size() == 4
        && root[0][0].is_number()
        && (root.size() < 2 || (root[1].is_array() && !root[1].empty() && root[1][0].is_number()));
    MeasuredRun run;
    run.kind = RunFileKind::MemoryTimeline;
    run.hasReserved = false;
    run.absolute = true;
    if (raw) {
        if (auto error = coalesceRawTimeline(root, fileName, run))
            return *error;
        run.notes.push_back("a raw memory timeline (one event per tensor): its events were added up per "
                            "category, as export_memory_timeline does");
        return finishTimeline(std::move(run));
    }
    if (!root.is_array() || root.size() != 2 || !root[0].is_array() || !root[1].is_array()) {
        return Error { fileName + ": a memory timeline must be [times, sizes], two lists of the same length",
            fileName };
    }
    const auto& times = root[0];
    const auto& sizes = root[1];
    if (times.size() != sizes.size())
        return Error { fileName + ": the memory timeline has " + std::to_string(times.size()) + " times but "
                + std::to_string(sizes.size()) + " rows of sizes",
            fileName };
    run.samples.reserve(times.size());
    run.categories.reserve(times.size());
    for (std::size_t i = 0; i < times.size(); ++i) {
        const auto& t = times[i];
        if (!t.is_number())
            return badValue(
                fileName, "[0][" + std::to_string(i) + "]", "must be a time (a number), not " + typeName(t));
        const auto& row = sizes[i];
        const std::string rpath = "[1][" + std::to_string(i) + "]";
        if (!row.is_array() || row.size() < 2)
            return badValue(fileName, rpath, "must be a list of sizes by category, not " + typeName(row));
        std::array<std::uint64_t, kProfilerCategories> cats {};
        std::uint64_t total = 0;
        for (std::size_t c = 1; c < row.size(); ++c) {
            const auto b = bytesOf(row[c]);
            if (!b)
                return badValue(fileName, rpath + "[" + std::to_string(c) + "]",
                    "must be a non-negative number of bytes, not "
                        + (row[c].is_number() ? std::string("a negative number") : typeName(row[c])));
            cats[std::min(c - 1, kProfilerCategories - 1)] += *b;
            total += *b;
        }
        RunSample s;
        s.timeUs = t.is_number_float() ? static_cast<std::int64_t>(t.get<double>()) : t.get<std::int64_t>();
        s.allocated = total;
        s.event = static_cast<std::uint32_t>(i);
        run.samples.push_back(s);
        run.categories.push_back(cats);
    }
    return finishTimeline(std::move(run));
}

namespace profiler_exports {

MeasuredRun finishTimeline(MeasuredRun run)
{
    constexpr auto kGradient = static_cast<std::size_t>(ProfilerCategory::Gradient);
    constexpr auto kOptimizerState = static_cast<std::size_t>(ProfilerCategory::OptimizerState);
    stepsFromPattern(run, [&](std::size_t start, std::size_t end) {
        // Backward makes the gradients: it starts where GRADIENT first grows in the step, and the
        // optimizer after its last growth.
        PhaseHint hint;
        for (std::size_t i = std::max<std::size_t>(start, 1); i < end; ++i) {
            if (run.categories[i][kGradient] > run.categories[i - 1][kGradient]) {
                if (hint.backward == kNone)
                    hint.backward = i;
                hint.optimizer = i + 1 < end ? i + 1 : kNone;
            }
        }
        return hint;
    });
    if (!run.steps.empty()) {
        MeasuredStep& step = run.steps.front();
        const auto before = step.firstSample > 0 ? run.categories[step.firstSample - 1][kOptimizerState] : 0;
        const auto after = run.categories[step.endSample - 1][kOptimizerState];
        step.first = after > before;
    }
    finishPeaks(run);
    markFirstByGrowth(run);
    run.notes.insert(run.notes.begin(),
        "a memory timeline counts the tensors the profiler saw (no block rounding, no cached memory): "
        "reserved "
        "bytes are not known");
    return run;
}

} // namespace profiler_exports

Result<MeasuredRun> readChromeTrace(const nlohmann::json& root, const std::string& fileName)
{
    using namespace profiler_exports;
    const nlohmann::json* events = &root;
    if (root.is_object()) {
        const auto it = root.find("traceEvents");
        if (it == root.end() || !it->is_array())
            return Error { fileName + ": traceEvents must be a list of events", fileName };
        events = &*it;
    }
    if (!events->is_array())
        return Error { fileName + ": a Chrome trace must be an object with traceEvents", fileName };

    struct Memory
    {
        double ts = 0;
        std::uint64_t allocated = 0;
        std::uint64_t reserved = 0;
        std::int64_t bytes = 0;
        std::size_t index = 0;
        bool totals = true; ///< Total Allocated / Total Reserved given (not in older PyTorch's traces)
    };
    std::map<std::pair<std::int64_t, std::int64_t>, std::vector<Memory>> byDevice;
    SpanIndex spans;
    for (std::size_t i = 0; i < events->size(); ++i) {
        const auto& e = (*events)[i];
        if (!e.is_object())
            continue;
        const auto name = e.find("name");
        if (name == e.end() || !name->is_string())
            continue;
        const std::string& n = name->get_ref<const std::string&>();
        const auto ts = e.find("ts");
        const std::string path = "traceEvents[" + std::to_string(i) + "]";
        if (n == "[memory]") {
            if (ts == e.end() || !ts->is_number())
                return badValue(fileName, path + ".ts", "must be a time (a number)");
            const auto args = e.find("args");
            if (args == e.end() || !args->is_object())
                return badValue(
                    fileName, path + ".args", "must be an object with Total Allocated and Total Reserved");
            Memory m;
            m.ts = ts->get<double>();
            m.index = i;
            const auto bytes = args->find("Bytes");
            // PyTorch 1.9's Kineto wrote Bytes only: the totals are worked out from them below.
            m.totals = args->contains("Total Allocated") || args->contains("Total Reserved")
                || bytes == args->end() || !bytes->is_number();
            for (const auto& [key, out] :
                { std::pair<const char*, std::uint64_t*> { "Total Allocated", &m.allocated },
                    std::pair<const char*, std::uint64_t*> { "Total Reserved", &m.reserved } }) {
                const auto v = args->find(key);
                if (!m.totals)
                    break;
                if (v == args->end())
                    return badValue(fileName, path + ".args", std::string("has no ") + key);
                const auto b = bytesOf(*v);
                if (!b)
                    return badValue(fileName, path + ".args." + key,
                        "must be a non-negative number of bytes, not " + typeName(*v));
                *out = *b;
            }
            if (bytes != args->end() && bytes->is_number()) {
                // A tensor's size, signed (a free is negative): anything beyond 2^50 is not one.
                constexpr std::int64_t kLimit = std::int64_t { 1 } << 50;
                const double d = bytes->get<double>();
                if (!(d >= -static_cast<double>(kLimit) && d <= static_cast<double>(kLimit)))
                    return badValue(fileName, path + ".args.Bytes", "is not a tensor's size in bytes");
                m.bytes
                    = bytes->is_number_float() ? static_cast<std::int64_t>(d) : bytes->get<std::int64_t>();
            }
            std::int64_t type = 1;
            std::int64_t id = 0;
            if (const auto v = args->find("Device Type"); v != args->end() && v->is_number_integer())
                type = v->get<std::int64_t>();
            if (const auto v = args->find("Device Id"); v != args->end() && v->is_number_integer())
                id = v->get<std::int64_t>();
            byDevice[{ type, id }].push_back(m);
            continue;
        }
        const measured::EventTag tag = SpanIndex::tagOfName(n);
        const auto dur = e.find("dur");
        if (tag != measured::EventTag::None && ts != e.end() && ts->is_number() && dur != e.end()
            && dur->is_number())
            spans.add(ts->get<double>(), ts->get<double>() + dur->get<double>(), tag);
    }
    spans.finish();
    if (byDevice.empty())
        return Error { fileName
                + ": a Chrome trace without [memory] events: record it with "
                  "torch.profiler.profile(profile_memory=True)",
            fileName };
    // The device with most memory events, a GPU before the CPU (Device Type 0).
    auto best = byDevice.end();
    for (auto it = byDevice.begin(); it != byDevice.end(); ++it) {
        if (best == byDevice.end() || (best->first.first == 0 && it->first.first != 0)
            || ((it->first.first != 0) == (best->first.first != 0)
                && it->second.size() > best->second.size()))
            best = it;
    }
    auto memory = std::move(best->second);
    std::stable_sort(
        memory.begin(), memory.end(), [](const Memory& a, const Memory& b) { return a.ts < b.ts; });
    MeasuredRun run;
    run.kind = RunFileKind::ChromeTrace;
    run.device = best->first.second;
    run.hasReserved = true;
    if (best->first.first == 0)
        run.notes.push_back("the trace has memory events for the CPU only: profile a CUDA run with "
                            "activities=[ProfilerActivity.CUDA] and profile_memory=True");
    // Events with Bytes only (PyTorch 1.9): allocated is their running sum, counted from its lowest
    // point, and reserved is not known.
    if (std::any_of(memory.begin(), memory.end(), [](const Memory& m) { return !m.totals; })) {
        std::int64_t sum = 0;
        std::int64_t lowest = 0;
        for (const Memory& m : memory) {
            sum += m.bytes;
            lowest = std::min(lowest, sum);
        }
        sum = 0;
        for (Memory& m : memory) {
            sum += m.bytes;
            m.allocated = static_cast<std::uint64_t>(sum - lowest);
            m.reserved = 0;
        }
        run.hasReserved = false;
        run.absolute = false;
        run.whyNotAbsolute = "the trace's [memory] events carry only Bytes (no Total Allocated, as older "
                             "PyTorch wrote them): allocated is their running sum, counted from its lowest "
                             "point, and reserved is not known";
    }
    run.samples.reserve(memory.size());
    for (const Memory& m : memory)
        run.samples.push_back(RunSample {
            static_cast<std::int64_t>(m.ts), m.allocated, m.reserved, static_cast<std::uint32_t>(m.index) });

    bool found = false;
    // ProfilerStep spans alone say nothing of the phases: then the pattern finds both.
    if (spans.tellsPhases()) {
        std::vector<measured::EventTag> tags(memory.size(), measured::EventTag::None);
        std::size_t stepSeen = kNone;
        bool started = false;
        for (std::size_t i = 0; i < memory.size(); ++i) {
            if (memory[i].bytes < 0)
                continue; // a free says nothing of its phase
            measured::EventTag tag = spans.phaseAt(memory[i].ts);
            if (tag == measured::EventTag::None) {
                tag = measured::EventTag::Other;
                if (const std::size_t step = spans.stepAt(memory[i].ts); step != kNone && step != stepSeen) {
                    stepSeen = step;
                    tag = measured::EventTag::StepStart;
                }
            }
            // Without step spans, the first allocation starts the first step.
            if (!started && !spans.hasSteps())
                tag = measured::EventTag::Forward;
            started = true;
            tags[i] = tag;
        }
        found = stepsFromTags(run, tags, PhaseSource::Annotations);
    }
    if (!found)
        stepsFromPattern(run, {});
    finishPeaks(run);
    markFirstByGrowth(run);
    return run;
}

} // namespace headroom::measured

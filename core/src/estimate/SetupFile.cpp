#include "headroom/estimate/SetupFile.h"

#include "headroom/setup/Optimizer.h"
#include "headroom/setup/Precision.h"
#include "headroom/setup/TrainingSetup.h"
#include "headroom/support/Format.h"
#include "support/JsonText.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <initializer_list>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>

namespace headroom {

namespace {

using nlohmann::json;
using nlohmann::ordered_json;

/// The largest overhead a file may give: 1 TiB, as `--overhead-mib` (1048576 MiB).
constexpr std::uint64_t kMaxOverheadBytes = 1ULL << 40;
constexpr double kGiBytes = 1024.0 * 1024.0 * 1024.0;
/// The newest PCIe generation a custom GPU may name: pcieX16GBps() knows 1 to 6, as the catalogue does.
constexpr std::int64_t kMaxSavedPcieGeneration = 6;

/// An error at a JSON path inside the set-up: "training.batch must be ...".
struct SetupRefusal final
{
    Error error;
};

/// 0.25, 1024, 0.01: a limit as a message shows it.
std::string limitText(double x)
{
    char text[32];
    std::snprintf(text, sizeof text, "%g", x);
    return text;
}

[[noreturn]] void refuseSetup(const std::string& path, const std::string& what)
{
    throw SetupRefusal { Error { path + " " + what, path } };
}

template <typename Enum>
std::string nameChoices(std::span<const Enum> all, std::string_view (*nameOf)(Enum) noexcept)
{
    std::string text;
    for (std::size_t i = 0; i < all.size(); ++i)
        text += std::string(i == 0            ? ""
                        : i + 1 == all.size() ? " or "
                                              : ", ")
            + "\"" + std::string(nameOf(all[i])) + "\"";
    return text;
}

/// One JSON object of the set-up: its keys checked against those it may have, its values read by type
/// and range. Every error names the path of the value.
class ObjectReader final
{
public:
    /// `ignoreUnknown`: keys not in `keys` are left unread rather than refused.
    ObjectReader(const json& object, std::string path, std::initializer_list<std::string_view> keys,
        bool ignoreUnknown = false)
        : m_object { object }
        , m_path { std::move(path) }
    {
        if (!object.is_object())
            refuseSetup(m_path, "must be an object, not " + detail::jsonTypeName(object));
        for (const auto& [key, value] : object.items()) {
            if (ignoreUnknown)
                break;
            bool known = false;
            for (const auto k : keys)
                known = known || k == key;
            if (!known) {
                std::string list;
                for (const auto k : keys)
                    list += (list.empty() ? "" : ", ") + std::string(k);
                refuseSetup(
                    pathOf(detail::shortKey(key)), "is not a key of " + m_path + " (it takes " + list + ")");
            }
        }
    }

    [[nodiscard]] std::string pathOf(std::string_view key) const { return m_path + "." + std::string(key); }
    [[nodiscard]] const json* find(std::string_view key) const
    {
        const auto it = m_object.find(std::string(key));
        return it == m_object.end() ? nullptr : &*it;
    }

    void integer(std::string_view key, std::int64_t min, std::int64_t max, std::int64_t& out) const
    {
        if (const json* v = find(key))
            out = integerValue(*v, pathOf(key), min, max);
    }
    /// An integer, or null for "as the model says" (a sequence length, the stages' layers).
    void optionalInteger(
        std::string_view key, std::int64_t min, std::int64_t max, std::optional<std::int64_t>& out) const
    {
        if (const json* v = find(key))
            out = v->is_null() ? std::nullopt : std::optional(integerValue(*v, pathOf(key), min, max));
    }
    void bytes(std::string_view key, std::uint64_t max, std::uint64_t& out) const
    {
        const json* v = find(key);
        if (v == nullptr)
            return;
        const bool whole = v->is_number_unsigned() || (v->is_number_integer() && v->get<std::int64_t>() >= 0);
        if (!whole || v->get<std::uint64_t>() > max)
            refuseSetup(pathOf(key),
                "must be a number of bytes from 0 to " + std::to_string(max) + " (" + formatBytes(max)
                    + "), not " + detail::shortJson(*v));
        out = v->get<std::uint64_t>();
    }
    /// A number from `min` to `max` (`below` excludes max).
    void number(std::string_view key, double min, double max, double& out, bool below = false) const
    {
        const json* v = find(key);
        if (v == nullptr)
            return;
        const double x = v->is_number() ? v->get<double>() : std::numeric_limits<double>::quiet_NaN();
        if (!(x >= min && (below ? x < max : x <= max)))
            refuseSetup(pathOf(key),
                "must be a number from " + limitText(min) + (below ? " to below " : " to ") + limitText(max)
                    + ", not " + detail::shortJson(*v));
        out = x;
    }
    void boolean(std::string_view key, bool& out) const
    {
        if (const json* v = find(key)) {
            if (!v->is_boolean())
                refuseSetup(pathOf(key), "must be true or false, not " + detail::shortJson(*v));
            out = v->get<bool>();
        }
    }
    void text(std::string_view key, std::string& out) const
    {
        if (const json* v = find(key)) {
            if (!v->is_string())
                refuseSetup(pathOf(key), "must be a string, not " + detail::shortJson(*v));
            out = v->get<std::string>();
        }
    }
    template <typename Enum>
    void name(std::string_view key, std::span<const Enum> all, std::string_view (*nameOf)(Enum) noexcept,
        Enum& out) const
    {
        const json* v = find(key);
        if (v == nullptr)
            return;
        if (v->is_string()) {
            for (const Enum e : all) {
                if (nameOf(e) == v->get<std::string>()) {
                    out = e;
                    return;
                }
            }
        }
        refuseSetup(
            pathOf(key), "must be one of " + nameChoices(all, nameOf) + ", not " + detail::shortJson(*v));
    }

    static std::int64_t integerValue(
        const json& v, const std::string& path, std::int64_t min, std::int64_t max)
    {
        const bool inRange = (v.is_number_integer() && !v.is_number_unsigned() && v.get<std::int64_t>() >= min
                                 && v.get<std::int64_t>() <= max)
            || (v.is_number_unsigned() && v.get<std::uint64_t>() <= static_cast<std::uint64_t>(max)
                && static_cast<std::int64_t>(v.get<std::uint64_t>()) >= min);
        if (!inRange)
            refuseSetup(path,
                "must be an integer from " + std::to_string(min) + " to " + std::to_string(max) + ", not "
                    + detail::shortJson(v));
        return v.get<std::int64_t>();
    }

private:
    const json& m_object;
    std::string m_path;
};

/// A custom GPU's object at `path` (parseCustomGpu()).
Gpu readCustomGpu(const json& v, const std::string& path, UnknownGpuKeys unknown)
{
    const ObjectReader gpu(v, path,
        { "name", "memory_bytes", "bandwidth_gbps", "fp32_tflops", "fp16_tflops", "bf16_tflops", "link_gbps",
            "pcie_gen" },
        unknown == UnknownGpuKeys::Ignore);
    Gpu custom;
    custom.vendor = "Custom";
    custom.family = "Custom";
    custom.custom = true;
    if (gpu.find("name") == nullptr || gpu.find("memory_bytes") == nullptr)
        refuseSetup(path, "is a custom GPU: it needs \"name\" and \"memory_bytes\"");
    gpu.text("name", custom.name);
    if (custom.name.empty() || custom.name.size() > 200)
        refuseSetup(gpu.pathOf("name"), "must be a name of 1 to 200 characters");
    const auto min = static_cast<std::uint64_t>(kMinCustomGpuGiB * kGiBytes);
    const auto max = static_cast<std::uint64_t>(kMaxCustomGpuGiB * kGiBytes);
    gpu.bytes("memory_bytes", max, custom.memoryBytes);
    if (custom.memoryBytes < min)
        refuseSetup(gpu.pathOf("memory_bytes"),
            "must be at least " + std::to_string(min) + " (" + formatBytes(min)
                + "): smaller cannot hold a CUDA context");
    constexpr double kMaxFigure = 1e9; // far above any accelerator's GB/s or TFLOP/s
    gpu.number("bandwidth_gbps", 0, kMaxFigure, custom.bandwidthGBps);
    gpu.number("fp32_tflops", 0, kMaxFigure, custom.fp32Tflops);
    gpu.number("fp16_tflops", 0, kMaxFigure, custom.fp16Tflops);
    gpu.number("bf16_tflops", 0, kMaxFigure, custom.bf16Tflops);
    // The links the communication estimate uses (Communication.cpp): GB/s each way to the node's other
    // GPUs, else the PCIe generation's x16 rate; 0 = unknown, as in the catalogue (gpus.json).
    gpu.number("link_gbps", 0, kMaxFigure, custom.linkGBps);
    std::int64_t pcie = 0;
    if (const json* v = gpu.find("pcie_gen")) {
        if (!v->is_number_integer() || v->get<std::int64_t>() < 0
            || v->get<std::int64_t>() > kMaxSavedPcieGeneration)
            refuseSetup(gpu.pathOf("pcie_gen"),
                "must be a PCIe generation from 0 (unknown) to " + std::to_string(kMaxSavedPcieGeneration)
                    + ", not " + detail::shortJson(*v));
        pcie = v->get<std::int64_t>();
    }
    custom.pcieGeneration = static_cast<int>(pcie);
    return custom;
}

Gpu readGpu(const json& v, const GpuCatalog& catalog)
{
    if (v.is_string()) {
        auto found = catalog.find(v.get<std::string>());
        if (!found)
            refuseSetup("training.gpu", "names no GPU of the catalogue: " + found.error().message);
        return std::move(found).value();
    }
    if (!v.is_object())
        refuseSetup("training.gpu",
            "must be a GPU's name from the catalogue (headroom gpus) or a custom GPU's object {\"name\", "
            "\"memory_bytes\"}, not "
                + detail::shortJson(v));
    return readCustomGpu(v, "training.gpu", UnknownGpuKeys::Refuse);
}

void readLora(const json& v, LoraOptions& lora)
{
    const ObjectReader r(v, "training.lora", { "rank", "targets", "dropout", "quantize_base" });
    r.integer("rank", 0, kMaxLoraRank, lora.rank);
    if (const json* targets = r.find("targets")) {
        if (!targets->is_array())
            refuseSetup("training.lora.targets",
                "must be a list of Linear layer names, not " + detail::shortJson(*targets));
        lora.targets.clear();
        for (std::size_t i = 0; i < targets->size(); ++i) {
            const json& t = (*targets)[i];
            if (!t.is_string() || t.get<std::string>().empty())
                refuseSetup("training.lora.targets[" + std::to_string(i) + "]",
                    "must be a Linear layer's name (a string), not " + detail::shortJson(t));
            lora.targets.push_back(t.get<std::string>());
        }
    }
    r.number("dropout", 0, 1, lora.dropout, true);
    r.boolean("quantize_base", lora.quantizeBase);
    if (lora.quantizeBase && !lora.enabled())
        refuseSetup(
            "training.lora.quantize_base", "needs training.lora.rank above 0 (QLoRA quantises LoRA's base)");
}

void readParallel(const json& v, Parallelism& par)
{
    const ObjectReader r(v, "training.parallel",
        { "gpus", "sharding", "tensor_parallel", "sequence_parallel", "pipeline_parallel", "schedule",
            "virtual_stages", "stage_layers", "context_parallel", "context_parallel_kind", "expert_parallel",
            "expert_tensor_parallel", "data_parallel", "expert_data_parallel", "offload_optimizer",
            "offload_activations" });
    r.integer("gpus", 1, kMaxGpus, par.gpus);
    r.name("sharding", allShardings(), shardingName, par.sharding);
    r.integer("tensor_parallel", 1, kMaxGpus, par.tensorParallel);
    r.boolean("sequence_parallel", par.sequenceParallel);
    r.integer("pipeline_parallel", 1, kMaxParallelDegree, par.pipelineParallel);
    r.name("schedule", allPipelineSchedules(), pipelineScheduleName, par.schedule);
    r.integer("virtual_stages", 1, kMaxParallelDegree, par.virtualStages);
    if (const json* stages = r.find("stage_layers")) {
        par.stageLayers.clear();
        if (!stages->is_null() && !stages->is_array())
            refuseSetup("training.parallel.stage_layers",
                "must be a list of layer counts per stage, first to last, or null (as even as possible), not "
                    + detail::shortJson(*stages));
        for (std::size_t i = 0; stages->is_array() && i < stages->size(); ++i)
            par.stageLayers.push_back(ObjectReader::integerValue((*stages)[i],
                "training.parallel.stage_layers[" + std::to_string(i) + "]", 0, kMaxParallelDegree));
    }
    r.integer("context_parallel", 1, kMaxParallelDegree, par.contextParallel);
    static constexpr ContextParallelism kKinds[] = { ContextParallelism::Ring, ContextParallelism::AllToAll };
    r.name("context_parallel_kind", std::span<const ContextParallelism>(kKinds), contextParallelismName,
        par.contextKind);
    r.integer("expert_parallel", 1, kMaxParallelDegree, par.expertParallel);
    r.integer("expert_tensor_parallel", 1, kMaxParallelDegree, par.expertTensorParallel);
    r.boolean("offload_optimizer", par.offloadOptimizer);
    r.name("offload_activations", allActivationOffloads(), activationOffloadName, par.activationOffload);
    // What `headroom estimate --json` adds, worked out from the rest: a pasted "parallel" object reads,
    // and one that does not agree with itself is refused.
    std::int64_t derived = 0;
    r.integer("data_parallel", 1, kMaxGpus, derived);
    if (r.find("data_parallel") != nullptr && derived != par.dataParallel())
        refuseSetup("training.parallel.data_parallel",
            "is " + std::to_string(derived) + " but gpus / (tensor x pipeline x context parallel) is "
                + std::to_string(par.dataParallel()) + " (it follows from them; leave it out)");
    r.integer("expert_data_parallel", 0, kMaxGpus, derived);
    if (r.find("expert_data_parallel") != nullptr && derived != par.expertDataParallel())
        refuseSetup("training.parallel.expert_data_parallel",
            "is " + std::to_string(derived) + " but gpus / (pipeline x expert x expert-tensor parallel) is "
                + std::to_string(par.expertDataParallel()) + " (it follows from them; leave it out)");
}

void readCalibration(const json& v, RunCalibration& cal)
{
    cal = {};
    if (v.is_null())
        return;
    const ObjectReader r(
        v, "training.calibration", { "fixed_bytes", "per_sample_bytes", "measured_batch", "source" });
    r.bytes("fixed_bytes", kMaxCalibrationBytes, cal.fixedBytes);
    r.bytes("per_sample_bytes", kMaxCalibrationPerSampleBytes, cal.perSampleBytes);
    std::optional<std::int64_t> measured;
    r.optionalInteger("measured_batch", 1, kMaxBatch, measured);
    cal.measuredBatch = measured.value_or(0);
    if (const json* source = r.find("source"); source != nullptr && !source->is_null())
        r.text("source", cal.source);
}

PlanSettings readSetup(const json& training, const GpuCatalog& catalog)
{
    const ObjectReader r(training, "training",
        { "gpu", "precision", "optimizer", "optimizer_implementation", "eight_bit_optimizer", "batch",
            "accumulation_steps", "checkpointing", "attention", "sequence_length", "moe_imbalance", "lora",
            "parallel", "gpus_per_node", "inter_node_gbps", "overhead_bytes", "expandable_segments",
            "assumed_utilization", "calibration" });
    PlanSettings s;
    s.gpu = r.find("gpu") != nullptr ? readGpu(*r.find("gpu"), catalog) : catalog.defaultGpu();
    s.setup.overheadBytes = defaultOverheadBytes(s.gpu);
    static constexpr Precision kPrecisions[]
        = { Precision::Fp32, Precision::AmpFp16, Precision::AmpBf16, Precision::Fp16, Precision::Bf16 };
    r.name("precision", std::span<const Precision>(kPrecisions), precisionName, s.precision);
    TrainingSetup& t = s.setup;
    r.name("optimizer", allOptimizers(), optimizerName, t.optimizer);
    r.name("optimizer_implementation", allOptimizerImplementations(), optimizerImplementationName,
        t.optimizerImplementation);
    r.boolean("eight_bit_optimizer", t.eightBitOptimizer);
    r.integer("batch", 1, kMaxBatch, t.batch);
    r.integer("accumulation_steps", 1, kMaxAccumulationSteps, t.accumulationSteps);
    r.name("checkpointing", allCheckpointings(), checkpointingName, s.checkpointing);
    static constexpr AttentionImplementation kAttention[]
        = { AttentionImplementation::Sdpa, AttentionImplementation::Eager };
    r.name("attention", std::span<const AttentionImplementation>(kAttention), attentionName, s.attention);
    r.optionalInteger("sequence_length", 1, kMaxBatch, s.sequenceLength);
    r.number("moe_imbalance", 1, kMaxMoeImbalance, s.moeImbalance);
    if (const json* lora = r.find("lora"))
        readLora(*lora, s.lora);
    if (const json* parallel = r.find("parallel"))
        readParallel(*parallel, t.parallel);
    r.integer("gpus_per_node", 1, kMaxGpus, t.gpusPerNode);
    if (const json* v = r.find("inter_node_gbps")) {
        const double x = v->is_number() ? v->get<double>() : std::numeric_limits<double>::quiet_NaN();
        if (!(x > 0 && x <= kMaxInterNodeGBps)) // also NaN
            refuseSetup("training.inter_node_gbps",
                "must be a bandwidth in GB/s per GPU above 0 and at most " + limitText(kMaxInterNodeGBps)
                    + ", not " + detail::shortJson(*v));
        t.interNodeGBps = x;
    }
    r.bytes("overhead_bytes", kMaxOverheadBytes, t.overheadBytes);
    r.boolean("expandable_segments", t.expandableSegments);
    r.number("assumed_utilization", kMinUtilization, 1, t.assumedUtilization);
    if (const json* calibration = r.find("calibration"))
        readCalibration(*calibration, t.calibration);
    if (auto problem = validateSetup(t)) {
        // validateSetup() names the settings as this object does, but for the activations' offload.
        std::string where = problem->location == "parallel.activation_offload"
            ? "parallel.offload_activations"
            : problem->location;
        where = "training" + (where.empty() ? std::string() : "." + where);
        throw SetupRefusal { Error { where + ": " + problem->message, where } };
    }
    return s;
}

} // namespace

Result<Gpu> parseCustomGpu(const nlohmann::json& gpu, const std::string& path, UnknownGpuKeys unknown)
{
    try {
        return readCustomGpu(gpu, path, unknown);
    } catch (const SetupRefusal& refusal) {
        return refusal.error;
    }
}

ordered_json customGpuToJson(const Gpu& gpu)
{
    ordered_json j { { "name", gpu.name }, { "memory_bytes", gpu.memoryBytes } };
    // The figures the throughput estimate uses, where the GPU has them.
    for (const auto& [key, value] : { std::pair { "bandwidth_gbps", gpu.bandwidthGBps },
             std::pair { "fp32_tflops", gpu.fp32Tflops }, std::pair { "fp16_tflops", gpu.fp16Tflops },
             std::pair { "bf16_tflops", gpu.bf16Tflops }, std::pair { "link_gbps", gpu.linkGBps } }) {
        if (value > 0)
            j[key] = value;
    }
    if (gpu.pcieGeneration > 0)
        j["pcie_gen"] = gpu.pcieGeneration;
    return j;
}

Result<PlanSettings> parseTrainingSetup(const nlohmann::json& training, const GpuCatalog& catalog)
{
    try {
        return readSetup(training, catalog);
    } catch (const SetupRefusal& refusal) {
        return refusal.error;
    }
}

ordered_json trainingSetupToJson(const PlanSettings& s)
{
    ordered_json j;
    if (s.gpu.custom) {
        j["gpu"] = customGpuToJson(s.gpu);
    } else {
        j["gpu"] = s.gpu.name;
    }
    const TrainingSetup& t = s.setup;
    j["precision"] = precisionName(s.precision);
    j["optimizer"] = optimizerName(t.optimizer);
    j["optimizer_implementation"] = optimizerImplementationName(t.optimizerImplementation);
    j["eight_bit_optimizer"] = t.eightBitOptimizer;
    j["batch"] = t.batch;
    j["accumulation_steps"] = t.accumulationSteps;
    j["checkpointing"] = checkpointingName(s.checkpointing);
    j["attention"] = attentionName(s.attention);
    j["sequence_length"] = s.sequenceLength ? ordered_json(*s.sequenceLength) : ordered_json(nullptr);
    j["moe_imbalance"] = s.moeImbalance;
    j["lora"] = { { "rank", s.lora.rank }, { "targets", s.lora.targets }, { "dropout", s.lora.dropout },
        { "quantize_base", s.lora.quantizeBase } };
    // `headroom estimate --json`'s object less what follows from it (the data-parallel degrees).
    ordered_json parallel = parallelismToJson(t.parallel);
    parallel.erase("data_parallel");
    parallel.erase("expert_data_parallel");
    j["parallel"] = parallel;
    j["gpus_per_node"] = t.gpusPerNode;
    j["inter_node_gbps"] = t.interNodeGBps;
    j["overhead_bytes"] = t.overheadBytes;
    j["expandable_segments"] = t.expandableSegments;
    j["assumed_utilization"] = t.assumedUtilization;
    const RunCalibration& cal = t.calibration;
    j["calibration"] = cal.active() ? ordered_json { { "fixed_bytes", cal.fixedBytes },
        { "per_sample_bytes", cal.perSampleBytes },
        { "measured_batch", cal.measuredBatch > 0 ? ordered_json(cal.measuredBatch) : ordered_json(nullptr) },
        { "source", cal.source.empty() ? ordered_json(nullptr) : ordered_json(cal.source) } }
                                    : ordered_json(nullptr);
    return j;
}

} // namespace headroom

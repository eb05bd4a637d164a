#pragma once

#include "headroom/estimate/Estimate.h"
#include "headroom/estimate/Plan.h"
#include "headroom/planner/Planner.h"
#include "headroom/setup/Optimizer.h"
#include "headroom/setup/Precision.h"
#include "headroom/setup/Training.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace headroom::cli {

struct Command;

/// Everything the options of one `headroom COMMAND ...` say, with the defaults of Plan and TrainingSetup.
struct Options final
{
    std::string command;
    std::string file;
    std::string gpu { kDefaultGpuName };
    bool gpuGiven = false;
    Optimizer optimizer = Optimizer::Adam;
    OptimizerImplementation optimizerImplementation = OptimizerImplementation::Foreach;
    Precision precision = Precision::Fp32;
    std::int64_t batch = kDefaultBatch;
    /// --overhead-mib; empty: the CUDA context of the chosen GPU (defaultOverheadBytes()).
    std::optional<std::uint64_t> overheadBytes;
    std::optional<std::uint64_t> customMemoryBytes;
    std::string output;
    std::string saveSetup; ///< estimate --save-setup: the model written with the plan's set-up saved in it
    bool json = false;
    // Training strategies (issue #7); defaults as in Plan and TrainingSetup.
    Checkpointing checkpointing = Checkpointing::None;
    std::optional<Loss> loss; ///< the model's own loss when not given
    AttentionImplementation attention = AttentionImplementation::Sdpa;
    std::optional<std::int64_t> sequenceLength;
    double moeImbalance = 1.0;
    std::vector<std::string> freeze;
    LoraOptions lora;
    bool loraTargetsGiven = false;
    bool loraDropoutGiven = false;
    std::int64_t accumulationSteps = 1;
    Parallelism parallel;
    bool eightBitOptimizer = false;
    bool expandableSegments = false; ///< --expandable-segments
    /// --calibration-fixed and --calibration-per-sample (TrainingSetup::calibration).
    RunCalibration calibration;
    double utilization = TrainingSetup {}.assumedUtilization;
    // plan and compare (issue #18).
    std::optional<std::int64_t> targetBatch;
    /// plan --global-batch: samples per optimizer step over the whole cluster (the cluster search).
    std::optional<std::int64_t> globalBatch;
    std::int64_t gpusPerNode = 8; ///< plan --gpus-per-node
    double interNodeGBps = kDefaultInterNodeGBps; ///< --inter-node-gbps
    std::optional<double> maxStepSeconds;
    PlanAllowances allow;
    bool listAll = false;
    bool includePlan = false; ///< report: add the planner's table
    std::vector<std::string> gpuList;
    // measured and report (issue 36): the recorded run, the model it is compared with and its set-up.
    std::string model; ///< measured --model: the model file the run is compared with
    std::string measured; ///< report --measured: a recorded run for the "Plan and measured run" page
    std::optional<std::int64_t> runBatch; ///< --run-batch: the run's micro-batch [the plan's]
    std::optional<Precision> runPrecision; ///< --run-precision [the plan's]
    bool calibrate = false; ///< measured --calibrate: the calibrated max batch
    /// Options `plan` never changes, as given: each planned set-up's `headroom estimate` repeats them.
    std::vector<std::string> kept;
    std::vector<std::string> keptLora; ///< --lora-targets and --lora-dropout: repeated where LoRA is on
    std::vector<std::string> given; ///< every option named, for the per-command checks
    /// The set-up saved in the model file, once makePlan() has read it: the `headroom estimate` commands
    /// `plan` prints start from it too.
    std::optional<PlanSettings> savedSetup;
};

/// A command-line error: printed as one line, exit code 2.
struct UsageError final
{
    std::string message;
};

/// Where an option's help is listed: under "Options", "Training strategies" or "Planning".
enum class OptionGroup { General, Strategy, Planning, Measured };

/// One option of the command line, whichever commands take it: its names, its value, its help and
/// what it sets in Options.
struct OptionSpec final
{
    std::string_view name; ///< "--output"
    std::string_view shortName; ///< "-o", or empty
    std::string_view valueName; ///< "FILE"; empty for a flag
    OptionGroup group = OptionGroup::General;
    /// The help as `headroom --help` lists it; each line after the first continues it.
    std::string help;
    /// Checks `value` (empty for a flag) and sets it; `given` is the name as typed, for messages.
    void (*apply)(Options& o, const std::string& given, const std::string& value) = nullptr;
    /// A switch a model file's saved set-up can turn on: what its --no- form (`--no-qlora`) sets, so that
    /// the command line can turn it off again; null for every other option.
    void (*turnOff)(Options& o) = nullptr;

    [[nodiscard]] bool takesValue() const { return !valueName.empty(); }
    /// "--no-qlora" for a switch with turnOff; empty for any other option.
    [[nodiscard]] std::string offName() const;
    /// "-o, --output FILE", "--gpu NAME", "--[no-]qlora": the option as help lists it.
    [[nodiscard]] std::string synopsis() const;
};

/// Every option, in the order `headroom --help` lists them (OptionTable.cpp).
[[nodiscard]] const std::vector<OptionSpec>& allOptions();
/// The option named `name` (long or short, or a switch's --no- form), or null.
[[nodiscard]] const OptionSpec* findOption(std::string_view name);

/// "sgd|momentum|...": the names `--optimizer` takes.
[[nodiscard]] std::string optimizerChoices();

/// `args` (the command first) as `command` reads them; a UsageError names the first problem:
/// an unknown option, a value out of range, a missing model file, an option the command does not take.
[[nodiscard]] Options parseOptions(const std::vector<std::string>& args, const Command& command);

/// The checks between options (LoRA's options need --lora-rank, --tensor-parallel divides --gpus, the
/// parallel layout's rules): a UsageError naming the option. parseOptions() runs them unless the command
/// plans a model file, whose saved set-up the options override: makePlan() runs them then.
void checkOptionCombinations(const Options& o);

/// The option a set-up setting's error location comes from ("parallel.pipeline_parallel":
/// "--pipeline-parallel"); the location itself where no option sets it.
[[nodiscard]] std::string optionOfSetting(const std::string& location);

/// Whether `option` was given; a switch's --no- form counts as giving it (`--no-qlora` gives --qlora:
/// the model file's setting is overridden either way).
[[nodiscard]] bool wasGiven(const Options& o, std::string_view option);

} // namespace headroom::cli

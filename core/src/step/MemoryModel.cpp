#include "headroom/step/MemoryModel.h"

#include "headroom/layers/LayerRegistry.h"
#include "headroom/step/PipelineSchedule.h"
#include "step/SequenceContext.h"
#include "step/TensorParallel.h"
#include "support/Wide.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace headroom {

namespace {

constexpr std::uint64_t kFloat32Bytes = 4;

/// a - b, floored at 0 (b is a part of a computed elsewhere; never wraps). Overflow propagates.
Count without(Count a, Count b)
{
    if (a.isOverflow() || b.isOverflow())
        return Count::overflowed();
    return Count { a.value() - std::min(a.value(), b.value()) };
}

/// ceil(c / n): what one of n ranks holds of a sharded (padded) buffer.
Count ceilDiv(Count c, std::uint64_t n)
{
    if (c.isOverflow() || n == 0)
        return c;
    return Count { c.value() / n + (c.value() % n != 0 ? 1 : 0) };
}

/// floor(bytes x part / whole): the bytes `part` of `whole` elements hold. Exact when every element
/// has the same size; proportional otherwise (QLoRA mixes 4-bit bases with 16-bit adapters).
Count share(Count bytes, std::uint64_t part, std::uint64_t whole)
{
    if (bytes.isOverflow())
        return bytes;
    if (whole == 0)
        return Count {};
    if (part >= whole)
        return bytes;
    return Count { static_cast<std::uint64_t>(static_cast<Wide>(bytes.value()) * part / whole) };
}

/// What tensor parallelism removes from one GPU, and the largest layers it keeps.
struct TensorSplit
{
    std::uint64_t removedParams = 0; ///< parameter elements held by the other t - 1 ranks
    std::uint64_t removedTrainable = 0; ///< of which trainable
    std::uint64_t removedAutocastCast = 0; ///< of which autocast caches a half copy (Linear, Attention)
    std::uint64_t largestLayerParams = 0; ///< the largest layer's parameter elements on one GPU
    /// The largest layer (on one GPU) whose weights autocast casts to half: conv, linear, attention,
    /// recurrent and composite layers. All of its parameters count (an upper bound: biases and norms
    /// inside a composite are not cast).
    std::uint64_t largestCastLayerParams = 0;
    /// Expert parallelism: the routed experts' parameter elements on one GPU, all and trainable.
    std::uint64_t expertParams = 0;
    std::uint64_t expertTrainable = 0;
};

/// What tensor parallelism (t) and expert parallelism (`experts` = e x expert tensor parallel, split only
/// when above 1) remove from one GPU: a mixture-of-experts layer's routed experts split `experts` ways,
/// the rest of it (the router) as tensor parallelism splits the layer (docs/multi-gpu.md).
TensorSplit splitForTensorParallel(const Analysis& analysis, std::uint64_t t, std::uint64_t experts)
{
    TensorSplit out;
    const LayerRegistry& registry = LayerRegistry::builtin();
    for (const auto& row : analysis.rows) {
        const LayerKind* kind = registry.find(row.type);
        if (kind == nullptr) { // a Repeat header or the loss: no parameters of their own
            out.largestLayerParams = std::max(out.largestLayerParams, row.params);
            continue;
        }
        const LayerCategory category = kind->category();
        const bool cast = category == LayerCategory::Linear || category == LayerCategory::Attention;
        const bool split = t > 1 && splitByTensorParallel(row);
        const bool expertRow = experts > 1 && row.expertParams > 0;
        const std::uint64_t dense = row.params - (expertRow ? row.expertParams : 0);
        const std::uint64_t denseTrainable
            = row.trainableParams - (expertRow ? row.expertTrainableParams : 0);
        std::uint64_t removed = split ? removedBySplit(dense, t) : 0;
        std::uint64_t removedTrainable = split ? removedBySplit(denseTrainable, t) : 0;
        if (expertRow) {
            const std::uint64_t gone = removedBySplit(row.expertParams, experts);
            const std::uint64_t goneTrainable = removedBySplit(row.expertTrainableParams, experts);
            removed += gone;
            removedTrainable += goneTrainable;
            out.expertParams += (row.expertParams - gone) * row.count;
            out.expertTrainable += (row.expertTrainableParams - goneTrainable) * row.count;
        }
        // the row stands for `count` identical layers (totals fit 64 bits: the analysis checked)
        out.removedParams += removed * row.count;
        out.removedTrainable += removedTrainable * row.count;
        if (cast)
            out.removedAutocastCast += removed * row.count;
        const std::uint64_t kept = row.params - removed;
        out.largestLayerParams = std::max(out.largestLayerParams, kept);
        if (kind->autocast() == AutocastPolicy::LowerPrecision || kind->autocast() == AutocastPolicy::Custom)
            out.largestCastLayerParams = std::max(out.largestCastLayerParams, kept);
    }
    return out;
}

/// Optimizer state bytes for every trainable parameter (before any split): float32 buffers, or
/// bitsandbytes' block-wise 8-bit state (1 byte per element + a float32 absmax per 2048-element block;
/// tensors below 4096 elements stay float32).
Count optimizerStateBytes(const Analysis& analysis, Optimizer optimizer, bool eightBit)
{
    const Count tensors { static_cast<std::uint64_t>(optimizerStateTensors(optimizer)) };
    if (!eightBit)
        return Count { analysis.trainableParams } * tensors * Count { kFloat32Bytes };
    Count perState;
    const auto add = [&](std::uint64_t n) {
        if (n < kEightBitMinTensorElements)
            perState += Count { n } * Count { kFloat32Bytes };
        else
            perState += Count { n } + ceilDiv(Count { n }, kEightBitBlockElements) * Count { kFloat32Bytes };
    };
    // Until the analysis lists the trainable tensors, all trainable parameters count as one tensor.
    if (analysis.trainableTensorElements.empty() && analysis.trainableParams > 0)
        add(analysis.trainableParams);
    const auto& elements = analysis.trainableTensorElements;
    const auto& copies = analysis.trainableTensorCopies;
    for (std::size_t i = 0; i < elements.size(); ++i) {
        const Count before = perState;
        add(elements[i]);
        if (i < copies.size() && copies[i] > 1) // identical tensors of identical Repeat iterations
            perState += (perState.isOverflow() ? perState : Count { perState.value() - before.value() })
                * Count { copies[i] - 1 };
    }
    return perState * tensors;
}

/// The optimizer step's temporaries on one GPU (docs/memory-model.md, "The optimizer step"): foreach
/// keeps lists as large as the parameters it updates (`updated` elements: this GPU's partition under
/// ZeRO / FSDP), the for-loop a few tensors' worth of two consecutive parameters (each at most the
/// partition); fused kernels, DeepSpeed's own optimizers, bitsandbytes' 8-bit ones and an optimizer
/// stepping in CPU memory keep none on the GPU.
Count stepTemporaryBytes(const Analysis& analysis, const TrainingSetup& setup, Count updated)
{
    if (!stepsWithTorchOptim(setup) || setup.parallel.offloadOptimizer)
        return Count {};
    const StepTemporaries t = optimizerStepTemporaries(setup.optimizer, setup.optimizerImplementation);
    Count forLoop;
    std::vector<std::uint64_t> tensors = analysis.trainableTensorElements;
    if (tensors.empty() && analysis.trainableParams > 0)
        tensors.push_back(analysis.trainableParams);
    std::uint64_t previous = 0;
    for (const std::uint64_t n : tensors) {
        const std::uint64_t current = std::min(n, updated.value());
        for (const auto& pair : t.forLoop) {
            const Count c = Count { static_cast<std::uint64_t>(pair.previous) } * Count { previous }
                + Count { static_cast<std::uint64_t>(pair.current) } * Count { current };
            forLoop = std::max(forLoop.value(), c.value());
        }
        previous = current;
    }
    return (Count { static_cast<std::uint64_t>(t.parameterLists) } * updated + forLoop)
        * Count { kFloat32Bytes };
}

/// The model states on one GPU after tensor parallelism (Megatron-LM: the split layers hold 1/t of
/// their parameters), before data parallelism shards them.
struct ModelStates
{
    TensorSplit split;
    Count parameterBytes;
    Count gradients;
    Count optimizerState; ///< with pure half training's float32 master weights
    Count trainableHere; ///< trainable parameter elements on this GPU
    /// Of the above: the routed experts' share under expert parallelism (sharded over the expert
    /// data-parallel ranks rather than the data-parallel ones); 0 without it.
    Count expertParameterBytes;
    Count expertGradients;
    Count expertOptimizerState;
    Count expertTrainable;
};

/// The expert split e x expert tensor parallel, or 1 when both are 1 (the experts then follow tensor
/// parallelism with the rest of their layer).
std::uint64_t expertSplit(const Parallelism& par)
{
    return static_cast<std::uint64_t>(
        std::max<std::int64_t>(1, par.expertParallel) * std::max<std::int64_t>(1, par.expertTensorParallel));
}

ModelStates modelStatesPerGpu(const Analysis& analysis, const TrainingSetup& setup)
{
    ModelStates out;
    const Precision p = analysis.precision;
    out.split = splitForTensorParallel(
        analysis, static_cast<std::uint64_t>(setup.parallel.tensorParallel), expertSplit(setup.parallel));
    const TensorSplit& split = out.split;
    const std::uint64_t trainable = analysis.trainableParams;
    const Count allParameterBytes { analysis.parameterBytes };
    out.parameterBytes
        = without(allParameterBytes, share(allParameterBytes, split.removedParams, analysis.totalParams));
    // Gradients have their parameters' dtype. Until the analysis reports trainableParameterBytes, every
    // trainable parameter has the precision's parameter type.
    const Count gradientBase = analysis.trainableParameterBytes > 0 || trainable == 0
        ? Count { analysis.trainableParameterBytes }
        : Count { trainable } * Count { elementSize(parameterType(p)) };
    out.gradients = without(gradientBase, share(gradientBase, split.removedTrainable, trainable));
    const Count stateBase = optimizerStateBytes(analysis, setup.optimizer, setup.eightBitOptimizer);
    out.optimizerState = without(stateBase, share(stateBase, split.removedTrainable, trainable));
    out.trainableHere = without(Count { trainable }, Count { split.removedTrainable });
    out.expertTrainable = Count { split.expertTrainable };
    out.expertParameterBytes = share(allParameterBytes, split.expertParams, analysis.totalParams);
    out.expertGradients = share(gradientBase, split.expertTrainable, trainable);
    out.expertOptimizerState = share(stateBase, split.expertTrainable, trainable);
    // Pure half training: the optimizer's float32 master copy of the trainable weights.
    if (isPureHalf(p)) {
        out.optimizerState += out.trainableHere * Count { kFloat32Bytes };
        out.expertOptimizerState += out.expertTrainable * Count { kFloat32Bytes };
    }
    return out;
}

/// What data parallelism adds beside the model states: DDP's gradient buckets, ZeRO-3 / FSDP's gathered
/// layers, and the cap on autocast's half copies while only gathered layers have full weights.
void addDataParallelBuffers(
    StepConditions& c, const Analysis& analysis, const Parallelism& par, const ModelStates& states)
{
    const auto ranks = static_cast<std::uint64_t>(par.dataParallel());
    const bool gathersLayers = ranks > 1 && shardingStage(par.sharding) >= 3;
    const Precision p = analysis.precision;
    if (ranks > 1 && par.sharding == Sharding::None)
        c.bucketBytes
            = states.gradients.value(); // DDP's flat gradient buckets: a second copy of every gradient
    if (gathersLayers) // the gathered layer and the prefetched next one, in the parameter dtype
        c.gatheredBytes = (Count { 2 }
            * share(Count { analysis.parameterBytes }, states.split.largestLayerParams, analysis.totalParams))
                              .value();
    // A fully sharded model has a layer's full weights only while it is gathered, so autocast's half
    // copies exist only for the gathered layer and the prefetched one.
    if (gathersLayers && isAutocast(p))
        c.autocastCopyCap = (Count { 2 } * Count { states.split.largestCastLayerParams }
            * Count { elementSize(halfType(p)) })
                                .value();
}

/// DeepSpeed ZeRO's optimizer step in mixed precision: each rank converts its half gradient partition
/// (`partition` elements) to a float32 copy for the optimizer (stage 1/2: the whole partition; stage 3:
/// one sub-group of at most sub_group_size elements at a time). It exists only during the step, when
/// activations are gone.
Count deepSpeedStepGradientBytes(const Parallelism& par, Precision p, Count partition)
{
    if (!isDeepSpeedZero(par.sharding) || !isPureHalf(p) || par.offloadOptimizer)
        return Count {};
    return (shardingStage(par.sharding) >= 3 ? std::min(partition.value(), kDeepSpeedSubGroupElements)
                                             : partition)
        * Count { kFloat32Bytes };
}

/// Expert parallelism and activation offloading against the network and the analysis's checkpointing:
/// each problem names both settings. A pipeline stage may hold no mixture of experts (the whole model's
/// analysis is checked for one).
std::optional<Error> checkAgainstNetwork(const Analysis& analysis, const Parallelism& par, bool stage)
{
    if (auto problem = expertParallelProblem(analysis, par, !stage))
        return problem;
    const Checkpointing checkpointing = analysis.options.checkpointing;
    if (par.activationOffload == ActivationOffload::Checkpoints && checkpointing != Checkpointing::PerBlock)
        return Error {
            "activation offload \"checkpoints\" moves the block inputs that per-block checkpointing "
            "keeps to the CPU: it needs checkpointing \"per-block\", not \""
                + std::string(checkpointingName(checkpointing)) + "\"",
            "parallel.activation_offload"
        };
    return std::nullopt;
}

void setComponentBytes(MemoryBreakdown& m, Component c, std::uint64_t bytes) noexcept
{
    switch (c) {
    case Component::Weights:
        m.weights = bytes;
        break;
    case Component::Gradients:
        m.gradients = bytes;
        break;
    case Component::OptimizerState:
        m.optimizerState = bytes;
        break;
    case Component::Activations:
        m.activations = bytes;
        break;
    case Component::Input:
        m.input = bytes;
        break;
    case Component::Transient:
        m.transient = bytes;
        break;
    case Component::Communication:
        m.communication = bytes;
        break;
    case Component::Calibration:
        m.calibration = bytes;
        break;
    case Component::Overhead:
        m.overhead = bytes;
        break;
    }
}

} // namespace

std::optional<Error> expertParallelProblem(const Analysis& analysis, const Parallelism& par, bool wholeModel)
{
    if (par.expertParallel <= 1 && par.expertTensorParallel <= 1)
        return std::nullopt;
    bool any = false;
    for (const auto& row : analysis.rows) {
        if (row.experts <= 0)
            continue;
        any = true;
        if (row.experts % par.expertParallel != 0)
            return Error { "expert parallel " + std::to_string(par.expertParallel) + " must divide the "
                    + std::to_string(row.experts) + " experts of layer "
                    + layerReference(row, rangeName(row)),
                "parallel.expert_parallel" };
    }
    if (any || !wholeModel)
        return std::nullopt;
    const bool e = par.expertParallel > 1;
    return Error { std::string(e ? "expert parallel " : "expert tensor parallel ")
            + std::to_string(e ? par.expertParallel : par.expertTensorParallel)
            + " splits the experts of mixture-of-experts layers, but the model has none",
        e ? "parallel.expert_parallel" : "parallel.expert_tensor_parallel" };
}

Count MemoryBreakdown::checkedTotal() const noexcept
{
    Count sum;
    for (const auto c : kAllComponents)
        sum += Count { componentBytes(*this, c) };
    return sum;
}

std::uint64_t MemoryBreakdown::total() const noexcept
{
    return checkedTotal().value();
}

std::string_view componentName(Component c) noexcept
{
    switch (c) {
    case Component::Weights:
        return "weights";
    case Component::Gradients:
        return "gradients";
    case Component::OptimizerState:
        return "optimizer_state";
    case Component::Activations:
        return "activations";
    case Component::Input:
        return "input";
    case Component::Transient:
        return "transient";
    case Component::Communication:
        return "communication";
    case Component::Calibration:
        return "calibration";
    case Component::Overhead:
        return "overhead";
    }
    return "";
}

std::string_view componentLabel(Component c) noexcept
{
    switch (c) {
    case Component::Weights:
        return "Weights";
    case Component::Gradients:
        return "Gradients";
    case Component::OptimizerState:
        return "Optimizer state";
    case Component::Activations:
        return "Activations";
    case Component::Input:
        return "Input batch";
    case Component::Transient:
        return "Transient";
    case Component::Communication:
        return "Communication buffers";
    case Component::Calibration:
        return "Calibration (measured excess)";
    case Component::Overhead:
        return "Framework overhead";
    }
    return "";
}

std::uint64_t componentBytes(const MemoryBreakdown& m, Component c) noexcept
{
    switch (c) {
    case Component::Weights:
        return m.weights;
    case Component::Gradients:
        return m.gradients;
    case Component::OptimizerState:
        return m.optimizerState;
    case Component::Activations:
        return m.activations;
    case Component::Input:
        return m.input;
    case Component::Transient:
        return m.transient;
    case Component::Communication:
        return m.communication;
    case Component::Calibration:
        return m.calibration;
    case Component::Overhead:
        return m.overhead;
    }
    return 0;
}

namespace {
/// The network's output storage when no op keeps it for backward (what a pipeline stage sends and frees).
AffineBytes unsavedOutput(const Analysis& analysis)
{
    const StepGraph& g = analysis.step;
    if (g.ops.empty())
        return {};
    const StepTensor& out = g.tensors[g.ops.back().output];
    const StepStorage& storage = g.storages[out.storage];
    return storage.releasedAfterBackwardOf == kNoStepOp && !storage.isInputBatch ? storage.bytes
                                                                                 : AffineBytes {};
}
} // namespace

bool MemoryModel::addPipelineStage(
    StepConditions& c, const Analysis& analysis, const MemoryModel& single, const TrainingSetup& setup)
{
    const PipelineStageRole& role = *setup.pipelineStage;
    c.pipelineBuffers = AffineBytes { role.receivedBytesPerSample + role.sentBytesPerSample, 0 };
    const HeldMicroBatches held = heldMicroBatches(setup.parallel, setup.accumulationSteps, role.index);
    if (held.chunkPasses > 0) {
        // What one micro-batch leaves for its backward: the stage's saved tensors and its input at the
        // end of its forward pass; a pass through one of v model chunks holds 1/v of it (rounded up).
        const StepMoment& end = single.m_timeline.moments()[single.endOfForwardMoment()];
        const auto perPass = [&](std::uint64_t bytes) {
            const auto v = static_cast<std::uint64_t>(held.chunksPerStage);
            return bytes / v + (bytes % v != 0 ? 1 : 0);
        };
        // A stage that sends its output frees it once sent (Megatron-LM's deallocate_output_tensor): a
        // held micro-batch keeps it only when one of the stage's own ops saved it.
        const AffineBytes sent = role.sentBytesPerSample > 0 ? unsavedOutput(analysis) : AffineBytes {};
        c.heldPasses = held.chunkPasses;
        c.heldActivationsPerPass = AffineBytes { perPass(end.perSample.activations
                                                     - std::min(end.perSample.activations, sent.perSample)),
            perPass(end.fixed.activations - std::min(end.fixed.activations, sent.fixed)) };
        c.heldInputPerPass = AffineBytes { perPass(end.perSample.input), perPass(end.fixed.input) };
    }
    return c.heldPasses > 0 || c.pipelineBuffers.perSample > 0;
}

Result<MemoryModel> MemoryModel::build(const Analysis& analysis, const TrainingSetup& setup)
{
    return build(analysis, setup, RuntimeBehaviour {});
}

Result<MemoryModel> MemoryModel::build(
    const Analysis& analysis, const TrainingSetup& setup, const RuntimeBehaviour& runtime)
{
    if (analysis.error)
        return Error { "cannot estimate: " + analysis.error->message, analysis.error->location };
    if (auto problem = validateSetup(setup))
        return *problem;
    if (auto problem = checkAgainstNetwork(analysis, setup.parallel, setup.pipelineStage.has_value()))
        return *problem;
    const Precision p = analysis.precision;
    const Parallelism& par = setup.parallel;
    const auto ranks = static_cast<std::uint64_t>(par.dataParallel());
    const auto tensorParallel = static_cast<std::uint64_t>(par.tensorParallel);
    const ModelStates states = modelStatesPerGpu(analysis, setup);
    const Count& gradients = states.gradients;
    const Count& trainableHere = states.trainableHere;

    // Data parallelism over `ranks` GPUs: ZeRO / FSDP shards (each rank holds ceil(bytes / N)); the routed
    // experts' states over the expert data-parallel ranks (Megatron-Core's expert data parallel group).
    const int stage = shardingStage(par.sharding);
    const auto expertRanks = static_cast<std::uint64_t>(std::max<std::int64_t>(1, par.expertDataParallel()));
    const auto shard = [&](Count all, Count experts) {
        return ceilDiv(without(all, experts), ranks) + ceilDiv(experts, expertRanks);
    };
    Count shardedState
        = stage >= 1 ? shard(states.optimizerState, states.expertOptimizerState) : states.optimizerState;
    const Count shardedParameters
        = stage >= 3 ? shard(states.parameterBytes, states.expertParameterBytes) : states.parameterBytes;
    StepConditions c;
    addDataParallelBuffers(c, analysis, par, states);
    const Count partition = shard(trainableHere, states.expertTrainable);
    // ZeRO-2/3 keep ceil(gradients / N) (StepConditions::gradientShards); the experts' share is counted
    // N / N_e times so that it comes to expert gradients / N_e.
    Count gradientsGiven = gradients;
    if (stage >= 2 && states.expertGradients.value() > 0 && !gradients.isOverflow()) {
        const Wide folded = static_cast<Wide>(states.expertGradients.value()) * ranks / expertRanks;
        const Wide all = static_cast<Wide>(without(gradients, states.expertGradients).value()) + folded;
        gradientsGiven = all > static_cast<Wide>(std::numeric_limits<std::uint64_t>::max())
            ? Count::overflowed()
            : Count { static_cast<std::uint64_t>(all) };
    }
    const Count stepGradients = deepSpeedStepGradientBytes(par, p, partition);
    if (par.offloadOptimizer) {
        // ZeRO-Offload: optimizer state and master weights live (and step) in CPU memory; with gradient
        // partitioning (DeepSpeed stage 2/3) the reduced gradient partitions move there too.
        shardedState = Count {};
        c.gradientsOffloaded = par.sharding == Sharding::Zero2 || par.sharding == Sharding::Zero3;
    }
    const Count temporaries = stepTemporaryBytes(analysis, setup, stage >= 1 ? partition : trainableHere);
    Count weights = shardedParameters + Count { analysis.bufferBytes };
    if (analysis.step.ops.empty()) // a hand-made analysis without a step graph: copies for the whole step
        weights += Count { analysis.autocastWeightCopyBytes };
    const Count stepBuffers = temporaries + stepGradients;
    if (weights.isOverflow() || gradientsGiven.isOverflow() || shardedState.isOverflow()
        || stepBuffers.isOverflow() || Count { c.gatheredBytes }.isOverflow())
        return Error { "the model's byte counts overflow 64 bits", "layers" };
    c.weights = weights.value();
    c.optimizerState = shardedState.value();
    c.gradients = gradientsGiven.value();
    c.overhead = setup.overheadBytes;
    c.stepTemporaries = stepBuffers.value();
    c.tensorParallel = tensorParallel;
    // Sequence and context parallelism (docs/multi-gpu.md); the analysis is already at T / c tokens.
    if (auto problem = contextParallelAttentionProblem(par.contextParallel, analysis.options.attention))
        return *problem;
    c.sequenceParallel = par.sequenceParallel && tensorParallel > 1;
    if (c.sequenceParallel)
        addSequenceParallelBuffers(c, analysis);
    addContextParallelBuffers(c, analysis, par);
    c.gradientShards = stage >= 2 ? ranks : 1;
    c.accumulationSteps = setup.accumulationSteps;
    c.gradientSumsInPlace = runtime.gradientSumsInPlace;
    c.calibrationFixed = setup.calibration.fixedBytes;
    c.calibrationPerSample = setup.calibration.perSampleBytes;
    c.expertParallel = static_cast<std::uint64_t>(std::max<std::int64_t>(1, par.expertParallel));
    c.expertSplit = expertSplit(par);
    c.activationOffload = par.activationOffload;

    MemoryModel m;
    m.m_timeline = StepTimeline::simulate(analysis, c);
    if (m.m_timeline.overflowed())
        return Error { "the model's byte counts overflow 64 bits", "layers" };
    if (setup.pipelineStage && addPipelineStage(c, analysis, m, setup)) {
        m.m_timeline = StepTimeline::simulate(analysis, c);
        if (m.m_timeline.overflowed())
            return Error { "the model's byte counts overflow 64 bits", "layers" };
    }
    return m;
}

Result<MemoryBreakdown> MemoryModel::at(std::int64_t batch) const
{
    if (batch < 1 || batch > kMaxBatch)
        return Error { "batch size must be from 1 to " + std::to_string(kMaxBatch) + ", not "
                + std::to_string(batch),
            "batch" };
    const StepMoment& m = m_timeline.moments()[peakAt(batch).moment];
    const Count b = Count::fromSigned(batch);
    MemoryBreakdown out;
    bool overflow = false;
    for (const auto c : kAllComponents) {
        const Count bytes
            = Count { componentBytes(m.fixed, c) } + Count { componentBytes(m.perSample, c) } * b;
        overflow = overflow || bytes.isOverflow();
        setComponentBytes(out, c, bytes.value());
    }
    if (overflow || out.checkedTotal().isOverflow())
        return Error { "memory at batch " + std::to_string(batch) + " overflows 64-bit byte counts",
            "batch" };
    return out;
}

namespace {
/// The moment highest on `envelope` at `batch` (clamped to 1..kMaxBatch), as a StepPeak.
StepPeak highestMoment(const StepTimeline& timeline, const UpperEnvelope& envelope, std::int64_t batch)
{
    const std::size_t i = envelope.highestAt(std::clamp<std::int64_t>(batch, 1, kMaxBatch)).id;
    const StepMoment& m = timeline.moments()[i];
    return StepPeak { m.phase, m.row, m.recomputing, m.laterMicroBatch, i };
}
} // namespace

StepPeak MemoryModel::peakAt(std::int64_t batch) const
{
    return highestMoment(m_timeline, m_timeline.steady(), batch);
}

std::uint64_t MemoryModel::firstStepPeak(std::int64_t batch) const noexcept
{
    return m_timeline.first().valueAt(std::clamp<std::int64_t>(batch, 1, kMaxBatch));
}

StepPeak MemoryModel::firstStepPeakAt(std::int64_t batch) const
{
    return highestMoment(m_timeline, m_timeline.first(), batch);
}

std::size_t MemoryModel::endOfForwardMoment() const noexcept
{
    const auto& moments = m_timeline.moments();
    for (std::size_t i = 0; i < moments.size(); ++i) {
        if (moments[i].afterOp && !moments[i].laterMicroBatch)
            return i;
    }
    return 0;
}

std::int64_t MemoryModel::maxBatch(std::uint64_t capacityBytes) const noexcept
{
    return m_timeline.steady().largestBatchWithin(capacityBytes, kMaxBatch);
}

MemoryBreakdown MemoryModel::momentAt(std::size_t moment, std::int64_t batch) const noexcept
{
    const StepMoment& m = m_timeline.moments()[moment];
    const Count b = Count::fromSigned(batch);
    MemoryBreakdown out;
    for (const auto c : kAllComponents) {
        const Count bytes
            = Count { componentBytes(m.fixed, c) } + Count { componentBytes(m.perSample, c) } * b;
        setComponentBytes(
            out, c, bytes.isOverflow() ? std::numeric_limits<std::uint64_t>::max() : bytes.value());
    }
    return out;
}

MemoryBreakdown MemoryModel::firstStepMomentAt(std::size_t moment, std::int64_t batch) const noexcept
{
    MemoryBreakdown out = momentAt(moment, batch);
    // StepTimeline::simulate() builds the first step's envelope the same way: the state is fixed.
    if (m_timeline.moments()[moment].phase != StepPhase::OptimizerStep)
        out.optimizerState -= std::min(out.optimizerState, m_timeline.moments()[moment].fixed.optimizerState);
    return out;
}

} // namespace headroom

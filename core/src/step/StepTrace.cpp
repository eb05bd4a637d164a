#include "step/StepTrace.h"

#include "headroom/layers/LayerRegistry.h"
#include "step/StepGraphExpansion.h"
#include "step/StepSimulation.h"
#include "step/TraceLog.h"

#include <algorithm>
#include <unordered_map>

namespace headroom::step {

namespace {

AffineBytes plain(const Affine& a)
{
    return AffineBytes { a.perSample.value(), a.fixed.value() };
}

/// A row's layer category, if it is a registered layer kind (Repeat headers and the loss are not).
const LayerKind* kindOf(const Analysis& analysis, std::size_t row)
{
    return row < analysis.rows.size() ? LayerRegistry::builtin().find(analysis.rows[row].type) : nullptr;
}

/// Layers whose forward and backward call cuBLAS (addmm/mm/bmm): Linear and attention layers, MatMul.
bool callsCublas(const Analysis& analysis, std::size_t row)
{
    const LayerKind* kind = kindOf(analysis, row);
    if (kind == nullptr)
        return false;
    return kind->category() == LayerCategory::Linear || kind->category() == LayerCategory::Attention
        || kind->type() == "MatMul";
}

TraceKind kindOf(BlockRole role)
{
    switch (role) {
    case BlockRole::Storage:
    case BlockRole::RecomputedStorage:
        return TraceKind::Activation;
    case BlockRole::ActivationGradient:
        return TraceKind::ActivationGradient;
    case BlockRole::ForwardScratch:
    case BlockRole::BackwardScratch:
        return TraceKind::Scratch;
    case BlockRole::AutocastCopy:
        return TraceKind::AutocastCopy;
    case BlockRole::ParameterGradient:
    case BlockRole::GradientAccumulation:
        return TraceKind::ParameterGradient;
    case BlockRole::Communication:
        return TraceKind::Communication;
    }
    return TraceKind::Activation;
}

/// Turns the step simulation's events into allocations and frees; adds the cuBLAS workspaces at the first
/// cuBLAS call of each thread and cuDNN's workspaces around convolutions.
class TraceRecorder final : public StepSink
{
public:
    TraceRecorder(EventLog& log, const Analysis& analysis, const StepGraph& graph,
        const TraceSettings& settings, const StepConditions& conditions)
        : m_log { log }
        , m_analysis { analysis }
        , m_graph { graph }
        , m_settings { settings }
        , m_gradientShards {
            conditions.gradientsOffloaded ? 0 : std::max<std::uint64_t>(1, conditions.gradientShards)
        }
    {
    }

    /// The parameters' .grad blocks: alive until zero_grad.
    /// The parameters' .grad blocks in parameter order (zero_grad's order), which the recorder forgets.
    std::vector<std::uint32_t> takeGradients()
    {
        std::sort(m_gradients.begin(), m_gradients.end());
        std::vector<std::uint32_t> out;
        out.reserve(m_gradients.size());
        for (const auto& [parameter, block] : m_gradients)
            out.push_back(block);
        m_gradients.clear();
        return out;
    }

    void microBatch(bool) override { m_log.stage = TraceStage::Forward; }

    void allocate(
        BlockRole role, std::size_t id, const Affine& bytes, bool cachedCopy, std::size_t op) override
    {
        const std::uint32_t row = op < m_graph.ops.size() ? rowIndex(m_graph.ops[op].row) : kNoTraceRow;
        const bool weightGradient
            = role == BlockRole::ParameterGradient || role == BlockRole::GradientAccumulation;
        const AffineBytes size = role == BlockRole::ParameterGradient ? gradientHeld(bytes) : plain(bytes);
        if (weightGradient && m_settings.cudnnWorkspaces && isConvolution(op)) {
            // convolution_backward makes the weight's gradient after the input's (and its workspace)
            m_pending.push_back(Pending { role, id, size, row });
            return;
        }
        record(role, id, m_log.allocate(kindOf(role), row, size), cachedCopy);
    }

    /// What a parameter's .grad keeps on this GPU: ZeRO-2/3 keep the rank's partition, ceil(bytes / N),
    /// through backward and across micro-batches, as the step model does (StepConditions::gradientShards);
    /// with ZeRO-Offload the reduced gradients leave the GPU.
    [[nodiscard]] AffineBytes gradientHeld(const Affine& bytes) const
    {
        const AffineBytes whole = plain(bytes);
        if (m_gradientShards == 1)
            return whole;
        if (m_gradientShards == 0)
            return AffineBytes {};
        const auto part = [&](std::uint64_t b) { return b / m_gradientShards + (b % m_gradientShards != 0); };
        return AffineBytes { part(whole.perSample), part(whole.fixed) };
    }

    void record(BlockRole role, std::size_t id, std::uint32_t block, bool cachedCopy)
    {
        if (role == BlockRole::ParameterGradient) {
            m_gradients.emplace_back(id, block);
            return;
        }
        m_live[key(role, id)].push_back(block);
        if (cachedCopy)
            m_cachedCopies.push_back(block);
    }

    void release(BlockRole role, std::size_t id, const Affine&) override
    {
        const auto it = m_live.find(key(role, id));
        if (it == m_live.end() || it->second.empty())
            return;
        m_log.free(it->second.back());
        it->second.pop_back();
        if (it->second.empty())
            m_live.erase(it);
    }

    void moment(const MomentEvent& e) override
    {
        opMoment(e);
        m_log.moment(); // after the op's workspaces: the segments they took are reserved at the moment
    }

    void opMoment(const MomentEvent& e)
    {
        if (e.afterOp) { // the end of the forward pass
            m_log.stage = TraceStage::Backward;
            return;
        }
        if (e.op >= m_graph.ops.size())
            return;
        const std::size_t row = m_graph.ops[e.op].row;
        const bool backward = e.phase == StepPhase::Backward;
        if (callsCublas(m_analysis, row))
            cublasCall(backward ? 1 : 0, row); // a checkpoint's recomputation runs on autograd's thread too
        if (m_settings.cudnnWorkspaces && isConvolution(e.op))
            convolution(e, backward && !e.recomputing);
    }

    /// cuDNN's calls for one convolution (aten/src/ATen/native/Convolution.cpp convolution_backward,
    /// cudnn/ConvShared.cpp): forward: the output, then the plan's workspace; backward: the input's
    /// gradient and its workspace, the weight's gradient and its workspace, then the bias's (a sum).
    void convolution(const MomentEvent& e, bool backward)
    {
        const std::uint32_t row = rowIndex(m_graph.ops[e.op].row);
        const AffineBytes w = cudnnWorkspace(m_analysis, m_graph, e.op, backward);
        const auto workspace = [&] {
            if (w.perSample > 0 || w.fixed > 0)
                m_log.free(m_log.allocate(TraceKind::CudnnWorkspace, row, w, true));
        };
        if (!backward) {
            workspace();
            return;
        }
        const StepOp& op = m_graph.ops[e.op];
        if (!op.inputs.empty() && m_graph.tensors[op.inputs[0].tensor].requiresGrad)
            workspace(); // backward-data
        for (std::size_t i = 0; i < m_pending.size(); ++i) {
            const Pending& p = m_pending[i];
            record(p.role, p.id, m_log.allocate(kindOf(p.role), p.row, p.bytes), false);
            if (i == 0)
                workspace(); // backward-filter
        }
        m_pending.clear();
    }

    bool isConvolution(std::size_t op) const
    {
        if (op >= m_graph.ops.size())
            return false;
        const LayerKind* kind = kindOf(m_analysis, m_graph.ops[op].row);
        return kind != nullptr && kind->category() == LayerCategory::Convolution;
    }

    void autocastExit() override
    {
        for (const std::uint32_t b : m_cachedCopies)
            m_log.free(b);
        m_cachedCopies.clear();
    }

    void backwardDone() override
    {
        // What the graph still holds goes with it, oldest first.
        std::vector<std::uint32_t> left;
        for (auto& [k, blocks] : m_live)
            left.insert(left.end(), blocks.begin(), blocks.end());
        std::sort(left.begin(), left.end());
        for (const std::uint32_t b : left)
            m_log.free(b);
        m_live.clear();
        m_cachedCopies.clear();
    }

    void optimizerStep() override { }
    void repeatBegin(std::size_t, bool) override { }
    void repeatEnd(std::size_t, bool, bool) override { }

private:
    static std::uint64_t key(BlockRole role, std::size_t id)
    {
        return (static_cast<std::uint64_t>(role) << 56) | static_cast<std::uint64_t>(id);
    }

    /// The first cuBLAS call on a thread makes its handle's workspace (0: the main thread, 1: autograd's).
    void cublasCall(int thread, std::size_t row)
    {
        if (m_handleUsed[thread])
            return;
        m_handleUsed[thread] = true;
        if (m_settings.cublasWorkspace > 0)
            m_log.allocate(
                TraceKind::CublasWorkspace, rowIndex(row), AffineBytes { 0, m_settings.cublasWorkspace });
        if (m_settings.cublasLtWorkspace > 0)
            m_log.allocate(
                TraceKind::CublasWorkspace, rowIndex(row), AffineBytes { 0, m_settings.cublasLtWorkspace });
    }

    EventLog& m_log;
    const Analysis& m_analysis;
    const StepGraph& m_graph;
    const TraceSettings& m_settings;
    std::uint64_t m_gradientShards = 1; ///< ranks a .grad is partitioned over (ZeRO-2/3); 0: offloaded
    std::unordered_map<std::uint64_t, std::vector<std::uint32_t>> m_live;
    std::vector<std::uint32_t> m_cachedCopies;
    std::vector<std::pair<std::size_t, std::uint32_t>> m_gradients; ///< (parameter, block)
    bool m_handleUsed[2] = { false, false };
    /// A convolution's weight and bias gradients, made after its workspaces.
    struct Pending
    {
        BlockRole role;
        std::size_t id;
        AffineBytes bytes;
        std::uint32_t row;
    };
    std::vector<Pending> m_pending;
};

/// The bytes of `part` shares of `total` out of `whole` (128-bit: exact).
std::uint64_t shareOf(std::uint64_t total, std::uint64_t part, std::uint64_t whole)
{
    __extension__ typedef unsigned __int128 Wide;
    return whole == 0 ? 0 : static_cast<std::uint64_t>(static_cast<Wide>(total) * part / whole);
}

/// The model's parameters and buffers, made with the model, layer by layer in the order its ops run (one op
/// per layer instance; Repeat blocks written out): a layer's frozen parameters, each trainable tensor on its
/// own (weight, then bias), then its buffers (BatchNorm: running_mean, running_var, num_batches_tracked).
/// Scaled to the set-up's per-GPU weights where sharding or quantisation makes those differ.
void addWeights(EventLog& log, const Analysis& a, const StepGraph& graph, const StepSimulation& sim,
    const StepConditions& c)
{
    struct Weight
    {
        std::uint32_t row;
        std::uint64_t bytes;
    };
    const std::uint64_t parameterSize = elementSize(parameterType(a.precision));
    std::vector<Weight> weights;
    Count sum;
    const auto add = [&](std::size_t row, std::uint64_t bytes) {
        if (bytes == 0)
            return;
        weights.push_back(Weight { rowIndex(row), bytes });
        sum += Count { bytes };
    };
    std::vector<bool> made(graph.parameters.size(), false);
    for (const StepOp& op : graph.ops) {
        if (op.row >= a.rows.size())
            continue;
        const LayerRow& row = a.rows[op.row];
        add(op.row, (row.params - std::min(row.params, row.trainableParams)) * parameterSize);
        for (const std::size_t p : op.parameters) {
            if (p < made.size() && !made[p]) {
                made[p] = true;
                add(op.row, sim.parameterBytes()[p] * graph.parameters[p].copies);
            }
        }
        if (row.type.starts_with("BatchNorm") && row.bufferElements % 2 == 1) {
            const std::uint64_t channels = row.bufferElements / 2; // two float32 statistics, an int64 counter
            add(op.row, channels * 4);
            add(op.row, channels * 4);
            add(op.row, 8);
        } else {
            add(op.row, shareOf(a.bufferBytes, row.bufferElements, a.bufferElements));
        }
    }
    for (std::size_t p = 0; p < graph.parameters.size(); ++p) // parameters no op uses
        if (!made[p])
            add(graph.parameters[p].row, sim.parameterBytes()[p] * graph.parameters[p].copies);
    const bool exact = !sum.isOverflow() && sum.value() == c.weights;
    for (const Weight& w : weights)
        log.allocate(TraceKind::Weights, w.row,
            AffineBytes {
                0, exact || sum.isOverflow() ? w.bytes : shareOf(w.bytes, c.weights, sum.value()) });
}

/// The batch and its labels (two tensors, made before the first step).
void addInput(EventLog& log, const StepGraph& graph)
{
    for (std::size_t s = 0; s < graph.storages.size(); ++s) {
        const StepStorage& st = graph.storages[s];
        if (!st.isInputBatch)
            continue;
        std::uint64_t sample = st.bytes.perSample;
        for (const StepTensor& t : graph.tensors) {
            if (t.storage == s) {
                sample = std::min(st.bytes.perSample, t.gradientBytes.perSample);
                break;
            }
        }
        log.allocate(TraceKind::Input, kNoTraceRow, AffineBytes { sample, st.bytes.fixed });
        if (st.bytes.perSample > sample)
            log.allocate(TraceKind::Input, kNoTraceRow, AffineBytes { st.bytes.perSample - sample, 0 });
    }
}

/// DDP's gradient buckets, made when the model is wrapped: a first bucket of 1 MiB, then 25 MiB ones
/// (torch/nn/parallel/distributed.py: _DEFAULT_FIRST_BUCKET_BYTES, bucket_cap_mb=25).
void addBuckets(EventLog& log, std::uint64_t bytes)
{
    const std::uint64_t first = 1ULL << 20;
    const std::uint64_t cap = 25ULL << 20;
    for (std::uint64_t left = bytes, size = first; left > 0; size = cap) {
        const std::uint64_t b = std::min(left, size);
        log.allocate(TraceKind::Communication, kNoTraceRow, AffineBytes { 0, b });
        left -= b;
    }
}

/// A pipeline stage's other micro-batches in flight (StepConditions::heldPasses), each as one block of
/// what it saved and one of what it received, and the stage's send and receive buffers: made as the
/// step's forward starts, freed when its last backward is done.
std::vector<std::uint32_t> addPipelineHeld(EventLog& log, const StepConditions& c)
{
    std::vector<std::uint32_t> blocks;
    const auto add = [&](TraceKind kind, const AffineBytes& bytes) {
        if (bytes.perSample > 0 || bytes.fixed > 0)
            blocks.push_back(log.allocate(kind, kNoTraceRow, bytes));
    };
    // Beyond a few hundred passes (GPipe over many micro-batches) the passes are one block each way:
    // the allocator then sees one large block where PyTorch has many, each in its own segment or not.
    constexpr std::int64_t kPassesTracedOneByOne = 256;
    if (c.heldPasses <= kPassesTracedOneByOne) {
        for (std::int64_t pass = 0; pass < c.heldPasses; ++pass) {
            add(TraceKind::Activation, c.heldActivationsPerPass);
            add(TraceKind::Input, c.heldInputPerPass);
        }
    } else {
        const auto times = [&](const AffineBytes& b) {
            const Count n { static_cast<std::uint64_t>(c.heldPasses) };
            return AffineBytes { (Count { b.perSample } * n).value(), (Count { b.fixed } * n).value() };
        };
        add(TraceKind::Activation, times(c.heldActivationsPerPass));
        add(TraceKind::Input, times(c.heldInputPerPass));
    }
    add(TraceKind::Communication, c.pipelineBuffers);
    return blocks;
}

} // namespace

AffineBytes cudnnWorkspace(const Analysis& analysis, const StepGraph& graph, std::size_t op, bool)
{
    if (op >= graph.ops.size())
        return {};
    const StepOp& o = graph.ops[op];
    const LayerKind* kind = kindOf(analysis, o.row);
    if (kind == nullptr || kind->category() != LayerCategory::Convolution || o.inputs.empty())
        return {};
    const AffineBytes x = graph.tensors[o.inputs[0].tensor].gradientBytes;
    const AffineBytes y = graph.tensors[o.output].gradientBytes;
    const std::uint64_t w = analysis.rows[o.row].params
        * elementSize(isAutocast(analysis.precision) ? halfType(analysis.precision)
                                                     : parameterType(analysis.precision));
    return AffineBytes { x.perSample + y.perSample, x.fixed + y.fixed + w };
}

Result<AllocationTrace> buildTrace(const Analysis& analysis, const TrainingSetup& setup,
    const StepConditions& conditions, const TraceSettings& settings)
{
    if (analysis.error)
        return Error { "cannot trace the step: " + analysis.error->message, analysis.error->location };
    if (analysis.step.ops.empty())
        return Error { "the analysis has no step graph to trace", "layers" };
    // Nested blocks multiply: count the layers the step has once every block is written out.
    std::uint64_t writtenOut = 0;
    for (const LayerRow& row : analysis.rows)
        writtenOut += row.type == "Repeat" ? 0 : row.count;
    if (writtenOut > settings.maxWrittenOutLayers)
        return Error { "the step has " + std::to_string(writtenOut)
                + " layers once its repeated blocks are written out, "
                  "more than the "
                + std::to_string(settings.maxWrittenOutLayers)
                + " the caching allocator is simulated for tensor by tensor",
            "layers" };
    auto expanded = expandRepeats(analysis.step, settings.maxOps);
    if (!expanded)
        return expanded.error();
    const StepGraph& graph = expanded.value().graph;
    StepSimulation simulation { analysis, graph, conditions };
    if (simulation.overflowed())
        return Error { "the model's byte counts overflow 64 bits", "layers" };
    EventLog log;
    // A measured run's excess over the plan (TrainingSetup::calibration): what the run held that the plan
    // has no tensor for, alive for the whole run. One block made before the model, never freed.
    if (conditions.calibrationFixed > 0 || conditions.calibrationPerSample > 0)
        log.allocate(TraceKind::Calibration, kNoTraceRow,
            AffineBytes { conditions.calibrationPerSample, conditions.calibrationFixed });
    addWeights(log, analysis, graph, simulation, conditions);
    addInput(log, graph);
    addBuckets(log, conditions.bucketBytes);
    if (conditions.sequenceGather.perSample > 0 || conditions.sequenceGather.fixed > 0) // kept once made
        log.allocate(TraceKind::Communication, kNoTraceRow, conditions.sequenceGather);
    TraceRecorder recorder { log, analysis, graph, settings, conditions };
    const std::size_t beforeSteps = log.events();
    for (int s = 1; s <= settings.steps; ++s) {
        if (s == 2) // the later steps make about as many events as the first: no doubling of the log
            log.reserveMore((log.events() - beforeSteps) * static_cast<std::size_t>(settings.steps - 1));
        log.step = static_cast<std::uint8_t>(s);
        log.stage = TraceStage::Forward;
        const std::vector<std::uint32_t> held = addPipelineHeld(log, conditions);
        for (int m = 0; m < std::max(1, settings.microBatches); ++m) {
            log.stage = TraceStage::Forward;
            log.microBatch = static_cast<std::uint8_t>(m);
            // ZeRO-3 / FSDP: the gathered layer and the prefetched one, through forward and backward
            const std::uint32_t gathered = conditions.gatheredBytes > 0
                ? log.allocate(
                    TraceKind::Communication, kNoTraceRow, AffineBytes { 0, conditions.gatheredBytes })
                : kNoBlock;
            simulation.runMicroBatch(recorder, m > 0);
            log.free(gathered);
        }
        for (const std::uint32_t block : held)
            log.free(block);
        log.stage = TraceStage::Optimizer;
        std::vector<std::uint32_t> gradients = recorder.takeGradients();
        addOptimizerStep(log, analysis, setup, conditions, graph, expanded.value().parameterOrigin,
            simulation, s == 1, gradients);
    }
    return log.take();
}

} // namespace headroom::step

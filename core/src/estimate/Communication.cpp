#include "headroom/estimate/Communication.h"

#include "headroom/layers/LayerRegistry.h"

#include <algorithm>
#include <optional>

namespace headroom {

namespace {
namespace comm { // unity builds merge anonymous namespaces: these names stay apart

/// Where a group of `n` GPUs with rank stride `stride` lies on nodes of `perNode` GPUs, ranks numbered
/// as Megatron-LM lays them out (tensor parallel fastest, then context, data, pipeline).
struct Placement
{
    bool crossesNodes = false;
    std::int64_t inNode = 1; ///< the group's GPUs on one node
};

Placement placement(std::int64_t n, std::int64_t stride, std::int64_t perNode)
{
    // A group whose ranks span n x stride consecutive GPUs lies on one node when the nodes split into
    // whole such spans; otherwise some group of the kind straddles nodes.
    const std::int64_t span = n * stride;
    if (n <= 1 || (span <= perNode && perNode % span == 0))
        return { false, std::max<std::int64_t>(1, n) };
    const std::int64_t inNode = stride >= perNode ? 1 : std::clamp<std::int64_t>(perNode / stride, 1, n);
    return { true, inNode };
}

struct Group
{
    std::int64_t ranks = 1;
    Placement where;
};

Group groupOf(std::int64_t n, std::int64_t stride, const Interconnect& links)
{
    return { n, placement(n, stride, links.gpusPerNode) };
}

/// A ring collective's (all-reduce, all-gather, reduce-scatter) bus bandwidth over the group, GB/s: the
/// GPU's link within a node; across nodes NCCL runs one ring per network adapter, so the k GPUs of the
/// group on a node drive k GPUs' share of the network, never more than their own link.
double ringGBps(const Group& g, const Interconnect& links)
{
    if (!g.where.crossesNodes)
        return links.intraNodeGBps;
    return std::min(links.intraNodeGBps, static_cast<double>(g.where.inNode) * links.interNodeGBps);
}

/// Seconds for `busBytes` of a ring collective.
double ringSeconds(double busBytes, const Group& g, const Interconnect& links)
{
    const double gbps = ringGBps(g, links);
    return gbps > 0 ? busBytes / (gbps * 1e9) : 0.0;
}

/// Seconds for an all-to-all of `bytes` per GPU: each GPU sends (n - 1) / n of its buffer, the part for
/// GPUs on other nodes over its share of the network and the rest over its own link at the same time.
double allToAllSeconds(double bytes, const Group& g, const Interconnect& links)
{
    const auto n = static_cast<double>(g.ranks);
    const auto k = static_cast<double>(g.where.inNode);
    const double local = links.intraNodeGBps > 0 ? bytes * (k - 1.0) / n / (links.intraNodeGBps * 1e9) : 0.0;
    const double remote = g.where.crossesNodes && links.interNodeGBps > 0
        ? bytes * (n - k) / n / (links.interNodeGBps * 1e9)
        : 0.0;
    return std::max(local, remote);
}

/// Seconds for `bytes` sent to one neighbour (the pipeline's and the context ring's sends): the network
/// when the group spans nodes.
double sendSeconds(double bytes, const Group& g, const Interconnect& links)
{
    const double gbps = g.where.crossesNodes ? links.interNodeGBps : links.intraNodeGBps;
    return gbps > 0 ? bytes / (gbps * 1e9) : 0.0;
}

CommunicationTerm term(CommunicationKind kind, std::string collective, const Group& g, double bytes,
    double busBytes, double seconds, double overlap, bool perMicroBatch)
{
    CommunicationTerm t;
    t.kind = kind;
    t.collective = std::move(collective);
    t.ranks = g.ranks;
    t.crossesNodes = g.where.crossesNodes;
    t.bytes = bytes;
    t.busBytes = busBytes;
    t.seconds = seconds;
    t.overlapSeconds = overlap;
    t.exposedSeconds = std::max(0.0, seconds - overlap);
    t.perMicroBatch = perMicroBatch;
    return t;
}

double at(const AffineBytes& b, double micro)
{
    return static_cast<double>(b.perSample) * micro + static_cast<double>(b.fixed);
}

std::optional<LayerCategory> categoryOf(const LayerRow& row)
{
    const LayerKind* kind = LayerRegistry::builtin().find(row.type);
    if (kind == nullptr)
        return std::nullopt;
    return kind->category();
}

/// The layers a row stands for (its own and its identical iterations'); 0 for an invalid row.
double layersOf(const LayerRow& row)
{
    return row.valid() ? static_cast<double>(std::max<std::uint64_t>(1, row.count)) : 0.0;
}

/// Megatron-LM's tensor-parallel exchanges per sample-independent micro-batch (Shoeybi et al. 2019;
/// Narayanan et al. 2021, section 3.2): a column-parallel layer (a Linear or an attention block fed a
/// whole tensor) needs its input gradient all-reduced in backward (the f operator), once per input
/// tensor however many layers read it (q, k and v projections); a row-parallel layer (a Linear fed
/// a feature-split tensor, the end of an attention block) and a vocabulary-parallel embedding need
/// their output all-reduced in forward (the g operator). With sequence parallelism each all-reduce is a
/// reduce-scatter and an all-gather of the same bytes (Korthikanti et al. 2022, section 4.2.2). Forward
/// bytes of checkpointed layers count again: recomputation reruns their forward.
struct TensorParallelBytes
{
    AffineBytes forward, backward, recompute;
    void add(AffineBytes& to, const AffineBytes& b, double layers)
    {
        to.perSample += static_cast<std::uint64_t>(static_cast<double>(b.perSample) * layers);
        to.fixed += static_cast<std::uint64_t>(static_cast<double>(b.fixed) * layers);
    }
};

TensorParallelBytes tensorParallelBytes(const Analysis& analysis)
{
    const StepGraph& g = analysis.step;
    TensorParallelBytes out;
    std::vector<bool> featureSplit(g.tensors.size(), false);
    std::vector<bool> reduced(g.tensors.size(), false); // its gradient's all-reduce is counted
    // A row stands for row.count identical layers and may have ops in more than one shown iteration:
    // its exchanges count once per row, times its count.
    std::vector<bool> counted(analysis.rows.size(), false);
    const auto bytesOf = [&](std::size_t tensor) {
        return tensor < g.tensors.size() ? g.tensors[tensor].gradientBytes : AffineBytes {};
    };
    for (const StepOp& op : g.ops) {
        if (op.row >= analysis.rows.size())
            continue;
        const LayerRow& row = analysis.rows[op.row];
        const auto category = categoryOf(row);
        const double layers = counted[op.row] ? 0.0 : layersOf(row);
        counted[op.row] = true;
        const bool splitInput = std::any_of(op.inputs.begin(), op.inputs.end(),
            [&](const StepInput& in) { return in.tensor < featureSplit.size() && featureSplit[in.tensor]; });
        const bool projects = category
            && (*category == LayerCategory::Linear
                || (*category == LayerCategory::Attention && row.params > 0));
        bool outputSplit = false;
        const auto forward = [&](const AffineBytes& b) {
            out.add(out.forward, b, layers);
            if (row.checkpointed)
                out.add(out.recompute, b, layers);
        };
        if (projects && !splitInput) {
            for (const StepInput& in : op.inputs)
                if (in.tensor < g.tensors.size() && g.tensors[in.tensor].requiresGrad
                    && !reduced[in.tensor]) {
                    reduced[in.tensor] = true;
                    out.add(out.backward, bytesOf(in.tensor), layers);
                }
            // An attention block ends in its row-parallel output projection, a mixture of experts (a Linear
            // by category) in its experts' down projections: both hand on a whole tensor.
            outputSplit = *category == LayerCategory::Linear && row.experts == 0;
            if (!outputSplit)
                forward(bytesOf(op.output));
            if (row.type == "TransformerEncoderLayer") {
                // A whole transformer layer: its MLP block is a column-parallel then a row-parallel Linear
                // on tensors of the layer's output shape, one more f and g.
                forward(bytesOf(op.output));
                out.add(out.backward, bytesOf(op.output), layers);
            }
        } else if (projects) {
            forward(bytesOf(op.output));
        } else if (row.type == "Embedding" && row.params > 0) {
            forward(bytesOf(op.output)); // vocabulary-parallel: the partial embeddings summed
        } else if (!category || *category == LayerCategory::Normalization) {
            outputSplit = false;
        } else {
            outputSplit = splitInput; // element-wise on what it is given
        }
        if (op.output < featureSplit.size())
            featureSplit[op.output] = outputSplit;
    }
    return out;
}

/// The local Q, K + V and output bytes of the network's attention layers (as the context-parallel
/// buffers take them, step/SequenceContext.cpp), summed, and their arithmetic.
struct AttentionBytes
{
    AffineBytes q, kv, out;
    double flopsPerSample = 0; ///< forward + backward
};

void addBytes(AffineBytes& to, const AffineBytes& b, double times)
{
    to.perSample += static_cast<std::uint64_t>(static_cast<double>(b.perSample) * times);
    to.fixed += static_cast<std::uint64_t>(static_cast<double>(b.fixed) * times);
}

AttentionBytes attentionBytes(const Analysis& analysis)
{
    const StepGraph& g = analysis.step;
    const auto bytesOf = [&](std::size_t tensor) {
        return tensor < g.tensors.size() ? g.tensors[tensor].gradientBytes : AffineBytes {};
    };
    AttentionBytes out;
    std::vector<bool> counted(analysis.rows.size(), false); // once per row, times its count
    for (const StepOp& op : g.ops) {
        if (op.row >= analysis.rows.size() || counted[op.row])
            continue;
        const LayerRow& row = analysis.rows[op.row];
        if (categoryOf(row) != LayerCategory::Attention)
            continue;
        counted[op.row] = true;
        const double layers = layersOf(row);
        const AffineBytes o = bytesOf(op.output);
        const bool separate = row.type == "ScaledDotProductAttention" && op.inputs.size() == 3;
        addBytes(out.q, separate ? bytesOf(op.inputs[0].tensor) : o, layers);
        if (separate) {
            addBytes(out.kv, bytesOf(op.inputs[1].tensor), layers);
            addBytes(out.kv, bytesOf(op.inputs[2].tensor), layers);
        } else {
            addBytes(out.kv, o, 2.0 * layers);
        }
        addBytes(out.out, o, layers);
        out.flopsPerSample += layers
            * (static_cast<double>(row.forwardFlopsPerSample)
                + static_cast<double>(row.backwardFlopsPerSample));
    }
    return out;
}

/// The data-parallel exchanges of `gradients` bytes (and `trainedWeights`, `weights` for ZeRO's gathers)
/// over `g` (Rajbhandari et al. 2020, section 7: DDP and ZeRO-1/2 move 2 x the model per step, ZeRO-3
/// 3 x), with m micro-batches: DDP and ZeRO-1 reduce once per step, during the last micro-batch's
/// backward; ZeRO-2 keeps only its shard of the gradients, so it reduce-scatters in every micro-batch's
/// backward; ZeRO-3 gathers the weights for every forward and backward and reduce-scatters every backward.
CommunicationTerm dataParallelTerm(CommunicationKind kind, Sharding sharding, const Group& g,
    double gradients, double trainedWeights, double weights, double m, const ComputeWindows& w,
    const Interconnect& links)
{
    const auto n = static_cast<double>(g.ranks);
    const double part = (n - 1.0) / n;
    switch (shardingStage(sharding)) {
    case 0: {
        const double bus = 2.0 * part * gradients;
        return term(
            kind, "all-reduce", g, gradients, bus, ringSeconds(bus, g, links), w.backwardSeconds, false);
    }
    case 1: {
        const double bytes = gradients + trainedWeights;
        const double bus = part * bytes;
        return term(kind, "reduce-scatter + all-gather", g, bytes, bus, ringSeconds(bus, g, links),
            w.backwardSeconds, false);
    }
    case 2: {
        const double bytes = m * gradients + trainedWeights;
        const double bus = part * bytes;
        return term(kind, "reduce-scatter per micro-batch + all-gather", g, bytes, bus,
            ringSeconds(bus, g, links), m * w.backwardSeconds, false);
    }
    default: {
        const double bytes = m * (2.0 * weights + gradients);
        const double bus = part * bytes;
        return term(kind, "all-gather x2 + reduce-scatter per micro-batch", g, bytes, bus,
            ringSeconds(bus, g, links), m * (w.forwardSeconds + w.backwardSeconds), false);
    }
    }
}

} // namespace comm
} // namespace

std::string_view communicationKindName(CommunicationKind k) noexcept
{
    switch (k) {
    case CommunicationKind::DataParallel:
        return "data parallel";
    case CommunicationKind::ExpertDataParallel:
        return "expert data parallel";
    case CommunicationKind::TensorParallel:
        return "tensor parallel";
    case CommunicationKind::Pipeline:
        return "pipeline";
    case CommunicationKind::ContextParallel:
        return "context parallel";
    case CommunicationKind::ExpertParallel:
        return "expert parallel";
    }
    return "data parallel";
}

std::string_view communicationKindKey(CommunicationKind k) noexcept
{
    switch (k) {
    case CommunicationKind::DataParallel:
        return "data_parallel";
    case CommunicationKind::ExpertDataParallel:
        return "expert_data_parallel";
    case CommunicationKind::TensorParallel:
        return "tensor_parallel";
    case CommunicationKind::Pipeline:
        return "pipeline";
    case CommunicationKind::ContextParallel:
        return "context_parallel";
    case CommunicationKind::ExpertParallel:
        return "expert_parallel";
    }
    return "data_parallel";
}

Interconnect interconnectOf(const Gpu& gpu, const TrainingSetup& setup) noexcept
{
    Interconnect links;
    links.gpusPerNode = std::max<std::int64_t>(1, setup.gpusPerNode);
    links.interNodeGBps = setup.interNodeGBps;
    links.intraNodeGBps = gpu.linkGBps;
    if (links.intraNodeGBps <= 0) {
        links.intraAssumed = true;
        links.assumedPcieGeneration = pcieX16GBps(gpu.pcieGeneration) > 0 ? gpu.pcieGeneration : 4;
        links.intraNodeGBps = pcieX16GBps(links.assumedPcieGeneration);
    }
    return links;
}

CommunicationVolumes communicationVolumes(const Analysis& analysis)
{
    using namespace comm;
    CommunicationVolumes v;
    if (analysis.error)
        return v;
    v.valid = true;
    const TensorParallelBytes tp = tensorParallelBytes(analysis);
    v.tensorForward = tp.forward;
    v.tensorBackward = tp.backward;
    v.tensorRecompute = tp.recompute;
    const AttentionBytes a = attentionBytes(analysis);
    v.attentionQ = a.q;
    v.attentionKv = a.kv;
    v.attentionOut = a.out;
    v.attentionFlopsPerSample = a.flopsPerSample;
    double expertTrainable = 0, expertAll = 0;
    for (const LayerRow& row : analysis.rows) {
        expertTrainable += layersOf(row) * static_cast<double>(row.expertTrainableParams);
        expertAll += layersOf(row) * static_cast<double>(row.expertParams);
        if (row.experts <= 0 || !row.valid())
            continue;
        // Dispatch and combine, in forward and in backward (and in recomputation).
        const double perSample = static_cast<double>(row.output.shape.elements().value())
            * static_cast<double>(row.expertsPerToken) * static_cast<double>(elementSize(row.output.dtype));
        v.expertBuffersPerSample += layersOf(row) * (row.checkpointed ? 6.0 : 4.0) * perSample;
    }
    const double trainableParams = static_cast<double>(analysis.trainableParams);
    const double allParams = static_cast<double>(analysis.totalParams);
    v.trainableBytes = static_cast<double>(analysis.trainableParameterBytes > 0
            ? analysis.trainableParameterBytes
            : analysis.trainableParams * elementSize(parameterType(analysis.precision)));
    v.allBytes = static_cast<double>(analysis.parameterBytes);
    v.expertTrainableShare = trainableParams > 0 ? std::min(1.0, expertTrainable / trainableParams) : 0;
    v.expertShare = allParams > 0 ? std::min(1.0, expertAll / allParams) : 0;
    return v;
}

std::vector<CommunicationTerm> communicationTerms(
    const Analysis& analysis, const TrainingSetup& setup, const Interconnect& links, const ComputeWindows& w)
{
    if (setup.parallel.gpus <= 1)
        return {};
    return communicationTerms(communicationVolumes(analysis), setup, links, w);
}

std::vector<CommunicationTerm> communicationTerms(const CommunicationVolumes& volumes,
    const TrainingSetup& setup, const Interconnect& links, const ComputeWindows& w)
{
    using namespace comm;
    std::vector<CommunicationTerm> terms;
    const Parallelism& par = setup.parallel;
    if (par.gpus <= 1 || !volumes.valid)
        return terms;
    const double micro = static_cast<double>(std::max<std::int64_t>(1, setup.batch));
    const double m = static_cast<double>(std::max<std::int64_t>(1, setup.accumulationSteps));
    const std::int64_t t = std::max<std::int64_t>(1, par.tensorParallel);
    const std::int64_t c = std::max<std::int64_t>(1, par.contextParallel);
    const std::int64_t p = std::max<std::int64_t>(1, par.pipelineParallel);
    const std::int64_t e = std::max<std::int64_t>(1, par.expertParallel);
    const std::int64_t et = std::max<std::int64_t>(1, par.expertTensorParallel);
    const std::int64_t dp = std::max<std::int64_t>(1, par.dataParallel());
    // The weights this GPU holds before sharding: the experts' split e x expert-tensor ways, the rest t ways.
    const double trainableBytes = volumes.trainableBytes;
    const double allBytes = volumes.allBytes;
    const double expertTrainableShare = volumes.expertTrainableShare;
    const double expertShare = volumes.expertShare;
    const auto td = static_cast<double>(t);
    const auto expertSplit = static_cast<double>(e * et);
    if (trainableBytes > 0) {
        // Context-parallel ranks hold the same weights as data-parallel ones: gradients are reduced over
        // both (Megatron-LM's data-parallel group with context parallelism).
        const Group dense = groupOf(dp * c, t, links);
        if (dense.ranks > 1)
            terms.push_back(dataParallelTerm(CommunicationKind::DataParallel, par.sharding, dense,
                trainableBytes * (1.0 - expertTrainableShare) / td,
                trainableBytes * (1.0 - expertTrainableShare) / td, allBytes * (1.0 - expertShare) / td, m, w,
                links));
        const Group experts = groupOf(par.expertDataParallel(), e * et, links);
        if (expertTrainableShare > 0 && experts.ranks > 1)
            terms.push_back(dataParallelTerm(CommunicationKind::ExpertDataParallel, par.sharding, experts,
                trainableBytes * expertTrainableShare / expertSplit,
                trainableBytes * expertTrainableShare / expertSplit, allBytes * expertShare / expertSplit, m,
                w, links));
    }

    if (t > 1) {
        const double bytes = m
            * (at(volumes.tensorForward, micro) + at(volumes.tensorBackward, micro)
                + at(volumes.tensorRecompute, micro));
        if (bytes > 0) {
            const Group g = groupOf(t, 1, links);
            const double bus = 2.0 * (td - 1.0) / td * bytes;
            terms.push_back(term(CommunicationKind::TensorParallel,
                par.sequenceParallel ? "all-gather + reduce-scatter" : "all-reduce", g, bytes, bus,
                ringSeconds(bus, g, links), 0.0, true));
        }
    }

    if (p > 1 && setup.pipelineStage) {
        // Per micro-batch a stage receives its input and sends its output in forward, and the reverse
        // gradients in backward; Megatron-LM pairs each send with the opposite receive
        // (send_forward_recv_backward, send_backward_recv_forward), which share a full-duplex link: one
        // boundary tensor's time each. Each of the t tensor-parallel ranks sends 1 / t of it (Narayanan et
        // al. 2021, section 4.1, scatter/gather); interleaving crosses the stages v times.
        const double v = par.schedule == PipelineSchedule::Interleaved
            ? static_cast<double>(std::max<std::int64_t>(1, par.virtualStages))
            : 1.0;
        const double perSample = static_cast<double>(setup.pipelineStage->receivedBytesPerSample)
            + static_cast<double>(setup.pipelineStage->sentBytesPerSample);
        const double bytes = m * v * micro * perSample / td;
        if (bytes > 0) {
            const Group g = groupOf(p, par.gpus / p, links);
            terms.push_back(term(CommunicationKind::Pipeline, "send/receive", g, bytes, bytes,
                sendSeconds(bytes, g, links), 0.0, true));
        }
    }

    if (c > 1) {
        const double q = at(volumes.attentionQ, micro);
        const double kv = at(volumes.attentionKv, micro);
        const double out = at(volumes.attentionOut, micro);
        const auto cd = static_cast<double>(c);
        const Group g = groupOf(c, t, links);
        if (par.contextKind == ContextParallelism::Ring) {
            // c - 1 steps pass each rank's K and V block to the next rank in forward; backward passes them
            // again with their gradients dK and dV: 3 (c - 1) blocks, each step overlapped with the
            // attention arithmetic on the block at hand (Liu et al. 2023).
            const double bytes = m * 3.0 * (cd - 1.0) * kv / td;
            const double overlap = m * volumes.attentionFlopsPerSample * micro / td * w.secondsPerFlop;
            terms.push_back(term(CommunicationKind::ContextParallel, "ring send/receive", g, bytes, bytes,
                sendSeconds(bytes, g, links), overlap, true));
        } else {
            // DeepSpeed-Ulysses (Jacobs et al. 2023): Q, K, V to head shards and the output back, in
            // forward and again in backward, not overlapped.
            const double bytes = m * 2.0 * (q + kv + out) / td;
            const double bus = (cd - 1.0) / cd * bytes;
            terms.push_back(term(CommunicationKind::ContextParallel, "all-to-all", g, bytes, bus,
                allToAllSeconds(bytes, g, links), 0.0, true));
        }
    }

    if (e > 1) {
        // Dispatch and combine: every token's hidden state to its k experts and back, in forward and
        // again in backward (and in recomputation). With sequence parallelism a rank routes 1 / t of the
        // tokens.
        const double bytes = m * volumes.expertBuffersPerSample * micro / (par.sequenceParallel ? td : 1.0);
        if (bytes > 0) {
            const auto ed = static_cast<double>(e);
            const Group g = groupOf(e, et, links);
            terms.push_back(term(CommunicationKind::ExpertParallel, "all-to-all", g, bytes,
                (ed - 1.0) / ed * bytes, allToAllSeconds(bytes, g, links), 0.0, true));
        }
    }
    return terms;
}

double exposedSeconds(std::span<const CommunicationTerm> terms) noexcept
{
    double sum = 0;
    for (const CommunicationTerm& t : terms)
        sum += t.exposedSeconds;
    return sum;
}

double exposedSeconds(std::span<const CommunicationTerm> terms, bool perMicroBatch) noexcept
{
    double sum = 0;
    for (const CommunicationTerm& t : terms)
        if (t.perMicroBatch == perMicroBatch)
            sum += t.exposedSeconds;
    return sum;
}

} // namespace headroom

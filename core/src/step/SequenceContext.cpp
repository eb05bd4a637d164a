#include "step/SequenceContext.h"

#include "headroom/layers/LayerRegistry.h"
#include "headroom/support/Count.h"
#include "step/StepSimulation.h"

#include <algorithm>
#include <vector>

namespace headroom {

namespace {

LayerCategory sequenceCategoryOf(const Analysis& analysis, std::size_t row, bool& known)
{
    const LayerKind* kind
        = row < analysis.rows.size() ? LayerRegistry::builtin().find(analysis.rows[row].type) : nullptr;
    known = kind != nullptr;
    return known ? kind->category() : LayerCategory::Structure;
}

AffineBytes scaledBytes(const AffineBytes& b, std::uint64_t n)
{
    return AffineBytes { (Count { b.perSample } * Count { n }).value(),
        (Count { b.fixed } * Count { n }).value() };
}

AffineBytes summedBytes(const AffineBytes& a, const AffineBytes& b)
{
    return AffineBytes { (Count { a.perSample } + Count { b.perSample }).value(),
        (Count { a.fixed } + Count { b.fixed }).value() };
}

} // namespace

void addSequenceParallelBuffers(StepConditions& c, const Analysis& analysis)
{
    const StepGraph& g = analysis.step;
    c.forwardCommunication.resize(std::max(c.forwardCommunication.size(), analysis.rows.size()));
    c.backwardCommunication.resize(std::max(c.backwardCommunication.size(), analysis.rows.size()));
    const auto bytesOf = [&](std::size_t tensor) {
        return tensor < g.tensors.size() ? g.tensors[tensor].gradientBytes : AffineBytes {};
    };
    const auto larger = [](const AffineBytes& a, const AffineBytes& b) {
        return AffineBytes { std::max(a.perSample, b.perSample), std::max(a.fixed, b.fixed) };
    };
    // Whether a tensor is split across the tensor-parallel ranks along its features (a column-parallel
    // linear's output, and what element-wise layers make of it) rather than along the sequence.
    std::vector<bool> featureSplit(g.tensors.size(), false);
    for (const StepOp& op : g.ops) {
        bool known = false;
        const LayerCategory category = sequenceCategoryOf(analysis, op.row, known);
        const bool splitInput = std::any_of(op.inputs.begin(), op.inputs.end(),
            [&](const StepInput& in) { return in.tensor < featureSplit.size() && featureSplit[in.tensor]; });
        const bool projects = known
            && (category == LayerCategory::Linear
                || (category == LayerCategory::Attention && analysis.rows[op.row].params > 0));
        AffineBytes input, inputGradient; // the largest input, and of those that get a gradient
        for (const StepInput& in : op.inputs) {
            input = larger(input, bytesOf(in.tensor));
            if (in.tensor < g.tensors.size() && g.tensors[in.tensor].requiresGrad)
                inputGradient = larger(inputGradient, bytesOf(in.tensor));
        }
        const AffineBytes output = bytesOf(op.output);
        bool outputSplit = false;
        if (projects && !splitInput) {
            // Column-parallel: the whole input gathered into the global buffer (forward and backward), and
            // in backward the whole input gradient before its reduce-scatter.
            c.sequenceGather = larger(c.sequenceGather, input);
            AffineBytes& back = c.backwardCommunication[op.row];
            back = larger(back, inputGradient);
            // A Linear's output is split by features; an attention layer ends in its row-parallel output
            // projection: its whole output before the reduce-scatter, and in backward the gathered output
            // gradient (after the input gradient's buffer is gone: the larger of the two).
            outputSplit = category == LayerCategory::Linear;
            if (!outputSplit) {
                c.forwardCommunication[op.row] = larger(c.forwardCommunication[op.row], output);
                back = larger(back, output);
            }
        } else if (projects) {
            // Row-parallel: its whole (partial-sum) output before the reduce-scatter to the sequence shard;
            // in backward the output gradient all-gathered back to the whole sequence.
            c.forwardCommunication[op.row] = larger(c.forwardCommunication[op.row], output);
            c.backwardCommunication[op.row] = larger(c.backwardCommunication[op.row], output);
        } else if (!known || category == LayerCategory::Embedding
            || category == LayerCategory::Normalization) {
            outputSplit = false; // vocabulary-parallel embedding (reduce-scattered), a norm's whole rows
        } else {
            outputSplit = splitInput; // element-wise on what it is given (GELU on a column-parallel output)
        }
        if (op.output < featureSplit.size())
            featureSplit[op.output] = outputSplit;
    }
}

void addContextParallelBuffers(StepConditions& c, const Analysis& analysis, const Parallelism& par)
{
    if (par.contextParallel <= 1)
        return;
    const StepGraph& g = analysis.step;
    const auto t = static_cast<std::uint64_t>(std::max<std::int64_t>(1, par.tensorParallel));
    c.forwardCommunication.resize(std::max(c.forwardCommunication.size(), analysis.rows.size()));
    c.backwardCommunication.resize(std::max(c.backwardCommunication.size(), analysis.rows.size()));
    const auto bytesOf = [&](std::size_t tensor) {
        return tensor < g.tensors.size() ? g.tensors[tensor].gradientBytes : AffineBytes {};
    };
    for (const StepOp& op : g.ops) {
        bool known = false;
        if (sequenceCategoryOf(analysis, op.row, known) != LayerCategory::Attention || !known)
            continue;
        // The local attention output [T / c, h d] stands for Q (and, without separate inputs, for K and
        // V: a head width of output / heads, as many key/value heads as query heads). An SDPA layer given
        // q, k and v separately has its exact K and V (grouped-query attention included).
        const AffineBytes output = bytesOf(op.output);
        const bool separate
            = analysis.rows[op.row].type == "ScaledDotProductAttention" && op.inputs.size() == 3;
        const AffineBytes q = separate ? bytesOf(op.inputs[0].tensor) : output;
        const AffineBytes kv = separate
            ? summedBytes(bytesOf(op.inputs[1].tensor), bytesOf(op.inputs[2].tensor))
            : scaledBytes(output, 2);
        AffineBytes forward, backward;
        if (par.contextKind == ContextParallelism::Ring) {
            forward = scaledBytes(kv, 2); // the block in use's successor, received while it is used
            backward = scaledBytes(kv, 4); // and dK / dV travelling with it
        } else {
            forward = summedBytes(
                summedBytes(q, kv), output); // all-to-all outputs: Q, K, V and the attention output
            backward = forward; // dO, then dQ, dK, dV: the same shapes
        }
        const auto perRank = [&](const AffineBytes& b) {
            return AffineBytes { step::ceilDiv(b.perSample, t), step::ceilDiv(b.fixed, t) };
        };
        // Beside any sequence-parallel buffers of the same layer (they run one after the other).
        AffineBytes& f = c.forwardCommunication[op.row];
        AffineBytes& b = c.backwardCommunication[op.row];
        f = AffineBytes { std::max(f.perSample, perRank(forward).perSample),
            std::max(f.fixed, perRank(forward).fixed) };
        b = AffineBytes { std::max(b.perSample, perRank(backward).perSample),
            std::max(b.fixed, perRank(backward).fixed) };
    }
}

std::optional<Error> contextParallelAttentionProblem(
    std::int64_t contextParallel, AttentionImplementation attention)
{
    if (contextParallel <= 1 || attention != AttentionImplementation::Eager)
        return std::nullopt;
    return Error { "context parallel " + std::to_string(contextParallel)
            + " needs flash / SDPA attention (ring attention and Ulysses are built on its kernels), "
              "not attention \"eager\"",
        "parallel.context_parallel" };
}

} // namespace headroom

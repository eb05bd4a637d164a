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

AffineBytes sequenceParallelGatherBytes(const Analysis& analysis)
{
    const StepGraph& g = analysis.step;
    // Whether a tensor is split across the tensor-parallel ranks along its features (a column-parallel
    // linear's output, and what element-wise layers make of it) rather than along the sequence.
    std::vector<bool> featureSplit(g.tensors.size(), false);
    AffineBytes most;
    for (const StepOp& op : g.ops) {
        bool known = false;
        const LayerCategory category = sequenceCategoryOf(analysis, op.row, known);
        const bool splitInput = std::any_of(op.inputs.begin(), op.inputs.end(),
            [&](const StepInput& in) { return in.tensor < featureSplit.size() && featureSplit[in.tensor]; });
        const bool projects = category == LayerCategory::Linear
            || (category == LayerCategory::Attention && op.row < analysis.rows.size()
                && analysis.rows[op.row].params > 0);
        bool outputSplit = false;
        if (known && projects && !splitInput) { // column-parallel: gathers its whole input
            for (const StepInput& in : op.inputs) {
                if (in.tensor >= g.tensors.size())
                    continue;
                most.perSample = std::max(most.perSample, g.tensors[in.tensor].gradientBytes.perSample);
                most.fixed = std::max(most.fixed, g.tensors[in.tensor].gradientBytes.fixed);
            }
            // A Linear's output is split by features; an attention layer ends in its row-parallel output
            // projection, whose output is whole again (reduce-scattered along the sequence).
            outputSplit = category == LayerCategory::Linear;
        } else if (known
            && (projects || category == LayerCategory::Embedding
                || category == LayerCategory::Normalization)) {
            outputSplit = false; // row-parallel linear, vocabulary-parallel embedding, a norm's whole rows
        } else {
            outputSplit = splitInput; // element-wise on what it is given (GELU on a column-parallel output)
        }
        if (op.output < featureSplit.size())
            featureSplit[op.output] = outputSplit;
    }
    return most;
}

void addContextParallelBuffers(StepConditions& c, const Analysis& analysis, const Parallelism& par)
{
    if (par.contextParallel <= 1)
        return;
    const StepGraph& g = analysis.step;
    const auto t = static_cast<std::uint64_t>(std::max<std::int64_t>(1, par.tensorParallel));
    c.forwardCommunication.assign(analysis.rows.size(), AffineBytes {});
    c.backwardCommunication.assign(analysis.rows.size(), AffineBytes {});
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
        c.forwardCommunication[op.row] = perRank(forward);
        c.backwardCommunication[op.row] = perRank(backward);
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

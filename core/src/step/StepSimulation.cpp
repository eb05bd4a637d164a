#include "step/StepSimulation.h"

#include "step/TensorParallel.h"
#include "support/Wide.h"

#include <algorithm>
#include <utility>

namespace headroom::step {

StepSimulation::StepSimulation(const Analysis& analysis, const StepConditions& conditions)
    : StepSimulation { analysis, analysis.step, conditions }
{
}

StepSimulation::StepSimulation(
    const Analysis& analysis, const StepGraph& graph, const StepConditions& conditions)
    : m_analysis { analysis }
    , m_graph { graph }
    , m_c { conditions }
{
    prepare();
}

/// Bytes one GPU holds of something charged to `row` (tensor parallelism splits some layers).
Affine StepSimulation::onGpu(const AffineBytes& b, std::size_t row) const
{
    if (m_c.tensorParallel <= 1 || row >= m_analysis.rows.size() || !m_split[row])
        return affine(b);
    return Affine { Count { ceilDiv(b.perSample, m_c.tensorParallel) },
        Count { ceilDiv(b.fixed, m_c.tensorParallel) } };
}

Affine StepSimulation::copyBytes(std::size_t op) const
{
    const StepOp& o = m_graph.ops[op];
    const std::uint64_t bytes = o.autocastCopyBytes;
    if (m_c.expertSplit > 1 && bytes > 0 && o.row < m_analysis.rows.size()) {
        // Expert parallelism: the routed experts' half copies are split e x etp ways, the router's as
        // tensor parallelism splits the layer.
        const Count cast = Count { m_analysis.rows[o.row].expertCastParams }
            * Count { elementSize(halfType(m_analysis.precision)) };
        const std::uint64_t experts = cast.isOverflow() ? bytes : std::min(bytes, cast.value());
        if (experts > 0)
            return Affine { Count {},
                Count { ceilDiv(experts, m_c.expertSplit) }
                    + onGpu(AffineBytes { 0, bytes - experts }, o.row).fixed };
    }
    return Affine { Count {}, onGpu(AffineBytes { 0, bytes }, o.row).fixed };
}

/// Expert parallelism's all-to-all dispatch (Megatron-Core's MoEAlltoAllTokenDispatcher): the tokens
/// permuted by expert and sent, and those received, each tokens x top-k x hidden in the input's dtype.
template <typename F> void StepSimulation::withDispatch(StepSink& sink, std::size_t op, F atMoment)
{
    const std::size_t row = m_graph.ops[op].row;
    const bool dispatch = row < m_dispatch.size() && !m_dispatch[row].empty();
    if (dispatch)
        sink.allocate(BlockRole::Communication, op, m_dispatch[row], false, op);
    atMoment();
    if (dispatch)
        sink.release(BlockRole::Communication, op, m_dispatch[row]);
}

Affine StepSimulation::communication(std::size_t op, bool backward) const
{
    const auto& perRow = backward ? m_c.backwardCommunication : m_c.forwardCommunication;
    const std::size_t row = m_graph.ops[op].row;
    return row < perRow.size() ? affine(perRow[row]) : Affine {};
}

void StepSimulation::prepare()
{
    m_split.resize(m_analysis.rows.size());
    for (std::size_t r = 0; r < m_analysis.rows.size(); ++r)
        m_split[r] = m_c.tensorParallel > 1
            && (splitByTensorParallel(m_analysis.rows[r])
                || (m_c.sequenceParallel && splitBySequenceParallel(m_analysis.rows[r])));
    m_dispatch.assign(m_analysis.rows.size(), Affine {});
    for (std::size_t r = 0; r < m_analysis.rows.size() && m_c.expertParallel > 1; ++r) {
        const LayerRow& row = m_analysis.rows[r];
        if (row.experts > 0) // sent and received: 2 x tokens x hidden (the output's elements) x top-k
            m_dispatch[r].perSample = Count { 2 } * row.output.shape.elements()
                * Count::fromSigned(row.expertsPerToken) * Count { elementSize(row.output.dtype) };
        m_overflow = m_overflow || m_dispatch[r].overflowed();
    }
    m_storageBytes.reserve(m_graph.storages.size());
    for (const auto& s : m_graph.storages)
        m_storageBytes.push_back(onGpu(s.bytes, s.chargedRow));
    prepareReleases();
    prepareParameters();
    prepareRepeats();
    for (const auto& s : m_graph.storages) {
        if (s.isInputBatch)
            m_input += affine(s.bytes);
    }
}

/// The first and last op of each checkpointed iteration (segment).
void StepSimulation::findSegmentBounds()
{
    const auto& ops = m_graph.ops;
    m_segmentFirst.assign(m_graph.segments, kNoStepOp);
    m_segmentLast.assign(m_graph.segments, kNoStepOp);
    for (std::size_t j = 0; j < ops.size(); ++j) {
        if (ops[j].segment < 0)
            continue;
        const auto g = static_cast<std::size_t>(ops[j].segment);
        m_segmentFirst[g] = std::min(m_segmentFirst[g], j);
        m_segmentLast[g] = m_segmentLast[g] == kNoStepOp ? j : std::max(m_segmentLast[g], j);
    }
}

/// The last use of each storage inside its own checkpointed iteration (for the recomputation).
std::vector<std::size_t> StepSimulation::lastUsesInSegments() const
{
    const auto& ops = m_graph.ops;
    std::vector<std::size_t> lastUseInSegment(m_graph.storages.size(), kNoStepOp);
    for (std::size_t j = 0; j < ops.size(); ++j) {
        for (const auto& in : ops[j].inputs) {
            const std::size_t s = m_graph.tensors[in.tensor].storage;
            if (m_graph.storages[s].segment >= 0 && m_graph.storages[s].segment == ops[j].segment)
                lastUseInSegment[s] = lastUseInSegment[s] == kNoStepOp ? j : std::max(lastUseInSegment[s], j);
        }
    }
    return lastUseInSegment;
}

/// Storages released together go in the order they were made (a node releases its saved variables in
/// order), whatever their numbers (a written-out Repeat block numbers its copies last).
void StepSimulation::sortReleasesByCreation()
{
    std::vector<std::size_t> made(m_graph.storages.size(), 0);
    std::size_t order = 0;
    for (const StepOp& op : m_graph.ops)
        for (const std::size_t s : op.allocates)
            made[s] = ++order;
    const auto byCreation
        = [&](std::size_t a, std::size_t b) { return made[a] != made[b] ? made[a] < made[b] : a < b; };
    for (auto* lists : { &m_freeAfterForward, &m_freeAfterBackward, &m_freeAfterRecompute,
             &m_releaseRecomputedAfterBackward, &m_unpackBeforeBackward })
        for (auto& list : *lists)
            std::sort(list.begin(), list.end(), byCreation);
}

/// When each storage is freed: after its last forward use, after the backward of the op that keeps it,
/// and for a checkpointed iteration's storages after the recomputation's use or its backward.
void StepSimulation::prepareReleases()
{
    const auto& ops = m_graph.ops;
    const std::size_t n = ops.size();
    m_freeAfterForward.resize(n);
    m_freeAfterBackward.resize(n);
    m_freeAfterRecompute.resize(n);
    m_releaseRecomputedAfterBackward.resize(n);
    findSegmentBounds();
    const std::vector<std::size_t> lastUseInSegment = lastUsesInSegments();
    const std::size_t rootStorage = n > 0 ? m_graph.tensors[ops[n - 1].output].storage : kNoStepOp;
    for (std::size_t s = 0; s < m_graph.storages.size(); ++s) {
        const StepStorage& st = m_graph.storages[s];
        if (st.isInputBatch || st.producer == kNoStepOp)
            continue;
        if (st.keptAcrossSegments)
            m_freeAfterBackward[st.releasedAfterBackwardOf].push_back(s);
        else if (s == rootStorage) // what backward starts from: the caller holds it (`loss`) until
            m_rootStorage = s; // backward returns
        else
            m_freeAfterForward[std::max(st.lastForwardUse, st.producer)].push_back(s);
        if (st.segment < 0)
            continue;
        const auto g = static_cast<std::size_t>(st.segment);
        const bool segmentOutput = m_graph.tensors[ops[m_segmentLast[g]].output].storage == s;
        if (segmentOutput) // reentrant checkpoint holds the recomputed outputs to the iteration's end
            m_releaseRecomputedAfterBackward[m_segmentFirst[g]].push_back(s);
        else if (st.keptInSegment)
            m_releaseRecomputedAfterBackward[st.releasedInSegmentAfterBackwardOf].push_back(s);
        else
            m_freeAfterRecompute[lastUseInSegment[s] == kNoStepOp ? st.producer : lastUseInSegment[s]]
                .push_back(s);
    }
    prepareOffload();
    sortReleasesByCreation();
}

/// Activation offloading (docs/multi-gpu.md, "Activation offloading"). An offloaded storage leaves the GPU
/// after its last use in forward, as if nothing kept it, and comes back when backward reaches the latest
/// op that used it in forward (torch.autograd.graph.save_on_cpu: unpacked when that op's backward needs
/// it); offloaded checkpoints (the inputs a checkpointed iteration keeps) come back one iteration ahead,
/// before the recomputation of the iteration after it in forward order (double buffering). The backward
/// that released it before still releases it.
void StepSimulation::prepareOffload()
{
    const auto& ops = m_graph.ops;
    m_unpackBeforeBackward.assign(ops.size(), {});
    if (m_c.activationOffload == ActivationOffload::None)
        return;
    const bool all = m_c.activationOffload == ActivationOffload::All;
    // Each checkpointed iteration's successor in forward order (the segment starting next after it ends).
    std::vector<std::size_t> order;
    for (std::size_t g = 0; g < m_graph.segments; ++g)
        if (m_segmentFirst[g] != kNoStepOp)
            order.push_back(g);
    std::sort(
        order.begin(), order.end(), [&](auto a, auto b) { return m_segmentFirst[a] < m_segmentFirst[b]; });
    std::vector<std::size_t> next(m_graph.segments, kNoStepOp);
    for (const std::size_t g : order) {
        const auto after = std::upper_bound(order.begin(), order.end(), m_segmentLast[g],
            [&](std::size_t op, std::size_t h) { return op < m_segmentFirst[h]; });
        if (after != order.end())
            next[g] = *after;
    }
    for (std::size_t s = 0; s < m_graph.storages.size(); ++s) {
        const StepStorage& st = m_graph.storages[s];
        const std::size_t keeper = st.releasedAfterBackwardOf;
        if (st.isInputBatch || st.producer == kNoStepOp || !st.keptAcrossSegments || s == m_rootStorage
            || keeper >= ops.size() || (!all && ops[keeper].segment < 0))
            continue;
        std::size_t last = std::max(st.producer, keeper);
        if (st.lastForwardUse != kNoStepOp)
            last = std::max(last, st.lastForwardUse);
        m_freeAfterForward[last].push_back(s);
        std::size_t back = last;
        if (!all && ops[last].segment >= 0) {
            const auto g = static_cast<std::size_t>(ops[last].segment);
            // the iteration after it, whose backward runs just before, or its own
            back = m_segmentLast[next[g] != kNoStepOp ? next[g] : g];
        }
        m_unpackBeforeBackward[back].push_back(s);
    }
}

/// Tensor parallelism: the set-up's total (split per layer like the weights) shared out in proportion,
/// so one GPU's gradients always add up to its trainable weights.
void StepSimulation::prepareParameters()
{
    Count unsplit;
    for (const auto& p : m_graph.parameters)
        unsplit += Count { p.gradientBytes } * Count { p.copies };
    const bool rescale
        = (m_c.tensorParallel > 1 || m_c.expertSplit > 1) && !unsplit.isOverflow() && unsplit.value() > 0;
    Count given;
    for (std::size_t i = 0; i < m_graph.parameters.size(); ++i) {
        const StepParameter& p = m_graph.parameters[i];
        std::uint64_t bytes = p.gradientBytes;
        if (rescale) {
            bytes = static_cast<std::uint64_t>(static_cast<Wide>(bytes) * m_c.gradients / unsplit.value());
            if (i + 1 == m_graph.parameters.size() && p.copies == 1) // the rounding's remainder
                bytes = m_c.gradients - std::min(m_c.gradients, given.value());
        }
        given += Count { bytes } * Count { p.copies };
        m_parameterBytes.push_back(bytes);
    }
    m_allParameterBytes = m_graph.parameters.empty() ? Count { m_c.gradients } : given;
    m_overflow = m_overflow || m_allParameterBytes.isOverflow();
    m_gradientProducers.assign(m_graph.parameters.size(), 0);
    for (const auto& op : m_graph.ops) {
        for (const std::size_t p : op.parameters)
            ++m_gradientProducers[p];
    }
}

/// Hidden iterations: where their stand-ins start and end, going forward and backward. At one op, an
/// enclosing block's stand-in starts before and ends after an inner one's.
void StepSimulation::prepareRepeats()
{
    const std::size_t n = m_graph.ops.size();
    for (std::size_t r = 0; r < m_graph.repeats.size(); ++r) {
        const StepRepeat& rep = m_graph.repeats[r];
        if (rep.hidden == 0 || rep.first > rep.last || rep.last >= rep.nextFirst
            || rep.nextFirst > rep.nextLast || rep.nextLast >= n)
            continue;
        m_forwardFrom[rep.first].push_back(r);
        m_forwardTo[rep.last].push_back(r);
        m_backwardFrom[rep.nextLast].push_back(r);
        m_backwardTo[rep.nextFirst].push_back(r);
    }
    const auto span = [&](std::size_t r) { return m_graph.repeats[r].nextLast - m_graph.repeats[r].first; };
    for (auto* lists : { &m_forwardFrom, &m_backwardFrom })
        for (auto& [op, rs] : *lists)
            std::sort(rs.begin(), rs.end(), [&](auto a, auto b) { return span(a) > span(b); });
    for (auto* lists : { &m_forwardTo, &m_backwardTo })
        for (auto& [op, rs] : *lists)
            std::sort(rs.begin(), rs.end(), [&](auto a, auto b) { return span(a) < span(b); });
}

void StepSimulation::run(StepSink& sink)
{
    runMicroBatch(sink, false);
    if (m_c.accumulationSteps > 1)
        runMicroBatch(sink, true);
    sink.optimizerStep();
}

void StepSimulation::runMicroBatch(StepSink& sink, bool later)
{
    sink.microBatch(later);
    m_allocatedParameter.assign(m_graph.parameters.size(), later);
    m_gradientsSeen.assign(m_graph.parameters.size(), 0);
    m_heldIsView.assign(m_graph.parameters.size(), false);
    m_heldAsAccumulation.assign(m_graph.parameters.size(), false);
    forward(sink);
    backward(sink);
    sink.backwardDone();
}

void StepSimulation::allocate(
    StepSink& sink, const std::vector<std::size_t>& storages, BlockRole role, std::size_t op)
{
    for (const std::size_t s : storages)
        sink.allocate(role, s, m_storageBytes[s], false, op);
}

void StepSimulation::release(StepSink& sink, const std::vector<std::size_t>& storages, BlockRole role)
{
    for (const std::size_t s : storages)
        sink.release(role, s, m_storageBytes[s]);
}

void StepSimulation::startRepeats(
    StepSink& sink, const RepeatsAt& at, std::size_t op, bool forward, OpRange within)
{
    if (const auto it = at.find(op); it != at.end())
        for (const std::size_t r : it->second)
            if (within.holds(m_graph.repeats[r]))
                sink.repeatBegin(r, forward);
}

void StepSimulation::endRepeats(
    StepSink& sink, const RepeatsAt& at, std::size_t op, bool forward, OpRange within)
{
    if (const auto it = at.find(op); it != at.end())
        for (const std::size_t r : it->second)
            if (within.holds(m_graph.repeats[r]))
                sink.repeatEnd(r, forward, m_recomputing);
}

/// When the first forward frees an op's autocast copies: inside a checkpointed iteration nothing is saved
/// (the forward runs without grad), so only the cast cache keeps them.
static CopyRelease forwardCopyRelease(const StepOp& op)
{
    if (op.segment >= 0 && op.copyRelease == CopyRelease::AfterBackward)
        return CopyRelease::AfterForward;
    return op.copyRelease;
}

void StepSimulation::forward(StepSink& sink)
{
    const auto& ops = m_graph.ops;
    m_recomputing = false;
    for (std::size_t j = 0; j < ops.size(); ++j) {
        const StepOp& op = ops[j];
        startRepeats(sink, m_forwardFrom, j, true);
        allocate(sink, op.allocates, BlockRole::Storage, j);
        const CopyRelease copyRelease = forwardCopyRelease(op);
        const Affine copy = copyBytes(j);
        if (!copy.empty())
            sink.allocate(BlockRole::AutocastCopy, j, copy, copyRelease == CopyRelease::AfterForward, j);
        const Affine extra = scratch(op.forwardScratch, j);
        if (!extra.empty())
            sink.allocate(BlockRole::ForwardScratch, j, extra, false, j);
        withDispatch(sink, j, [&] {
            const Affine buffers = communication(j, false);
            if (!buffers.empty())
                sink.allocate(BlockRole::Communication, j, buffers, false, j);
            sink.moment(MomentEvent { StepPhase::Forward, j, false, false });
            if (!buffers.empty())
                sink.release(BlockRole::Communication, j, buffers);
        });
        if (!extra.empty())
            sink.release(BlockRole::ForwardScratch, j, extra);
        release(sink, m_freeAfterForward[j], BlockRole::Storage);
        if (copyRelease == CopyRelease::AfterForwardOp && !copy.empty())
            sink.release(BlockRole::AutocastCopy, j, copy);
        endRepeats(sink, m_forwardTo, j, true);
    }
    sink.autocastExit(); // autocast exits: its cast cache is cleared
    // The end of the forward pass (for a hand-made analysis without a step graph, its only moment).
    sink.moment(MomentEvent { StepPhase::Forward, ops.empty() ? kNoStepOp : ops.size() - 1, false, true });
}

int StepSimulation::newBuffer(StepSink& sink, const AffineBytes& bytes, std::size_t row, std::size_t op)
{
    m_buffers.push_back(GradientBuffer { onGpu(bytes, row), 1 });
    const auto id = m_buffers.size() - 1;
    sink.allocate(BlockRole::ActivationGradient, id, m_buffers.back().bytes, false, op);
    return static_cast<int>(id);
}

void StepSimulation::dropReference(StepSink& sink, int buffer)
{
    if (buffer < 0)
        return;
    auto& b = m_buffers[static_cast<std::size_t>(buffer)];
    if (--b.references == 0)
        sink.release(BlockRole::ActivationGradient, static_cast<std::size_t>(buffer), b.bytes);
}

void StepSimulation::backward(StepSink& sink)
{
    const auto& ops = m_graph.ops;
    const std::size_t n = ops.size();
    m_buffers.clear();
    m_gradientOf.assign(m_graph.tensors.size(), -1);
    if (n == 0)
        return;
    // Backward starts from the last op's output: the loss (a scalar: nothing per sample) or, without a
    // loss, the network output's gradient, which the caller supplies.
    const StepTensor& root = m_graph.tensors[ops[n - 1].output];
    const bool lossRoot = m_analysis.rows[ops[n - 1].row].specPath == "loss";
    m_gradientOf[ops[n - 1].output]
        = newBuffer(sink, lossRoot ? AffineBytes {} : root.gradientBytes, ops[n - 1].row, n - 1);
    std::vector<int> heldOutputGradient(m_graph.segments, -1);
    for (std::size_t j = n; j-- > 0;) {
        const StepOp& op = ops[j];
        startRepeats(sink, m_backwardFrom, j, false);
        allocate(sink, m_unpackBeforeBackward[j], BlockRole::Storage, j);
        const std::ptrdiff_t g = op.segment;
        const bool segmentLast = g >= 0 && m_segmentLast[static_cast<std::size_t>(g)] == j;
        if (segmentLast)
            recompute(sink, static_cast<std::size_t>(g));
        if (op.recorded && m_gradientOf[op.output] >= 0)
            backwardOf(sink, j, segmentLast ? &heldOutputGradient[static_cast<std::size_t>(g)] : nullptr);
        release(sink, m_releaseRecomputedAfterBackward[j], BlockRole::RecomputedStorage);
        if (g >= 0 && m_segmentFirst[static_cast<std::size_t>(g)] == j) // the iteration's backward ends
            dropReference(sink, std::exchange(heldOutputGradient[static_cast<std::size_t>(g)], -1));
        endRepeats(sink, m_backwardTo, j, false);
    }
    for (std::size_t t = 0; t < m_gradientOf.size(); ++t) // gradients nobody consumed (the input's)
        dropReference(sink, std::exchange(m_gradientOf[t], -1));
    if (m_rootStorage != kNoStepOp)
        sink.release(BlockRole::Storage, m_rootStorage, m_storageBytes[m_rootStorage]);
}

/// A checkpointed iteration's forward, run again before its backward (torch.utils.checkpoint).
void StepSimulation::recompute(StepSink& sink, std::size_t g)
{
    m_recomputing = true;
    const OpRange segment { m_segmentFirst[g], m_segmentLast[g] };
    for (std::size_t k = m_segmentFirst[g]; k <= m_segmentLast[g]; ++k) {
        const StepOp& op = m_graph.ops[k];
        startRepeats(sink, m_forwardFrom, k, true, segment);
        allocate(sink, op.allocates, BlockRole::RecomputedStorage, k);
        const Affine copy = copyBytes(k);
        if (op.copyRelease == CopyRelease::AfterBackward && !copy.empty())
            sink.allocate(BlockRole::AutocastCopy, k, copy, false, k);
        const Affine extra = scratch(op.forwardScratch, k);
        if (!extra.empty())
            sink.allocate(BlockRole::ForwardScratch, k, extra, false, k);
        withDispatch(sink, k, [&] {
            const Affine buffers = communication(k, false);
            if (!buffers.empty())
                sink.allocate(BlockRole::Communication, k, buffers, false, k);
            sink.moment(MomentEvent { StepPhase::Backward, k, true, false });
            if (!buffers.empty())
                sink.release(BlockRole::Communication, k, buffers);
        });
        if (!extra.empty())
            sink.release(BlockRole::ForwardScratch, k, extra);
        release(sink, m_freeAfterRecompute[k], BlockRole::RecomputedStorage);
        endRepeats(sink, m_forwardTo, k, true, segment);
    }
    m_recomputing = false;
}

void StepSimulation::backwardOf(StepSink& sink, std::size_t j, int* holdOutputGradient)
{
    const StepOp& op = m_graph.ops[j];
    const int outGrad = m_gradientOf[op.output];
    std::vector<int> releaseAfter;
    for (const auto& in : op.inputs) {
        const StepTensor& t = m_graph.tensors[in.tensor];
        if (!t.requiresGrad)
            continue;
        int incoming = -1;
        if (in.aliasedGradient) {
            incoming = outGrad;
            ++m_buffers[static_cast<std::size_t>(outGrad)].references;
        } else {
            incoming = newBuffer(sink, t.gradientBytes, producerRow(in.tensor), j);
        }
        int& slot = m_gradientOf[in.tensor];
        if (slot < 0) {
            slot = incoming;
        } else if (m_c.gradientSumsInPlace && m_buffers[static_cast<std::size_t>(slot)].references == 1) {
            releaseAfter.push_back(incoming); // added in place into the existing gradient
        } else {
            releaseAfter.push_back(slot); // shared: summed out of place into a new buffer
            releaseAfter.push_back(incoming);
            slot = newBuffer(sink, t.gradientBytes, producerRow(in.tensor), j);
        }
    }
    std::vector<std::size_t> accumulated;
    for (const std::size_t p : op.parameters) {
        const Affine bytes { Count {}, Count { m_parameterBytes[p] } };
        if (m_gradientProducers[p] > 1) {
            sharedWeightGradient(sink, j, p, accumulated);
            continue;
        }
        if (m_allocatedParameter[p]) {
            sink.allocate(
                BlockRole::GradientAccumulation, p, bytes, false, j); // accumulated in place, then freed
            accumulated.push_back(p);
        } else {
            m_allocatedParameter[p] = true;
            sink.allocate(BlockRole::ParameterGradient, p, bytes, false, j);
        }
    }
    const Affine extra = scratch(op.backwardScratch, j);
    if (!extra.empty())
        sink.allocate(BlockRole::BackwardScratch, j, extra, false, j);
    withDispatch(sink, j, [&] {
        const Affine buffers = communication(j, true);
        if (!buffers.empty())
            sink.allocate(BlockRole::Communication, j, buffers, false, j);
        sink.moment(MomentEvent { StepPhase::Backward, j, false, false });
        if (!buffers.empty())
            sink.release(BlockRole::Communication, j, buffers);
    });
    if (!extra.empty())
        sink.release(BlockRole::BackwardScratch, j, extra);
    for (const std::size_t p : accumulated)
        sink.release(BlockRole::GradientAccumulation, p, Affine { Count {}, Count { m_parameterBytes[p] } });
    if (holdOutputGradient != nullptr)
        *holdOutputGradient = outGrad; // the checkpoint holds it until the iteration's backward ends
    else
        dropReference(sink, outGrad);
    m_gradientOf[op.output] = -1;
    for (const int b : releaseAfter)
        dropReference(sink, b);
    release(sink, m_freeAfterBackward[j], BlockRole::Storage);
    const Affine copy = copyBytes(j);
    if (op.copyRelease == CopyRelease::AfterBackward && !copy.empty())
        sink.release(BlockRole::AutocastCopy, j, copy);
}

/// A weight several ops use (weight tying: an LM head on the embedding's weight). Autograd sums their
/// gradients in the weight's AccumulateGrad input buffer before .grad sees them
/// (torch/csrc/autograd/input_buffer.cpp, accumulate): the first one to arrive is held there; each later
/// one is added into it in place only when it is a plain tensor holding its storage alone
/// (can_accumulate_inplace), otherwise `old_var + var` makes a third gradient-sized tensor while both
/// are alive. A Linear's weight gradient without an autocast cast is a view whose base keeps the storage
/// (weightGradientIsView), so an fp32 LM head tied to its embedding takes three vocabulary x width
/// gradients at the embedding's backward; under autocast ToCopyBackward hands over a fresh float32
/// tensor, summed in place. In a later micro-batch the sum is then added into .grad in place and freed.
/// The sum replaces the held gradient: the held block stands for it, the sum's bytes live at the moment.
void StepSimulation::sharedWeightGradient(
    StepSink& sink, std::size_t j, std::size_t p, std::vector<std::size_t>& accumulated)
{
    const Affine bytes { Count {}, Count { m_parameterBytes[p] } };
    const std::size_t seen = m_gradientsSeen[p]++;
    if (seen == 0) { // held in the input buffer until the last producer's backward
        m_heldIsView[p] = m_graph.ops[j].weightGradientIsView;
        m_heldAsAccumulation[p] = m_allocatedParameter[p];
        if (m_allocatedParameter[p]) {
            sink.allocate(BlockRole::GradientAccumulation, p, bytes, false, j);
        } else {
            m_allocatedParameter[p] = true;
            sink.allocate(BlockRole::ParameterGradient, p, bytes, false, j);
        }
        return;
    }
    sink.allocate(BlockRole::GradientAccumulation, p, bytes, false, j); // this op's gradient
    accumulated.push_back(p);
    if (m_heldIsView[p]) { // summed out of place; the sum is a plain tensor from here on
        sink.allocate(BlockRole::GradientAccumulation, p, bytes, false, j);
        accumulated.push_back(p);
        m_heldIsView[p] = false;
    }
    if (seen + 1 == m_gradientProducers[p] && m_heldAsAccumulation[p]) // added into .grad, then freed
        accumulated.push_back(p);
}

std::size_t StepSimulation::producerRow(std::size_t tensor) const
{
    return m_graph.storages[m_graph.tensors[tensor].storage].chargedRow;
}

} // namespace headroom::step

// Part of the per-layer stage: what the layer adds to the step (see LayerWork.h). Reads the layer's
// outcome and what trains; writes its output tensor and storage, the storages autograd keeps for its
// backward, its op (inputs, scratch), the network's recomputation and largest gradient pair, and its row.
#include "LayerWork.h"

#include <algorithm>
#include <utility>

namespace headroom::analysis {

namespace {

Count bytesOf(const TensorInfo& t)
{
    return t.shape.elements() * Count { elementSize(t.dtype) };
}

/// One saved tensor of a recorded layer: the storage it keeps (a new one for a cast input or an
/// internal buffer). Returns false when selective checkpointing drops it (attention scores) instead.
bool keepSaved(AnalysisState& state, LayerWork& work, const SavedTensor& s, Share share)
{
    StepRecorder& step = state.step;
    switch (s.source) {
    case SavedTensor::Source::Input: {
        const auto i = std::min(s.inputIndex, work.inputs.size() - 1);
        const std::size_t storage = work.casted[i] ? step.newStorage(bytesOf(work.effective[i]), 0)
                                                   : step.tensor(work.inputs[i]).storage;
        work.castSaved[i] = work.castSaved[i] || work.casted[i];
        step.keep(storage, work.row);
        return true;
    }
    case SavedTensor::Source::Output:
        step.keep(step.tensor(work.output).storage, work.row);
        return true;
    case SavedTensor::Source::Internal: {
        const Count perSample = share.of(s.perSampleElements) * Count { elementSize(s.dtype) };
        const Count fixed = share.of(s.fixedElements) * Count { elementSize(s.dtype) };
        if (s.attentionScores && state.options.checkpointing == Checkpointing::Selective) {
            state.totals.droppedPerSample += perSample;
            state.totals.droppedFixed += fixed;
            // recomputed inside this layer's backward
            work.op.backwardScratch.perSample += perSample.value();
            work.op.backwardScratch.fixed += fixed.value();
            return false;
        }
        step.keep(step.newStorage(perSample, fixed), work.row);
        return true;
    }
    }
    return true;
}

/// The op's inputs (and the gradients backward hands them), and what lives only while it runs.
void addInputsAndScratch(AnalysisState& state, LayerWork& work, const Training& t)
{
    const LayerOutcome& o = work.outcome;
    StepOp& op = work.op;
    if (!t.recorded) { // what the kernel makes anyway lives only while the layer runs
        for (const auto& s : o.saved) {
            if (s.source == SavedTensor::Source::Internal && s.madeWithoutGrad)
                op.forwardScratch.perSample += (s.perSampleElements * Count { elementSize(s.dtype) }).value();
        }
    }
    for (std::size_t i = 0; i < work.inputs.size(); ++i) {
        // a cast copy's backward (ToCopyBackward) makes a new gradient in the original dtype
        const bool aliased
            = !work.casted[i] && i < o.aliasedInputGradients.size() && o.aliasedInputGradients[i];
        op.inputs.push_back(StepInput { work.inputs[i], aliased });
        if (work.casted[i] && !work.castSaved[i]) // the cast copy lives only while the layer runs
            op.forwardScratch.perSample += bytesOf(work.effective[i]).value();
    }
    op.output = work.output;
    op.forwardScratch.perSample += o.forwardScratchBytesPerSample.value();
    op.backwardScratch.perSample += o.backwardScratchBytesPerSample.value();
    state.totals.overflow = state.totals.overflow || o.forwardScratchBytesPerSample.isOverflow()
        || o.backwardScratchBytesPerSample.isOverflow();
}

/// What the attention core computes again: in backward after selective checkpointing dropped the
/// scores (Q K^T, softmax, dropout, P V; Korthikanti et al. 2022, §5), and inside flash /
/// memory-efficient kernels, which rebuild S and P from the logsumexp whenever backward runs through them.
void addAttentionRecompute(Totals& totals, const LayerOutcome& o, bool scoresDropped, bool recorded)
{
    if (!o.attentionCore)
        return;
    const auto& core = *o.attentionCore;
    if (scoresDropped)
        totals.recompute += core.scores + core.values + core.softmax;
    if (core.recomputedInBackward && recorded)
        totals.attentionRecompute += core.scores + core.softmax;
}

/// The layer's gradient pair: its output's gradient and its inputs' that require grad, with what its
/// backward allocates beyond them (a mixture of experts: the busiest expert's gradients).
void addGradientPair(AnalysisState& state, const LayerWork& work)
{
    const LayerOutcome& o = work.outcome;
    Count gradients = bytesOf(o.output) + o.backwardScratchBytesPerSample;
    for (const auto i : work.inputs) {
        if (state.step.tensor(i).requiresGrad)
            gradients += bytesOf(state.step.tensor(i).info);
    }
    state.totals.transient = std::max(state.totals.transient, gradients.value());
    state.totals.overflow = state.totals.overflow || gradients.isOverflow();
}

} // namespace

void addOutput(AnalysisState& state, LayerWork& work, const Training& t)
{
    const LayerOutcome& o = work.outcome;
    Tensor out { o.output, 0, work.rowIndex, true, t.recorded, state.step.nextOp() };
    if (o.outputAliasesInput && !work.casted[0])
        out.storage = state.step.tensor(work.inputs[0]).storage;
    else
        out.storage = state.step.newStorage(bytesOf(o.output), 0);
    work.output = state.step.addTensor(out);
    state.byFullName[work.site.name] = work.output;
}

bool keepSavedTensors(AnalysisState& state, LayerWork& work, const Training& t)
{
    work.castSaved.assign(work.inputs.size(), false);
    if (!t.recorded) // a layer autograd does not record keeps nothing
        return false;
    const auto& inputs = work.inputs;
    const auto gradientNeeded = [&](std::size_t of) {
        return of == SavedTensor::kWeight
            ? t.weightTrains
            : state.step.tensor(inputs[std::min(of, inputs.size() - 1)]).requiresGrad;
    };
    bool scoresDropped = false;
    for (const auto& s : work.outcome.saved) {
        // A tensor kept only for gradients nobody needs is not saved: addmm/mm keep their input only
        // for the weight gradient (measured, docs/finetuning.md), mul keeps each operand for the other's.
        if (!s.onlyFor.empty() && std::none_of(s.onlyFor.begin(), s.onlyFor.end(), gradientNeeded))
            continue;
        // A composite layer's tensor for its inner modules' weight gradients: kept for the instances
        // LoRA adapts (an expert's share of an all-expert tensor) unless the layer trains.
        Share share { 1, 1 };
        if (!s.onlyForInnerWeights.empty() && !t.baseTrains) {
            const bool input = s.source == SavedTensor::Source::Input;
            const DType dtype
                = input ? work.effective[std::min(s.inputIndex, inputs.size() - 1)].dtype : s.dtype;
            share = state.lora.innerShare(s, dtype, t.innerAdapters);
            if (share.kept == 0)
                continue;
        }
        if (!keepSaved(state, work, s, share))
            scoresDropped = true;
    }
    return scoresDropped;
}

void finishLayer(AnalysisState& state, LayerWork& work, const Training& t, bool scoresDropped, Count forward,
    Count backward)
{
    addInputsAndScratch(state, work, t);
    addAttentionRecompute(state.totals, work.outcome, scoresDropped, t.recorded);
    if (t.recorded)
        addGradientPair(state, work);
    Totals& totals = state.totals;
    totals.overflow = totals.overflow || forward.isOverflow() || backward.isOverflow();
    const auto& site = work.site;
    if (state.overflowed())
        state.diagnostics.record(
            Error { site.specPath + " (" + site.spec.type + "): its sizes overflow 64-bit byte counts",
                site.specPath });

    LayerRow& row = work.row;
    row.output = work.outcome.output;
    row.forwardFlopsPerSample = forward.value();
    row.backwardFlopsPerSample = backward.value();
    row.frozen = row.params > 0 && row.trainableParams == 0 && !t.tiedTrains;
    row.checkpointed = state.step.segment() >= 0;
    totals.forward += forward;
    totals.backward += backward;
    if (row.checkpointed)
        totals.recompute += forward;
    state.result.rows.push_back(std::move(row));
    state.step.addOp(std::move(work.op));
}

} // namespace headroom::analysis

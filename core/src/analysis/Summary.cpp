// Stage: the summary (see Summary.h).
#include "Summary.h"

#include <utility>

namespace headroom::analysis {

Analysis summarize(AnalysisState& state)
{
    Analysis& result = state.result;
    const Totals& totals = state.totals;
    result.totalParams = totals.params.value();
    result.trainableParams = totals.trainable.value();
    result.trainableParameterBytes = totals.trainableBytes.value();
    result.loraParams = totals.lora.value();
    result.forwardFlopsPerSample = totals.forward.value();
    result.backwardFlopsPerSample = totals.backward.value();
    result.recomputeFlopsPerSample = totals.recompute.value();
    result.attentionRecomputeFlopsPerSample = totals.attentionRecompute.value();
    result.bufferElements = totals.buffers.value();
    result.parameterBytes = totals.paramBytes.value();
    result.bufferBytes = totals.bufferBytes.value();
    result.autocastWeightCopyBytes = totals.autocastCopies.value();
    result.transientBytesPerSample = totals.transient;
    // Selective checkpointing: the attention scores were never kept.
    const KeptActivations kept = state.step.keptActivations(totals.droppedPerSample, totals.droppedFixed);
    const Count input = Count { result.inputBytesPerSample } + totals.labelBytes;
    result.activationBytesPerSample = kept.perSample.value();
    result.activationBytesFixed = kept.fixed.value();
    result.uncheckpointedActivationBytesPerSample = kept.fullPerSample.value();
    result.uncheckpointedActivationBytesFixed = kept.fullFixed.value();
    result.inputBytesPerSample = input.value();
    result.output
        = state.step.tensorCount() == 0 ? TensorInfo {} : state.step.tensor(state.networkOutput).info;
    const bool overflow = state.overflowed() || kept.overflow || kept.perSample.isOverflow()
        || kept.fixed.isOverflow() || input.isOverflow() || totals.autocastCopies.isOverflow()
        || totals.params.isOverflow() || kept.fullPerSample.isOverflow() || kept.fullFixed.isOverflow()
        || totals.trainableBytes.isOverflow() || totals.forward.isOverflow() || totals.backward.isOverflow()
        || totals.recompute.isOverflow() || totals.attentionRecompute.isOverflow();
    if (overflow)
        state.diagnostics.record(Error { "the network's sizes overflow 64-bit byte counts", "layers" });
    if (!state.diagnostics.hasError())
        result.step = state.step.finish(result.inputBytesPerSample);
    state.diagnostics.moveInto(result);
    return std::move(result);
}

} // namespace headroom::analysis

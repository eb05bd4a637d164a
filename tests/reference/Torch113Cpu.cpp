#include "Torch113Cpu.h"

#include <algorithm>

namespace headroom::test {

namespace {

/// AdaptiveAvgPool{1,2,3}d to a single element per channel: adaptive_avg_pool{2,3}d compute
/// input.mean(spatial axes, keepdim=True) then (adaptive_avg_pool1d runs adaptive_avg_pool2d on the input
/// unsqueezed to 2-D).
bool runsAsMean(const LayerRow& row)
{
    const auto& dims = row.output.shape.dims;
    for (const char* type : { "AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveAvgPool3d" }) {
        if (row.type == type)
            return dims.size() >= 2
                && std::all_of(dims.begin() + 1, dims.end(), [](auto d) { return d == 1; });
    }
    return false;
}

} // namespace

Analysis onTorch113Cpu(Analysis a)
{
    StepGraph& g = a.step;
    for (std::size_t j = 0; j < g.ops.size(); ++j) {
        const StepOp& op = g.ops[j];
        const LayerRow& row = a.rows[op.row];
        const std::size_t output = g.tensors[op.output].storage;
        if (row.type == "Dropout") {
            for (const std::size_t s : op.allocates) {
                if (s != output) // the mask: noise as large as the output, in its dtype
                    g.storages[s].bytes = g.storages[output].bytes;
            }
            if (!op.recorded && op.forwardScratch.perSample > 0)
                g.ops[j].forwardScratch = g.storages[output].bytes;
        }
        if (row.type == "LogSigmoid" && op.recorded) {
            StepStorage buffer; // as large as the output, kept with the input until the layer's backward
            buffer.bytes = g.storages[output].bytes;
            buffer.producer = j;
            buffer.lastForwardUse = j;
            buffer.keptAcrossSegments = true;
            buffer.releasedAfterBackwardOf = j;
            buffer.chargedRow = op.row;
            g.storages.push_back(buffer);
            g.ops[j].allocates.push_back(g.storages.size() - 1);
        }
        const bool mean = row.type == "Mean" || runsAsMean(row);
        if (mean && op.recorded && !op.inputs.empty()) {
            StepStorage& input = g.storages[g.tensors[op.inputs[0].tensor].storage];
            if (!input.isInputBatch) {
                input.keptAcrossSegments = true;
                input.releasedAfterBackwardOf = std::min(input.releasedAfterBackwardOf, j);
            }
        }
    }
    // The RNG state of each checkpointed iteration: made when its forward starts, freed when its
    // backward ends (both at the iteration's first op).
    std::vector<std::size_t> firstOp(g.segments, kNoStepOp);
    for (std::size_t j = 0; j < g.ops.size(); ++j) {
        if (g.ops[j].segment >= 0 && firstOp[static_cast<std::size_t>(g.ops[j].segment)] == kNoStepOp)
            firstOp[static_cast<std::size_t>(g.ops[j].segment)] = j;
    }
    for (const std::size_t j : firstOp) {
        if (j == kNoStepOp)
            continue;
        StepStorage rng;
        rng.bytes = AffineBytes { 0, kCpuRngStateBytes };
        rng.producer = j;
        rng.lastForwardUse = j;
        rng.keptAcrossSegments = true;
        rng.releasedAfterBackwardOf = j;
        rng.chargedRow = g.ops[j].row;
        g.storages.push_back(rng);
        g.ops[j].allocates.push_back(g.storages.size() - 1);
    }
    return a;
}

TrainingSetup torch113Setup(Optimizer optimizer, std::int64_t batch)
{
    TrainingSetup s;
    s.optimizer = optimizer;
    s.optimizerImplementation = OptimizerImplementation::ForLoop;
    s.batch = batch;
    s.overheadBytes = 0;
    return s;
}

std::uint64_t stepCounterBytes(const Analysis& analysis)
{
    return 4 * analysis.trainableTensorElements.size();
}

} // namespace headroom::test

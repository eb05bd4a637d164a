// Stage: the loss (see Loss.h).
#include "Loss.h"

#include <string>
#include <utility>

namespace headroom::analysis {

namespace {

/// The loss's chain of ops in the step: [cast to float32,] log_softmax + nll_loss, sub + abs + mean, or
/// mse_loss / binary_cross_entropy.
class LossOps final
{
public:
    LossOps(StepRecorder& step, std::size_t row, bool recorded)
        : m_step { step }
        , m_row { row }
        , m_recorded { recorded }
    {
    }

    /// One op: reads `input`, produces a new tensor `output` (a scalar is one element for the whole batch,
    /// not one per sample); with `keptBy`, keeps it for backward (charged to that row). Returns the
    /// output tensor.
    std::size_t add(std::size_t input, const TensorInfo& output, LayerRow* keptBy = nullptr)
    {
        StepOp op;
        op.row = m_row;
        op.recorded = m_recorded;
        op.inputs.push_back(StepInput { input, false });
        const Count bytes = output.shape.elements() * Count { elementSize(output.dtype) };
        const bool scalar = output.shape.rank() == 0;
        const std::size_t storage = scalar ? m_step.newStorage(0, bytes) : m_step.newStorage(bytes, 0);
        op.output = m_step.addTensor(Tensor { output, storage, m_row, true, m_recorded, m_step.nextOp() });
        const std::size_t tensor = op.output;
        if (keptBy != nullptr && m_recorded)
            m_step.keep(storage, *keptBy);
        m_step.addOp(std::move(op));
        return tensor;
    }

private:
    StepRecorder& m_step;
    std::size_t m_row;
    bool m_recorded;
};

/// log_softmax keeps its output; nll_loss's backward makes a gradient of that size (zeros, then a
/// scatter) that log_softmax's backward turns into the logits' gradient. The labels: one int64 per row.
Count crossEntropy(
    LossOps& ops, std::size_t prediction, const TensorInfo& logits, DType lossType, LayerRow& row)
{
    row.type = "CrossEntropyLoss";
    const std::size_t logProbabilities = ops.add(prediction, TensorInfo { logits.shape, lossType }, &row);
    ops.add(logProbabilities, TensorInfo { Shape {}, lossType });
    const Count rows = Shape { { logits.shape.dims.begin(), logits.shape.dims.end() - 1 } }.elements();
    return rows * Count { elementSize(DType::Int64) };
}

/// l1_loss is (input - target).abs().mean() (ATen Loss.cpp): abs keeps the difference, a new tensor;
/// sub and mean keep nothing.
Count l1(LossOps& ops, std::size_t prediction, const TensorInfo& logits, DType lossType, LayerRow& row)
{
    row.type = "L1Loss";
    const TensorInfo elementwise { logits.shape, lossType };
    const std::size_t difference = ops.add(prediction, elementwise, &row);
    const std::size_t absolute = ops.add(difference, elementwise);
    ops.add(absolute, TensorInfo { Shape {}, lossType });
    return logits.shape.elements() * Count { elementSize(lossType) };
}

/// mse_loss and binary_cross_entropy(_with_logits) keep their input (the float32 cast under autocast)
/// and the target. mse_loss is a structured op (aten/src/ATen/native/Loss.cpp,
/// TORCH_IMPL_FUNC(mse_loss_out)): its meta function builds the output as a TensorIterator over input
/// and target (input-sized), then resize_({}) makes it the scalar loss without shrinking the storage,
/// which the loss tensor holds until it is deleted; the elementwise squared errors are a second
/// input-sized tensor, freed once mean_out sums them. binary_cross_entropy computes the elementwise
/// loss into an input-sized tensor and reduces it to a new scalar (apply_loss_reduction).
Count mseOrBce(AnalysisState& state, LossOps& ops, std::size_t prediction, const TensorInfo& logits,
    DType lossType, bool recorded, LayerRow& row)
{
    StepRecorder& step = state.step;
    const bool mse = state.network.loss == Loss::Mse;
    row.type = mse ? "MSELoss" : "BCELoss";
    if (recorded)
        step.keep(step.tensor(prediction).storage, row);
    const std::size_t loss = ops.add(prediction, TensorInfo { Shape {}, lossType });
    const Count inputSized = logits.shape.elements() * Count { elementSize(lossType) };
    if (mse)
        step.resize(step.tensor(loss).storage, inputSized, Count {});
    step.lastOp().forwardScratch.perSample = inputSized.value();
    state.totals.overflow = state.totals.overflow || inputSized.isOverflow();
    return logits.shape.elements() * Count { elementSize(lossType) };
}

} // namespace

void addLoss(AnalysisState& state, std::size_t current)
{
    const Loss kind = state.network.loss;
    if (kind == Loss::None)
        return;
    StepRecorder& step = state.step;
    const TensorInfo logits = step.tensor(current).info; // a copy: the loss's ops add tensors
    LayerRow row;
    row.name = "loss";
    row.inputs.push_back(tensorName(step, state.result.rows, current));
    row.specPath = "loss";
    if (!isFloatingPoint(logits.dtype) || logits.shape.rank() == 0) {
        state.diagnostics.record(Error { "loss " + std::string(lossName(kind))
                + " needs a floating-point network output with at least one axis, but the output is "
                + std::string(dtypeName(logits.dtype)) + " " + logits.shape.toString(),
            "loss" });
        return;
    }
    // Autocast runs log_softmax / nll_loss, mse_loss, l1_loss and binary_cross_entropy_with_logits in
    // float32; a half output is cast first.
    const DType lossType = isAutocast(state.precision) ? DType::Float32 : logits.dtype;
    // Nothing upstream trains: the loss is not recorded and keeps nothing.
    const bool recorded = step.tensor(current).requiresGrad;
    LossOps ops { step, state.result.rows.size(), recorded };
    std::size_t prediction = current;
    if (lossType != logits.dtype)
        prediction = ops.add(current, TensorInfo { logits.shape, lossType });
    if (kind == Loss::CrossEntropy)
        state.totals.labelBytes = crossEntropy(ops, prediction, logits, lossType, row);
    else if (kind == Loss::L1)
        state.totals.labelBytes = l1(ops, prediction, logits, lossType, row);
    else
        state.totals.labelBytes = mseOrBce(state, ops, prediction, logits, lossType, recorded, row);
    row.output = TensorInfo { Shape {}, lossType };
    state.result.lossActivationBytesPerSample = row.activationBytesPerSample;
    state.result.rows.push_back(std::move(row));
}

} // namespace headroom::analysis

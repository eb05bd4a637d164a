#include "headroom/Estimate.h"

#include <algorithm>

namespace headroom {

namespace {

constexpr std::uint64_t kFloat32Bytes = 4;

Count total(const MemoryBreakdown& m)
{
    Count sum;
    for (const auto c : kAllComponents)
        sum += Count{componentBytes(m, c)};
    return sum;
}

} // namespace

std::uint64_t MemoryBreakdown::total() const noexcept { return headroom::total(*this).value(); }

std::string_view componentName(Component c) noexcept
{
    switch (c) {
    case Component::Weights: return "weights";
    case Component::Gradients: return "gradients";
    case Component::OptimizerState: return "optimizer_state";
    case Component::Activations: return "activations";
    case Component::Input: return "input";
    case Component::Transient: return "transient";
    case Component::Communication: return "communication";
    case Component::Overhead: return "overhead";
    }
    return "";
}

std::string_view componentLabel(Component c) noexcept
{
    switch (c) {
    case Component::Weights: return "Weights";
    case Component::Gradients: return "Gradients";
    case Component::OptimizerState: return "Optimizer state";
    case Component::Activations: return "Activations";
    case Component::Input: return "Input batch";
    case Component::Transient: return "Backward transient";
    case Component::Communication: return "Communication buffers";
    case Component::Overhead: return "Framework overhead";
    }
    return "";
}

std::uint64_t componentBytes(const MemoryBreakdown& m, Component c) noexcept
{
    switch (c) {
    case Component::Weights: return m.weights;
    case Component::Gradients: return m.gradients;
    case Component::OptimizerState: return m.optimizerState;
    case Component::Activations: return m.activations;
    case Component::Input: return m.input;
    case Component::Transient: return m.transient;
    case Component::Communication: return m.communication;
    case Component::Overhead: return m.overhead;
    }
    return 0;
}

Result<MemoryModel> MemoryModel::build(const Analysis& analysis, const TrainingSetup& setup)
{
    if (analysis.error)
        return Error{"cannot estimate: " + analysis.error->message, analysis.error->location};
    const Precision p = analysis.precision;
    const Count trainable{analysis.trainableParams};
    // Gradients have the parameters' dtype: float32 except in pure half training.
    const Count gradients = trainable * Count{elementSize(parameterType(p))};
    // Optimizer state is float32; pure half training adds the float32 master copy of the weights.
    Count optimizerState = trainable * Count{static_cast<std::uint64_t>(optimizerStateTensors(setup.optimizer))}
        * Count{kFloat32Bytes};
    if (isPureHalf(p))
        optimizerState += trainable * Count{kFloat32Bytes};
    const Count weights
        = Count{analysis.parameterBytes} + Count{analysis.bufferBytes} + Count{analysis.autocastWeightCopyBytes};

    MemoryModel m;
    m.m_fixed.weights = weights.value();
    m.m_fixed.gradients = gradients.value();
    m.m_fixed.optimizerState = optimizerState.value();
    m.m_fixed.activations = analysis.activationBytesFixed;
    m.m_fixed.overhead = setup.overheadBytes;
    m.m_perSample.activations = analysis.activationBytesPerSample;
    m.m_perSample.input = analysis.inputBytesPerSample;
    m.m_perSample.transient = analysis.transientBytesPerSample;
    if (weights.isOverflow() || gradients.isOverflow() || optimizerState.isOverflow()
        || total(m.m_fixed).isOverflow() || total(m.m_perSample).isOverflow())
        return Error{"the model's byte counts overflow 64 bits", "layers"};
    return m;
}

Result<MemoryBreakdown> MemoryModel::at(std::int64_t batch) const
{
    if (batch < 1 || batch > kMaxBatch)
        return Error{"batch size must be from 1 to " + std::to_string(kMaxBatch) + ", not " + std::to_string(batch),
                     "batch"};
    const Count b = Count::fromSigned(batch);
    MemoryBreakdown out;
    bool overflow = false;
    const auto affine = [&](std::uint64_t fixed, std::uint64_t perSample) {
        const Count c = Count{fixed} + Count{perSample} * b;
        overflow = overflow || c.isOverflow();
        return c.value();
    };
    out.weights = affine(m_fixed.weights, m_perSample.weights);
    out.gradients = affine(m_fixed.gradients, m_perSample.gradients);
    out.optimizerState = affine(m_fixed.optimizerState, m_perSample.optimizerState);
    out.activations = affine(m_fixed.activations, m_perSample.activations);
    out.input = affine(m_fixed.input, m_perSample.input);
    out.transient = affine(m_fixed.transient, m_perSample.transient);
    out.overhead = affine(m_fixed.overhead, m_perSample.overhead);
    out.communication = affine(m_fixed.communication, m_perSample.communication);
    if (overflow || total(out).isOverflow())
        return Error{"memory at batch " + std::to_string(batch) + " overflows 64-bit byte counts", "batch"};
    return out;
}

std::int64_t MemoryModel::maxBatch(std::uint64_t capacityBytes) const noexcept
{
    const std::uint64_t fixed = total(m_fixed).value();
    const std::uint64_t perSample = total(m_perSample).value();
    if (fixed + perSample > capacityBytes || fixed + perSample < fixed)
        return 0;
    if (perSample == 0)
        return kMaxBatch;
    return static_cast<std::int64_t>(std::min<std::uint64_t>((capacityBytes - fixed) / perSample,
                                                             static_cast<std::uint64_t>(kMaxBatch)));
}

Result<Estimate> estimate(const Analysis& analysis, const TrainingSetup& setup)
{
    auto model = MemoryModel::build(analysis, setup);
    if (!model)
        return model.error();
    auto bytes = model->at(setup.batch);
    if (!bytes)
        return bytes.error();
    Estimate e;
    e.batch = setup.batch;
    e.precision = analysis.precision;
    e.optimizer = setup.optimizer;
    e.bytes = bytes.value();
    e.gpuMemoryBytes = setup.gpuMemoryBytes;
    e.fits = e.bytes.total() <= setup.gpuMemoryBytes;
    e.maxBatch = model->maxBatch(setup.gpuMemoryBytes);
    const std::int64_t stepsTimesRanks = std::max<std::int64_t>(1, setup.accumulationSteps)
        * std::max<std::int64_t>(1, setup.parallel.dataParallel());
    e.effectiveBatch = e.batch * stepsTimesRanks;
    e.maxEffectiveBatch = e.maxBatch * stepsTimesRanks;
    return e;
}

Result<std::vector<MemoryBreakdown>> sweep(const Analysis& analysis, const TrainingSetup& setup, std::int64_t first,
                                           std::int64_t last)
{
    auto model = MemoryModel::build(analysis, setup);
    if (!model)
        return model.error();
    if (first < 1 || last < first || last > kMaxBatch)
        return Error{"sweep range " + std::to_string(first) + ".." + std::to_string(last) + " is not valid", "batch"};
    std::vector<MemoryBreakdown> out;
    out.reserve(static_cast<std::size_t>(last - first + 1));
    for (std::int64_t b = first; b <= last; ++b) {
        auto m = model->at(b);
        if (!m)
            return m.error();
        out.push_back(m.value());
    }
    return out;
}

} // namespace headroom

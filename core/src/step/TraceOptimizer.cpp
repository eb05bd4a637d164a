#include "headroom/setup/Optimizer.h"
#include "step/TraceLog.h"

#include <algorithm>
#include <deque>

// optimizer.step() tensor by tensor, as torch/optim/*.py (PyTorch 2.x) allocates on CUDA:
// - the first step() creates the state in _init_group, parameter by parameter before any update math:
//   Adam's state["exp_avg"] and state["exp_avg_sq"] = torch.zeros_like(p) (state["step"] is a CPU tensor
//   unless fused or capturable, then torch.zeros((), device=p.device): one 512-byte block per parameter);
// - foreach: each torch._foreach_* that is not in place returns one new tensor per parameter, all alive at
//   once (Adam: exp_avg_sq_sqrt = torch._foreach_sqrt(device_exp_avg_sqs)), freed when step() returns;
// - for-loop: one parameter at a time; a temporary bound to a name (Adam's `denom`) lives until the next
//   parameter's replaces it;
// - fused: one kernel, no temporaries;
// then zero_grad(set_to_none=True) frees every .grad. docs/memory-model.md, "The optimizer step", quotes
// the lines; Optimizer.cpp's table gives the counts per optimizer.

namespace headroom::step {

namespace {

constexpr std::uint64_t kFloat32 = 4;
__extension__ typedef unsigned __int128 Wide;

/// Each trainable parameter tensor's elements on this GPU, in step order.
std::vector<std::uint64_t> elementsOnGpu(const Analysis& a, const StepGraph& graph,
    const std::vector<std::size_t>& origin, const StepSimulation& sim)
{
    std::vector<std::uint64_t> out;
    out.reserve(graph.parameters.size());
    for (std::size_t p = 0; p < graph.parameters.size(); ++p) {
        const StepParameter& param = graph.parameters[p];
        const std::size_t o = p < origin.size() ? origin[p] : p;
        std::uint64_t elements = o < a.trainableTensorElements.size() ? a.trainableTensorElements[o]
                                                                      : param.gradientBytes / kFloat32;
        // this GPU's share under tensor parallelism (the gradient's share)
        if (param.gradientBytes > 0 && sim.parameterBytes()[p] != param.gradientBytes)
            elements = static_cast<std::uint64_t>(
                static_cast<Wide>(elements) * sim.parameterBytes()[p] / param.gradientBytes);
        out.push_back(elements * param.copies);
    }
    return out;
}

/// bitsandbytes' block-wise 8-bit state of one tensor: uint8 values and a float32 absmax per 2,048
/// elements; tensors below 4,096 elements stay float32 (Estimate.h's constants).
std::vector<std::uint64_t> eightBitState(std::uint64_t elements)
{
    if (elements < kEightBitMinTensorElements)
        return { elements * kFloat32 };
    return { elements, (elements + kEightBitBlockElements - 1) / kEightBitBlockElements * kFloat32 };
}

bool hasStepTensor(Optimizer o)
{
    return o == Optimizer::Adam || o == Optimizer::AdamW || o == Optimizer::AdamAmsgrad;
}

/// The state, parameter by parameter; an empty list when the per-tensor sizes do not add up to the
/// set-up's state on this GPU (sharded or offloaded state: then it is laid out as flat partitions).
std::vector<std::uint64_t> stateTensors(const Analysis& a, const TrainingSetup& setup,
    const StepConditions& c, const std::vector<std::uint64_t>& elements)
{
    std::vector<std::uint64_t> blocks;
    const int tensors = optimizerStateTensors(setup.optimizer);
    const bool master = isPureHalf(a.precision); // the float32 master weights
    Count total;
    for (const std::uint64_t n : elements) {
        if (setup.optimizerImplementation == OptimizerImplementation::Fused && hasStepTensor(setup.optimizer))
            blocks.push_back(kFloat32); // state["step"] on the GPU
        for (int t = 0; t < tensors; ++t) {
            for (const std::uint64_t b :
                setup.eightBitOptimizer ? eightBitState(n) : std::vector { n * kFloat32 }) {
                blocks.push_back(b);
                total += Count { b };
            }
        }
        if (master) {
            blocks.push_back(n * kFloat32);
            total += Count { n * kFloat32 };
        }
    }
    if (total.isOverflow() || total.value() != c.optimizerState)
        return {};
    return blocks;
}

/// The step's temporaries: foreach lists or the for-loop's pattern, per tensor; empty when they do not add
/// up to the set-up's (then one block stands for them).
void addTemporaries(EventLog& log, const TrainingSetup& setup, const StepConditions& c,
    const std::vector<std::uint64_t>& elements)
{
    const StepTemporaries t = optimizerStepTemporaries(setup.optimizer, setup.optimizerImplementation);
    Count foreach;
    for (const std::uint64_t n : elements)
        foreach
            += Count { n * kFloat32 } * Count { static_cast<std::uint64_t>(t.parameterLists) };
    std::uint64_t forLoop = 0;
    std::uint64_t previous = 0;
    for (const std::uint64_t n : elements) {
        const std::uint64_t bytes = n * kFloat32;
        for (const auto& pair : t.forLoop)
            forLoop = std::max(forLoop,
                static_cast<std::uint64_t>(pair.previous) * previous
                    + static_cast<std::uint64_t>(pair.current) * bytes);
        previous = bytes;
    }
    if (c.stepTemporaries == 0)
        return;
    if (t.parameterLists > 0 && !foreach.isOverflow() && foreach.value() == c.stepTemporaries) {
        std::vector<std::uint32_t> lists;
        for (int l = 0; l < t.parameterLists; ++l)
            for (const std::uint64_t n : elements)
                lists.push_back(log.allocate(
                    TraceKind::OptimizerTemporary, kNoTraceRow, AffineBytes { 0, n * kFloat32 }));
        // A Python list frees its items last to first (list_dealloc).
        for (auto it = lists.rbegin(); it != lists.rend(); ++it)
            log.free(*it);
        return;
    }
    if (t.parameterLists == 0 && forLoop == c.stepTemporaries && t.forLoop[0].current > 0) {
        const auto keep = static_cast<std::size_t>(t.forLoop[0].previous);
        const auto make = static_cast<std::size_t>(t.forLoop[0].current);
        std::deque<std::uint32_t> kept;
        for (const std::uint64_t n : elements) {
            std::vector<std::uint32_t> made;
            for (std::size_t i = 0; i < make; ++i)
                made.push_back(log.allocate(
                    TraceKind::OptimizerTemporary, kNoTraceRow, AffineBytes { 0, n * kFloat32 }));
            for (const std::uint32_t b : kept)
                log.free(b);
            kept.clear();
            for (std::size_t i = 0; i < made.size(); ++i) {
                if (i + keep >= made.size())
                    kept.push_back(made[i]);
                else
                    log.free(made[i]);
            }
        }
        for (const std::uint32_t b : kept)
            log.free(b);
        return;
    }
    log.free(log.allocate(TraceKind::OptimizerTemporary, kNoTraceRow, AffineBytes { 0, c.stepTemporaries }));
}

} // namespace

void addOptimizerStep(EventLog& log, const Analysis& analysis, const TrainingSetup& setup,
    const StepConditions& c, const StepGraph& graph, const std::vector<std::size_t>& parameterOrigin,
    const StepSimulation& simulation, bool createState, std::vector<std::uint32_t>& gradients)
{
    const std::vector<std::uint64_t> elements = elementsOnGpu(analysis, graph, parameterOrigin, simulation);
    if (createState && c.optimizerState > 0) {
        std::vector<std::uint64_t> blocks = stateTensors(analysis, setup, c, elements);
        if (blocks.empty()) { // flat partitions, one per state tensor
            const auto tensors
                = static_cast<std::uint64_t>(std::max(1, optimizerStateTensors(setup.optimizer)));
            for (std::uint64_t t = 0; t < tensors; ++t)
                blocks.push_back(
                    c.optimizerState / tensors + (t + 1 == tensors ? c.optimizerState % tensors : 0));
        }
        for (const std::uint64_t b : blocks)
            log.allocate(TraceKind::OptimizerState, kNoTraceRow, AffineBytes { 0, b });
    }
    addTemporaries(log, setup, c, elements);
    for (const std::uint32_t g : gradients) // zero_grad(set_to_none=True)
        log.free(g);
    gradients.clear();
}

} // namespace headroom::step

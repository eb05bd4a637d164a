#pragma once

// The reference runs (measure.py) use Debian's torch 1.13 on the CPU; Headroom models PyTorch 2.x on CUDA.
// Where the two differ in what a training step allocates, the comparison applies torch 1.13's behaviour
// to Headroom's step before simulating it, so the measured bytes are compared like with like
// (tests/reference/README.md, "Step timelines"; docs/accuracy.md).

#include "headroom/analysis/Analysis.h"
#include "headroom/estimate/Estimate.h"

namespace headroom::test {

/// The CPU RNG state torch.utils.checkpoint saves per checkpointed iteration (torch.get_rng_state(): the
/// Mersenne Twister state as a ByteTensor).
inline constexpr std::uint64_t kCpuRngStateBytes = 5056;

/// Headroom's analysis with torch 1.13's CPU step:
/// 1. dropout keeps float noise of its input's dtype (at::native::dropout on the CPU: empty_like,
///    bernoulli_, div_, saved by MulBackward0) where CUDA's native_dropout keeps a bool mask;
///    An unrecorded dropout makes the noise all the same, for as long as it runs.
/// 2. mean.dim keeps its input on 1.13 (MeanBackward1._saved_self) and only sizes on 2.x: the Mean
///    layer, and AdaptiveAvgPool{1,2,3}d to one element per channel, which run as input.mean(spatial
///    axes) (adaptive_avg_pool2d/3d; adaptive_avg_pool1d through adaptive_avg_pool2d).
/// 3. torch.utils.checkpoint (preserve_rng_state) saves the CPU RNG state, a 5,056-byte CPU tensor, per
///    checkpointed iteration until its backward; on CUDA it saves the CUDA RNG state too, but both are
///    CPU tensors: no GPU memory, so Headroom does not count them.
/// 4. log_sigmoid_forward keeps a `buffer` as large as its input on the CPU
/// (LogSigmoidBackward0._saved_buffer,
///    aten/src/ATen/native/Activation.cpp log_sigmoid_forward_cpu); CUDA's log_sigmoid_forward_cuda
///    returns an empty one.
[[nodiscard]] Analysis onTorch113Cpu(Analysis analysis);

/// 5. torch 1.13 sums a tensor's branch gradients into a new tensor (InputBuffer::accumulate).
[[nodiscard]] inline RuntimeBehaviour torch113Runtime()
{
    RuntimeBehaviour r;
    r.gradientSumsInPlace = false;
    return r;
}

/// 6. every optimizer runs its for-loop implementation (torch 1.13 has foreach=False for all of them);
/// no framework overhead: the runs measure allocations above what existed before the step.
[[nodiscard]] TrainingSetup torch113Setup(Optimizer optimizer, std::int64_t batch);

/// 7. the optimizer's `step` counters: one 4-byte float32 tensor per parameter tensor, created at the
/// first step. CPU tensors on CUDA too (torch/optim/adam.py `_init_group`), so not GPU memory: the
/// comparison subtracts them from the measured steps.
[[nodiscard]] std::uint64_t stepCounterBytes(const Analysis& analysis);

} // namespace headroom::test

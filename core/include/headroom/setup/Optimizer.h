#pragma once

#include <array>
#include <optional>
#include <span>
#include <string_view>

namespace headroom {

/// Optimizers, with the state PyTorch's torch.optim implementation keeps per parameter element.
enum class Optimizer {
    Sgd, ///< torch.optim.SGD, momentum=0: no state
    Momentum, ///< SGD(momentum>0): momentum_buffer
    Nesterov, ///< SGD(momentum>0, nesterov=True): momentum_buffer
    Adam, ///< exp_avg, exp_avg_sq
    AdamW, ///< exp_avg, exp_avg_sq
    AdamAmsgrad, ///< Adam(amsgrad=True): + max_exp_avg_sq
    RMSprop, ///< square_avg
    RMSpropMomentum, ///< square_avg, momentum_buffer
    RMSpropCentered, ///< RMSprop(centered=True, momentum>0): square_avg, momentum_buffer, grad_avg
    Adagrad, ///< sum
    Adadelta, ///< square_avg, acc_delta
    Adamax, ///< exp_avg, exp_inf
};

/// Full-size state tensors per parameter (each the parameter's size, float32 unless pure-half
/// training stores them otherwise; see docs/memory-model.md).
[[nodiscard]] int optimizerStateTensors(Optimizer o) noexcept;
/// Whether bitsandbytes ships a block-wise 8-bit version keeping the same state tensors:
/// SGD with momentum (`bnb.optim.SGD8bit`), Adam, AdamW, RMSprop and Adagrad. Not SGD without
/// momentum (nothing to quantise; bitsandbytes refuses it), Nesterov (bitsandbytes ignores
/// `nesterov`), AMSGrad, RMSprop with momentum or centered (one state only / refused), Adadelta, Adamax.
[[nodiscard]] bool hasEightBitVariant(Optimizer o) noexcept;
[[nodiscard]] std::string_view optimizerName(Optimizer o) noexcept; ///< command-line name: "adamw"
[[nodiscard]] std::string_view optimizerLabel(Optimizer o) noexcept; ///< "AdamW"
[[nodiscard]] std::optional<Optimizer> parseOptimizer(std::string_view name) noexcept;
[[nodiscard]] std::span<const Optimizer> allOptimizers() noexcept;

/// How torch.optim runs the step (the `foreach` and `fused` constructor arguments).
enum class OptimizerImplementation {
    Foreach, ///< multi-tensor kernels over lists of all parameters: PyTorch 2.x's default on CUDA
    Fused, ///< one fused kernel per parameter group (`fused=True`): no parameter-sized temporaries
    ForLoop, ///< one parameter at a time (`foreach=False`): temporaries of one tensor at a time
};
[[nodiscard]] std::string_view optimizerImplementationName(
    OptimizerImplementation i) noexcept; ///< "for-loop"
[[nodiscard]] std::string_view optimizerImplementationLabel(
    OptimizerImplementation i) noexcept; ///< "For-loop"
[[nodiscard]] std::optional<OptimizerImplementation> parseOptimizerImplementation(
    std::string_view name) noexcept;
[[nodiscard]] std::span<const OptimizerImplementation> allOptimizerImplementations() noexcept;
/// Whether PyTorch 2.x ships `fused=True` for this optimizer (torch/optim/*.py, _fused_* functions).
[[nodiscard]] bool hasFusedImplementation(Optimizer o) noexcept;

/// The temporaries step() holds at its peak, beyond parameters, gradients and state (docs/memory-model.md,
/// "The optimizer step"). foreach: `parameterLists` lists as large as every parameter the step updates.
/// for-loop: one parameter at a time, and a temporary bound to a local name lives until the next
/// parameter's replaces it, so the peak is the largest over consecutive parameter tensors of
/// previous x P(i-1) + current x P(i), over each (previous, current) pair listed. Float32.
struct StepTemporaries final
{
    int parameterLists = 0;
    struct Pair
    {
        int previous = 0;
        int current = 0;
    };
    std::array<Pair, 2> forLoop {};
};
[[nodiscard]] StepTemporaries optimizerStepTemporaries(Optimizer o, OptimizerImplementation i) noexcept;

} // namespace headroom

#pragma once

#include <optional>
#include <span>
#include <string_view>

namespace headroom {

/// Optimizers, with the state PyTorch's torch.optim implementation keeps per parameter element.
enum class Optimizer {
    Sgd,             ///< torch.optim.SGD, momentum=0: no state
    Momentum,        ///< SGD(momentum>0): momentum_buffer
    Nesterov,        ///< SGD(momentum>0, nesterov=True): momentum_buffer
    Adam,            ///< exp_avg, exp_avg_sq
    AdamW,           ///< exp_avg, exp_avg_sq
    AdamAmsgrad,     ///< Adam(amsgrad=True): + max_exp_avg_sq
    RMSprop,         ///< square_avg
    RMSpropMomentum, ///< square_avg, momentum_buffer
    RMSpropCentered, ///< RMSprop(centered=True, momentum>0): square_avg, momentum_buffer, grad_avg
    Adagrad,         ///< sum
    Adadelta,        ///< square_avg, acc_delta
    Adamax,          ///< exp_avg, exp_inf
};

/// Full-size state tensors per parameter (each the parameter's size, float32 unless pure-half
/// training stores them otherwise; see docs/memory-model.md).
[[nodiscard]] int optimizerStateTensors(Optimizer o) noexcept;
/// Whether bitsandbytes ships a block-wise 8-bit version keeping the same state tensors:
/// SGD with momentum (`bnb.optim.SGD8bit`), Adam, AdamW, RMSprop and Adagrad. Not SGD without
/// momentum (nothing to quantise; bitsandbytes refuses it), Nesterov (bitsandbytes ignores
/// `nesterov`), AMSGrad, RMSprop with momentum or centered (one state only / refused), Adadelta, Adamax.
[[nodiscard]] bool hasEightBitVariant(Optimizer o) noexcept;
[[nodiscard]] std::string_view optimizerName(Optimizer o) noexcept;  ///< command-line name: "adamw"
[[nodiscard]] std::string_view optimizerLabel(Optimizer o) noexcept; ///< "AdamW"
[[nodiscard]] std::optional<Optimizer> parseOptimizer(std::string_view name) noexcept;
[[nodiscard]] std::span<const Optimizer> allOptimizers() noexcept;

} // namespace headroom

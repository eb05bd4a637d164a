#include "headroom/setup/Optimizer.h"

#include <array>

namespace headroom {

namespace {
struct OptimizerInfo
{
    Optimizer optimizer;
    std::string_view name;
    std::string_view label;
    int stateTensors;
    bool eightBit; ///< bitsandbytes has an 8-bit version (bitsandbytes/optim/*.py)
    bool fused; ///< torch.optim has fused=True
    int foreachLists;
    StepTemporaries::Pair forLoop;
    StepTemporaries::Pair forLoopAlso;
};

// State per torch.optim's implementation (PyTorch 2.x): the full-size buffers created at the first step().
// The step's temporaries per implementation, read from torch/optim/*.py (2.1 and later) and measured with
// torch 1.13's for-loop versions (docs/memory-model.md, "The optimizer step", quotes the lines):
//   foreach Adam/AdamW/AMSGrad: exp_avg_sq_sqrt = torch._foreach_sqrt(...), one list; RMSprop: avg, one
//   list; Adagrad: std = torch._foreach_sqrt(state_sums) then _foreach_add(std, eps)... two lists;
//   Adadelta: std and deltas, two lists; Adamax: one list; SGD with momentum or Nesterov: none (Nesterov
//   adds into the gradients in place).
//   for-loop Adam: denom = (exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(eps) holds two tensors of
//   P(i) while the previous parameter's denom is alive: P(i-1) + 2 P(i); RMSprop and Adagrad
//   P(i-1) + P(i); Adadelta the larger of 2 P(i-1) + P(i) and P(i-1) + 2 P(i); Adamax and Nesterov P(i).
constexpr std::array<OptimizerInfo, 12> kOptimizers { {
    { Optimizer::Sgd, "sgd", "SGD", 0, false, true, 0, { 0, 0 }, { 0, 0 } },
    { Optimizer::Momentum, "momentum", "SGD with momentum", 1, true, true, 0, { 0, 0 }, { 0, 0 } },
    { Optimizer::Nesterov, "nesterov", "SGD with Nesterov momentum", 1, false, true, 0, { 0, 1 }, { 0, 0 } },
    { Optimizer::Adam, "adam", "Adam", 2, true, true, 1, { 1, 2 }, { 0, 0 } },
    { Optimizer::AdamW, "adamw", "AdamW", 2, true, true, 1, { 1, 2 }, { 0, 0 } },
    { Optimizer::AdamAmsgrad, "adam-amsgrad", "Adam (AMSGrad)", 3, false, true, 1, { 1, 2 }, { 0, 0 } },
    { Optimizer::RMSprop, "rmsprop", "RMSprop", 1, true, false, 1, { 1, 1 }, { 0, 0 } },
    { Optimizer::RMSpropMomentum, "rmsprop-momentum", "RMSprop with momentum", 2, false, false, 1, { 1, 1 },
        { 0, 0 } },
    { Optimizer::RMSpropCentered, "rmsprop-centered", "RMSprop (centered, momentum)", 3, false, false, 1,
        { 1, 1 }, { 0, 0 } },
    // Adagrad's fused kernel is CPU-only in the 2.x releases (torch/optim/adagrad.py, `_fused_adagrad`).
    { Optimizer::Adagrad, "adagrad", "Adagrad", 1, true, false, 2, { 1, 1 }, { 0, 0 } },
    { Optimizer::Adadelta, "adadelta", "Adadelta", 2, false, false, 2, { 2, 1 }, { 1, 2 } },
    { Optimizer::Adamax, "adamax", "Adamax", 2, false, false, 1, { 0, 1 }, { 0, 0 } },
} };

constexpr std::array<Optimizer, kOptimizers.size()> kAll = [] {
    std::array<Optimizer, kOptimizers.size()> all {};
    for (std::size_t i = 0; i < kOptimizers.size(); ++i)
        all[i] = kOptimizers[i].optimizer;
    return all;
}();

const OptimizerInfo& info(Optimizer o) noexcept
{
    for (const auto& i : kOptimizers) {
        if (i.optimizer == o)
            return i;
    }
    return kOptimizers[0];
}
} // namespace

int optimizerStateTensors(Optimizer o) noexcept
{
    return info(o).stateTensors;
}
bool hasEightBitVariant(Optimizer o) noexcept
{
    return info(o).eightBit;
}
std::string_view optimizerName(Optimizer o) noexcept
{
    return info(o).name;
}
std::string_view optimizerLabel(Optimizer o) noexcept
{
    return info(o).label;
}
std::span<const Optimizer> allOptimizers() noexcept
{
    return kAll;
}

bool hasFusedImplementation(Optimizer o) noexcept
{
    return info(o).fused;
}

StepTemporaries optimizerStepTemporaries(Optimizer o, OptimizerImplementation i) noexcept
{
    StepTemporaries t;
    switch (i) {
    case OptimizerImplementation::Foreach:
        t.parameterLists = info(o).foreachLists;
        break;
    case OptimizerImplementation::ForLoop:
        t.forLoop = { info(o).forLoop, info(o).forLoopAlso };
        break;
    case OptimizerImplementation::Fused:
        break;
    }
    return t;
}

namespace {
constexpr std::array<OptimizerImplementation, 3> kImplementations { OptimizerImplementation::Foreach,
    OptimizerImplementation::Fused, OptimizerImplementation::ForLoop };
}

std::string_view optimizerImplementationName(OptimizerImplementation i) noexcept
{
    switch (i) {
    case OptimizerImplementation::Foreach:
        return "foreach";
    case OptimizerImplementation::Fused:
        return "fused";
    case OptimizerImplementation::ForLoop:
        return "for-loop";
    }
    return "";
}

std::string_view optimizerImplementationLabel(OptimizerImplementation i) noexcept
{
    switch (i) {
    case OptimizerImplementation::Foreach:
        return "Foreach (PyTorch default)";
    case OptimizerImplementation::Fused:
        return "Fused";
    case OptimizerImplementation::ForLoop:
        return "For-loop";
    }
    return "";
}

std::optional<OptimizerImplementation> parseOptimizerImplementation(std::string_view name) noexcept
{
    for (const auto i : kImplementations) {
        if (optimizerImplementationName(i) == name)
            return i;
    }
    return std::nullopt;
}

std::span<const OptimizerImplementation> allOptimizerImplementations() noexcept
{
    return kImplementations;
}

std::optional<Optimizer> parseOptimizer(std::string_view name) noexcept
{
    for (const auto& i : kOptimizers) {
        if (i.name == name)
            return i.optimizer;
    }
    return std::nullopt;
}

} // namespace headroom

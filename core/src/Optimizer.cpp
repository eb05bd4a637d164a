#include "headroom/Optimizer.h"

#include <array>

namespace headroom {

namespace {
struct OptimizerInfo {
    Optimizer optimizer;
    std::string_view name;
    std::string_view label;
    int stateTensors;
    bool eightBit; ///< bitsandbytes has an 8-bit version (bitsandbytes/optim/*.py)
};

// State per torch.optim's implementation (PyTorch 2.x): the full-size buffers created at the first step().
constexpr std::array<OptimizerInfo, 12> kOptimizers{{
    {Optimizer::Sgd, "sgd", "SGD", 0, false},
    {Optimizer::Momentum, "momentum", "SGD with momentum", 1, true},
    {Optimizer::Nesterov, "nesterov", "SGD with Nesterov momentum", 1, false},
    {Optimizer::Adam, "adam", "Adam", 2, true},
    {Optimizer::AdamW, "adamw", "AdamW", 2, true},
    {Optimizer::AdamAmsgrad, "adam-amsgrad", "Adam (AMSGrad)", 3, false},
    {Optimizer::RMSprop, "rmsprop", "RMSprop", 1, true},
    {Optimizer::RMSpropMomentum, "rmsprop-momentum", "RMSprop with momentum", 2, false},
    {Optimizer::RMSpropCentered, "rmsprop-centered", "RMSprop (centered, momentum)", 3, false},
    {Optimizer::Adagrad, "adagrad", "Adagrad", 1, true},
    {Optimizer::Adadelta, "adadelta", "Adadelta", 2, false},
    {Optimizer::Adamax, "adamax", "Adamax", 2, false},
}};

constexpr std::array<Optimizer, kOptimizers.size()> kAll = [] {
    std::array<Optimizer, kOptimizers.size()> all{};
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

int optimizerStateTensors(Optimizer o) noexcept { return info(o).stateTensors; }
bool hasEightBitVariant(Optimizer o) noexcept { return info(o).eightBit; }
std::string_view optimizerName(Optimizer o) noexcept { return info(o).name; }
std::string_view optimizerLabel(Optimizer o) noexcept { return info(o).label; }
std::span<const Optimizer> allOptimizers() noexcept { return kAll; }

std::optional<Optimizer> parseOptimizer(std::string_view name) noexcept
{
    for (const auto& i : kOptimizers) {
        if (i.name == name)
            return i.optimizer;
    }
    return std::nullopt;
}

} // namespace headroom

#include "headroom/model/Network.h"

#include <array>

namespace headroom {

std::string_view lossName(Loss loss) noexcept
{
    switch (loss) {
    case Loss::CrossEntropy:
        return "cross_entropy";
    case Loss::Mse:
        return "mse";
    case Loss::L1:
        return "l1";
    case Loss::Bce:
        return "bce";
    case Loss::None:
        return "none";
    }
    return "none";
}

std::span<const Loss> allLosses() noexcept
{
    static constexpr std::array kLosses { Loss::CrossEntropy, Loss::Mse, Loss::L1, Loss::Bce, Loss::None };
    return kLosses;
}

std::optional<Loss> parseLoss(std::string_view name) noexcept
{
    for (const Loss l : allLosses()) {
        if (lossName(l) == name)
            return l;
    }
    return std::nullopt;
}

} // namespace headroom

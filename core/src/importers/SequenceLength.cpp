#include "headroom/importers/HfConfig.h"

#include <string>

namespace headroom {

Result<Network> withSequenceLength(const Network& network, std::int64_t length)
{
    constexpr std::int64_t kMaxSequence = std::int64_t { 1 } << 31;
    const auto& dims = network.input.shape.dims;
    const bool tokens = dims.size() == 1 && !isFloatingPoint(network.input.dtype);
    const bool features = dims.size() == 2 && isFloatingPoint(network.input.dtype);
    if (!tokens && !features)
        return Error {
            "sequence length: the model's input is not a sequence (token ids [T] or features [T, E])",
            "input.shape"
        };
    if (length < 1 || length > kMaxSequence)
        return Error { "sequence length must be from 1 to " + std::to_string(kMaxSequence) + ", not "
                + std::to_string(length),
            "sequence_length" };
    Network out = network;
    out.input.shape.dims[0] = length;
    return out;
}

} // namespace headroom

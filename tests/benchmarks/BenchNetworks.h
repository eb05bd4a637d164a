#pragma once

// The benchmarks' networks (bench_estimate, bench_reserved).

#include "../core/NetworkBuilder.h"
#include "headroom/model/Network.h"

#include <string>

namespace headroom::bench {

/// 10,000 layers: 2,000 residual blocks of conv-BN-ReLU-conv-add on 64x32x32 maps, unrolled
/// (no Repeat) so the analysis walks every spec.
inline Network tenThousandLayers()
{
    Network n;
    n.name = "bench";
    n.input = InputSpec { Shape { { 64, 32, 32 } }, DType::Float32, std::nullopt };
    const nlohmann::json conv
        = { { "out_channels", 64 }, { "kernel_size", 3 }, { "padding", 1 }, { "bias", false } };
    std::string previous = "input";
    for (int b = 0; b < 2000; ++b) {
        const std::string p = "b" + std::to_string(b) + ".";
        n.layers.push_back(test::layer("Conv2d", conv, p + "conv1"));
        n.layers.push_back(test::layer("BatchNorm2d", {}, p + "bn"));
        n.layers.push_back(test::layer("ReLU", { { "inplace", true } }, p + "relu"));
        n.layers.push_back(test::layer("Conv2d", conv, p + "conv2"));
        n.layers.push_back(test::layer("Add", {}, p + "add", { p + "conv2", previous }));
        previous = p + "add";
    }
    return n;
}

} // namespace headroom::bench

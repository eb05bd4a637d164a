#pragma once

// The amplification files of issue 26, item 2, written by the tests that need them (no big files in
// the repository).

#include <cstdint>
#include <string>

namespace headroom::test {

/// The amplification files of issue 26, item 2: `levels` Repeat blocks of `times` iterations, each
/// around the next, the innermost around Linear(16) and ReLU, as model-file text (about 60 bytes a
/// level: 15 levels of 2 are 1 KB and expand to 65,536 layers).
inline std::string nestedRepeatFile(int levels, std::int64_t times)
{
    std::string layers = R"([{"type":"Linear","out_features":16},{"type":"ReLU"}])";
    for (int level = 0; level < levels; ++level)
        layers = R"([{"type":"Repeat","name":"r)" + std::to_string(level) + R"(","times":)"
            + std::to_string(times) + R"(,"layers":)" + layers + "}]";
    return R"({"format":"headroom-model","version":1,"name":"nested","input":{"shape":[16],"dtype":"float32"},)"
           R"("loss":"none","layers":)"
        + layers + "}";
}

} // namespace headroom::test

#pragma once

// What every importer harness checks of its result: an error names the file; a network analyses and
// survives a model-file round trip unchanged.

#include "headroom/analysis/Analysis.h"
#include "headroom/model/ModelFile.h"

#include <cstdlib>
#include <string>

namespace headroom::fuzz {

inline void checkImport(const Result<Network>& network, const std::string& file)
{
    if (!network.ok()) {
        if (network.error().message.rfind(file + ": ", 0) != 0)
            std::abort(); // every error names the file
        return;
    }
    for (const auto precision : { Precision::Fp32, Precision::AmpBf16 })
        (void)analyze(network.value(), precision);
    const auto reparsed = parseModel(serializeModel(network.value()));
    if (!reparsed.ok() || !(reparsed.value() == network.value()))
        std::abort(); // an imported network must be savable as a model file
}

} // namespace headroom::fuzz

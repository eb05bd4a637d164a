#pragma once

// The GPU catalogue the application ships (resources/gpus.json), for tests that need real GPUs.

#include "headroom/setup/GpuCatalog.h"

#include <QtGlobal>
#include <string>

namespace headroom::test {

inline const GpuCatalog& catalogue()
{
    static const GpuCatalog c = [] {
        auto loaded = GpuCatalog::fromFile(HEADROOM_TEST_SOURCE_DIR "/resources/gpus.json");
        if (!loaded)
            qFatal("resources/gpus.json: %s", loaded.error().message.c_str());
        return loaded.value();
    }();
    return c;
}

/// A catalogue GPU by any name GpuCatalog::find() takes ("GTX 1080"); a fatal error if it is missing.
inline Gpu catalogueGpu(const std::string& name)
{
    auto found = catalogue().find(name);
    if (!found)
        qFatal("GPU %s missing from resources/gpus.json: %s", name.c_str(), found.error().message.c_str());
    return found.value();
}

} // namespace headroom::test

#pragma once

#include <optional>
#include <string>
#include <vector>

namespace headroom {

/// Finds Headroom's data folder (gpus.json, presets/): $HEADROOM_RESOURCES, then
/// <executable dir>/../share/headroom (an installed or relocated tree), then the source tree the
/// build came from.
[[nodiscard]] std::optional<std::string> findResourceDir(const std::string& executablePath);

/// A preset model shipped in resources/presets.
struct PresetInfo final
{
    std::string id; ///< file stem: "vgg16"
    std::string path; ///< full path of the .json
};
[[nodiscard]] std::vector<PresetInfo> listPresets(const std::string& resourceDir);

} // namespace headroom

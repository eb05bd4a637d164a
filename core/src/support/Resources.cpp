#include "headroom/support/Resources.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>

namespace headroom {

namespace fs = std::filesystem;

namespace {
bool looksLikeResourceDir(const fs::path& dir)
{
    std::error_code ec;
    return fs::is_regular_file(dir / "gpus.json", ec);
}
} // namespace

std::optional<std::string> findResourceDir(const std::string& executablePath)
{
    if (const char* env = std::getenv("HEADROOM_RESOURCES"); env != nullptr && *env != '\0') {
        if (looksLikeResourceDir(env))
            return std::string(env);
    }
    std::error_code ec;
    fs::path exe = fs::weakly_canonical(fs::path(executablePath), ec);
    // A bare program name (found through PATH) says nothing about where it lives.
    if (ec || executablePath.find('/') == std::string::npos) {
        exe = fs::read_symlink("/proc/self/exe", ec);
        if (ec)
            exe = fs::path(executablePath);
    }
    const fs::path installed = exe.parent_path().parent_path() / HEADROOM_INSTALL_DATA_SUBDIR;
    if (looksLikeResourceDir(installed))
        return installed.string();
    if (looksLikeResourceDir(HEADROOM_SOURCE_RESOURCES_DIR))
        return std::string(HEADROOM_SOURCE_RESOURCES_DIR);
    return std::nullopt;
}

std::vector<PresetInfo> listPresets(const std::string& resourceDir)
{
    std::vector<PresetInfo> presets;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(fs::path(resourceDir) / "presets", ec)) {
        if (entry.path().extension() == ".json")
            presets.push_back(PresetInfo { entry.path().stem().string(), entry.path().string() });
    }
    std::sort(presets.begin(), presets.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
    return presets;
}

} // namespace headroom

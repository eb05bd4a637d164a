#pragma once

#include "headroom/layers/LayerKind.h"

#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace headroom {

/// All layer kinds Headroom knows, by type name. Immutable after construction.
class LayerRegistry final
{
public:
    /// The registry of built-in kinds.
    [[nodiscard]] static const LayerRegistry& builtin();

    [[nodiscard]] const LayerKind* find(std::string_view type) const noexcept;
    [[nodiscard]] std::vector<const LayerKind*> kinds() const;
    /// "AdaptiveAvgPool2d, Add, AvgPool2d, ..." for "unknown layer type" errors.
    [[nodiscard]] std::string knownTypesList() const;
    /// The `n` known types (Repeat included) closest to `type` by edit distance, ignoring case, closest
    /// first ("Conv1d, Conv2d, Conv3d" for "Conv4d"), for "unknown layer type" errors: the full list is
    /// over 150 names. Only the first 64 characters of `type` are compared.
    [[nodiscard]] std::string closestTypes(std::string_view type, std::size_t n = 3) const;

    explicit LayerRegistry(std::vector<std::unique_ptr<LayerKind>> kinds);

private:
    std::vector<std::unique_ptr<LayerKind>> m_kinds; // sorted by type name
    std::unordered_map<std::string_view, const LayerKind*> m_byType; // find() runs once per layer
};

} // namespace headroom

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

    explicit LayerRegistry(std::vector<std::unique_ptr<LayerKind>> kinds);

private:
    std::vector<std::unique_ptr<LayerKind>> m_kinds; // sorted by type name
    std::unordered_map<std::string_view, const LayerKind*> m_byType; // find() runs once per layer
};

} // namespace headroom

#pragma once

#include "headroom/model/AttributeSpec.h"
#include "headroom/support/Error.h"

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace headroom {

/// A layer's attribute values after validation against its kind's AttributeSpecs: every declared
/// attribute is present (defaults filled in), every value has the declared type and range.
class Attributes final
{
public:
    /// Validates `given` (the layer's JSON object minus the structural keys) against `specs`.
    /// `path` names the layer in errors, e.g. "layers[3]".
    [[nodiscard]] static Result<Attributes> validate(
        std::span<const AttributeSpec> specs, const nlohmann::json& given, const std::string& path);

    [[nodiscard]] bool has(const std::string& name) const; ///< false for an optional attribute left out
    [[nodiscard]] std::int64_t integer(const std::string& name) const;
    [[nodiscard]] std::optional<std::int64_t> optionalInteger(const std::string& name) const;
    [[nodiscard]] double real(const std::string& name) const;
    [[nodiscard]] bool flag(const std::string& name) const;
    [[nodiscard]] std::string choice(const std::string& name) const;
    /// An IntTuple expanded to its arity, or an IntList as a list.
    [[nodiscard]] std::vector<std::int64_t> integers(const std::string& name) const;
    /// For an IntTuple that also accepts strings ("same", "valid"): the string, if one was given.
    [[nodiscard]] std::optional<std::string> text(const std::string& name) const;
    [[nodiscard]] const nlohmann::json& values() const noexcept { return m_values; }

private:
    nlohmann::json m_values = nlohmann::json::object();
};

} // namespace headroom

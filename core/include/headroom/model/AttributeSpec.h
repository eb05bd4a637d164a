#pragma once

#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace headroom {

/// The kinds of value a layer attribute takes, as PyTorch's constructors take them.
enum class AttributeType {
    Int, ///< an integer
    IntTuple, ///< an integer or a list of `arity` integers (kernel_size=3 or [3, 5]); may also allow
              ///< `choices` strings
    IntList, ///< an integer or a list of any positive length (LayerNorm's normalized_shape)
    Float, ///< a number
    Bool, ///< true or false
    Choice, ///< one of `choices`
    Text, ///< a line of text, 1 to kMaxAttributeTextLength characters (GenericOp's operator name)
};

constexpr std::size_t kMaxAttributeTextLength = 200;

/// Declares one attribute of a layer kind: its type, default, valid range and help text.
/// Model-file validation and the GUI's property editor both read these, so they cannot disagree.
struct AttributeSpec final
{
    std::string name;
    AttributeType type = AttributeType::Int;
    /// The default, as JSON. null means "no default": required unless `optional`.
    nlohmann::json defaultValue;
    /// May be left out (or null) with no default: inferred sizes such as in_channels.
    bool optional = false;
    /// What an optional attribute means when left out, in a few words for the editor's toggle:
    /// "from the input", "none", "kernel_size".
    std::string whenOmitted;
    int arity = 1; ///< IntTuple only
    std::int64_t minInt = 0;
    std::int64_t maxInt = std::numeric_limits<std::int32_t>::max();
    double minFloat = -std::numeric_limits<double>::infinity();
    double maxFloat = std::numeric_limits<double>::infinity();
    bool minFloatExclusive = false;
    std::vector<std::string> choices;
    std::string help;

    [[nodiscard]] bool required() const noexcept { return defaultValue.is_null() && !optional; }
};

} // namespace headroom

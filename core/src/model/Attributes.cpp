#include "headroom/model/Attributes.h"

#include "support/JsonText.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace headroom {

namespace {

using nlohmann::json;

std::string describeIntRange(const AttributeSpec& spec)
{
    if (spec.minInt == 1 && spec.maxInt >= std::numeric_limits<std::int32_t>::max())
        return "a positive integer";
    if (spec.minInt == 0 && spec.maxInt >= std::numeric_limits<std::int32_t>::max())
        return "a non-negative integer";
    if (spec.maxInt >= std::numeric_limits<std::int32_t>::max())
        return "an integer >= " + std::to_string(spec.minInt);
    return "an integer from " + std::to_string(spec.minInt) + " to " + std::to_string(spec.maxInt);
}

std::string quotedList(const std::vector<std::string>& items)
{
    std::string s;
    for (std::size_t i = 0; i < items.size(); ++i) {
        if (i > 0)
            s += i + 1 == items.size() ? " or " : ", ";
        s += '"' + items[i] + '"';
    }
    return s;
}

bool isInteger(const json& v)
{
    return v.is_number_integer() || v.is_number_unsigned();
}

bool intInRange(const json& v, const AttributeSpec& spec)
{
    if (v.is_number_unsigned() && v.get<std::uint64_t>() > static_cast<std::uint64_t>(spec.maxInt))
        return false;
    const auto n = v.get<std::int64_t>();
    return n >= spec.minInt && n <= spec.maxInt;
}

Error attributeError(const std::string& where, const std::string& what)
{
    return Error { where + " " + what, where };
}

Result<json> checkFloat(const AttributeSpec& spec, const json& v, const std::string& where)
{
    if (!v.is_number())
        return attributeError(where, "must be a number");
    const double d = v.get<double>();
    const bool belowMin = spec.minFloatExclusive ? d <= spec.minFloat : d < spec.minFloat;
    if (!std::isfinite(d) || belowMin || d > spec.maxFloat) {
        std::ostringstream range;
        range << "must be a number " << (spec.minFloatExclusive ? "> " : ">= ") << spec.minFloat;
        if (std::isfinite(spec.maxFloat))
            range << " and <= " << spec.maxFloat;
        return attributeError(where, range.str());
    }
    return json(d);
}

Result<json> checkText(const json& v, const std::string& where)
{
    const std::string text = v.is_string() ? v.get<std::string>() : std::string();
    const bool ok = !text.empty() && text.size() <= kMaxAttributeTextLength
        && std::none_of(text.begin(), text.end(),
            [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7F; });
    if (!ok)
        return attributeError(where,
            "must be a line of text of 1 to " + std::to_string(kMaxAttributeTextLength) + " characters");
    return v;
}

/// An integer tuple (one integer for all, or `arity` of them) or list, or one of the spec's words.
Result<json> checkIntegers(const AttributeSpec& spec, const json& v, const std::string& where)
{
    const bool tuple = spec.type == AttributeType::IntTuple;
    const auto invalid = [&] {
        const std::string expected = tuple && spec.arity > 1
            ? describeIntRange(spec) + " or a list of " + std::to_string(spec.arity) + " such integers"
            : describeIntRange(spec) + " or a list of them";
        return attributeError(where,
            "must be " + (spec.choices.empty() ? expected : expected + ", or " + quotedList(spec.choices)));
    };
    if (v.is_string()) {
        if (std::find(spec.choices.begin(), spec.choices.end(), v.get<std::string>()) == spec.choices.end())
            return invalid();
        return v;
    }
    if (isInteger(v)) {
        if (!intInRange(v, spec))
            return invalid();
        if (!tuple)
            return json::array({ v.get<std::int64_t>() });
        return json(std::vector<std::int64_t>(static_cast<std::size_t>(spec.arity), v.get<std::int64_t>()));
    }
    if (!v.is_array() || v.empty() || (tuple && v.size() != static_cast<std::size_t>(spec.arity))
        || !std::all_of(
            v.begin(), v.end(), [&](const json& e) { return isInteger(e) && intInRange(e, spec); }))
        return invalid();
    std::vector<std::int64_t> values;
    for (const auto& e : v)
        values.push_back(e.get<std::int64_t>());
    return json(values);
}

/// Checks one given value; returns the normalised value or an error.
Result<json> checkValue(const AttributeSpec& spec, const json& v, const std::string& where)
{
    switch (spec.type) {
    case AttributeType::Int:
        if (isInteger(v) && !intInRange(v, spec)
            && !(v.is_number_integer() && v.get<std::int64_t>() < spec.minInt))
            return attributeError(where, "must be at most " + std::to_string(spec.maxInt));
        if (!isInteger(v) || !intInRange(v, spec))
            return attributeError(where, "must be " + describeIntRange(spec));
        return json(v.get<std::int64_t>());
    case AttributeType::Float:
        return checkFloat(spec, v, where);
    case AttributeType::Bool:
        if (!v.is_boolean())
            return attributeError(where, "must be true or false");
        return v;
    case AttributeType::Choice:
        if (!v.is_string()
            || std::find(spec.choices.begin(), spec.choices.end(), v.get<std::string>())
                == spec.choices.end())
            return attributeError(where, "must be one of " + quotedList(spec.choices));
        return v;
    case AttributeType::Text:
        return checkText(v, where);
    case AttributeType::IntTuple:
    case AttributeType::IntList:
        return checkIntegers(spec, v, where);
    }
    return attributeError(where, "has an unsupported type");
}

} // namespace

Result<Attributes> Attributes::validate(
    std::span<const AttributeSpec> specs, const json& given, const std::string& path)
{
    Attributes attrs;
    if (!given.is_object() && !given.is_null())
        return Error { path + " must be an object", path };

    for (const auto& entry : given.items()) {
        // A reference, not a structured binding: clang before 16 cannot capture bindings in a lambda.
        const std::string& key = entry.key();
        const bool known
            = std::any_of(specs.begin(), specs.end(), [&](const AttributeSpec& s) { return s.name == key; });
        if (!known) {
            std::vector<std::string> names;
            for (const auto& s : specs)
                names.push_back(s.name);
            const std::string where = path + "." + detail::shortKey(key);
            return Error { where + " is not an attribute of this layer type; known attributes: "
                    + (names.empty() ? std::string("none") : quotedList(names)),
                where };
        }
    }
    for (const auto& spec : specs) {
        const auto it = given.is_object() ? given.find(spec.name) : given.end();
        if (it == given.end() || it->is_null()) {
            if (spec.required())
                return Error { path + "." + spec.name + " is required", path + "." + spec.name };
            if (!spec.defaultValue.is_null()) {
                auto normalised = checkValue(spec, spec.defaultValue, path + "." + spec.name);
                if (!normalised)
                    return normalised.error();
                attrs.m_values[spec.name] = std::move(normalised).value();
            }
            continue;
        }
        auto normalised = checkValue(spec, *it, path + "." + spec.name);
        if (!normalised)
            return normalised.error();
        attrs.m_values[spec.name] = std::move(normalised).value();
    }
    return attrs;
}

bool Attributes::has(const std::string& name) const
{
    return m_values.contains(name);
}
std::int64_t Attributes::integer(const std::string& name) const
{
    return m_values.at(name).get<std::int64_t>();
}
std::optional<std::int64_t> Attributes::optionalInteger(const std::string& name) const
{
    if (!has(name))
        return std::nullopt;
    return integer(name);
}
double Attributes::real(const std::string& name) const
{
    return m_values.at(name).get<double>();
}
bool Attributes::flag(const std::string& name) const
{
    return m_values.at(name).get<bool>();
}
std::string Attributes::choice(const std::string& name) const
{
    return m_values.at(name).get<std::string>();
}

std::vector<std::int64_t> Attributes::integers(const std::string& name) const
{
    const auto& v = m_values.at(name);
    if (v.is_string())
        return {};
    return v.get<std::vector<std::int64_t>>();
}

std::optional<std::string> Attributes::text(const std::string& name) const
{
    if (!has(name) || !m_values.at(name).is_string())
        return std::nullopt;
    return m_values.at(name).get<std::string>();
}

} // namespace headroom

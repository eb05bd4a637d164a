#include "HfReader.h"

#include "support/JsonText.h"

#include <cmath>
#include <set>
#include <sstream>

namespace headroom::hf {

using nlohmann::json;

namespace {

std::string formatNumber(double v)
{
    std::ostringstream s;
    s << v;
    return s.str();
}

} // namespace

ConfigReader::ConfigReader(const json& config, std::string file)
    : m_config { config }
    , m_file { std::move(file) }
{
}

ConfigReader ConfigReader::nested(const json& object, const std::string& key)
{
    ConfigReader inner { object, m_file };
    inner.m_prefix = m_prefix + key + ".";
    inner.m_parent = this;
    return inner;
}

Size ConfigReader::size(std::initializer_list<const char*> keys, std::optional<std::int64_t> fallback,
    std::int64_t max, bool nullIsDefault)
{
    const auto [raw, value] = find(keys);
    const std::string key = named(raw);
    Size out { fallback.value_or(1), key, false };
    if (value == nullptr || (value->is_null() && fallback && nullIsDefault)) {
        if (!fallback)
            fail(spelled(keys) + " is missing", key);
        return out;
    }
    const std::string rule = key + " must be a whole number from 1 to " + std::to_string(max) + ", not ";
    if (value->is_number_float()) {
        // Python writes 4096.0 for a float; transformers would fail on it as a size too.
        const double real = value->get<double>();
        const bool whole = real >= 1 && real <= static_cast<double>(max) && real == std::floor(real);
        fail(rule + detail::shortJson(*value)
                + (whole ? " (a float: write " + std::to_string(static_cast<std::int64_t>(real)) + ")" : ""),
            key);
        return out;
    }
    if (!value->is_number_integer()) {
        fail(rule + detail::shortJson(*value), key);
        return out;
    }
    const bool tooBig = value->is_number_unsigned()
        ? value->get<std::uint64_t>() > static_cast<std::uint64_t>(max)
        : value->get<std::int64_t>() > max;
    if (tooBig || value->get<std::int64_t>() < 1) {
        fail(rule + detail::shortJson(*value), key);
        return out;
    }
    out.value = value->get<std::int64_t>();
    out.given = true;
    return out;
}

double ConfigReader::number(const char* key, double fallback, double max, bool nullIsDefault)
{
    const json* value = find({ key }).second;
    if (value == nullptr || (value->is_null() && nullIsDefault))
        return fallback;
    if (!value->is_number() || value->get<double>() < 0.0 || value->get<double>() > max) {
        fail(named(key) + " must be a number from 0 to " + formatNumber(max) + ", not "
                + detail::shortJson(*value),
            named(key));
        return fallback;
    }
    return value->get<double>();
}

bool ConfigReader::flag(const char* key, bool fallback)
{
    const json* value = find({ key }).second;
    if (value == nullptr)
        return fallback;
    if (!value->is_boolean()) {
        fail(named(key) + " must be true or false, not " + detail::shortJson(*value), named(key));
        return fallback;
    }
    return value->get<bool>();
}

std::string ConfigReader::text(const char* key, const std::string& fallback, bool nullIsDefault)
{
    const json* value = find({ key }).second;
    if (value == nullptr || (value->is_null() && nullIsDefault))
        return fallback;
    if (!value->is_string()) {
        fail(named(key) + " must be a string such as \"" + fallback + "\", not " + detail::shortJson(*value),
            named(key));
        return fallback;
    }
    return value->get<std::string>();
}

std::vector<std::int64_t> ConfigReader::indices(const char* key, std::int64_t limit)
{
    std::vector<std::int64_t> out;
    const json* value = find({ key }).second;
    if (value == nullptr || value->is_null())
        return out;
    const std::string rule
        = named(key) + " must be a list of layer indices from 0 to " + std::to_string(limit - 1);
    if (!value->is_array()) {
        fail(rule + ", not " + detail::shortJson(*value), named(key));
        return out;
    }
    std::set<std::int64_t> seen;
    for (const auto& item : *value) {
        if (!item.is_number_integer() || item.get<std::int64_t>() < 0 || item.get<std::int64_t>() >= limit) {
            fail(rule + "; " + detail::shortJson(item) + " is not one", named(key));
            return {};
        }
        if (seen.insert(item.get<std::int64_t>()).second)
            out.push_back(item.get<std::int64_t>());
    }
    return out;
}

std::int64_t ConfigReader::count(const char* key, std::int64_t fallback, std::int64_t max)
{
    const json* value = find({ key }).second;
    if (value == nullptr)
        return fallback;
    const bool whole = value->is_number_integer() && !value->is_boolean();
    const bool inRange = whole
        && (value->is_number_unsigned()
                ? value->get<std::uint64_t>() <= static_cast<std::uint64_t>(max)
                : value->get<std::int64_t>() >= 0 && value->get<std::int64_t>() <= max);
    if (!inRange) {
        fail(named(key) + " must be a whole number from 0 to " + std::to_string(max) + ", not "
                + detail::shortJson(*value),
            named(key));
        return fallback;
    }
    return value->get<std::int64_t>();
}

bool ConfigReader::present(const char* key) const
{
    return m_config.contains(key);
}

bool ConfigReader::has(const char* key) const
{
    const json* value = find({ key }).second;
    return value != nullptr && !value->is_null();
}

void ConfigReader::fail(const std::string& message, const std::string& location)
{
    if (m_parent != nullptr) {
        m_parent->fail(message, location);
        return;
    }
    if (!m_error)
        m_error = Error { m_file + ": " + message, location };
}

/// The first of `keys` with a value, else the first given as null, else none (named by the first).
std::pair<std::string, const json*> ConfigReader::find(std::initializer_list<const char*> keys) const
{
    std::pair<std::string, const json*> null { *keys.begin(), nullptr };
    for (const char* k : keys) {
        const auto it = m_config.find(k);
        if (it == m_config.end())
            continue;
        if (!it->is_null())
            return { k, &*it };
        if (null.second == nullptr)
            null = { k, &*it };
    }
    return null;
}

/// "n_embd (or hidden_size)"
std::string ConfigReader::spelled(std::initializer_list<const char*> keys) const
{
    std::string s = named(*keys.begin());
    for (auto it = keys.begin() + 1; it != keys.end(); ++it)
        s += std::string(it == keys.begin() + 1 ? " (or " : ", ") + named(*it);
    return keys.size() > 1 ? s + ")" : s;
}

} // namespace headroom::hf

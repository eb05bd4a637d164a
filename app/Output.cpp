#include "Output.h"

#include "headroom/support/Format.h"

#include <iomanip>
#include <ostream>
#include <sstream>

namespace headroom::cli {

namespace {

constexpr int kKeyWidth = 17;

void escapeInvalidStrings(nlohmann::ordered_json& j)
{
    if (j.is_string()) {
        auto& text = j.get_ref<std::string&>();
        text = escapeInvalidUtf8(text);
    } else if (j.is_structured()) {
        for (auto& element : j)
            escapeInvalidStrings(element);
    }
}

} // namespace

std::string shortNumber(double value)
{
    std::ostringstream text;
    text << value;
    return text.str();
}

std::string percent(std::uint64_t part, std::uint64_t whole)
{
    std::ostringstream s;
    s << std::fixed << std::setprecision(1)
      << (whole == 0 ? 0.0 : 100.0 * static_cast<double>(part) / static_cast<double>(whole)) << " %";
    return s.str();
}

std::string plural(std::int64_t n, const char* one, const char* many)
{
    const std::string number = n >= 0 ? formatCount(static_cast<std::uint64_t>(n)) : std::to_string(n);
    return number + ' ' + (n == 1 ? one : many);
}

void keyLine(std::ostream& out, const std::string& key, const std::string& value)
{
    out << std::left << std::setw(kKeyWidth) << key << value << '\n';
}

void writeJson(std::ostream& out, nlohmann::ordered_json j, int indent)
{
    escapeInvalidStrings(j);
    out << j.dump(indent) << '\n';
}

Result<ThroughputEstimate> throughputOf(const PlanResult& result)
{
    if (result.throughput)
        return *result.throughput;
    return result.throughputError.value_or(Error { "no throughput estimate", "throughput" });
}

} // namespace headroom::cli

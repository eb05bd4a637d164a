// Stage: display (after the analysis). One way to number and name a layer in every view: its
// position in the model file's layer tree counted from 1 ("17.3"), then its name, or its type when
// its name is automatic.
#include "headroom/analysis/Analysis.h"

#include <cctype>
#include <charconv>
#include <cstdint>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

namespace headroom {

namespace {

/// The indices of a spec path "layers[16].layers[2]" ({16, 2}), or none when it is not one.
bool layerIndices(std::string_view path, std::vector<std::uint64_t>& out)
{
    out.clear();
    constexpr std::string_view kList = "layers[";
    while (true) {
        if (path.substr(0, kList.size()) != kList)
            return false;
        path.remove_prefix(kList.size());
        std::uint64_t index = 0;
        const auto [end, ec] = std::from_chars(path.data(), path.data() + path.size(), index);
        if (ec != std::errc {} || end == path.data() || end == path.data() + path.size() || *end != ']')
            return false;
        out.push_back(index);
        path.remove_prefix(static_cast<std::size_t>(end - path.data()) + 1);
        if (path.empty())
            return true;
        if (path.front() != '.')
            return false;
        path.remove_prefix(1);
    }
}

} // namespace

std::string layerNumber(std::string_view specPath)
{
    std::vector<std::uint64_t> indices;
    if (!layerIndices(specPath, indices))
        return {};
    std::string number;
    for (const std::uint64_t i : indices)
        number += (number.empty() ? "" : ".") + std::to_string(i + 1);
    return number;
}

std::string layerReference(const LayerRow& row, const std::string& name)
{
    const std::string number = layerNumber(row.specPath);
    if (number.empty())
        return name;
    return number + " (" + (row.automaticName ? row.type : name) + ")";
}

std::string withLayerNumbers(const std::string& message)
{
    // A spec path, then either the type and name the analysis writes after it ("layers[6] (Linear
    // \"fc\")") or what in the layer it names (".tied_to", ".inputs[1]", ".kernel_size[0]").
    static const std::regex path {
        R"re((layers\[\d+\](?:\.layers\[\d+\])*)(?: \(([^)"\s]+)(?: "([^"]*)")?\)|((?:\.[A-Za-z_]\w*(?:\[\d+\])?)*)))re"
    };
    std::string out;
    std::size_t last = 0;
    for (auto it = std::sregex_iterator(message.begin(), message.end(), path); it != std::sregex_iterator();
         ++it) {
        const std::smatch& m = *it;
        const auto start = static_cast<std::size_t>(m.position(0));
        const char before = start > 0 ? message[start - 1] : ' ';
        // Inside a longer word, or already named by number ("layer 7 (fc, layers[6])"): as it is.
        if (std::isalnum(static_cast<unsigned char>(before)) || before == '_' || before == '.'
            || before == '(' || (start >= 2 && message.compare(start - 2, 2, ", ") == 0))
            continue;
        out.append(message, last, start - last);
        const std::string number = layerNumber(m.str(1));
        if (m[2].matched)
            out += "layer " + number + " (" + (m.length(3) > 0 ? m.str(3) : m.str(2)) + ", " + m.str(1) + ")";
        else
            out += "layer " + number + " (" + m.str(1) + m.str(4) + ")";
        last = start + static_cast<std::size_t>(m.length(0));
    }
    out.append(message, last, std::string::npos);
    return out;
}

} // namespace headroom

// Stage: display (after the analysis). One way to number and name a layer in every view: its
// position in the model file's layer tree counted from 1 ("17.3"), then its name, or its type when
// its name is automatic.
#include "headroom/analysis/Analysis.h"

#include <cctype>
#include <charconv>
#include <cstdint>
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
    // \"fc\")") or what in the layer it names (".tied_to", ".inputs[1]", ".kernel_size[0]"). Scanned
    // by hand: a message may quote a long name, which std::regex would match recursively.
    const std::size_t size = message.size();
    const auto isWord = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
    const auto digits = [&](std::size_t at) { // the end of the digits from `at`, or `at`
        while (at < size && std::isdigit(static_cast<unsigned char>(message[at])))
            ++at;
        return at;
    };
    const auto indexAt = [&](std::size_t at) -> std::size_t { // "[12]" from `at`: its end, or npos
        if (at >= size || message[at] != '[')
            return std::string::npos;
        const std::size_t end = digits(at + 1);
        return end > at + 1 && end < size && message[end] == ']' ? end + 1 : std::string::npos;
    };
    constexpr std::string_view kList = "layers";
    const auto listAt = [&](std::size_t at) { // "layers[12]" from `at`: its end, or npos
        return message.compare(at, kList.size(), kList) == 0 ? indexAt(at + kList.size()) : std::string::npos;
    };
    std::string out;
    std::size_t last = 0;
    for (std::size_t start = message.find(kList); start != std::string::npos;
         start = message.find(kList, start + 1)) {
        const char before = start > 0 ? message[start - 1] : ' ';
        // Inside a longer word or path, or already named by number ("layer 7 (fc, layers[6])"): as it is.
        if (start < last || isWord(before) || before == '.' || before == '('
            || (start >= 2 && message.compare(start - 2, 2, ", ") == 0))
            continue;
        std::size_t end = listAt(start);
        if (end == std::string::npos)
            continue;
        while (end < size && message[end] == '.' && listAt(end + 1) != std::string::npos)
            end = listAt(end + 1);
        const std::string path = message.substr(start, end - start);
        std::string label; // "fc, " or "Linear, " before the path, or what follows the path
        std::size_t next = end;
        if (message.compare(end, 2, " (") == 0) { // " (Type)" or " (Type \"name\")"
            std::size_t t = end + 2;
            while (t < size && message[t] != ')' && message[t] != '"'
                && !std::isspace(static_cast<unsigned char>(message[t])))
                ++t;
            if (t > end + 2 && t < size && message[t] == ')') {
                label = message.substr(end + 2, t - end - 2) + ", ";
                next = t + 1;
            } else if (t > end + 2 && message.compare(t, 2, " \"") == 0) {
                const std::size_t close = message.find('"', t + 2);
                if (close != std::string::npos && close + 1 < size && message[close + 1] == ')') {
                    label = close > t + 2 ? message.substr(t + 2, close - t - 2) + ", "
                                          : message.substr(end + 2, t - end - 2) + ", ";
                    next = close + 2;
                }
            }
        }
        std::string suffix;
        if (label.empty()) { // ".tied_to", ".inputs[1]", ".kernel_size[0]"
            while (next + 1 < size && message[next] == '.'
                && (std::isalpha(static_cast<unsigned char>(message[next + 1]))
                    || message[next + 1] == '_')) {
                std::size_t k = next + 2;
                while (k < size && isWord(message[k]))
                    ++k;
                if (const std::size_t index = indexAt(k); index != std::string::npos)
                    k = index;
                next = k;
            }
            suffix = message.substr(end, next - end);
        }
        out.append(message, last, start - last);
        out += "layer " + layerNumber(path) + " (" + label + path + suffix + ")";
        last = next;
    }
    out.append(message, last, std::string::npos);
    return out;
}

} // namespace headroom

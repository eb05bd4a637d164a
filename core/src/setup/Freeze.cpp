#include "headroom/setup/Freeze.h"

#include "headroom/support/Format.h"

#include <algorithm>
#include <cctype>
#include <functional>

namespace headroom {

namespace {

/// Every named entry with its address: "features", "model.layers", "model.layers.self_attn.q_proj".
std::vector<std::pair<std::string, LayerSpec*>> addressedLayers(std::vector<LayerSpec>& layers)
{
    std::vector<std::pair<std::string, LayerSpec*>> found;
    const std::function<void(std::vector<LayerSpec>&, const std::string&)> walk
        = [&](auto& list, const auto& prefix) {
              for (auto& layer : list) {
                  const std::string path = layer.name.empty() ? std::string() : prefix + layer.name;
                  if (!path.empty())
                      found.emplace_back(path, &layer);
                  if (layer.isRepeat() && !path.empty())
                      walk(layer.children, path + ".");
              }
          };
    walk(layers, "");
    return found;
}

/// "model.layers.3.self_attn.q_proj" names one iteration of the block "model.layers": the address
/// without the iteration, if that is a layer.
std::string withoutIteration(
    const std::string& name, const std::vector<std::pair<std::string, LayerSpec*>>& layers)
{
    for (const auto& [path, layer] : layers) {
        if (!layer->isRepeat() || !name.starts_with(path + "."))
            continue;
        const std::string rest = name.substr(path.size() + 1);
        const auto digits
            = std::find_if_not(rest.begin(), rest.end(), [](unsigned char c) { return std::isdigit(c); });
        if (digits == rest.begin())
            continue;
        const std::string child
            = path + (digits == rest.end() ? "" : "." + std::string(digits + 1, rest.end()));
        const bool exists
            = std::any_of(layers.begin(), layers.end(), [&](const auto& l) { return l.first == child; });
        if (exists && (digits == rest.end() || *digits == '.'))
            return child;
    }
    return {};
}

Error unknownName(const std::string& name, const std::vector<std::pair<std::string, LayerSpec*>>& layers,
    const std::vector<LayerSpec>& topLevel)
{
    if (const std::string shared = withoutIteration(name, layers); !shared.empty())
        return Error { "cannot freeze " + quoteForMessage(name)
                + " alone: it is one iteration of a Repeat block, whose iterations "
                + "share one description; freeze \"" + shared + "\" (every iteration) or split the block",
            name };
    std::string known;
    std::size_t listed = 0;
    // The top-level entries by their names, dots and all ("model.embed_tokens", "lm_head").
    for (const auto& layer : topLevel) {
        if (layer.name.empty())
            continue;
        if (listed++ == 8) {
            known += ", ...";
            break;
        }
        known += (known.empty() ? "" : ", ") + layer.name;
    }
    return Error { "no layer is named " + quoteForMessage(name)
            + (known.empty() ? std::string(" (the model names none of its layers)")
                             : " (top-level layers: " + known + ")"),
        name };
}

} // namespace

Result<std::size_t> freezeLayers(Network& network, const std::vector<std::string>& names)
{
    const auto layers = addressedLayers(network.layers);
    std::vector<LayerSpec*> marked;
    for (const auto& name : names) {
        const bool matches
            = std::any_of(layers.begin(), layers.end(), [&](const auto& l) { return l.first == name; });
        if (!matches)
            return unknownName(name, layers, network.layers);
        for (const auto& [path, layer] : layers) {
            if (path == name && std::find(marked.begin(), marked.end(), layer) == marked.end())
                marked.push_back(layer);
        }
    }
    for (LayerSpec* layer : marked)
        layer->frozen = true;
    return marked.size();
}

} // namespace headroom

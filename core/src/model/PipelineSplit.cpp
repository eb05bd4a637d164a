#include "headroom/model/PipelineSplit.h"

#include <algorithm>
#include <numeric>
#include <set>

namespace headroom {

namespace {

constexpr std::string_view kInputName = "input"; // the network input, as layers' "inputs" name it

bool hasRepeat(const Network& network)
{
    return std::any_of(
        network.layers.begin(), network.layers.end(), [](const LayerSpec& l) { return l.isRepeat(); });
}

/// The top-level layer each pipeline layer belongs to, in order.
std::vector<std::size_t> pipelineLayerOwners(const Network& network)
{
    std::vector<std::size_t> owners;
    const bool repeats = hasRepeat(network);
    for (std::size_t i = 0; i < network.layers.size(); ++i) {
        const LayerSpec& l = network.layers[i];
        if (!repeats)
            owners.push_back(i);
        else if (l.isRepeat())
            owners.insert(owners.end(), static_cast<std::size_t>(std::max<std::int64_t>(0, l.times)), i);
    }
    return owners;
}

std::string whatTheLayersAre(const Network& network)
{
    return hasRepeat(network) ? "the iterations of its Repeat blocks" : "its top-level layers";
}

/// How many pipeline layers each of the p x v model chunks holds, chunk c = j x p + s being virtual
/// stage j of stage s (Megatron-LM's interleaved assignment).
Result<std::vector<std::int64_t>> chunkSizes(const Network& network, std::int64_t layers, std::int64_t p,
    std::int64_t v, const std::vector<std::int64_t>& stageLayers)
{
    const std::string model = network.name.empty() ? "the model" : network.name;
    if (p > layers)
        return Error { "pipeline parallel " + std::to_string(p) + " needs at least one layer per stage, but "
                + model + " has " + std::to_string(layers) + " pipeline layers (" + whatTheLayersAre(network)
                + ")",
            "parallel.pipeline_parallel" };
    if (v > 1 && p * v > layers)
        return Error { "the interleaved schedule with " + std::to_string(p) + " stages x " + std::to_string(v)
                + " virtual stages needs at least " + std::to_string(p * v) + " layers, but " + model
                + " has " + std::to_string(layers) + " pipeline layers (" + whatTheLayersAre(network) + ")",
            "parallel.virtual_stages" };
    const std::int64_t chunks = p * v;
    std::vector<std::int64_t> sizes(static_cast<std::size_t>(chunks), 0);
    if (stageLayers.empty()) {
        const std::int64_t base = layers / chunks;
        const std::int64_t extra = layers % chunks;
        for (std::int64_t c = 0; c < chunks; ++c)
            sizes[static_cast<std::size_t>(c)] = base + (c >= chunks - extra ? 1 : 0);
        return sizes;
    }
    const std::int64_t sum = std::accumulate(stageLayers.begin(), stageLayers.end(), std::int64_t { 0 });
    if (sum != layers) {
        std::string terms;
        for (const std::int64_t n : stageLayers)
            terms += (terms.empty() ? "" : " + ") + std::to_string(n);
        return Error { "the layers per stage (" + terms + " = " + std::to_string(sum) + ") must add up to "
                + model + "'s " + std::to_string(layers) + " pipeline layers (" + whatTheLayersAre(network)
                + ")",
            "parallel.stage_layers" };
    }
    for (std::int64_t s = 0; s < p; ++s) {
        const std::int64_t n = stageLayers[static_cast<std::size_t>(s)];
        if (n % v != 0)
            return Error { "the interleaved schedule splits each stage into " + std::to_string(v)
                    + " virtual stages, but stage " + std::to_string(s + 1) + "'s " + std::to_string(n)
                    + " layers (layers per stage) are not a multiple of " + std::to_string(v),
                "parallel.stage_layers[" + std::to_string(s) + "]" };
        for (std::int64_t j = 0; j < v; ++j)
            sizes[static_cast<std::size_t>(j * p + s)] = n / v;
    }
    return sizes;
}

/// The name a layer's inputs call top-level layer i by: its name, or its position when it has none.
std::string topLevelName(const Network& network, std::size_t i)
{
    return network.layers[i].name.empty() ? std::to_string(i) : network.layers[i].name;
}

/// The top-level layer a reference names ("h", "h.3.attn" or "7"); none for the network input and names
/// of no top-level layer.
std::optional<std::size_t> referencedLayer(const Network& network, const std::string& ref)
{
    for (std::size_t i = 0; i < network.layers.size(); ++i) {
        const std::string name = topLevelName(network, i);
        if (ref == name || (ref.size() > name.size() && ref.starts_with(name) && ref[name.size()] == '.'))
            return i;
    }
    return std::nullopt;
}

std::string layerLabel(const Network& network, std::size_t i)
{
    const LayerSpec& l = network.layers[i];
    return "layer " + std::to_string(i + 1) + " (" + (l.name.empty() ? l.type : l.name) + ")";
}

/// The references of a layer (and of the layers inside it) to layers outside it; names a Repeat block's
/// own layers use for each other resolve inside the block first.
void outerReferences(const LayerSpec& spec, const std::set<std::string>& shadowed, const std::string& path,
    std::vector<std::pair<std::string, std::string>>& out)
{
    for (std::size_t k = 0; k < spec.inputs.size(); ++k)
        if (!shadowed.contains(spec.inputs[k]))
            out.emplace_back(spec.inputs[k], path + ".inputs[" + std::to_string(k) + "]");
    if (!spec.isRepeat())
        return;
    std::set<std::string> inner = shadowed;
    inner.insert("repeat_input");
    for (std::size_t c = 0; c < spec.children.size(); ++c)
        inner.insert(spec.children[c].name.empty() ? std::to_string(c) : spec.children[c].name);
    for (std::size_t c = 0; c < spec.children.size(); ++c)
        outerReferences(spec.children[c], inner, path + ".layers[" + std::to_string(c) + "]", out);
}

/// `from` replaced by `to` among the inputs of `spec` and of the layers inside it that do not name one of
/// their own block's layers so.
void renameInput(LayerSpec& spec, const std::string& from, const std::string& to)
{
    for (auto& input : spec.inputs)
        if (input == from)
            input = to;
    if (!spec.isRepeat())
        return;
    const bool shadowed = std::any_of(
        spec.children.begin(), spec.children.end(), [&](const LayerSpec& c) { return c.name == from; });
    if (!shadowed)
        for (auto& child : spec.children)
            renameInput(child, from, to);
}

} // namespace

std::int64_t PipelineStageSlice::layerCount() const noexcept
{
    std::int64_t n = 0;
    for (const auto& [first, last] : layerRanges)
        n += last - first + 1;
    return n;
}

std::int64_t pipelineLayerCount(const Network& network)
{
    return static_cast<std::int64_t>(pipelineLayerOwners(network).size());
}

Result<std::vector<PipelineStageSlice>> splitPipeline(const Network& network, std::int64_t stages,
    std::int64_t virtualStages, const std::vector<std::int64_t>& stageLayers)
{
    const std::int64_t p = std::max<std::int64_t>(1, stages);
    const std::int64_t v = std::max<std::int64_t>(1, virtualStages);
    const std::vector<std::size_t> owners = pipelineLayerOwners(network);
    const auto layers = static_cast<std::int64_t>(owners.size());
    auto sizes = chunkSizes(network, layers, p, v, stageLayers);
    if (!sizes)
        return sizes.error();
    const std::size_t items = network.layers.size();
    std::vector<PipelineStageSlice> out(static_cast<std::size_t>(p));
    for (std::int64_t s = 0; s < p; ++s) {
        out[static_cast<std::size_t>(s)].index = s;
        out[static_cast<std::size_t>(s)].iterations.assign(items, 0);
    }
    // Each chunk's pipeline layers, and the last top-level layer it holds a part of.
    const auto chunks = static_cast<std::int64_t>(sizes.value().size());
    std::vector<std::int64_t> lastItemOfChunk(static_cast<std::size_t>(chunks), -1);
    std::vector<std::int64_t> lastChunkOfItem(items, -1);
    std::int64_t start = 0;
    for (std::int64_t c = 0; c < chunks; ++c) {
        const std::int64_t size = sizes.value()[static_cast<std::size_t>(c)];
        PipelineStageSlice& stage = out[static_cast<std::size_t>(c % p)];
        for (std::int64_t u = start; u < start + size; ++u) {
            const std::size_t owner = owners[static_cast<std::size_t>(u)];
            ++stage.iterations[owner];
            lastChunkOfItem[owner] = c;
            lastItemOfChunk[static_cast<std::size_t>(c)] = static_cast<std::int64_t>(owner);
        }
        if (size > 0)
            stage.layerRanges.emplace_back(start, start + size - 1);
        start += size;
    }
    // The top-level layers that are not pipeline layers go with the chunk of the layer before them
    // (before every block: the first chunk; after the last block: the last chunk).
    if (hasRepeat(network)) {
        const auto lastBlock = static_cast<std::size_t>(network.layers.rend()
            - std::find_if(network.layers.rbegin(), network.layers.rend(),
                [](const LayerSpec& l) { return l.isRepeat(); }));
        std::int64_t chunk = 0;
        for (std::size_t i = 0; i < items; ++i) {
            if (network.layers[i].isRepeat()) {
                chunk = std::max(chunk, lastChunkOfItem[i]);
                continue;
            }
            const std::int64_t c = i >= lastBlock ? chunks - 1 : chunk;
            out[static_cast<std::size_t>(c % p)].iterations[i] = 1;
            auto& last = lastItemOfChunk[static_cast<std::size_t>(c)];
            last = std::max(last, static_cast<std::int64_t>(i));
        }
    }
    // What crosses a boundary: the output of the last layer of the chunk before.
    std::int64_t sent = -1;
    for (std::int64_t c = 0; c < chunks; ++c) {
        PipelineStageSlice& stage = out[static_cast<std::size_t>(c % p)];
        if (c < p && sent >= 0)
            stage.receivesFrom = static_cast<std::size_t>(sent);
        if (lastItemOfChunk[static_cast<std::size_t>(c)] >= 0)
            sent = lastItemOfChunk[static_cast<std::size_t>(c)];
        if (c >= chunks - p && c < chunks - 1 && sent >= 0)
            stage.sendsFrom = static_cast<std::size_t>(sent);
    }
    return out;
}

Result<Network> stageNetwork(
    const Network& network, const PipelineStageSlice& stage, const InputSpec& received)
{
    Network out;
    out.name = network.name;
    out.description = network.description;
    out.warnings = network.warnings;
    out.input = stage.first() ? network.input : received;
    out.loss = stage.last() ? network.loss : Loss::None;
    const std::size_t items = network.layers.size();
    const auto holds = [&](std::size_t i) { return i < stage.iterations.size() && stage.iterations[i] > 0; };
    bool dropped = false;
    for (std::size_t i = 0; i < items; ++i) {
        if (!holds(i)) {
            dropped = true;
            continue;
        }
        LayerSpec spec = network.layers[i];
        if (spec.isRepeat())
            spec.times = stage.iterations[i];
        if (spec.name.empty() && dropped)
            spec.name = std::to_string(i); // its name in the model, which later layers' inputs may use
        std::vector<std::pair<std::string, std::string>> refs;
        outerReferences(network.layers[i], {}, "layers[" + std::to_string(i) + "]", refs);
        for (const auto& [ref, where] : refs) {
            const auto source = referencedLayer(network, ref);
            const bool isInput = ref == kInputName;
            if (isInput ? stage.first() : (!source || holds(*source)))
                continue;
            // The output of the layer the stage before ends on is what the stage receives: its input.
            if (!isInput && stage.receivesFrom == source && ref == topLevelName(network, *source)) {
                renameInput(spec, ref, std::string { kInputName });
                continue;
            }
            return Error { "pipeline stage " + std::to_string(stage.index + 1) + " holds "
                    + layerLabel(network, i) + ", which takes "
                    + (isInput ? std::string { "the network's input" }
                               : "the output of " + layerLabel(network, *source))
                    + " from another stage besides the tensor the stage receives; Headroom cuts stages only "
                      "where one tensor crosses: set other layers per stage",
                where };
        }
        if (!spec.tiedTo.empty()) {
            const auto target = referencedLayer(network, spec.tiedTo);
            if (target && !holds(*target))
                spec.tiedTo.clear(); // the stage's own copy, kept in step by an all-reduce of the gradients
        }
        out.layers.push_back(std::move(spec));
    }
    return out;
}

} // namespace headroom

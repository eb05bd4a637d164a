#include "headroom/estimate/ContextParallel.h"

#include "headroom/importers/HfConfig.h"
#include "headroom/support/Format.h"
#include "step/SequenceContext.h"

#include <optional>
#include <string>

namespace headroom {

namespace {

/// An attention layer's head count attributes that all-to-all splits: query heads and key/value heads.
constexpr const char* kAllToAllHeadAttributes[] = { "num_heads", "nhead", "num_key_value_heads" };

/// The first attention layer (inside Repeat blocks too) with a head count c does not divide.
std::optional<Error> allToAllHeadsProblem(
    const std::vector<LayerSpec>& layers, const std::string& path, std::int64_t c)
{
    for (std::size_t i = 0; i < layers.size(); ++i) {
        const LayerSpec& spec = layers[i];
        const std::string here = path + "layers[" + std::to_string(i) + "]";
        if (spec.isRepeat()) {
            if (auto p = allToAllHeadsProblem(spec.children, here + ".", c))
                return p;
            continue;
        }
        for (const char* attribute : kAllToAllHeadAttributes) {
            const auto it = spec.attributes.find(attribute);
            if (it == spec.attributes.end() || !it->is_number_integer())
                continue;
            const auto heads = it->get<std::int64_t>();
            if (heads > 0 && heads % c == 0)
                continue;
            const std::string name = spec.name.empty() ? spec.type : spec.type + " \"" + spec.name + "\"";
            return Error { "all-to-all context parallel " + std::to_string(c)
                    + " splits the attention heads: it must divide every attention layer's heads, and " + here
                    + " (" + name + ") has " + attribute + " " + std::to_string(heads),
                "parallel.context_parallel" };
        }
    }
    return std::nullopt;
}

/// A PositionalEmbedding with fewer rows than the whole sequence: each rank looks up its own positions of
/// all T, so the table needs T rows even though the rank's layers see T / c.
std::optional<Error> positionTableProblem(
    const std::vector<LayerSpec>& layers, const std::string& path, std::int64_t c, std::int64_t length)
{
    for (std::size_t i = 0; i < layers.size(); ++i) {
        const LayerSpec& spec = layers[i];
        const std::string here = path + "layers[" + std::to_string(i) + "]";
        if (spec.isRepeat()) {
            if (auto p = positionTableProblem(spec.children, here + ".", c, length))
                return p;
            continue;
        }
        const auto it = spec.attributes.find("num_embeddings");
        if (spec.type != "PositionalEmbedding" || it == spec.attributes.end() || !it->is_number_integer()
            || it->get<std::int64_t>() >= length)
            continue;
        const std::string name = spec.name.empty() ? spec.type : spec.type + " \"" + spec.name + "\"";
        return Error { "context parallel " + std::to_string(c) + " splits a sequence of "
                + formatCount(static_cast<std::uint64_t>(length)) + " positions, more than " + here + " ("
                + name + ") holds (num_embeddings " + formatCount(it->get<std::uint64_t>()) + ")",
            "parallel.context_parallel" };
    }
    return std::nullopt;
}

} // namespace

Result<Network> contextParallelNetwork(const Network& network, const PlanSettings& settings)
{
    const std::int64_t c = settings.setup.parallel.contextParallel;
    if (c <= 1) {
        if (!settings.sequenceLength)
            return network;
        return atTrainingLength(network, *settings.sequenceLength);
    }
    const auto& dims = network.input.shape.dims;
    const bool tokens = dims.size() == 1 && !isFloatingPoint(network.input.dtype);
    const bool features = dims.size() == 2 && isFloatingPoint(network.input.dtype);
    const std::string model = network.name.empty() ? std::string("the model") : "\"" + network.name + "\"";
    if (!tokens && !features)
        return Error { "context parallel " + std::to_string(c) + " splits the sequence; " + model
                + " has no sequence axis (its input is not token ids [T] or features [T, E])",
            "parallel.context_parallel" };
    if (auto problem = contextParallelAttentionProblem(c, settings.attention))
        return *problem;
    const std::int64_t length = settings.sequenceLength.value_or(dims[0]);
    if (length % c != 0)
        return Error { "context parallel " + std::to_string(c) + " must divide the sequence length "
                + formatCount(static_cast<std::uint64_t>(length)),
            "parallel.context_parallel" };
    if (auto problem = positionTableProblem(network.layers, "", c, length))
        return *problem;
    if (settings.setup.parallel.contextKind == ContextParallelism::AllToAll)
        if (auto problem = allToAllHeadsProblem(network.layers, "", c))
            return *problem;
    // Each rank's share; atTrainingLength also drops the importer's note about its default length once
    // the plan sets one.
    return settings.sequenceLength ? atTrainingLength(network, length / c)
                                   : withSequenceLength(network, length / c);
}

} // namespace headroom

#pragma once

// Small helpers to write networks in tests as compactly as in a model file.

#include "headroom/analysis/Analysis.h"
#include "headroom/model/Network.h"

#include <QtGlobal>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace headroom::test {

inline LayerSpec layer(std::string type, nlohmann::json attributes = nlohmann::json::object(),
    std::string name = {}, std::vector<std::string> inputs = {})
{
    LayerSpec spec;
    spec.type = std::move(type);
    spec.attributes = attributes.is_null() ? nlohmann::json::object() : std::move(attributes);
    spec.name = std::move(name);
    spec.inputs = std::move(inputs);
    return spec;
}

inline LayerSpec repeat(std::string name, std::int64_t times, std::vector<LayerSpec> children)
{
    LayerSpec spec;
    spec.type = "Repeat";
    spec.name = std::move(name);
    spec.times = times;
    spec.children = std::move(children);
    return spec;
}

inline Network network(std::vector<std::int64_t> inputShape, std::vector<LayerSpec> layers,
    Loss loss = Loss::CrossEntropy, DType dtype = DType::Float32)
{
    Network n;
    n.name = "test";
    n.input = InputSpec { Shape { std::move(inputShape) }, dtype, std::nullopt };
    n.layers = std::move(layers);
    n.loss = loss;
    return n;
}

/// LeNet-5 as in the example file, completed: 61,706 parameters.
inline Network lenet5()
{
    return network({ 1, 32, 32 },
        { layer("Conv2d", { { "out_channels", 6 }, { "kernel_size", 5 } }), layer("ReLU"),
            layer("MaxPool2d", { { "kernel_size", 2 } }),
            layer("Conv2d", { { "out_channels", 16 }, { "kernel_size", 5 } }), layer("ReLU"),
            layer("MaxPool2d", { { "kernel_size", 2 } }), layer("Flatten"),
            layer("Linear", { { "out_features", 120 } }), layer("ReLU"),
            layer("Linear", { { "out_features", 84 } }), layer("ReLU"),
            layer("Linear", { { "out_features", 10 } }) });
}

/// A network small enough to follow one training step by hand (tst_steptimeline, tst_estimate):
/// [4] float32 -> fc1 Linear(4 -> 8) -> relu ReLU -> fc2 Linear(8 -> 2) -> cross-entropy.
/// 58 parameters (fc1 32 + 8, fc2 16 + 2) = 232 bytes; per sample the input is 16 B plus an 8-byte label.
inline Network tinyMlp()
{
    return network({ 4 },
        { layer("Linear", { { "out_features", 8 } }, "fc1"), layer("ReLU", {}, "relu"),
            layer("Linear", { { "out_features", 2 } }, "fc2") });
}

/// The iteration of each enclosing Repeat block that `name` names, relative to `row`'s first ones, if
/// `row` stands for a layer of that name (identical iterations share a row: "b.1.fc" stands for
/// "b.1.fc" ... "b.9997.fc").
inline std::optional<std::vector<std::int64_t>> iterationsOf(const LayerRow& row, const std::string& name)
{
    std::vector<std::int64_t> shift;
    std::ptrdiff_t moved = 0; // how much longer `name` is than row.name up to here
    for (const auto& it : row.iterations) {
        const auto at = static_cast<std::size_t>(static_cast<std::ptrdiff_t>(it.offset) + moved);
        std::size_t end = at;
        while (end < name.size() && end - at < 18 && name[end] >= '0' && name[end] <= '9')
            ++end;
        if (end == at)
            return std::nullopt;
        const std::int64_t index = std::stoll(name.substr(at, end - at));
        if (index < it.first || index > it.last)
            return std::nullopt;
        shift.push_back(index - it.first);
        moved += static_cast<std::ptrdiff_t>(end - at)
            - static_cast<std::ptrdiff_t>(std::to_string(it.first).size());
    }
    if (instanceName(row, shift) != name)
        return std::nullopt;
    return shift;
}

/// The row that stands for the layer `name`, or null.
inline const LayerRow* rowStandingFor(const Analysis& a, const std::string& name)
{
    for (const auto& r : a.rows) {
        if (r.name == name || (r.count > 1 && iterationsOf(r, name)))
            return &r;
    }
    return nullptr;
}

/// The row named exactly `name`; a test that asks for a row the analysis lacks stops.
inline const LayerRow& rowNamed(const Analysis& a, const std::string& name)
{
    for (const auto& r : a.rows) {
        if (r.name == name)
            return r;
    }
    qFatal("no row %s", name.c_str());
    return a.rows.front();
}

/// Activation bytes per sample of every row of iteration `index` of the Repeat block `block`. A row may
/// stand for several iterations of the block (and of blocks inside it): its layers count once per
/// iteration.
inline std::uint64_t blockBytes(const Analysis& a, const std::string& block, int index = 0)
{
    std::uint64_t sum = 0;
    for (const auto& row : a.rows) {
        if (row.name.rfind(block + ".", 0) != 0)
            continue;
        for (const auto& it : row.iterations) {
            if (it.offset == block.size() + 1 && index >= it.first && index <= it.last)
                sum += row.activationBytesPerSample
                    * (row.count / static_cast<std::uint64_t>(it.last - it.first + 1));
        }
    }
    return sum;
}

/// The top-level layers' types, in order.
inline std::vector<std::string> typesOf(const Network& n)
{
    std::vector<std::string> types;
    for (const auto& l : n.layers)
        types.push_back(l.type);
    return types;
}

} // namespace headroom::test

#include "LayerDefaults.h"

#include <algorithm>
#include <optional>

namespace headroom::ui {

namespace {

constexpr std::int64_t kMinConvChannels = 64; // VGG's and ResNet's first width
constexpr std::int64_t kMaxLinearFeatures = 512;

bool contains(const std::string& s, std::string_view part)
{
    return s.find(part) != std::string::npos;
}

bool hasAttribute(const LayerKind& kind, std::string_view name)
{
    const auto attrs = kind.attributes();
    return std::any_of(attrs.begin(), attrs.end(), [&](const AttributeSpec& a) { return a.name == name; });
}

std::int64_t sizeFor(const AttributeSpec& spec, const LayerKind& kind, const TensorInfo* previous)
{
    const bool hasShape = previous != nullptr && previous->shape.rank() > 0;
    if (spec.name == "out_channels" && hasShape)
        return std::max(previous->shape.dims.front(), kMinConvChannels);
    if (contains(spec.name, "channels") && hasShape)
        return previous->shape.dims.front();
    if (spec.name == "out_features" && hasShape)
        return std::min(previous->shape.dims.back(), kMaxLinearFeatures);
    if ((contains(spec.name, "features") || contains(spec.name, "normalized")) && hasShape)
        return previous->shape.dims.back();
    if (contains(spec.name, "kernel"))
        return kind.category() == LayerCategory::Pooling ? 2 : 3;
    if (contains(spec.name, "output_size") || contains(spec.name, "groups"))
        return 1;
    return 64;
}

/// Required attributes of the shape, padding and reduction kinds whose generic size would not fit:
/// the smallest valid choice that keeps the layer it follows (axis 1, padding 1, reductions over the
/// last axis, channels-last for Permute, a flattening Reshape).
std::optional<nlohmann::json> operatorDefault(const AttributeSpec& spec, const TensorInfo* previous)
{
    const auto rank = static_cast<std::int64_t>(previous != nullptr ? previous->shape.rank() : 0);
    const bool list = spec.type == AttributeType::IntList;
    if (spec.name == "padding")
        return nlohmann::json(1);
    if (spec.name == "pad")
        return nlohmann::json::array({ 1, 1 });
    if (spec.name == "dims") { // the first feature axis last: channels last for [C, H, W]
        nlohmann::json dims = nlohmann::json::array({ 0 });
        for (std::int64_t d = 2; d <= rank; ++d)
            dims.push_back(d);
        dims.push_back(1);
        return dims;
    }
    if (spec.name == "dim0")
        return nlohmann::json(1);
    if (spec.name == "dim1")
        return nlohmann::json(rank >= 2 ? 2 : 1);
    if (spec.name == "shape")
        return nlohmann::json::array({ -1 });
    if (spec.name == "unflattened_size")
        return nlohmann::json::array({ 1, -1 });
    if (spec.name == "size" && list)
        return nlohmann::json(
            std::vector<std::int64_t>(static_cast<std::size_t>(std::max<std::int64_t>(rank, 1)), -1));
    if (spec.name == "dim")
        return list ? nlohmann::json::array({ -1 }) : nlohmann::json(1);
    if (spec.name == "start" || spec.name == "index")
        return nlohmann::json(0);
    if (spec.name == "length")
        return nlohmann::json(1);
    if (spec.name == "upscale_factor" || spec.name == "downscale_factor")
        return nlohmann::json(2);
    return std::nullopt;
}

/// A value `attr` accepts when nothing better is known: the size for sizes, the lower bound, off, the first
/// choice (nothing for a Choice without choices).
std::optional<nlohmann::json> plainDefault(const AttributeSpec& attr, std::int64_t size)
{
    switch (attr.type) {
    case AttributeType::Int:
    case AttributeType::IntTuple:
    case AttributeType::IntList:
        return nlohmann::json(size);
    case AttributeType::Float:
        return nlohmann::json(std::clamp(0.0, attr.minFloat, attr.maxFloat));
    case AttributeType::Bool:
        return nlohmann::json(false);
    case AttributeType::Text:
        return nlohmann::json(attr.name);
    case AttributeType::Choice:
        if (!attr.choices.empty())
            return nlohmann::json(attr.choices.front());
        break;
    }
    return std::nullopt;
}

/// Operands a kind with a learned second operand (Add, Mul, Concat, ...) takes: the two layers before it,
/// as the others do, or, as the first layer, a learned tensor of the last axis's size.
void chooseOperands(LayerSpec& spec, const LayerKind& kind, const TensorInfo* previousOutput,
    const std::vector<std::string>& recentOutputs)
{
    const bool learnedOperand = hasAttribute(kind, "parameter") && kind.maxInputs() > 1;
    const std::size_t operands = learnedOperand ? 2 : kind.minInputs();
    if (operands <= 1)
        return;
    const std::size_t n = std::min(recentOutputs.size(), operands);
    spec.inputs.assign(recentOutputs.end() - static_cast<std::ptrdiff_t>(n), recentOutputs.end());
    if (learnedOperand && n < 2 && previousOutput != nullptr && previousOutput->shape.rank() > 0) {
        // Concat's learned tensor is one slice along its axis (a class token); the others scale the last
        // axis.
        auto dims = previousOutput->shape.dims;
        if (hasAttribute(kind, "dim"))
            dims.front() = 1;
        else
            dims = { dims.back() };
        spec.attributes["parameter"] = dims;
    }
}

} // namespace

LayerSpec newLayerSpec(
    const LayerKind& kind, const TensorInfo* previousOutput, const std::vector<std::string>& recentOutputs)
{
    LayerSpec spec;
    spec.type = std::string(kind.type());
    for (const auto& attr : kind.attributes()) {
        if (!attr.required())
            continue;
        if (auto value = operatorDefault(attr, previousOutput)) {
            spec.attributes[attr.name] = std::move(*value);
            continue;
        }
        const std::int64_t size = std::clamp(sizeFor(attr, kind, previousOutput), attr.minInt, attr.maxInt);
        if (auto value = plainDefault(attr, size))
            spec.attributes[attr.name] = std::move(*value);
    }
    // A convolution keeps the spatial size at stride 1 ("same" padding) when its kernel is odd.
    if (kind.category() == LayerCategory::Convolution && hasAttribute(kind, "padding")
        && spec.attributes.contains("kernel_size") && spec.attributes["kernel_size"].is_number_integer()) {
        const std::int64_t k = spec.attributes["kernel_size"].get<std::int64_t>();
        if (k % 2 == 1 && k > 1)
            spec.attributes["padding"] = (k - 1) / 2;
    }
    // Resizing needs a size or a scale; clamping a bound.
    if (hasAttribute(kind, "scale_factor") && hasAttribute(kind, "size"))
        spec.attributes["scale_factor"] = 2.0;
    if (hasAttribute(kind, "min") && hasAttribute(kind, "max"))
        spec.attributes["min"] = 0.0;
    chooseOperands(spec, kind, previousOutput, recentOutputs);
    return spec;
}

LayerSpec newRepeatSpec()
{
    LayerSpec block;
    block.type = "Repeat";
    block.times = 2;
    LayerSpec identity;
    identity.type = "Identity";
    block.children.push_back(identity);
    return block;
}

} // namespace headroom::ui

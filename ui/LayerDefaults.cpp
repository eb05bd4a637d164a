#include "LayerDefaults.h"

#include <algorithm>

namespace headroom::ui {

namespace {

bool contains(const std::string& s, std::string_view part) { return s.find(part) != std::string::npos; }

std::int64_t sizeFor(const AttributeSpec& spec, const LayerKind& kind, const TensorInfo* previous)
{
    const bool hasShape = previous != nullptr && previous->shape.rank() > 0;
    if (contains(spec.name, "channels") && hasShape)
        return previous->shape.dims.front();
    if ((contains(spec.name, "features") || contains(spec.name, "normalized")) && hasShape)
        return previous->shape.dims.back();
    if (contains(spec.name, "kernel"))
        return kind.category() == LayerCategory::Pooling ? 2 : 3;
    if (contains(spec.name, "output_size") || contains(spec.name, "groups"))
        return 1;
    return 64;
}

} // namespace

LayerSpec newLayerSpec(const LayerKind& kind, const TensorInfo* previousOutput, const std::vector<std::string>& recentOutputs)
{
    LayerSpec spec;
    spec.type = std::string(kind.type());
    for (const auto& attr : kind.attributes()) {
        if (!attr.required())
            continue;
        const std::int64_t size = std::clamp(sizeFor(attr, kind, previousOutput), attr.minInt, attr.maxInt);
        switch (attr.type) {
        case AttributeType::Int:
        case AttributeType::IntTuple:
        case AttributeType::IntList: spec.attributes[attr.name] = size; break;
        case AttributeType::Float:
            spec.attributes[attr.name] = std::clamp(0.0, attr.minFloat, attr.maxFloat);
            break;
        case AttributeType::Bool: spec.attributes[attr.name] = false; break;
        case AttributeType::Text: spec.attributes[attr.name] = attr.name; break;
        case AttributeType::Choice:
            if (!attr.choices.empty())
                spec.attributes[attr.name] = attr.choices.front();
            break;
        }
    }
    if (kind.minInputs() > 1) {
        const std::size_t n = std::min(recentOutputs.size(), kind.minInputs());
        spec.inputs.assign(recentOutputs.end() - static_cast<std::ptrdiff_t>(n), recentOutputs.end());
    }
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

#include "headroom/LayerRegistry.h"

#include "layers/Kinds.h"

#include <algorithm>

namespace headroom {

namespace {
std::vector<std::unique_ptr<LayerKind>> builtinKinds()
{
    using namespace layers;
    std::vector<std::unique_ptr<LayerKind>> kinds;
    kinds.push_back(makeConv1d());
    kinds.push_back(makeConv2d());
    kinds.push_back(makeConvTranspose2d());
    kinds.push_back(makeLinear());
    kinds.push_back(makeBatchNorm1d());
    kinds.push_back(makeBatchNorm2d());
    kinds.push_back(makeLayerNorm());
    kinds.push_back(makeGroupNorm());
    kinds.push_back(makeReLU());
    kinds.push_back(makeReLU6());
    kinds.push_back(makeLeakyReLU());
    kinds.push_back(makeGELU());
    kinds.push_back(makeSiLU());
    kinds.push_back(makeSigmoid());
    kinds.push_back(makeTanh());
    kinds.push_back(makeIdentity());
    kinds.push_back(makeSoftmax());
    kinds.push_back(makeMaxPool2d());
    kinds.push_back(makeAvgPool2d());
    kinds.push_back(makeAdaptiveAvgPool2d());
    kinds.push_back(makeFlatten());
    kinds.push_back(makeDropout());
    kinds.push_back(makeAdd());
    kinds.push_back(makeConcat());
    kinds.push_back(makeEmbedding());
    kinds.push_back(makePositionalEmbedding());
    kinds.push_back(makeMultiheadAttention());
    kinds.push_back(makeTransformerEncoderLayer());
    kinds.push_back(makeLSTM());
    kinds.push_back(makeGRU());
    kinds.push_back(makeRMSNorm());
    kinds.push_back(makeMul());
    kinds.push_back(makeNewGELU());
    kinds.push_back(makeScaledDotProductAttention());
    kinds.push_back(makeTokenTypeEmbedding());
    kinds.push_back(makeGenericOp());
    return kinds;
}
} // namespace

LayerRegistry::LayerRegistry(std::vector<std::unique_ptr<LayerKind>> kinds) : m_kinds{std::move(kinds)}
{
    std::sort(m_kinds.begin(), m_kinds.end(), [](const auto& a, const auto& b) { return a->type() < b->type(); });
}

const LayerRegistry& LayerRegistry::builtin()
{
    static const LayerRegistry registry{builtinKinds()};
    return registry;
}

const LayerKind* LayerRegistry::find(std::string_view type) const noexcept
{
    const auto it = std::lower_bound(m_kinds.begin(), m_kinds.end(), type,
                                     [](const auto& kind, std::string_view t) { return kind->type() < t; });
    return it != m_kinds.end() && (*it)->type() == type ? it->get() : nullptr;
}

std::vector<const LayerKind*> LayerRegistry::kinds() const
{
    std::vector<const LayerKind*> out;
    for (const auto& k : m_kinds)
        out.push_back(k.get());
    return out;
}

std::string LayerRegistry::knownTypesList() const
{
    std::string s;
    for (const auto& k : m_kinds) {
        if (!s.empty())
            s += ", ";
        s += k->type();
    }
    return s + ", Repeat";
}

std::string_view categoryName(LayerCategory c) noexcept
{
    switch (c) {
    case LayerCategory::Convolution: return "Convolution";
    case LayerCategory::Linear: return "Linear";
    case LayerCategory::Normalization: return "Normalization";
    case LayerCategory::Activation: return "Activation";
    case LayerCategory::Pooling: return "Pooling";
    case LayerCategory::Dropout: return "Dropout";
    case LayerCategory::Shape: return "Shape";
    case LayerCategory::Recurrent: return "Recurrent";
    case LayerCategory::Attention: return "Attention";
    case LayerCategory::Embedding: return "Embedding";
    case LayerCategory::Merge: return "Merge";
    case LayerCategory::Structure: return "Structure";
    }
    return "Other";
}

DType LayerContext::activationType() const noexcept
{
    for (const auto& t : inputs) {
        if (isFloatingPoint(t.dtype))
            return t.dtype;
    }
    return parameterType();
}

} // namespace headroom

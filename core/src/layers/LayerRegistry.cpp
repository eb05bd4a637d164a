#include "headroom/layers/LayerRegistry.h"

#include "headroom/support/Format.h"
#include "layers/Kinds.h"

#include <algorithm>
#include <cctype>
#include <utility>
#include <vector>

namespace headroom {

namespace {
// Long because it is the flat list of every built-in kind, one registration a line (the registry sorts them).
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
    kinds.push_back(makeStochasticDepth());
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
    kinds.push_back(makeConv3d());
    kinds.push_back(makeConvTranspose1d());
    kinds.push_back(makeConvTranspose3d());
    kinds.push_back(makeMaxPool1d());
    kinds.push_back(makeMaxPool3d());
    kinds.push_back(makeAvgPool1d());
    kinds.push_back(makeAvgPool3d());
    kinds.push_back(makeAdaptiveAvgPool1d());
    kinds.push_back(makeAdaptiveAvgPool3d());
    kinds.push_back(makeAdaptiveMaxPool1d());
    kinds.push_back(makeAdaptiveMaxPool2d());
    kinds.push_back(makeAdaptiveMaxPool3d());
    kinds.push_back(makeBatchNorm3d());
    kinds.push_back(makeInstanceNorm1d());
    kinds.push_back(makeInstanceNorm2d());
    kinds.push_back(makeInstanceNorm3d());
    kinds.push_back(makeHardswish());
    kinds.push_back(makeHardsigmoid());
    kinds.push_back(makeHardtanh());
    kinds.push_back(makeMish());
    kinds.push_back(makeSoftplus());
    kinds.push_back(makeELU());
    kinds.push_back(makeSELU());
    kinds.push_back(makeCELU());
    kinds.push_back(makePReLU());
    kinds.push_back(makeLogSigmoid());
    kinds.push_back(makeSub());
    kinds.push_back(makeDiv());
    kinds.push_back(makePow());
    kinds.push_back(makeSqrt());
    kinds.push_back(makeExp());
    kinds.push_back(makeNeg());
    kinds.push_back(makeAbs());
    kinds.push_back(makeClamp());
    kinds.push_back(makeMean());
    kinds.push_back(makeSum());
    kinds.push_back(makeAmax());
    kinds.push_back(makeNorm());
    kinds.push_back(makeMatMul());
    kinds.push_back(makePermute());
    kinds.push_back(makeTranspose());
    kinds.push_back(makeReshape());
    kinds.push_back(makeView());
    kinds.push_back(makeUnflatten());
    kinds.push_back(makeSqueeze());
    kinds.push_back(makeUnsqueeze());
    kinds.push_back(makeContiguous());
    kinds.push_back(makeExpand());
    kinds.push_back(makeNarrow());
    kinds.push_back(makeSlice());
    kinds.push_back(makeSelect());
    kinds.push_back(makePad());
    kinds.push_back(makeUpsample());
    kinds.push_back(makeUpsamplingNearest2d());
    kinds.push_back(makeUpsamplingBilinear2d());
    kinds.push_back(makePixelShuffle());
    kinds.push_back(makePixelUnshuffle());
    for (auto& kind : makePadModules())
        kinds.push_back(std::move(kind));
    kinds.push_back(makeLogitSoftcap());
    kinds.push_back(makeGatedActivation());
    kinds.push_back(makeMixtureOfExperts());
    kinds.push_back(makeMultiHeadLatentAttention());
    return kinds;
}
} // namespace

LayerRegistry::LayerRegistry(std::vector<std::unique_ptr<LayerKind>> kinds)
    : m_kinds { std::move(kinds) }
{
    std::sort(
        m_kinds.begin(), m_kinds.end(), [](const auto& a, const auto& b) { return a->type() < b->type(); });
    for (const auto& kind : m_kinds)
        m_byType.emplace(kind->type(), kind.get());
}

const LayerRegistry& LayerRegistry::builtin()
{
    static const LayerRegistry registry { builtinKinds() };
    return registry;
}

const LayerKind* LayerRegistry::find(std::string_view type) const noexcept
{
    const auto it = m_byType.find(type);
    return it != m_byType.end() ? it->second : nullptr;
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

std::string LayerRegistry::closestTypes(std::string_view type, std::size_t n) const
{
    const std::string_view compared = type.substr(0, std::min<std::size_t>(type.size(), 64));
    std::vector<std::pair<std::size_t, std::string_view>> ranked;
    for (const auto& k : m_kinds)
        ranked.emplace_back(editDistance(compared, k->type(), true), k->type());
    ranked.emplace_back(editDistance(compared, "Repeat", true), "Repeat");
    std::stable_sort(ranked.begin(), ranked.end(), [](const auto& x, const auto& y) {
        return x.first != y.first ? x.first < y.first : x.second < y.second;
    });
    std::string s;
    for (std::size_t i = 0; i < ranked.size() && i < n; ++i)
        s += (s.empty() ? "" : ", ") + std::string(ranked[i].second);
    return s;
}

std::string_view categoryName(LayerCategory c) noexcept
{
    switch (c) {
    case LayerCategory::Convolution:
        return "Convolution";
    case LayerCategory::Linear:
        return "Linear";
    case LayerCategory::Normalization:
        return "Normalization";
    case LayerCategory::Activation:
        return "Activation";
    case LayerCategory::Pooling:
        return "Pooling";
    case LayerCategory::Dropout:
        return "Dropout";
    case LayerCategory::Shape:
        return "Shape";
    case LayerCategory::Recurrent:
        return "Recurrent";
    case LayerCategory::Attention:
        return "Attention";
    case LayerCategory::Embedding:
        return "Embedding";
    case LayerCategory::Merge:
        return "Merge";
    case LayerCategory::Structure:
        return "Structure";
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

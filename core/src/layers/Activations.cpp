// Elementwise activations. What each keeps for backward follows tools/autograd/derivatives.yaml:
// relu/threshold keep their result; hardtanh (ReLU6), leaky_relu, gelu, silu keep their input;
// sigmoid and tanh keep their result. An in-place variant overwrites its input, so whatever it
// keeps shares the input's storage, except where the formula needs the original input (SiLU,
// and hardtanh_ for ReLU6: measured with torch, see tests/reference), which autograd then clones.
#include "Kinds.h"
#include "KindSupport.h"

namespace headroom::layers {
namespace {

enum class Keeps { Output, Input, Nothing };

struct ActivationInfo {
    std::string type;
    std::string summary;
    Keeps keeps;
    bool hasInplace;
    bool inplaceNeedsOriginal; ///< the in-place variant's backward needs the pre-activation value
    std::uint64_t flopsPerElement;
    std::vector<AttributeSpec> extra;
};

class ActivationKind final : public DescribedKind {
public:
    explicit ActivationKind(ActivationInfo info)
        : DescribedKind(info.type, LayerCategory::Activation, info.summary, attributesOf(info)), m_info{std::move(info)}
    {
    }

    [[nodiscard]] Result<LayerOutcome> infer(const LayerContext& ctx) const override
    {
        const auto& in = ctx.in();
        if (!isFloatingPoint(in.dtype))
            return failure("needs a floating-point input");
        const bool inplace = m_info.hasInplace && ctx.attrs.flag("inplace");
        LayerOutcome o;
        o.output = in;
        o.outputAliasesInput = inplace || m_info.keeps == Keeps::Nothing; // Identity returns its input
        o.aliasedInputGradients = {m_info.keeps == Keeps::Nothing}; // and passes the gradient on
        if (inplace && m_info.inplaceNeedsOriginal)
            o.saved.push_back(SavedTensor::internal("original input", in.shape.elements(), in.dtype));
        else if (m_info.keeps == Keeps::Output)
            o.saved.push_back(SavedTensor::output());
        else if (m_info.keeps == Keeps::Input)
            o.saved.push_back(inplace ? SavedTensor::output() : SavedTensor::input());
        o.forwardFlopsPerSample = Count{m_info.flopsPerElement} * in.shape.elements();
        return o;
    }

private:
    static std::vector<AttributeSpec> attributesOf(const ActivationInfo& info)
    {
        std::vector<AttributeSpec> attrs = info.extra;
        if (info.hasInplace)
            attrs.push_back(boolAttr("inplace", false, "Overwrites the input instead of allocating an output"));
        return attrs;
    }

    ActivationInfo m_info;
};

} // namespace

std::unique_ptr<LayerKind> makeReLU()
{
    return std::make_unique<ActivationKind>(ActivationInfo{"ReLU", "max(0, x)", Keeps::Output, true, false, 1, {}});
}

std::unique_ptr<LayerKind> makeReLU6()
{
    return std::make_unique<ActivationKind>(
        ActivationInfo{"ReLU6", "min(max(0, x), 6)", Keeps::Input, true, true, 2, {}});
}

std::unique_ptr<LayerKind> makeLeakyReLU()
{
    return std::make_unique<ActivationKind>(
        ActivationInfo{"LeakyReLU", "x if x > 0 else negative_slope * x", Keeps::Input, true, false, 2,
                       {floatAttr("negative_slope", 0.01, "Slope for negative inputs", -1e9, 1e9)}});
}

std::unique_ptr<LayerKind> makeGELU()
{
    return std::make_unique<ActivationKind>(
        ActivationInfo{"GELU", "Gaussian error linear unit", Keeps::Input, false, false, 8,
                       {choiceAttr("approximate", "none", {"none", "tanh"}, "Exact erf form or the tanh approximation")}});
}

std::unique_ptr<LayerKind> makeSiLU()
{
    return std::make_unique<ActivationKind>(
        ActivationInfo{"SiLU", "x * sigmoid(x) (swish)", Keeps::Input, true, true, 5, {}});
}

std::unique_ptr<LayerKind> makeSigmoid()
{
    return std::make_unique<ActivationKind>(
        ActivationInfo{"Sigmoid", "1 / (1 + exp(-x))", Keeps::Output, false, false, 4, {}});
}

std::unique_ptr<LayerKind> makeTanh()
{
    return std::make_unique<ActivationKind>(ActivationInfo{"Tanh", "tanh(x)", Keeps::Output, false, false, 4, {}});
}

std::unique_ptr<LayerKind> makeIdentity()
{
    return std::make_unique<ActivationKind>(
        ActivationInfo{"Identity", "Passes its input through unchanged", Keeps::Nothing, false, false, 0, {}});
}

} // namespace headroom::layers

// Element-wise functions of one tensor (torch.pow, sqrt, exp, neg, abs, clamp). What each keeps follows
// tools/autograd/derivatives.yaml: pow.Tensor_Scalar keeps self (pow_backward(grad, self, exponent)),
// sqrt keeps its result (grad / (2 * result)), exp its result (grad * result), abs keeps self
// (grad * self.sgn()), clamp keeps self (clamp_backward(grad, self, min, max)), neg nothing (-grad).
// Autocast (aten/src/ATen/autocast_mode.cpp, CUDA): pow and exp run in float32, the others in their
// input's dtype.
#include "KindSupport.h"
#include "Kinds.h"
#include "Layout.h"

namespace headroom::layers {
namespace {

enum class UnaryKeeps { Input, Output, Nothing };

AttributeSpec optionalFloat(std::string name, std::string help)
{
    return optionalAttr(floatAttr(std::move(name), 0.0, std::move(help), -1e300, 1e300), "none");
}

class UnaryKind final : public DescribedKind
{
public:
    UnaryKind(std::string type, std::string summary, UnaryKeeps keeps, AutocastPolicy autocast,
        std::vector<AttributeSpec> attributes = {})
        : DescribedKind(std::move(type), LayerCategory::Activation, std::move(summary), std::move(attributes))
        , m_keeps { keeps }
        , m_autocast { autocast }
    {
    }

    [[nodiscard]] AutocastPolicy autocast() const override { return m_autocast; }

    [[nodiscard]] BatchAxisUse batchAxisUse() const override { return BatchAxisUse::Kept; }

    [[nodiscard]] Result<LayerOutcome> infer(const LayerContext& ctx) const override
    {
        const auto& in = ctx.in();
        if (!isFloatingPoint(in.dtype))
            return failure("needs a floating-point input but gets " + std::string(dtypeName(in.dtype)));
        if (type() == "Clamp" && !ctx.attrs.has("min") && !ctx.attrs.has("max"))
            return failure("needs `min`, `max` or both (torch.clamp refuses neither)");
        LayerOutcome o;
        o.output = elementwiseResult(in, in.shape, in.dtype);
        if (m_keeps == UnaryKeeps::Input)
            o.saved.push_back(SavedTensor::input());
        else if (m_keeps == UnaryKeeps::Output)
            o.saved.push_back(SavedTensor::output());
        o.forwardFlopsPerSample = in.shape.elements();
        return o;
    }

private:
    UnaryKeeps m_keeps;
    AutocastPolicy m_autocast;
};

} // namespace

std::unique_ptr<LayerKind> makePow()
{
    return std::make_unique<UnaryKind>("Pow", "x ** exponent", UnaryKeeps::Input, AutocastPolicy::Float32,
        std::vector<AttributeSpec> { floatAttr("exponent", 2.0, "The power (a number)", -1e9, 1e9) });
}
std::unique_ptr<LayerKind> makeSqrt()
{
    return std::make_unique<UnaryKind>(
        "Sqrt", "Square root", UnaryKeeps::Output, AutocastPolicy::Passthrough);
}
std::unique_ptr<LayerKind> makeExp()
{
    return std::make_unique<UnaryKind>("Exp", "e ** x", UnaryKeeps::Output, AutocastPolicy::Float32);
}
std::unique_ptr<LayerKind> makeNeg()
{
    return std::make_unique<UnaryKind>("Neg", "-x", UnaryKeeps::Nothing, AutocastPolicy::Passthrough);
}
std::unique_ptr<LayerKind> makeAbs()
{
    return std::make_unique<UnaryKind>("Abs", "|x|", UnaryKeeps::Input, AutocastPolicy::Passthrough);
}
std::unique_ptr<LayerKind> makeClamp()
{
    return std::make_unique<UnaryKind>("Clamp", "min(max(x, min), max) (torch.clamp)", UnaryKeeps::Input,
        AutocastPolicy::Passthrough,
        std::vector<AttributeSpec> {
            optionalFloat("min", "Lower bound"), optionalFloat("max", "Upper bound") });
}

} // namespace headroom::layers

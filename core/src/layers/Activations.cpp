// Elementwise activations. What each keeps for backward follows tools/autograd/derivatives.yaml:
// - relu/threshold keep their result; sigmoid and tanh keep their result;
// - hardtanh (ReLU6, Hardtanh), leaky_relu, gelu (both approximations), silu, hardswish, hardsigmoid,
//   mish, softplus, elu (ELU; SELU and CELU run elu/celu with their constants) keep their input
//   (hardswish_backward(grad, self), softplus_backward(grad, self, beta, threshold),
//   elu_backward(..., /* is_result */ false, self), ...);
// - prelu (_prelu_kernel in PyTorch 2.x) keeps its input and its weight (a parameter);
// - log_sigmoid_forward keeps its input and a `buffer`, which the CPU kernel fills with an input-sized
//   tensor but the CUDA kernel leaves empty (aten/src/ATen/native/cuda/Activation.cpp,
//   log_sigmoid_forward_cuda: "buffer is only used by CPU dispatch"): on CUDA the input only.
// An in-place variant overwrites its input, so whatever it keeps shares the input's storage: leaky_relu_
// and elu_ (ELU, SELU, CELU) have formulas on their result (elu_backward(..., /* is_result */ true,
// result)). Where the formula needs the original input and PyTorch has no in-place formula (hardtanh_
// for ReLU6/Hardtanh, silu_, hardswish_, hardsigmoid_, mish_), autograd clones the input before
// overwriting it (measured with torch, see tests/reference).
// Autocast (aten/src/ATen/autocast_mode.cpp, CUDA): softplus runs in float32, prelu in the half type;
// the others in their input's dtype.
#include "KindSupport.h"
#include "Kinds.h"
#include "Layout.h"

namespace headroom::layers {
namespace {

enum class ActivationKeeps { Output, Input, Nothing };

struct ActivationInfo
{
    std::string type;
    std::string summary;
    ActivationKeeps keeps;
    bool hasInplace;
    bool inplaceNeedsOriginal; ///< the in-place variant's backward needs the pre-activation value
    std::uint64_t flopsPerElement;
    std::vector<AttributeSpec> extra;
    AutocastPolicy autocast = AutocastPolicy::Passthrough;
};

class ActivationKind : public DescribedKind
{
public:
    explicit ActivationKind(ActivationInfo info)
        : DescribedKind(info.type, LayerCategory::Activation, info.summary, attributesOf(info))
        , m_info { std::move(info) }
    {
    }

    [[nodiscard]] AutocastPolicy autocast() const override { return m_info.autocast; }

    [[nodiscard]] BatchAxisUse batchAxisUse() const override { return BatchAxisUse::Kept; }

    [[nodiscard]] Result<LayerOutcome> infer(const LayerContext& ctx) const override
    {
        const auto& in = ctx.in();
        if (!isFloatingPoint(in.dtype))
            return failure("needs a floating-point input");
        if (auto e = check(ctx))
            return *e;
        const bool inplace = m_info.hasInplace && ctx.attrs.flag("inplace");
        LayerOutcome o;
        o.outputAliasesInput
            = inplace || m_info.keeps == ActivationKeeps::Nothing; // Identity returns its input
        if (o.outputAliasesInput)
            o.output = in;
        else
            o.output = elementwiseResult(in, in.shape, in.dtype);
        o.aliasedInputGradients = { m_info.keeps == ActivationKeeps::Nothing }; // and passes the gradient on
        if (inplace && m_info.inplaceNeedsOriginal)
            o.saved.push_back(SavedTensor::internal("original input", in.shape.elements(), in.dtype));
        else if (m_info.keeps == ActivationKeeps::Output)
            o.saved.push_back(SavedTensor::output());
        else if (m_info.keeps == ActivationKeeps::Input)
            o.saved.push_back(inplace ? SavedTensor::output() : SavedTensor::input());
        o.forwardFlopsPerSample = Count { m_info.flopsPerElement } * in.shape.elements();
        addParameters(ctx, o);
        return o;
    }

protected:
    /// Kind-specific checks of the input against the attributes.
    [[nodiscard]] virtual std::optional<Error> check(const LayerContext&) const { return std::nullopt; }
    /// Kind-specific parameters.
    virtual void addParameters(const LayerContext&, LayerOutcome&) const { }

private:
    static std::vector<AttributeSpec> attributesOf(const ActivationInfo& info)
    {
        std::vector<AttributeSpec> attrs = info.extra;
        if (info.hasInplace)
            attrs.push_back(
                boolAttr("inplace", false, "Overwrites the input instead of allocating an output"));
        return attrs;
    }

    ActivationInfo m_info;
};

/// nn.PReLU: a learned negative slope, one for all channels or one per channel (the input's first
/// per-sample axis).
class PReLUKind final : public ActivationKind
{
public:
    PReLUKind()
        : ActivationKind(ActivationInfo { "PReLU", "x if x > 0 else weight * x (a learned slope)",
            ActivationKeeps::Input, false, false, 2,
            { intAttr("num_parameters", 1, "Learned slopes: 1, or one per channel"),
                floatAttr("init", 0.25, "Initial slope", -1e9, 1e9) },
            AutocastPolicy::LowerPrecision })
    {
    }

protected:
    std::optional<Error> check(const LayerContext& ctx) const override
    {
        const std::int64_t n = ctx.attrs.integer("num_parameters");
        const auto& in = ctx.in();
        if (n == 1)
            return std::nullopt;
        if (in.batchAxis != 0)
            return failure("num_parameters " + std::to_string(n)
                + " reads channels after the batch axis, but its input is " + layoutText(in));
        if (in.shape.rank() == 0 || in.shape.dims[0] != n)
            return failure("num_parameters " + std::to_string(n)
                + " must be 1 or the input's channels (its first axis, "
                + (in.shape.rank() == 0 ? std::string("none") : std::to_string(in.shape.dims[0])) + ")");
        return std::nullopt;
    }
    void addParameters(const LayerContext& ctx, LayerOutcome& o) const override
    {
        o.params.push_back(parameter("weight", Count::fromSigned(ctx.attrs.integer("num_parameters"))));
    }
};

/// nn.Hardtanh: min_val must stay below max_val.
class HardtanhKind final : public ActivationKind
{
public:
    HardtanhKind()
        : ActivationKind(ActivationInfo { "Hardtanh", "min(max(x, min_val), max_val)", ActivationKeeps::Input,
            true, true, 2,
            { floatAttr("min_val", -1.0, "Lower bound", -1e9, 1e9),
                floatAttr("max_val", 1.0, "Upper bound", -1e9, 1e9) } })
    {
    }

protected:
    std::optional<Error> check(const LayerContext& ctx) const override
    {
        if (ctx.attrs.real("max_val") <= ctx.attrs.real("min_val"))
            return failure("max_val must be greater than min_val");
        return std::nullopt;
    }
};

std::unique_ptr<LayerKind> make(ActivationInfo info)
{
    return std::make_unique<ActivationKind>(std::move(info));
}

} // namespace

std::unique_ptr<LayerKind> makeReLU()
{
    return make({ "ReLU", "max(0, x)", ActivationKeeps::Output, true, false, 1, {} });
}
std::unique_ptr<LayerKind> makeReLU6()
{
    return make({ "ReLU6", "min(max(0, x), 6)", ActivationKeeps::Input, true, true, 2, {} });
}
std::unique_ptr<LayerKind> makeHardtanh()
{
    return std::make_unique<HardtanhKind>();
}

std::unique_ptr<LayerKind> makeLeakyReLU()
{
    return make({ "LeakyReLU", "x if x > 0 else negative_slope * x", ActivationKeeps::Input, true, false, 2,
        { floatAttr("negative_slope", 0.01, "Slope for negative inputs", -1e9, 1e9) } });
}

std::unique_ptr<LayerKind> makeGELU()
{
    return make({ "GELU", "Gaussian error linear unit", ActivationKeeps::Input, false, false, 8,
        { choiceAttr(
            "approximate", "none", { "none", "tanh" }, "Exact erf form or the tanh approximation") } });
}

std::unique_ptr<LayerKind> makeSiLU()
{
    return make({ "SiLU", "x * sigmoid(x) (swish)", ActivationKeeps::Input, true, true, 5, {} });
}
std::unique_ptr<LayerKind> makeSigmoid()
{
    return make({ "Sigmoid", "1 / (1 + exp(-x))", ActivationKeeps::Output, false, false, 4, {} });
}
std::unique_ptr<LayerKind> makeTanh()
{
    return make({ "Tanh", "tanh(x)", ActivationKeeps::Output, false, false, 4, {} });
}

std::unique_ptr<LayerKind> makeIdentity()
{
    return make(
        { "Identity", "Passes its input through unchanged", ActivationKeeps::Nothing, false, false, 0, {} });
}

std::unique_ptr<LayerKind> makeHardswish()
{
    return make(
        { "Hardswish", "x * relu6(x + 3) / 6 (MobileNetV3)", ActivationKeeps::Input, true, true, 4, {} });
}

std::unique_ptr<LayerKind> makeHardsigmoid()
{
    return make({ "Hardsigmoid", "relu6(x + 3) / 6", ActivationKeeps::Input, true, true, 3, {} });
}

std::unique_ptr<LayerKind> makeMish()
{
    return make({ "Mish", "x * tanh(softplus(x))", ActivationKeeps::Input, true, true, 8, {} });
}

std::unique_ptr<LayerKind> makeSoftplus()
{
    return make({ "Softplus", "log(1 + exp(beta x)) / beta", ActivationKeeps::Input, false, false, 5,
        { floatAttr("beta", 1.0, "Sharpness", -1e9, 1e9),
            floatAttr("threshold", 20.0, "Above beta x > threshold the function is linear", -1e9, 1e9) },
        AutocastPolicy::Float32 });
}

std::unique_ptr<LayerKind> makeELU()
{
    return make({ "ELU", "x if x > 0 else alpha (exp(x) - 1)", ActivationKeeps::Input, true, false, 4,
        { floatAttr("alpha", 1.0, "Value the negative side approaches", -1e9, 1e9) } });
}

std::unique_ptr<LayerKind> makeSELU()
{
    return make({ "SELU", "scale x if x > 0 else scale alpha (exp(x) - 1), fixed constants",
        ActivationKeeps::Input, true, false, 5, {} });
}

std::unique_ptr<LayerKind> makeCELU()
{
    return make({ "CELU", "max(0, x) + min(0, alpha (exp(x / alpha) - 1))", ActivationKeeps::Input, true,
        false, 5, { [] {
            AttributeSpec s = floatAttr("alpha", 1.0, "Scale of the negative side (not 0)", 0.0, 1e9);
            s.minFloatExclusive = true;
            return s;
        }() } });
}

std::unique_ptr<LayerKind> makePReLU()
{
    return std::make_unique<PReLUKind>();
}

std::unique_ptr<LayerKind> makeLogSigmoid()
{
    return make({ "LogSigmoid", "log(sigmoid(x))", ActivationKeeps::Input, false, false, 5, {} });
}

} // namespace headroom::layers

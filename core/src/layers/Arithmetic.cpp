// Element-wise arithmetic with PyTorch's broadcasting: Add, Sub, Mul, Div. Operands are the layer's
// inputs, optionally followed by a learned tensor (`parameter`: a layer scale, a position table) and
// a constant (`scalar`: x / 8). What each keeps follows tools/autograd/derivatives.yaml, and the
// autograd codegen saves a tensor only when an output whose formula uses it needs a gradient:
// - add, sub: nothing (grad and -grad, maybe_multiply by alpha);
// - mul: self's gradient is grad * other, other's is grad * self: `other` is kept when `self` requires
//   grad and `self` when `other` does (so x * x.sigmoid() keeps both; gamma * x keeps x only while
//   gamma trains);
// - div: self's gradient is grad / other, other's is -grad * self / other^2 (div_tensor_self_backward,
//   div_tensor_other_backward): `other` is kept when either requires grad, `self` when `other` does.
// A learned operand is a parameter, never an activation; a Python number is wrapped in a 0-dim CPU
// tensor and costs nothing on the GPU. None of these is on an autocast list: the result has the promoted
// dtype (a half activation times a float32 parameter is float32; a number does not promote).
// Backward: an operand of the output's shape and dtype receives grad itself for add (and for sub's
// self); an operand that was broadcast (a parameter is, over the batch) gets grad reduced with sum_to,
// and for mul and div that reduction runs over an output-sized product computed first.
#include "KindSupport.h"
#include "Kinds.h"
#include "Layout.h"

#include <algorithm>

namespace headroom::layers {
namespace {

enum class Op { Add, Sub, Mul, Div };

struct Operand
{
    enum class Source { Input, Parameter, Scalar };
    Source source = Source::Input;
    std::size_t input = 0;
    const Shape* shape = nullptr; ///< the input's, the learned tensor's, or an empty one for a number
    DType dtype = DType::Float32;
};

AttributeSpec parameterOperand()
{
    return learnedOperandAttr(
        "Shape of a learned tensor used as the next operand, per sample (no batch axis): [384] "
        "for a layer scale, [197, 384] for a position table, [C, 1, 1] per channel");
}

AttributeSpec parameterElements()
{
    return optionalAttr(intAttr("parameter_elements", nullptr,
                            "Trained values behind `parameter` when it is computed from a smaller stored "
                            "tensor (Swin's relative-position bias, gathered from its table); 0 for a "
                            "constant computed from sizes (a shifted-window attention mask)",
                            0),
        "the parameter's own size");
}

AttributeSpec scalarOperand()
{
    return optionalAttr(
        floatAttr("scalar", 0.0, "A constant used as the last operand (x / 8)", -1e300, 1e300), "none");
}

std::string_view symbolOf(Op op)
{
    switch (op) {
    case Op::Add:
        return "+";
    case Op::Sub:
        return "-";
    case Op::Mul:
        return "*";
    case Op::Div:
        return "/";
    }
    return "?";
}

class ArithmeticKind final : public DescribedKind
{
public:
    ArithmeticKind(Op op, std::string type, std::string summary)
        : DescribedKind(std::move(type), LayerCategory::Merge, std::move(summary),
            { parameterOperand(), parameterElements(), scalarOperand() })
        , m_op { op }
    {
    }
    [[nodiscard]] std::size_t minInputs() const override { return 1; }
    [[nodiscard]] std::size_t maxInputs() const override { return m_op == Op::Add ? kManyInputs : 2; }

    [[nodiscard]] BatchAxisUse batchAxisUse() const override { return BatchAxisUse::Kept; }

    [[nodiscard]] Result<LayerOutcome> infer(const LayerContext& ctx) const override
    {
        const Shape learned { ctx.attrs.has("parameter") ? ctx.attrs.integers("parameter")
                                                         : std::vector<std::int64_t> {} };
        // A learned tensor broadcasts from the right over the whole tensor: it must not reach the batch axis.
        if (const auto& in = ctx.in(); in.batchAxis != 0 && learned.rank() > in.shape.rank() - in.batchAxis)
            return failure("its parameter " + learned.toString() + " would broadcast over the batch axis of "
                + layoutText(in));
        auto operands = operandsOf(ctx, learned);
        if (!operands)
            return operands.error();
        const auto& ops = operands.value();

        auto result = resultOf(ops);
        if (!result)
            return result.error();
        TensorInfo out = std::move(result).value();

        LayerOutcome o;
        for (std::size_t i = 0; i < ctx.inputs.size(); ++i) {
            const bool passesGrad = (m_op == Op::Add || (m_op == Op::Sub && i == 0))
                && !reduced(ops[i], out.shape) && ops[i].dtype == out.dtype;
            o.aliasedInputGradients.push_back(passesGrad);
        }
        if (ctx.attrs.has("parameter_elements") && !ctx.attrs.has("parameter"))
            return failure("has `parameter_elements` without a `parameter`");
        const bool constant
            = ctx.attrs.has("parameter_elements") && ctx.attrs.integer("parameter_elements") == 0;
        if (constant && m_op != Op::Add)
            return failure("has a constant operand (`parameter_elements` 0), which only Add takes (a product "
                           "keeps its operands, a difference computes the operand's gradient)");
        if (ctx.attrs.has("parameter") && !constant)
            o.params.push_back(parameter("weight",
                ctx.attrs.has("parameter_elements")
                    ? Count { static_cast<std::uint64_t>(ctx.attrs.integer("parameter_elements")) }
                    : learned.elements()));
        if (m_op == Op::Mul || m_op == Op::Div)
            keepOperands(ops, o);
        o.backwardScratchBytesPerSample = backwardScratch(ops, out);
        o.forwardFlopsPerSample = Count { ops.size() - 1 } * out.shape.elements();
        o.output = elementwiseResult(ctx.in(0), std::move(out.shape), out.dtype);
        return o;
    }

private:
    /// A broadcast operand (a learned tensor, or an input smaller than the output) has its gradient reduced.
    static bool reduced(const Operand& x, const Shape& out)
    {
        return x.source == Operand::Source::Parameter
            || (x.source == Operand::Source::Input && *x.shape != out);
    }

    /// The operands broadcast together, in the type they promote to (a scalar does not promote).
    Result<TensorInfo> resultOf(const std::vector<Operand>& ops) const
    {
        TensorInfo out { *ops[0].shape, ops[0].dtype };
        for (std::size_t i = 1; i < ops.size(); ++i) {
            if (*ops[i].shape != out.shape) {
                auto shape = broadcastShapes(out.shape, *ops[i].shape);
                if (!shape)
                    return failure("cannot broadcast operands of shapes " + out.shape.toString() + " and "
                        + ops[i].shape->toString() + " (" + std::string(symbolOf(m_op)) + ")");
                out.shape = std::move(*shape);
            }
            if (ops[i].source != Operand::Source::Scalar)
                out.dtype = promote(out.dtype, ops[i].dtype);
        }
        return out;
    }

    Count backwardScratch(const std::vector<Operand>& ops, const TensorInfo& out) const
    {
        const Count outBytes = out.shape.elements() * Count { elementSize(out.dtype) };
        // Backward temporaries: mul/div compute an output-sized product before reducing a broadcast operand's
        // gradient. A tensor divisor's gradient -grad * ((self / other) / other) (div_tensor_other_backward)
        // is computed first: self / other, its quotient by other, -grad and their product (the divisor's
        // gradient before any reduction) are four output-sized tensors at once, while the dividend's
        // gradient grad / other does not exist yet. The moment already counts the two gradients (the
        // dividend's, output-sized, and the divisor's), so the rest is scratch: three output-sized tensors
        // for a broadcast divisor, two for a full-sized one.
        const bool tensorDivisor = m_op == Op::Div && ops[1].source != Operand::Source::Scalar;
        Count scratch;
        for (std::size_t i = 0; i < ops.size(); ++i) {
            const auto& x = ops[i];
            if (x.source == Operand::Source::Scalar || (tensorDivisor && i == 1))
                continue;
            if ((m_op == Op::Mul || m_op == Op::Div || (m_op == Op::Sub && i != 0)) && reduced(x, out.shape))
                scratch += outBytes;
        }
        if (tensorDivisor)
            scratch += Count { reduced(ops[1], out.shape) ? 3U : 2U } * outBytes;
        return scratch;
    }

    /// The operands, in order: the inputs, then the learned tensor, then the constant.
    Result<std::vector<Operand>> operandsOf(const LayerContext& ctx, const Shape& learned) const
    {
        static const Shape number;
        std::vector<Operand> ops;
        ops.reserve(ctx.inputs.size() + 2);
        for (std::size_t i = 0; i < ctx.inputs.size(); ++i)
            ops.push_back(Operand { Operand::Source::Input, i, &ctx.in(i).shape, ctx.in(i).dtype });
        if (ctx.attrs.has("parameter"))
            ops.push_back(Operand { Operand::Source::Parameter, 0, &learned, ctx.parameterType() });
        if (ctx.attrs.has("scalar"))
            ops.push_back(Operand { Operand::Source::Scalar, 0, &number, DType::Float64 });
        const bool binary = m_op != Op::Add;
        if (ops.size() < 2 || (binary && ops.size() > 2))
            return failure(std::string(binary ? "takes exactly two operands" : "takes at least two operands")
                + ": two inputs, or one input and a `parameter` (a learned tensor) or a `scalar`; it has "
                + std::to_string(ctx.inputs.size()) + " input" + (ctx.inputs.size() == 1 ? "" : "s")
                + (ctx.attrs.has("parameter") ? ", a parameter" : "")
                + (ctx.attrs.has("scalar") ? ", a scalar" : ""));
        for (const auto& x : ops) {
            if (x.source != Operand::Source::Scalar && !isFloatingPoint(x.dtype))
                return failure("needs floating-point operands but input " + std::to_string(x.input) + " is "
                    + std::string(dtypeName(x.dtype)));
        }
        return ops;
    }

    /// mul and div: each tensor operand is kept for the gradients whose formula uses it.
    void keepOperands(const std::vector<Operand>& ops, LayerOutcome& o) const
    {
        const auto gradientOf = [](const Operand& x) {
            return x.source == Operand::Source::Parameter ? SavedTensor::kWeight : x.input;
        };
        const auto& self = ops[0];
        const auto& other = ops[1];
        if (other.source == Operand::Source::Scalar)
            return; // a number: self's gradient needs only it, and nothing needs self
        // self is kept for other's gradient
        SavedTensor keptSelf = SavedTensor::input(self.input);
        keptSelf.onlyFor = { gradientOf(other) };
        o.saved.push_back(keptSelf);
        if (other.source == Operand::Source::Input) {
            SavedTensor keptOther = SavedTensor::input(other.input);
            keptOther.onlyFor = m_op == Op::Mul ? std::vector<std::size_t> { self.input }
                                                : std::vector<std::size_t> { self.input, other.input };
            o.saved.push_back(keptOther);
        }
    }

    Op m_op;
};

} // namespace

std::unique_ptr<LayerKind> makeAdd()
{
    return std::make_unique<ArithmeticKind>(
        Op::Add, "Add", "Elementwise sum of two or more operands (residual)");
}
std::unique_ptr<LayerKind> makeSub()
{
    return std::make_unique<ArithmeticKind>(Op::Sub, "Sub", "Elementwise difference of two operands");
}
std::unique_ptr<LayerKind> makeMul()
{
    return std::make_unique<ArithmeticKind>(
        Op::Mul, "Mul", "Elementwise product of two operands (gates, layer scale)");
}
std::unique_ptr<LayerKind> makeDiv()
{
    return std::make_unique<ArithmeticKind>(Op::Div, "Div", "Elementwise quotient of two operands");
}

} // namespace headroom::layers

// GELU's tanh approximation, 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), in its two exported forms:
//
// - F.gelu(x, approximate="tanh") / nn.GELU("tanh"): torch/onnx/symbolic_opset9.py gelu writes
//   Mul(x, x), Mul(x, x*x), Mul(c, x^3), Add(x, .), Mul(c, .), Tanh, Add(c, .), Mul(x, .), Mul(c, .),
//   every constant first. It comes back as GELU(approximate="tanh"), which keeps only x.
// - Hugging Face's NewGELUActivation, the same formula in Python ops: a tensor-scalar product exports with
//   the tensor first, Pow(x, 3) instead of the products, and 0.5 * x first. It comes back as NewGELU,
//   which keeps what those ops keep (core/src/layers/NewGELU.cpp).
#include "Families.h"

#include <cmath>

namespace headroom::onnximport::ops {

namespace {

const double kSqrt2OverPi = std::sqrt(2.0 / 3.14159265358979323846);

/// Node `i` is `op` with inputs (a, b) in this order.
bool binary(const MappingContext& ctx, int i, const char* op, const std::string& a, const std::string& b)
{
    return ctx.isOp(i, op) && ctx.node(i).input_size() == 2 && ctx.node(i).input(0) == a
        && ctx.node(i).input(1) == b;
}

bool constFirst(const MappingContext& ctx, int i, const char* op, double c, const std::string& operand)
{
    return ctx.isOp(i, op) && ctx.node(i).input_size() == 2 && ctx.isConstant(ctx.node(i).input(0), c)
        && ctx.node(i).input(1) == operand;
}

bool constSecond(const MappingContext& ctx, int i, const char* op, const std::string& operand, double c)
{
    return ctx.isOp(i, op) && ctx.node(i).input_size() == 2 && ctx.node(i).input(0) == operand
        && ctx.isConstant(ctx.node(i).input(1), c);
}

const std::string& out(const MappingContext& ctx, int i)
{
    return ctx.node(i).output(0);
}

/// torch's symbolic: walks back from Tanh to x; the parts in graph order, or empty.
std::vector<int> torchGelu(const MappingContext& ctx, int tanh, std::string& x)
{
    const auto& g = ctx.graph();
    const int scale = g.producer(ctx.node(tanh).input(0));
    if (!ctx.isOp(scale, "Mul") || !ctx.isConstant(ctx.node(scale).input(0), kSqrt2OverPi))
        return {};
    const int inner = g.producer(ctx.node(scale).input(1));
    if (!ctx.isOp(inner, "Add"))
        return {};
    x = ctx.node(inner).input(0);
    const int cubic = g.producer(ctx.node(inner).input(1));
    if (cubic < 0 || !ctx.isOp(cubic, "Mul") || !ctx.isConstant(ctx.node(cubic).input(0), 0.044715))
        return {};
    const int cube = g.producer(ctx.node(cubic).input(1));
    if (cube < 0 || !ctx.isOp(cube, "Mul") || ctx.node(cube).input(0) != x)
        return {};
    const int square = g.producer(ctx.node(cube).input(1));
    if (!binary(ctx, square, "Mul", x, x))
        return {};
    const int plusOne = ctx.soleConsumer(out(ctx, tanh));
    if (!constFirst(ctx, plusOne, "Add", 1.0, out(ctx, tanh)))
        return {};
    const int times = ctx.soleConsumer(out(ctx, plusOne));
    if (!binary(ctx, times, "Mul", x, out(ctx, plusOne)))
        return {};
    const int half = ctx.soleConsumer(out(ctx, times));
    if (!constFirst(ctx, half, "Mul", 0.5, out(ctx, times)))
        return {};
    for (const int inside : { square, cube, cubic, inner, scale }) {
        if (ctx.soleConsumer(out(ctx, inside)) < 0)
            return {};
    }
    return { square, cube, cubic, inner, scale, tanh, plusOne, times, half };
}

/// Hugging Face's NewGELUActivation; the parts in graph order, or empty.
std::vector<int> newGelu(const MappingContext& ctx, int tanh, std::string& x)
{
    const auto& g = ctx.graph();
    const int scale = g.producer(ctx.node(tanh).input(0));
    if (scale < 0 || !ctx.isOp(scale, "Mul") || !ctx.isConstant(ctx.node(scale).input(1), kSqrt2OverPi))
        return {};
    const int inner = g.producer(ctx.node(scale).input(0));
    if (!ctx.isOp(inner, "Add"))
        return {};
    x = ctx.node(inner).input(0);
    const int cubic = g.producer(ctx.node(inner).input(1));
    if (cubic < 0 || !ctx.isOp(cubic, "Mul") || !ctx.isConstant(ctx.node(cubic).input(1), 0.044715))
        return {};
    const int cube = g.producer(ctx.node(cubic).input(0));
    if (!constSecond(ctx, cube, "Pow", x, 3.0))
        return {};
    const int plusOne = ctx.soleConsumer(out(ctx, tanh));
    if (!constSecond(ctx, plusOne, "Add", out(ctx, tanh), 1.0))
        return {};
    const int times = ctx.soleConsumer(out(ctx, plusOne));
    if (!ctx.isOp(times, "Mul") || ctx.node(times).input(1) != out(ctx, plusOne))
        return {};
    const int half = g.producer(ctx.node(times).input(0));
    if (!constSecond(ctx, half, "Mul", x, 0.5) || ctx.soleConsumer(out(ctx, half)) != times)
        return {};
    for (const int inside : { cube, cubic, inner, scale }) {
        if (ctx.soleConsumer(out(ctx, inside)) < 0)
            return {};
    }
    return { half, cube, cubic, inner, scale, tanh, plusOne, times };
}

} // namespace

void recogniseGeluTanh(MappingContext& ctx, int tanh)
{
    if (ctx.node(tanh).input_size() != 1 || ctx.node(tanh).output_size() != 1)
        return;
    std::string x;
    if (auto parts = torchGelu(ctx, tanh, x); !parts.empty() && ctx.graph().carriesData(x)) {
        ctx.fuse(parts,
            PendingLayer { "GELU", nlohmann::json { { "approximate", "tanh" } }, { x },
                out(ctx, parts.back()), parts.back() });
        return;
    }
    if (auto parts = newGelu(ctx, tanh, x); !parts.empty() && ctx.graph().carriesData(x))
        ctx.fuse(parts,
            PendingLayer {
                "NewGELU", nlohmann::json::object(), { x }, out(ctx, parts.back()), parts.back() });
}

} // namespace headroom::onnximport::ops

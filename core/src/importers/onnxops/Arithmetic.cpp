// Element-wise arithmetic, reductions and products of computed tensors: Mul, Div, Sub, Pow, Sqrt, Exp,
// Neg, Abs, ReduceMean / ReduceSum / ReduceMax / ReduceL2, MatMul of two computed tensors -> the kinds of
// the same names (Mul, Div, Sub, Pow, Sqrt, Exp, Neg, Abs, Mean, Sum, Amax, Norm, MatMul).
// An operand that does not depend on the input is a number (one element: a Python scalar, which costs
// nothing on the GPU) or a stored tensor (a layer scale, a position table), which becomes the layer's
// `parameter`, per sample: ONNX broadcasting aligns trailing axes, so a stored [1, 197, 768] next to a
// [B, 197, 768] input is [197, 768] per sample.
#include "Families.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace headroom::onnximport::ops {

namespace {

using nlohmann::json;

struct Operands
{
    std::vector<std::string> inputs; ///< computed tensors, in order
    std::optional<std::vector<std::int64_t>> parameter;
    std::optional<double> scalar;
    /// The trained values behind a parameter computed from stored tensors (derivedOperand), when it is one.
    std::optional<std::int64_t> parameterElements;
    bool constantFirst = false; ///< a stored operand comes before a computed one
};

/// The per-sample shape of a stored operand that broadcasts against a computed one of `rank` (with the
/// batch axis), or an explanation of why it cannot be a per-sample parameter.
std::optional<std::vector<std::int64_t>> perSampleParameter(MappingContext& ctx, int i,
    const std::string& value, std::size_t rank, std::optional<std::vector<std::int64_t>> dims)
{
    if (!dims)
        dims = ctx.weightDims(i, value, "operand");
    if (!dims)
        return std::nullopt;
    // A stored scalar whose value the file does not hold (stripped weights): a learned scalar, one value
    // that broadcasts as [1] does.
    if (dims->empty())
        return std::vector<std::int64_t> { 1 };
    if (dims->size() > rank) {
        ctx.reject(i, "its stored operand " + joinDims(*dims) + " has more axes than the computed one");
        return std::nullopt;
    }
    if (dims->size() == rank) {
        if (dims->front() != 1) {
            ctx.reject(i, "its stored operand " + joinDims(*dims) + " differs along the batch axis");
            return std::nullopt;
        }
        return std::vector<std::int64_t>(dims->begin() + 1, dims->end());
    }
    return *dims;
}

/// The value of a one-element operand computed from sizes only (the attention scale `head_dim ** -0.5`
/// traced from x.shape, torch 2's `1 / sqrt(sqrt(d))`): a number, as the Python scalar it was.
std::optional<double> sizeScalar(const OnnxGraph& g, const std::string& value, int depth = 0)
{
    if (const auto v = g.constantNumbers(value, 1); v && v->size() == 1)
        return v->front();
    if (const auto dims = g.shapeTensor(value); dims && dims->size() == 1 && dims->front().known())
        return static_cast<double>(*dims->front().value);
    const int p = g.producer(value);
    if (p < 0 || depth > 16)
        return std::nullopt;
    const auto& n = g.graph().node(p);
    const std::string& op = n.op_type();
    const auto in
        = [&](int k) { return n.input_size() > k ? sizeScalar(g, n.input(k), depth + 1) : std::nullopt; };
    if (op == "Cast" || op == "Identity" || op == "Squeeze" || op == "Unsqueeze")
        return in(0);
    if (op == "Sqrt" || op == "Reciprocal") {
        const auto x = in(0);
        return x && *x > 0 ? std::optional { op == "Sqrt" ? std::sqrt(*x) : 1.0 / *x } : std::nullopt;
    }
    const auto a = in(0);
    const auto b = in(1);
    if (!a || !b)
        return std::nullopt;
    if (op == "Mul")
        return *a * *b;
    if (op == "Div" && *b != 0.0)
        return *a / *b;
    if (op == "Add")
        return *a + *b;
    if (op == "Sub")
        return *a - *b;
    if (op == "Pow" && *a > 0)
        return std::pow(*a, *b);
    return std::nullopt;
}

/// Sorts a binary node's operands into computed inputs, a stored parameter and a number.
std::optional<Operands> operandsOf(MappingContext& ctx, int i)
{
    const auto& n = ctx.node(i);
    const auto& g = ctx.graph();
    Operands o;
    std::string computed;
    for (const auto& in : n.input()) {
        if (!in.empty() && g.carriesData(in)) {
            computed = in;
            break;
        }
    }
    if (computed.empty()) {
        ctx.reject(i, "none of its operands carries data from the input");
        return std::nullopt;
    }
    for (const auto& in : n.input()) {
        if (in.empty())
            continue;
        if (g.carriesData(in)) {
            o.inputs.push_back(in);
            continue;
        }
        if (o.inputs.empty())
            o.constantFirst = true;
        if (o.parameter || o.scalar) {
            ctx.refuse(i, "it has more than one stored operand");
            return std::nullopt;
        }
        if (const auto v = g.constantNumbers(in, 1); v && v->size() == 1) {
            o.scalar = v->front();
            continue;
        }
        if (const auto v = g.isDynamic(in) ? sizeScalar(g, in) : std::nullopt; v && std::isfinite(*v)) {
            o.scalar = *v; // computed from the input's sizes only
            continue;
        }
        const auto rank = ctx.rankOf(i, computed);
        if (!rank)
            return std::nullopt;
        const auto derived = derivedOperand(g, in);
        if (derived)
            o.parameterElements = derived->trainedElements;
        o.parameter
            = perSampleParameter(ctx, i, in, *rank, derived ? std::optional { derived->dims } : std::nullopt);
        if (!o.parameter)
            return std::nullopt;
    }
    return o;
}

/// Add, Sub, Mul, Div with a computed first operand; `commutes`: the operand order does not matter.
void binary(MappingContext& ctx, int i, const char* type, bool commutes)
{
    const auto& n = ctx.node(i);
    if (n.input_size() != 2) {
        ctx.reject(i, "it has " + std::to_string(n.input_size()) + " operands, not two");
        return;
    }
    auto o = operandsOf(ctx, i);
    if (!o)
        return;
    if (o->constantFirst && !commutes) {
        ctx.refuse(i,
            std::string("a stored operand before the computed one (c ")
                + (std::string(type) == "Sub" ? "-" : "/") + " x) has no Headroom layer; " + type
                + " takes the computed tensor first");
        return;
    }
    if (o->parameterElements == 0 && std::string(type) != "Add") {
        ctx.refuse(i,
            "its operand '" + n.input(o->constantFirst ? 0 : 1)
                + "' is a constant computed from sizes; only an Add of one has a Headroom layer");
        return;
    }
    json a = json::object();
    if (o->parameter)
        a["parameter"] = *o->parameter;
    if (o->parameter && o->parameterElements) {
        std::int64_t own = 1;
        bool overflow = false;
        for (const auto d : *o->parameter)
            overflow = overflow || __builtin_mul_overflow(own, d, &own);
        if (overflow || own != *o->parameterElements)
            a["parameter_elements"] = *o->parameterElements;
    }
    if (o->scalar)
        a["scalar"] = *o->scalar;
    ctx.push(PendingLayer { type, a, o->inputs, n.output(0), i });
}

void add(MappingContext& ctx, int i)
{
    const auto& n = ctx.node(i);
    int computed = 0;
    for (const auto& in : n.input())
        computed += !in.empty() && ctx.graph().carriesData(in) ? 1 : 0;
    if (computed == n.input_size() && computed == 1) {
        ctx.emit(i, "Identity");
        return;
    }
    if (computed == n.input_size()) {
        std::vector<std::string> inputs(n.input().begin(), n.input().end());
        ctx.push(PendingLayer { "Add", json::object(), inputs, n.output(0), i });
        return;
    }
    binary(ctx, i, "Add", true);
}

void mul(MappingContext& ctx, int i)
{
    binary(ctx, i, "Mul", true);
}
void sub(MappingContext& ctx, int i)
{
    binary(ctx, i, "Sub", false);
}
void div(MappingContext& ctx, int i)
{
    binary(ctx, i, "Div", false);
}

void pow(MappingContext& ctx, int i)
{
    const auto& n = ctx.node(i);
    const auto e = n.input_size() == 2 ? ctx.graph().constantNumbers(n.input(1), 1) : std::nullopt;
    if (!e || e->size() != 1 || !(std::fabs(e->front()) <= std::numeric_limits<float>::max())) {
        ctx.refuse(i, "its exponent is not one stored float32 number");
        return;
    }
    ctx.emit(i, "Pow", json { { "exponent", decimal(static_cast<float>(e->front())) } });
}

void sqrt(MappingContext& ctx, int i)
{
    ctx.emit(i, "Sqrt");
}
void exp(MappingContext& ctx, int i)
{
    ctx.emit(i, "Exp");
}
void neg(MappingContext& ctx, int i)
{
    ctx.emit(i, "Neg");
}
void abs(MappingContext& ctx, int i)
{
    ctx.emit(i, "Abs");
}

/// ReduceMean / ReduceSum / ReduceMax over feature axes: ONNX's axes count the batch axis as 0, as
/// the kinds' `dim` does. Axes are an attribute, or (ReduceSum from opset 13, the others from 18) an input.
void reduce(MappingContext& ctx, int i, const char* type)
{
    const auto& n = ctx.node(i);
    std::optional<std::vector<std::int64_t>> axes = attrInts(n, "axes");
    if (!axes && n.input_size() > 1 && !n.input(1).empty()) {
        const auto v = ctx.graph().constantNumbers(n.input(1), 64);
        if (!v) {
            ctx.refuse(i, "its axes are computed at run time");
            return;
        }
        axes.emplace();
        for (const double x : *v) {
            const auto k = saturatedInteger(x);
            if (!k) {
                ctx.reject(i, "its axes are not numbers");
                return;
            }
            axes->push_back(*k);
        }
    }
    const auto rank = ctx.rankOf(i, n.input(0));
    if (!rank)
        return;
    if (!axes || axes->empty()) {
        if (attrInt(n, "noop_with_empty_axes").value_or(0) != 0) {
            ctx.emit(i, "Identity");
            return;
        }
        ctx.reject(i, "it reduces every axis, the batch axis too");
        return;
    }
    for (auto& a : *axes) {
        // As Headroom's tensor has them: after a batch axis merged with windows or heads (q of Swin V2's
        // cosine attention, [B * windows, heads, T, d]), the axes after it move on.
        const auto axis = featureAxisOf(ctx, i, a, n.input(0), "reduced axis");
        if (!axis)
            return;
        a = *axis;
    }
    std::sort(axes->begin(), axes->end());
    json a { { "dim", *axes } };
    if (attrInt(n, "keepdims").value_or(1) != 0)
        a["keepdim"] = true;
    ctx.emit(i, type, a);
}

void reduceMean(MappingContext& ctx, int i)
{
    reduce(ctx, i, "Mean");
}
void reduceSum(MappingContext& ctx, int i)
{
    reduce(ctx, i, "Sum");
}
void reduceMax(MappingContext& ctx, int i)
{
    reduce(ctx, i, "Amax");
}
void reduceL2(MappingContext& ctx, int i)
{
    reduce(ctx, i, "Norm");
}

} // namespace

void addArithmetic(Operators& table)
{
    table.push_back({ "Add", &add });
    table.push_back({ "Mul", &mul });
    table.push_back({ "Sub", &sub });
    table.push_back({ "Div", &div });
    table.push_back({ "Pow", &pow });
    table.push_back({ "Sqrt", &sqrt });
    table.push_back({ "Exp", &exp });
    table.push_back({ "Neg", &neg });
    table.push_back({ "Abs", &abs });
    table.push_back({ "ReduceMean", &reduceMean });
    table.push_back({ "ReduceSum", &reduceSum });
    table.push_back({ "ReduceMax", &reduceMax });
    table.push_back({ "ReduceL2", &reduceL2 });
}

} // namespace headroom::onnximport::ops

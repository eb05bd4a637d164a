// A random tensor that needs no gradient, multiplied in: torch.bernoulli as both exporters write it,
//   rands = RandomUniformLike(a tensor of the noise's shape); noise = Cast(Less(rands, q)) [/ q]
//   Mul(x, noise)
// with q = 1 - p the probability of keeping. What it is follows from the noise's shape:
// - [B, 1, ..., 1]: torchvision.ops.StochasticDepth(p, "row") (noise = empty([B, 1, ..., 1])
//   .bernoulli_(1 - p).div_(1 - p); input * noise) -> StochasticDepth, mode row;
// - [1, ..., 1] of the same rank: StochasticDepth(p, "batch") -> StochasticDepth, mode batch;
// - the shape of x: in-place dropout (F.dropout(inplace=True) is _dropout_impl<inplace>: empty_like(x)
//   .bernoulli_(1 - p).div_(1 - p), then x.mul_(noise)), which the dynamo exporter writes this way while
//   it writes F.dropout as a Dropout node -> Dropout, inplace.
// In each case mul saves the noise alone (derivatives.yaml mul.Tensor: `other` for self's gradient,
// `self` only when other requires grad), which the layer kinds count. Other shapes are left to the
// operators one by one.
#include "Families.h"

#include <algorithm>
#include <cmath>

namespace headroom::onnximport::ops {

namespace {

struct Noise
{
    std::vector<int> nodes; ///< RandomUniformLike, Less, Cast and the Div, if any
    std::string shapeOf; ///< the random tensor, whose shape the noise has
    double keep = 1.0;
};

/// The producer of `value` when it is `op` and `value` feeds nothing but `user`.
int onlyFor(const MappingContext& ctx, const std::string& value, const char* op, int user)
{
    const int p = ctx.graph().producer(value);
    return ctx.isOp(p, op) && ctx.soleConsumer(value) == user ? p : -1;
}

/// A float Cast of (RandomUniformLike(...) < q), divided by q, ending in `noise`, which `mul` reads.
std::optional<Noise> bernoulliNoise(const MappingContext& ctx, const std::string& noise, int mul)
{
    Noise out;
    std::string value = noise;
    int user = mul;
    const int div = onlyFor(ctx, value, "Div", user);
    std::optional<double> divisor;
    if (div >= 0) {
        const auto& d = ctx.node(div);
        const auto c = d.input_size() == 2 ? ctx.graph().constantNumbers(d.input(1), 1) : std::nullopt;
        if (!c || c->size() != 1)
            return std::nullopt;
        divisor = c->front();
        out.nodes.push_back(div);
        value = d.input(0);
        user = div;
    }
    const int cast = onlyFor(ctx, value, "Cast", user);
    const int less = cast >= 0 ? onlyFor(ctx, ctx.node(cast).input(0), "Less", cast) : -1;
    if (less < 0 || ctx.node(less).input_size() != 2)
        return std::nullopt;
    const auto q = ctx.graph().constantNumbers(ctx.node(less).input(1), 1);
    const int random = onlyFor(ctx, ctx.node(less).input(0), "RandomUniformLike", less);
    if (!q || q->size() != 1 || random < 0 || attrFloat(ctx.node(random), "low").value_or(0.0) != 0.0
        || attrFloat(ctx.node(random), "high").value_or(1.0) != 1.0)
        return std::nullopt;
    out.keep = q->front();
    // bernoulli_(q) then div_(q) when q > 0: the divisor is the same float32 number.
    if (!(out.keep >= 0.0 && out.keep <= 1.0)
        || (divisor && static_cast<float>(*divisor) != static_cast<float>(out.keep)))
        return std::nullopt;
    out.nodes.insert(out.nodes.end(), { cast, less, random });
    out.shapeOf = ctx.node(random).output(0);
    return out;
}

/// "row", "batch" or "inplace dropout" for a noise of `noise`'s type next to x; empty otherwise.
std::string noiseKind(const OnnxGraph& g, const std::string& noise, const std::string& x)
{
    const auto* n = g.type(noise);
    const auto* t = g.type(x);
    if (n == nullptr || t == nullptr || !n->hasShape || !t->hasShape || n->rank() != t->rank()
        || n->rank() < 1 || g.batchAxisOf(x) != 0)
        return {};
    const bool onesAfter
        = std::all_of(n->dims.begin() + 1, n->dims.end(), [](const Dim& d) { return d.value == 1; });
    if (onesAfter && n->dims.front().value == 1)
        return "batch";
    if (onesAfter && batchMultiple(n->dims.front(), g.batchSymbol()) == 1)
        return "row";
    const auto xs = t->perSample();
    const auto ns = n->perSample();
    if (xs && ns && *xs == *ns && batchMultiple(n->dims.front(), g.batchSymbol()) == 1)
        return "inplace dropout";
    return {};
}

} // namespace

void recogniseRandomNoise(MappingContext& ctx, int mul)
{
    const auto& m = ctx.node(mul);
    const auto& g = ctx.graph();
    if (m.input_size() != 2)
        return;
    for (int k = 0; k < 2; ++k) {
        const std::string& x = m.input(1 - k);
        if (!g.carriesData(x)) // the noise may too: RandomUniformLike(x) takes x's shape, not its values
            continue;
        const auto noise = bernoulliNoise(ctx, m.input(k), mul);
        if (!noise)
            continue;
        const std::string kind = noiseKind(g, noise->shapeOf, x);
        if (kind.empty())
            continue;
        // q is stored as float32 (0.8 for p = 0.2): p to nine decimals, as the module was given it.
        const double p = std::round((1.0 - decimal(static_cast<float>(noise->keep))) * 1e9) / 1e9;
        std::vector<int> parts = noise->nodes;
        parts.push_back(mul);
        if (kind == "inplace dropout")
            ctx.fuse(parts,
                PendingLayer { "Dropout", { { "p", p }, { "inplace", true } }, { x }, m.output(0), mul });
        else
            ctx.fuse(parts,
                PendingLayer {
                    "StochasticDepth", { { "p", p }, { "mode", kind } }, { x }, m.output(0), mul });
        return;
    }
}

} // namespace headroom::onnximport::ops

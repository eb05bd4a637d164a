// Elementwise activations: Relu, LeakyRelu, Sigmoid, Tanh, Identity, Gelu, HardSigmoid, HardSwish,
// Mish, Softplus, Elu, Celu, Selu, PRelu, Clip as ReLU6 / ReLU / Clamp, and a Cast to its own type.
#include "Families.h"

#include <limits>

namespace headroom::onnximport::ops {

namespace {

using nlohmann::json;

void relu(MappingContext& ctx, int i)
{
    ctx.emit(i, "ReLU");
}
void sigmoid(MappingContext& ctx, int i)
{
    ctx.emit(i, "Sigmoid");
}
void tanh(MappingContext& ctx, int i)
{
    ctx.emit(i, "Tanh");
}
void identity(MappingContext& ctx, int i)
{
    ctx.emit(i, "Identity");
}

/// Cast to the type its input already has: x.to(dtype) and x.type(dtype) return x itself then (no copy,
/// nothing kept), though torch.onnx still writes the Cast. A real conversion has no exact layer.
void cast(MappingContext& ctx, int i)
{
    const auto& n = ctx.node(i);
    const auto* in = ctx.graph().type(n.input(0));
    const auto to = attrInt(n, "to");
    if (in != nullptr && in->elementType != 0 && to && *to == in->elementType)
        ctx.emit(i, "Identity");
    else
        ctx.refuse(i);
}

/// Gelu (opset 20, as torch's dynamo exporter writes F.gelu): approximate "none" or "tanh", as PyTorch's.
void gelu(MappingContext& ctx, int i)
{
    const std::string approximate = attrString(ctx.node(i), "approximate", "none");
    if (approximate != "none" && approximate != "tanh") {
        ctx.reject(i, "approximate \"" + approximate + "\" is not an ONNX Gelu mode");
        return;
    }
    ctx.emit(i, "GELU", approximate == "none" ? json::object() : json { { "approximate", approximate } });
}

void leakyRelu(MappingContext& ctx, int i)
{
    json a = json::object();
    if (const auto alpha = attrFloat(ctx.node(i), "alpha"); alpha && !near(*alpha, 0.01))
        a["negative_slope"] = *alpha;
    ctx.emit(i, "LeakyReLU", a);
}

void clip(MappingContext& ctx, int i)
{
    const auto& n = ctx.node(i);
    std::optional<double> low, high;
    if (ctx.opset() < 11) {
        low = attrFloat(n, "min");
        high = attrFloat(n, "max");
    } else {
        for (int k = 1; k <= 2; ++k) {
            if (n.input_size() <= k || n.input(k).empty())
                continue;
            const auto v = ctx.graph().constantNumbers(n.input(k), 1);
            if (!v || v->size() != 1) {
                ctx.refuse(i, "its bounds are computed at run time");
                return;
            }
            (k == 1 ? low : high) = v->front();
        }
    }
    const double lowest = -std::numeric_limits<float>::max();
    const double highest = std::numeric_limits<float>::max();
    if (low && *low == 0.0 && high && *high == 6.0)
        ctx.emit(i, "ReLU6");
    else if (low && *low == 0.0 && (!high || *high >= highest))
        ctx.emit(i, "ReLU");
    else if ((!low || *low <= lowest) && (!high || *high >= highest))
        ctx.emit(i, "Identity");
    else {
        json a = json::object();
        if (low && *low > lowest)
            a["min"] = *low;
        if (high && *high < highest)
            a["max"] = *high;
        ctx.emit(i, "Clamp", a);
    }
}

/// An attribute only where it differs from PyTorch's default.
void setIfNot(json& a, const char* name, std::optional<double> value, double torchDefault)
{
    if (value && !near(*value, torchDefault))
        a[name] = decimal(static_cast<float>(*value));
}

void hardSigmoid(MappingContext& ctx, int i)
{
    const auto& n = ctx.node(i);
    const double alpha = attrFloat(n, "alpha").value_or(0.2);
    const double beta = attrFloat(n, "beta").value_or(0.5);
    if (!near(alpha, 1.0 / 6.0) || !near(beta, 0.5)) {
        ctx.refuse(i,
            "HardSigmoid with alpha " + numberText(alpha) + " and beta " + numberText(beta)
                + " is not nn.Hardsigmoid (alpha 1/6, beta 0.5)");
        return;
    }
    ctx.emit(i, "Hardsigmoid");
}

void hardSwish(MappingContext& ctx, int i)
{
    ctx.emit(i, "Hardswish");
}
void mish(MappingContext& ctx, int i)
{
    ctx.emit(i, "Mish");
}

void softplus(MappingContext& ctx, int i)
{
    ctx.emit(i, "Softplus");
}

void elu(MappingContext& ctx, int i)
{
    json a = json::object();
    setIfNot(a, "alpha", attrFloat(ctx.node(i), "alpha"), 1.0);
    ctx.emit(i, "ELU", a);
}

void celu(MappingContext& ctx, int i)
{
    json a = json::object();
    setIfNot(a, "alpha", attrFloat(ctx.node(i), "alpha"), 1.0);
    ctx.emit(i, "CELU", a);
}

void selu(MappingContext& ctx, int i)
{
    // nn.SELU has fixed constants (alpha 1.6732632, gamma 1.0507010), ONNX's defaults.
    const auto& n = ctx.node(i);
    const double alpha = attrFloat(n, "alpha").value_or(1.67326319217681884765625);
    const double gamma = attrFloat(n, "gamma").value_or(1.05070102214813232421875);
    if (!near(alpha, 1.6732632) || !near(gamma, 1.0507010)) {
        ctx.refuse(i,
            "Selu with alpha " + numberText(alpha) + " and gamma " + numberText(gamma) + " is not nn.SELU's");
        return;
    }
    ctx.emit(i, "SELU");
}

/// PRelu: the slope is a stored tensor of one value or one per channel ([C], [C, 1, 1], ...).
void prelu(MappingContext& ctx, int i)
{
    const auto& n = ctx.node(i);
    if (n.input_size() != 2) {
        ctx.reject(i, "it has no slope input");
        return;
    }
    const auto slope = ctx.weightDims(i, n.input(1), "slope");
    const auto in = ctx.perSampleOf(i, n.input(0));
    if (!slope || !in)
        return;
    std::int64_t count = 1;
    for (const auto d : *slope)
        count *= d;
    if (count != 1 && (in->empty() || count != in->front())) {
        ctx.refuse(i, "its slope " + joinDims(*slope) + " is neither one value nor one per channel");
        return;
    }
    ctx.emit(i, "PReLU", count == 1 ? json::object() : json { { "num_parameters", count } });
}

} // namespace

void addActivations(Operators& table)
{
    table.push_back({ "Relu", &relu });
    table.push_back({ "LeakyRelu", &leakyRelu });
    table.push_back({ "Sigmoid", &sigmoid });
    table.push_back({ "Tanh", &tanh });
    table.push_back({ "Clip", &clip });
    table.push_back({ "Identity", &identity });
    table.push_back({ "Cast", &cast });
    table.push_back({ "Gelu", &gelu });
    table.push_back({ "HardSigmoid", &hardSigmoid });
    table.push_back({ "HardSwish", &hardSwish });
    table.push_back({ "Mish", &mish });
    table.push_back({ "Softplus", &softplus });
    table.push_back({ "Elu", &elu });
    table.push_back({ "Celu", &celu });
    table.push_back({ "Selu", &selu });
    table.push_back({ "PRelu", &prelu });
}

} // namespace headroom::onnximport::ops

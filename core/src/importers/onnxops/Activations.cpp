// Elementwise activations: Relu, LeakyRelu, Sigmoid, Tanh, Identity, Gelu, and Clip as ReLU6 / ReLU.
#include "Families.h"

#include <limits>

namespace headroom::onnximport::ops {

namespace {

using nlohmann::json;

void relu(MappingContext& ctx, int i) { ctx.emit(i, "ReLU"); }
void sigmoid(MappingContext& ctx, int i) { ctx.emit(i, "Sigmoid"); }
void tanh(MappingContext& ctx, int i) { ctx.emit(i, "Tanh"); }
void identity(MappingContext& ctx, int i) { ctx.emit(i, "Identity"); }

/// Gelu (opset 20, as torch's dynamo exporter writes F.gelu): approximate "none" or "tanh", as PyTorch's.
void gelu(MappingContext& ctx, int i)
{
    const std::string approximate = attrString(ctx.node(i), "approximate", "none");
    if (approximate != "none" && approximate != "tanh") {
        ctx.reject(i, "approximate \"" + approximate + "\" is not an ONNX Gelu mode");
        return;
    }
    ctx.emit(i, "GELU", approximate == "none" ? json::object() : json{{"approximate", approximate}});
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
    else
        ctx.refuse(i,
            "clipping to [" + (low ? numberText(*low) : std::string("-inf")) + ", "
                + (high ? numberText(*high) : std::string("inf"))
                + "] has no Headroom layer (only [0, 6] as ReLU6 and [0, inf] as ReLU)");
}

} // namespace

void addActivations(Operators& table)
{
    table.push_back({"Relu", &relu});
    table.push_back({"LeakyRelu", &leakyRelu});
    table.push_back({"Sigmoid", &sigmoid});
    table.push_back({"Tanh", &tanh});
    table.push_back({"Clip", &clip});
    table.push_back({"Identity", &identity});
    table.push_back({"Gelu", &gelu});
}

} // namespace headroom::onnximport::ops
